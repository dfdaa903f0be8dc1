// `rsmc sim-scale` (bench/sim_scale.hpp): the simulated resampling step checked against independent
// computations at small p and N, plus the scaling the model must show.
//
// What is expected, and why:
// - Systematic (and stratified) offspring counts c_k are the numbers of the N evenly spaced points in
//   each rank's slice of the exact wheel, so they sum to N and each is within 1 (stratified: 2) of
//   N W_k / W. Multinomial counts also sum to N and lie within 6 standard deviations of N W_k / W.
// - For scalable and algorithm1, rank k holds the renumbered ids [q_k, q_k + c_k), q_k = c_0 + ... +
//   c_{k-1}; the particles moved are exactly sum_k |held_k \ block_k| (counted here id by id, with
//   the block distribution recomputed from its definition), and rank k sends exactly one message to
//   each other rank whose block overlaps its held range, and to no other rank.
// - Algorithm 1's work (uniforms touched) is N on every rank.
// - The scalable max work per rank is max_k c_k + ceil(log2 N) = N/p + O(cv sqrt(N/p)) + log2 N; at
//   N = 10^8 the fluctuation (~2,500 at p = 16) and log2 N = 27 are negligible against N/p, so the
//   ratio between p = 16 and p = 256 is 16 up to ~0.1%; the test accepts [8, 32] (roughly N/p).
#include <catch2/catch.hpp>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "bench/sim_scale.hpp"
#include "framework/particles/load_band.hpp"
#include "framework/resample/rebalance/layout_choice.hpp"
#include "framework/resample/scheme.hpp"
#include "framework/resample/select/selection.hpp"

namespace {

using rsmc::bench::SimScaleOptions;
using rsmc::bench::SimScalePoint;

// The block distribution from its definition (not rsmc::BlockDistribution): the first N mod p
// ranks own floor(N/p) + 1 ids, the others floor(N/p).
struct Blocks {
  std::uint64_t n, p;
  std::uint64_t first(std::uint64_t k) const { return k * (n / p) + std::min(k, n % p); }
  std::uint64_t end(std::uint64_t k) const { return first(k + 1); }
  std::uint64_t owner(std::uint64_t id) const {
    std::uint64_t k = 0;
    while (end(k) <= id) ++k;
    return k;
  }
};

const rsmc::bench::SimScaleMetrics& impl(const SimScalePoint& pt, const std::string& name) {
  for (const auto& m : pt.impls)
    if (m.impl == name) return m;
  FAIL("no implementation " << name);
  return pt.impls.front();
}

SimScaleOptions options_with(const std::string& scheme, std::uint64_t seed, double cv = 1.0) {
  SimScaleOptions o;
  o.scheme = scheme;
  o.seed = seed;
  o.weight_cv = cv;
  return o;
}

}  // namespace

TEST_CASE("sim-scale: evenly spaced offspring counts sum to N and follow the rank totals", "[bench][sim-scale]") {
  for (std::uint64_t seed : {1u, 2u, 3u})
    for (std::uint64_t p : {1u, 2u, 3u, 7u, 16u, 64u})
      for (std::uint64_t n : {std::uint64_t(64), std::uint64_t(1000), std::uint64_t(99991), std::uint64_t(1) << 40}) {
        for (const std::string scheme : {"systematic", "stratified", "multinomial"}) {
          const SimScalePoint pt = rsmc::bench::simulate_point(options_with(scheme, seed, 2.0), p, n);
          REQUIRE(pt.offspring.size() == p);
          std::uint64_t sum = 0;
          for (auto c : pt.offspring) sum += c;
          REQUIRE(sum == n);
          if (scheme == "multinomial") continue;
          double total = 0;
          for (double w : pt.weight_total) total += w;
          for (std::size_t k = 0; k < p; ++k) {
            const double expected = static_cast<double>(n) * pt.weight_total[k] / total;
            // Systematic: floor or ceil of the slice length L in point spacings. Stratified: the
            // strata inside the slice plus one Bernoulli point for each of the two cut strata, so
            // within 2 of L. (1e-6: the fixed-point rounding of W_k.)
            const double slack = scheme == "systematic" ? 1.0 : 2.0;
            REQUIRE(std::fabs(static_cast<double>(pt.offspring[k]) - expected) <= slack + 1e-6 * expected + 1e-6);
          }
        }
      }
}

