// Observations in HDF5 files (serial HDF5 C API; called by one rank).
//
// Reading accepts a 1-D (T) or 2-D (T x m) dataset of any floating-point type (converted to double).
// A row that is entirely NaN means "no observation this step"; a partially NaN row, or an infinite
// value, is an error naming the row. HDF5's own error-stack printing is silenced while these
// functions run, so a failure shows only the one-line rsmc::Error.
//
// Writing produces a 2-D T x m dataset "observations" (IEEE 64-bit little-endian doubles; written
// even when m = 1) with a 64-bit integer attribute "columns" = m on that dataset, atomically (see atomic_file.hpp);
// simulated data also get the true states x_1..x_T as the T x d dataset "state" (same form), and
// the name of the model that made them as the root attribute "model" (a text).
#pragma once

#include <optional>
#include <string>

#include "framework/model/observations.hpp"

namespace rsmc {

Observations read_observations_hdf5(const std::string& path, const std::string& dataset = "observations");

// Refuses an existing `path` unless `overwrite`. `obs` must pass validate_observations(). With
// `states` (the true states x_1..x_T of simulated data, one row per observation), also writes them
// as the T x d dataset "state"; with a `model` name (simulated data), the attribute "model".
void write_observations_hdf5(const std::string& path, const Observations& obs, bool overwrite,
                             const Observations* states = nullptr, const std::string& model = "");

// The model an observations file was simulated from (its attribute "model"), or nothing.
std::optional<std::string> read_observations_model(const std::string& path);

// The dataset "state" of a data file written with states, or nothing when the file has none.
std::optional<Observations> read_states_hdf5(const std::string& path);

}  // namespace rsmc
