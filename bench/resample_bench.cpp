#include "bench/resample_bench.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "bench/band_minimum.hpp"
#include "bench/bench_common.hpp"
#include "bench/system_info.hpp"
#include "bench/timed.hpp"
#include "base/core/error.hpp"
#include "framework/particles/block_distribution.hpp"
#include "framework/particles/layout.hpp"
#include "framework/particles/load_band.hpp"
#include "framework/particles/particle_store.hpp"
#include "framework/resample/baselines/allgather_resampler.hpp"
#include "framework/resample/baselines/gather_root_resampler.hpp"
#include "framework/resample/resample_stats.hpp"
#include "framework/resample/roulette_resampler.hpp"
#include "framework/resample/select/local_sampler.hpp"
#include "framework/resample/scheme.hpp"
#include "base/rng/stream.hpp"

namespace rsmc::bench {

namespace {

using Space = Kokkos::HostSpace;
using StateArray = ParticleStore<Space>::StateArray;
using WeightArray = ParticleStore<Space>::WeightArray;

enum class Weights { random, equal, skewed };

// The step number every timed resampling uses: each repeat does exactly the same work.
constexpr std::uint32_t kStep = 1;

struct Plan {
  std::vector<std::uint64_t> particles;
  std::vector<std::uint64_t> state_bytes;
  std::vector<Scheme> schemes;
  std::vector<Resampler> implementations;
  std::vector<double> tolerances;
  Weights weights = Weights::random;
  LocalSampler local_sampler = LocalSampler::search;
  int repeats = 5;
  std::uint64_t seed = 1;
};

Plan make_plan(const ResampleBench& b, int ranks) {
  Plan plan;
  for (const auto& text : list_entries("--particles", b.particles)) {
    std::uint64_t n = 0;
    if (!parse_count(text, n) || n == 0)
      throw Error("--particles: '" + text +
                  "' is not a valid particle count; expected an integer >= 1 (e.g. 100000 or 1e6)");
    if (n < static_cast<std::uint64_t>(ranks))
      throw Error("--particles: " + text + " particles cannot be spread over " + std::to_string(ranks) +
                  " ranks; expected at least one particle per rank");
    plan.particles.push_back(n);
  }
  for (const auto& text : list_entries("--state-bytes", b.state_bytes)) {
    std::uint64_t bytes = 0;
    if (!parse_count(text, bytes) || bytes == 0 || bytes % 8 != 0 || bytes / 8 > static_cast<std::uint64_t>(INT_MAX))
      throw Error("--state-bytes: '" + text +
                  "' is not a valid state size; expected a positive multiple of 8 "
                  "(bytes per particle; the state holds bytes/8 doubles)");
    plan.state_bytes.push_back(bytes);
  }
  plan.schemes = named_entries<Scheme>("--scheme", "scheme", b.schemes,
                                       {Scheme::multinomial, Scheme::stratified, Scheme::systematic, Scheme::residual},
                                       scheme_name, false);
  plan.implementations = named_entries<Resampler>(
      "--implementations", "implementation", b.implementations,
      {Resampler::roulette, Resampler::roulette_algorithm1, Resampler::allgather, Resampler::gather_root},
      resampler_name, true);
  if (b.weights == "random") {
    plan.weights = Weights::random;
  } else if (b.weights == "equal") {
    plan.weights = Weights::equal;
  } else if (b.weights == "skewed") {
    plan.weights = Weights::skewed;
  } else {
    throw Error("--weights: unknown weight pattern '" + b.weights + "'; expected random, equal or skewed");
  }
  for (const auto& text : list_entries("--balance-tolerance", b.tolerances)) {
    char* end = nullptr;
    const double tau = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0')
      throw Error("--balance-tolerance: '" + text + "' is not a number; expected a tolerance tau >= 0, e.g. 0.05");
    BalanceOptions{tau, {}}.validate(ranks);  // throws naming --balance-tolerance
    plan.tolerances.push_back(tau);
  }
  plan.local_sampler = parse_local_sampler(b.local_sampler);
  plan.repeats = checked_repeats(b.repeats);
  plan.seed = checked_seed(b.seed);
  return plan;
}

bool is_roulette(Resampler r) { return r == Resampler::roulette || r == Resampler::roulette_algorithm1; }

// Why an implementation cannot run a scheme with tolerance tau, or nullptr if it can.
const char* skip_reason(Resampler r, Scheme s, double tau) {
  if (!is_roulette(r) && tau != 0.0) return "naive baseline: keeps the block distribution (tau = 0 only)";
  if (r == Resampler::roulette_algorithm1 && s != Scheme::multinomial)
    return "roulette-algorithm1 is the paper's Algorithm 1: multinomial selection only";
  if ((r == Resampler::allgather || r == Resampler::gather_root) && s != Scheme::systematic)
    return "naive baseline: draws systematic ancestors only";
  return nullptr;
}

// Whether a resampler fills these ResampleStats fields; fields it leaves at 0 print as null, not as
// a measured 0. allgather_resampler.cpp counts particles, bytes and messages only; gather-root does
// not compute minimum_moves. Update here when they do.
bool reports_max_partners(Resampler r) { return r != Resampler::allgather; }
bool reports_minimum_moves(Resampler r) { return is_roulette(r); }

// Log-weight of global id `gid` out of `n` (deterministic, the same for any number of ranks).
//   random  2 log(u), u uniform on (0, 1) from the stream (seed, initialise, step 0, gid)
//   equal   0
//   skewed  4 gid / n: the weights grow e^4-fold along the global ids, so the offspring pile up on
//           the high ranks and rebalancing has to shift particles down the chain of ranks
double log_weight_of(Weights w, std::uint64_t seed, std::uint64_t gid, std::uint64_t n) {
  switch (w) {
    case Weights::random:
      return 2.0 * std::log(rng::Stream(seed, rng::Purpose::initialise, 0, gid).uniform());
    case Weights::equal:
      return 0.0;
    case Weights::skewed:
      return 4.0 * static_cast<double>(gid) / static_cast<double>(n);
  }
  return 0.0;
}

// What one resampling reports: its traffic, and for the roulette resamplers the offspring count of
// every rank (allgathered; empty for the baselines) and the layout it moved to.
struct Outcome {
  ResampleStats stats;
  std::vector<std::uint64_t> held;
  Layout layout{std::vector<std::uint64_t>{0, 0}};
};

Outcome resample_once(MPI_Comm comm, const LoadBand& band, const BlockDistribution& dist, ParticleStore<Space>& store,
                      double max_log_weight, Scheme scheme, Resampler resampler, std::uint64_t seed,
                      LocalSampler sampler, ResampleWorkspace<Space>& workspace) {
  // As the bootstrap filter calls them (framework/engine/bootstrap_filter.hpp), which keeps the
  // roulette resampler's workspace between steps (its exps are not given: computed here).
  switch (resampler) {
    case Resampler::roulette:
    case Resampler::roulette_algorithm1: {
      RouletteRequest<Space> request;
      request.weights.shift = max_log_weight;
      request.scheme = scheme;
      request.resampler = resampler;
      request.sampler = sampler;
      request.seed = seed;
      request.step = kStep;
      request.workspace = &workspace;
      Selection selection;
      request.selection_out = &selection;
      Outcome out;
      out.layout = Layout(dist);
      out.stats = resample_roulette(comm, band, out.layout, store, request);
      out.held.resize(static_cast<std::size_t>(band.ranks()));
      MPI_Allgather(&selection.offspring, 1, MPI_UINT64_T, out.held.data(), 1, MPI_UINT64_T, comm);
      return out;
    }
    case Resampler::allgather:
    case Resampler::gather_root: {
      const double u = rng::Stream(seed, rng::Purpose::resample, kStep, 0).uniform();
      Outcome out;
      out.layout = Layout(dist);
      out.stats = resampler == Resampler::allgather ? resample_allgather(comm, dist, store, max_log_weight, u)
                                                    : resample_gather_root(comm, dist, store, max_log_weight, u);
      return out;
    }
  }
  throw Error("unknown resampler");
}

// The JSON fields of a resampling's traffic. For the roulette resamplers also: the band's exact
// minimum (bench/band_minimum.hpp, independent of choose_layout), the any-layout bound for the
// target counts, and the imbalance (max count / target) of the layout the particles moved to.
std::string traffic_fields(Resampler resampler, const LoadBand& band, const Outcome& outcome) {
  const ResampleStats& stats = outcome.stats;
  const bool roulette = is_roulette(resampler);
  auto count_or_null = [](bool known, std::uint64_t x) { return known ? std::to_string(x) : std::string("null"); };
  return ",\"particles_moved\":" + std::to_string(stats.particles_moved) +
         ",\"bytes_moved\":" + std::to_string(stats.bytes_moved) + ",\"messages\":" + std::to_string(stats.messages) +
         ",\"max_partners\":" + count_or_null(reports_max_partners(resampler), stats.max_partners) +
         ",\"minimum_moves\":" + count_or_null(reports_minimum_moves(resampler), stats.minimum_moves) +
         ",\"band_minimum\":" + count_or_null(roulette, roulette ? dense_band_minimum(band, outcome.held) : 0) +
         ",\"any_layout_bound\":" + count_or_null(roulette, roulette ? any_layout_bound(band, outcome.held) : 0) +
         ",\"imbalance\":" + (roulette ? json_number(band.imbalance(outcome.layout)) : std::string("null"));
}

// After a resampling every particle's state must be a copy of some input particle's state
// (component c of id g is g d + c), and offspring come in ancestor order. Collective.
void check_offspring(MPI_Comm comm, const StateArray& state, std::uint64_t n, const std::string& what) {
  const auto d = static_cast<std::uint64_t>(state.extent(1));
  int ok = 1;
  if (n * d < (std::uint64_t(1) << 53)) {
    double previous = -1.0;
    for (std::size_t i = 0; i < state.extent(0) && ok; ++i) {
      const double first = state(i, 0);
      if (!(first >= previous) || !(first < static_cast<double>(n * d)) ||
          std::fmod(first, static_cast<double>(d)) != 0.0)
        ok = 0;
      for (std::uint64_t c = 1; c < d && ok; ++c)
        if (state(i, c) != first + static_cast<double>(c)) ok = 0;
      previous = first;
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
  if (!ok) throw Error("internal error: " + what + " produced particle states that are not copies of its inputs");
}

}  // namespace

void ResampleBench::add_to(CLI::App& app) {
  app.footer(
      "Each configuration: --repeats times, restore the inputs (untimed), time a std::memcpy of this rank's state "
      "bytes and one resampling (after a barrier; the slowest rank). Rank 0 prints one JSON line per (particles, "
      "state bytes, scheme, implementation) on stdout and nothing else; see docs/performance.md.");
  app.add_option("--particles,-n", particles,
                 "Total particle counts N (N >= ranks); a comma list or a repeated option, e.g. 1e5,1e6")
      ->type_name("N,...")
      ->capture_default_str();
  app.add_option("--state-bytes", state_bytes,
                 "Particle state sizes in bytes, multiples of 8 (B/8 doubles per particle); a comma list")
      ->type_name("B,...")
      ->capture_default_str();
  app.add_option("--scheme", schemes, "Resampling schemes: multinomial, stratified, systematic, residual; a comma list")
      ->type_name("NAME,...")
      ->capture_default_str();
  app.add_option("--implementations", implementations,
                 "all, or a comma list of roulette, roulette-algorithm1 (multinomial only), allgather and "
                 "gather-root (systematic only); other combinations are reported as skipped")
      ->type_name("NAME,...")
      ->capture_default_str();
  app.add_option("--balance-tolerance", tolerances,
                 "Load tolerances tau of the layout the roulette resamplers move to (a comma list; one line per "
                 "tau, with the band's exact minimum and the any-layout bound; the baselines run at tau = 0 only)")
      ->type_name("TAU,...")
      ->capture_default_str();
  app.add_option("--weights", weights,
                 "Log-weights: random (2 log u, u uniform from a counter-based stream keyed by the global id), "
                 "equal (all 0) or skewed (4 gid / N: offspring pile up on the high ranks)")
      ->capture_default_str();
  app.add_option("--local-sampler", local_sampler,
                 "The roulette resampler's local kernel: search, forest, butterfly or alias (rsmc filter "
                 "--help); the other implementations always search")
      ->capture_default_str();
  app.add_option("--repeats", repeats, "Timed resamplings per configuration; the median and the minimum are reported")
      ->capture_default_str();
  app.add_option("--seed", seed, "Seed of the weight and resampling streams, 0 <= seed < 2^56")->capture_default_str();
  app.add_flag("--verbose,-v", verbose, "Report progress on stderr");
}

int ResampleBench::run(MPI_Comm comm) const {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const Plan plan = make_plan(*this, ranks);  // the same arguments on every rank: all throw or none
  const bool root = rank == 0;
  const std::string date = today();
  const std::string host = host_name();
  volatile double sink = 0.0;  // keeps the baseline copy from being optimised away

  for (const std::uint64_t n : plan.particles) {
    for (const std::uint64_t bytes : plan.state_bytes) {
      const int d = static_cast<int>(bytes / 8);
      const BlockDistribution dist(n, ranks);
      const std::uint64_t local = dist.count(rank), first = dist.first(rank);
      if (root && verbose)
        std::fprintf(stderr, "rsmc bench resample: N = %llu, state %llu bytes, %d rank%s: filling\n",
                     static_cast<unsigned long long>(n), static_cast<unsigned long long>(bytes), ranks,
                     ranks == 1 ? "" : "s");

      // Pristine inputs, the store the resamplers work on, and the baseline copy's destination.
      StateArray pristine_state(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::bench::state"), local, d);
      WeightArray pristine_log_weight(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::bench::log_weight"),
                                      local);
      double max_log_weight = -HUGE_VAL;
      for (std::uint64_t i = 0; i < local; ++i) {
        const std::uint64_t gid = first + i;
        for (int c = 0; c < d; ++c)
          pristine_state(i, c) =
              static_cast<double>(gid * static_cast<std::uint64_t>(d) + static_cast<std::uint64_t>(c));
        pristine_log_weight(i) = log_weight_of(plan.weights, plan.seed, gid, n);
        max_log_weight = std::max(max_log_weight, pristine_log_weight(i));
      }
      MPI_Allreduce(MPI_IN_PLACE, &max_log_weight, 1, MPI_DOUBLE, MPI_MAX, comm);
      if (!pristine_state.span_is_contiguous())
        throw Error("internal error: the benchmark's state array is not contiguous");
      const std::size_t copy_bytes = pristine_state.span() * sizeof(double);

      ParticleStore<Space> store(local, d, first);
      Kokkos::deep_copy(store.scratch, 0.0);  // touch every page before anything is timed
      std::vector<double> copy_destination(pristine_state.span(), 0.0);

      for (const Scheme scheme : plan.schemes) {
        for (const Resampler resampler : plan.implementations) {
          for (const double tau : plan.tolerances) {
            const LoadBand band(n, ranks, BalanceOptions{tau, {}});
            std::string line = std::string("{\"bench\":\"resample\",\"implementation\":\"") +
                               resampler_name(resampler) + "\",\"scheme\":\"" + scheme_name(scheme) +
                               "\",\"particles\":" + std::to_string(n) + ",\"ranks\":" + std::to_string(ranks) +
                               ",\"state_bytes\":" + std::to_string(bytes) +
                               ",\"repeats\":" + std::to_string(plan.repeats) + ",\"weights\":\"" + weights +
                               "\",\"seed\":" + std::to_string(plan.seed) +
                               ",\"balance_tolerance\":" + json_number(tau) + ",\"local_sampler\":" +
                               (resampler == Resampler::roulette ? json_string(local_sampler_name(plan.local_sampler))
                                                                 : std::string("null"));
            const std::string tail = ",\"date\":" + json_string(date) + ",\"host\":" + json_string(host) + "}\n";

            if (const char* reason = skip_reason(resampler, scheme, tau)) {
              if (root) {
                std::fputs((line + ",\"skipped\":true,\"reason\":" + json_string(reason) + tail).c_str(), stdout);
                std::fflush(stdout);
              }
              continue;
            }

            std::vector<double> seconds, copy_seconds;
            Outcome outcome;
            ResampleWorkspace<Space> workspace;  // kept over the repeats, as a filter keeps it over steps
            const std::string load = load_average();
            for (int r = 0; r < plan.repeats; ++r) {
              if (store.size() != local) {  // the last resampling moved the layout: back to the blocks
                store = ParticleStore<Space>(local, d, first);
                Kokkos::deep_copy(store.scratch, 0.0);
              }
              store.first_id = first;
              Kokkos::deep_copy(store.state, pristine_state);  // untimed: restore the inputs
              Kokkos::deep_copy(store.log_weight, pristine_log_weight);
              copy_seconds.push_back(timed(comm, [&] {
                if (copy_bytes > 0) std::memcpy(copy_destination.data(), pristine_state.data(), copy_bytes);
              }));
              if (!copy_destination.empty())
                sink = sink + copy_destination[static_cast<std::size_t>(r) % copy_destination.size()];
              seconds.push_back(timed(comm, [&] {
                outcome = resample_once(comm, band, dist, store, max_log_weight, scheme, resampler, plan.seed,
                                        plan.local_sampler, workspace);
              }));
              if (root && verbose)
                std::fprintf(stderr, "  %s %s N = %llu tau = %g: repeat %d/%d: resample %.6e s, memcpy %.6e s\n",
                             resampler_name(resampler), scheme_name(scheme), static_cast<unsigned long long>(n), tau,
                             r + 1, plan.repeats, seconds.back(), copy_seconds.back());
            }
            check_offspring(comm, store.state, n, resampler_name(resampler));

            const double med = median(seconds), copy_med = median(copy_seconds);
            line += ",\"seconds_median\":" + json_number(med) +
                    ",\"seconds_min\":" + json_number(*std::min_element(seconds.begin(), seconds.end())) +
                    ",\"copy_seconds_median\":" + json_number(copy_med) +
                    ",\"resample_to_copy_ratio\":" + json_number(copy_med > 0.0 ? med / copy_med : HUGE_VAL) +
                    traffic_fields(resampler, band, outcome);
            line += ",\"loadavg\":" + json_string(load);
            if (root) {
              std::fputs((line + tail).c_str(), stdout);
              std::fflush(stdout);
            }
          }
        }
      }
    }
  }
  return 0;
}

}  // namespace rsmc::bench
