// What the fuzz targets do with a checkpoint file: what `rsmc info` and a restart do with it.
#pragma once

#include <string>

namespace rsmc::fuzz {

// read_checkpoint_header, then read_checkpoint_block of all particles, on MPI_COMM_SELF; checks
// that what was accepted is consistent (aborts if not). Lets rsmc::Error escape.
void read_whole_checkpoint(const std::string& path);

}  // namespace rsmc::fuzz
