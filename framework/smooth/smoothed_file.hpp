// The output of `rsmc smooth`: smoothed means and variances per recorded step (serial HDF5, written
// atomically like a result file).
//
// Layout (h5py / h5dump readable):
//   /steps               (R)     int32    the recorded steps of the trace, ascending
//   /smoothed_mean       (R x d) float64  E[x_t | y_1..T] estimate
//   /smoothed_variance   (R x d) float64  Var[x_t | y_1..T] estimate, per component
//   /distinct_ancestors  (R)     uint64   distinct particles of step t on the N traced paths
//   /sampled_paths       (M x R x d) float64  with `rsmc smooth --paths M`: M sampled trajectories
//   /sampled_path_ids    (M)     uint64   their particle ids at the last recorded step
//   root attributes: smoothed_format_version, particles, state_dim, final_step (int64), final_ess
//     (float64), model, trace (the source file), method (text)
#pragma once

#include <cstdint>
#include <string>

#include "framework/smooth/genealogy_smoother.hpp"

namespace rsmc {

constexpr std::int64_t kSmoothedFormatVersion = 1;

// Refuses an existing `path` unless `overwrite`; throws rsmc::Error naming the file on failure.
void write_smoothed_file(const std::string& path, const SmoothedMoments& moments, const std::string& model,
                         const std::string& trace_path, bool overwrite);

struct SmoothedFile {
  SmoothedMoments moments;
  std::string model, trace_path, method;
};
SmoothedFile read_smoothed_file(const std::string& path);

}  // namespace rsmc
