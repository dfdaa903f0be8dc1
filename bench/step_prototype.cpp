// bench/step_prototype: the fused SV filter step of bench/step_prototype.hpp, measured piece by
// piece, with the bits it produces (issue 16; docs/design/vectorised-step.md). Not part of the
// engine and not wired into `rsmc`: a standalone program built twice, for -march=native and for
// the baseline x86-64, so that both the speed and the bit-identity across instruction sets show.
//
//   rsmc_step_prototype[_x86_64] [--mode run|pieces|sums|accuracy|all] [--particles N] [--steps T]
//                                [--repeats R] [--seed S] [--draws pregenerated|on_the_fly]
//
// One JSON line per measurement on stdout:
//   run       T filter steps (resampling every step): ns per particle-step, the log-likelihood and a
//             hash of every step's outputs and the final states (equal hashes: identical bits)
//   pieces    ns per particle of each piece of the step at N (best of R): draws, propagate,
//             weights, sums, fixed weights, selection, offspring stores, the host reduction
//   sums      ns per element and quantity of the reproducible sums: binned (exact::BinnedSum),
//             ExactSumBins, fixed-point integer adds (with and without the conversion), plain double
//   accuracy  the one-pass variance (about the previous mean, and about 0) against the exact
//             two-pass variance, for SV and for SV shifted by 10^6
// Kokkos threads: the host execution space's (OMP_NUM_THREADS with an OpenMP build).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <time.h>

#include "base/exact/exact_bins.hpp"
#include "base/exact/exact_sum.hpp"
#include "bench/step_prototype.hpp"

#ifndef RSMC_PROTOTYPE_ARCH
#define RSMC_PROTOTYPE_ARCH "unknown"
#endif

namespace {

using namespace rsmc;
using namespace rsmc::bench::prototype;
using Prototype = SvStepPrototype<>;

// Wall time, or with --clock cpu the CPU time of the process (all its threads): on a shared machine
// a one-thread run is then timed without the time other processes held the core.
bool g_cpu_clock = false;

double seconds_now() {
  if (g_cpu_clock) {
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Options {
  std::string mode = "all";
  std::uint64_t particles = 1000000;
  int steps = 100;
  int repeats = 5;
  std::uint64_t seed = 1;
  Draws draws = Draws::pregenerated;
};

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr, "step_prototype: %s\n", what.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) usage_error("option " + a + " needs a value");
    const std::string v = argv[++i];
    if (a == "--mode")
      o.mode = v;
    else if (a == "--particles")
      o.particles = static_cast<std::uint64_t>(std::stod(v));
    else if (a == "--steps")
      o.steps = std::stoi(v);
    else if (a == "--repeats")
      o.repeats = std::stoi(v);
    else if (a == "--seed")
      o.seed = std::stoull(v);
    else if (a == "--draws")
      o.draws = v == "on_the_fly" ? Draws::on_the_fly : Draws::pregenerated;
    else if (a == "--clock")
      g_cpu_clock = v == "cpu";
    else
      usage_error("unknown option " + a);
  }
  if (o.particles < kBatch || o.steps < 1 || o.repeats < 1)
    usage_error("need --particles >= 512, --steps >= 1, --repeats >= 1");
  return o;
}

std::string load_average() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

// The shortest of `repeats` runs of `work` (fenced): on a shared machine the run least disturbed by
// other processes is the best estimate of the code's own cost.
double best_seconds(int repeats, const std::function<void()>& work) {
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const double start = seconds_now();
    work();
    Kokkos::fence();
    t.push_back(seconds_now() - start);
  }
  return *std::min_element(t.begin(), t.end());
}

std::string head(const char* mode, const Options& o) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "{\"bench\":\"step_prototype\",\"mode\":\"%s\",\"arch\":\"%s\",\"threads\":%d,\"particles\":%llu,"
                "\"draws\":\"%s\",\"clock\":\"%s\",\"loadavg\":\"%s\"",
                mode, RSMC_PROTOTYPE_ARCH, Kokkos::DefaultHostExecutionSpace().concurrency(),
                static_cast<unsigned long long>(o.particles),
                o.draws == Draws::pregenerated ? "pregenerated" : "on_the_fly", g_cpu_clock ? "cpu" : "wall",
                load_average().c_str());
  return buf;
}

