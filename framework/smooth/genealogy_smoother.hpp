// The genealogy-tracing smoother (Kitagawa 1996): the particles of the last recorded step, with their
// weights, are the end points of N weighted paths; following each one back through the ancestors of
// every resampling gives its state at every earlier recorded step, and the weighted moments of those
// states estimate the smoothed moments E[x_t | y_1..T] and Var[x_t | y_1..T].
//
// Path degeneracy: going back, paths coalesce (every resampling keeps only some ancestors), so at
// early steps few distinct particles remain and the estimate is poor; `distinct_ancestors` reports
// how many remain at each step (N at the last step at most, often 1 far back).
//
// Sampled paths: M of the N weighted paths drawn by systematic resampling of the last step's weights
// with the fixed offset 1/2 (deterministic: no seed; path k is the particle whose cumulative weight
// interval holds (k + 1/2) W / M), each with its state at every recorded step: trajectories from the
// smoothing distribution's particle approximation.
//
// Serial (one process reads the whole trace, step by step: memory O(N d)); the result depends only
// on the trace file's contents, and its sums are exact (ExactSum), so it is bitwise reproducible.
#pragma once

#include <cstdint>
#include <vector>

#include "framework/io/trace_file.hpp"

namespace rsmc {

struct SmoothedMoments {
  int state_dim = 0;                              // d
  std::uint64_t particles = 0;                    // N
  int final_step = 0;                             // the last recorded step T (whose weights are used)
  double final_ess = 0.0;                         // effective sample size of the weights at T
  std::vector<std::int32_t> steps;                // the recorded steps, ascending (R)
  std::vector<double> mean;                       // E[x_t | y_1..T], R x d row-major
  std::vector<double> variance;                   // Var[x_t | y_1..T] per component, R x d
  std::vector<std::uint64_t> distinct_ancestors;  // distinct particles of step t on the N paths, R
  std::vector<std::uint64_t> path_ids;            // sampled paths: their particle at the last step, M
  std::vector<double> paths;                      // their states, M x R x d row-major
};

// Throws rsmc::Error naming the trace if it has no recorded cloud or its data are inconsistent.
// `paths`: how many paths to sample (0: none).
SmoothedMoments smooth_genealogy(const TraceReader& trace, std::uint64_t paths = 0);

}  // namespace rsmc
