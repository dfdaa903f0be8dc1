#include "drivers/model_registry.hpp"

#include <algorithm>

#include "base/core/error.hpp"
#include "drivers/field_flags.hpp"

namespace rsmc::drivers {
namespace {

std::vector<ModelEntry>& storage() {
  static std::vector<ModelEntry> entries;
  return entries;
}

// The built-in models are registered before anything reads or extends the registry, so they
// always come first and a program's model cannot take a built-in name unnoticed.
void ensure_builtin_models() {
  static bool done = false;
  if (done) return;
  done = true;
  register_builtin_models();
}

bool valid_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace

const std::vector<ModelEntry>& model_entries() {
  ensure_builtin_models();
  return storage();
}

void add_model(ModelEntry entry) {
  ensure_builtin_models();
  if (!valid_name(entry.name))
    throw Error("register_model: '" + entry.name + "' is not a valid model name; expected letters, digits and '_'");
  if (!entry.filter || !entry.simulate || !entry.build)
    throw Error("register_model: model '" + entry.name + "' lacks its filter, simulate or build function");
  for (const auto& e : storage())
    if (e.name == entry.name) throw Error("register_model: a model named '" + entry.name + "' is already registered");
  storage().push_back(std::move(entry));
}

const ModelEntry& find_model(const std::string& name) {
  for (const auto& e : model_entries())
    if (e.name == name) return e;
  std::string known;
  for (const auto& n : model_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error(input_name("model") + ": unknown model '" + excerpt(name) + "'; available models: " + known);
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const auto& e : model_entries()) names.push_back(e.name);
  return names;
}

std::string models_text() {
  std::string out;
  for (const auto& e : model_entries()) {
    out += e.name + "\n    " + e.summary + "\n    [parameters]\n";
    for (const auto& p : e.parameters) {
      std::string line = "      " + p.name + " = " + p.default_text;
      line.resize(std::max<std::size_t>(line.size() + 2, 44), ' ');
      out += line + "# " + p.doc + "\n";
    }
  }
  return out;
}

}  // namespace rsmc::drivers
