// The parameters a chain infers: each with a name, a prior and a transform, and the checks a driver
// makes before a run starts.
//
// What: InferredParameterSet holds d InferredParameter entries in a fixed order (the order of theta
// and phi vectors everywhere: chain state, proposal covariance, output columns). (Not to be confused
// with rsmc::ParameterSet, a model's declared parameters: framework/model/parameters.hpp.) It maps theta <-> phi
// component by component and sums the log-prior and the log-Jacobian in index order (fixed order: the same bits on
// every rank and machine).
//
// Checks (each throws rsmc::Error with one line that starts with the parameter's name):
// - check_prior_fits: the values the chain can take, the prior's support intersected with the
//   transform's image, must lie in the parameter's valid range (the model's domain): a normal prior
//   on a variance is refused unless a log transform restricts it to (0, inf) (a truncated normal).
// - check_initial_value: the initial value must lie inside the transform's image and have a
//   positive prior density.
#pragma once

#include <string>
#include <vector>

#include "framework/inference/prior.hpp"
#include "framework/inference/transform.hpp"

namespace rsmc::inference {

struct InferredParameter {
  std::string name;
  Prior prior;
  Transform transform;

  // The transform that matches the prior's support (identity, log or logit onto it).
  InferredParameter(std::string name, Prior prior);
  InferredParameter(std::string name, Prior prior, Transform transform);

  // The values a chain can visit: the prior's support intersected with the transform's image.
  Interval reachable() const;
};

// Throws "<name>: <prior> has support <...>, outside the parameter's valid range <domain>; ..."
void check_prior_fits(const InferredParameter& parameter, const Interval& domain);

// Throws "<name>: initial value <v> ..." if v is outside the transform's image or has zero prior
// density.
void check_initial_value(const InferredParameter& parameter, double value);

class InferredParameterSet {
 public:
  // Throws rsmc::Error on an empty list, an empty name or a name given twice, or a transform whose
  // image misses the prior's support.
  explicit InferredParameterSet(std::vector<InferredParameter> parameters);

  int dimension() const { return static_cast<int>(parameters_.size()); }
  const InferredParameter& operator[](int i) const { return parameters_[static_cast<std::size_t>(i)]; }
  const std::vector<InferredParameter>& all() const { return parameters_; }
  int index_of(const std::string& name) const;  // -1 if absent
  std::vector<std::string> names() const;

  void to_constrained(const double* phi, double* theta) const;
  void to_unconstrained(const double* theta, double* phi) const;
  double log_jacobian(const double* phi) const;  // sum over components, in index order
  // Sum of the log-densities in index order; -inf as soon as a component lies outside its prior's
  // support or outside its transform's open image (a rounded boundary value).
  double log_prior(const double* theta) const;

 private:
  std::vector<InferredParameter> parameters_;
};

}  // namespace rsmc::inference
