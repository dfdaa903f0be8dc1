// The data-parallel selection (framework/resample/select/parallel_selection.hpp) against the serial
// reference select_offspring (framework/resample/select/selection.hpp): the same first id, offspring
// count, counts per particle and ancestors, for every scheme, every local sampler (alias included), both
// paths (merge walk, point lookup), chunk sizes from 1 to the default, with and without counts, on
// random weight vectors (zeros, the maximum 2^64 - 1, a single huge weight among tiny ones, n = 1,
// N unrelated to n) cut into slices as ranks hold them. Residual's scans over the ranks are
// simulated from the slices. CTest runs this file at 1, 2 and 3 OpenMP threads
// (tests/CMakeLists.txt); with a Serial Kokkos the thread count is 1 each time.
//
// fixed_weights_and_wheel gives exact::fixed_weight's bits and the exact rank total, and a selection
// that reuses its scan gives the reference's. The pieces are checked against their serial
// counterparts too: the multinomial cursor and count_below against sorted_multinomial_points (small
// tree shapes included, which reach the depth cap and its oversized leaves), and the evenly spaced
// search from any starting guess.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "base/exact/fixed_weight.hpp"
#include "base/exact/uint128.hpp"
#include "base/math/math.hpp"
#include "base/rng/stream.hpp"
#include "framework/resample/select/evenly_spaced_points.hpp"
#include "framework/resample/select/local_sampling.hpp"
#include "framework/resample/select/multinomial_cursor.hpp"
#include "framework/resample/select/parallel_selection.hpp"
#include "framework/resample/select/selection.hpp"
#include "framework/resample/select/selection_kernels.hpp"
#include "framework/resample/select/sorted_multinomial.hpp"

namespace {

using rsmc::LocalSampler;
using rsmc::Scheme;
using rsmc::SelectionPath;
using rsmc::exact::u128;
using Exec = Kokkos::DefaultExecutionSpace;
using Memory = Exec::memory_space;

constexpr Scheme kAllSchemes[] = {Scheme::systematic, Scheme::stratified, Scheme::multinomial, Scheme::residual};
constexpr std::uint64_t kMaxU64 = ~std::uint64_t(0);

// The selection of one rank, as plain vectors.
struct RankSelection {
  std::uint64_t first_id = 0, offspring = 0;
  std::vector<std::uint64_t> counts, ancestors;
  bool operator==(const RankSelection& o) const {
    return first_id == o.first_id && offspring == o.offspring && counts == o.counts && ancestors == o.ancestors;
  }
};

std::vector<std::uint64_t> expand(const std::vector<std::uint64_t>& counts) {
  std::vector<std::uint64_t> a;
  for (std::size_t i = 0; i < counts.size(); ++i) a.insert(a.end(), counts[i], i);
  return a;
}

struct RankSlice {
  std::vector<std::uint64_t> w;
  rsmc::WheelShare wheel;
};

// Cut `all` into `ranks` consecutive slices at random points (empty slices included).
std::vector<RankSlice> cut(const std::vector<std::uint64_t>& all, std::size_t ranks, rsmc::rng::Stream& s) {
  u128 total = 0;
  for (auto w : all) total += w;
  std::vector<RankSlice> slices;
  std::size_t begin = 0;
  u128 below = 0;
  for (std::size_t k = 0; k < ranks; ++k) {
    const std::size_t end = k + 1 == ranks ? all.size() : begin + s.integer(all.size() - begin + 1);
    RankSlice slice;
    slice.w.assign(all.begin() + static_cast<std::ptrdiff_t>(begin), all.begin() + static_cast<std::ptrdiff_t>(end));
    u128 local = 0;
    for (auto w : slice.w) local += w;
    slice.wheel = rsmc::WheelShare{below, local, total};
    slices.push_back(slice);
    below += local;
    begin = end;
  }
  return slices;
}

struct Draw {
  std::uint64_t samples, seed;
  std::uint32_t step;
};

RankSelection serial(Scheme scheme, const RankSlice& slice, const Draw& d,
                     LocalSampler sampler = LocalSampler::search) {
  rsmc::SelectionInputs in;
  in.fixed_weights = &slice.w;
  in.wheel = slice.wheel;
  in.samples = d.samples;
  in.seed = d.seed;
  in.step = d.step;
  in.sampler = sampler;
  const rsmc::Selection s = rsmc::select_offspring(scheme, in, MPI_COMM_SELF);
  return {s.first_id, s.offspring, s.counts, expand(s.counts)};
}

// Residual's scans over the simulated ranks: the first call of a selection scans the copies, the
// second the residual totals (select_offspring_parallel's order), each slice's values computed here
// on the host as the serial code does.
class SimulatedRanks {
 public:
  SimulatedRanks(const std::vector<RankSlice>& slices, std::uint64_t samples) {
    for (const RankSlice& slice : slices) {
      u128 copies = 0, residual = 0;
      for (auto w : slice.w) {
        const u128 scaled = u128(samples) * w, whole = scaled / slice.wheel.total;
        copies += whole;
        residual += scaled - whole * slice.wheel.total;
      }
      copies_.push_back(copies);
      residual_.push_back(residual);
    }
  }
  // The scan functor for slice k.
  auto for_rank(std::size_t k) {
    calls_ = 0;
    return [this, k](u128 local) {
      const std::vector<u128>& values = calls_++ == 0 ? copies_ : residual_;
      REQUIRE(values[k] == local);
      rsmc::exact::ScanTotal scan{0, 0};
      for (std::size_t j = 0; j < values.size(); ++j) {
        if (j < k) scan.below += values[j];
        scan.total += values[j];
      }
      return scan;
    };
  }

