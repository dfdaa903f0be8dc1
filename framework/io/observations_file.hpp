// Reading observations from a data file whose format follows from its extension.
#pragma once

#include <string>

#include "framework/model/observations.hpp"

namespace rsmc {

// .csv -> read_observations_csv(); .h5 / .hdf5 -> read_observations_hdf5(path, "observations").
// The extension is matched case-insensitively; anything else is an rsmc::Error naming the file and
// the accepted extensions.
Observations read_observations(const std::string& path);

// Checks that `obs` is a well-formed series that the readers would accept: dim >= 1, steps >= 1,
// values.size() == steps * dim, and every row either all finite or all NaN (missing). `what` names
// the destination in the message ("output file 'y.csv'"). Throws rsmc::Error. Used by the writers.
void validate_observations(const Observations& obs, const std::string& what);

}  // namespace rsmc
