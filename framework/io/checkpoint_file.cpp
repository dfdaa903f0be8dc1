#include "framework/io/checkpoint_file.hpp"

#include <dirent.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <type_traits>
#include <variant>

#include "base/core/error.hpp"
#include "framework/engine/step_series.hpp"
#include "framework/io/atomic_file.hpp"
#include "framework/io/hdf5_parallel.hpp"
#include "framework/io/sealed_file.hpp"

namespace rsmc {
namespace {

using namespace io_detail;  // hdf5_util.hpp and hdf5_parallel.hpp

constexpr int kExactWords = exact::ExactSum::kLimbs + 3 + 1;  // limbs, non-finite counts, pending

// ---- hashing (splitmix64 finaliser chained over 64-bit words) ----

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  std::uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
std::uint64_t bits_of(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// Sum over this rank's particles of hash(global id, state components, log-weight).
std::uint64_t block_checksum(const CheckpointBlock& b, int d) {
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < b.count; ++i) {
    std::uint64_t h = mix(0x5eedULL, b.first_id + i);
    for (int c = 0; c < d; ++c) h = mix(h, bits_of(b.state[static_cast<std::size_t>(c) * b.count + i]));
    sum += mix(h, bits_of(b.log_weight[i]));
  }
  return sum;
}

// The exact log-likelihood accumulator as plain words, and back.
std::vector<std::int64_t> exact_words(exact::ExactSum s) {
  s.normalize();
  std::vector<std::int64_t> w(s.limb, s.limb + exact::ExactSum::kLimbs);
  w.insert(w.end(), s.nonfinite, s.nonfinite + 3);
  w.push_back(static_cast<std::int64_t>(s.pending));
  return w;
}
// What exact_words() writes: every limb but the top in [0, 2^32), no pending adds, non-negative
// counts. A damaged file can hold anything, and normalising arbitrary limbs overflows.
bool is_normal_exact_sum(const std::vector<std::int64_t>& w) {
  constexpr std::int64_t kDigit = std::int64_t{1} << 32, kTopBound = std::int64_t{1} << 62;
  for (int k = 0; k < exact::ExactSum::kTop; ++k)
    if (w[k] < 0 || w[k] >= kDigit) return false;
  if (w[exact::ExactSum::kTop] <= -kTopBound || w[exact::ExactSum::kTop] >= kTopBound) return false;
  for (int i = 0; i < 3; ++i)
    if (w[exact::ExactSum::kLimbs + i] < 0) return false;
  return w.back() == 0;
}
exact::ExactSum exact_from_words(const std::vector<std::int64_t>& w) {
  exact::ExactSum s{};
  std::copy(w.begin(), w.begin() + exact::ExactSum::kLimbs, s.limb);
  std::copy(w.begin() + exact::ExactSum::kLimbs, w.begin() + exact::ExactSum::kLimbs + 3, s.nonfinite);
  s.pending = static_cast<decltype(s.pending)>(w.back());
  return s;
}

// ---- the per-step series (framework/engine/step_series.hpp), all under /progress ----

std::string progress_path(const StepSeries& series) { return std::string("progress/") + series.name; }

template <class T>
std::uint64_t word_of(T x) {
  if constexpr (std::is_floating_point_v<T>)
    return bits_of(x);
  else
    return static_cast<std::uint64_t>(x);
}

// A hash of the step attributes, every value of every series and the exact log-likelihood.
std::uint64_t progress_checksum(const RunProgress& p) {
  std::uint64_t h = mix(0x9e0ULL, static_cast<std::uint64_t>(p.step));
  h = mix(h, bits_of(p.log_total_weight));
  for (const StepSeries& series : kStepSeries)
    std::visit(
        [&](const auto& column) {
          for (auto x : stored_values(column, p.result)) h = mix(h, word_of(x));
        },
        series.column);
  for (std::int64_t w : exact_words(p.log_likelihood)) h = mix(h, static_cast<std::uint64_t>(w));
  return h;
}

// Every series holds one entry (or d) per step: they are written from their data().
bool series_complete(const FilterResult& r, std::size_t steps, int d) {
  for (const StepSeries& series : kStepSeries) {
    const std::size_t size = stored_size(series, r);
    if (size != series_length(series, steps, static_cast<std::size_t>(d))) return false;
  }
  return true;
}

// File bytes of the series per step.
double series_bytes_per_step(int d) {
  double bytes = 0.0;
  for (const StepSeries& series : kStepSeries)
    std::visit(
        [&](const auto& column) {
          using Value = ValueOf<decltype(column)>;
          bytes += static_cast<double>(series_length(series, 1, static_cast<std::size_t>(d)) * sizeof(Value));
        },
        series.column);
  return bytes;
}

// ---- writing: the steps of write_checkpoint ----

// Where a checkpoint is written: the temporary file (rank 0's name, on every rank) beside the target.
struct Target {
  std::string path, dir, tmp;
  std::string what;  // "checkpoint '<path>'", to start messages
  std::string fail;  // what + ": cannot write the temporary file '<tmp>'"
};

Target target_of(MPI_Comm comm, const std::string& path) {
  Target t;
  t.path = path;
  t.what = "checkpoint '" + path + "'";
  const std::filesystem::path p(path);
  t.dir = p.parent_path().empty() ? "." : p.parent_path().string();
  std::string error;
  try {
    t.tmp = atomic_temporary_path(path);
  } catch (const Error& e) {
    error = e.what();
  }
  agree_all(comm, error);
  t.tmp = broadcast_text(comm, t.tmp);
  t.fail = t.what + ": cannot write the temporary file '" + t.tmp + "'";
  return t;
}

// Removes the temporary files of earlier writes of the same checkpoint whose writers were killed
// (".<name>.tmp.<host>.<pid>" of a process that is gone: abandoned_temporary, never a live run's).
void remove_leftovers(const Target& t) {
  remove_abandoned_temporaries(t.dir, "." + std::filesystem::path(t.path).filename().string() + ".tmp.");
}

// Rank 0's error (or ""): the directory is missing, not writable, or has no room for the file.
std::string directory_problem(const Target& t, const CheckpointInfo& info, const RunProgress& progress) {
  struct stat st;
  if (::stat(t.dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return t.what + ": the directory '" + t.dir + "' does not exist";
  if (::access(t.dir.c_str(), W_OK) != 0)
    return t.what + ": cannot write in the directory '" + t.dir + "': " + std::strerror(errno);
  struct statvfs fs;
  if (::statvfs(t.dir.c_str(), &fs) != 0) return "";
  // Parallel HDF5 cannot close a file safely after a failed write (its close is collective and may
  // wait forever on a rank that gave up), so a full disk is best found before writing.
  const double need = static_cast<double>(info.particles) * (info.state_dim + 2) * 8.0 +
                      static_cast<double>(progress.step) * series_bytes_per_step(info.state_dim) + 65536.0;
  const double have = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
  if (have >= need) return "";
  return t.what + ": not enough space in '" + t.dir + "' (disk full): the checkpoint needs about " +
         std::to_string(static_cast<long long>(need)) + " bytes, " + std::to_string(static_cast<long long>(have)) +
         " are available";
}

// Collective: refuses inconsistent input (every rank checks its own) and, on rank 0, a directory that
// cannot take the file, before anything is created.
void preflight(MPI_Comm comm, const Target& t, const CheckpointInfo& info, const RunProgress& progress,
               const CheckpointBlock& block) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string error;
  if (block.state.size() != block.count * static_cast<std::uint64_t>(info.state_dim) ||
      block.log_weight.size() != block.count)
    error = t.what + ": internal error: the particle block has inconsistent sizes";
  else if (!series_complete(progress.result, static_cast<std::size_t>(progress.step), info.state_dim))
    error = t.what + ": internal error: the run progress has series of inconsistent lengths";
  else if (rank == 0) {
    remove_leftovers(t);
    error = directory_problem(t, info, progress);
  }
  agree_all(comm, error);
}

hid_t create_parallel_file(MPI_Comm comm, const Target& t) {
  Hid fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  require(fapl.valid() && H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL) >= 0, t.fail + " (no MPI-IO driver)");
  Hid fcpl(sealable_file_plist(), H5Pclose);
  const hid_t file = fcpl.valid() ? H5Fcreate(t.tmp.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()) : -1;
  require(file >= 0, t.fail + " (cannot create it)");
  return file;
}

// /particles: every rank writes its block of global ids.
void write_particles(MPI_Comm comm, hid_t f, const Target& t, const CheckpointInfo& info,
                     const CheckpointBlock& block) {
  Hid particles(create_group(f, "particles", t.fail), H5Gclose);
  const hid_t g = particles.get();
  const hsize_t n = info.particles, d = static_cast<hsize_t>(info.state_dim);
  write_block(comm, t.tmp, g, "state", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, d, n, block.first_id, block.count,
              block.state.data(), t.fail);
  write_block(comm, t.tmp, g, "log_weight", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, n, block.first_id, block.count,
              block.log_weight.data(), t.fail);
  std::vector<std::uint64_t> ids(block.count);
  for (std::uint64_t i = 0; i < block.count; ++i) ids[i] = block.first_id + i;
  write_block(comm, t.tmp, g, "id", H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, n, block.first_id, block.count, ids.data(),
              t.fail);
}

// /progress: the series of steps 1..T and the exact log-likelihood, written by rank 0.
void write_progress(MPI_Comm comm, hid_t f, const Target& t, const RunProgress& progress, int d) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  Hid group(create_group(f, "progress", t.fail), H5Gclose);
  const hid_t g = group.get();
  const bool writer = rank == 0;
  const auto steps = static_cast<hsize_t>(progress.step), dim = static_cast<hsize_t>(d);
  for (const StepSeries& series : kStepSeries)
    std::visit(
        [&](const auto& column) {
          const auto& values = stored_values(column, progress.result);
          using Value = ValueOf<decltype(column)>;
          write_small(comm, t.tmp, g, series.name, Hdf5Type<Value>::file(), Hdf5Type<Value>::memory(),
                      series.per_component ? std::vector<hsize_t>{steps, dim} : std::vector<hsize_t>{steps},
                      values.data(), writer, t.fail);
        },
        series.column);
  const std::vector<std::int64_t> words = exact_words(progress.log_likelihood);
  write_small(comm, t.tmp, g, "log_likelihood_exact", H5T_STD_I64LE, H5T_NATIVE_INT64, {words.size()}, words.data(),
              writer, t.fail);
}

// The root attributes (identical on every rank, as parallel HDF5 requires).
void write_attributes(hid_t f, const Target& t, const CheckpointInfo& info, const RunProgress& progress,
                      std::uint64_t particle_sum) {
  const std::uint64_t progress_sum = progress_checksum(progress);
  write_int64_attributes(f,
                         {{"format_version", info.format_version},
                          {"rng_version", info.rng_version},
                          {"step", progress.step},
                          {"particles", static_cast<std::int64_t>(info.particles)},
                          {"state_dim", info.state_dim}},
                         t.fail);
  write_attribute(f, "log_total_weight", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &progress.log_total_weight, t.fail);
  write_attribute(f, "particle_checksum", H5T_STD_U64LE, H5T_NATIVE_UINT64, &particle_sum, t.fail);
  write_attribute(f, "progress_checksum", H5T_STD_U64LE, H5T_NATIVE_UINT64, &progress_sum, t.fail);
  write_text_attribute(f, "model", info.model, t.fail);
  write_text_attribute(f, "parameters", info.parameters, t.fail);
  write_text_attribute(f, "identity", info.identity, t.fail);
  write_text_attribute(f, "configuration", info.configuration, t.fail);
}

// Collective: seals the closed temporary file and makes it visible under its name (rank 0:
// fsync, rename, directory fsync); on failure every rank throws and the temporary file is gone.
void publish(MPI_Comm comm, const Target& t) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string error;
  try {
    const Sha256::Digest digest = seal_file(comm, t.tmp, SealedKind::checkpoint, t.fail);
    if (rank == 0) {
      try {
        publish_atomically(t.tmp, t.path, true);
        remember_sealed_file(t.path, digest);
      } catch (const Error& e) {
        error = t.what + ": " + e.what();
      }
    }
    agree_all(comm, error);
  } catch (const Error&) {
    if (rank == 0) ::unlink(t.tmp.c_str());
    throw;
  }
}

}  // namespace

