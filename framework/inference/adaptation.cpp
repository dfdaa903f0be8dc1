// Welford accumulation and the adapted proposal covariance (framework/inference/adaptation.hpp).
#include "framework/inference/adaptation.hpp"

#include <cmath>
#include <string>

#include "base/core/error.hpp"
#include "framework/model/parameters.hpp"  // number_text

namespace rsmc::inference {

namespace {

void require(bool ok, const char* name, const std::string& value, const char* expected) {
  if (!ok) throw Error(std::string("adaptation.") + name + " = " + value + "; expected " + expected);
}

}  // namespace

void AdaptationOptions::validate() const {
  require(start >= 2, "start", std::to_string(start), "an integer >= 2 (a covariance needs two states)");
  require(interval >= 1, "interval", std::to_string(interval), "an integer >= 1");
  require(std::isfinite(scale) && scale > 0.0, "scale", number_text(scale), "a finite number > 0");
  require(std::isfinite(regularisation) && regularisation >= 0.0, "regularisation", number_text(regularisation),
          "a finite number >= 0");
  require(std::isfinite(initial_weight) && initial_weight >= 0.0, "initial_weight", number_text(initial_weight),
          "a finite number >= 0");
}

bool AdaptationOptions::due(std::uint64_t iteration) const {
  return enabled && iteration >= start && iteration <= stop && (iteration - start) % interval == 0;
}

void AdaptationAccumulator::reset(int d) {
  const std::size_t n = static_cast<std::size_t>(d);
  count = 0;
  mean.assign(n, 0.0);
  comoment.assign(n * n, 0.0);
}

void AdaptationAccumulator::add(const double* phi) {
  const std::size_t n = mean.size();
  std::vector<double> delta(n);
  ++count;
  const double m = static_cast<double>(count);
  for (std::size_t i = 0; i < n; ++i) {
    delta[i] = phi[i] - mean[i];
    mean[i] += delta[i] / m;
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      comoment[i * n + j] += delta[i] * (phi[j] - mean[j]);
      comoment[j * n + i] = comoment[i * n + j];
    }
}

std::vector<double> adapted_covariance(const AdaptationOptions& options, const AdaptationAccumulator& acc,
                                       const std::vector<double>& initial_covariance) {
  const std::size_t n = acc.mean.size();
  const double m = static_cast<double>(acc.count);
  const double s_d = options.scale * options.scale / static_cast<double>(n);
  const double w0 = options.initial_weight;
  std::vector<double> sigma(n * n);
  for (std::size_t k = 0; k < n * n; ++k) {
    const double empirical = acc.comoment[k] / (m - 1.0);
    sigma[k] = (w0 * initial_covariance[k] + m * (s_d * empirical)) / (w0 + m);
  }
  for (std::size_t i = 0; i < n; ++i) sigma[i * n + i] += s_d * options.regularisation;
  return sigma;
}

}  // namespace rsmc::inference
