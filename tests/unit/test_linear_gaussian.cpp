// Unit tests for models/linear_gaussian.hpp and models/kalman_filter.hpp.
//
// - Kalman filter on the scalar local level model against hand-derived closed forms (3 steps).
// - Kalman filter on multivariate models against an independent brute-force computation: the joint
//   Gaussian of the observed components of (y_1..y_T) and x_t, built explicitly from the model's
//   moments, its log-density by Cholesky, and the filtered moments by Gaussian conditioning.
//   Agreement to 1e-9 relative; also with missing rows and partly missing rows.
// - Parameter validation and the Kalman filter's input checks, with their messages.
// - The model's kernel functions, run inside Kokkos kernels (functors, so the tests are valid for a
//   device backend too): sample moments of 10^5 draws from transition / initial /
//   simulate_observation within 5 standard errors (SE) of the exact moments, an exact replay of one
//   draw from the same stream, and log_likelihood against the closed-form Gaussian density to 1e-12.
//
// Moment bounds, derived for n i.i.d. draws of X ~ N(mu, S):
// - sample mean of component i: SE = sqrt(S_ii / n);
// - with the KNOWN mean, the covariance estimate (1/n) sum (X_i - mu_i)(X_j - mu_j) is unbiased with
//   variance (S_ii S_jj + S_ij^2) / n (Isserlis), so SE = sqrt((S_ii S_jj + S_ij^2) / n).
// A two-sided normal tail beyond 5 SE has probability ~5.7e-7; the seeds are fixed, so the tests are
// deterministic.
#include <catch2/catch.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "base/core/error.hpp"
#include "framework/model/observations.hpp"
#include "framework/model/state_view.hpp"
#include "base/rng/counter_stream.hpp"
#include "models/kalman_filter.hpp"
#include "models/linear_gaussian.hpp"
#include "tests/support/bits.hpp"

using rsmc::test::kNaN;

