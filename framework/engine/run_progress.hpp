// Where a filter run stands between two steps: everything, besides the particles themselves, that
// a checkpoint must hold to continue the run bit for bit (framework/io/checkpoint_file.hpp).
// Identical on every rank, and for any number of ranks.
#pragma once

#include "framework/engine/filter_result.hpp"
#include "base/exact/exact_sum.hpp"

namespace rsmc {

struct RunProgress {
  int step = 0;                      // the last completed step (0: initialised, nothing filtered yet)
  double log_total_weight = 0.0;     // log of the sum of all weights after that step
  exact::ExactSum log_likelihood{};  // exact running sum of the log-likelihood increments
  FilterResult result;               // per-step outputs of steps 1..step (result.steps == step)
};

}  // namespace rsmc
