// Host-only parts of the regime-switching model; see regime_switching.hpp.
#include "models/regime_switching.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/model_support.hpp"

namespace rsmc::models {

namespace {

const char* const kModel = RegimeSwitching::name;

void check_size(const char* what, const std::vector<double>& v, std::size_t expected, const char* shape) {
  if (v.size() != expected)
    support::bad_parameter(kModel, what, std::to_string(v.size()) + " entries",
                           std::string(shape) + " = " + std::to_string(expected) + " entries");
}

void check_finite(const char* what, const std::vector<double>& v) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      support::bad_parameter(kModel, what, support::vector_text(v),
                             "finite numbers (entry " + std::to_string(i) + " is " + support::number_text(v[i]) + ")");
}

// A probability vector: non-negative entries summing to 1 within 1e-9. `what` names it in messages.
void check_probabilities(const std::string& what, const double* p, int k) {
  double sum = 0.0;
  std::vector<double> row(p, p + k);
  for (int j = 0; j < k; ++j) {
    if (!(p[j] >= 0.0))
      support::bad_parameter(kModel, what.c_str(), support::vector_text(row), "non-negative probabilities");
    sum += p[j];
  }
  if (!(std::fabs(sum - 1.0) <= 1e-9))
    support::bad_parameter(kModel, what.c_str(), support::vector_text(row),
                           "probabilities summing to 1 (they sum to " + support::number_text(sum) + ")");
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

void RegimeSwitchingParams::validate() const {
  support::require_at_least(kModel, "K", K, 1, "");
  if (K > kMaxRegimes)
    support::bad_parameter(kModel, "K", std::to_string(K),
                           "an integer K <= " + std::to_string(kMaxRegimes) + " (below the butterfly warp width)");
  const auto k = static_cast<std::size_t>(K);
  check_size("P", P, k * k, "K x K");
  check_size("pi0", pi0, k, "K");
  check_size("a", a, k, "K");
  check_size("b", b, k, "K");
  check_size("s", s, k, "K");
  for (const auto& [what, v] : {std::pair<const char*, const std::vector<double>*>{"P", &P}, {"pi0", &pi0},
                                {"a", &a}, {"b", &b}, {"s", &s}})
    check_finite(what, *v);
  for (int i = 0; i < K; ++i) check_probabilities("P row " + std::to_string(i), P.data() + i * k, K);
  check_probabilities("pi0", pi0.data(), K);
  for (int i = 0; i < K; ++i)
    if (!(s[i] > 0.0))
      support::bad_parameter(kModel, "s", support::vector_text(s), "noise sds > 0 (s[" + std::to_string(i) + "])");
  support::require_positive(kModel, "obs_sd", obs_sd);
  support::require_finite(kModel, "x0_mean", x0_mean);
  support::require_positive(kModel, "x0_sd", x0_sd);
}

std::string RegimeSwitchingParams::describe() const {
  using support::describe_line;
  return describe_line("K", std::int64_t{K}) + describe_line("P", support::matrix_text(P, K, K)) +
         describe_line("pi0", support::vector_text(pi0)) + describe_line("a", support::vector_text(a)) +
         describe_line("b", support::vector_text(b)) + describe_line("s", support::vector_text(s)) +
         describe_line("obs_sd", obs_sd) + describe_line("x0_mean", x0_mean) + describe_line("x0_sd", x0_sd);
}

RegimeSwitching::RegimeSwitching(const RegimeSwitchingParams& p)
    : k_(p.K), obs_sd_(p.obs_sd), x0_mean_(p.x0_mean), x0_sd_(p.x0_sd) {
  p.validate();
  support::require_kokkos(kModel);
  log_norm_ = -0.5 * std::log(2.0 * 3.14159265358979323846 * p.obs_sd * p.obs_sd);
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
  device_ = Kokkos::View<double*>("rsmc::regime_switching::kernel_data", data.size());
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
