// Host/device traffic of a filter step (issue 14, acceptance 4): outside I/O a step moves only
// O(p + d) bytes between host and device memory. Every Kokkos deep copy of a step is counted through
// the Kokkos Tools begin-deep-copy callback (fills included: Kokkos reports deep_copy(view, value)
// as a copy of the whole view from "Scalar"), for every scheme and local sampler, resampling every
// step, at N and 16 N particles. The check:
//   - no copy grows with N: each kind of copy (its destination and source spaces and labels) is at
//     most as large at 16 N as at N, and no kind appears only at 16 N;
//   - except the rebalance buffers, which go through pinned host buffers where MPI cannot read the
//     device (rebalance_transport.hpp): their bytes, summed over the ranks, are exactly the traffic
//     the step reports (sent particles x d doubles, each way). Where MPI reads the particles' memory
//     (host memory, or a CUDA-aware MPI) there must be none.
// On failure the table of copies (per rank) shows which one grew; `-s` prints it on success too.
// Only filter.step() is recorded: setup, simulation of the data and result output are not steps.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/simulate.hpp"
#include "models/linear_gaussian.hpp"

namespace {

using rsmc::models::LinearGaussian;

// One deep copy as Kokkos Tools reports it.
struct Copy {
  std::string dst_space, dst_label, src_space, src_label;
  std::uint64_t bytes = 0;
};
using CopyKind = std::tuple<std::string, std::string, std::string, std::string>;
CopyKind kind_of(const Copy& c) { return {c.dst_space, c.dst_label, c.src_space, c.src_label}; }

// The callback is a plain function pointer: it appends to the recorder installed now, if any.
std::vector<Copy>* g_sink = nullptr;

void record_copy(Kokkos_Profiling_SpaceHandle dst_space, const char* dst_label, const void* /*dst*/,
                 Kokkos_Profiling_SpaceHandle src_space, const char* src_label, const void* /*src*/,
                 std::uint64_t bytes) {
  if (g_sink == nullptr) return;
  g_sink->push_back(Copy{dst_space.name, dst_label != nullptr ? dst_label : "", src_space.name,
                         src_label != nullptr ? src_label : "", bytes});
}

// Records every deep copy while alive (the same API in Kokkos 3.4 and 4.x); restores the callback
// that was installed before (a Kokkos tool loaded through KOKKOS_TOOLS_LIBS keeps working after).
class RecordCopies {
 public:
  explicit RecordCopies(std::vector<Copy>& sink)
      : previous_(Kokkos::Tools::Experimental::get_callbacks().begin_deep_copy) {
    g_sink = &sink;
    Kokkos::Tools::Experimental::set_begin_deep_copy_callback(record_copy);
  }
  ~RecordCopies() {
    Kokkos::Tools::Experimental::set_begin_deep_copy_callback(previous_);
    g_sink = nullptr;
  }
  RecordCopies(const RecordCopies&) = delete;
  RecordCopies& operator=(const RecordCopies&) = delete;

