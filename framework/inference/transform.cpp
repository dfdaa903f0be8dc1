// The identity, log and logit transforms and their Jacobians (framework/inference/transform.hpp).
#include "framework/inference/transform.hpp"

#include <cmath>
#include <limits>

#include "base/core/error.hpp"
#include "base/math/math.hpp"
#include "framework/model/parameters.hpp"  // number_text

namespace rsmc::inference {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

Transform Transform::logit(double lower, double upper) {
  if (!(std::isfinite(lower) && std::isfinite(upper) && lower < upper && std::isfinite(upper - lower)))
    throw Error("logit transform: bounds (" + number_text(lower) + ", " + number_text(upper) +
                "); expected finite lower < upper");
  Transform t(TransformKind::logit, lower, upper);
  t.log_width_ = math::log(upper - lower);
  return t;
}

Transform Transform::onto(const Interval& range) {
  if (range.lower == -kInf && range.upper == kInf) return identity();
  if (range.lower == 0.0 && range.upper == kInf) return log();
  if (std::isfinite(range.lower) && std::isfinite(range.upper)) return logit(range.lower, range.upper);
  throw Error("no transform maps onto " + range.describe() +
              "; expected the real line (identity), (0, inf) (log) or a bounded interval (logit)");
}

Transform Transform::from_name(const std::string& name, double lower, double upper) {
  if (name == "identity") return identity();
  if (name == "log") return log();
  if (name == "logit") return logit(lower, upper);
  throw Error("transform \"" + name + "\" is unknown; expected identity, log or logit");
}

const char* Transform::name() const {
  switch (kind_) {
    case TransformKind::identity:
      return "identity";
    case TransformKind::log:
      return "log";
    case TransformKind::logit:
      return "logit";
  }
  return "unknown";
}

Interval Transform::image() const {
  switch (kind_) {
    case TransformKind::identity:
      return real_line();
    case TransformKind::log:
      return positive_half_line();
    case TransformKind::logit:
      return {lower_, upper_};
  }
  return real_line();
}

std::string Transform::describe() const {
  if (kind_ != TransformKind::logit) return name();
  return "logit(" + number_text(lower_) + ", " + number_text(upper_) + ")";
}

double Transform::to_constrained(double phi) const {
  switch (kind_) {
    case TransformKind::identity:
      return phi;
    case TransformKind::log:
      return math::exp(phi);
    case TransformKind::logit: {
      // The logistic from the nearer end, so theta keeps its accuracy next to both bounds.
      const double e = math::exp(-std::fabs(phi));  // in (0, 1]
      const double share = (upper_ - lower_) * (e / (1.0 + e));
      return phi < 0.0 ? lower_ + share : upper_ - share;
    }
  }
  return phi;
}

double Transform::to_unconstrained(double theta) const {
  switch (kind_) {
    case TransformKind::identity:
      return theta;
    case TransformKind::log:
      return math::log(theta);
    case TransformKind::logit:
      return math::log(theta - lower_) - math::log(upper_ - theta);
  }
  return theta;
}

double Transform::log_jacobian(double phi) const {
  switch (kind_) {
    case TransformKind::identity:
      return 0.0;
    case TransformKind::log:
      return phi;
    case TransformKind::logit: {
      // log s + log(1 - s) with s the logistic of phi: -softplus(phi) - softplus(-phi).
      const double a = std::fabs(phi);
      return log_width_ - a - 2.0 * math::log1p(math::exp(-a));
    }
  }
  return 0.0;
}

}  // namespace rsmc::inference
