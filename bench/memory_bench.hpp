// `rsmc bench memory`: the peak resident bytes per particle of one filter run, measured.
//
// One (model, N) per process, because the peak resident set (VmHWM) only grows: the driver script
// (scripts/bench-e2e.sh) starts a fresh process per size. The process reads VmHWM after MPI, Kokkos,
// the model and the simulated data are set up (its baseline footprint), runs the filter for --steps
// (resampling every step), and reads VmHWM again; the difference over the rank's particles is the
// peak bytes per particle, reported against the state bytes (8 d) and the target 3 x 8 d + 64.
// --implementation reference or scalar measures bench/reference_filter.hpp or bench/scalar_filter.hpp instead.
#pragma once

#include "framework/parallel/mpi.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace rsmc::bench {

struct MemoryBench {
  std::string model = "linear_gaussian";
  std::string particles = "100000";
  std::string implementation = "framework";  // framework | hand
  long long steps = 3;
  long long seed = 1;

  void add_to(CLI::App& app);
  int run(MPI_Comm comm) const;
};

}  // namespace rsmc::bench
