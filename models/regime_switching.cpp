// Host-only parts of the regime-switching model; see regime_switching.hpp.
#include "models/regime_switching.hpp"

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "models/model_support.hpp"

namespace rsmc::models {

namespace {

const char* const kModel = RegimeSwitching::name;

void check_size(const char* what, const std::vector<double>& v, std::size_t expected, const char* shape) {
  if (v.size() != expected)
    bad_parameter(kModel, what, std::to_string(v.size()) + " entries",
                  std::string(shape) + " = " + std::to_string(expected) + " entries");
}

// A probability vector: non-negative entries summing to 1 within 1e-9. `what` names it in messages.
void check_probabilities(const std::string& what, const double* p, int k) {
  double sum = 0.0;
  std::vector<double> row(p, p + k);
  for (int j = 0; j < k; ++j) {
    if (!(p[j] >= 0.0)) bad_parameter(kModel, what, vector_text(row), "non-negative probabilities");
    sum += p[j];
  }
  if (!(std::fabs(sum - 1.0) <= 1e-9))
    bad_parameter(kModel, what, vector_text(row), "probabilities summing to 1 (they sum to " + number_text(sum) + ")");
}

// Sequential prefix sums in double: the butterfly kernel's remnant rows (same order, same bits).
void append_prefix_sums(const double* row, int k, std::vector<double>& out) {
  double sum = 0.0;
  for (int j = 0; j < k; ++j) {
    sum += row[j];
    out.push_back(sum);
  }
}

}  // namespace

void RegimeSwitchingParams::check_relations() const {
  const auto k = static_cast<std::size_t>(K);
  check_size("P", P, k * k, "K x K");
  check_size("pi0", pi0, k, "K");
  check_size("a", a, k, "K");
  check_size("b", b, k, "K");
  check_size("s", s, k, "K");
  for (int i = 0; i < K; ++i) check_probabilities("P row " + std::to_string(i), P.data() + i * k, K);
  check_probabilities("pi0", pi0.data(), K);
}

RegimeSwitching::RegimeSwitching(const RegimeSwitchingParams& p)
    : k_(p.K), obs_sd_(p.obs_sd), x0_mean_(p.x0_mean), x0_sd_(p.x0_sd) {
  p.validate();
  support::require_kokkos(kModel);
  log_norm_ = normal_log_normaliser_sd(p.obs_sd);
  const auto k = static_cast<std::size_t>(k_);

  host_ = Kokkos::View<double*, Kokkos::HostSpace>("rsmc::regime_switching::params", k * k + 4 * k);
  {
    std::size_t at = 0;
    for (const auto* v : {&p.P, &p.pi0, &p.a, &p.b, &p.s})
      for (double x : *v) host_(at++) = x;
  }

  std::vector<double> data;  // cum P, cum pi0, (a, b, s) per regime
  for (std::size_t i = 0; i < k; ++i) append_prefix_sums(p.P.data() + i * k, k_, data);
  append_prefix_sums(p.pi0.data(), k_, data);
  for (std::size_t i = 0; i < k; ++i) {
    data.push_back(p.a[i]);
    data.push_back(p.b[i]);
    data.push_back(p.s[i]);
  }
  Kokkos::View<double*, Kokkos::HostSpace> staging("rsmc::regime_switching::staging", data.size());
  for (std::size_t i = 0; i < data.size(); ++i) staging(i) = data[i];
  device_ = Kokkos::View<double*, ModelDataSpace>("rsmc::regime_switching::kernel_data", data.size());
  Kokkos::deep_copy(device_, staging);
  cum_p_ = device_.data();
  cum_pi0_ = cum_p_ + k * k;
  coef_ = cum_pi0_ + k;
}

RegimeSwitchingParams RegimeSwitching::params() const {
  RegimeSwitchingParams p;
  const auto k = static_cast<std::size_t>(k_);
  const double* h = host_.data();
  auto take = [&h](std::size_t n) {
    std::vector<double> v(h, h + n);
    h += n;
    return v;
  };
  p.K = k_;
  p.P = take(k * k);
  p.pi0 = take(k);
  p.a = take(k);
  p.b = take(k);
  p.s = take(k);
  p.obs_sd = obs_sd_;
  p.x0_mean = x0_mean_;
  p.x0_sd = x0_sd_;
  return p;
}

}  // namespace rsmc::models
