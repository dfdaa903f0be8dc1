#include "drivers/checkpoint_directory.hpp"

#include <mpi.h>

#include <filesystem>
#include <vector>

#include "framework/core/error.hpp"
#include "framework/io/checkpoint_file.hpp"

namespace rsmc::drivers {
namespace {

// Whether the checkpoint at `path` was written by this run: its identity is what this run's would
// be at its step. Unreadable or damaged files are not (they are kept for a person to look at).
bool written_by_this_run(const std::string& path, const IdentityAtStep& identity_at) {
  try {
    const CheckpointContents header = read_checkpoint_header(MPI_COMM_SELF, path);
    const std::string expected = identity_at(header.progress.step);
    return !expected.empty() && header.info.identity == expected;
  } catch (const Error&) {
    return false;
  }
}

bool is_temporary_checkpoint(const std::string& name) {
  const std::string suffix = ".h5.tmp";
  return name.rfind(".checkpoint-", 0) == 0 && name.size() > suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

void refuse_populated_checkpoint_dir(const std::string& dir) {
  const std::vector<std::string> found = list_checkpoints(dir);
  if (found.empty()) return;
  throw Error("--checkpoint-dir: '" + dir + "' already holds " + std::to_string(found.size()) + " checkpoint" +
              (found.size() == 1 ? "" : "s") + " (newest " + std::filesystem::path(found.back()).filename().string() +
              ") of an earlier run; continue that run with --restart latest, or give another --checkpoint-dir "
              "(a new run never replaces or deletes checkpoints, --overwrite or not)");
}

void prune_checkpoints(const std::string& dir, std::size_t keep, const IdentityAtStep& identity_at) {
  std::vector<std::string> ours;
  for (const std::string& path : list_checkpoints(dir))  // oldest first
    if (written_by_this_run(path, identity_at)) ours.push_back(path);
  for (std::size_t k = 0; k + keep < ours.size(); ++k) std::filesystem::remove(ours[k]);
  // Temporary files of runs killed while writing (never complete checkpoints).
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (is_temporary_checkpoint(entry.path().filename().string())) std::filesystem::remove(entry.path());
}

}  // namespace rsmc::drivers
