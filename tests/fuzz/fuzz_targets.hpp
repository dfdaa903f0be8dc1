// The fuzz targets' entry points: each takes one input (any bytes) and feeds it to an rsmc reader.
// An entry returns normally for input the reader accepts and lets rsmc::Error escape for input it
// rejects; anything else (another exception, a sanitizer report, a crash, a hang) is a bug.
//
// The same entries run under libFuzzer (fuzz_main.cpp, the clang fuzz build) and in the regular
// build's replay test (replay_main.cpp), which feeds them the committed corpus and regressions.
// MPI must be initialised before an entry runs (the checkpoint reader is collective; it is used on
// MPI_COMM_SELF).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rsmc::fuzz {

using Entry = void (*)(const std::uint8_t* data, std::size_t size);

// `rsmc filter --config`: the TOML reader, the filter's key binding and the models' [parameters].
void config_input(const std::uint8_t* data, std::size_t size);
// The CSV observation reader (read_observations_csv on a file holding the bytes).
void csv_input(const std::uint8_t* data, std::size_t size);
// The checkpoint reader on a file holding the bytes (read_checkpoint_header, then _block).
void checkpoint_input(const std::uint8_t* data, std::size_t size);
// The checkpoint reader on a valid checkpoint that the bytes shape and then damage through HDF5
// (attribute values and types, dataset shapes, missing objects), to reach rsmc's own validation.
void checkpoint_structured_input(const std::uint8_t* data, std::size_t size);

// The pmmh checkpoint reader on a file holding the bytes (read_chain_checkpoint, then each chain's
// state restored as a restart restores it).
void pmmh_checkpoint_input(const std::uint8_t* data, std::size_t size);
// The same on a valid pmmh checkpoint that the bytes shape, then damage through HDF5 and reseal.
void pmmh_checkpoint_structured_input(const std::uint8_t* data, std::size_t size);

// The entry of a target by name ("config", "csv", "checkpoint", "checkpoint_structured",
// "pmmh_checkpoint", "pmmh_checkpoint_structured"); nullptr
// for an unknown name.
Entry entry_by_name(const std::string& name);

}  // namespace rsmc::fuzz
