// Structure-aware fuzz entry for the checkpoint reader. Raw bytes rarely get past HDF5's own format
// checks, so here the input first shapes a valid checkpoint (particle count, state dimension, step,
// texts and every stored number), which write_checkpoint writes, and then damages it through the
// HDF5 API: attribute values and types, dataset shapes, types and contents, missing objects, and
// reseals it (a new digest: as if another program had written it so), so that the seal passes. The
// file stays well-formed HDF5, so what is tested is rsmc's own validation behind the seal: the
// reader must refuse every damaged checkpoint with rsmc::Error, or accept it consistently.
// (Byte-level damage is the raw `checkpoint` target's job: the seal refuses it before HDF5.)
#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "byte_reader.hpp"
#include "checkpoint_reading.hpp"
#include "framework/io/checkpoint_file.hpp"
#include "framework/io/hdf5_util.hpp"
#include "framework/io/sealed_file.hpp"
#include "fuzz_targets.hpp"
#include "scratch_file.hpp"

namespace rsmc::fuzz {
namespace {

constexpr const char* kAttributes[] = {
    "format_version",    "rng_version",       "step",  "particles",  "state_dim", "log_total_weight",
    "particle_checksum", "progress_checksum", "model", "parameters", "identity",  "configuration"};
constexpr const char* kDatasets[] = {"particles/state",
                                     "particles/log_weight",
                                     "particles/id",
                                     "progress/ess",
                                     "progress/log_likelihood_increment",
                                     "progress/filtered_mean",
                                     "progress/filtered_variance",
                                     "progress/resampled",
                                     "progress/particles_moved",
                                     "progress/log_likelihood_exact"};
template <class T, std::size_t N>
const T& pick(ByteReader& in, const T (&options)[N]) {
  return options[in.below(N)];
}

// Integers that sit on the readers' limits.
std::int64_t edge_integer(ByteReader& in) {
  constexpr std::int64_t kEdges[] = {0,         1,         2,         -1,       7, 1LL << 31, (1LL << 31) - 1,
                                     1LL << 40, 1LL << 62, INT64_MIN, INT64_MAX};
  return in.below(2) ? pick(in, kEdges) : static_cast<std::int64_t>(in.u64());
}

hid_t scalar_or_array_space(ByteReader& in) {
  if (in.below(4) != 0) return H5Screate(H5S_SCALAR);
  const hsize_t n = in.below(4);
  return H5Screate_simple(1, &n, nullptr);
}

// Replaces attribute `name` by one of another type or value (the write may fail: fine).
void rewrite_attribute(hid_t file, const char* name, ByteReader& in) {
  H5Adelete(file, name);
  const hid_t space = scalar_or_array_space(in);
  const unsigned kind = in.below(5);
  hid_t type = -1;
  std::vector<char> buffer(64 * 8, '\0');
  if (kind == 0) {  // a 64-bit integer
    type = H5Tcopy(H5T_NATIVE_INT64);
    for (int i = 0; i < 8; ++i) {
      const std::int64_t v = edge_integer(in);
      std::memcpy(buffer.data() + 8 * i, &v, 8);
    }
  } else if (kind == 1) {  // a double
    type = H5Tcopy(H5T_NATIVE_DOUBLE);
    const double v = in.f64();
    std::memcpy(buffer.data(), &v, 8);
  } else if (kind == 2) {  // a fixed-length string of any bytes
    const std::string s = in.text(40);
    type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, std::max<std::size_t>(s.size(), 1));
    std::memcpy(buffer.data(), s.data(), s.size());
  } else if (kind == 3) {  // a variable-length string
    type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    static const char* const text = "variable";
    std::memcpy(buffer.data(), &text, sizeof text);
  } else {  // a single byte
    type = H5Tcopy(H5T_NATIVE_UINT8);
    buffer[0] = static_cast<char>(in.byte());
  }
  const hid_t attr = H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  if (attr >= 0) {
    H5Awrite(attr, type, buffer.data());
    H5Aclose(attr);
  }
  H5Tclose(type);
  H5Sclose(space);
}

// Replaces dataset `name` by one of another shape and type, or rewrites its contents.
void rewrite_dataset(hid_t file, const char* name, ByteReader& in) {
  if (in.below(2) == 0) {  // same shape and type, new bytes
    const hid_t dset = H5Dopen2(file, name, H5P_DEFAULT);
    if (dset < 0) return;
    const hid_t space = H5Dget_space(dset);
    const hid_t type = H5Dget_type(dset);
    const hssize_t n = H5Sget_simple_extent_npoints(space);
    const std::size_t bytes = n > 0 ? static_cast<std::size_t>(n) * H5Tget_size(type) : 0;
    std::vector<std::uint8_t> data(bytes);
    for (auto& b : data) b = in.byte();
    if (bytes > 0) H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data());
    H5Tclose(type);
    H5Sclose(space);
    H5Dclose(dset);
    return;
  }
  H5Ldelete(file, name, H5P_DEFAULT);
  const int rank = static_cast<int>(in.below(4));
  hsize_t dims[3] = {in.below(6), in.below(6), in.below(6)};
  const hid_t space = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims, nullptr);
  static const hid_t* const kTypes[] = {&H5T_NATIVE_DOUBLE_g, &H5T_NATIVE_INT8_g, &H5T_NATIVE_UINT64_g,
                                        &H5T_NATIVE_INT64_g};
  const hid_t type = *pick(in, kTypes);
  // Sometimes never written: the dataset then has a shape but no storage.
  const hid_t dset = H5Dcreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (dset >= 0 && in.below(2) == 0) {
    std::vector<std::uint8_t> data(216 * 8);
    for (auto& b : data) b = in.byte();
    H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data());
  }
  if (dset >= 0) H5Dclose(dset);
  H5Sclose(space);
}

