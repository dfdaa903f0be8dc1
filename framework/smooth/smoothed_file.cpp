// Writing and reading the smoothed-moments file; layout in smoothed_file.hpp.
#include "framework/smooth/smoothed_file.hpp"

#include "base/core/error.hpp"
#include "framework/io/atomic_file.hpp"
#include "framework/io/hdf5_parallel.hpp"

namespace rsmc {
namespace {

using namespace io_detail;  // hdf5_util.hpp and hdf5_parallel.hpp

constexpr const char* kMethod = "genealogy tracing (Kitagawa 1996): the weighted paths of the last recorded step";

void write_dataset(hid_t file, const char* name, hid_t file_type, hid_t mem_type, const std::vector<hsize_t>& dims,
                   const void* data, const std::string& fail) {
  Hid dset(create_dataset(file, name, file_type, dims, fail), H5Dclose);
  require(H5Dwrite(dset.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0 && dset.close(),
          fail + " (cannot write dataset '" + name + "'; disk full?)");
}

}  // namespace

void write_smoothed_file(const std::string& path, const SmoothedMoments& m, const std::string& model,
                         const std::string& trace_path, bool overwrite) {
  write_atomically(path, overwrite, [&](const std::string& tmp) {
    SilenceHdf5Errors silence;
    const std::string fail = "output file '" + path + "': cannot write the temporary file '" + tmp + "'";
    Hid fcpl(create_untimed_plist(H5P_FILE_CREATE), H5Pclose);
    require(fcpl.valid(), fail + " (cannot create it)");
    Hid file(create_file_in_memory(tmp, fcpl.get(), fail), H5Fclose);
    const hid_t f = file.get();
    const hsize_t r = m.steps.size(), d = static_cast<hsize_t>(m.state_dim);
    write_dataset(f, "steps", H5T_STD_I32LE, H5T_NATIVE_INT32, {r}, m.steps.data(), fail);
    write_dataset(f, "smoothed_mean", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {r, d}, m.mean.data(), fail);
    write_dataset(f, "smoothed_variance", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {r, d}, m.variance.data(), fail);
    write_dataset(f, "distinct_ancestors", H5T_STD_U64LE, H5T_NATIVE_UINT64, {r}, m.distinct_ancestors.data(), fail);
    if (!m.path_ids.empty()) {
      const hsize_t paths = m.path_ids.size();
      write_dataset(f, "sampled_paths", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {paths, r, d}, m.paths.data(), fail);
      write_dataset(f, "sampled_path_ids", H5T_STD_U64LE, H5T_NATIVE_UINT64, {paths}, m.path_ids.data(), fail);
    }
    const std::int64_t version = kSmoothedFormatVersion, particles = static_cast<std::int64_t>(m.particles),
                       dim = m.state_dim, final_step = m.final_step;
    write_attribute(f, "smoothed_format_version", H5T_STD_I64LE, H5T_NATIVE_INT64, &version, fail);
    write_attribute(f, "particles", H5T_STD_I64LE, H5T_NATIVE_INT64, &particles, fail);
    write_attribute(f, "state_dim", H5T_STD_I64LE, H5T_NATIVE_INT64, &dim, fail);
    write_attribute(f, "final_step", H5T_STD_I64LE, H5T_NATIVE_INT64, &final_step, fail);
    write_attribute(f, "final_ess", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &m.final_ess, fail);
    write_text_attribute(f, "model", model, fail);
    write_text_attribute(f, "trace", trace_path, fail);
    write_text_attribute(f, "method", kMethod, fail);
    save_output_file(file, tmp, fail);
  });
}

SmoothedFile read_smoothed_file(const std::string& path) {
  const std::string what = "smoothed file '" + path + "'";
  SilenceHdf5Errors silence;
  Hid file(open_hdf5_read_only(path, what), H5Fclose);
  const hid_t f = file.get();
  SmoothedFile out;
  SmoothedMoments& m = out.moments;
  std::int64_t version = 0, particles = 0, dim = 0, final_step = 0;
  read_attribute(f, "smoothed_format_version", H5T_NATIVE_INT64, &version, what);
  require(version == kSmoothedFormatVersion,
          what + ": format version " + std::to_string(version) + " is not supported");
  read_attribute(f, "particles", H5T_NATIVE_INT64, &particles, what);
  read_attribute(f, "state_dim", H5T_NATIVE_INT64, &dim, what);
  read_attribute(f, "final_step", H5T_NATIVE_INT64, &final_step, what);
  read_attribute(f, "final_ess", H5T_NATIVE_DOUBLE, &m.final_ess, what);
  require(particles >= 1 && dim >= 1 && dim < (1LL << 31) && final_step >= 0 && final_step < (1LL << 31),
          what + ": particles, state_dim or final_step out of range (damaged?)");
  m.particles = static_cast<std::uint64_t>(particles);
  m.state_dim = static_cast<int>(dim);
  m.final_step = static_cast<int>(final_step);
  out.model = read_text_attribute(f, "model", what);
  out.trace_path = read_text_attribute(f, "trace", what);
  out.method = read_text_attribute(f, "method", what);
  const hsize_t r = length_1d(f, "steps", what);
  const hsize_t d = static_cast<hsize_t>(dim);
  read_all(f, "steps", H5T_NATIVE_INT32, {r}, m.steps, what);
  read_all(f, "smoothed_mean", H5T_NATIVE_DOUBLE, {r, d}, m.mean, what);
  read_all(f, "smoothed_variance", H5T_NATIVE_DOUBLE, {r, d}, m.variance, what);
  read_all(f, "distinct_ancestors", H5T_NATIVE_UINT64, {r}, m.distinct_ancestors, what);
  if (link_exists(f, "sampled_path_ids")) {
    const hsize_t paths = length_1d(f, "sampled_path_ids", what);
    read_all(f, "sampled_path_ids", H5T_NATIVE_UINT64, {paths}, m.path_ids, what);
    read_all(f, "sampled_paths", H5T_NATIVE_DOUBLE, {paths, r, d}, m.paths, what);
  }
  return out;
}

}  // namespace rsmc