std::string checkpoint_name(int step) {
  char name[32];
  std::snprintf(name, sizeof name, "checkpoint-%09d.h5", step);
  return name;
}

std::vector<std::string> list_checkpoints(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    int step = 0;
    char tail[8] = {0};
    if (name.size() == std::strlen("checkpoint-000000000.h5") &&
        std::sscanf(name.c_str(), "checkpoint-%9d.%2s", &step, tail) == 2 && std::string(tail) == "h5" &&
        name == checkpoint_name(step))
      names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  for (auto& n : names) n = (std::filesystem::path(dir) / n).string();
  return names;
}

void write_checkpoint(MPI_Comm comm, const std::string& path, const CheckpointInfo& info, const RunProgress& progress,
                      const CheckpointBlock& block) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const Target target = target_of(comm, path);
  preflight(comm, target, info, progress, block);
  std::uint64_t particle_sum = block_checksum(block, info.state_dim);
  MPI_Allreduce(MPI_IN_PLACE, &particle_sum, 1, MPI_UINT64_T, MPI_SUM, comm);  // wraps mod 2^64 on every rank alike

  std::string error;
  try {
    SilenceHdf5Errors silence;
    Hid file(create_parallel_file(comm, target), H5Fclose);
    write_particles(comm, file.get(), target, info, block);
    write_progress(comm, file.get(), target, progress, info.state_dim);
    write_attributes(file.get(), target, info, progress, particle_sum);
    require(file.close(), target.fail + " (cannot flush it; disk full?)");
  } catch (const Error& e) {
    error = e.what();
  }
  try {
    agree_all(comm, error);
  } catch (const Error&) {
    if (rank == 0) ::unlink(target.tmp.c_str());
    throw;
  }
  publish(comm, target);
}

