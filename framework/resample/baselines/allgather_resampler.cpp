#include "framework/resample/baselines/allgather_resampler.hpp"

#include <climits>
#include <cmath>
#include <set>
#include <string>
#include <utility>

#include "base/core/error.hpp"
#include "base/math/math.hpp"

namespace rsmc {

namespace {

int checked_int(std::uint64_t value, const char* what) {
  if (value > static_cast<std::uint64_t>(INT_MAX))
    throw Error(std::string("allgather resampler: ") + what + " (" + std::to_string(value) +
                ") exceeds the MPI count limit of the baseline; use the distributed resampler");
  return static_cast<int>(value);
}

}  // namespace

std::vector<double> allgather_log_weights(MPI_Comm comm, const BlockDistribution& dist,
                                          const Kokkos::View<const double*, Kokkos::HostSpace>& local) {
  const int p = dist.ranks();
  std::vector<int> counts(p), displs(p);
  for (int k = 0; k < p; ++k) {
    counts[k] = checked_int(dist.count(k), "particles per rank");
    displs[k] = checked_int(dist.first(k), "particle count");
  }
  checked_int(dist.size(), "particle count");
  std::vector<double> all(dist.size());
  MPI_Allgatherv(local.data(), static_cast<int>(local.extent(0)), MPI_DOUBLE, all.data(), counts.data(), displs.data(),
                 MPI_DOUBLE, comm);
  return all;
}

std::vector<std::uint64_t> systematic_ancestors(const std::vector<double>& log_weights, double shift, double uniform) {
  const std::size_t n = log_weights.size();
  // Cumulative weights in global id order: the same sequence of additions for any rank count.
  std::vector<double> cumulative(n);
  double running = 0.0;
  std::size_t last_positive = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double w = math::exp(log_weights[i] - shift);  // the engine's exp: same bits everywhere
    if (w > 0.0) last_positive = i;
    running += w;
    cumulative[i] = running;
  }
  if (!(running > 0.0)) throw Error("resampling: all particle weights are zero");
  // Offspring j sits at (j + U) * W / N on the wheel; a merge-walk finds each ancestor in O(1)
  // amortised. upper_bound semantics (first i with C_i > point) never selects a zero weight.
  std::vector<std::uint64_t> ancestors(n);
  const double spacing = running / static_cast<double>(n);
  std::size_t i = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const double point = (static_cast<double>(j) + uniform) * spacing;
    while (i < n && !(cumulative[i] > point)) ++i;
    // Rounding can push the last points to the end of the wheel: they belong to the last weight.
    ancestors[j] = i < n ? i : last_positive;
  }
  return ancestors;
}

ResampleStats exchange_ancestor_states(MPI_Comm comm, const BlockDistribution& dist,
                                       const std::vector<std::uint64_t>& ancestors,
                                       const Kokkos::View<const double**, Kokkos::LayoutLeft, Kokkos::HostSpace>& from,
                                       const Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace>& to) {
  int me = 0;
  MPI_Comm_rank(comm, &me);
  const int p = dist.ranks();
  const int d = static_cast<int>(from.extent(1));
  const std::uint64_t my_first = dist.first(me);

  // Every rank knows every ancestor, so both sides derive the plan without a request round.
  std::vector<std::uint64_t> send_items(p, 0), recv_items(p, 0);
  ResampleStats stats;
  std::set<std::pair<int, int>> pairs;
  for (int r = 0; r < p; ++r) {
    for (std::uint64_t j = dist.first(r); j < dist.end(r); ++j) {
      const int src = dist.owner(ancestors[j]);
      if (src == me) ++send_items[r];
      if (r == me) ++recv_items[src];
      if (src != r) {
        ++stats.particles_moved;
        pairs.emplace(src, r);
      }
    }
  }
  stats.messages = pairs.size();
  stats.bytes_moved = stats.particles_moved * static_cast<std::uint64_t>(d) * sizeof(double);

  std::vector<int> send_counts(p), send_displs(p), recv_counts(p), recv_displs(p);
  std::uint64_t send_total = 0, recv_total = 0;
  for (int r = 0; r < p; ++r) {
    send_counts[r] = checked_int(send_items[r] * d, "doubles sent to one rank");
    recv_counts[r] = checked_int(recv_items[r] * d, "doubles received from one rank");
    send_displs[r] = checked_int(send_total, "doubles sent");
    recv_displs[r] = checked_int(recv_total, "doubles received");
    send_total += send_items[r] * d;
    recv_total += recv_items[r] * d;
  }

  // Pack: for each destination, its offspring in id order whose ancestor lives here.
  std::vector<double> send(send_total);
  std::size_t pos = 0;
  for (int r = 0; r < p; ++r)
    for (std::uint64_t j = dist.first(r); j < dist.end(r); ++j)
      if (dist.owner(ancestors[j]) == me) {
        const std::uint64_t local = ancestors[j] - my_first;
        for (int c = 0; c < d; ++c) send[pos++] = from(local, c);
      }

  std::vector<double> recv(recv_total);
  MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_DOUBLE, recv.data(), recv_counts.data(),
                recv_displs.data(), MPI_DOUBLE, comm);

  // Unpack in id order; from each source the items arrive in the same order.
  std::vector<std::uint64_t> cursor(p);
  for (int r = 0; r < p; ++r) cursor[r] = static_cast<std::uint64_t>(recv_displs[r]);
  for (std::uint64_t j = my_first; j < dist.end(me); ++j) {
    const int src = dist.owner(ancestors[j]);
    const std::uint64_t local = j - my_first;
    for (int c = 0; c < d; ++c) to(local, c) = recv[cursor[src]++];
  }
  return stats;
}

}  // namespace rsmc
