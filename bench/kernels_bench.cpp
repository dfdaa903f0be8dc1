#include "bench/kernels_bench.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_common.hpp"
#include "base/core/error.hpp"
#include "base/rng/stream.hpp"
#include "kernels/alias/psa.hpp"
#include "kernels/alias/sampling.hpp"
#include "kernels/alias/vose.hpp"
#include "kernels/butterfly/shared_column.hpp"
#include "kernels/host/butterfly_table.hpp"
#include "kernels/inverse_cdf/radix_forest.hpp"
#include "kernels/inverse_cdf/upper_bound.hpp"
#if defined(RSMC_ENGINE_CUDA_KERNELS)
#include <cuda_runtime.h>

#include "kernels/cuda/butterfly.hpp"
#endif

namespace rsmc::bench {

namespace {

using HostExec = Kokkos::DefaultHostExecutionSpace;
using HostSpace = Kokkos::HostSpace;
using WeightView = Kokkos::View<double*, HostSpace>;
using DrawView = Kokkos::View<std::uint64_t*, HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using ExactWeights = Kokkos::View<std::uint64_t*, HostSpace>;
using AliasTable = kernels::alias::AliasTable<std::uint64_t, HostSpace>;

// The execution space of the threaded alias kernels: Kokkos 4 OpenMP instances of a chosen size, else
// the default host space at its own concurrency.
#if defined(KOKKOS_ENABLE_OPENMP) && KOKKOS_VERSION >= 40000
using ThreadedExec = Kokkos::OpenMP;
ThreadedExec threaded_exec(int threads) { return Kokkos::OpenMP(threads); }
#else
using ThreadedExec = HostExec;
ThreadedExec threaded_exec(int /*threads*/) { return HostExec(); }
#endif
int max_threads() { return ThreadedExec().concurrency(); }

// wrs, the CPU PSA+ of Huebschle-Schneider and Sanders ("Parallel weighted random sampling", 2019),
// built and measured on this project's 2-core development machine at n = 10^7 (items/s): the figures
// the threaded PSA+ construction is compared against.
struct WrsReference {
  const char* weights;
  int threads;
  double items_per_s;
};
constexpr std::uint64_t kWrsN = 10000000;
constexpr WrsReference kWrsReference[] = {
    {"uniform", 1, 70e6}, {"uniform", 2, 140e6}, {"power-law", 1, 230e6}, {"power-law", 2, 400e6}};

constexpr std::uint32_t kStep = 1;                     // the step of every sampling stream
constexpr std::uint64_t kDefaultSampleCap = 10000000;  // --samples n: at most 10^7 samples
constexpr unsigned kWarp = kernels::butterfly::kCudaWarpWidth;

enum class Pattern { uniform, power_law, equal };
enum class Kernel {
  binary_search,
  cutpoint,
  forest,
  butterfly,
  butterfly_column,
  butterfly_device,
  butterfly_lanes_device,
  alias_vose,
  alias_psa,
  alias_psa_plus,
  alias_baseline,
  alias_sectioned,
  alias_psa_device,
  alias_psa_plus_device,
  alias_psa_masks_device,
  std_discrete,
  rng
};

const Kernel kAllKernels[] = {Kernel::binary_search,
                              Kernel::cutpoint,
                              Kernel::forest,
                              Kernel::butterfly,
                              Kernel::butterfly_column,
                              Kernel::butterfly_device,
                              Kernel::butterfly_lanes_device,
                              Kernel::alias_vose,
                              Kernel::alias_psa,
                              Kernel::alias_psa_plus,
                              Kernel::alias_baseline,
                              Kernel::alias_sectioned,
                              Kernel::alias_psa_device,
                              Kernel::alias_psa_plus_device,
                              Kernel::alias_psa_masks_device,
                              Kernel::std_discrete,
                              Kernel::rng};

bool is_device_alias(Kernel k) {
  return k == Kernel::alias_psa_device || k == Kernel::alias_psa_plus_device || k == Kernel::alias_psa_masks_device;
}
bool is_device_butterfly(Kernel k) { return k == Kernel::butterfly_device || k == Kernel::butterfly_lanes_device; }

const char* kernel_name(Kernel k) {
  switch (k) {
    case Kernel::binary_search:
      return "binary-search";
    case Kernel::cutpoint:
      return "cutpoint";
    case Kernel::forest:
      return "forest";
    case Kernel::butterfly:
      return "butterfly";
    case Kernel::butterfly_column:
      return "butterfly-column";
    case Kernel::butterfly_device:
      return "butterfly-device";
    case Kernel::butterfly_lanes_device:
      return "butterfly-lanes-device";
    case Kernel::alias_vose:
      return "alias-vose";
    case Kernel::alias_psa:
      return "alias-psa";
    case Kernel::alias_psa_plus:
      return "alias-psa-plus";
    case Kernel::alias_baseline:
      return "alias-baseline";
    case Kernel::alias_sectioned:
      return "alias-sectioned";
    case Kernel::alias_psa_device:
      return "alias-psa-device";
    case Kernel::alias_psa_plus_device:
      return "alias-psa-plus-device";
    case Kernel::alias_psa_masks_device:
      return "alias-psa-masks-device";
    case Kernel::std_discrete:
      return "std-discrete";
    case Kernel::rng:
      return "rng";
  }
  return "unknown";
}

const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::uniform:
      return "uniform";
    case Pattern::power_law:
      return "power-law";
    case Pattern::equal:
      return "equal";
  }
  return "unknown";
}

struct Plan {
  std::vector<std::uint64_t> sizes;
  std::vector<Pattern> patterns;
  std::vector<Kernel> kernels;
  std::uint64_t samples = 0;  // 0: n, at most kDefaultSampleCap
  int repeats = 5;
  std::uint64_t seed = 1;
  double max_table_bytes = 0.0;
  std::vector<int> threads;                  // of the threaded (Kokkos) alias kernels
  std::vector<std::uint64_t> section_items;  // alias-psa-device: items per sweep section, 0: the default
  std::uint64_t greedy_items = 0;            // alias-psa-plus(-device): items per greedy section
};