 private:
  std::vector<u128> copies_, residual_;
  int calls_ = 0;
};

struct Setup {
  LocalSampler sampler;
  SelectionPath path;
  std::uint64_t chunk;
  bool counts;
};

template <class RankScan>
RankSelection parallel(Scheme scheme, const RankSlice& slice, const Draw& d, const Setup& setup, RankScan&& scan,
                       rsmc::ParallelSelectionWorkspace<Exec>& ws) {
  Kokkos::View<std::uint64_t*, Memory> w("w", slice.w.size());
  auto host_w = Kokkos::create_mirror_view(w);
  for (std::size_t i = 0; i < slice.w.size(); ++i) host_w(i) = slice.w[i];
  Kokkos::deep_copy(w, host_w);
  rsmc::ParallelSelectionInputs<Memory> in;
  in.fixed_weights = w;
  in.wheel = slice.wheel;
  in.samples = d.samples;
  in.seed = d.seed;
  in.step = d.step;
  in.scheme = scheme;
  in.sampler = setup.sampler;
  rsmc::ParallelSelectionOptions options;
  options.path = setup.path;
  options.chunk = setup.chunk;
  options.counts = setup.counts;
  const rsmc::SelectionShareResult share = rsmc::select_offspring_parallel(Exec(), in, scan, ws, options);
  RankSelection r;
  r.first_id = share.first_id;
  r.offspring = share.offspring;
  auto ancestors = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ws.ancestor);
  r.ancestors.assign(ancestors.data(), ancestors.data() + share.offspring);
  if (setup.counts) {
    auto counts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ws.counts);
    r.counts.assign(counts.data(), counts.data() + slice.w.size());
  }
  return r;
}

std::vector<Setup> setups() {
  std::vector<Setup> all;
  for (LocalSampler sampler : {LocalSampler::search, LocalSampler::forest, LocalSampler::butterfly})
    for (SelectionPath path : {SelectionPath::merge_walk, SelectionPath::point_lookup}) {
      if (sampler != LocalSampler::search && path == SelectionPath::merge_walk) continue;  // always a lookup
      for (std::uint64_t chunk : {std::uint64_t(1), std::uint64_t(3), std::uint64_t(64), std::uint64_t(0)})
        all.push_back({sampler, path, chunk, chunk != 3});
    }
  all.push_back({LocalSampler::search, SelectionPath::automatic, 0, true});
  // The alias sampler has no path (its draws are not points); chunks still cut residual's split.
  for (std::uint64_t chunk : {std::uint64_t(1), std::uint64_t(0)})
    for (bool counts : {false, true}) all.push_back({LocalSampler::alias, SelectionPath::automatic, chunk, counts});
  return all;
}

std::string describe(Scheme scheme, const Setup& s) {
  const char* path = s.path == SelectionPath::merge_walk     ? "merge walk"
                     : s.path == SelectionPath::point_lookup ? "point lookup"
                                                             : "automatic";
  return std::string(rsmc::scheme_name(scheme)) + ", " + rsmc::local_sampler_name(s.sampler) + ", " + path +
         ", chunk " + std::to_string(s.chunk) + (s.counts ? ", counts" : "");
}

