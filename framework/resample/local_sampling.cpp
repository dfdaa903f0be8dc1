#include "framework/resample/local_sampling.hpp"

#include <Kokkos_Core.hpp>
#include <string>

#include "framework/core/error.hpp"
#include "kernels/alias/sampling.hpp"
#include "kernels/alias/vose.hpp"
#include "kernels/host/butterfly_table.hpp"
#include "kernels/inverse_cdf/radix_forest.hpp"
#include "kernels/inverse_cdf/upper_bound.hpp"

namespace rsmc {

namespace {

using exact::u128;
using HostExec = Kokkos::DefaultHostExecutionSpace;
template <class T>
using HostView = Kokkos::View<T*, Kokkos::HostSpace>;

// Adds one to counts[index] for every index; an index outside the table is a kernel bug.
void add_histogram(const HostView<std::uint64_t>& index, std::vector<std::uint64_t>& counts, const char* kernel) {
  const std::size_t n = counts.size();
  for (std::size_t k = 0; k < index.extent(0); ++k) {
    if (index(k) >= n)
      throw Error(std::string("internal error: the ") + kernel + " local sampler mapped a point past the last particle");
    ++counts[index(k)];
  }
}

template <class Weight>
void add_counts(LocalSampler sampler, const std::vector<Weight>& weights, const std::vector<u128>& points,
                std::vector<std::uint64_t>& counts) {
  const std::size_t n = weights.size(), m = points.size();
  if (counts.size() != n) throw Error("internal error: offspring counts and weights differ in length");
  if (m == 0) return;
  HostView<std::uint64_t> index(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::local_index"), m);
  const HostView<const u128> point_view(points.data(), m);
  switch (sampler) {
    case LocalSampler::search: {
      // Prefix sums, then one binary search per point.
      HostView<u128> cumulative(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::cumulative"), n);
      u128 run = 0;
      for (std::size_t i = 0; i < n; ++i) cumulative(i) = run += weights[i];
      Kokkos::parallel_for(
          "rsmc::local_search", Kokkos::RangePolicy<HostExec>(0, m), [&](const std::size_t k) {
            index(k) = kernels::upper_bound_index(cumulative.data(), n, point_view(k));
          });
      break;
    }
    case LocalSampler::forest: {
      // The forest takes interval lower bounds: lower(i) = w_0 + .. + w_{i-1}.
      HostView<u128> lower(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::lower"), n);
      u128 run = 0;
      for (std::size_t i = 0; i < n; ++i) {
        lower(i) = run;
        run += weights[i];
      }
      if (n < (std::size_t(1) << 31)) {
        kernels::RadixForest<u128, HostExec, std::uint32_t> forest;
        forest.build(lower, run);
        forest.sample(point_view, index);
      } else {
        kernels::RadixForest<u128, HostExec, std::uint64_t> forest;
        forest.build(lower, run);
        forest.sample(point_view, index);
      }
      HostExec().fence();
      break;
    }
    case LocalSampler::butterfly: {
      // Every lane of the simulated warp holds the same distribution; points go in rounds of W.
      constexpr unsigned W = kernels::butterfly::kCudaWarpWidth;
      if (n > kernels::host::kButterflyMaxK)
        throw Error("--local-sampler butterfly: " + std::to_string(n) +
                    " particles on one rank; the butterfly table takes at most 2^32 - 1");
      const Weight* rows[W];
      for (unsigned r = 0; r < W; ++r) rows[r] = weights.data();
      kernels::host::ButterflyWarpTable<u128, W> table;
      table.build(rows, n);
      u128 lane_points[W];
      std::uint32_t lane_index[W];
      for (std::size_t first = 0; first < m; first += W) {
        for (unsigned r = 0; r < W; ++r) lane_points[r] = first + r < m ? points[first + r] : u128(0);
        table.search(lane_points, lane_index);
        for (unsigned r = 0; r < W && first + r < m; ++r) index(first + r) = lane_index[r];
      }
      break;
    }
    case LocalSampler::alias:
      throw Error("internal error: the alias sampler is not an inverse CDF of the scheme's points");
  }
  add_histogram(index, counts, local_sampler_name(sampler));
}

}  // namespace

void add_inverse_cdf_counts(LocalSampler sampler, const std::vector<std::uint64_t>& weights,
                            const std::vector<u128>& points, std::vector<std::uint64_t>& counts) {
  add_counts(sampler, weights, points, counts);
}

void add_inverse_cdf_counts(LocalSampler sampler, const std::vector<u128>& weights, const std::vector<u128>& points,
                            std::vector<std::uint64_t>& counts) {
  add_counts(sampler, weights, points, counts);
}

void add_alias_counts(const std::vector<std::uint64_t>& weights, std::uint64_t draws, std::uint64_t seed,
                      std::uint32_t step, std::uint64_t first_draw_id, std::vector<std::uint64_t>& counts) {
  if (counts.size() != weights.size()) throw Error("internal error: offspring counts and weights differ in length");
  if (draws == 0) return;  // a rank without offspring may hold only zero weights: no table to build
  const auto table = kernels::alias::build_vose(weights.data(), weights.size());
  HostView<std::uint64_t> drawn("rsmc::alias_counts", weights.size());
  kernels::alias::AliasSampleOptions options;
  options.first_draw_id = first_draw_id;
  kernels::alias::sample_counts(table, draws, seed, step, drawn, options);
  HostExec().fence();
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] += drawn(i);
}

}  // namespace rsmc
