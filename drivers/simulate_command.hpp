// `rsmc simulate`: draw a data set y_1..y_T from a model, as CSV or HDF5 observations.
#pragma once

#include <mpi.h>

#include <CLI/CLI.hpp>
#include <string>

namespace rsmc::drivers {

struct SimulateCommand {
  std::string model = "linear_gaussian";
  long long steps = 50;
  long long seed = 1;
  std::string output;
  bool overwrite = false;

  void add_to(CLI::App& app);
  int run(MPI_Comm comm) const;
};

}  // namespace rsmc::drivers
