#include "framework/io/hdf5_util.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/core/error.hpp"

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

}  // namespace io_detail
}  // namespace rsmc
