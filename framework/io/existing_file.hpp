// The one rule for an output path where something exists already: refused unless the caller allows
// replacing it. Every writer of outputs (result, observations, trace and smoothed files) and the
// drivers' early checks use it, so the refusal reads the same everywhere:
//     output: run.h5 already exists; pass overwrite = true to replace it
// (the command line writes "--output: run.h5 already exists; pass --overwrite to replace it").
#pragma once

#include <sys/stat.h>

#include <string>

#include "base/core/error.hpp"

namespace rsmc {

// The refusal of `path`, the value of `field` (e.g. "output", "trace").
inline FieldError existing_file_error(const std::string& field, const std::string& path) {
  return FieldError(field, path,
                    FieldError::Template{"{" + field + "}: " + FieldError::literal(path) +
                                         " already exists; pass {overwrite true} to replace it"},
                    "a path where nothing exists, or {overwrite true}");
}

// True if something (a file, a directory, even a dangling symbolic link) exists at `path`.
inline bool something_exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

// Throws existing_file_error(field, path) when something exists at `path` and !overwrite.
inline void refuse_existing_file(const std::string& field, const std::string& path, bool overwrite) {
  if (!overwrite && something_exists(path)) throw existing_file_error(field, path);
}

}  // namespace rsmc
