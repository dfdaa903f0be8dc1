// The running sums of one distribution's butterfly column in three data-parallel passes, for the
// engine's butterfly sampler (kernels/butterfly/shared_column.hpp; on a device butterfly_lookup_points
// in kernels/cuda/butterfly.cu).
//
// What: the column of K weights holds, besides each block's group sums, the remnant's prefix sums
// (cells 0..R-1, R = K mod W) and every block's running total through its end (cell R + bW + W - 1
// of block b). The blocks' own totals come from the parallel cell pass; these functions turn them
// into the running totals. Walking every block in
// order is one warp doing K / W dependent steps (about 3 x 10^5 at K = 10^7); cut into chunks of
// kRunningChunkBlocks blocks, it is
//   1. each chunk's total (one warp per chunk),
//   2. the remnant's prefix sums and each chunk's offset, the sum of what precedes it (one warp,
//      K / (W kRunningChunkBlocks) steps),
//   3. each chunk's running totals from its offset (one warp per chunk).
// Why only for integer accumulators: the grouping of the sums changes, and integer addition gives the
// same bits for any grouping (the sums of u64 weights in u128 are exact). A floating-point table
// (butterfly_inverse_cdf) keeps the sequential walk, whose order its host twin reproduces.
//
// block_totals holds one entry per block, chunk_sums one per chunk. RSMC_HOST_DEVICE, so that the
// host twin runs the device's passes one chunk at a time (tests/unit/test_butterfly.cpp).
#pragma once

#include <cstddef>
#include <type_traits>

#include "base/core/portability.hpp"
#include "kernels/butterfly/butterfly_common.hpp"

namespace rsmc::kernels::butterfly {

// Blocks per chunk: a chunk's pass reads 4 KiB of block totals at u128, and the
// serial pass 2 takes 1 step per 8,192 weights.
constexpr std::size_t kRunningChunkBlocks = 256;

// The number of chunks of a table of K weights (0 when K < W: no blocks, only the remnant).
RSMC_HOST_DEVICE std::size_t running_chunks(std::size_t k) {
  return (k / kCudaWarpWidth + kRunningChunkBlocks - 1) / kRunningChunkBlocks;
}

namespace running_detail {
// u128 (unsigned __int128) is not std::is_integral under strict -std=c++17.
template <class Acc>
constexpr bool integer = std::is_integral<Acc>::value || std::is_same<Acc, u128>::value;

RSMC_HOST_DEVICE std::size_t chunk_end(std::size_t k, std::size_t chunk) {
  const std::size_t blocks = k / kCudaWarpWidth, end = (chunk + 1) * kRunningChunkBlocks;
  return end < blocks ? end : blocks;
}
}  // namespace running_detail

// Pass 1, chunk `chunk`: the sum of its blocks' totals, into chunk_sums[chunk].
template <class Acc>
RSMC_HOST_DEVICE void running_chunk_total(const Acc* block_totals, std::size_t k, std::size_t chunk, Acc* chunk_sums) {
  static_assert(running_detail::integer<Acc>, "integer accumulators only: the passes regroup the sums");
  Acc sum = Acc(0);
  for (std::size_t b = chunk * kRunningChunkBlocks; b < running_detail::chunk_end(k, chunk); ++b)
    sum += block_totals[b];
  chunk_sums[chunk] = sum;
}

// Pass 2, every chunk at once: the remnant's prefix sums into cells 0..R-1, then each chunk's total
// in chunk_sums replaced by its offset (the remnant's sum plus the totals of the chunks before).
template <class Weight, class Acc>
RSMC_HOST_DEVICE void running_chunk_offsets(const Weight* weights, std::size_t k, Acc* table, Acc* chunk_sums) {
  static_assert(running_detail::integer<Acc>, "integer accumulators only: the passes regroup the sums");
  Acc sum = Acc(0);
  for (std::size_t j = 0; j < k % kCudaWarpWidth; ++j) {
    sum += static_cast<Acc>(weights[j]);
    table[j] = sum;
  }
  for (std::size_t c = 0; c < running_chunks(k); ++c) {
    const Acc total = chunk_sums[c];
    chunk_sums[c] = sum;
    sum += total;
  }
}

// Pass 3, chunk `chunk`: the running totals of its blocks (the last cell of each), from its offset.
template <class Acc>
RSMC_HOST_DEVICE void running_chunk_sums(const Acc* block_totals, std::size_t k, std::size_t chunk,
                                         const Acc* chunk_sums, Acc* table) {
  static_assert(running_detail::integer<Acc>, "integer accumulators only: the passes regroup the sums");
  constexpr std::size_t W = kCudaWarpWidth;
  const std::size_t rem = k % W;
  Acc sum = chunk_sums[chunk];
  for (std::size_t b = chunk * kRunningChunkBlocks; b < running_detail::chunk_end(k, chunk); ++b) {
    sum += block_totals[b];
    table[rem + b * W + W - 1] = sum;
  }
}

}  // namespace rsmc::kernels::butterfly
