// Fuzz entry for run configurations: the bytes are a `--config` file of `rsmc filter`. It goes
// through the same steps as the command line: the TOML reader (framework/config/toml.cpp), the
// filter's key binding (drivers/run_config.cpp, with the filter's own bindings) and the model
// registry, which builds the chosen model from [parameters] (drivers/model_registry.hpp).
#include <CLI/CLI.hpp>

#include "drivers/filter_command.hpp"
#include "drivers/model_registry.hpp"
#include "fuzz_targets.hpp"
#include "scratch_file.hpp"

namespace rsmc::fuzz {

void config_input(const std::uint8_t* data, std::size_t size) {
  drivers::FilterCommand filter;
  CLI::App app;
  filter.add_to(app);
  filter.config_file = write_scratch(".toml", data, size);
  filter.load_config();
  drivers::find_model(filter.model).build(filter.model_parameters);
}

}  // namespace rsmc::fuzz
