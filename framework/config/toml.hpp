// Run configurations (`rsmc filter --config run.toml`) as a flat table of keys, read with toml++.
//
// Any TOML 1.0 document is read, and every value is stored under its full dotted key
// ("parameters.phi", from a [parameters] table, a dotted key or an inline table alike) with the
// line it is on. A value is a string, an integer, a float (inf and nan too), a boolean or an array
// of those (arrays may span lines). Refused with a message naming the file and line: arrays of tables
// and dates/times (no rsmc setting is one), and quoted keys that contain '.' or are empty (they
// would be ambiguous once flattened). Syntax errors read "FILE:LINE:COLUMN: what toml++ says".
//
// Values keep their source text (for messages) and line, so the code that maps keys to settings can
// report "run.toml:7: particles: expected an integer >= 1, got a number 2.5".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rsmc::config {

struct TomlValue {
  enum class Type { string, integer, floating, boolean, array };
  Type type = Type::string;
  std::string text;                 // strings: the decoded text; others: the source text ("[...]" for
                                    // an array written over several lines)
  std::int64_t integer = 0;         // Type::integer
  double floating = 0.0;            // Type::floating (and integers, converted)
  bool boolean = false;             // Type::boolean
  std::vector<TomlValue> elements;  // Type::array
  int line = 0;                     // 1-based line of the key in the file

  const char* type_name() const;  // "a string", "an integer", ...
};

struct TomlDocument {
  std::string source;                       // the file name, for messages
  std::map<std::string, TomlValue> values;  // full dotted key -> value

  // "FILE:LINE: " for a key's line.
  std::string where(const TomlValue& v) const;
};

// Parses `text` (the contents of `source`). Throws rsmc::Error "source:line: ..." (or, for a syntax
// error, "source:line:column: ...").
TomlDocument parse_toml(const std::string& text, const std::string& source);

// Reads and parses a file. Throws rsmc::Error naming the file if it cannot be read.
TomlDocument read_toml_file(const std::string& path);

}  // namespace rsmc::config
