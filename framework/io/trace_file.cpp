// The trace file: writer (collective, parallel HDF5) and reader (serial). Layout in trace_file.hpp.
#include "framework/io/trace_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <limits>
#include <cstdio>
#include <filesystem>
#include <string>

#include "base/core/error.hpp"
#include "framework/io/atomic_file.hpp"
#include "framework/io/existing_file.hpp"
#include "framework/io/hdf5_parallel.hpp"
#include "framework/io/sealed_file.hpp"

namespace rsmc {
namespace {

using namespace io_detail;  // hdf5_util.hpp and hdf5_parallel.hpp

std::string step_path(const char* parent, int t) { return std::string(parent) + "/" + std::to_string(t); }

}  // namespace

void check_trace_every(long long every) {
  if (every < 1 || every > std::numeric_limits<int>::max())
    throw FieldError("trace_every", std::to_string(every), "is not valid", "an integer in [1, 2^31 - 1]");
}

TraceWriter::TraceWriter(MPI_Comm comm, const std::string& path, const TraceInfo& info, bool overwrite)
    : comm_(comm), path_(path), info_(info), overwrite_(overwrite) {
  MPI_Comm_rank(comm_, &rank_);
  const std::string what = "trace '" + path + "'";
  check_trace_every(info.every);
  std::string error;
  if (rank_ == 0) {
    try {
      refuse_existing_file("trace", path, overwrite);
      tmp_ = atomic_temporary_path(path);  // also refuses a directory name
      ::unlink(tmp_.c_str());              // a leftover of a killed run with our pid
      // And those of killed writers of the same trace, when they are certainly gone (atomic_file.hpp).
      const std::filesystem::path target(path);
      remove_abandoned_temporaries(target.parent_path().empty() ? "." : target.parent_path().string(),
                                   "." + target.filename().string() + ".tmp.");
    } catch (const Error& e) {
      error = e.what();
    }
  }
  agree_all(comm_, error);
  tmp_ = broadcast_text(comm_, tmp_);
  fail_ = what + ": cannot write the temporary file '" + tmp_ + "'";
  try {
    SilenceHdf5Errors silence;
    Hid fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    require(fapl.valid() && H5Pset_fapl_mpio(fapl.get(), comm_, MPI_INFO_NULL) >= 0, fail_ + " (no MPI-IO driver)");
    Hid fcpl(sealable_file_plist(), H5Pclose);
    file_ = fcpl.valid() ? H5Fcreate(tmp_.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()) : -1;
    require(file_ >= 0, fail_ + " (cannot create it)");
    Hid cloud(create_group(file_, "cloud", fail_), H5Gclose);
    Hid genealogy(create_group(file_, "genealogy", fail_), H5Gclose);
  } catch (const Error& e) {
    error = e.what();
  }
  try {
    agree_all(comm_, error);
  } catch (const Error&) {
    close_and_remove();
    throw;
  }
}

TraceWriter::~TraceWriter() { close_and_remove(); }

void TraceWriter::close_and_remove() {
  if (file_ >= 0) {
    SilenceHdf5Errors silence;
    H5Fclose(file_);
    file_ = -1;
  }
  if (rank_ == 0 && !tmp_.empty()) ::unlink(tmp_.c_str());
}

bool TraceWriter::wants_cloud(int t) const { return t % info_.every == 0 || t == info_.steps; }

hid_t TraceWriter::group_for(const char* parent, int t) {
  return create_group(file_, step_path(parent, t).c_str(), fail_);
}

void TraceWriter::cloud(int t, std::uint64_t first_id, std::uint64_t count, int state_dim, const double* state,
                        const double* log_weight) {
  std::string error;
  try {
    SilenceHdf5Errors silence;
    require(file_ >= 0 && state_dim == info_.state_dim,
            fail_ + " (internal error: no file, or a wrong state dimension)");
    Hid group(group_for("cloud", t), H5Gclose);
    write_block(comm_, tmp_, group.get(), "state", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, static_cast<hsize_t>(state_dim),
                info_.particles, first_id, count, state, fail_);
    write_block(comm_, tmp_, group.get(), "log_weight", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, info_.particles, first_id,
                count, log_weight, fail_);
    cloud_steps_.push_back(t);
  } catch (const Error& e) {
    error = e.what();
  }
  agree_all(comm_, error);
}

void TraceWriter::resampled(int t, std::uint64_t first_id, const Selection& selection) {
  // Renumbering: the offspring of particle first_id + i are the next counts[i] new ids, so this
  // rank's ancestors fill the contiguous range [selection.first_id, + offspring) of the dataset.
  std::vector<std::uint64_t> ancestor;
  ancestor.reserve(selection.offspring);
  for (std::size_t i = 0; i < selection.counts.size(); ++i)
    ancestor.insert(ancestor.end(), selection.counts[i], first_id + i);
  std::string error;
  try {
    SilenceHdf5Errors silence;
    require(file_ >= 0 && ancestor.size() == selection.offspring,
            fail_ + " (internal error: no file, or offspring counts that do not add up)");
    Hid group(group_for("genealogy", t), H5Gclose);
    write_block(comm_, tmp_, group.get(), "ancestor", H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, info_.particles,
                selection.first_id, selection.offspring, ancestor.data(), fail_);
    resampled_steps_.push_back(t);
  } catch (const Error& e) {
    error = e.what();
  }
  agree_all(comm_, error);
}

void TraceWriter::finish(int steps_done) {
  std::string error;
  try {
    SilenceHdf5Errors silence;
    require(file_ >= 0, fail_ + " (internal error: finished twice)");
    const bool writer = rank_ == 0;
    write_small(comm_, tmp_, file_, "cloud_steps", H5T_STD_I32LE, H5T_NATIVE_INT32, {cloud_steps_.size()},
                cloud_steps_.data(), writer, fail_);
    write_small(comm_, tmp_, file_, "resampled_steps", H5T_STD_I32LE, H5T_NATIVE_INT32, {resampled_steps_.size()},
                resampled_steps_.data(), writer, fail_);
    write_int64_attributes(file_,
                           {{"trace_format_version", kTraceFormatVersion},
                            {"particles", static_cast<std::int64_t>(info_.particles)},
                            {"state_dim", info_.state_dim},
                            {"steps", steps_done},
                            {"trace_every", info_.every},
                            {"p_invariant", info_.p_invariant ? 1 : 0}},
                           fail_);
    write_text_attribute(file_, "model", info_.model, fail_);
    write_text_attribute(file_, "parameters", info_.parameters, fail_);
    write_text_attribute(file_, "configuration", info_.configuration, fail_);
    const herr_t closed = H5Fclose(file_);
    file_ = -1;
    require(closed >= 0, fail_ + " (cannot flush it; disk full?)");
  } catch (const Error& e) {
    error = e.what();
  }
  try {
    agree_all(comm_, error);
    seal_file(comm_, tmp_, SealedKind::trace, fail_);
    if (rank_ == 0) {
      try {
        publish_atomically(tmp_, path_, overwrite_);
      } catch (const Error& e) {
        error = e.what();
      }
    }
    agree_all(comm_, error);
  } catch (const Error&) {
    close_and_remove();
    throw;
  }
  tmp_.clear();  // published: nothing to remove
}

// ---- reading ----

TraceReader::TraceReader(const std::string& path) : path_(path), what_("trace '" + path + "'") {
  // The whole file is checked before HDF5 parses any of it (framework/io/sealed_file.hpp).
  verify_sealed_file(MPI_COMM_SELF, path, SealedKind::trace, what_);
  SilenceHdf5Errors silence;
  file_ = open_hdf5_read_only(path, what_);
  try {
    std::int64_t version = 0;
    if (H5Aexists(file_, "trace_format_version") <= 0)
      throw Error(what_ +
                  ": not an rsmc trace file (no trace_format_version attribute; write one with rsmc filter "
                  "--trace)");
    read_attribute(file_, "trace_format_version", H5T_NATIVE_INT64, &version, what_);
    if (version != kTraceFormatVersion)
      throw Error(what_ + ": trace format version " + std::to_string(version) + " is not supported; this rsmc reads " +
                  std::to_string(kTraceFormatVersion));
    std::int64_t particles = 0, dim = 0, steps = 0, every = 0, invariant = 0;
    read_attribute(file_, "particles", H5T_NATIVE_INT64, &particles, what_);
    read_attribute(file_, "state_dim", H5T_NATIVE_INT64, &dim, what_);
    read_attribute(file_, "steps", H5T_NATIVE_INT64, &steps, what_);
    read_attribute(file_, "trace_every", H5T_NATIVE_INT64, &every, what_);
    read_attribute(file_, "p_invariant", H5T_NATIVE_INT64, &invariant, what_);
    require(particles >= 1 && dim >= 1 && dim < (1LL << 31) && steps >= 0 && steps < (1LL << 31) && every >= 1 &&
                every < (1LL << 31),
            what_ + ": particles, state_dim, steps or trace_every out of range (damaged?)");
    TraceInfo& info = header_.info;
    info.particles = static_cast<std::uint64_t>(particles);
    info.state_dim = static_cast<int>(dim);
    info.steps = static_cast<int>(steps);
    info.every = static_cast<int>(every);
    info.p_invariant = invariant != 0;
    info.model = read_text_attribute(file_, "model", what_);
    info.parameters = read_text_attribute(file_, "parameters", what_);
    info.configuration = read_text_attribute(file_, "configuration", what_);
    auto read_steps = [&](const char* name, std::vector<std::int32_t>& out) {
      const hsize_t n = length_1d(file_, name, what_);
      read_all(file_, name, H5T_NATIVE_INT32, {n}, out, what_);
      require(
          std::is_sorted(out.begin(), out.end()) && std::adjacent_find(out.begin(), out.end()) == out.end() &&
              (out.empty() || (out.front() >= 1 && out.back() <= steps)),
          what_ + ": '/" + name + "' is not an ascending list of steps 1.." + std::to_string(steps) + " (damaged?)");
    };
    read_steps("cloud_steps", header_.cloud_steps);
    read_steps("resampled_steps", header_.resampled_steps);
  } catch (...) {
    H5Fclose(file_);
    throw;
  }
}

TraceReader::~TraceReader() {
  if (file_ >= 0) H5Fclose(file_);
}

void TraceReader::read_cloud(int t, std::vector<double>& state, std::vector<double>& log_weight) const {
  SilenceHdf5Errors silence;
  const hsize_t n = header_.info.particles, d = static_cast<hsize_t>(header_.info.state_dim);
  read_all(file_, step_path("cloud", t) + "/state", H5T_NATIVE_DOUBLE, {d, n}, state, what_);
  read_all(file_, step_path("cloud", t) + "/log_weight", H5T_NATIVE_DOUBLE, {n}, log_weight, what_);
}

void TraceReader::read_ancestors(int t, std::vector<std::uint64_t>& ancestor) const {
  SilenceHdf5Errors silence;
  const hsize_t n = header_.info.particles;
  read_all(file_, step_path("genealogy", t) + "/ancestor", H5T_NATIVE_UINT64, {n}, ancestor, what_);
  for (std::uint64_t a : ancestor)
    require(a < n, what_ + ": /genealogy/" + std::to_string(t) + "/ancestor holds an id >= N (damaged?)");
}

}  // namespace rsmc
