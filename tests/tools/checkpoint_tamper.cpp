// Damages an rsmc checkpoint in controlled ways, for the restart tests (tests/cli/checkpoint_restart.sh).
//
//   checkpoint_tamper FILE --flip-state-bit     flips one bit of /particles/state in the file's raw
//                                               bytes (HDF5 metadata untouched: the seal's digest
//                                               refuses it; after --reseal only the checksum can tell)
//   checkpoint_tamper FILE --model NAME         rewrites the text attribute `model`, and reseals
//   checkpoint_tamper FILE --format-version N   rewrites the attribute `format_version`, and reseals
//   checkpoint_tamper FILE --reseal             recomputes the seal (framework/io/sealed_file.hpp) of
//                                               a checkpoint changed by hand: what a file that another
//                                               rsmc wrote consistently looks like
// The attribute edits reseal so that the restart's own checks (model, version) are what refuses the
// file, not the digest. Exit code 0 on success, 1 on any failure (with a message on stderr).
#include <hdf5.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/core/error.hpp"
#include "framework/io/sealed_file.hpp"

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "checkpoint_tamper: %s\n", message.c_str());
  return 1;
}

int flip_state_bit(const char* path) {
  haddr_t offset = HADDR_UNDEF;
  {
    const hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) return fail(std::string("cannot open ") + path);
    const hid_t dset = H5Dopen2(file, "particles/state", H5P_DEFAULT);
    if (dset >= 0) offset = H5Dget_offset(dset);  // contiguous layout: the raw data's file offset (user block included)
    if (dset >= 0) H5Dclose(dset);
    H5Fclose(file);
  }
  if (offset == HADDR_UNDEF) return fail("no contiguous /particles/state");
  std::FILE* f = std::fopen(path, "r+b");
  if (f == nullptr) return fail(std::string("cannot reopen ") + path);
  const long where = static_cast<long>(offset) + 3;  // a byte inside the first value's mantissa
  unsigned char byte = 0;
  const bool ok = std::fseek(f, where, SEEK_SET) == 0 && std::fread(&byte, 1, 1, f) == 1 &&
                  std::fseek(f, where, SEEK_SET) == 0 && (byte ^= 0x10, std::fwrite(&byte, 1, 1, f) == 1);
  std::fclose(f);
  return ok ? 0 : fail("cannot rewrite the byte");
}

int reseal(const char* path) {
  try {
    rsmc::seal_file(MPI_COMM_SELF, path, rsmc::SealedKind::checkpoint, std::string("cannot reseal ") + path);
    return 0;
  } catch (const rsmc::Error& e) {
    return fail(e.what());
  }
}

int set_attribute(const char* path, const char* name, const char* value, bool text) {
  const hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) return fail(std::string("cannot open ") + path);
  H5Adelete(file, name);
  const hid_t scalar = H5Screate(H5S_SCALAR);
  hid_t type = text ? H5Tcopy(H5T_C_S1) : H5Tcopy(H5T_STD_I64LE);
  if (text) H5Tset_size(type, std::strlen(value));
  const hid_t attr = H5Acreate2(file, name, type, scalar, H5P_DEFAULT, H5P_DEFAULT);
  const long long number = std::atoll(value);
  const herr_t rc = text ? H5Awrite(attr, type, value) : H5Awrite(attr, H5T_NATIVE_LLONG, &number);
  H5Aclose(attr);
  H5Tclose(type);
  H5Sclose(scalar);
  H5Fclose(file);
  return rc < 0 ? fail(std::string("cannot write attribute ") + name) : reseal(path);
}

}  // namespace

int run(int argc, char** argv) {
  if (argc == 3 && std::string(argv[2]) == "--flip-state-bit") return flip_state_bit(argv[1]);
  if (argc == 3 && std::string(argv[2]) == "--reseal") return reseal(argv[1]);
  if (argc == 4 && std::string(argv[2]) == "--model") return set_attribute(argv[1], "model", argv[3], true);
  if (argc == 4 && std::string(argv[2]) == "--format-version")
    return set_attribute(argv[1], "format_version", argv[3], false);
  return fail("usage: checkpoint_tamper FILE --flip-state-bit | --reseal | --model NAME | --format-version N");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);  // seal_file is collective (here over MPI_COMM_SELF)
  const int rc = run(argc, argv);
  MPI_Finalize();
  return rc;
}
