// Sealed HDF5 files (layout and digest in sealed_file.hpp).
#include "framework/io/sealed_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

#include "base/core/error.hpp"
#include "framework/io/hdf5_parallel.hpp"

namespace rsmc {
namespace {

constexpr std::size_t kSealBytes = 512;  // the HDF5 user block
constexpr std::uint64_t kSealVersion = 1;
constexpr std::uint64_t kLeafBytes = std::uint64_t{1} << 22;  // 4 MiB pieces
constexpr char kMagic[8] = {'\x89', 'R', 'S', 'M', 'C', '\r', '\n', '\x1a'};
constexpr char kHdf5Signature[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
constexpr std::size_t kKindAt = 8, kVersionAt = 24, kSizeAt = 32, kLeafAt = 40, kDigestAt = 48, kTextAt = 80;
constexpr const char* kText =
    "rsmc sealed HDF5 file: bytes 48..79 hold the SHA-256 digest of this file (docs/checkpointing.md)\n";

using Seal = std::array<std::uint8_t, kSealBytes>;

void put_u64(Seal& s, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) s[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}
std::uint64_t get_u64(const Seal& s, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t{s[at + i]} << (8 * i);
  return v;
}

// The seal of a file of `size` bytes, with the digest bytes zero (as they are hashed).
Seal make_seal(SealedKind kind, std::uint64_t size) {
  Seal s{};
  std::memcpy(s.data(), kMagic, sizeof kMagic);
  const char* name = sealed_kind_name(kind);
  std::memcpy(s.data() + kKindAt, name, std::strlen(name));
  put_u64(s, kVersionAt, kSealVersion);
  put_u64(s, kSizeAt, size);
  put_u64(s, kLeafAt, kLeafBytes);
  std::memcpy(s.data() + kTextAt, kText, std::strlen(kText));
  return s;
}

Sha256::Digest digest_in(const Seal& s) {
  Sha256::Digest d;
  std::copy(s.begin() + kDigestAt, s.begin() + kDigestAt + d.size(), d.begin());
  return d;
}

// An open file descriptor, closed at scope exit.
struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

std::string errno_text() { return std::strerror(errno); }

// Reads exactly `size` bytes at `offset`; false on a short read or an error.
bool read_at(int fd, void* out, std::size_t size, std::uint64_t offset) {
  auto* p = static_cast<char*>(out);
  while (size > 0) {
    const ssize_t got = ::pread(fd, p, size, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    size -= static_cast<std::size_t>(got);
    offset += static_cast<std::uint64_t>(got);
  }
  return true;
}

// The digests of this rank's pieces (pieces rank, rank + ranks, ...) in `leaves` (32 bytes each, the
// others untouched); the first kSealBytes of the file are taken from `seal` (digest bytes zero).
void hash_leaves(int fd, std::uint64_t size, const Seal& seal, int rank, int ranks, std::vector<std::uint8_t>& leaves,
                 const std::string& fail) {
  std::vector<std::uint8_t> buffer(std::size_t{1} << 20);
  const std::uint64_t count = (size + kLeafBytes - 1) / kLeafBytes;
  for (std::uint64_t leaf = static_cast<std::uint64_t>(rank); leaf < count; leaf += static_cast<std::uint64_t>(ranks)) {
    Sha256 h;
    std::uint64_t at = leaf * kLeafBytes;
    const std::uint64_t end = std::min(size, at + kLeafBytes);
    if (at == 0) {
      h.update(seal.data(), seal.size());
      at = seal.size();
    }
    while (at < end) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), end - at));
      if (!read_at(fd, buffer.data(), n, at)) throw Error(fail + ": cannot read it: " + errno_text());
      h.update(buffer.data(), n);
      at += n;
    }
    const Sha256::Digest d = h.finish();
    std::copy(d.begin(), d.end(), leaves.begin() + static_cast<std::ptrdiff_t>(leaf * d.size()));
  }
}

// Collective: the digest of the file open as `fd` of `size` bytes whose seal is `seal`.
Sha256::Digest file_digest(MPI_Comm comm, int fd, std::uint64_t size, const Seal& seal, const std::string& fail) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const std::uint64_t count = (size + kLeafBytes - 1) / kLeafBytes;
  std::vector<std::uint8_t> leaves(static_cast<std::size_t>(count) * 32, 0);
  std::string error;
  try {
    hash_leaves(fd, size, seal, rank, ranks, leaves, fail);
  } catch (const Error& e) {
    error = e.what();
  }
  io_detail::agree_all(comm, error);
  // Each piece was hashed by one rank, the others hold zeros: OR gathers them on every rank.
  for (std::size_t at = 0; at < leaves.size(); at += 1 << 30) {
    const int n = static_cast<int>(std::min<std::size_t>(leaves.size() - at, 1 << 30));
    MPI_Allreduce(MPI_IN_PLACE, leaves.data() + at, n, MPI_BYTE, MPI_BOR, comm);
  }
  return Sha256::of(leaves.data(), leaves.size());
}

