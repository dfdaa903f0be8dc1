#include "drivers/simulate_command.hpp"

#include <cstdio>

#include "drivers/collective.hpp"
#include "drivers/model_registry.hpp"
#include "framework/engine/simulate.hpp"
#include "framework/io/csv_observations.hpp"
#include "framework/io/hdf5_observations.hpp"

namespace rsmc::drivers {

void SimulateCommand::add_to(CLI::App& app) {
  app.add_option("--config", config_file,
                 "Run configuration (TOML, as for `rsmc filter --config`): model, steps, seed, output, overwrite and "
                 "[parameters]; other keys of a filter configuration are accepted and ignored");
  auto* o_model = app.add_option("--model", model, "Model to simulate from (`rsmc models` lists them)")->capture_default_str();
  auto* o_steps = app.add_option("--steps,-T", steps, "Number of observations T")->capture_default_str();
  auto* o_seed = app.add_option("--seed", seed, "Seed, 0 <= seed < 2^56 (the same data as `rsmc filter` simulates without --data)")
      ->capture_default_str();
  auto* o_output = app.add_option("--output,-o", output, "Output file: .csv (header y1..ym) or .h5/.hdf5 (dataset 'observations')");
  auto* o_overwrite = app.add_flag("--overwrite", overwrite, "Replace --output if it exists");
  config_keys.text("model", model, o_model);
  config_keys.integer("steps", steps, 1, o_steps);
  config_keys.integer("seed", seed, 0, o_seed);
  config_keys.text("output", output, o_output);
  config_keys.boolean("overwrite", overwrite, o_overwrite);
}

int SimulateCommand::run(MPI_Comm comm) {
  run_collectively(comm, [&] {
    if (!config_file.empty()) {
      config_document = std::make_shared<config::TomlDocument>(config::read_toml_file(config_file));
      // A filter configuration may be reused as is: its filter-only keys are ignored here.
      config::TomlDocument relevant = *config_document;
      for (auto it = relevant.values.begin(); it != relevant.values.end();) {
        const std::string& key = it->first;
        const bool ours = key == "model" || key == "steps" || key == "seed" || key == "output" || key == "overwrite" ||
                          key.rfind("parameters.", 0) == 0;
        it = ours ? std::next(it) : relevant.values.erase(it);
      }
      model_parameters = ModelParameters(config_keys.apply(relevant, "parameters"), config_document.get());
    }
    if (output.empty()) throw Error("--output: required (a .csv, .h5 or .hdf5 file)");
  });
  with_model(model, model_parameters, [&](auto model_instance) {
    Observations y;
    run_collectively(comm, [&] {
      if (steps < 1) throw Error("--steps: " + std::to_string(steps) + " is not a valid step count; expected >= 1");
      if (seed < 0 || static_cast<unsigned long long>(seed) > rng::kMaxSeed)
        throw Error("--seed: " + std::to_string(seed) + " is out of range; expected 0 <= seed < 2^56");
      y = simulate(model_instance, static_cast<int>(steps), static_cast<std::uint64_t>(seed)).observations;
    });
    run_on_root(comm, [&] {
      const auto dot = output.rfind('.');
      const std::string ext = dot == std::string::npos ? "" : output.substr(dot);
      if (ext == ".csv") {
        std::vector<std::string> names;
        for (int j = 0; j < y.dim; ++j) names.push_back("y" + std::to_string(j + 1));
        write_observations_csv(output, y, names, overwrite);
      } else if (ext == ".h5" || ext == ".hdf5") {
        write_observations_hdf5(output, y, overwrite);
      } else {
        throw Error("--output: " + output + " has an unknown extension; expected .csv, .h5 or .hdf5");
      }
      std::printf("wrote %d observations of model %s to %s\n", y.steps, decltype(model_instance)::name,
                  output.c_str());
    });
  });
  return 0;
}

}  // namespace rsmc::drivers