namespace {

using rsmc::ConstStateView;
using rsmc::Error;
using rsmc::Observations;
using rsmc::ObservationView;
using rsmc::StateView;
using rsmc::models::kalman_filter;
using rsmc::models::KalmanResult;
using rsmc::models::LinearGaussian;
using rsmc::models::LinearGaussianParams;
using rsmc::rng::ModelStream;
using rsmc::rng::Purpose;

constexpr double kPiLinearGaussian = 3.14159265358979323846;

// ---------------------------------------------------------------------------------------------
// Independent dense linear algebra for the brute-force reference (deliberately separate from the
// code under test).

struct Matrix {
  int r = 0, c = 0;
  std::vector<double> v;
  Matrix() = default;
  Matrix(int rows, int cols) : r(rows), c(cols), v(static_cast<std::size_t>(rows) * cols, 0.0) {}
  Matrix(int rows, int cols, std::vector<double> values) : r(rows), c(cols), v(std::move(values)) {}
  double& operator()(int i, int j) { return v[static_cast<std::size_t>(i) * c + j]; }
  double operator()(int i, int j) const { return v[static_cast<std::size_t>(i) * c + j]; }
  static Matrix identity(int n) {
    Matrix a(n, n);
    for (int i = 0; i < n; ++i) a(i, i) = 1.0;
    return a;
  }
};

Matrix operator*(const Matrix& a, const Matrix& b) {
  Matrix out(a.r, b.c);
  for (int i = 0; i < a.r; ++i)
    for (int j = 0; j < b.c; ++j) {
      double s = 0.0;
      for (int k = 0; k < a.c; ++k) s += a(i, k) * b(k, j);
      out(i, j) = s;
    }
  return out;
}

Matrix operator+(const Matrix& a, const Matrix& b) {
  Matrix out = a;
  for (std::size_t k = 0; k < out.v.size(); ++k) out.v[k] += b.v[k];
  return out;
}

Matrix transpose(const Matrix& a) {
  Matrix out(a.c, a.r);
  for (int i = 0; i < a.r; ++i)
    for (int j = 0; j < a.c; ++j) out(j, i) = a(i, j);
  return out;
}

Matrix power(const Matrix& a, int p) {
  Matrix out = Matrix::identity(a.r);
  for (int k = 0; k < p; ++k) out = out * a;
  return out;
}

Matrix chol(const Matrix& a) {
  const int n = a.r;
  Matrix l(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) {
      double s = a(i, j);
      for (int k = 0; k < j; ++k) s -= l(i, k) * l(j, k);
      if (i == j) {
        REQUIRE(s > 0.0);
        l(i, i) = std::sqrt(s);
      } else {
        l(i, j) = s / l(j, j);
      }
    }
  return l;
}

// Solves (L L') X = B for X, column by column.
Matrix chol_solve(const Matrix& l, const Matrix& b) {
  const int n = l.r;
  Matrix x = b;
  for (int col = 0; col < b.c; ++col) {
    for (int i = 0; i < n; ++i) {
      double s = x(i, col);
      for (int k = 0; k < i; ++k) s -= l(i, k) * x(k, col);
      x(i, col) = s / l(i, i);
    }
    for (int i = n - 1; i >= 0; --i) {
      double s = x(i, col);
      for (int k = i + 1; k < n; ++k) s -= l(k, i) * x(k, col);
      x(i, col) = s / l(i, i);
    }
  }
  return x;
}

// log N(y; mu, S) through the Cholesky factor of S.
double gaussian_log_density(const std::vector<double>& y, const std::vector<double>& mu, const Matrix& s) {
  const int n = s.r;
  const Matrix l = chol(s);
  std::vector<double> z(static_cast<std::size_t>(n));
  double log_det_half = 0.0, quad = 0.0;
  for (int i = 0; i < n; ++i) {
    double t = y[i] - mu[i];
    for (int k = 0; k < i; ++k) t -= l(i, k) * z[k];
    z[i] = t / l(i, i);
    quad += z[i] * z[i];
    log_det_half += std::log(l(i, i));
  }
  return -0.5 * n * std::log(2.0 * kPiLinearGaussian) - log_det_half - 0.5 * quad;
}

// ---------------------------------------------------------------------------------------------
// The brute-force reference: unconditional moments of x_t, y_t stacked into one joint Gaussian.

struct BruteForce {
  double log_likelihood = 0.0;  // log p(observed components of y_1..T)
  std::vector<double> mean;     // T x d: E[x_t | observed components of y_1..t]
  std::vector<double> cov;      // T x d x d
};

BruteForce brute_force(const LinearGaussianParams& p, const Observations& obs) {
  const int d = p.d, m = p.m, T = obs.steps;
  const Matrix A(d, d, p.A), Q(d, d, p.Q), C(m, d, p.C), R(m, m, p.R), P0(d, d, p.P0);
  const Matrix Ct = transpose(C);
  const Matrix m0(d, 1, p.m0);

  // E[x_t] = A^t m0, Var[x_t] = A^t P0 A^t' + sum_{k=1}^t A^{t-k} Q A^{t-k}' (explicit sums).
  std::vector<Matrix> mu_x(static_cast<std::size_t>(T) + 1), var_x(static_cast<std::size_t>(T) + 1);
  for (int t = 0; t <= T; ++t) {
    mu_x[t] = power(A, t) * m0;
    Matrix v = power(A, t) * P0 * transpose(power(A, t));
    for (int k = 1; k <= t; ++k) v = v + power(A, t - k) * Q * transpose(power(A, t - k));
    var_x[t] = v;
  }
  // Cov[x_t, x_s] = A^{t-s} Var[x_s] for t >= s, and its transpose otherwise.
  auto cov_x = [&](int t, int s) {
    if (t >= s) return power(A, t - s) * var_x[s];
    return transpose(power(A, s - t) * var_x[t]);
  };

  // The observed (step, component) pairs in order.
  struct Entry {
    int t, j;
    double y;
  };
  std::vector<Entry> entries;
  for (int t = 1; t <= T; ++t)
    for (int j = 0; j < m; ++j) {
      const double y = obs.row(t)[j];
      if (!std::isnan(y)) entries.push_back({t, j, y});
    }

  BruteForce out;
  // Joint of the observed entries: E = (C mu_x[t])_j, Cov = C Cov[x_t, x_s] C' + [t == s] R.
  auto joint = [&](int count, Matrix& cov, std::vector<double>& mean, std::vector<double>& y) {
    cov = Matrix(count, count);
    mean.assign(static_cast<std::size_t>(count), 0.0);
    y.assign(static_cast<std::size_t>(count), 0.0);
    for (int a = 0; a < count; ++a) {
      const Entry& ea = entries[a];
      mean[a] = (C * mu_x[ea.t])(ea.j, 0);
      y[a] = ea.y;
      for (int b = 0; b < count; ++b) {
        const Entry& eb = entries[b];
        double v = (C * cov_x(ea.t, eb.t) * Ct)(ea.j, eb.j);
        if (ea.t == eb.t) v += R(ea.j, eb.j);
        cov(a, b) = v;
      }
    }
  };
  {
    Matrix cov;
    std::vector<double> mean, y;
    joint(static_cast<int>(entries.size()), cov, mean, y);
    out.log_likelihood = entries.empty() ? 0.0 : gaussian_log_density(y, mean, cov);
  }
  // Filtered moments by conditioning x_t on the observed entries with step <= t.
  for (int t = 1; t <= T; ++t) {
    int count = 0;
    while (count < static_cast<int>(entries.size()) && entries[count].t <= t) ++count;
    Matrix post_mean = mu_x[t];
    Matrix post_cov = var_x[t];
    if (count > 0) {
      Matrix cov;
      std::vector<double> mean, y;
      joint(count, cov, mean, y);
      Matrix cxy(d, count);  // Cov[x_t, y_entry] = (Cov[x_t, x_s] C')(:, j)
      for (int b = 0; b < count; ++b) {
        const Matrix col = cov_x(t, entries[b].t) * Ct;
        for (int i = 0; i < d; ++i) cxy(i, b) = col(i, entries[b].j);
      }
      Matrix resid(count, 1);
      for (int b = 0; b < count; ++b) resid(b, 0) = y[b] - mean[b];
      const Matrix l = chol(cov);
      const Matrix gain_t = chol_solve(l, transpose(cxy));  // Sigma_YY^{-1} Sigma_Yx
      const Matrix shift = transpose(gain_t) * resid;
      const Matrix reduce = cxy * gain_t;
      for (int i = 0; i < d; ++i) post_mean(i, 0) += shift(i, 0);
      for (std::size_t k = 0; k < post_cov.v.size(); ++k) post_cov.v[k] -= reduce.v[k];
    }
    for (int i = 0; i < d; ++i) out.mean.push_back(post_mean(i, 0));
    out.cov.insert(out.cov.end(), post_cov.v.begin(), post_cov.v.end());
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Test models.

// A 2-D model with correlated noises and a non-diagonal C.
LinearGaussianParams model_2d() {
  LinearGaussianParams p;
  p.d = 2;
  p.m = 2;
  p.A = {0.8, 0.3, -0.2, 0.7};
  p.Q = {0.5, 0.1, 0.1, 0.3};
  p.C = {1.0, 0.5, 0.2, -1.0};
  p.R = {0.4, -0.1, -0.1, 0.6};
  p.m0 = {0.5, -1.0};
  p.P0 = {2.0, 0.3, 0.3, 1.0};
  return p;
}

// A 3-D state observed through 2 components; dense lower factors exercise the in-place ordering.
LinearGaussianParams model_3x2() {
  LinearGaussianParams p;
  p.d = 3;
  p.m = 2;
  p.A = {0.7, 0.2, -0.1, 0.1, 0.6, 0.3, -0.2, 0.1, 0.8};
  p.Q = {1.0, 0.4, -0.3, 0.4, 0.8, 0.2, -0.3, 0.2, 0.6};
  p.C = {1.0, -0.5, 0.3, 0.2, 0.8, -1.1};
  p.R = {0.7, 0.25, 0.25, 0.5};
  p.m0 = {1.0, -0.5, 2.0};
  p.P0 = {1.5, -0.4, 0.2, -0.4, 1.2, 0.3, 0.2, 0.3, 0.9};
  return p;
}

// A 2-D state observed through 3 components (m > d).
LinearGaussianParams model_2x3() {
  LinearGaussianParams p;
  p.d = 2;
  p.m = 3;
  p.A = {0.95, -0.1, 0.15, 0.85};
  p.Q = {0.2, 0.05, 0.05, 0.3};
  p.C = {1.0, 0.0, 0.0, 1.0, 0.7, -0.4};
  p.R = {0.5, 0.1, 0.0, 0.1, 0.4, -0.1, 0.0, -0.1, 0.9};
  p.m0 = {-0.3, 0.8};
  p.P0 = {0.9, -0.2, -0.2, 0.7};
  return p;
}

// Deterministic pseudo-observations (values only matter for being "generic").
Observations make_observations(int steps, int dim) {
  Observations obs;
  obs.steps = steps;
  obs.dim = dim;
  for (int k = 0; k < steps * dim; ++k) obs.values.push_back(1.7 * std::sin(1.3 * k + 0.4) + 0.3 * k / dim);
  return obs;
}

void require_close(double got, double expected, double rel, const std::string& what) {
  INFO(what << ": got " << got << ", expected " << expected);
  REQUIRE(std::fabs(got - expected) <= rel * std::fmax(1.0, std::fabs(expected)));
}

void compare_with_brute_force(const LinearGaussianParams& p, const Observations& obs) {
  const KalmanResult kf = kalman_filter(p, obs);
  const BruteForce bf = brute_force(p, obs);
  REQUIRE(kf.log_likelihood_increment.size() == static_cast<std::size_t>(obs.steps));
  REQUIRE(kf.mean.size() == bf.mean.size());
  REQUIRE(kf.covariance.size() == bf.cov.size());
  require_close(kf.log_likelihood, bf.log_likelihood, 1e-9, "log-likelihood");
  double sum = 0.0;
  for (double inc : kf.log_likelihood_increment) sum += inc;
  require_close(kf.log_likelihood, sum, 1e-14, "sum of increments");
  for (std::size_t k = 0; k < bf.mean.size(); ++k)
    require_close(kf.mean[k], bf.mean[k], 1e-9, "mean " + std::to_string(k));
  for (std::size_t k = 0; k < bf.cov.size(); ++k)
    require_close(kf.covariance[k], bf.cov[k], 1e-9, "covariance " + std::to_string(k));
}

// ---------------------------------------------------------------------------------------------
// Kernels for the model functions (functors rather than lambdas, so they are valid device code
// for any Kokkos backend). Particle i's state is strided: component c at data[c * n + i].

struct InitialDraws {
  LinearGaussian model;
  Kokkos::View<double*> out;
  int n;
  std::uint64_t seed;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    ModelStream rng(seed, Purpose::initialise, 0, static_cast<std::uint64_t>(i));
    model.initial(StateView{out.data() + i, n}, rng);
  }
};

struct TransitionDraws {
  LinearGaussian model;
  Kokkos::View<double*> from;  // one state, contiguous
  Kokkos::View<double*> out;
  int n;
  std::uint64_t seed;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    ModelStream rng(seed, Purpose::propagate, 3, static_cast<std::uint64_t>(i));
    model.transition(ConstStateView{from.data(), 1}, StateView{out.data() + i, n}, 3, rng);
  }
};

struct ObservationDraws {
  LinearGaussian model;
  Kokkos::View<double*> x;  // one state, contiguous
  Kokkos::View<double*> out;
  int n;
  std::uint64_t seed;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    ModelStream rng(seed, Purpose::observe, 2, static_cast<std::uint64_t>(i));
    model.simulate_observation(ConstStateView{x.data(), 1}, rsmc::ObservationOut{out.data() + i, n}, 2, rng);
  }
};

