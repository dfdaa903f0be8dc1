// Cutpoint guide table + radix tree forest (kernels/inverse_cdf/radix_forest.hpp) and its Cutpoint +
// binary search baseline, against the reference rule upper_bound_index (upper_bound.hpp) on the
// cumulative table cumulative[i] = lower[i + 1] (cumulative[n - 1] = total).
//
// Exactness: every x of dense grids, of every boundary (x == lower[i] and its neighbours, cell
// edges), random points and points outside [0, total), for double, std::uint64_t and u128 keys, on
// tables with zero weights (runs at cell and table edges), duplicates, a single non-zero weight,
// n = 1, n not a multiple of 32, the paper's Table 1 distributions, m = 1, m = n and m > n; for
// small integer totals every integer in [0, total]. Structure: every leaf and node referenced
// exactly once, each cell's tree holds exactly that cell's leaves in order, guide entries as
// specified, search paths bounded by the key width. Monotone in x. All inputs from fixed seeds.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "base/exact/uint128.hpp"
#include "kernels/inverse_cdf/radix_forest.hpp"
#include "kernels/inverse_cdf/upper_bound.hpp"

using rsmc::exact::u128;
using rsmc::kernels::upper_bound_index;

namespace {

using HostSpace = Kokkos::DefaultHostExecutionSpace;
template <class K, class Ref = std::uint32_t>
using HostForest = rsmc::kernels::RadixForest<K, HostSpace, Ref>;

std::string show_value(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}
std::string show_value(std::uint64_t x) { return std::to_string(x); }
std::string show_value(u128 x) { return rsmc::exact::to_string(x); }

template <class K>
constexpr int key_bits() {
  return static_cast<int>(sizeof(typename rsmc::kernels::forest_detail::KeyTraits<K>::bits_type) * 8);
}

// A table of interval lower bounds and its total.
template <class K>
struct Wheel {
  std::vector<K> lower;
  K total{};
  std::vector<K> cumulative() const {  // the upper-bound table of upper_bound_index
    std::vector<K> c(lower.size());
    for (std::size_t i = 0; i + 1 < lower.size(); ++i) c[i] = lower[i + 1];
    c.back() = total;
    return c;
  }
};

// Weights -> lower bounds (exact prefix sums for integers; for doubles the prefix sums divided by
// the sum, total 1, unless `normalise` is false).
template <class K>
Wheel<K> wheel_of(const std::vector<K>& w, bool normalise = true) {
  Wheel<K> t;
  t.lower.resize(w.size());
  K run{};
  for (std::size_t i = 0; i < w.size(); ++i) {
    t.lower[i] = run;
    run += w[i];
  }
  t.total = run;
  if constexpr (std::is_same<K, double>::value) {
    if (normalise) {
      for (auto& v : t.lower) v /= run;
      t.total = 1.0;
    }
  }
  return t;
}

// Shapes of weights (doubles, >= 0, at least one > 0), turned into each key type below.
std::vector<double> shape(const std::string& name, std::size_t n, std::mt19937_64& gen) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> w(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double k = static_cast<double>(i + 1);
    if (name == "uniform") {
      w[i] = 1.0;
    } else if (name == "random") {
      w[i] = unit(gen);
    } else if (name == "zero runs") {  // zero runs at both table ends, inside, and 30% scattered zeros
      const bool run = i < 5 || i + 9 >= n || (i >= n / 3 && i < n / 3 + 7) || (i >= n / 2 && i < n / 2 + 40);
      w[i] = (run || unit(gen) < 0.3) ? 0.0 : unit(gen);
    } else if (name == "geometric") {  // a huge dynamic range: 2^-i
      w[i] = std::ldexp(1.0, -static_cast<int>(i % 1000));
    } else if (name == "i^20") {
      w[i] = std::pow(k, 20.0);
    } else if (name == "(i mod 32+1)^25") {
      w[i] = std::pow(static_cast<double>(i % 32 + 1), 25.0);
    } else if (name == "(i mod 64+1)^35") {
      w[i] = std::pow(static_cast<double>(i % 64 + 1), 35.0);
    } else if (name == "4 spikes") {
      w[i] = 1.0;
    } else if (name == "single") {
      w[i] = 0.0;
    }
  }
  if (name == "4 spikes")
    for (std::size_t s = 0; s < 4; ++s) w[(2 * s + 1) * n / 8] = 200.0;
  if (name == "single") w[gen() % n] = 1.0;
  bool any = false;
  for (double v : w) any = any || v > 0.0;
  if (!any) w[n - 1] = 1.0;
  return w;
}

