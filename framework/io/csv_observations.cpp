#include "framework/io/csv_observations.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "framework/io/atomic_file.hpp"
#include "framework/io/observations_file.hpp"

namespace rsmc {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

std::string where(const std::string& path) { return "observations file '" + path + "'"; }
std::string where(const std::string& path, long line) { return where(path) + ", line " + std::to_string(line); }

std::string read_whole_file(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw Error(where(path) + ": cannot open: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw Error(where(path) + ": is a directory; expected a CSV file");
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) throw Error(where(path) + ": cannot open: " + std::strerror(errno));
  std::string text;
  char buffer[1 << 16];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f.get())) > 0) text.append(buffer, n);
  if (std::ferror(f.get())) throw Error(where(path) + ": cannot read: " + std::strerror(errno));
  return text;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    if (comma == std::string::npos) {
      fields.push_back(trim(line.substr(start)));
      return fields;
    }
    fields.push_back(trim(line.substr(start, comma - start)));
    start = comma + 1;
  }
}

bool is_missing_marker(const std::string& field) {
  return field.empty() || field == "NA" || field == "NaN" || field == "nan";
}

// Whether a field is a decimal number: [+-] digits [. digits] [(e|E) [+-] digits], with at least one
// digit before the exponent. std::strtod alone would also take hexadecimal floats ("0x1p3"),
// "inf"/"infinity" and "nan(...)"; data files hold decimal numbers (the missing-value spellings are
// matched separately, before this).
bool is_decimal(const std::string& field) {
  const auto digits = [&field](std::size_t& i) {
    const std::size_t from = i;
    while (i < field.size() && field[i] >= '0' && field[i] <= '9') ++i;
    return i - from;
  };
  std::size_t i = 0;
  if (i < field.size() && (field[i] == '+' || field[i] == '-')) ++i;
  std::size_t mantissa = digits(i);
  if (i < field.size() && field[i] == '.') mantissa += digits(++i);
  if (mantissa == 0) return false;
  if (i < field.size() && (field[i] == 'e' || field[i] == 'E')) {
    ++i;
    if (i < field.size() && (field[i] == '+' || field[i] == '-')) ++i;
    if (digits(i) == 0) return false;
  }
  return i == field.size();
}

// Parses a whole field as a finite decimal number; false if it is not one.
bool parse_finite(const std::string& field, double& value) {
  if (!is_decimal(field)) return false;
  const char* begin = field.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (end == begin || *end != '\0') return false;
  if (!std::isfinite(v)) return false;  // overflow (ERANGE -> HUGE_VAL)
  value = v;                            // underflow to a subnormal or zero is accepted
  return true;
}

// Quotes text for an error message, shortened if it is long.
std::string quoted(const std::string& s) {
  if (s.size() <= 40) return "'" + s + "'";
  // Named: "'" + a temporary gives a bogus -Wrestrict (GCC 12, C++20, -O3).
  const std::string head = s.substr(0, 37);
  return "'" + head + "...'";
}

// Refuses text that is not ASCII or UTF-8 as far as a CSV reader can tell: UTF-16 (a byte-order mark,
// or NUL bytes, which every ASCII character has in UTF-16) and other binary data. A NUL byte would
// also end the error messages that quote a field.
void refuse_binary_text(const std::string& path, const std::string& text) {
  const auto starts_with = [&text](const char* mark) { return text.compare(0, 2, mark) == 0; };
  if (starts_with("\xFF\xFE") || starts_with("\xFE\xFF"))
    throw Error(where(path) + ": is UTF-16 text (it starts with the byte-order mark " +
                (starts_with("\xFF\xFE") ? "FF FE" : "FE FF") +
                "); expected ASCII or UTF-8 text: save it as UTF-8 (\"CSV UTF-8\" in a spreadsheet)");
  const std::size_t nul = text.find('\0');
  if (nul == std::string::npos) return;
  long line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < nul; ++i)
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'))) {
      ++line;
      line_start = i + 1;
    }
  throw Error(where(path, line) + ": a NUL byte at column " + std::to_string(nul - line_start + 1) +
              "; expected text (UTF-16 without a byte-order mark, or binary data? save it as UTF-8 text)");
}

// The end of the line that starts at `pos` and where the next one starts: lines end with LF, CR LF
// or a lone CR (old Mac files, some exports).
std::size_t line_end(const std::string& text, std::size_t pos, std::size_t& next) {
  const std::size_t eol = std::min(text.find_first_of("\r\n", pos), text.size());
  next = eol + (eol + 1 < text.size() && text[eol] == '\r' && text[eol + 1] == '\n' ? 2 : 1);
  return eol;
}

}  // namespace