// y_1..y_T from the model itself (the data stream: purpose observe), bit-identical on every build.
std::vector<double> simulate(const SvModel& m, int steps, std::uint64_t seed) {
  std::vector<double> y(static_cast<std::size_t>(steps) + 1, 0.0);
  rng::CounterStream s0(seed, rng::Purpose::observe, 0, 0);
  double x = m.offset + (m.mu + m.stationary_sd() * s0.normal());
  for (int t = 1; t <= steps; ++t) {
    rng::CounterStream s(seed, rng::Purpose::observe, static_cast<std::uint32_t>(t), 0);
    x = m.transition(x, s);
    y[static_cast<std::size_t>(t)] = math::exp(0.5 * (x - m.offset)) * s.normal();
  }
  return y;
}

// FNV-1a over raw bytes: equal hashes, identical bits (for the comparisons across builds and threads).
struct Hash {
  std::uint64_t h = 1469598103934665603ull;
  void add(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  }
  void add(double x) { add(&x, sizeof x); }
};

template <Draws D>
void run_filter(const Options& o) {
  const SvModel model;
  const auto y = simulate(model, o.steps, o.seed + 1000);
  Prototype filter(model, o.particles, o.seed);
  Hash hash;
  double log_likelihood = 0.0;
  int fallbacks = 0;
  const double start = seconds_now();
  filter.initialise();
  for (int t = 1; t <= o.steps; ++t) {
    const auto r = filter.step<D>(static_cast<std::uint32_t>(t), y[static_cast<std::size_t>(t)]);
    for (double v : {r.increment, r.ess, r.mean, r.variance}) hash.add(v);
    log_likelihood += r.increment;
    fallbacks += r.fallback ? 1 : 0;
  }
  Kokkos::fence();
  const double seconds = seconds_now() - start;
  auto states = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), filter.states());
  hash.add(states.data(), o.particles * sizeof(double));
  std::printf(
      "%s,\"steps\":%d,\"seconds\":%.6g,\"ns_per_particle_step\":%.4g,\"log_likelihood\":%.17g,"
      "\"fallbacks\":%d,\"hash\":\"%016llx\"}\n",
      head("run", o).c_str(), o.steps, seconds, seconds / (double(o.particles) * o.steps) * 1e9, log_likelihood,
      fallbacks, static_cast<unsigned long long>(hash.h));
  std::fflush(stdout);
}

// ns per particle of each piece: cumulative stages of pass A, differences give the pieces.
template <Draws D>
void run_pieces(const Options& o) {
  const SvModel model;
  const auto y = simulate(model, 3, o.seed + 1000);
  Prototype f(model, o.particles, o.seed);
  f.initialise();
  f.step<D>(1, y[1]);  // a realistic cloud
  const double yt = y[2];
  const double shift = model.log_likelihood_bound(yt) + 1e-12;
  const double ref = model.mu;
  const double per = 1e9 / static_cast<double>(o.particles);
  auto time = [&](const std::function<void()>& work) { return best_seconds(o.repeats, work) * per; };
  auto batches = (o.particles + kBatch - 1) / kBatch;
  const double draws = time([&] {
    std::uint64_t sink = 0;
    Kokkos::parallel_reduce(
        "prototype::draws", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, batches),
        [&](const std::size_t b, std::uint64_t& acc) {
          alignas(64) double u1[kBatch], u2[kBatch];
          rng::rng_detail::normal_uniforms(rng::stream_key(o.seed, rng::Purpose::propagate), 2, b * kBatch, kBatch, 0,
                                           u1, u2);
          acc += static_cast<std::uint64_t>(u1[b % kBatch] < u2[b % kBatch]);
        },
        sink);
  });
  const double a1 = time([&] { f.pass_a<D, kPropagate>(2, yt, shift, ref); });
  const double a2 = time([&] { f.pass_a<D, kWeigh>(2, yt, shift, ref); });
  const double a3 = time([&] { f.pass_a<D, kSum>(2, yt, shift, ref); });
  StepSums sums;
  const double a4 = time([&] { sums = f.pass_a<D, kFixed>(2, yt, shift, ref); });
  double host = 0.0;
  const double reduce = time([&] {
    f.scan_batches();
    const auto m = exact::one_pass_moments(ref, sums.w.to_double_double(), sums.wdx.to_double_double(),
                                           sums.wdx2.to_double_double());
    host += m.variance + sums.w2.to_double();
  });
  const std::uint64_t u = rng::CounterStream(o.seed, rng::Purpose::resample, 2, 0).next_u64() >> 11;
  const SystematicWheel wheel(o.particles, sums.fixed_total(), u);
  const double b1 = time([&] { f.pass_b<false>(wheel); });
  const double b2 = time([&] { f.pass_b<true>(wheel); });
  int t = 3;
  const double full = time([&] { f.step<D>(static_cast<std::uint32_t>(t++), yt); });
  std::printf(
      "%s,\"repeats\":%d,\"ns_philox_uniforms\":%.4g,\"ns_propagate\":%.4g,\"ns_weights\":%.4g,"
      "\"ns_sums\":%.4g,\"ns_fixed_weights\":%.4g,\"ns_pass_a\":%.4g,\"ns_host_reduce\":%.4g,"
      "\"ns_select\":%.4g,\"ns_offspring_stores\":%.4g,\"ns_pass_b\":%.4g,\"ns_full_step\":%.4g,\"sink\":%g}\n",
      head("pieces", o).c_str(), o.repeats, draws, a1, a2 - a1, a3 - a2, a4 - a3, a4, reduce, b1, b2 - b1, b2, full,
      host);
  std::fflush(stdout);
}

