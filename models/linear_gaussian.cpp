// Host-only parts of the linear Gaussian model: the checks between its parameters (sizes, definiteness),
// the Cholesky factors, and packing everything into Views. See linear_gaussian.hpp.
#include "models/linear_gaussian.hpp"

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "base/core/error.hpp"
#include "models/model_support.hpp"

namespace rsmc::models {

namespace {

std::string prefix() { return std::string(LinearGaussian::name) + ": "; }

// Shortest decimal form that reads back as the same double.
std::string number(double v) { return number_text(v); }

// rows_name / cols_name: the symbols of the dimensions ("d", "m"); cols_name null for a vector.
void check_size(const char* what, const std::vector<double>& v, int rows, int cols, const char* rows_name,
                const char* cols_name) {
  const std::size_t expected = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  if (v.size() != expected) {
    std::ostringstream msg;
    msg << prefix() << what << " has " << v.size() << " entries; expected ";
    if (cols_name)
      msg << rows_name << " x " << cols_name << " = " << rows << " x " << cols << " = " << expected;
    else
      msg << rows_name << " = " << expected;
    throw Error(msg.str());
  }
}

// Lower Cholesky factor of the symmetric n x n matrix a (only its lower triangle is read), row-major,
// zeros above the diagonal. Returns the index of the first failing pivot, or -1 on success; a pivot
// fails unless it exceeds n * DBL_EPSILON * (largest diagonal entry of a).
int cholesky(const std::vector<double>& a, int n, std::vector<double>& l, double* bad_pivot) {
  l.assign(static_cast<std::size_t>(n) * n, 0.0);
  double max_diag = 0.0;
  for (int i = 0; i < n; ++i) max_diag = std::fmax(max_diag, std::fabs(a[i * n + i]));
  const double threshold = n * DBL_EPSILON * max_diag;
  for (int j = 0; j < n; ++j) {
    double pivot = a[j * n + j];
    for (int k = 0; k < j; ++k) pivot -= l[j * n + k] * l[j * n + k];
    if (!(pivot > threshold)) {
      *bad_pivot = pivot;
      return j;
    }
    const double ljj = std::sqrt(pivot);
    l[j * n + j] = ljj;
    for (int i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (int k = 0; k < j; ++k) s -= l[i * n + k] * l[j * n + k];
      l[i * n + j] = s / ljj;
    }
  }
  return -1;
}

void check_spd(const char* what, const std::vector<double>& a, int n, std::vector<double>* factor) {
  double max_abs = 0.0;
  for (double v : a) max_abs = std::fmax(max_abs, std::fabs(v));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < i; ++j) {
      const double aij = a[i * n + j];
      const double aji = a[j * n + i];
      if (std::fabs(aij - aji) > 1e-10 * max_abs) {
        std::ostringstream msg;
        msg << prefix() << what << " is not symmetric positive definite (" << what << "[" << i << "][" << j
            << "] = " << number(aij) << " but " << what << "[" << j << "][" << i << "] = " << number(aji)
            << "); expected a symmetric positive definite " << n << " x " << n << " matrix";
        throw Error(msg.str());
      }
    }
  }
  std::vector<double> l;
  double bad = 0.0;
  const int failed = cholesky(a, n, l, &bad);
  if (failed >= 0) {
    std::ostringstream msg;
    msg << prefix() << what << " is not symmetric positive definite (Cholesky pivot " << failed << " is " << number(bad)
        << "); expected a symmetric positive definite " << n << " x " << n << " matrix";
    throw Error(msg.str());
  }
  if (factor) *factor = std::move(l);
}

// Inverse of a lower triangular n x n matrix (row-major, full storage); lower triangular itself.
std::vector<double> lower_inverse(const std::vector<double>& l, int n) {
  std::vector<double> inv(static_cast<std::size_t>(n) * n, 0.0);
  for (int j = 0; j < n; ++j) {
    inv[j * n + j] = 1.0 / l[j * n + j];
    for (int i = j + 1; i < n; ++i) {
      double s = 0.0;
      for (int k = j; k < i; ++k) s += l[i * n + k] * inv[k * n + j];
      inv[i * n + j] = -s / l[i * n + i];
    }
  }
  return inv;
}

}  // namespace

