#include "framework/io/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
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

namespace {

// This machine's host name as temporary names carry it (see atomic_temporary_path).
std::string host_label() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "unknown-host";
  std::string label;
  for (const char* c = name; *c != '\0' && *c != '.' && label.size() < 64; ++c)
    label += std::isalnum(static_cast<unsigned char>(*c)) != 0 || *c == '-' ? *c : '-';
  return label;
}

}  // namespace

std::string atomic_temporary_path(const std::string& path) {
  fs::path dir;
  std::string name;
  split_path(path, dir, name);
  return (dir / ("." + name + ".tmp." + host_label() + "." + std::to_string(static_cast<long>(::getpid())))).string();
}

void refuse_uncreatable_file(const std::string& field, const std::string& path) {
  const auto refuse = [&](const std::string& why) {
    throw FieldError(
        field, path,
        FieldError::Template{"{" + field + "}: cannot create " + FieldError::literal("'" + path + "': " + why)},
        "a path in a directory where files can be created");
  };
  fs::path dir;
  std::string name;
  try {
    split_path(path, dir, name);
  } catch (const Error&) {
    refuse("it names a directory; expected a file");
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) refuse("no directory '" + dir.string() + "': " + errno_text(errno));
  if (!S_ISDIR(st.st_mode)) refuse("'" + dir.string() + "' is not a directory");
  const std::string probe = atomic_temporary_path(path);
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0 && errno != EEXIST) refuse("cannot make a file in '" + dir.string() + "': " + errno_text(errno));
  if (fd >= 0) {
    ::close(fd);
    ::unlink(probe.c_str());
  }
}

bool abandoned_temporary(const std::string& file_name) {
  // ".<name>.tmp.<host>.<pid>": the pid after the last '.', the host between it and ".tmp.".
  const std::size_t last = file_name.rfind('.');
  const std::size_t tmp = file_name.rfind(".tmp.", last == std::string::npos ? 0 : last);
  if (file_name.empty() || file_name[0] != '.' || last == std::string::npos || tmp == std::string::npos ||
      tmp + 5 > last)
    return false;
  const std::string host = file_name.substr(tmp + 5, last - tmp - 5), pid_text = file_name.substr(last + 1);
  if (host != host_label() || pid_text.empty() || pid_text.size() > 9 ||
      pid_text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  const long pid = std::stol(pid_text);
  if (pid <= 0 || pid == static_cast<long>(::getpid())) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

void remove_abandoned_temporaries(const std::string& dir, const std::string& prefix) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && abandoned_temporary(name)) fs::remove(entry.path(), ec);
  }
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
  // A leftover from an earlier process that had our pid: it is ours to replace. Those of killed
  // writers of the same file go too (abandoned_temporary: never a live writer's).
  ::unlink(tmp.c_str());
  remove_abandoned_temporaries(dir.string(), "." + name + ".tmp.");
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
