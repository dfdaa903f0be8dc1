#include "framework/io/observations_file.hpp"

#include <cctype>
#include <cmath>
#include <cstddef>
#include <filesystem>

#include "base/core/error.hpp"
#include "framework/io/csv_observations.hpp"
#include "framework/io/hdf5_observations.hpp"

namespace rsmc {

std::string lowercase_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

DataFormat data_format(const std::string& path) {
  const std::string ext = lowercase_extension(path);
  if (ext == ".csv") return DataFormat::csv;
  if (ext == ".h5" || ext == ".hdf5") return DataFormat::hdf5;
  return DataFormat::unknown;
}

Observations read_observations(const std::string& path) {
  switch (data_format(path)) {
    case DataFormat::csv:
      return read_observations_csv(path);
    case DataFormat::hdf5:
      return read_observations_hdf5(path);
    case DataFormat::unknown:
      break;
  }
  const std::string ext = lowercase_extension(path);
  throw Error("observations file '" + path +
              "': " + (ext.empty() ? std::string("no file extension") : "unrecognised extension '" + ext + "'") +
              "; expected .csv, .h5 or .hdf5");
}

void validate_observations(const Observations& obs, const std::string& what) {
  if (obs.dim < 1)
    throw Error(what + ": observations have " + std::to_string(obs.dim) + " components; expected at least 1");
  if (obs.steps < 1)
    throw Error(what + ": observations have " + std::to_string(obs.steps) + " steps; expected at least 1");
  const std::size_t n = static_cast<std::size_t>(obs.steps) * static_cast<std::size_t>(obs.dim);
  if (obs.values.size() != n)
    throw Error(what + ": observations hold " + std::to_string(obs.values.size()) + " values; expected steps x dim = " +
                std::to_string(obs.steps) + " x " + std::to_string(obs.dim) + " = " + std::to_string(n));
  for (int t = 1; t <= obs.steps; ++t) {
    const double* y = obs.row(t);
    int nan = 0;
    for (int j = 0; j < obs.dim; ++j) {
      if (std::isnan(y[j])) {
        ++nan;
      } else if (!std::isfinite(y[j])) {
        throw Error(what + ": observation at step " + std::to_string(t) + ", component " + std::to_string(j + 1) +
                    " is infinite; expected a finite number or NaN (missing)");
      }
    }
    if (nan != 0 && nan != obs.dim)
      throw Error(what + ": observation at step " + std::to_string(t) + " has " + std::to_string(nan) + " of " +
                  std::to_string(obs.dim) +
                  " components missing; expected all or none (partially observed steps are not supported)");
  }
}

}  // namespace rsmc