std::vector<std::uint64_t> to_u64(const std::vector<double>& shape) {  // 40-bit fixed point of w / max
  const double top = *std::max_element(shape.begin(), shape.end());
  std::vector<std::uint64_t> w(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i)
    w[i] = static_cast<std::uint64_t>(std::floor(std::ldexp(shape[i] / top, 40)));
  return w;
}

std::vector<u128> to_u128(const std::vector<double>& shape, std::mt19937_64& gen) {  // ~100 bits, random low bits
  const double top = *std::max_element(shape.begin(), shape.end());
  std::vector<u128> w(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) {
    w[i] = static_cast<u128>(std::floor(std::ldexp(shape[i] / top, 100)));
    if (w[i] != 0) w[i] += gen() >> 20;
  }
  return w;
}

// Points to test: boundaries, their neighbours, cell edges, grids, random points, and outside the
// domain. For doubles `grid` evenly spaced points of [0, total); for integers every integer of
// [0, total] when total <= `grid`, else `grid` evenly spaced ones.
std::vector<double> points_for(const Wheel<double>& t, const rsmc::kernels::GuideCells<double>& cells, std::size_t grid,
                               std::mt19937_64& gen) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> x;
  for (std::size_t k = 0; k < grid; ++k) x.push_back(t.total * static_cast<double>(k) / static_cast<double>(grid));
  for (double v : t.lower) {
    x.push_back(v);
    x.push_back(std::nextafter(v, -inf));
    x.push_back(std::nextafter(v, inf));
  }
  const std::uint64_t m = cells.count();
  const std::uint64_t step = m > 4096 ? m / 4096 : 1;
  for (std::uint64_t c = 0; c < m; c += step) {
    double e = static_cast<double>(c) / cells.scale;
    x.push_back(e);
    for (int k = 0; k < 2; ++k) x.push_back(e = std::nextafter(e, inf));
    e = static_cast<double>(c) / cells.scale;
    for (int k = 0; k < 2; ++k) x.push_back(e = std::nextafter(e, -inf));
  }
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int k = 0; k < 500; ++k) x.push_back(unit(gen) * t.total);
  for (double v : {t.total, std::nextafter(t.total, inf), std::nextafter(t.total, 0.0), 2.0 * t.total, inf, -0.0,
                   -1e-300, -1.0, -inf, std::numeric_limits<double>::quiet_NaN()})
    x.push_back(v);
  return x;
}

template <class K>
K random_below(K bound, std::mt19937_64& gen) {
  u128 r = (static_cast<u128>(gen()) << 64) | gen();
  return static_cast<K>(r % static_cast<u128>(bound));
}

template <class K>
std::vector<K> points_for(const Wheel<K>& t, const rsmc::kernels::GuideCells<K>& cells, std::size_t grid,
                          std::mt19937_64& gen) {
  std::vector<K> x;
  if (t.total <= static_cast<K>(grid)) {
    for (K v = 0; v <= t.total; ++v) x.push_back(v);
  } else {
    for (std::size_t k = 0; k < grid; ++k) x.push_back(static_cast<K>(t.total / grid * k));
  }
  for (K v : t.lower) {
    x.push_back(v);
    x.push_back(v + 1);
    if (v > 0) x.push_back(v - 1);
  }
  const std::uint64_t m = cells.count();
  const std::uint64_t step = m > 4096 ? m / 4096 : 1;
  for (std::uint64_t c = 0; c < m; c += step) {
    const K e = static_cast<K>(c) * cells.width;
    x.push_back(e);
    x.push_back(e + 1);
    if (e > 0) x.push_back(e - 1);
  }
  for (int k = 0; k < 500; ++k) x.push_back(random_below(t.total, gen));
  const K top = ~K(0);
  for (K v : {t.total - 1, t.total, top, top - 1}) x.push_back(v);
  if (t.total < top) x.push_back(t.total + 1);
  return x;
}

