// The Lorenz-96 model (Lorenz 1996; Lorenz & Emanuel 1998) as a state-space model with a run-time
// dimension d >= 4:
//
//   dx_j/dt = (x_{j+1} - x_{j-2}) x_{j-1} - x_j + F,   j = 0..d-1, indices cyclic (mod d)
//   x_0 ~ N(x0_mean, x0_sd^2) independently per component
//   x_t = RK4_dt(x_{t-1}) + process_sd eta_t,   eta_t ~ N(0, I_d)       (one classical RK4 step of
//                                                                       length dt per filter step)
//   y_t = (x_{t,0}, x_{t,k}, x_{t,2k}, ...) + obs_sd eps_t,  eps_t ~ N(0, I_m)
//
// Observed components: every k-th, k = obs_every, starting at component 0, so m = ceil(d / k);
// obs_every = 1 observes the whole state. A NaN observation component is skipped (a partly missing
// row); a row that is entirely NaN is skipped by the engine.
//
// Defaults: d = 40, F = 8 and dt = 0.05 (about 6 hours of atmospheric time) are the standard
// configuration of Lorenz & Emanuel (J. Atmos. Sci. 55 (1998) 399-414), chaotic with a leading
// Lyapunov exponent of about 1.7 per time unit. obs_sd = 1 (unit observation error variance, a common
// choice in data-assimilation experiments with this model), process_sd = 0.1 and the initial
// distribution N(F, 1) per component (a perturbed equilibrium x_j = F, which spins up onto the
// attractor within a few time units) are illustrative choices of rsmc.
//
// A bootstrap filter on this model needs N exponential in the number of observed components (Snyder
// et al. 2008): with N = 10^4 it tracks d = 10 (process_sd = 0.3) but degenerates at d = 40 (see
// tests/unit/test_model_lorenz96.cpp for the measurements). Large d is for scaling runs.
//
// The RK4 step without scratch memory: a particle's state is a strided view and the model must not
// allocate, but RK4 needs the stage states y2 = x + h/2 k1, y3 = x + h/2 k2, y4 = x + h k3 of all
// components. Because the tendency of component j reads only components j-2..j+1, the four stages are
// computed in ONE sweep over an unwrapped index s = -6..d+2 with ring buffers of 8 entries per
// quantity: iteration s computes k1(s), y2(s); k2(s-1), y3(s-1); k3(s-2), y4(s-2); k4(s-3) and writes
// component s-3 of the result once s-3 >= 0. Every quantity at unwrapped index i is a pure function of
// x at cyclic indices near i, so the values computed in the warm-up (negative i, i.e. components
// d-6..d-1) are bitwise the values the classical component-by-component RK4 gets; the sweep performs
// exactly the classical RK4's operations per component (tests/unit/test_model_lorenz96.cpp checks it
// bit for bit against a reference with full stage arrays). Memory: 6 x 8 doubles per particle in
// registers / local memory, for any d; work: (d + 9) x 4 tendencies.
//
// Random draws: initial() and transition() draw d standard normals (component 0 first),
// simulate_observation() m. The struct holds only ints and doubles (kernel-copyable).
#pragma once

#include <cmath>
#include <string>

#include "base/core/portability.hpp"
#include "base/rng/counter_stream.hpp"
#include "framework/model/densities.hpp"
#include "framework/model/parameters.hpp"
#include "framework/model/state_view.hpp"

namespace rsmc::models {

struct Lorenz96Params : ParameterSet<Lorenz96Params> {
  static constexpr const char* model = "lorenz96";
  int d;
  double F, dt, process_sd;
  int obs_every;
  double obs_sd, x0_mean, x0_sd;
  Lorenz96Params() { reset(); }
  template <class Declare>
  void declare_parameters(Declare&& declare) {
    declare(integer("d", d, 40, "state dimension").at_least(4, "the tendency reads x_{j-2}..x_{j+1}"));
    declare(real("F", F, 8.0, "forcing"));
    declare(real("dt", dt, 0.05, "length of the RK4 step per filter step").positive());
    declare(real("process_sd", process_sd, 0.1, "sd of the noise added to each component per step").positive());
    declare(integer("obs_every", obs_every, 1, "observe components 0, k, 2k, ..., k <= d").at_least(1));
    declare(real("obs_sd", obs_sd, 1.0, "observation noise sd").positive());
    declare(real("x0_mean", x0_mean, 8.0, "mean of every component of x_0"));
    declare(real("x0_sd", x0_sd, 1.0, "sd of every component of x_0").positive());
  }
  void check_relations() const {
    if (obs_every > d)
      bad_parameter(model, "obs_every", std::to_string(obs_every),
                    "an integer 1 <= obs_every <= d = " + std::to_string(d));
  }
};

class Lorenz96 {
 public:
  static constexpr const char* name = Lorenz96Params::model;

