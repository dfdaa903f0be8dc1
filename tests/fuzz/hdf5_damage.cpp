// See hdf5_damage.hpp (moved here from checkpoint_structured_target.cpp, byte for byte in the order
// it reads the input, so that the committed corpora keep their meaning).
#include "hdf5_damage.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "framework/io/hdf5_util.hpp"

namespace rsmc::fuzz {
namespace {

const char* pick(ByteReader& in, const char* const* options, std::size_t count) {
  return options[in.below(static_cast<unsigned>(count))];
}
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

}  // namespace

void damage_through_hdf5(const std::string& path, ByteReader& in, const char* const* attributes,
                         std::size_t attribute_count, const char* const* datasets, std::size_t dataset_count) {
  const io_detail::SilenceHdf5Errors quiet;  // many of the edits fail (deleting what is gone): fine
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) return;
  for (unsigned n = in.below(4); n > 0; --n) {
    switch (in.below(4)) {
      case 0:
        rewrite_attribute(file, pick(in, attributes, attribute_count), in);
        break;
      case 1:
        H5Adelete(file, pick(in, attributes, attribute_count));
        break;
      case 2:
        rewrite_dataset(file, pick(in, datasets, dataset_count), in);
        break;
      default:
        H5Ldelete(file, pick(in, datasets, dataset_count), H5P_DEFAULT);
        break;
    }
  }
  H5Fclose(file);
}

}  // namespace rsmc::fuzz