Plan make_plan(const KernelsBench& b) {
  Plan plan;
  for (const auto& text : list_entries("--sizes", b.sizes)) {
    std::uint64_t n = 0;
    if (!parse_count(text, n) || n == 0 || n > (std::uint64_t{1} << 40))
      throw Error("--sizes: '" + text + "' is not a valid size; expected an integer 1 <= n <= 2^40 (e.g. 1000 or 1e6)");
    plan.sizes.push_back(n);
  }
  plan.patterns = named_entries<Pattern>("--weights", "weight pattern", b.weights,
                                         {Pattern::uniform, Pattern::power_law, Pattern::equal}, pattern_name, false);
  plan.kernels =
      named_entries<Kernel>("--kernels", "kernel", b.kernels,
                            std::vector<Kernel>(std::begin(kAllKernels), std::end(kAllKernels)), kernel_name, true);
  if (b.samples != "n" &&
      (!parse_count(b.samples, plan.samples) || plan.samples == 0 || plan.samples >= kernels::alias::kDrawIdLimit))
    throw Error("--samples: '" + b.samples + "' is not a valid sample count; expected n or an integer >= 1 (e.g. 1e6)");
  plan.repeats = checked_repeats(b.repeats);
  plan.seed = checked_seed(b.seed);
  if (!(b.max_table_gib > 0.0) || !std::isfinite(b.max_table_gib))
    throw Error("--max-table-gib: expected a positive number of GiB");
  plan.max_table_bytes = b.max_table_gib * 1073741824.0;
  for (const auto& text : list_entries("--threads", b.threads)) {
    std::uint64_t t = 0;
    if (!parse_count(text, t) || t == 0 || t > static_cast<std::uint64_t>(max_threads()))
      throw Error("--threads: '" + text + "' is not a usable thread count; expected 1 to " +
                  std::to_string(max_threads()) + " (" + HostExec::name() +
                  (max_threads() > 1 ? std::string(", OMP_NUM_THREADS") : std::string(" build")) + ")");
    plan.threads.push_back(static_cast<int>(t));
  }
  for (const auto& text : list_entries("--section-items", b.section_items)) {
    std::uint64_t k = 0;
    if (text != "0" && (!parse_count(text, k) || k == 0 || k > (std::uint64_t{1} << 40)))
      throw Error("--section-items: '" + text + "' is not a valid section size; expected 0 (the default) or 1 to 2^40");
    plan.section_items.push_back(k);
  }
  if (!parse_count(b.greedy_items, plan.greedy_items) || plan.greedy_items < kernels::alias::sweep::kBlockItems ||
      plan.greedy_items > (std::uint64_t{1} << 31) || (plan.greedy_items & (plan.greedy_items - 1)) != 0)
    throw Error("--greedy-items: '" + b.greedy_items + "' is not a greedy section size; expected a power of two from " +
                std::to_string(kernels::alias::sweep::kBlockItems) + " to 2^31");
  return plan;
}

// ---- inputs ---------------------------------------------------------------------------------------

// The weights of the pattern (see kernels_bench.hpp): integer-valued doubles, total <= 2^52 + n.
WeightView make_weights(Pattern pattern, std::uint64_t n, std::uint64_t seed) {
  WeightView w(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::bench::weights"), n);
  const double two52 = 4503599627370496.0;
  switch (pattern) {
    case Pattern::uniform: {
      const double scale = std::floor(two52 / static_cast<double>(n));
      for (std::uint64_t i = 0; i < n; ++i)
        w(i) = 1.0 + std::floor(rng::Stream(seed, rng::Purpose::initialise, 0, i).uniform() * scale);
      break;
    }
    case Pattern::power_law: {
      const double scale = std::floor(two52 / (std::log(static_cast<double>(n)) + 1.0));  // sum_r 1/r <= ln n + 1
      std::vector<std::uint64_t> rank(n);
      for (std::uint64_t i = 0; i < n; ++i) rank[i] = i;
      rng::Stream s(seed, rng::Purpose::initialise, 1, 0);
      for (std::uint64_t i = n; i > 1; --i) std::swap(rank[i - 1], rank[s.integer(i)]);
      for (std::uint64_t i = 0; i < n; ++i) w(i) = std::floor(scale / static_cast<double>(rank[i] + 1));
      break;
    }
    case Pattern::equal:
      for (std::uint64_t i = 0; i < n; ++i) w(i) = std::floor(two52 / static_cast<double>(n));
      break;
  }
  return w;
}

// Sample point k: u_k * total with u_k the uniform of Stream(seed, resample, kStep, k), kept below
// the total (the product can round up to it), so every inverse-CDF kernel maps it to an item.
struct Points {
  std::uint64_t seed;
  double total;
  double below_total;
  double operator()(std::uint64_t k) const {
    const double x = rng::Stream(seed, rng::Purpose::resample, kStep, k).uniform() * total;
    return x < total ? x : below_total;
  }
};

// ---- timing ---------------------------------------------------------------------------------------

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The memory-bandwidth floor: a std::memcpy between two buffers that are touched before any timing.
class CopyFloor {
 public:
  double time(std::uint64_t bytes, int inner) {
    if (bytes == 0) return 0.0;
    if (bytes > size_) {
      src_.reset();
      dst_.reset();
      src_.reset(new unsigned char[bytes]);
      dst_.reset(new unsigned char[bytes]);
      std::memset(src_.get(), 1, bytes);
      std::memset(dst_.get(), 0, bytes);
      size_ = bytes;
    }
    const double start = now_seconds();
    for (int i = 0; i < inner; ++i) std::memcpy(dst_.get(), src_.get(), bytes);
    const double seconds = (now_seconds() - start) / inner;
    sink_ = sink_ + dst_[static_cast<std::size_t>(inner) % bytes];
    return seconds;
  }

 private:
  std::unique_ptr<unsigned char[]> src_, dst_;
  std::uint64_t size_ = 0;
  volatile unsigned sink_ = 0;  // keeps the copies from being optimised away
};

// One measured phase of a kernel.
struct Phase {
  const char* phase = "build";  // build | sample
  std::vector<double> seconds, copy_seconds;
  std::uint64_t items = 0;       // n (build) or samples (sample)
  std::uint64_t n = 0;           // the table's items
  std::uint64_t copy_bytes = 0;  // the floor's bytes
  std::uint64_t table_bytes = 0;
  int inner = 1;
  const char* rng = nullptr;                // the generator inside the timed sample loop
  std::vector<double> given_total_seconds;  // alias-psa(-plus): the build with the total passed in
  std::string table_hash;                   // alias builds: FNV-1a of the rows (equal tables, equal hashes)
  std::uint64_t sections = 0;               // alias-psa-device: sections of the sweep (0: not reported)
  const char* layout = nullptr;             // device alias builds: the final sweep's layout
  std::uint64_t greedy_rows = 0;            // device alias builds: rows of PSA+'s greedy pass
};

// Calls per timing: enough that one timing covers about 2^17 items.
int inner_calls(std::uint64_t items) {
  const std::uint64_t want = (std::uint64_t{1} << 17) / (items > 0 ? items : 1);
  return static_cast<int>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(1000, want)));
}

