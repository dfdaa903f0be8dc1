#include "bench/e2e_bench.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench/bench_common.hpp"
#include "bench/bench_models.hpp"
#include "bench/reference_filter.hpp"
#include "bench/scalar_filter.hpp"
#include "bench/system_info.hpp"
#include "bench/timed.hpp"
#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/simulate.hpp"
#include "framework/io/observations_file.hpp"

namespace rsmc::bench {
namespace {

FilterOptions options_for(std::uint64_t n, std::uint64_t seed) {
  FilterOptions o;
  o.particles = n;
  o.seed = seed;
  o.ess_threshold = 1.0;  // resample every step, as the reference and scalar filters do
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

// One implementation's repeats: repeat r uses seed + r, so the log-likelihoods are independent
// estimates (their mean and spread feed the Welch t); the time and phases are the median repeat's.
struct Runs {
  std::vector<double> seconds, log_likelihoods;
  Timing median;  // the repeat with the median time
};

Runs summarise(std::vector<Timing> runs) {
  Runs out;
  for (const Timing& t : runs) {
    out.seconds.push_back(t.seconds);
    out.log_likelihoods.push_back(t.log_likelihood);
  }
  std::sort(runs.begin(), runs.end(), [](const Timing& a, const Timing& b) { return a.seconds < b.seconds; });
  out.median = runs[runs.size() / 2];
  return out;
}

// The framework on `comm` (collective).
template <class Model>
Runs time_framework(MPI_Comm comm, const Model& model, const Observations& data, int steps, std::uint64_t n,
                    std::uint64_t seed, int repeats) {
  std::vector<Timing> runs;
  for (int r = 0; r < repeats; ++r) {
    BootstrapFilter<Model> filter(comm, model, options_for(n, seed + static_cast<std::uint64_t>(r)));
    Timing t;
    FilterResult result;
    t.seconds = timed(comm, [&] { result = filter.run(data, steps); });
    t.log_likelihood = result.log_likelihood;
    t.phases = result.phase_seconds;
    runs.push_back(t);
  }
  return summarise(runs);
}

// A single-process filter (reference or scalar) on this rank.
template <class Run>
Runs time_single(int repeats, std::uint64_t seed, Run&& run) {
  std::vector<Timing> runs;
  for (int r = 0; r < repeats; ++r) {
    Timing t;
    const double start = MPI_Wtime();
    t.log_likelihood = run(seed + static_cast<std::uint64_t>(r));
    t.seconds = MPI_Wtime() - start;
    runs.push_back(t);
  }
  return summarise(runs);
}

// Welch's t of the difference of the means of two samples (0 when both spreads are 0).
double welch_t(const std::vector<double>& a, const std::vector<double>& b) {
  auto mean = [](const std::vector<double>& x) {
    double s = 0.0;
    for (double v : x) s += v;
    return s / static_cast<double>(x.size());
  };
  auto var_of_mean = [&](const std::vector<double>& x) {
    if (x.size() < 2) return 0.0;
    const double m = mean(x);
    double s = 0.0;
    for (double v : x) s += (v - m) * (v - m);
    return s / static_cast<double>(x.size() - 1) / static_cast<double>(x.size());
  };
  const double v = var_of_mean(a) + var_of_mean(b);
  return v > 0.0 ? (mean(a) - mean(b)) / std::sqrt(v) : 0.0;
}

std::string json_array(const std::vector<double>& x) {
  std::string out = "[";
  for (std::size_t i = 0; i < x.size(); ++i) out += (i ? "," : "") + json_number(x[i]);
  return out + "]";
}

// The JSON fields of one single-process implementation: time, rate, log-likelihoods.
std::string single_fields(const std::string& name, const Runs& runs, double particle_steps) {
  return ",\"" + name + "_seconds_median\":" + json_number(runs.median.seconds) + ",\"" + name +
         "_ns_per_particle_step\":" + json_number(runs.median.seconds / particle_steps * 1e9) + ",\"" + name +
         "_particle_steps_per_s\":" + json_number(particle_steps / runs.median.seconds) + ",\"" + name +
         "_log_likelihoods\":" + json_array(runs.log_likelihoods);
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
      "Each (model, N): simulate --steps observations once (or read --data), then --repeats times, repeat r with seed "
      "--seed + r: rsmc on all ranks (ESS threshold 1, systematic, roulette, search sampler), rsmc on rank 0 alone "
      "when "
      "there are several ranks (its log-likelihood must be bitwise identical), and on rank 0 the single-process "
      "reference filter (bench/reference_filter.hpp: the fastest plain C++ we have, SIMD, plain double sums) and the "
      "scalar filter (bench/scalar_filter.hpp). One JSON line per (model, N) on stdout: ns per particle-step of each "
      "(median repeat), overhead_ratio_one_rank (rsmc on 1 rank / reference), scalar_ratio_one_rank (rsmc on 1 rank / "
      "scalar), speedup_vs_one_rank, every repeat's log-likelihood and the Welch t of rsmc against the reference, "
      "phase_* fractions, the Kokkos threads and the load average; see docs/performance.md.");
  app.add_option("--models", models, "Models: linear_gaussian, stochastic_volatility, lorenz96-40, lorenz96-400")
      ->type_name("NAME,...")
      ->capture_default_str();
  app.add_option("--particles,-n", particles, "Total particle counts N; a comma list, e.g. 1e4,1e6")
      ->type_name("N,...")
      ->capture_default_str();
  app.add_option("--implementations", implementations, "Which to run: rsmc, reference, scalar (rsmc always runs)")
      ->type_name("NAME,...")
      ->capture_default_str();
  app.add_option("--data", data, "Observations file (.csv, .h5) for the one model of --models, instead of simulating")
      ->type_name("FILE");
  app.add_option("--steps", steps, "Filter steps per run (with --data: at most the file's)")->capture_default_str();
  app.add_option("--repeats", repeats, "Timed repetitions, repeat r with seed --seed + r; the median is reported")
      ->capture_default_str();
  app.add_option("--seed", seed, "Seed of the data and the filters")->capture_default_str();
  app.add_option("--max-work", max_work, "Skip configurations with N x d x steps above this (a time budget)")
      ->capture_default_str();
  app.add_flag("--verbose,-v", verbose, "Report progress on stderr");
}

namespace {

// The observations of a (model, configuration): --data when given, else simulated with `seed`.
template <class Model>
Observations observations_for(const Model& model, const std::string& data, long long steps, std::uint64_t seed) {
  if (data.empty()) return simulate(model, static_cast<int>(steps), seed).observations;
  Observations obs = read_observations(data);
  if (obs.steps < steps)
    throw Error("--data " + data + " has " + std::to_string(obs.steps) + " steps; --steps asks for " +
                std::to_string(steps));
  return obs;
}

}  // namespace

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
  bool run_reference = false, run_scalar = false;
  for (const auto& name : list_entries("--implementations", implementations)) {
    if (name == "reference")
      run_reference = true;
    else if (name == "scalar")
      run_scalar = true;
    else if (name != "rsmc")
      throw Error("--implementations: unknown '" + name + "'; expected rsmc, reference or scalar");
  }
  const auto names = list_entries("--models", models);
  if (!data.empty() && names.size() != 1) throw Error("--data needs exactly one model in --models");
  for (const auto& name : names) with_bench_model(name, [](const auto&) {});  // unknown names fail up front
  const std::string date = today(), host = host_name();
  const int threads = Kokkos::DefaultExecutionSpace().concurrency();
  MPI_Comm one_rank = MPI_COMM_NULL;
  MPI_Comm_split(comm, rank == 0 ? 0 : MPI_UNDEFINED, 0, &one_rank);
  constexpr bool host_model =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, Kokkos::DefaultExecutionSpace::memory_space>::accessible;

