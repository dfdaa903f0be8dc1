// What a filter run reports, step by step. Identical on every rank after a run. Everything but
// `traffic` and `phase_seconds` is bitwise identical for any number of ranks and any layout (exact,
// partition-independent sums); `traffic` describes the communication and load balance of each
// resampling, which depend on the rank count and the layout, and `phase_seconds` are wall-clock
// measurements.
//
// The per-step series (ess ... traffic) are listed once, with their file names, in
// framework/engine/step_series.hpp: FilterResult::append, the result file, the checkpoint and
// `rsmc info` all loop over that table (docs/design/step-outputs.md).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "framework/parallel/phase_times.hpp"
#include "framework/resample/resample_stats.hpp"

namespace rsmc {

// What one step reports (identical on every rank).
struct StepSummary {
  double ess = 0.0;
  double log_likelihood_increment = 0.0;
  std::vector<double> mean, variance;  // per state component
  bool resampled = false;
  std::uint64_t invalid_likelihoods = 0;  // particles of all ranks given weight zero for a NaN / +inf log-likelihood
  ResampleStats resample_stats;           // all zero at a step without resampling
  // max_k count_k / target_k of the layout the step ends with (after its rebalance, if it
  // resampled): 1 in the target layout, at most 1 + tau (LoadBand::imbalance). Depends on the rank
  // count, the tolerance and the capacities, like the traffic.
  double imbalance = 1.0;
};

struct FilterResult {
  int steps = 0;                                 // T: steps t = 1..T, entry t-1 of every per-step vector
  int state_dim = 0;                             // d
  std::vector<double> ess;                       // effective sample size after weighting, T
  std::vector<double> log_likelihood_increment;  // log p(y_t | y_1..t-1) estimate, T (0 if y_t missing)
  std::vector<double> mean;                      // filtered mean, T x d row-major
  std::vector<double> variance;                  // filtered variance per component, T x d
  std::vector<std::uint8_t> resampled;           // 1 if the step ended with a resampling, T
  // Particles whose log-likelihood was NaN or +inf and got weight zero (InvalidLikelihood::zero_weight;
  // always 0 otherwise), T; an exact count over all ranks. Empty in results read from older files.
  std::vector<std::uint64_t> invalid_likelihoods;
  double log_likelihood = 0.0;     // log p(y_1..T) estimate, the exact sum of the increments
  std::vector<double> true_state;  // x_1..x_T when the data were simulated (T x d), else empty
  // Wall seconds per Phase (kPhaseNames order), maximum over ranks, of this process's part of the
  // run (a restarted run counts from the restart). A measurement: machine- and rank-dependent.
  std::array<double, kPhaseCount> phase_seconds{};

  struct Traffic {  // per step, T entries each; 0 at steps without resampling (see ResampleStats)
    std::vector<std::uint64_t> particles_moved, bytes_moved, messages, max_partners, minimum_moves;
    std::vector<double> imbalance;  // StepSummary::imbalance of every step (empty in older files)
  } traffic;

  // Records step steps + 1: appends the step's values to every series of kStepSeries and counts
  // the step. Defined in step_series.hpp (included below).
  inline void append(const StepSummary& step);
};

}  // namespace rsmc

#include "framework/engine/step_series.hpp"  // the table of the series, and append()
