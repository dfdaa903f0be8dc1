// register_model: make a model available to the standard command line under a name.
//
//   rsmc::drivers::register_model("random_walk", "x_t = x_{t-1} + N(0, q), y_t = x_t + N(0, r)",
//                                 {{"q", "0.5", "process noise variance"}, {"r", "1.0", "..."}},
//                                 [](const rsmc::drivers::ModelParameters& p) {
//                                   return RandomWalk(p.number("q", 0.5), p.number("r", 1.0));
//                                 });
//   return rsmc::drivers::run_cli(argc, argv);   // drivers/cli.hpp
//
// `build` turns a run configuration's [parameters] into the model (keys not listed in `parameters`
// are refused before it is called; anything not given keeps the default `build` chooses). The
// filter and simulate commands are compiled here, in the caller's program, for the model's type:
// the same engine, options, checkpoints and outputs as the built-in models.
#pragma once

#include <array>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "drivers/filter_run.hpp"
#include "drivers/model_parameters.hpp"
#include "drivers/model_registry.hpp"
#include "drivers/simulate_run.hpp"

namespace rsmc::drivers {

template <class Build>
void register_model(std::string name, std::string summary, std::vector<std::array<std::string, 3>> parameters,
                    Build build) {
  using Model = std::decay_t<std::invoke_result_t<Build&, const ModelParameters&>>;
  std::vector<std::string> known;
  for (const auto& p : parameters) known.push_back(p[0]);
  auto make = [name, known, build](const ModelParameters& given) -> Model {
    given.check_known(name, known);
    return build(given);
  };
  ModelEntry entry;
  entry.name = std::move(name);
  entry.summary = std::move(summary);
  entry.parameters = std::move(parameters);
  entry.filter = [make](FilterCommand& command, MPI_Comm comm) {
    return command.run_model(comm, make(command.model_parameters));
  };
  entry.simulate = [make](SimulateCommand& command, MPI_Comm comm) {
    return command.run_model(comm, make(command.model_parameters));
  };
  entry.build = [make](const ModelParameters& given) { (void)make(given); };
  add_model(std::move(entry));
}

}  // namespace rsmc::drivers
