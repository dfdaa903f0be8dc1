// See chain_summary.hpp.
#include "drivers/chain_summary.hpp"

#include <cstdio>
#include <vector>

#include "base/core/error.hpp"
#include "framework/inference/diagnostics.hpp"

namespace rsmc::drivers {
namespace {

// printf into a std::string.
template <class... Args>
std::string format(const char* pattern, Args... args) {
  char line[512];
  std::snprintf(line, sizeof line, pattern, args...);
  return line;
}

std::string chain_lines(const ChainOutput& o) {
  std::string out = "chain  iterations  accepted  acceptance  non-finite  outside-support  adaptations (failed)\n";
  for (int c = 0; c < o.chains; ++c) {
    const std::uint64_t* k = &o.counters[static_cast<std::size_t>(c) * 6];
    const std::uint64_t iterations = k[0] + k[1];
    out += format("%5d  %10llu  %8llu  %10.4f  %10llu  %15llu  %11llu (%llu)\n", c,
                  static_cast<unsigned long long>(iterations), static_cast<unsigned long long>(k[0]),
                  inference::acceptance_rate(k[0], iterations), static_cast<unsigned long long>(k[2]),
                  static_cast<unsigned long long>(k[3]), static_cast<unsigned long long>(k[4]),
                  static_cast<unsigned long long>(k[5]));
  }
  return out;
}

std::string parameter_lines(const ChainOutput& o) {
  // A checkpoint taken during the burn-in holds fewer draws than an sd needs.
  if (o.kept() < 2) return format("%zu kept draws per chain so far: no posterior summary yet\n", o.kept());
  const bool diagnostics = o.kept() >= 4;  // split R-hat and ESS need two draws per half chain
  std::string out =
      format("posterior over %d chain%s x %zu kept draws:\n", o.chains, o.chains == 1 ? "" : "s", o.kept()) +
      format("%-16s %12s %12s %12s %12s %12s %10s %8s\n", "parameter", "mean", "sd", "2.5%", "50%", "97.5%", "ess_bulk",
             "rhat");
  for (int j = 0; j < o.dimension(); ++j) {
    inference::Chains chains;
    std::vector<double> pooled;
    for (int c = 0; c < o.chains; ++c) {
      chains.push_back(o.draws(c, j));
      pooled.insert(pooled.end(), chains.back().begin(), chains.back().end());
    }
    // Draws the diagnostics cannot take (not finite, or so large that their sums overflow: an
    // initial value near the largest double) are reported, never a reason to lose the run's output.
    try {
      const inference::Summary s = inference::summarise(pooled, {0.025, 0.5, 0.975});
      std::string line = format("%-16s %12.6g %12.6g %12.6g %12.6g %12.6g", o.parameter_names[j].c_str(), s.mean, s.sd,
                                s.quantiles[0], s.quantiles[1], s.quantiles[2]);
      line += diagnostics ? format(" %10.1f %8.4f\n", inference::ess_bulk(chains), inference::rhat_split(chains))
                          : format(" %10s %8s\n", "-", "-");
      out += line;
    } catch (const Error& e) {
      out += format("%-16s not summarised: %s\n", o.parameter_names[j].c_str(), excerpt(e.what(), 100).c_str());
    }
  }
  if (!diagnostics) out += "(ESS and R-hat need at least 4 kept draws per chain)\n";
  return out;
}

}  // namespace

std::string chain_summary_text(const ChainOutput& output) { return chain_lines(output) + parameter_lines(output); }

}  // namespace rsmc::drivers
