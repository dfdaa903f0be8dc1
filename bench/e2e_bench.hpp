// `rsmc bench e2e`: end-to-end filter throughput of the framework (rsmc) against two single-process
// filters measured in the same run: the `reference` (bench/reference_filter.hpp, the fastest plain C++
// we can write, the anchor of the speed targets) and the `scalar` filter (bench/scalar_filter.hpp,
// straightforward scalar code, formerly "the hand-written filter").
//
// For every (model, N): simulate --steps observations from the model once (seed), or read --data,
// then --repeats times each, repeat r with seed + r (median time reported; every log-likelihood kept,
// for the Welch t of rsmc against the reference):
//   - the framework (BootstrapFilter, ESS threshold 1 = resampling every step, systematic, roulette,
//     search sampler) on all ranks of the communicator;
//   - with more than one rank, the framework on rank 0 alone (a one-rank sub-communicator), so the
//     speed-up over one rank is measured in the same run; the log-likelihoods must be bitwise
//     identical (the reproducibility contract), or the benchmark fails;
//   - the reference and the scalar filter on rank 0 (single process; the other ranks wait).
// The Kokkos thread count is recorded ("threads"): scripts/bench-e2e.sh runs a Kokkos OpenMP build
// at 1 and 2 threads for the thread sweep.
// The framework's phase times (framework/parallel/phase_times.hpp) of its median repeat give the phase
// profile as fractions of the run time. Configurations that exceed --max-work (N x d x steps, a time
// budget) or the memory available are printed as skipped lines with the reason.
#pragma once

#include "framework/parallel/mpi.hpp"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace rsmc::bench {

struct E2EBench {
  std::vector<std::string> models{"linear_gaussian"};  // names of bench/bench_models.hpp
  std::vector<std::string> particles{"100000"};
  std::vector<std::string> implementations{"rsmc", "reference", "scalar"};
  std::string data;  // observations file instead of simulated data (one model)
  long long steps = 10;
  long long repeats = 3;
  long long seed = 1;
  double max_work = 4e9;  // N * d * steps above which a configuration is skipped
  bool verbose = false;

  void add_to(CLI::App& app);
  int run(MPI_Comm comm) const;
};

}  // namespace rsmc::bench
