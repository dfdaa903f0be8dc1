// The particle filter as a chain's likelihood: filter_log_likelihood(comm, make_model, y, options)
// is a LogLikelihood (pmmh.hpp) that builds the model at theta, runs the bootstrap filter on `comm`
// with the chain's filter seed and returns its log-likelihood estimate.
//
// Collective: every rank of `comm` must call it with the same theta and seed, as every rank of a
// chain does when it steps the chain. The estimate is bitwise identical for any number of ranks in
// `comm` (the filter's contract), so the chain is too. A degenerate filter throws DegenerateError on
// every rank at once; PmmhChain counts it as a non-finite estimate.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/filter_options.hpp"
#include "framework/inference/pmmh.hpp"
#include "framework/model/observations.hpp"
#include "framework/parallel/communicator.hpp"
#include "framework/parallel/mpi.hpp"

namespace rsmc::inference {

// make_model(theta) returns the model at theta; `options.seed` is replaced by the filter seed. The
// observations are copied into the callable. The filter runs on ExecutionSpace.
// The estimator duplicates `comm` once, here (collective over it), and every estimate's filter runs on
// that duplicate (framework/parallel/communicator.hpp): one MPI_Comm_dup per chain, not one per
// likelihood evaluation. It is freed with the last copy of the returned callable.
template <class ExecutionSpace = Kokkos::DefaultExecutionSpace, class MakeModel>
LogLikelihood filter_log_likelihood(MPI_Comm comm, MakeModel make_model, Observations observations,
                                    FilterOptions options) {
  auto own = std::make_shared<const Communicator>(comm);
  return [own, make_model = std::move(make_model), y = std::move(observations), options](
             const std::vector<double>& theta, std::uint64_t filter_seed) {
    FilterOptions o = options;
    o.seed = filter_seed;
    auto model = make_model(theta);
    return BootstrapFilter<decltype(model), ExecutionSpace>(*own, std::move(model), o).run(y).log_likelihood;
  };
}

}  // namespace rsmc::inference
