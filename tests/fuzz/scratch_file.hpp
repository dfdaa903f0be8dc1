// A per-process scratch file for the fuzz targets: the readers under test take a path, so each
// input is written to a file first. On /dev/shm when it exists (no disk I/O per input), else $TMPDIR
// or /tmp. The file is reused for every input of the process and removed at exit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rsmc::fuzz {

// The scratch path for `suffix` (e.g. ".csv", ".h5"); the same path on every call in a process.
std::string scratch_path(const std::string& suffix);

// Writes the bytes to scratch_path(suffix) (replacing it) and returns the path. Aborts with a
// message if the file cannot be written: that is a broken test setup, not a finding.
std::string write_scratch(const std::string& suffix, const std::uint8_t* data, std::size_t size);

}  // namespace rsmc::fuzz
