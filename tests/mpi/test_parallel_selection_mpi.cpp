// The data-parallel selection (framework/resample/select/parallel_selection.hpp) on real ranks: on every
// rank, for every scheme and local sampler (alias included), the same first id,
// offspring count, counts and ancestors as the serial select_offspring over the same communicator
// (residual's exact scans run through MPI here, which the unit test simulates). Weight patterns
// include zero runs that leave some ranks without weight, and one weight that takes everything.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "base/exact/fixed_weight.hpp"
#include "base/rng/stream.hpp"
#include "framework/parallel/u128_mpi.hpp"
#include "framework/particles/block_distribution.hpp"
#include "framework/resample/select/parallel_selection.hpp"
#include "framework/resample/select/selection.hpp"

namespace {

using rsmc::LocalSampler;
using rsmc::Scheme;
using Exec = Kokkos::DefaultExecutionSpace;

// Fixed-point weights of global ids [first, first + count) out of n, by pattern.
std::vector<std::uint64_t> weights(const std::string& pattern, std::uint64_t first, std::uint64_t count,
                                   std::uint64_t n) {
  std::vector<std::uint64_t> w(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t gid = first + i;
    const double u = rsmc::rng::Stream(17, rsmc::rng::Purpose::model, 0, gid).uniform();
    double log_w = 3.0 * std::log(u);
    if (pattern == "zero-first-half" && gid < n / 2) log_w = -HUGE_VAL;
    if (pattern == "one-takes-all") log_w = gid == n / 3 ? 0.0 : -50.0;
    w[i] = rsmc::exact::fixed_weight(log_w, 0.0);
  }
  return w;
}

}  // namespace

TEST_CASE("parallel selection equals select_offspring on every rank", "[mpi][parallel_selection]") {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::uint64_t n = 1999;
  const rsmc::BlockDistribution dist(n, ranks);
  rsmc::ParallelSelectionWorkspace<Exec> ws;
  for (const std::string pattern : {"random", "zero-first-half", "one-takes-all"}) {
    const auto w = weights(pattern, dist.first(rank), dist.count(rank), n);
    rsmc::exact::u128 local = 0;
    for (auto x : w) local += x;
    const rsmc::exact::ScanTotal scan = rsmc::exact::exclusive_scan_total(local, MPI_COMM_WORLD);
    Kokkos::View<std::uint64_t*, Exec::memory_space> device_w("w", w.size());
    auto host_w = Kokkos::create_mirror_view(device_w);
    for (std::size_t i = 0; i < w.size(); ++i) host_w(i) = w[i];
    Kokkos::deep_copy(device_w, host_w);
    for (const Scheme scheme : {Scheme::systematic, Scheme::stratified, Scheme::multinomial, Scheme::residual}) {
      rsmc::SelectionInputs in;
      in.fixed_weights = &w;
      in.wheel = rsmc::WheelShare{scan.below, local, scan.total};
      in.samples = n;
      in.seed = 5;
      in.step = 11;
      for (const LocalSampler sampler :
           {LocalSampler::search, LocalSampler::forest, LocalSampler::butterfly, LocalSampler::alias}) {
        in.sampler = sampler;
        const rsmc::Selection reference = rsmc::select_offspring(scheme, in, MPI_COMM_WORLD);
        const rsmc::ParallelSelectionInputs<Exec::memory_space> pin{device_w, in.wheel, n, 5, 11, scheme, sampler};
        rsmc::ParallelSelectionOptions options;
        options.counts = true;
        options.chunk = 100;  // several chunks per rank
        const rsmc::SelectionShareResult share =
            rsmc::select_offspring_parallel(Exec(), pin, MPI_COMM_WORLD, ws, options);
        auto ancestor = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ws.ancestor);
        auto counts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ws.counts);
        std::vector<std::uint64_t> expected_ancestors, got_counts(counts.data(), counts.data() + w.size());
        for (std::size_t i = 0; i < w.size(); ++i)
          expected_ancestors.insert(expected_ancestors.end(), reference.counts[i], i);
        INFO(pattern << ", " << rsmc::scheme_name(scheme) << ", " << rsmc::local_sampler_name(sampler) << ", rank "
                     << rank << " of " << ranks);
        CHECK(share.first_id == reference.first_id);
        CHECK(share.offspring == reference.offspring);
        CHECK(got_counts == reference.counts);
        CHECK(std::vector<std::uint64_t>(ancestor.data(), ancestor.data() + share.offspring) == expected_ancestors);
      }
    }
  }
}