// The files this process wrote and sealed (remember_sealed_file): their identity on disk and digest.
// Only files written here are trusted unread, never files merely verified: a change within one tick
// of the file system's clock can keep the change time, and a reader that verifies files written by
// others in quick succession (the fuzzer) must hash each one.
struct KnownFile {
  dev_t device;
  ino_t inode;
  off_t size;
  timespec changed;
  Sha256::Digest digest;
};
std::map<std::string, KnownFile>& known_files() {
  static std::map<std::string, KnownFile> files;
  return files;
}
bool same_file(const KnownFile& k, const struct stat& st, const Sha256::Digest& stored) {
  return k.device == st.st_dev && k.inode == st.st_ino && k.size == st.st_size &&
         k.changed.tv_sec == st.st_ctim.tv_sec && k.changed.tv_nsec == st.st_ctim.tv_nsec && k.digest == stored;
}

// What an HDF5 file without a seal where a sealed one of `kind` was expected may be.
std::string unsealed_origin(SealedKind kind) {
  switch (kind) {
    case SealedKind::checkpoint:
    case SealedKind::trace:
      return std::string("written by an rsmc before ") + sealed_kind_name(kind) + " format 2, or not by rsmc";
    case SealedKind::pmmh_checkpoint:
      break;
  }
  return "a pmmh --output file, which holds no chain states, a pmmh checkpoint written by an rsmc before they were "
         "sealed (restart that run with the rsmc that wrote it), or not written by rsmc";
}

// Reads and checks the seal of the open file (everything but the digest); throws naming `what`.
Seal read_seal(int fd, const struct stat& st, SealedKind kind, const std::string& what) {
  Seal s{};
  const auto size = static_cast<std::uint64_t>(st.st_size);
  std::array<char, 8> start{};
  if (!read_at(fd, start.data(), std::min<std::uint64_t>(size, start.size()), 0) && size > 0)
    throw Error(what + ": cannot read it: " + errno_text());
  const std::string expected = std::string("an rsmc ") + sealed_kind_name(kind);
  if (size < sizeof kMagic || std::memcmp(start.data(), kMagic, sizeof kMagic) != 0) {
    if (size >= sizeof kHdf5Signature && std::memcmp(start.data(), kHdf5Signature, sizeof kHdf5Signature) == 0)
      throw Error(what + ": is an HDF5 file without an rsmc seal, not " + expected + " (" + unsealed_origin(kind) +
                  "; an unsealed file cannot be checked for damage, so it is not read)");
    throw Error(what + ": is not " + expected + " (no rsmc seal at its start; damaged, or another kind of file)");
  }
  if (size < kSealBytes || !read_at(fd, s.data(), s.size(), 0))
    throw Error(what + ": is truncated (" + std::to_string(size) + " bytes, shorter than its seal)");
  const char* name = sealed_kind_name(kind);
  char stored_kind[17] = {};
  std::memcpy(stored_kind, s.data() + kKindAt, 16);
  if (std::strncmp(stored_kind, name, 16) != 0) {
    for (SealedKind other : {SealedKind::checkpoint, SealedKind::trace, SealedKind::pmmh_checkpoint})
      if (std::strncmp(stored_kind, sealed_kind_name(other), 16) == 0)
        throw Error(what + ": is an rsmc " + sealed_kind_name(other) + ", not " + expected);
    throw Error(what + ": its seal is damaged (an unknown kind of file; expected " + expected + ")");
  }
  if (get_u64(s, kVersionAt) != kSealVersion)
    throw Error(what + ": has seal version " + std::to_string(get_u64(s, kVersionAt)) + "; this rsmc reads version " +
                std::to_string(kSealVersion) + " (written by a newer rsmc?)");
  const std::uint64_t recorded = get_u64(s, kSizeAt);
  if (recorded != size)
    throw Error(what + ": is " + (size < recorded ? "truncated" : "longer than it was written") + " (" +
                std::to_string(size) + " bytes; its seal records " + std::to_string(recorded) + ")");
  if (get_u64(s, kLeafAt) != kLeafBytes) throw Error(what + ": its seal is damaged (an unknown piece size)");
  return s;
}

}  // namespace

const char* sealed_kind_name(SealedKind kind) {
  switch (kind) {
    case SealedKind::checkpoint:
      return "checkpoint";
    case SealedKind::trace:
      return "trace";
    case SealedKind::pmmh_checkpoint:
      break;
  }
  return "pmmh checkpoint";
}

