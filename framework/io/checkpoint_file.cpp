#include "framework/io/checkpoint_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "base/core/error.hpp"
#include "framework/io/hdf5_parallel.hpp"

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

// The per-step series of the progress, by name (the result file's names).
struct DoubleSeries {
  const char* name;
  std::vector<double> FilterResult::*member;
  bool per_component;
};
constexpr DoubleSeries kDoubleSeries[] = {
    {"ess", &FilterResult::ess, false},
    {"log_likelihood_increment", &FilterResult::log_likelihood_increment, false},
    {"filtered_mean", &FilterResult::mean, true},
    {"filtered_variance", &FilterResult::variance, true},
};

std::uint64_t progress_checksum(const RunProgress& p) {
  std::uint64_t h = mix(0x9e0ULL, static_cast<std::uint64_t>(p.step));
  h = mix(h, bits_of(p.log_total_weight));
  for (const DoubleSeries& s : kDoubleSeries)
    for (double x : p.result.*s.member) h = mix(h, bits_of(x));
  for (std::uint8_t r : p.result.resampled) h = mix(h, r);
  for (const TrafficField& s : kTrafficFields)
    for (std::uint64_t x : p.result.traffic.*s.member) h = mix(h, x);
  for (std::int64_t w : exact_words(p.log_likelihood)) h = mix(h, static_cast<std::uint64_t>(w));
  // Only the non-zero counts, with their step: checkpoints written before the counts existed (all
  // zero) keep their checksum.
  for (std::size_t t = 0; t < p.result.invalid_likelihoods.size(); ++t)
    if (p.result.invalid_likelihoods[t] != 0) h = mix(mix(h, t), p.result.invalid_likelihoods[t]);
  return h;
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

void write_checkpoint(MPI_Comm comm, const std::string& path, const CheckpointInfo& info,
                      const RunProgress& progress, const CheckpointBlock& block) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::string what = "checkpoint '" + path + "'";
  const int d = info.state_dim;
  const hsize_t n = info.particles, steps = static_cast<hsize_t>(progress.step);
  if (block.state.size() != block.count * static_cast<std::uint64_t>(d) || block.log_weight.size() != block.count)
    throw Error(what + ": internal error: the particle block has inconsistent sizes");
  // Every per-step series must hold one entry per step (they are written from their data()).
  const FilterResult& r = progress.result;
  bool sizes_ok = r.resampled.size() == steps && r.invalid_likelihoods.size() == steps;
  for (const DoubleSeries& s : kDoubleSeries)
    sizes_ok = sizes_ok && (r.*s.member).size() == (s.per_component ? steps * static_cast<hsize_t>(d) : steps);
  for (const TrafficField& s : kTrafficFields) sizes_ok = sizes_ok && (r.traffic.*s.member).size() == steps;
  if (!sizes_ok) throw Error(what + ": internal error: the run progress has series of inconsistent lengths");

  std::uint64_t checksum = block_checksum(block, d);
  MPI_Allreduce(MPI_IN_PLACE, &checksum, 1, MPI_UINT64_T, MPI_SUM, comm);  // wraps mod 2^64 on every rank alike
  const std::uint64_t progress_sum = progress_checksum(progress);

  const std::filesystem::path target(path);
  const std::string dir = target.parent_path().empty() ? "." : target.parent_path().string();
  // Named: "." + a temporary gives a bogus -Wrestrict (GCC 12, C++20, -O3).
  const std::string name = target.filename().string();
  const std::string tmp = (std::filesystem::path(dir) / ("." + name + ".tmp")).string();
  const std::string fail = what + ": cannot write the temporary file '" + tmp + "'";
  {
    std::string error;
    if (rank == 0) {
      struct stat st;
      if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        error = what + ": the directory '" + dir + "' does not exist";
      else if (::access(dir.c_str(), W_OK) != 0)
        error = what + ": cannot write in the directory '" + dir + "': " + std::strerror(errno);
      else if (struct statvfs fs; ::statvfs(dir.c_str(), &fs) == 0) {
        // Parallel HDF5 cannot close a file safely after a failed write (its close is collective and
        // may wait forever on a rank that gave up), so a full disk is best found before writing.
        const double need = static_cast<double>(info.particles) * (info.state_dim + 2) * 8.0 +
                            static_cast<double>(progress.step) * (info.state_dim * 2 + 9) * 8.0 + 65536.0;
        const double have = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
        if (have < need)
          error = what + ": not enough space in '" + dir + "' (disk full): the checkpoint needs about " +
                  std::to_string(static_cast<long long>(need)) + " bytes, " +
                  std::to_string(static_cast<long long>(have)) + " are available";
      }
      ::unlink(tmp.c_str());  // a leftover of a run killed while writing
    }
    agree_all(comm, error);  // only rank 0 can have failed here
  }

  std::string error;
  try {
    SilenceHdf5Errors silence;
    Hid fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    require(fapl.valid() && H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL) >= 0, fail + " (no MPI-IO driver)");
    Hid fcpl(create_untimed_plist(H5P_FILE_CREATE), H5Pclose);
    Hid file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()), H5Fclose);
    require(file.valid(), fail + " (cannot create it)");
    const hid_t f = file.get();
    {
      Hid particles(create_group(f, "particles", fail), H5Gclose);
      write_block(comm, tmp, particles.get(), "state", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, static_cast<hsize_t>(d), n,
                  block.first_id, block.count, block.state.data(), fail);
      write_block(comm, tmp, particles.get(), "log_weight", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, n, block.first_id, block.count,
                  block.log_weight.data(), fail);
      std::vector<std::uint64_t> ids(block.count);
      for (std::uint64_t i = 0; i < block.count; ++i) ids[i] = block.first_id + i;
      write_block(comm, tmp, particles.get(), "id", H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, n, block.first_id, block.count,
                  ids.data(), fail);
    }
    {
      Hid group(create_group(f, "progress", fail), H5Gclose);
      const hid_t g = group.get();
      const bool writer = rank == 0;
      const hsize_t dd = static_cast<hsize_t>(d);
      for (const DoubleSeries& s : kDoubleSeries)
        write_small(comm, tmp, g, s.name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                    s.per_component ? std::vector<hsize_t>{steps, dd} : std::vector<hsize_t>{steps},
                    (progress.result.*s.member).data(), writer, fail);
      write_small(comm, tmp, g, "resampled", H5T_STD_U8LE, H5T_NATIVE_UINT8, {steps}, progress.result.resampled.data(), writer,
                  fail);
      for (const TrafficField& s : kTrafficFields)
        write_small(comm, tmp, g, s.name, H5T_STD_U64LE, H5T_NATIVE_UINT64, {steps}, (progress.result.traffic.*s.member).data(),
                    writer, fail);
      write_small(comm, tmp, g, "invalid_likelihoods", H5T_STD_U64LE, H5T_NATIVE_UINT64, {steps},
                  progress.result.invalid_likelihoods.data(), writer, fail);
      const std::vector<std::int64_t> words = exact_words(progress.log_likelihood);
      write_small(comm, tmp, g, "log_likelihood_exact", H5T_STD_I64LE, H5T_NATIVE_INT64, {words.size()}, words.data(), writer,
                  fail);
    }
    const std::int64_t step = progress.step, particles = static_cast<std::int64_t>(n), dim = d;
    write_attribute(f, "format_version", H5T_STD_I64LE, H5T_NATIVE_INT64, &info.format_version, fail);
    write_attribute(f, "rng_version", H5T_STD_I64LE, H5T_NATIVE_INT64, &info.rng_version, fail);
    write_attribute(f, "step", H5T_STD_I64LE, H5T_NATIVE_INT64, &step, fail);
    write_attribute(f, "particles", H5T_STD_I64LE, H5T_NATIVE_INT64, &particles, fail);
    write_attribute(f, "state_dim", H5T_STD_I64LE, H5T_NATIVE_INT64, &dim, fail);
    write_attribute(f, "log_total_weight", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &progress.log_total_weight, fail);
    write_attribute(f, "particle_checksum", H5T_STD_U64LE, H5T_NATIVE_UINT64, &checksum, fail);
    write_attribute(f, "progress_checksum", H5T_STD_U64LE, H5T_NATIVE_UINT64, &progress_sum, fail);
    write_text_attribute(f, "model", info.model, fail);
    write_text_attribute(f, "parameters", info.parameters, fail);
    write_text_attribute(f, "identity", info.identity, fail);
    write_text_attribute(f, "configuration", info.configuration, fail);
    require(file.close(), fail + " (cannot flush it; disk full?)");
  } catch (const Error& e) {
    error = e.what();
  }
  try {
    agree_all(comm, error);
  } catch (const Error&) {
    if (rank == 0) ::unlink(tmp.c_str());
    throw;
  }

  // Rank 0 makes it visible under its final name, atomically.
  std::string commit_error;
  if (rank == 0) {
    sync_path(tmp, false);
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      commit_error = what + ": cannot move the temporary file into place: " + std::strerror(errno);
      ::unlink(tmp.c_str());
    } else {
      sync_path(dir, true);
    }
  }
  agree_all(comm, commit_error);  // only rank 0 can have failed here
}

