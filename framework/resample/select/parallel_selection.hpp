// Offspring selection as data-parallel Kokkos kernels in the engine's execution space: the same
// selections as select_offspring (framework/resample/select/selection.hpp), bit for bit, for every scheme
// and every local sampler, for any thread count and any chunk size.
//
// In: the rank's fixed-point weights (a View in the execution space's memory), its share of the
// exact wheel, N, seed, step, scheme and local sampler. Out: the rank's first new id q and offspring
// count (host scalars), and in the workspace, in the same memory space,
//   ancestor[k] = the local index of the parent of new id q + k, k < offspring, and, when asked,
//   counts[i]   = the offspring of local particle i (the genealogy's trace needs them).
// Host work per call: O(log N) scalar arithmetic (the rank's first and last sample, by the same
// closed forms as select_offspring), residual's two exact scans over the ranks, a few scalars
// copied between host and device; nothing proportional to the particles. Workspace buffers only
// grow, so a filter that resamples every step stops allocating after the first.
//
// Two ways to the same ancestors (SelectionPath):
//   merge_walk    particles in chunks of fixed size (by local index); chunk totals, an exclusive scan
//                 over chunks, each chunk's first output position in closed form (systematic,
//                 stratified: a search over samples; multinomial and residual: the points of the
//                 multinomial draw below the chunk's start, multinomial_count_below), then each chunk
//                 pulls its own points from a cursor and merge-walks them against its particles with
//                 branch-free stores (merge_walk.hpp). No array of points; the default of `search` on
//                 host backends.
//   point_lookup  the rank's points in an array (systematic, stratified: one thread per offspring in
//                 closed form; multinomial, residual: the chunk cursors), then one lookup per point:
//                 search (binary search over the scanned wheel), forest (a RadixForest on the device
//                 views) or butterfly (one shared butterfly column: its host twin on host backends,
//                 the native CUDA kernels on Kokkos::Cuda: exact points in, ancestors out). Residual places the points
//                 after each particle's deterministic copies. Counts are adjacent differences of the offspring scan.
//                 The default on devices, and for forest and butterfly.
// The alias sampler is not an inverse CDF of the points: the scheme gives only the rank's first id
// and offspring count, and the ancestors are that many draws from an exact alias table of the rank's
// fixed weights (kernels/alias: PSA build and sampling in the execution space; Run::alias). Like
// select_offspring's alias, its results depend on the rank count (docs/reproducibility.md).
//
// fixed_weights_and_wheel() computes the fixed-point weights from the log-weights together with the
// chunk totals, their scan and the rank's exact total, in one pass: with options.wheel_scanned the
// selection then reads the weights once only.
#pragma once

#include "framework/parallel/mpi.hpp"

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <type_traits>

#include "base/core/error.hpp"
#include "base/core/host_or_device.hpp"
#include "base/core/instance_copy.hpp"
#include "base/core/reserve.hpp"
#include "base/exact/uint128.hpp"
#include "framework/parallel/u128_mpi.hpp"
#include "framework/resample/select/local_sampler.hpp"
#include "framework/resample/scheme.hpp"
#include "framework/resample/select/selection.hpp"
#include "framework/resample/select/selection_kernels.hpp"
#include "framework/resample/select/sorted_multinomial.hpp"
#include "kernels/alias/psa.hpp"
#include "kernels/alias/sampling.hpp"
#include "kernels/fill.hpp"
#include "kernels/butterfly/shared_column.hpp"
#include "kernels/host/butterfly_table.hpp"
#if defined(RSMC_ENGINE_CUDA_KERNELS)
#include "kernels/cuda/butterfly.hpp"
#endif
#include "kernels/inverse_cdf/radix_forest.hpp"

