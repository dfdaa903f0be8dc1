// Run configuration files (`--config run.toml`): binds TOML keys to a command's settings, with
// command-line flags taking precedence over the file.
//
// A command declares each setting once (key, kind, range, the CLI11 option of the same setting);
// apply() then checks every key of the file: unknown keys, values of the wrong type and values out
// of range are errors "FILE:LINE: key: expected ..., got ...", also when the command line gives the
// setting too (the flag wins, but the file is still wrong). Keys under a pass-through table (e.g.
// `[parameters]`, the model's parameters) are handed back to the caller unchecked. An integer's
// lower bound is checked on the command line as well ("--particles: 0 is not valid; expected an
// integer >= 1"), so that the bound is declared once. Every value apply() sets is recorded with its
// file and line (record_value_origin, drivers/field_flags.hpp), so that a later error about the
// setting names the line rather than a flag that was never given.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "framework/config/toml.hpp"

namespace rsmc::drivers {

class ConfigBindings {
 public:
  // An integer setting >= min.
  void integer(const std::string& key, long long& target, long long min, CLI::Option* option);
  // A number in [min, max] (or (min, max] when min_open).
  void number(const std::string& key, double& target, double min, double max, bool min_open, CLI::Option* option);
  // A string; `choices` (if not empty) lists the allowed values.
  void text(const std::string& key, std::string& target, CLI::Option* option, std::vector<std::string> choices = {});
  // A boolean (a flag on the command line).
  void boolean(const std::string& key, bool& target, CLI::Option* option);

  // Sets every bound setting the file has and the command line did not give; returns the keys
  // under `passthrough` + "." with that prefix removed. Throws rsmc::Error on the first bad key.
  std::map<std::string, config::TomlValue> apply(const config::TomlDocument& doc, const std::string& passthrough) const;

  // The keys, for --help and error messages.
  std::string key_list() const;
  // Whether `key` is bound (a command reading another command's file keeps only its own keys).
  bool binds(const std::string& key) const;

 private:
  // `set` checks a value of the file (throwing "FILE:LINE: key: ...") and stores it when `store`.
  struct Binding {
    std::string key;
    CLI::Option* option;
    std::function<void(const config::TomlDocument&, const config::TomlValue&, bool store)> set;
  };
  std::vector<Binding> bindings_;
};

// `text` as a TOML basic string: "..." with quotes, backslashes and control characters escaped.
std::string quoted(const std::string& text);

// A value read from a run file, written back as TOML (numbers as they were written).
std::string toml_text(const config::TomlValue& v);

}  // namespace rsmc::drivers
