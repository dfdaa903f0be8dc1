// The linear Gaussian state-space model: the demo model of rsmc and the one with an exact answer.
//
//   x_0 ~ N(m0, P0)                         (the prior, before the first transition)
//   x_t = A x_{t-1} + eta_t,  eta_t ~ N(0, Q)   for t = 1..T
//   y_t = C x_t + eps_t,      eps_t ~ N(0, R)
//
// with x_t in R^d and y_t in R^m. The Kalman filter (models/kalman_filter.hpp) computes its
// likelihood exactly, so particle-filter estimates can be checked against it.
//
// Design (why the struct looks like this):
// - The engine copies a model by value into Kokkos kernels (and raw CUDA kernels), so LinearGaussian
//   holds only device-copyable members: two Kokkos Views (which keep the storage alive and whose copy
//   constructors are legal on host and device), raw `const double*` pointers into the device View,
//   ints and doubles. Its implicit copy constructor is therefore callable in device code, and copying
//   the model costs a few words plus a reference-count increment on the host.
// - The host parameters are NOT kept as std::vector / std::shared_ptr members (their copy
//   constructors are host-only, which would make the model's copy constructor host-only). Instead a
//   host-space View holds the parameters packed, and params() rebuilds a LinearGaussianParams from it
//   and returns it BY VALUE (host only). The member functions called in kernels never touch it.
// - Everything the kernels need is precomputed on the host in the constructor and packed into one
//   View in rsmc::ModelDataSpace (readable from the host and the device, since one model serves
//   either `--device`; framework/model/model_data_space.hpp): A, chol(Q), C, inverse(chol(R)),
//   inverse(chol(R)) * C, m0, chol(P0), plus the Gaussian normalising constant of the observation
//   density. The member functions read it through raw pointers and do not depend on Kokkos.
// - A model must be created after Kokkos is initialised and destroyed before it is finalised (it
//   owns Views); the constructor throws rsmc::Error if Kokkos is not initialised.
//
// Random draws: initial(), transition() and simulate_observation() each draw exactly `dimension`
// standard normals from the given stream, component 0 first (initial and transition: d; simulate:
// m). They write the normals into the output first and then overwrite the components from the last
// to the first: component i of L z (L lower triangular) reads only z_0..z_i, which are still intact.
// So no scratch arrays are needed and the functions allocate nothing. For d (and m) of 1 and 2 the
// same arithmetic runs as straight-line code with the normals in a local array
// (affine_plus_noise_sized), which the engine vectorises across particles.
#pragma once

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

#include "base/core/portability.hpp"
#include "base/rng/counter_stream.hpp"
#include "framework/model/densities.hpp"
#include "framework/model/model_data_space.hpp"
#include "framework/model/parameters.hpp"
#include "framework/model/state_view.hpp"

namespace rsmc::models {

// Host-side parameters: plain vectors, matrices row-major (entry (i, j) of an r x c matrix at
// [i * c + j]). The defaults are the demo model (d = m = 2):
//   A  = [[0.9, 0.2], [-0.2, 0.9]]  a rotation by atan(0.2 / 0.9) ~ 12.5 degrees per step, scaled
//                                   by |0.9 + 0.2i| = sqrt(0.85) ~ 0.922 (stable, damped oscillation)
//   Q  = 0.1 I                      so the stationary state covariance is Q / (1 - 0.85) = (2/3) I
//   C  = I                          both components observed
//   R  = 0.5 I                      signal-to-noise variance ratio (2/3) / 0.5 = 4/3 per component
//   m0 = [0, 0],  P0 = I            a prior somewhat wider than the stationary distribution
// A run file gives the matrices; d is the number of rows of A, m the number of rows of C.
struct LinearGaussianParams : ParameterSet<LinearGaussianParams> {
  static constexpr const char* model = "linear_gaussian";
  int d, m;  // state and observation dimension
  std::vector<double> A, Q, C, R, m0, P0;
  LinearGaussianParams() { reset(); }
  template <class Declare>
  void declare_parameters(Declare&& declare) {
    declare(dimension("d", d, 2, "state dimension (the rows of A)"));
    declare(dimension("m", m, 2, "observation dimension (the rows of C)"));
    declare(real_matrix("A", A, {0.9, 0.2, -0.2, 0.9}, d, d, "d x d transition matrix").defines_rows());
    declare(real_matrix("Q", Q, {0.1, 0.0, 0.0, 0.1}, d, d, "d x d transition noise covariance (positive definite)"));
    declare(real_matrix("C", C, {1.0, 0.0, 0.0, 1.0}, m, d, "m x d observation matrix").defines_rows());
    declare(real_matrix("R", R, {0.5, 0.0, 0.0, 0.5}, m, m, "m x m observation noise covariance (positive definite)"));
    declare(real_vector("m0", m0, {0.0, 0.0}, "prior mean of x_0"));
    declare(real_matrix("P0", P0, {1.0, 0.0, 0.0, 1.0}, d, d, "prior covariance of x_0 (positive definite)"));
  }

