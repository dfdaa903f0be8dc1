#include "bench/select_bench.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "base/core/error.hpp"
#include "base/exact/fixed_weight.hpp"
#include "base/rng/stream.hpp"
#include "bench/bench_common.hpp"
#include "bench/system_info.hpp"
#include "bench/timed.hpp"
#include "framework/parallel/u128_mpi.hpp"
#include "framework/particles/block_distribution.hpp"
#include "framework/resample/select/local_sampler.hpp"
#include "framework/resample/select/parallel_selection.hpp"
#include "framework/resample/select/selection.hpp"

namespace rsmc::bench {

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Memory = Exec::memory_space;
constexpr std::uint32_t kStep = 1;

// The ancestors of counts, as the roulette resampler expands them (branch-free for counts <= 2;
// `out` has two spare entries).
void expand(const std::vector<std::uint64_t>& counts, std::vector<std::uint64_t>& out) {
  std::uint64_t* a = out.data();
  std::size_t pos = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const std::uint64_t c = counts[i];
    if (c <= 2) {
      a[pos] = i;
      a[pos + 1] = i;
    } else {
      for (std::uint64_t k = 0; k < c; ++k) a[pos + k] = i;
    }
    pos += c;
  }
}

}  // namespace

void SelectBench::add_to(CLI::App& app) {
  app.footer(
      "Each configuration: --repeats times the serial selection, its expansion into ancestors and the "
      "parallel selection (without and with counts) on the same weights; rank 0 prints one JSON line per "
      "(particles, scheme, sampler). Set OMP_NUM_THREADS for the thread count of an OpenMP Kokkos.");
  app.add_option("--particles,-n", particles, "Total particle counts N (N >= ranks); a comma list, e.g. 1e6,1e7")
      ->type_name("N,...")
      ->capture_default_str();
  app.add_option("--scheme", schemes, "Schemes: multinomial, stratified, systematic, residual; a comma list")
      ->type_name("NAME,...")
      ->capture_default_str();
  app.add_option("--local-sampler", samplers, "Local samplers: search, forest, butterfly; a comma list")
      ->type_name("NAME,...")
      ->capture_default_str();
  app.add_option("--repeats", repeats, "Timed runs of each selection; medians and minima are reported")
      ->capture_default_str();
  app.add_option("--seed", seed, "Seed of the weights and the selection, 0 <= seed < 2^56")->capture_default_str();
}

