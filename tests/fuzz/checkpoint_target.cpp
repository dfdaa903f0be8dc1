// Fuzz entry for the checkpoint reader on raw bytes: the bytes are the file, read as `rsmc info` and
// a restart read it (read_checkpoint_header, then read_checkpoint_block). The reader checks the seal
// (the whole file's SHA-256 digest, framework/io/sealed_file.hpp) before HDF5 sees any byte, so a
// mutated checkpoint stops there with rsmc::Error and HDF5's parser is never reached with damaged
// bytes (it crashed on some: tests/fuzz/hdf5-findings). checkpoint_structured_target.cpp reaches
// the checks behind the seal.
#include "checkpoint_reading.hpp"
#include "fuzz_targets.hpp"
#include "scratch_file.hpp"

namespace rsmc::fuzz {

void checkpoint_input(const std::uint8_t* data, std::size_t size) {
  read_whole_checkpoint(write_scratch(".h5", data, size));
}

}  // namespace rsmc::fuzz
