// Unit tests for the alias tables (kernels/alias/, kernels/host/alias_*.hpp): construction by Vose
// (double and exact integer weights), exact PSA and PSA+ (integer weights), the list-based PSA of the
// CUDA pack's host twin, baseline and sectioned sampling.
//
// Construction: every row is valid (alias < n, 0 <= threshold <= capacity, a row aliasing itself is
// full) and the shares of every item summed over all rows reconstruct its weight: exactly (n w_i) for
// integer weights, and within 4 n eps W for doubles (the rounding bound of the prefix sums the
// thresholds are differences of; the largest error seen is reported through INFO). Zero weights get a
// share of exactly 0. For integer weights PSA is Vose's table bit for bit for every section count,
// and so is the host twin's list-based PSA; PSA+ is, bit for bit, the table of an independent
// sequential reference written here from the definition (greedy sections, then Vose's sweep over
// the leftovers in item order). Thread invariance: the same comparisons on every host execution space
// instance from 1 thread to OMP_NUM_THREADS under Kokkos 4 OpenMP (the CTest entry runs under 1, 2
// and 3 threads), with section counts that split the work unevenly.
//
// Distribution: chi-square goodness of fit at fixed seeds. The statistic must stay below the 0.999
// quantile of chi-square with the given degrees of freedom; the quantiles are hard-coded below and
// were computed with mpmath (30 digits) by solving gammainc(df/2, x/2, inf, regularized=True) = 0.001
// with findroot: df 7 -> 24.3218863479, df 99 -> 148.230359165, df 899 -> 1035.75319511. The p-value
// of each statistic (regularized upper incomplete gamma Q(df/2, x/2), computed below) is reported via
// INFO; a self-check confirms that it gives 0.001 at each hard-coded quantile. The per-section tests,
// whose degrees of freedom depend on the table, use that p-value with the same fixed threshold 0.001.
#include <catch2/catch.hpp>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "base/exact/uint128.hpp"
#include "kernels/alias/psa.hpp"
#include "kernels/alias/sampling.hpp"
#include "kernels/alias/vose.hpp"
#include "kernels/host/alias_pack.hpp"
#include "kernels/host/alias_sampling.hpp"
#include "tests/support/statistics.hpp"

namespace alias = rsmc::kernels::alias;
namespace host = rsmc::kernels::host;
using rsmc::exact::u128;

