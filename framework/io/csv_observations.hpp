// Observations as CSV text: a header line of column names (one per observation component), then one
// row per step t = 1..T.
//
//   # comment lines and empty lines are skipped anywhere
//   y1, y2
//   0.25, -1.5
//   NA, NA          <- no observation at step 2 (every field missing)
//   1e-3, 2
//
// Fields are comma-separated with optional surrounding whitespace; CRLF line ends, a missing final
// newline and a UTF-8 byte-order mark are tolerated. A field that is empty, NA, NaN or nan is
// missing (stored as a quiet NaN). A row must be either fully observed or fully missing: rsmc cannot
// yet filter partially observed steps. Numbers must be finite (inf is rejected). Numbers are parsed
// with std::strtod, so the "C" locale is assumed.
#pragma once

#include <string>
#include <vector>

#include "framework/model/observations.hpp"

namespace rsmc {

// Throws rsmc::Error naming the file (and the 1-based line where relevant) on any problem.
Observations read_observations_csv(const std::string& path);

// Writes `obs` as CSV that read_observations_csv() reads back bitwise identically (doubles are
// printed with max_digits10 significant digits; a missing row is written as empty fields, or as
// "NA" when there is one column, since an empty line would be skipped). `column_names` must hold
// obs.dim distinct names without commas, quotes, line breaks or surrounding whitespace, not starting
// with '#'; an empty vector means y1..y<dim>. Atomic: see framework/io/atomic_file.hpp. Refuses an
// existing `path` unless `overwrite`.
void write_observations_csv(const std::string& path, const Observations& obs,
                            const std::vector<std::string>& column_names, bool overwrite);

}  // namespace rsmc
