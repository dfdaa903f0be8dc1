// The non-template parts of declared model parameters: number text, constraint messages, the checks
// of reals, vectors and matrices. See parameters.hpp.
#include "framework/model/parameters.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/core/error.hpp"

namespace rsmc {

std::string number_text(double v) {
  char buf[64];
  if (std::isfinite(v) && v == std::nearbyint(v) && std::fabs(v) < 1e15) {  // integers in full: "10", not "1e+01"
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string vector_text(const std::vector<double>& a) {
  std::string s = "[";
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (i) s += ", ";
    s += number_text(a[i]);
  }
  return s + "]";
}

std::string matrix_text(const std::vector<double>& a, int rows, int cols) {
  if (rows < 0 || cols < 0 || a.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols))
    return vector_text(a);  // not of its shape (an invalid struct): the entries as they are
  std::string s = "[";
  for (int i = 0; i < rows; ++i) {
    s += i ? ", [" : "[";
    for (int j = 0; j < cols; ++j) {
      if (j) s += ", ";
      s += number_text(a[static_cast<std::size_t>(i) * cols + j]);
    }
    s += "]";
  }
  return s + "]";
}

void bad_parameter(const std::string& model, const std::string& name, const std::string& value,
                   const std::string& expected) {
  throw Error(model + ": " + name + " = " + value + "; expected " + expected);
}

// ---- constraints --------------------------------------------------------------------------------

namespace {

std::string with_reason(std::string text, const char* why) {
  if (why != nullptr && why[0] != '\0') text += std::string(" (") + why + ")";
  return text;
}

}  // namespace

bool RealBounds::admits(double x) const {
  if (!std::isfinite(x)) return false;
  const bool lo_ok = lo_open ? x > lo : x >= lo;
  const bool hi_ok = hi_open ? x < hi : x <= hi;
  return lo_ok && hi_ok;
}

std::string RealBounds::summary(const std::string& name) const {
  const bool has_lo = std::isfinite(lo), has_hi = std::isfinite(hi);
  const char* lo_op = lo_open ? " < " : " <= ";
  const char* hi_op = hi_open ? " < " : " <= ";
  if (has_lo && has_hi) return number_text(lo) + lo_op + name + hi_op + number_text(hi);
  if (has_lo) return std::string(lo_open ? "> " : ">= ") + number_text(lo);
  if (has_hi) return std::string(hi_open ? "< " : "<= ") + number_text(hi);
  return "";
}

std::string RealBounds::expected(const std::string& name) const {
  const bool has_lo = std::isfinite(lo), has_hi = std::isfinite(hi);
  if (has_lo && has_hi) return with_reason(summary(name), why);
  const std::string bound = summary(name);
  return with_reason(bound.empty() ? "a finite number" : "a finite number " + bound, why);
}

std::string IntegerBounds::violation(const std::string& name, std::int64_t value) const {
  if (value < lo) return with_reason("an integer " + name + " >= " + std::to_string(lo), lo_why);
  if (value > hi) return with_reason("an integer " + name + " <= " + std::to_string(hi), hi_why);
  return "";
}

std::string IntegerBounds::summary(const std::string& name) const {
  const bool has_lo = lo != std::numeric_limits<std::int64_t>::min();
  const bool has_hi = hi != std::numeric_limits<std::int64_t>::max();
  if (has_lo && has_hi) return std::to_string(lo) + " <= " + name + " <= " + std::to_string(hi);
  if (has_lo) return ">= " + std::to_string(lo);
  if (has_hi) return "<= " + std::to_string(hi);
  return "";
}

namespace parameter_detail {

namespace {

// Each entry of a vector or matrix must satisfy `bounds`; entries are named "s[1]" or "A[1][0]".
void validate_entries(const char* model, const char* name, const std::vector<double>& v, int cols,
                      const RealBounds& bounds) {
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (bounds.admits(v[k])) continue;
    std::string entry = std::string(name) + "[";
    if (cols > 0)
      entry += std::to_string(k / cols) + "][" + std::to_string(k % cols) + "]";
    else
      entry += std::to_string(k) + "]";
    bad_parameter(model, entry, number_text(v[k]), bounds.expected(entry));
  }
}

}  // namespace

void Validate::operator()(const Real& p) const {
  if (!p.bounds.admits(p.value)) bad_parameter(model, p.name, number_text(p.value), p.bounds.expected(p.name));
}

void Validate::operator()(const RealVector& p) const { validate_entries(model, p.name, p.value, 0, p.bounds); }

void Validate::operator()(const RealMatrix& p) const { validate_entries(model, p.name, p.value, p.cols, p.bounds); }

void Describe::line(const char* name, const std::string& value, const char* doc, const std::string& summary) const {
  if (out) *out += std::string(name) + " = " + value + "\n";
  if (!rows) return;
  std::string meaning = doc;
  if (!summary.empty()) meaning += meaning.empty() ? summary : " (" + summary + ")";
  rows->push_back({name, value, meaning});
}

std::string Describe::entries_summary(const RealBounds& b, const char* name) {
  const std::string s = b.summary(std::string(name) + "[i]");
  return s.empty() ? s : "entries " + s;
}

void unknown_parameter(const char* model, const std::string& name, const std::vector<std::string>& known) {
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  throw Error(std::string(model) + ": no parameter '" + name + "'; its parameters: " + list);
}

std::string integer_violation(const std::string& name, double value, const IntegerBounds& bounds, std::int64_t lowest,
                              std::int64_t highest) {
  IntegerBounds held = bounds;  // the declared bounds within what the member's type holds
  held.lo = lowest;
  held.hi = highest;
  if (!(std::isfinite(value) && value == std::nearbyint(value))) {
    const std::string range = held.summary(name);
    return "an integer" + (range.empty() ? std::string() : " " + range);
  }
  // Beyond the int64 range (2^63 itself is not an int64): below or above every integer parameter.
  if (value < -9223372036854775808.0) return "an integer " + name + " >= " + std::to_string(lowest);
  if (value >= 9223372036854775808.0) return "an integer " + name + " <= " + std::to_string(highest);
  return held.violation(name, static_cast<std::int64_t>(value));
}

void not_scalar(const char* model, const std::string& name, const std::string& why) {
  throw Error(std::string(model) + ": " + name + " " + why + "; get and set by name take real and integer parameters");
}

}  // namespace parameter_detail

}  // namespace rsmc
