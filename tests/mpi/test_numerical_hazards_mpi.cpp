// Numerical hazards across rank counts: the same run on the first k ranks, k = 1..p, must give the
// same error message, or bitwise the same results, invalid-likelihood counts and final particles.
//   - a NaN / +inf log-likelihood (error mode): the same message, naming the lowest global id, which
//     lies on another rank than the other invalid particles;
//   - zero-weight mode: the same counts and bitwise the same results;
//   - log-weights spread over 600 orders of magnitude, resampled every step;
//   - N = p: as many particles as ranks (one each), on 1 rank and on k ranks.
// One-rank behaviour (which particles, which numbers) is in tests/unit/test_numerical_hazards.cpp.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "framework/engine/bootstrap_filter.hpp"
#include "tests/support/hazard_models.hpp"
#include "tests/support/bits.hpp"

using rsmc::test::same_bytes;

namespace {

using rsmc::FilterOptions;
using rsmc::InvalidLikelihood;

struct HazardOutcome {
  std::string error;  // empty: the run completed
  rsmc::FilterResult result;
  std::vector<double> states, log_weights;  // final particles in global id order (on world rank 0)
};

// Gathers this rank's values of the block distribution to rank 0 of `comm`, in global id order.
template <class Filter>
std::vector<double> gather(MPI_Comm comm, const Filter& filter, const std::vector<double>& local) {
  int k = 1, rank = 0;
  MPI_Comm_size(comm, &k);
  MPI_Comm_rank(comm, &rank);
  std::vector<int> counts(k), displs(k);
  for (int r = 0; r < k; ++r) {
    counts[r] = static_cast<int>(filter.layout().count(r));
    displs[r] = static_cast<int>(filter.layout().first(r));
  }
  std::vector<double> all(rank == 0 ? filter.layout().size() : 0);
  MPI_Gatherv(local.data(), static_cast<int>(local.size()), MPI_DOUBLE, all.data(), counts.data(), displs.data(),
              MPI_DOUBLE, 0, comm);
  return all;
}

// Runs `model` on the first k ranks of MPI_COMM_WORLD (the others wait); with `label`, every
// particle starts with its global id as its state. Collective over MPI_COMM_WORLD.
template <class Model>
HazardOutcome run_on_first(int k, const Model& model, const FilterOptions& options, const rsmc::Observations& y,
                           bool label) {
  MPI_Comm sub = rsmc::test::first_ranks(k);
  HazardOutcome out;
  if (sub == MPI_COMM_NULL) return out;
  {
    rsmc::BootstrapFilter<Model> filter(sub, model, options);
    rsmc::RunProgress progress = filter.start();
    if (label) rsmc::test::label_with_ids(filter);
    try {
      while (progress.step < y.steps) filter.advance(progress, y);
      out.result = filter.finish(progress);
    } catch (const rsmc::Error& e) {
      out.error = e.what();  // thrown on every rank alike (the reductions are collective)
    }
    out.states = gather(sub, filter, rsmc::test::host_states(filter));
    out.log_weights = gather(sub, filter, rsmc::test::host_log_weights(filter));
  }
  MPI_Comm_free(&sub);
  return out;
}

// Every reported number and every particle bitwise equal (traffic and timings aside: they depend on k).
void check_same(const HazardOutcome& a, const HazardOutcome& b) {
  CHECK(a.error == b.error);
  CHECK(same_bytes(a.result.ess, b.result.ess));
  CHECK(same_bytes(a.result.log_likelihood_increment, b.result.log_likelihood_increment));
  CHECK(same_bytes(a.result.mean, b.result.mean));
  CHECK(same_bytes(a.result.variance, b.result.variance));
  CHECK(a.result.resampled == b.result.resampled);
  CHECK(a.result.invalid_likelihoods == b.result.invalid_likelihoods);
  CHECK(std::memcmp(&a.result.log_likelihood, &b.result.log_likelihood, sizeof(double)) == 0);
  CHECK(same_bytes(a.states, b.states));
  CHECK(same_bytes(a.log_weights, b.log_weights));
}

int world_size() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}
bool is_root() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank == 0;
}

