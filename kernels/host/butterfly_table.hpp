// Host twin of the butterfly-patterned partial-sums warp algorithm (Steele & Tristan, "Using
// butterfly-patterned partial sums to draw from discrete distributions", PPoPP 2017, Algorithms 8-10). It simulates W
// lanes (W a power of two, 2..32) in lockstep: every per-lane statement of the CUDA kernel (kernels/cuda/butterfly.cu)
// becomes a loop over the lanes, and every shuffle reads the simulated lanes' values. With W = 32 it performs the same
// operations in the same order as the device, so results agree bit for bit (floats included); the CUDA tests check
// that. The edge rules are those of kernels/butterfly/butterfly_common.hpp.
//
// The table. Lane r has its own distribution a_r[0..K-1] and its own column p'_r[0..K-1] of the
// table; the column is stored lane-interleaved, cell(index, lane) = cells()[index * W + lane], as
// the device keeps it. With R = K mod W (the remnant, at the FRONT) and B = K div W blocks:
//   - p'_r[i] for i < R: lane r's own prefix sums a_r[0] + .. + a_r[i] (built sequentially).
//   - block b covers indices R + bW .. R + bW + W - 1. Its W x W cells come from the butterfly:
//     row i (index R + bW + i), lane j hold, for i < W - 1, with m = i XOR (i + 1), k = m / 2:
//         owner l = (i AND NOT m) + (j AND m), v = j AND NOT k, w = v + k,
//         the cell = a_l[R + bW + v] + .. + a_l[R + bW + w]      (a sum of k + 1 = 2^t elements),
//     and row W - 1 holds lane j's own running total through the end of block b (remnant included).
//     Example W = 4 (X0..1 = X0 + X1):  row0: A0 B1 A2 B3 | row1: A0..1 B0..1 C2..3 D2..3 |
//     row2: C0 D1 C2 D3 | row3: running totals of A, B, C, D.
// Construction (Algorithm 8, per block): lane r starts with a_reg[q] = a_q[R + bW + r] (the transposed,
// coalesced load); for bit = 1, 2, .., W/2 and d = bit-1, 3bit-1, ..:
//     h = (r & bit) ? a_reg[d] : a_reg[d + bit];  v = shfl_xor(h, bit);
//     if (r & bit) a_reg[d] = a_reg[d + bit];  a_reg[d + bit] = a_reg[d] + v;  p'[d] = a_reg[d];
// then sum += a_reg[W - 1]; p'[W - 1] = sum   (the paper's listing writes p'[W-1]: a typo for the
// block's last row, and its first listing's `b += b` loop never ends).
// Search (Algorithms 9, 10): a binary search over the block-end running sums (row W - 1) picks a block;
// inside it, lowValue / highValue bracket u' and, for bit = W/2 .. 1, the lane fetches the one cell
// that holds the sum of the half of its current range that its own bit selects: lane s serves, for
// each row d of the level, the cell its client him = (d AND mask) + (s AND NOT mask) needs, at that
// client's block (__shfl of blockBase), and the value travels by __shfl_xor with the client's `flip`.
// compareValue = (r & bit) ? highValue - y : lowValue + y; the result is blockBase + (flip XOR r). The
// remnant is searched linearly when u' lies below the first block. (Paper typos: Alg 9 line 8 compares
// against p'[mid W + searchBase]; `stop` in Alg 10 means u'; Alg 9's p'[m, blockBase - 1] means
// p'[blockBase - 1].)
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/butterfly/butterfly_common.hpp"

namespace rsmc::kernels::host {

// Largest K the samplers accept: the result is a std::uint32_t and K itself is the sentinel.
constexpr std::size_t kButterflyMaxK = 0xffffffffu;

inline void check_butterfly_k(std::size_t k, const char* who) {
  if (k == 0 || k > kButterflyMaxK)
    throw std::invalid_argument(std::string(who) + ": K = " + std::to_string(k) +
                                " categories; expected 1 <= K <= 2^32 - 1");
}

// The butterfly tables of one simulated warp of W lanes.
template <class Acc, unsigned W = butterfly::kCudaWarpWidth>
class ButterflyWarpTable {
  static_assert(W >= 2 && W <= 32 && (W & (W - 1)) == 0, "the warp width must be a power of two in 2..32");

 public:
  using accumulator_type = Acc;
  static constexpr unsigned width = W;