  for (const auto& name : names) {
    with_bench_model(name, [&](const auto& model) {
      const int d = model.state_dim();
      const Observations obs = observations_for(model, data, steps, s);
      for (const std::uint64_t n : sizes) {
        std::string head = "{\"bench\":\"e2e\",\"model\":" + json_string(name) + ",\"state_dim\":" + std::to_string(d) +
                           ",\"particles\":" + std::to_string(n) + ",\"steps\":" + std::to_string(steps) +
                           ",\"ranks\":" + std::to_string(ranks) + ",\"threads\":" + std::to_string(threads) +
                           ",\"repeats\":" + std::to_string(reps) + ",\"seed\":" + std::to_string(s) +
                           (data.empty() ? "" : ",\"data\":" + json_string(data));
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
          if (rank == 0)
            std::fputs((head + ",\"skipped\":true,\"reason\":" + json_string(reason) + tail).c_str(), stdout);
          std::fflush(stdout);
          continue;
        }
        if (verbose && rank == 0) std::fprintf(stderr, "e2e %s N=%llu\n", name.c_str(), (unsigned long long)n);
        const std::string load_before = load_average();
        const int t_steps = static_cast<int>(steps);
        const Runs all = time_framework(comm, model, obs, t_steps, n, s, reps);
        Runs one = all;
        if (ranks > 1) {
          if (one_rank != MPI_COMM_NULL) one = time_framework(one_rank, model, obs, t_steps, n, s, reps);
          MPI_Barrier(comm);
        }
        Runs reference, scalar;
        if (rank == 0 && host_model) {
          if (run_reference)
            reference = time_single(reps, s, [&](std::uint64_t seed_r) {
              return reference_filter(model, obs, t_steps, n, seed_r).log_likelihood;
            });
          if (run_scalar)
            scalar = time_single(reps, s, [&](std::uint64_t seed_r) {
              return scalar_filter(model, obs, t_steps, n, seed_r).log_likelihood;
            });
        }
        MPI_Barrier(comm);
        if (rank != 0) continue;
        if (ranks > 1 && std::memcmp(one.log_likelihoods.data(), all.log_likelihoods.data(),
                                     sizeof(double) * all.log_likelihoods.size()) != 0)
          throw Error("bench e2e: the log-likelihoods on 1 rank and on " + std::to_string(ranks) +
                      " ranks differ: the reproducibility contract is broken");
        const double particle_steps = static_cast<double>(n) * static_cast<double>(steps);
        std::string line = head;
        line += ",\"seconds_median\":" + json_number(all.median.seconds);
        line += ",\"particle_steps_per_s\":" + json_number(particle_steps / all.median.seconds);
        line += ",\"ns_per_particle_step\":" + json_number(all.median.seconds / particle_steps * 1e9);
        line += ",\"one_rank_seconds_median\":" + json_number(one.median.seconds);
        line += ",\"one_rank_ns_per_particle_step\":" + json_number(one.median.seconds / particle_steps * 1e9);
        line += ",\"speedup_vs_one_rank\":" + json_number(one.median.seconds / all.median.seconds);
        line += ",\"log_likelihood\":" + json_number(all.log_likelihoods.front());
        line += ",\"log_likelihoods\":" + json_array(all.log_likelihoods);
        if (!host_model) {
          line +=
              ",\"reference_skipped_reason\":\"the model's parameters live in device memory; the reference and "
              "scalar filters are host only\"";
        }
        if (host_model && run_reference) {
          line += single_fields("reference", reference, particle_steps);
          line += ",\"overhead_ratio_one_rank\":" + json_number(one.median.seconds / reference.median.seconds);
          line += ",\"welch_t_rsmc_reference\":" + json_number(welch_t(all.log_likelihoods, reference.log_likelihoods));
        }
        if (host_model && run_scalar) {
          line += single_fields("scalar", scalar, particle_steps);
          line += ",\"scalar_ratio_one_rank\":" + json_number(one.median.seconds / scalar.median.seconds);
        }
        line += phase_fields("phase_", all.median);
        if (ranks > 1) line += phase_fields("one_rank_phase_", one.median);
        line += ",\"loadavg_before\":" + json_string(load_before) +
                ",\"loadavg_after\":" + json_string(load_average()) + tail;
        std::fputs(line.c_str(), stdout);
        std::fflush(stdout);
      }
    });
  }
  if (one_rank != MPI_COMM_NULL) MPI_Comm_free(&one_rank);
  return 0;
}

}  // namespace rsmc::bench
