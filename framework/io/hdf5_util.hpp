// Small HDF5 helpers shared by the HDF5 readers and writers in framework/io (hdf5_observations.cpp,
// result_file.cpp, chain_file.cpp). Serial HDF5 C API; internal to framework/io, not part of rsmc's interface.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "base/core/error.hpp"

namespace rsmc {

struct ResultAttributes;  // framework/io/result_attributes.hpp

namespace io_detail {

// Turns off HDF5's automatic error-stack printing for its lifetime, then restores it.
class SilenceHdf5Errors {
 public:
  SilenceHdf5Errors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~SilenceHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  SilenceHdf5Errors(const SilenceHdf5Errors&) = delete;
  SilenceHdf5Errors& operator=(const SilenceHdf5Errors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

// Owns one HDF5 identifier (negative = none) and closes it with the matching H5?close function.
class Hid {
 public:
  using Closer = herr_t (*)(hid_t);
  Hid(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~Hid() {
    if (id_ >= 0) closer_(id_);
  }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  Hid(Hid&& other) noexcept : id_(other.id_), closer_(other.closer_) { other.id_ = -1; }  // for returning one
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  // Closes now; returns false if HDF5 reports a failure (for files: the final flush failed).
  bool close() {
    const hid_t id = id_;
    id_ = -1;
    return id < 0 || closer_(id) >= 0;
  }

 private:
  hid_t id_;
  Closer closer_;
};

// The HDF5 types of a C++ element type: the type stored in files (little-endian, fixed width,
// whatever the machine) and the in-memory type. One place for the mapping that the per-step series
// (framework/engine/step_series.hpp) and other datasets use.
template <class T>
struct Hdf5Type;
template <>
struct Hdf5Type<double> {
  static hid_t file() { return H5T_IEEE_F64LE; }
  static hid_t memory() { return H5T_NATIVE_DOUBLE; }
  static constexpr H5T_class_t kClass = H5T_FLOAT;
  static constexpr const char* kDescription = "floating-point numbers";
};
template <>
struct Hdf5Type<std::uint8_t> {
  static hid_t file() { return H5T_STD_U8LE; }
  static hid_t memory() { return H5T_NATIVE_UINT8; }
  static constexpr H5T_class_t kClass = H5T_INTEGER;
  static constexpr const char* kDescription = "unsigned 8-bit integers";
};
template <>
struct Hdf5Type<std::uint64_t> {
  static hid_t file() { return H5T_STD_U64LE; }
  static hid_t memory() { return H5T_NATIVE_UINT64; }
  static constexpr H5T_class_t kClass = H5T_INTEGER;
  static constexpr const char* kDescription = "unsigned 64-bit integers";
};

// A new property list of class `cls` (H5P_FILE_CREATE, H5P_DATASET_CREATE) that records no object
// timestamps, so the same input gives a byte-identical file; negative if HDF5 fails. Close with H5Pclose.
hid_t create_untimed_plist(hid_t cls);

// Whether `path` (e.g. "group/dataset") names a link under `location`; false also when a parent
// group is missing or the lookup fails.
bool link_exists(hid_t location, const std::string& path);

// Opens `path` read-only and returns the file (close with H5Fclose); throws rsmc::Error starting with
// `what` for a missing, unreadable, directory, non-HDF5 or damaged file.
hid_t open_hdf5_read_only(const std::string& path, const std::string& what);

// "(3 x 2)", or "scalar" for no dimensions: a dataset's shape in messages.
std::string shape_text(const std::vector<hsize_t>& dims);

// Writes dataset `name` (a path relative to `location`, the file or a group) of shape `dims` (empty:
// a scalar) without timestamps; throws rsmc::Error starting with `fail` naming the dataset.
void write_dataset(hid_t location, const std::string& name, hid_t file_type, hid_t mem_type,
                   const std::vector<hsize_t>& dims, const void* data, const std::string& fail);

// Writes the scalar attribute `name` of `location`; throws rsmc::Error starting with `fail`.
void write_attribute(hid_t location, const std::string& name, hid_t file_type, hid_t mem_type, const void* data,
                     const std::string& fail);

// The serial writers (result, chain, observation and smoothed files) build their file in memory
// (HDF5's core driver without a backing store) and write it to disk in one piece with
// save_output_file. HDF5 then never meets a failing disk: a write that fails after HDF5 has created
// a file on disk leaves it with a file it can neither flush nor close, and it crashed at exit
// (MPI_Finalize closes HDF5) when the disk was full.
//
// Creates the HDF5 file to be saved as `path` in memory, with the file-creation properties `fcpl`
// (H5P_DEFAULT or a list); close with H5Fclose. Throws rsmc::Error starting with `fail`.
hid_t create_file_in_memory(const std::string& path, hid_t fcpl, const std::string& fail);

// The same for the usual output file: without timestamps, its attributes kept in the order they are
// written (h5dump and readers list them that way), with room for a seal when `sealable`
// (framework/io/sealed_file.hpp).
hid_t create_output_file(const std::string& path, const std::string& fail, bool sealable = false);

// Closes `file` (made by create_file_in_memory) and writes its bytes to `path` (created, or
// truncated) with plain writes. Throws rsmc::Error starting with `fail` and naming the system's
// reason ("No space left on device"); the caller removes the partial file (write_atomically does).
void save_output_file(Hid& file, const std::string& path, const std::string& fail);

// A variable-length UTF-8 string type (close with H5Tclose); throws rsmc::Error starting with `fail`.
hid_t create_text_type(const std::string& fail);

// Writes `attributes` as scalar attributes of `location` in their order: text as variable-length
// UTF-8, integers as int64, reals as float64.
void write_attributes(hid_t location, const ResultAttributes& attributes, const std::string& fail);

// Reads dataset `name` of `file`, which must have `rank` dimensions (0 = scalar) and a type of the
// class of T (Hdf5Type), converting to T. Returns the dimensions; `values` receives the data. Throws
// rsmc::Error starting with `what` (the file) naming the dataset.
template <class T>
std::vector<hsize_t> read_dataset(hid_t file, const std::string& what, const std::string& name, int rank,
                                  std::vector<T>& values) {
  const std::string ds = what + ", dataset '/" + name + "'";
  if (!link_exists(file, name)) throw Error(what + ": no dataset '/" + name + "'; expected an rsmc result file");
  Hid dset(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dset.valid()) throw Error(ds + ": cannot open it as a dataset");
  Hid type(H5Dget_type(dset.get()), H5Tclose);
  if (!type.valid() || H5Tget_class(type.get()) != Hdf5Type<T>::kClass)
    throw Error(ds + ": has the wrong type; expected " + Hdf5Type<T>::kDescription);
  Hid space(H5Dget_space(dset.get()), H5Sclose);
  if (!space.valid()) throw Error(ds + ": cannot read its shape");
  const int ndims = H5Sget_simple_extent_type(space.get()) == H5S_SIMPLE ? H5Sget_simple_extent_ndims(space.get()) : 0;
  std::vector<hsize_t> dims(static_cast<std::size_t>(ndims > 0 ? ndims : 0));
  if (ndims > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  if (ndims != rank || (rank == 0 && H5Sget_simple_extent_type(space.get()) != H5S_SCALAR))
    throw Error(ds + ": has shape " + shape_text(dims) + "; expected " +
                (rank == 0 ? std::string("a scalar") : std::to_string(rank) + "-D"));
  hsize_t n = 1;
  for (hsize_t d : dims) n *= d;
  if (n > static_cast<hsize_t>(std::numeric_limits<int>::max())) throw Error(ds + ": is too large " + shape_text(dims));
  values.resize(static_cast<std::size_t>(n));
  if (n > 0 && H5Dread(dset.get(), Hdf5Type<T>::memory(), H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
    throw Error(ds + ": cannot read its values (damaged file?)");
  return dims;
}

}  // namespace io_detail
}  // namespace rsmc