// Sums of one quantity: ns per element, over L1-sized batches of a 10^6-element array.
void run_sums(const Options& o) {
  const std::size_t n = o.particles;
  std::vector<double> w(n), x(n);
  std::mt19937_64 g(o.seed);
  std::normal_distribution<double> normal;
  for (std::size_t i = 0; i < n; ++i) {
    const double z = normal(g);
    w[i] = std::exp(-0.5 * z * z * 4.0);  // SV-like weights: spread over a few binades, max near 1
    x[i] = -0.87 + 0.2 * normal(g);
  }
  std::vector<std::uint64_t> fixed(n);
  for (std::size_t i = 0; i < n; ++i) fixed[i] = exact::fixed_weight_of(w[i]);
  const double per = 1e9 / static_cast<double>(n);
  double sink = 0.0;
  auto time = [&](const std::function<double()>& work) {
    return best_seconds(o.repeats, [&] { sink += work(); }) * per;
  };
  const double plain = time([&] {
    double s = 0.0;
    for (std::size_t i = 0; i < n; ++i) s += w[i];
    return s;
  });
  const double binned = time([&] {
    exact::BinnedSum s;
    s.clear();
    for (std::size_t b = 0; b < n; b += kBatch) s.add(w.data() + b, std::min<std::size_t>(kBatch, n - b));
    return s.to_double();
  });
  const double binned_products = time([&] {  // w x formed in an L1 buffer first, as pass A does
    exact::BinnedSum s;
    s.clear();
    alignas(64) double buf[kBatch];
    for (std::size_t b = 0; b < n; b += kBatch) {
      const std::size_t m = std::min<std::size_t>(kBatch, n - b);
      for (std::size_t i = 0; i < m; ++i) buf[i] = w[b + i] * x[b + i];
      s.add(buf, m);
    }
    return s.to_double();
  });
  static exact::ExactSumBins bins{};
  const double exact_bins = time([&] {
    exact::ExactSum e;
    e.clear();
    for (std::size_t b = 0; b < n; b += exact::ExactSumBins::kMaxTermsPerFlush) {
      const std::size_t end = std::min<std::size_t>(n, b + exact::ExactSumBins::kMaxTermsPerFlush);
      for (std::size_t i = b; i < end; ++i) bins.add(w[i], e);
      bins.flush(e);
    }
    return e.to_double();
  });
  const double fixed_convert = time([&] {  // floor(w 2^64) and the exact total, as pass A does
    std::uint64_t lo = 0, hi = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t f = exact::fixed_weight_of(w[i]);
      lo += f & 0xffffffffu;
      hi += f >> 32;
    }
    return static_cast<double>(lo) + static_cast<double>(hi);
  });
  const double fixed_adds = time([&] {
    std::uint64_t lo = 0, hi = 0;
    for (std::size_t i = 0; i < n; ++i) {
      lo += fixed[i] & 0xffffffffu;
      hi += fixed[i] >> 32;
    }
    return static_cast<double>(lo) + static_cast<double>(hi);
  });
  std::printf(
      "%s,\"repeats\":%d,\"ns_plain_double\":%.4g,\"ns_binned\":%.4g,\"ns_binned_with_product\":%.4g,"
      "\"ns_exact_sum_bins\":%.4g,\"ns_fixed_point_with_conversion\":%.4g,\"ns_fixed_point_adds\":%.4g,"
      "\"sink\":%g}\n",
      head("sums", o).c_str(), o.repeats, plain, binned, binned_products, exact_bins, fixed_convert, fixed_adds, sink);
  std::fflush(stdout);
}

