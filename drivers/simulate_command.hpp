// `rsmc simulate`: draw a data set y_1..y_T from a model, as CSV or HDF5 observations.
#pragma once

#include "framework/parallel/mpi.hpp"

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "drivers/model_parameters.hpp"
#include "drivers/run_config.hpp"
#include "drivers/shared_options.hpp"

namespace rsmc::drivers {

// Of the settings rsmc filter and pmmh share (RunSettings, shared_options.hpp) it has model, steps,
// seed, output, overwrite and device.
struct SimulateCommand : RunSettings {
  SimulateCommand() { steps = kDefaultSimulatedSteps; }  // the data `rsmc filter` simulates without --data
  std::string config_file;  // --config: the same TOML as `rsmc filter --config` (model, steps, seed, [parameters])
  ConfigBindings config_keys;
  std::shared_ptr<config::TomlDocument> config_document;
  ModelParameters model_parameters;

  void add_to(CLI::App& app);
  // Applies --config, then simulates from the registered model named --model.
  int run(MPI_Comm comm);
  // The simulation for one model type (drivers/simulate_run.hpp); called through the registry.
  template <class Model>
  int run_model(MPI_Comm comm, Model model);
};

}  // namespace rsmc::drivers
