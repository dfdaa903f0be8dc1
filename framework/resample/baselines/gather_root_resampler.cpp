#include "framework/resample/baselines/gather_root_resampler.hpp"

#include <climits>
#include <string>

#include "base/core/error.hpp"
#include "framework/resample/baselines/allgather_resampler.hpp"

namespace rsmc {

namespace {

int as_count(std::uint64_t value) {
  if (value > static_cast<std::uint64_t>(INT_MAX))
    throw Error("gather-root resampler: " + std::to_string(value) +
                " exceeds the MPI count limit of the baseline; use the roulette resampler");
  return static_cast<int>(value);
}

std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> displs(counts.size(), 0);
  for (std::size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
  return displs;
}

}  // namespace

std::vector<std::uint64_t> gather_root_ancestors(MPI_Comm comm, const BlockDistribution& dist,
                                                 const Kokkos::View<const double*, Kokkos::HostSpace>& log_weight,
                                                 double shift, double uniform) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int p = dist.ranks();
  std::vector<int> counts(p);
  for (int r = 0; r < p; ++r) counts[r] = as_count(dist.count(r));
  const std::vector<int> displs = displacements(counts);
  std::vector<double> all(rank == 0 ? dist.size() : 0);
  MPI_Gatherv(log_weight.data(), counts[rank], MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
              comm);
  std::vector<std::uint64_t> every;
  if (rank == 0) every = systematic_ancestors(all, shift, uniform);
  std::vector<std::uint64_t> mine(dist.count(rank));
  MPI_Scatterv(every.data(), counts.data(), displs.data(), MPI_UINT64_T, mine.data(), counts[rank], MPI_UINT64_T, 0,
               comm);
  return mine;
}

ResampleStats fetch_ancestor_states(MPI_Comm comm, const BlockDistribution& dist,
                                    const std::vector<std::uint64_t>& ancestors,
                                    const Kokkos::View<const double**, Kokkos::LayoutLeft, Kokkos::HostSpace>& from,
                                    const Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace>& to) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int p = dist.ranks();
  const int d = static_cast<int>(from.extent(1));
  // Requests grouped by owner; within an owner in offspring order.
  std::vector<int> request_counts(p, 0);
  for (auto a : ancestors) ++request_counts[dist.owner(a)];
  std::vector<int> request_displs = displacements(request_counts);
  std::vector<std::uint64_t> requests(ancestors.size());
  {
    std::vector<int> cursor = request_displs;
    for (auto a : ancestors) requests[cursor[dist.owner(a)]++] = a;
  }
  std::vector<int> serve_counts(p);
  MPI_Alltoall(request_counts.data(), 1, MPI_INT, serve_counts.data(), 1, MPI_INT, comm);
  const std::vector<int> serve_displs = displacements(serve_counts);
  std::vector<std::uint64_t> serve(static_cast<std::size_t>(serve_displs.back() + serve_counts.back()));
  MPI_Alltoallv(requests.data(), request_counts.data(), request_displs.data(), MPI_UINT64_T, serve.data(),
                serve_counts.data(), serve_displs.data(), MPI_UINT64_T, comm);

  // Serve: states of the requested (local) particles, in request order.
  const std::uint64_t first = dist.first(rank);
  std::vector<double> reply(serve.size() * d);
  for (std::size_t k = 0; k < serve.size(); ++k)
    for (int c = 0; c < d; ++c) reply[k * d + c] = from(serve[k] - first, c);
  std::vector<int> reply_counts(p), reply_displs(p), state_counts(p), state_displs(p);
  for (int r = 0; r < p; ++r) {
    reply_counts[r] = as_count(static_cast<std::uint64_t>(serve_counts[r]) * d);
    reply_displs[r] = as_count(static_cast<std::uint64_t>(serve_displs[r]) * d);
    state_counts[r] = as_count(static_cast<std::uint64_t>(request_counts[r]) * d);
    state_displs[r] = as_count(static_cast<std::uint64_t>(request_displs[r]) * d);
  }
  std::vector<double> states(requests.size() * d);
  MPI_Alltoallv(reply.data(), reply_counts.data(), reply_displs.data(), MPI_DOUBLE, states.data(), state_counts.data(),
                state_displs.data(), MPI_DOUBLE, comm);
  {
    std::vector<int> cursor = request_displs;
    for (std::size_t j = 0; j < ancestors.size(); ++j) {
      const int k = cursor[dist.owner(ancestors[j])]++;
      for (int c = 0; c < d; ++c) to(j, c) = states[static_cast<std::size_t>(k) * d + c];
    }
  }

  // Traffic: particles that crossed ranks, counted once (by the receiver), and messages.
  std::uint64_t local[2] = {0, 0};
  std::uint64_t partners = 0;
  for (int r = 0; r < p; ++r)
    if (r != rank && request_counts[r] > 0) {
      local[0] += static_cast<std::uint64_t>(request_counts[r]);
      local[1] += 2;  // request and reply
      ++partners;
    }
  MPI_Allreduce(MPI_IN_PLACE, local, 2, MPI_UINT64_T, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, &partners, 1, MPI_UINT64_T, MPI_MAX, comm);
  ResampleStats stats;
  stats.particles_moved = local[0];
  stats.messages = local[1];
  stats.bytes_moved = stats.particles_moved * static_cast<std::uint64_t>(d) * sizeof(double);
  stats.max_partners = partners;
  return stats;
}

}  // namespace rsmc