// Point k: state x[c * points + k], observation y[j * points + k]; out[k] = log-likelihood.
struct LogLikelihoods {
  LinearGaussian model;
  Kokkos::View<double*> x, y, out;
  int points;
  KOKKOS_INLINE_FUNCTION void operator()(int k) const {
    out(k) = model.log_likelihood(ConstStateView{x.data() + k, points}, ObservationView{y.data() + k, points}, 1);
  }
};

// Replays one transition: draws d normals from a copy of the stream into z, then calls transition.
struct TransitionReplay {
  LinearGaussian model;
  Kokkos::View<double*> from, z, out;
  KOKKOS_INLINE_FUNCTION void operator()(int) const {
    ModelStream a(99, Purpose::propagate, 7, 12345);
    ModelStream b = a;
    for (int c = 0; c < model.state_dim(); ++c) z(c) = b.normal();
    model.transition(ConstStateView{from.data(), 1}, StateView{out.data(), 1}, 7, a);
  }
};

Kokkos::View<double*> to_device(const std::vector<double>& v, const char* label) {
  Kokkos::View<double*> dev(std::string(label), v.size());
  auto host = Kokkos::create_mirror_view(dev);
  for (std::size_t k = 0; k < v.size(); ++k) host(k) = v[k];
  Kokkos::deep_copy(dev, host);
  return dev;
}

