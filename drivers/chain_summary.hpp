// The summary of PMMH chains that `rsmc pmmh` prints at the end and `rsmc info` prints for its output
// file: per chain the acceptance rate and the rejections by cause; per parameter the posterior mean,
// sd and quantiles over the kept draws of all chains, the bulk effective sample size and split R-hat
// across chains (framework/inference/diagnostics.hpp).
#pragma once

#include <string>

#include "framework/io/chain_file.hpp"

namespace rsmc::drivers {

std::string chain_summary_text(const ChainOutput& output);

}  // namespace rsmc::drivers
