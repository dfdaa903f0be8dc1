// Host twins of the two CUDA butterfly launchers (kernels/cuda/butterfly.hpp), same semantics and,
// with W = 32, the same bits:
//   - butterfly_categorical[_stream]: one draw per particle from its own K-way distribution (row p of a
//     row-major particles x K weight matrix), particles taken in warp-sized groups of W;
//   - butterfly_inverse_cdf: the butterfly table of ONE distribution (every lane of the warp holds the
//     same row) used as an inverse-CDF table, searched for many uniforms, W per round.
// Edge rules (kernels/butterfly/butterfly_common.hpp): the result is the smallest j with u' < p_j, u'
// clamped into [0, total); K (the sentinel) for a row without positive total. Integer weights give
// exactly the sequential index (host::sequential_categorical).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/rng/stream.hpp"
#include "kernels/host/butterfly_table.hpp"

namespace rsmc::kernels::host {

// One warp-sized group of a batched draw: particles group*W .. group*W + W - 1 (rows at and past
// `particles` are padded lanes and are not written). Row p starts at weights + p * row_stride;
// uniform(p) gives particle p's uniform. `table` is reusable scratch.
template <class Acc, unsigned W, class Weight, class Uniform>
void butterfly_categorical_group(ButterflyWarpTable<Acc, W>& table, const Weight* weights, std::size_t row_stride,
                                 std::size_t particles, std::size_t k, std::size_t group, Uniform&& uniform,
                                 std::uint32_t* out) {
  const Weight* rows[W];
  double u[W];
  std::uint32_t index[W];
  const std::size_t first = group * W;
  for (unsigned r = 0; r < W; ++r) {
    const bool valid = first + r < particles;
    rows[r] = valid ? weights + (first + r) * row_stride : nullptr;
    u[r] = valid ? static_cast<double>(uniform(first + r)) : 0.0;
  }
  table.build(rows, k);
  table.draw(u, index);
  for (unsigned r = 0; r < W && first + r < particles; ++r) out[first + r] = index[r];
}

// out[p] = the index drawn from row p (K weights at weights + p * K) with uniform uniforms[p].
template <class Weight, class Acc = butterfly::accumulator_t<Weight>, unsigned W = butterfly::kCudaWarpWidth>
void butterfly_categorical(const Weight* weights, std::size_t particles, std::size_t k, const double* uniforms,
                           std::uint32_t* out) {
  check_butterfly_k(k, "butterfly_categorical");
  ButterflyWarpTable<Acc, W> table;
  const std::size_t groups = (particles + W - 1) / W;
  for (std::size_t g = 0; g < groups; ++g)
    butterfly_categorical_group(
        table, weights, k, particles, k, g, [uniforms](std::size_t p) { return uniforms[p]; }, out);
}

// As butterfly_categorical, with particle p's uniform the first uniform() of the stream
// rng::Stream(seed, rng::Purpose::model, step, first_id + p) (first_id: the global id of row 0).
template <class Weight, class Acc = butterfly::accumulator_t<Weight>, unsigned W = butterfly::kCudaWarpWidth>
void butterfly_categorical_stream(const Weight* weights, std::size_t particles, std::size_t k, std::uint64_t seed,
                                  std::uint32_t step, std::uint64_t first_id, std::uint32_t* out) {
  check_butterfly_k(k, "butterfly_categorical_stream");
  ButterflyWarpTable<Acc, W> table;
  const std::size_t groups = (particles + W - 1) / W;
  for (std::size_t g = 0; g < groups; ++g)
    butterfly_categorical_group(
        table, weights, k, particles, k, g,
        [&](std::size_t p) { return rng::Stream(seed, rng::Purpose::model, step, first_id + p).uniform(); }, out);
}

// out[i] = the index drawn from the one distribution weights[0..K-1] with uniform uniforms[i], for
// i < count: the table is built once (every lane's distribution is the same row) and searched in rounds
// of W uniforms (lane r of round q takes uniform q*W + r; the padding of the last round draws u = 0 and
// is not written).
template <class Weight, class Acc = butterfly::accumulator_t<Weight>, unsigned W = butterfly::kCudaWarpWidth>
void butterfly_inverse_cdf(const Weight* weights, std::size_t k, const double* uniforms, std::size_t count,
                           std::uint32_t* out) {
  check_butterfly_k(k, "butterfly_inverse_cdf");
  const Weight* rows[W];
  for (unsigned r = 0; r < W; ++r) rows[r] = weights;
  ButterflyWarpTable<Acc, W> table;
  table.build(rows, k);
  double u[W];
  std::uint32_t index[W];
  for (std::size_t first = 0; first < count; first += W) {
    for (unsigned r = 0; r < W; ++r) u[r] = first + r < count ? uniforms[first + r] : 0.0;
    table.draw(u, index);
    for (unsigned r = 0; r < W && first + r < count; ++r) out[first + r] = index[r];
  }
}

}  // namespace rsmc::kernels::host
