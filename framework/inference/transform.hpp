// Maps between a parameter theta and the unconstrained value phi the random walk moves.
//
// What: three bijections phi -> theta, each with the log of its Jacobian |d theta / d phi|:
//   identity      theta = phi                              on the real line   log J = 0
//   log           theta = exp(phi)                         on (0, inf)        log J = phi
//   logit(a, b)   theta = a + (b - a) / (1 + exp(-phi))    on (a, b)
//                                                  log J = log(b - a) - |phi| - 2 log1p(exp(-|phi|))
// with the inverses phi = theta, log theta, log(theta - a) - log(b - theta).
//
// Why: a random walk on phi never proposes a value outside the parameter's range, and its step
// size means the same thing near 0 as near 1000. The target density of phi is
// p(y | theta) p(theta) J(phi), so the Metropolis-Hastings ratio includes the Jacobian
// (framework/inference/pmmh.hpp). All functions use rsmc::math, so the chain's bits are portable.
//
// At the extremes the rounded theta may land on the boundary (exp(phi) underflows to 0, the logistic
// rounds to a or b); to_constrained still returns it and the caller treats a theta outside the open
// image as outside the prior's support (a rejected proposal, never a model call).
#pragma once

#include <string>

#include "framework/inference/prior.hpp"

namespace rsmc::inference {

enum class TransformKind { identity, log, logit };

class Transform {
 public:
  static Transform identity() { return Transform(TransformKind::identity, 0.0, 0.0); }
  static Transform log() { return Transform(TransformKind::log, 0.0, 0.0); }
  // Throws rsmc::Error unless a < b are finite and b - a is finite.
  static Transform logit(double lower, double upper);
  // The transform whose image is `range`: identity for the real line, log for (0, inf), logit for a
  // bounded interval; throws rsmc::Error for any other half-line (no transform maps onto it).
  static Transform onto(const Interval& range);
  // "identity", "log" or "logit" (the last with its bounds); throws naming the known ones.
  static Transform from_name(const std::string& name, double lower = 0.0, double upper = 0.0);

  TransformKind kind() const { return kind_; }
  const char* name() const;
  double lower() const { return lower_; }
  double upper() const { return upper_; }
  Interval image() const;        // the values theta can take
  std::string describe() const;  // "log", "logit(0, 1)"

  double to_constrained(double phi) const;      // theta
  double to_unconstrained(double theta) const;  // phi; +-inf or NaN for theta outside the image
  double log_jacobian(double phi) const;        // log |d theta / d phi|

 private:
  Transform(TransformKind kind, double lower, double upper) : kind_(kind), lower_(lower), upper_(upper) {}

  TransformKind kind_;
  double lower_, upper_;    // logit only
  double log_width_ = 0.0;  // logit: log(upper - lower)
};

}  // namespace rsmc::inference
