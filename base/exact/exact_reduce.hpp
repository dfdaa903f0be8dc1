// Exact, partition-independent sums over the particles of one rank, on any Kokkos backend.
//
// The particles are cut into chunks; each chunk accumulates its terms into ExactSum accumulators
// (one thread per chunk) through a fast exact front end per accumulator; the chunk accumulators are
// merged in the execution space, and only the total's accumulators reach the host. The front end is
// ExactSumBins (exact_bins.hpp: one integer bin per binary exponent, the fastest on a CPU) on host
// backends with few accumulators, else ExactSumWindow (exact_window.hpp: 128-bit, small enough for a
// GPU thread). Because every addition is exact, neither the chunking, nor the front end, nor the
// thread schedule, nor the merging order, nor (after allreduce_exact) the number of ranks can change
// a single bit of the result.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "base/exact/exact_bins.hpp"
#include "base/exact/exact_sum.hpp"
#include "base/exact/exact_window.hpp"

namespace rsmc::exact {

// What reduce_exact's f receives for one chunk: add(k, x) adds x to accumulator k, exactly, through
// the chunk's front end of that accumulator: ExactSumBins when reduce_exact lends bins, else
// ExactSumWindow (one predictable branch: the same choice for every term of a call).
class ChunkSums {
 public:
  KOKKOS_INLINE_FUNCTION ChunkSums(ExactSum* sums, ExactSumBins* bins) : sums_(sums), bins_(bins), windows_(nullptr) {}
  KOKKOS_INLINE_FUNCTION ChunkSums(ExactSum* sums, ExactSumWindow* windows)
      : sums_(sums), bins_(nullptr), windows_(windows) {}
  KOKKOS_INLINE_FUNCTION void add(int k, double x) const {
    if (bins_ != nullptr)
      bins_[k].add(x, sums_[k]);
    else
      windows_[k].add(x, sums_[k]);
  }

 private:
  ExactSum* sums_;
  ExactSumBins* bins_;
  ExactSumWindow* windows_;
};

namespace exact_detail {

// Host backends use ExactSumBins up to this many accumulators (16 KiB each per chunk); beyond, and on
// devices, ExactSumWindow.
constexpr int kMaxBinnedSums = 16;

// Chunk c's partial sums of items [c chunk, min((c + 1) chunk, n)) into partial(c, .), through the
// front ends fronts(c, .). Flushes every ExactSumBins::kMaxTermsPerFlush items, which keeps the bins
// from overflowing (f adds at most one term per accumulator and item); a window flushed that often
// only restarts from the next term's binade.
template <class ExecutionSpace, class Front, class AddTerms, class Partial>
void reduce_chunks(const std::string& label, std::size_t n, std::size_t chunk, std::size_t chunks, int nsums,
                   const AddTerms& f, const Partial& partial, Front* fronts_base) {
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<ExecutionSpace>(0, chunks), KOKKOS_LAMBDA(const std::size_t c) {
        ExactSum* sums = &partial(c, 0);
        Front* fronts = fronts_base + c * static_cast<std::size_t>(nsums);
        for (int k = 0; k < nsums; ++k) {
          sums[k].clear();
          // Bins are empty on entry (value-initialised, or flushed at the end of the last call);
          // clearing their 16 KiB would cost more than the sums.
          if constexpr (!std::is_same<Front, ExactSumBins>::value) fronts[k].clear();
        }
        const ChunkSums acc(sums, fronts);
        const std::size_t end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
        for (std::size_t block = c * chunk; block < end; block += ExactSumBins::kMaxTermsPerFlush) {
          const std::size_t block_end =
              end - block > ExactSumBins::kMaxTermsPerFlush ? block + ExactSumBins::kMaxTermsPerFlush : end;
          for (std::size_t i = block; i < block_end; ++i) f(i, acc);
          for (int k = 0; k < nsums; ++k) fronts[k].flush(sums[k]);
        }
      });
}

// partial(0, .) += partial(c, .) for every chunk c, in ExecutionSpace: a pairwise tree, one kernel
// per level (ceil(log2 chunks) of them). Only nsums accumulators then go to the host, not
// chunks x nsums: on a GPU the chunks are 4,096 items, so their count grows with N. Every merge is
// exact, so the tree's order cannot change a bit.
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

}  // namespace exact_detail

// Adds f's terms for items 0..n-1 into `out` (nsums accumulators, host memory, not cleared).
// f(i, acc) must add item i's contribution with acc.add(k, x), k < nsums, at most one term per
// accumulator; it runs inside a kernel.
template <class ExecutionSpace, class AddTerms>
void reduce_exact(const std::string& label, std::size_t n, int nsums, const AddTerms& f, ExactSum* out) {
  // Chunks of at least 4096 items, and not many more than 8 per unit of concurrency: on a GPU
  // that is 4096, on a host backend a few large chunks, so the partial accumulators (568 bytes
  // each, nsums per chunk) stay small and are not allocated and cleared by the thousand per call.
  const std::size_t per_unit = n / (8 * static_cast<std::size_t>(ExecutionSpace().concurrency()) + 1);
  const std::size_t chunk = per_unit > 4096 ? per_unit : 4096;
  const std::size_t chunks = (n + chunk - 1) / chunk;
  if (chunks == 0 || nsums <= 0) return;
  using Memory = typename ExecutionSpace::memory_space;
  const auto shape = [&](const char* what) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, label + what); };
  Kokkos::View<ExactSum**, Kokkos::LayoutRight, Memory> partial(shape("::partial"), chunks,
                                                                static_cast<std::size_t>(nsums));
  const std::size_t fronts = chunks * static_cast<std::size_t>(nsums);
  // The kernel runs in ExecutionSpace: front ends in host memory (std::vector) only where it can
  // read host memory (Serial, OpenMP, Threads), else a View in its memory space.
  if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible) {
    if (nsums <= exact_detail::kMaxBinnedSums) {
      // Kept between calls (16 KiB per accumulator and chunk): the filter reduces twice per step,
      // and fresh pages each time would cost more than the sums. Host memory, used by the host
      // thread that calls reduce_exact and the kernel it launches.
      static thread_local std::vector<ExactSumBins> bins;
      if (bins.size() < fronts) bins.resize(fronts);  // value-initialised: empty
      exact_detail::reduce_chunks<ExecutionSpace>(label, n, chunk, chunks, nsums, f, partial, bins.data());
    } else {
      std::vector<ExactSumWindow> windows(fronts);
      exact_detail::reduce_chunks<ExecutionSpace>(label, n, chunk, chunks, nsums, f, partial, windows.data());
    }
  } else {
    Kokkos::View<ExactSumWindow*, Memory> windows(shape("::windows"), fronts);
    exact_detail::reduce_chunks<ExecutionSpace>(label, n, chunk, chunks, nsums, f, partial, windows.data());
  }
  exact_detail::merge_chunks<ExecutionSpace>(label, chunks, nsums, partial);
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Kokkos::subview(partial, 0, Kokkos::ALL));
  for (int k = 0; k < nsums; ++k) out[k].merge(host(k));
}

}  // namespace rsmc::exact