  // The demo model: the defaults above.
  static LinearGaussianParams default_2d() { return LinearGaussianParams(); }

  // The local level model (d = m = 1, A = C = 1): Q = sigma_eta2, R = sigma_eps2, m0 = a1, P0 = p1.
  // Note the time convention: (a1, p1) is the distribution of x_0, BEFORE the first transition, so
  // x_1 ~ N(a1, p1 + sigma_eta2). (Durbin & Koopman's a_1, P_1 describe x_1 itself.)
  static LinearGaussianParams local_level(double sigma_eta2, double sigma_eps2, double a1, double p1);

  // validate() checks d, m >= 1 and finite entries (the declarations), then this: every matrix / vector
  // has the right size, and Q, R and P0 are symmetric (to a relative 1e-10 of the largest entry) and
  // numerically positive definite (Cholesky pivots above n * DBL_EPSILON * the largest diagonal
  // entry). Q and P0 are required to be positive DEFINITE, not semi-definite: a degenerate noise or
  // prior must be modelled with a smaller state. Messages name the parameter, e.g.
  // "linear_gaussian: Q is not symmetric positive definite (...)".
  void check_relations() const;
};

// The local level model as a model of its own (`rsmc filter --model local_level`): four numbers that
// make a LinearGaussianParams with d = m = 1 (LinearGaussianParams::local_level).
struct LocalLevelParams : ParameterSet<LocalLevelParams> {
  static constexpr const char* model = "local_level";
  double sigma_eta2, sigma_eps2, a1, p1;
  LocalLevelParams() { reset(); }
  template <class Declare>
  void declare_parameters(Declare&& declare) {
    declare(real("sigma_eta2", sigma_eta2, 1.0, "level noise variance").positive());
    declare(real("sigma_eps2", sigma_eps2, 1.0, "observation noise variance").positive());
    declare(real("a1", a1, 0.0, "prior mean of x_0"));
    declare(real("p1", p1, 1.0, "prior variance of x_0").positive());
  }
  LinearGaussianParams linear_gaussian() const {
    return LinearGaussianParams::local_level(sigma_eta2, sigma_eps2, a1, p1);
  }
};

class LinearGaussian {
 public:
  static constexpr const char* name = LinearGaussianParams::model;
  // transition() draws d normals; 2 is the default d (a speed hint only: docs/models.md).
  static constexpr int transition_normals = 2;

  // Validates the parameters, computes the Cholesky factors and constants, and copies them to
  // rsmc::ModelDataSpace. Throws rsmc::Error on invalid parameters or if Kokkos is not initialised.
  explicit LinearGaussian(const LinearGaussianParams& params);

  // A host copy of the parameters (rebuilt from a host-side View, returned by value). Host only.
  LinearGaussianParams params() const;

  RSMC_HOST_DEVICE int state_dim() const { return d_; }
  RSMC_HOST_DEVICE int obs_dim() const { return m_; }

  // x ~ N(m0, P0): x = m0 + chol(P0) z.
  RSMC_HOST_DEVICE void initial(StateView x, rng::ModelStream& rng) const {
    affine_plus_noise(nullptr, d_, ConstStateView{nullptr, 0}, m0_, l0_, d_, x, rng);
  }

  // to ~ N(A from, Q): to = A from + chol(Q) z. `to` and `from` must not alias.
  RSMC_HOST_DEVICE void transition(ConstStateView from, StateView to, int /*step*/, rng::ModelStream& rng) const {
    affine_plus_noise(a_, d_, from, nullptr, lq_, d_, to, rng);
  }

  // log N(y; C x, R). y must have no missing (NaN) components: the engine skips missing rows.
  // With R = L L' and M = L^{-1}: the quadratic form is |M y - (M C) x|^2, component i of which
  // needs only row i of M and of M C, so nothing is stored.
  // The common small sizes (m = d = 1 and the default m = d = 2) run with the sizes known at compile
  // time, as in affine_plus_noise.
  RSMC_HOST_DEVICE double log_likelihood(ConstStateView x, ObservationView y, int /*step*/) const {
    if (m_ == 1 && d_ == 1) return log_likelihood_sized<1, 1>(x, y);
    if (m_ == 2 && d_ == 2) return log_likelihood_sized<2, 2>(x, y);
    return log_likelihood_sized<0, 0>(x, y);
  }

  // The largest log_likelihood over all x, log N(0; 0, R) (host only): lets the engine fuse its passes.
  double log_likelihood_bound(ObservationView /*y*/, int /*step*/) const { return mvnormal_log_bound(log_norm_); }

