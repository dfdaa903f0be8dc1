// Cutpoint guide table + radix tree forest (Binder & Keller, "Massively parallel construction of
// radix tree forests for the efficient sampling of discrete or piecewise constant probability
// distributions", MCQMC 2018, Springer 2020): a monotonic inverse CDF with O(1) average search, and the Cutpoint +
// binary search baseline that computes exactly the same mapping. Both are built in parallel with
// Kokkos on an execution space of the caller's choosing; their searches are the device-callable
// samplers of radix_forest_search.hpp (mapping, key types and cells are documented there).
//
//   RadixForest<double> forest;             // or std::uint64_t / rsmc::exact::u128 keys
//   forest.build(lower, 1.0);               // lower: View of the n interval lower bounds, lower(0) = 0
//   forest.sample(points, out);             // out(k) = the interval of points(k), a parallel_for
//   auto s = forest.sampler();              // copy into your own kernels: s.index(x)
//
// index(x) = upper_bound_index(cumulative, n, x) with cumulative[i] = lower[i + 1] and
// cumulative[n - 1] = total: for x in [0, total) the i with lower[i] <= x < lower[i + 1], never a
// zero-width interval; n for x >= total.
//
// Construction (RadixForest::build), all parallel, O(n + m) work:
//  1. guide cells and the per-cell counts: every lower bound that starts or ends a run of equal
//     cells adds to its cell's counter (two atomics per non-empty cell, never contended), and an
//     exclusive scan turns the counts into starts[c] = the number of lower bounds in cells < c;
//     this is the whole Cutpoint + binary search structure (CutpointTable).
//  2. Algorithm 1 of the paper, bottom-up, one thread per leaf (after Apetrei): a subtree with
//     leaves [r0, r1] becomes the left child of node r1 + 1 when the XOR distance of lower[r0] to
//     its left neighbour exceeds that of lower[r1] to its right neighbour, else the right child of
//     node r0; Kokkos::atomic_exchange on otherBounds[parent] lets the second child to arrive carry
//     on with the merged range. The digest's fixes:
//       - distances are the XOR of the key bit patterns (IEEE bits of doubles, integer values),
//       - a neighbour in another cell (or beyond either end) is at a TRUE maximum distance, above
//         every XOR: all ones suffices for doubles (keys >= 0 have a clear sign bit), integer keys
//         can have an all-ones XOR themselves, so the out-of-cell flag is compared as one more,
//         most significant, bit. (The paper's sentinel 1.0 is not a maximum under float-bit XOR:
//         m = 1, lower = [0, 7.07e-6, 0.6534] merges across a cell boundary with it.)
//       - ties go to the right-child side (merge across the left gap), as in the paper; the gaps
//         are then strictly ordered by (distance, gap index), so equal keys (zero weights) still
//         build valid trees. A run of equal keys becomes a left-leaning chain whose top node sends
//         every x >= the run's key straight to the run's last leaf: zero-width leaves are never
//         returned (a search goes right on x >= lower[j]) and the chain is never walked (the
//         other tie rule would walk it to its end).
//       - a subtree whose both neighbours are out of its cell is the whole tree of that cell
//         (leaves [a, b]); it becomes the right child of its root, node a, whose left child is set
//         to the leaf overlapping the cell from the left, ~(a - 1) (~0 for a = 0).
//       - otherBounds is reset to -1 (all ones) before every rebuild.
//     Leaves are stored as ~i (bitwise NOT: top bit set).
//  3. The guide table, one thread per cell: a cell without lower bounds lies inside one interval,
//     table[c] = ~(starts[c] - 1) (one load per search); otherwise table[c] = its root a =
//     starts[c], or directly the root's right child when no key of the cell is below lower[a].
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/fill.hpp"
#include "kernels/inverse_cdf/radix_forest_search.hpp"

