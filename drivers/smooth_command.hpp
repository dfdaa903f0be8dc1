// `rsmc smooth TRACE -o OUT`: smoothed means and variances from a trace file (rsmc filter --trace)
// by genealogy tracing (framework/smooth/genealogy_smoother.hpp). Runs on rank 0 only (it reads the
// trace step by step, O(N d) memory); other ranks wait. The output does not depend on the rank count.
#pragma once

#include "framework/parallel/mpi.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace rsmc::drivers {

struct SmoothCommand {
  std::string trace;   // input
  std::string output;  // smoothed-moments HDF5 file
  bool overwrite = false;
  bool quiet = false;
  long long paths = 0;  // --paths M: sampled trajectories

  void add_to(CLI::App& app);
  int run(MPI_Comm comm) const;  // throws rsmc::Error on bad input
};

}  // namespace rsmc::drivers