namespace {

template <class T>
using HostView = Kokkos::View<T*, Kokkos::HostSpace>;

template <class T>
HostView<T> to_view(const std::vector<T>& v) {
  HostView<T> out("weights", v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out(i) = v[i];
  return out;
}

// ---- chi-square helpers ---------------------------------------------------------------------------

constexpr double kChi2_999_df7 = 24.3218863479;
constexpr double kChi2_999_df99 = 148.230359165;
constexpr double kChi2_999_df899 = 1035.75319511;

using rsmc::test::chi2_p_value;
using rsmc::test::chi_square;
using rsmc::test::ChiSquare;

// ---- weights --------------------------------------------------------------------------------------

// The small_* shapes have integer totals below 2^62, where the exact sweeps run their 64-bit loops
// (small_one_heavy: a heavy whose excess exceeds 2^62, so that those loops spend it in several
// budgets; small_ties: 1s and 3s as many of each, so that most heavies reach exactly a bucket after one
// light); the other integer shapes have totals of 2^62 and more (the 128-bit loops).
enum class Shape {
  uniform,
  power_half,
  power_one,
  power_two,
  one_heavy,
  all_equal,
  zeros_mixed,
  wide_range,
  small_uniform,
  small_power_one,
  small_one_heavy,
  small_ties
};

const char* shape_name(Shape s) {
  switch (s) {
    case Shape::uniform:
      return "uniform";
    case Shape::power_half:
      return "power law 0.5";
    case Shape::power_one:
      return "power law 1";
    case Shape::power_two:
      return "power law 2";
    case Shape::one_heavy:
      return "one heavy, many light";
    case Shape::all_equal:
      return "all equal";
    case Shape::zeros_mixed:
      return "zeros mixed in";
    case Shape::wide_range:
      return "wide range";
    case Shape::small_uniform:
      return "uniform, total < 2^62";
    case Shape::small_power_one:
      return "power law 1, total < 2^62";
    case Shape::small_one_heavy:
      return "one heavy, total < 2^62";
    case Shape::small_ties:
      return "1s and 3s, ties";
  }
  return "?";
}

const Shape kShapes[] = {Shape::uniform,       Shape::power_half,      Shape::power_one,       Shape::power_two,
                         Shape::one_heavy,     Shape::all_equal,       Shape::zeros_mixed,     Shape::wide_range,
                         Shape::small_uniform, Shape::small_power_one, Shape::small_one_heavy, Shape::small_ties};
const std::uint64_t kSizes[] = {1, 2, 3, 1000, 100007};

double power_exponent(Shape s) {
  return s == Shape::power_half ? 0.5 : s == Shape::power_one || s == Shape::small_power_one ? 1.0 : 2.0;
}

std::vector<double> double_weights(Shape shape, std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> w(n);
  switch (shape) {  // the small_* shapes (integer totals) are their twins here
    case Shape::uniform:
    case Shape::small_uniform:
      for (auto& x : w) x = unit(gen);
      break;
    case Shape::power_half:
    case Shape::power_one:
    case Shape::power_two:
    case Shape::small_power_one:
      for (std::uint64_t i = 0; i < n; ++i) w[i] = std::pow(static_cast<double>(i + 1), -power_exponent(shape));
      std::shuffle(w.begin(), w.end(), gen);
      break;
    case Shape::one_heavy:
    case Shape::small_one_heavy:
      for (auto& x : w) x = 1.0;
      w[gen() % n] = 1e6 * static_cast<double>(n);
      break;
    case Shape::all_equal:
      for (auto& x : w) x = 0.1;
      break;
    case Shape::small_ties:
      for (std::uint64_t i = 0; i < n; ++i) w[i] = i % 2 == 0 ? 1.0 : 3.0;
      std::shuffle(w.begin(), w.end(), gen);
      break;
    case Shape::zeros_mixed:
      for (std::uint64_t i = 0; i < n; ++i) w[i] = i % 3 == 1 ? 0.0 : unit(gen);
      break;
    case Shape::wide_range:
      for (auto& x : w) x = std::exp2(-60.0 * unit(gen));
      break;
  }
  return w;
}

std::vector<std::uint64_t> integer_weights(Shape shape, std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::uint64_t> w(n);
  constexpr std::uint64_t kMax = ~std::uint64_t{0};
  switch (shape) {
    case Shape::uniform:
      for (auto& x : w) x = gen();
      break;
    case Shape::power_half:
    case Shape::power_one:
    case Shape::power_two:
      for (std::uint64_t i = 0; i < n; ++i)
        w[i] = static_cast<std::uint64_t>(std::ldexp(std::pow(static_cast<double>(i + 1), -power_exponent(shape)), 62));
      std::shuffle(w.begin(), w.end(), gen);
      break;
    case Shape::one_heavy:
      for (auto& x : w) x = 1 + gen() % 3;
      w[gen() % n] = kMax;
      break;
    case Shape::all_equal:
      for (auto& x : w) x = kMax;
      break;
    case Shape::zeros_mixed:
      for (std::uint64_t i = 0; i < n; ++i) w[i] = i % 3 == 1 ? 0 : gen() >> (gen() % 64);
      if (w[0] == 0) w[0] = 1;
      break;
    case Shape::wide_range:
      for (auto& x : w) x = (gen() >> (gen() % 64)) | 1;
      break;
    case Shape::small_uniform:
      for (auto& x : w) x = 1 + (gen() >> 40);
      break;
    case Shape::small_power_one:
      for (std::uint64_t i = 0; i < n; ++i) w[i] = 1 + (std::uint64_t{1} << 40) / (i + 1);
      std::shuffle(w.begin(), w.end(), gen);
      break;
    case Shape::small_one_heavy:
      for (auto& x : w) x = 1 + gen() % 3;
      w[gen() % n] = std::uint64_t{1} << 57;
      break;
    case Shape::small_ties:
      for (std::uint64_t i = 0; i < n; ++i) w[i] = i % 2 == 0 ? 1 : 3;
      std::shuffle(w.begin(), w.end(), gen);
      break;
  }
  return w;
}

// ---- table checks ---------------------------------------------------------------------------------

bool nonnegative(double x) { return x >= 0.0; }
bool nonnegative(u128) { return true; }

template <class Table>
void check_rows_valid(const Table& table, std::uint64_t n) {
  REQUIRE(table.rows.extent(0) == n);
  std::uint64_t bad_alias = 0, bad_threshold = 0, bad_self = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const auto& row = table.rows(i);
    bad_alias += row.alias() < n ? 0 : 1;
    bad_threshold += (nonnegative(row.threshold()) && row.threshold() <= table.capacity) ? 0 : 1;
    bad_self += (row.alias() != i || row.threshold() == table.capacity) ? 0 : 1;
  }
  CHECK(bad_alias == 0);
  CHECK(bad_threshold == 0);
  CHECK(bad_self == 0);
}

// Rows of a double table as (threshold, alias) pairs, from an AliasTable or a plain array.
template <class Rows>
void check_double_shares(const Rows& row_at, std::uint64_t n, double capacity, const std::vector<double>& w) {
  double total = 0.0;
  for (double x : w) total += x;
  std::vector<long double> share(n, 0.0L);
  for (std::uint64_t i = 0; i < n; ++i) {
    const alias::AliasRow<double> row = row_at(i);
    share[i] += row.threshold();
    share[row.alias()] += static_cast<long double>(capacity) - row.threshold();
  }
  const double tolerance = 4.0 * static_cast<double>(n) * std::numeric_limits<double>::epsilon() * total;
  double worst = 0.0;
  std::uint64_t beyond = 0, zero_drawn = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const double err = static_cast<double>(std::fabs(share[i] - static_cast<long double>(w[i])));
    worst = std::max(worst, err);
    beyond += err <= tolerance ? 0 : 1;
    zero_drawn += (w[i] == 0.0 && share[i] != 0.0L) ? 1 : 0;
  }
  INFO("largest |share - w| = " << worst << " = " << worst / total << " W; tolerance 4 n eps W = " << tolerance);
  CHECK(beyond == 0);
  CHECK(zero_drawn == 0);
}

void check_shares(const alias::AliasTable<double>& table, const std::vector<double>& w) {
  check_rows_valid(table, w.size());
  check_double_shares([&](std::uint64_t i) { return table.rows(i); }, w.size(), table.capacity, w);
}

void check_shares(const alias::AliasTable<std::uint64_t>& table, const std::vector<std::uint64_t>& w) {
  const std::uint64_t n = w.size();
  check_rows_valid(table, n);
  u128 total = 0;
  for (auto x : w) total += x;
  CHECK((table.total == total));
  CHECK((table.capacity == total));
  std::vector<u128> share(n, 0);
  for (std::uint64_t i = 0; i < n; ++i) {
    const auto& row = table.rows(i);
    share[i] += row.threshold();
    share[row.alias()] += table.capacity - row.threshold();
  }
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < n; ++i) wrong += share[i] == static_cast<u128>(w[i]) * n ? 0 : 1;
  CHECK(wrong == 0);
}