std::vector<double> to_host(const Kokkos::View<double*>& dev) {
  auto host = Kokkos::create_mirror_view(dev);
  Kokkos::deep_copy(host, dev);
  return std::vector<double>(host.data(), host.data() + host.extent(0));
}

// Checks the sample moments of n draws (component c of draw i at s[c * n + i]) against N(mu, S).
void check_moments(const std::vector<double>& s, int n, const std::vector<double>& mu, const std::vector<double>& cov) {
  const int dim = static_cast<int>(mu.size());
  const double nn = static_cast<double>(n);
  for (int a = 0; a < dim; ++a) {
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += s[static_cast<std::size_t>(a) * n + i];
    const double se = std::sqrt(cov[a * dim + a] / nn);
    INFO("mean of component " << a << ": " << sum / nn << " vs " << mu[a] << " (SE " << se << ")");
    REQUIRE(std::fabs(sum / nn - mu[a]) <= 5.0 * se);
  }
  for (int a = 0; a < dim; ++a)
    for (int b = 0; b <= a; ++b) {
      double sum = 0.0;
      for (int i = 0; i < n; ++i)
        sum += (s[static_cast<std::size_t>(a) * n + i] - mu[a]) * (s[static_cast<std::size_t>(b) * n + i] - mu[b]);
      const double sab = cov[a * dim + b];
      const double se = std::sqrt((cov[a * dim + a] * cov[b * dim + b] + sab * sab) / nn);
      INFO("covariance (" << a << ", " << b << "): " << sum / nn << " vs " << sab << " (SE " << se << ")");
      REQUIRE(std::fabs(sum / nn - sab) <= 5.0 * se);
    }
}

std::vector<double> mat_vec(const std::vector<double>& a, const std::vector<double>& x, int rows, int cols) {
  std::vector<double> y(static_cast<std::size_t>(rows), 0.0);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) y[i] += a[i * cols + j] * x[j];
  return y;
}

constexpr int kNormalDraws = 100000;

}  // namespace

// ===============================================================================================

