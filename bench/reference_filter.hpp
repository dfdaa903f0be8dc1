// The `reference` of `rsmc bench e2e` (issue 16): the fastest plain C++ bootstrap filter we can write
// for the benchmark models (stochastic volatility, linear Gaussian, Lorenz-96), the anchor the
// framework's speed is measured against.
//
// Single process, one thread, plain double sums, SIMD where the compiler gives it; NOT p-invariant
// and not bound by rsmc's stream layout. Per step, over batches of particles that stay in L1:
//   draws     Philox blocks with the SIMD Philox (rng::generate_normals), both Box-Muller outputs used:
//             the d normals of a particle are consecutive entries of one stream of normal pairs over
//             "virtual ids" (particle i, component k) -> (i d + k) / 2, so SV (d = 1) pairs particles
//   propagate per model, structure of arrays, loops over the particles of a batch (vectorised)
//   weight    log-likelihood per particle, then w = exp(l - max l)
//   sums      sum w, and per component sum w x and sum w x^2 (one pass), in 8 partial sums each
//   resample  systematic every step: double cumulative weights, offspring counts
//             floor(C_i N / W + U) - floor(C_(i-1) N / W + U), one 4-wide store per particle and
//             component (the surplus is overwritten by the next particles)
// Reports the log-likelihood estimate (and the last step's mean and variance), as the framework.
// Host only; the math is rsmc::math (vectorisable polynomials), so no libm call is in a loop.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "base/core/error.hpp"
#include "base/rng/batch_draws.hpp"
#include "base/rng/counter_stream.hpp"
#include "framework/model/observations.hpp"
#include "models/linear_gaussian.hpp"
#include "models/lorenz96.hpp"
#include "models/stochastic_volatility.hpp"

namespace rsmc::bench {

struct ReferenceResult {
  double log_likelihood = 0.0;
  std::vector<double> mean, variance;  // of the last step
};

namespace reference_detail {

constexpr double kLog2Pi = 1.8378770664093454835606594728112;

// The particles' states, structure of arrays: component c of particle i at x[c * n + i].
struct Cloud {
  int d = 0;
  std::size_t n = 0;
  std::vector<double> x;
  double* component(int c) { return x.data() + static_cast<std::size_t>(c) * n; }
};

// Normals for particles [first, first + count) of a batch, d per particle: normal k of particle
// first + l is at z[h lanes + q] with f = l d + k, q = f / 2, h = f % 2 (virtual id first d / 2 + q).
struct BatchNormals {
  std::vector<double> z;
  std::uint32_t lanes = 0;
  int d = 0;
  void generate(std::uint64_t seed, rng::Purpose purpose, std::uint32_t step, std::uint64_t first, int count) {
    const std::uint32_t pairs = static_cast<std::uint32_t>((static_cast<std::uint64_t>(count) * d + 1) / 2);
    const std::uint32_t rounded = (pairs + rng::kBatchDrawGroup - 1) / rng::kBatchDrawGroup * rng::kBatchDrawGroup;
    if (rounded > lanes || z.empty()) {
      lanes = rounded;
      z.assign(2 * static_cast<std::size_t>(lanes), 0.0);
    }
    rng::generate_normals(rng::stream_key(seed, purpose), step, first * static_cast<std::uint64_t>(d) / 2, pairs, 1,
                          lanes, z.data());
  }
  double at(int l, int k) const {
    const std::size_t f = static_cast<std::size_t>(l) * static_cast<std::size_t>(d) + static_cast<std::size_t>(k);
    return z[(f & 1) * lanes + (f >> 1)];
  }
  // The normals by component, rows of `stride`: component k of particle l at by_component[k stride + l]
  // (one shuffle pass, so that the kernels' loops over particles read unit-stride rows).
  std::vector<double> by_component;
  void split(int count, int stride) {
    by_component.resize(static_cast<std::size_t>(d) * static_cast<std::size_t>(stride));
    for (int k = 0; k < d; ++k)
      for (int l = 0; l < count; ++l) by_component[static_cast<std::size_t>(k * stride + l)] = at(l, k);
  }
  const double* row(int k, int stride) const { return by_component.data() + static_cast<std::size_t>(k * stride); }
};

// Stochastic volatility: x' = mu + phi (x - mu) + sigma z; l = -(log 2 pi + x + y^2 e^-x) / 2.
struct SvKernel {
  static constexpr int kBatch = 512;
  models::StochasticVolatilityParams p;
  int dim() const { return 1; }
  void initial(double* const* x, int count, const BatchNormals& z) const {
    const double sd = p.sigma / std::sqrt(1.0 - p.phi * p.phi);
    for (int l = 0; l < count; ++l) x[0][l] = p.mu + sd * z.at(l, 0);
  }
  void propagate(const double* const* from, double* const* to, int count, const BatchNormals& z) const {
    const double* z0 = z.z.data();  // d = 1: normal of particle l is z[(l & 1) lanes + l / 2]
    const double* z1 = z0 + z.lanes;
    for (int l = 0; l < count; ++l) {
      const double zl = (l & 1) != 0 ? z1[l >> 1] : z0[l >> 1];
      to[0][l] = p.mu + p.phi * (from[0][l] - p.mu) + p.sigma * zl;
    }
  }
  void log_likelihood(const double* const* x, const double* y, double* l, int count) const {
    const double y2 = y[0] * y[0];
    for (int i = 0; i < count; ++i) l[i] = -0.5 * (kLog2Pi + x[0][i] + y2 * math::exp(-x[0][i]));
  }
};

// Linear Gaussian: x' = A x + chol(Q) z; l = const - |M y - M C x|^2 / 2, M = chol(R)^-1.
struct LinearGaussianKernel {
  static constexpr int kBatch = 256;
  int d = 0, m = 0;
  std::vector<double> a, lq, l0, m0, minv, mc;
  double log_norm = 0.0;
  int dim() const { return d; }

