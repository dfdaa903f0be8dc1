// Native CUDA butterfly-patterned partial sums (Steele & Tristan, Algorithms 8, 9, 10), W = 32.
// Launchers and semantics: butterfly.hpp. Host twin (the same operations in the same order, so the
// same bits): kernels/host/butterfly_table.hpp and butterfly_sampling.hpp; read the table layout and
// the algorithm walk-through there.
//
// Every shuffle is a *_sync with the full mask, and every lane of the warp reaches every shuffle: the
// loops around shuffles are warp-uniform (over groups, blocks, levels), padded lanes (no particle, no
// uniform) run the whole algorithm on zero weights and only skip their loads and stores, and the
// per-lane divergent parts (the block binary search, the remnant search) contain no shuffle.
// The table of lane `lane` lives in a lane-interleaved column: p'[index] at p[index * 32 + lane], so
// the warp's stores of one row are coalesced. No arithmetic here contracts (no a * b + c), so the
// floating-point results equal the host's.
#include <cuda_runtime.h>

#include <string>

#include "base/core/error.hpp"
#include "base/rng/stream.hpp"
#include "kernels/butterfly/butterfly_common.hpp"
#include "kernels/butterfly/running_sums.hpp"
#include "kernels/butterfly/shared_column.hpp"
#include "kernels/cuda/butterfly.hpp"

namespace rsmc::kernels::cuda {

namespace {

using butterfly::u128;

constexpr unsigned kWarp = butterfly::kCudaWarpWidth;
constexpr unsigned kLevels = 5;  // log2(kWarp)
constexpr unsigned kFull = 0xffffffffu;
constexpr unsigned kWarpsPerBlock = 4;
constexpr std::size_t kWorkspaceBudget = std::size_t(512) << 20;

static_assert((1u << kLevels) == kWarp, "kLevels must be log2 of the warp width");

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw Error(std::string("CUDA ") + what + ": " + cudaGetErrorString(status));
}

// A device buffer freed on scope exit.
struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { check(cudaMalloc(&ptr, bytes ? bytes : 1), "cudaMalloc (butterfly)"); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

unsigned multiprocessors() {
  int device = 0, count = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device), "multiprocessor count");
  return count > 0 ? static_cast<unsigned>(count) : 1u;
}

// ---- shuffles of every accumulator type (full mask) -----------------------------------------------
__device__ __forceinline__ float shfl_xor(float v, unsigned m) {
  return __shfl_xor_sync(kFull, v, static_cast<int>(m));
}
__device__ __forceinline__ double shfl_xor(double v, unsigned m) {
  return __shfl_xor_sync(kFull, v, static_cast<int>(m));
}
__device__ __forceinline__ std::uint64_t shfl_xor(std::uint64_t v, unsigned m) {
  return static_cast<std::uint64_t>(__shfl_xor_sync(kFull, static_cast<unsigned long long>(v), static_cast<int>(m)));
}
__device__ __forceinline__ u128 shfl_xor(u128 v, unsigned m) {
  const std::uint64_t lo = shfl_xor(static_cast<std::uint64_t>(v), m);
  const std::uint64_t hi = shfl_xor(static_cast<std::uint64_t>(v >> 64), m);
  return (static_cast<u128>(hi) << 64) | lo;
}
__device__ __forceinline__ std::uint64_t shfl_from(std::uint64_t v, unsigned src) {
  return static_cast<std::uint64_t>(__shfl_sync(kFull, static_cast<unsigned long long>(v), static_cast<int>(src)));
}

// ---- Algorithm 8 on one 32 x 32 block ------------------------------------------------------------
// On entry a[q] = element (start + lane) of lane q's distribution (the transposed load). Rows 0..30 of
// the block are stored to p[(start + d) * 32 + lane]; on exit a[31] is the lane's own block total.
template <class Acc>
__device__ __forceinline__ void butterfly_block(Acc (&a)[kWarp], Acc* p, std::size_t start, unsigned lane) {
#pragma unroll
  for (unsigned level = 0; level < kLevels; ++level) {
    const unsigned bit = 1u << level;
#pragma unroll
    for (unsigned i = 0; i < kWarp / (2 * bit); ++i) {
      const unsigned d = 2 * bit * i + bit - 1;
      const Acc h = (lane & bit) ? a[d] : a[d + bit];
      const Acc v = shfl_xor(h, bit);
      if (lane & bit) a[d] = a[d + bit];
      a[d + bit] = a[d] + v;
      p[(start + d) * kWarp + lane] = a[d];
    }
  }
}