TEST_CASE("sim-scale: evenly spaced counts are the real selection's on the same integer totals", "[bench][sim-scale]") {
  // Each rank as one particle of weight w_k on the real wheel: select_offspring (systematic and
  // stratified communicate nothing) must give the simulated c_k and first id q_k.
  for (const std::string scheme : {"systematic", "stratified"})
    for (std::uint64_t p : {1u, 3u, 16u, 100u})
      for (std::uint64_t n :
           {std::uint64_t(1000), std::uint64_t(12345), std::uint64_t(3000000)}) {  // select_offspring is O(N/p)
        const std::uint64_t seed = 11;
        const SimScalePoint pt = rsmc::bench::simulate_point(options_with(scheme, seed), p, n);
        const std::vector<std::uint64_t> fixed = rsmc::bench::fixed_weight_totals(pt.weight_total);
        rsmc::exact::u128 total = 0, below = 0;
        for (auto w : fixed) total += w;
        std::uint64_t q = 0;
        for (std::size_t k = 0; k < p; ++k) {
          const std::vector<std::uint64_t> one{fixed[k]};
          rsmc::SelectionInputs in;
          in.fixed_weights = &one;
          in.wheel = rsmc::WheelShare{below, fixed[k], total};
          in.samples = n;
          in.seed = seed;
          in.step = 0;
          const rsmc::Selection sel = rsmc::select_offspring(rsmc::parse_scheme(scheme), in, MPI_COMM_SELF);
          REQUIRE(sel.first_id == q);
          REQUIRE(sel.offspring == pt.offspring[k]);
          below += fixed[k];
          q += pt.offspring[k];
        }
      }
}

TEST_CASE("sim-scale: multinomial counts are a plausible multinomial draw", "[bench][sim-scale]") {
  const std::uint64_t n = 1000000, p = 8;
  const SimScalePoint pt = rsmc::bench::simulate_point(options_with("multinomial", 5), p, n);
  double total = 0;
  for (double w : pt.weight_total) total += w;
  for (std::size_t k = 0; k < p; ++k) {
    const double pi = pt.weight_total[k] / total;
    const double sd = std::sqrt(static_cast<double>(n) * pi * (1 - pi));
    REQUIRE(std::fabs(static_cast<double>(pt.offspring[k]) - static_cast<double>(n) * pi) < 6 * sd);
  }
}

TEST_CASE("sim-scale: particles moved and messages match an id-by-id recount", "[bench][sim-scale]") {
  for (const std::string scheme : {"systematic", "stratified", "multinomial"})
    for (std::uint64_t seed : {1u, 7u})
      for (std::uint64_t p : {1u, 2u, 5u, 16u, 33u})
        for (std::uint64_t n : {std::uint64_t(40), std::uint64_t(997), std::uint64_t(5000)})
          for (double cv : {0.5, 3.0}) {  // cv = 3 at small n/p: held ranges spanning several blocks
            if (n < p) continue;
            const SimScalePoint pt = rsmc::bench::simulate_point(options_with(scheme, seed, cv), p, n, true);
            const Blocks blocks{n, p};
            std::uint64_t moved = 0, messages = 0, lower_bound = 0, q = 0;
            for (std::uint64_t k = 0; k < p; ++k) {
              const std::uint64_t c = pt.offspring[k];
              std::vector<bool> to(p, false);
              for (std::uint64_t id = q; id < q + c; ++id) {
                const std::uint64_t owner = blocks.owner(id);
                if (owner != k) {
                  ++moved;  // held \ block
                  to[owner] = true;
                }
              }
              std::vector<int> expected;
              for (std::uint64_t r = 0; r < p; ++r)
                if (to[r]) expected.push_back(static_cast<int>(r));
              std::vector<int> got = pt.destinations[k];
              std::sort(got.begin(), got.end());
              REQUIRE(got == expected);  // messages exactly to the ranks whose blocks overlap [q, q + c)
              for (int r : got) {
                REQUIRE(static_cast<std::uint64_t>(r) != k);
                REQUIRE(blocks.first(r) < q + c);
                REQUIRE(blocks.end(r) > q);
              }
              messages += expected.size();
              const std::uint64_t share = blocks.end(k) - blocks.first(k);
              lower_bound += c > share ? c - share : 0;
              q += c;
            }
            for (const std::string name : {"scalable", "algorithm1"}) {
              const auto& m = impl(pt, name);
              REQUIRE(m.particles_moved == static_cast<double>(moved));
              REQUIRE(m.messages == static_cast<double>(messages));
              REQUIRE(m.bytes_moved == static_cast<double>(moved * 8 + messages * 8));
            }
            REQUIRE(pt.lower_bound == lower_bound);
            REQUIRE(static_cast<double>(pt.lower_bound) <= impl(pt, "scalable").particles_moved);
          }
}

