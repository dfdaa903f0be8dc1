// Writing an output file atomically: either the complete new file appears at `path`, or nothing
// changes there.
//
// write_atomically() refuses at once when `path` exists and `overwrite` is false. Otherwise it hands
// the callback a temporary path in the same directory (".<name>.tmp.<pid>"), so that the final step
// is a rename within one file system. After the callback returns, the temporary file is flushed to
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

// The temporary name write_atomically() uses for `path` in this process (exposed for tests).
std::string atomic_temporary_path(const std::string& path);

}  // namespace rsmc