// ---- Algorithms 9 and 10: the lane's draw for `point` from its table column -----------------------
// Every lane of the warp must call this together (with the same k). Returns the smallest j with
// u' < p_j, u' = point clamped into [0, total); k when total is not positive.
template <class Acc>
__device__ std::uint32_t butterfly_search(const Acc* p, std::size_t k, unsigned lane, Acc total, Acc point) {
  const bool live = butterfly::positive(total);
  const Acc u = live ? butterfly::clamp_point(point, total) : Acc(0);
  const std::size_t blocks = k / kWarp, rem = k % kWarp;
  // Algorithm 9: the block, by binary search over the block-end running sums (divergent, no shuffles).
  std::size_t lo = 0, hi = blocks > 0 ? blocks - 1 : 0;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (u < p[(mid * kWarp + rem + kWarp - 1) * kWarp + lane])
      hi = mid;
    else
      lo = mid + 1;
  }
  const std::size_t base = rem + lo * kWarp;
  std::size_t j = 0;
  if (blocks > 0) {  // warp-uniform
    Acc low = base > 0 ? p[(base - 1) * kWarp + lane] : Acc(0);
    Acc high = p[(base + kWarp - 1) * kWarp + lane];
    unsigned flip = 0;
#pragma unroll
    for (int level = static_cast<int>(kLevels) - 1; level >= 0; --level) {
      const unsigned bit = 1u << level;
      const unsigned mask = (kWarp - 1) & ~(2 * bit - 1);
      Acc y = Acc(0);
#pragma unroll
      for (unsigned i = 0; i < kWarp / (2 * bit); ++i) {
        const unsigned d = bit - 1 + 2 * bit * i;
        const unsigned him = (d & mask) | (lane & ~mask & (kWarp - 1));
        const std::size_t his_base = shfl_from(base, him);
        const Acc t = shfl_xor(p[(his_base + d) * kWarp + lane], flip);
        if (((lane ^ d) & mask) == 0) y = t;
      }
      const Acc compare = (lane & bit) ? high - y : low + y;
      if (u < compare) {
        high = compare;
        flip ^= bit & lane;
      } else {
        low = compare;
        flip ^= bit & ~lane;
      }
    }
    j = base + (flip ^ lane);
  }
  // The remnant (reachable only from the first block, or when k < 32): linear search.
  if (base > 0 && u < p[(base - 1) * kWarp + lane]) {
    for (std::size_t i = 0; i < rem; ++i) {
      if (u < p[i * kWarp + lane]) {
        j = i;
        break;
      }
    }
  }
  return static_cast<std::uint32_t>(live ? j : k);
}

// ---- (a) batched categorical: one warp per 32 particles, grid-stride over the groups --------------
template <class Weight, class Acc>
__global__ void categorical_kernel(const Weight* __restrict__ weights, std::size_t particles, std::size_t k,
                                   const double* __restrict__ uniforms, bool from_stream, std::uint64_t seed,
                                   std::uint32_t step, std::uint64_t first_id, std::uint32_t* __restrict__ out,
                                   Acc* __restrict__ workspace) {
  const unsigned lane = threadIdx.x % kWarp;
  const std::size_t warp = (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) / kWarp;
  const std::size_t warps = gridDim.x * static_cast<std::size_t>(blockDim.x) / kWarp;
  const std::size_t groups = (particles + kWarp - 1) / kWarp;
  const std::size_t rem = k % kWarp;
  Acc* p = workspace + warp * k * kWarp;
  for (std::size_t g = warp; g < groups; g += warps) {
    const std::size_t first = g * kWarp;
    const std::size_t row = first + lane;
    const bool valid = row < particles;
    // The remnant: the lane's own prefix sums.
    Acc sum = Acc(0);
    for (std::size_t j = 0; j < rem; ++j) {
      if (valid) sum += static_cast<Acc>(weights[row * k + j]);
      p[j * kWarp + lane] = sum;
    }
    // The blocks: transposed load (lanes read 32 consecutive weights of particle first + q), butterfly.
    for (std::size_t j = rem; j < k; j += kWarp) {
      Acc a[kWarp];
#pragma unroll
      for (unsigned q = 0; q < kWarp; ++q)
        a[q] = first + q < particles ? static_cast<Acc>(weights[(first + q) * k + j + lane]) : Acc(0);
      butterfly_block(a, p, j, lane);
      sum += a[kWarp - 1];
      p[(j + kWarp - 1) * kWarp + lane] = sum;
    }
    double u = 0.0;
    if (valid) u = from_stream ? rng::Stream(seed, rng::Purpose::model, step, first_id + row).uniform() : uniforms[row];
    const std::uint32_t index = butterfly_search<Acc>(p, k, lane, sum, butterfly::scaled_point(u, sum));
    if (valid) out[row] = index;
  }
}

