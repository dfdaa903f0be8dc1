// The trace file of a filter run (`rsmc filter --trace`): the weighted particle cloud at chosen
// steps and the genealogy of every resampling, so that particle paths can be traced back
// (framework/smooth/genealogy_smoother.hpp). Written collectively with parallel HDF5 while the run
// goes; each rank writes its own contiguous block of global ids, so the file's datasets are bitwise
// identical for any number of ranks.
//
// Layout (trace format version 2; h5py / h5dump readable; t is a step number in decimal, e.g. /cloud/10):
//   bytes 0..511            the seal: a SHA-256 digest of the whole file in the HDF5 user block
//                           (framework/io/sealed_file.hpp), checked before HDF5 reads the file
//   /cloud/<t>/state        (d x N) float64  step t after weighting, before any resampling:
//                                            component c of global id i at [c, i] (as in a checkpoint)
//   /cloud/<t>/log_weight   (N)     float64  unnormalised log-weights (any constant offset)
//   /genealogy/<t>/ancestor (N)     uint64   step t ended with a resampling: new particle j (the
//                                            particle j that step t + 1 propagates) descends from
//                                            particle ancestor[j] of /cloud/<t> (pre-resampling ids)
//   /cloud_steps            (R)     int32    the steps with a cloud, ascending: every `trace_every`-th
//                                            step and the run's last step
//   /resampled_steps        (S)     int32    the steps that ended with a resampling, ascending (each
//                                            has a /genealogy/<t>, whether or not its cloud is recorded)
//   root attributes: trace_format_version, particles (N), state_dim (d), steps (the steps the trace
//     covers, 1..steps), trace_every, p_invariant (0 with --local-sampler alias) (int64); model,
//     parameters, configuration (text)
// Size: 8 (d + 1) N bytes per recorded cloud plus 8 N bytes per resampling.
//
// Atomic: the file is written as ".<name>.tmp.<pid of rank 0>" next to the target, sealed and moved
// into place by finish(); a run that fails or is killed never leaves a file under the final name.
#pragma once

#include <hdf5.h>
#include "framework/parallel/mpi.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "framework/engine/step_observer.hpp"

namespace rsmc {

constexpr std::int64_t kTraceFormatVersion = 2;  // 2: sealed (version 1 files are refused)

struct TraceInfo {
  std::uint64_t particles = 0;  // N
  int state_dim = 0;            // d
  int steps = 0;                // the run's last step (always recorded); finish() may cover fewer
  int every = 1;                // K: clouds at steps K, 2K, ... and at `steps`
  bool p_invariant = true;      // false: the resampling depends on the rank count (alias sampler)
  std::string model, parameters, configuration;
};

// Throws FieldError("trace_every") unless 1 <= every < 2^31 (TraceInfo::every, the trace_every attribute).
void check_trace_every(long long every);

// Writes a trace as a StepObserver of the filter (BootstrapFilter::set_observer). Every member is
// collective over `comm`; errors are thrown on every rank as rsmc::Error naming the file.
class TraceWriter : public StepObserver {
 public:
  // Refuses an existing `path` unless `overwrite`, then creates the temporary file.
  TraceWriter(MPI_Comm comm, const std::string& path, const TraceInfo& info, bool overwrite);
  // Without finish(): closes and removes the temporary file (nothing appears under `path`).
  ~TraceWriter() override;
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  bool wants_cloud(int t) const override;
  void cloud(int t, std::uint64_t first_id, std::uint64_t count, int state_dim, const double* state,
             const double* log_weight) override;
  void resampled(int t, std::uint64_t first_id, const Selection& selection) override;

  // The trace of steps 1..steps_done: writes the indices and attributes, closes the file and moves
  // it to `path`.
  void finish(int steps_done);

 private:
  hid_t group_for(const char* parent, int t);  // creates /<parent>/<t>
  void close_and_remove();

  MPI_Comm comm_;
  int rank_ = 0;
  std::string path_, tmp_, fail_;
  TraceInfo info_;
  bool overwrite_ = false;
  hid_t file_ = -1;
  std::vector<std::int32_t> cloud_steps_, resampled_steps_;
};

// Everything in a trace but the particles (serial read).
struct TraceHeader {
  TraceInfo info;  // info.steps: the steps the trace covers
  std::vector<std::int32_t> cloud_steps, resampled_steps;
};

// Reads a trace file on one process: the seal (the whole file's digest) is verified first. Errors
// name the file and what is wrong.
class TraceReader {
 public:
  explicit TraceReader(const std::string& path);
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  const TraceHeader& header() const { return header_; }
  // The cloud of a recorded step: state d x N component-major, log-weights N.
  void read_cloud(int t, std::vector<double>& state, std::vector<double>& log_weight) const;
  // The ancestors of a resampled step (N).
  void read_ancestors(int t, std::vector<std::uint64_t>& ancestor) const;

 private:
  std::string path_, what_;
  hid_t file_ = -1;
  TraceHeader header_;
};

}  // namespace rsmc
