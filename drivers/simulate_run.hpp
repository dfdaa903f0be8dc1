// SimulateCommand::run_model: `rsmc simulate` for one concrete model type (a template, so models
// registered from outside rsmc work as the built-in ones do; see drivers/register_model.hpp).
#pragma once

#include "framework/parallel/mpi.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "drivers/collective.hpp"
#include "drivers/component_names.hpp"
#include "drivers/device_choice.hpp"
#include "drivers/field_flags.hpp"
#include "drivers/simulate_command.hpp"
#include "framework/engine/memory_preflight.hpp"
#include "framework/engine/simulate.hpp"
#include "framework/io/atomic_file.hpp"
#include "framework/io/existing_file.hpp"
#include "framework/io/csv_observations.hpp"
#include "framework/io/hdf5_observations.hpp"
#include "framework/io/observations_file.hpp"

namespace rsmc::drivers {

template <class Model>
int SimulateCommand::run_model(MPI_Comm comm, Model model_instance) {
  Observations y, x;  // observations y_1..y_T and the true states x_1..x_T as a T x d series
  const DataFormat format = data_format(output);
  // CSV: the states go beside the observations (a data file's every column is an observation):
  // data.csv -> data.state.csv, DATA.CSV -> DATA.state.csv. HDF5: the /state dataset.
  const std::string states_where =
      format == DataFormat::csv ? output.substr(0, output.size() - lowercase_extension(output).size()) + ".state.csv"
                                : output + ":/state";
  run_collectively(comm, [&] {
    // The output is checked before simulating: a bad name should not cost a whole simulation.
    if (format != DataFormat::csv && format != DataFormat::hdf5)
      throw Error(input_name("output") + ": " + output + " has an unknown extension; expected .csv, .h5 or .hdf5");
    std::vector<std::string> written{output};
    if (format == DataFormat::csv) written.insert(written.begin(), states_where);
    for (const std::string& path : written) refuse_existing_file("output", path, overwrite);
    check_step_count(steps);
  });
  run_on_root(comm, [&] { refuse_uncreatable_file("output", output); });  // rank 0 writes it
  // The simulation fits in memory before any of it is made (memory_preflight.hpp). Collective.
  const int d = model_instance.state_dim(), m = model_instance.obs_dim();
  const std::string where_d = model_parameters.where_integer(d);
  check_steps_fit(comm, static_cast<std::uint64_t>(steps), simulation_bytes_per_step(d, m), "the simulated data",
                  d >= 4 ? "state dimension " + std::to_string(d) + (where_d.empty() ? "" : " (" + where_d + ")") : "");
  run_collectively(comm, [&] {
    // simulate() refuses seeds of 2^56 or more; seed >= 0: the option's notation and --config.
    const Simulation simulated = with_device_space(resolve_device(device), [&](auto space) {
      return simulate<Model, decltype(space)>(model_instance, steps, static_cast<std::uint64_t>(seed));
    });
    y = simulated.observations;
    x.steps = y.steps;
    x.dim = simulated.state_dim;
    x.values.assign(simulated.states.begin() + simulated.state_dim, simulated.states.end());  // without x_0
  });
  run_on_root(comm, [&] {
    if (format == DataFormat::csv) {
      write_observations_csv(states_where, x, state_names(model_instance), overwrite);
      write_observations_csv(output, y, observation_names(model_instance), overwrite);
    } else {
      write_observations_hdf5(output, y, overwrite, &x, Model::name);
    }
    std::printf("wrote %d observations of model %s to %s, the true states to %s\n", y.steps, model.c_str(),
                output.c_str(), states_where.c_str());
  });
  return 0;
}

}  // namespace rsmc::drivers