using rsmc::test::hazard_options;

}  // namespace

TEST_CASE("NaN / +inf log-likelihood, error mode: the same message on every rank count", "[mpi][hazards]") {
  const auto y = rsmc::test::observations_of({0.0, 0.0, 0.0, 0.0});
  const auto options = hazard_options(300, 0.5, InvalidLikelihood::error);
  const HazardOutcome one = run_on_first(1, rsmc::test::three_invalid_at_step_2(), options, y, true);
  if (is_root()) CHECK(one.error.find("at step 2 for global particle id 151 (3 particles in all") != std::string::npos);
  for (int k = 2; k <= world_size(); ++k) {
    const HazardOutcome other = run_on_first(k, rsmc::test::three_invalid_at_step_2(), options, y, true);
    if (is_root()) {
      INFO("1 rank vs " << k << " ranks");
      CHECK(other.error == one.error);
    }
  }
}

TEST_CASE("NaN / +inf log-likelihood, zero-weight mode: counts and results identical on 1..p ranks", "[mpi][hazards]") {
  const auto y = rsmc::test::observations_of({0.0, 0.0, 0.0, 0.0, 0.0});
  const auto options = hazard_options(300, 0.98, InvalidLikelihood::zero_weight);  // resamples after step 2 only
  const HazardOutcome one = run_on_first(1, rsmc::test::three_invalid_at_step_2(), options, y, true);
  if (is_root()) {
    REQUIRE(one.error.empty());
    CHECK(one.result.invalid_likelihoods == std::vector<std::uint64_t>{0, 3, 0, 0, 0});
    CHECK(one.result.resampled[1] == 1);
  }
  for (int k = 2; k <= world_size(); ++k) {
    const HazardOutcome other = run_on_first(k, rsmc::test::three_invalid_at_step_2(), options, y, true);
    if (is_root()) {
      INFO("1 rank vs " << k << " ranks");
      check_same(one, other);
    }
  }
}

TEST_CASE("log-weights over 600 orders of magnitude: identical on 1..p ranks", "[mpi][hazards]") {
  const rsmc::test::Spread model;
  const auto y = rsmc::test::observations_of({0.0, 0.0, 0.0});
  for (double threshold : {1e-9, 1.0}) {  // never / every step resampled
    const auto options = hazard_options(1001, threshold, InvalidLikelihood::error);
    const HazardOutcome one = run_on_first(1, model, options, y, false);
    for (int k = 2; k <= world_size(); ++k) {
      const HazardOutcome other = run_on_first(k, model, options, y, false);
      if (is_root()) {
        INFO("threshold " << threshold << ": 1 rank vs " << k << " ranks");
        check_same(one, other);
      }
    }
  }
}

TEST_CASE("N = p: one particle per rank gives the results of one rank", "[mpi][hazards]") {
  const rsmc::test::Ar1 model;
  const auto y = rsmc::test::observations_of({0.2, -0.4, 0.9, 0.1, -0.3, 0.6});
  for (int k = 2; k <= world_size(); ++k) {
    const auto options = hazard_options(static_cast<std::uint64_t>(k), 1.0, InvalidLikelihood::error);
    const HazardOutcome one = run_on_first(1, model, options, y, false);
    const HazardOutcome spread = run_on_first(k, model, options, y, false);
    if (is_root()) {
      INFO("N = " << k << " on 1 rank vs on " << k << " ranks");
      REQUIRE(one.error.empty());
      int resamplings = 0;
      for (auto r : one.result.resampled) resamplings += r;
      CHECK(resamplings > 0);  // the rebalancing of single particles is exercised
      check_same(one, spread);
    }
  }
}
