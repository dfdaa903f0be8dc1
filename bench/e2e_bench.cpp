#include "bench/e2e_bench.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "bench/bench_common.hpp"
#include "bench/bench_models.hpp"
#include "bench/hand_written_filter.hpp"
#include "bench/system_info.hpp"
#include "bench/timed.hpp"
#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/simulate.hpp"

namespace rsmc::bench {
namespace {

FilterOptions options_for(std::uint64_t n, std::uint64_t seed) {
  FilterOptions o;
  o.particles = n;
  o.seed = seed;
  o.ess_threshold = 1.0;  // resample every step, as the hand-written filter does
  o.scheme = Scheme::systematic;
  o.resampler = Resampler::roulette;
  o.local_sampler = LocalSampler::search;
  return o;
}

struct Timing {
  double seconds = 0.0;
  double log_likelihood = 0.0;
  std::array<double, kPhaseCount> phases{};
};

// The framework on `comm`, `repeats` times; the repeat with the median time (collective).
template <class Model>
Timing time_framework(MPI_Comm comm, const Model& model, const Observations& data, int steps, std::uint64_t n,
                      std::uint64_t seed, int repeats) {
  std::vector<Timing> runs;
  for (int r = 0; r < repeats; ++r) {
    BootstrapFilter<Model> filter(comm, model, options_for(n, seed));
    Timing t;
    FilterResult result;
    t.seconds = timed(comm, [&] { result = filter.run(data, steps); });
    t.log_likelihood = result.log_likelihood;
    t.phases = result.phase_seconds;
    runs.push_back(t);
  }
  std::sort(runs.begin(), runs.end(), [](const Timing& a, const Timing& b) { return a.seconds < b.seconds; });
  return runs[runs.size() / 2];
}

std::string phase_fields(const std::string& prefix, const Timing& t) {
  std::string out;
  double accounted = 0.0;
  for (std::size_t p = 0; p < kPhaseCount; ++p) {
    out += ",\"" + prefix + kPhaseNames[p] + "\":" + json_number(t.phases[p] / t.seconds);
    accounted += t.phases[p];
  }
  return out + ",\"" + prefix + "other\":" + json_number(std::max(0.0, t.seconds - accounted) / t.seconds);
}

}  // namespace

void E2EBench::add_to(CLI::App& app) {
  app.footer(
      "Each (model, N): simulate --steps observations once, then --repeats times (median): the framework on all "
      "ranks (ESS threshold 1, systematic, roulette, search sampler), the framework on rank 0 alone when there are "
      "several ranks (its log-likelihood must be bitwise identical), and the hand-written single-process filter "
      "(bench/hand_written_filter.hpp) on rank 0. One JSON line per (model, N) on stdout: particle-steps per "
      "second, overhead_ratio_one_rank (framework on 1 rank / hand-written), speedup_vs_one_rank, phase_* "
      "fractions of the run time and the load average; see docs/performance.md.");
  app.add_option("--models", models, "Models: linear_gaussian, stochastic_volatility, lorenz96-40, lorenz96-400")
      ->type_name("NAME,...")
      ->capture_default_str();
  app.add_option("--particles,-n", particles, "Total particle counts N; a comma list, e.g. 1e4,1e6")
      ->type_name("N,...")
      ->capture_default_str();
  app.add_option("--steps", steps, "Filter steps per run")->capture_default_str();
  app.add_option("--repeats", repeats, "Timed repetitions; the median is reported")->capture_default_str();
  app.add_option("--seed", seed, "Seed of the data and the filters")->capture_default_str();
  app.add_option("--max-work", max_work, "Skip configurations with N x d x steps above this (a time budget)")
      ->capture_default_str();
  app.add_flag("--verbose,-v", verbose, "Report progress on stderr");
}

int E2EBench::run(MPI_Comm comm) const {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  if (steps < 1 || steps > 100000) throw Error("--steps: expected 1 to 100000, got " + std::to_string(steps));
  const int reps = checked_repeats(repeats);
  const std::uint64_t s = checked_seed(seed);
  std::vector<std::uint64_t> sizes;
  for (const auto& text : list_entries("--particles", particles)) {
    std::uint64_t n = 0;
    if (!parse_count(text, n) || n < static_cast<std::uint64_t>(ranks))
      throw Error("--particles: '" + text + "' is not a valid particle count; expected an integer >= the " +
                  std::to_string(ranks) + " ranks");
    sizes.push_back(n);
  }
  const auto names = list_entries("--models", models);
  for (const auto& name : names) with_bench_model(name, [](const auto&) {});  // unknown names fail up front
  const std::string date = today(), host = host_name();
  MPI_Comm one_rank = MPI_COMM_NULL;
  MPI_Comm_split(comm, rank == 0 ? 0 : MPI_UNDEFINED, 0, &one_rank);
  constexpr bool host_model = Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                                         Kokkos::DefaultExecutionSpace::memory_space>::accessible;

  for (const auto& name : names) {
    with_bench_model(name, [&](const auto& model) {
      const int d = model.state_dim();
      const Observations data = simulate(model, static_cast<int>(steps), s).observations;
      for (const std::uint64_t n : sizes) {
        std::string head = "{\"bench\":\"e2e\",\"model\":" + json_string(name) + ",\"state_dim\":" +
                           std::to_string(d) + ",\"particles\":" + std::to_string(n) + ",\"steps\":" +
                           std::to_string(steps) + ",\"ranks\":" + std::to_string(ranks) + ",\"repeats\":" +
                           std::to_string(reps) + ",\"seed\":" + std::to_string(s);
        const std::string tail = ",\"date\":" + json_string(date) + ",\"host\":" + json_string(host) + "}\n";
        const double work = static_cast<double>(n) * d * static_cast<double>(steps);
        std::uint64_t available = available_memory_bytes();
        MPI_Bcast(&available, 1, MPI_UINT64_T, 0, comm);
        std::string reason;
        if (work > max_work)
          reason = "N x d x steps = " + json_number(work) + " exceeds --max-work " + json_number(max_work) +
                   " (time budget)";
        else if (available > 0 && estimated_filter_bytes(n, d) > 0.8 * static_cast<double>(available))
          reason = "needs about " + json_number(estimated_filter_bytes(n, d)) + " bytes; " + json_number(available) +
                   " bytes of memory available";
        if (!reason.empty()) {
          if (rank == 0) std::fputs((head + ",\"skipped\":true,\"reason\":" + json_string(reason) + tail).c_str(), stdout);
          std::fflush(stdout);
          continue;
        }
        if (verbose && rank == 0) std::fprintf(stderr, "e2e %s N=%llu\n", name.c_str(), (unsigned long long)n);
        const std::string load_before = load_average();
        const Timing all = time_framework(comm, model, data, static_cast<int>(steps), n, s, reps);
        Timing one = all;
        if (ranks > 1) {
          if (one_rank != MPI_COMM_NULL)
            one = time_framework(one_rank, model, data, static_cast<int>(steps), n, s, reps);
          MPI_Barrier(comm);
        }
        double hand_seconds = 0.0, hand_ll = 0.0;
        if (rank == 0 && host_model) {
          std::vector<double> times;
          for (int r = 0; r < reps; ++r) {
            const double start = MPI_Wtime();
            hand_ll = hand_written_filter(model, data, static_cast<int>(steps), n, s).log_likelihood;
            times.push_back(MPI_Wtime() - start);
          }
          hand_seconds = median(times);
        }
        MPI_Barrier(comm);
        if (rank == 0) {
          if (ranks > 1 && std::memcmp(&one.log_likelihood, &all.log_likelihood, sizeof(double)) != 0)
            throw Error("bench e2e: the log-likelihood on 1 rank and on " + std::to_string(ranks) +
                        " ranks differ (" + json_number(one.log_likelihood) + " vs " +
                        json_number(all.log_likelihood) + "): the reproducibility contract is broken");
          const double particle_steps = static_cast<double>(n) * static_cast<double>(steps);
          std::string line = head;
          line += ",\"seconds_median\":" + json_number(all.seconds);
          line += ",\"particle_steps_per_s\":" + json_number(particle_steps / all.seconds);
          line += ",\"one_rank_seconds_median\":" + json_number(one.seconds);
          line += ",\"speedup_vs_one_rank\":" + json_number(one.seconds / all.seconds);
          line += ",\"log_likelihood\":" + json_number(all.log_likelihood);
          if (host_model) {
            line += ",\"hand_seconds_median\":" + json_number(hand_seconds);
            line += ",\"hand_particle_steps_per_s\":" + json_number(particle_steps / hand_seconds);
            line += ",\"hand_log_likelihood\":" + json_number(hand_ll);
            line += ",\"overhead_ratio_one_rank\":" + json_number(one.seconds / hand_seconds);
          } else {
            line += ",\"hand_seconds_median\":null,\"overhead_ratio_one_rank\":null,\"hand_skipped_reason\":"
                    "\"the model's parameters live in device memory; the hand-written filter is host only\"";
          }
          line += phase_fields("phase_", all);
          if (ranks > 1) line += phase_fields("one_rank_phase_", one);
          line += ",\"loadavg_before\":" + json_string(load_before) + ",\"loadavg_after\":" +
                  json_string(load_average()) + tail;
          std::fputs(line.c_str(), stdout);
          std::fflush(stdout);
        }
      }
    });
  }
  if (one_rank != MPI_COMM_NULL) MPI_Comm_free(&one_rank);
  return 0;
}

}  // namespace rsmc::bench
