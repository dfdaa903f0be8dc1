// `rsmc bench select`: times the selection alone (no fixed-point weights, no particle movement):
// the serial select_offspring (framework/resample/select/selection.hpp) with the expansion of its counts
// into ancestors that the roulette resampler then does, against the data-parallel selection
// (framework/resample/select/parallel_selection.hpp) in the default execution space, measured in the same
// run on the same fixed-point weights.
//
// For every (N, scheme, local sampler): fixed-point weights of log-weights 2 log u (u uniform from
// the stream (seed, initialise, 0, global id), the resample benchmark's `random`), the block
// distribution over the communicator, then --repeats times each: the serial selection, the serial
// expansion into ancestors, and the parallel selection without and with per-particle counts (both
// keep their buffers over the repeats). The parallel ancestors and counts are checked against the
// serial ones once per configuration. Rank 0 prints one JSON line per configuration: medians and
// minima in nanoseconds per local particle, the execution space and its concurrency, the load
// average, and serial / parallel ratios (of the medians). Run it with OMP_NUM_THREADS = 1, 2, ...
// for the thread sweep.
#pragma once

#include <mpi.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace rsmc::bench {

struct SelectBench {
  std::vector<std::string> particles{"1000000"};
  std::vector<std::string> schemes{"systematic"};
  std::vector<std::string> samplers{"search"};
  long long repeats = 5;
  long long seed = 1;

  void add_to(CLI::App& app);
  int run(MPI_Comm comm) const;  // returns the exit code; throws rsmc::Error on bad input
};

}  // namespace rsmc::bench
