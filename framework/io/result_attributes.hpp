// The attributes rsmc writes on the root group of its HDF5 outputs (result files, simulated data):
// text, integers and reals by name. Kept apart from result_file.hpp, which needs the engine's
// FilterResult (and so Kokkos), so that host-only code (hdf5_observations.cpp, compiled by the host
// compiler alone in a CUDA build) can write them too.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rsmc {

struct ResultAttributes {  // written as attributes of the root group; never compared bitwise across rank counts
  std::vector<std::pair<std::string, std::string>>
      text;  // {"rsmc_version","0.1.0"}, {"model","linear_gaussian"}, {"configuration", "..."}
  std::vector<std::pair<std::string, std::int64_t>> integers;  // {"ranks", 4}, {"particles", 10000}
  std::vector<std::pair<std::string, double>> reals;           // {"seconds_propagate", 1.25}
};

// Reads the root-group attributes written by write_result_file (text, integer and float scalars;
// others are skipped), in creation order when the file tracks it, otherwise by name.
ResultAttributes read_result_attributes(const std::string& path);

}  // namespace rsmc