TEST_CASE("sim-scale: each tolerance rebalances to the layout choice, moving less as the band widens",
          "[bench][sim-scale]") {
  // Expected: one scalable and one algorithm1 line per tau, in order; tau = 0 is the block layout
  // (the default run's numbers); for tau > 0 the moves are those to choose_layout's layout (its
  // minimality is tested against exhaustive search in test_layout_choice), never more than for a
  // narrower band (the bands nest), and the load is that layout's largest count over N / p.
  const std::vector<double> taus{0.0, 0.02, 0.1, 0.3};
  for (const std::string scheme : {"systematic", "multinomial"})
    for (std::uint64_t p : {2u, 5u, 16u, 33u})
      for (std::uint64_t n : {std::uint64_t(997), std::uint64_t(5000)})
        for (double cv : {0.5, 3.0}) {
          SimScaleOptions options = options_with(scheme, 7, cv);
          const SimScalePoint blocks = rsmc::bench::simulate_point(options, p, n);
          options.tolerances = taus;
          const SimScalePoint pt = rsmc::bench::simulate_point(options, p, n);
          REQUIRE(pt.offspring == blocks.offspring);
          std::vector<const rsmc::bench::SimScaleMetrics*> lines;
          for (const auto& m : pt.impls)
            if (m.impl == "scalable") lines.push_back(&m);
          REQUIRE(lines.size() == taus.size());
          REQUIRE(pt.impls.size() == 2 * taus.size() + 2);
          REQUIRE(lines[0]->particles_moved == impl(blocks, "scalable").particles_moved);
          REQUIRE(lines[0]->messages == impl(blocks, "scalable").messages);
          for (std::size_t i = 0; i < taus.size(); ++i) {
            const rsmc::LoadBand band(n, static_cast<int>(p), {taus[i], {}});
            const rsmc::Layout to = rsmc::choose_layout(band, pt.offspring);
            std::uint64_t most = 0;
            for (int k = 0; k < static_cast<int>(p); ++k) most = std::max(most, to.count(k));
            REQUIRE(lines[i]->balance_tolerance == taus[i]);
            REQUIRE(lines[i]->particles_moved == static_cast<double>(rsmc::particles_moved(pt.offspring, to)));
            REQUIRE(lines[i]->load_max_over_mean ==
                    static_cast<double>(most) * static_cast<double>(p) / static_cast<double>(n));
            REQUIRE(lines[i]->load_max_over_mean <= (1.0 + taus[i]) *
                                                        std::ceil(static_cast<double>(n) / static_cast<double>(p)) *
                                                        static_cast<double>(p) / static_cast<double>(n));
            if (i > 0) REQUIRE(lines[i]->particles_moved <= lines[i - 1]->particles_moved);
          }
        }
}

TEST_CASE("sim-scale: work per rank, Algorithm 1 against the scalable selection", "[bench][sim-scale]") {
  SECTION("Algorithm 1 touches all N uniforms on every rank") {
    for (std::uint64_t p : {1u, 4u, 100u}) {
      const SimScalePoint pt = rsmc::bench::simulate_point(SimScaleOptions{}, p, 123457);
      const auto& a1 = impl(pt, "algorithm1");
      REQUIRE(a1.work_max == 123457.0);
      REQUIRE(a1.work_mean == 123457.0);
      // Same communication as the scalable version.
      REQUIRE(a1.particles_moved == impl(pt, "scalable").particles_moved);
      REQUIRE(a1.messages == impl(pt, "scalable").messages);
    }
  }
  SECTION("scalable work is the rank's own samples plus ceil(log2 N)") {
    const SimScalePoint pt = rsmc::bench::simulate_point(SimScaleOptions{}, 10, 1000000);
    const std::uint64_t largest = *std::max_element(pt.offspring.begin(), pt.offspring.end());
    REQUIRE(impl(pt, "scalable").work_max == static_cast<double>(largest + 20));  // 2^20 >= 10^6 > 2^19
    REQUIRE(impl(pt, "scalable").work_mean == Approx(100000.0 + 20.0));
  }
  SECTION("scalable max work per rank falls roughly as N/p") {
    const std::uint64_t n = 100000000;
    const double w16 = impl(rsmc::bench::simulate_point(SimScaleOptions{}, 16, n), "scalable").work_max;
    const double w256 = impl(rsmc::bench::simulate_point(SimScaleOptions{}, 256, n), "scalable").work_max;
    const double ratio = w16 / w256;
    INFO("max work p=16: " << w16 << ", p=256: " << w256 << ", ratio " << ratio);
    REQUIRE(ratio >= 8.0);
    REQUIRE(ratio <= 32.0);
  }
}

