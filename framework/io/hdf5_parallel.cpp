// HDF5 dataset and attribute helpers shared by the files written collectively with parallel HDF5
// (checkpoint_file.cpp, trace_file.cpp) and their serial readers, plus the failure agreement those
// collective writes need. Internal to framework/io, not part of rsmc's interface.
//
// Collective writes: datasets are created by every rank; `write_block` has each rank write its own
// contiguous columns with independent MPI-IO. A write that fails on some rank after the file exists
// aborts the job (abort_on_write_failure): a parallel HDF5 close after a failed write can hang.
#include "framework/io/hdf5_parallel.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "base/core/error.hpp"

namespace rsmc {
namespace io_detail {

void require(bool ok, const std::string& message) {
  if (!ok) throw Error(message);
}

hid_t create_dataset(hid_t location, const std::string& name, hid_t file_type, const std::vector<hsize_t>& dims,
                     const std::string& fail) {
  Hid space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  Hid dcpl(create_untimed_plist(H5P_DATASET_CREATE), H5Pclose);
  require(space.valid() && dcpl.valid(), fail + " (cannot create dataset '" + name + "')");
  const hid_t dset = H5Dcreate2(location, name.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT);
  require(dset >= 0, fail + " (cannot create dataset '" + name + "')");
  return dset;
}

hid_t create_group(hid_t file, const char* name, const std::string& fail) {
  Hid gcpl(create_untimed_plist(H5P_GROUP_CREATE), H5Pclose);
  const hid_t g = gcpl.valid() ? H5Gcreate2(file, name, H5P_DEFAULT, gcpl.get(), H5P_DEFAULT) : -1;
  require(g >= 0, fail + " (cannot create group '" + name + "')");
  return g;
}

// Creates a dataset (collectively); rank 0 writes all of `data` (independent I/O); then every rank
// learns whether that worked, so that a failure (a full disk) stops all ranks at the same point
// instead of leaving some waiting in the next collective call.
void write_small(MPI_Comm comm, const std::string& tmp, hid_t location, const std::string& name, hid_t file_type,
                 hid_t mem_type, const std::vector<hsize_t>& dims, const void* data, bool writer,
                 const std::string& fail) {
  Hid dset(create_dataset(location, name, file_type, dims, fail), H5Dclose);
  hsize_t n = 1;
  for (hsize_t d : dims) n *= d;
  const bool ok = !writer || n == 0 || H5Dwrite(dset.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0;
  abort_on_write_failure(comm, ok ? std::string() : fail + " (cannot write dataset '" + name + "'; disk full?)", tmp);
  require(dset.close(), fail + " (cannot close dataset '" + name + "')");
}

// Creates a (rows x N) or (N) dataset (collectively) and writes this rank's columns
// [first, first + count), each rank its own contiguous block with independent MPI-IO; then every
// rank learns whether all writes worked (see write_small: a full disk must not leave ranks waiting).
void write_block(MPI_Comm comm, const std::string& tmp, hid_t location, const char* name, hid_t file_type,
                 hid_t mem_type, hsize_t rows, hsize_t n, hsize_t first, hsize_t count, const void* data,
                 const std::string& fail) {
  const bool two_d = rows > 0;
  const hsize_t dims[2] = {rows, n}, offset[2] = {0, first}, extent[2] = {rows, count};
  Hid dset(create_dataset(location, name, file_type, std::vector<hsize_t>(two_d ? dims : dims + 1, dims + 2), fail),
           H5Dclose);
  Hid space(H5Dget_space(dset.get()), H5Sclose);
  Hid memory(H5Screate_simple(two_d ? 2 : 1, two_d ? extent : extent + 1, nullptr), H5Sclose);
  require(memory.valid(), fail + " (cannot select this rank's block of '" + name + "')");
  if (count > 0) {
    require(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, two_d ? offset : offset + 1, nullptr,
                                two_d ? extent : extent + 1, nullptr) >= 0,
            fail + " (cannot select this rank's block of '" + name + "')");
  } else {
    H5Sselect_none(space.get());
    H5Sselect_none(memory.get());
  }
  const bool ok = count == 0 || H5Dwrite(dset.get(), mem_type, memory.get(), space.get(), H5P_DEFAULT, data) >= 0;
  abort_on_write_failure(comm, ok ? std::string() : fail + " (cannot write dataset '" + name + "'; disk full?)", tmp);
  require(dset.close(), fail + " (cannot close dataset '" + name + "')");
}

void write_attribute(hid_t location, const char* name, hid_t file_type, hid_t mem_type, const void* data,
                     const std::string& fail) {
  Hid scalar(H5Screate(H5S_SCALAR), H5Sclose);
  Hid attr(scalar.valid() ? H5Acreate2(location, name, file_type, scalar.get(), H5P_DEFAULT, H5P_DEFAULT) : -1,
           H5Aclose);
  require(attr.valid() && H5Awrite(attr.get(), mem_type, data) >= 0 && attr.close(),
          fail + " (cannot write attribute '" + name + "')");
}
void write_text_attribute(hid_t location, const char* name, const std::string& value, const std::string& fail) {
  // Fixed-length strings: identical on every rank, which parallel HDF5 requires of attributes.
  Hid type(H5Tcopy(H5T_C_S1), H5Tclose);
  require(type.valid() && H5Tset_size(type.get(), std::max<std::size_t>(value.size(), 1)) >= 0 &&
              H5Tset_cset(type.get(), H5T_CSET_UTF8) >= 0,
          fail + " (cannot make a string type)");
  std::string padded = value;
  padded.resize(std::max<std::size_t>(value.size(), 1), '\0');
  write_attribute(location, name, type.get(), type.get(), padded.data(), fail);
}

void write_int64_attributes(hid_t location, std::initializer_list<IntAttribute> attributes, const std::string& fail) {
  for (const IntAttribute& a : attributes)
    write_attribute(location, a.name, H5T_STD_I64LE, H5T_NATIVE_INT64, &a.value, fail);
}

// Reading.
void read_attribute(hid_t location, const char* name, hid_t mem_type, void* out, const std::string& what) {
  const htri_t exists = H5Aexists(location, name);
  require(exists > 0, what + ": no attribute '" + name + "'; not the expected kind of rsmc file, or damaged");
  Hid attr(H5Aopen(location, name, H5P_DEFAULT), H5Aclose);
  require(attr.valid() && H5Aread(attr.get(), mem_type, out) >= 0, what + ": cannot read attribute '" + name + "'");
}
std::string read_text_attribute(hid_t location, const char* name, const std::string& what) {
  const htri_t exists = H5Aexists(location, name);
  require(exists > 0, what + ": no attribute '" + name + "'; not the expected kind of rsmc file, or damaged");
  Hid attr(H5Aopen(location, name, H5P_DEFAULT), H5Aclose);
  Hid type(attr.valid() ? H5Aget_type(attr.get()) : -1, H5Tclose);
  require(type.valid() && H5Tget_class(type.get()) == H5T_STRING && !H5Tis_variable_str(type.get()),
          what + ": attribute '" + name + "' is not a fixed-length string");
  std::string value(H5Tget_size(type.get()), '\0');
  require(H5Aread(attr.get(), type.get(), value.data()) >= 0, what + ": cannot read attribute '" + name + "'");
  value.resize(std::strlen(value.c_str()));
  return value;
}

hsize_t length_1d(hid_t file, const std::string& name, const std::string& what) {
  Hid dset(link_exists(file, name) ? H5Dopen2(file, name.c_str(), H5P_DEFAULT) : -1, H5Dclose);
  Hid space(dset.valid() ? H5Dget_space(dset.get()) : -1, H5Sclose);
  require(space.valid() && H5Sget_simple_extent_ndims(space.get()) == 1, what + ": no 1-d dataset '/" + name + "'");
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space.get(), &n, nullptr);
  return n;
}

// Whether dataset `dset` of `file` really stores an array of `dims`: its allocated storage holds
// that many elements and lies within the file. A damaged file can claim any shape (and HDF5 gives
// a dataset that was never written its fill value), so a reader checks this before it allocates.
bool stores(hid_t file, hid_t dset, const std::vector<hsize_t>& dims) {
  Hid type(H5Dget_type(dset), H5Tclose);
  hsize_t file_size = 0;
  if (!type.valid() || H5Fget_filesize(file, &file_size) < 0) return false;
  const hsize_t element = H5Tget_size(type.get());
  if (element == 0) return false;
  hsize_t n = 1;
  for (hsize_t d : dims) {
    if (d != 0 && n > file_size / element / d) return false;  // more elements than the file has bytes
    n *= d;
  }
  const hsize_t storage = H5Dget_storage_size(dset);
  return storage >= n * element && storage <= file_size;
}

Hid open_stored_dataset(hid_t file, const std::string& name, const std::vector<hsize_t>& dims,
                        const std::string& what) {
  require(link_exists(file, name), what + ": no dataset '/" + name + "' (damaged?)");
  Hid dset(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  Hid space(dset.valid() ? H5Dget_space(dset.get()) : -1, H5Sclose);
  require(space.valid(), what + ": cannot open dataset '/" + name + "'");
  std::vector<hsize_t> got(static_cast<std::size_t>(std::max(0, H5Sget_simple_extent_ndims(space.get()))));
  if (!got.empty()) H5Sget_simple_extent_dims(space.get(), got.data(), nullptr);
  require(got == dims, what + ": dataset '/" + name + "' has the wrong shape (damaged?)");
  require(stores(file, dset.get(), dims),
          what + ": dataset '/" + name + "' holds less data than its shape says (truncated or damaged)");
  return dset;
}

void read_opened(hid_t dset, const std::string& name, hid_t mem_type, void* out, const std::string& what) {
  require(H5Dread(dset, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0,
          what + ": cannot read dataset '/" + name + "' (truncated or damaged)");
}

void read_block(hid_t file, const char* name, hid_t mem_type, hsize_t rows, hsize_t n, hsize_t first, hsize_t count,
                std::vector<double>& out, const std::string& what) {
  const bool two_d = rows > 0;
  const hsize_t offset[2] = {0, first}, extent[2] = {rows, count};
  const std::vector<hsize_t> dims = two_d ? std::vector<hsize_t>{rows, n} : std::vector<hsize_t>{n};
  Hid dset = open_stored_dataset(file, name, dims, what);
  require(first <= n && count <= n - first, what + ": particles " + std::to_string(first) + ".." +
                                                std::to_string(first + count) + " are not in '/" + name + "'");
  out.resize(static_cast<std::size_t>(two_d ? rows * count : count));
  if (count == 0) return;
  Hid space(H5Dget_space(dset.get()), H5Sclose);
  Hid memory(H5Screate_simple(two_d ? 2 : 1, two_d ? extent : extent + 1, nullptr), H5Sclose);
  require(space.valid() && memory.valid() &&
              H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, two_d ? offset : offset + 1, nullptr,
                                  two_d ? extent : extent + 1, nullptr) >= 0,
          what + ": cannot select this rank's block of '/" + name + "'");
  require(H5Dread(dset.get(), mem_type, memory.get(), space.get(), H5P_DEFAULT, out.data()) >= 0,
          what + ": cannot read dataset '/" + name + "' (truncated or damaged)");
}

std::string broadcast_text(MPI_Comm comm, std::string text) {
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  text.resize(static_cast<std::size_t>(length));
  MPI_Bcast(text.data(), length, MPI_CHAR, 0, comm);
  return text;
}

// The lowest rank whose `local_error` is not empty, or -1 when every rank succeeded. Collective.
int first_failing_rank(MPI_Comm comm, const std::string& local_error) {
  int size = 1, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  int first_bad = local_error.empty() ? size : rank;
  MPI_Allreduce(MPI_IN_PLACE, &first_bad, 1, MPI_INT, MPI_MIN, comm);
  return first_bad == size ? -1 : first_bad;
}

// A write failed on some rank after the parallel file was created: closing it is collective and
// can wait forever on a rank that gave up, so the job is aborted (no hang; the exit code is non-zero
// and every complete checkpoint is untouched; the temporary file is removed by the next successful
// checkpoint). `local_error` is this rank's message or empty.
void abort_on_write_failure(MPI_Comm comm, const std::string& local_error, const std::string& tmp) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int first_bad = first_failing_rank(comm, local_error);
  if (first_bad < 0) return;
  if (rank == first_bad) {
    std::fprintf(stderr,
                 "rsmc: error: %s; aborting the job (a parallel HDF5 file cannot be closed safely after a "
                 "failed write; the previous checkpoints are intact)\n",
                 local_error.c_str());
    std::fflush(stderr);
    ::unlink(tmp.c_str());
  }
  MPI_Abort(comm, 1);
}

void agree_all(MPI_Comm comm, const std::string& local_error) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int first_bad = first_failing_rank(comm, local_error);
  if (first_bad < 0) return;
  int length = rank == first_bad ? static_cast<int>(local_error.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, first_bad, comm);
  std::string message = rank == first_bad ? local_error : std::string(static_cast<std::size_t>(length), '\0');
  MPI_Bcast(message.data(), length, MPI_CHAR, first_bad, comm);
  throw Error(message);
}

}  // namespace io_detail
}  // namespace rsmc