LinearGaussianParams LinearGaussianParams::local_level(double sigma_eta2, double sigma_eps2, double a1, double p1) {
  LinearGaussianParams p;
  p.d = 1;
  p.m = 1;
  p.A = {1.0};
  p.Q = {sigma_eta2};
  p.C = {1.0};
  p.R = {sigma_eps2};
  p.m0 = {a1};
  p.P0 = {p1};
  return p;
}

void LinearGaussianParams::check_relations() const {
  check_size("A", A, d, d, "d", "d");
  check_size("Q", Q, d, d, "d", "d");
  check_size("C", C, m, d, "m", "d");
  check_size("R", R, m, m, "m", "m");
  check_size("m0", m0, d, 1, "d", nullptr);
  check_size("P0", P0, d, d, "d", "d");
  check_spd("Q", Q, d, nullptr);
  check_spd("R", R, m, nullptr);
  check_spd("P0", P0, d, nullptr);
}

LinearGaussian::LinearGaussian(const LinearGaussianParams& p) : d_(p.d), m_(p.m) {
  p.validate();
  support::require_kokkos(name);

  std::vector<double> lq, lr, l0;
  check_spd("Q", p.Q, d_, &lq);
  check_spd("R", p.R, m_, &lr);
  check_spd("P0", p.P0, d_, &l0);
  const std::vector<double> minv = lower_inverse(lr, m_);
  std::vector<double> mc(static_cast<std::size_t>(m_) * d_, 0.0);
  for (int i = 0; i < m_; ++i)
    for (int k = 0; k < d_; ++k) {
      double s = 0.0;
      for (int j = 0; j <= i; ++j) s += minv[i * m_ + j] * p.C[j * d_ + k];
      mc[i * d_ + k] = s;
    }
  log_norm_ = mvnormal_log_normaliser(m_, half_log_det_from_cholesky(lr.data(), m_));

  // Host copy of the parameters, for params().
  {
    const std::vector<const std::vector<double>*> parts = {&p.A, &p.Q, &p.C, &p.R, &p.m0, &p.P0};
    std::size_t n = 0;
    for (const auto* v : parts) n += v->size();
    host_ = Kokkos::View<double*, Kokkos::HostSpace>("rsmc::linear_gaussian::params", n);
    std::size_t at = 0;
    for (const auto* v : parts)
      for (double x : *v) host_(at++) = x;
  }

  // Kernel data, packed: A, chol(Q), C, chol(R), chol(R)^{-1}, chol(R)^{-1} C, m0, chol(P0).
  const std::vector<const std::vector<double>*> parts = {&p.A, &lq, &p.C, &lr, &minv, &mc, &p.m0, &l0};
  std::size_t n = 0;
  std::vector<std::size_t> offset;
  for (const auto* v : parts) {
    offset.push_back(n);
    n += v->size();
  }
  Kokkos::View<double*, Kokkos::HostSpace> staging("rsmc::linear_gaussian::staging", n);
  {
    std::size_t at = 0;
    for (const auto* v : parts)
      for (double x : *v) staging(at++) = x;
  }
  device_ = Kokkos::View<double*, ModelDataSpace>("rsmc::linear_gaussian::kernel_data", n);
  Kokkos::deep_copy(device_, staging);

  const double* base = device_.data();
  a_ = base + offset[0];
  lq_ = base + offset[1];
  c_ = base + offset[2];
  lr_ = base + offset[3];
  minv_ = base + offset[4];
  mc_ = base + offset[5];
  m0_ = base + offset[6];
  l0_ = base + offset[7];
}

LinearGaussianParams LinearGaussian::params() const {
  LinearGaussianParams p;
  p.d = d_;
  p.m = m_;
  const double* h = host_.data();
  const std::size_t dd = static_cast<std::size_t>(d_) * d_;
  const std::size_t md = static_cast<std::size_t>(m_) * d_;
  const std::size_t mm = static_cast<std::size_t>(m_) * m_;
  auto take = [&h](std::size_t n) {
    std::vector<double> v(h, h + n);
    h += n;
    return v;
  };
  p.A = take(dd);
  p.Q = take(dd);
  p.C = take(md);
  p.R = take(mm);
  p.m0 = take(static_cast<std::size_t>(d_));
  p.P0 = take(dd);
  return p;
}

}  // namespace rsmc::models
