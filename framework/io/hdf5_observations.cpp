#include "framework/io/hdf5_observations.hpp"

#include <hdf5.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "framework/io/atomic_file.hpp"
#include "framework/io/hdf5_util.hpp"
#include "framework/io/observations_file.hpp"
#include "framework/io/result_attributes.hpp"

namespace rsmc {
namespace {

using namespace io_detail;  // Hid, SilenceHdf5Errors, open_hdf5_read_only, create_untimed_plist

std::string where(const std::string& path) { return "observations file '" + path + "'"; }

// Names of the datasets directly under the root group, for "did you mean" messages.
std::string root_datasets(hid_t file) {
  H5G_info_t info;
  if (H5Gget_info(file, &info) < 0) return "";
  std::string list;
  int shown = 0;
  for (hsize_t i = 0; i < info.nlinks && shown < 10; ++i) {
    const ssize_t len = H5Lget_name_by_idx(file, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (len < 0) continue;
    std::vector<char> name(static_cast<std::size_t>(len) + 1);
    H5Lget_name_by_idx(file, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT);
    Hid obj(H5Oopen(file, name.data(), H5P_DEFAULT), H5Oclose);
    if (!obj.valid() || H5Iget_type(obj.get()) != H5I_DATASET) continue;
    list += (shown++ ? ", " : "") + std::string("'") + name.data() + "'";
  }
  return list.empty() ? "none at the top level" : list;
}

std::string class_name(H5T_class_t c) {
  switch (c) {
    case H5T_INTEGER:
      return "integer";
    case H5T_FLOAT:
      return "floating-point";
    case H5T_STRING:
      return "string";
    case H5T_BITFIELD:
      return "bitfield";
    case H5T_OPAQUE:
      return "opaque";
    case H5T_COMPOUND:
      return "compound";
    case H5T_REFERENCE:
      return "reference";
    case H5T_ENUM:
      return "enum";
    case H5T_VLEN:
      return "variable-length";
    case H5T_ARRAY:
      return "array";
    default:
      return "unknown";
  }
}

}  // namespace

Observations read_observations_hdf5(const std::string& path, const std::string& dataset) {
  SilenceHdf5Errors silence;
  const std::string what = where(path);
  if (dataset.empty()) throw Error(what + ": the dataset name is empty; expected e.g. 'observations'");
  Hid file(open_hdf5_read_only(path, what), H5Fclose);
  const std::string ds = what + ", dataset '" + dataset + "'";

  Hid obj(H5Oopen(file.get(), dataset.c_str(), H5P_DEFAULT), H5Oclose);
  if (!obj.valid())
    throw Error(what + ": no dataset '" + dataset + "' (datasets found: " + root_datasets(file.get()) + ")");
  if (H5Iget_type(obj.get()) != H5I_DATASET)
    throw Error(ds + ": is a group or named type, not a dataset; expected a 1-D or 2-D dataset of numbers");

  Hid type(H5Dget_type(obj.get()), H5Tclose);
  if (!type.valid()) throw Error(ds + ": cannot read its type");
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls != H5T_FLOAT)
    throw Error(ds + ": has " + class_name(cls) + " type; expected floating-point numbers (float or double)");

  Hid space(H5Dget_space(obj.get()), H5Sclose);
  if (!space.valid()) throw Error(ds + ": cannot read its shape");
  const H5S_class_t space_class = H5Sget_simple_extent_type(space.get());
  if (space_class == H5S_NULL) throw Error(ds + ": is empty; expected at least one step");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (space_class == H5S_SCALAR || rank < 1 || rank > 2)
    throw Error(ds + ": has rank " + std::to_string(space_class == H5S_SCALAR ? 0 : rank) +
                "; expected a 1-D (T) or 2-D (T x m) dataset");
  hsize_t dims[2] = {0, 1};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  if (dims[0] == 0 || dims[1] == 0)
    throw Error(ds + ": is empty (" + std::to_string(dims[0]) + (rank == 2 ? " x " + std::to_string(dims[1]) : "") +
                "); expected at least one step and one component");
  const hsize_t int_max = static_cast<hsize_t>(std::numeric_limits<int>::max());
  if (dims[0] > int_max || dims[1] > int_max || dims[0] * dims[1] > int_max)
    throw Error(ds + ": is too large (" + std::to_string(dims[0]) + " x " + std::to_string(dims[1]) + "); at most " +
                std::to_string(int_max) + " values are supported");

  Observations obs;
  obs.steps = static_cast<int>(dims[0]);
  obs.dim = static_cast<int>(dims[1]);
  obs.values.resize(static_cast<std::size_t>(dims[0] * dims[1]));
  if (H5Dread(obj.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, obs.values.data()) < 0)
    throw Error(ds + ": cannot read its values (damaged file?)");

