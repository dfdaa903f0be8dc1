#include "drivers/run_config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "base/core/error.hpp"
#include "drivers/field_flags.hpp"
#include "drivers/integer_option.hpp"

namespace rsmc::drivers {
namespace {

[[noreturn]] void bad(const config::TomlDocument& doc, const config::TomlValue& v, const std::string& key,
                      const std::string& expected) {
  const std::string got = excerpt(v.type == config::TomlValue::Type::string ? "\"" + v.text + "\"" : v.text);
  throw Error(doc.where(v) + key + ": expected " + expected + ", got " + std::string(v.type_name()) + " " + got);
}

// A CLI11 transform that refuses an integer below `min` given on the command line. It runs before
// the option's integer_notation (CLI11 runs transforms added later first) and leaves text it cannot
// read to that one, which says what is wrong with the notation.
CLI::Validator at_least(long long min) {
  return CLI::Validator(
      [min](std::string& text) {
        std::string value;
        try {
          value = integer_text(text, true);
        } catch (const Error&) {
          return std::string();
        }
        if (std::stoll(value) >= min) return std::string();
        return text + (value[0] == '-' ? " is negative" : " is not valid") +
               "; expected an integer >= " + std::to_string(min);
      },
      "", "lower bound");
}

std::string number_text(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

}  // namespace

// `text` as a TOML basic string: "..." with quotes, backslashes and control characters escaped.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char code[8];
          std::snprintf(code, sizeof code, "\\u%04x", static_cast<unsigned>(c));
          out += code;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// A value read from a run file, written back as TOML (numbers as they were written).
std::string toml_text(const config::TomlValue& v) {
  if (v.type == config::TomlValue::Type::string) return quoted(v.text);
  if (v.type != config::TomlValue::Type::array) return v.text;
  std::string out = "[";
  for (std::size_t i = 0; i < v.elements.size(); ++i) out += (i == 0 ? "" : ", ") + toml_text(v.elements[i]);
  return out + "]";
}

void ConfigBindings::integer(const std::string& key, long long& target, long long min, CLI::Option* option) {
  if (option != nullptr) option->transform(at_least(min));
  bindings_.push_back(
      {key, option, [&target, key, min](const config::TomlDocument& doc, const config::TomlValue& v, bool store) {
         const std::string expected = "an integer >= " + std::to_string(min);
         if (v.type != config::TomlValue::Type::integer || v.integer < min) bad(doc, v, key, expected);
         if (store) target = v.integer;
       }});
}

void ConfigBindings::number(const std::string& key, double& target, double min, double max, bool min_open,
                            CLI::Option* option) {
  bindings_.push_back(
      {key, option,
       [&target, key, min, max, min_open](const config::TomlDocument& doc, const config::TomlValue& v, bool store) {
         const std::string expected =
             "a number in " + std::string(min_open ? "(" : "[") + number_text(min) + ", " + number_text(max) + "]";
         const bool numeric = v.type == config::TomlValue::Type::integer || v.type == config::TomlValue::Type::floating;
         const double x = v.floating;
         if (!numeric || !(min_open ? x > min : x >= min) || !(x <= max)) bad(doc, v, key, expected);
         if (store) target = x;
       }});
}

void ConfigBindings::text(const std::string& key, std::string& target, CLI::Option* option,
                          std::vector<std::string> choices) {
  bindings_.push_back(
      {key, option, [&target, key, choices](const config::TomlDocument& doc, const config::TomlValue& v, bool store) {
         std::string expected = "a string";
         if (!choices.empty()) {
           expected = "one of";
           for (const auto& c : choices) expected += " \"" + c + "\"";
         }
         if (v.type != config::TomlValue::Type::string) bad(doc, v, key, expected);
         if (!choices.empty() && std::find(choices.begin(), choices.end(), v.text) == choices.end())
           bad(doc, v, key, expected);
         if (store) target = v.text;
       }});
}

void ConfigBindings::boolean(const std::string& key, bool& target, CLI::Option* option) {
  bindings_.push_back(
      {key, option, [&target, key](const config::TomlDocument& doc, const config::TomlValue& v, bool store) {
         if (v.type != config::TomlValue::Type::boolean) bad(doc, v, key, "true or false");
         if (store) target = v.boolean;
       }});
}

std::map<std::string, config::TomlValue> ConfigBindings::apply(const config::TomlDocument& doc,
                                                               const std::string& passthrough) const {
  std::map<std::string, config::TomlValue> rest;
  const std::string prefix = passthrough + ".";
  for (const auto& [key, value] : doc.values) {
    if (!passthrough.empty() && key.compare(0, prefix.size(), prefix) == 0) {
      rest.emplace(key.substr(prefix.size()), value);
      continue;
    }
    const Binding* found = nullptr;
    for (const Binding& b : bindings_)
      if (b.key == key) found = &b;
    if (found == nullptr)
      throw Error(doc.where(value) + "unknown key '" + excerpt(key) + "'; known keys: " + key_list() +
                  (passthrough.empty() ? std::string() : ", and model parameters under [" + passthrough + "]"));
    // The command line wins, but a value the file gets wrong is still an error.
    const bool given_as_flag = found->option != nullptr && found->option->count() > 0;
    found->set(doc, value, !given_as_flag);
    if (!given_as_flag) record_value_origin(key, doc.where(value));
  }
  return rest;
}

bool ConfigBindings::binds(const std::string& key) const {
  return std::any_of(bindings_.begin(), bindings_.end(), [&key](const Binding& b) { return b.key == key; });
}

std::string ConfigBindings::key_list() const {
  std::string list;
  for (const Binding& b : bindings_) list += (list.empty() ? "" : ", ") + b.key;
  return list;
}

}  // namespace rsmc::drivers
