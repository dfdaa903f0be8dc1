// The distributed roulette resampler (Nemeth et al., ICCS 2018, Algorithm 1, and beyond).
//
// The steps, each in the folder of its own, in the order a resampling runs them:
//   1. fixed-point weights relative to the step's shift, the global maximum log-weight or a bound
//      above it (exact integers, 64 fraction bits; base/exact/fixed_weight.hpp)
//   2. this rank's total, the exclusive scan over ranks and the grand total: exact 128-bit integers
//   3. select/: selection on the exact wheel: offspring counts per local particle and the new id q of
//      the first offspring; p-invariant by construction (the alias sampler's draws excepted).
//      Data-parallel kernels in the particles' execution space (parallel_selection.hpp) for every
//      scheme and local sampler; the serial host selection (selection.hpp) for Algorithm 1. The host
//      selection is also the reference the kernels match bit for bit
//      (tests/unit/test_parallel_selection.cpp).
//   4. renumber/: offspring get ids q, q+1, ... in ancestor order, without communication (the
//      parallel selection writes the ancestors itself; after the host selection, a host pass)
//   5. rebalance/: the new layout, the band's targets (tau = 0: the block distribution) or the one
//      within the band that moves the fewest particles (layout_choice.hpp); then neighbour
//      rebalancing (rebalance.hpp): contiguous id ranges held outside the rank's range in the new
//      layout go point-to-point to their owners, packed and unpacked by kernels in bulk buffers in
//      the particles' memory space, which MPI reads in place or through pinned host buffers
// Work per rank O(N/p + log N) plus what arrives; no collective is larger than a few integers, and
// p integers (the offspring counts) when tau > 0.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <utility>
#include <vector>

#include "base/core/error.hpp"
#include "base/core/host_or_device.hpp"
#include "base/core/instance_copy.hpp"
#include "base/core/reserve.hpp"
#include "base/exact/fixed_weight.hpp"
#include "framework/parallel/mpi.hpp"
#include "framework/parallel/phase_times.hpp"
#include "framework/parallel/u128_mpi.hpp"
#include "framework/particles/block_distribution.hpp"
#include "framework/particles/layout.hpp"
#include "framework/particles/load_band.hpp"
#include "framework/particles/particle_store.hpp"
#include "framework/resample/rebalance/layout_choice.hpp"
#include "framework/resample/rebalance/rebalance.hpp"
#include "framework/resample/renumber/renumber.hpp"
#include "framework/resample/resample_stats.hpp"
#include "framework/resample/resample_workspace.hpp"
#include "framework/resample/scheme.hpp"
#include "framework/resample/select/selection.hpp"
#include "framework/resample/shifted_weights.hpp"

namespace rsmc {

// Fixed-point weights of this rank's particles relative to weights.shift into workspace.fixed_host
// (global id order), and their exact sum. One pass: on the host straight into the host vector, else
// a kernel and one copy. From weights.exp_weight when it holds the exps (shifted_weights.hpp).
template <class MemorySpace>
exact::u128 compute_fixed_weights(const Kokkos::View<double*, MemorySpace>& log_weight,
                                  const ShiftedWeights<MemorySpace>& weights,
                                  ResampleWorkspace<MemorySpace>& workspace) {
  using Exec = typename MemorySpace::execution_space;
  const std::size_t n = log_weight.extent(0);
  const double shift = weights.shift;
  const auto e = weights.exps_for(n);
  const bool given = e.extent(0) == n && n > 0;
  std::vector<std::uint64_t>& out = workspace.fixed_host;
  out.resize(n);
  if constexpr (runs_on_host<Exec>()) {
    // The 128-bit total as two 64-bit registers (a u128 accumulator is kept on the stack, a
    // store-to-load chain per particle).
    std::uint64_t low = 0, carries = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t f =
          given ? exact::fixed_weight_given_exp(log_weight(i), shift, e(i)) : exact::fixed_weight(log_weight(i), shift);
      out[i] = f;
      low += f;
      carries += low < f ? 1 : 0;
    }
    return (exact::u128(carries) << 64) | low;
  } else {
    reserve(workspace.fixed, n, "rsmc::fixed_weight");
    const auto fixed = workspace.fixed;
    Kokkos::parallel_for(
        "rsmc::fixed_weight", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const std::size_t i) {
          fixed(i) = given ? exact::fixed_weight_given_exp(log_weight(i), shift, e(i))
                           : exact::fixed_weight(log_weight(i), shift);
        });
    Kokkos::View<std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(out.data(), n);
    copy_and_fence(Exec(), host, Kokkos::subview(fixed, std::make_pair(std::size_t(0), n)));
    exact::u128 total = 0;
    for (auto w : out) total += w;
    return total;
  }
}