  // y ~ N(C x, R): y = C x + chol(R) z. `x` and `y` must not alias.
  RSMC_HOST_DEVICE void simulate_observation(ConstStateView x, ObservationOut y, int /*step*/,
                                             rng::ModelStream& rng) const {
    affine_plus_noise(c_, d_, x, nullptr, lr_, m_, y, rng);
  }

 private:
  // log_likelihood with m = Rows and d = Cols fixed at compile time (0: the run-time m and d): the
  // same operations in the same order either way, so the same bits; sizes fixed, the loops unroll
  // into straight-line code that the engine's batch loop vectorises across particles.
  template <int Rows, int Cols>
  RSMC_HOST_DEVICE double log_likelihood_sized(ConstStateView x, ObservationView y) const {
    const int m = Rows > 0 ? Rows : m_, d = Cols > 0 ? Cols : d_;
    double quad = 0.0;
    for (int i = 0; i < m; ++i) {
      const double* mrow = minv_ + i * m;
      const double* krow = mc_ + i * d;
      double u = 0.0;
      for (int j = 0; j <= i; ++j) u += mrow[j] * y[j];
      for (int k = 0; k < d; ++k) u -= krow[k] * x[k];
      quad += u * u;
    }
    return mvnormal_log(quad, log_norm_);
  }

  // out = B src + offset + L z for an `rows` x `cols` matrix B (skipped if null), an offset vector
  // (skipped if null), a lower triangular rows x rows L (row-major, full storage) and rows fresh
  // standard normals z drawn in order. `out` is a state or an observation. The common small sizes
  // (d = 1 and the default d = 2) run with the sizes known at compile time.
  template <class Out>
  RSMC_HOST_DEVICE static void affine_plus_noise(const double* b, int cols, ConstStateView src, const double* offset,
                                                 const double* l, int rows, Out out, rng::ModelStream& rng) {
    if (rows == 1 && cols == 1) return affine_plus_noise_sized<1, 1>(b, cols, src, offset, l, rows, out, rng);
    if (rows == 2 && cols == 2) return affine_plus_noise_sized<2, 2>(b, cols, src, offset, l, rows, out, rng);
    affine_plus_noise_sized<0, 0>(b, cols, src, offset, l, rows, out, rng);
  }

  // affine_plus_noise with Rows x Cols fixed at compile time (0: the run-time rows and cols). Sizes
  // fixed: z in a local array, the loops unrolled into straight-line code that the engine's batch
  // loop vectorises across particles (the size test above is the same for every particle, and the
  // compiler hoists it out of that loop). Run-time sizes: z is kept in `out` until consumed (see the
  // header comment). The same operations in the same order either way: the same bits.
  template <int Rows, int Cols, class Out>
  RSMC_HOST_DEVICE static void affine_plus_noise_sized(const double* b, int cols, ConstStateView src,
                                                       const double* offset, const double* l, int rows, Out out,
                                                       rng::ModelStream& rng) {
    if constexpr (Rows > 0) {
      rows = Rows;
      cols = Cols;
    }
    [[maybe_unused]] double local[Rows > 0 ? Rows : 1];
    const auto z = [&](int k) -> double& {
      if constexpr (Rows > 0) {
        return local[k];
      } else {
        return out[k];
      }
    };
    for (int i = 0; i < rows; ++i) z(i) = rng.normal();
    for (int i = rows - 1; i >= 0; --i) {
      const double* lrow = l + i * rows;
      double noise = 0.0;
      for (int k = 0; k <= i; ++k) noise += lrow[k] * z(k);
      double mean = offset ? offset[i] : 0.0;
      if (b) {
        const double* brow = b + i * cols;
        for (int j = 0; j < cols; ++j) mean += brow[j] * src[j];
      }
      out[i] = mean + noise;
    }
  }

  Kokkos::View<double*, ModelDataSpace> device_;   // packed kernel data (host and device readable)
  Kokkos::View<double*, Kokkos::HostSpace> host_;  // packed A, Q, C, R, m0, P0 for params()
  const double* a_ = nullptr;                      // d x d  A
  const double* lq_ = nullptr;                     // d x d  chol(Q), lower
  const double* c_ = nullptr;                      // m x d  C
  const double* lr_ = nullptr;                     // m x m  chol(R), lower
  const double* minv_ = nullptr;                   // m x m  chol(R)^{-1}, lower
  const double* mc_ = nullptr;                     // m x d  chol(R)^{-1} C
  const double* m0_ = nullptr;                     // d      m0
  const double* l0_ = nullptr;                     // d x d  chol(P0), lower
  int d_ = 0;
  int m_ = 0;
  double log_norm_ = 0.0;  // -m/2 log(2 pi) - sum_i log chol(R)_ii
};

}  // namespace rsmc::models