template <class Weight>
bool same_rows(const alias::AliasTable<Weight>& a, const alias::AliasRow<Weight>* b, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i)
    if (!(a.rows(i).threshold() == b[i].threshold()) || a.rows(i).alias() != b[i].alias()) return false;
  return true;
}

template <class Weight, class Space>
bool same_rows(const alias::AliasTable<Weight>& a, const alias::AliasTable<Weight, Space>& b) {
  return a.rows.extent(0) == b.rows.extent(0) && same_rows(a, b.rows.data(), a.rows.extent(0));
}

// ---- an independent reference of PSA+ -----------------------------------------------------------
//
// Written from the definition with plain vectors, to check the Kokkos PSA+ bit for bit: each greedy
// section of G items runs Vose's sweep on its own lights and heavies until it runs out of lights (the
// current heavy still above a bucket) or of heavies; what is left (the unused items, the current heavy
// with its residual) goes, in item order, through Vose's sweep with the same capacity W.

struct RefItem {
  std::uint64_t index;
  u128 value;  // n w, or a residual
};

using RefRows = std::vector<alias::AliasRow<std::uint64_t>>;
using Row64 = alias::AliasRow<std::uint64_t>;

// Vose's sweep over `items` (in order); returns false if the sweep ran out of heavies (greedy mode:
// `left` receives the leftovers) or completes them all (greedy = false).
void ref_sweep(const std::vector<RefItem>& items, u128 cap, RefRows& rows, bool greedy, std::vector<RefItem>* left) {
  std::vector<RefItem> lights, heavies;
  for (const RefItem& x : items) (x.value < cap ? lights : heavies).push_back(x);
  if (heavies.empty()) {
    REQUIRE(greedy);  // exact arithmetic: a complete sweep always has a heavy
    for (const RefItem& x : lights) left->push_back(x);
    return;
  }
  std::size_t i = 0, j = 0;
  RefItem h = heavies[0];
  for (;;) {
    if (h.value > cap) {
      if (i == lights.size()) {
        REQUIRE(greedy);
        left->push_back(h);
        for (std::size_t k = j + 1; k < heavies.size(); ++k) left->push_back(heavies[k]);
        return;
      }
      rows[lights[i].index] = Row64::make(lights[i].value, h.index);
      h.value -= cap - lights[i].value;
      ++i;
    } else if (h.value == cap || j + 1 == heavies.size()) {
      if (h.value != cap) {
        REQUIRE(greedy);
        left->push_back(h);
        for (std::size_t k = i; k < lights.size(); ++k) left->push_back(lights[k]);
        return;
      }
      rows[h.index] = Row64::make(cap, h.index);
      if (j + 1 == heavies.size()) {
        for (std::size_t k = i; k < lights.size(); ++k) {
          REQUIRE(greedy);
          left->push_back(lights[k]);
        }
        return;
      }
      h = heavies[++j];
    } else {
      const RefItem next = heavies[j + 1];
      rows[h.index] = Row64::make(h.value, next.index);
      h = RefItem{next.index, next.value - (cap - h.value)};
      ++j;
    }
  }
}

RefRows reference_psa_plus(const std::vector<std::uint64_t>& w, std::uint64_t greedy_items) {
  const std::uint64_t n = w.size();
  u128 total = 0;
  for (auto x : w) total += x;
  RefRows rows(n);
  std::vector<RefItem> left;
  for (std::uint64_t first = 0; first < n; first += greedy_items) {
    std::vector<RefItem> section;
    for (std::uint64_t p = first; p < std::min(n, first + greedy_items); ++p)
      section.push_back(RefItem{p, static_cast<u128>(w[p]) * n});
    std::vector<RefItem> section_left;
    ref_sweep(section, total, rows, true, &section_left);
    std::sort(section_left.begin(), section_left.end(),
              [](const RefItem& a, const RefItem& b) { return a.index < b.index; });
    left.insert(left.end(), section_left.begin(), section_left.end());
  }
  if (!left.empty()) ref_sweep(left, total, rows, false, nullptr);
  return rows;
}

// ---- host execution space instances of 1, 2, ... threads ---------------------------------------------

// Runs f(exec, threads) on the default host execution space and, under Kokkos 4 OpenMP, on instances
// of every thread count from 1 to the process's concurrency (OMP_NUM_THREADS).
template <class F>
void for_each_host_instance(F&& f) {
  f(Kokkos::DefaultHostExecutionSpace(), Kokkos::DefaultHostExecutionSpace().concurrency());
#if defined(KOKKOS_ENABLE_OPENMP) && KOKKOS_VERSION >= 40000
  for (int t = 1; t <= Kokkos::OpenMP().concurrency(); ++t) f(Kokkos::OpenMP(t), t);
#endif
}

std::vector<std::uint64_t> kSectionCounts() { return {0, 1, 2, 3, 7, 1000}; }

template <class Weight>
void check_twin(const std::vector<Weight>& w, const alias::AliasTable<Weight>& vose, const std::string& name) {
  // The list-based PSA of the CUDA pack's host twin (kernels/host/alias_pack.hpp): valid for doubles,
  // Vose's table bit for bit for integers.
  const std::uint64_t n = w.size();
  for (std::uint64_t section_items : {std::uint64_t{5}, std::uint64_t{256}}) {
    auto split = host::alias_split(w.data(), n, section_items);
    std::vector<alias::AliasRow<Weight>> twin(n);
    host::alias_pack(split, twin.data());
    INFO(name << ": host::alias_pack, " << section_items << "-item sections");
    if constexpr (std::is_same<Weight, std::uint64_t>::value)
      CHECK(same_rows(vose, twin.data(), n));
    else
      check_double_shares([&](std::uint64_t i) { return twin[i]; }, n, split.totals.capacity, w);
  }
}

