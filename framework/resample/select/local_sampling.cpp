#include "framework/resample/select/local_sampling.hpp"

#include "kernels/alias/sampling.hpp"
#include "kernels/alias/vose.hpp"

namespace rsmc {

void add_alias_counts(const std::vector<std::uint64_t>& weights, std::uint64_t draws, std::uint64_t seed,
                      std::uint32_t step, std::uint64_t first_draw_id, std::vector<std::uint64_t>& counts) {
  if (counts.size() != weights.size()) throw Error("internal error: offspring counts and weights differ in length");
  if (draws == 0) return;  // a rank without offspring may hold only zero weights: no table to build
  const auto table = kernels::alias::build_vose(weights.data(), weights.size());
  Kokkos::View<std::uint64_t*, Kokkos::HostSpace> drawn("rsmc::alias_counts", weights.size());
  kernels::alias::AliasSampleOptions options;
  options.first_draw_id = first_draw_id;
  kernels::alias::sample_counts(table, draws, seed, step, drawn, options);
  Kokkos::DefaultHostExecutionSpace().fence();
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] += drawn(i);
}

}  // namespace rsmc
