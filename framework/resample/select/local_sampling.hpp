// Offspring counts of this rank's particles from its share of a resampling, with one of the local
// kernels of --local-sampler (framework/resample/select/local_sampler.hpp).
//
// Inverse CDF (search, forest, butterfly): the rank's sample points, given as offsets from the start
// of its slice of the exact wheel, each go to the particle whose interval [w_0 + .. + w_{i-1},
// w_0 + .. + w_i) holds it. All three kernels compute exactly this map on integer weights, so the
// counts are identical whichever is chosen. The kernel's table is built once from the weights; the
// points are then streamed through it as the scheme generates them (no array of points), so the
// work is O(local particles) to build plus the kernel's cost per point.
//
// Alias: `draws` ancestors drawn i.i.d. with probability w_i / sum(w) from a Vose alias table of the
// weights, draw d with the stream (seed, resample, step, first_draw_id + d) (kernels/alias).
//
// Both run on the host (Kokkos::DefaultHostExecutionSpace): the selection works on host copies of
// the fixed-point weights.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "base/exact/uint128.hpp"
#include "framework/resample/select/local_sampler.hpp"
#include "kernels/butterfly/shared_column.hpp"
#include "kernels/host/butterfly_table.hpp"
#include "kernels/inverse_cdf/radix_forest.hpp"

namespace rsmc {

namespace local_sampling_detail {

using HostExec = Kokkos::DefaultHostExecutionSpace;

[[noreturn]] inline void past_the_end(LocalSampler sampler) {
  throw Error(std::string("internal error: the ") + local_sampler_name(sampler) +
              " local sampler mapped a point past the last particle");
}

// lower(i) = w_0 + .. + w_{i-1} (interval lower bounds, the forest's input); returns the total.
template <class Weight>
exact::u128 lower_bounds(const std::vector<Weight>& w, Kokkos::View<exact::u128*, Kokkos::HostSpace>& lower) {
  lower = Kokkos::View<exact::u128*, Kokkos::HostSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::lower"),
                                                        w.size());
  exact::u128 run = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    lower(i) = run;
    run += w[i];
  }
  return run;
}

template <class Ref, class Weight, class Generate>
void forest_counts(const std::vector<Weight>& w, Generate&& generate, std::vector<std::uint64_t>& counts) {
  Kokkos::View<exact::u128*, Kokkos::HostSpace> lower;
  const exact::u128 total = lower_bounds(w, lower);
  if (total == 0) {  // a rank without weight holds no points, and a forest needs a positive total
    generate([](exact::u128) { past_the_end(LocalSampler::forest); });
    return;
  }
  kernels::RadixForest<exact::u128, HostExec, Ref> forest;
  forest.build(lower, total);
  const auto search = forest.sampler();
  const std::size_t n = w.size();
  generate([&](exact::u128 point) {
    const std::uint64_t i = search.index(point);
    if (i >= n) past_the_end(LocalSampler::forest);
    ++counts[i];
  });
}

}  // namespace local_sampling_detail

// counts[i] += the number of points in particle i's interval, for the points that
// generate(emit) passes to emit(point) (offsets from the slice start, each below the sum of the
// weights). Weights: std::uint64_t fixed-point weights, or exact::u128 (the residual wheel).
// `sampler` must be search, forest or butterfly.
template <class Weight, class Generate>
void add_inverse_cdf_counts(LocalSampler sampler, const std::vector<Weight>& w, Generate&& generate,
                            std::vector<std::uint64_t>& counts) {
  using exact::u128;
  const std::size_t n = w.size();
  if (counts.size() != n) throw Error("internal error: offspring counts and weights differ in length");
  switch (sampler) {
    case LocalSampler::search: {
      // The points arrive sorted, so the search for each one starts at the previous point's
      // ancestor, and with every point visited it is a merge walk against the running prefix sum:
      // the first i with w_0 + .. + w_i > point, as a binary search on the prefix sums would find,
      // in O(n + m) with no array of prefix sums (16 bytes per particle not written or read).
      std::size_t i = 0;
      u128 cumulative = n > 0 ? u128(w[0]) : u128(0);
      generate([&](u128 point) {
        while (cumulative <= point) {
          if (++i >= n) local_sampling_detail::past_the_end(sampler);
          cumulative += w[i];
        }
        ++counts[i];
      });
      return;
    }
    case LocalSampler::forest:
      if (n < (std::size_t(1) << 31))
        local_sampling_detail::forest_counts<std::uint32_t>(w, generate, counts);
      else
        local_sampling_detail::forest_counts<std::uint64_t>(w, generate, counts);
      return;
    case LocalSampler::butterfly: {  // every lane draws from the same distribution: one shared column
      if (n > kernels::host::kButterflyMaxK)
        throw FieldError("local_sampler", "butterfly",
                         FieldError::Template{"{local_sampler butterfly}: " + std::to_string(n) +
                                              " particles on one rank; the butterfly table takes at most 2^32 - 1"},
                         "at most 2^32 - 1 particles per rank");
      kernels::butterfly::ButterflyColumn<u128> table;
      table.build(w.data(), n);
      generate([&](u128 point) {
        const std::uint32_t index = table.search(point);
        if (index >= n) local_sampling_detail::past_the_end(sampler);
        ++counts[index];
      });
      return;
    }
    case LocalSampler::alias:
      break;
  }
  throw Error("internal error: the alias sampler is not an inverse CDF of the scheme's points");
}

// counts[i] += the number of the `draws` alias draws that chose particle i.
void add_alias_counts(const std::vector<std::uint64_t>& weights, std::uint64_t draws, std::uint64_t seed,
                      std::uint32_t step, std::uint64_t first_draw_id, std::vector<std::uint64_t>& counts);

}  // namespace rsmc
