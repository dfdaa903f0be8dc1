// Issue 18, acceptance 2 at library level: a PMMH chain driven by the distributed bootstrap filter is
// bitwise identical for any number of ranks in its filter's communicator, and with other chains
// beside it on a split communicator.
//
// Every rank first runs the reference chains alone (filter on MPI_COMM_SELF). Then:
// - one chain on the first k ranks of the world, for every k = 1..p;
// - two chains on the world split by split_chains (even p), each chain's filter on its own half, as
//   `rsmc pmmh --chains 2` will run them.
// Each rank that took part compares every proposal, log-likelihood estimate, outcome and the final
// chain record, bit for bit, with the reference of its chain. The chain adapts its proposal during
// the run, so the adaptation's arithmetic is covered too. The likelihood is filter_log_likelihood.
// split_chains' layout and its refusals are checked on every rank count.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/engine/simulate.hpp"
#include "framework/inference/chain_communicator.hpp"
#include "framework/inference/filter_likelihood.hpp"
#include "framework/inference/pmmh.hpp"
#include "models/linear_gaussian.hpp"
#include "tests/support/inference_testing.hpp"

namespace {

using namespace rsmc::inference;
using rsmc::models::LinearGaussian;
using rsmc::models::LinearGaussianParams;

constexpr double kA1 = 0.0, kP1 = 10.0;

const rsmc::Observations& data() {
  static const rsmc::Observations y =
      rsmc::simulate(LinearGaussian(LinearGaussianParams::local_level(0.3, 1.0, kA1, kP1)), 15, 2026).observations;
  return y;
}

// The bootstrap filter's log-likelihood estimate on `comm` (collective over it).
LogLikelihood filter_on(MPI_Comm comm) {
  rsmc::FilterOptions options;
  options.particles = 60;
  const auto local_level_at = [](const std::vector<double>& theta) {
    return LinearGaussian(LinearGaussianParams::local_level(theta[0], theta[1], kA1, kP1));
  };
  return filter_log_likelihood(comm, local_level_at, data(), options);
}

PmmhChain local_level_chain(std::uint32_t chain) {
  return PmmhChain(rsmc::testing::local_level_priors(),
                   rsmc::testing::adaptive_chain_options(77, chain, 2, 0.2, /*adapt_start=*/20, /*adapt_interval=*/10));
}

// Every number the chain produced, in order: the proposals, their estimates and outcomes, and the
// final record's reals and integers (as doubles: all are far below 2^53).
std::vector<double> chain_output(std::uint32_t chain, MPI_Comm comm) {
  const rsmc::testing::ChainRun run =
      rsmc::testing::run_chain(local_level_chain(chain), {0.5, 0.5}, filter_on(comm), 60);
  // The comparison covers accepted moves and adapted proposals only if there were some.
  CHECK(run.state.counters.accepted > 0);
  CHECK(run.state.counters.adaptations > 0);
  std::vector<double> out;
  for (const StepResult& r : run.results) {
    out.insert(out.end(), r.proposed_theta.begin(), r.proposed_theta.end());
    out.push_back(r.proposed_log_likelihood);
    out.push_back(static_cast<double>(r.outcome));
    out.push_back(r.adapted ? 1.0 : 0.0);
  }
  const ChainRecord record = to_record(run.state);
  for (const NamedReal& v : record.reals) out.push_back(v.value);
  for (const NamedInteger& v : record.integers) out.push_back(static_cast<double>(v.value));
  return out;
}

}  // namespace

TEST_CASE("a PMMH chain is bitwise identical for any rank count and beside another chain", "[inference][mpi]") {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::vector<double> reference[2] = {chain_output(0, MPI_COMM_SELF), chain_output(1, MPI_COMM_SELF)};
  REQUIRE_FALSE(rsmc::testing::same_bits(reference[0], reference[1]));  // the chain index matters

  for (int k = 1; k <= ranks; ++k) {
    MPI_Comm first_k;
    MPI_Comm_split(MPI_COMM_WORLD, rank < k ? 0 : MPI_UNDEFINED, rank, &first_k);
    if (first_k == MPI_COMM_NULL) continue;
    INFO("one chain on " << k << " ranks, rank " << rank);
    CHECK(rsmc::testing::same_bits(chain_output(0, first_k), reference[0]));
    MPI_Comm_free(&first_k);
  }

  if (ranks % 2 == 0) {
    const ChainCommunicator part = split_chains(MPI_COMM_WORLD, 2);
    INFO("chain " << part.chain << " of 2 on " << ranks << " ranks, rank " << rank);
    CHECK(rsmc::testing::same_bits(chain_output(static_cast<std::uint32_t>(part.chain), part.comm),
                                   reference[part.chain]));
    MPI_Comm comm = part.comm;
    MPI_Comm_free(&comm);
  }
}

TEST_CASE("split_chains gives contiguous blocks and refuses a count that does not divide the ranks",
          "[inference][mpi]") {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  for (int chains = 1; chains <= ranks; ++chains) {
    if (ranks % chains != 0) continue;
    ChainCommunicator split = split_chains(MPI_COMM_WORLD, chains);
    int size = 0, sub_rank = 0;
    MPI_Comm_size(split.comm, &size);
    MPI_Comm_rank(split.comm, &sub_rank);
    INFO(chains << " chains on " << ranks << " ranks, rank " << rank);
    CHECK(split.chains == chains);
    CHECK(split.chain == rank / (ranks / chains));
    CHECK(size == ranks / chains);
    CHECK(sub_rank == rank % (ranks / chains));
    MPI_Comm_free(&split.comm);
  }
  const std::string expected = "--chains: " + std::to_string(ranks + 1) + " does not divide the " +
                               std::to_string(ranks) + " ranks; expected a divisor of the rank count";
  CHECK_THAT(rsmc::testing::error_of([&] { split_chains(MPI_COMM_WORLD, ranks + 1); }),
             Catch::Matchers::StartsWith(expected));
  CHECK_THAT(rsmc::testing::error_of([&] { split_chains(MPI_COMM_WORLD, 0); }),
             Catch::Matchers::StartsWith("--chains: 0 is not a chain count; expected C >= 1"));
}
