#include "drivers/checkpoint_directory.hpp"

#include "framework/parallel/mpi.hpp"

#include <filesystem>
#include <vector>

#include "drivers/field_flags.hpp"
#include "drivers/filter_command.hpp"
#include "base/core/error.hpp"
#include "framework/io/atomic_file.hpp"
#include "framework/io/checkpoint_file.hpp"

namespace rsmc::drivers {
namespace {

// Who wrote the checkpoint at `path`: this run (its identity is what this run's would be at its
// step), another run, nobody this run can tell (a step beyond its observations), or it cannot be
// read (damaged files are kept for a person to look at). `detail`: the first differing setting, or
// the reader's message.
enum class Owner { this_run, other_run, beyond_this_run, unreadable };
Owner checkpoint_owner(const std::string& path, const IdentityAtStep& identity_at, std::string* detail = nullptr) {
  CheckpointContents header;
  try {
    header = read_checkpoint_header(MPI_COMM_SELF, path);
  } catch (const Error& e) {
    if (detail) *detail = e.what();
    return Owner::unreadable;
  }
  const std::string expected = identity_at(header.progress.step);
  if (expected.empty()) return Owner::beyond_this_run;
  if (header.info.identity == expected) return Owner::this_run;
  if (detail) *detail = first_difference(header.info.identity, expected);
  return Owner::other_run;
}

}  // namespace

void refuse_populated_checkpoint_dir(const std::string& dir) {
  const std::vector<std::string> found = list_checkpoints(dir);
  if (found.empty()) return;
  throw Error(input_name("checkpoint_dir") + ": '" + dir + "' already holds " + std::to_string(found.size()) +
              " checkpoint" + (found.size() == 1 ? "" : "s") + " (newest " +
              std::filesystem::path(found.back()).filename().string() +
              ") of an earlier run; continue that run with --restart latest, or give another --checkpoint-dir "
              "(a new run never replaces or deletes checkpoints, --overwrite or not)");
}

void refuse_foreign_checkpoints(const std::string& dir, const IdentityAtStep& identity_at) {
  for (const std::string& path : list_checkpoints(dir)) {  // oldest first
    std::string detail;
    const Owner owner = checkpoint_owner(path, identity_at, &detail);
    if (owner == Owner::this_run || owner == Owner::beyond_this_run) continue;
    const std::string name = std::filesystem::path(path).filename().string();
    throw Error(input_name("checkpoint_dir") + ": '" + dir + "' holds " +
                (owner == Owner::other_run ? "another run's checkpoints (" + name + ": " + detail + ")"
                                           : "a checkpoint that cannot be read (" + detail + ")") +
                "; a directory holds the checkpoints of one run: restart with an empty --checkpoint-dir, or the "
                "one of the run being continued");
  }
}

void prune_checkpoints(const std::string& dir, std::size_t keep, const IdentityAtStep& identity_at) {
  std::vector<std::string> ours;
  for (const std::string& path : list_checkpoints(dir))  // oldest first
    if (checkpoint_owner(path, identity_at) == Owner::this_run) ours.push_back(path);
  for (std::size_t k = 0; k + keep < ours.size(); ++k) std::filesystem::remove(ours[k]);
  remove_abandoned_checkpoint_files(dir);
}

void remove_abandoned_checkpoint_files(const std::string& dir) {
  // ".checkpoint-<step>.h5.tmp.<host>.<pid>": write_checkpoint's temporary files of runs killed while
  // writing (never complete checkpoints), only when their writer is gone (abandoned_temporary).
  remove_abandoned_temporaries(dir, ".checkpoint-");
}

}  // namespace rsmc::drivers
