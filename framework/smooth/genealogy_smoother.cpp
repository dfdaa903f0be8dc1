// The genealogy-tracing smoother; see genealogy_smoother.hpp.
#include "framework/smooth/genealogy_smoother.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "base/core/error.hpp"
#include "base/exact/exact_sum.hpp"
#include "base/math/math.hpp"

namespace rsmc {

namespace {

// Systematic resampling with offset 1/2: M particle ids in ascending order.
std::vector<std::uint64_t> sample_paths(const std::vector<double>& w, std::uint64_t m) {
  std::vector<std::uint64_t> ids;
  if (m == 0) return ids;
  double total = 0.0;
  for (double x : w) total += x;
  double cumulative = w[0];
  std::size_t i = 0;
  for (std::uint64_t k = 0; k < m; ++k) {
    const double point = (static_cast<double>(k) + 0.5) / static_cast<double>(m) * total;
    while (cumulative <= point && i + 1 < w.size()) cumulative += w[++i];
    ids.push_back(i);
  }
  return ids;
}

}  // namespace

SmoothedMoments smooth_genealogy(const TraceReader& trace, std::uint64_t paths) {
  const TraceHeader& h = trace.header();
  const std::size_t n = static_cast<std::size_t>(h.info.particles);
  const int d = h.info.state_dim;
  if (h.cloud_steps.empty()) throw Error("trace: no recorded cloud; nothing to smooth");

  SmoothedMoments out;
  out.state_dim = d;
  out.particles = h.info.particles;
  out.steps = h.cloud_steps;
  out.final_step = h.cloud_steps.back();
  const std::size_t r = h.cloud_steps.size();
  out.mean.assign(r * static_cast<std::size_t>(d), 0.0);
  out.variance.assign(r * static_cast<std::size_t>(d), 0.0);
  out.distinct_ancestors.assign(r, 0);

  std::vector<double> state, log_weight;
  trace.read_cloud(out.final_step, state, log_weight);
  // Weights of the paths: those of the last recorded step, relative to their maximum.
  const double max_lw = *std::max_element(log_weight.begin(), log_weight.end());
  if (!(max_lw > -std::numeric_limits<double>::infinity()))
    throw Error("trace: every particle of step " + std::to_string(out.final_step) + " has zero weight");
  std::vector<double> w(n);
  exact::ExactSum total{}, total_sq{};
  total.clear();
  total_sq.clear();
  for (std::size_t i = 0; i < n; ++i) {
    w[i] = math::exp(log_weight[i] - max_lw);  // rsmc::math: the same bits on every machine
    total.add(w[i]);
    total_sq.add(w[i] * w[i]);
  }
  const double W = total.to_double();
  out.final_ess = W * W / total_sq.to_double();
  out.path_ids = sample_paths(w, paths);
  out.paths.assign(out.path_ids.size() * r * static_cast<std::size_t>(d), 0.0);

  std::vector<char> resampled(static_cast<std::size_t>(h.info.steps) + 1, 0);
  for (std::int32_t t : h.resampled_steps) resampled[static_cast<std::size_t>(t)] = 1;

  // path[i]: the particle of the current step (pre-resampling id) on path i.
  std::vector<std::uint64_t> path(n), ancestor;
  for (std::size_t i = 0; i < n; ++i) path[i] = i;
  std::vector<char> seen(n);
  for (std::size_t k = r; k-- > 0;) {
    const int t = h.cloud_steps[k];
    if (k + 1 < r) trace.read_cloud(t, state, log_weight);
    for (int c = 0; c < d; ++c) {
      const double* x = state.data() + static_cast<std::size_t>(c) * n;
      exact::ExactSum s{};
      s.clear();
      for (std::size_t i = 0; i < n; ++i) s.add(w[i] * x[path[i]]);
      const double mean = s.to_double() / W;
      s.clear();
      for (std::size_t i = 0; i < n; ++i) {
        const double dev = x[path[i]] - mean;
        s.add(w[i] * dev * dev);
      }
      out.mean[k * d + c] = mean;
      out.variance[k * d + c] = s.to_double() / W;
      for (std::size_t p = 0; p < out.path_ids.size(); ++p) out.paths[(p * r + k) * d + c] = x[path[out.path_ids[p]]];
    }
    std::fill(seen.begin(), seen.end(), 0);
    std::uint64_t distinct = 0;
    for (std::size_t i = 0; i < n; ++i) {
      distinct += seen[path[i]] == 0 ? 1 : 0;
      seen[path[i]] = 1;
    }
    out.distinct_ancestors[k] = distinct;
    if (k == 0) break;
    // Back to the previous recorded step: particle j of step s + 1 was propagated from particle j at
    // the end of step s, which after a resampling at s is the offspring of ancestor[j].
    for (int s = t - 1; s >= h.cloud_steps[k - 1]; --s) {
      if (!resampled[static_cast<std::size_t>(s)]) continue;
      trace.read_ancestors(s, ancestor);
      for (auto& p : path) p = ancestor[p];
    }
  }
  return out;
}

}  // namespace rsmc
