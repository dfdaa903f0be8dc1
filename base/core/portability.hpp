// Portability macros shared by host code, Kokkos kernels and raw CUDA kernels.
//
// RSMC_HOST_DEVICE marks small inline functions that must be callable from the host, from Kokkos
// kernels (whatever the backend) and from hand-written CUDA kernels. It deliberately does not
// include Kokkos, so that kernels/cuda/ can use the same random streams and models without it.
#pragma once

#if defined(__CUDACC__) || defined(__HIPCC__)
#define RSMC_HOST_DEVICE __host__ __device__ inline
#define RSMC_ON_DEVICE_COMPILER 1
#else
#define RSMC_HOST_DEVICE inline
#define RSMC_ON_DEVICE_COMPILER 0
#endif

// RSMC_VECTOR_INLINE marks small RSMC_HOST_DEVICE functions that run inside the per-particle loops
// the compiler must vectorise (random draws, rsmc::math, weights, sums): they are always inlined on
// GCC and Clang hosts, because one call left in a loop stops its vectorisation, and GCC's inliner
// gives up on large callers (a model's transition with several draws and exp/log) by its size
// heuristics (docs/design/vectorised-step.md).
#if defined(__CUDACC__) || defined(__HIPCC__)
#define RSMC_VECTOR_INLINE __host__ __device__ __forceinline__
#elif defined(__GNUC__)
#define RSMC_VECTOR_INLINE inline __attribute__((always_inline))
#else
#define RSMC_VECTOR_INLINE inline
#endif

// RSMC_FLATTEN marks the engine's batch functions that call a model in a loop over particles: every
// call inside them is inlined (GCC/Clang `flatten`), recursively, so a model's functions, written with
// plain RSMC_HOST_DEVICE, become part of the loop, and a model that draws and computes in
// straight-line code is vectorised across particles. Without it GCC keeps SV's transition as a call
// (its size heuristics), and the loop stays scalar.
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__HIPCC__)
#define RSMC_FLATTEN __attribute__((flatten))
#else
#define RSMC_FLATTEN
#endif
