// CUDA alias kernels (kernels/cuda/alias.cu) against their host twins (kernels/host/alias_*.hpp), bit
// for bit: the chunked pack on the splits of host::alias_split, the section counts, and sectioned
// sampling (counts per item and per-draw output), for double and exact integer weights. Then the
// engine's exact construction (kernels/alias/psa.hpp) on Kokkos::Cuda against the host's: PSA with
// the list and the mask sweeps equal to Vose's table, PSA+ equal to the host's PSA+ at the same
// greedy section size.
// Without a usable GPU this program says so and exits 77, which CTest reports as "skipped"
// (SKIP_RETURN_CODE), never as passed. The host twins themselves are tested in tests/unit/test_alias.cpp.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kernels/alias/psa.hpp"
#include "kernels/alias/vose.hpp"
#include "kernels/cuda/alias.hpp"
#include "kernels/cuda/cuda_kernels.hpp"
#include "tests/cuda/cuda_test_support.hpp"
#include "kernels/host/alias_pack.hpp"
#include "kernels/host/alias_sampling.hpp"

namespace cu = rsmc::kernels::cuda;
namespace host = rsmc::kernels::host;
namespace alias = rsmc::kernels::alias;

namespace {

using namespace rsmc::cuda_test;  // expect, failures, checks, DeviceArray

template <class Weight>
bool same_rows(const std::vector<alias::AliasRow<Weight>>& a, const std::vector<alias::AliasRow<Weight>>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i].threshold() == b[i].threshold()) || a[i].alias() != b[i].alias()) return false;
  return true;
}

std::vector<double> double_weights(int shape, std::uint64_t n, std::mt19937_64& gen) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> w(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    switch (shape) {
      case 0:
        w[i] = unit(gen);
        break;  // uniform
      case 1:
        w[i] = 1.0 / static_cast<double>(1 + gen() % n);
        break;  // power law, shuffled
      case 2:
        w[i] = i == n / 2 ? 1e6 * static_cast<double>(n) : 1.0;
        break;  // one heavy
      default:
        w[i] = i % 3 == 1 ? 0.0 : unit(gen);
        break;  // zeros mixed in
    }
  }
  if (w[0] == 0.0) w[0] = 1.0;
  return w;
}

std::vector<std::uint64_t> integer_weights(int shape, std::uint64_t n, std::mt19937_64& gen) {
  std::vector<std::uint64_t> w(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    switch (shape) {
      case 0:
        w[i] = gen();
        break;
      case 1:
        w[i] = (std::uint64_t{1} << 62) / (1 + gen() % n);
        break;
      case 2:
        w[i] = i == n / 2 ? ~std::uint64_t{0} : 1;
        break;
      default:
        w[i] = i % 3 == 1 ? 0 : gen() >> (gen() % 64);
        break;
    }
  }
  if (w[0] == 0) w[0] = 1;
  return w;
}

template <class Weight>
void check_pack(const std::vector<Weight>& w, std::uint64_t section_items, const std::string& name) {
  const std::uint64_t n = w.size();
  const auto split = host::alias_split(w.data(), n, section_items);
  std::vector<alias::AliasRow<Weight>> expected(n);
  host::alias_pack(split, expected.data());
  DeviceArray<alias::LightItem<Weight>> dl(split.lights.size());
  DeviceArray<alias::HeavyItem<Weight>> dh(split.heavies.size());
  DeviceArray<std::uint64_t> ds(split.split_lights.size());
  DeviceArray<alias::AliasRow<Weight>> dr(n);
  dl.upload(split.lights);
  dh.upload(split.heavies);
  ds.upload(split.split_lights);
  cu::alias_pack_chunked(split.shape, dl.ptr, dh.ptr, ds.ptr, split.sections, dr.ptr);
  expect(same_rows(dr.download(), expected), "chunked pack equals host::alias_pack: " + name);
}

template <class Weight>
void check_sampling(const std::vector<Weight>& w, std::uint64_t draws, std::uint64_t section_rows,
                    const std::string& name) {
  const std::uint64_t n = w.size();
  const auto split = host::alias_split(w.data(), n, 256);
  std::vector<alias::AliasRow<Weight>> rows(n);
  host::alias_pack(split, rows.data());
  const auto cap = split.totals.capacity;
  const std::uint64_t seed = 4242, first_id = 1000;
  const std::uint32_t step = 17;

  const std::uint64_t S = alias::section_count_of(n, section_rows);
  std::vector<std::uint64_t> sections(S);
  host::alias_section_counts(n, section_rows, draws, seed, step, sections.data());
  DeviceArray<std::uint64_t> dsec(S);
  cu::alias_section_counts(n, section_rows, draws, seed, step, dsec.ptr);
  expect(dsec.download() == sections, "section counts equal the host twin: " + name);

  DeviceArray<alias::AliasRow<Weight>> dr(n);
  dr.upload(rows);
  std::vector<std::uint64_t> counts(n), out(draws);
  host::alias_sample_sectioned_counts<Weight>(rows.data(), n, cap, draws, seed, step, section_rows, first_id,
                                              counts.data());
  host::alias_sample_sectioned_draws<Weight>(rows.data(), n, cap, draws, seed, step, section_rows, first_id,
                                             out.data());
  DeviceArray<std::uint64_t> dc(n), dd(draws);
  cu::alias_sample_sectioned_counts(dr.ptr, n, cap, draws, seed, step, section_rows, first_id, dc.ptr);
  cu::alias_sample_sectioned_draws(dr.ptr, n, cap, draws, seed, step, section_rows, first_id, dd.ptr);
  expect(dc.download() == counts, "sectioned counts equal the host twin: " + name);
  expect(dd.download() == out, "sectioned draws equal the host twin: " + name);
}

