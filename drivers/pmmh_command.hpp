// `rsmc pmmh`: particle marginal Metropolis-Hastings on a registered model's parameters, its
// likelihood estimated by the distributed bootstrap filter (framework/inference/).
//
// The run file (--config, TOML) names the model, the data and the filter's settings like `rsmc
// filter`'s, fixes parameters under [parameters], and gives one [infer.<name>] table per inferred
// parameter (prior, its two arguments by name, initial value, optional transform and proposal_sd),
// with the chain's settings (iterations, thinning, burn_in, chains) at the top and the proposal's
// under [proposal] and [adaptation]; docs/inference.md describes every key. The inferred
// parameters are ordered as the model declares them (`rsmc models`), which is the order of
// [proposal] covariance's rows and of the output's parameter axis.
//
// --chains C splits the ranks into C blocks, one chain per block; a chain's random numbers are keyed
// by (seed, chain, iteration), so its draws are bitwise identical for any number of ranks per chain.
// SIGTERM writes the chains so far to --checkpoint (exit code 75); --restart continues them.
#pragma once

#include "framework/parallel/mpi.hpp"

#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "drivers/model_parameters.hpp"
#include "drivers/run_config.hpp"
#include "drivers/shared_options.hpp"
#include "framework/config/toml.hpp"
#include "framework/inference/parameters.hpp"
#include "framework/inference/pmmh.hpp"

namespace rsmc::drivers {

// What the [infer.*] tables need to know of a model's parameters (filled in by register_model).
struct InferableParameters {
  std::string model;
  std::vector<std::string> names;  // every parameter, in declaration order
  // The valid range of the real parameter `name` (its declared bounds); nullopt for another kind.
  std::function<std::optional<inference::Interval>(const std::string&)> real_range;
};

// The inference the run file asks for, checked against the model.
struct InferenceSettings {
  std::vector<inference::InferredParameter> parameters;  // in the model's declaration order
  std::vector<double> initial;                           // initial values, same order
  inference::ChainOptions chain;                         // seed, covariance, adaptation (chain index 0)
};

// The settings rsmc filter and simulate share (model, particles, steps, seed, ess_threshold,
// resampling, data, output, overwrite, quiet, device) are RunSettings' (shared_options.hpp).
struct PmmhCommand : RunSettings {
  PmmhCommand() { particles = 1000; }  // per likelihood estimate: a chain runs thousands of them
  std::string config_file;
  long long chains = 1;
  long long iterations = 1000;
  long long thinning = 1;
  long long burn_in = 0;
  std::string checkpoint = "pmmh-checkpoint.h5";  // written when SIGTERM / SIGUSR1 stops the run
  std::string restart;                            // a checkpoint to continue

  static constexpr double kDefaultProposalSd = 0.1;

  ConfigBindings config_keys;
  std::shared_ptr<config::TomlDocument> config_document;
  std::map<std::string, config::TomlValue> parameter_values;   // [parameters]: the fixed ones
  std::map<std::string, config::TomlValue> infer_values;       // infer.<name>.<key>, "infer." removed
  std::map<std::string, config::TomlValue> proposal_values;    // [proposal]
  std::map<std::string, config::TomlValue> adaptation_values;  // [adaptation]
  ModelParameters model_parameters;

  void add_to(CLI::App& app);
  // Reads --config (flags on the command line win). Called by run().
  void load_config();
  // Runs the registered model named by `model`. Returns the exit code; throws rsmc::Error on bad input.
  int run(MPI_Comm comm);
  // The run for one model type (drivers/pmmh_run.hpp); called through the registry. It checks the
  // inputs and runs the chains' filters on the execution space --device names (run_on).
  template <class Params, class Build>
  int run_model(MPI_Comm comm, const Build& build);
  template <class Params, class ExecutionSpace, class Build>
  int run_on(MPI_Comm comm, const Build& build);

  // The [infer.*], [proposal] and [adaptation] tables checked against the model's parameters:
  // every error names the key (and the file and line).
  InferenceSettings inference_settings(const InferableParameters& model_parameters_info) const;
  // The run's settings as a TOML run file (the output's configuration attribute).
  std::string configuration_text() const;
};

}  // namespace rsmc::drivers
