// Small HDF5 helpers shared by the HDF5 readers and writers in framework/io (hdf5_observations.cpp,
// result_file.cpp). Serial HDF5 C API; internal to framework/io, not part of rsmc's interface.
#pragma once

#include <hdf5.h>

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

// A new property list of class `cls` (H5P_FILE_CREATE, H5P_DATASET_CREATE) that records no object
// timestamps, so the same input gives a byte-identical file; negative if HDF5 fails. Close with H5Pclose.
hid_t create_untimed_plist(hid_t cls);

// Opens `path` read-only and returns the file (close with H5Fclose); throws rsmc::Error starting with
// `what` for a missing, unreadable, directory, non-HDF5 or damaged file.
hid_t open_hdf5_read_only(const std::string& path, const std::string& what);

}  // namespace io_detail
}  // namespace rsmc