TEST_CASE("kalman_filter: local level model matches the closed form", "[linear_gaussian][kalman]") {
  // q = r = p0 = 1, a = 0. By hand, with P_{t|t-1} = P_{t-1} + q, S_t = P_{t|t-1} + r,
  // K_t = P_{t|t-1} / S_t, m_t = m_{t-1} + K_t (y_t - m_{t-1}), P_t = P_{t|t-1} r / S_t:
  //   t = 1: P_{1|0} = 2,   S_1 = 3,    K_1 = 2/3, P_1 = 2/3
  //   t = 2: P_{2|1} = 5/3, S_2 = 8/3,  K_2 = 5/8, P_2 = 5/8
  //   t = 3: P_{3|2} = 13/8, S_3 = 21/8, K_3 = 13/21, P_3 = 13/21
  // and the increment is log N(y_t; m_{t-1}, S_t).
  const double y1 = 1.0, y2 = -0.5, y3 = 2.0;
  Observations obs;
  obs.steps = 3;
  obs.dim = 1;
  obs.values = {y1, y2, y3};
  const KalmanResult kf = kalman_filter(LinearGaussianParams::local_level(1.0, 1.0, 0.0, 1.0), obs);

  auto log_normal = [](double y, double mu, double var) {
    return -0.5 * std::log(2.0 * kPiLinearGaussian * var) - 0.5 * (y - mu) * (y - mu) / var;
  };
  const double m1 = 2.0 / 3.0 * y1;
  const double m2 = m1 + 5.0 / 8.0 * (y2 - m1);
  const double m3 = m2 + 13.0 / 21.0 * (y3 - m2);
  const double inc1 = log_normal(y1, 0.0, 3.0);
  const double inc2 = log_normal(y2, m1, 8.0 / 3.0);
  const double inc3 = log_normal(y3, m2, 21.0 / 8.0);

  REQUIRE(kf.steps == 3);
  REQUIRE(kf.state_dim == 1);
  require_close(kf.log_likelihood_increment[0], inc1, 1e-14, "increment 1");
  require_close(kf.log_likelihood_increment[1], inc2, 1e-14, "increment 2");
  require_close(kf.log_likelihood_increment[2], inc3, 1e-14, "increment 3");
  require_close(kf.log_likelihood, inc1 + inc2 + inc3, 1e-14, "log-likelihood");
  require_close(kf.mean[0], m1, 1e-14, "m1");
  require_close(kf.mean[1], m2, 1e-14, "m2");
  require_close(kf.mean[2], m3, 1e-14, "m3");
  require_close(kf.covariance[0], 2.0 / 3.0, 1e-14, "P1");
  require_close(kf.covariance[1], 5.0 / 8.0, 1e-14, "P2");
  require_close(kf.covariance[2], 13.0 / 21.0, 1e-14, "P3");

  // The first two steps as one joint density: Var y1 = p0 + q + r = 3, Var y2 = p0 + 2q + r = 4,
  // Cov(y1, y2) = p0 + q = 2, so det = 8 and the inverse is [[4, -2], [-2, 3]] / 8.
  Observations two = obs;
  two.steps = 2;
  two.values.resize(2);
  const double quad = (4.0 * y1 * y1 - 4.0 * y1 * y2 + 3.0 * y2 * y2) / 8.0;
  const double joint = -std::log(2.0 * kPiLinearGaussian) - 0.5 * std::log(8.0) - 0.5 * quad;
  require_close(kalman_filter(LinearGaussianParams::local_level(1.0, 1.0, 0.0, 1.0), two).log_likelihood, joint, 1e-14,
                "joint of y1, y2");
}

TEST_CASE("kalman_filter: local level with a missing step predicts only", "[linear_gaussian][kalman]") {
  // q = 0.5, r = 2, a = 1, p0 = 3; y_2 missing. t = 1: P_{1|0} = 3.5, S_1 = 5.5, K_1 = 7/11,
  // P_1 = 3.5 * 2 / 5.5 = 14/11. t = 2 (missing): m_2 = m_1, P_2 = 14/11 + 1/2 = 39/22.
  // t = 3: P_{3|2} = 39/22 + 1/2 = 25/11, S_3 = 47/11.
  Observations obs;
  obs.steps = 3;
  obs.dim = 1;
  obs.values = {2.5, kNaN, -1.0};
  const KalmanResult kf = kalman_filter(LinearGaussianParams::local_level(0.5, 2.0, 1.0, 3.0), obs);
  const double m1 = 1.0 + 7.0 / 11.0 * (2.5 - 1.0);
  const double inc1 = -0.5 * std::log(2.0 * kPiLinearGaussian * 5.5) - 0.5 * 1.5 * 1.5 / 5.5;
  const double inc3 =
      -0.5 * std::log(2.0 * kPiLinearGaussian * 47.0 / 11.0) - 0.5 * (-1.0 - m1) * (-1.0 - m1) / (47.0 / 11.0);
  require_close(kf.log_likelihood_increment[0], inc1, 1e-14, "increment 1");
  REQUIRE(kf.log_likelihood_increment[1] == 0.0);
  require_close(kf.log_likelihood_increment[2], inc3, 1e-14, "increment 3");
  require_close(kf.mean[1], m1, 1e-14, "m2 = m1");
  require_close(kf.covariance[0], 14.0 / 11.0, 1e-14, "P1");
  require_close(kf.covariance[1], 39.0 / 22.0, 1e-14, "P2");
}

TEST_CASE("kalman_filter: multivariate models match the brute-force joint Gaussian", "[linear_gaussian][kalman]") {
  SECTION("2-D, T = 5") { compare_with_brute_force(model_2d(), make_observations(5, 2)); }
  SECTION("d = 3, m = 2, T = 5") { compare_with_brute_force(model_3x2(), make_observations(5, 2)); }
  SECTION("d = 2, m = 3, T = 5") { compare_with_brute_force(model_2x3(), make_observations(5, 3)); }
  SECTION("the demo model, T = 6") {
    compare_with_brute_force(LinearGaussianParams::default_2d(), make_observations(6, 2));
  }
  SECTION("T = 0") {
    Observations empty;
    empty.dim = 2;
    const KalmanResult kf = kalman_filter(model_2d(), empty);
    REQUIRE(kf.log_likelihood == 0.0);
    REQUIRE(kf.mean.empty());
  }
}