// The structural invariants of a built forest; returns "" or what is wrong.
template <class K, class Ref>
std::string structure_problem(const HostForest<K, Ref>& f) {
  const std::size_t n = f.size();
  const std::uint64_t m = f.cell_count();
  const auto nodes = f.nodes();
  const auto table = f.table();
  const auto starts = f.cutpoint().starts();
  const auto lower = f.cutpoint().lower();
  const Ref leaf = rsmc::kernels::forest_detail::leaf_bit<Ref>();
  auto is_leaf = [&](Ref r) { return (r & leaf) != 0; };
  auto leaf_of = [&](Ref r) { return static_cast<std::size_t>(static_cast<Ref>(~r)); };
  if (starts(0) != 0 || starts(m) != n) return "starts[0] != 0 or starts[m] != n";
  std::vector<char> root(n, 0);
  for (std::uint64_t c = 0; c < m; ++c) {
    if (starts(c + 1) < starts(c)) return "starts decrease at cell " + std::to_string(c);
    for (Ref i = starts(c); i < starts(c + 1); ++i)
      if (f.cells()(lower(i)) != c) return "lower bound " + std::to_string(i) + " counted in the wrong cell";
    if (starts(c + 1) > starts(c)) root[starts(c)] = 1;
  }
  // Every leaf once; every inner node once; roots never (their left child is the fixed-up leaf).
  std::vector<int> leaf_refs(n, 0), node_refs(n, 0);
  for (std::size_t j = 0; j < n; ++j) {
    for (int c = 0; c < 2; ++c) {
      const Ref r = nodes(2 * j + c);
      if (root[j] && c == 0) {
        if (r != static_cast<Ref>(~static_cast<Ref>(j == 0 ? 0 : j - 1)))
          return "root " + std::to_string(j) + ": left child is not the leaf overlapping from the left";
        continue;
      }
      if (is_leaf(r)) {
        if (leaf_of(r) >= n) return "leaf reference out of range at node " + std::to_string(j);
        ++leaf_refs[leaf_of(r)];
      } else {
        if (r >= n) return "node reference out of range at node " + std::to_string(j);
        ++node_refs[r];
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (leaf_refs[i] != 1)
      return "leaf " + std::to_string(i) + " referenced " + std::to_string(leaf_refs[i]) + " times";
    if (node_refs[i] != (root[i] ? 0 : 1))
      return "node " + std::to_string(i) + " referenced " + std::to_string(node_refs[i]) + " times";
  }
  // Each cell's tree: in order, exactly the cell's leaves a..b, every node j between its leaves
  // (left subtree < j <= right subtree). An explicit stack: duplicate runs make long chains.
  for (std::uint64_t c = 0; c < m; ++c) {
    const std::size_t a = starts(c), b = starts(c + 1);
    if (a == b) {
      if (table(c) != static_cast<Ref>(~static_cast<Ref>(a - 1))) return "empty cell " + std::to_string(c);
      continue;
    }
    const Ref right = nodes(2 * a + 1);
    if (table(c) != static_cast<Ref>(a)) {
      if (table(c) != right || !f.cells().starts_cell(lower(a), c)) return "guide entry of cell " + std::to_string(c);
    }
    std::size_t next = a;  // the next leaf expected in order
    struct Item {
      Ref ref;
      std::size_t lo, hi;  // leaves allowed under ref: [lo, hi)
    };
    std::vector<Item> stack{{right, a, b}};
    std::size_t visited = 0;
    while (!stack.empty()) {
      const Item it = stack.back();
      stack.pop_back();
      if (++visited > 2 * n) return "cycle under cell " + std::to_string(c);
      if (is_leaf(it.ref)) {
        const std::size_t i = leaf_of(it.ref);
        if (i != next || i < it.lo || i >= it.hi) return "leaf " + std::to_string(i) + " out of order";
        ++next;
        continue;
      }
      const std::size_t j = it.ref;
      if (j <= it.lo || j >= it.hi) return "node " + std::to_string(j) + " outside its range";
      stack.push_back({nodes(2 * j + 1), j, it.hi});  // right after left
      stack.push_back({nodes(2 * j), it.lo, j});
    }
    if (next != b) return "cell " + std::to_string(c) + " tree misses leaves";
  }
  return "";
}

// Algorithm 2 with a step count (loads after the guide entry), on the host.
template <class K, class Ref>
std::uint64_t walk(const HostForest<K, Ref>& f, K x, int& steps) {
  const auto nodes = f.nodes();
  const auto lower = f.cutpoint().lower();
  Ref j = f.table()(f.cells()(x));
  steps = 0;
  while (!(j & rsmc::kernels::forest_detail::leaf_bit<Ref>())) {
    j = nodes(2 * static_cast<std::size_t>(j) + (x < lower(j) ? 0 : 1));
    ++steps;
  }
  return static_cast<Ref>(~j);
}

template <class K>
Kokkos::View<K*, HostSpace::memory_space> host_view(const std::vector<K>& v) {
  Kokkos::View<K*, HostSpace::memory_space> out("lower", v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out(i) = v[i];
  return out;
}

// Builds forest + cutpoint on `t` with `cells` and compares them with upper_bound_index on every
// point (one by one and through the batch API); checks structure, path depth and monotonicity.
template <class K, class Ref = std::uint32_t>
void check_wheel(const Wheel<K>& t, std::uint64_t cells, std::size_t grid, std::mt19937_64& gen,
                 const std::string& what, HostForest<K, Ref>* reuse = nullptr) {
  INFO(what << ": n = " << t.lower.size() << ", cells requested = " << cells << ", total = " << show_value(t.total));
  HostForest<K, Ref> local;
  HostForest<K, Ref>& f = reuse ? *reuse : local;
  const auto lower = host_view(t.lower);
  f.build(lower, t.total, cells);
  REQUIRE(f.size() == t.lower.size());
  if (cells != 0) REQUIRE(f.cell_count() <= cells);
  REQUIRE(structure_problem(f) == "");
  const std::vector<K> cum = t.cumulative();
  const std::size_t n = t.lower.size();
  std::vector<K> x = points_for(t, f.cells(), grid, gen);
  const auto forest = f.sampler();
  const auto cutpoint = f.cutpoint_sampler();
  std::size_t bad = 0;
  std::string first_bad;
  int max_steps = 0;
  for (const K v : x) {
    const std::uint64_t want = upper_bound_index(cum.data(), n, v);
    const std::uint64_t got = forest.index(v), base = cutpoint.index(v);
    int steps = 0;
    const std::uint64_t walked = (v < t.total) ? walk(f, v, steps) : n;
    max_steps = std::max(max_steps, steps);
    if (got != want || base != want || walked != want) {
      if (bad++ == 0)
        first_bad = "x = " + show_value(v) + ": upper_bound " + std::to_string(want) + ", forest " +
                    std::to_string(got) + ", cutpoint " + std::to_string(base);
    }
  }
  INFO(first_bad);
  REQUIRE(bad == 0);
  // A radix tree's search path has at most one node per key bit, plus the root.
  CHECK(max_steps <= key_bits<K>() + 1);
  // Batch API on the same points; the result is monotone along sorted points.
  std::vector<K> sorted = x;
  sorted.erase(std::remove_if(sorted.begin(), sorted.end(), [](K v) { return !(v == v); }), sorted.end());
  std::sort(sorted.begin(), sorted.end());
  const auto pts = host_view(sorted);
  Kokkos::View<std::uint64_t*, HostSpace::memory_space> out("out", sorted.size()), out_cut("out_cut", sorted.size());
  f.sample(pts, out);
  f.cutpoint().sample(pts, out_cut);
  HostSpace().fence();
  for (std::size_t k = 0; k < sorted.size(); ++k) {
    const std::uint64_t want = upper_bound_index(cum.data(), n, sorted[k]);
    if (out(k) != want || out_cut(k) != want || (k > 0 && out(k) < out(k - 1))) ++bad;
  }
  REQUIRE(bad == 0);
}

const std::vector<std::string> kShapeNames{"uniform",         "random",          "zero runs", "geometric", "i^20",
                                           "(i mod 32+1)^25", "(i mod 64+1)^35", "4 spikes",  "single"};

}  // namespace

TEST_CASE("radix forest: the digest's failing example (m = 1, lower = [0, 7.07e-6, 0.6534])", "[kernels]") {
  // The paper's out-of-cell sentinel 1.0 is not a maximum distance under float-bit XOR: the
  // in-cell gap between 7.07e-6 and 0.6534 is farther than 0.6534 is from 1.0.
  using rsmc::exact::exact_detail::double_bits;
  CHECK((double_bits(7.07e-6) ^ double_bits(0.6534)) > (double_bits(0.6534) ^ double_bits(1.0)));
  std::mt19937_64 gen(1);
  const Wheel<double> t{{0.0, 7.07e-6, 0.6534}, 1.0};
  for (std::uint64_t cells : {1, 2, 3, 0, 1000}) check_wheel(t, cells, 1 << 14, gen, "digest example");
  HostForest<double> f;
  f.build(host_view(t.lower), 1.0, 1);
  CHECK(f.index(0.0) == 0);
  CHECK(f.index(7.07e-6) == 1);
  CHECK(f.index(std::nextafter(7.07e-6, 0.0)) == 0);
  CHECK(f.index(0.6534) == 2);
  CHECK(f.index(0.99) == 2);
  CHECK(f.index(1.0) == 3);
}

TEST_CASE("radix forest: integer keys whose in-cell XOR is all ones (m = 1)", "[kernels]") {
  // With a plain all-ones sentinel these in-cell gaps would tie with the cell boundary.
  std::mt19937_64 gen(2);
  const std::uint64_t top = ~std::uint64_t{0};
  check_wheel(Wheel<std::uint64_t>{{0, 1, top - 1}, top}, 1, 64, gen, "u64 [0, 1, 2^64-2]");
  check_wheel(Wheel<std::uint64_t>{{0, top}, top}, 1, 64, gen, "u64 [0, 2^64-1] (zero-width last)");
  check_wheel(Wheel<std::uint64_t>{{0, 0, 1, 1, top - 1, top - 1, top}, top}, 1, 64, gen, "u64 duplicates");
  const u128 top128 = ~u128{0};
  check_wheel(Wheel<u128>{{0, 1, top128 - 1}, top128}, 1, 64, gen, "u128 [0, 1, 2^128-2]");
  check_wheel(Wheel<u128>{{0, 1, top128 - 1}, top128}, 2, 64, gen, "u128 [0, 1, 2^128-2], 2 cells");
}

TEST_CASE("radix forest: n = 1, a single non-zero weight, all-equal lower bounds", "[kernels]") {
  std::mt19937_64 gen(3);
  for (std::uint64_t cells : {0, 1, 7}) {
    check_wheel(Wheel<double>{{0.0}, 1.0}, cells, 256, gen, "n = 1 double");
    check_wheel(Wheel<double>{{0.0}, 3.5}, cells, 256, gen, "n = 1 double, total 3.5");
    check_wheel(Wheel<std::uint64_t>{{0}, 1}, cells, 256, gen, "n = 1 u64, total 1");
    check_wheel(Wheel<std::uint64_t>{{0}, 1000}, cells, 2000, gen, "n = 1 u64");
    check_wheel(Wheel<u128>{{0}, u128{1} << 100}, cells, 256, gen, "n = 1 u128");
    // Every weight zero but the first / the last / one in the middle.
    check_wheel(Wheel<double>{{0, 1, 1, 1, 1}, 1}, cells, 256, gen, "only the first");
    check_wheel(Wheel<double>{{0, 0, 0, 0, 0}, 1}, cells, 256, gen, "only the last");
    check_wheel(Wheel<std::uint64_t>{{0, 0, 0, 9, 9, 9}, 9}, cells, 256, gen, "only the middle");
    check_wheel(Wheel<u128>{{0, 0, 0, 0, 5}, 5}, cells, 256, gen, "last zero-width");
  }
}

TEST_CASE("radix forest: small integer wheels, every integer of [0, total]", "[kernels]") {
  std::mt19937_64 gen(4);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = 1 + gen() % 50;
    std::vector<std::uint64_t> w(n);
    for (auto& v : w) v = gen() % 4;  // many zeros and duplicates
    if (gen() % 3 == 0) w[0] = 0;
    w[gen() % n] += 1;
    const Wheel<std::uint64_t> t = wheel_of(w);
    std::vector<u128> w128(w.begin(), w.end());
    const Wheel<u128> t128 = wheel_of(w128);
    const std::uint64_t total = t.total;
    for (std::uint64_t cells : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3},
                                std::uint64_t{7}, std::uint64_t{n}, total, 2 * total + 5}) {
      check_wheel(t, cells, 1000, gen, "small u64 wheel");
      check_wheel(t128, cells, 1000, gen, "small u128 wheel");
    }
  }
}

