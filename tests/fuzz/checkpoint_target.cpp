// Fuzz entry for the checkpoint reader on raw bytes: the bytes are the file. Most inputs stop in
// HDF5's own format checks (open_hdf5_read_only); those that open as HDF5 reach rsmc's attribute,
// shape and checksum checks. checkpoint_structured_target.cpp reaches those more often.
#include "checkpoint_reading.hpp"
#include "fuzz_targets.hpp"
#include "scratch_file.hpp"

namespace rsmc::fuzz {

void checkpoint_input(const std::uint8_t* data, std::size_t size) {
  read_whole_checkpoint(write_scratch(".h5", data, size));
}

}  // namespace rsmc::fuzz
