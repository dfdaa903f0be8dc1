// The distributed roulette resampler keeps the reproducibility contract: for every scheme, the
// offspring (their ancestors, new ids and states) are bitwise identical on 1..p ranks, for weight
// vectors designed to break naive floating-point sums. Run at p = 1..5, 7, 8 (oversubscribed).
//
// Each particle's state encodes its global id, so after resampling the gathered states name every
// offspring's ancestor in new-id order: comparing them compares ancestors, renumbering and states.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "framework/particles/block_distribution.hpp"
#include "framework/particles/particle_store.hpp"
#include "framework/resample/roulette_resampler.hpp"
#include "base/rng/stream.hpp"

namespace {

using rsmc::Scheme;
constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

// Weight patterns, as functions of (global id, N) only.
double log_weight(const std::string& pattern, std::uint64_t gid, std::uint64_t n) {
  const double u = rsmc::rng::Stream(99, rsmc::rng::Purpose::model, 0, gid).uniform();
  if (pattern == "random") return std::log(u) * 3.0;
  if (pattern == "span-1e-300") return -690.0 * u;  // weights from about 1e-300 to 1
  if (pattern == "one-on-last") return gid == n - 1 ? 0.0 : kMinusInf;
  if (pattern == "zero-middle-half") return (gid >= n / 4 && gid < 3 * n / 4) ? kMinusInf : std::log(u);
  if (pattern == "equal") return 0.0;
  return 0.0;
}

struct RouletteOutcome {
  std::vector<double> states;  // gathered on sub-rank 0, new-id order, particle-major
  rsmc::ResampleStats stats;
};

// Resamples once on the first k ranks of MPI_COMM_WORLD; valid on world rank 0.
RouletteOutcome resample_on(int k, std::uint64_t n, const std::string& pattern, Scheme scheme, bool algorithm1) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, rank < k ? 0 : MPI_UNDEFINED, rank, &sub);
  RouletteOutcome out;
  if (sub == MPI_COMM_NULL) return out;
  const rsmc::BlockDistribution dist(n, k);
  const int d = 3;
  rsmc::ParticleStore<Kokkos::HostSpace> store(dist.count(rank), d, dist.first(rank));
  double max_lw = kMinusInf;
  for (std::size_t i = 0; i < store.size(); ++i) {
    const std::uint64_t gid = store.first_id + i;
    for (int c = 0; c < d; ++c) store.state(i, c) = static_cast<double>(gid) + 0.25 * c;
    store.log_weight(i) = log_weight(pattern, gid, n);
    max_lw = std::max(max_lw, store.log_weight(i));
  }
  MPI_Allreduce(MPI_IN_PLACE, &max_lw, 1, MPI_DOUBLE, MPI_MAX, sub);
  rsmc::RouletteRequest<Kokkos::HostSpace> request;
  request.weights.shift = max_lw;
  request.scheme = scheme;
  request.resampler = algorithm1 ? rsmc::Resampler::roulette_algorithm1 : rsmc::Resampler::roulette;
  request.seed = 2024;
  request.step = 17;
  out.stats = rsmc::resample_roulette(sub, dist, store, request);
  std::vector<double> local(store.size() * d);
  for (std::size_t i = 0; i < store.size(); ++i)
    for (int c = 0; c < d; ++c) local[i * d + c] = store.state(i, c);
  std::vector<int> counts(k), displs(k);
  for (int r = 0; r < k; ++r) {
    counts[r] = static_cast<int>(dist.count(r) * d);
    displs[r] = static_cast<int>(dist.first(r) * d);
  }
  if (rank == 0) out.states.resize(n * d);
  MPI_Gatherv(local.data(), static_cast<int>(local.size()), MPI_DOUBLE, out.states.data(), counts.data(), displs.data(),
              MPI_DOUBLE, 0, sub);
  MPI_Comm_free(&sub);
  return out;
}

