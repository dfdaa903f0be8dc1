// Small HDF5 helpers shared by the HDF5 readers and writers in framework/io (hdf5_observations.cpp,
// result_file.cpp). Serial HDF5 C API; internal to framework/io, not part of rsmc's interface.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>

namespace rsmc {
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

}  // namespace io_detail
}  // namespace rsmc
