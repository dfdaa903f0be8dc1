// Writing an output file atomically: either the complete new file appears at `path`, or nothing
// changes there.
//
// write_atomically() refuses at once when `path` exists and `overwrite` is false. Otherwise it hands
// the callback a temporary path in the same directory (".<name>.tmp.<host>.<pid>"), so that the final
// step is a rename within one file system. After the callback returns, the temporary file is flushed to
// disk and renamed over `path` (or, when !overwrite, hard-linked to `path`, which fails if a file
// appeared there meanwhile). If the callback or any later step fails, the temporary file is removed
// and an rsmc::Error is thrown; a file that already existed at `path` is never touched.
//
// The callback must create the file at tmp_path itself and have closed it when it returns (including
// when it throws: use RAII for file handles). Serial: called by one process for one path at a time.
#pragma once

#include <functional>
#include <string>

namespace rsmc {

void write_atomically(const std::string& path, bool overwrite,
                      const std::function<void(const std::string& tmp_path)>& write);

// The last step of write_atomically(), for a file written elsewhere (by several processes): flushes
// the complete file `tmp` (made by atomic_temporary_path(path)) to disk and moves it to `path`
// (refusing an existing `path` unless `overwrite`); on failure removes `tmp` and throws rsmc::Error.
void publish_atomically(const std::string& tmp, const std::string& path, bool overwrite);

// The temporary name write_atomically() (and the parallel checkpoint and trace writers) use for
// `path` in this process: ".<name>.tmp.<host>.<pid>", beside `path`. <host> is this machine's host
// name up to its first '.', with characters other than letters, digits and '-' written '-'.
std::string atomic_temporary_path(const std::string& path);

// Throws a FieldError naming `field` (e.g. "output") when no file can be made at `path`: its
// directory is missing or not a directory, or refuses a new file (a read-only file system, no
// permission), found by creating and removing the temporary file write_atomically() would write.
// For a run's early checks: a run must not compute for hours and then be unable to save its result.
void refuse_uncreatable_file(const std::string& field, const std::string& path);

// Temporary files left behind by killed writers are removed only when their writer is certainly
// gone, never while another live run may still be writing them (two runs can share a directory,
// and a run's rank 0 may be on another node of a shared file system): the file's name must carry
// this host's name and a pid that no process of this host has (kill(pid, 0) fails with ESRCH).
// Files of other hosts, of this process, and names without a host (written by rsmc before this
// rule) are kept: whoever wrote them may still be running, and a person removes them.
bool abandoned_temporary(const std::string& file_name);

// Removes the files in `dir` whose names start with `prefix` (e.g. ".checkpoint-") and that are
// abandoned temporaries. Errors are ignored (a file another cleaner removed first, an unreadable
// directory): the cleanup is a courtesy, never a reason to fail a run.
void remove_abandoned_temporaries(const std::string& dir, const std::string& prefix);

}  // namespace rsmc
