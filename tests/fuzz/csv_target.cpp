// Fuzz entry for the CSV observation reader (framework/io/csv_observations.cpp). What it accepts
// must be a well-formed observation table: the same invariants the filter relies on.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "framework/io/csv_observations.hpp"
#include "fuzz_targets.hpp"
#include "scratch_file.hpp"

namespace rsmc::fuzz {

void csv_input(const std::uint8_t* data, std::size_t size) {
  const Observations obs = read_observations_csv(write_scratch(".csv", data, size));
  // An accepted table: at least one step and one column, a full T x m matrix, each row observed
  // (finite) or missing (all NaN). A violation is a reader bug, reported as a crash.
  bool ok = obs.steps >= 1 && obs.dim >= 1 &&
            obs.values.size() == static_cast<std::size_t>(obs.steps) * static_cast<std::size_t>(obs.dim);
  for (int t = 1; ok && t <= obs.steps; ++t) {
    const double* y = obs.row(t);
    const bool missing = obs.missing(t);
    for (int j = 0; j < obs.dim; ++j) ok = ok && (missing ? std::isnan(y[j]) : std::isfinite(y[j]));
  }
  if (!ok) {
    std::fprintf(stderr, "rsmc fuzz: read_observations_csv accepted an inconsistent table\n");
    std::abort();
  }
}

}  // namespace rsmc::fuzz