  static std::vector<double> cholesky(const std::vector<double>& s, int k) {
    std::vector<double> l(static_cast<std::size_t>(k * k), 0.0);
    for (int i = 0; i < k; ++i)
      for (int j = 0; j <= i; ++j) {
        double v = s[static_cast<std::size_t>(i * k + j)];
        for (int q = 0; q < j; ++q)
          v -= l[static_cast<std::size_t>(i * k + q)] * l[static_cast<std::size_t>(j * k + q)];
        l[static_cast<std::size_t>(i * k + j)] = i == j ? std::sqrt(v) : v / l[static_cast<std::size_t>(j * k + j)];
      }
    return l;
  }
  static std::vector<double> lower_inverse(const std::vector<double>& l, int k) {
    std::vector<double> inv(static_cast<std::size_t>(k * k), 0.0);
    for (int c = 0; c < k; ++c)
      for (int i = c; i < k; ++i) {
        double v = i == c ? 1.0 : 0.0;
        for (int q = c; q < i; ++q)
          v -= l[static_cast<std::size_t>(i * k + q)] * inv[static_cast<std::size_t>(q * k + c)];
        inv[static_cast<std::size_t>(i * k + c)] = v / l[static_cast<std::size_t>(i * k + i)];
      }
    return inv;
  }
  explicit LinearGaussianKernel(const models::LinearGaussianParams& p) : d(p.d), m(p.m), a(p.A), m0(p.m0) {
    lq = cholesky(p.Q, d);
    l0 = cholesky(p.P0, d);
    const std::vector<double> lr = cholesky(p.R, m);
    minv = lower_inverse(lr, m);
    mc.assign(static_cast<std::size_t>(m * d), 0.0);
    for (int i = 0; i < m; ++i)
      for (int c = 0; c < d; ++c)
        for (int q = 0; q < m; ++q)
          mc[static_cast<std::size_t>(i * d + c)] +=
              minv[static_cast<std::size_t>(i * m + q)] * p.C[static_cast<std::size_t>(q * d + c)];
    double log_det = 0.0;
    for (int i = 0; i < m; ++i) log_det += std::log(lr[static_cast<std::size_t>(i * m + i)]);
    log_norm = -0.5 * m * kLog2Pi - log_det;
  }
  void initial(double* const* x, int count, const BatchNormals& z) const {
    for (int r = 0; r < d; ++r)
      for (int l = 0; l < count; ++l) {
        double v = m0[static_cast<std::size_t>(r)];
        for (int c = 0; c <= r; ++c) v += l0[static_cast<std::size_t>(r * d + c)] * z.at(l, c);
        x[r][l] = v;
      }
  }
  void propagate(const double* const* from, double* const* to, int count, const BatchNormals& z) const {
    for (int r = 0; r < d; ++r) {
      double* out = to[r];
      for (int l = 0; l < count; ++l) out[l] = 0.0;
      for (int c = 0; c < d; ++c) {
        const double arc = a[static_cast<std::size_t>(r * d + c)];
        const double* in = from[c];
        for (int l = 0; l < count; ++l) out[l] += arc * in[l];
      }
      for (int c = 0; c <= r; ++c) {
        const double lrc = lq[static_cast<std::size_t>(r * d + c)];
        const double* zc = z.row(c, kBatch);
        for (int l = 0; l < count; ++l) out[l] += lrc * zc[l];
      }
    }
  }
  void log_likelihood(const double* const* x, const double* y, double* l, int count) const {
    for (int i = 0; i < count; ++i) l[i] = log_norm;
    for (int r = 0; r < m; ++r) {
      double my = 0.0;
      for (int q = 0; q <= r; ++q) my += minv[static_cast<std::size_t>(r * m + q)] * y[q];
      for (int i = 0; i < count; ++i) {
        double u = my;
        for (int c = 0; c < d; ++c) u -= mc[static_cast<std::size_t>(r * d + c)] * x[c][i];
        l[i] -= 0.5 * u * u;
      }
    }
  }
};

// Lorenz-96: one RK4 step of the tendency (x_{j+1} - x_{j-2}) x_{j-1} - x_j + F per component, plus
// noise; l = sum over observed components of log N(y_j; x_{j k}, sd^2).
struct Lorenz96Kernel {
  static constexpr int kBatch = 64;  // 4 stage arrays of d x 64 doubles: 80 KiB at d = 40
  models::Lorenz96Params p;
  int m = 0;
  mutable std::vector<double> k1, k2, k3, k4, tmp;
  explicit Lorenz96Kernel(const models::Lorenz96Params& params)
      : p(params), m((params.d + params.obs_every - 1) / params.obs_every) {
    const std::size_t size = static_cast<std::size_t>(p.d) * kBatch;
    k1.resize(size);
    k2.resize(size);
    k3.resize(size);
    k4.resize(size);
    tmp.resize(size);
  }
  int dim() const { return p.d; }
  void initial(double* const* x, int count, const BatchNormals& z) const {
    for (int c = 0; c < p.d; ++c)
      for (int l = 0; l < count; ++l) x[c][l] = p.x0_mean + p.x0_sd * z.at(l, c);
  }
  // k[c][l] = tendency of component c of the states s[c] (s given by a function of c).
  template <class State>
  void tendency(State s, double* k, int count) const {
    const int d = p.d;
    for (int c = 0; c < d; ++c) {
      const double* xm2 = s((c + d - 2) % d);
      const double* xm1 = s((c + d - 1) % d);
      const double* x0 = s(c);
      const double* xp1 = s((c + 1) % d);
      double* out = k + static_cast<std::size_t>(c) * kBatch;
      for (int l = 0; l < count; ++l) out[l] = (xp1[l] - xm2[l]) * xm1[l] - x0[l] + p.F;
    }
  }
  void propagate(const double* const* from, double* const* to, int count, const BatchNormals& z) const {
    const int d = p.d;
    const double h = p.dt, half = 0.5 * p.dt, sixth = p.dt / 6.0;
    auto row = [](std::vector<double>& v, int c) { return v.data() + static_cast<std::size_t>(c) * kBatch; };
    tendency([&](int c) { return from[c]; }, k1.data(), count);
    for (int c = 0; c < d; ++c)
      for (int l = 0; l < count; ++l) row(tmp, c)[l] = from[c][l] + half * row(k1, c)[l];
    tendency([&](int c) { return static_cast<const double*>(row(tmp, c)); }, k2.data(), count);
    for (int c = 0; c < d; ++c)
      for (int l = 0; l < count; ++l) row(tmp, c)[l] = from[c][l] + half * row(k2, c)[l];
    tendency([&](int c) { return static_cast<const double*>(row(tmp, c)); }, k3.data(), count);
    for (int c = 0; c < d; ++c)
      for (int l = 0; l < count; ++l) row(tmp, c)[l] = from[c][l] + h * row(k3, c)[l];
    tendency([&](int c) { return static_cast<const double*>(row(tmp, c)); }, k4.data(), count);
    for (int c = 0; c < d; ++c) {
      const double* zc = z.row(c, kBatch);
      for (int l = 0; l < count; ++l)
        to[c][l] = from[c][l] + sixth * (row(k1, c)[l] + 2.0 * row(k2, c)[l] + 2.0 * row(k3, c)[l] + row(k4, c)[l]) +
                   p.process_sd * zc[l];
    }
  }
  void log_likelihood(const double* const* x, const double* y, double* l, int count) const {
    const double inv = 1.0 / p.obs_sd, norm = -0.5 * kLog2Pi - std::log(p.obs_sd);
    for (int i = 0; i < count; ++i) l[i] = 0.0;
    for (int j = 0; j < m; ++j) {
      if (y[j] != y[j]) continue;  // NaN: not observed
      const double* xc = x[j * p.obs_every];
      for (int i = 0; i < count; ++i) {
        const double u = (y[j] - xc[i]) * inv;
        l[i] += norm - 0.5 * u * u;
      }
    }
  }
};

inline SvKernel kernel_for(const models::StochasticVolatility& model) { return SvKernel{model.params()}; }
inline LinearGaussianKernel kernel_for(const models::LinearGaussian& model) {
  return LinearGaussianKernel(model.params());
}
inline Lorenz96Kernel kernel_for(const models::Lorenz96& model) { return Lorenz96Kernel(model.params()); }

// floor(v) for 0 <= v < 2^51, branch-free (rounding by 2^52, corrected).
inline double floor_small(double v) {
  const double r = (v + 0x1p52) - 0x1p52;
  return r > v ? r - 1.0 : r;
}

template <class Kernel>
class Filter {
 public:
  Filter(Kernel kernel, std::uint64_t n, std::uint64_t seed) : k_(std::move(kernel)), n_(n), seed_(seed) {
    d_ = k_.dim();
    for (Cloud* c : {&x_, &next_}) {
      c->d = d_;
      c->n = n_ + 4;  // 4 doubles of slack per component for the 4-wide offspring stores
      c->x.assign(c->n * static_cast<std::size_t>(d_), 0.0);
    }
    l_.resize(n_);
    c_.resize(n_);
    normals_.d = d_;
  }