namespace rsmc::kernels {

namespace forest_detail {

template <class Ref>
void check_ref_type() {
  static_assert(std::is_same<Ref, std::uint32_t>::value || std::is_same<Ref, std::uint64_t>::value,
                "node references are std::uint32_t or std::uint64_t");
}

// Counts the lower bounds that break the non-decreasing order, do not start at 0 or exceed total.
template <class K, class MemorySpace>
struct CheckLowerBounds {
  Kokkos::View<const K*, MemorySpace> lower;
  K total;
  std::size_t n;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t i, std::uint64_t& bad) const {
    if (i == 0 ? !(lower(0) == K(0)) : !(lower(i - 1) <= lower(i))) ++bad;
    if (i + 1 == n && !(lower(i) <= total)) ++bad;
  }
};

// starts(c) += (last index + 1) - (first index) of cell c's run of lower bounds, modulo 2^bits.
template <class K, class Ref, class MemorySpace>
struct CountCells {
  Kokkos::View<const K*, MemorySpace> lower;
  Kokkos::View<Ref*, MemorySpace> starts;
  GuideCells<K> cells;
  std::size_t n;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t i) const {
    const std::uint64_t c = cells(lower(i));
    const bool first = i == 0 || cells(lower(i - 1)) != c;
    const bool last = i + 1 == n || cells(lower(i + 1)) != c;
    if (!first && !last) return;
    const Ref add = static_cast<Ref>(last ? i + 1 : 0);
    const Ref sub = static_cast<Ref>(first ? i : 0);
    Kokkos::atomic_add(&starts(c), static_cast<Ref>(add - sub));
  }
};

// In place: counts -> exclusive prefix sums.
template <class Ref, class MemorySpace>
struct ExclusiveScan {
  using value_type = std::uint64_t;
  Kokkos::View<Ref*, MemorySpace> starts;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t c, value_type& update, const bool final) const {
    const Ref count = starts(c);
    if (final) starts(c) = static_cast<Ref>(update);
    update += count;
  }
};

// Algorithm 1 (one thread per leaf), with the fixes listed at the top of radix_forest.hpp.
template <class K, class Ref, class MemorySpace>
struct BuildForest {
  using Traits = KeyTraits<K>;
  Kokkos::View<const K*, MemorySpace> lower;
  Kokkos::View<Ref*, MemorySpace> nodes;         // 2 n
  Kokkos::View<Ref*, MemorySpace> other_bounds;  // n, all ones on entry
  GuideCells<K> cells;
  std::size_t n;

  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t i) const {
    constexpr Ref kNone = static_cast<Ref>(~Ref(0));
    Ref node = static_cast<Ref>(~static_cast<Ref>(i));  // leaf i
    const std::uint64_t cell = cells(lower(i));
    std::size_t r0 = i, r1 = i;  // the leaves under `node`
    for (;;) {
      const bool out_low = r0 == 0 || cells(lower(r0 - 1)) != cell;
      const bool out_high = r1 + 1 == n || cells(lower(r1 + 1)) != cell;
      if (out_low && out_high) {  // the cell's whole tree: right child of its root r0
        nodes(2 * r0 + 1) = node;
        nodes(2 * r0) = static_cast<Ref>(~static_cast<Ref>(r0 == 0 ? 0 : r0 - 1));
        return;
      }
      // Is the left gap farther than the right one? (out of cell = above every XOR)
      bool left_child;
      if (out_low)
        left_child = true;
      else if (out_high)
        left_child = false;
      else
        left_child = (Traits::bits(lower(r0)) ^ Traits::bits(lower(r0 - 1))) >
                     (Traits::bits(lower(r1)) ^ Traits::bits(lower(r1 + 1)));
      const std::size_t parent = left_child ? r1 + 1 : r0;
      nodes(2 * parent + (left_child ? 0 : 1)) = node;
      const Ref other = Kokkos::atomic_exchange(&other_bounds(parent), static_cast<Ref>(left_child ? r0 : r1));
      if (other == kNone) return;  // the sibling has not arrived yet: it carries on
      if (left_child)
        r1 = other;
      else
        r0 = other;
      node = static_cast<Ref>(parent);
    }
  }
};

template <class K, class Ref, class MemorySpace>
struct FillTable {
  Kokkos::View<const K*, MemorySpace> lower;
  Kokkos::View<const Ref*, MemorySpace> starts;  // m + 1
  Kokkos::View<const Ref*, MemorySpace> nodes;
  Kokkos::View<Ref*, MemorySpace> table;  // m
  GuideCells<K> cells;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t c) const {
    const Ref a = starts(c);
    if (starts(c + 1) == a) {  // no lower bound in the cell (a >= 1: cell 0 holds lower(0))
      table(c) = static_cast<Ref>(~static_cast<Ref>(a - 1));
    } else if (cells.starts_cell(lower(a), c)) {
      table(c) = nodes(2 * static_cast<std::size_t>(a) + 1);
    } else {
      table(c) = a;
    }
  }
};

template <class Sampler, class K, class MemorySpace>
struct SampleBatch {
  Sampler sampler;
  Kokkos::View<const K*, MemorySpace> points;
  Kokkos::View<std::uint64_t*, MemorySpace> out;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t k) const { out(k) = sampler.index(points(k)); }
};

