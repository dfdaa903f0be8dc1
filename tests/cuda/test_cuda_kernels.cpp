// CUDA kernels against their host twins, bit for bit.
// Without a usable GPU this program says so and exits 77, which CTest reports as "skipped"
// (SKIP_RETURN_CODE), never as passed. The host twins themselves are tested in the unit tests.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_kernels.hpp"
#include "tests/cuda/cuda_test_support.hpp"
#include "kernels/host/systematic_search.hpp"

namespace cu = rsmc::kernels::cuda;
namespace host = rsmc::kernels::host;

namespace {

using namespace rsmc::cuda_test;  // expect, failures, checks, DeviceArray

void check_systematic(const std::vector<double>& weights, double uniform, const std::string& name) {
  const std::size_t n = weights.size();
  std::vector<double> cumulative(n);
  double run = 0.0;
  std::size_t last_positive = 0;
  for (std::size_t i = 0; i < n; ++i) {
    run += weights[i];
    cumulative[i] = run;
    if (weights[i] > 0) last_positive = i;
  }
  const std::size_t total = n;
  std::vector<std::uint64_t> expected(total);
  host::systematic_search(cumulative.data(), n, last_positive, uniform, 0, total, total, expected.data());
  DeviceArray<double> dc(n);
  dc.upload(cumulative);
  DeviceArray<std::uint64_t> da(total);
  cu::systematic_search(dc.ptr, n, last_positive, uniform, 0, total, total, da.ptr);
  const auto got = da.download();
  expect(std::memcmp(got.data(), expected.data(), total * sizeof(std::uint64_t)) == 0,
         "systematic_search matches the host twin: " + name);
}

}  // namespace

int main() {
  std::string why;
  const int devices = cu::device_count(&why);
  if (devices == 0) {
    std::printf("SKIPPED: no usable CUDA device (%s); the CUDA kernels were built but not run\n", why.c_str());
    return 77;
  }

  std::mt19937_64 gen(20261121);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (std::size_t n : {std::size_t(1), std::size_t(31), std::size_t(1000), std::size_t(1) << 20}) {
    std::vector<double> w(n);
    for (auto& x : w) x = unit(gen);
    check_systematic(w, 0.37, "random weights n=" + std::to_string(n));
    for (std::size_t i = 0; i < n; i += 3) w[i] = 0.0;
    w[n - 1] = n > 1 ? 0.0 : 1.0;
    check_systematic(w, 0.999999, "zero weights n=" + std::to_string(n));
  }

  const std::size_t count = 100000;
  std::vector<double> expected(count);
  host::first_uniforms(42, rsmc::rng::Purpose::propagate, 7, 123456789, count, expected.data());
  DeviceArray<double> du(count);
  cu::first_uniforms(42, rsmc::rng::Purpose::propagate, 7, 123456789, count, du.ptr);
  const auto got = du.download();
  expect(std::memcmp(got.data(), expected.data(), count * sizeof(double)) == 0,
         "Philox uniforms on the device equal the host stream");

  std::printf("%s: %d failure(s) on %d device(s)\n", failures ? "FAILED" : "passed", failures, devices);
  return failures ? 1 : 0;
}