// The alias sampler's selection of a slice: the scheme's share (first id and offspring, from the
// inverse-CDF reference) and that many draws by select_offspring's host code (add_alias_counts:
// Vose's table, draw ids N + first id + d).
RankSelection alias_reference(const RankSelection& share, const RankSlice& slice, const Draw& d) {
  RankSelection r{share.first_id, share.offspring, std::vector<std::uint64_t>(slice.w.size(), 0), {}};
  rsmc::add_alias_counts(slice.w, r.offspring, d.seed, d.step, d.samples + r.first_id, r.counts);
  r.ancestors = expand(r.counts);
  return r;
}

// Every scheme and setup on every slice of `all` must give the serial selection of that slice.
// Residual is compared with the serial selection of the whole wheel restricted to the slice (the
// serial code scans over a real communicator, so it cannot run on simulated slices).
void check_all(const std::vector<std::uint64_t>& all, std::size_t ranks, const Draw& d, rsmc::rng::Stream& s) {
  const std::vector<RankSlice> slices = cut(all, ranks, s);
  RankSlice whole;
  whole.w = all;
  whole.wheel = rsmc::WheelShare{0, slices[0].wheel.total, slices[0].wheel.total};
  rsmc::ParallelSelectionWorkspace<Exec> ws;  // shared by all calls, as a filter keeps it over steps
  for (const Scheme scheme : kAllSchemes) {
    if (scheme == Scheme::residual && d.samples >= (std::uint64_t(1) << 32)) continue;
    const RankSelection whole_reference = serial(scheme, whole, d);
    SimulatedRanks simulated(slices, d.samples);
    std::uint64_t begin = 0, first_id = 0;
    for (std::size_t k = 0; k < slices.size(); ++k) {
      const RankSlice& slice = slices[k];
      RankSelection reference;
      if (scheme == Scheme::residual) {
        reference.first_id = first_id;
        reference.counts.assign(whole_reference.counts.begin() + static_cast<std::ptrdiff_t>(begin),
                                whole_reference.counts.begin() + static_cast<std::ptrdiff_t>(begin + slice.w.size()));
        for (auto c : reference.counts) reference.offspring += c;
        reference.ancestors = expand(reference.counts);
      } else {
        reference = serial(scheme, slice, d);
      }
      const RankSelection alias = alias_reference(reference, slice, d);
      if (scheme != Scheme::residual) CHECK(serial(scheme, slice, d, LocalSampler::alias) == alias);
      for (const Setup& setup : setups()) {
        INFO(describe(scheme, setup) << "; slice " << k << " of " << slices.size() << ", " << slice.w.size()
                                     << " particles, N = " << d.samples << ", seed " << d.seed);
        const RankSelection& expected = setup.sampler == LocalSampler::alias ? alias : reference;
        RankSelection got = parallel(scheme, slice, d, setup, simulated.for_rank(k), ws);
        if (!setup.counts) got.counts = expected.counts;
        CHECK(got.first_id == expected.first_id);
        CHECK(got.offspring == expected.offspring);
        CHECK(got.counts == expected.counts);
        CHECK(got.ancestors == expected.ancestors);
      }
      begin += slice.w.size();
      first_id += reference.offspring;
    }
    CHECK(first_id == d.samples);
  }
}

// Weights of the kinds that break merge walks: zeros (runs too), the maximum, random magnitudes.
std::vector<std::uint64_t> random_weights(std::size_t n, rsmc::rng::Stream& s) {
  std::vector<std::uint64_t> w(n);
  for (auto& x : w) {
    const std::uint64_t kind = s.integer(4);
    x = kind == 0 ? 0 : kind == 1 ? kMaxU64 : s.next_u64() >> s.integer(64);
  }
  if (n > 8) {
    const std::uint64_t run = s.integer(n / 2), at = s.integer(n - run);
    for (std::uint64_t k = at; k < at + run; ++k) w[k] = 0;
  }
  w[s.integer(n)] = kMaxU64;
  return w;
}

}  // namespace

TEST_CASE("parallel selection equals select_offspring on random weights and slices", "[parallel_selection]") {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    rsmc::rng::Stream s(seed, rsmc::rng::Purpose::model, 1, 0);
    const std::size_t n = 1 + s.integer(seed <= 4 ? 40 : 700);
    const auto w = random_weights(n, s);
    const std::uint64_t samples_choice[] = {n, n, 1 + s.integer(3 * n), n / 3 + 1};
    const Draw d{samples_choice[s.integer(4)], seed, static_cast<std::uint32_t>(seed * 7)};
    check_all(w, 1 + s.integer(5), d, s);
  }
}