namespace rsmc {

enum class SelectionPath { automatic, merge_walk, point_lookup };

struct ParallelSelectionOptions {
  SelectionPath path = SelectionPath::automatic;  // automatic: merge walk for search on host backends
  std::uint64_t chunk = 0;                        // particles per chunk; 0: the backend's default
  bool counts = false;                            // also fill workspace.counts
  // The workspace already holds the chunk totals and scan of in.fixed_weights, computed by
  // fixed_weights_and_wheel with the same chunk size: the selection skips its pass over them.
  bool wheel_scanned = false;
};

template <class MemorySpace>
struct ParallelSelectionInputs {
  Kokkos::View<const std::uint64_t*, MemorySpace> fixed_weights;  // this rank's, local index order
  WheelShare wheel;
  std::uint64_t samples = 0;  // N
  std::uint64_t seed = 0;
  std::uint32_t step = 0;
  Scheme scheme = Scheme::systematic;
  LocalSampler sampler = LocalSampler::search;
};

struct SelectionShareResult {
  std::uint64_t first_id = 0;   // q: new global id of this rank's first offspring
  std::uint64_t offspring = 0;  // offspring this rank holds (entries of workspace.ancestor)
};

// Buffers kept between calls (they only grow). ancestor and counts are the outputs.
template <class ExecutionSpace>
struct ParallelSelectionWorkspace {
  using memory_space = typename ExecutionSpace::memory_space;
  template <class T>
  using Buffer = Kokkos::View<T*, memory_space>;
  using u128 = exact::u128;

  Buffer<std::uint64_t> ancestor;  // >= offspring entries
  Buffer<std::uint64_t> counts;    // >= local particles, when options.counts

  Buffer<u128> chunk_total, chunk_start;             // the wheel's chunk sums and their scan
  Buffer<std::uint64_t> chunk_copies, copies_start;  // residual: copies per chunk and their scan
  Buffer<std::uint64_t> position, point_position;    // first output (and point) index per chunk
  Buffer<std::uint64_t> copies;                      // residual: per particle
  Buffer<u128> residual;                             // residual: per particle
  Buffer<u128> lower;                                // point lookup: interval lower bounds
  Buffer<std::uint64_t> copies_before;               // point lookup, residual
  Buffer<u128> points;                               // point lookup
  Buffer<std::uint64_t> point_ancestor;              // point lookup, residual
  Kokkos::View<int, memory_space> error;
  Kokkos::View<u128, Kokkos::HostSpace> host_u128;
  Kokkos::View<std::uint64_t, Kokkos::HostSpace> host_u64;
  kernels::RadixForest<u128, ExecutionSpace, std::uint32_t> forest32;
  kernels::RadixForest<u128, ExecutionSpace, std::uint64_t> forest64;
  kernels::butterfly::ButterflyColumn<u128> butterfly;  // host backends only
  Buffer<u128> butterfly_table, butterfly_totals;       // Kokkos::Cuda: the shared column and its sums
  kernels::alias::AliasStorage<memory_space> alias;     // the alias sampler's table and its scratch

  // Which weights chunk_start holds the scan of, as fixed_weights_and_wheel left it.
  struct ScannedWheel {
    const std::uint64_t* weights = nullptr;
    std::uint64_t particles = 0, chunk = 0;
  } scanned;
};

namespace parallel_selection_detail {

// Host-side checks and the rank's share (parallel_selection.cpp). They throw rsmc::Error.
void check_inputs(Scheme scheme, LocalSampler sampler, const WheelShare& wheel, std::uint64_t samples,
                  std::uint64_t seed, std::uint64_t particles);
[[noreturn]] void report_kernel_error(int bits);

// The draw of sorted_multinomial.hpp (its default tree shape).
inline MultinomialTree multinomial_tree(std::uint64_t seed, std::uint32_t step, std::uint64_t samples,
                                        exact::u128 total) {
  return MultinomialTree{seed, step, samples, total, kSortedMultinomialLeafSize, kSortedMultinomialMaxDepth};
}

template <class ExecutionSpace>
SelectionPath resolve_path(SelectionPath asked, LocalSampler sampler) {
  if (sampler != LocalSampler::search) return SelectionPath::point_lookup;
  if (asked != SelectionPath::automatic) return asked;
  return runs_on_host<ExecutionSpace>() ? SelectionPath::merge_walk : SelectionPath::point_lookup;
}

// Chunk sizes: long chunks on a CPU (the walk streams through them; a few hundred per thread
// balance the load), short ones on a GPU (one thread each).
template <class ExecutionSpace>
std::uint64_t chunk_size(std::uint64_t asked) {
  if (asked > 0) return asked;
  return runs_on_host<ExecutionSpace>() ? 4096 : 256;
}

// Everything one call needs, resolved once.
template <class ExecutionSpace>
struct Run {
  using Workspace = ParallelSelectionWorkspace<ExecutionSpace>;
  using memory_space = typename Workspace::memory_space;
  using u128 = exact::u128;
  using Dynamic = Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Static = Kokkos::RangePolicy<ExecutionSpace>;
  template <class T>
  using Buffer = typename Workspace::template Buffer<T>;

