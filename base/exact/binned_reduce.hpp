// Reproducible sums over the particles of one rank, in one pass, on any Kokkos backend.
//
// Host backends (reduce_binned_by_batches): the items are cut into chunks, and each chunk into
// batches of kBatch items. For each batch, the caller's fill(k, begin, end, terms) writes the
// batch's terms of sum k into `terms` (a small buffer that stays in L1), and BinnedSum::add(terms,
// count) deposits them with vectorised, branch-free arithmetic (binned_sum.hpp). One thread per chunk.
//
// Devices (reduce_binned_by_teams): one team of threads per chunk of kTeamChunk items. Thread t of a
// team takes items begin + t, begin + t + T, ... (neighbouring threads read neighbouring items, so
// loads coalesce), calls fill(k, i, i + 1, &term) for each and deposits the term in its own
// BinnedFolds (80 bytes, registers); the team then merges its threads' folds by a pairwise tree in
// scratch (shared) memory. One thread per chunk of 4,096 items, as on a host, gave a GPU about 24,000
// threads at 10^8 items, each walking its own 32 KiB of each array through a 2 KiB local buffer.
// A term the folds cannot hold (|x| >= 2^880, +-inf, NaN) is not deposited but reported, and the
// whole reduction then runs again by batches, which sends it to BinnedSum's exact `rare` part.
//
// Either way the chunks' sums are merged in the execution space by a pairwise tree, and only the
// nsums totals reach the host. BinnedSum's merge is exact and its value does not depend on the order
// of its terms, so neither the path, nor the chunking, nor the batching, nor the thread schedule, nor
// the merging order, nor (after allreduce_binned) the number of ranks can change a bit of the result.
//
// fill is called for k = 0, 1, ..., nsums - 1 in this order for each batch (on devices: for each
// item, by the same thread), so fill(0, ...) can compute per-item values (the weights) that later
// sums of the same batch read. On devices fill must accept any sub-range, down to one item.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <string>

#include "base/core/host_or_device.hpp"
#include "base/core/instance_copy.hpp"
#include "base/exact/binned_sum.hpp"

