// The `scalar` filter of `rsmc bench e2e` (formerly "the hand-written filter"): a minimal
// single-process bootstrap filter in plain scalar C++, with no framework: std::vector, particle-major
// states, plain double sums, systematic resampling every step. The fast anchor is
// bench/reference_filter.hpp; this one shows what straightforward code costs.
//
// It calls the same model struct with the same Random123 streams as the framework
// (rng::ModelStream(seed, purpose, step, particle id)), so it does the same model work per particle; what
// it leaves out is what the framework adds: exact (partition-independent) sums, fixed-point weights
// on an exact wheel, MPI, Kokkos kernels and phase timing. Like the framework it reports the
// log-likelihood and the filtered mean and variance of every component, so both compute the same
// outputs. Host only (the model's parameters must be host-accessible).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "framework/model/observations.hpp"
#include "framework/model/state_view.hpp"
#include "base/rng/counter_stream.hpp"
#include "base/rng/stream.hpp"

namespace rsmc::bench {

struct ScalarResult {
  double log_likelihood = 0.0;
  std::vector<double> mean, variance;  // of the last step
};

template <class Model>
ScalarResult scalar_filter(const Model& model, const Observations& data, int steps, std::uint64_t n,
                           std::uint64_t seed) {
  const int d = model.state_dim();
  const std::size_t dn = static_cast<std::size_t>(d);
  std::vector<double> x(n * dn), next(n * dn), log_w(n), w(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    rng::ModelStream s(seed, rng::Purpose::initialise, 0, i);
    model.initial(StateView{&x[i * dn], 1}, s);
  }
  ScalarResult out;
  out.mean.assign(dn, 0.0);
  out.variance.assign(dn, 0.0);
  for (int t = 1; t <= steps; ++t) {
    const auto step = static_cast<std::uint32_t>(t);
    for (std::uint64_t i = 0; i < n; ++i) {
      rng::ModelStream s(seed, rng::Purpose::propagate, step, i);
      model.transition(ConstStateView{&x[i * dn], 1}, StateView{&next[i * dn], 1}, t, s);
    }
    std::swap(x, next);
    const bool missing = data.missing(t);
    double max_lw = 0.0;
    if (!missing) {
      max_lw = -std::numeric_limits<double>::infinity();
      for (std::uint64_t i = 0; i < n; ++i) {
        log_w[i] = model.log_likelihood(ConstStateView{&x[i * dn], 1}, ObservationView{data.row(t), 1}, t);
        if (log_w[i] > max_lw) max_lw = log_w[i];
      }
    }
    double total = 0.0;
    for (std::uint64_t i = 0; i < n; ++i) total += w[i] = missing ? 1.0 : std::exp(log_w[i] - max_lw);
    out.log_likelihood += max_lw + std::log(total / static_cast<double>(n));
    for (int c = 0; c < d; ++c) {
      double m = 0.0;
      for (std::uint64_t i = 0; i < n; ++i) m += w[i] * x[i * dn + c];
      m /= total;
      double v = 0.0;
      for (std::uint64_t i = 0; i < n; ++i) v += w[i] * (x[i * dn + c] - m) * (x[i * dn + c] - m);
      out.mean[c] = m;
      out.variance[c] = v / total;
    }
    // Systematic resampling: point k at (k + U) total / n, walked against the running sum.
    const double u = rng::Stream(seed, rng::Purpose::resample, step, 0).uniform();
    const double spacing = total / static_cast<double>(n);
    std::uint64_t j = 0;
    double cumulative = w[0];
    for (std::uint64_t k = 0; k < n; ++k) {
      const double point = (static_cast<double>(k) + u) * spacing;
      while (cumulative <= point && j + 1 < n) cumulative += w[++j];
      for (std::size_t c = 0; c < dn; ++c) next[k * dn + c] = x[j * dn + c];
    }
    std::swap(x, next);
  }
  return out;
}

}  // namespace rsmc::bench