void damage(const std::string& path, ByteReader& in) {
  const io_detail::SilenceHdf5Errors quiet;  // many of the edits fail (deleting what is gone): fine
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) return;
  for (unsigned n = in.below(4); n > 0; --n) {
    switch (in.below(4)) {
      case 0:
        rewrite_attribute(file, pick(in, kAttributes), in);
        break;
      case 1:
        H5Adelete(file, pick(in, kAttributes));
        break;
      case 2:
        rewrite_dataset(file, pick(in, kDatasets), in);
        break;
      default:
        H5Ldelete(file, pick(in, kDatasets), H5P_DEFAULT);
        break;
    }
  }
  H5Fclose(file);
}

}  // namespace

void checkpoint_structured_input(const std::uint8_t* data, std::size_t size) {
  ByteReader in(data, size);
  const int steps = static_cast<int>(in.below(4));
  const int dim = 1 + static_cast<int>(in.below(3));
  const std::uint64_t particles = 1 + in.below(6);

  CheckpointInfo info;
  info.particles = particles;
  info.state_dim = dim;
  info.model = in.text(12);
  info.parameters = in.text(12);
  info.identity = in.text(24);
  info.configuration = in.text(24);

  RunProgress progress;
  progress.step = steps;
  progress.log_total_weight = in.f64();
  progress.log_likelihood.clear();
  FilterResult& r = progress.result;
  r.state_dim = dim;
  const auto T = static_cast<std::size_t>(steps), D = static_cast<std::size_t>(dim);
  // The steps, decoded in the order the committed corpus and regressions were made with.
  for (std::size_t t = 0; t < T; ++t) {
    StepSummary step;
    step.ess = in.f64();
    step.log_likelihood_increment = in.f64();
    progress.log_likelihood.add(step.log_likelihood_increment);
    const std::uint8_t resampled = in.byte();
    ResampleStats& traffic = step.resample_stats;
    for (std::uint64_t* field : {&traffic.particles_moved, &traffic.bytes_moved, &traffic.messages,
                                 &traffic.max_partners, &traffic.minimum_moves})
      *field = in.u64();
    step.invalid_likelihoods = in.byte() < 16 ? in.u64() : 0;  // mostly none, as in real runs
    // step.imbalance keeps its default (1): decoding it would change what the committed inputs mean.
    for (std::size_t c = 0; c < D; ++c) {
      step.mean.push_back(in.f64());
      step.variance.push_back(in.f64());
    }
    r.append(step);
    r.resampled.back() = resampled;  // any byte, not only 0 / 1
  }
  CheckpointBlock block;
  block.count = particles;
  for (std::size_t i = 0; i < particles * D; ++i) block.state.push_back(in.f64());
  for (std::size_t i = 0; i < particles; ++i) block.log_weight.push_back(in.f64());

  const std::string path = scratch_path(".h5");
  write_checkpoint(MPI_COMM_SELF, path, info, progress, block);
  damage(path, in);
  seal_file(MPI_COMM_SELF, path, SealedKind::checkpoint, "fuzz: cannot reseal the damaged checkpoint");
  read_whole_checkpoint(path);
}

}  // namespace rsmc::fuzz
