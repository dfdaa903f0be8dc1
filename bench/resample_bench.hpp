// `rsmc bench resample`: times one resampling of N particles with every resampler implementation,
// against a plain memory copy of the same state bytes measured in the same run.
//
// For every (N, state bytes, scheme, implementation): a ParticleStore<Kokkos::HostSpace> with the
// block distribution over the communicator, deterministic states (component c of global id g is
// g * d + c) and log-weights (--weights), then --repeats times: restore the inputs from a pristine
// copy (untimed), time a std::memcpy of this rank's state bytes, time one resampling (MPI_Wtime
// after a barrier; the maximum over ranks; the roulette resampler keeps its workspace over the
// repeats, as a filter keeps it over steps, so the median is the steady state). Rank 0 prints one
// JSON line per configuration on stdout (docs/performance.md lists the fields; the load average is
// recorded); an implementation that cannot run a scheme gets a line with "skipped": true and the
// reason. Nothing else goes to stdout; --verbose reports progress on stderr.
//
// --balance-tolerance tau,... (roulette resamplers; default 0): one line per tau, the resampling
// moving to the layout choose_layout picks within the band (framework/particles/load_band.hpp),
// with the traffic references of bench/band_minimum.hpp: the exact minimum for the band (computed
// independently, by a dense dynamic programme) and the any-layout bound sum_k max(0, c_k - t_k).
#pragma once

#include "framework/parallel/mpi.hpp"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace rsmc::bench {

struct ResampleBench {
  std::vector<std::string> particles{"100000"};    // N; a comma list or repeated option
  std::vector<std::string> state_bytes{"16"};      // bytes per particle state, a multiple of 8
  std::vector<std::string> schemes{"systematic"};  // multinomial, stratified, systematic, residual
  std::vector<std::string> implementations{"all"};
  std::vector<std::string> tolerances{"0"};  // --balance-tolerance: the load bands to rebalance into
  std::string weights = "random";            // random | equal | skewed
  std::string local_sampler = "search";      // the roulette resampler's local kernel
  long long repeats = 5;
  long long seed = 1;
  bool verbose = false;

  void add_to(CLI::App& app);
  int run(MPI_Comm comm) const;  // returns the exit code; throws rsmc::Error on bad input
};

}  // namespace rsmc::bench