TEST_CASE("radix forest: all key types, shapes, sizes and cell counts agree with binary search", "[kernels]") {
  std::mt19937_64 gen(5);
  for (const std::size_t n : {2, 3, 31, 33, 100, 1000, 4099}) {
    for (const std::string& name : kShapeNames) {
      const std::vector<double> s = shape(name, n, gen);
      const Wheel<double> td = wheel_of(s);
      const Wheel<double> tu = wheel_of(s, false);  // total = the sum, not 1
      const Wheel<std::uint64_t> t64 = wheel_of(to_u64(s));
      const Wheel<u128> t128 = wheel_of(to_u128(s, gen));
      for (const std::uint64_t cells :
           {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{n / 3 + 1}, std::uint64_t{4 * n + 3}}) {
        const std::size_t grid = n > 1000 ? 2048 : 4096;
        check_wheel(td, cells, grid, gen, name + " double");
        check_wheel(t64, cells, grid, gen, name + " u64");
        check_wheel(t128, cells, grid, gen, name + " u128");
        if (cells == 0) check_wheel(tu, cells, grid, gen, name + " double, unnormalised");
      }
    }
  }
}

TEST_CASE("radix forest: rebuilding one object (otherBounds reset), 64-bit references", "[kernels]") {
  std::mt19937_64 gen(6);
  HostForest<double> f;
  HostForest<u128, std::uint64_t> g;
  for (int round = 0; round < 6; ++round) {
    const std::size_t n = round < 3 ? 500 : 77 + round;  // same size three times, then others
    const std::vector<double> s = shape(kShapeNames[static_cast<std::size_t>(round) % kShapeNames.size()], n, gen);
    check_wheel(wheel_of(s), 0, 1024, gen, "rebuild double", &f);
    check_wheel(wheel_of(to_u128(s, gen)), round == 4 ? 3 : 0, 1024, gen, "rebuild u128, 64-bit refs", &g);
  }
}