  ExecutionSpace exec;
  const ParallelSelectionInputs<memory_space>& in;
  Workspace& ws;
  ParallelSelectionOptions options;
  SelectionPath path;
  selection_kernels::Chunks chunks;
  std::uint64_t nchunks;
  int* error;

  Static over(std::uint64_t count) const { return Static(exec, 0, count); }
  Dynamic over_chunks() const { return Dynamic(exec, 0, nchunks); }

  // chunk_start (nchunks + 1 entries) = the exclusive scan of the chunk totals of `weight`.
  template <class Weight>
  void scan_wheel(const Weight* weight) {
    if (options.wheel_scanned) return;  // fixed_weights_and_wheel did it (checked on entry)
    ws.scanned = {};                    // overwritten below: no longer that of fixed_weights_and_wheel
    Kokkos::parallel_for("rsmc::select::chunk_totals", over_chunks(),
                         selection_kernels::ChunkTotals<Weight>{weight, ws.chunk_total.data(), chunks});
    scan(ws.chunk_total.data(), ws.chunk_start.data(), "rsmc::select::chunk_scan");
  }
  template <class T>
  void scan(const T* in_, T* start, const char* label) {
    Kokkos::parallel_scan(label, over(nchunks + 1), selection_kernels::ExclusiveScan<T>{in_, start, nchunks});
  }

  void reserve_outputs(std::uint64_t offspring) {
    reserve(ws.ancestor, offspring, "rsmc::select::ancestor");
    if (options.counts) reserve(ws.counts, chunks.n, "rsmc::select::counts");
  }

  // Merge walk over every chunk (weights on the wheel the cursors' points are on); chunks in pairs
  // on host backends (merge_walk_pair).
  template <bool kCopies, class Weight, class Cursors>
  void walk(const Cursors& cursors, const Weight* weight, u128 below) {
    const std::uint64_t* copies = kCopies ? ws.copies.data() : nullptr;
    const bool paired = runs_on_host<ExecutionSpace>();
    if (options.counts) {
      const selection_kernels::MergeWalk<kCopies, true, Weight, Cursors> kernel{cursors,
                                                                                weight,
                                                                                copies,
                                                                                ws.chunk_start.data(),
                                                                                ws.position.data(),
                                                                                ws.ancestor.data(),
                                                                                ws.counts.data(),
                                                                                below,
                                                                                chunks,
                                                                                nchunks,
                                                                                paired,
                                                                                error};
      Kokkos::parallel_for("rsmc::select::merge_walk", Dynamic(exec, 0, kernel.items()), kernel);
    } else {
      const selection_kernels::MergeWalk<kCopies, false, Weight, Cursors> kernel{cursors,
                                                                                 weight,
                                                                                 copies,
                                                                                 ws.chunk_start.data(),
                                                                                 ws.position.data(),
                                                                                 ws.ancestor.data(),
                                                                                 nullptr,
                                                                                 below,
                                                                                 chunks,
                                                                                 nchunks,
                                                                                 paired,
                                                                                 error};
      Kokkos::parallel_for("rsmc::select::merge_walk", Dynamic(exec, 0, kernel.items()), kernel);
    }
  }

  // out[k] = the particle holding points[k], k < count, on the wheel of `weight` (lower bounds in
  // ws.lower, total `local`), with the configured sampler.
  template <class Weight>
  void lookup(const Weight* weight, u128 local, std::uint64_t count, std::uint64_t* out) {
    if (count == 0) return;
    const std::uint64_t n = chunks.n;
    const u128* points = ws.points.data();
    switch (in.sampler) {
      case LocalSampler::search:
        Kokkos::parallel_for("rsmc::select::search", over(count),
                             selection_kernels::SearchLookup{ws.lower.data(), n, local, points, out, error});
        return;
      case LocalSampler::forest: {
        const auto lower = Kokkos::subview(ws.lower, std::make_pair(std::uint64_t(0), n));
        if (n < (std::uint64_t(1) << 31)) {
          ws.forest32.build(lower, local);
          Kokkos::parallel_for("rsmc::select::forest", over(count),
                               selection_kernels::ForestLookup<decltype(ws.forest32.sampler())>{ws.forest32.sampler(),
                                                                                                n, points, out, error});
        } else {
          ws.forest64.build(lower, local);
          Kokkos::parallel_for("rsmc::select::forest", over(count),
                               selection_kernels::ForestLookup<decltype(ws.forest64.sampler())>{ws.forest64.sampler(),
                                                                                                n, points, out, error});
        }
        return;
      }
      case LocalSampler::butterfly:
        butterfly_lookup(weight, count, out);
        return;
      case LocalSampler::alias:
        break;
    }
    throw Error("internal error: the alias sampler is not a lookup of the scheme's points");
  }

