// Native CUDA butterfly-patterned partial-sums sampler (Steele & Tristan, "Using butterfly-patterned
// partial sums to draw from discrete distributions", PPoPP 2017): host-callable launchers, pointers are DEVICE
// pointers. This header needs no CUDA headers, so host-compiled code can call them; the kernels live in butterfly.cu.
//
// Host twins with the same semantics and bits: kernels/host/butterfly_sampling.hpp (W = 32). Edge rules
// (kernels/butterfly/butterfly_common.hpp): the result is the smallest j with u' < p_j for the point
// u' = butterfly::scaled_point(u, total) clamped into [0, total); a zero weight is never drawn; a row
// without positive total gives the sentinel K. Integer weights give exactly the sequential index.
//
// Supported (Weight, Acc) pairs, each explicitly instantiated in butterfly.cu:
//   (float, float), (float, double), (double, double), (std::uint64_t, std::uint64_t),
//   (std::uint64_t, u128) — the default accumulator is butterfly::accumulator_t<Weight>.
// K must be in 1 .. 2^32 - 1. Errors (bad K, CUDA failures) throw rsmc::Error. Every launcher
// synchronises the device before returning.
//
// butterfly_lookup_points, the engine's local sampler on Kokkos::Cuda, is the exception: it runs on
// the caller's stream, in the caller's buffers, and does not synchronise.
//
// Memory: butterfly_categorical keeps a 32 x K table per resident warp in a device workspace it
// allocates (at most ~512 MiB, or one warp's table when that alone is larger); butterfly_inverse_cdf
// allocates one 32 x K table (+ K accumulators) for the distribution; butterfly_lookup_points works in
// the caller's buffers, one shared column of K cells (16 bytes each) and its running sums.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/butterfly/butterfly_common.hpp"
#include "kernels/butterfly/running_sums.hpp"
#include "kernels/butterfly/shared_column.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st*: no CUDA header needed here

namespace rsmc::kernels::cuda {

namespace butterfly_detail {

template <class Weight, class Acc>
struct supported
    : std::integral_constant<bool, (std::is_same<Weight, float>::value &&
                                    (std::is_same<Acc, float>::value || std::is_same<Acc, double>::value)) ||
                                       (std::is_same<Weight, double>::value && std::is_same<Acc, double>::value) ||
                                       (std::is_same<Weight, std::uint64_t>::value &&
                                        (std::is_same<Acc, std::uint64_t>::value ||
                                         std::is_same<Acc, butterfly::u128>::value))> {};

template <class Weight, class Acc>
void categorical(const Weight* weights, std::size_t particles, std::size_t k, const double* uniforms, bool from_stream,
                 std::uint64_t seed, std::uint32_t step, std::uint64_t first_id, std::uint32_t* out);

template <class Weight, class Acc>
void inverse_cdf(const Weight* weights, std::size_t k, const double* uniforms, std::size_t count, std::uint32_t* out);

}  // namespace butterfly_detail

// Batched categorical: out[p] = the index drawn from row p of the row-major particles x K matrix
// `weights` with the uniform uniforms[p] in [0, 1). One warp per 32 particles; the rows are read with
// the transposed (coalesced) access of the paper.
template <class Weight, class Acc = butterfly::accumulator_t<Weight>>
void butterfly_categorical(const Weight* weights, std::size_t particles, std::size_t k, const double* uniforms,
                           std::uint32_t* out) {
  static_assert(butterfly_detail::supported<Weight, Acc>::value, "unsupported (Weight, Acc) pair; see butterfly.hpp");
  butterfly_detail::categorical<Weight, Acc>(weights, particles, k, uniforms, false, 0, 0, 0, out);
}

// As butterfly_categorical, with particle p's uniform drawn on the device: the first uniform() of
// rng::Stream(seed, rng::Purpose::model, step, first_id + p) (first_id: the global id of row 0).
template <class Weight, class Acc = butterfly::accumulator_t<Weight>>
void butterfly_categorical_stream(const Weight* weights, std::size_t particles, std::size_t k, std::uint64_t seed,
                                  std::uint32_t step, std::uint64_t first_id, std::uint32_t* out) {
  static_assert(butterfly_detail::supported<Weight, Acc>::value, "unsupported (Weight, Acc) pair; see butterfly.hpp");
  butterfly_detail::categorical<Weight, Acc>(weights, particles, k, nullptr, true, seed, step, first_id, out);
}

// The butterfly table of ONE distribution weights[0..K-1] as an inverse-CDF table: out[i] = the index
// drawn with uniforms[i], i < count. The table is built once (every lane's distribution is the same row;
// blocks in parallel, then the running sums), then every warp searches it for 32 uniforms per round.
template <class Weight, class Acc = butterfly::accumulator_t<Weight>>
void butterfly_inverse_cdf(const Weight* weights, std::size_t k, const double* uniforms, std::size_t count,
                           std::uint32_t* out) {
  static_assert(butterfly_detail::supported<Weight, Acc>::value, "unsupported (Weight, Acc) pair; see butterfly.hpp");
  butterfly_detail::inverse_cdf<Weight, Acc>(weights, k, uniforms, count, out);
}

// Device buffer sizes (u128 entries) of butterfly_lookup_points for K weights: the shared column (K
// cells), and the block totals followed by the chunks' sums of the running-sum passes
// (kernels/butterfly/shared_column.hpp, running_sums.hpp): about 16.5 bytes per weight in all.
inline std::size_t butterfly_table_entries(std::size_t k) { return butterfly::column_table_cells(k); }
inline std::size_t butterfly_block_total_entries(std::size_t k) { return butterfly::column_total_cells(k); }
// What the lane table (one column per lane, 32 x K cells, and 32 block totals per block) took before
// the column was shared: the bytes butterfly_inverse_cdf still allocates for its table.
inline std::size_t butterfly_lane_table_entries(std::size_t k) {
  return (k + k / butterfly::kCudaWarpWidth + butterfly::running_chunks(k)) * butterfly::kCudaWarpWidth;
}

// The engine's butterfly sampler (framework/resample/select/parallel_selection.hpp, on Kokkos::Cuda):
// the shared column of one distribution of exact integer weights (std::uint64_t fixed-point weights or
// u128 residuals; 128-bit sums), then out[i] = the smallest j with points[i] < w_0 + ... + w_j,
// i < count, for exact points in [0, total): the particle whose interval of the wheel holds the
// point, so the same ancestors as every other local sampler. A point at or past the total is
// clamped to the last positive weight (as the host twin, butterfly::ButterflyColumn, does); a
// distribution without weight sets `past_the_end` in *error (atomicOr) and writes 0. `table` and
// `block_totals` are device buffers of the sizes above, kept by the caller between calls; all work is
// enqueued on `stream`, in order after what the caller enqueued there, and nothing waits for it.
template <class Weight>
void butterfly_lookup_points(const Weight* weights, std::size_t k, const butterfly::u128* points, std::size_t count,
                             std::uint64_t* out, butterfly::u128* table, butterfly::u128* block_totals, int* error,
                             int past_the_end, CUstream_st* stream);

}  // namespace rsmc::kernels::cuda