TEST_CASE("radix forest: invalid tables are rejected", "[kernels]") {
  HostForest<double> f;
  CHECK_THROWS_AS(f.build(host_view(std::vector<double>{}), 1.0), std::invalid_argument);
  CHECK_THROWS_AS(f.build(host_view(std::vector<double>{0.0, 0.5, 0.4}), 1.0), std::invalid_argument);
  CHECK_THROWS_AS(f.build(host_view(std::vector<double>{0.1, 0.5}), 1.0), std::invalid_argument);
  CHECK_THROWS_AS(f.build(host_view(std::vector<double>{0.0, 1.5}), 1.0), std::invalid_argument);
  CHECK_THROWS_AS(f.build(host_view(std::vector<double>{0.0, 0.5}), 0.0), std::invalid_argument);
  CHECK_THROWS_AS(f.build(host_view(std::vector<double>{0.0, std::nan("")}), 1.0), std::invalid_argument);
  HostForest<std::uint64_t> g;
  CHECK_THROWS_AS(g.build(host_view(std::vector<std::uint64_t>{0, 3}), 0), std::invalid_argument);
  CHECK_THROWS_AS(g.build(host_view(std::vector<std::uint64_t>{0, 5, 4}), 9), std::invalid_argument);
  CHECK_NOTHROW(g.build(host_view(std::vector<std::uint64_t>{0, 5, 9}), 9));
}