TEST_CASE("parallel selection equals select_offspring on the edge cases", "[parallel_selection]") {
  rsmc::rng::Stream s(77, rsmc::rng::Purpose::model, 2, 0);
  SECTION("one particle") { check_all({12345}, 1, Draw{1, 3, 1}, s); }
  SECTION("one particle, many offspring") { check_all({kMaxU64}, 1, Draw{1000, 4, 2}, s); }
  SECTION("a single huge weight among tiny ones: one particle takes almost every offspring") {
    std::vector<std::uint64_t> w(900, 1);
    w[450] = kMaxU64;
    check_all(w, 3, Draw{900, 5, 3}, s);
  }
  SECTION("a single non-zero weight") {
    std::vector<std::uint64_t> w(300, 0);
    w[299] = 7;
    check_all(w, 4, Draw{301, 6, 4}, s);
  }
  SECTION("equal weights, N not divisible by n") {
    check_all(std::vector<std::uint64_t>(257, std::uint64_t(1) << 40), 2, Draw{1000, 7, 5}, s);
  }
  SECTION("a wheel smaller than N: many points on one integer") {
    std::vector<std::uint64_t> w(64, 0);
    w[3] = 1;
    w[40] = 2;
    check_all(w, 3, Draw{5000, 8, 6}, s);
  }
  SECTION("a wheel above 2^64 with few particles") {
    check_all(std::vector<std::uint64_t>(5, kMaxU64), 2, Draw{4097, 9, 7}, s);
  }
}

TEST_CASE("parallel selection rejects bad input with a clear error", "[parallel_selection]") {
  Kokkos::View<std::uint64_t*, Memory> w("w", 4);
  Kokkos::deep_copy(w, 3);
  rsmc::ParallelSelectionInputs<Memory> in;
  in.fixed_weights = w;
  in.wheel = rsmc::WheelShare{0, 12, 12};
  in.samples = 4;
  rsmc::ParallelSelectionWorkspace<Exec> ws;
  auto select = [&] { return rsmc::select_offspring_parallel(Exec(), in, MPI_COMM_SELF, ws); };
  in.wheel.total = 0;
  CHECK_THROWS_WITH(select(), Catch::Contains("zero weight"));
  in.wheel = rsmc::WheelShare{0, 12, 12};
  in.seed = rsmc::rng::kMaxSeed + 1;
  CHECK_THROWS_WITH(select(), Catch::Contains("seed"));
  in.seed = 1;
  in.wheel.local = 11;  // the weights add up to 12
  CHECK_THROWS_WITH(select(), Catch::Contains("do not add up"));
  in.sampler = LocalSampler::alias;  // its table checks the total itself
  CHECK_THROWS_WITH(select(), Catch::Contains("not the sum"));
  in.sampler = LocalSampler::search;
  in.wheel.local = 12;
  in.scheme = Scheme::residual;
  in.samples = std::uint64_t(1) << 32;
  CHECK_THROWS_WITH(select(), Catch::Contains("2^32"));
  in.samples = 4;
  CHECK(select().offspring == 4);
}