template <class Sampler, class K, class ExecutionSpace, class MemorySpace>
void sample_batch(const char* label, const Sampler& sampler, Kokkos::View<const K*, MemorySpace> points,
                  Kokkos::View<std::uint64_t*, MemorySpace> out) {
  if (out.extent(0) < points.extent(0))
    throw std::invalid_argument(std::string(label) + ": out has " + std::to_string(out.extent(0)) +
                                " entries, fewer than the " + std::to_string(points.extent(0)) + " points");
  Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecutionSpace>(0, points.extent(0)),
                       SampleBatch<Sampler, K, MemorySpace>{sampler, points, out});
}

}  // namespace forest_detail

// Cutpoint method + binary search inside the cell: the guide cells and starts[c] (the number of
// lower bounds in cells before c). Also the first stage of RadixForest, which shares it.
template <class K, class ExecutionSpace = Kokkos::DefaultExecutionSpace, class Ref = std::uint32_t>
class CutpointTable {
 public:
  using key_type = K;
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;
  using ref_type = Ref;
  using sampler_type = CutpointSampler<K, Ref>;

  // lower: the n >= 1 interval lower bounds (non-decreasing, lower(0) = 0, lower(n-1) <= total);
  // total > 0: the upper end. cells = 0 picks the default count (make_guide_cells). The table
  // keeps a reference to `lower` (a View, no copy): rebuild after changing its values. Throws
  // std::invalid_argument (bad input) or std::length_error (n too large for Ref).
  void build(Kokkos::View<const K*, memory_space> lower, K total, std::uint64_t cells = 0) {
    forest_detail::check_ref_type<Ref>();
    const std::size_t n = lower.extent(0);
    if (n == 0) throw std::invalid_argument("CutpointTable::build: no intervals (lower is empty)");
    if (static_cast<std::uint64_t>(n) >= static_cast<std::uint64_t>(forest_detail::leaf_bit<Ref>()))
      throw std::length_error("CutpointTable::build: " + std::to_string(n) + " intervals, more than " +
                              std::to_string(sizeof(Ref) * 8 - 1) + "-bit references can index");
    cells_ = make_guide_cells<K>(total, cells, n);  // checks total
    std::uint64_t bad = 0;
    Kokkos::parallel_reduce("rsmc::cutpoint::check", Kokkos::RangePolicy<ExecutionSpace>(0, n),
                            forest_detail::CheckLowerBounds<K, memory_space>{lower, total, n},
                            Kokkos::Sum<std::uint64_t>(bad));
    if (bad != 0)
      throw std::invalid_argument(
          "CutpointTable::build: the interval lower bounds must be non-decreasing, start at 0 and not exceed "
          "total (" +
          std::to_string(bad) + " violations)");
    lower_ = lower;
    total_ = total;
    n_ = n;
    const std::size_t m = static_cast<std::size_t>(cells_.count());
    // Grown only: the cell count follows the total, which changes at every resampling of a filter
    // that rebuilds each step; entries past m + 1 are never read.
    if (starts_.extent(0) < m + 1)
      starts_ = Kokkos::View<Ref*, memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::cutpoint::starts"), m + 1);
    fill<ExecutionSpace>("rsmc::cutpoint::clear_starts", starts_, m + 1, Ref(0));  // a kernel, not a deep copy
    Kokkos::parallel_for("rsmc::cutpoint::count", Kokkos::RangePolicy<ExecutionSpace>(0, n),
                         forest_detail::CountCells<K, Ref, memory_space>{lower, starts_, cells_, n});
    Kokkos::parallel_scan("rsmc::cutpoint::scan", Kokkos::RangePolicy<ExecutionSpace>(0, m + 1),
                          forest_detail::ExclusiveScan<Ref, memory_space>{starts_});
    ExecutionSpace().fence();
  }

  sampler_type sampler() const { return sampler_type{lower_.data(), starts_.data(), cells_, total_, n_}; }

  // Host search; only where memory_space is host-accessible (else use sample() or sampler()).
  std::uint64_t index(K x) const {
    static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible,
                  "index() reads device memory: call sampler().index() inside a kernel, or sample()");
    return sampler().index(x);
  }

  // out(k) = index(points(k)) for every k, as a parallel_for on ExecutionSpace (not fenced).
  void sample(Kokkos::View<const K*, memory_space> points, Kokkos::View<std::uint64_t*, memory_space> out) const {
    forest_detail::sample_batch<sampler_type, K, ExecutionSpace>("rsmc::cutpoint::sample", sampler(), points, out);
  }

  std::size_t size() const { return n_; }
  std::uint64_t cell_count() const { return cells_.count(); }
  const GuideCells<K>& cells() const { return cells_; }
  K total() const { return total_; }
  Kokkos::View<const K*, memory_space> lower() const { return lower_; }
  // starts()(c), c = 0 .. cell_count() (the View may be longer: kept from a larger build).
  Kokkos::View<const Ref*, memory_space> starts() const { return starts_; }

 private:
  Kokkos::View<const K*, memory_space> lower_;
  Kokkos::View<Ref*, memory_space> starts_;
  GuideCells<K> cells_;
  K total_{};
  std::size_t n_ = 0;
};

