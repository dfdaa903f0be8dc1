// What one resampling cost in communication, as every resampler reports it.
#pragma once

#include <cstdint>

namespace rsmc {

struct ResampleStats {
  std::uint64_t particles_moved = 0;  // offspring whose state came from another rank (all ranks)
  std::uint64_t bytes_moved = 0;      // particle-state bytes sent between ranks (all ranks)
  std::uint64_t messages = 0;         // point-to-point messages carrying particles (all ranks)
};

}  // namespace rsmc
