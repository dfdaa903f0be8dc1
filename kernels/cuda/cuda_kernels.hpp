// Native CUDA kernels (host-callable launchers). Pointers are device pointers.
// Each kernel has a host twin in kernels/host/ with the same arithmetic; tests compare them.
// This header needs no CUDA headers, so host-compiled code can call the launchers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/rng/stream.hpp"

namespace rsmc::kernels::cuda {

// Number of usable CUDA devices; 0 (with the reason in `why`) when there is none or no driver.
int device_count(std::string* why = nullptr);

// Device twin of host::systematic_search.
void systematic_search(const double* cumulative, std::size_t n, std::size_t last_positive, double uniform,
                       std::size_t first, std::size_t count, std::size_t total, std::uint64_t* ancestors);

// Device twin of host::first_uniforms.
void first_uniforms(std::uint64_t seed, rng::Purpose purpose, std::uint32_t step, std::uint64_t first_id,
                    std::size_t count, double* out);

// Thin wrappers so host-compiled tests need no CUDA headers. They throw rsmc::Error on failure.
void* device_alloc(std::size_t bytes);
void device_free(void* p);
void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);

}  // namespace rsmc::kernels::cuda