// ---- the benchmark for one (n, weights) -------------------------------------------------------------

class Bench {
 public:
  Bench(const Plan& plan, Pattern pattern, std::uint64_t n, CopyFloor& floor, bool verbose)
      : plan_(plan), n_(n), floor_(floor), verbose_(verbose) {
    w_ = make_weights(pattern, n, plan.seed);
    w64_ = ExactWeights(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::bench::exact weights"), n);
    for (std::uint64_t i = 0; i < n; ++i) w64_(i) = static_cast<std::uint64_t>(w_(i));  // integer-valued: exact
    cumulative_.resize(n);
    double run = 0.0;
    for (std::uint64_t i = 0; i < n; ++i) cumulative_[i] = run += w_(i);
    total_ = run;
    points_ = Points{plan.seed, total_, std::nextafter(total_, 0.0)};
    m_ = plan.samples != 0 ? plan.samples : std::min(n, kDefaultSampleCap);
    out_.assign(m_, 0);
  }

  // Why `kernel` cannot run at this size, or "" if it can.
  std::string skip_reason(Kernel kernel) const {
    const double bytes = static_cast<double>(table_bytes(kernel));
    if (bytes > plan_.max_table_bytes) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "its structure takes %.3g GiB, above --max-table-gib %.3g%s", bytes / 1073741824.0,
                    plan_.max_table_bytes / 1073741824.0,
                    kernel == Kernel::butterfly ? " (W = 32 cells of 8 bytes per item)" : "");
      return buf;
    }
    if ((kernel == Kernel::cutpoint || kernel == Kernel::forest) && n_ >= (std::uint64_t{1} << 31))
      return "n >= 2^31 needs 64-bit node references (the benchmark uses 32-bit ones)";
    if ((kernel == Kernel::butterfly || kernel == Kernel::butterfly_column || is_device_butterfly(kernel)) &&
        n_ > kernels::host::kButterflyMaxK)
      return "the butterfly takes at most 2^32 - 1 items";
#if !defined(RSMC_ENGINE_CUDA_KERNELS)
    if (is_device_butterfly(kernel)) return "a build without rsmc's CUDA kernels (RSMC_ENABLE_CUDA)";
#endif
    return "";
  }

  // Runs `kernel`; the threaded alias kernels on `threads` threads.
  std::vector<Phase> run(Kernel kernel, int threads, std::uint64_t section_items) {
    switch (kernel) {
      case Kernel::binary_search:
        return binary_search();
      case Kernel::cutpoint:
        return forest_family<kernels::CutpointTable<double, HostExec>>(kernel);
      case Kernel::forest:
        return forest_family<kernels::RadixForest<double, HostExec>>(kernel);
      case Kernel::butterfly:
        return butterfly();
      case Kernel::butterfly_column:
        return butterfly_column();
      case Kernel::butterfly_device:
      case Kernel::butterfly_lanes_device:
        return butterfly_device(kernel);
      case Kernel::alias_vose:
      case Kernel::alias_psa:
      case Kernel::alias_psa_plus:
        return alias_build(kernel, threads);
      case Kernel::alias_baseline:
      case Kernel::alias_sectioned:
        return alias_sample(kernel, threads);
      case Kernel::alias_psa_device:
      case Kernel::alias_psa_plus_device:
      case Kernel::alias_psa_masks_device:
        return alias_build_device(kernel, section_items);
      case Kernel::std_discrete:
        return std_discrete();
      case Kernel::rng:
        return rng_only();
    }
    throw Error("internal error: unknown kernel");
  }

 private:
  // Bytes of the structure a kernel builds (the build floor copies as many).
  std::uint64_t table_bytes(Kernel kernel) const {
    const std::uint64_t n = n_, cells = n_ + 1;  // default guide cells: m = n, starts has m + 1
    switch (kernel) {
      case Kernel::binary_search:
        return 8 * n;
      case Kernel::cutpoint:
        return 8 * n + 4 * cells;  // lower bounds, starts
      case Kernel::forest:
        return 8 * n + 4 * cells + 8 * n + 4 * n + 4 * n;  // + nodes, otherBounds, table
      case Kernel::butterfly:
        return std::uint64_t{kWarp} * 8 * n;
      case Kernel::butterfly_column:
      case Kernel::butterfly_device:  // the shared column and its running sums, u128
        return 16 * (kernels::butterfly::column_table_cells(n) + kernels::butterfly::column_total_cells(n));
      case Kernel::butterfly_lanes_device:  // one column per lane: what the engine's table took before
        return 16 * std::uint64_t{kWarp} * (n + n / kWarp + kernels::butterfly::running_chunks(n));
      case Kernel::alias_vose:
      case Kernel::alias_psa:
      case Kernel::alias_psa_plus:
      case Kernel::alias_baseline:
      case Kernel::alias_sectioned:
      case Kernel::alias_psa_device:
      case Kernel::alias_psa_plus_device:
      case Kernel::alias_psa_masks_device:
        return sizeof(kernels::alias::AliasRow<std::uint64_t>) * n;
      case Kernel::std_discrete:
        return 16 * n;  // libstdc++: probabilities and their partial sums
      case Kernel::rng:
        return 0;
    }
    return 0;
  }

  // Times work() --repeats times, each after a memcpy of copy_bytes.
  template <class Work>
  void measure(Phase& p, Work&& work) {
    p.inner = inner_calls(p.items);
    for (int r = 0; r < plan_.repeats; ++r) {
      p.copy_seconds.push_back(floor_.time(p.copy_bytes, p.inner));
      const double start = now_seconds();
      for (int i = 0; i < p.inner; ++i) work();
      p.seconds.push_back((now_seconds() - start) / p.inner);
      if (verbose_)
        std::fprintf(stderr, "  %s n = %llu: repeat %d/%d: %.6e s, memcpy %.6e s\n", p.phase,
                     static_cast<unsigned long long>(n_), r + 1, plan_.repeats, p.seconds.back(),
                     p.copy_seconds.back());
    }
  }

  Phase build_phase(Kernel kernel) const {
    Phase p;
    p.phase = "build";
    p.items = n_;
    p.n = n_;
    p.table_bytes = table_bytes(kernel);
    p.copy_bytes = p.table_bytes;
    return p;
  }
  Phase sample_phase(Kernel kernel, const char* rng_name) const {
    Phase p;
    p.phase = "sample";
    p.items = m_;
    p.n = n_;
    p.table_bytes = table_bytes(kernel);
    p.copy_bytes = 8 * m_;
    p.rng = rng_name;
    return p;
  }

  // The inverse-CDF kernels' answers in out_ must be, for every sample, the index binary search gives.
  void check_inverse_cdf(Kernel kernel) const {
    for (std::uint64_t k = 0; k < m_; ++k) {
      const double x = points_(k);
      const std::uint64_t i = out_[k];
      if (!(i < n_ && (i == 0 || cumulative_[i - 1] <= x) && x < cumulative_[i]))
        throw Error(std::string("internal error: bench kernels: ") + kernel_name(kernel) + " mapped sample " +
                    std::to_string(k) + " to item " + std::to_string(i) + ", not to the binary-search index " +
                    std::to_string(kernels::upper_bound_index(cumulative_.data(), n_, x)));
    }
  }

  // Draws (alias, std::discrete_distribution): every item in range, and the share of draws on even
  // items within 6 standard deviations of its probability.
  void check_draws(Kernel kernel) const {
    double even_weight = 0.0;
    for (std::uint64_t i = 0; i < n_; i += 2) even_weight += w_(i);
    const double p = even_weight / total_;
    std::uint64_t even = 0;
    for (std::uint64_t k = 0; k < m_; ++k) {
      if (out_[k] >= n_)
        throw Error(std::string("internal error: bench kernels: ") + kernel_name(kernel) + " drew item " +
                    std::to_string(out_[k]) + " of " + std::to_string(n_));
      even += out_[k] % 2 == 0 ? 1 : 0;
    }
    const double m = static_cast<double>(m_);
    if (std::fabs(static_cast<double>(even) - m * p) > 6.0 * std::sqrt(m * p * (1.0 - p)) + 1.0)
      throw Error(std::string("internal error: bench kernels: ") + kernel_name(kernel) + " drew " +
                  std::to_string(even) + " of " + std::to_string(m_) + " samples on even items; expected about " +
                  std::to_string(m * p));
  }

  // A valid exact alias table whose rows give every item exactly n times its weight back.
  void check_alias_table(Kernel kernel, const AliasTable& table) const {
    using exact::u128;
    const auto fail = [&](const std::string& what) {
      throw Error(std::string("internal error: bench kernels: ") + kernel_name(kernel) + ": " + what);
    };
    if (table.size() != n_) fail("the table has " + std::to_string(table.size()) + " rows");
    std::vector<u128> mass(n_, 0);
    const u128 cap = table.capacity;
    for (std::uint64_t i = 0; i < n_; ++i) {
      const auto& row = table.rows(i);
      if (!(row.alias() < n_) || !(row.threshold() <= cap) || (row.threshold() == cap && row.alias() != i))
        fail("row " + std::to_string(i) + " is not a valid alias row");
      mass[i] += row.threshold();
      mass[row.alias()] += cap - row.threshold();
    }
    for (std::uint64_t i = 0; i < n_; ++i)
      if (mass[i] != static_cast<u128>(w64_(i)) * n_)
        fail("item " + std::to_string(i) + " gets " + exact::to_string(mass[i]) +
             " of the table, expected n w = " + exact::to_string(static_cast<u128>(w64_(i)) * n_));
  }

  template <class Index>
  void sample_with(Phase& p, Index&& index) {
    measure(p, [&] {
      for (std::uint64_t k = 0; k < m_; ++k) out_[k] = index(points_(k));
    });
  }

  std::vector<Phase> binary_search() {
    Phase build = build_phase(Kernel::binary_search), sample = sample_phase(Kernel::binary_search, "philox4x32-10");
    std::vector<double> c(n_);
    measure(build, [&] {
      double run = 0.0;
      for (std::uint64_t i = 0; i < n_; ++i) c[i] = run += w_(i);
    });
    if (std::memcmp(c.data(), cumulative_.data(), 8 * n_) != 0)
      throw Error("internal error: bench kernels: binary-search built different prefix sums");
    sample_with(sample, [&](double x) { return kernels::upper_bound_index(c.data(), n_, x); });
    check_inverse_cdf(Kernel::binary_search);
    return {build, sample};
  }

  // CutpointTable and RadixForest: the lower bounds (a prefix sum), then the structure.
  template <class Table>
  std::vector<Phase> forest_family(Kernel kernel) {
    Phase build = build_phase(kernel), sample = sample_phase(kernel, "philox4x32-10");
    Kokkos::View<double*, HostSpace> lower(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::bench::lower"), n_);
    Table table;
    measure(build, [&] {
      double run = 0.0;
      for (std::uint64_t i = 0; i < n_; ++i) {
        lower(i) = run;
        run += w_(i);
      }
      table.build(lower, run);
    });
    const auto sampler = table.sampler();
    sample_with(sample, [&](double x) { return sampler.index(x); });
    check_inverse_cdf(kernel);
    return {build, sample};
  }

  std::vector<Phase> butterfly() {
    Phase build = build_phase(Kernel::butterfly), sample = sample_phase(Kernel::butterfly, "philox4x32-10");
    kernels::host::ButterflyWarpTable<double, kWarp> table;
    const double* rows[kWarp];
    for (unsigned r = 0; r < kWarp; ++r) rows[r] = w_.data();
    measure(build, [&] { table.build(rows, n_); });
    measure(sample, [&] {
      double x[kWarp];
      std::uint32_t index[kWarp];
      for (std::uint64_t first = 0; first < m_; first += kWarp) {
        const unsigned lanes = static_cast<unsigned>(std::min<std::uint64_t>(kWarp, m_ - first));
        for (unsigned r = 0; r < kWarp; ++r) x[r] = r < lanes ? points_(first + r) : 0.0;
        table.search(x, index);
        for (unsigned r = 0; r < lanes; ++r) out_[first + r] = index[r];
      }
    });
    check_inverse_cdf(Kernel::butterfly);
    return {build, sample};
  }

  // The engine's butterfly column on the host (kernels/butterfly/shared_column.hpp): the weights as
  // u64, sums in u128, the points floor(x) (exact: the prefix sums are integers).
  std::vector<Phase> butterfly_column() {
    Phase build = build_phase(Kernel::butterfly_column),
          sample = sample_phase(Kernel::butterfly_column, "philox4x32-10");
    kernels::butterfly::ButterflyColumn<exact::u128> table;
    measure(build, [&] { table.build(w64_.data(), n_); });
    if (table.bytes() != build.table_bytes) throw Error("internal error: bench kernels: butterfly-column's size");
    sample_with(sample, [&](double x) { return table.search(static_cast<exact::u128>(x)); });
    check_inverse_cdf(Kernel::butterfly_column);
    return {build, sample};
  }

  // The butterfly table of one distribution on the device, built and searched in one call for m
  // samples: butterfly-device is the engine's (butterfly_lookup_points: the shared column, exact
  // points), butterfly-lanes-device the lane table it replaced (butterfly_inverse_cdf: one column per
  // lane, 32 x K cells, allocated by the call). Their table_bytes are what each allocates.
  std::vector<Phase> butterfly_device(Kernel kernel) {
    Phase sample = sample_phase(kernel, "philox4x32-10");
#if defined(RSMC_ENGINE_CUDA_KERNELS)
    using Space = Kokkos::CudaSpace;
    using exact::u128;
    const auto uninitialised = [](const char* label) {
      return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
    };
    Kokkos::View<std::uint64_t*, Space> weights(uninitialised("rsmc::bench::butterfly_weights"), n_);
    Kokkos::deep_copy(weights, w64_);
    Kokkos::View<std::uint64_t*, Space> out(uninitialised("rsmc::bench::butterfly_out"), m_);
    if (kernel == Kernel::butterfly_device) {
      Kokkos::View<u128*, HostSpace> host_points(uninitialised("rsmc::bench::points_host"), m_);
      for (std::uint64_t k = 0; k < m_; ++k) host_points(k) = static_cast<u128>(points_(k));
      Kokkos::View<u128*, Space> points(uninitialised("rsmc::bench::points"), m_);
      Kokkos::deep_copy(points, host_points);
      Kokkos::View<u128*, Space> table(uninitialised("rsmc::bench::column"),
                                       kernels::cuda::butterfly_table_entries(n_));
      Kokkos::View<u128*, Space> totals(uninitialised("rsmc::bench::column_totals"),
                                        kernels::cuda::butterfly_block_total_entries(n_));
      Kokkos::View<int, Space> error("rsmc::bench::butterfly_error");
      if (16 * (table.extent(0) + totals.extent(0)) != sample.table_bytes)
        throw Error("internal error: bench kernels: butterfly-device's size");
      measure(sample, [&] {
        kernels::cuda::butterfly_lookup_points<std::uint64_t>(weights.data(), n_, points.data(), m_, out.data(),
                                                              table.data(), totals.data(), error.data(), 1, nullptr);
        if (cudaDeviceSynchronize() != cudaSuccess) throw Error("bench kernels: butterfly-device: a CUDA error");
      });
      auto host_out = Kokkos::create_mirror_view_and_copy(HostSpace(), out);
      for (std::uint64_t k = 0; k < m_; ++k) out_[k] = host_out(k);
      check_inverse_cdf(kernel);
    } else {
      Kokkos::View<double*, HostSpace> host_u(uninitialised("rsmc::bench::uniforms_host"), m_);
      for (std::uint64_t k = 0; k < m_; ++k) host_u(k) = points_(k) / total_;
      Kokkos::View<double*, Space> uniforms(uninitialised("rsmc::bench::uniforms"), m_);
      Kokkos::deep_copy(uniforms, host_u);
      Kokkos::View<std::uint32_t*, Space> index(uninitialised("rsmc::bench::lanes_out"), m_);
      measure(sample, [&] {
        kernels::cuda::butterfly_inverse_cdf<std::uint64_t, u128>(weights.data(), n_, uniforms.data(), m_,
                                                                  index.data());
      });
      auto host_index = Kokkos::create_mirror_view_and_copy(HostSpace(), index);
      for (std::uint64_t k = 0; k < m_; ++k)
        if (host_index(k) >= n_) throw Error("internal error: bench kernels: butterfly-lanes-device drew no item");
    }
#endif
    return {sample};
  }

  // 64-bit FNV-1a over every row's threshold (low 64 and high 32 bits) and alias: PSA's hash equals
  // Vose's, and every builder's is the same for any --threads count.
  static std::string rows_hash(const AliasTable& table) {
    std::uint64_t h = 1469598103934665603ULL;
    const auto mix = [&h](std::uint64_t x, int bytes) {
      for (int b = 0; b < bytes; ++b) h = (h ^ ((x >> (8 * b)) & 0xff)) * 1099511628211ULL;
    };
    for (std::uint64_t i = 0; i < table.size(); ++i) {
      const auto& row = table.rows(i);
      mix(static_cast<std::uint64_t>(row.threshold()), 8);
      mix(static_cast<std::uint64_t>(row.threshold() >> 64), 4);
      mix(row.alias(), 4);
    }
    char text[20];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return text;
  }

  // Vose: table and workspace reused. PSA, PSA+: the storage is sized by an untimed first build and
  // reused, as the engine does; the total is computed inside the timed build.
  std::vector<Phase> alias_build(Kernel kernel, int threads) {
    Phase build = build_phase(kernel);
    AliasTable table;
    if (kernel == Kernel::alias_vose) {
      kernels::alias::VoseWorkspace workspace;
      measure(build, [&] { kernels::alias::build_vose(w64_.data(), n_, table, workspace); });
    } else {
      const ThreadedExec exec = threaded_exec(threads);
      kernels::alias::PsaOptions options;
      options.method =
          kernel == Kernel::alias_psa ? kernels::alias::AliasMethod::psa : kernels::alias::AliasMethod::psa_plus;
      options.greedy_items = plan_.greedy_items;
      kernels::alias::AliasStorage<HostSpace> storage;
      const exact::u128 total = kernels::alias::alias_total(exec, w64_, storage);
      kernels::alias::build_alias(exec, w64_, total, storage, options);
      measure(build, [&] {
        table = kernels::alias::build_alias(exec, w64_, storage, options);
        exec.fence();
      });
      Phase given = build;  // the engine knows its total: the same build without that pass
      given.seconds.clear();
      given.copy_seconds.clear();
      measure(given, [&] {
        kernels::alias::build_alias(exec, w64_, total, storage, options);
        exec.fence();
      });
      build.given_total_seconds = given.seconds;
    }
    check_alias_table(kernel, table);
    build.table_hash = rows_hash(table);
    return {build};
  }

  std::vector<Phase> alias_sample(Kernel kernel, int threads) {
    Phase sample = sample_phase(kernel, "philox4x32-10");
    const AliasTable table = kernels::alias::build_vose(w64_.data(), n_);
    const DrawView draws(out_.data(), m_);
    const ThreadedExec exec = threaded_exec(threads);
    measure(sample, [&] {
      if (kernel == Kernel::alias_baseline)
        kernels::alias::sample_draws(exec, table, plan_.seed, kStep, draws);
      else
        kernels::alias::sample_draws_sectioned(exec, table, plan_.seed, kStep, draws);
      exec.fence();
    });
    check_draws(kernel);
    return {sample};
  }

  // PSA in the build's default execution space (the GPU of a CUDA build), as the engine's alias
  // sampler calls it: the weights already there, the total given, the storage reused. Its floor is a
  // copy of the table's bytes within that space's memory (the bandwidth floor of a build that writes
  // the table once). The table is copied back (untimed), checked exact, and hashed: PSA's table is
  // Vose's, so the hash must equal alias-vose's and alias-psa's, whatever the sections (section_items
  // per section; 0: the engine's choice).
  std::vector<Phase> alias_build_device(Kernel kernel, std::uint64_t section_items) {
    using Exec = Kokkos::DefaultExecutionSpace;
    using Space = Exec::memory_space;
    const Exec exec;
    Phase build = build_phase(kernel);
    const auto uninitialised = [](const char* label) {
      return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
    };
    Kokkos::View<std::uint64_t*, Space> weights(uninitialised("rsmc::bench::device_weights"), n_);
    Kokkos::deep_copy(weights, w64_);
    kernels::alias::AliasStorage<Space> storage;
    kernels::alias::PsaOptions options;  // the engine's: PSA, lists on a device
    if (kernel == Kernel::alias_psa_plus_device) options.method = kernels::alias::AliasMethod::psa_plus;
    options.greedy_items = plan_.greedy_items;
    if (kernel == Kernel::alias_psa_masks_device) options.layout = kernels::alias::AliasLayout::masks;
    if (section_items > 0) options.sections = (n_ + section_items - 1) / section_items;
    const exact::u128 total = kernels::alias::alias_total(exec, weights, storage);
    kernels::alias::PsaStats stats;
    auto table = kernels::alias::build_alias(exec, weights, total, storage, options, &stats);  // sizes the storage
    build.sections = stats.sections;
    build.layout = stats.lists ? "lists" : "masks";
    build.greedy_rows = stats.greedy_rows;
    Kokkos::View<unsigned char*, Space> from(uninitialised("rsmc::bench::floor_from"), build.copy_bytes),
        to(uninitialised("rsmc::bench::floor_to"), build.copy_bytes);
    Kokkos::deep_copy(from, static_cast<unsigned char>(1));
    build.inner = inner_calls(build.items);
    for (int r = 0; r < plan_.repeats; ++r) {
      double start = now_seconds();
      for (int i = 0; i < build.inner; ++i) Kokkos::deep_copy(exec, to, from);
      exec.fence();
      build.copy_seconds.push_back((now_seconds() - start) / build.inner);
      start = now_seconds();
      for (int i = 0; i < build.inner; ++i) table = kernels::alias::build_alias(exec, weights, total, storage, options);
      exec.fence();
      build.seconds.push_back((now_seconds() - start) / build.inner);
      if (verbose_)
        std::fprintf(stderr, "  build n = %llu on %s: repeat %d/%d: %.6e s, copy %.6e s\n",
                     static_cast<unsigned long long>(n_), Exec::name(), r + 1, plan_.repeats, build.seconds.back(),
                     build.copy_seconds.back());
    }
    AliasTable host_table;
    host_table.rows = Kokkos::create_mirror_view_and_copy(HostSpace(), table.rows);
    host_table.capacity = table.capacity;
    host_table.total = table.total;
    check_alias_table(kernel, host_table);
    build.table_hash = rows_hash(host_table);
    return {build};
  }

  std::vector<Phase> std_discrete() {
    Phase build = build_phase(Kernel::std_discrete), sample = sample_phase(Kernel::std_discrete, "mt19937_64");
    std::discrete_distribution<std::uint64_t> dist;
    measure(build, [&] { dist = std::discrete_distribution<std::uint64_t>(w_.data(), w_.data() + n_); });
    measure(sample, [&] {
      std::mt19937_64 gen(plan_.seed);
      for (std::uint64_t k = 0; k < m_; ++k) out_[k] = dist(gen);
    });
    check_draws(Kernel::std_discrete);
    return {build, sample};
  }

  std::vector<Phase> rng_only() {
    Phase sample = sample_phase(Kernel::rng, "philox4x32-10");
    sample_with(sample, [](double x) { return static_cast<std::uint64_t>(x); });
    for (std::uint64_t k = 0; k < m_; ++k)
      if (out_[k] != static_cast<std::uint64_t>(points_(k)))
        throw Error("internal error: bench kernels: the uniforms are not reproducible");
    return {sample};
  }

  const Plan& plan_;
  std::uint64_t n_;
  CopyFloor& floor_;
  bool verbose_;
  WeightView w_;
  ExactWeights w64_;                // the same weights as std::uint64_t (the alias kernels')
  std::vector<double> cumulative_;  // the exact prefix sums: the reference of every inverse CDF
  double total_ = 0.0;
  Points points_{};
  std::uint64_t m_ = 0;
  std::vector<std::uint64_t> out_;  // the indices of the last sample phase
};

