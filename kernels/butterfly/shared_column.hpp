// The butterfly table of ONE distribution that every lane shares: one column of K cells, where the
// lane table of kernels/host/butterfly_table.hpp keeps W columns (one per lane, 32 x K cells). The
// engine's butterfly sampler draws every particle's ancestor from the same distribution, the rank's
// weights, so its W lane columns were copies of one another: 512 bytes per particle at u128 on a
// device, and 10^8 particles did not fit an H100. This column holds 16 bytes per particle.
//
// Why one column is enough. With every lane holding the same weights a, the butterfly cell of block
// row i and lane j (kernels/host/butterfly_table.hpp, closed form) is a[v] + .. + a[v + k] with
// k = 2^t - 1, t the trailing ones of i, v = j AND NOT k: its value depends only on the aligned group
// of 2^t weights, not on the lane that owns it. The diagonal j = i holds, for each i, the group of
// 2^t weights that ENDS at i, and those are all the groups the search reads: lane r's range halves
// at each level, and the half it compares against is always such a group (a Fenwick tree of the
// block). So the table keeps the diagonal: with R = K mod W (the remnant, at the front) and B = K div W
// blocks,
//   cell[j] for j < R:          a[0] + .. + a[j] (the remnant's prefix sums, as before);
//   cell[R + bW + q], q < W - 1: a[R + bW + q + 1 - g] + .. + a[R + bW + q], g = lowbit(q + 1);
//   cell[R + bW + W - 1]:       the running total through block b (the lane table's row W - 1).
// The search for a point u' in [0, total) is the lane table's: the remnant linearly, else a binary
// search over the blocks' running totals, then W/2, W/4, .., 1: skip the group of `s` weights after
// the current position when u' is at or past low + its sum. Every lane reads its own cells from the
// shared column, so no shuffles serve one lane another lane's cell.
//
// Same selections: exact integer sums (u64 weights in u128; u128 residuals), so the result is the
// smallest j with u' < p_j, the sequential search's index, whatever the grouping. The running totals
// are built in three data-parallel passes over chunks of blocks (running_sums.hpp).
//
// RSMC_HOST_DEVICE throughout, no Kokkos: the CUDA kernels (kernels/cuda/butterfly.cu) and the host
// twin (ButterflyColumn below) call the same functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/core/portability.hpp"
#include "kernels/butterfly/butterfly_common.hpp"
#include "kernels/butterfly/running_sums.hpp"

