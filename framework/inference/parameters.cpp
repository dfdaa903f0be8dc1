// Inferred parameters, their checks and the component-wise maps (framework/inference/parameters.hpp).
#include "framework/inference/parameters.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include "base/core/error.hpp"
#include "framework/model/parameters.hpp"  // number_text

namespace rsmc::inference {

InferredParameter::InferredParameter(std::string name_, Prior prior_)
    : name(std::move(name_)), prior(prior_), transform(Transform::onto(prior_.support())) {}

InferredParameter::InferredParameter(std::string name_, Prior prior_, Transform transform_)
    : name(std::move(name_)), prior(prior_), transform(transform_) {}

Interval InferredParameter::reachable() const { return intersect(prior.support(), transform.image()); }

void check_prior_fits(const InferredParameter& p, const Interval& domain) {
  const Interval reach = p.reachable();
  if (reach.within(domain)) return;
  throw Error(p.name + ": the prior " + p.prior.describe() + " with the " + p.transform.describe() +
              " transform reaches " + reach.describe() + ", outside the parameter's valid range " + domain.describe() +
              "; choose a prior on " + domain.describe() + " or a transform onto it");
}

void check_initial_value(const InferredParameter& p, double value) {
  if (!p.transform.image().contains(value))
    throw Error(p.name + ": initial value " + number_text(value) + " is outside " + p.transform.image().describe() +
                ", the range of the " + p.transform.describe() + " transform");
  if (!(p.prior.log_density(value) > -std::numeric_limits<double>::infinity()))
    throw Error(p.name + ": initial value " + number_text(value) + " has zero density under the prior " +
                p.prior.describe());
}

InferredParameterSet::InferredParameterSet(std::vector<InferredParameter> parameters)
    : parameters_(std::move(parameters)) {
  if (parameters_.empty()) throw Error("no parameters to infer; expected at least one");
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const InferredParameter& p = parameters_[i];
    if (p.name.empty()) throw Error("parameter " + std::to_string(i) + " has an empty name");
    for (std::size_t j = 0; j < i; ++j)
      if (parameters_[j].name == p.name) throw Error(p.name + ": parameter given twice");
    if (p.reachable().empty())
      throw Error(p.name + ": the prior " + p.prior.describe() + " has no mass in " + p.transform.image().describe() +
                  ", the range of the " + p.transform.describe() + " transform");
  }
}

int InferredParameterSet::index_of(const std::string& name) const {
  for (std::size_t i = 0; i < parameters_.size(); ++i)
    if (parameters_[i].name == name) return static_cast<int>(i);
  return -1;
}

std::vector<std::string> InferredParameterSet::names() const {
  std::vector<std::string> out;
  for (const InferredParameter& p : parameters_) out.push_back(p.name);
  return out;
}

void InferredParameterSet::to_constrained(const double* phi, double* theta) const {
  for (std::size_t i = 0; i < parameters_.size(); ++i) theta[i] = parameters_[i].transform.to_constrained(phi[i]);
}

void InferredParameterSet::to_unconstrained(const double* theta, double* phi) const {
  for (std::size_t i = 0; i < parameters_.size(); ++i) phi[i] = parameters_[i].transform.to_unconstrained(theta[i]);
}

double InferredParameterSet::log_jacobian(const double* phi) const {
  double sum = 0.0;
  for (std::size_t i = 0; i < parameters_.size(); ++i) sum += parameters_[i].transform.log_jacobian(phi[i]);
  return sum;
}

double InferredParameterSet::log_prior(const double* theta) const {
  constexpr double kMinusInf = -std::numeric_limits<double>::infinity();
  double sum = 0.0;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const InferredParameter& p = parameters_[i];
    if (!p.transform.image().contains(theta[i])) return kMinusInf;
    const double lp = p.prior.log_density(theta[i]);
    if (!(lp > kMinusInf)) return kMinusInf;
    sum += lp;
  }
  return sum;
}

}  // namespace rsmc::inference