// build_alias on the default execution space (Kokkos::Cuda) for every layout and method against the
// host's tables: PSA = Vose, PSA+ = the host's PSA+ (Serial, masks) at the same greedy size.
void check_engine_builds(const std::vector<std::uint64_t>& w, const std::string& name) {
  using Device = Kokkos::DefaultExecutionSpace;
  const std::uint64_t n = w.size();
  Kokkos::View<std::uint64_t*, Kokkos::HostSpace> hw("rsmc::test::weights", n);
  for (std::uint64_t i = 0; i < n; ++i) hw(i) = w[i];
  auto dw = Kokkos::create_mirror_view_and_copy(Device::memory_space(), hw);
  const auto vose = alias::build_vose(hw);
  const auto same = [&](const auto& device_table, const auto& host_table) {
    const auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), device_table.rows);
    for (std::uint64_t i = 0; i < n; ++i)
      if (!(rows(i).threshold() == host_table.rows(i).threshold()) || rows(i).alias() != host_table.rows(i).alias())
        return false;
    return true;
  };
  alias::AliasStorage<Device::memory_space> storage;
  for (const auto layout : {alias::AliasLayout::lists, alias::AliasLayout::masks}) {
    for (const std::uint64_t sections : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1000}}) {
      const std::string what = name + (layout == alias::AliasLayout::lists ? ", lists" : ", masks") + ", sections " +
                               std::to_string(sections);
      alias::PsaOptions o;
      o.layout = layout;
      o.sections = sections;
      expect(same(alias::build_alias(Device(), dw, storage, o), vose), "device PSA equals Vose: " + what);
      for (const std::uint64_t greedy : {std::uint64_t{1024}, std::uint64_t{1} << 16}) {
        o.method = alias::AliasMethod::psa_plus;
        o.greedy_items = greedy;
        alias::PsaOptions on_host = o;
        on_host.layout = alias::AliasLayout::masks;
        on_host.sections = 0;
        alias::AliasStorage<Kokkos::HostSpace> host_storage;
        const auto host_plus = alias::build_alias(Kokkos::DefaultHostExecutionSpace(), hw, host_storage, on_host);
        expect(same(alias::build_alias(Device(), dw, storage, o), host_plus),
               "device PSA+ equals the host's: " + what + ", greedy " + std::to_string(greedy));
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string why;
  const int devices = cu::device_count(&why);
  if (devices == 0) {
    std::printf("SKIPPED: no usable CUDA device (%s); the CUDA alias kernels were built but not run\n", why.c_str());
    return 77;
  }

  std::mt19937_64 gen(20260301);
  const char* shapes[] = {"uniform", "power law", "one heavy", "zeros mixed"};
  for (int shape = 0; shape < 4; ++shape) {
    for (std::uint64_t n :
         {std::uint64_t(1), std::uint64_t(3), std::uint64_t(1000), std::uint64_t(100007), std::uint64_t(1) << 21}) {
      const auto wd = double_weights(shape, n, gen);
      const auto wi = integer_weights(shape, n, gen);
      for (std::uint64_t section_items :
           {std::uint64_t(1), std::uint64_t(7), std::uint64_t(256), std::uint64_t(5000)}) {
        if (n > 100007 && section_items < 7) continue;
        const std::string name = std::string(shapes[shape]) + ", n = " + std::to_string(n) +
                                 ", section items = " + std::to_string(section_items);
        check_pack(wd, section_items, "double, " + name);
        check_pack(wi, section_items, "integer, " + name);
      }
    }
  }
  for (int shape = 0; shape < 4; ++shape) {
    for (std::uint64_t n : {std::uint64_t(1), std::uint64_t(1000), std::uint64_t(100007)}) {
      const auto wd = double_weights(shape, n, gen);
      const auto wi = integer_weights(shape, n, gen);
      // 1024 double rows are staged in shared memory; 8192 are not (read from global memory).
      for (std::uint64_t section_rows :
           {std::uint64_t(1), std::uint64_t(128), std::uint64_t(1024), std::uint64_t(8192)}) {
        const std::string name = std::string(shapes[shape]) + ", n = " + std::to_string(n) +
                                 ", section rows = " + std::to_string(section_rows);
        check_sampling(wd, 300000, section_rows, "double, " + name);
        check_sampling(wi, 300000, section_rows, "integer, " + name);
      }
    }
  }

  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    for (int shape = 0; shape < 4; ++shape)
      for (std::uint64_t n : {std::uint64_t(1), std::uint64_t(1000), std::uint64_t(100007), std::uint64_t(1) << 21})
        check_engine_builds(integer_weights(shape, n, gen),
                            std::string("engine build, ") + shapes[shape] + ", n = " + std::to_string(n));
  }

  std::printf("%s: %d failure(s) in %d checks on %d device(s)\n", failures ? "FAILED" : "passed", failures, checks,
              devices);
  return failures ? 1 : 0;
}
