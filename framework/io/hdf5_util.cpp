#include "framework/io/hdf5_util.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "framework/io/result_file.hpp"
#include "framework/io/sealed_file.hpp"

namespace rsmc {
namespace io_detail {

hid_t create_untimed_plist(hid_t cls) {
  const hid_t plist = H5Pcreate(cls);
  if (plist >= 0) H5Pset_obj_track_times(plist, 0);
  return plist;
}

bool link_exists(hid_t location, const std::string& path) {
  // H5Lexists fails on a path whose intermediate groups are missing: check each prefix.
  for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1))
    if (H5Lexists(location, path.substr(0, slash).c_str(), H5P_DEFAULT) <= 0) return false;
  return H5Lexists(location, path.c_str(), H5P_DEFAULT) > 0;
}

hid_t open_hdf5_read_only(const std::string& path, const std::string& what) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw Error(what + ": cannot open: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw Error(what + ": is a directory; expected an HDF5 file");
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    std::fclose(f);
  } else {
    throw Error(what + ": cannot open: " + std::strerror(errno));
  }
#if H5_VERSION_GE(1, 12, 0)
  const htri_t is_hdf5 = H5Fis_accessible(path.c_str(), H5P_DEFAULT);
#else
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
#endif
  if (is_hdf5 == 0) throw Error(what + ": is not an HDF5 file; expected an HDF5 file (.h5)");
  const hid_t file = is_hdf5 > 0 ? H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
  if (file < 0) throw Error(what + ": cannot open as HDF5 (damaged, or locked by a program writing it)");
  return file;
}

std::string shape_text(const std::vector<hsize_t>& dims) {
  if (dims.empty()) return "scalar";
  std::string s = "(";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? " x " : "") + std::to_string(dims[i]);
  return s + ")";
}

// Writes dataset `name` (a path relative to `location`, the file or a group).
void write_dataset(hid_t location, const std::string& name, hid_t file_type, hid_t mem_type,
                   const std::vector<hsize_t>& dims, const void* data, const std::string& fail) {
  Hid space(
      dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
      H5Sclose);
  Hid dcpl(create_untimed_plist(H5P_DATASET_CREATE), H5Pclose);
  if (!space.valid() || !dcpl.valid()) throw Error(fail + " (cannot create dataset '" + name + "')");
  Hid dset(H5Dcreate2(location, name.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), H5Dclose);
  if (!dset.valid()) throw Error(fail + " (cannot create dataset '" + name + "')");
  if (H5Dwrite(dset.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0 || !dset.close())
    throw Error(fail + " (cannot write dataset '" + name + "'; disk full?)");
}

void write_attribute(hid_t location, const std::string& name, hid_t file_type, hid_t mem_type, const void* data,
                     const std::string& fail) {
  Hid scalar(H5Screate(H5S_SCALAR), H5Sclose);
  if (!scalar.valid()) throw Error(fail + " (cannot write attribute '" + name + "')");
  Hid attr(H5Acreate2(location, name.c_str(), file_type, scalar.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attr.valid() || H5Awrite(attr.get(), mem_type, data) < 0 || !attr.close())
    throw Error(fail + " (cannot write attribute '" + name + "')");
}

hid_t create_file_in_memory(const std::string& path, hid_t fcpl, const std::string& fail) {
  Hid fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  // Grows in 1 MiB steps; no backing store: nothing of it reaches the disk but save_output_file's write.
  if (!fapl.valid() || H5Pset_fapl_core(fapl.get(), std::size_t{1} << 20, 0) < 0)
    throw Error(fail + " (cannot set up HDF5's in-memory driver)");
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl, fapl.get());
  if (file < 0) throw Error(fail + " (cannot create it)");
  return file;
}

hid_t create_output_file(const std::string& path, const std::string& fail, bool sealable) {
  Hid fcpl(sealable ? sealable_file_plist() : create_untimed_plist(H5P_FILE_CREATE), H5Pclose);
  if (!fcpl.valid()) throw Error(fail);
  H5Pset_attr_creation_order(fcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  return create_file_in_memory(path, fcpl.get(), fail);
}

void save_output_file(Hid& file, const std::string& path, const std::string& fail) {
  // The image is the memory as it stands: the flush writes HDF5's cached metadata (and the
  // superblock's end-of-file address) into it first.
  if (H5Fflush(file.get(), H5F_SCOPE_GLOBAL) < 0) throw Error(fail + " (HDF5 cannot flush it)");
  // The image starts at HDF5's base address: a user block (room for a seal) comes before it, zeros.
  hsize_t user_block = 0;
  Hid fcpl(H5Fget_create_plist(file.get()), H5Pclose);
  if (!fcpl.valid() || H5Pget_userblock(fcpl.get(), &user_block) < 0)
    throw Error(fail + " (HDF5 cannot say its user block size)");
  const ssize_t size = H5Fget_file_image(file.get(), nullptr, 0);
  std::vector<char> image(static_cast<std::size_t>(user_block) + (size > 0 ? static_cast<std::size_t>(size) : 0), 0);
  if (size <= 0 || H5Fget_file_image(file.get(), image.data() + user_block, static_cast<std::size_t>(size)) != size)
    throw Error(fail + " (HDF5 cannot give its bytes)");
  if (!file.close()) throw Error(fail + " (HDF5 cannot close it)");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw Error(fail + " (cannot create it: " + std::strerror(errno) + ")");
  std::size_t done = 0;
  int error = 0;
  while (done < image.size() && error == 0) {
    const ssize_t n = ::write(fd, image.data() + done, image.size() - done);
    if (n > 0)
      done += static_cast<std::size_t>(n);
    else if (n < 0 && errno != EINTR)
      error = errno;
    else if (n == 0)
      error = EIO;
  }
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0)
    throw Error(fail + " (" + std::strerror(error) + (error == ENOSPC || error == EDQUOT ? ": disk full" : "") + ")");
}

hid_t create_text_type(const std::string& fail) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  if (type >= 0 && H5Tset_size(type, H5T_VARIABLE) >= 0 && H5Tset_cset(type, H5T_CSET_UTF8) >= 0) return type;
  if (type >= 0) H5Tclose(type);
  throw Error(fail + " (cannot make a string type)");
}

void write_attributes(hid_t location, const ResultAttributes& attributes, const std::string& fail) {
  Hid text_type(create_text_type(fail), H5Tclose);
  for (const auto& a : attributes.text) {
    const char* value = a.second.c_str();
    write_attribute(location, a.first, text_type.get(), text_type.get(), &value, fail);
  }
  for (const auto& a : attributes.integers)
    write_attribute(location, a.first, H5T_STD_I64LE, H5T_NATIVE_INT64, &a.second, fail);
  for (const auto& a : attributes.reals)
    write_attribute(location, a.first, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &a.second, fail);
}

}  // namespace io_detail
}  // namespace rsmc
