#include "drivers/smooth_command.hpp"

#include <cstdio>
#include <optional>
#include <string>

#include "drivers/collective.hpp"
#include "drivers/integer_option.hpp"
#include "framework/io/existing_file.hpp"
#include "base/core/error.hpp"
#include "framework/engine/memory_preflight.hpp"
#include "framework/smooth/smoothed_file.hpp"
#include "framework/io/trace_file.hpp"
#include "framework/smooth/genealogy_smoother.hpp"

namespace rsmc::drivers {
namespace {

// Whether smoothing the trace fits in this node's memory (rank 0 smooths alone): the last step's
// cloud, the weights, the paths and the ancestors (8 (d + 4) N bytes, a byte per particle more),
// the smoothed moments and sampled paths (8 r d (2 + M) for r recorded steps and M paths). Throws
// rsmc::Error naming the input that needs the most before anything is allocated.
void check_smoothing_memory(const TraceHeader& h, const std::string& trace, long long paths) {
  const std::optional<std::uint64_t> available = available_host_memory();
  if (!available) return;
  const double n = static_cast<double>(h.info.particles), d = h.info.state_dim;
  const double r = static_cast<double>(h.cloud_steps.size()), m = static_cast<double>(paths);
  const double cloud = n * (8.0 * (d + 4.0) + 1.0), sampled = 8.0 * r * d * m + 8.0 * m, moments = 16.0 * r * d;
  const double need = cloud + sampled + moments, have = static_cast<double>(*available);
  if (need <= have) return;
  const std::string total =
      "smoothing needs " + bytes_text(need) + ", but only " + bytes_text(have) + " of memory is available";
  if (sampled >= cloud)
    throw Error("--paths: " + std::to_string(paths) + " sampled paths of " + std::to_string(h.cloud_steps.size()) +
                " steps x " + std::to_string(h.info.state_dim) + " components need " + bytes_text(sampled) + "; " +
                total + "; expected fewer paths");
  throw Error("trace '" + trace + "': its " + std::to_string(h.info.particles) + " particles of state dimension " +
              std::to_string(h.info.state_dim) + " need " + bytes_text(cloud) + " (8 (d + 4) + 1 bytes each); " +
              total + "; smooth it on a machine with more memory");
}

}  // namespace

void SmoothCommand::add_to(CLI::App& app) {
  app.add_option("trace", trace, "A trace file written by `rsmc filter --trace FILE` (--trace-every 1 for every step)")
      ->required();
  app.add_option("--output,-o", output,
                 "HDF5 file for the smoothed means and variances of every recorded step and the number of distinct "
                 "ancestors (path degeneracy)")
      ->required();
  app.add_option("--paths", paths,
                 "Also write M trajectories sampled from the smoothing approximation (systematic draws from the "
                 "last step's weights, traced back): /sampled_paths, M x steps x d")
      ->transform(integer_notation(true))
      ->capture_default_str();
  app.add_flag("--overwrite", overwrite, "Replace --output if it exists");
  app.add_flag("--quiet,-q", quiet, "Print nothing but errors");
  app.footer(
      "Genealogy-tracing smoother (Kitagawa 1996): the weighted particles of the last recorded step are "
      "traced back through the ancestors of every resampling. Only the recorded steps are smoothed. Runs on "
      "rank 0; memory about 8 (d + 4) N bytes. See docs/smoothing.md.");
}

int SmoothCommand::run(MPI_Comm comm) const {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  run_on_root(comm, [&] {
    if (paths < 0) throw Error("--paths: " + std::to_string(paths) + " is not valid; expected M >= 0");
    refuse_existing_file("output", output, overwrite);
    const TraceReader reader(trace);
    const TraceHeader& h = reader.header();
    check_smoothing_memory(h, trace, paths);
    const SmoothedMoments m = smooth_genealogy(reader, static_cast<std::uint64_t>(paths));
    write_smoothed_file(output, m, h.info.model, trace, overwrite);
    if (quiet) return;
    std::printf("smoothed %zu recorded steps (of 1..%d, every %d) of %s: model %s, %llu particles, state dim %d\n",
                m.steps.size(), h.info.steps, h.info.every, trace.c_str(), h.info.model.c_str(),
                static_cast<unsigned long long>(m.particles), m.state_dim);
    std::printf("weights of step %d: ESS %.1f; distinct ancestors at step %d: %llu, at step %d: %llu\n", m.final_step,
                m.final_ess, m.steps.front(), static_cast<unsigned long long>(m.distinct_ancestors.front()),
                m.final_step, static_cast<unsigned long long>(m.distinct_ancestors.back()));
    std::printf("wrote %s\n", output.c_str());
  });
  return 0;
}

}  // namespace rsmc::drivers
