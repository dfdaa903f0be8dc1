// The filter's per-step results as an HDF5 file (serial HDF5 C API; written by rank 0).
//
// Layout (all datasets at the root; readable with h5dump and h5py):
//   /ess                       (T)      float64   effective sample size after weighting
//   /log_likelihood_increment  (T)      float64
//   /filtered_mean             (T x d)  float64
//   /filtered_variance         (T x d)  float64
//   /resampled                 (T)      uint8     1 if step t ended with a resampling
//   /log_likelihood            scalar   float64
//   /invalid_likelihoods       (T)      uint64    particles given weight zero for a NaN / +inf
//                                                 log-likelihood (--invalid-likelihood zero-weight)
//   /true_state                (T x d)  float64   x_1..x_T, only when the data were simulated
//   /resampling_traffic/       group    communication and load balance of each resampling (FilterResult::Traffic),
//     particles_moved, bytes_moved, messages, max_partners, minimum_moves   (T)  uint64 each;
//     0 at steps without resampling;
//     imbalance  (T)  float64  max over ranks of count / target of the layout each step ends with;
//     group attribute `note` (text) says they depend on the rank count and the layout
// plus the ResultAttributes as attributes of the root group (text: variable-length UTF-8 strings;
// integers: int64 scalars; reals: float64 scalars). Every dataset except those under /resampling_traffic is bitwise
// identical for any number of ranks; the traffic and the attributes are not (they record e.g. the
// rank count), which is why tests/tools/h5_datasets_equal compares datasets only and the tests pass
// it `--ignore /resampling_traffic`. Objects carry no modification timestamps.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "framework/engine/filter_result.hpp"
#include "framework/io/result_attributes.hpp"

namespace rsmc {

// Writes atomically (framework/io/atomic_file.hpp): refuses an existing `path` unless `overwrite`
// (the message says to pass --overwrite); on any failure the temporary file is removed, an
// rsmc::Error is thrown, and a file already at `path` is left untouched. `result` must be
// consistent (steps >= 1, state_dim >= 1, vector sizes T and T x d; invalid_likelihoods empty (written
// as zeros) or of size T; the five traffic vectors either
// all empty, meaning "not recorded" and written as zeros, or each of size T); attribute names must be
// non-empty and distinct, and text values must not contain NUL characters.
void write_result_file(const std::string& path, const FilterResult& result, const ResultAttributes& attributes,
                       bool overwrite);

// Reads the datasets back (attributes are not returned). Values are converted to double / uint8 /
// uint64 if the file stores another float / integer type. A file without /resampling_traffic or
// /invalid_likelihoods (written before they existed) gives empty vectors. Throws rsmc::Error naming the file and
// dataset.
FilterResult read_result_file(const std::string& path);

// read_result_attributes: framework/io/result_attributes.hpp

}  // namespace rsmc
