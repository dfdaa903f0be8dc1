// HDF5 dataset and attribute helpers shared by the files written collectively with parallel HDF5
// (checkpoint_file.cpp, trace_file.cpp) and their readers, plus the failure agreement those
// collective writes need. Internal to framework/io, not part of rsmc's interface.
//
// Collective writes: datasets are created by every rank; write_block has each rank write its own
// contiguous columns with independent MPI-IO, so a file does not depend on how many ranks wrote it.
// A write that fails on some rank after the file exists aborts the job (abort_on_write_failure): a
// parallel HDF5 close after a failed write can wait forever on a rank that gave up.
#pragma once

#include <hdf5.h>
#include "framework/parallel/mpi.hpp"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "framework/io/hdf5_util.hpp"

namespace rsmc {
namespace io_detail {

// Throws rsmc::Error(message) unless ok.
void require(bool ok, const std::string& message);

// A new dataset of shape `dims` at `location` without timestamps (close with H5Dclose); throws
// rsmc::Error starting with `fail` if HDF5 refuses. Collective when the file is parallel.
hid_t create_dataset(hid_t location, const std::string& name, hid_t file_type, const std::vector<hsize_t>& dims,
                     const std::string& fail);
// A new group without timestamps (close with H5Gclose); throws like create_dataset.
hid_t create_group(hid_t file, const char* name, const std::string& fail);

// Creates a dataset (collectively); the rank with `writer` writes all of `data`; then every rank learns
// whether that worked (a full disk stops all ranks at the same point). `tmp`: the file, removed on abort.
void write_small(MPI_Comm comm, const std::string& tmp, hid_t location, const std::string& name, hid_t file_type,
                 hid_t mem_type, const std::vector<hsize_t>& dims, const void* data, bool writer,
                 const std::string& fail);

// Creates a (rows x n) dataset, or (n) when rows == 0, collectively, and writes this rank's columns
// [first, first + count) from `data` (rows x count, row-major); count may be 0.
void write_block(MPI_Comm comm, const std::string& tmp, hid_t location, const char* name, hid_t file_type,
                 hid_t mem_type, hsize_t rows, hsize_t n, hsize_t first, hsize_t count, const void* data,
                 const std::string& fail);

// Scalar attributes; text as fixed-length UTF-8 strings (identical on every rank, as parallel HDF5
// requires of attributes).
void write_attribute(hid_t location, const char* name, hid_t file_type, hid_t mem_type, const void* data,
                     const std::string& fail);
void write_text_attribute(hid_t location, const char* name, const std::string& value, const std::string& fail);
// Scalar int64 attributes, in the order given.
struct IntAttribute {
  const char* name;
  std::int64_t value;
};
void write_int64_attributes(hid_t location, std::initializer_list<IntAttribute> attributes, const std::string& fail);

// Reading; errors start with `what` (the file, for people).
void read_attribute(hid_t location, const char* name, hid_t mem_type, void* out, const std::string& what);
std::string read_text_attribute(hid_t location, const char* name, const std::string& what);
// The length of a 1-d dataset; throws if there is none.
hsize_t length_1d(hid_t file, const std::string& name, const std::string& what);
// Opens dataset `name`, which must have exactly `dims` and store them: its allocated storage holds
// that many elements and lies within the file. A damaged file can claim any shape, so readers check
// this before they allocate (found by tests/fuzz).
Hid open_stored_dataset(hid_t file, const std::string& name, const std::vector<hsize_t>& dims, const std::string& what);
void read_opened(hid_t dset, const std::string& name, hid_t mem_type, void* out, const std::string& what);
// Reads a whole dataset that must have exactly `dims` into `out`, sized only once the file is known
// to hold that much.
template <class T>
void read_all(hid_t file, const std::string& name, hid_t mem_type, const std::vector<hsize_t>& dims,
              std::vector<T>& out, const std::string& what) {
  Hid dset = open_stored_dataset(file, name, dims, what);
  hsize_t n = 1;
  for (hsize_t d : dims) n *= d;
  out.resize(static_cast<std::size_t>(n));
  if (n > 0) read_opened(dset.get(), name, mem_type, out.data(), what);
}
// Reads columns [first, first + count) of a (rows x n) or (n) dataset into `out` (sized after the
// checks, as in read_all).
void read_block(hid_t file, const char* name, hid_t mem_type, hsize_t rows, hsize_t n, hsize_t first, hsize_t count,
                std::vector<double>& out, const std::string& what);

// Rank 0's `text` on every rank. Collective.
std::string broadcast_text(MPI_Comm comm, std::string text);

// The lowest rank whose `local_error` is not empty, or -1 when every rank succeeded. Collective.
int first_failing_rank(MPI_Comm comm, const std::string& local_error);
// Collective: if any rank's `local_error` is not empty, every rank throws the lowest failing rank's.
void agree_all(MPI_Comm comm, const std::string& local_error);
// Collective: if any rank's `local_error` is not empty, the lowest failing rank prints it, removes
// `tmp`, and the job is aborted (see above).
void abort_on_write_failure(MPI_Comm comm, const std::string& local_error, const std::string& tmp);

}  // namespace io_detail
}  // namespace rsmc
