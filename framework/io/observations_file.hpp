// Reading observations from a data file whose format follows from its extension.
#pragma once

#include <string>

#include "framework/model/observations.hpp"

namespace rsmc {

// The extension of `path`'s file name in lower case, with its dot (".csv" for "dir/DATA.CSV"), "" when
// it has none (std::filesystem::path::extension: "dir.d/file" and ".csv" have none).
std::string lowercase_extension(const std::string& path);

// A data file's format by its extension, matched case-insensitively: .csv, .h5 or .hdf5. Every
// command decides the format of a file it reads or writes with this.
enum class DataFormat { csv, hdf5, unknown };
DataFormat data_format(const std::string& path);

// .csv -> read_observations_csv(); .h5 / .hdf5 -> read_observations_hdf5(path, "observations")
// (data_format); anything else is an rsmc::Error naming the file and the accepted extensions.
Observations read_observations(const std::string& path);

// Checks that `obs` is a well-formed series that the readers would accept: dim >= 1, steps >= 1,
// values.size() == steps * dim, and every row either all finite or all NaN (missing). `what` names
// the destination in the message ("output file 'y.csv'"). Throws rsmc::Error. Used by the writers.
void validate_observations(const Observations& obs, const std::string& what);

}  // namespace rsmc
