// Reproducible sums over the particles of one rank, in one pass, on any Kokkos backend.
//
// The items are cut into chunks, and each chunk into batches of kBatch items. For each batch, the
// caller's fill(k, begin, end, terms) writes the batch's terms of sum k into `terms` (a small
// buffer that stays in L1), and BinnedSum::add(terms, count) deposits them with vectorised,
// branch-free arithmetic (binned_sum.hpp). One thread per chunk; the chunks' sums are merged in the
// execution space by a pairwise tree, and only the nsums totals reach the host. BinnedSum's merge is
// exact and its value does not depend on the order of its terms, so neither the chunking, nor the
// batching, nor the thread schedule, nor the merging order, nor (after allreduce_binned) the number
// of ranks can change a bit of the result.
//
// fill is called for k = 0, 1, ..., nsums - 1 in this order for each batch, so fill(0, ...) can
// compute per-item values (the weights) that later sums of the same batch read.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <string>

#include "base/core/instance_copy.hpp"
#include "base/exact/binned_sum.hpp"

namespace rsmc::exact {

// Where reduce_binned keeps its per-chunk sums between calls: a filter reduces every step, and a
// fresh allocation each time would cost more than the sums on a host, and a device allocation plus
// a fence on a GPU. Grows, never shrinks.
template <class MemorySpace>
struct BinnedReduceWorkspace {
  Kokkos::View<BinnedSum**, Kokkos::LayoutRight, MemorySpace> partial;
};

namespace binned_reduce_detail {

// Items per batch: the terms of one sum for one batch are 2 KiB, an L1-resident buffer.
constexpr std::size_t kBatch = 256;

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
          for (int k = 0; k < nsums; ++k) partial(c, k).merge(partial(c + stride, k));
        });
  }
}

}  // namespace binned_reduce_detail

// Adds the terms fill writes for items 0..n-1 into out[0..nsums) (host memory, not cleared).
// fill(k, begin, end, terms) runs inside a kernel and must write terms[0 .. end - begin) for sum k.
template <class ExecutionSpace, class Fill>
void reduce_binned(const std::string& label, std::size_t n, int nsums, const Fill& fill,
                   BinnedReduceWorkspace<typename ExecutionSpace::memory_space>& workspace, BinnedSum* out) {
  using binned_reduce_detail::kBatch;
  // Chunks of at least 16 batches, and not many more than 8 per unit of concurrency: a few large
  // chunks on a host backend, 4,096 items on a GPU.
  const std::size_t per_unit = n / (8 * static_cast<std::size_t>(ExecutionSpace().concurrency()) + 1);
  const std::size_t chunk = per_unit > 16 * kBatch ? (per_unit + kBatch - 1) / kBatch * kBatch : 16 * kBatch;
  const std::size_t chunks = (n + chunk - 1) / chunk;
  if (chunks == 0 || nsums <= 0) return;
  auto& partial = workspace.partial;
  if (partial.extent(0) < chunks || partial.extent(1) != static_cast<std::size_t>(nsums))
    partial = decltype(workspace.partial)(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::partial"), chunks,
                                          static_cast<std::size_t>(nsums));
  const auto sums = partial;
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
  binned_reduce_detail::merge_chunks<ExecutionSpace>(label, chunks, nsums, partial);
  const auto first = Kokkos::subview(partial, 0, Kokkos::ALL);  // LayoutRight: one contiguous row
  const auto host = Kokkos::create_mirror_view(Kokkos::HostSpace(), first);
  copy_and_fence(ExecutionSpace(), host, first);
  for (int k = 0; k < nsums; ++k) out[k].merge(host(k));
}

}  // namespace rsmc::exact