  // Butterfly: every lane draws from the rank's distribution, so the lanes share one column of the
  // table (kernels/butterfly/shared_column.hpp, 16 bytes per particle). On host backends the host
  // twin builds it; on Kokkos::Cuda the native kernels (kernels/cuda/butterfly.hpp) build and search
  // it on the engine's stream, the column kept in the workspace between steps.
  template <class Weight>
  void butterfly_lookup(const Weight* weight, std::uint64_t count, std::uint64_t* out) {
    const std::uint64_t n = chunks.n;
    if (n > kernels::host::kButterflyMaxK)
      throw Error("--local-sampler butterfly: " + std::to_string(n) +
                  " particles on one rank; the butterfly table takes at most 2^32 - 1");
    if constexpr (runs_on_host<ExecutionSpace>()) {
      exec.fence();  // the weights (residuals) come from a kernel
      ws.butterfly.build(weight, n);
      const u128* cells = ws.butterfly.cells();
      const u128* points = ws.points.data();
      int* err = error;
      Kokkos::parallel_for("rsmc::select::butterfly", over(count), [=](const std::uint64_t i) {
        const std::uint32_t index = kernels::butterfly::column_search<u128>(cells, n, points[i]);
        if (index >= n) selection_kernels::report(err, selection_kernels::kPastTheEnd);
        out[i] = index < n ? index : 0;
      });
#if defined(RSMC_ENGINE_CUDA_KERNELS)
    } else if constexpr (std::is_same_v<ExecutionSpace, Kokkos::Cuda>) {
      reserve(ws.butterfly_table, kernels::cuda::butterfly_table_entries(n), "rsmc::select::butterfly_table");
      reserve(ws.butterfly_totals, kernels::cuda::butterfly_block_total_entries(n), "rsmc::select::butterfly_totals");
      kernels::cuda::butterfly_lookup_points<Weight>(weight, n, ws.points.data(), count, out, ws.butterfly_table.data(),
                                                     ws.butterfly_totals.data(), error, selection_kernels::kPastTheEnd,
                                                     exec.cuda_stream());
#endif
    } else {
      (void)weight;
      (void)count;
      (void)out;
      throw Error(std::string("--local-sampler butterfly: no native kernel for the execution space ") +
                  ExecutionSpace::name() + " in this build; use search or forest");
    }
  }

  // Point lookup: lower bounds of `weight` (and copies_before with copies), then counts from the
  // final ancestors when asked.
  template <class Weight>
  void lower_bounds(const Weight* weight, bool with_copies) {
    reserve(ws.lower, chunks.n, "rsmc::select::lower");
    if (with_copies) reserve(ws.copies_before, chunks.n, "rsmc::select::copies_before");
    Kokkos::parallel_for(
        "rsmc::select::lower_bounds", over_chunks(),
        selection_kernels::LowerBounds<Weight>{weight, ws.chunk_start.data(), with_copies ? ws.copies.data() : nullptr,
                                               with_copies ? ws.copies_start.data() : nullptr, ws.lower.data(),
                                               with_copies ? ws.copies_before.data() : nullptr, chunks});
  }
  void counts_from_ancestors(std::uint64_t offspring) {
    if (!options.counts) return;
    Kokkos::parallel_for("rsmc::select::counts", over(chunks.n),
                         selection_kernels::CountsOfAncestors{ws.ancestor.data(), offspring, ws.counts.data()});
  }

  // One entry of a device buffer, on the host.
  template <class T, class HostScalar>
  T read(const Buffer<T>& buffer, std::uint64_t index, const HostScalar& host) {
    Kokkos::deep_copy(exec, host, Kokkos::subview(buffer, index));
    exec.fence();
    return host();
  }

  EvenlySpacedPoints evenly_spaced_points(bool stratified) const {
    return EvenlySpacedPoints(in.wheel.total, in.samples, in.seed, in.step, stratified);
  }

