// Trace files on any number of ranks (framework/io/trace_file.hpp):
// - the genealogy is right: every particle of step t + 1 is recomputed on one process from its
//   recorded ancestor at step t (the model's transition with the particle's own random stream) and
//   must equal the recorded state bit for bit; a wrong ancestor id would give another state;
// - the smoother's last step is the filter's own filtered mean, bit for bit (same weights, exact sums);
// - a trace that is not finished leaves nothing under its name.
// Run at 1..8 ranks by CTest; N is not a multiple of any rank count, so blocks are uneven.
#include <mpi.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/simulate.hpp"
#include "framework/io/trace_file.hpp"
#include "framework/smooth/genealogy_smoother.hpp"
#include "models/nonlinear_growth.hpp"

namespace {

using rsmc::models::NonlinearGrowth;
using Host = Kokkos::DefaultHostExecutionSpace;  // so the test can rerun the model's transition on the host

// A temporary file name chosen by rank 0, the same on every rank.
std::string shared_temporary_name(const char* tag) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long pid = rank == 0 ? static_cast<long>(::getpid()) : 0;
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return (std::filesystem::temp_directory_path() /
          ("rsmc_trace_" + std::string(tag) + "_" + std::to_string(pid) + ".h5"))
      .string();
}

rsmc::TraceInfo info_for(const NonlinearGrowth& model, std::uint64_t n, int steps, int every) {
  rsmc::TraceInfo info;
  info.particles = n;
  info.state_dim = model.state_dim();
  info.steps = steps;
  info.every = every;
  info.model = NonlinearGrowth::name;
  return info;
}

}  // namespace

TEST_CASE("trace genealogy reproduces every propagation", "[trace][mpi]") {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const NonlinearGrowth model(rsmc::models::NonlinearGrowthParams{});
  const int T = 12;
  const std::uint64_t N = 503;
  const auto y = rsmc::simulate(model, T, 11).observations;

  struct Config {
    rsmc::Scheme scheme;
    rsmc::Resampler resampler;
    rsmc::LocalSampler sampler;  // alias: not p-invariant, but its genealogy must still be right
  };
  const Config configs[] = {
      {rsmc::Scheme::systematic, rsmc::Resampler::roulette, rsmc::LocalSampler::search},
      {rsmc::Scheme::residual, rsmc::Resampler::roulette, rsmc::LocalSampler::search},
      {rsmc::Scheme::stratified, rsmc::Resampler::roulette, rsmc::LocalSampler::alias},
      {rsmc::Scheme::multinomial, rsmc::Resampler::roulette_algorithm1, rsmc::LocalSampler::search}};
  for (const Config& config : configs) {
    rsmc::FilterOptions options;
    options.particles = N;
    options.seed = 9;
    options.ess_threshold = 0.8;
    options.scheme = config.scheme;
    options.resampler = config.resampler;
    options.local_sampler = config.sampler;
    const std::string path = shared_temporary_name("genealogy");
    rsmc::FilterResult result;
    {
      rsmc::BootstrapFilter<NonlinearGrowth, Host> filter(MPI_COMM_WORLD, model, options);
      rsmc::TraceWriter writer(MPI_COMM_WORLD, path, info_for(model, N, T, 1), true);
      filter.set_observer(&writer);
      result = filter.run(y);
      writer.finish(T);
    }
    if (rank == 0) {
      INFO("scheme " << rsmc::scheme_name(config.scheme) << ", resampler " << rsmc::resampler_name(config.resampler)
                     << ", local sampler " << rsmc::local_sampler_name(config.sampler));
      const rsmc::TraceReader reader(path);
      const rsmc::TraceHeader& h = reader.header();
      REQUIRE(h.cloud_steps.size() == static_cast<std::size_t>(T));
      std::vector<std::int32_t> resampled;
      for (int t = 1; t <= T; ++t)
        if (result.resampled[t - 1]) resampled.push_back(t);
      CHECK(h.resampled_steps == resampled);
      REQUIRE(resampled.size() >= 3);  // otherwise the genealogy would hardly be tested

      std::vector<double> from, from_lw, to, to_lw;
      std::vector<std::uint64_t> ancestor;
      std::uint64_t mismatches = 0, moved = 0;
      reader.read_cloud(1, from, from_lw);
      for (int t = 1; t < T; ++t) {
        const bool resampled_here = result.resampled[t - 1] != 0;
        if (resampled_here) reader.read_ancestors(t, ancestor);
        reader.read_cloud(t + 1, to, to_lw);
        for (std::uint64_t j = 0; j < N; ++j) {
          const std::uint64_t a = resampled_here ? ancestor[j] : j;
          moved += a != j ? 1 : 0;
          double next = 0.0;
          rsmc::rng::ModelStream stream(options.seed, rsmc::rng::Purpose::propagate, static_cast<std::uint32_t>(t + 1),
                                        j);
          model.transition(rsmc::ConstStateView{&from[a], 1}, rsmc::StateView{&next, 1}, t + 1, stream);
          mismatches += std::memcmp(&next, &to[j], sizeof next) != 0 ? 1 : 0;
        }
        from.swap(to);
        from_lw.swap(to_lw);
      }
      CHECK(mismatches == 0);
      CHECK(moved > 0);

      const rsmc::SmoothedMoments m = rsmc::smooth_genealogy(reader);
      // At the last step the smoothed mean is the filtered mean. The smoother sums w x exactly and
      // divides once; the filter sums w (x - K) about K = its previous mean (reproducible binned
      // sums, BootstrapFilter::summarise) and adds K back in double-double. Each term w (x - K) is
      // rounded twice (x - K, then the product) and w x once, each by at most 2^-53 relative, and the
      // binned sum drops below 2^-91 per term; over the weights that is at most
      // 3 * 2^-53 (max|x| + |K|), plus half an ulp of each result's final rounding.
      double max_abs_x = 0.0;
      for (const double x : from) max_abs_x = std::max(max_abs_x, std::fabs(x));
      const double k = std::fabs(result.mean[T - 2]);
      const double bound = 3 * 0x1p-53 * (max_abs_x + k) + 0x1p-52 * std::fabs(result.mean[T - 1]);
      INFO("smoothed " << m.mean[T - 1] << ", filtered " << result.mean[T - 1] << ", bound " << bound);
      CHECK(std::fabs(m.mean[T - 1] - result.mean[T - 1]) <= bound);
      CHECK(m.distinct_ancestors.back() == N);
      std::filesystem::remove(path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

TEST_CASE("an unfinished trace leaves no file", "[trace][mpi]") {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const NonlinearGrowth model(rsmc::models::NonlinearGrowthParams{});
  const std::string path = shared_temporary_name("unfinished");
  {
    rsmc::FilterOptions options;
    options.particles = 101;
    rsmc::BootstrapFilter<NonlinearGrowth, Host> filter(MPI_COMM_WORLD, model, options);
    rsmc::TraceWriter writer(MPI_COMM_WORLD, path, info_for(model, 101, 5, 1), false);
    filter.set_observer(&writer);
    const auto y = rsmc::simulate(model, 5, 3).observations;
    filter.run(y, 3);  // a run that stops before finish()
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    CHECK_FALSE(std::filesystem::exists(path));
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()))
      CHECK(entry.path().filename().string().rfind("." + std::filesystem::path(path).filename().string() + ".tmp", 0) ==
            std::string::npos);
  }
}
