// Batched categorical draws for CPU builds: one draw per particle from its own K-way distribution,
// with the butterfly-patterned partial sums of Steele & Tristan (kernels/host/butterfly_table.hpp).
//
//   batched_categorical<ExecSpace, W[, Acc]>(weights, u, out):
//     weights: particles x K, row-major (LayoutRight; a padded row stride is fine), weights >= 0;
//     u:       one uniform in [0, 1) per particle;
//     out[p] = the smallest j with u'_p < a_p0 + .. + a_pj, where u'_p = butterfly::scaled_point(u[p],
//              row total) is clamped into [0, total); K when row p has no positive total.
//
// ExecSpace must be a host execution space (Serial, OpenMP, Threads): the particles are cut into one
// contiguous run of warp-sized groups (32 particles) per thread of the space, and each run goes through
// the host twin of the CUDA kernel, so the result equals kernels/host/butterfly_sampling.hpp's
// butterfly_categorical and, on a GPU, kernels/cuda/butterfly.hpp's (bit for bit, floats included) for
// any thread count. With integer weights (std::uint64_t, exact u128 sums by default) it is exactly the
// index of the sequential prefix-sum search. On a GPU use the CUDA launcher.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/butterfly/butterfly_common.hpp"
#include "kernels/host/butterfly_table.hpp"

namespace rsmc::kernels::butterfly {

template <class ExecSpace, class W, class Acc = accumulator_t<W>>
void batched_categorical(const Kokkos::View<const W**, Kokkos::LayoutRight, typename ExecSpace::memory_space>& weights,
                         const Kokkos::View<const double*, typename ExecSpace::memory_space>& u,
                         const Kokkos::View<std::uint32_t*, typename ExecSpace::memory_space>& out) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible,
                "batched_categorical runs on host execution spaces; on a GPU use kernels/cuda/butterfly.hpp");
  constexpr unsigned kWarp = kCudaWarpWidth;
  const std::size_t particles = weights.extent(0), k = weights.extent(1);
  if (u.extent(0) != particles || out.extent(0) != particles)
    throw std::invalid_argument("batched_categorical: " + std::to_string(particles) + " weight rows but " +
                                std::to_string(u.extent(0)) + " uniforms and " + std::to_string(out.extent(0)) +
                                " outputs; expected one uniform and one output per row");
  if (particles == 0) return;
  host::check_butterfly_k(k, "batched_categorical");
  const std::size_t stride = weights.stride(0);
  const std::size_t groups = (particles + kWarp - 1) / kWarp;
  const std::size_t threads = static_cast<std::size_t>(ExecSpace().concurrency());
  const std::size_t runs = threads < 1 ? 1 : (threads < groups ? threads : groups);
  const W* data = weights.data();
  std::uint32_t* result = out.data();
  const std::size_t out_stride = out.stride(0);
  Kokkos::parallel_for("rsmc::butterfly::batched_categorical", Kokkos::RangePolicy<ExecSpace>(0, runs),
                       [=](const std::size_t run) {
                         host::ButterflyWarpTable<Acc, kWarp> table;
                         const W* rows[kWarp];
                         double uniform[kWarp];
                         std::uint32_t index[kWarp];
                         const std::size_t end = (run + 1) * groups / runs;
                         for (std::size_t g = run * groups / runs; g < end; ++g) {
                           const std::size_t first = g * kWarp;
                           for (unsigned r = 0; r < kWarp; ++r) {
                             const bool valid = first + r < particles;
                             rows[r] = valid ? data + (first + r) * stride : nullptr;
                             uniform[r] = valid ? u(first + r) : 0.0;
                           }
                           table.build(rows, k);
                           table.draw(uniform, index);
                           for (unsigned r = 0; r < kWarp && first + r < particles; ++r)
                             result[(first + r) * out_stride] = index[r];
                         }
                       });
  ExecSpace().fence();
}

}  // namespace rsmc::kernels::butterfly