TEST_CASE("fixed_weights_and_wheel: the fixed weights, the rank total, and a selection that reuses its scan",
          "[parallel_selection]") {
  const std::size_t n = 5000;
  Kokkos::View<double*, Memory> log_w("log_w", n), exp_w("exp_w", n);
  auto host_lw = Kokkos::create_mirror_view(log_w), host_e = Kokkos::create_mirror_view(exp_w);
  std::vector<std::uint64_t> expected(n);
  u128 total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double u = rsmc::rng::Stream(3, rsmc::rng::Purpose::model, 0, i).uniform();
    host_lw(i) = i % 97 == 0 ? -HUGE_VAL : i == 77 ? 0.0 : 4.0 * std::log(u);
    host_e(i) = rsmc::math::exp(host_lw(i));  // fixed_weight's exp: a given exp must be that one
    total += expected[i] = rsmc::exact::fixed_weight(host_lw(i), 0.0);
  }
  Kokkos::deep_copy(log_w, host_lw);
  Kokkos::deep_copy(exp_w, host_e);
  for (const bool given_exp : {false, true}) {
    Kokkos::View<std::uint64_t*, Memory> fixed("fixed", n);
    rsmc::ParallelSelectionWorkspace<Exec> ws;
    rsmc::ParallelSelectionOptions options;
    options.chunk = 64;
    const u128 local = rsmc::fixed_weights_and_wheel(
        Exec(), Kokkos::View<const double*, Memory>(log_w), 0.0,
        given_exp ? Kokkos::View<const double*, Memory>(exp_w) : Kokkos::View<const double*, Memory>(), fixed, ws,
        options);
    auto host_fixed = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fixed);
    INFO((given_exp ? "exps given" : "exps computed"));
    CHECK(std::vector<std::uint64_t>(host_fixed.data(), host_fixed.data() + n) == expected);
    CHECK(local == total);
    RankSlice whole;
    whole.w = expected;
    whole.wheel = rsmc::WheelShare{0, total, total};
    const Draw d{n, 4, 9};
    rsmc::ParallelSelectionInputs<Memory> in{
        fixed, whole.wheel, n, d.seed, d.step, Scheme::systematic, LocalSampler::search};
    options.counts = true;
    options.wheel_scanned = true;
    for (const Scheme scheme : {Scheme::systematic, Scheme::multinomial}) {
      in.scheme = scheme;
      const RankSelection reference = serial(scheme, whole, d);
      const rsmc::SelectionShareResult share = rsmc::select_offspring_parallel(Exec(), in, MPI_COMM_SELF, ws, options);
      auto counts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ws.counts);
      CHECK(share.offspring == n);
      CHECK(std::vector<std::uint64_t>(counts.data(), counts.data() + n) == reference.counts);
    }
    options.chunk = 128;  // not the chunk size the scan was made with
    CHECK_THROWS_WITH(rsmc::select_offspring_parallel(Exec(), in, MPI_COMM_SELF, ws, options),
                      Catch::Contains("wheel is scanned"));
  }
}

TEST_CASE("multinomial cursor and count_below reproduce sorted_multinomial_points", "[parallel_selection]") {
  using WeightShape = rsmc::sorted_multinomial_detail::SortedMultinomialShape;
  // Default shape, and small ones that reach the depth cap (oversized leaves drawn whole).
  const WeightShape shapes[] = {{32, 60}, {1, 0}, {4, 3}, {2, 61}, {32, 5}};
  rsmc::rng::Stream s(5, rsmc::rng::Purpose::model, 3, 0);
  for (const WeightShape& shape : shapes) {
    for (const u128 total : {u128(1000), (u128(1) << 100) + 7, u128(3), u128(kMaxU64) * 977}) {
      const std::uint64_t samples = shape.max_depth < 4 ? 300 : 3000;
      rsmc::MultinomialTree tree;
      tree.seed = 11;
      tree.step = 2;
      tree.samples = samples;
      tree.total = total;
      tree.leaf_size = shape.leaf_size;
      tree.max_depth = shape.max_depth;
      for (int trial = 0; trial < 6; ++trial) {
        const u128 a = ((u128(s.next_u64()) << 64) | s.next_u64()) % (total + 1);
        const u128 b = ((u128(s.next_u64()) << 64) | s.next_u64()) % (total + 1);
        const u128 lo = a < b ? a : b, hi = a < b ? b : a;
        std::vector<u128> expected;
        const std::uint64_t below = rsmc::sorted_multinomial_detail::sorted_multinomial_points_shaped(
            shape, tree.seed, tree.step, samples, total, lo, hi, [&](u128 x) { expected.push_back(x); }, nullptr);
        INFO("leaf " << shape.leaf_size << ", depth " << shape.max_depth << ", total " << rsmc::exact::to_string(total)
                     << ", [" << rsmc::exact::to_string(lo) << ", " << rsmc::exact::to_string(hi) << ")");
        CHECK(rsmc::multinomial_count_below(tree, lo) == below);
        CHECK(rsmc::multinomial_count_below(tree, hi) == below + expected.size());
        rsmc::MultinomialCursor cursor(tree, lo, hi);
        std::vector<u128> got;
        u128 block[7];
        for (std::uint64_t k; (k = cursor.fill(block, 7)) > 0;) got.insert(got.end(), block, block + k);
        CHECK(got == expected);
      }
    }
  }
}