  ReferenceResult run(const Observations& data, int steps) {
    for_batches(x_, [&](double* const* x, std::uint64_t first, int count) {
      normals_.generate(seed_, rng::Purpose::initialise, 0, first, count);
      k_.initial(x, count, normals_);
    });
    ReferenceResult out;
    out.mean.assign(static_cast<std::size_t>(d_), 0.0);
    out.variance.assign(static_cast<std::size_t>(d_), 0.0);
    for (int t = 1; t <= steps; ++t) out.log_likelihood += step(t, data.missing(t) ? nullptr : data.row(t), out);
    return out;
  }

 private:
  // f(pointers to the components of particles [first, first + count), first, count) per batch.
  template <class F>
  void for_batches(Cloud& cloud, F&& f) {
    std::vector<double*> ptr(static_cast<std::size_t>(d_));
    for (std::uint64_t first = 0; first < n_; first += Kernel::kBatch) {
      const int count = static_cast<int>(std::min<std::uint64_t>(Kernel::kBatch, n_ - first));
      for (int c = 0; c < d_; ++c) ptr[static_cast<std::size_t>(c)] = cloud.component(c) + first;
      f(ptr.data(), first, count);
    }
  }

  // One step; returns the log-likelihood increment.
  double step(int t, const double* y, ReferenceResult& out) {
    const auto step_index = static_cast<std::uint32_t>(t);
    std::vector<const double*> from(static_cast<std::size_t>(d_));
    double top = -std::numeric_limits<double>::infinity();
    for_batches(next_, [&](double* const* to, std::uint64_t first, int count) {
      for (int c = 0; c < d_; ++c) from[static_cast<std::size_t>(c)] = x_.component(c) + first;
      normals_.generate(seed_, rng::Purpose::propagate, step_index, first, count);
      if (d_ > 1) normals_.split(count, Kernel::kBatch);
      k_.propagate(from.data(), to, count, normals_);
      double* l = l_.data() + first;
      if (y == nullptr) {
        for (int i = 0; i < count; ++i) l[i] = 0.0;
      } else {
        k_.log_likelihood(to, y, l, count);
      }
      top = std::max(top, batch_max(l, count));
    });
    std::swap(x_, next_);
    const double total = weigh_and_sum(top, out);
    resample(step_index);
    return top + std::log(total / static_cast<double>(n_));
  }