void check_all_builders(const std::vector<double>& w, const std::string& name) {
  const auto vose = alias::build_vose(w.data(), w.size());
  {
    INFO(name << ": Vose");
    check_shares(vose, w);
  }
  check_twin(w, vose, name);
}

void check_all_builders(const std::vector<std::uint64_t>& w, const std::string& name) {
  const auto view = to_view(w);
  const std::uint64_t n = w.size();
  const auto vose = alias::build_vose(view);
  {
    INFO(name << ": Vose");
    check_shares(vose, w);
  }
  check_twin(w, vose, name);
  // PSA is Vose's table for every section count.
  for (const std::uint64_t sections : kSectionCounts()) {
    alias::PsaOptions o;
    o.sections = sections;
    INFO(name << ": PSA, sections " << sections);
    CHECK(same_rows(vose, alias::build_psa(view, o)));
  }
  // PSA+ is the reference's table for its greedy sections, and exact.
  for (const std::uint64_t g : {std::uint64_t{1024}, std::uint64_t{4096}, std::uint64_t{65536}}) {
    alias::PsaOptions o;
    o.greedy_items = g;
    alias::PsaStats stats;
    const auto plus = alias::build_psa_plus(view, o, &stats);
    const RefRows ref = reference_psa_plus(w, g);
    INFO(name << ": PSA+, " << g << "-item greedy sections (" << stats.greedy_rows << " of " << n << " rows greedy)");
    check_shares(plus, w);
    CHECK(same_rows(plus, ref.data(), n));
    o.sections = 7;
    CHECK(same_rows(plus, alias::build_psa_plus(view, o)));
  }
}

}  // namespace

TEST_CASE("alias: every builder gives a valid table that reconstructs the weights (double)", "[alias]") {
  for (Shape shape : kShapes) {
    for (std::uint64_t n : kSizes) {
      const auto w = double_weights(shape, n, 1000 + n);
      check_all_builders(w, std::string(shape_name(shape)) + ", n = " + std::to_string(n));
    }
  }
}

TEST_CASE("alias: every builder gives a valid table that reconstructs the weights exactly (integers)", "[alias]") {
  for (Shape shape : kShapes) {
    for (std::uint64_t n : kSizes) {
      const auto w = integer_weights(shape, n, 2000 + n);
      check_all_builders(w, std::string(shape_name(shape)) + ", n = " + std::to_string(n));
    }
  }
}

TEST_CASE("alias: PSA and PSA+ tables do not depend on the threads, the sections, the layout or the storage",
          "[alias]") {
  // Every thread count this process can run (1 .. OMP_NUM_THREADS under Kokkos 4 OpenMP; the CTest
  // entry runs under 1, 2 and 3), several section counts (7 and 13: sections that do not divide the
  // items evenly among the threads), PSA = Vose and PSA+ = the reference, into storage reused across
  // sizes.
  const std::uint64_t sizes[] = {100007, 3000, 250001};
  std::vector<int> threads_seen;
  for_each_host_instance([&](const auto& exec, int threads) {
    threads_seen.push_back(threads);
    using Exec = std::decay_t<decltype(exec)>;
    alias::AliasStorage<typename Exec::memory_space> storage;
    for (const std::uint64_t n : sizes) {
      for (Shape shape : {Shape::uniform, Shape::power_one, Shape::zeros_mixed, Shape::all_equal,
                          Shape::small_power_one, Shape::small_one_heavy, Shape::small_ties}) {
        const auto w = integer_weights(shape, n, 3000 + n);
        const auto view = to_view(w);
        const auto vose = alias::build_vose(view);
        const RefRows ref = reference_psa_plus(w, 4096);
        for (const std::uint64_t sections : {std::uint64_t{0}, std::uint64_t{7}, std::uint64_t{13}}) {
          for (const alias::AliasLayout layout : {alias::AliasLayout::masks, alias::AliasLayout::lists}) {
            alias::PsaOptions o;
            o.sections = sections;
            o.layout = layout;
            INFO(threads << " thread(s), " << shape_name(shape) << ", n = " << n << ", sections " << sections
                         << (layout == alias::AliasLayout::lists ? ", lists" : ", masks"));
            alias::PsaStats stats;
            CHECK(same_rows(vose, alias::build_alias(exec, view, storage, o, &stats)));
            CHECK(stats.lists == (layout == alias::AliasLayout::lists));
            o.method = alias::AliasMethod::psa_plus;
            o.greedy_items = 4096;
            CHECK(same_rows(alias::build_alias(exec, view, storage, o), ref.data(), n));
          }
        }
      }
    }
  });
  std::string seen;
  for (int t : threads_seen) seen += " " + std::to_string(t);
  INFO("thread counts:" << seen);
  CHECK(!threads_seen.empty());
}

