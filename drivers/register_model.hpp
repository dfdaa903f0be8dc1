// register_model: make a model available to the standard command line.
//
//   rsmc::drivers::register_model<RandomWalk>("x_t = x_{t-1} + N(0, q), y_t = x_t + N(0, r)");
//   return rsmc::drivers::run_cli(argc, argv);   // drivers/cli.hpp
//
// Everything about the model's parameters comes from its parameter struct, the type of
// model.params(), declared as in framework/model/parameters.hpp: the name the model is registered
// under (Params::model), the [parameters] a run file may set, their defaults and meanings (what
// `rsmc models` prints) and their checks. The model is built as Model(params).
//
// A parameter struct that is not the model's own registers with the function that builds the model
// from it; the struct's type is that function's argument type:
//
//   register_model("the local level model ...", [](const models::LocalLevelParams& p) {
//     return models::LinearGaussian(p.linear_gaussian());
//   });
//
// Keys under [parameters] that the struct does not declare are refused before the model is built;
// anything not given keeps its declared default. The filter, simulate and pmmh commands are compiled
// here, in the caller's program, for the model's type: the same engine, options, checkpoints and
// outputs as the built-in models (pmmh infers any of the struct's real parameters).
#pragma once

#include <string>
#include <type_traits>
#include <utility>

#include "drivers/filter_run.hpp"
#include "drivers/model_parameters.hpp"
#include "drivers/model_registry.hpp"
#include "drivers/pmmh_run.hpp"
#include "drivers/simulate_run.hpp"
#include "framework/model/parameters.hpp"

namespace rsmc::drivers {

namespace register_detail {

// The parameter type of a (non-generic) lambda or function object taking one argument.
template <class Call>
struct ArgumentOf;
template <class Class, class Result, class Argument>
struct ArgumentOf<Result (Class::*)(Argument) const> {
  using type = std::decay_t<Argument>;
};

}  // namespace register_detail

template <class Build>
void register_model(std::string summary, Build build) {
  using Params = typename register_detail::ArgumentOf<decltype(&Build::operator())>::type;
  using Model = std::decay_t<std::invoke_result_t<Build&, const Params&>>;
  auto make = [build](const ModelParameters& given) -> Model {
    return given.located(Params::model, [&] {
      const Params params = given.read<Params>();
      params.validate();
      return build(params);
    });
  };
  ModelEntry entry;
  entry.name = Params::model;
  entry.summary = std::move(summary);
  entry.parameters = parameter_rows<Params>();
  entry.filter = [make](FilterCommand& command, MPI_Comm comm) {
    return command.run_model(comm, make(command.model_parameters));
  };
  entry.simulate = [make](SimulateCommand& command, MPI_Comm comm) {
    return command.run_model(comm, make(command.model_parameters));
  };
  entry.pmmh = [build](PmmhCommand& command, MPI_Comm comm) { return command.run_model<Params>(comm, build); };
  entry.build = [make](const ModelParameters& given) { (void)make(given); };
  add_model(std::move(entry));
}

template <class Model>
void register_model(std::string summary) {
  using Params = std::decay_t<decltype(std::declval<const Model&>().params())>;
  register_model(std::move(summary), [](const Params& params) { return Model(params); });
}

}  // namespace rsmc::drivers