// Fixed-point weights of this rank's particles relative to `shift` (host copy, global id order).
template <class MemorySpace>
std::vector<std::uint64_t> fixed_weights(const Kokkos::View<double*, MemorySpace>& log_weight, double shift) {
  ResampleWorkspace<MemorySpace> workspace;
  ShiftedWeights<MemorySpace> weights;
  weights.shift = shift;
  compute_fixed_weights(log_weight, weights, workspace);
  return std::move(workspace.fixed_host);
}

// Exact shares of the wheel from this rank's total: the total of lower ranks, and the grand total.
inline WheelShare wheel_share(exact::u128 local, MPI_Comm comm) {
  const exact::ScanTotal scan = exact::exclusive_scan_total(local, comm);
  return WheelShare{scan.below, local, scan.total};
}
inline WheelShare wheel_share(const std::vector<std::uint64_t>& fixed, MPI_Comm comm) {
  exact::u128 local = 0;
  for (auto w : fixed) local += w;
  return wheel_share(local, comm);
}

// The layout after a selection: the band's targets when it is fixed (tau = 0: no communication),
// else choose_layout on every rank's offspring count (one allgather of p integers).
inline Layout next_layout(MPI_Comm comm, const LoadBand& band, const Selection& selection) {
  if (band.fixed()) return band.target_layout();
  std::vector<std::uint64_t> held(static_cast<std::size_t>(band.ranks()));
  std::uint64_t mine = selection.offspring;
  MPI_Allgather(&mine, 1, MPI_UINT64_T, held.data(), 1, MPI_UINT64_T, comm);
  return choose_layout(band, held);
}

// What one resampling with the roulette resampler needs besides the particles, and where its
// optional outputs go.
template <class MemorySpace>
struct RouletteRequest {
  // The step's weights: their shift (the fixed-point weights' scale: >= every log-weight of every
  // rank) and, optionally, their exps (shifted_weights.hpp).
  ShiftedWeights<MemorySpace> weights;
  Scheme scheme = Scheme::systematic;
  // Resampler::roulette (the scalable selection) or Resampler::roulette_algorithm1 (the paper's
  // Algorithm 1; multinomial only).
  Resampler resampler = Resampler::roulette;
  LocalSampler sampler = LocalSampler::search;  // the scalable selection's local kernel
  std::uint64_t seed = 0;
  std::uint32_t step = 0;
  PhaseTimes* times = nullptr;  // optional: receives the select and rebalance times
  // Optional: keeps the buffers between calls; without one they are allocated per call.
  ResampleWorkspace<MemorySpace>* workspace = nullptr;
  // Optional: receives a copy of the selection (offspring counts of this rank's particles; the genealogy).
  Selection* selection_out = nullptr;
};

// The selection by the serial host code (selection.hpp): Algorithm 1 (every local sampler of the
// scalable selection runs as data-parallel kernels: select_in_parallel).
template <class MemorySpace>
Selection select_on_host(MPI_Comm comm, const LoadBand& band, ParticleStore<MemorySpace>& store,
                         const RouletteRequest<MemorySpace>& request, ResampleWorkspace<MemorySpace>& ws) {
  SelectionInputs in;
  in.wheel = wheel_share(compute_fixed_weights(store.log_weight, request.weights, ws), comm);
  in.fixed_weights = &ws.fixed_host;
  in.samples = band.size();
  in.seed = request.seed;
  in.step = request.step;
  in.sampler = request.sampler;
  in.counts_buffer = &ws.counts;
  return request.resampler == Resampler::roulette_algorithm1 ? select_algorithm1(in)
                                                             : select_offspring(request.scheme, in, comm);
}

