// h5_datasets_equal [--ignore PATH_PREFIX ...] A.h5 B.h5 [more.h5 ...]
//
// Checks that HDF5 files hold bitwise identical datasets: the same set of dataset paths (every group
// is walked), and for each dataset the same type (H5Tequal), the same shape and identical raw bytes
// (memcmp, no tolerance; variable-length strings are compared as strings). Attributes are ignored on
// purpose: they record things such as the number of ranks, which may differ between runs whose
// results must not. Every file after the first is compared with the first.
//
// --ignore PATH_PREFIX (repeatable, before the files) skips every dataset whose full path (e.g.
// "/resampling_traffic/messages") starts with PATH_PREFIX, in whichever files it occurs: it is neither
// compared nor required to exist in the others. rsmc's tests pass `--ignore /resampling_traffic`, the
// communication statistics that legitimately depend on the number of ranks.
//
// Exit status: 0 all identical ("identical: N datasets (M ignored)": N compared, M distinct paths
// skipped), 1 a difference (the first one found is printed: dataset and element index), 2 an error
// (unreadable file, unsupported type, bad usage).
//
// Deliberately independent of the rsmc library: only the HDF5 C API.
#include <hdf5.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Failure : std::runtime_error {  // exit status 2
  using std::runtime_error::runtime_error;
};

class Hid {
 public:
  using Closer = herr_t (*)(hid_t);
  Hid(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~Hid() {
    if (id_ >= 0) closer_(id_);
  }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_;
  Closer closer_;
};

// ---- walking a file ----

struct Walk {
  std::set<std::string> datasets;
};

struct Ignore {
  std::vector<std::string> prefixes;
  std::set<std::string> seen;  // distinct dataset paths skipped, over all files

  bool operator()(const std::string& name) const {
    for (const std::string& p : prefixes)
      if (name.compare(0, p.size(), p) == 0) return true;
    return false;
  }
  // Removes the ignored paths from `names`, remembering them.
  std::set<std::string> filter(const std::set<std::string>& names) {
    std::set<std::string> kept;
    for (const std::string& n : names) {
      if ((*this)(n))
        seen.insert(n);
      else
        kept.insert(n);
    }
    return kept;
  }
};

herr_t visit(hid_t, const char* name, const H5O_info_t* info, void* op_data) {
  if (info->type == H5O_TYPE_DATASET) static_cast<Walk*>(op_data)->datasets.insert(std::string("/") + name);
  return 0;
}

hid_t open_file(const std::string& path) {
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    std::fclose(f);
  } else {
    throw Failure("cannot open '" + path + "': " + std::strerror(errno));
  }
#if H5_VERSION_GE(1, 12, 0)
  const htri_t is_hdf5 = H5Fis_accessible(path.c_str(), H5P_DEFAULT);
#else
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
#endif
  if (is_hdf5 == 0) throw Failure("'" + path + "' is not an HDF5 file");
  const hid_t file = is_hdf5 > 0 ? H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
  if (file < 0) throw Failure("cannot open '" + path + "' as HDF5 (damaged or locked?)");
  return file;
}

std::set<std::string> list_datasets(hid_t file, const std::string& path) {
  Walk walk;
#if defined(H5Ovisit_vers) && H5Ovisit_vers >= 2
  const herr_t rc = H5Ovisit(file, H5_INDEX_NAME, H5_ITER_INC, visit, &walk, H5O_INFO_BASIC);
#else
  const herr_t rc = H5Ovisit(file, H5_INDEX_NAME, H5_ITER_INC, visit, &walk);
#endif
  if (rc < 0) throw Failure("cannot list the objects of '" + path + "'");
  return walk.datasets;
}

// ---- comparing one dataset ----

std::string shape_text(const std::vector<hsize_t>& dims, H5S_class_t cls) {
  if (cls == H5S_SCALAR) return "scalar";
  if (cls == H5S_NULL) return "null (no elements)";
  std::string s = "(";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? " x " : "") + std::to_string(dims[i]);
  return s + ")";
}

std::string index_text(hsize_t flat, const std::vector<hsize_t>& dims) {
  if (dims.empty()) return "0 (scalar)";
  std::vector<hsize_t> index(dims.size());
  hsize_t rest = flat;
  for (std::size_t k = dims.size(); k-- > 0;) {
    index[k] = rest % dims[k];
    rest /= dims[k];
  }
  std::string s = std::to_string(flat) + " [";
  for (std::size_t k = 0; k < index.size(); ++k) s += (k ? ", " : "") + std::to_string(index[k]);
  return s + "]";
}

