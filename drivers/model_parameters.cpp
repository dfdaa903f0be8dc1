// See model_parameters.hpp.
#include "drivers/model_parameters.hpp"

#include "base/core/error.hpp"

namespace rsmc::drivers {
namespace {

bool numeric(const config::TomlValue& v) {
  return v.type == config::TomlValue::Type::integer || v.type == config::TomlValue::Type::floating;
}

}  // namespace

void ModelParameters::bad(const std::string& name, const std::string& expected) const {
  const config::TomlValue& v = values_.at(name);
  throw Error((doc_ ? doc_->where(v) : std::string()) + "parameters." + name + ": expected " + expected + ", got " +
              v.type_name() + " " + excerpt(v.type == config::TomlValue::Type::string ? "\"" + v.text + "\"" : v.text));
}

std::string ModelParameters::where_named(const std::string& model, const std::string& message) const {
  const std::string prefix = model + ": ";
  if (doc_ == nullptr || message.compare(0, prefix.size(), prefix) != 0) return "";
  const std::size_t end = message.find_first_of("[ =;:", prefix.size());
  const std::string name = message.substr(prefix.size(), end == std::string::npos ? end : end - prefix.size());
  const auto it = values_.find(name);
  return it == values_.end() ? std::string() : doc_->where(it->second);
}

std::string ModelParameters::where_integer(long long value) const {
  for (const auto& [name, v] : values_)
    if (v.type == config::TomlValue::Type::integer && v.integer == value)
      return (doc_ ? doc_->where(v) : std::string()) + "parameters." + name;
  return "";
}

double ModelParameters::number(const std::string& name, double fallback) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  if (!numeric(it->second)) bad(name, "a number");
  return it->second.floating;
}

long long ModelParameters::integer(const std::string& name, long long fallback) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  if (it->second.type != config::TomlValue::Type::integer) bad(name, "an integer");
  return it->second.integer;
}

long long ModelParameters::integer(const std::string& name, long long fallback, long long min, long long max) const {
  const long long value = integer(name, fallback);
  if (has(name) && (value < min || value > max))
    bad(name, "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return value;
}

std::string ModelParameters::text(const std::string& name, const std::string& fallback) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  if (it->second.type != config::TomlValue::Type::string) bad(name, "a string");
  return it->second.text;
}

std::vector<double> ModelParameters::vector(const std::string& name, const std::vector<double>& fallback) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  if (it->second.type != config::TomlValue::Type::array || it->second.elements.empty())
    bad(name, "a non-empty array of numbers, e.g. [0.0, 1.5]");
  std::vector<double> out;
  for (const auto& e : it->second.elements) {
    if (!numeric(e)) bad(name, "an array of numbers, e.g. [0.0, 1.5]");
    out.push_back(e.floating);
  }
  return out;
}

std::vector<double> ModelParameters::matrix(const std::string& name, const std::vector<double>& fallback,
                                            int fallback_rows, int fallback_cols, int& rows, int& cols) const {
  const auto it = values_.find(name);
  if (it == values_.end()) {
    rows = fallback_rows;
    cols = fallback_cols;
    return fallback;
  }
  const std::string expected = "a matrix as an array of equally long rows of numbers, e.g. [[0.9, 0.1], [0.0, 0.8]]";
  const config::TomlValue& v = it->second;
  if (v.type != config::TomlValue::Type::array || v.elements.empty()) bad(name, expected);
  std::vector<double> out;
  rows = static_cast<int>(v.elements.size());
  cols = -1;
  for (const auto& row : v.elements) {
    if (row.type != config::TomlValue::Type::array || row.elements.empty()) bad(name, expected);
    if (cols >= 0 && static_cast<int>(row.elements.size()) != cols) bad(name, expected);
    cols = static_cast<int>(row.elements.size());
    for (const auto& e : row.elements) {
      if (!numeric(e)) bad(name, expected);
      out.push_back(e.floating);
    }
  }
  return out;
}

void ModelParameters::Reader::operator()(const RealMatrix& p) const {
  int rows = 0, cols = 0;
  p.value = given.matrix(p.name, p.value, p.rows, p.cols, rows, cols);
  if (p.sets_rows) p.rows = rows;
}

std::string ModelParameters::describe() const {
  std::string out;
  for (const auto& [name, value] : values_)  // std::map: sorted by key
    out +=
        name + " = " + (value.type == config::TomlValue::Type::string ? "\"" + value.text + "\"" : value.text) + "\n";
  return out;
}

void ModelParameters::check_known(const std::string& model, const std::vector<std::string>& known) const {
  for (const auto& [name, value] : values_) {
    bool found = false;
    for (const auto& k : known) found = found || k == name;
    if (found) continue;
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw Error((doc_ ? doc_->where(value) : std::string()) + "parameters." + excerpt(name) + ": model '" + model +
                "' has no parameter '" + excerpt(name) + "'; its parameters: " + list);
  }
}

}  // namespace rsmc::drivers
