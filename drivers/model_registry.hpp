// The models the command line knows by name (--model): a registry filled at run time.
//
// Each entry carries what `rsmc models` prints (a summary and the [parameters] with defaults) and
// the commands compiled for the model's concrete type: `filter`, `simulate` and `pmmh`. The built-in
// models (drivers/builtin_models.cpp) are registered on first use; a user's program adds its own
// with register_model (drivers/register_model.hpp) before calling rsmc::drivers::run_cli, and
// gets every command, option, checkpoint and output of the standard `rsmc` for them.
#pragma once

#include "framework/parallel/mpi.hpp"

#include <functional>
#include <string>
#include <vector>

#include "framework/model/parameters.hpp"

namespace rsmc::drivers {

struct FilterCommand;
struct SimulateCommand;
struct PmmhCommand;
class ModelParameters;

struct ModelEntry {
  std::string name;
  std::string summary;
  std::vector<ParameterRow> parameters;                 // name, default and meaning, from the parameter declarations
  std::function<int(FilterCommand&, MPI_Comm)> filter;  // runs `rsmc filter` with this model
  std::function<int(SimulateCommand&, MPI_Comm)> simulate;  // runs `rsmc simulate` with this model
  std::function<int(PmmhCommand&, MPI_Comm)> pmmh;          // runs `rsmc pmmh` with this model
  // Builds the model from [parameters] and discards it: the checks of a configuration without a run
  // (throws rsmc::Error naming the parameter, as the commands do).
  std::function<void(const ModelParameters&)> build;
};

// Every registered model: the built-in ones first, then the program's own in registration order.
const std::vector<ModelEntry>& model_entries();
// Adds a model; a name already taken (or empty, or not [A-Za-z0-9_]) is an rsmc::Error.
void add_model(ModelEntry entry);
// The model called `name`; an unknown name is an rsmc::Error listing the available ones.
const ModelEntry& find_model(const std::string& name);
std::vector<std::string> model_names();
// The text of `rsmc models`.
std::string models_text();

// Registers the built-in models (drivers/builtin_models.cpp); called once by model_entries().
void register_builtin_models();

}  // namespace rsmc::drivers