std::string element_text(hid_t type, const unsigned char* element, std::size_t size) {
  char buffer[64];
  if (H5Tequal(type, H5T_NATIVE_DOUBLE) > 0) {
    double v;
    std::memcpy(&v, element, sizeof v);
    std::snprintf(buffer, sizeof buffer, "%.17g", v);
    return buffer;
  }
  if (H5Tequal(type, H5T_NATIVE_FLOAT) > 0) {
    float v;
    std::memcpy(&v, element, sizeof v);
    std::snprintf(buffer, sizeof buffer, "%.9g", static_cast<double>(v));
    return buffer;
  }
  std::string s = "0x";
  for (std::size_t i = 0; i < size && i < 16; ++i) {
    std::snprintf(buffer, sizeof buffer, "%02x", element[i]);
    s += buffer;
  }
  return size > 16 ? s + "..." : s;
}

struct Difference {
  bool found = false;
  std::string text;
};

struct Source {
  const std::string& path;
  hid_t dset;
  hid_t space;
};

// Reads rows [row, row + rows) (or everything when the dataspace is scalar) in the file's own type.
void read_block(const Source& src, hid_t type, const std::vector<hsize_t>& dims, hsize_t row, hsize_t rows,
                void* buffer, const std::string& name) {
  std::vector<hsize_t> start(dims.size(), 0), count(dims);
  if (!dims.empty()) {
    start[0] = row;
    count[0] = rows;
    if (H5Sselect_hyperslab(src.space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0)
      throw Failure("cannot select rows of '" + name + "' in '" + src.path + "'");
  }
  Hid mem(
      dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr),
      H5Sclose);
  if (!mem.valid()) throw Failure("out of HDF5 resources reading '" + name + "'");
  if (H5Dread(src.dset, type, mem.get(), dims.empty() ? H5S_ALL : src.space, H5P_DEFAULT, buffer) < 0)
    throw Failure("cannot read dataset '" + name + "' of '" + src.path + "' (damaged file?)");
}