TEST_CASE("sim-scale: the naive baselines' analytic model", "[bench][sim-scale]") {
  const std::uint64_t n = 1000000;
  for (std::uint64_t p : {1u, 4u, 64u, 1000u}) {
    const SimScalePoint pt = rsmc::bench::simulate_point(options_with("systematic", 3, 0.0), p, n);
    const auto& ag = impl(pt, "allgather");
    const auto& gr = impl(pt, "gather-root");
    const double pd = static_cast<double>(p), nd = static_cast<double>(n);
    // cv = 0: every pi_k = n_k / N, so the expected moves are sum_k n_k (1 - n_k / N) ~ N (1 - 1/p).
    REQUIRE(ag.particles_moved == Approx(nd * (1 - 1 / pd)).epsilon(1e-6));
    REQUIRE(gr.particles_moved == ag.particles_moved);
    REQUIRE(ag.work_max == nd);
    REQUIRE(gr.work_max == 2 * nd - std::ceil(nd / pd));
    REQUIRE(ag.collective_bytes_total == 8 * nd * (pd - 1));
    // N / p^2 >= 1 offspring per (source, destination) pair: nearly all p (p - 1) pairs talk.
    if (p > 1 && p <= 64) {
      REQUIRE(ag.messages == Approx(pd * (pd - 1)).epsilon(1e-3));
      REQUIRE(ag.partners_max == Approx(pd - 1).epsilon(1e-3));
      REQUIRE(gr.messages == 2 * ag.messages);
    }
    if (p == 1) {
      REQUIRE(ag.messages == 0);
      REQUIRE(ag.collective_bytes_max == 0);
    }
  }
  // p = 1000, N = 10^6: a pair talks with probability 1 - (1 - 1/p)^(N/p) = 1 - e^{-1.0005...}.
  const SimScalePoint pt = rsmc::bench::simulate_point(options_with("systematic", 3, 0.0), 1000, n);
  const double pair = 1 - std::pow(1 - 1e-3, 1000.0);
  REQUIRE(impl(pt, "allgather").messages == Approx(1000.0 * 999.0 * pair).epsilon(1e-6));
  REQUIRE(impl(pt, "allgather").partners_max == Approx(999.0 * (1 - (1 - pair) * (1 - pair))).epsilon(1e-6));
}

// The time bound is for a normal build; AddressSanitizer/UBSan instrumentation (RSMC_SANITIZED, set
// in the sanitizer build by tests/CMakeLists.txt) makes every operation several times slower.
#ifdef RSMC_SANITIZED
constexpr double kSanitizerSlowdown = 10.0;
#else
constexpr double kSanitizerSlowdown = 1.0;
#endif

TEST_CASE("sim-scale: 65,536 ranks x 10^10 particles is one cheap, reproducible point", "[bench][sim-scale]") {
  const SimScalePoint a = rsmc::bench::simulate_point(SimScaleOptions{}, 65536, 10000000000ULL);
  const SimScalePoint b = rsmc::bench::simulate_point(SimScaleOptions{}, 65536, 10000000000ULL);
  REQUIRE(a.offspring == b.offspring);
  REQUIRE(a.seconds < 1.0 * kSanitizerSlowdown);
  REQUIRE(impl(a, "scalable").partners_max <= 4);
  REQUIRE(impl(a, "scalable").work_max < 2.0 * 10000000000.0 / 65536);
}

