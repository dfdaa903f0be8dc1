// Checkpoints of a filter run, written with parallel HDF5 (MPI-IO: the file and datasets created
// collectively, each rank writing its own contiguous block of global ids) and read back by every rank
// for its own block, so nothing is gathered to one rank, and a checkpoint written on p ranks
// restarts on any number of ranks. A write failure after the file exists aborts the job (see
// docs/checkpointing.md: a parallel HDF5 close after a failed write can hang).
//
// Layout (format version 3; h5dump / h5py readable):
//   bytes 0..511            the seal: a SHA-256 digest of the whole file in the HDF5 user block
//                           (framework/io/sealed_file.hpp); HDF5's superblock follows at 512
//   /particles/state        (d x N)  float64  component c of global id i at [c, i]
//   /particles/log_weight   (N)      float64
//   /particles/id           (N)      uint64   global ids 0..N-1 (explicit, for readers)
//   /progress/<series>      (T) or (T x d)    every per-step series of kStepSeries
//                                             (framework/engine/step_series.hpp), by its name, for
//                                             steps 1..T (T = step): ess, ..., minimum_moves, imbalance
//   /progress/log_likelihood_exact  (71) int64  the exact running sum (ExactSum limbs, normalised)
//   root attributes: format_version, rng_version, step, particles, state_dim, log_total_weight
//     (float64), particle_checksum and progress_checksum (uint64), model, parameters, identity,
//     configuration (text)
//
// identity: the `key = value` lines that must match for a bit-exact continuation (model, parameters,
// particles, seed, scheme, ...); the driver compares them with the restarted run's and names the
// first that differs. particle_checksum: the sum mod 2^64 over all particles of a 64-bit hash of
// (global id, state, log-weight): it does not depend on how the particles were split over ranks.
// progress_checksum: a hash of the progress datasets and the step attributes.
//
// Writing (write_checkpoint, in steps): preflight (input consistency; rank 0: the directory exists,
// is writable and has room), the particles (each rank its block), the progress and the attributes
// (collective parallel HDF5), then a collective publish: the closed temporary file
// ".<name>.tmp.<pid of rank 0>" beside the target is sealed, fsync'ed and renamed by rank 0
// (publish_atomically), so a crash at any point leaves no partial file under the final name.
// Reading checks the seal (the whole file's digest) before HDF5 opens it, then the format version,
// the shapes and both checksums, and throws rsmc::Error naming the file and what is wrong
// (truncated, damaged, checksum mismatch, newer format).
#pragma once

#include "framework/parallel/mpi.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "framework/engine/run_progress.hpp"
#include "framework/io/sha256.hpp"

namespace rsmc {

// 2: sealed (the digest in the user block), the series of kStepSeries under /progress.
// 3: the series `imbalance` joins /progress. Files of versions 1 (unsealed) and 2 (without it) are
// refused.
constexpr std::int64_t kCheckpointFormatVersion = 3;
// Version of the random-stream scheme (base/rng): a checkpoint continues bit for bit only with
// the same streams. Bump when the stream layout or any sampler's use of it changes.
constexpr std::int64_t kRngSchemeVersion = 1;

struct CheckpointInfo {
  std::int64_t format_version = kCheckpointFormatVersion;
  std::int64_t rng_version = kRngSchemeVersion;
  std::uint64_t particles = 0;  // N
  int state_dim = 0;            // d
  std::string model, parameters;
  std::string identity;       // must match for a continuation (see above)
  std::string configuration;  // the full run configuration, for people
  Sha256::Digest digest{};    // set by read_checkpoint_header: the verified file's digest
};

// This rank's particles: `count` particles with global ids first_id .. first_id + count - 1; state
// component-major (state[c * count + i] = component c of local particle i, Kokkos LayoutLeft).
struct CheckpointBlock {
  std::uint64_t first_id = 0;
  std::uint64_t count = 0;
  std::vector<double> state;
  std::vector<double> log_weight;
};

// Collective over `comm`. `progress` must be identical on every rank; the blocks of the ranks, in
// rank order, must cover ids 0..N-1. Throws rsmc::Error on every rank if the write fails; the file
// under `path` is then unchanged (an existing one is replaced only by a complete new file).
void write_checkpoint(MPI_Comm comm, const std::string& path, const CheckpointInfo& info, const RunProgress& progress,
                      const CheckpointBlock& block);

// Collective: verifies the whole file's digest (the ranks share the work), then every rank reads the
// metadata and the progress.
struct CheckpointContents {
  CheckpointInfo info;
  RunProgress progress;
};
CheckpointContents read_checkpoint_header(MPI_Comm comm, const std::string& path);

// Collective: every rank reads its block [first_id, first_id + count) and the particle checksum is
// verified over all ranks. `info` as returned by read_checkpoint_header: the file must still be the
// one it verified (same seal).
CheckpointBlock read_checkpoint_block(MPI_Comm comm, const std::string& path, const CheckpointInfo& info,
                                      std::uint64_t first_id, std::uint64_t count);

// Checkpoint file names in a directory: checkpoint-<step, 9 digits>.h5.
std::string checkpoint_name(int step);
// The complete checkpoints in `dir` (temporary files excluded), oldest step first; empty if none.
std::vector<std::string> list_checkpoints(const std::string& dir);

}  // namespace rsmc
