// Exact, partition-independent sums over the particles of one rank, on any Kokkos backend.
//
// The particles are cut into chunks; each chunk accumulates its terms into ExactSum accumulators
// (one thread per chunk), most of them through a 128-bit ExactSumWindow in front of each, and the
// host merges the chunk accumulators. Because every addition is exact, neither the chunking, nor
// the windows, nor the thread schedule, nor (after allreduce_exact) the number of ranks can change
// a single bit of the result.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <string>
#include <vector>

#include "framework/exact/exact_sum.hpp"
#include "framework/exact/exact_window.hpp"

namespace rsmc::exact {

// What reduce_exact's f receives for one chunk: add(k, x) adds x to accumulator k, exactly, through
// the chunk's ExactSumWindow of that accumulator (exact_window.hpp).
class ChunkSums {
 public:
  KOKKOS_INLINE_FUNCTION ChunkSums(ExactSum* sums, ExactSumWindow* windows) : sums_(sums), windows_(windows) {}
  KOKKOS_INLINE_FUNCTION void add(int k, double x) const { windows_[k].add(x, sums_[k]); }

 private:
  ExactSum* sums_;
  ExactSumWindow* windows_;
};

// Adds f's terms for items 0..n-1 into `out` (nsums accumulators, host memory, not cleared).
// f(i, acc) must add item i's contribution with acc.add(k, x), k < nsums; it runs inside a kernel.
template <class ExecutionSpace, class AddTerms>
void reduce_exact(const std::string& label, std::size_t n, int nsums, const AddTerms& f, ExactSum* out) {
  // Chunks of at least 4096 items, and not many more than 8 per unit of concurrency: on a GPU
  // that is 4096, on a host backend a few large chunks, so the partial accumulators (568 bytes
  // each, nsums per chunk) stay small and are not allocated and cleared by the thousand per call.
  const std::size_t per_unit = n / (8 * static_cast<std::size_t>(ExecutionSpace().concurrency()) + 1);
  const std::size_t chunk = per_unit > 4096 ? per_unit : 4096;
  const std::size_t chunks = (n + chunk - 1) / chunk;
  if (chunks == 0) return;
  using Memory = typename ExecutionSpace::memory_space;
  const auto shape = [&](const char* what) {
    return Kokkos::view_alloc(Kokkos::WithoutInitializing, label + what);
  };
  Kokkos::View<ExactSum**, Kokkos::LayoutRight, Memory> partial(shape("::partial"), chunks,
                                                                static_cast<std::size_t>(nsums));
  Kokkos::View<ExactSumWindow**, Kokkos::LayoutRight, Memory> windows(shape("::windows"), chunks,
                                                                      static_cast<std::size_t>(nsums));
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<ExecutionSpace>(0, chunks), KOKKOS_LAMBDA(const std::size_t c) {
        ExactSum* sums = &partial(c, 0);
        ExactSumWindow* window = &windows(c, 0);
        for (int k = 0; k < nsums; ++k) {
          sums[k].clear();
          window[k].clear();
        }
        const ChunkSums acc(sums, window);
        const std::size_t end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
        for (std::size_t i = c * chunk; i < end; ++i) f(i, acc);
        for (int k = 0; k < nsums; ++k) window[k].flush(sums[k]);
      });
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), partial);
  for (std::size_t c = 0; c < chunks; ++c)
    for (int k = 0; k < nsums; ++k) out[k].merge(host(c, k));
}

}  // namespace rsmc::exact