// The one-pass variance against the exact two-pass one, over the steps of a run.
void run_accuracy(const Options& o, double offset) {
  SvModel model;
  model.offset = offset;
  const auto y = simulate(model, o.steps, o.seed + 1000);
  Prototype f(model, o.particles, o.seed);
  f.initialise();
  double worst_shifted = 0.0, worst_plain = 0.0, worst_mean = 0.0;
  for (int t = 1; t <= o.steps; ++t) {
    const double ref = f.reference_;
    const double yt = y[static_cast<std::size_t>(t)];
    const auto r = f.step<Draws::pregenerated>(static_cast<std::uint32_t>(t), yt);
    // Pass A again (same bits: its draws are pure functions), then the exact two-pass moments and
    // the one-pass ones about 0 from the same new states and weights.
    auto next = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.next_);
    exact::ExactSum s0{}, s1{}, sq{};
    exact::BinnedSum b0{}, b1{}, b2{};
    b0.clear();
    b1.clear();
    b2.clear();
    std::vector<double> w(o.particles);
    for (std::size_t i = 0; i < o.particles; ++i) {
      const double l = model.log_likelihood(next(i), yt);
      w[i] = l > -HUGE_VAL ? math::exp(l - r.shift) : 0.0;
      s0.add(w[i]);
      s1.add(w[i] * next(i));
      b0.add(w[i]);
      b1.add(w[i] * next(i));
      b2.add(w[i] * next(i) * next(i));
    }
    const double mean = s1.to_double() / s0.to_double();
    for (std::size_t i = 0; i < o.particles; ++i) sq.add(w[i] * (next(i) - mean) * (next(i) - mean));
    const double two_pass = sq.to_double() / s0.to_double();
    const auto plain =
        exact::one_pass_moments(0.0, b0.to_double_double(), b1.to_double_double(), b2.to_double_double());
    worst_shifted = std::max(worst_shifted, std::fabs(r.variance - two_pass) / two_pass);
    worst_plain = std::max(worst_plain, std::fabs(plain.variance - two_pass) / two_pass);
    worst_mean = std::max(worst_mean, std::fabs(r.mean - mean) / std::max(std::fabs(mean), 1e-300));
    (void)ref;
  }
  std::printf(
      "%s,\"offset\":%g,\"steps\":%d,\"max_rel_error_variance_about_previous_mean\":%.3g,"
      "\"max_rel_error_variance_about_zero\":%.3g,\"max_rel_error_mean\":%.3g}\n",
      head("accuracy", o).c_str(), offset, o.steps, worst_shifted, worst_plain, worst_mean);
  std::fflush(stdout);
}

template <Draws D>
void run_mode(const Options& o) {
  if (o.mode == "run" || o.mode == "all") run_filter<D>(o);
  if (o.mode == "pieces" || o.mode == "all") run_pieces<D>(o);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  if (o.draws == Draws::pregenerated)
    run_mode<Draws::pregenerated>(o);
  else
    run_mode<Draws::on_the_fly>(o);
  if (o.mode == "sums" || o.mode == "all") run_sums(o);
  if (o.mode == "accuracy" || o.mode == "all") {
    Options small = o;
    small.particles = std::min<std::uint64_t>(o.particles, 100000);
    small.steps = std::min(o.steps, 50);
    run_accuracy(small, 0.0);
    run_accuracy(small, 1e6);
  }
  return 0;
}