CheckpointContents read_checkpoint_header(MPI_Comm comm, const std::string& path) {
  const std::string what = "checkpoint '" + path + "'";
  CheckpointContents out;
  std::string error;
  try {
    SilenceHdf5Errors silence;
    Hid file(open_hdf5_read_only(path, what), H5Fclose);
    const hid_t f = file.get();
    CheckpointInfo& info = out.info;
    read_attribute(f, "format_version", H5T_NATIVE_INT64, &info.format_version, what);
    if (info.format_version > kCheckpointFormatVersion || info.format_version < 1)
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
    for (const DoubleSeries& s : kDoubleSeries)
      read_all(f, std::string("progress/") + s.name, H5T_NATIVE_DOUBLE,
               s.per_component ? std::vector<hsize_t>{T, D} : std::vector<hsize_t>{T}, p.result.*s.member, what);
    read_all(f, "progress/resampled", H5T_NATIVE_UINT8, {T}, p.result.resampled, what);
    for (const TrafficField& s : kTrafficFields)
      read_all(f, std::string("progress/") + s.name, H5T_NATIVE_UINT64, {T}, p.result.traffic.*s.member, what);
    // Absent in checkpoints written before the counts existed: none then.
    p.result.invalid_likelihoods.assign(static_cast<std::size_t>(T), 0);
    if (H5Lexists(f, "progress/invalid_likelihoods", H5P_DEFAULT) > 0)
      read_all(f, "progress/invalid_likelihoods", H5T_NATIVE_UINT64, {T}, p.result.invalid_likelihoods, what);
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
  if (checksum != stored)
    throw Error(what + ": the particle data do not match their checksum (the file is damaged)");
  return b;
}

}  // namespace rsmc
