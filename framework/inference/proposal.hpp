// The multivariate normal random-walk proposal on the unconstrained scale: phi' = phi + L z, with
// L L' = the proposal covariance (lower Cholesky factor) and z standard normals drawn from the
// iteration's proposal stream (framework/inference/chain_random.hpp).
//
// Why a stored factor: the covariance changes only at adaptation points (a few hundred times per
// run), while every iteration multiplies by L. All arithmetic is plain double in a fixed order
// (rows, then columns), compiled without FMA contraction, so the same covariance gives the same
// factor and the same proposal bits on every machine.
#pragma once

#include <string>
#include <vector>

namespace rsmc::inference {

// The lower Cholesky factor of the symmetric d x d matrix a (row-major, only the lower triangle is
// read) into l (d x d, upper triangle zero). Returns false, leaving l unspecified, if a pivot is not
// positive and finite (not numerically positive definite).
bool cholesky(const std::vector<double>& a, int d, std::vector<double>& l);

// Throws rsmc::Error("<what>: ...") unless c has d x d finite entries, is symmetric (to a relative
// 1e-12 of its largest entry) and is positive definite.
void check_covariance(const std::vector<double>& c, int d, const std::string& what);

class RandomWalkProposal {
 public:
  RandomWalkProposal() = default;
  // Throws rsmc::Error (through check_covariance, what = "proposal covariance") on a bad matrix.
  RandomWalkProposal(int d, std::vector<double> covariance);

  // Replaces the covariance if it is positive definite; returns false (and keeps the old one) if not.
  bool try_set_covariance(const std::vector<double>& covariance);

  // out = phi + L z (d values each; out must not alias z).
  void propose(const double* phi, const double* z, double* out) const;

  int dimension() const { return d_; }
  const std::vector<double>& covariance() const { return covariance_; }
  const std::vector<double>& factor() const { return factor_; }

 private:
  int d_ = 0;
  std::vector<double> covariance_;  // d x d, row-major
  std::vector<double> factor_;      // its lower Cholesky factor
};

}  // namespace rsmc::inference
