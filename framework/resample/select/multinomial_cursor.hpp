// The sorted multinomial draw of framework/resample/select/sorted_multinomial.hpp, in pieces a kernel
// thread can take: the number of points below a wheel position, and a cursor over the points of
// one wheel interval, in increasing order. Both are the same single draw, bit for bit (the same
// fixed tree, node streams, binomial splits and leaf draws; see docs/resampling-multinomial.md), so
// any set of threads that cut the rank's interval into consecutive pieces produces the rank's
// points, and count_below() gives each piece's position in the global sorted list.
//
// Why not the recursive descent of sorted_multinomial.hpp: kernels cannot recurse deeply, allocate
// or throw, and a merge walk wants to pull points as it needs them. The cursor keeps the descent's
// pending right siblings on a fixed stack (the tree is at most 61 levels deep) and the current
// leaf's sorted points in a fixed buffer of kMultinomialLeafCapacity = 32 (the default leaf size).
// A leaf at the depth cap may hold more points than that; the tree's documentation shows it
// practically never happens (expected count below N 2^-59), and then the cursor still emits its
// points exactly, in increasing order, by rescanning the leaf's stream once per distinct value.
//
// RSMC_HOST_DEVICE throughout; no Kokkos, no MPI.
#pragma once

#include <cstdint>

#include "base/core/portability.hpp"
#include "base/exact/uint128.hpp"
#include "base/rng/binomial.hpp"
#include "base/rng/stream.hpp"

namespace rsmc {

// Points a leaf keeps sorted in place; the tree's leaf size may not exceed it.
constexpr std::uint64_t kMultinomialLeafCapacity = 32;

// The draw: `samples` points on [0, total), and the tree's shape (sorted_multinomial.hpp's
// kSortedMultinomialLeafSize and kSortedMultinomialMaxDepth unless a test picks a smaller one).
struct MultinomialTree {
  std::uint64_t seed = 0;
  std::uint32_t step = 0;
  std::uint64_t samples = 0;
  exact::u128 total = 0;
  std::uint64_t leaf_size = 32;  // 1 .. kMultinomialLeafCapacity
  unsigned max_depth = 60;       // <= 61
};

namespace multinomial_detail {

using exact::u128;

struct Node {
  u128 a, b;        // the wheel interval [a, b)
  std::uint64_t n;  // points in it
  std::uint64_t h;  // heap index (root 1)
  unsigned d;       // depth (root 0)
};

RSMC_HOST_DEVICE rng::Stream node_stream(const MultinomialTree& tree, std::uint64_t h) {
  return rng::Stream(tree.seed, rng::Purpose::resample, tree.step, (std::uint64_t(1) << 63) | h);
}

RSMC_HOST_DEVICE bool is_leaf(const MultinomialTree& tree, const Node& node) {
  return node.n <= tree.leaf_size || node.d >= tree.max_depth;
}

// The points of the left child of a node that splits, from the node's stream.
RSMC_HOST_DEVICE std::uint64_t left_count(rng::Stream& stream, const Node& node, u128 mid) {
  const double p = exact::to_double(mid - node.a) / exact::to_double(node.b - node.a);
  return rng::binomial(stream, node.n, p);
}

// Insertion sort of a leaf's few points.
RSMC_HOST_DEVICE void sort_points(u128* x, std::uint64_t n) {
  for (std::uint64_t i = 1; i < n; ++i) {
    const u128 v = x[i];
    std::uint64_t k = i;
    for (; k > 0 && x[k - 1] > v; --k) x[k] = x[k - 1];
    x[k] = v;
  }
}

}  // namespace multinomial_detail

// The number of points of the draw below the wheel position x: the descent along the path to x
// (one binomial per level), and at the leaf that holds x, its points counted. O(depth + leaf size).
RSMC_HOST_DEVICE std::uint64_t multinomial_count_below(const MultinomialTree& tree, exact::u128 x) {
  using namespace multinomial_detail;
  std::uint64_t below = 0;
  Node node{0, tree.total, tree.samples, 1, 0};
  for (;;) {
    if (node.n == 0 || node.a >= x) return below;
    if (node.b <= x) return below + node.n;
    // a < x < b: the width is at least 2
    rng::Stream stream = node_stream(tree, node.h);
    const u128 width = node.b - node.a;
    if (is_leaf(tree, node)) {
      for (std::uint64_t k = 0; k < node.n; ++k)
        if (node.a + rng::uniform_below(stream, width) < x) ++below;
      return below;
    }
    const u128 mid = node.a + width / 2;
    const std::uint64_t left = left_count(stream, node, mid);
    if (x <= mid) {
      node = Node{node.a, mid, left, 2 * node.h, node.d + 1};
    } else {
      below += left;
      node = Node{mid, node.b, node.n - left, 2 * node.h + 1, node.d + 1};
    }
  }
}

// The points of the draw in [lo, hi), in increasing order (equal points repeated), pulled with
// fill(). Visits the nodes that intersect [lo, hi), depth first, left child first.
class MultinomialCursor {
 public:
  using u128 = exact::u128;