Observations read_observations_csv(const std::string& path) {
  std::string text = read_whole_file(path);
  refuse_binary_text(path, text);
  std::size_t pos = 0;
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) pos = 3;  // UTF-8 byte-order mark (spreadsheets)

  std::vector<std::string> names;
  std::vector<double> values;
  long steps = 0;
  long line_number = 0;
  const double missing = std::numeric_limits<double>::quiet_NaN();

  while (pos < text.size()) {
    std::size_t next = 0;
    const std::size_t eol = line_end(text, pos, next);
    const std::string line = trim(text.substr(pos, eol - pos));
    pos = next;
    ++line_number;
    if (line.empty() || line[0] == '#') continue;

    std::vector<std::string> fields = split_fields(line);
    if (names.empty()) {
      // The header.
      std::set<std::string> seen;
      bool all_numeric = true;
      for (std::size_t j = 0; j < fields.size(); ++j) {
        double v;
        if (!parse_finite(fields[j], v)) all_numeric = false;
        if (fields[j].empty())
          throw Error(where(path, line_number) + ": header column " + std::to_string(j + 1) + " of " +
                      std::to_string(fields.size()) +
                      " has an empty name; expected one non-empty name per observation component");
        if (!seen.insert(fields[j]).second)
          throw Error(where(path, line_number) + ": header names column " + quoted(fields[j]) +
                      " twice; expected distinct column names");
      }
      if (all_numeric)
        throw Error(where(path, line_number) + ": no header: the first line " + quoted(line) +
                    " holds numbers; expected a header line of column names (e.g. 'y1,y2')");
      names = std::move(fields);
      continue;
    }

    if (fields.size() != names.size())
      throw Error(where(path, line_number) + ": " + std::to_string(fields.size()) + " field" +
                  (fields.size() == 1 ? "" : "s") + ", expected " + std::to_string(names.size()) + " (header has " +
                  std::to_string(names.size()) + " column" + (names.size() == 1 ? "" : "s") + ")");
    std::size_t n_missing = 0;
    std::size_t first_missing = 0, first_present = 0;
    bool any_present = false;
    for (std::size_t j = 0; j < fields.size(); ++j) {
      double v = missing;
      if (is_missing_marker(fields[j])) {
        if (n_missing++ == 0) first_missing = j;
      } else {
        if (!any_present) first_present = j;
        any_present = true;
        if (!parse_finite(fields[j], v))
          throw Error(where(path, line_number) + ": column " + quoted(names[j]) + ": " + quoted(fields[j]) +
                      " is not a finite number; expected a finite decimal number (e.g. 1.5 or -2e-3; "
                      "no hexadecimal, inf or nan(...) spellings), or empty, NA, NaN or nan for a missing step");
      }
      values.push_back(v);
    }
    if (n_missing != 0 && n_missing != fields.size())
      throw Error(where(path, line_number) + ": " + std::to_string(n_missing) + " of " + std::to_string(fields.size()) +
                  " fields missing (column " + quoted(names[first_missing]) + " missing, column " +
                  quoted(names[first_present]) +
                  " present); rsmc cannot filter partially observed steps: expected all fields "
                  "missing or none");
    ++steps;
    if (steps > std::numeric_limits<int>::max())
      throw Error(where(path, line_number) + ": too many rows; at most " +
                  std::to_string(std::numeric_limits<int>::max()) + " steps are supported");
  }

  if (names.empty())
    throw Error(where(path) + ": no header; expected a header line of column names, then one row per step");
  if (steps == 0) throw Error(where(path) + ": no data rows after the header; expected one row per step");

  Observations obs;
  obs.steps = static_cast<int>(steps);
  obs.dim = static_cast<int>(names.size());
  obs.values = std::move(values);
  return obs;
}

void write_observations_csv(const std::string& path, const Observations& obs,
                            const std::vector<std::string>& column_names, bool overwrite) {
  const std::string what = "output file '" + path + "'";
  validate_observations(obs, what);

  std::vector<std::string> names = column_names;
  if (names.empty())
    for (int j = 1; j <= obs.dim; ++j) {
      // Named: "y" + a temporary gives a bogus -Wrestrict (GCC 12, C++20, -O3).
      const std::string number = std::to_string(j);
      names.push_back("y" + number);
    }
  if (names.size() != static_cast<std::size_t>(obs.dim))
    throw Error(what + ": " + std::to_string(names.size()) + " column names for " + std::to_string(obs.dim) +
                " observation components; expected one name per component");
  std::set<std::string> seen;
  for (const std::string& name : names) {
    if (name.empty() || name != trim(name) || name[0] == '#' || name.find_first_of(",\"\n\r") != std::string::npos)
      throw Error(what + ": column name " + quoted(name) +
                  " is not allowed; expected a non-empty name without commas, quotes, line breaks "
                  "or surrounding whitespace, not starting with '#'");
    if (!seen.insert(name).second)
      throw Error(what + ": column name " + quoted(name) + " appears twice; expected distinct names");
  }

  // The header must not read back as numbers (the reader would call that "no header").
  bool all_numeric = true;
  for (const std::string& name : names) {
    double v;
    if (!parse_finite(name, v)) all_numeric = false;
  }
  if (all_numeric) throw Error(what + ": column names are all numbers; expected at least one non-numeric name");

  std::string text;
  for (std::size_t j = 0; j < names.size(); ++j) {
    if (j) text += ',';
    text += names[j];
  }
  text += '\n';
  char buffer[64];
  for (int t = 1; t <= obs.steps; ++t) {
    if (obs.missing(t)) {
      text += obs.dim == 1 ? "NA" : std::string(static_cast<std::size_t>(obs.dim - 1), ',');
    } else {
      const double* y = obs.row(t);
      for (int j = 0; j < obs.dim; ++j) {
        if (j) text += ',';
        std::snprintf(buffer, sizeof buffer, "%.*g", std::numeric_limits<double>::max_digits10, y[j]);
        text += buffer;
      }
    }
    text += '\n';
  }

  write_atomically(path, overwrite, [&](const std::string& tmp) {
    File f(std::fopen(tmp.c_str(), "wb"));
    if (!f) throw Error(what + ": cannot create '" + tmp + "': " + std::strerror(errno));
    if (std::fwrite(text.data(), 1, text.size(), f.get()) != text.size())
      throw Error(what + ": cannot write '" + tmp + "': " + std::strerror(errno));
    std::FILE* raw = f.release();
    if (std::fclose(raw) != 0) throw Error(what + ": cannot write '" + tmp + "': " + std::strerror(errno));
  });
}

}  // namespace rsmc
