// The search half of the Cutpoint guide table + radix tree forest (Binder & Keller, "Massively
// parallel construction of radix tree forests for the efficient sampling of discrete or piecewise
// constant probability distributions", MCQMC 2018, Springer 2020), and of
// its baseline, the Cutpoint method with binary search inside the cell.
//
// This header is Kokkos-free on purpose: the samplers below are small copyable structs of raw
// pointers whose index() is RSMC_HOST_DEVICE, so they run on the host, inside Kokkos kernels and in
// hand-written CUDA kernels alike. radix_forest.hpp builds the arrays they point to (in parallel,
// with Kokkos) and hands out these structs.
//
// The mapping. The input is a table of interval LOWER bounds lower[0..n-1] (non-decreasing,
// lower[0] = 0; equal neighbours are zero-width intervals) and the total, the upper end of the last
// interval. Interval i is [lower[i], lower[i+1]) with lower[n] = total. For x in [0, total) both
// samplers return the i with lower[i] <= x < lower[i+1], i.e. the LARGEST i with lower[i] <= x,
// which is never a zero-width interval. That is exactly upper_bound_index(cumulative, n, x) of
// upper_bound.hpp on the cumulative (upper-bound) table cumulative[i] = lower[i+1] (so
// cumulative[n-1] = total): the first i with cumulative[i] > x. The equality holds for every x, not
// only inside the domain: x >= total (and a NaN double) gives n, a negative double gives 0.
//
// Key types K: double (a CDF, usually with total 1), and the exact fixed-point integer wheels
// std::uint64_t and rsmc::exact::u128. Comparisons are exact in all three; the only arithmetic is
// the guide cell of a key (GuideCells), which is computed by the same function when building and
// when searching.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "base/core/portability.hpp"
#include "base/exact/uint128.hpp"

namespace rsmc::kernels {

namespace forest_detail {

// The bit pattern a key's radix-tree distance (XOR) is taken on: the IEEE bits of a double (for
// non-negative doubles their order is the order of the bits), the value itself for integers.
template <class K>
struct KeyTraits;

template <>
struct KeyTraits<double> {
  using bits_type = std::uint64_t;
  static constexpr bool is_integer = false;
  RSMC_HOST_DEVICE static bits_type bits(double x) { return exact::exact_detail::double_bits(x); }
};

template <>
struct KeyTraits<std::uint64_t> {
  using bits_type = std::uint64_t;
  static constexpr bool is_integer = true;
  RSMC_HOST_DEVICE static bits_type bits(std::uint64_t x) { return x; }
};

template <>
struct KeyTraits<exact::u128> {
  using bits_type = exact::u128;
  static constexpr bool is_integer = true;
  RSMC_HOST_DEVICE static bits_type bits(exact::u128 x) { return x; }
};

// The most significant bit of a node reference: set for a leaf (~i), clear for an inner node.
template <class Ref>
RSMC_HOST_DEVICE constexpr Ref leaf_bit() {
  return static_cast<Ref>(static_cast<Ref>(1) << (sizeof(Ref) * 8 - 1));
}

}  // namespace forest_detail

// The guide table's cells: cell(x) in [0, count()), non-decreasing in x.
//   double keys:  cell(x) = min(m - 1, floor(x * (m / total)))  -- floor(x * m) for total = 1;
//                 negative x (and -0.0) give cell 0.
//   integer keys: cells of equal integer width w, cell(x) = min(m - 1, x / w) (a shift when w is
//                 a power of two, the same value).
// make_guide_cells() picks m and w (see there).
template <class K, bool Integer = forest_detail::KeyTraits<K>::is_integer>
struct GuideCells;

template <class K>
struct GuideCells<K, false> {
  double scale = 1.0;      // m / total
  std::uint64_t last = 0;  // m - 1

  RSMC_HOST_DEVICE std::uint64_t count() const { return last + 1; }
  RSMC_HOST_DEVICE std::uint64_t operator()(double x) const {
    const double t = x * scale;
    if (!(t > 0.0)) return 0;  // negative, zero (also -0.0), NaN
    if (t >= static_cast<double>(last)) return last;
    return static_cast<std::uint64_t>(t);  // truncation is floor for t > 0
  }
  // True when no key below v falls into cell c (v is the first key of cell c): then the search
  // of cell c never needs the interval that overlaps it from the left.
  RSMC_HOST_DEVICE bool starts_cell(double v, std::uint64_t c) const {
    if (!(v > 0.0)) return false;  // v = 0: negative keys also map to cell 0
    const double below = exact::exact_detail::double_from_bits(exact::exact_detail::double_bits(v) - 1);
    return (*this)(below) < c;
  }
};

template <class K>
struct GuideCells<K, true> {
  K width = 1;             // w
  std::uint64_t last = 0;  // m - 1
  int shift = 0;           // log2(w) when w is a power of two, else -1