TEST_CASE("evenly spaced points: search from any guess, cursor equals the closed form", "[parallel_selection]") {
  rsmc::rng::Stream s(9, rsmc::rng::Purpose::model, 4, 0);
  for (int trial = 0; trial < 200; ++trial) {
    const std::uint64_t samples = 1 + s.integer(trial % 2 ? 50 : 100000);
    const u128 total = 1 + (((u128(s.next_u64()) << 64) | s.next_u64()) >> s.integer(128));
    const bool stratified = s.integer(2) == 1;
    const rsmc::EvenlySpacedPoints points(total, samples, 3, 8, stratified);
    const u128 x = ((u128(s.next_u64()) << 64) | s.next_u64()) % (total + 1);
    std::uint64_t expected = 0;  // plain binary search
    for (std::uint64_t lo = 0, hi = samples; lo < hi;) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (points.floor_point(mid) >= x)
        hi = mid;
      else
        lo = mid + 1;
      expected = lo;
    }
    INFO("N = " << samples << ", T = " << rsmc::exact::to_string(total) << ", x = " << rsmc::exact::to_string(x));
    CHECK(points.first_at_or_above(x, 0, samples, points.guess(x)) == expected);
    CHECK(points.first_at_or_above(x, 0, samples, s.integer(samples + 1)) == expected);
    CHECK(points.first_at_or_above(x, 0, samples, samples) == expected);
    const std::uint64_t from = s.integer(samples);
    rsmc::SystematicCursor systematic(points, from);
    rsmc::StratifiedCursor stratified_cursor(points, from);
    for (std::uint64_t j = from; j < samples && j < from + 50; ++j)
      CHECK((stratified ? stratified_cursor.next() : systematic.next()) == points.floor_point(j));
  }
}

TEST_CASE("the fixed weights from the filter's exps have the bits and totals of fixed_weight", "[parallel_selection]") {
  // FixedWeightChunks with exp_weight (the vectorised fixed_weights_from_exps) against it without
  // (exact::fixed_weight, an exp per particle): log-weights with the maximum (twice), -inf, NaN,
  // weights near 1 and near the 2^-64 underflow, and beyond it; chunks of several sizes, the last
  // one short.
  std::mt19937_64 g(21);
  const std::uint64_t n = 10007;
  const double max_lw = 3.25;
  std::vector<double> lw(n), e(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    const double u = static_cast<double>(g() >> 11) * 0x1p-53;
    switch (i % 7) {
      case 0:
        lw[i] = max_lw - 50.0 * u;
        break;  // down to below the underflow (-45.5)
      case 1:
        lw[i] = max_lw - 44.0 - 1.0 * u;
        break;  // around 2^-64 of the maximum
      case 2:
        lw[i] = max_lw - 1e-12 * u;
        break;  // exps that round to 1
      case 3:
        lw[i] = i % 2 == 0 ? -HUGE_VAL : max_lw;
        break;  // -inf, the maximum
      case 4:
        lw[i] = i % 3 == 0 ? std::nan("") : max_lw - u;
        break;
      default:
        lw[i] = max_lw - 5.0 * u;
    }
    e[i] = rsmc::math::exp(lw[i] - max_lw);  // as the filter's moment_sums
  }
  std::vector<std::uint64_t> fixed_fast(n), fixed_exact(n);
  for (const std::uint64_t chunk : {std::uint64_t{1}, std::uint64_t{255}, std::uint64_t{4096}}) {
    const rsmc::selection_kernels::Chunks chunks{chunk, n};
    const std::uint64_t count = (n + chunk - 1) / chunk;
    std::vector<u128> total_fast(count), total_exact(count);
    for (std::uint64_t c = 0; c < count; ++c) {
      rsmc::selection_kernels::FixedWeightChunks{lw.data(),         e.data(),          max_lw,
                                                 fixed_fast.data(), total_fast.data(), chunks}(c);
      rsmc::selection_kernels::FixedWeightChunks{lw.data(),          nullptr, max_lw, fixed_exact.data(),
                                                 total_exact.data(), chunks}(c);
    }
    INFO("chunk " << chunk);
    CHECK(fixed_fast == fixed_exact);
    CHECK(total_fast == total_exact);
  }
  CHECK(fixed_exact[3] == ~std::uint64_t{0});  // i = 3: the maximum (i % 7 == 3, odd)
  CHECK(fixed_exact[10] == 0);                 // i = 10: -inf
}
