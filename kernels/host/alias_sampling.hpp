// Host twins of kernels/cuda/alias.cu's sectioned sampling (and of kernels/alias/sampling.hpp's
// sectioned and baseline batches): the same streams, the same section counts, the same draws, as plain
// loops. No Kokkos.
#pragma once

#include <cstdint>

#include "kernels/alias/alias_core.hpp"

namespace rsmc::kernels::host {

// out[s] = draws of section s, s < section_count_of(rows, section_rows) (twin of cuda::alias_section_counts).
inline void alias_section_counts(std::uint64_t rows, std::uint64_t section_rows, std::uint64_t total_draws,
                                 std::uint64_t seed, std::uint32_t step, std::uint64_t* out) {
  const std::uint64_t S = alias::section_count_of(rows, section_rows);
  for (std::uint64_t s = 0; s < S; ++s) out[s] = alias::section_draws(seed, step, total_draws, rows, section_rows, s);
}

namespace alias_sampling_detail {

// Calls sink(item, position) for every draw of a sectioned batch, section by section.
template <class Weight, class Sink>
void sectioned(const alias::AliasRow<Weight>* rows, std::uint64_t n, alias::alias_value_t<Weight> capacity,
               std::uint64_t total_draws, std::uint64_t seed, std::uint32_t step, std::uint64_t section_rows,
               std::uint64_t first_draw_id, Sink&& sink) {
  const std::uint64_t S = alias::section_count_of(n, section_rows);
  std::uint64_t offset = 0;
  for (std::uint64_t s = 0; s < S; ++s) {
    const std::uint64_t count = alias::section_draws(seed, step, total_draws, n, section_rows, s);
    const std::uint64_t first_row = s * section_rows;
    const std::uint64_t len = n - first_row < section_rows ? n - first_row : section_rows;
    for (std::uint64_t k = 0; k < count; ++k)
      sink(alias::sectioned_draw<Weight>(rows + first_row, first_row, len, capacity, seed, step,
                                         first_draw_id + offset + k),
           offset + k);
    offset += count;
  }
}

}  // namespace alias_sampling_detail

// counts[i] = sectioned draws of item i (overwritten; n entries).
template <class Weight>
void alias_sample_sectioned_counts(const alias::AliasRow<Weight>* rows, std::uint64_t n,
                                   alias::alias_value_t<Weight> capacity, std::uint64_t total_draws, std::uint64_t seed,
                                   std::uint32_t step, std::uint64_t section_rows, std::uint64_t first_draw_id,
                                   std::uint64_t* counts) {
  for (std::uint64_t i = 0; i < n; ++i) counts[i] = 0;
  alias_sampling_detail::sectioned<Weight>(rows, n, capacity, total_draws, seed, step, section_rows, first_draw_id,
                                           [&](std::uint64_t item, std::uint64_t) { ++counts[item]; });
}

// draws[offset_s + k] = item of draw k of section s (total_draws entries).
template <class Weight>
void alias_sample_sectioned_draws(const alias::AliasRow<Weight>* rows, std::uint64_t n,
                                  alias::alias_value_t<Weight> capacity, std::uint64_t total_draws, std::uint64_t seed,
                                  std::uint32_t step, std::uint64_t section_rows, std::uint64_t first_draw_id,
                                  std::uint64_t* draws) {
  alias_sampling_detail::sectioned<Weight>(rows, n, capacity, total_draws, seed, step, section_rows, first_draw_id,
                                           [&](std::uint64_t item, std::uint64_t pos) { draws[pos] = item; });
}

// draws[d] = item of baseline draw d (stream id first_draw_id + d).
template <class Weight>
void alias_sample_baseline_draws(const alias::AliasRow<Weight>* rows, std::uint64_t n,
                                 alias::alias_value_t<Weight> capacity, std::uint64_t total_draws, std::uint64_t seed,
                                 std::uint32_t step, std::uint64_t first_draw_id, std::uint64_t* draws) {
  for (std::uint64_t d = 0; d < total_draws; ++d)
    draws[d] = alias::baseline_draw<Weight>(rows, n, capacity, seed, step, first_draw_id + d);
}

}  // namespace rsmc::kernels::host
