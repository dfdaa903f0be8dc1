// The reproducibility contract, in process: the same filter run on sub-communicators of every size
// 1..p (ranks < k) gives bitwise identical results and bitwise identical final particles; so does
// a run whose layout moves (--balance-tolerance, --rank-capacity), against the block layout on one
// rank. Those runs must really leave the block layout at least once, or the test proves nothing.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/simulate.hpp"
#include "models/linear_gaussian.hpp"
#include "tests/support/bits.hpp"

using rsmc::test::same_bytes;

namespace {

using rsmc::models::LinearGaussian;

struct Outcome {
  rsmc::FilterResult result;
  std::vector<double> particles;  // final states, global id order, id-major (gathered on sub-rank 0)
  bool off_blocks = false;        // the final layout is not the block distribution
};

// Runs the filter on the first k ranks of `world`; the returned outcome is valid on world rank 0.
Outcome run_on_first(int k, const LinearGaussian& model, const rsmc::Observations& y,
                     const rsmc::FilterOptions& options) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, rank < k ? 0 : MPI_UNDEFINED, rank, &sub);
  Outcome out;
  if (sub != MPI_COMM_NULL) {
    rsmc::BootstrapFilter<LinearGaussian> filter(sub, model, options);
    out.result = filter.run(y);
    const auto& store = filter.particles();
    auto state = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), store.state);
    const int d = store.state_dim();
    std::vector<double> local;
    for (std::size_t i = 0; i < store.size(); ++i)
      for (int c = 0; c < d; ++c) local.push_back(state(i, c));
    const auto& dist = filter.layout();
    out.off_blocks = dist != rsmc::Layout(rsmc::BlockDistribution(dist.size(), k));
    std::vector<int> counts(k), displs(k);
    for (int r = 0; r < k; ++r) {
      counts[r] = static_cast<int>(dist.count(r)) * d;
      displs[r] = static_cast<int>(dist.first(r)) * d;
    }
    if (rank == 0) out.particles.resize(dist.size() * d);
    MPI_Gatherv(local.data(), static_cast<int>(local.size()), MPI_DOUBLE, out.particles.data(), counts.data(),
                displs.data(), MPI_DOUBLE, 0, sub);
    MPI_Comm_free(&sub);
  }
  return out;
}

// Capacities for k ranks: 1, 2, 3, 1, 2, 3, ... (unequal, fixed).
std::vector<double> uneven_capacities(int k) {
  std::vector<double> c;
  for (int r = 0; r < k; ++r) c.push_back(1.0 + r % 3);
  return c;
}

// Returns how many of the runs on 2..p ranks ended off the block layout.
int check_all_sizes(std::uint64_t particles, double ess_threshold, int steps, double tolerance = 0.0,
                    bool capacities = false) {
  int p = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const LinearGaussian model(rsmc::models::LinearGaussianParams::default_2d());
  const auto y = rsmc::simulate(model, steps, 99).observations;
  rsmc::FilterOptions options;
  options.particles = particles;
  options.seed = 31337;
  options.ess_threshold = ess_threshold;

  const Outcome reference = run_on_first(1, model, y, options);
  int off_blocks = 0;
  for (int k = 2; k <= p && static_cast<std::uint64_t>(k) <= particles; ++k) {
    rsmc::FilterOptions moving = options;
    moving.balance = {tolerance, capacities ? uneven_capacities(k) : std::vector<double>{}};
    const Outcome other = run_on_first(k, model, y, moving);
    off_blocks += other.off_blocks ? 1 : 0;
    if (rank == 0) {
      INFO("N = " << particles << ", threshold " << ess_threshold << ", tolerance " << tolerance
                  << (capacities ? ", uneven capacities" : "") << ": 1 rank vs " << k << " ranks");
      CHECK(same_bytes(other.result.ess, reference.result.ess));
      CHECK(same_bytes(other.result.log_likelihood_increment, reference.result.log_likelihood_increment));
      CHECK(same_bytes(other.result.mean, reference.result.mean));
      CHECK(same_bytes(other.result.variance, reference.result.variance));
      CHECK(other.result.resampled == reference.result.resampled);
      CHECK(std::memcmp(&other.result.log_likelihood, &reference.result.log_likelihood, sizeof(double)) == 0);
      CHECK(same_bytes(other.particles, reference.particles));
    }
  }
  return off_blocks;
}

}  // namespace

TEST_CASE("filter results and particles are bitwise identical on 1..p ranks", "[mpi][reproducibility]") {
  check_all_sizes(1000, 0.5, 30);  // adaptive resampling
  check_all_sizes(1001, 1.0, 20);  // every step, N not divisible by most p
  check_all_sizes(5, 1.0, 10);     // N = p at p = 5
  check_all_sizes(7, 0.9, 10);     // tiny N
}

TEST_CASE("filter results and particles do not depend on the layout (tolerance, capacities)",
          "[mpi][reproducibility]") {
  int p = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int off = 0;
  for (double tolerance : {0.05, 0.3}) {
    off += check_all_sizes(1000, 0.5, 30, tolerance);
    off += check_all_sizes(1001, 1.0, 20, tolerance, true);
  }
  off += check_all_sizes(997, 1.0, 12, 0.0, true);  // capacities alone: a fixed, uneven layout
  if (rank == 0 && p > 1) CHECK(off > 0);
}