namespace rsmc::kernels::butterfly {

// Cells of the shared column (the table) and of its running-sum workspace (the blocks' totals, then
// the chunks' sums) for K weights.
RSMC_HOST_DEVICE std::size_t column_table_cells(std::size_t k) { return k; }
RSMC_HOST_DEVICE std::size_t column_total_cells(std::size_t k) { return k / kCudaWarpWidth + running_chunks(k); }

// The index of block b's last cell (its running total).
RSMC_HOST_DEVICE std::size_t column_block_end(std::size_t k, std::size_t b) {
  return k % kCudaWarpWidth + b * kCudaWarpWidth + kCudaWarpWidth - 1;
}

// The cell at index i >= R that is not a block's last: the sum of the group of lowbit(q + 1) weights
// ending at i, q = (i - R) mod W.
template <class Acc, class Weight>
RSMC_HOST_DEVICE Acc column_group_cell(const Weight* weights, std::size_t k, std::size_t i) {
  const std::size_t q = (i - k % kCudaWarpWidth) % kCudaWarpWidth;
  const std::size_t group = (q + 1) & (~q);  // lowbit(q + 1)
  Acc sum = Acc(0);
  for (std::size_t x = i + 1 - group; x <= i; ++x) sum += static_cast<Acc>(weights[x]);
  return sum;
}

// Block b's own total (its W weights).
template <class Acc, class Weight>
RSMC_HOST_DEVICE Acc column_block_total(const Weight* weights, std::size_t k, std::size_t b) {
  const Weight* first = weights + k % kCudaWarpWidth + b * kCudaWarpWidth;
  Acc sum = Acc(0);
  for (unsigned q = 0; q < kCudaWarpWidth; ++q) sum += static_cast<Acc>(first[q]);
  return sum;
}

// Cell i of the table before the running sums: a group sum (i >= R, not a block's last), or block
// (i - R) / W's own total into block_totals (then the cell is left for the running sums). Cells
// below R are the running sums' too.
template <class Acc, class Weight>
RSMC_HOST_DEVICE void column_cell(const Weight* weights, std::size_t k, std::size_t i, Acc* cells, Acc* block_totals) {
  const std::size_t rem = k % kCudaWarpWidth;
  if (i < rem) return;
  const std::size_t q = (i - rem) % kCudaWarpWidth;
  if (q + 1 < kCudaWarpWidth)
    cells[i] = column_group_cell<Acc>(weights, k, i);
  else
    block_totals[(i - rem) / kCudaWarpWidth] = column_block_total<Acc>(weights, k, (i - rem) / kCudaWarpWidth);
}

// The smallest j with u' < p_j, u' = point clamped into [0, total); K when the total is not positive.
template <class Acc>
RSMC_HOST_DEVICE std::uint32_t column_search(const Acc* cells, std::size_t k, Acc point) {
  constexpr std::size_t W = kCudaWarpWidth;
  const Acc total = cells[k - 1];
  if (!positive(total)) return static_cast<std::uint32_t>(k);
  const Acc u = clamp_point(point, total);
  const std::size_t rem = k % W;
  if (rem > 0 && u < cells[rem - 1]) {
    std::size_t j = 0;
    while (!(u < cells[j])) ++j;
    return static_cast<std::uint32_t>(j);
  }
  std::size_t lo = 0, hi = k / W - 1;  // u < total: some block holds it
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (u < cells[column_block_end(k, mid)])
      hi = mid;
    else
      lo = mid + 1;
  }
  Acc low = lo > 0 ? cells[column_block_end(k, lo - 1)] : (rem > 0 ? cells[rem - 1] : Acc(0));
  const std::size_t base = rem + lo * W;
  std::size_t pos = 0;
  for (std::size_t s = W / 2; s >= 1; s /= 2) {
    const Acc next = low + cells[base + pos + s - 1];
    if (!(u < next)) {
      low = next;
      pos += s;
    }
  }
  return static_cast<std::uint32_t>(base + pos);
}

// Host twin of the device's column (kernels/cuda/butterfly.cu, butterfly_lookup_points): the same
// cells, built by the same functions (one chunk after another), searched by column_search.
template <class Acc>
class ButterflyColumn {
 public:
  template <class Weight>
  void build(const Weight* weights, std::size_t k) {
    k_ = k;
    cells_.resize(column_table_cells(k));
    totals_.resize(column_total_cells(k));
    Acc* block_totals = totals_.data();
    Acc* chunk_sums = block_totals + k / kCudaWarpWidth;
    for (std::size_t i = 0; i < k; ++i) column_cell<Acc>(weights, k, i, cells_.data(), block_totals);
    for (std::size_t c = 0; c < running_chunks(k); ++c) running_chunk_total(block_totals, k, c, chunk_sums);
    running_chunk_offsets(weights, k, cells_.data(), chunk_sums);
    for (std::size_t c = 0; c < running_chunks(k); ++c)
      running_chunk_sums(block_totals, k, c, chunk_sums, cells_.data());
  }
  std::size_t size() const { return k_; }
  const Acc* cells() const { return cells_.data(); }
  std::uint32_t search(Acc point) const { return column_search<Acc>(cells_.data(), k_, point); }
  // Bytes of the table and of its running-sum workspace, as a device holds them.
  std::size_t bytes() const { return (cells_.size() + totals_.size()) * sizeof(Acc); }

 private:
  std::size_t k_ = 0;
  std::vector<Acc> cells_, totals_;
};

}  // namespace rsmc::kernels::butterfly
