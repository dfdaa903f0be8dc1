// Priors: argument checks, supports and log-densities (framework/inference/prior.hpp).
#include "framework/inference/prior.hpp"

#include <cmath>
#include <limits>

#include "base/core/error.hpp"
#include "base/math/math.hpp"
#include "framework/model/parameters.hpp"  // number_text

namespace rsmc::inference {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kHalfLog2Pi = 0.91893853320467274178032973640562;  // log(2 pi) / 2

// What each argument must be.
enum class ArgumentRule { finite, positive };

// One row per prior: its name, its arguments' names and rules, and its support (uniform's is its
// arguments, filled in by Prior::support()).
struct PriorInfo {
  PriorKind kind;
  const char* name;
  const char* argument[2];
  ArgumentRule rule[2];
  Interval support;
};

const PriorInfo kPriors[] = {
    {PriorKind::normal, "normal", {"mean", "sd"}, {ArgumentRule::finite, ArgumentRule::positive}, {-kInf, kInf}},
    {PriorKind::log_normal,
     "log_normal",
     {"meanlog", "sdlog"},
     {ArgumentRule::finite, ArgumentRule::positive},
     {0.0, kInf}},
    {PriorKind::uniform, "uniform", {"lower", "upper"}, {ArgumentRule::finite, ArgumentRule::finite}, {-kInf, kInf}},
    {PriorKind::gamma, "gamma", {"shape", "rate"}, {ArgumentRule::positive, ArgumentRule::positive}, {0.0, kInf}},
    {PriorKind::inverse_gamma,
     "inverse_gamma",
     {"shape", "scale"},
     {ArgumentRule::positive, ArgumentRule::positive},
     {0.0, kInf}},
    {PriorKind::beta, "beta", {"a", "b"}, {ArgumentRule::positive, ArgumentRule::positive}, {0.0, 1.0}},
};

const PriorInfo& info(PriorKind kind) {
  for (const PriorInfo& p : kPriors)
    if (p.kind == kind) return p;
  throw Error("internal error: unknown prior kind " + std::to_string(static_cast<int>(kind)));
}

void check_argument(const PriorInfo& p, int i, double value) {
  const bool ok = p.rule[i] == ArgumentRule::finite ? std::isfinite(value) : (std::isfinite(value) && value > 0.0);
  if (ok) return;
  throw Error(std::string(p.name) + " prior: " + p.argument[i] + " = " + number_text(value) +
              "; expected a finite number" + (p.rule[i] == ArgumentRule::positive ? " > 0" : ""));
}

// log B(a, b) with a, b > 0: lgamma(a) + lgamma(b) - lgamma(a + b).
double log_beta_function(double a, double b) { return math::lgamma(a) + math::lgamma(b) - math::lgamma(a + b); }

}  // namespace

std::string Interval::describe() const {
  const auto end = [](double v) { return std::isinf(v) ? std::string(v < 0 ? "-inf" : "inf") : number_text(v); };
  return "(" + end(lower) + ", " + end(upper) + ")";
}

Interval real_line() { return {-kInf, kInf}; }
Interval positive_half_line() { return {0.0, kInf}; }
Interval intersect(const Interval& a, const Interval& b) {
  return {a.lower > b.lower ? a.lower : b.lower, a.upper < b.upper ? a.upper : b.upper};
}

Prior::Prior(PriorKind kind, double a, double b) : kind_(kind), a_(a), b_(b) {
  const PriorInfo& p = info(kind);
  check_argument(p, 0, a);
  check_argument(p, 1, b);
  switch (kind) {
    case PriorKind::normal:
    case PriorKind::log_normal:
      log_norm_ = -math::log(b) - kHalfLog2Pi;
      break;
    case PriorKind::uniform:
      if (!(b > a))
        throw Error("uniform prior: upper = " + number_text(b) + "; expected upper > lower = " + number_text(a));
      if (!std::isfinite(b - a))
        throw Error("uniform prior: upper - lower = " + number_text(b) + " - " + number_text(a) +
                    " overflows; expected a finite width");
      log_norm_ = -math::log(b - a);
      break;
    case PriorKind::gamma:
    case PriorKind::inverse_gamma:
      log_norm_ = a * math::log(b) - math::lgamma(a);
      break;
    case PriorKind::beta:
      log_norm_ = -log_beta_function(a, b);
      break;
  }
}

namespace {

const PriorInfo& info(const std::string& name) {
  for (const PriorInfo& p : kPriors)
    if (name == p.name) return p;
  throw Error("prior \"" + name + "\" is unknown; expected one of " + prior_names());
}

}  // namespace

Prior Prior::from_name(const std::string& name, double a, double b) { return Prior(info(name).kind, a, b); }

std::vector<std::string> prior_argument_names(const std::string& name) {
  const PriorInfo& p = info(name);
  return {p.argument[0], p.argument[1]};
}

const char* Prior::name() const { return info(kind_).name; }
const char* Prior::argument_name(int i) const { return info(kind_).argument[i == 0 ? 0 : 1]; }

Interval Prior::support() const { return kind_ == PriorKind::uniform ? Interval{a_, b_} : info(kind_).support; }

double Prior::log_density(double x) const {
  if (std::isnan(x)) return x;
  switch (kind_) {
    case PriorKind::normal: {
      if (std::isinf(x)) return -kInf;
      const double z = (x - a_) / b_;
      return log_norm_ - 0.5 * z * z;
    }
    case PriorKind::log_normal: {
      if (!(x > 0.0 && x < kInf)) return -kInf;
      const double log_x = math::log(x);
      const double z = (log_x - a_) / b_;
      return log_norm_ - log_x - 0.5 * z * z;
    }
    case PriorKind::uniform:
      return (x >= a_ && x <= b_) ? log_norm_ : -kInf;
    case PriorKind::gamma:
      if (!(x > 0.0 && x < kInf)) return -kInf;
      return log_norm_ + (a_ - 1.0) * math::log(x) - b_ * x;
    case PriorKind::inverse_gamma:
      if (!(x > 0.0 && x < kInf)) return -kInf;
      return log_norm_ - (a_ + 1.0) * math::log(x) - b_ / x;
    case PriorKind::beta:
      if (!(x > 0.0 && x < 1.0)) return -kInf;
      return log_norm_ + (a_ - 1.0) * math::log(x) + (b_ - 1.0) * math::log1p(-x);
  }
  return -kInf;
}

std::string Prior::describe() const {
  const PriorInfo& p = info(kind_);
  return std::string(p.name) + "(" + p.argument[0] + " = " + number_text(a_) + ", " + p.argument[1] + " = " +
         number_text(b_) + ")";
}

std::string prior_names() {
  std::string names;
  for (const PriorInfo& p : kPriors) names += (names.empty() ? "" : ", ") + std::string(p.name);
  return names;
}

}  // namespace rsmc::inference