TEST_CASE("alias: build_alias reuses its storage and checks the total it is given", "[alias]") {
  using Exec = Kokkos::DefaultHostExecutionSpace;
  const auto w = integer_weights(Shape::uniform, 50000, 7);
  const auto view = to_view(w);
  u128 total = 0;
  for (auto x : w) total += x;
  alias::AliasStorage<Kokkos::HostSpace> storage;
  CHECK((alias::alias_total(Exec(), view, storage) == total));
  const auto first = alias::build_alias(Exec(), view, total, storage);
  const void* rows = storage.rows.data();
  // Smaller and equal sizes afterwards reuse the same rows (no allocation per build).
  const auto small = to_view(integer_weights(Shape::power_one, 777, 8));
  const auto t_small = alias::build_alias(Exec(), small, storage);
  CHECK(t_small.size() == 777);
  CHECK(storage.rows.data() == rows);
  const auto again = alias::build_alias(Exec(), view, total, storage);
  CHECK(storage.rows.data() == rows);
  check_shares(again, w);
  CHECK(same_rows(alias::build_vose(view), again));
  // A total that is not the weights' sum is an error, not a wrong table.
  CHECK_THROWS_AS(alias::build_alias(Exec(), view, total + 1, storage), rsmc::Error);
  CHECK_THROWS_AS(alias::build_alias(Exec(), view, total - 1, storage), rsmc::Error);
  CHECK_THROWS_AS(alias::build_alias(Exec(), view, u128(0), storage), rsmc::Error);
  alias::PsaOptions bad;
  bad.method = alias::AliasMethod::psa_plus;
  bad.greedy_items = 1000;  // not a power of two
  CHECK_THROWS_AS(alias::build_alias(Exec(), view, total, storage, bad), rsmc::Error);
}

TEST_CASE("alias: small hand-checked tables", "[alias]") {
  // w = {1, 2, 3, 0, 4}: n = 5, W = 10, scaled weights 5, 10, 15, 0, 20 with capacity 10.
  // Lights: 0 (d = 5), 3 (d = 10); heavies: 1 (e = 0), 2 (e = 5), 4 (e = 10).
  // Sweep: heavy 1 has e = 0 <= D(0) = 0 -> row 1 = {10, 1}, next heavy 2 (E = 5):
  // light 0 (D = 0 < 5) -> {5, 2}; D = 5 >= 5 -> heavy 2 done, threshold 10 - 0 = 10 -> row 2 = {10, 2};
  // heavy 4 (E = 15): light 3 (D = 5 < 15) -> {0, 4}; lights done; row 4 = {10, 4}.
  const std::vector<std::uint64_t> w = {1, 2, 3, 0, 4};
  const auto table = alias::build_vose(w.data(), w.size());
  const std::uint64_t alias_of[] = {2, 1, 2, 4, 4};
  const unsigned threshold_of[] = {5, 10, 10, 0, 10};
  for (std::uint64_t i = 0; i < 5; ++i) {
    INFO("row " << i);
    CHECK(table.rows(i).alias() == alias_of[i]);
    CHECK((table.rows(i).threshold() == threshold_of[i]));
  }
  CHECK(same_rows(table, alias::build_psa(to_view(w))));
  CHECK(same_rows(table, alias::build_psa_plus(to_view(w))));  // one greedy section: the whole sweep

  // A single item, and two items of which one is zero.
  const std::vector<double> one = {0.25};
  const auto t1 = alias::build_vose(one.data(), 1);
  CHECK(t1.rows(0).alias() == 0);
  CHECK(t1.rows(0).threshold() == t1.capacity);
  const std::vector<double> two = {0.0, 3.0};
  const auto t2 = alias::build_vose(two.data(), 2);
  CHECK(t2.rows(0).threshold() == 0.0);
  CHECK(t2.rows(0).alias() == 1);
  CHECK(t2.rows(1).alias() == 1);
  // An exact row keeps a 96-bit threshold and a 32-bit alias in 16 bytes.
  CHECK(sizeof(alias::AliasRow<std::uint64_t>) == 16);
  const u128 big = (static_cast<u128>(0x89abcdefu) << 64) | 0x0123456789abcdefULL;
  const auto row = alias::AliasRow<std::uint64_t>::make(big, 4000000000u);
  CHECK((row.threshold() == big));
  CHECK(row.alias() == 4000000000u);
}

TEST_CASE("alias: the direct-block draw equals the Stream draw, rejections included", "[alias]") {
  // alias_draw_at skips the Stream object unless a Stream would reject and draw again; the results
  // must agree for every capacity regime: double; integer W < 2^64 (near 2^63: Lemire rejects about
  // half of the offsets), W = 2^64, W just above 2^64 (the masked candidate is rejected about half the
  // time) and W far above (up to 2^96, the most an exact table holds: W < n 2^64 with n < 2^32).
  std::mt19937_64 gen(99);
  std::vector<alias::AliasRow<double>> rows_d(7);
  for (std::uint64_t i = 0; i < 7; ++i)
    rows_d[i] = alias::AliasRow<double>::make(0.1 * static_cast<double>(i), (i * 3) % 7);
  std::uint64_t mismatches = 0;
  for (std::uint64_t id = 0; id < 20000; ++id) {
    rsmc::rng::Stream s(3, rsmc::rng::Purpose::resample, 8, id);
    mismatches += alias::alias_draw_at<double>(rows_d.data(), 0, 7, 0.7, 3, 8, id) ==
                          alias::alias_draw<double>(rows_d.data(), 0, 7, 0.7, s)
                      ? 0
                      : 1;
  }
  CHECK(mismatches == 0);
  const u128 one = 1;
  const u128 capacities[] = {(one << 63) + 1, one << 64, (one << 64) + 1, (one << 95) + 12345, 17};
  for (const u128 cap : capacities) {
    std::vector<alias::AliasRow<std::uint64_t>> rows(5);
    for (std::uint64_t i = 0; i < 5; ++i) {
      const u128 t = ((static_cast<u128>(gen()) << 64) | gen()) % (cap + 1);
      rows[i] = alias::AliasRow<std::uint64_t>::make(t, (i + 1) % 5);
    }
    mismatches = 0;
    for (std::uint64_t id = 0; id < 20000; ++id) {
      rsmc::rng::Stream s(4, rsmc::rng::Purpose::resample, 9, alias::kSectionedDrawTag | id);
      mismatches += alias::sectioned_draw<std::uint64_t>(rows.data(), 10, 5, cap, 4, 9, id) ==
                            alias::alias_draw<std::uint64_t>(rows.data(), 10, 5, cap, s)
                        ? 0
                        : 1;
    }
    INFO("capacity = " << rsmc::exact::to_string(cap));
    CHECK(mismatches == 0);
  }
}