  // Validates the parameters (throws rsmc::Error).
  explicit Lorenz96(const Lorenz96Params& params)
      : p_(validated(params)),
        m_((p_.d + p_.obs_every - 1) / p_.obs_every),
        inv_sd_(1.0 / p_.obs_sd),
        log_norm1_(normal_log_normaliser_sd(p_.obs_sd)) {}

  Lorenz96Params params() const { return p_; }
  static std::string state_name(int c) { return "x" + std::to_string(c); }
  // The state component behind observation component j.
  RSMC_HOST_DEVICE int observed_component(int j) const { return j * p_.obs_every; }

  RSMC_HOST_DEVICE int state_dim() const { return p_.d; }
  RSMC_HOST_DEVICE int obs_dim() const { return m_; }

  RSMC_HOST_DEVICE void initial(StateView x, rng::ModelStream& rng) const {
    for (int c = 0; c < p_.d; ++c) x[c] = p_.x0_mean + p_.x0_sd * rng.normal();
  }

  // The Lorenz-96 tendency of a component from its neighbours x_{j-2}, x_{j-1}, x_j, x_{j+1}.
  RSMC_HOST_DEVICE double tendency(double xm2, double xm1, double x0, double xp1) const {
    return (xp1 - xm2) * xm1 - x0 + p_.F;
  }

  // out = one classical RK4 step of length dt from x (no noise). `x` and `out` must not alias.
  RSMC_HOST_DEVICE void rk4(ConstStateView x, StateView out) const {
    const int d = p_.d;
    const double h = p_.dt, half = 0.5 * p_.dt, sixth = p_.dt / 6.0;
    constexpr int kRing = 8;  // ring buffers, indexed by (s + 8) & 7 for the unwrapped index s >= -8
    double k1[kRing] = {}, k2[kRing] = {}, k3[kRing] = {}, y2[kRing] = {}, y3[kRing] = {}, y4[kRing] = {};
    auto at = [d](int i) { return ((i % d) + d) % d; };  // cyclic component of an unwrapped index
    auto r = [](int i) { return (i + 8) & (kRing - 1); };
    for (int s = -6; s <= d + 2; ++s) {
      k1[r(s)] = tendency(x[at(s - 2)], x[at(s - 1)], x[at(s)], x[at(s + 1)]);
      y2[r(s)] = x[at(s)] + half * k1[r(s)];
      const int a = s - 1;
      k2[r(a)] = tendency(y2[r(a - 2)], y2[r(a - 1)], y2[r(a)], y2[r(a + 1)]);
      y3[r(a)] = x[at(a)] + half * k2[r(a)];
      const int b = s - 2;
      k3[r(b)] = tendency(y3[r(b - 2)], y3[r(b - 1)], y3[r(b)], y3[r(b + 1)]);
      y4[r(b)] = x[at(b)] + h * k3[r(b)];
      const int c = s - 3;
      if (c >= 0) {
        const double k4 = tendency(y4[r(c - 2)], y4[r(c - 1)], y4[r(c)], y4[r(c + 1)]);
        out[c] = x[c] + sixth * (k1[r(c)] + 2.0 * k2[r(c)] + 2.0 * k3[r(c)] + k4);
      }
    }
  }

  RSMC_HOST_DEVICE void transition(ConstStateView from, StateView to, int /*step*/, rng::ModelStream& rng) const {
    rk4(from, to);
    for (int c = 0; c < p_.d; ++c) to[c] += p_.process_sd * rng.normal();
  }

  // Sum over the observed, non-NaN components j of log N(y_j; x_{j k}, obs_sd^2).
  RSMC_HOST_DEVICE double log_likelihood(ConstStateView x, ObservationView y, int /*step*/) const {
    double sum = 0.0;
    for (int j = 0; j < m_; ++j) {
      const double yj = y[j];
      if (yj != yj) continue;  // NaN: not observed
      sum += normal_log_inv_sd(yj, x[j * p_.obs_every], inv_sd_, log_norm1_);
    }
    return sum;
  }

  RSMC_HOST_DEVICE void simulate_observation(ConstStateView x, ObservationOut y, int /*step*/,
                                             rng::ModelStream& rng) const {
    for (int j = 0; j < m_; ++j) y[j] = x[j * p_.obs_every] + p_.obs_sd * rng.normal();
  }

 private:
  Lorenz96Params p_;
  int m_;             // ceil(d / obs_every)
  double inv_sd_;     // 1 / obs_sd
  double log_norm1_;  // -log(2 pi obs_sd^2) / 2, per observed component
};

}  // namespace rsmc::models
