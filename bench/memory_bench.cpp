#include "bench/memory_bench.hpp"

#include <Kokkos_Core.hpp>
#include <cstdio>

#include "bench/bench_common.hpp"
#include "bench/bench_models.hpp"
#include "bench/reference_filter.hpp"
#include "bench/scalar_filter.hpp"
#include "bench/system_info.hpp"
#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/simulate.hpp"

namespace rsmc::bench {

void MemoryBench::add_to(CLI::App& app) {
  app.footer(
      "Measures VmHWM (/proc/self/status) before and after one filter run of --steps (ESS threshold 1, systematic, "
      "roulette) in this process; one (model, N) per process, so run a fresh process per size "
      "(scripts/bench-e2e.sh does). One JSON line: peak_bytes_per_particle (the growth of the peak resident set over "
      "the rank's particles, the maximum over ranks), state_bytes_per_particle (8 d) and target_bytes_per_particle "
      "(3 x 8 d + 64).");
  app.add_option("--model", model, "linear_gaussian, stochastic_volatility, lorenz96-40 or lorenz96-400")
      ->capture_default_str();
  app.add_option("--particles,-n", particles, "Total particle count N, e.g. 1e7")->capture_default_str();
  app.add_option(
         "--implementation", implementation,
         "framework, reference (bench/reference_filter.hpp, 1 rank) or scalar (bench/scalar_filter.hpp, 1 rank)")
      ->capture_default_str();
  app.add_option("--steps", steps, "Filter steps")->capture_default_str();
  app.add_option("--seed", seed, "Seed of the data and the filter")->capture_default_str();
}

int MemoryBench::run(MPI_Comm comm) const {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  std::uint64_t n = 0;
  if (!parse_count(particles, n) || n < static_cast<std::uint64_t>(ranks))
    throw Error("--particles: '" + particles + "' is not a valid particle count; expected an integer >= the ranks");
  if (steps < 1 || steps > 100000) throw Error("--steps: expected 1 to 100000, got " + std::to_string(steps));
  if (implementation != "framework" && implementation != "reference" && implementation != "scalar")
    throw Error("--implementation: unknown '" + implementation + "'; expected framework, reference or scalar");
  if (implementation != "framework" && ranks != 1)
    throw Error("--implementation " + implementation + " runs on 1 rank only");
  const std::uint64_t s = checked_seed(seed);
  with_bench_model(model, [&](const auto& m) {
    using Model = std::decay_t<decltype(m)>;
    const int d = m.state_dim();
    const Observations data = simulate(m, static_cast<int>(steps), s).observations;
    std::uint64_t available = available_memory_bytes();
    MPI_Bcast(&available, 1, MPI_UINT64_T, 0, comm);
    if (available > 0 && estimated_filter_bytes(n, d) > 0.8 * static_cast<double>(available)) {
      if (rank == 0)
        std::printf(
            "{\"bench\":\"memory\",\"model\":%s,\"implementation\":%s,\"state_dim\":%d,\"particles\":%llu,"
            "\"ranks\":%d,\"skipped\":true,\"reason\":%s,\"date\":%s,\"host\":%s}\n",
            json_string(model).c_str(), json_string(implementation).c_str(), d, (unsigned long long)n, ranks,
            json_string("needs about " + json_number(estimated_filter_bytes(n, d)) + " bytes; " +
                        json_number(static_cast<double>(available)) + " bytes of memory available")
                .c_str(),
            json_string(today()).c_str(), json_string(host_name()).c_str());
      return;
    }
    const std::uint64_t before = peak_resident_bytes();
    const std::uint64_t local = BlockDistribution(n, ranks).count(rank);
    if (implementation == "scalar") {
      scalar_filter(m, data, static_cast<int>(steps), n, s);
    } else if (implementation == "reference") {
      reference_filter(m, data, static_cast<int>(steps), n, s);
    } else {
      FilterOptions o;
      o.particles = n;
      o.seed = s;
      o.ess_threshold = 1.0;
      BootstrapFilter<Model> filter(comm, m, o);
      filter.run(data, static_cast<int>(steps));
    }
    const std::uint64_t after = peak_resident_bytes();
    double per_particle = static_cast<double>(after - before) / static_cast<double>(local);
    MPI_Allreduce(MPI_IN_PLACE, &per_particle, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (rank != 0) return;
    const double state = 8.0 * d, target = 3.0 * state + 64.0;
    std::printf(
        "{\"bench\":\"memory\",\"model\":%s,\"implementation\":%s,\"state_dim\":%d,\"particles\":%llu,"
        "\"ranks\":%d,\"steps\":%lld,\"baseline_peak_bytes\":%llu,\"peak_bytes\":%llu,"
        "\"peak_bytes_per_particle\":%s,\"state_bytes_per_particle\":%s,\"target_bytes_per_particle\":%s,"
        "\"peak_to_target_ratio\":%s,\"loadavg\":%s,\"date\":%s,\"host\":%s}\n",
        json_string(model).c_str(), json_string(implementation).c_str(), d, (unsigned long long)n, ranks, steps,
        (unsigned long long)before, (unsigned long long)after, json_number(per_particle).c_str(),
        json_number(state).c_str(), json_number(target).c_str(), json_number(per_particle / target).c_str(),
        json_string(load_average()).c_str(), json_string(today()).c_str(), json_string(host_name()).c_str());
  });
  return 0;
}

}  // namespace rsmc::bench
