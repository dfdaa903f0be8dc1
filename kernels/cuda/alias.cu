// Native CUDA alias table kernels: the chunked PACK and sectioned sampling (see alias.hpp).
#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>
#include <string>

#include "base/core/error.hpp"
#include "kernels/alias/alias_core.hpp"
#include "kernels/cuda/alias.hpp"

namespace rsmc::kernels::cuda {

namespace {

using alias::AliasRow;
using alias::HeavyItem;
using alias::LightItem;
using alias::PackShape;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw Error(std::string("CUDA ") + what + ": " + cudaGetErrorString(status));
}

template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  explicit DeviceBuffer(std::size_t count) {
    check(cudaMalloc(reinterpret_cast<void**>(&ptr), sizeof(T) * (count ? count : 1)), "cudaMalloc");
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// ---- chunked pack ------------------------------------------------------------------------------
//
// Thread t of block b packs section k = b T + t. Each thread owns a window of C light and C heavy
// items in shared memory, element c of thread w's window at [c T + w] (interleaved). At the top of
// every round the block refills, cooperatively and with consecutive threads reading consecutive items
// of one window, every window whose owner has used at least half of it (the window restarts at the
// owner's cursor); then each thread packs until it would read outside its windows. A state (i, j)
// reads light i (its weight and D(i); also for i = the section's end), heavy j and, when heavy j
// finishes, heavy j + 1. The arithmetic is pack_step's, as in host::alias_pack.
template <class Weight, int T, int C>
__global__ void __launch_bounds__(T)
    pack_chunked_kernel(const PackShape<Weight> s, const LightItem<Weight>* __restrict__ lights,
                        const HeavyItem<Weight>* __restrict__ heavies, const std::uint64_t* __restrict__ split,
                        std::uint64_t sections, AliasRow<Weight>* __restrict__ rows) {
  static_assert(C >= 2, "a heavy window must hold heavy j and j + 1");
  __shared__ LightItem<Weight> win_l[C * T];
  __shared__ HeavyItem<Weight> win_h[C * T];
  __shared__ std::uint64_t base_l[T], base_h[T];
  __shared__ bool need_l[T], need_h[T];
  const int t = static_cast<int>(threadIdx.x);
  const std::uint64_t k = static_cast<std::uint64_t>(blockIdx.x) * T + t;
  const std::uint64_t merged = s.lights + s.heavies;
  std::uint64_t i = 0, j = 0, i_end = 0, j_end = 0;
  if (k < sections) {
    i = split[k];
    j = alias::section_boundary(k, merged, sections) - i;
    i_end = split[k + 1];
    j_end = alias::section_boundary(k + 1, merged, sections) - i_end;
  }
  bool active = i < i_end || j < j_end;
  bool loaded = false;
  std::uint64_t bl = 0, bh = 0;
  while (__syncthreads_or(active)) {
    const bool refill_l = active && i < s.lights && (!loaded || i - bl >= C / 2);
    const bool refill_h = active && j < s.heavies && (!loaded || j - bh >= C / 2);
    if (refill_l) bl = i;
    if (refill_h) bh = j;
    loaded = true;
    need_l[t] = refill_l;
    need_h[t] = refill_h;
    base_l[t] = bl;
    base_h[t] = bh;
    __syncthreads();
    for (int q = t; q < T * C; q += T) {
      const int w = q / C, c = q % C;
      if (need_l[w]) {
        const std::uint64_t x = base_l[w] + c;
        if (x < s.lights) win_l[c * T + w] = lights[x];
      }
      if (need_h[w]) {
        const std::uint64_t y = base_h[w] + c;
        if (y < s.heavies) win_h[c * T + w] = heavies[y];
      }
    }
    __syncthreads();
    if (active) {
      while (i < i_end || j < j_end) {
        if (i < s.lights && i - bl >= C) break;
        if (j < s.heavies && j - bh >= C) break;
        if (j + 1 < s.heavies && j + 1 - bh >= C) break;
        const LightItem<Weight>* lp = i < s.lights ? &win_l[(i - bl) * T + t] : nullptr;
        const HeavyItem<Weight>* hp = j < s.heavies ? &win_h[(j - bh) * T + t] : nullptr;
        const HeavyItem<Weight>* np = j + 1 < s.heavies ? &win_h[(j + 1 - bh) * T + t] : nullptr;
        std::uint64_t r = 0;
        AliasRow<Weight> row;
        alias::pack_step<Weight>(s, i, j, lp, hp, np, &r, &row);
        rows[r] = row;
      }
      active = i < i_end || j < j_end;
    }
  }
}

template <class Weight, int T, int C>
void pack_chunked(const PackShape<Weight>& shape, const LightItem<Weight>* lights, const HeavyItem<Weight>* heavies,
                  const std::uint64_t* split, std::uint64_t sections, AliasRow<Weight>* rows) {
  if (sections == 0) return;
  const std::uint64_t blocks = (sections + T - 1) / T;
  if (blocks > 0x7fffffffu) throw Error("alias_pack_chunked: too many sections (" + std::to_string(sections) + ")");
  pack_chunked_kernel<Weight, T, C>
      <<<static_cast<unsigned>(blocks), T>>>(shape, lights, heavies, split, sections, rows);
  check(cudaGetLastError(), "alias_pack_chunked launch");
  check(cudaDeviceSynchronize(), "alias_pack_chunked");
}

// ---- sectioned sampling ------------------------------------------------------------------------

constexpr int kBlock = 256;
constexpr std::size_t kSharedBytes = 48 * 1024;  // stage a section when its rows fit the default limit

__global__ void section_counts_kernel(std::uint64_t rows, std::uint64_t section_rows, std::uint64_t total,
                                      std::uint64_t seed, std::uint32_t step, std::uint64_t sections,
                                      std::uint64_t* out) {
  const std::uint64_t s = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (s < sections) out[s] = alias::section_draws(seed, step, total, rows, section_rows, s);
}

// One block per section: the section's rows are copied to shared memory (when they fit), then the
// block's threads take the section's draws k = t, t + blockDim, ...
template <class Weight, bool Counts>
__global__ void sectioned_kernel(const AliasRow<Weight>* __restrict__ rows, std::uint64_t n,
                                 alias::alias_value_t<Weight> capacity, std::uint64_t section_rows,
                                 const std::uint64_t* __restrict__ counts, const std::uint64_t* __restrict__ offsets,
                                 std::uint64_t seed, std::uint32_t step, std::uint64_t first_draw_id, bool staged,
                                 std::uint64_t* __restrict__ out) {
  extern __shared__ __align__(16) unsigned char shared_rows[];
  const std::uint64_t s = blockIdx.x;
  const std::uint64_t first_row = s * section_rows;
  const std::uint64_t len = n - first_row < section_rows ? n - first_row : section_rows;
  const AliasRow<Weight>* src = rows + first_row;
  if (staged) {
    AliasRow<Weight>* sh = reinterpret_cast<AliasRow<Weight>*>(shared_rows);
    for (std::uint64_t r = threadIdx.x; r < len; r += blockDim.x) sh[r] = src[r];
    __syncthreads();
    src = sh;
  }
  const std::uint64_t count = counts[s], offset = offsets[s];
  for (std::uint64_t k = threadIdx.x; k < count; k += blockDim.x) {
    const std::uint64_t item =
        alias::sectioned_draw<Weight>(src, first_row, len, capacity, seed, step, first_draw_id + offset + k);
    if constexpr (Counts)
      atomicAdd(reinterpret_cast<unsigned long long*>(out + item), 1ull);
    else
      out[offset + k] = item;
  }
}

void check_sampling(std::uint64_t n, std::uint64_t section_rows, std::uint64_t total, std::uint64_t first_draw_id) {
  if (n == 0) throw Error("alias sectioned sampling: the table is empty");
  if (section_rows == 0) throw Error("alias sectioned sampling: section_rows = 0; expected at least 1");
  if (first_draw_id > alias::kDrawIdLimit || total > alias::kDrawIdLimit - first_draw_id)
    throw Error("alias sectioned sampling: first_draw_id + draws exceeds 2^62");
  if (alias::section_count_of(n, section_rows) > 0x7fffffffu)
    throw Error("alias sectioned sampling: too many sections; use larger sections");
}

template <class Weight, bool Counts>
void sectioned(const AliasRow<Weight>* rows, std::uint64_t n, alias::alias_value_t<Weight> capacity,
               std::uint64_t total, std::uint64_t seed, std::uint32_t step, std::uint64_t section_rows,
               std::uint64_t first_draw_id, std::uint64_t* out) {
  check_sampling(n, section_rows, total, first_draw_id);
  if (Counts) check(cudaMemset(out, 0, sizeof(std::uint64_t) * n), "alias counts reset");
  if (total == 0) {
    check(cudaDeviceSynchronize(), "alias sectioned sampling");
    return;
  }
  const std::uint64_t S = alias::section_count_of(n, section_rows);
  DeviceBuffer<std::uint64_t> counts(S), offsets(S);
  section_counts_kernel<<<static_cast<unsigned>((S + kBlock - 1) / kBlock), kBlock>>>(n, section_rows, total, seed,
                                                                                      step, S, counts.ptr);
  check(cudaGetLastError(), "alias section counts launch");
  std::size_t temp_bytes = 0;
  check(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts.ptr, offsets.ptr, static_cast<std::int64_t>(S)),
        "alias section scan (size)");
  DeviceBuffer<unsigned char> temp(temp_bytes);
  check(cub::DeviceScan::ExclusiveSum(temp.ptr, temp_bytes, counts.ptr, offsets.ptr, static_cast<std::int64_t>(S)),
        "alias section scan");
  const std::size_t section_bytes = sizeof(AliasRow<Weight>) * section_rows;
  const bool staged = section_bytes <= kSharedBytes;
  sectioned_kernel<Weight, Counts><<<static_cast<unsigned>(S), kBlock, staged ? section_bytes : 0>>>(
      rows, n, capacity, section_rows, counts.ptr, offsets.ptr, seed, step, first_draw_id, staged, out);
  check(cudaGetLastError(), "alias sectioned sampling launch");
  check(cudaDeviceSynchronize(), "alias sectioned sampling");
}

}  // namespace