namespace rsmc::exact {

// Where reduce_binned keeps its per-chunk sums between calls: a filter reduces every step, and a
// fresh allocation each time would cost more than the sums on a host, and a device allocation plus
// a fence on a GPU. Grows, never shrinks.
template <class MemorySpace>
struct BinnedReduceWorkspace {
  Kokkos::View<BinnedSum**, Kokkos::LayoutRight, MemorySpace> partial;  // the batch path
  Kokkos::View<BinnedFolds**, Kokkos::LayoutRight, MemorySpace> folds;  // the team path (no rare terms)
  Kokkos::View<int, MemorySpace> rare_seen;                             // the team path: a term was rare
};

namespace binned_reduce_detail {

// Items per batch: the terms of one sum for one batch are 2 KiB, an L1-resident buffer.
constexpr std::size_t kBatch = 256;
// The team path: items per team (32 per thread), and threads per team (10 KiB of scratch).
constexpr std::size_t kTeamChunk = 4096;
constexpr int kTeamSize = 128;

// a += b for the two kinds of chunk sums.
RSMC_HOST_DEVICE void merge_into(BinnedSum& a, const BinnedSum& b) { a.merge(b); }
RSMC_HOST_DEVICE void merge_into(BinnedFolds& a, const BinnedFolds& b) { a.merge_folds(b); }

// A chunk sum as a BinnedSum.
inline const BinnedSum& as_sum(const BinnedSum& s) { return s; }
inline BinnedSum as_sum(const BinnedFolds& f) {
  BinnedSum s;
  s.clear();
  s.merge_folds(f);
  return s;
}

// partial(0, .) += partial(c, .) for every chunk c: a pairwise tree, one kernel per level, so that
// only nsums sums go to the host (on a GPU the chunk count grows with N). Exact merges: the tree's
// shape cannot change a bit.
template <class ExecutionSpace, class Partial>
void merge_chunks(const std::string& label, std::size_t chunks, int nsums, const Partial& partial) {
  for (std::size_t stride = 1; stride < chunks; stride *= 2) {
    const std::size_t pairs = (chunks - stride - 1) / (2 * stride) + 1;  // c = 2 stride j, c + stride < chunks
    Kokkos::parallel_for(
        label + "::merge", Kokkos::RangePolicy<ExecutionSpace>(0, pairs), KOKKOS_LAMBDA(const std::size_t j) {
          const std::size_t c = 2 * stride * j;
          for (int k = 0; k < nsums; ++k) merge_into(partial(c, k), partial(c + stride, k));
        });
  }
}

// `partial` (a workspace's chunk sums) grown to `chunks` rows of nsums sums when smaller.
template <class Partial>
Partial chunk_sums(Partial& partial, const std::string& label, std::size_t chunks, int nsums) {
  if (partial.extent(0) < chunks || partial.extent(1) != static_cast<std::size_t>(nsums))
    partial = Partial(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::partial"), chunks,
                      static_cast<std::size_t>(nsums));
  return partial;
}

// Merges the chunks' sums and adds the total of each sum to out[k] (host memory). `flag` (may be
// empty) is copied to flag_host in the same fence.
template <class ExecutionSpace, class Partial, class Flag>
void finish(const std::string& label, std::size_t chunks, int nsums, const Partial& partial, const Flag& flag,
            int& flag_host, BinnedSum* out) {
  merge_chunks<ExecutionSpace>(label, chunks, nsums, partial);
  const auto first = Kokkos::subview(partial, 0, Kokkos::ALL);  // LayoutRight: one contiguous row
  const auto host = Kokkos::create_mirror_view(Kokkos::HostSpace(), first);
  if (flag.data() != nullptr)
    Kokkos::deep_copy(ExecutionSpace(), Kokkos::View<int, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(&flag_host),
                      flag);
  copy_and_fence(ExecutionSpace(), host, first);
  if (flag_host != 0) return;  // the caller runs the reduction again by batches
  for (int k = 0; k < nsums; ++k) out[k].merge(as_sum(host(k)));
}

// One level of the pairwise tree over a team's folds, lanes(0 .. count): lane t, a multiple of
// 2 stride, takes lane t + stride. Exact merges: the tree's shape cannot change a bit.
template <class Lanes>
RSMC_HOST_DEVICE void merge_lane_level(const Lanes& lanes, int lane, int stride, int count) {
  if (lane % (2 * stride) == 0 && lane + stride < count) lanes(lane).merge_folds(lanes(lane + stride));
}

}  // namespace binned_reduce_detail

// Adds the terms fill writes for items 0..n-1 into out[0..nsums) (host memory, not cleared), one
// thread per chunk of batches: the host path (see the header).
template <class ExecutionSpace, class Fill>
void reduce_binned_by_batches(const std::string& label, std::size_t n, int nsums, const Fill& fill,
                              BinnedReduceWorkspace<typename ExecutionSpace::memory_space>& workspace, BinnedSum* out) {
  using binned_reduce_detail::kBatch;
  // Chunks of at least 16 batches, and not many more than 8 per unit of concurrency: a few large
  // chunks on a host backend.
  const std::size_t per_unit = n / (8 * static_cast<std::size_t>(ExecutionSpace().concurrency()) + 1);
  const std::size_t chunk = per_unit > 16 * kBatch ? (per_unit + kBatch - 1) / kBatch * kBatch : 16 * kBatch;
  const std::size_t chunks = (n + chunk - 1) / chunk;
  if (chunks == 0 || nsums <= 0) return;
  const auto sums = binned_reduce_detail::chunk_sums(workspace.partial, label, chunks, nsums);
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<ExecutionSpace>(0, chunks), KOKKOS_LAMBDA(const std::size_t c) {
        for (int k = 0; k < nsums; ++k) sums(c, k).clear();
        const std::size_t end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
        double terms[kBatch];
        for (std::size_t begin = c * chunk; begin < end; begin += kBatch) {
          const std::size_t batch_end = end - begin > kBatch ? begin + kBatch : end;
          for (int k = 0; k < nsums; ++k) {
            fill(k, begin, batch_end, terms);
            sums(c, k).add(terms, batch_end - begin);
          }
        }
      });
  int no_flag = 0;
  binned_reduce_detail::finish<ExecutionSpace>(
      label, chunks, nsums, sums, Kokkos::View<int, typename ExecutionSpace::memory_space>(), no_flag, out);
}