  const double missing = std::numeric_limits<double>::quiet_NaN();
  for (int t = 1; t <= obs.steps; ++t) {
    double* y = obs.values.data() + static_cast<std::size_t>(t - 1) * static_cast<std::size_t>(obs.dim);
    int nan = 0;
    for (int j = 0; j < obs.dim; ++j) {
      if (std::isnan(y[j])) {
        ++nan;
        y[j] = missing;  // one canonical quiet NaN, as the CSV reader stores
      } else if (!std::isfinite(y[j])) {
        throw Error(ds + ": row " + std::to_string(t - 1) + " (step " + std::to_string(t) + "), column " +
                    std::to_string(j) + " is infinite; expected finite numbers, or NaN for a missing step");
      }
    }
    if (nan != 0 && nan != obs.dim)
      throw Error(ds + ": row " + std::to_string(t - 1) + " (step " + std::to_string(t) + ") has " +
                  std::to_string(nan) + " of " + std::to_string(obs.dim) +
                  " values NaN; rsmc cannot filter partially observed steps: expected all NaN (missing) or none");
  }
  return obs;
}

void write_observations_hdf5(const std::string& path, const Observations& obs, bool overwrite,
                             const Observations* states, const std::string& model) {
  const std::string what = "output file '" + path + "'";
  validate_observations(obs, what);
  if (states != nullptr) {
    validate_observations(*states, what + " (states)");
    if (states->steps != obs.steps)
      throw Error(what + ": " + std::to_string(states->steps) + " states for " + std::to_string(obs.steps) +
                  " observations; expected one state per observation");
  }
  SilenceHdf5Errors silence;

  write_atomically(path, overwrite, [&](const std::string& tmp) {
    const std::string fail = what + ": cannot write the temporary file '" + tmp + "'";
    Hid fcpl(create_untimed_plist(H5P_FILE_CREATE), H5Pclose);  // no timestamps in the file
    Hid file(create_file_in_memory(tmp, fcpl.valid() ? fcpl.get() : H5P_DEFAULT, fail), H5Fclose);
    // A T x m float64 dataset with the 64-bit integer attribute "columns" = m.
    auto write_series = [&](const char* name, const Observations& series) {
      const hsize_t dims[2] = {static_cast<hsize_t>(series.steps), static_cast<hsize_t>(series.dim)};
      Hid space(H5Screate_simple(2, dims, nullptr), H5Sclose);
      Hid dcpl(create_untimed_plist(H5P_DATASET_CREATE), H5Pclose);
      if (!space.valid() || !dcpl.valid()) throw Error(fail);
      Hid dset(H5Dcreate2(file.get(), name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
               H5Dclose);
      if (!dset.valid()) throw Error(fail + " (cannot create dataset '" + name + "')");
      if (H5Dwrite(dset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, series.values.data()) < 0)
        throw Error(fail + " (cannot write dataset '" + name + "'; disk full?)");

      Hid scalar(H5Screate(H5S_SCALAR), H5Sclose);
      if (!scalar.valid()) throw Error(fail);
      Hid attr(H5Acreate2(dset.get(), "columns", H5T_STD_I64LE, scalar.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      const std::int64_t columns = series.dim;
      if (!attr.valid() || H5Awrite(attr.get(), H5T_NATIVE_INT64, &columns) < 0)
        throw Error(fail + " (cannot write attribute 'columns' of '" + name + "')");
      if (!attr.close() || !dset.close()) throw Error(fail);
    };
    write_series("observations", obs);
    if (states != nullptr) write_series("state", *states);
    if (!model.empty()) io_detail::write_attributes(file.get(), ResultAttributes{{{"model", model}}, {}, {}}, fail);
    save_output_file(file, tmp, fail);
  });
}

std::optional<Observations> read_states_hdf5(const std::string& path) {
  {
    SilenceHdf5Errors silence;
    Hid file(open_hdf5_read_only(path, "data file '" + path + "'"), H5Fclose);
    const htri_t has = H5Lexists(file.get(), "state", H5P_DEFAULT);
    if (has < 0) throw Error("data file '" + path + "': cannot look up dataset 'state' (damaged file?)");
    if (has == 0) return std::nullopt;
  }
  return read_observations_hdf5(path, "state");
}

std::optional<std::string> read_observations_model(const std::string& path) {
  for (const auto& [key, value] : read_result_attributes(path).text)
    if (key == "model") return value;
  return std::nullopt;
}

}  // namespace rsmc
