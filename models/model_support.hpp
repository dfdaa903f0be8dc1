// Host-side helpers shared by the shipped models: parameter checks whose messages name the model and
// the parameter, the `name = value` lines of describe(), and the Kokkos-initialised check of model
// constructors. Nothing here is called in kernels.
//
// Messages read "<model>: <parameter> = <value>; expected <what>", e.g.
//   "stochastic_volatility: phi = 1; expected -1 < phi < 1 (a stationary AR(1) log-variance)".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rsmc::models::support {

// The shortest decimal form of v that reads back as the same double ("0.1", "1e-05", "-0.8698"); integers
// below 1e15 in magnitude in full ("10", "-0"), never in exponent form.
std::string number_text(double v);

// "[1, 0.5]" and, row-major rows x cols, "[[0.9, 0.1], [0.2, 0.8]]" (numbers as number_text).
std::string vector_text(const std::vector<double>& a);
std::string matrix_text(const std::vector<double>& a, int rows, int cols);

// "<name> = <number_text(value)>\n" and "<name> = <value>\n": one line of a describe().
std::string describe_line(const char* name, double value);
std::string describe_line(const char* name, std::int64_t value);
std::string describe_line(const char* name, const std::string& value);

// Throws rsmc::Error("<model>: <name> = <value>; expected <expected>").
[[noreturn]] void bad_parameter(const char* model, const char* name, const std::string& value,
                                const std::string& expected);

// Each throws through bad_parameter unless the value satisfies the check (NaN never does).
void require_finite(const char* model, const char* name, double value);
void require_positive(const char* model, const char* name, double value);     // finite and > 0
void require_nonnegative(const char* model, const char* name, double value);  // finite and >= 0
// lo < value < hi, or lo <= value <= hi when `closed`.
void require_between(const char* model, const char* name, double value, double lo, double hi, bool closed,
                     const std::string& why);
void require_at_least(const char* model, const char* name, std::int64_t value, std::int64_t lo,
                      const std::string& why);

// Throws rsmc::Error naming the model unless Kokkos is initialised (models that own Views need it).
void require_kokkos(const char* model);

}  // namespace rsmc::models::support
