#include "drivers/simulate_command.hpp"

#include <cstdio>

#include "drivers/collective.hpp"
#include "drivers/field_flags.hpp"
#include "drivers/integer_option.hpp"
#include "drivers/model_registry.hpp"
#include "base/core/error.hpp"

namespace rsmc::drivers {

void SimulateCommand::add_to(CLI::App& app) {
  app.add_option("--config", config_file,
                 "Run configuration (TOML, as for `rsmc filter --config`): model, steps, seed, output, overwrite, "
                 "device and [parameters]; other keys of a filter configuration are accepted and ignored");
  auto* o_model =
      app.add_option("--model", model, "Model to simulate from (`rsmc models` lists them)")->capture_default_str();
  auto* o_steps = app.add_option("--steps,-T", steps, "Number of observations T")
                      ->transform(integer_notation(true))
                      ->capture_default_str();
  auto* o_seed =
      app.add_option("--seed", seed, "Seed, 0 <= seed < 2^56 (the same data as `rsmc filter` simulates without --data)")
          ->transform(integer_notation(false))
          ->capture_default_str();
  auto* o_output =
      app.add_option("--output,-o", output, "Output file: .csv (header y1..ym) or .h5/.hdf5 (dataset 'observations')");
  auto* o_overwrite = app.add_flag("--overwrite", overwrite, "Replace --output if it exists");
  auto* o_device = app.add_option("--device", device,
                                  "Where the model runs: host (the CPU) or cuda (the GPU), in a build for a GPU, "
                                  "which holds both. Default: cuda in a GPU build, host otherwise. The data are meant "
                                  "to be identical on both (not yet checked on a GPU: docs/gpu.md)");
  config_keys.text("model", model, o_model);
  config_keys.integer("steps", steps, 1, o_steps);
  config_keys.integer("seed", seed, 0, o_seed);
  config_keys.text("output", output, o_output);
  config_keys.boolean("overwrite", overwrite, o_overwrite);
  config_keys.text("device", device, o_device, {"host", "cuda"});  // resolve_device refuses what the build lacks
}

int SimulateCommand::run(MPI_Comm comm) {
  run_collectively(comm, [&] {
    if (!config_file.empty()) {
      config_document = std::make_shared<config::TomlDocument>(config::read_toml_file(config_file));
      // A filter configuration may be reused as is: its filter-only keys are ignored here.
      config::TomlDocument relevant = *config_document;
      for (auto it = relevant.values.begin(); it != relevant.values.end();) {
        const std::string& key = it->first;
        const bool ours = config_keys.binds(key) || key.rfind("parameters.", 0) == 0;
        it = ours ? std::next(it) : relevant.values.erase(it);
      }
      model_parameters = ModelParameters(config_keys.apply(relevant, "parameters"), config_document.get());
    }
    if (output.empty()) throw Error(input_name("output") + ": required (a .csv, .h5 or .hdf5 file)");
  });
  return find_model(model).simulate(*this, comm);
}

}  // namespace rsmc::drivers
