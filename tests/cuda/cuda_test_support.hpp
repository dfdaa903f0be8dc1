// Shared scaffolding of the CUDA test programs: a check counter and an owning device array.
// The programs are plain executables (no Catch2) so that "no GPU" can exit 77, which CTest reports
// as skipped (SKIP_RETURN_CODE), never as passed.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_kernels.hpp"

namespace rsmc::cuda_test {

inline int failures = 0;  // checks that failed
inline int checks = 0;    // checks made

inline void expect(bool ok, const std::string& what) {
  ++checks;
  if (!ok) {
    ++failures;
    std::printf("FAILED: %s\n", what.c_str());
  }
}

// `count` elements of T in device memory, freed on destruction.
template <class T>
struct DeviceArray {
  T* ptr;
  std::size_t n;
  explicit DeviceArray(std::size_t count)
      : ptr(static_cast<T*>(kernels::cuda::device_alloc(sizeof(T) * (count ? count : 1)))), n(count) {}
  explicit DeviceArray(const std::vector<T>& v) : DeviceArray(v.size()) { upload(v); }
  ~DeviceArray() { kernels::cuda::device_free(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  void upload(const std::vector<T>& v) {
    if (!v.empty()) kernels::cuda::copy_to_device(ptr, v.data(), sizeof(T) * v.size());
  }
  std::vector<T> download() const {
    std::vector<T> v(n);
    if (n) kernels::cuda::copy_to_host(v.data(), ptr, sizeof(T) * n);
    return v;
  }
};

}  // namespace rsmc::cuda_test
