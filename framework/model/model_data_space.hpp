// Where a model keeps the tables its kernels read (matrices, cumulative probabilities):
// rsmc::ModelDataSpace.
//
// A model is built once, before `--device` chooses the execution space (drivers/device_choice.hpp),
// and a GPU build runs it on either side: Kokkos::Cuda, or the host's space with `--device host`.
// So the data its kernels read must be readable from both. Kokkos::SharedSpace is such memory:
// managed memory in a CUDA build, whose pages move to the side that touches them (a run reads them
// from one side only, so they move once), and host memory in a host build. Device memory made
// `--device host` read device addresses on the host, a segmentation fault (the GPU kit found it,
// 2026-11-27, docs/gpu.md).
#pragma once

#include <Kokkos_Core.hpp>

namespace rsmc {

#ifdef KOKKOS_HAS_SHARED_SPACE
using ModelDataSpace = Kokkos::SharedSpace;
#else  // Kokkos 3 (Debian 12's, host backends only): the default memory space is the host's
using ModelDataSpace = Kokkos::DefaultExecutionSpace::memory_space;
#endif

// What the choice is for, checked where it is made (a CUDA build compiles this with Kokkos::Cuda).
// Two assertions, not one with &&: Kokkos 3's `accessible` is an enumerator, and clang warns of a
// logical operator on constants (an error under -Werror).
static_assert(Kokkos::SpaceAccessibility<Kokkos::DefaultHostExecutionSpace, ModelDataSpace>::accessible,
              "a model's kernel data must be readable from the host's execution space");
static_assert(Kokkos::SpaceAccessibility<Kokkos::DefaultExecutionSpace, ModelDataSpace>::accessible,
              "a model's kernel data must be readable from the device's execution space");

}  // namespace rsmc
