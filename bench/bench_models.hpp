// The models the end-to-end and memory benchmarks run, by benchmark name: the linear Gaussian demo
// model (d = 2), stochastic volatility (d = 1) and Lorenz-96 at d = 40 and d = 400, each with its
// default parameters. with_bench_model(name, f) calls f(model) with the concrete model type.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "models/linear_gaussian.hpp"
#include "models/lorenz96.hpp"
#include "models/stochastic_volatility.hpp"

namespace rsmc::bench {

inline const std::vector<std::string>& bench_model_names() {
  static const std::vector<std::string> names{"linear_gaussian", "stochastic_volatility", "lorenz96-40",
                                              "lorenz96-400"};
  return names;
}

// Bytes a filter run of n particles with d state doubles needs at its peak, generously: two state
// buffers (framework: state and scratch; hand-written: x and next) plus ~100 bytes per particle of
// weights and resampling buffers. Configurations above the memory available are skipped.
inline double estimated_filter_bytes(std::uint64_t n, int d) { return static_cast<double>(n) * (16.0 * d + 100.0); }

template <class F>
void with_bench_model(const std::string& name, F&& f) {
  if (name == "linear_gaussian") {
    f(models::LinearGaussian(models::LinearGaussianParams::default_2d()));
  } else if (name == "stochastic_volatility") {
    f(models::StochasticVolatility(models::StochasticVolatilityParams{}));
  } else if (name == "lorenz96-40" || name == "lorenz96-400") {
    models::Lorenz96Params p;
    p.d = name == "lorenz96-40" ? 40 : 400;
    f(models::Lorenz96(p));
  } else {
    throw Error("--models: unknown model '" + name +
                "'; expected linear_gaussian, stochastic_volatility, lorenz96-40 or lorenz96-400");
  }
}

}  // namespace rsmc::bench
