// A regime-switching (jump Markov) linear Gaussian model with K regimes:
//
//   k_0 ~ pi0,                     x_0 ~ N(x0_mean, x0_sd^2)
//   k_t | k_{t-1} ~ P[k_{t-1}, .]  (row k_{t-1} of the K x K transition matrix P)
//   x_t = a_{k_t} x_{t-1} + b_{k_t} + s_{k_t} eta_t,   eta_t ~ N(0, 1)
//   y_t = x_t + obs_sd eps_t,                         eps_t ~ N(0, 1)
//
// The state is (x, k) (d = 2; the regime index stored as a double, so the filtered mean of component
// 1 is E[k_t | y_1..t], for K = 2 the probability of regime 1), m = 1.
//
// Defaults (K = 2), illustrative: a calm, persistent regime 0 (a = 0.9, b = 0, s = 0.3) and a
// turbulent regime 1 with a shifted level (a = 0.5, b = 2, s = 1), P = [[0.95, 0.05], [0.10, 0.90]]
// (expected durations 20 and 10 steps), pi0 = [2/3, 1/3] (the stationary distribution of P),
// obs_sd = 0.5, x_0 ~ N(0, 1).
//
// The regime draw and the butterfly kernel. kernels/butterfly/batched_categorical.hpp draws one index
// per particle from the particle's own K-way row, but it is a batched, host-launched kernel over a
// particles x K weight matrix (a Kokkos parallel_for over warp-sized groups with a heap-allocated
// table). It cannot be called from inside a transition(), which the engine runs per particle inside
// its own kernel, and the engine has no hook to run it between steps. The model therefore runs the
// kernel's own algorithm on the particle's own row, per particle:
// - K <= 31 < W = 32 (kCudaWarpWidth), so the kernel's warp table for any group of particles has no
//   W x W butterfly block: it consists only of the "remnant" rows, each lane's own sequential prefix
//   sums p_j = a_0 + .. + a_j in the accumulator type (double), and its search is the remnant's linear
//   search for the smallest j with u' < p_j (ButterflyWarpTable::build/search in
//   kernels/host/butterfly_table.hpp, and the CUDA kernel likewise) — no lane reads another lane's
//   data, so the per-particle computation is exactly what the kernel does for that lane.
// - The model precomputes those prefix sums for every row of P once (in the constructor, summed in the
//   same order, so bitwise the kernel's), maps the particle's uniform to the point
//   u' = butterfly::scaled_point(u, total) shared by the whole butterfly family (same edge rules:
//   clamped into [0, total), a zero probability is never drawn), and searches the row linearly.
// So the regime is bitwise the index batched_categorical<Exec, double> returns for that row and
// uniform (tests/unit/test_model_regime.cpp checks it against the kernel itself, K = 2, 3 and 31),
// with no allocation, no launch, and O(K) work per particle. K is capped at 31 to keep that identity.
//
// Random draws: initial() draws one uniform (k_0, from the prefix sums of pi0) and one normal;
// transition() one uniform (the regime) then one normal; simulate_observation() one normal.
// Kernel data (prefix sums, coefficients) live in one View in rsmc::ModelDataSpace (host and device
// readable: framework/model/model_data_space.hpp) read through raw pointers, as in LinearGaussian;
// the model must be created after Kokkos::initialize.
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "base/core/portability.hpp"
#include "base/rng/counter_stream.hpp"
#include "framework/model/densities.hpp"
#include "framework/model/model_data_space.hpp"
#include "framework/model/parameters.hpp"
#include "framework/model/state_view.hpp"
#include "kernels/butterfly/butterfly_common.hpp"

namespace rsmc::models {

struct RegimeSwitchingParams : ParameterSet<RegimeSwitchingParams> {
  static constexpr const char* model = "regime_switching";
  // The largest K: below the butterfly warp width, so that the kernel's table is its remnant (above).
  static constexpr int kMaxRegimes = static_cast<int>(kernels::butterfly::kCudaWarpWidth) - 1;