// ---- (b) one distribution as an inverse-CDF table -------------------------------------------------
// The blocks in parallel (one warp per block; every lane's distribution is the same row, so the
// transposed load is one coalesced load broadcast to all registers); block totals per lane.
template <class Weight, class Acc>
__global__ void table_blocks_kernel(const Weight* __restrict__ weights, std::size_t k, Acc* __restrict__ table,
                                    Acc* __restrict__ block_totals) {
  const unsigned lane = threadIdx.x % kWarp;
  const std::size_t warp = (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) / kWarp;
  const std::size_t warps = gridDim.x * static_cast<std::size_t>(blockDim.x) / kWarp;
  const std::size_t blocks = k / kWarp, rem = k % kWarp;
  for (std::size_t b = warp; b < blocks; b += warps) {
    const std::size_t start = rem + b * kWarp;
    const Acc mine = static_cast<Acc>(weights[start + lane]);
    Acc a[kWarp];
#pragma unroll
    for (unsigned q = 0; q < kWarp; ++q) a[q] = mine;
    butterfly_block(a, table, start, lane);
    block_totals[b * kWarp + lane] = a[kWarp - 1];
  }
}

// The remnant prefix sums and the running block-end sums, in the host's order (one warp):
// butterfly_inverse_cdf's tables, whose floating-point sums depend on that order.
template <class Weight, class Acc>
__global__ void table_running_kernel(const Weight* __restrict__ weights, std::size_t k, Acc* __restrict__ table,
                                     const Acc* __restrict__ block_totals) {
  const unsigned lane = threadIdx.x % kWarp;
  const std::size_t blocks = k / kWarp, rem = k % kWarp;
  Acc sum = Acc(0);
  for (std::size_t j = 0; j < rem; ++j) {
    sum += static_cast<Acc>(weights[j]);
    table[j * kWarp + lane] = sum;
  }
  for (std::size_t b = 0; b < blocks; ++b) {
    sum += block_totals[b * kWarp + lane];
    table[(rem + b * kWarp + kWarp - 1) * kWarp + lane] = sum;
  }
}

// ---- (c) the engine's lookup: one shared column (kernels/butterfly/shared_column.hpp) -------------
// Every lane draws from the same distribution, so the table is one column of K cells that the lanes
// share, not a column per lane. One thread per cell (neighbouring threads read overlapping groups of
// weights, so the loads coalesce), grid-stride; a block's last cell leaves its block's total.
template <class Weight>
__global__ void column_cells_kernel(const Weight* __restrict__ weights, std::size_t k, u128* __restrict__ table,
                                    u128* __restrict__ block_totals) {
  const std::size_t stride = gridDim.x * static_cast<std::size_t>(blockDim.x);
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < k; i += stride)
    butterfly::column_cell<u128>(weights, k, i, table, block_totals);
}

// The running sums in three data-parallel passes (kernels/butterfly/running_sums.hpp): passes 1 and 3
// take one thread per chunk, pass 2 one thread.
__global__ void running_totals_kernel(const u128* __restrict__ block_totals, std::size_t k,
                                      u128* __restrict__ chunk_sums) {
  const std::size_t c = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (c < butterfly::running_chunks(k)) butterfly::running_chunk_total(block_totals, k, c, chunk_sums);
}

template <class Weight>
__global__ void running_offsets_kernel(const Weight* __restrict__ weights, std::size_t k, u128* __restrict__ table,
                                       u128* __restrict__ chunk_sums) {
  butterfly::running_chunk_offsets(weights, k, table, chunk_sums);
}

__global__ void running_sums_kernel(const u128* __restrict__ block_totals, std::size_t k,
                                    const u128* __restrict__ chunk_sums, u128* __restrict__ table) {
  const std::size_t c = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (c < butterfly::running_chunks(k)) butterfly::running_chunk_sums(block_totals, k, c, chunk_sums, table);
}