  // The rank's samples: those whose points fall in its slice (closed forms, O(log N) on the host).
  SelectionShareResult evenly_spaced_share(const EvenlySpacedPoints& points) const {
    const WheelShare& wheel = in.wheel;
    SelectionShareResult share;
    share.first_id = points.first_at_or_above(wheel.below, 0, in.samples, points.guess(wheel.below));
    const u128 top = wheel.below + wheel.local;
    share.offspring = points.first_at_or_above(top, share.first_id, in.samples, points.guess(top)) - share.first_id;
    return share;
  }

  SelectionShareResult evenly_spaced(bool stratified) {
    const WheelShare& wheel = in.wheel;
    const EvenlySpacedPoints points = evenly_spaced_points(stratified);
    const SelectionShareResult share = evenly_spaced_share(points);
    const std::uint64_t end = share.first_id + share.offspring;
    reserve_outputs(share.offspring);
    scan_wheel(in.fixed_weights.data());
    Kokkos::parallel_for(
        "rsmc::select::positions", over(nchunks + 1),
        selection_kernels::EvenlySpacedPositions{points, wheel.below, wheel.local, share.first_id, end,
                                                 ws.chunk_start.data(), ws.position.data(), nchunks, error});
    if (path == SelectionPath::merge_walk) {
      if (stratified)
        walk<false>(
            selection_kernels::EvenlySpacedChunkCursor<StratifiedCursor>{points, share.first_id, ws.position.data()},
            in.fixed_weights.data(), wheel.below);
      else
        walk<false>(
            selection_kernels::EvenlySpacedChunkCursor<SystematicCursor>{points, share.first_id, ws.position.data()},
            in.fixed_weights.data(), wheel.below);
    } else {
      reserve(ws.points, share.offspring, "rsmc::select::points");
      Kokkos::parallel_for(
          "rsmc::select::points", over(share.offspring),
          selection_kernels::EvenlySpacedPointsAt{points, share.first_id, wheel.below, ws.points.data()});
      lower_bounds(in.fixed_weights.data(), false);
      lookup(in.fixed_weights.data(), wheel.local, share.offspring, ws.ancestor.data());
      counts_from_ancestors(share.offspring);
    }
    return share;
  }

  // The multinomial draw of `tree` on the wheel of `weight` (slice [below, below + local); its
  // chunk_start already scanned), after `copies` deterministic copies (residual; else null).
  // `first`: the draw's points below the slice; `points`: in it; `offspring`: the rank's total.
  template <class Weight>
  void multinomial_points(const MultinomialTree& tree, const Weight* weight, u128 below, u128 local,
                          std::uint64_t first, std::uint64_t points, std::uint64_t offspring, bool with_copies) {
    reserve_outputs(offspring);
    Kokkos::parallel_for(
        "rsmc::select::positions", over(nchunks + 1),
        selection_kernels::MultinomialPositions{tree, below, local, first, ws.chunk_start.data(),
                                                with_copies ? ws.copies_start.data() : nullptr, ws.position.data(),
                                                ws.point_position.data(), nchunks, error});
    const selection_kernels::MultinomialChunkCursor cursors{tree, below, ws.chunk_start.data()};
    if (path == SelectionPath::merge_walk) {
      if (with_copies)
        walk<true>(cursors, weight, below);
      else
        walk<false>(cursors, weight, below);
      return;
    }
    reserve(ws.points, points, "rsmc::select::points");
    Kokkos::parallel_for(
        "rsmc::select::points", over_chunks(),
        selection_kernels::MultinomialPointsOf{cursors, ws.point_position.data(), below, ws.points.data(), error});
    lower_bounds(weight, with_copies);
    if (!with_copies) {
      lookup(weight, local, points, ws.ancestor.data());
    } else {
      reserve(ws.point_ancestor, points, "rsmc::select::point_ancestor");
      lookup(weight, local, points, ws.point_ancestor.data());
      Kokkos::parallel_for("rsmc::select::residual_points", over(points),
                           selection_kernels::ResidualPointsPlace{ws.point_ancestor.data(), ws.copies.data(),
                                                                  ws.copies_before.data(), ws.ancestor.data()});
      Kokkos::parallel_for("rsmc::select::residual_copies", over(chunks.n),
                           selection_kernels::ResidualCopiesPlace{ws.point_ancestor.data(), points, ws.copies.data(),
                                                                  ws.copies_before.data(), ws.ancestor.data()});
    }
    counts_from_ancestors(offspring);
  }