TEST_CASE("alias: invalid inputs are rejected", "[alias]") {
  const std::vector<double> negative = {1.0, -0.5};
  const std::vector<double> nan = {1.0, std::nan("")};
  const std::vector<double> inf = {1.0, std::numeric_limits<double>::infinity()};
  const std::vector<double> zeros = {0.0, 0.0};
  const std::vector<std::uint64_t> izeros = {0, 0, 0};
  CHECK_THROWS_AS(alias::build_vose(negative.data(), 2), rsmc::Error);
  CHECK_THROWS_AS(alias::build_vose(nan.data(), 2), rsmc::Error);
  CHECK_THROWS_AS(alias::build_vose(inf.data(), 2), rsmc::Error);
  CHECK_THROWS_AS(alias::build_vose(zeros.data(), 2), rsmc::Error);
  CHECK_THROWS_AS(alias::build_psa(to_view(izeros)), rsmc::Error);
  CHECK_THROWS_AS(alias::build_psa_plus(to_view(izeros)), rsmc::Error);
  CHECK_THROWS_AS(alias::build_psa(HostView<std::uint64_t>("empty", 0)), rsmc::Error);
  CHECK_THROWS_AS(alias::build_vose(zeros.data(), 0), rsmc::Error);
  const auto table = alias::build_vose(negative.data() + 0, 1);
  HostView<std::uint64_t> wrong("wrong", 2);
  CHECK_THROWS_AS(alias::sample_counts(table, 10, 1, 1, wrong), rsmc::Error);
  HostView<std::uint64_t> right("right", 1);
  alias::AliasSampleOptions o;
  o.first_draw_id = alias::kDrawIdLimit - 5;
  CHECK_THROWS_AS(alias::sample_counts(table, 10, 1, 1, right, o), rsmc::Error);
}

TEST_CASE("alias: the p-value function is 0.001 at the hard-coded quantiles", "[alias]") {
  CHECK(chi2_p_value(kChi2_999_df7, 7) == Approx(0.001).epsilon(1e-6));
  CHECK(chi2_p_value(kChi2_999_df99, 99) == Approx(0.001).epsilon(1e-6));
  CHECK(chi2_p_value(kChi2_999_df899, 899) == Approx(0.001).epsilon(1e-6));
}

namespace {

// 1000 items: shuffled power law (exponent 1) with every tenth weight zero; 900 positive cells.
constexpr std::uint64_t kChiItems = 1000;
constexpr std::uint64_t kChiDraws = 1000000;

std::vector<double> chi_weights_double() {
  auto w = double_weights(Shape::power_one, kChiItems, 77);
  for (std::uint64_t i = 3; i < kChiItems; i += 10) w[i] = 0.0;
  return w;
}

std::vector<std::uint64_t> chi_weights_integer() {
  auto w = integer_weights(Shape::power_one, kChiItems, 78);
  for (std::uint64_t i = 3; i < kChiItems; i += 10) w[i] = 0;
  return w;
}

template <class Weight>
void check_counts_fit(const std::vector<Weight>& w, const HostView<std::uint64_t>& counts, std::uint64_t draws,
                      const std::string& name) {
  double total = 0.0;
  for (auto x : w) total += static_cast<double>(x);
  std::vector<double> observed(w.size()), expected(w.size());
  std::uint64_t sum = 0, zero_drawn = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    observed[i] = static_cast<double>(counts(i));
    expected[i] = static_cast<double>(draws) * static_cast<double>(w[i]) / total;
    sum += counts(i);
    zero_drawn += (w[i] == 0 && counts(i) != 0) ? 1 : 0;
  }
  const ChiSquare chi = chi_square(observed, expected);
  INFO(name << ": chi2 = " << chi.statistic << ", df = " << chi.df << ", p = " << chi2_p_value(chi.statistic, chi.df)
            << ", 0.999 quantile = " << kChi2_999_df899);
  CHECK(sum == draws);
  CHECK(zero_drawn == 0);
  REQUIRE(chi.df == 899);
  CHECK(chi.statistic < kChi2_999_df899);
}

}  // namespace

TEST_CASE("alias: baseline sampling passes chi-square (double and integer tables)", "[alias]") {
  const auto wd = chi_weights_double();
  const auto wi = chi_weights_integer();
  HostView<std::uint64_t> counts("counts", kChiItems);

  alias::sample_counts(alias::build_vose(wd.data(), kChiItems), kChiDraws, 11, 1, counts);
  check_counts_fit(wd, counts, kChiDraws, "baseline counts, Vose, double");

  alias::sample_counts(alias::build_psa(to_view(wi)), kChiDraws, 13, 1, counts);
  check_counts_fit(wi, counts, kChiDraws, "baseline counts, PSA, integer");

  alias::PsaOptions plus;
  plus.greedy_items = 128 * 8;  // 1000 items: one greedy section
  const auto ti = alias::build_psa_plus(to_view(wi), plus);
  alias::sample_counts(ti, kChiDraws, 12, 1, counts);
  check_counts_fit(wi, counts, kChiDraws, "baseline counts, PSA+, integer");

  // The per-draw output is the same batch: its histogram equals the counts.
  HostView<std::uint64_t> draws("draws", kChiDraws);
  alias::sample_draws(ti, 12, 1, draws);
  std::vector<std::uint64_t> hist(kChiItems, 0);
  for (std::uint64_t d = 0; d < kChiDraws; ++d) ++hist[draws(d)];
  bool same = true;
  for (std::uint64_t i = 0; i < kChiItems; ++i) same = same && hist[i] == counts(i);
  CHECK(same);
  // ... and equals the host twin draw for draw.
  std::vector<std::uint64_t> twin(1000);
  host::alias_sample_baseline_draws<std::uint64_t>(ti.rows.data(), kChiItems, ti.capacity, 1000, 12, 1, 0, twin.data());
  bool twin_same = true;
  for (std::uint64_t d = 0; d < 1000; ++d) twin_same = twin_same && twin[d] == draws(d);
  CHECK(twin_same);
}