// The same sums, one team per chunk of kTeamChunk items: the device path (see the header). Runs on
// any backend (a host backend's teams may have one thread); team_size 0 means as many threads as the
// backend allows, up to kTeamSize. Falls back to reduce_binned_by_batches when a term is rare.
template <class ExecutionSpace, class Fill>
void reduce_binned_by_teams(const std::string& label, std::size_t n, int nsums, const Fill& fill,
                            BinnedReduceWorkspace<typename ExecutionSpace::memory_space>& workspace, BinnedSum* out,
                            int team_size = 0) {
  using policy_type = Kokkos::TeamPolicy<ExecutionSpace>;
  using member_type = typename policy_type::member_type;
  using lanes_view = Kokkos::View<BinnedFolds*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  constexpr std::size_t chunk = binned_reduce_detail::kTeamChunk;
  const std::size_t chunks = (n + chunk - 1) / chunk;
  if (chunks == 0 || nsums <= 0) return;
  // The chunks' sums as folds: 80 bytes each where a BinnedSum takes 656, for the merge tree too
  // (it took 16% of a filter step at N = 10^7 on an H100 with BinnedSums). A rare term never reaches
  // them (the batch path reruns instead), so folds are the whole sum.
  const auto sums = binned_reduce_detail::chunk_sums(workspace.folds, label, chunks, nsums);
  if (workspace.rare_seen.data() == nullptr)
    workspace.rare_seen = Kokkos::View<int, typename ExecutionSpace::memory_space>(label + "::rare_seen");
  const auto rare_seen = workspace.rare_seen;
  Kokkos::deep_copy(ExecutionSpace(), rare_seen, 0);
  policy_type policy(ExecutionSpace(), static_cast<int>(chunks), 1);
  const int most = policy.team_size_max(KOKKOS_LAMBDA(const member_type&){}, Kokkos::ParallelForTag());
  int threads = team_size > 0 ? team_size : binned_reduce_detail::kTeamSize;
  if (threads > most) threads = most;
  policy = policy_type(ExecutionSpace(), static_cast<int>(chunks), threads);
  // The lanes at BinnedFolds' own alignment (its 128-bit spills), which Kokkos 3's scratch views
  // (8-byte aligned) would not give.
  constexpr std::size_t align = alignof(BinnedFolds);
  policy.set_scratch_size(0, Kokkos::PerTeam(threads * sizeof(BinnedFolds) + align));
  Kokkos::parallel_for(
      label, policy, KOKKOS_LAMBDA(const member_type& team) {
        const lanes_view lanes(static_cast<BinnedFolds*>(team.team_scratch(0).get_shmem_aligned(
                                   team.team_size() * sizeof(BinnedFolds), align)),
                               team.team_size());
        const int lane = team.team_rank(), count = team.team_size();
        const std::size_t c = team.league_rank(), begin = c * chunk, end = begin + chunk < n ? begin + chunk : n;
        for (int k = 0; k < nsums; ++k) {
          BinnedFolds mine;
          mine.clear_folds();
          bool rare = false;
          for (std::size_t i = begin + lane; i < end; i += count) {
            double term;
            fill(k, i, i + 1, &term);
            rare = !mine.add_within_levels(term) || rare;
          }
          if (rare) Kokkos::atomic_fetch_or(&rare_seen(), 1);
          lanes(lane) = mine;
          team.team_barrier();
          for (int stride = 1; stride < count; stride *= 2) {
            binned_reduce_detail::merge_lane_level(lanes, lane, stride, count);
            team.team_barrier();
          }
          Kokkos::single(Kokkos::PerTeam(team), [&]() {
            BinnedFolds total = lanes(0);
            total.flush();
            sums(c, k) = total;
          });
          team.team_barrier();  // lanes(0) is read before the next sum overwrites it
        }
      });
  int rare_host = 0;
  binned_reduce_detail::finish<ExecutionSpace>(label, chunks, nsums, sums, rare_seen, rare_host, out);
  if (rare_host != 0) reduce_binned_by_batches<ExecutionSpace>(label, n, nsums, fill, workspace, out);
}

// Whether reduce_binned goes by batches (host backends: fill is called once per batch of kBatch
// items, [b kBatch, min((b + 1) kBatch, n)), for sum 0 first) rather than by teams (devices).
template <class ExecutionSpace>
constexpr bool reduces_by_batches() {
  return runs_on_host<ExecutionSpace>();
}

// Adds the terms fill writes for items 0..n-1 into out[0..nsums) (host memory, not cleared):
// by batches on host backends, by teams on devices (see the header).
template <class ExecutionSpace, class Fill>
void reduce_binned(const std::string& label, std::size_t n, int nsums, const Fill& fill,
                   BinnedReduceWorkspace<typename ExecutionSpace::memory_space>& workspace, BinnedSum* out) {
  if constexpr (reduces_by_batches<ExecutionSpace>())
    reduce_binned_by_batches<ExecutionSpace>(label, n, nsums, fill, workspace, out);
  else
    reduce_binned_by_teams<ExecutionSpace>(label, n, nsums, fill, workspace, out);
}

}  // namespace rsmc::exact
