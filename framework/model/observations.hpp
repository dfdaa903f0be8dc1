// A time series of observation vectors y_1..y_T, as read from a data file or simulated.
//
// Stored row-major (step t, component j at values[(t - 1) * dim + j]) on the host. A row whose
// components are all NaN means "no observation this step": the engine skips weighting there.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace rsmc {

struct Observations {
  int steps = 0;               // T
  int dim = 0;                 // components per observation
  std::vector<double> values;  // steps * dim, row-major

  const double* row(int t) const { return values.data() + static_cast<std::size_t>(t - 1) * dim; }
  bool missing(int t) const {
    const double* y = row(t);
    for (int j = 0; j < dim; ++j)
      if (!std::isnan(y[j])) return false;
    return true;
  }
};

}  // namespace rsmc
