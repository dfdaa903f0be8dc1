#include "drivers/smooth_command.hpp"

#include <cstdio>

#include "drivers/collective.hpp"
#include "drivers/integer_option.hpp"
#include "framework/io/existing_file.hpp"
#include "base/core/error.hpp"
#include "framework/smooth/smoothed_file.hpp"
#include "framework/io/trace_file.hpp"
#include "framework/smooth/genealogy_smoother.hpp"

namespace rsmc::drivers {

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
