// The options rsmc filter, pmmh and simulate share: the one table (drivers/shared_options.hpp).
#include "drivers/shared_options.hpp"

#include <string>

#include "base/core/error.hpp"
#include "drivers/integer_option.hpp"

namespace rsmc::drivers {

namespace {

std::string& default_model() {
  static std::string name = "linear_gaussian";
  return name;
}

// One shared option: its flags, run-file key and help, and how it binds to RunSettings.
struct SharedRow {
  SharedOption which;
  const char* flags;
  const char* key;
  const char* help;
  // Adds the option (with `help`) and its key; returns the option.
  CLI::Option* (*bind)(const SharedRow& row, CLI::App& app, ConfigBindings& keys, RunSettings& s,
                       const std::string& help);
};

// A flag (true when given) and its boolean key.
CLI::Option* add_flag_setting(const SharedRow& r, CLI::App& app, ConfigBindings& keys, bool& target,
                              const std::string& help) {
  CLI::Option* o = app.add_flag(r.flags, target, help);
  keys.boolean(r.key, target, o);
  return o;
}

const SharedRow kSharedOptions[] = {
    {SharedOption::model, "--model", "model", "State-space model (`rsmc models` lists them with their parameters)",
     [](const SharedRow& r, CLI::App& app, ConfigBindings& keys, RunSettings& s, const std::string& help) {
       CLI::Option* o = app.add_option(r.flags, s.model, help)->capture_default_str();
       keys.text(r.key, s.model, o);
       return o;
     }},
    {SharedOption::particles, "--particles,-n", "particles",
     "Total number of particles N over all ranks (N >= ranks; integers may be written 1e6 or 2.5e5)",
     [](const SharedRow& r, CLI::App& app, ConfigBindings& keys, RunSettings& s, const std::string& help) {
       CLI::Option* o =
           app.add_option(r.flags, s.particles, help)->transform(integer_notation(false))->capture_default_str();
       keys.integer(r.key, s.particles, 1, o);
       return o;
     }},
    {SharedOption::steps, "--steps,-T", "steps", "Number of observations T",
     [](const SharedRow& r, CLI::App& app, ConfigBindings& keys, RunSettings& s, const std::string& help) {
       // A default of 0 means: all of --data, or simulated steps.
       const std::string shown = s.steps > 0
                                     ? help
                                     : help + " (default: all of --data, or " +
                                           std::to_string(RunSettings::kDefaultSimulatedSteps) + " simulated steps)";
       CLI::Option* o = app.add_option(r.flags, s.steps, shown)->transform(integer_notation(true));
       if (s.steps > 0) o->capture_default_str();
       keys.integer(r.key, s.steps, 1, o);
       return o;
     }},
    {SharedOption::seed, "--seed", "seed", "Seed of every random stream, 0 <= seed < 2^56",
     [](const SharedRow& r, CLI::App& app, ConfigBindings& keys, RunSettings& s, const std::string& help) {
       CLI::Option* o =
           app.add_option(r.flags, s.seed, help)->transform(integer_notation(false))->capture_default_str();
       keys.integer(r.key, s.seed, 0, o);
       return o;
     }},
    {SharedOption::ess_threshold, "--ess-threshold", "ess_threshold",
     "Resample when ESS < threshold * N; threshold in (0, 1], 1 resamples every step",
     [](const SharedRow& r, CLI::App& app, ConfigBindings& keys, RunSettings& s, const std::string& help) {
       CLI::Option* o = app.add_option(r.flags, s.ess_threshold, help)->capture_default_str();
       keys.number(r.key, s.ess_threshold, 0.0, 1.0, true, o);
       return o;
     }},
    {SharedOption::resampling, "--resampling", "resampling",
     "Resampling scheme: multinomial, stratified, systematic or residual",
     [](const SharedRow& r, CLI::App& app, ConfigBindings& keys, RunSettings& s, const std::string& help) {
       CLI::Option* o = app.add_option(r.flags, s.resampling, help)->capture_default_str();
       keys.text(r.key, s.resampling, o, {"multinomial", "stratified", "systematic", "residual"});
       return o;
     }},
    {SharedOption::data, "--data", "data",
     "Observations: a CSV file (header row, one column per component, empty field = missing) or an HDF5 file "
     "with a dataset 'observations' (T x m). Without it, data are simulated from the model with --seed",
     [](const SharedRow& r, CLI::App& app, ConfigBindings& keys, RunSettings& s, const std::string& help) {
       CLI::Option* o = app.add_option(r.flags, s.data, help);
       keys.text(r.key, s.data, o);
       return o;
     }},
    {SharedOption::output, "--output,-o", "output", "The file the command writes",
     [](const SharedRow& r, CLI::App& app, ConfigBindings& keys, RunSettings& s, const std::string& help) {
       CLI::Option* o = app.add_option(r.flags, s.output, help);
       keys.text(r.key, s.output, o);
       return o;
     }},
    {SharedOption::overwrite, "--overwrite", "overwrite",
     "Replace --output if it exists (otherwise an existing file is an error)",
     [](const SharedRow& r, CLI::App& app, ConfigBindings& keys, RunSettings& s, const std::string& help) {
       return add_flag_setting(r, app, keys, s.overwrite, help);
     }},
    {SharedOption::quiet, "--quiet,-q", "quiet", "Print nothing but errors",
     [](const SharedRow& r, CLI::App& app, ConfigBindings& keys, RunSettings& s, const std::string& help) {
       return add_flag_setting(r, app, keys, s.quiet, help);
     }},
    {SharedOption::device, "--device", "device",
     "Where the particles live and the model runs: host (CPU threads) or cuda (the GPU), in a build for a GPU, "
     "which holds both. Default: cuda in a GPU build, host otherwise. Results are identical on both: 184 of 184 "
     "host = GPU comparisons on an NVIDIA H100 (docs/gpu.md)",
     [](const SharedRow& r, CLI::App& app, ConfigBindings& keys, RunSettings& s, const std::string& help) {
       CLI::Option* o = app.add_option(r.flags, s.device, help);
       keys.text(r.key, s.device, o, {"host", "cuda"});  // resolve_device refuses what the build lacks
       return o;
     }},
};

}  // namespace

std::string RunSettings::default_model_name() { return default_model(); }
void RunSettings::set_default_model_name(const std::string& name) { default_model() = name; }

CLI::Option* add_shared(CLI::App& app, ConfigBindings& keys, RunSettings& settings, SharedOption which,
                        const std::string& own_help) {
  for (const SharedRow& row : kSharedOptions)
    if (row.which == which) {
      const std::string help = own_help.empty() ? std::string(row.help) : std::string(row.help) + "; " + own_help;
      return row.bind(row, app, keys, settings, help);
    }
  throw Error("internal error: a shared option without a row in kSharedOptions");
}

}  // namespace rsmc::drivers