TEST_CASE("kalman_filter: missing rows match the brute force over the observed rows", "[linear_gaussian][kalman]") {
  SECTION("whole rows missing") {
    Observations obs = make_observations(5, 2);
    for (int t : {2, 4})
      for (int j = 0; j < 2; ++j) obs.values[static_cast<std::size_t>(t - 1) * 2 + j] = kNaN;
    compare_with_brute_force(model_2d(), obs);
    const KalmanResult kf = kalman_filter(model_2d(), obs);
    REQUIRE(kf.log_likelihood_increment[1] == 0.0);
    REQUIRE(kf.log_likelihood_increment[3] == 0.0);
  }
  SECTION("first row missing, then partly missing rows") {
    Observations obs = make_observations(5, 3);
    obs.values[0] = obs.values[1] = obs.values[2] = kNaN;  // y_1 missing
    obs.values[4] = kNaN;                                  // y_2[1]
    obs.values[9] = obs.values[11] = kNaN;                 // y_4[0], y_4[2]
    compare_with_brute_force(model_2x3(), obs);
  }
  SECTION("every row missing") {
    Observations obs = make_observations(4, 2);
    for (double& v : obs.values) v = kNaN;
    const KalmanResult kf = kalman_filter(model_2d(), obs);
    REQUIRE(kf.log_likelihood == 0.0);
    compare_with_brute_force(model_2d(), obs);
  }
}

TEST_CASE("kalman_filter: input checks", "[linear_gaussian][kalman]") {
  using Catch::Matchers::Contains;
  Observations obs = make_observations(3, 3);
  REQUIRE_THROWS_AS(kalman_filter(model_2d(), obs), Error);
  REQUIRE_THROWS_WITH(kalman_filter(model_2d(), obs),
                      Contains("kalman_filter") && Contains("dimension 3") && Contains("observation dimension m is 2"));
  obs = make_observations(3, 2);
  obs.values.pop_back();
  REQUIRE_THROWS_WITH(kalman_filter(model_2d(), obs), Contains("kalman_filter") && Contains("5 values for 3 steps"));
  obs = make_observations(3, 2);
  obs.values[3] = std::numeric_limits<double>::infinity();
  REQUIRE_THROWS_WITH(kalman_filter(model_2d(), obs), Contains("y_2[1] is inf"));
  LinearGaussianParams bad = model_2d();
  bad.R = {1.0, 0.0, 0.0, -1.0};
  REQUIRE_THROWS_WITH(kalman_filter(bad, make_observations(3, 2)), Contains("R is not symmetric positive definite"));
}

TEST_CASE("LinearGaussianParams: validation names the parameter", "[linear_gaussian]") {
  using Catch::Matchers::Contains;
  REQUIRE_NOTHROW(LinearGaussianParams::default_2d().validate());
  REQUIRE_NOTHROW(LinearGaussianParams::local_level(1.0, 2.0, 0.0, 5.0).validate());
  REQUIRE_NOTHROW(model_3x2().validate());

  LinearGaussianParams p = model_2d();
  p.Q = {1.0, 2.0, 2.0, 1.0};  // symmetric, eigenvalues 3 and -1
  REQUIRE_THROWS_AS(p.validate(), Error);
  REQUIRE_THROWS_WITH(p.validate(), Contains("linear_gaussian: Q is not symmetric positive definite"));
  REQUIRE_THROWS_WITH(LinearGaussian(p), Contains("linear_gaussian: Q is not symmetric positive definite"));

  p = model_2d();
  p.Q = {1.0, 0.2, 0.1, 1.0};  // positive definite part, but not symmetric
  REQUIRE_THROWS_WITH(p.validate(), Contains("linear_gaussian: Q is not symmetric positive definite") &&
                                        Contains("Q[1][0] = 0.1 but Q[0][1] = 0.2"));

  p = model_2d();
  p.P0 = {1.0, 1.0, 1.0, 1.0};  // singular (PSD only)
  REQUIRE_THROWS_WITH(p.validate(), Contains("linear_gaussian: P0 is not symmetric positive definite"));

  p = model_2d();
  p.R = {0.0, 0.0, 0.0, 0.0};
  REQUIRE_THROWS_WITH(p.validate(), Contains("linear_gaussian: R is not symmetric positive definite"));

  p = model_2d();
  p.A = {1.0, 2.0, 3.0};
  REQUIRE_THROWS_WITH(p.validate(), Contains("linear_gaussian: A has 3 entries; expected d x d = 2 x 2 = 4"));

  p = model_3x2();
  p.C = std::vector<double>(9, 0.0);
  REQUIRE_THROWS_WITH(p.validate(), Contains("linear_gaussian: C has 9 entries; expected m x d = 2 x 3 = 6"));

  p = model_2d();
  p.m0 = {1.0};
  REQUIRE_THROWS_WITH(p.validate(), Contains("linear_gaussian: m0 has 1 entries; expected d = 2"));

  p = model_2d();
  p.A[2] = kNaN;
  REQUIRE_THROWS_WITH(p.validate(), Contains("linear_gaussian: A[1][0] = nan; expected a finite number"));

  p = model_2d();
  p.d = 0;
  REQUIRE_THROWS_WITH(p.validate(), Contains("linear_gaussian: d = 0; expected an integer d >= 1"));

  p = model_2d();
  p.m = -1;
  REQUIRE_THROWS_WITH(p.validate(), Contains("linear_gaussian: m = -1"));
}

