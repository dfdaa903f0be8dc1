// SimulateCommand::run_model: `rsmc simulate` for one concrete model type (a template, so models
// registered from outside rsmc work as the built-in ones do; see drivers/register_model.hpp).
#pragma once

#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "drivers/collective.hpp"
#include "drivers/simulate_command.hpp"
#include "framework/engine/simulate.hpp"
#include "framework/io/csv_observations.hpp"
#include "framework/io/hdf5_observations.hpp"

namespace rsmc::drivers {

template <class Model>
int SimulateCommand::run_model(MPI_Comm comm, Model model_instance) {
  Observations y;
  run_collectively(comm, [&] {
    if (steps < 1) throw Error("--steps: " + std::to_string(steps) + " is not a valid step count; expected >= 1");
    if (seed < 0 || static_cast<unsigned long long>(seed) > rng::kMaxSeed)
      throw Error("--seed: " + std::to_string(seed) + " is out of range; expected 0 <= seed < 2^56");
    y = simulate(model_instance, static_cast<int>(steps), static_cast<std::uint64_t>(seed)).observations;
  });
  run_on_root(comm, [&] {
    const auto dot = output.rfind('.');
    const std::string ext = dot == std::string::npos ? "" : output.substr(dot);
    if (ext == ".csv") {
      std::vector<std::string> names;
      for (int j = 0; j < y.dim; ++j) names.push_back("y" + std::to_string(j + 1));
      write_observations_csv(output, y, names, overwrite);
    } else if (ext == ".h5" || ext == ".hdf5") {
      write_observations_hdf5(output, y, overwrite);
    } else {
      throw Error("--output: " + output + " has an unknown extension; expected .csv, .h5 or .hdf5");
    }
    std::printf("wrote %d observations of model %s to %s\n", y.steps, Model::name, output.c_str());
  });
  return 0;
}

}  // namespace rsmc::drivers
