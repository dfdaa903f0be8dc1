// What a filter run may do with its --checkpoint-dir: a directory can hold the checkpoints of one
// run only, and a run never deletes checkpoints it did not write.
//   - A fresh run (no --restart) refuses a directory that already holds checkpoints (they belong to
//     another run, or to this one, which should then be continued with --restart latest), before
//     anything is written. --overwrite does not change that: it is about --output only.
//   - A restart (--restart FILE or latest) refuses a directory that holds another run's checkpoints,
//     or files named as checkpoints that cannot be read, before anything is written: it would write
//     its checkpoints beside them, and replace one of the same step. An empty directory, or one
//     holding this run's own checkpoints (restart in place), is fine.
//   - Pruning (--keep-checkpoints) removes only checkpoints whose identity is this run's (read from
//     the file); a checkpoint that cannot be read, or belongs to another run, is left alone.
//   - The temporary files of checkpoint writes that were killed are removed when a run starts and
//     after each checkpoint, but only those whose writer is certainly gone (the host in their name
//     is this one and its pid runs no process: abandoned_temporary, framework/io/atomic_file.hpp),
//     never a file another live run is writing.
#pragma once

#include <functional>
#include <string>

namespace rsmc::drivers {

// Throws rsmc::Error naming `dir` if it holds checkpoints (checkpoint-<step>.h5).
void refuse_populated_checkpoint_dir(const std::string& dir);

// This run's identity text at a step (FilterCommand::identity_text with the data hash of that step),
// or "" when the step is not one this run can have reached.
using IdentityAtStep = std::function<std::string(int step)>;

// Throws rsmc::Error naming `dir` and the first checkpoint in it (oldest first) that is not this
// run's: another run's (with the first differing setting), or unreadable. Checkpoints at steps for
// which identity_at gives "" (beyond this run's observations) are passed over: this run can neither
// write nor prune them. One process (rank 0), no MPI collectives.
void refuse_foreign_checkpoints(const std::string& dir, const IdentityAtStep& identity_at);

// Keeps the newest `keep` checkpoints of this run in `dir` and deletes its older ones, plus the
// abandoned temporary files of writes that were killed. One process (rank 0), no MPI collectives.
void prune_checkpoints(const std::string& dir, std::size_t keep, const IdentityAtStep& identity_at);

// Removes the abandoned temporary files of checkpoint writes that were killed (see above). One
// process (rank 0), no MPI collectives.
void remove_abandoned_checkpoint_files(const std::string& dir);

}  // namespace rsmc::drivers
