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
