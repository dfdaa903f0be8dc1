// `rsmc filter --trace FILE --trace-every K`: the options, their checks, and the trace writer they
// open (framework/io/trace_file.hpp). Kept apart from filter_command.cpp, which calls these.
#pragma once

#include "framework/parallel/mpi.hpp"

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "drivers/run_config.hpp"
#include "framework/io/trace_file.hpp"
#include "framework/resample/scheme.hpp"

namespace rsmc::drivers {

struct TraceOptions {
  std::string path;     // --trace; empty: no trace
  long long every = 1;  // --trace-every
  CLI::Option* every_option = nullptr;

  // Adds the options to `app` and their keys (trace, trace_every) to a --config file's bindings.
  void add_to(CLI::App& app, ConfigBindings& config_keys);
  // Throws rsmc::Error (one line naming the option) for K < 1, --trace-every without --trace, an
  // existing file without `overwrite`, or a resampler that records no genealogy.
  void validate(bool overwrite, Resampler resampler) const;
  // With --restart: throws if a trace was asked for (a trace covers a run from step 1).
  void refuse_restart() const;
  // Collective: nullptr without --trace.
  std::unique_ptr<TraceWriter> open(MPI_Comm comm, const TraceInfo& info, bool overwrite) const;
};

}  // namespace rsmc::drivers
