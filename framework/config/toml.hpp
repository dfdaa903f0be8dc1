// A reader for the subset of TOML that run configurations use (`rsmc filter --config run.toml`).
//
// Supported: comments (#), blank lines, `[table]` and `[table.sub]` headers, and `key = value` lines
// with bare keys (A-Z a-z 0-9 _ -) or dotted bare keys, where a value is
//   a basic string "..." (escapes \" \\ \n \t \r \uXXXX) or a literal string '...',
//   an integer (decimal, optional sign, underscores between digits),
//   a float (decimal with a fraction and/or exponent, inf, nan, with optional sign),
//   a boolean (true / false),
//   or an array [v, v, ...] of those on one line (trailing comma allowed).
// Not supported (an error that says so): multi-line strings and arrays, inline tables, arrays of
// tables, dates. Every key is stored under its full dotted path ("model.phi"); defining a key twice
// is an error. Errors are rsmc::Error "FILE:LINE: what is wrong".
//
// Values keep their source text and line, so the code that maps keys to settings can report
// "run.toml:7: particles: expected an integer >= 1, got 2.5".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rsmc::config {

struct TomlValue {
  enum class Type { string, integer, floating, boolean, array };
  Type type = Type::string;
  std::string text;                // strings: the decoded text; others: the source text
  std::int64_t integer = 0;        // Type::integer
  double floating = 0.0;           // Type::floating (and integers, converted)
  bool boolean = false;            // Type::boolean
  std::vector<TomlValue> elements;  // Type::array
  int line = 0;                    // 1-based line of the key in the file

  const char* type_name() const;  // "a string", "an integer", ...
};

struct TomlDocument {
  std::string source;                      // the file name, for messages
  std::map<std::string, TomlValue> values;  // full dotted key -> value

  // "FILE:LINE: " for a key's line.
  std::string where(const TomlValue& v) const;
};

// Parses `text` (the contents of `source`). Throws rsmc::Error "source:line: ...".
TomlDocument parse_toml(const std::string& text, const std::string& source);

// Reads and parses a file. Throws rsmc::Error naming the file if it cannot be read.
TomlDocument read_toml_file(const std::string& path);

}  // namespace rsmc::config