void check_invariance(std::uint64_t n, const std::string& pattern, Scheme scheme, bool algorithm1 = false) {
  int p = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const RouletteOutcome reference = resample_on(1, n, pattern, scheme, algorithm1);
  if (rank == 0) {
    // Sanity: every offspring is a real particle with positive weight.
    for (std::uint64_t j = 0; j < n; ++j) {
      const double ancestor = reference.states[j * 3];
      REQUIRE(ancestor >= 0.0);
      REQUIRE(log_weight(pattern, static_cast<std::uint64_t>(ancestor), n) > kMinusInf);
      if (j > 0) REQUIRE(ancestor >= reference.states[(j - 1) * 3]);
    }
  }
  for (int k = 2; k <= p && static_cast<std::uint64_t>(k) <= n; ++k) {
    const RouletteOutcome other = resample_on(k, n, pattern, scheme, algorithm1);
    if (rank == 0) {
      INFO("scheme " << rsmc::scheme_name(scheme) << (algorithm1 ? " (Algorithm 1)" : "") << ", weights " << pattern
                     << ", N = " << n << ": 1 rank vs " << k << " ranks");
      REQUIRE(other.states.size() == reference.states.size());
      CHECK(std::memcmp(other.states.data(), reference.states.data(), other.states.size() * sizeof(double)) == 0);
    }
  }
}

}  // namespace

TEST_CASE("roulette resampling is bitwise identical on 1..p ranks for every scheme", "[mpi][resample]") {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  for (Scheme scheme : {Scheme::systematic, Scheme::stratified, Scheme::multinomial, Scheme::residual}) {
    for (const char* pattern : {"random", "span-1e-300", "one-on-last", "zero-middle-half", "equal"}) {
      check_invariance(1001, pattern, scheme);
      check_invariance(static_cast<std::uint64_t>(p), pattern, scheme);  // N = p
    }
  }
  check_invariance(1001, "random", Scheme::multinomial, true);
  check_invariance(1001, "span-1e-300", Scheme::multinomial, true);
}

TEST_CASE("rebalancing moves exactly the offspring held outside their block, to the ranks that own them",
          "[mpi][resample]") {
  int p = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::uint64_t n = 100000;
  const rsmc::BlockDistribution dist(n, p);
  rsmc::ParticleStore<Kokkos::HostSpace> store(dist.count(rank), 1, dist.first(rank));
  double max_lw = kMinusInf;
  for (std::size_t i = 0; i < store.size(); ++i) {
    store.state(i, 0) = static_cast<double>(store.first_id + i);
    store.log_weight(i) = log_weight("random", store.first_id + i, n);
    max_lw = std::max(max_lw, store.log_weight(i));
  }
  MPI_Allreduce(MPI_IN_PLACE, &max_lw, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  // Selection alone, to know every rank's held range (q_k, c_k).
  const auto fixed = rsmc::fixed_weights(store.log_weight, max_lw);
  rsmc::SelectionInputs in;
  in.fixed_weights = &fixed;
  in.wheel = rsmc::wheel_share(fixed, MPI_COMM_WORLD);
  in.samples = n;
  in.seed = 5;
  in.step = 1;
  const rsmc::Selection selection = rsmc::select_offspring(Scheme::systematic, in, MPI_COMM_WORLD);
  std::uint64_t mine[2] = {selection.first_id, selection.offspring};
  std::vector<std::uint64_t> all(2 * p);
  MPI_Allgather(mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, MPI_COMM_WORLD);

  // Expected from the held ranges alone: what lies outside each block must move.
  std::uint64_t expected_moves = 0, offspring = 0;
  const rsmc::Layout blocks(dist);
  for (int r = 0; r < p; ++r) {
    const rsmc::RebalancePlan plan(blocks, r, all[2 * r], all[2 * r + 1]);
    offspring += all[2 * r + 1];
    expected_moves += plan.held.size() - plan.kept.size();
    for (const auto& send : plan.sends) {
      // Traffic only to ranks whose block overlaps the sender's held range...
      CHECK(dist.first(send.rank) < plan.held.end);
      CHECK(dist.end(send.rank) > plan.held.first);
      // ...and never both ways between two ranks.
      const rsmc::RebalancePlan back(blocks, send.rank, all[2 * send.rank], all[2 * send.rank + 1]);
      for (const auto& reverse : back.sends) CHECK(reverse.rank != r);
    }
  }
  CHECK(offspring == n);
  const rsmc::ResampleStats stats = rsmc::rebalance(MPI_COMM_WORLD, dist, store, selection);
  CHECK(stats.particles_moved == expected_moves);
  CHECK(stats.particles_moved >= stats.minimum_moves);
  CHECK(stats.bytes_moved == stats.particles_moved * sizeof(double));
  // Every offspring arrived: states are ancestors' ids, non-decreasing in new-id order.
  for (std::size_t i = 1; i < store.size(); ++i) CHECK(store.state(i, 0) >= store.state(i - 1, 0));
  if (rank == 0)
    WARN("p = " << p << ": moved " << stats.particles_moved << " particles in " << stats.messages
                << " messages (max partners " << stats.max_partners << "); lower bound for any layout "
                << stats.minimum_moves);
}
