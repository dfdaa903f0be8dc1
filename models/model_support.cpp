// See model_support.hpp.
#include "models/model_support.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdio>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/core/error.hpp"

namespace rsmc::models::support {

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

std::string describe_line(const char* name, double value) {
  return std::string(name) + " = " + number_text(value) + "\n";
}

std::string describe_line(const char* name, std::int64_t value) {
  return std::string(name) + " = " + std::to_string(value) + "\n";
}

std::string describe_line(const char* name, const std::string& value) {
  return std::string(name) + " = " + value + "\n";
}

void bad_parameter(const char* model, const char* name, const std::string& value, const std::string& expected) {
  throw Error(std::string(model) + ": " + name + " = " + value + "; expected " + expected);
}

void require_finite(const char* model, const char* name, double value) {
  if (!std::isfinite(value)) bad_parameter(model, name, number_text(value), "a finite number");
}

void require_positive(const char* model, const char* name, double value) {
  if (!(std::isfinite(value) && value > 0.0))
    bad_parameter(model, name, number_text(value), "a finite number > 0");
}

void require_nonnegative(const char* model, const char* name, double value) {
  if (!(std::isfinite(value) && value >= 0.0))
    bad_parameter(model, name, number_text(value), "a finite number >= 0");
}

void require_between(const char* model, const char* name, double value, double lo, double hi, bool closed,
                     const std::string& why) {
  const bool ok = closed ? (value >= lo && value <= hi) : (value > lo && value < hi);
  if (!ok) {
    const char* op = closed ? " <= " : " < ";
    std::string expected = number_text(lo) + op + name + op + number_text(hi);
    if (!why.empty()) expected += " (" + why + ")";
    bad_parameter(model, name, number_text(value), expected);
  }
}

void require_at_least(const char* model, const char* name, std::int64_t value, std::int64_t lo,
                      const std::string& why) {
  if (value < lo) {
    std::string expected = std::string("an integer ") + name + " >= " + std::to_string(lo);
    if (!why.empty()) expected += " (" + why + ")";
    bad_parameter(model, name, std::to_string(value), expected);
  }
}

void require_kokkos(const char* model) {
  if (!Kokkos::is_initialized())
    throw Error(std::string(model) +
                ": Kokkos is not initialised; expected the model to be created between Kokkos::initialize and "
                "Kokkos::finalize");
}

}  // namespace rsmc::models::support
