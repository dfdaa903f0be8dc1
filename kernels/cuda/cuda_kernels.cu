#include <cuda_runtime.h>

#include "base/core/error.hpp"
#include "kernels/cuda/cuda_kernels.hpp"
#include "kernels/inverse_cdf/upper_bound.hpp"

namespace rsmc::kernels::cuda {

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw Error(std::string("CUDA ") + what + ": " + cudaGetErrorString(status));
}

constexpr int kBlock = 256;

unsigned grid_for(std::size_t count) { return static_cast<unsigned>((count + kBlock - 1) / kBlock); }

__global__ void systematic_search_kernel(const double* cumulative, std::size_t n, std::size_t last_positive,
                                         double uniform, std::size_t first, std::size_t count, std::size_t total,
                                         std::uint64_t* ancestors) {
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (k < count) ancestors[k] = systematic_ancestor(cumulative, n, last_positive, uniform, first + k, total);
}

__global__ void first_uniforms_kernel(std::uint64_t seed, rng::Purpose purpose, std::uint32_t step,
                                      std::uint64_t first_id, std::size_t count, double* out) {
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (k < count) out[k] = rng::Stream(seed, purpose, step, first_id + k).uniform();
}

}  // namespace

int device_count(std::string* why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    if (why) *why = cudaGetErrorString(status);
    return 0;
  }
  if (count == 0 && why) *why = "no CUDA device present";
  return count;
}

void systematic_search(const double* cumulative, std::size_t n, std::size_t last_positive, double uniform,
                       std::size_t first, std::size_t count, std::size_t total, std::uint64_t* ancestors) {
  if (count == 0) return;
  systematic_search_kernel<<<grid_for(count), kBlock>>>(cumulative, n, last_positive, uniform, first, count, total,
                                                        ancestors);
  check(cudaGetLastError(), "systematic_search launch");
  check(cudaDeviceSynchronize(), "systematic_search");
}

void first_uniforms(std::uint64_t seed, rng::Purpose purpose, std::uint32_t step, std::uint64_t first_id,
                    std::size_t count, double* out) {
  if (count == 0) return;
  first_uniforms_kernel<<<grid_for(count), kBlock>>>(seed, purpose, step, first_id, count, out);
  check(cudaGetLastError(), "first_uniforms launch");
  check(cudaDeviceSynchronize(), "first_uniforms");
}

void* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  check(cudaMalloc(&p, bytes), "cudaMalloc");
  return p;
}
void device_free(void* p) { check(cudaFree(p), "cudaFree"); }
void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "copy to device");
}
void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "copy to host");
}

}  // namespace rsmc::kernels::cuda