TEST_CASE("alias: the engine's draws are the streams' draws on every host instance", "[alias]") {
  // sample_draws(exec, ...): draw d is alias_draw with Stream(seed, resample, step, first_draw_id + d),
  // whatever the thread count; the host twin agrees.
  const auto wi = chi_weights_integer();
  alias::AliasStorage<Kokkos::HostSpace> storage;
  const auto table = alias::build_alias(Kokkos::DefaultHostExecutionSpace(), to_view(wi), storage);
  constexpr std::uint64_t kDraws = 20011, kFirst = 123456789, kSeed = 41;
  constexpr std::uint32_t kStep = 6;
  std::vector<std::uint64_t> expected(kDraws);
  for (std::uint64_t d = 0; d < kDraws; ++d) {
    rsmc::rng::Stream s(kSeed, rsmc::rng::Purpose::resample, kStep, kFirst + d);
    expected[d] = alias::alias_draw<std::uint64_t>(table.rows.data(), 0, kChiItems, table.capacity, s);
  }
  std::vector<std::uint64_t> twin(kDraws);
  host::alias_sample_baseline_draws<std::uint64_t>(table.rows.data(), kChiItems, table.capacity, kDraws, kSeed, kStep,
                                                   kFirst, twin.data());
  CHECK(twin == expected);
  alias::AliasSampleOptions o;
  o.first_draw_id = kFirst;
  for_each_host_instance([&](const auto& exec, int threads) {
    HostView<std::uint64_t> draws("draws", kDraws);
    alias::sample_draws(exec, table, kSeed, kStep, draws, o);
    exec.fence();
    std::uint64_t differ = 0;
    for (std::uint64_t d = 0; d < kDraws; ++d) differ += draws(d) == expected[d] ? 0 : 1;
    INFO(threads << " thread(s)");
    CHECK(differ == 0);
  });
}

TEST_CASE("alias: sectioned sampling passes chi-square (double and integer tables)", "[alias]") {
  const auto wd = chi_weights_double();
  const auto wi = chi_weights_integer();
  HostView<std::uint64_t> counts("counts", kChiItems);
  alias::AliasSampleOptions o;
  o.section_rows = 128;  // 8 sections, the last one 104 rows

  const auto td = alias::build_vose(wd.data(), kChiItems);
  alias::sample_counts_sectioned(td, kChiDraws, 21, 3, counts, o);
  check_counts_fit(wd, counts, kChiDraws, "sectioned counts, Vose, double");

  const auto ti = alias::build_psa(to_view(wi));
  alias::sample_counts_sectioned(ti, kChiDraws, 22, 3, counts, o);
  check_counts_fit(wi, counts, kChiDraws, "sectioned counts, PSA, integer");

  // Per-draw output: its histogram equals the counts, and it equals the host twin draw for draw.
  HostView<std::uint64_t> draws("draws", kChiDraws);
  alias::sample_draws_sectioned(ti, 22, 3, draws, o);
  std::vector<std::uint64_t> hist(kChiItems, 0), twin(kChiDraws), twin_counts(kChiItems);
  for (std::uint64_t d = 0; d < kChiDraws; ++d) ++hist[draws(d)];
  host::alias_sample_sectioned_draws<std::uint64_t>(ti.rows.data(), kChiItems, ti.capacity, kChiDraws, 22, 3, 128, 0,
                                                    twin.data());
  host::alias_sample_sectioned_counts<std::uint64_t>(ti.rows.data(), kChiItems, ti.capacity, kChiDraws, 22, 3, 128, 0,
                                                     twin_counts.data());
  bool same = true, twin_same = true;
  for (std::uint64_t i = 0; i < kChiItems; ++i) same = same && hist[i] == counts(i) && twin_counts[i] == counts(i);
  for (std::uint64_t d = 0; d < kChiDraws; ++d) twin_same = twin_same && twin[d] == draws(d);
  CHECK(same);
  CHECK(twin_same);
}