  // Algorithm 8 for the W lanes: lane r's distribution is the K weights at rows[r]; a null rows[r] is a
  // padded lane (all weights zero; its draw is the sentinel). rows[] must have W entries.
  template <class Weight>
  void build(const Weight* const* rows, std::size_t k) {
    check_butterfly_k(k, "butterfly table");
    k_ = k;
    p_.resize(k * W);  // every cell is written below
    const std::size_t rem = k % W;
    Acc sum[W];
    for (unsigned r = 0; r < W; ++r) sum[r] = Acc(0);
    // The remnant: each lane's own prefix sums, sequentially.
    for (std::size_t j = 0; j < rem; ++j) {
      for (unsigned r = 0; r < W; ++r) {
        if (rows[r]) sum[r] += static_cast<Acc>(rows[r][j]);
        p_[j * W + r] = sum[r];
      }
    }
    // The W x W blocks.
    // reg[q][r]: register q of lane r (register-major, so that a row of the table is contiguous).
    // The lanes are processed in butterfly pairs (lo, hi = lo | bit), which exchange h by the shuffle;
    // each lane performs exactly the device's operations, in the device's order.
    Acc reg[W][W];
    for (std::size_t j = rem; j < k; j += W) {
      for (unsigned q = 0; q < W; ++q) {
        if (rows[q]) {
          const Weight* src = rows[q] + j;  // the transposed load: lane r takes element j + r of row q
          for (unsigned r = 0; r < W; ++r) reg[q][r] = static_cast<Acc>(src[r]);
        } else {
          for (unsigned r = 0; r < W; ++r) reg[q][r] = Acc(0);
        }
      }
      for (unsigned bit = 1; bit < W; bit <<= 1) {
        for (unsigned d = bit - 1; d < W; d += 2 * bit) {
          Acc* row_d = reg[d];
          Acc* row_e = reg[d + bit];
          for (unsigned x = 0; x < W / 2; ++x) {
            const unsigned lo = ((x & ~(bit - 1)) << 1) | (x & (bit - 1)), hi = lo | bit;
            const Acc h_lo = row_e[lo];  // lane lo sends a_reg[d + bit], lane hi sends a_reg[d]
            const Acc h_hi = row_d[hi];
            row_e[lo] = row_d[lo] + h_hi;  // lane lo: a_reg[d + bit] = a_reg[d] + v
            row_d[hi] = row_e[hi];         // lane hi: a_reg[d] = a_reg[d + bit]; a_reg[d + bit] = a_reg[d] + v
            row_e[hi] = row_d[hi] + h_lo;
          }
          Acc* out = &p_[(j + d) * W];
          for (unsigned r = 0; r < W; ++r) out[r] = row_d[r];
        }
      }
      for (unsigned r = 0; r < W; ++r) {
        sum[r] += reg[W - 1][r];
        p_[(j + W - 1) * W + r] = sum[r];
      }
    }
  }

  std::size_t size() const { return k_; }
  // p'_lane[index].
  Acc cell(std::size_t index, unsigned lane) const { return p_[index * W + lane]; }
  // The lane's row total (its last running sum).
  Acc total(unsigned lane) const { return cell(k_ - 1, lane); }
  // All cells, cell(index, lane) at [index * W + lane] (the device layout).
  const std::vector<Acc>& cells() const { return p_; }

