// rsmc inside someone else's MPI program (issue 38): two filters on MPI_COMM_WORLD, stepped in turn
// by the caller, each give the bits they give alone, while the caller has its own messages in flight
// on MPI_COMM_WORLD under the tags rsmc uses (framework/parallel/communicator.hpp) and under the
// roulette resampler's old fixed tag 7207, matched by nobody but the caller. Each filter duplicates
// the communicator it is given, so its probes (MPI_ANY_SOURCE) cannot see them; before it did, a
// rebalancing on 2 or more ranks took the caller's message for particles.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <vector>

#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/simulate.hpp"
#include "framework/parallel/communicator.hpp"
#include "models/linear_gaussian.hpp"
#include "tests/support/bits.hpp"

namespace {

using rsmc::models::LinearGaussian;
using rsmc::test::same_bytes;

// Resampling every step on p >= 2 ranks moves particles between ranks at every step.
rsmc::FilterOptions embedding_options(std::uint64_t particles, std::uint64_t seed, rsmc::Scheme scheme) {
  rsmc::FilterOptions o;
  o.particles = particles;
  o.seed = seed;
  o.ess_threshold = 1.0;
  o.scheme = scheme;
  return o;
}

void same_filter_result(const rsmc::FilterResult& a, const rsmc::FilterResult& b) {
  CHECK(same_bytes(a.ess, b.ess));
  CHECK(same_bytes(a.mean, b.mean));
  CHECK(same_bytes(a.variance, b.variance));
  CHECK(same_bytes(a.log_likelihood_increment, b.log_likelihood_increment));
  CHECK(same_bytes(a.resampled, b.resampled));
  CHECK(rsmc::test::bits_of(a.log_likelihood) == rsmc::test::bits_of(b.log_likelihood));
}

}  // namespace

TEST_CASE("two filters on MPI_COMM_WORLD, stepped in turn by the caller, each give their own bits", "[embedding]") {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const LinearGaussian model(rsmc::models::LinearGaussianParams::default_2d());
  const int steps = 12;
  const rsmc::Observations y = rsmc::simulate(model, steps, 5).observations;
  const rsmc::FilterOptions a = embedding_options(3000, 101, rsmc::Scheme::systematic);
  const rsmc::FilterOptions b = embedding_options(2000, 202, rsmc::Scheme::multinomial);

  const rsmc::FilterResult alone_a = rsmc::BootstrapFilter<LinearGaussian>(MPI_COMM_WORLD, model, a).run(y);
  const rsmc::FilterResult alone_b = rsmc::BootstrapFilter<LinearGaussian>(MPI_COMM_WORLD, model, b).run(y);
  REQUIRE(alone_a.resampled.size() == static_cast<std::size_t>(steps));
  CHECK(alone_a.log_likelihood != alone_b.log_likelihood);  // two different filters

  // The caller's own messages, to the next rank, under each tag rsmc's filters use (and 7207),
  // posted before the filters start and received after they finish.
  const std::vector<int> tags{rsmc::tags::rebalance, rsmc::tags::chain_output, 7207};
  const int to = (rank + 1) % ranks, from = (rank + ranks - 1) % ranks;
  std::vector<double> sent(tags.size()), received(tags.size(), -1.0);
  std::vector<MPI_Request> requests(tags.size());
  for (std::size_t k = 0; k < tags.size(); ++k) {
    sent[k] = 1000.0 * rank + static_cast<double>(k);
    MPI_Isend(&sent[k], 1, MPI_DOUBLE, to, tags[k], MPI_COMM_WORLD, &requests[k]);
  }

  rsmc::BootstrapFilter<LinearGaussian> filter_a(MPI_COMM_WORLD, model, a), filter_b(MPI_COMM_WORLD, model, b);
  rsmc::RunProgress progress_a = filter_a.start(), progress_b = filter_b.start();
  while (progress_a.step < steps || progress_b.step < steps) {
    if (progress_a.step < steps) filter_a.advance(progress_a, y);
    if (progress_b.step < steps) filter_b.advance(progress_b, y);
    if (progress_a.step < steps) filter_a.advance(progress_a, y);  // a goes twice as fast as b
  }
  same_filter_result(filter_a.finish(progress_a), alone_a);
  same_filter_result(filter_b.finish(progress_b), alone_b);

  for (std::size_t k = 0; k < tags.size(); ++k)
    MPI_Recv(&received[k], 1, MPI_DOUBLE, from, tags[k], MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  for (std::size_t k = 0; k < tags.size(); ++k) CHECK(received[k] == 1000.0 * from + static_cast<double>(k));
}

TEST_CASE("a filter's communicator is a duplicate of the one it is given", "[embedding]") {
  const LinearGaussian model(rsmc::models::LinearGaussianParams::default_2d());
  const rsmc::Communicator own(MPI_COMM_WORLD);
  int same = MPI_UNEQUAL;
  MPI_Comm_compare(own.get(), MPI_COMM_WORLD, &same);
  CHECK(same == MPI_CONGRUENT);  // the same ranks in the same order, another context
  const rsmc::Communicator moved = rsmc::Communicator(MPI_COMM_WORLD);
  MPI_Comm_compare(own.get(), moved.get(), &same);
  CHECK(same == MPI_CONGRUENT);
  // A filter that borrows it runs as one that duplicates its own.
  const rsmc::Observations y = rsmc::simulate(model, 5, 6).observations;
  const rsmc::FilterOptions o = embedding_options(500, 7, rsmc::Scheme::stratified);
  same_filter_result(rsmc::BootstrapFilter<LinearGaussian>(own, model, o).run(y),
                     rsmc::BootstrapFilter<LinearGaussian>(MPI_COMM_WORLD, model, o).run(y));
}