// Rounds of 32 uniforms per warp, grid-stride.
template <class Acc>
__global__ void table_search_kernel(const Acc* __restrict__ table, std::size_t k, const double* __restrict__ uniforms,
                                    std::size_t count, std::uint32_t* __restrict__ out) {
  const unsigned lane = threadIdx.x % kWarp;
  const std::size_t warp = (blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x) / kWarp;
  const std::size_t warps = gridDim.x * static_cast<std::size_t>(blockDim.x) / kWarp;
  const std::size_t rounds = (count + kWarp - 1) / kWarp;
  const Acc total = table[(k - 1) * kWarp + lane];
  for (std::size_t q = warp; q < rounds; q += warps) {
    const std::size_t i = q * kWarp + lane;
    const bool valid = i < count;
    const double u = valid ? uniforms[i] : 0.0;
    const std::uint32_t index = butterfly_search<Acc>(table, k, lane, total, butterfly::scaled_point(u, total));
    if (valid) out[i] = index;
  }
}

// The engine's search: one thread per exact point on the shared column, grid-stride; the ancestor
// (64-bit local index) straight into out. The systematic and stratified points are sorted, so a
// warp's threads walk neighbouring cells.
__global__ void points_search_kernel(const u128* __restrict__ table, std::size_t k, const u128* __restrict__ points,
                                     std::size_t count, std::uint64_t* __restrict__ out, int* error, int past_the_end) {
  const std::size_t stride = gridDim.x * static_cast<std::size_t>(blockDim.x);
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    const std::uint32_t index = butterfly::column_search<u128>(table, k, points[i]);
    if (index >= k) atomicOr(error, past_the_end);
    out[i] = index < k ? index : 0;
  }
}

void check_k(std::size_t k, const char* who) {
  if (k == 0 || k > 0xffffffffu)
    throw Error(std::string(who) + ": K = " + std::to_string(k) + " categories; expected 1 <= K <= 2^32 - 1");
}

unsigned blocks_for_warps(std::size_t warps) {
  return static_cast<unsigned>((warps + kWarpsPerBlock - 1) / kWarpsPerBlock);
}

}  // namespace

