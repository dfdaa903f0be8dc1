#include "drivers/trace_options.hpp"

#include "base/core/error.hpp"
#include "drivers/integer_option.hpp"
#include "framework/io/existing_file.hpp"

namespace rsmc::drivers {

void TraceOptions::add_to(CLI::App& app, ConfigBindings& config_keys) {
  auto* o_trace = app.add_option(
      "--trace", path,
      "Also write the particle cloud (states and log-weights after weighting, before resampling) every "
      "--trace-every steps and at the last step, and the ancestor ids of every resampling, to this HDF5 file "
      "for `rsmc smooth`. Size: 8 (d + 1) N bytes per recorded step plus 8 N per resampling (N = 10^6, d = 2, "
      "100 recorded steps: 2.4 GB of clouds); not with --restart (docs/smoothing.md)");
  every_option = app.add_option("--trace-every", every,
                                "Record the cloud every K steps (K >= 1; 1 gives full smoothed trajectories)")
                     ->transform(integer_notation(true))
                     ->capture_default_str();
  config_keys.text("trace", path, o_trace);
  config_keys.integer("trace_every", every, 1, every_option);
}

void TraceOptions::validate(bool overwrite, Resampler resampler) const {
  check_trace_every(every);
  if (path.empty()) {
    if (every_option != nullptr && every_option->count() > 0)
      throw Error("--trace-every: given without --trace; name the trace file with --trace FILE");
    return;
  }
  refuse_existing_file("trace", path, overwrite);
  check_records_genealogy(resampler);
}

void TraceOptions::refuse_restart() const {
  if (!path.empty())
    throw Error(
        "--trace: cannot be combined with --restart; a trace covers a run from step 1 (trace the whole "
        "run, or run again from the start with --trace)");
}

std::unique_ptr<TraceWriter> TraceOptions::open(MPI_Comm comm, const TraceInfo& info, bool overwrite) const {
  if (path.empty()) return nullptr;
  return std::make_unique<TraceWriter>(comm, path, info, overwrite);
}

}  // namespace rsmc::drivers