  static double batch_max(const double* l, int count) {
    double m[8];
    for (double& v : m) v = -std::numeric_limits<double>::infinity();
    int i = 0;
    for (; i + 8 <= count; i += 8)
      for (int j = 0; j < 8; ++j) m[j] = l[i + j] > m[j] ? l[i + j] : m[j];
    for (; i < count; ++i) m[0] = l[i] > m[0] ? l[i] : m[0];
    return *std::max_element(m, m + 8);
  }

  // w = exp(l - top) into l_; cumulative weights into c_; the moments into out. Returns sum w.
  double weigh_and_sum(double top, ReferenceResult& out) {
    double acc[8] = {}, acc2[8] = {};
    double* l = l_.data();
    for (std::uint64_t i = 0; i < n_; ++i) l[i] = math::exp(l[i] - top);
    std::uint64_t i = 0;
    for (; i + 8 <= n_; i += 8)
      for (int j = 0; j < 8; ++j) acc[j] += l[i + j];
    for (; i < n_; ++i) acc[0] += l[i];
    double total = 0.0;
    for (double v : acc) total += v;
    // cumulative sums (a carried chain; four interleaved blocks would hide its latency)
    double run = 0.0;
    for (std::uint64_t q = 0; q < n_; ++q) c_[q] = run += l[q];
    for (int c = 0; c < d_; ++c) {
      const double* x = x_.component(c);
      for (double& v : acc) v = 0.0;
      for (double& v : acc2) v = 0.0;
      std::uint64_t q = 0;
      for (; q + 8 <= n_; q += 8)
        for (int j = 0; j < 8; ++j) {
          const double wx = l[q + j] * x[q + j];
          acc[j] += wx;
          acc2[j] += wx * x[q + j];
        }
      for (; q < n_; ++q) {
        acc[0] += l[q] * x[q];
        acc2[0] += l[q] * x[q] * x[q];
      }
      double s1 = 0.0, s2 = 0.0;
      for (int j = 0; j < 8; ++j) {
        s1 += acc[j];
        s2 += acc2[j];
      }
      const double mean = s1 / total;
      out.mean[static_cast<std::size_t>(c)] = mean;
      out.variance[static_cast<std::size_t>(c)] = std::max(0.0, s2 / total - mean * mean);
    }
    return total;
  }

