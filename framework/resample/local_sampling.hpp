// Offspring counts of this rank's particles from its share of a resampling, with one of the local
// kernels of --local-sampler (framework/resample/local_sampler.hpp).
//
// Inverse CDF (search, forest, butterfly): the rank's sample points, given as offsets from the start
// of its slice of the exact wheel, each go to the particle whose interval [w_0 + .. + w_{i-1},
// w_0 + .. + w_i) holds it. All three kernels compute exactly this map on integer weights, so the
// counts are identical whichever is chosen.
//
// Alias: `draws` ancestors drawn i.i.d. with probability w_i / sum(w) from a Vose alias table of the
// weights, draw d with the stream (seed, resample, step, first_draw_id + d) (kernels/alias).
//
// Both run on the host (Kokkos::DefaultHostExecutionSpace): the selection works on host copies of
// the fixed-point weights.
#pragma once

#include <cstdint>
#include <vector>

#include "framework/exact/uint128.hpp"
#include "framework/resample/local_sampler.hpp"

namespace rsmc {

// counts[i] += the number of `points` in particle i's interval. Weights: std::uint64_t fixed-point
// weights, or exact::u128 (the residual wheel). `sampler` must be search, forest or butterfly; every
// point must lie below the sum of the weights.
void add_inverse_cdf_counts(LocalSampler sampler, const std::vector<std::uint64_t>& weights,
                            const std::vector<exact::u128>& points, std::vector<std::uint64_t>& counts);
void add_inverse_cdf_counts(LocalSampler sampler, const std::vector<exact::u128>& weights,
                            const std::vector<exact::u128>& points, std::vector<std::uint64_t>& counts);

// counts[i] += the number of the `draws` alias draws that chose particle i.
void add_alias_counts(const std::vector<std::uint64_t>& weights, std::uint64_t draws, std::uint64_t seed,
                      std::uint32_t step, std::uint64_t first_draw_id, std::vector<std::uint64_t>& counts);

}  // namespace rsmc