  MultinomialTree multinomial_draw() const { return multinomial_tree(in.seed, in.step, in.samples, in.wheel.total); }

  // The rank's samples: the draw's points below its slice and in it (O(log N) tree nodes each).
  SelectionShareResult multinomial_share(const MultinomialTree& tree) const {
    SelectionShareResult share;
    share.first_id = multinomial_count_below(tree, in.wheel.below);
    share.offspring = multinomial_count_below(tree, in.wheel.below + in.wheel.local) - share.first_id;
    return share;
  }

  SelectionShareResult multinomial() {
    const WheelShare& wheel = in.wheel;
    const MultinomialTree tree = multinomial_draw();
    const SelectionShareResult share = multinomial_share(tree);
    scan_wheel(in.fixed_weights.data());
    multinomial_points(tree, in.fixed_weights.data(), wheel.below, wheel.local, share.first_id, share.offspring,
                       share.offspring, false);
    return share;
  }

  // Residual: floor(N w_i / T) copies, then the multinomial draw of the remaining M samples on the
  // wheel of residuals (total M T), whose rank slice comes from two exact scans over the ranks.
  struct ResidualShare {
    MultinomialTree tree;        // the draw on the residual wheel
    u128 below = 0, local = 0;   // the rank's slice of that wheel
    std::uint64_t first = 0;     // the draw's points below the slice ...
    std::uint64_t points = 0;    // ... and in it
    SelectionShareResult share;  // copies and points together
  };

  // The division pass (ws.copies, ws.residual and their chunk scans) and the rank's share.
  template <class RankScan>
  ResidualShare residual_share(RankScan& rank_scan) {
    const std::uint64_t n = chunks.n;
    ws.scanned = {};  // chunk_start is about to hold the residual wheel
    reserve(ws.copies, n, "rsmc::select::copies");
    reserve(ws.residual, n, "rsmc::select::residual");
    Kokkos::parallel_for(
        "rsmc::select::residual_split", over_chunks(),
        selection_kernels::ResidualSplit{in.fixed_weights.data(), in.samples, in.wheel.total, ws.copies.data(),
                                         ws.residual.data(), ws.chunk_copies.data(), ws.chunk_total.data(), chunks});
    scan(ws.chunk_total.data(), ws.chunk_start.data(), "rsmc::select::residual_scan");
    scan(ws.chunk_copies.data(), ws.copies_start.data(), "rsmc::select::copies_scan");
    ResidualShare r;
    r.local = read(ws.chunk_start, nchunks, ws.host_u128);
    const std::uint64_t copies_local = read(ws.copies_start, nchunks, ws.host_u64);
    const exact::ScanTotal copies_scan = rank_scan(u128(copies_local));
    const exact::ScanTotal residual_scan = rank_scan(r.local);
    const std::uint64_t remaining = in.samples - static_cast<std::uint64_t>(copies_scan.total);
    r.tree = multinomial_tree(in.seed, in.step, remaining, residual_scan.total);
    r.below = residual_scan.below;
    r.first = multinomial_count_below(r.tree, r.below);
    r.points = multinomial_count_below(r.tree, r.below + r.local) - r.first;
    r.share.first_id = static_cast<std::uint64_t>(copies_scan.below) + r.first;
    r.share.offspring = copies_local + r.points;
    return r;
  }

  template <class RankScan>
  SelectionShareResult residual(RankScan& rank_scan) {
    const ResidualShare r = residual_share(rank_scan);
    multinomial_points(r.tree, ws.residual.data(), r.below, r.local, r.first, r.points, r.share.offspring, true);
    return r.share;
  }