TEST_CASE("LinearGaussianParams: presets and describe", "[linear_gaussian]") {
  const LinearGaussianParams ll = LinearGaussianParams::local_level(0.25, 2.0, -1.5, 10.0);
  REQUIRE(ll.d == 1);
  REQUIRE(ll.m == 1);
  REQUIRE(ll.A == std::vector<double>{1.0});
  REQUIRE(ll.C == std::vector<double>{1.0});
  REQUIRE(ll.Q == std::vector<double>{0.25});
  REQUIRE(ll.R == std::vector<double>{2.0});
  REQUIRE(ll.m0 == std::vector<double>{-1.5});
  REQUIRE(ll.P0 == std::vector<double>{10.0});

  const std::string text = LinearGaussianParams::default_2d().describe();
  REQUIRE(text ==
          "d = 2\n"
          "m = 2\n"
          "A = [[0.9, 0.2], [-0.2, 0.9]]\n"
          "Q = [[0.1, 0], [0, 0.1]]\n"
          "C = [[1, 0], [0, 1]]\n"
          "R = [[0.5, 0], [0, 0.5]]\n"
          "m0 = [0, 0]\n"
          "P0 = [[1, 0], [0, 1]]\n");
  // Numbers are written in their shortest round-trip form.
  LinearGaussianParams p = model_2d();
  p.A[0] = 1.0 / 3.0;
  REQUIRE_THAT(p.describe(), Catch::Matchers::Contains("A = [[0.3333333333333333, 0.3], [-0.2, 0.7]]"));
}

TEST_CASE("LinearGaussian: construction, params() and cheap copies", "[linear_gaussian]") {
  const LinearGaussianParams p = model_3x2();
  LinearGaussian copy = [&] {
    const LinearGaussian model(p);
    REQUIRE(model.state_dim() == 3);
    REQUIRE(model.obs_dim() == 2);
    REQUIRE(std::string(LinearGaussian::name) == "linear_gaussian");
    return LinearGaussian(model);  // the copy outlives the original and shares its Views
  }();
  const LinearGaussianParams back = copy.params();
  REQUIRE(back.d == p.d);
  REQUIRE(back.m == p.m);
  REQUIRE(back.A == p.A);
  REQUIRE(back.Q == p.Q);
  REQUIRE(back.C == p.C);
  REQUIRE(back.R == p.R);
  REQUIRE(back.m0 == p.m0);
  REQUIRE(back.P0 == p.P0);

  // The copy still evaluates correctly: one log-likelihood against the direct formula.
  const std::vector<double> x = {0.3, -0.2, 1.1}, y = {0.5, -1.0};
  Kokkos::View<double*> out("ll", 1);
  Kokkos::parallel_for("rsmc::test::lg_copy", Kokkos::RangePolicy<>(0, 1),
                       LogLikelihoods{copy, to_device(x, "x"), to_device(y, "y"), out, 1});
  Kokkos::fence();
  const std::vector<double> mean = mat_vec(p.C, x, 2, 3);
  const double r0 = y[0] - mean[0], r1 = y[1] - mean[1];
  const double det = p.R[0] * p.R[3] - p.R[1] * p.R[2];
  const double quad = (p.R[3] * r0 * r0 - 2.0 * p.R[1] * r0 * r1 + p.R[0] * r1 * r1) / det;
  require_close(to_host(out)[0], -std::log(2.0 * kPiLinearGaussian) - 0.5 * std::log(det) - 0.5 * quad, 1e-12,
                "log-likelihood");
}

