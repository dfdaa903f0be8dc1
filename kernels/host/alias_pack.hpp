// Host twins of the list-based alias table construction that kernels/cuda/alias.cu's chunked pack
// consumes: PSA's partition into light and heavy lists, their prefix sums and the split as plain loops,
// and the pack of every section (twin of the CUDA pack). Same items, same decisions, same arithmetic
// as the CUDA code, so the tables agree bit for bit; the CUDA tests use these. For std::uint64_t
// weights the table is Vose's, the same bits as kernels/alias/psa.hpp's exact PSA. No Kokkos.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/alias/alias_core.hpp"

namespace rsmc::kernels::host {

// Everything the pack needs: the light and heavy items with their prefix sums, the shape, and the
// co-rank of every section boundary (split_lights[k], k = 0..sections).
template <class Weight>
struct AliasSplit {
  std::vector<alias::LightItem<Weight>> lights;
  std::vector<alias::HeavyItem<Weight>> heavies;
  std::vector<std::uint64_t> split_lights;
  alias::PackShape<Weight> shape{};
  std::uint64_t sections = 0;
  alias::AliasTotals<Weight> totals{};
  std::uint64_t n = 0;
};

// Partition (lights and heavies in item order), prefix sums and split of w[0..n) into sections of
// `section_items` merged items (binary search per boundary). Throws rsmc::Error on invalid weights.
template <class Weight>
AliasSplit<Weight> alias_split(const Weight* w, std::uint64_t n, std::uint64_t section_items) {
  using V = alias::alias_value_t<Weight>;
  using Traits = alias::AliasTraits<Weight>;
  if (section_items == 0) throw Error("alias split: section_items = 0; expected at least 1");
  AliasSplit<Weight> out;
  out.n = n;
  out.totals = alias::alias_totals(w, n);
  const V cap = out.totals.capacity;
  for (std::uint64_t i = 0; i < n; ++i) {
    const V v = Traits::scaled(w[i], n);
    if (v < cap)
      out.lights.push_back(alias::LightItem<Weight>{v, V(0), i});
    else
      out.heavies.push_back(alias::HeavyItem<Weight>{v, i});
  }
  V acc = 0;
  for (auto& x : out.lights) {
    const V d = cap - x.weight;
    x.before = acc;
    acc += d;
  }
  out.shape.capacity = cap;
  out.shape.deficit_total = acc;
  acc = 0;
  for (auto& y : out.heavies) {
    acc += y.through - cap;
    y.through = acc;
  }
  const std::uint64_t nl = out.lights.size(), nh = out.heavies.size(), merged = nl + nh;
  out.shape.lights = nl;
  out.shape.heavies = nh;
  out.shape.last_heavy_index = nh > 0 ? out.heavies.back().index : 0;
  out.sections = merged == 0 ? 0 : (merged + section_items - 1) / section_items;
  out.split_lights.resize(out.sections + 1);
  for (std::uint64_t k = 0; k <= out.sections; ++k) {
    const std::uint64_t m = out.sections == 0 ? 0 : alias::section_boundary(k, merged, out.sections);
    out.split_lights[k] = alias::corank_search<Weight>(out.shape, out.lights.data(), out.heavies.data(), m,
                                                       alias::corank_lo(m, nh), alias::corank_hi(m, nl));
  }
  return out;
}

// Packs every section of `split` into rows[0..n) (twin of cuda::alias_pack_chunked).
template <class Weight>
void alias_pack(const AliasSplit<Weight>& split, alias::AliasRow<Weight>* rows) {
  const std::uint64_t merged = split.shape.lights + split.shape.heavies, S = split.sections;
  for (std::uint64_t k = 0; k < S; ++k) {
    const std::uint64_t i = split.split_lights[k], i_end = split.split_lights[k + 1];
    alias::pack_section<Weight>(split.shape, split.lights.data(), split.heavies.data(), i,
                                alias::section_boundary(k, merged, S) - i, i_end,
                                alias::section_boundary(k + 1, merged, S) - i_end, rows);
  }
}

}  // namespace rsmc::kernels::host