// The Kokkos alias kernels run once per --threads count; the others are sequential.
bool is_threaded(Kernel k) {
  return k == Kernel::alias_psa || k == Kernel::alias_psa_plus || k == Kernel::alias_baseline ||
         k == Kernel::alias_sectioned;
}

// A "skipped" line for each phase the kernel has.
void print_skipped(Kernel kernel, const std::string& head, const std::string& common, const std::string& tail,
                   const std::string& reason) {
  const bool builds = kernel != Kernel::alias_baseline && kernel != Kernel::alias_sectioned && kernel != Kernel::rng &&
                      !is_device_butterfly(kernel);
  const bool samples = kernel != Kernel::alias_vose && kernel != Kernel::alias_psa &&
                       kernel != Kernel::alias_psa_plus && !is_device_alias(kernel);
  for (const char* phase : {"build", "sample"})
    if ((phase[0] == 'b' && builds) || (phase[0] == 's' && samples))
      std::fputs(
          (head + json_string(phase) + common + ",\"skipped\":true,\"reason\":" + json_string(reason) + tail).c_str(),
          stdout);
  std::fflush(stdout);
}

// alias-psa(-plus) builds: the same build with the total passed in, as the engine calls it.
std::string given_total_fields(const Phase& p) {
  if (p.given_total_seconds.empty()) return "";
  const double med = median(p.given_total_seconds);
  const double fastest = *std::min_element(p.given_total_seconds.begin(), p.given_total_seconds.end());
  return ",\"given_total_items_per_s\":" + json_number(static_cast<double>(p.items) / med) +
         ",\"given_total_seconds_median\":" + json_number(med) + ",\"given_total_seconds_min\":" + json_number(fastest);
}

