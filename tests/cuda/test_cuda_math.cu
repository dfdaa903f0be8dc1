// rsmc::math on a CUDA device against the host, bit for bit: every function on its first 2^20
// test arguments (tests/math/math_cases.hpp), evaluated by a kernel and by the host, must give the
// same bits (NaNs only need to be NaN on both). Without a usable GPU this program says so and exits
// 77, which CTest reports as skipped (SKIP_RETURN_CODE), never as passed.
//
// This file is deliberately compiled with nvcc's default --fmad=true: rsmc::math uses the
// __dmul_rn/__dadd_rn intrinsics on the device, which are never fused, so its results must not
// depend on that flag.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tests/math/math_cases.hpp"

namespace {

using rsmc::math_test::Args;

template <class F>
__global__ void evaluate_kernel(const double* x, const double* y, double* out, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = F{}(x[i], y[i]);
}

bool check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return true;
  std::printf("FAILED: %s: %s\n", what, cudaGetErrorString(status));
  return false;
}

bool same_bits(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Device against host for function F on n arguments; false (with the first mismatches printed) if
// any result differs.
template <class F>
bool compare(std::size_t n) {
  std::vector<double> x(n), y(n), host(n), device(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Args a = rsmc::math_test::args_of<F>(i);
    x[i] = a.x;
    y[i] = a.y;
    host[i] = F{}(a.x, a.y);
  }
  double *dx = nullptr, *dy = nullptr, *dout = nullptr;
  const std::size_t bytes = n * sizeof(double);
  bool ok = check(cudaMalloc(&dx, bytes), "cudaMalloc") && check(cudaMalloc(&dy, bytes), "cudaMalloc") &&
            check(cudaMalloc(&dout, bytes), "cudaMalloc") &&
            check(cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice), "copy to device") &&
            check(cudaMemcpy(dy, y.data(), bytes, cudaMemcpyHostToDevice), "copy to device");
  if (ok) {
    const unsigned threads = 256;
    evaluate_kernel<F><<<static_cast<unsigned>((n + threads - 1) / threads), threads>>>(dx, dy, dout, n);
    ok = check(cudaGetLastError(), "kernel launch") && check(cudaDeviceSynchronize(), "kernel") &&
         check(cudaMemcpy(device.data(), dout, bytes, cudaMemcpyDeviceToHost), "copy to host");
  }
  cudaFree(dx);
  cudaFree(dy);
  cudaFree(dout);
  if (!ok) return false;
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (same_bits(host[i], device[i])) continue;
    if (++mismatches <= 5)
      std::printf("FAILED: %s(%a, %a): host %a, device %a\n", F::name, x[i], y[i], host[i], device[i]);
  }
  std::printf("%-8s %zu arguments: %zu differ between host and device\n", F::name, n, mismatches);
  return mismatches == 0;
}

}  // namespace

int main() {
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no usable CUDA device (%s); test_cuda_math was built but not run\n",
                status != cudaSuccess ? cudaGetErrorString(status) : "0 devices");
    return 77;
  }
  bool ok = true;
  rsmc::math_test::for_each_function([&](auto f) { ok = compare<decltype(f)>(std::size_t{1} << 20) && ok; });
  std::printf(ok ? "rsmc::math: device results identical to the host's\n" : "rsmc::math: host and device differ\n");
  return ok ? 0 : 1;
}