CheckpointContents read_checkpoint_header(MPI_Comm comm, const std::string& path) {
  const std::string what = "checkpoint '" + path + "'";
  CheckpointContents out;
  // The whole file is checked before HDF5 parses any of it (framework/io/sealed_file.hpp).
  out.info.digest = verify_sealed_file(comm, path, SealedKind::checkpoint, what);
  std::string error;
  try {
    SilenceHdf5Errors silence;
    Hid file(open_hdf5_read_only(path, what), H5Fclose);
    const hid_t f = file.get();
    CheckpointInfo& info = out.info;
    read_attribute(f, "format_version", H5T_NATIVE_INT64, &info.format_version, what);
    if (info.format_version != kCheckpointFormatVersion)
      throw Error(what + ": format version " + std::to_string(info.format_version) +
                  " is not supported; this rsmc reads format " + std::to_string(kCheckpointFormatVersion) +
                  (info.format_version > kCheckpointFormatVersion ? " (written by a newer rsmc?)" : ""));
    read_attribute(f, "rng_version", H5T_NATIVE_INT64, &info.rng_version, what);
    if (info.rng_version != kRngSchemeVersion)
      throw Error(what + ": random-stream scheme version " + std::to_string(info.rng_version) +
                  " differs from this rsmc's (" + std::to_string(kRngSchemeVersion) +
                  "); the run cannot continue bit for bit");
    std::int64_t step = 0, particles = 0, dim = 0;
    std::uint64_t stored_progress_sum = 0;
    read_attribute(f, "step", H5T_NATIVE_INT64, &step, what);
    read_attribute(f, "particles", H5T_NATIVE_INT64, &particles, what);
    read_attribute(f, "state_dim", H5T_NATIVE_INT64, &dim, what);
    require(step >= 0 && step < (1LL << 31) && particles >= 1 && dim >= 1 && dim < (1LL << 31),
            what + ": step, particles or state_dim out of range (damaged?)");
    info.particles = static_cast<std::uint64_t>(particles);
    info.state_dim = static_cast<int>(dim);
    info.model = read_text_attribute(f, "model", what);
    info.parameters = read_text_attribute(f, "parameters", what);
    info.identity = read_text_attribute(f, "identity", what);
    info.configuration = read_text_attribute(f, "configuration", what);

    RunProgress& p = out.progress;
    p.step = static_cast<int>(step);
    read_attribute(f, "log_total_weight", H5T_NATIVE_DOUBLE, &p.log_total_weight, what);
    read_attribute(f, "progress_checksum", H5T_NATIVE_UINT64, &stored_progress_sum, what);
    const hsize_t T = static_cast<hsize_t>(step), D = static_cast<hsize_t>(dim);
    p.result.steps = p.step;
    p.result.state_dim = info.state_dim;
    for (const StepSeries& series : kStepSeries)
      std::visit(
          [&](const auto& column) {
            using Value = ValueOf<decltype(column)>;
            read_all(f, progress_path(series), Hdf5Type<Value>::memory(),
                     series.per_component ? std::vector<hsize_t>{T, D} : std::vector<hsize_t>{T},
                     column.stored(p.result), what);
          },
          series.column);
    std::vector<std::int64_t> words;
    read_all(f, "progress/log_likelihood_exact", H5T_NATIVE_INT64, {static_cast<hsize_t>(kExactWords)}, words, what);
    require(is_normal_exact_sum(words),
            what + ": dataset '/progress/log_likelihood_exact' is not a normalised exact sum (damaged?)");
    p.log_likelihood = exact_from_words(words);
    if (progress_checksum(p) != stored_progress_sum)
      throw Error(what + ": the run progress does not match its checksum (the file is damaged)");
  } catch (const Error& e) {
    error = e.what();
  }
  agree_all(comm, error);
  return out;
}