// The measured fields of one phase.
std::string phase_fields(const Phase& p) {
  const bool build = p.phase[0] == 'b';
  const double med = median(p.seconds), copy_med = median(p.copy_seconds);
  const double fastest = *std::min_element(p.seconds.begin(), p.seconds.end());
  return ",\"samples\":" + (build ? std::string("null") : std::to_string(p.items)) +
         ",\"rng\":" + (p.rng ? json_string(p.rng) : std::string("null")) + ",\"inner\":" + std::to_string(p.inner) +
         (build ? ",\"items_per_s\":" : ",\"samples_per_s\":") + json_number(static_cast<double>(p.items) / med) +
         ",\"seconds_median\":" + json_number(med) + ",\"seconds_min\":" + json_number(fastest) +
         ",\"table_bytes\":" + std::to_string(p.table_bytes) + ",\"copy_bytes\":" + std::to_string(p.copy_bytes) +
         ",\"copy_seconds_median\":" + json_number(copy_med) +
         ",\"copy_bytes_per_s\":" + json_number(static_cast<double>(p.copy_bytes) / copy_med) +
         ",\"kernel_to_copy_ratio\":" + json_number(copy_med > 0.0 ? med / copy_med : HUGE_VAL) +
         ",\"table_bytes_per_item\":" + json_number(static_cast<double>(p.table_bytes) / static_cast<double>(p.n)) +
         (p.sections > 0 ? ",\"sections\":" + std::to_string(p.sections) : std::string()) +
         (p.layout ? ",\"layout\":" + json_string(p.layout) + ",\"greedy_rows\":" + std::to_string(p.greedy_rows)
                   : std::string()) +
         given_total_fields(p) +
         (p.table_hash.empty() ? std::string() : ",\"table_hash\":" + json_string(p.table_hash));
}