hid_t sealable_file_plist() {
  const hid_t plist = io_detail::create_untimed_plist(H5P_FILE_CREATE);
  if (plist >= 0 && H5Pset_userblock(plist, kSealBytes) < 0) {
    H5Pclose(plist);
    return -1;
  }
  return plist;
}

Sha256::Digest seal_file(MPI_Comm comm, const std::string& tmp, SealedKind kind, const std::string& fail) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  Fd file(::open(tmp.c_str(), (rank == 0 ? O_RDWR : O_RDONLY) | O_CLOEXEC));
  struct stat st {};
  std::string error;
  if (file.fd < 0 || ::fstat(file.fd, &st) != 0)
    error = fail + " (cannot reopen it to seal it: " + errno_text() + ")";
  else if (st.st_size < static_cast<off_t>(kSealBytes))
    error = fail + " (no room for the seal: HDF5 wrote no user block)";
  io_detail::agree_all(comm, error);
  // Every rank hashes the size rank 0 sees (the file is complete and closed on all of them).
  std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
  MPI_Bcast(&size, 1, MPI_UINT64_T, 0, comm);
  Seal seal = make_seal(kind, size);
  const Sha256::Digest digest = file_digest(comm, file.fd, size, seal, fail);
  if (rank == 0) {
    std::copy(digest.begin(), digest.end(), seal.begin() + kDigestAt);
    if (::pwrite(file.fd, seal.data(), seal.size(), 0) != static_cast<ssize_t>(seal.size()))
      error = fail + " (cannot write its seal: " + errno_text() + ")";
  }
  io_detail::agree_all(comm, error);
  return digest;
}

Sha256::Digest verify_sealed_file(MPI_Comm comm, const std::string& path, SealedKind kind, const std::string& what) {
  Fd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  Seal seal{};
  std::string error;
  try {
    if (file.fd < 0 || ::fstat(file.fd, &st) != 0) throw Error(what + ": cannot open: " + errno_text());
    if (S_ISDIR(st.st_mode)) throw Error(what + ": is a directory; expected a file");
    seal = read_seal(file.fd, st, kind, what);
  } catch (const Error& e) {
    error = e.what();
  }
  io_detail::agree_all(comm, error);
  const Sha256::Digest stored = digest_in(seal);
  // Written by this process and unchanged since, on every rank: no need to read it again.
  const auto known = known_files().find(path);
  int skip = known != known_files().end() && same_file(known->second, st, stored) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &skip, 1, MPI_INT, MPI_MIN, comm);
  if (skip == 1) return stored;
  Seal zeroed = seal;
  std::fill(zeroed.begin() + kDigestAt, zeroed.begin() + kDigestAt + 32, 0);
  const Sha256::Digest computed = file_digest(comm, file.fd, static_cast<std::uint64_t>(st.st_size), zeroed, what);
  if (computed != stored) throw Error(what + ": is damaged (its bytes do not match the SHA-256 digest in its seal)");
  return stored;
}

void require_same_seal(const std::string& path, const Sha256::Digest& digest, const std::string& what) {
  Fd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (file.fd < 0 || ::fstat(file.fd, &st) != 0) throw Error(what + ": cannot open: " + errno_text());
  Seal seal{};
  if (st.st_size < static_cast<off_t>(kSealBytes) || !read_at(file.fd, seal.data(), seal.size(), 0) ||
      std::memcmp(seal.data(), kMagic, sizeof kMagic) != 0 || digest_in(seal) != digest ||
      get_u64(seal, kSizeAt) != static_cast<std::uint64_t>(st.st_size))
    throw Error(what + ": changed on disk since it was verified");
}

void remember_sealed_file(const std::string& path, const Sha256::Digest& digest) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0)
    known_files()[path] = KnownFile{st.st_dev, st.st_ino, st.st_size, st.st_ctim, digest};
}

FileStart file_start(const std::string& path) {
  Fd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  std::array<char, kTextAt> start{};
  if (file.fd < 0 || !read_at(file.fd, start.data(), sizeof kMagic, 0)) return FileStart::other;
  if (std::memcmp(start.data(), kHdf5Signature, sizeof kHdf5Signature) == 0) return FileStart::plain_hdf5;
  if (std::memcmp(start.data(), kMagic, sizeof kMagic) != 0 || !read_at(file.fd, start.data(), 24, 0))
    return FileStart::other;
  const std::pair<SealedKind, FileStart> kinds[] = {{SealedKind::checkpoint, FileStart::sealed_checkpoint},
                                                    {SealedKind::trace, FileStart::sealed_trace},
                                                    {SealedKind::pmmh_checkpoint, FileStart::sealed_pmmh_checkpoint}};
  for (const auto& [kind, start_kind] : kinds)
    if (std::strncmp(start.data() + kKindAt, sealed_kind_name(kind), 16) == 0) return start_kind;
  return FileStart::other;
}

}  // namespace rsmc