namespace butterfly_detail {

template <class Weight, class Acc>
void categorical(const Weight* weights, std::size_t particles, std::size_t k, const double* uniforms, bool from_stream,
                 std::uint64_t seed, std::uint32_t step, std::uint64_t first_id, std::uint32_t* out) {
  check_k(k, from_stream ? "butterfly_categorical_stream" : "butterfly_categorical");
  if (particles == 0) return;
  const std::size_t groups = (particles + kWarp - 1) / kWarp;
  const std::size_t per_warp = k * kWarp * sizeof(Acc);
  std::size_t warps = std::size_t(multiprocessors()) * 32;  // 1024 resident threads per SM
  const std::size_t by_memory = kWorkspaceBudget / per_warp > 0 ? kWorkspaceBudget / per_warp : 1;
  if (warps > by_memory) warps = by_memory;
  if (warps > groups) warps = groups;
  const unsigned grid = blocks_for_warps(warps);
  DeviceBuffer workspace(std::size_t(grid) * kWarpsPerBlock * per_warp);
  categorical_kernel<Weight, Acc><<<grid, kWarpsPerBlock * kWarp>>>(
      weights, particles, k, uniforms, from_stream, seed, step, first_id, out, static_cast<Acc*>(workspace.ptr));
  check(cudaGetLastError(), "butterfly_categorical launch");
  check(cudaDeviceSynchronize(), "butterfly_categorical");
}

template <class Weight, class Acc>
void inverse_cdf(const Weight* weights, std::size_t k, const double* uniforms, std::size_t count, std::uint32_t* out) {
  check_k(k, "butterfly_inverse_cdf");
  if (count == 0) return;
  const std::size_t blocks = k / kWarp;
  DeviceBuffer table(k * kWarp * sizeof(Acc));
  DeviceBuffer totals(blocks * kWarp * sizeof(Acc));
  Acc* t = static_cast<Acc*>(table.ptr);
  Acc* bt = static_cast<Acc*>(totals.ptr);
  const std::size_t resident = std::size_t(multiprocessors()) * 32;
  if (blocks > 0) {
    table_blocks_kernel<Weight, Acc>
        <<<blocks_for_warps(blocks < resident ? blocks : resident), kWarpsPerBlock * kWarp>>>(weights, k, t, bt);
    check(cudaGetLastError(), "butterfly_inverse_cdf table launch");
  }
  table_running_kernel<Weight, Acc><<<1, kWarp>>>(weights, k, t, bt);
  check(cudaGetLastError(), "butterfly_inverse_cdf running sums launch");
  const std::size_t rounds = (count + kWarp - 1) / kWarp;
  table_search_kernel<Acc>
      <<<blocks_for_warps(rounds < resident ? rounds : resident), kWarpsPerBlock * kWarp>>>(t, k, uniforms, count, out);
  check(cudaGetLastError(), "butterfly_inverse_cdf search launch");
  check(cudaDeviceSynchronize(), "butterfly_inverse_cdf");
}

template <class Weight>
void lookup_points(const Weight* weights, std::size_t k, const u128* points, std::size_t count, std::uint64_t* out,
                   u128* table, u128* block_totals, int* error, int past_the_end, cudaStream_t stream) {
  check_k(k, "butterfly_lookup_points");
  if (count == 0) return;
  constexpr unsigned kThreads = 256;
  const std::size_t resident = std::size_t(multiprocessors()) * 2048 / kThreads;  // blocks that fill the GPU
  const auto grid = [&](std::size_t items) {
    const std::size_t blocks = (items + kThreads - 1) / kThreads;
    return static_cast<unsigned>(blocks < 4 * resident ? blocks : 4 * resident);
  };
  column_cells_kernel<Weight><<<grid(k), kThreads, 0, stream>>>(weights, k, table, block_totals);
  check(cudaGetLastError(), "butterfly_lookup_points cells launch");
  // The chunks' sums follow the block totals in the same buffer (butterfly_block_total_entries).
  u128* chunk_sums = block_totals + k / kWarp;
  const std::size_t chunks = butterfly::running_chunks(k);
  if (chunks > 0) {
    running_totals_kernel<<<grid(chunks), kThreads, 0, stream>>>(block_totals, k, chunk_sums);
    check(cudaGetLastError(), "butterfly_lookup_points chunk totals launch");
  }
  running_offsets_kernel<Weight><<<1, 1, 0, stream>>>(weights, k, table, chunk_sums);
  check(cudaGetLastError(), "butterfly_lookup_points chunk offsets launch");
  if (chunks > 0) {
    running_sums_kernel<<<grid(chunks), kThreads, 0, stream>>>(block_totals, k, chunk_sums, table);
    check(cudaGetLastError(), "butterfly_lookup_points running sums launch");
  }
  points_search_kernel<<<grid(count), kThreads, 0, stream>>>(table, k, points, count, out, error, past_the_end);
  check(cudaGetLastError(), "butterfly_lookup_points search launch");
}

#define RSMC_BUTTERFLY_INSTANTIATE(W, A)                                                                  \
  template void categorical<W, A>(const W*, std::size_t, std::size_t, const double*, bool, std::uint64_t, \
                                  std::uint32_t, std::uint64_t, std::uint32_t*);                          \
  template void inverse_cdf<W, A>(const W*, std::size_t, const double*, std::size_t, std::uint32_t*);

RSMC_BUTTERFLY_INSTANTIATE(float, float)
RSMC_BUTTERFLY_INSTANTIATE(float, double)
RSMC_BUTTERFLY_INSTANTIATE(double, double)
RSMC_BUTTERFLY_INSTANTIATE(std::uint64_t, std::uint64_t)
RSMC_BUTTERFLY_INSTANTIATE(std::uint64_t, u128)

#undef RSMC_BUTTERFLY_INSTANTIATE

}  // namespace butterfly_detail

template <class Weight>
void butterfly_lookup_points(const Weight* weights, std::size_t k, const u128* points, std::size_t count,
                             std::uint64_t* out, u128* table, u128* block_totals, int* error, int past_the_end,
                             CUstream_st* stream) {
  butterfly_detail::lookup_points<Weight>(weights, k, points, count, out, table, block_totals, error, past_the_end,
                                          stream);
}
template void butterfly_lookup_points<std::uint64_t>(const std::uint64_t*, std::size_t, const u128*, std::size_t,
                                                     std::uint64_t*, u128*, u128*, int*, int, CUstream_st*);
template void butterfly_lookup_points<u128>(const u128*, std::size_t, const u128*, std::size_t, std::uint64_t*, u128*,
                                            u128*, int*, int, CUstream_st*);

}  // namespace rsmc::kernels::cuda