TEST_CASE("alias: sectioned counts sum to the total and are a pure function of (seed, step)", "[alias]") {
  struct Case {
    std::uint64_t rows, section_rows, total;
  };
  const Case cases[] = {{1, 1, 5},
                        {1000, 128, 0},
                        {1000, 128, 1},
                        {1000, 10, 100000},
                        {100007, 4096, 123457},
                        {5, 1, 1000000000000ULL},
                        {(std::uint64_t{1} << 40) + 3, std::uint64_t{1} << 30, std::uint64_t{1} << 50}};
  for (const Case& c : cases) {
    const std::uint64_t S = alias::section_count_of(c.rows, c.section_rows);
    std::vector<std::uint64_t> a(S), b(S), other_step(S);
    host::alias_section_counts(c.rows, c.section_rows, c.total, 5, 9, a.data());
    host::alias_section_counts(c.rows, c.section_rows, c.total, 5, 9, b.data());
    host::alias_section_counts(c.rows, c.section_rows, c.total, 5, 10, other_step.data());
    u128 sum = 0;
    for (auto x : a) sum += x;
    INFO("rows = " << c.rows << ", section rows = " << c.section_rows << ", total = " << c.total);
    CHECK((sum == c.total));
    CHECK(a == b);
    if (S > 1 && c.total > 100) CHECK(a != other_step);
    // Any one section computed on its own (in reverse order) gives the same count.
    bool alone = true;
    for (std::uint64_t s = S; s-- > 0;)
      alone = alone && alias::section_draws(5, 9, c.total, c.rows, c.section_rows, s) == a[s];
    CHECK(alone);
  }
  // The Kokkos batch uses the same counts: the per-draw output of section s lies in its own rows'
  // items or their aliases, and the batch is the same when repeated.
  const auto w = double_weights(Shape::all_equal, 1000, 1);  // every row full: each draw stays in its section
  const auto table = alias::build_vose(w.data(), w.size());
  alias::AliasSampleOptions o;
  o.section_rows = 10;
  HostView<std::uint64_t> counts("counts", 1000), again("again", 1000);
  alias::sample_counts_sectioned(table, 100000, 5, 9, counts, o);
  alias::sample_counts_sectioned(table, 100000, 5, 9, again, o);
  std::vector<std::uint64_t> sections(100);
  host::alias_section_counts(1000, 10, 100000, 5, 9, sections.data());
  bool match = true, repeat = true;
  for (std::uint64_t s = 0; s < 100; ++s) {
    std::uint64_t in_section = 0;
    for (std::uint64_t i = s * 10; i < s * 10 + 10; ++i) in_section += counts(i);
    match = match && in_section == sections[s];
  }
  for (std::uint64_t i = 0; i < 1000; ++i) repeat = repeat && counts(i) == again(i);
  CHECK(match);
  CHECK(repeat);
}

TEST_CASE("alias: sectioned counts pass chi-square, across sections and within each section", "[alias]") {
  // Across sections: 100 sections of 10 rows, 10^5 draws; expected 1000 per section, df = 99.
  {
    std::vector<std::uint64_t> sections(100);
    host::alias_section_counts(1000, 10, 100000, 31, 4, sections.data());
    std::vector<double> observed(100), expected(100, 1000.0);
    for (std::size_t s = 0; s < 100; ++s) observed[s] = static_cast<double>(sections[s]);
    const ChiSquare chi = chi_square(observed, expected);
    INFO("section totals: chi2 = " << chi.statistic << ", df = " << chi.df
                                   << ", p = " << chi2_p_value(chi.statistic, chi.df));
    REQUIRE(chi.df == 99);
    CHECK(chi.statistic < kChi2_999_df99);
  }
  // 8 sections (125 rows each), 10^6 draws: the totals (df = 7), and within every section the
  // draws against the section's own row mixture: P(item) = sum over its rows r of
  // (threshold_r [item = r] + (capacity - threshold_r) [item = alias_r]) / (rows capacity).
  const auto w = chi_weights_double();
  const auto table = alias::build_vose(w.data(), kChiItems);
  alias::AliasSampleOptions o;
  o.section_rows = 125;
  HostView<std::uint64_t> draws("draws", kChiDraws);
  alias::sample_draws_sectioned(table, 32, 4, draws, o);
  std::vector<std::uint64_t> sections(8);
  host::alias_section_counts(kChiItems, 125, kChiDraws, 32, 4, sections.data());
  {
    std::vector<double> observed(8), expected(8, kChiDraws / 8.0);
    for (std::size_t s = 0; s < 8; ++s) observed[s] = static_cast<double>(sections[s]);
    const ChiSquare chi = chi_square(observed, expected);
    INFO("8 section totals: chi2 = " << chi.statistic << ", df = " << chi.df
                                     << ", p = " << chi2_p_value(chi.statistic, chi.df));
    REQUIRE(chi.df == 7);
    CHECK(chi.statistic < kChi2_999_df7);
  }
  std::uint64_t offset = 0;
  for (std::uint64_t s = 0; s < 8; ++s) {
    std::map<std::uint64_t, double> prob, seen;
    for (std::uint64_t r = s * 125; r < s * 125 + 125; ++r) {
      const auto& row = table.rows(r);
      prob[r] += row.threshold() / (125.0 * table.capacity);
      prob[row.alias()] += (table.capacity - row.threshold()) / (125.0 * table.capacity);
    }
    std::uint64_t outside = 0;
    for (std::uint64_t k = 0; k < sections[s]; ++k) {
      const std::uint64_t item = draws(offset + k);
      outside += prob.count(item) ? 0 : 1;
      seen[item] += 1.0;
    }
    std::vector<double> observed, expected;
    for (const auto& [item, p] : prob) {
      observed.push_back(seen[item]);
      expected.push_back(p * static_cast<double>(sections[s]));
    }
    std::uint64_t zero_drawn = 0;
    for (std::size_t c = 0; c < expected.size(); ++c) zero_drawn += (expected[c] == 0.0 && observed[c] != 0.0);
    const ChiSquare chi = chi_square(observed, expected);
    const double p = chi2_p_value(chi.statistic, chi.df);
    INFO("section " << s << " (" << sections[s] << " draws): chi2 = " << chi.statistic << ", df = " << chi.df
                    << ", p = " << p);
    CHECK(outside == 0);
    CHECK(zero_drawn == 0);
    CHECK(chi.df > 50);
    CHECK(p > 0.001);
    offset += sections[s];
  }
}
