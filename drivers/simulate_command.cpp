#include "drivers/simulate_command.hpp"

#include <cstdio>

#include "drivers/collective.hpp"
#include "drivers/field_flags.hpp"
#include "drivers/model_registry.hpp"
#include "drivers/shared_options.hpp"
#include "base/core/error.hpp"

namespace rsmc::drivers {

void SimulateCommand::add_to(CLI::App& app) {
  app.add_option("--config", config_file,
                 "Run configuration (TOML, as for `rsmc filter --config`): model, steps, seed, output, overwrite, "
                 "device and [parameters]; other keys of a filter configuration are accepted and ignored");
  // Options and run-file keys from the table rsmc filter and pmmh share (shared_options.hpp).
  add_shared(app, config_keys, *this, SharedOption::model);
  add_shared(app, config_keys, *this, SharedOption::steps);
  add_shared(app, config_keys, *this, SharedOption::seed, "the same data as `rsmc filter` simulates without --data");
  add_shared(app, config_keys, *this, SharedOption::output,
             ".csv (header y1..ym) or .h5/.hdf5 (dataset 'observations', the true states in 'state' and the model's "
             "name in the attribute 'model')");
  add_shared(app, config_keys, *this, SharedOption::overwrite);
  add_shared(app, config_keys, *this, SharedOption::device);
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