  RSMC_HOST_DEVICE MultinomialCursor(const MultinomialTree& tree, u128 lo, u128 hi) : tree_(tree), lo_(lo), hi_(hi) {
    if (lo < hi && tree.samples > 0) stack_[sp_++] = multinomial_detail::Node{0, tree.total, tree.samples, 1, 0};
  }

  // Writes up to `capacity` next points to out; returns how many. Fewer than `capacity` only when
  // the interval's points are exhausted.
  RSMC_HOST_DEVICE std::uint64_t fill(u128* out, std::uint64_t capacity) {
    std::uint64_t k = 0;
    while (k < capacity) {
      if (run_left_ > 0) {  // copies of one value (a width-1 leaf, or a value of a big leaf)
        const std::uint64_t take = run_left_ < capacity - k ? run_left_ : capacity - k;
        for (std::uint64_t t = 0; t < take; ++t) out[k + t] = run_value_;
        k += take;
        run_left_ -= take;
      } else if (leaf_pos_ < leaf_size_) {
        const u128 x = leaf_[leaf_pos_++];
        if (x >= hi_)
          leaf_size_ = 0;  // the rest of the leaf is above the interval too
        else if (x >= lo_)
          out[k++] = x;
      } else if (big_active_) {
        next_big_value();
      } else if (sp_ > 0) {
        expand(stack_[--sp_]);
      } else {
        break;
      }
    }
    return k;
  }

 private:
  static constexpr int kStack = 64;  // depth <= 61, one pending sibling per level

  RSMC_HOST_DEVICE void expand(const multinomial_detail::Node node) {  // a copy: pushes reuse its slot
    using namespace multinomial_detail;
    if (node.n == 0 || node.b <= lo_) return;
    if (node.a >= hi_) {  // depth first, left first: every pending node lies further right
      sp_ = 0;
      return;
    }
    const u128 width = node.b - node.a;
    if (width == 1) {  // all its points equal a (and lo <= a < hi here)
      run_value_ = node.a;
      run_left_ = node.n;
      return;
    }
    rng::Stream stream = node_stream(tree_, node.h);
    if (is_leaf(tree_, node)) {
      if (node.n <= kMultinomialLeafCapacity) {
        for (std::uint64_t k = 0; k < node.n; ++k) leaf_[k] = node.a + rng::uniform_below(stream, width);
        sort_points(leaf_, node.n);
        leaf_pos_ = 0;
        leaf_size_ = node.n;
      } else {
        big_ = node;
        big_from_ = lo_ > node.a ? lo_ : node.a;
        big_active_ = true;
      }
      return;
    }
    const u128 mid = node.a + width / 2;
    const std::uint64_t left = left_count(stream, node, mid);
    stack_[sp_++] = Node{mid, node.b, node.n - left, 2 * node.h + 1, node.d + 1};
    stack_[sp_++] = Node{node.a, mid, left, 2 * node.h, node.d + 1};
  }

  // A capped leaf with more points than the buffer: the smallest value >= big_from_ among its
  // draws (the same draws, in the same order, as a leaf that fits) and its multiplicity.
  RSMC_HOST_DEVICE void next_big_value() {
    rng::Stream stream = multinomial_detail::node_stream(tree_, big_.h);
    const u128 width = big_.b - big_.a;
    u128 smallest = 0;
    std::uint64_t copies = 0;
    for (std::uint64_t k = 0; k < big_.n; ++k) {
      const u128 x = big_.a + rng::uniform_below(stream, width);
      if (x < big_from_ || x >= hi_) continue;
      if (copies == 0 || x < smallest) {
        smallest = x;
        copies = 1;
      } else if (x == smallest) {
        ++copies;
      }
    }
    if (copies == 0) {
      big_active_ = false;
      return;
    }
    run_value_ = smallest;
    run_left_ = copies;
    big_from_ = smallest + 1;
  }

  MultinomialTree tree_;
  u128 lo_, hi_;
  multinomial_detail::Node stack_[kStack];
  int sp_ = 0;
  u128 leaf_[kMultinomialLeafCapacity];
  std::uint64_t leaf_pos_ = 0, leaf_size_ = 0;
  u128 run_value_ = 0;
  std::uint64_t run_left_ = 0;
  multinomial_detail::Node big_{0, 0, 0, 0, 0};
  u128 big_from_ = 0;
  bool big_active_ = false;
};

}  // namespace rsmc
