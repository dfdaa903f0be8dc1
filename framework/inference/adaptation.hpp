// Adaptive Metropolis on a fixed schedule (Haario, Saksman & Tamminen, "An adaptive Metropolis
// algorithm", Bernoulli 2001), optionally shrunk towards the initial proposal covariance.
//
// What: the chain's unconstrained states phi_0 (the initial point), phi_1, ..., phi_n are accumulated
// with Welford's updates (running mean and co-moment matrix M = sum (phi - mean)(phi - mean)', in a
// fixed order). After iteration n, when n >= start, (n - start) % interval == 0 and n <= stop, the
// proposal covariance becomes
//
//   Sigma_n = (w0 Sigma_0 + m s_d C_m) / (w0 + m) + s_d eps I,   s_d = scale^2 / d,  C_m = M / (m - 1)
//
// with m = n + 1 states accumulated, Sigma_0 the initial proposal covariance, w0 = initial_weight
// (0: Haario et al.'s C_t = s_d Cov + s_d eps I exactly) and eps = regularisation. If Sigma_n is
// numerically not positive definite the old covariance stays and the failure is counted.
//
// Why a fixed schedule: the update points depend only on n, never on timing or on how far the chain
// got, and every update is host arithmetic in a fixed order, so the chain remains a pure function
// of (seed, chain) and a restart from a checkpoint (which stores the accumulators bit for bit)
// continues identically. s_d = 2.38^2 / d is Gelman, Roberts & Gilks' optimal scaling for Gaussian
// targets ("Efficient Metropolis jumping rules", 1996).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace rsmc::inference {

struct AdaptationOptions {
  bool enabled = true;
  std::uint64_t start = 200;    // first update after this iteration (>= 2: a covariance needs 2 states)
  std::uint64_t interval = 50;  // then every `interval` iterations (>= 1)
  // no update after this iteration
  std::uint64_t stop = std::numeric_limits<std::uint64_t>::max();
  double scale = 2.38;            // s_d = scale^2 / d
  double regularisation = 1e-10;  // eps, added as s_d eps I (unconstrained units squared)
  double initial_weight = 0.0;    // w0: pseudo-states of the initial covariance

  // Throws rsmc::Error naming the option ("adaptation.interval = 0; expected an integer >= 1").
  void validate() const;
  // Whether the proposal covariance is updated after iteration `iteration`.
  bool due(std::uint64_t iteration) const;
};

struct AdaptationAccumulator {
  std::uint64_t count = 0;       // states added
  std::vector<double> mean;      // d
  std::vector<double> comoment;  // d x d, row-major, exactly symmetric

  void reset(int d);
  // Welford: delta = phi - mean_old; mean += delta / count; M += delta (phi - mean_new)' (the lower
  // triangle is computed, the upper mirrors it).
  void add(const double* phi);
  int dimension() const { return static_cast<int>(mean.size()); }
};

// Sigma_n above, from the accumulator (count >= 2) and the initial covariance (d x d).
std::vector<double> adapted_covariance(const AdaptationOptions& options, const AdaptationAccumulator& acc,
                                       const std::vector<double>& initial_covariance);

}  // namespace rsmc::inference