TEST_CASE("sim-scale: command line and JSON lines", "[bench][sim-scale]") {
  CLI::App app{"test"};
  rsmc::bench::SimScaleCommand command;
  command.add_to(app);
  app.parse("--ranks 1,2^3 --particles 1e3 10^4 --weight-cv 0.5 --state-bytes 24 --seed 9 --scheme stratified", false);
  REQUIRE(command.options.ranks == std::vector<std::uint64_t>{1, 8});
  REQUIRE(command.options.particles == std::vector<std::uint64_t>{1000, 10000});
  REQUIRE(command.options.weight_cv == 0.5);
  REQUIRE(command.options.state_bytes == 24);
  REQUIRE(command.options.seed == 9);
  std::ostringstream out;
  REQUIRE(command.run(out) == 0);
  const std::string text = out.str();
  REQUIRE(std::count(text.begin(), text.end(), '\n') == 2 * 2 * 4);
  REQUIRE(text.find("\"balance_tolerance\":0,\"load_max_over_mean\":") != std::string::npos);

  CLI::App curves{"test"};
  rsmc::bench::SimScaleCommand swept;
  swept.add_to(curves);
  curves.parse("--ranks 4 --particles 1000 --balance-tolerance 0,0.05,0.2", false);
  REQUIRE(swept.options.tolerances == std::vector<double>{0.0, 0.05, 0.2});
  std::ostringstream swept_out;
  REQUIRE(swept.run(swept_out) == 0);
  const std::string swept_text = swept_out.str();
  REQUIRE(std::count(swept_text.begin(), swept_text.end(), '\n') == 2 * 3 + 2);
  REQUIRE(swept_text.find("\"balance_tolerance\":0.2,") != std::string::npos);
  REQUIRE(text.find("{\"bench\":\"sim-scale\",\"impl\":\"scalable\",\"scheme\":\"stratified\",\"ranks\":1,"
                    "\"particles\":1000,") == 0);

  CLI::App bad{"test"};
  rsmc::bench::SimScaleCommand other;
  other.add_to(bad);
  REQUIRE_THROWS_AS(bad.parse("--particles 1e", false), CLI::ValidationError);
  other.options.particles = {10};
  other.options.ranks = {16};
  REQUIRE_THROWS_WITH(other.run(out), Catch::Contains("cannot be spread over 16 ranks"));
  other.options.ranks = {4};
  other.options.scheme = "residual";
  REQUIRE_THROWS_WITH(other.run(out), Catch::Contains("--scheme"));
  other.options.scheme = "systematic";
  other.options.tolerances = {0.1, -0.5};
  REQUIRE_THROWS_WITH(other.run(out), Catch::Contains("balance_tolerance: -0.5 is out of range"));
}

TEST_CASE("sim-scale: several resamplings in a row, and the step-time model", "[bench][sim-scale]") {
  // Expected: --steps 1 is the single-step point; with more steps each band's layout moves from the
  // last one (never beyond the band: load <= (1 + tau) ceil(N/p) / (N/p)), the traffic maxima are at
  // least the first step's, and the modelled time is compute + communication, with compute the
  // slowest rank's particles times the per-particle cost (one step: exactly).
  SimScaleOptions one = options_with("systematic", 3, 1.0);
  one.tolerances = {0.0, 0.05};
  const std::uint64_t p = 64, n = 200000;
  const SimScalePoint single = rsmc::bench::simulate_point(one, p, n);
  SimScaleOptions many = one;
  many.steps = 6;
  const SimScalePoint several = rsmc::bench::simulate_point(many, p, n);
  REQUIRE(several.offspring == single.offspring);
  std::size_t lines = 0;
  for (std::size_t i = 0; i < single.impls.size(); ++i) {
    const auto &a = single.impls[i], &b = several.impls[i];
    REQUIRE(a.impl == b.impl);
    if (a.impl != "scalable") continue;
    ++lines;
    const double tau = a.balance_tolerance, mean = static_cast<double>(n) / static_cast<double>(p);
    const auto close = [](double x, double y) { return std::fabs(x - y) <= 1e-12 * std::fabs(y); };
    REQUIRE(close(a.model_compute_seconds, a.load_max_over_mean * mean * one.model.particle_seconds));
    REQUIRE(a.model_step_seconds == a.model_compute_seconds + a.model_comm_seconds);
    REQUIRE(a.model_comm_seconds > 0.0);
    REQUIRE(b.load_max_over_mean <= (1.0 + tau) * std::ceil(mean) / mean);
    REQUIRE(b.partners_max >= a.partners_max);
    REQUIRE(b.exchange_bytes_max >= a.exchange_bytes_max);
    REQUIRE(close(b.model_step_seconds, b.model_compute_seconds + b.model_comm_seconds));
    if (tau == 0.0) REQUIRE(close(b.load_max_over_mean, std::ceil(mean) / mean));  // the blocks at every step
  }
  REQUIRE(lines == 2);
  // The baselines are not modelled.
  REQUIRE(impl(single, "allgather").model_step_seconds < 0.0);
  SimScaleOptions bad = one;
  bad.steps = 0;
  REQUIRE_THROWS_WITH(bad.validate(), Catch::Contains("--steps"));
  bad.steps = 2;
  bad.model.latency_seconds = 0.0;
  REQUIRE_THROWS_WITH(bad.validate(), Catch::Contains("--model-latency-us"));
}
