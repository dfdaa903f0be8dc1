// Host twin of kernels/cuda/systematic_search.cu: the same arithmetic, one loop, no GPU.
// The CUDA tests compare the two bit for bit; CPU-only builds and tests use this one.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/inverse_cdf/upper_bound.hpp"
#include "base/rng/stream.hpp"

namespace rsmc::kernels::host {

// ancestors[k] = systematic ancestor of offspring first + k, for k < count.
inline void systematic_search(const double* cumulative, std::size_t n, std::size_t last_positive, double uniform,
                              std::size_t first, std::size_t count, std::size_t total, std::uint64_t* ancestors) {
  for (std::size_t k = 0; k < count; ++k)
    ancestors[k] = systematic_ancestor(cumulative, n, last_positive, uniform, first + k, total);
}

// out[k] = the first uniform of the stream (seed, purpose, step, first_id + k).
inline void first_uniforms(std::uint64_t seed, rng::Purpose purpose, std::uint32_t step, std::uint64_t first_id,
                           std::size_t count, double* out) {
  for (std::size_t k = 0; k < count; ++k) out[k] = rng::Stream(seed, purpose, step, first_id + k).uniform();
}

}  // namespace rsmc::kernels::host
