#include "framework/io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <system_error>

#include "base/core/error.hpp"
#include "framework/io/existing_file.hpp"

namespace rsmc {
namespace {

namespace fs = std::filesystem;

std::string errno_text(int err) { return std::strerror(err); }

// The directory part of `path` ("." when there is none) and the file name part.
void split_path(const std::string& path, fs::path& dir, std::string& name) {
  const fs::path p(path);
  name = p.filename().string();
  if (name.empty() || name == "." || name == "..")
    throw Error("output file '" + path + "': expected a path to a file, not a directory");
  dir = p.parent_path();
  if (dir.empty()) dir = ".";
}

// True if something (a file, a directory, even a dangling symbolic link) exists at `path`.
bool something_exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

// Flushes a file's or a directory's contents to disk (the one fsync of framework/io). Throws
// rsmc::Error naming the path and the system's reason, except for EINVAL: the file system cannot
// sync this kind of object (some refuse it for directories), so there is nothing to wait for.
void sync_path(const std::string& path, bool is_directory) {
  const char* what = is_directory ? "directory" : "file";
  const int fd = ::open(path.c_str(), (is_directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0)
    throw Error(std::string("cannot open the ") + what + " '" + path + "' to flush it to disk: " + errno_text(errno));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0 && err != EINVAL)
    throw Error(std::string("cannot flush the ") + what + " '" + path + "' to disk: " + errno_text(err));
}

// Moves the finished temporary file to `path`.
void commit(const std::string& tmp, const std::string& path, bool overwrite) {
  if (!overwrite) {
    // link() fails with EEXIST if a file appeared at `path` since the first check: never replace it.
    if (::link(tmp.c_str(), path.c_str()) == 0) {
      ::unlink(tmp.c_str());
      return;
    }
    const int err = errno;
    if (err == EEXIST) throw existing_file_error("output", path);
    // File systems without hard links: fall back to check-then-rename.
    if (err != EPERM && err != ENOTSUP && err != EOPNOTSUPP && err != ENOSYS && err != EMLINK && err != EXDEV)
      throw Error("output file '" + path + "': cannot move the temporary file '" + tmp +
                  "' into place: " + errno_text(err));
    if (something_exists(path)) throw existing_file_error("output", path);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw Error("output file '" + path + "': cannot move the temporary file '" + tmp +
                "' into place: " + errno_text(errno));
}

}  // namespace

std::string atomic_temporary_path(const std::string& path) {
  fs::path dir;
  std::string name;
  split_path(path, dir, name);
  return (dir / ("." + name + ".tmp." + std::to_string(static_cast<long>(::getpid())))).string();
}

void write_atomically(const std::string& path, bool overwrite,
                      const std::function<void(const std::string& tmp_path)>& write) {
  if (path.empty()) throw Error("output file: the path is empty; expected a file name");
  fs::path dir;
  std::string name;
  split_path(path, dir, name);

  refuse_existing_file("output", path, overwrite);
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw Error("output file '" + path + "' is a directory; expected a path to a file");
  if (::stat(dir.c_str(), &st) != 0)
    throw Error("output file '" + path + "': cannot use the directory '" + dir.string() + "': " + errno_text(errno));
  if (!S_ISDIR(st.st_mode)) throw Error("output file '" + path + "': '" + dir.string() + "' is not a directory");

  const std::string tmp = atomic_temporary_path(path);
  // A leftover from an earlier process that had our pid: it is ours to replace.
  ::unlink(tmp.c_str());
  try {
    write(tmp);
  } catch (const Error&) {
    ::unlink(tmp.c_str());
    throw;
  } catch (const std::exception& e) {
    ::unlink(tmp.c_str());
    throw Error("output file '" + path + "': write failed: " + e.what());
  } catch (...) {
    ::unlink(tmp.c_str());
    throw Error("output file '" + path + "': write failed (unknown exception)");
  }
  publish_atomically(tmp, path, overwrite);
}

void publish_atomically(const std::string& tmp, const std::string& path, bool overwrite) {
  fs::path dir;
  std::string name;
  split_path(path, dir, name);
  try {
    sync_path(tmp, false);
    commit(tmp, path, overwrite);
  } catch (const Error&) {
    ::unlink(tmp.c_str());
    throw;
  }
  sync_path(dir.string(), true);
}

}  // namespace rsmc
