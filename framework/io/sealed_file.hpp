// Sealed HDF5 files: checkpoints, traces and pmmh checkpoints carry a SHA-256 digest of all their bytes in the HDF5
// user block (the first 512 bytes, which HDF5 reserves for the application and never reads), so
// that a reader can check the whole file before HDF5 parses any of it. A damaged or truncated file
// is then refused with a one-line rsmc::Error instead of reaching HDF5's parser, which can crash on
// crafted damage (tests/fuzz/hdf5-findings). The file stays a plain HDF5 file: h5dump, h5py and
// HDF5's own tools read it (they skip the user block).
//
// The seal (bytes 0..511, little-endian integers):
//   0   8 bytes   magic "\x89RSMC\r\n\x1a" (not the HDF5 signature; catches text-mode transfers)
//   8   16 bytes  kind: "checkpoint", "trace" or "pmmh checkpoint", NUL-padded
//   24  uint64    seal version (1)
//   32  uint64    the file's size in bytes, seal included
//   40  uint64    leaf size L (4 MiB)
//   48  32 bytes  digest: SHA-256 of the concatenated SHA-256 digests of the file's L-byte pieces
//                 (the last one shorter), computed with these 32 bytes read as zero
//   80  text      one line saying what this is; the rest zero
// The pieces let every rank of a parallel job hash its share of a large file; the result does not
// depend on the rank count. Check a file by hand (docs/checkpointing.md):
//   b = bytearray(open(f, 'rb').read()); d = bytes(b[48:80]); b[48:80] = bytes(32)
//   d == sha256(b''.join(sha256(b[i:i + L]).digest() for i in range(0, len(b), L))).digest()
//
// Writers create the file with sealable_file_plist(), close it, seal it (seal_file) and publish it
// (publish_atomically: fsync and rename), so the seal is part of the one atomic rename.
#pragma once

#include <hdf5.h>
#include "framework/parallel/mpi.hpp"

#include <cstdint>
#include <string>

#include "framework/io/sha256.hpp"

namespace rsmc {

enum class SealedKind { checkpoint, trace, pmmh_checkpoint };
const char* sealed_kind_name(SealedKind kind);  // "checkpoint", "trace", "pmmh checkpoint"

// A file-creation property list (close with H5Pclose) for a file to be sealed: the 512-byte user
// block reserved and no object timestamps. Negative if HDF5 fails.
hid_t sealable_file_plist();

// Collective over `comm`: computes the digest of the closed file `tmp` (the ranks share its pieces)
// and rank 0 writes the seal. Throws rsmc::Error on every rank, starting with `fail`, if a read or
// the write fails. Returns the digest.
Sha256::Digest seal_file(MPI_Comm comm, const std::string& tmp, SealedKind kind, const std::string& fail);

// Collective over `comm` (MPI_COMM_SELF for one process): throws rsmc::Error on every rank, starting
// with `what`, unless `path` is a complete sealed file of `kind` whose bytes match its digest
// (missing, not sealed, another kind, a newer seal, truncated, extended, damaged). Returns the
// digest. A file this process wrote (remember_sealed_file) and that is unchanged since (same
// device, inode, size, change time and stored digest) is not read again; the change time has the
// file system's granularity (a few milliseconds), so a change in place within that time of the
// write, keeping the size and the seal, would go unseen until another process reads the file.
Sha256::Digest verify_sealed_file(MPI_Comm comm, const std::string& path, SealedKind kind, const std::string& what);

// Throws rsmc::Error starting with `what` unless `path` still holds the seal with `digest` and the
// size it records (the file verify_sealed_file checked has not been replaced). Reads 512 bytes.
void require_same_seal(const std::string& path, const Sha256::Digest& digest, const std::string& what);

// Records that the sealed file now at `path` (published by this process) has `digest`, so that
// verify_sealed_file need not read it again while it is unchanged.
void remember_sealed_file(const std::string& path, const Sha256::Digest& digest);

// What the first bytes of a file say it is, read without HDF5.
enum class FileStart { sealed_checkpoint, sealed_trace, sealed_pmmh_checkpoint, plain_hdf5, other };
FileStart file_start(const std::string& path);

}  // namespace rsmc