int SelectBench::run(MPI_Comm comm) const {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  std::vector<std::uint64_t> sizes;
  for (const auto& text : list_entries("--particles", particles)) {
    std::uint64_t n = 0;
    if (!parse_count(text, n) || n < static_cast<std::uint64_t>(ranks))
      throw Error("--particles: '" + text + "' is not a valid particle count; expected an integer >= " +
                  std::to_string(ranks) + " (the number of ranks)");
    sizes.push_back(n);
  }
  const auto scheme_list = named_entries<Scheme>(
      "--scheme", "scheme", schemes, {Scheme::multinomial, Scheme::stratified, Scheme::systematic, Scheme::residual},
      scheme_name, false);
  const auto sampler_list = named_entries<LocalSampler>(
      "--local-sampler", "sampler", samplers, {LocalSampler::search, LocalSampler::forest, LocalSampler::butterfly},
      local_sampler_name, false);
  const int reps = checked_repeats(repeats);
  const std::uint64_t the_seed = checked_seed(seed);
  const std::string date = today(), host = host_name();

  for (const std::uint64_t n : sizes) {
    const BlockDistribution dist(n, ranks);
    const std::uint64_t local = dist.count(rank), first = dist.first(rank);
    std::vector<double> log_w(local);
    double max_lw = -HUGE_VAL;
    for (std::uint64_t i = 0; i < local; ++i) {
      log_w[i] = 2.0 * std::log(rng::Stream(the_seed, rng::Purpose::initialise, 0, first + i).uniform());
      max_lw = std::max(max_lw, log_w[i]);
    }
    MPI_Allreduce(MPI_IN_PLACE, &max_lw, 1, MPI_DOUBLE, MPI_MAX, comm);
    std::vector<std::uint64_t> fixed(local);
    exact::u128 local_total = 0;
    for (std::uint64_t i = 0; i < local; ++i) local_total += fixed[i] = exact::fixed_weight(log_w[i], max_lw);
    const exact::ScanTotal scan = exact::exclusive_scan_total(local_total, comm);
    const WheelShare wheel{scan.below, local_total, scan.total};
    Kokkos::View<std::uint64_t*, Memory> weights(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::bench::w"),
                                                 local);
    {
      auto host_w = Kokkos::create_mirror_view(weights);
      for (std::uint64_t i = 0; i < local; ++i) host_w(i) = fixed[i];
      Kokkos::deep_copy(weights, host_w);
    }

    for (const Scheme scheme : scheme_list) {
      for (const LocalSampler sampler : sampler_list) {
        SelectionInputs in;
        in.fixed_weights = &fixed;
        in.wheel = wheel;
        in.samples = n;
        in.seed = the_seed;
        in.step = kStep;
        in.sampler = sampler;
        std::vector<std::uint64_t> counts_buffer, ancestors(local + 2 + n);
        in.counts_buffer = &counts_buffer;
        const ParallelSelectionInputs<Memory> pin{weights, wheel, n, the_seed, kStep, scheme, sampler};
        ParallelSelectionWorkspace<Exec> ws;
        ParallelSelectionOptions with_counts;
        with_counts.counts = true;
        const std::string load = load_average();
        std::vector<double> serial_s, expand_s, parallel_s, counts_s;
        Selection selection;
        SelectionShareResult share;
        for (int r = 0; r < reps; ++r) {
          serial_s.push_back(timed(comm, [&] { selection = select_offspring(scheme, in, comm); }));
          expand_s.push_back(timed(comm, [&] { expand(selection.counts, ancestors); }));
          counts_buffer = std::move(selection.counts);
          parallel_s.push_back(timed(comm, [&] { share = select_offspring_parallel(Exec(), pin, comm, ws); }));
          counts_s.push_back(
              timed(comm, [&] { share = select_offspring_parallel(Exec(), pin, comm, ws, with_counts); }));
        }
        // The parallel selection must be the serial one.
        selection = select_offspring(scheme, in, comm);
        expand(selection.counts, ancestors);
        auto got_a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ws.ancestor);
        auto got_c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ws.counts);
        int same = share.first_id == selection.first_id && share.offspring == selection.offspring;
        for (std::uint64_t k = 0; same && k < share.offspring; ++k) same = got_a(k) == ancestors[k];
        for (std::uint64_t i = 0; same && i < local; ++i) same = got_c(i) == selection.counts[i];
        MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_MIN, comm);
        if (!same) throw Error("internal error: the parallel selection differs from select_offspring");

        // Medians, and minima (the least disturbed run on a shared machine), per local particle.
        std::vector<double> with_ancestors(serial_s.size());
        for (std::size_t r = 0; r < serial_s.size(); ++r) with_ancestors[r] = serial_s[r] + expand_s[r];
        const double per = 1e9 / static_cast<double>(local);
        std::string line = std::string("{\"bench\":\"select\",\"scheme\":") + json_string(scheme_name(scheme)) +
                           ",\"local_sampler\":" + json_string(local_sampler_name(sampler)) +
                           ",\"particles\":" + std::to_string(n) + ",\"ranks\":" + std::to_string(ranks) +
                           ",\"execution_space\":" + json_string(Exec::name()) +
                           ",\"concurrency\":" + std::to_string(Exec().concurrency()) +
                           ",\"repeats\":" + std::to_string(reps) + ",\"seed\":" + std::to_string(the_seed);
        const std::pair<const char*, const std::vector<double>*> timings[] = {
            {"serial", &serial_s},
            {"serial_with_ancestors", &with_ancestors},
            {"parallel", &parallel_s},
            {"parallel_with_counts", &counts_s}};
        for (const auto& [name, seconds] : timings)
          line += ",\"" + std::string(name) + "_ns_per_particle\":" + json_number(median(*seconds) * per) + ",\"" +
                  name +
                  "_min_ns_per_particle\":" + json_number(*std::min_element(seconds->begin(), seconds->end()) * per);
        line += ",\"serial_to_parallel_ratio\":" + json_number(median(with_ancestors) / median(parallel_s)) +
                ",\"serial_to_parallel_with_counts_ratio\":" + json_number(median(with_ancestors) / median(counts_s)) +
                ",\"loadavg\":" + json_string(load) + ",\"date\":" + json_string(date) +
                ",\"host\":" + json_string(host) + "}\n";
        if (rank == 0) {
          std::fputs(line.c_str(), stdout);
          std::fflush(stdout);
        }
      }
    }
  }
  return 0;
}

}  // namespace rsmc::bench
