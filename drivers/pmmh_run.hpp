// PmmhCommand::run_model: `rsmc pmmh` for one model's parameter struct. A template, so that a model
// registered from outside rsmc (drivers/register_model.hpp) is inferred with the same chains and
// outputs as the built-in ones; the model-independent part (the chains, their output and summary)
// is run_pmmh_chains in pmmh_chains.cpp.
//
// The model at theta is the fixed parameters ([parameters] over the declared defaults) with each
// inferred parameter set by name (ParameterSet::set, which checks its declared bounds), validated
// and built as register_model builds it. Every input is checked on every rank before any chain
// starts, so a bad run file is one line naming the key and nothing is written.
#pragma once

#include "framework/parallel/mpi.hpp"

#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "drivers/collective.hpp"
#include "drivers/device_choice.hpp"
#include "drivers/pmmh_command.hpp"
#include "framework/engine/filter_options.hpp"
#include "framework/engine/memory_preflight.hpp"
#include "framework/engine/simulate.hpp"
#include "framework/io/atomic_file.hpp"
#include "framework/inference/filter_likelihood.hpp"
#include "framework/model/observations.hpp"
#include "framework/model/parameters.hpp"

namespace rsmc::drivers {

// The checks of the command's own settings (chains divide the ranks, iterations, burn-in, output,
// particles per chain); throws rsmc::Error naming the option. Not collective.
void check_pmmh_settings(const PmmhCommand& command, int ranks);
// The filter's options for a likelihood estimate (its seed is the chain's filter seed).
FilterOptions pmmh_filter_options(const PmmhCommand& command);
// --data, cut to --steps, checked against the model's observation dimension.
Observations pmmh_observations(const PmmhCommand& command, int obs_dim);
// The chains on their split communicators, the output file and the summary (pmmh_chains.cpp).
// `likelihood_on(chain_comm)` is the log-likelihood estimator of a chain whose filter runs on chain_comm.
// `execution_space` is Kokkos' name of the space the filters run on (banner and output attributes).
int run_pmmh_chains(const PmmhCommand& command, MPI_Comm comm, const InferenceSettings& settings,
                    const char* execution_space,
                    const std::function<inference::LogLikelihood(MPI_Comm)>& likelihood_on);

namespace pmmh_detail {

// Finds the declared bounds of the real parameter called `name` (declare_parameters visitor).
struct FindReal {
  const std::string& name;
  std::optional<inference::Interval>* range;
  void operator()(const Real& p) const {
    if (name == p.name) *range = inference::Interval{p.bounds.lo, p.bounds.hi};
  }
  template <class Kind>
  void operator()(const Kind&) const {}
};

}  // namespace pmmh_detail

// What the [infer.*] tables may name in Params: its parameters and the ranges of its real ones.
template <class Params>
InferableParameters inferable_parameters() {
  InferableParameters info;
  info.model = Params::model;
  info.names = Params::parameter_names();
  info.real_range = [](const std::string& name) {
    std::optional<inference::Interval> range;
    Params params;
    params.declare_parameters(pmmh_detail::FindReal{name, &range});
    return range;
  };
  return info;
}

template <class Params, class Build>
int PmmhCommand::run_model(MPI_Comm comm, const Build& build) {
  std::string resolved;
  run_collectively(comm, [&] { resolved = resolve_device(device); });
  return with_device_space(resolved, [&](auto space) { return run_on<Params, decltype(space)>(comm, build); });
}

template <class Params, class ExecutionSpace, class Build>
int PmmhCommand::run_on(MPI_Comm comm, const Build& build) {
  using Model = std::decay_t<decltype(build(std::declval<const Params&>()))>;
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  Params fixed;
  InferenceSettings settings;
  std::vector<std::string> names;
  Observations y;
  std::optional<Model> initial_model;
  // The model at theta (the inferred parameters in `names` order).
  const auto model_at = [&fixed, &names, &build](const std::vector<double>& theta) {
    Params params = fixed;
    for (std::size_t i = 0; i < names.size(); ++i) params.set(names[i], theta[i]);
    params.validate();
    return build(params);
  };
  run_collectively(comm, [&] {
    check_pmmh_settings(*this, ranks);
    fixed = model_parameters.located(Params::model, [&] { return model_parameters.read<Params>(); });
    settings = inference_settings(inferable_parameters<Params>());
    for (const inference::InferredParameter& p : settings.parameters) names.push_back(p.name);
    // The model's own checks at the initial values (a fixed parameter's error names its line).
    initial_model.emplace(model_parameters.located(Params::model, [&] { return model_at(settings.initial); }));
  });
  // The output and the checkpoint can be made (rank 0 writes them), before any chain runs.
  run_on_root(comm, [&] {
    if (!output.empty()) refuse_uncreatable_file("output", output);
    refuse_uncreatable_file("checkpoint", checkpoint);
  });
  // Each chain's filter and the data fit in memory: before the data are simulated, and again with
  // the length of --data once it is read (memory_preflight.hpp). Collective.
  const auto check_memory = [&](long long data_steps) {
    FilterMemory need;
    need.particles = static_cast<std::uint64_t>(particles);
    need.filter_ranks = ranks / static_cast<int>(chains);
    need.state_dim = initial_model->state_dim();
    need.obs_dim = initial_model->obs_dim();
    need.steps = static_cast<std::uint64_t>(data_steps);
    need.simulated = data.empty();
    need.state_dim_source = model_parameters.where_integer(need.state_dim);
    check_filter_memory<typename ExecutionSpace::memory_space>(comm, need);
  };
  const int simulated_steps = steps > 0 ? static_cast<int>(steps) : kDefaultSimulatedSteps;
  check_memory(data.empty() ? simulated_steps : 0);
  run_collectively(comm, [&] {
    if (data.empty())
      y = simulate<Model, ExecutionSpace>(*initial_model, simulated_steps, settings.chain.seed).observations;
    else
      y = pmmh_observations(*this, initial_model->obs_dim());
  });
  if (!data.empty()) check_memory(y.steps);
  const FilterOptions options = pmmh_filter_options(*this);
  return run_pmmh_chains(*this, comm, settings, ExecutionSpace::name(), [&](MPI_Comm chain_comm) {
    return inference::filter_log_likelihood<ExecutionSpace>(chain_comm, model_at, y, options);
  });
}

}  // namespace rsmc::drivers