Difference compare_dataset(hid_t file_a, const std::string& path_a, hid_t file_b, const std::string& path_b,
                           const std::string& name) {
  Difference diff;
  Hid da(H5Dopen2(file_a, name.c_str(), H5P_DEFAULT), H5Dclose);
  Hid db(H5Dopen2(file_b, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!da.valid()) throw Failure("cannot open dataset '" + name + "' of '" + path_a + "'");
  if (!db.valid()) throw Failure("cannot open dataset '" + name + "' of '" + path_b + "'");

  Hid ta(H5Dget_type(da.get()), H5Tclose), tb(H5Dget_type(db.get()), H5Tclose);
  if (!ta.valid() || !tb.valid()) throw Failure("cannot read the type of dataset '" + name + "'");
  if (H5Tequal(ta.get(), tb.get()) <= 0) {
    diff.found = true;
    diff.text = "dataset '" + name + "' has different types in '" + path_a + "' and '" + path_b + "'";
    return diff;
  }

  Hid sa(H5Dget_space(da.get()), H5Sclose), sb(H5Dget_space(db.get()), H5Sclose);
  if (!sa.valid() || !sb.valid()) throw Failure("cannot read the shape of dataset '" + name + "'");
  const H5S_class_t ca = H5Sget_simple_extent_type(sa.get()), cb = H5Sget_simple_extent_type(sb.get());
  auto dims_of = [&](hid_t space, H5S_class_t cls) {
    std::vector<hsize_t> dims;
    if (cls == H5S_SIMPLE) {
      dims.resize(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
      H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    }
    return dims;
  };
  const std::vector<hsize_t> dims = dims_of(sa.get(), ca), dims_b = dims_of(sb.get(), cb);
  if (ca != cb || dims != dims_b) {
    diff.found = true;
    diff.text = "dataset '" + name + "' has shape " + shape_text(dims, ca) + " in '" + path_a + "' but " +
                shape_text(dims_b, cb) + " in '" + path_b + "'";
    return diff;
  }
  if (ca == H5S_NULL) return diff;
  hsize_t elements = 1;
  for (hsize_t d : dims) elements *= d;
  if (elements == 0) return diff;

  const hid_t type = ta.get();
  const bool vlen_string = H5Tis_variable_str(type) > 0;
  if (!vlen_string && (H5Tdetect_class(type, H5T_VLEN) > 0 || H5Tdetect_class(type, H5T_REFERENCE) > 0))
    throw Failure("dataset '" + name + "' has a variable-length or reference type, which cannot be compared bytewise");
  const std::size_t size = vlen_string ? sizeof(char*) : H5Tget_size(type);
  if (size == 0) throw Failure("cannot read the type size of dataset '" + name + "'");

  // Blocks of whole rows along the first dimension, about 64 MiB per file at a time.
  const hsize_t row_elements = dims.empty() ? 1 : elements / dims[0];
  const hsize_t total_rows = dims.empty() ? 1 : dims[0];
  const hsize_t row_bytes = row_elements * size;
  const hsize_t rows_per_block = std::max<hsize_t>(1, (hsize_t{64} << 20) / row_bytes);
  std::vector<unsigned char> ba, bb;
  const Source src_a{path_a, da.get(), sa.get()}, src_b{path_b, db.get(), sb.get()};
  for (hsize_t row = 0; row < total_rows; row += rows_per_block) {
    const hsize_t rows = std::min(rows_per_block, total_rows - row);
    const std::size_t bytes = static_cast<std::size_t>(rows * row_bytes);
    ba.assign(bytes, 0);
    bb.assign(bytes, 0);
    read_block(src_a, type, dims, row, rows, ba.data(), name);
    read_block(src_b, type, dims, row, rows, bb.data(), name);
    hsize_t first = elements;  // first differing element within this block
    if (vlen_string) {
      const std::size_t n = static_cast<std::size_t>(rows * row_elements);
      for (std::size_t i = 0; i < n && first == elements; ++i) {
        const char *x, *y;
        std::memcpy(&x, ba.data() + i * size, sizeof x);
        std::memcpy(&y, bb.data() + i * size, sizeof y);
        if ((x == nullptr) != (y == nullptr) || (x && std::strcmp(x, y) != 0)) first = i;
      }
      const hsize_t count[1] = {rows * row_elements};
      Hid mem(H5Screate_simple(1, count, nullptr), H5Sclose);
#if H5_VERSION_GE(1, 12, 0)
      H5Treclaim(type, mem.get(), H5P_DEFAULT, ba.data());
      H5Treclaim(type, mem.get(), H5P_DEFAULT, bb.data());
#else
      H5Dvlen_reclaim(type, mem.get(), H5P_DEFAULT, ba.data());
      H5Dvlen_reclaim(type, mem.get(), H5P_DEFAULT, bb.data());
#endif
    } else if (std::memcmp(ba.data(), bb.data(), bytes) != 0) {
      std::size_t byte = 0;
      while (ba[byte] == bb[byte]) ++byte;
      first = byte / size;
    }
    if (first != elements) {
      const hsize_t flat = row * row_elements + first;
      diff.found = true;
      diff.text = "dataset '" + name + "' differs at element " + index_text(flat, dims);
      if (!vlen_string) {
        const std::size_t at = static_cast<std::size_t>(first) * size;
        diff.text += ": " + element_text(type, ba.data() + at, size) + " in '" + path_a + "', " +
                     element_text(type, bb.data() + at, size) + " in '" + path_b + "'";
      }
      return diff;
    }
  }
  return diff;
}

int usage(const char* problem) {
  if (problem) std::fprintf(stderr, "h5_datasets_equal: error: %s\n", problem);
  std::fprintf(stderr,
               "usage: h5_datasets_equal [--ignore PATH_PREFIX ...] A.h5 B.h5 [more.h5 ...]\n"
               "  exit 0 if every file holds bitwise identical datasets (attributes ignored),\n"
               "  1 if they differ, 2 on error\n"
               "  --ignore PATH_PREFIX  skip datasets whose full path starts with PATH_PREFIX\n"
               "                        (e.g. /resampling_traffic); may be repeated\n");
  return 2;
}

int run(int argc, char** argv) {
  Ignore ignore;
  int first = 1;
  while (first < argc && std::strncmp(argv[first], "--", 2) == 0) {
    const std::string option = argv[first];
    if (option == "--") {
      ++first;
      break;
    }
    if (option != "--ignore") return usage(("unknown option '" + option + "'").c_str());
    if (first + 1 >= argc) return usage("--ignore needs a PATH_PREFIX");
    const std::string prefix = argv[first + 1];
    if (prefix.empty() || prefix[0] != '/')
      return usage(("--ignore '" + prefix + "': expected a path starting with '/'").c_str());
    ignore.prefixes.push_back(prefix);
    first += 2;
  }
  if (argc - first < 2) return usage(nullptr);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const std::string path_a = argv[first];
  Hid file_a(open_file(path_a), H5Fclose);
  const std::set<std::string> names_a = ignore.filter(list_datasets(file_a.get(), path_a));
  for (int k = first + 1; k < argc; ++k) {
    const std::string path_b = argv[k];
    Hid file_b(open_file(path_b), H5Fclose);
    const std::set<std::string> names_b = ignore.filter(list_datasets(file_b.get(), path_b));
    for (const std::string& n : names_a)
      if (!names_b.count(n)) {
        std::printf("different: dataset '%s' is in '%s' but not in '%s'\n", n.c_str(), path_a.c_str(), path_b.c_str());
        return 1;
      }
    for (const std::string& n : names_b)
      if (!names_a.count(n)) {
        std::printf("different: dataset '%s' is in '%s' but not in '%s'\n", n.c_str(), path_b.c_str(), path_a.c_str());
        return 1;
      }
    for (const std::string& n : names_a) {
      const Difference d = compare_dataset(file_a.get(), path_a, file_b.get(), path_b, n);
      if (d.found) {
        std::printf("different: %s\n", d.text.c_str());
        return 1;
      }
    }
  }
  std::printf("identical: %zu datasets (%zu ignored)\n", names_a.size(), ignore.seen.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const Failure& e) {
    std::fprintf(stderr, "h5_datasets_equal: error: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "h5_datasets_equal: error: %s\n", e.what());
  }
  return 2;
}
