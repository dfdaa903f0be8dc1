// The options `rsmc filter`, `rsmc pmmh` and `rsmc simulate` share, declared once: one table of
// flag, run-file key and help (shared_options.cpp), and one struct of their values with defaults.
//
// Each command's struct derives from RunSettings, so `command.model`, `command.seed`, ... are these;
// its add_to() calls add_shared() for each shared option it has, in the order its --help lists
// them, beside its own options. A command may add a sentence of its own to an option's help (what
// the option means for it); the option's flags, key, kind, range and the rest of its help are the
// table's.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "drivers/run_config.hpp"

namespace rsmc::drivers {

struct RunSettings {
  // The model when --model is not given: run_cli's default_model (drivers/cli.hpp), else
  // linear_gaussian.
  std::string model = default_model_name();
  long long particles = 10000;
  long long steps = 0;  // 0: all of --data, or kDefaultSimulatedSteps simulated steps without --data
  long long seed = 1;
  double ess_threshold = 0.5;
  std::string resampling = "systematic";  // the scheme
  std::string data;                       // CSV or HDF5 observations; empty: simulate from the model
  std::string output;
  bool overwrite = false;
  bool quiet = false;
  std::string device;  // --device host|cuda; empty: the build's default (drivers/device_choice.hpp)

  static constexpr int kDefaultSimulatedSteps = 50;

  // The default model's name, set once by run_cli before the commands are made.
  static std::string default_model_name();
  static void set_default_model_name(const std::string& name);
};

enum class SharedOption {
  model,
  particles,
  steps,
  seed,
  ess_threshold,
  resampling,
  data,
  output,
  overwrite,
  quiet,
  device
};

// Adds the shared option `which` to `app` and its key to `keys`, bound to its member of `settings`;
// `own_help`, when not empty, follows the table's help (the command's own sentence). Returns the
// CLI11 option.
CLI::Option* add_shared(CLI::App& app, ConfigBindings& keys, RunSettings& settings, SharedOption which,
                        const std::string& own_help = "");

}  // namespace rsmc::drivers