// The selection as data-parallel kernels in the particles' execution space (parallel_selection.hpp):
// fixed-point weights and the wheel's chunk scan in one pass, then the ancestors straight into
// ws.ancestor (renumbering done). The per-particle counts are copied to the host only when the
// caller asks for the selection (the genealogy's trace); otherwise nothing proportional to the
// particles leaves the device.
template <class MemorySpace>
Selection select_in_parallel(MPI_Comm comm, const LoadBand& band, ParticleStore<MemorySpace>& store,
                             const RouletteRequest<MemorySpace>& request, ResampleWorkspace<MemorySpace>& ws) {
  using Exec = typename MemorySpace::execution_space;
  const Exec exec;
  const std::size_t n = store.log_weight.extent(0);
  reserve(ws.fixed, n, "rsmc::fixed_weight");
  const auto fixed = Kokkos::subview(ws.fixed, std::make_pair(std::size_t(0), n));
  // The filter's exps of this step, when it left them (same bits as computing them here).
  const Kokkos::View<const double*, MemorySpace> exps = request.weights.exps_for(n);
  ParallelSelectionOptions options;
  options.counts = request.selection_out != nullptr;
  const exact::u128 local =
      fixed_weights_and_wheel(exec, store.log_weight, request.weights.shift, exps, fixed, ws.selection, options);
  options.wheel_scanned = true;
  ParallelSelectionInputs<MemorySpace> in;
  in.fixed_weights = fixed;
  in.wheel = wheel_share(local, comm);
  in.samples = band.size();
  in.seed = request.seed;
  in.step = request.step;
  in.scheme = request.scheme;
  in.sampler = request.sampler;
  const SelectionShareResult share = select_offspring_parallel(exec, in, comm, ws.selection, options);
  ws.ancestor = ws.selection.ancestor;
  Selection selection;
  selection.first_id = share.first_id;
  selection.offspring = share.offspring;
  if (options.counts) {
    selection.counts = std::move(ws.counts);
    selection.counts.resize(n);
    Kokkos::View<std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(
        selection.counts.data(), n);
    copy_and_fence(exec, host, Kokkos::subview(ws.selection.counts, std::make_pair(std::size_t(0), n)));
  }
  return selection;
}

// One resampling of `store` with the roulette resampler, as `request` says. `band` gives the counts
// each rank may end with; `layout` (in: the store's, out: the new one) follows the particles. Throws
// FieldError for a scheme the resampler does not implement.
template <class MemorySpace>
ResampleStats resample_roulette(MPI_Comm comm, const LoadBand& band, Layout& layout, ParticleStore<MemorySpace>& store,
                                const RouletteRequest<MemorySpace>& request) {
  check_scheme_for(request.resampler, request.scheme);
  if (request.resampler != Resampler::roulette && request.resampler != Resampler::roulette_algorithm1)
    throw FieldError("resampler", resampler_name(request.resampler), "is not a roulette resampler",
                     "{resampler roulette} or roulette-algorithm1");
  const bool algorithm1 = request.resampler == Resampler::roulette_algorithm1;
  ResampleWorkspace<MemorySpace> local_workspace;
  ResampleWorkspace<MemorySpace>& ws = request.workspace != nullptr ? *request.workspace : local_workspace;
  const bool parallel = !algorithm1;  // every scheme and local sampler of the scalable selection
  Selection selection;
  {
    ScopedPhase timed(request.times, Phase::select);
    selection =
        parallel ? select_in_parallel(comm, band, store, request, ws) : select_on_host(comm, band, store, request, ws);
  }
  ScopedPhase timed(request.times, Phase::rebalance);
  layout = next_layout(comm, band, selection);
  const ResampleStats stats =
      rebalance(comm, layout, store, selection, ws, parallel ? Renumbering::ancestors_given : Renumbering::from_counts);
  if (request.selection_out != nullptr) *request.selection_out = selection;  // a copy: the counts' buffer stays below
  ws.counts = std::move(selection.counts);                                   // its capacity serves the next call
  return stats;
}

// The same with the fixed block distribution (tau = 0, equal capacities).
template <class MemorySpace>
ResampleStats resample_roulette(MPI_Comm comm, const BlockDistribution& dist, ParticleStore<MemorySpace>& store,
                                const RouletteRequest<MemorySpace>& request) {
  Layout layout(dist);
  return resample_roulette(comm, LoadBand(dist.size(), dist.ranks()), layout, store, request);
}

}  // namespace rsmc