TEST_CASE("LinearGaussian: log_likelihood is the closed-form Gaussian density", "[linear_gaussian]") {
  SECTION("m = 2 with a correlated R") {
    const LinearGaussianParams p = model_3x2();
    const LinearGaussian model(p);
    const std::vector<std::vector<double>> xs = {
        {0.0, 0.0, 0.0}, {1.0, -2.0, 0.5}, {-3.0, 0.7, 2.2}, {10.0, 4.0, -6.0}};
    const std::vector<std::vector<double>> ys = {{0.0, 0.0}, {0.3, -1.2}, {5.0, 2.5}, {-20.0, 7.0}};
    const int points = static_cast<int>(xs.size());
    std::vector<double> xflat(3 * points), yflat(2 * points);
    for (int k = 0; k < points; ++k) {
      for (int c = 0; c < 3; ++c) xflat[c * points + k] = xs[k][c];
      for (int j = 0; j < 2; ++j) yflat[j * points + k] = ys[k][j];
    }
    Kokkos::View<double*> out("ll", points);
    Kokkos::parallel_for("rsmc::test::lg_loglik", Kokkos::RangePolicy<>(0, points),
                         LogLikelihoods{model, to_device(xflat, "x"), to_device(yflat, "y"), out, points});
    Kokkos::fence();
    const std::vector<double> got = to_host(out);
    // log N(y; Cx, R) = -log(2 pi) - log(det R) / 2 - r' R^{-1} r / 2 with the explicit 2 x 2 inverse.
    const double det = p.R[0] * p.R[3] - p.R[1] * p.R[2];
    for (int k = 0; k < points; ++k) {
      const std::vector<double> mean = mat_vec(p.C, xs[k], 2, 3);
      const double r0 = ys[k][0] - mean[0], r1 = ys[k][1] - mean[1];
      const double quad = (p.R[3] * r0 * r0 - 2.0 * p.R[1] * r0 * r1 + p.R[0] * r1 * r1) / det;
      require_close(got[k], -std::log(2.0 * kPiLinearGaussian) - 0.5 * std::log(det) - 0.5 * quad, 1e-12,
                    "point " + std::to_string(k));
    }
  }
  SECTION("m = 1") {
    const LinearGaussianParams p = LinearGaussianParams::local_level(0.3, 1.7, 0.0, 1.0);
    const LinearGaussian model(p);
    const std::vector<double> xs = {0.0, 1.5, -4.0}, ys = {0.2, 1.5, 3.0};
    Kokkos::View<double*> out("ll", 3);
    Kokkos::parallel_for("rsmc::test::lg_loglik1", Kokkos::RangePolicy<>(0, 3),
                         LogLikelihoods{model, to_device(xs, "x"), to_device(ys, "y"), out, 3});
    Kokkos::fence();
    const std::vector<double> got = to_host(out);
    for (int k = 0; k < 3; ++k) {
      const double r = ys[k] - xs[k];
      require_close(got[k], -0.5 * std::log(2.0 * kPiLinearGaussian * 1.7) - 0.5 * r * r / 1.7, 1e-12,
                    "point " + std::to_string(k));
    }
  }
}

TEST_CASE("LinearGaussian: transition replays A from + chol(Q) z exactly", "[linear_gaussian]") {
  const LinearGaussianParams p = model_3x2();
  const LinearGaussian model(p);
  const std::vector<double> from = {0.4, -1.3, 2.0};
  Kokkos::View<double*> z("z", 3), out("out", 3);
  Kokkos::parallel_for("rsmc::test::lg_replay", Kokkos::RangePolicy<>(0, 1),
                       TransitionReplay{model, to_device(from, "from"), z, out});
  Kokkos::fence();
  const std::vector<double> zh = to_host(z), got = to_host(out);
  const Matrix l = chol(Matrix(3, 3, p.Q));
  const std::vector<double> mean = mat_vec(p.A, from, 3, 3);
  for (int i = 0; i < 3; ++i) {
    double expected = mean[i];
    for (int k = 0; k <= i; ++k) expected += l(i, k) * zh[k];
    require_close(got[i], expected, 1e-13, "component " + std::to_string(i));
  }
}

TEST_CASE("LinearGaussian: sample moments of the model's draws", "[linear_gaussian]") {
  const LinearGaussianParams p = model_3x2();
  const LinearGaussian model(p);
  const int n = kNormalDraws;

  SECTION("transition: N(A from, Q)") {
    const std::vector<double> from = {1.0, -2.0, 0.5};
    Kokkos::View<double*> out("draws", 3 * static_cast<std::size_t>(n));
    Kokkos::parallel_for("rsmc::test::lg_transition", Kokkos::RangePolicy<>(0, n),
                         TransitionDraws{model, to_device(from, "from"), out, n, 2024});
    Kokkos::fence();
    check_moments(to_host(out), n, mat_vec(p.A, from, 3, 3), p.Q);
  }
  SECTION("initial: N(m0, P0)") {
    Kokkos::View<double*> out("draws", 3 * static_cast<std::size_t>(n));
    Kokkos::parallel_for("rsmc::test::lg_initial", Kokkos::RangePolicy<>(0, n), InitialDraws{model, out, n, 77});
    Kokkos::fence();
    check_moments(to_host(out), n, p.m0, p.P0);
  }
  SECTION("simulate_observation: N(C x, R)") {
    const std::vector<double> x = {-0.5, 1.5, 3.0};
    Kokkos::View<double*> out("draws", 2 * static_cast<std::size_t>(n));
    Kokkos::parallel_for("rsmc::test::lg_observe", Kokkos::RangePolicy<>(0, n),
                         ObservationDraws{model, to_device(x, "x"), out, n, 5});
    Kokkos::fence();
    check_moments(to_host(out), n, mat_vec(p.C, x, 2, 3), p.R);
  }
  SECTION("the demo model's transition") {
    const LinearGaussianParams q = LinearGaussianParams::default_2d();
    const LinearGaussian demo(q);
    const std::vector<double> from = {2.0, -1.0};
    Kokkos::View<double*> out("draws", 2 * static_cast<std::size_t>(n));
    Kokkos::parallel_for("rsmc::test::lg_demo", Kokkos::RangePolicy<>(0, n),
                         TransitionDraws{demo, to_device(from, "from"), out, n, 31});
    Kokkos::fence();
    check_moments(to_host(out), n, mat_vec(q.A, from, 2, 2), q.Q);
  }
}