CheckpointBlock read_checkpoint_block(MPI_Comm comm, const std::string& path, const CheckpointInfo& info,
                                      std::uint64_t first_id, std::uint64_t count) {
  const std::string what = "checkpoint '" + path + "'";
  CheckpointBlock b;
  b.first_id = first_id;
  b.count = count;
  std::uint64_t stored = 0;
  std::string error;
  try {
    require_same_seal(path, info.digest, what);  // the file read_checkpoint_header verified
    SilenceHdf5Errors silence;
    Hid file(open_hdf5_read_only(path, what), H5Fclose);
    const hid_t f = file.get();
    read_attribute(f, "particle_checksum", H5T_NATIVE_UINT64, &stored, what);
    read_block(f, "particles/state", H5T_NATIVE_DOUBLE, static_cast<hsize_t>(info.state_dim), info.particles, first_id,
               count, b.state, what);
    read_block(f, "particles/log_weight", H5T_NATIVE_DOUBLE, 0, info.particles, first_id, count, b.log_weight, what);
  } catch (const Error& e) {
    error = e.what();
  }
  agree_all(comm, error);
  std::uint64_t checksum = block_checksum(b, info.state_dim);
  MPI_Allreduce(MPI_IN_PLACE, &checksum, 1, MPI_UINT64_T, MPI_SUM, comm);
  if (checksum != stored) throw Error(what + ": the particle data do not match their checksum (the file is damaged)");
  return b;
}

}  // namespace rsmc