TEST_CASE("radix forest: batch sampling on the default execution space", "[kernels]") {
  using Exec = Kokkos::DefaultExecutionSpace;
  using Mem = Exec::memory_space;
  std::mt19937_64 gen(7);
  const std::size_t n = 3001;
  const Wheel<u128> t = wheel_of(to_u128(shape("(i mod 64+1)^35", n, gen), gen));
  const Wheel<double> td = wheel_of(shape("zero runs", n, gen));
  const std::vector<u128> cum = t.cumulative();
  const std::vector<double> cumd = td.cumulative();
  const std::size_t count = 20000;
  Kokkos::View<u128*, Mem> lower("lower", n), pts("pts", count);
  Kokkos::View<double*, Mem> lowerd("lowerd", n), ptsd("ptsd", count);
  Kokkos::View<std::uint64_t*, Mem> out("out", count), outd("outd", count);
  auto lower_h = Kokkos::create_mirror_view(lower);
  auto pts_h = Kokkos::create_mirror_view(pts);
  auto lowerd_h = Kokkos::create_mirror_view(lowerd);
  auto ptsd_h = Kokkos::create_mirror_view(ptsd);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    lower_h(i) = t.lower[i];
    lowerd_h(i) = td.lower[i];
  }
  for (std::size_t k = 0; k < count; ++k) {
    pts_h(k) = random_below(t.total, gen);
    ptsd_h(k) = unit(gen);
  }
  Kokkos::deep_copy(lower, lower_h);
  Kokkos::deep_copy(pts, pts_h);
  Kokkos::deep_copy(lowerd, lowerd_h);
  Kokkos::deep_copy(ptsd, ptsd_h);
  rsmc::kernels::RadixForest<u128> f;
  rsmc::kernels::RadixForest<double> fd;
  f.build(lower, t.total);
  fd.build(lowerd, td.total);
  f.sample(pts, out);
  fd.sample(ptsd, outd);
  auto out_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  auto outd_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), outd);
  std::size_t bad = 0;
  for (std::size_t k = 0; k < count; ++k) {
    if (out_h(k) != upper_bound_index(cum.data(), n, pts_h(k))) ++bad;
    if (outd_h(k) != upper_bound_index(cumd.data(), n, ptsd_h(k))) ++bad;
  }
  CHECK(bad == 0);
}