void alias_pack_chunked(const alias::PackShape<double>& shape, const alias::LightItem<double>* lights,
                        const alias::HeavyItem<double>* heavies, const std::uint64_t* split_lights,
                        std::uint64_t sections, alias::AliasRow<double>* rows) {
  pack_chunked<double, 128, 8>(shape, lights, heavies, split_lights, sections, rows);
}

void alias_pack_chunked(const alias::PackShape<std::uint64_t>& shape, const alias::LightItem<std::uint64_t>* lights,
                        const alias::HeavyItem<std::uint64_t>* heavies, const std::uint64_t* split_lights,
                        std::uint64_t sections, alias::AliasRow<std::uint64_t>* rows) {
  pack_chunked<std::uint64_t, 64, 8>(shape, lights, heavies, split_lights, sections, rows);
}

void alias_section_counts(std::uint64_t rows, std::uint64_t section_rows, std::uint64_t total_draws, std::uint64_t seed,
                          std::uint32_t step, std::uint64_t* out) {
  check_sampling(rows, section_rows, 0, 0);
  const std::uint64_t S = alias::section_count_of(rows, section_rows);
  section_counts_kernel<<<static_cast<unsigned>((S + kBlock - 1) / kBlock), kBlock>>>(rows, section_rows, total_draws,
                                                                                      seed, step, S, out);
  check(cudaGetLastError(), "alias_section_counts launch");
  check(cudaDeviceSynchronize(), "alias_section_counts");
}