// wrs's figure for (weights, threads), if there is one, and the ratios of this build's rate to it
// (median and fastest repeat).
std::string wrs_fields(const std::string& weights, int threads, const Phase& p) {
  for (const WrsReference& ref : kWrsReference) {
    if (weights != ref.weights || threads != ref.threads) continue;
    const double med = median(p.seconds), fastest = *std::min_element(p.seconds.begin(), p.seconds.end());
    const double items = static_cast<double>(p.items);
    return std::string(",\"reference\":\"wrs PSA+\",\"reference_items_per_s\":") + json_number(ref.items_per_s) +
           ",\"ratio_to_reference\":" + json_number(items / med / ref.items_per_s) +
           ",\"best_ratio_to_reference\":" + json_number(items / fastest / ref.items_per_s);
  }
  return "";
}

// Ranks other than 0 wait here, sleeping rather than spinning in a barrier, while rank 0 works.
void wait_for_rank0(MPI_Comm comm) {
  MPI_Request request;
  MPI_Ibarrier(comm, &request);
  int done = 0;
  while (!done) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

void KernelsBench::add_to(CLI::App& app) {
  app.footer(
      "Runs on rank 0 only (other ranks wait idle): the sequential kernels on one thread, the Kokkos alias kernels "
      "once per --threads count. Weights are integer-valued doubles with exact prefix sums, so every inverse-CDF "
      "kernel is checked "
      "(untimed) to return the binary-search index of every sample; alias tables (exact, from the same weights as "
      "64-bit integers) are checked to give every item exactly n times its weight back; alias-psa-plus at n = 1e7 "
      "on 1 or 2 threads also reports its ratio to wrs (Huebschle-Schneider and Sanders' CPU PSA+) measured on "
      "the development machine. alias-psa-device builds the engine's PSA table in the build's default execution space "
      "(the GPU of a CUDA build; its floor is a copy of the table's bytes in that memory). Sampling includes the "
      "random number generation (one Philox4x32-10 block per sample; "
      "std-discrete: std::mt19937_64). Each phase is timed --repeats times after a std::memcpy of its bytes (build: "
      "the structure; sample: 8 bytes per sample). One JSON line per (n, weights, kernel, phase) on stdout and "
      "nothing else; see docs/performance.md.");
  app.add_option("--sizes,-n", sizes, "Item counts n; a comma list or a repeated option, e.g. 1e3,1e6")
      ->type_name("N,...")
      ->capture_default_str();
  app.add_option("--weights", weights,
                 "Weight patterns: uniform (1 + floor(u S), u uniform), power-law (shuffled, exponent 1), equal; "
                 "a comma list")
      ->type_name("NAME,...")
      ->capture_default_str();
  std::string names;
  for (Kernel k : kAllKernels) names += std::string(names.empty() ? "" : ", ") + kernel_name(k);
  app.add_option("--kernels", kernels, "all, or a comma list of " + names)
      ->type_name("NAME,...")
      ->capture_default_str();
  app.add_option("--samples", samples, "Samples per size: a count (e.g. 1e6), or n for n samples (at most 10^7)")
      ->capture_default_str();
  app.add_option("--repeats", repeats, "Timings per phase; the median and the minimum are reported")
      ->capture_default_str();
  app.add_option("--seed", seed, "Seed of the weight and sampling streams, 0 <= seed < 2^56")->capture_default_str();
  app.add_option("--max-table-gib", max_table_gib,
                 "Skip (with a \"skipped\" line) a kernel whose structure is larger than this many GiB")
      ->capture_default_str();
  app.add_option("--threads", threads,
                 "Thread counts of the Kokkos alias kernels (alias-psa, alias-psa-plus, alias-baseline, "
                 "alias-sectioned), each run once per count on a host execution space instance of that many threads; "
                 "a comma list, at most OMP_NUM_THREADS (Kokkos 4 OpenMP builds; Serial builds: 1)")
      ->type_name("T,...")
      ->capture_default_str();
  app.add_option("--section-items", section_items,
                 "alias-psa-device: items per section of PSA's final sweep, each size run in turn; the table does "
                 "not depend on it (its hash is printed); 0: the engine's choice (128 items per section on a "
                 "device, 4 sections per thread on a host)")
      ->type_name("K,...")
      ->capture_default_str();
  app.add_option("--greedy-items", greedy_items,
                 "alias-psa-plus, alias-psa-plus-device: items per greedy section of PSA+ (a power of two, 1024 to "
                 "2^31); the table depends on it, so host and device tables match at the same value")
      ->capture_default_str();
  app.add_flag("--verbose,-v", verbose, "Report progress on stderr");
}

int KernelsBench::run(MPI_Comm comm) const {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const Plan plan = make_plan(*this);  // the same arguments on every rank: all throw or none
  if (rank != 0) {
    wait_for_rank0(comm);
    return 0;
  }
  std::exception_ptr failure;
  try {
    const std::string date = today(), host = host_name();
    CopyFloor floor;
    for (const std::uint64_t n : plan.sizes) {
      for (const Pattern pattern : plan.patterns) {
        if (verbose)
          std::fprintf(stderr, "rsmc bench kernels: n = %llu, %s weights: preparing\n",
                       static_cast<unsigned long long>(n), pattern_name(pattern));
        Bench bench(plan, pattern, n, floor, verbose);
        for (const Kernel kernel : plan.kernels) {
          const bool on_device = is_device_alias(kernel) || is_device_butterfly(kernel);
          const std::vector<std::uint64_t> section_choices =
              is_device_alias(kernel) ? plan.section_items : std::vector<std::uint64_t>{0};
          for (const int threads : is_threaded(kernel) ? plan.threads : std::vector<int>{1})
            for (const std::uint64_t section_items : section_choices) {
              const std::string head =
                  std::string("{\"bench\":\"kernels\",\"kernel\":\"") + kernel_name(kernel) + "\",\"phase\":";
              const std::string common =
                  ",\"n\":" + std::to_string(n) + ",\"weights\":\"" + pattern_name(pattern) +
                  "\",\"exponent\":" + (pattern == Pattern::power_law ? std::string("1") : std::string("null")) +
                  ",\"repeats\":" + std::to_string(plan.repeats) + ",\"seed\":" + std::to_string(plan.seed) +
                  ",\"threads\":" +
                  std::to_string(on_device ? Kokkos::DefaultExecutionSpace().concurrency() : threads) +
                  ",\"host_space\":" + json_string(is_threaded(kernel) ? ThreadedExec::name() : HostExec::name()) +
                  (on_device ? ",\"execution_space\":" + json_string(Kokkos::DefaultExecutionSpace::name())
                             : std::string()) +
                  (kernel == Kernel::alias_psa_plus || kernel == Kernel::alias_psa_plus_device
                       ? ",\"greedy_items\":" + std::to_string(plan.greedy_items)
                       : std::string());
              const std::string tail = ",\"date\":" + json_string(date) + ",\"host\":" + json_string(host) + "}\n";
              const std::string reason = bench.skip_reason(kernel);
              if (!reason.empty()) {
                print_skipped(kernel, head, common, tail, reason);
                continue;
              }
              if (verbose) std::fprintf(stderr, " %s, %d thread(s)\n", kernel_name(kernel), threads);
              for (const Phase& p : bench.run(kernel, threads, section_items)) {
                const std::string reference = kernel == Kernel::alias_psa_plus && n == kWrsN
                                                  ? wrs_fields(pattern_name(pattern), threads, p)
                                                  : std::string();
                std::fputs((head + json_string(p.phase) + common + phase_fields(p) + reference + tail).c_str(), stdout);
                std::fflush(stdout);
              }
            }
        }
      }
    }
  } catch (...) {
    failure = std::current_exception();
  }
  wait_for_rank0(comm);  // release the other ranks, also after a failure
  if (failure) std::rethrow_exception(failure);
  return 0;
}

}  // namespace rsmc::bench
