// Cholesky factorisation and the random-walk proposal (framework/inference/proposal.hpp).
#include "framework/inference/proposal.hpp"

#include <cmath>
#include <utility>

#include "base/core/error.hpp"
#include "framework/model/parameters.hpp"  // number_text

namespace rsmc::inference {

bool cholesky(const std::vector<double>& a, int d, std::vector<double>& l) {
  const std::size_t n = static_cast<std::size_t>(d);
  l.assign(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j <= i; ++j) {
      double s = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) s -= l[i * n + k] * l[j * n + k];
      if (i == j) {
        if (!(s > 0.0) || !std::isfinite(s)) return false;
        l[i * n + i] = std::sqrt(s);  // sqrt: correctly rounded everywhere
      } else {
        l[i * n + j] = s / l[j * n + j];
      }
    }
  }
  return true;
}

void check_covariance(const std::vector<double>& c, int d, const std::string& what) {
  const std::size_t n = static_cast<std::size_t>(d);
  if (d < 1 || c.size() != n * n)
    throw Error(what + ": " + std::to_string(c.size()) + " entries; expected " + std::to_string(n * n) + " (" +
                std::to_string(d) + " x " + std::to_string(d) + ")");
  double largest = 0.0;
  for (double v : c) {
    if (!std::isfinite(v)) throw Error(what + ": entry " + number_text(v) + " is not finite");
    largest = std::fmax(largest, std::fabs(v));
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (std::fabs(c[i * n + j] - c[j * n + i]) > 1e-12 * largest)
        throw Error(what + ": entries (" + std::to_string(i) + ", " + std::to_string(j) +
                    ") = " + number_text(c[i * n + j]) + " and (" + std::to_string(j) + ", " + std::to_string(i) +
                    ") = " + number_text(c[j * n + i]) + " differ; expected a symmetric matrix");
  std::vector<double> l;
  if (!cholesky(c, d, l)) throw Error(what + ": not positive definite (its Cholesky factorisation fails)");
}

RandomWalkProposal::RandomWalkProposal(int d, std::vector<double> covariance) : d_(d) {
  check_covariance(covariance, d, "proposal covariance");
  covariance_ = std::move(covariance);
  cholesky(covariance_, d_, factor_);
}

bool RandomWalkProposal::try_set_covariance(const std::vector<double>& covariance) {
  std::vector<double> l;
  if (covariance.size() != covariance_.size() || !cholesky(covariance, d_, l)) return false;
  covariance_ = covariance;
  factor_ = std::move(l);
  return true;
}

void RandomWalkProposal::propose(const double* phi, const double* z, double* out) const {
  const std::size_t n = static_cast<std::size_t>(d_);
  for (std::size_t i = 0; i < n; ++i) {
    double step = 0.0;
    for (std::size_t k = 0; k <= i; ++k) step += factor_[i * n + k] * z[k];
    out[i] = phi[i] + step;
  }
}

}  // namespace rsmc::inference