 private:
  Kokkos_Profiling_beginDeepCopyFunction previous_;  // the C typedef: named alike in Kokkos 3.4 and 4.x
};

bool is_rebalance_buffer(const Copy& c) {
  const auto either = [&](const char* label) { return c.dst_label == label || c.src_label == label; };
  return either("rsmc::send_staging") || either("rsmc::receive_staging");
}

std::uint64_t sum_over_ranks(std::uint64_t x) {
  MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return x;
}

constexpr int kSteps = 3;

// The largest single copy of each kind over the steps of one run (rebalance buffers excluded: they
// are checked against the reported traffic step by step here).
std::map<CopyKind, std::uint64_t> step_copies(rsmc::Scheme scheme, rsmc::LocalSampler sampler,
                                              std::uint64_t particles) {
  using memory_space = rsmc::BootstrapFilter<LinearGaussian>::memory_space;
  const bool staged = rsmc::rebalance_transport_for<memory_space>() == rsmc::RebalanceTransport::pinned_staging;
  const LinearGaussian model(rsmc::models::LinearGaussianParams::default_2d());
  const auto y = rsmc::simulate(model, kSteps, 99).observations;
  rsmc::FilterOptions options;
  options.particles = particles;
  options.seed = 4242;
  options.ess_threshold = 1.0;  // resample at every step
  options.scheme = scheme;
  options.local_sampler = sampler;
  rsmc::BootstrapFilter<LinearGaussian> filter(MPI_COMM_WORLD, model, options);
  filter.initialise();
  const std::uint64_t particle_bytes = static_cast<std::uint64_t>(model.state_dim()) * sizeof(double);

  std::map<CopyKind, std::uint64_t> largest;
  for (int t = 1; t <= kSteps; ++t) {
    std::vector<Copy> copies;
    rsmc::StepSummary s;
    {
      RecordCopies recording(copies);
      s = filter.step(t, y.row(t));
    }
    REQUIRE(s.resampled);
    std::uint64_t sent = 0, received = 0;
    for (const Copy& c : copies) {
      if (!is_rebalance_buffer(c)) {
        auto& m = largest[kind_of(c)];
        if (c.bytes > m) m = c.bytes;
      } else if (c.dst_label == "rsmc::send_staging") {
        sent += c.bytes;
      } else {
        received += c.bytes;
      }
    }
    sent = sum_over_ranks(sent);
    received = sum_over_ranks(received);
    const rsmc::ResampleStats& traffic = s.resample_stats;
    INFO("step " << t << ": " << traffic.particles_moved << " particles moved in " << traffic.messages << " messages ("
                 << traffic.bytes_moved << " bytes)");
    CHECK(traffic.bytes_moved == traffic.particles_moved * particle_bytes);
    if (staged) {
      CHECK(sent == traffic.bytes_moved);
      CHECK(received == traffic.bytes_moved);
    } else {
      CHECK(sent == 0);
      CHECK(received == 0);
    }
  }
  return largest;
}

// One line per kind of copy: bytes at N and at 16 N ("-" where it did not occur).
std::string copy_table(const std::map<CopyKind, std::uint64_t>& small, const std::map<CopyKind, std::uint64_t>& large,
                       std::uint64_t n) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::map<CopyKind, std::pair<std::string, std::string>> rows;
  for (const auto& [k, b] : small) rows[k].first = std::to_string(b);
  for (const auto& [k, b] : large) rows[k].second = std::to_string(b);
  std::ostringstream out;
  out << "rank " << rank << ": largest deep copy of each kind per step (bytes at N = " << n << ", at 16 N)\n";
  for (const auto& [k, b] : rows)
    out << "  " << std::get<0>(k) << " '" << std::get<1>(k) << "' <- " << std::get<2>(k) << " '" << std::get<3>(k)
        << "': " << (b.first.empty() ? "-" : b.first) << ", " << (b.second.empty() ? "-" : b.second) << "\n";
  return out.str();
}

}  // namespace

TEST_CASE("a filter step's deep copies do not grow with N", "[copies][mpi]") {
  const std::vector<rsmc::LocalSampler> samplers{rsmc::LocalSampler::search, rsmc::LocalSampler::forest,
                                                 rsmc::LocalSampler::alias, rsmc::LocalSampler::butterfly};
  // Algorithm 1 selects on the host (roulette_resampler.hpp, select_on_host): the paper's serial
  // algorithm, kept as a reference, and not part of this check.
  const std::uint64_t n = 3001;  // an odd N: uneven blocks on most rank counts
  for (const rsmc::Scheme scheme :
       {rsmc::Scheme::systematic, rsmc::Scheme::stratified, rsmc::Scheme::multinomial, rsmc::Scheme::residual}) {
    for (const rsmc::LocalSampler sampler : samplers) {
      INFO(rsmc::scheme_name(scheme) << " / " << rsmc::local_sampler_name(sampler));
      const auto small = step_copies(scheme, sampler, n);
      const auto large = step_copies(scheme, sampler, 16 * n);
      REQUIRE(!small.empty());  // the recorder works: a step copies y_t and the mean at least
      bool grew = false;
      for (const auto& [k, bytes] : large) {
        const auto at_n = small.find(k);
        if (at_n == small.end() || bytes > at_n->second) grew = true;
      }
      INFO(copy_table(small, large, n));  // shown on failure, and with -s (Catch2's --success)
      CHECK_FALSE(grew);
    }
  }
}