  // Systematic resampling, point k at (k + U) W / N: particle i gets F_i - F_(i-1) offspring with
  // F_i = floor(C_i N / W + U), clamped to N.
  void resample(std::uint32_t step) {
    const double u = rng::CounterStream(seed_, rng::Purpose::resample, step, 0).uniform();
    const double nd = static_cast<double>(n_), scale = nd / c_[n_ - 1];  // the cumulative sums' own total
    double* f = l_.data();  // the weights are no longer needed: F_i goes there
    for (std::uint64_t i = 0; i < n_; ++i) {
      const double v = floor_small(c_[i] * scale + u);
      f[i] = v < nd ? v : nd;
    }
    f[n_ - 1] = nd;  // every slot filled, whatever the rounding of the last cumulative sum
    for (int c = 0; c < d_; ++c) {
      const double* x = x_.component(c);
      double* o = next_.component(c);
      std::uint64_t at = 0;
      for (std::uint64_t i = 0; i < n_; ++i) {
        const auto to = static_cast<std::uint64_t>(f[i]);
        const double v = x[i];
        if (to - at <= 4) {
          const double four[4] = {v, v, v, v};
          std::memcpy(o + at, four, sizeof four);  // the next particles overwrite the surplus
        } else {
          for (std::uint64_t q = at; q < to; ++q) o[q] = v;
        }
        at = to;
      }
    }
    std::swap(x_, next_);
  }

  Kernel k_;
  std::uint64_t n_, seed_;
  int d_ = 0;
  Cloud x_, next_;
  std::vector<double> l_, c_;
  BatchNormals normals_;
};

}  // namespace reference_detail

// The reference filter of `model` (stochastic volatility, linear Gaussian or Lorenz-96) on `data`,
// `steps` steps, n particles, resampling every step; `seed` selects the draws.
template <class Model>
ReferenceResult reference_filter(const Model& model, const Observations& data, int steps, std::uint64_t n,
                                 std::uint64_t seed) {
  reference_detail::Filter<decltype(reference_detail::kernel_for(model))> filter(reference_detail::kernel_for(model), n,
                                                                                 seed);
  return filter.run(data, steps);
}

}  // namespace rsmc::bench