  // Algorithms 9 and 10: out[r] = the index lane r draws for the point points[r], i.e. the smallest j
  // with u' < p_j where u' = points[r] clamped into [0, total(r)); K when total(r) is not positive.
  // points[] and out[] have W entries.
  void search(const Acc* points, std::uint32_t* out) const {
    const std::size_t k = k_, blocks = k / W, rem = k % W;
    Acc u[W];
    bool live[W];
    std::size_t base[W], j[W];
    for (unsigned r = 0; r < W; ++r) {
      const Acc t = total(r);
      live[r] = butterfly::positive(t);
      u[r] = live[r] ? butterfly::clamp_point(points[r], t) : Acc(0);
    }
    // Algorithm 9: binary search over the block-end running sums (per lane, no shuffles).
    for (unsigned r = 0; r < W; ++r) {
      std::size_t lo = 0, hi = blocks > 0 ? blocks - 1 : 0;
      while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (u[r] < cell(mid * W + rem + W - 1, r))
          hi = mid;
        else
          lo = mid + 1;
      }
      base[r] = rem + lo * W;
      j[r] = 0;
    }
    // Algorithm 10 (only when there is a block: K >= W, the same for every lane).
    if (blocks > 0) {
      Acc low[W], high[W], y[W], served[W];
      unsigned flip[W];
      std::size_t his_base[W];
      for (unsigned r = 0; r < W; ++r) {
        low[r] = base[r] > 0 ? cell(base[r] - 1, r) : Acc(0);
        high[r] = cell(base[r] + W - 1, r);
        flip[r] = 0;
      }
      for (unsigned bit = W / 2; bit >= 1; bit >>= 1) {
        const unsigned mask = (W - 1) & ~(2 * bit - 1);  // the lane bits above this level
        for (unsigned r = 0; r < W; ++r) y[r] = Acc(0);
        for (unsigned d = bit - 1; d < W; d += 2 * bit) {
          for (unsigned r = 0; r < W; ++r) {
            const unsigned him = (d & mask) | (r & ~mask & (W - 1));
            his_base[r] = base[him];  // __shfl_sync(blockBase, him)
          }
          for (unsigned r = 0; r < W; ++r) served[r] = cell(his_base[r] + d, r);
          for (unsigned r = 0; r < W; ++r) {
            const Acc t = served[r ^ flip[r]];  // __shfl_xor_sync(served, flip)
            if (((r ^ d) & mask) == 0) y[r] = t;
          }
        }
        for (unsigned r = 0; r < W; ++r) {
          const Acc compare = (r & bit) ? high[r] - y[r] : low[r] + y[r];
          if (u[r] < compare) {
            high[r] = compare;
            flip[r] ^= bit & r;
          } else {
            low[r] = compare;
            flip[r] ^= bit & ~r;
          }
        }
      }
      for (unsigned r = 0; r < W; ++r) j[r] = base[r] + (flip[r] ^ r);
    }
    // The remnant (only reachable from the first block, or when K < W): linear search.
    for (unsigned r = 0; r < W; ++r) {
      if (base[r] > 0 && u[r] < cell(base[r] - 1, r)) {
        for (std::size_t i = 0; i < rem; ++i) {
          if (u[r] < cell(i, r)) {
            j[r] = i;
            break;
          }
        }
      }
      out[r] = static_cast<std::uint32_t>(live[r] ? j[r] : k);
    }
  }

  // out[r] = the index lane r draws for the uniform uniforms[r] in [0, 1): search() at
  // butterfly::scaled_point(uniforms[r], total(r)).
  void draw(const double* uniforms, std::uint32_t* out) const {
    Acc points[W];
    for (unsigned r = 0; r < W; ++r) points[r] = butterfly::scaled_point(uniforms[r], total(r));
    search(points, out);
  }

 private:
  std::size_t k_ = 0;
  std::vector<Acc> p_;
};

// The reference the butterfly must reproduce: sequential prefix sums p_j in Acc (prefix[] is the
// caller's scratch), then the smallest j with u' < p_j by binary search, with the same edge rules (u'
// clamped into [0, total), K when the total is not positive).
template <class Acc, class Weight>
void sequential_prefix(const Weight* row, std::size_t k, std::vector<Acc>& prefix) {
  prefix.resize(k);
  Acc sum = Acc(0);
  for (std::size_t j = 0; j < k; ++j) {
    sum += static_cast<Acc>(row[j]);
    prefix[j] = sum;
  }
}

template <class Acc>
std::uint32_t sequential_search(const std::vector<Acc>& prefix, Acc point) {
  const std::size_t k = prefix.size();
  if (k == 0 || !butterfly::positive(prefix[k - 1])) return static_cast<std::uint32_t>(k);
  const Acc u = butterfly::clamp_point(point, prefix[k - 1]);
  std::size_t lo = 0, hi = k - 1;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (u < prefix[mid])
      hi = mid;
    else
      lo = mid + 1;
  }
  return static_cast<std::uint32_t>(lo);
}

// The sequential draw for a point u' (sequential_index) or a uniform u in [0, 1)
// (sequential_categorical: u' = butterfly::scaled_point(u, total)).
template <class Acc, class Weight>
std::uint32_t sequential_index(const Weight* row, std::size_t k, Acc point, std::vector<Acc>& prefix) {
  sequential_prefix(row, k, prefix);
  return sequential_search(prefix, point);
}
template <class Acc, class Weight>
std::uint32_t sequential_categorical(const Weight* row, std::size_t k, double u, std::vector<Acc>& prefix) {
  sequential_prefix(row, k, prefix);
  const Acc total = k > 0 ? prefix[k - 1] : Acc(0);
  return sequential_search(prefix, butterfly::scaled_point(u, total));
}

}  // namespace rsmc::kernels::host
