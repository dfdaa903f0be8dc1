// Exact, partition-independent sums over the particles of one rank, on any Kokkos backend.
//
// The particles are cut into fixed chunks; each chunk accumulates its terms into ExactSum
// accumulators (one thread per chunk), and the host merges the chunk accumulators. Because every
// addition is exact, neither the chunking, nor the thread schedule, nor (after allreduce_exact)
// the number of ranks can change a single bit of the result.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <string>
#include <vector>

#include "framework/exact/exact_sum.hpp"

namespace rsmc::exact {

// Adds f's terms for items 0..n-1 into `out` (nsums accumulators, host memory, not cleared).
// f(i, sums) must add item i's contribution to sums[0..nsums-1]; it runs inside a kernel.
template <class ExecutionSpace, class AddTerms>
void reduce_exact(const std::string& label, std::size_t n, int nsums, const AddTerms& f, ExactSum* out) {
  constexpr std::size_t kChunk = 4096;
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  if (chunks == 0) return;
  using Memory = typename ExecutionSpace::memory_space;
  Kokkos::View<ExactSum**, Kokkos::LayoutRight, Memory> partial(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::partial"), chunks, static_cast<std::size_t>(nsums));
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<ExecutionSpace>(0, chunks), KOKKOS_LAMBDA(const std::size_t c) {
        ExactSum* sums = &partial(c, 0);
        for (int k = 0; k < nsums; ++k) sums[k].clear();
        const std::size_t end = (c + 1) * kChunk < n ? (c + 1) * kChunk : n;
        for (std::size_t i = c * kChunk; i < end; ++i) f(i, sums);
      });
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), partial);
  for (std::size_t c = 0; c < chunks; ++c)
    for (int k = 0; k < nsums; ++k) out[k].merge(host(c, k));
}

}  // namespace rsmc::exact