void alias_sample_sectioned_counts(const alias::AliasRow<double>* rows, std::uint64_t n, double capacity,
                                   std::uint64_t total_draws, std::uint64_t seed, std::uint32_t step,
                                   std::uint64_t section_rows, std::uint64_t first_draw_id,
                                   std::uint64_t* counts_per_item) {
  sectioned<double, true>(rows, n, capacity, total_draws, seed, step, section_rows, first_draw_id, counts_per_item);
}

void alias_sample_sectioned_counts(const alias::AliasRow<std::uint64_t>* rows, std::uint64_t n, alias::u128 capacity,
                                   std::uint64_t total_draws, std::uint64_t seed, std::uint32_t step,
                                   std::uint64_t section_rows, std::uint64_t first_draw_id,
                                   std::uint64_t* counts_per_item) {
  sectioned<std::uint64_t, true>(rows, n, capacity, total_draws, seed, step, section_rows, first_draw_id,
                                 counts_per_item);
}

void alias_sample_sectioned_draws(const alias::AliasRow<double>* rows, std::uint64_t n, double capacity,
                                  std::uint64_t total_draws, std::uint64_t seed, std::uint32_t step,
                                  std::uint64_t section_rows, std::uint64_t first_draw_id, std::uint64_t* draws) {
  sectioned<double, false>(rows, n, capacity, total_draws, seed, step, section_rows, first_draw_id, draws);
}

void alias_sample_sectioned_draws(const alias::AliasRow<std::uint64_t>* rows, std::uint64_t n, alias::u128 capacity,
                                  std::uint64_t total_draws, std::uint64_t seed, std::uint32_t step,
                                  std::uint64_t section_rows, std::uint64_t first_draw_id, std::uint64_t* draws) {
  sectioned<std::uint64_t, false>(rows, n, capacity, total_draws, seed, step, section_rows, first_draw_id, draws);
}

}  // namespace rsmc::kernels::cuda