  // The alias sampler: the scheme fixes only the rank's offspring count; its ancestors are that many
  // draws from the exact alias table of the rank's fixed weights. PSA builds Vose's table bit for bit
  // (kernels/alias/psa.hpp), and draw d uses the stream id N + first_id + d, so this is
  // select_offspring's add_alias_counts (local_sampling.cpp) in the execution space. Counts first
  // (the draws' histogram, atomic integer increments), then the ancestors in local order.
  template <class RankScan>
  SelectionShareResult alias(RankScan& rank_scan) {
    SelectionShareResult share;
    switch (in.scheme) {
      case Scheme::systematic:
      case Scheme::stratified:
        share = evenly_spaced_share(evenly_spaced_points(in.scheme == Scheme::stratified));
        break;
      case Scheme::multinomial:
        share = multinomial_share(multinomial_draw());
        break;
      case Scheme::residual:
        share = residual_share(rank_scan).share;
        break;
    }
    const std::uint64_t n = chunks.n;
    reserve(ws.ancestor, share.offspring, "rsmc::select::ancestor");
    reserve(ws.counts, n, "rsmc::select::counts");
    const auto counts = Kokkos::subview(ws.counts, std::make_pair(std::uint64_t(0), n));
    if (share.offspring == 0) {  // a rank without offspring may hold only zero weights: no table to build
      kernels::fill(exec, "rsmc::select::counts", counts, n, std::uint64_t(0));
      return share;
    }
    const auto table = kernels::alias::build_alias(exec, in.fixed_weights, in.wheel.local, ws.alias);
    kernels::alias::AliasSampleOptions draws;
    draws.first_draw_id = in.samples + share.first_id;  // apart from every id a scheme's points use (< N)
    kernels::alias::sample_counts(exec, table, share.offspring, in.seed, in.step, counts, draws);
    Kokkos::parallel_scan(
        "rsmc::select::alias_ancestors", over(n),
        selection_kernels::AncestorsOfCounts{ws.counts.data(), ws.ancestor.data(), n, share.offspring, error});
    return share;
  }
};

// Buffers for n particles in chunks of `chunk` (grown only), and the error word; returns the chunk
// count.
template <class ExecutionSpace>
std::uint64_t prepare(ParallelSelectionWorkspace<ExecutionSpace>& ws, std::uint64_t n, std::uint64_t chunk,
                      bool residual) {
  using Workspace = ParallelSelectionWorkspace<ExecutionSpace>;
  const std::uint64_t nchunks = (n + chunk - 1) / chunk;
  reserve(ws.chunk_total, nchunks, "rsmc::select::chunk_total");
  reserve(ws.chunk_start, nchunks + 1, "rsmc::select::chunk_start");
  reserve(ws.position, nchunks + 1, "rsmc::select::position");
  reserve(ws.point_position, nchunks + 1, "rsmc::select::point_position");
  if (residual) {
    reserve(ws.chunk_copies, nchunks, "rsmc::select::chunk_copies");
    reserve(ws.copies_start, nchunks + 1, "rsmc::select::copies_start");
  }
  if (ws.error.data() == nullptr) {
    ws.error = Kokkos::View<int, typename Workspace::memory_space>("rsmc::select::error");
    ws.host_u128 = Kokkos::View<exact::u128, Kokkos::HostSpace>("rsmc::select::host_u128");
    ws.host_u64 = Kokkos::View<std::uint64_t, Kokkos::HostSpace>("rsmc::select::host_u64");
  }
  return nchunks;
}

}  // namespace parallel_selection_detail

// Exact scans over the ranks of comm (residual resampling's floors and residual totals).
struct MpiRankScan {
  MPI_Comm comm;
  exact::ScanTotal operator()(exact::u128 local) const { return exact::exclusive_scan_total(local, comm); }
};

// The rank's selection into ws.ancestor (and ws.counts), in `exec`'s stream of work. `rank_scan`
// gives the exact exclusive scan and total over the ranks of a 128-bit integer (MpiRankScan; tests
// simulate ranks with their own); only residual resampling calls it, twice, collectively.
// Throws rsmc::Error on bad input (the message names it) and on an internal inconsistency.
template <class ExecutionSpace, class RankScan>
SelectionShareResult select_offspring_parallel(const ExecutionSpace& exec,
                                               const ParallelSelectionInputs<typename ExecutionSpace::memory_space>& in,
                                               RankScan&& rank_scan, ParallelSelectionWorkspace<ExecutionSpace>& ws,
                                               const ParallelSelectionOptions& options = {}) {
  const std::uint64_t n = in.fixed_weights.extent(0);
  parallel_selection_detail::check_inputs(in.scheme, in.sampler, in.wheel, in.samples, in.seed, n);
  const std::uint64_t chunk = parallel_selection_detail::chunk_size<ExecutionSpace>(options.chunk);
  if (options.wheel_scanned &&
      !(ws.scanned.weights == in.fixed_weights.data() && ws.scanned.particles == n && ws.scanned.chunk == chunk))
    throw Error(
        "internal error: the selection was told the wheel is scanned, but fixed_weights_and_wheel ran on "
        "other weights or another chunk size");
  const std::uint64_t nchunks = parallel_selection_detail::prepare(ws, n, chunk, in.scheme == Scheme::residual);
  Kokkos::deep_copy(exec, ws.error, 0);
  parallel_selection_detail::Run<ExecutionSpace> run{
      exec,
      in,
      ws,
      options,
      parallel_selection_detail::resolve_path<ExecutionSpace>(options.path, in.sampler),
      selection_kernels::Chunks{chunk, n},
      nchunks,
      ws.error.data()};
  SelectionShareResult share;
  if (in.sampler == LocalSampler::alias) {
    share = run.alias(rank_scan);
  } else {
    switch (in.scheme) {
      case Scheme::systematic:
        share = run.evenly_spaced(false);
        break;
      case Scheme::stratified:
        share = run.evenly_spaced(true);
        break;
      case Scheme::multinomial:
        share = run.multinomial();
        break;
      case Scheme::residual:
        share = run.residual(rank_scan);
        break;
    }
  }
  int error = 0;
  copy_and_fence(exec, Kokkos::View<int, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(&error), ws.error);
  if (error != 0) parallel_selection_detail::report_kernel_error(error);
  return share;
}

template <class ExecutionSpace>
SelectionShareResult select_offspring_parallel(const ExecutionSpace& exec,
                                               const ParallelSelectionInputs<typename ExecutionSpace::memory_space>& in,
                                               MPI_Comm comm, ParallelSelectionWorkspace<ExecutionSpace>& ws,
                                               const ParallelSelectionOptions& options = {}) {
  return select_offspring_parallel(exec, in, MpiRankScan{comm}, ws, options);
}

// The fixed-point weights of this rank's particles (base/exact/fixed_weight.hpp) into `fixed`, with
// their chunk totals and exclusive scan into the workspace, in one pass over the log-weights; returns
// the rank's exact total (its wheel share's `local`, for the scans over the ranks). A following
// select_offspring_parallel on `fixed` with the same options and options.wheel_scanned = true skips
// its own pass over the weights. exp_weight: exp(log_weight - shift) for every particle with
// a finite log-weight, when the caller has them (same bits, one exp less, a vectorised loop:
// selection_kernels::fixed_weights_from_exps), or an empty View.
template <class ExecutionSpace>
exact::u128 fixed_weights_and_wheel(const ExecutionSpace& exec,
                                    Kokkos::View<const double*, typename ExecutionSpace::memory_space> log_weight,
                                    double shift,
                                    Kokkos::View<const double*, typename ExecutionSpace::memory_space> exp_weight,
                                    Kokkos::View<std::uint64_t*, typename ExecutionSpace::memory_space> fixed,
                                    ParallelSelectionWorkspace<ExecutionSpace>& ws,
                                    const ParallelSelectionOptions& options = {}) {
  const std::uint64_t n = log_weight.extent(0);
  if (fixed.extent(0) < n || (exp_weight.extent(0) != 0 && exp_weight.extent(0) < n))
    throw Error("internal error: fixed_weights_and_wheel got buffers shorter than the " + std::to_string(n) +
                " log-weights");
  const std::uint64_t chunk = parallel_selection_detail::chunk_size<ExecutionSpace>(options.chunk);
  const std::uint64_t nchunks = parallel_selection_detail::prepare(ws, n, chunk, false);
  const selection_kernels::Chunks chunks{chunk, n};
  const double* exps = exp_weight.extent(0) != 0 ? exp_weight.data() : nullptr;
  Kokkos::parallel_for("rsmc::select::fixed_weights", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, nchunks),
                       selection_kernels::FixedWeightChunks{log_weight.data(), exps, shift, fixed.data(),
                                                            ws.chunk_total.data(), chunks});
  Kokkos::parallel_scan(
      "rsmc::select::chunk_scan", Kokkos::RangePolicy<ExecutionSpace>(exec, 0, nchunks + 1),
      selection_kernels::ExclusiveScan<exact::u128>{ws.chunk_total.data(), ws.chunk_start.data(), nchunks});
  ws.scanned = {fixed.data(), n, chunk};
  Kokkos::deep_copy(exec, ws.host_u128, Kokkos::subview(ws.chunk_start, nchunks));
  exec.fence();
  return ws.host_u128();
}

}  // namespace rsmc