  RSMC_HOST_DEVICE std::uint64_t count() const { return last + 1; }
  RSMC_HOST_DEVICE std::uint64_t operator()(K x) const {
    const K q = shift >= 0 ? static_cast<K>(x >> shift) : static_cast<K>(x / width);
    return q >= static_cast<K>(last) ? last : static_cast<std::uint64_t>(q);
  }
  RSMC_HOST_DEVICE bool starts_cell(K v, std::uint64_t c) const { return v == static_cast<K>(c) * width; }
};

// Host: the cells for a table of n intervals with the given total.
//   cells == 0 (the default): double keys m = n; integer keys w = ceil(total / n) rounded up to a
//     power of two (so that the cell is a shift, not a 128-bit division), m = ceil(total / w) <= n.
//   cells > 0: double keys m = cells; integer keys w = ceil(total / cells), m = ceil(total / w)
//     (<= cells: cells that only keys >= total would reach are not stored; for x < total
//     min(m - 1, x / w) is the same for both counts).
template <class K>
GuideCells<K> make_guide_cells(K total, std::uint64_t cells, std::uint64_t n) {
  if (n == 0) throw std::invalid_argument("guide cells: the table must have at least one interval (n = 0)");
  GuideCells<K> g;
  if constexpr (!forest_detail::KeyTraits<K>::is_integer) {
    if (!(total > 0.0) || !std::isfinite(total))
      throw std::invalid_argument("guide cells: total must be positive and finite, got " + std::to_string(total));
    const std::uint64_t m = cells == 0 ? n : cells;
    if (m > (std::uint64_t{1} << 52))
      throw std::invalid_argument("guide cells: at most 2^52 cells for double keys, got " + std::to_string(m));
    g.scale = static_cast<double>(m) / total;
    g.last = m - 1;
  } else {
    if (!(total > 0)) throw std::invalid_argument("guide cells: total must be positive, got 0");
    const std::uint64_t want = cells == 0 ? n : cells;
    const K mk = static_cast<K>(want);
    K w = total / mk + (total % mk != 0 ? 1 : 0);  // ceil(total / want) >= 1
    if (cells == 0) {
      K p = 1;
      while (p < w && (p << 1) != 0) p <<= 1;
      if (p >= w) w = p;  // else 2^bits would overflow: keep w (m <= 2 then)
    }
    const K m = total / w + (total % w != 0 ? 1 : 0);  // <= want
    g.width = w;
    g.last = static_cast<std::uint64_t>(m) - 1;
    g.shift = -1;
    if ((w & (w - 1)) == 0) {
      int s = 0;
      while ((static_cast<K>(1) << s) != w) ++s;
      g.shift = s;
    }
  }
  return g;
}

// Cutpoint + radix tree forest, Algorithm 2 of the paper:
//   g = cell(x); j = table[g]; while msb(j) == 0: j = x < lower[j] ? child[0] of j : child[1] of j;
//   return ~j.
// nodes[2 j + c] is child c of node j (node j splits at lower[j]); references with the top bit set
// are leaves ~i. table[g] is a leaf (the cell lies inside one interval) or the root of the cell's
// tree (or, when no key of the cell lies below the tree's first lower bound, the root's right
// child). Ref is std::uint32_t (n < 2^31) or std::uint64_t.
template <class K, class Ref>
struct RadixForestSampler {
  const K* lower = nullptr;    // n interval lower bounds
  const Ref* nodes = nullptr;  // 2 n child references
  const Ref* table = nullptr;  // cells.count() guide entries
  GuideCells<K> cells;
  K total{};
  std::uint64_t n = 0;

  RSMC_HOST_DEVICE std::uint64_t index(K x) const {
    if (!(x < total)) return n;  // past the end (and NaN): upper_bound_index gives n
    Ref j = table[cells(x)];
    while (!(j & forest_detail::leaf_bit<Ref>())) {
      // Both children and the split are loaded before the comparison: the three loads do
      // not wait for each other (the two children share a cache line).
      const Ref left = nodes[2 * static_cast<std::size_t>(j)];
      const Ref right = nodes[2 * static_cast<std::size_t>(j) + 1];
      j = x < lower[j] ? left : right;
    }
    return static_cast<std::uint64_t>(static_cast<Ref>(~j));
  }
};

// The baseline with the same guide cells and no tree: starts[c] = the number of lower bounds in
// cells before c (c = 0..m; starts[m] = n). The answer for x in cell c lies in
// [starts[c] - 1, starts[c + 1] - 1]; a binary search over lower[starts[c] .. starts[c + 1] - 1]
// finds the last lower bound <= x. Same mapping as the forest, bit for bit.
template <class K, class Ref>
struct CutpointSampler {
  const K* lower = nullptr;     // n interval lower bounds
  const Ref* starts = nullptr;  // cells.count() + 1 entries
  GuideCells<K> cells;
  K total{};
  std::uint64_t n = 0;

  RSMC_HOST_DEVICE std::uint64_t index(K x) const {
    if (!(x < total)) return n;
    const std::uint64_t c = cells(x);
    std::uint64_t lo = starts[c], hi = starts[c + 1];  // first lower bound > x, in [lo, hi]
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (x < lower[mid])
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo > 0 ? lo - 1 : 0;  // lo = 0 only for a negative double
  }
};

}  // namespace rsmc::kernels