// Cutpoint guide table + radix tree forest. Ref: the node reference type, std::uint32_t (n < 2^31)
// or std::uint64_t. Memory: 2 n references for the nodes, n for otherBounds (kept for rebuilds),
// m for the guide table and m + 1 for the shared Cutpoint starts.
template <class K, class ExecutionSpace = Kokkos::DefaultExecutionSpace, class Ref = std::uint32_t>
class RadixForest {
 public:
  using key_type = K;
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;
  using ref_type = Ref;
  using sampler_type = RadixForestSampler<K, Ref>;
  using cutpoint_type = CutpointTable<K, ExecutionSpace, Ref>;

  // Same inputs, checks and exceptions as CutpointTable::build. Keeps a reference to `lower`.
  void build(Kokkos::View<const K*, memory_space> lower, K total, std::uint64_t cells = 0) {
    cutpoint_.build(lower, total, cells);
    const std::size_t n = cutpoint_.size();
    const std::size_t m = static_cast<std::size_t>(cutpoint_.cell_count());
    if (nodes_.extent(0) != 2 * n) {
      nodes_ = Kokkos::View<Ref*, memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::forest::nodes"),
                                                2 * n);
      other_bounds_ = Kokkos::View<Ref*, memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::forest::other_bounds"), n);
    }
    if (table_.extent(0) < m)  // grown only, as the starts
      table_ =
          Kokkos::View<Ref*, memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::forest::table"), m);
    fill<ExecutionSpace>("rsmc::forest::clear_other_bounds", other_bounds_, n,
                         static_cast<Ref>(~Ref(0)));  // -1: no child arrived yet
    Kokkos::parallel_for(
        "rsmc::forest::build", Kokkos::RangePolicy<ExecutionSpace>(0, n),
        forest_detail::BuildForest<K, Ref, memory_space>{lower, nodes_, other_bounds_, cutpoint_.cells(), n});
    Kokkos::parallel_for(
        "rsmc::forest::table", Kokkos::RangePolicy<ExecutionSpace>(0, m),
        forest_detail::FillTable<K, Ref, memory_space>{lower, cutpoint_.starts(), nodes_, table_, cutpoint_.cells()});
    ExecutionSpace().fence();
  }

  sampler_type sampler() const {
    return sampler_type{cutpoint_.lower().data(), nodes_.data(),     table_.data(),
                        cutpoint_.cells(),        cutpoint_.total(), cutpoint_.size()};
  }
  // The baseline on the same guide cells (Cutpoint + binary search): the same mapping.
  typename cutpoint_type::sampler_type cutpoint_sampler() const { return cutpoint_.sampler(); }
  const cutpoint_type& cutpoint() const { return cutpoint_; }

  // Host search; only where memory_space is host-accessible (else use sample() or sampler()).
  std::uint64_t index(K x) const {
    static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible,
                  "index() reads device memory: call sampler().index() inside a kernel, or sample()");
    return sampler().index(x);
  }

  // out(k) = index(points(k)) for every k, as a parallel_for on ExecutionSpace (not fenced).
  void sample(Kokkos::View<const K*, memory_space> points, Kokkos::View<std::uint64_t*, memory_space> out) const {
    forest_detail::sample_batch<sampler_type, K, ExecutionSpace>("rsmc::forest::sample", sampler(), points, out);
  }

  std::size_t size() const { return cutpoint_.size(); }
  std::uint64_t cell_count() const { return cutpoint_.cell_count(); }
  const GuideCells<K>& cells() const { return cutpoint_.cells(); }
  // nodes()(2 j + c): child c of node j; table()(g): guide entry of cell g (a leaf ~i or a node),
  // g < cell_count() (the View may be longer: kept from a larger build).
  Kokkos::View<const Ref*, memory_space> nodes() const { return nodes_; }
  Kokkos::View<const Ref*, memory_space> table() const { return table_; }

 private:
  cutpoint_type cutpoint_;
  Kokkos::View<Ref*, memory_space> nodes_;
  Kokkos::View<Ref*, memory_space> other_bounds_;
  Kokkos::View<Ref*, memory_space> table_;
};

}  // namespace rsmc::kernels