  int K;
  std::vector<double> P, pi0, a, b, s;  // P: K x K row-major; the others: one entry per regime
  double obs_sd, x0_mean, x0_sd;
  RegimeSwitchingParams() { reset(); }
  template <class Declare>
  void declare_parameters(Declare&& declare) {
    declare(integer("K", K, 2, "number of regimes").at_least(1).at_most(kMaxRegimes, "below the butterfly warp width"));
    declare(real_matrix("P", P, {0.95, 0.05, 0.10, 0.90}, K, K, "K x K transition matrix; rows are probabilities"));
    declare(real_vector("pi0", pi0, {2.0 / 3.0, 1.0 / 3.0}, "distribution of k_0"));
    declare(real_vector("a", a, {0.9, 0.5}, "per-regime autoregression coefficient"));
    declare(real_vector("b", b, {0.0, 2.0}, "per-regime intercept"));
    declare(real_vector("s", s, {0.3, 1.0}, "per-regime noise sd").positive());
    declare(real("obs_sd", obs_sd, 0.5, "observation noise sd").positive());
    declare(real("x0_mean", x0_mean, 0.0, "mean of x_0"));
    declare(real("x0_sd", x0_sd, 1.0, "sd of x_0").positive());
  }
  // Every vector has its size (K or K x K); the rows of P and pi0 are non-negative and sum to 1
  // (within 1e-9). Throws rsmc::Error naming the parameter.
  void check_relations() const;
};

class RegimeSwitching {
 public:
  static constexpr const char* name = RegimeSwitchingParams::model;
  static constexpr int transition_normals = 1;  // transition() draws one normal (a speed hint)
  enum Component : int { kX = 0, kRegime = 1 };

  // Validates the parameters, precomputes the prefix sums, copies the kernel data to the default
  // memory space. Throws rsmc::Error.
  explicit RegimeSwitching(const RegimeSwitchingParams& params);

  RegimeSwitchingParams params() const;
  static std::string state_name(int c) { return c == 0 ? "x" : "regime"; }

  RSMC_HOST_DEVICE int state_dim() const { return 2; }
  RSMC_HOST_DEVICE int obs_dim() const { return 1; }
  RSMC_HOST_DEVICE int regimes() const { return k_; }

  // The butterfly kernel's draw from a row with prefix sums cum[0..K-1] (cum[K-1] the row total > 0)
  // for the uniform u: the smallest j with u' < cum[j], u' = scaled_point(u, total) (see above).
  RSMC_HOST_DEVICE int draw(const double* cum, double u) const {
    const double point = kernels::butterfly::scaled_point(u, cum[k_ - 1]);
    for (int j = 0; j < k_ - 1; ++j)
      if (point < cum[j]) return j;
    return k_ - 1;  // point < total = cum[K - 1] always (clamped)
  }

  RSMC_HOST_DEVICE void initial(StateView x, rng::ModelStream& rng) const {
    x[kRegime] = static_cast<double>(draw(cum_pi0_, rng.uniform()));
    x[kX] = x0_mean_ + x0_sd_ * rng.normal();
  }

  RSMC_HOST_DEVICE void transition(ConstStateView from, StateView to, int /*step*/, rng::ModelStream& rng) const {
    const int prev = static_cast<int>(from[kRegime]);
    const int k = draw(cum_p_ + prev * k_, rng.uniform());
    to[kRegime] = static_cast<double>(k);
    to[kX] = coef_[3 * k] * from[kX] + coef_[3 * k + 1] + coef_[3 * k + 2] * rng.normal();
  }

  // log N(y; x, obs_sd^2).
  RSMC_HOST_DEVICE double log_likelihood(ConstStateView x, ObservationView y, int /*step*/) const {
    return normal_log_sd(y[0], x[kX], obs_sd_, log_norm_);
  }

  RSMC_HOST_DEVICE void simulate_observation(ConstStateView x, ObservationOut y, int /*step*/,
                                             rng::ModelStream& rng) const {
    y[0] = x[kX] + obs_sd_ * rng.normal();
  }

 private:
  Kokkos::View<double*, ModelDataSpace> device_;   // cum P (K x K), cum pi0 (K), (a, b, s) per regime
  Kokkos::View<double*, Kokkos::HostSpace> host_;  // P, pi0, a, b, s as given, for params()
  const double* cum_p_ = nullptr;
  const double* cum_pi0_ = nullptr;
  const double* coef_ = nullptr;  // a_k, b_k, s_k at [3k], [3k + 1], [3k + 2]
  int k_ = 0;
  double obs_sd_ = 0.0, x0_mean_ = 0.0, x0_sd_ = 0.0;
  double log_norm_ = 0.0;  // -log(2 pi obs_sd^2) / 2
};

}  // namespace rsmc::models
