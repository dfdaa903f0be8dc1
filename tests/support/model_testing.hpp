// Helpers of the model tests (tests/unit/test_model_*.cpp): sample moments, the validation message of a
// parameter struct, one filter run, and whether a particle filter tracks the truth it was given data from.
//
// The two identities the checks rest on. Let the data be simulated from the model itself, and let
// m_t = E[x_t | y_1..t] and v_t = Var(x_t | y_1..t) (one state component) be the exact filtered
// moments. By the tower property (conditioning on y_1..t),
//   (1) E[(x_t - m_t)^2] = E[v_t]               the squared error matches the filter's own variance,
//   (2) E[(x_t - m_t)^2 / v_t] = 1              the normalised estimation error squared (NEES) is 1,
// for ANY model (Gaussian or not, unimodal or not). The particle filter's m_t, v_t differ from the
// exact ones by O(1/N) in bias and O(1/sqrt(N)) in noise, far below the noise of the time averages
// below at the N the tests use.
//
// The time averages over steps t0..T of a_t = (x_t - m_t)^2 - v_t and of the NEES z_t are serially
// correlated (the state is persistent), so their standard errors come from batch means: the steps
// are cut into consecutive batches of `batch` steps, and SE = sd(batch means) / sqrt(#batches). With
// batches much longer than the correlation time the batch means are close to independent, and a
// deviation of the time average beyond 4 SE has probability ~1e-4 (the tests fix their seeds, so
// they are deterministic; the bound is chosen in advance, not tuned).
//
// Accuracy beside calibration: the mean squared error itself is reported and bounded by what the
// model says the filter must beat (e.g. the observation noise variance for directly observed
// components: the best estimator from y_1..t is at least as good as y_t alone).
#pragma once

#include <mpi.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/filter_result.hpp"
#include "framework/engine/simulate.hpp"

namespace rsmc::test {

inline double mean_of(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

// The unbiased sample variance.
inline double var_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0.0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size() - 1);
}

// The message of the rsmc::Error that params.validate() throws, or "no error".
template <class Params>
std::string validation_message(const Params& params) {
  try {
    params.validate();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

struct Tracking {
  int steps = 0;           // steps averaged over (t0..T)
  int batches = 0;         // batch means behind the standard errors
  double mse = 0.0;        // mean of (x_t - m_t)^2 over steps and components
  double mean_var = 0.0;   // mean of v_t
  double excess = 0.0;     // mse - mean_var, expected 0 by (1)
  double excess_se = 0.0;  // its batch-means standard error
  double nees = 0.0;       // mean of (x_t - m_t)^2 / v_t, expected 1 by (2)
  double nees_se = 0.0;    // its batch-means standard error
  double coverage2 = 0.0;  // fraction of (t, c) with |x_t - m_t| <= 2 sqrt(v_t) (reported only)
};

inline double batch_se(const std::vector<double>& per_step, int batch, int* batches) {
  const int b = static_cast<int>(per_step.size()) / batch;
  *batches = b;
  if (b < 2) return NAN;
  std::vector<double> means(static_cast<std::size_t>(b), 0.0);
  for (int i = 0; i < b; ++i) {
    for (int k = 0; k < batch; ++k) means[i] += per_step[static_cast<std::size_t>(i) * batch + k];
    means[i] /= batch;
  }
  double mean = 0.0;
  for (double v : means) mean += v;
  mean /= b;
  double ss = 0.0;
  for (double v : means) ss += (v - mean) * (v - mean);
  return std::sqrt(ss / (b - 1) / b);
}

// Components `components` (all when empty) of steps t0..T; batches of `batch` steps (the last
// T - t0 + 1 mod batch steps count in the means but not in the standard errors' batches).
inline Tracking tracking(const Simulation& sim, const FilterResult& r, int t0, int batch,
                         std::vector<int> components = {}) {
  const int d = r.state_dim;
  if (components.empty())
    for (int c = 0; c < d; ++c) components.push_back(c);
  std::vector<double> excess, nees;
  Tracking out;
  double covered = 0.0;
  for (int t = t0; t <= r.steps; ++t) {
    double e = 0.0, z = 0.0, zn = 0.0;
    for (int c : components) {
      const double x = sim.states[static_cast<std::size_t>(t) * d + c];
      const double m = r.mean[static_cast<std::size_t>(t - 1) * d + c];
      const double v = r.variance[static_cast<std::size_t>(t - 1) * d + c];
      const double sq = (x - m) * (x - m);
      out.mse += sq;
      out.mean_var += v;
      e += sq - v;
      // v = 0 with the truth on the mean: a certain, correct component (a count model's absorbing
      // state); it adds nothing to the NEES average. v = 0 beside a wrong mean gives NEES = inf.
      if (v > 0.0 || sq > 0.0) {
        z += sq / v;
        zn += 1.0;
      }
      covered += sq <= 4.0 * v ? 1.0 : 0.0;
    }
    const double n = static_cast<double>(components.size());
    excess.push_back(e / n);
    if (zn > 0.0) nees.push_back(z / zn);  // steps where every component is certain and right: no NEES
  }
  out.steps = static_cast<int>(excess.size());
  const double total = static_cast<double>(out.steps) * static_cast<double>(components.size());
  out.mse /= total;
  out.mean_var /= total;
  out.coverage2 = covered / total;
  out.excess = out.mse - out.mean_var;
  for (double z : nees) out.nees += z;
  out.nees /= static_cast<double>(nees.size());
  out.excess_se = batch_se(excess, batch, &out.batches);
  out.nees_se = batch_se(nees, batch, &out.batches);
  return out;
}

// One bootstrap filter run on MPI_COMM_SELF (systematic resampling when ESS < N / 2).
template <class Model>
FilterResult run_filter(const Model& model, const Observations& y, std::uint64_t particles, std::uint64_t seed) {
  FilterOptions options;
  options.particles = particles;
  options.seed = seed;
  options.ess_threshold = 0.5;
  BootstrapFilter<Model> filter(MPI_COMM_SELF, model, options);
  return filter.run(y);
}

}  // namespace rsmc::test
