// `rsmc filter`: run a bootstrap particle filter on data (or on data simulated from the model).
#pragma once

#include "framework/parallel/mpi.hpp"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "drivers/model_parameters.hpp"
#include "drivers/run_config.hpp"
#include "drivers/shared_options.hpp"
#include "framework/engine/filter_result.hpp"
#include "framework/io/checkpoint_file.hpp"
#include "framework/model/observations.hpp"
#include "drivers/trace_options.hpp"
#include "framework/particles/load_band.hpp"

namespace rsmc::drivers {

// The settings rsmc pmmh and simulate share (model, particles, steps, seed, ess_threshold,
// resampling, data, output, overwrite, quiet, device) are RunSettings' (shared_options.hpp).
struct FilterCommand : RunSettings {
  std::string resampler = "roulette";
  std::string local_sampler = "search";                 // the roulette resampler's local kernel
  std::string invalid_likelihood = "error";             // NaN / +inf log-likelihoods: error or zero-weight
  double balance_tolerance = kDefaultBalanceTolerance;  // tau of the load band (framework/particles/load_band.hpp)
  std::string rank_capacity;                            // p weights (comma separated) or a file of them; empty: equal
  bool verbose = false;                                 // --verbose: time per phase and resampling traffic
  bool show_progress = false;                           // --progress: the progress line even off a terminal
  long long checkpoint_every = 0;                       // steps between checkpoints; 0: only on a signal
  std::string checkpoint_dir = "checkpoints";
  long long keep_checkpoints = 2;       // the newest K checkpoints are kept
  std::string restart;                  // a checkpoint file, or "latest" (in checkpoint_dir)
  TraceOptions trace;                   // --trace, --trace-every
  CLI::Option* steps_option = nullptr;  // to tell "--steps 0" (an error) from "not given"

  // --rank-capacity as numbers: a comma-separated list, or else the name of a file holding them
  // (separated by commas, spaces or newlines). Throws rsmc::Error naming the option.
  static std::vector<double> parse_rank_capacity(const std::string& value);

  void add_to(CLI::App& app);
  std::string config_file;  // --config: a TOML run configuration
  ConfigBindings config_keys;
  std::shared_ptr<config::TomlDocument> config_document;  // kept for the messages of model_parameters
  // The [parameters] of --config, or of the restarted checkpoint when --config gives none.
  std::map<std::string, config::TomlValue> parameter_values;
  ModelParameters model_parameters;  // the same, as the models read them

  // --restart: the checkpoint file (`latest` resolved) and its header, read once by run().
  std::string restart_path;
  std::optional<CheckpointContents> restart_header;
  std::shared_ptr<config::TomlDocument> checkpoint_document;  // its configuration, as a run file

  // Applies --config (flags given on the command line win). Called by run().
  void load_config();
  // With --restart: reads the checkpoint's header and takes every setting of its run configuration
  // that neither the command line nor --config gives (model, [parameters], particles, steps, seed,
  // scheme, resampler, samplers, data). Collective. Called by run().
  void inherit_from_checkpoint(MPI_Comm comm);
  // Applies --config and the checkpoint's settings, then runs the registered model named --model
  // (drivers/model_registry.hpp). Returns the exit code; throws rsmc::Error on bad input.
  int run(MPI_Comm comm);
  // The run itself for one model type (drivers/filter_run.hpp); called through the registry. It
  // runs on the execution space --device names (run_on).
  template <class Model>
  int run_model(MPI_Comm comm, Model model);
  template <class Model, class ExecutionSpace>
  int run_on(MPI_Comm comm, Model model);
  // The model's parameters as text (result attributes, checkpoint identity): the model's own
  // params().describe() where it has one, else the [parameters] the configuration gave.
  template <class Model>
  std::string parameters_text(const Model& model) const;
  // The run's settings as `key = value` lines (a TOML run file): result and trace attributes. With
  // `ranks` empty, without the rank count (a trace of a p-invariant run is the same for any).
  std::string configuration_text(std::optional<int> ranks, int resolved_steps) const;
  // What a checkpoint records of the run: configuration_text and the [parameters] --config gave,
  // so that a restart can take them all (inherit_from_checkpoint).
  std::string checkpoint_configuration(int ranks, int resolved_steps) const;
  // The `key = value` lines a checkpoint must share with a run that continues it.
  std::string identity_text(const std::string& parameters, int state_dim, int ranks, std::uint64_t data_hash) const;
};

// Helpers of run_model (filter_command.cpp).
// A hash of the observations of steps 1..steps (the data a checkpoint has consumed).
std::uint64_t observations_hash(const Observations& y, int steps);
// The first line where two `key = value` texts differ, as "key: the checkpoint has X, this run Y".
std::string first_difference(const std::string& in_checkpoint, const std::string& in_run);
// x_1..x_steps (steps x state_dim) when `data` is an HDF5 file from `rsmc simulate` holding the true
// states of a model with that state dimension; otherwise empty.
std::vector<double> recorded_true_state(const std::string& data, int state_dim, int steps);
// --verbose: where the time went, and what resampling moved.
void print_verbose(const FilterResult& result);
// --invalid-likelihood zero-weight: how many particles lost their weight that way, and when.
void print_invalid_likelihoods(const FilterResult& result);

}  // namespace rsmc::drivers