TEST_CASE("radix forest: Table 1 distributions, loads per search (forest vs cutpoint + binary search)", "[kernels]") {
  // The paper's measure: loads per search (the guide entry plus one per tree node / bisection
  // step), its maximum, mean, and the mean over groups of 32 searches of the group's maximum
  // (a GPU warp waits for its slowest lane). Random points; m = n. (At n = 100 the binary search
  // column reproduces the paper's Table 1 closely.)
  std::mt19937_64 gen(8);
  const std::size_t n = 4096, searches = 32 * 4096;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (const std::string name : {"i^20", "(i mod 32+1)^25", "(i mod 64+1)^35", "4 spikes"}) {
    const Wheel<double> t = wheel_of(shape(name, n, gen));
    const std::vector<double> cum = t.cumulative();
    HostForest<double> f;
    f.build(host_view(t.lower), 1.0);
    const auto starts = f.cutpoint().starts();
    double sum_f = 0, sum_b = 0, sum32_f = 0, sum32_b = 0;
    int max_f = 0, max_b = 0, warp_f = 0, warp_b = 0;
    std::size_t bad = 0;
    for (std::size_t k = 0; k < searches; ++k) {
      const double x = unit(gen);
      int steps = 0;
      if (walk(f, x, steps) != upper_bound_index(cum.data(), n, x)) ++bad;
      const int loads_f = 1 + steps;
      // Cutpoint + binary search: the guide entry, then one load per bisection step.
      const std::uint64_t c = f.cells()(x);
      std::uint64_t lo = starts(c), hi = starts(c + 1);
      int loads_b = 1;
      while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        ++loads_b;
        if (x < t.lower[mid])
          hi = mid;
        else
          lo = mid + 1;
      }
      sum_f += loads_f;
      sum_b += loads_b;
      max_f = std::max(max_f, loads_f);
      max_b = std::max(max_b, loads_b);
      warp_f = std::max(warp_f, loads_f);
      warp_b = std::max(warp_b, loads_b);
      if (k % 32 == 31) {
        sum32_f += warp_f;
        sum32_b += warp_b;
        warp_f = warp_b = 0;
      }
    }
    REQUIRE(bad == 0);
    const double groups = static_cast<double>(searches / 32);
    const double avg_f = sum_f / searches, avg_b = sum_b / searches;
    const double avg32_f = sum32_f / groups, avg32_b = sum32_b / groups;
    WARN(name << ": cutpoint+binary max " << max_b << " avg " << avg_b << " avg32 " << avg32_b
              << " | cutpoint+forest max " << max_f << " avg " << avg_f << " avg32 " << avg32_f);
    // Both stay close to one load on average with m = n.
    CHECK(avg_f < 3.0);
    CHECK(avg_b < 3.0);
    // The paper's trend for the periodic power laws: the slowest of 32 lanes needs fewer loads
    // with the forest. (With double keys, i^20 does not show_value it here: its first cell holds lower
    // bounds spread over some 250 binades, and the tree spends a level per exponent bit.
    // "4 spikes" ties: a cell that starts at a lower bound skips the root.)
    if (name[0] == '(') CHECK(avg32_f < avg32_b);
  }
}
