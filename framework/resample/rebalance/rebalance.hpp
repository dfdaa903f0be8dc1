// Neighbour rebalancing: after selection and renumbering, rank k holds the offspring with new ids
// [first_id, first_id + offspring) (their parents' states, through workspace.ancestor); rebalance()
// moves them to the layout `to`, so that afterwards rank r holds ids [to.first(r), to.end(r)). The
// plan (rebalance_plan.hpp) says which contiguous id ranges go where; the particles move in steps:
//   keep      offspring that stay: copied into the new block
//   pack      offspring that leave: one bulk buffer, one message per destination
//   send      one non-blocking send per destination (from the buffer, or its pinned host copy)
//   match     the messages that arrive, probed and placed by their source rank
//   receive   one non-blocking receive per source, then wait for every message
//   unpack    the received particles into the new block
//   adopt     the new block becomes the store's state; the log-weights reset to 0
//   stats     what moved, over all ranks
// Packing and unpacking are kernels on the particles' execution space, into bulk buffers in their
// memory space, which MPI reads and writes in place or through pinned host buffers
// (rebalance_transport.hpp). Messages go with tags::rebalance on the communicator given; the caller
// owns it (a filter's own duplicate: framework/parallel/communicator.hpp).
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "base/core/error.hpp"
#include "base/core/reserve.hpp"
#include "kernels/fill.hpp"
#include "framework/parallel/communicator.hpp"
#include "framework/parallel/mpi.hpp"
#include "framework/particles/block_distribution.hpp"
#include "framework/particles/layout.hpp"
#include "framework/particles/particle_store.hpp"
#include "framework/resample/rebalance/rebalance_plan.hpp"
#include "framework/resample/rebalance/rebalance_transport.hpp"
#include "framework/resample/renumber/renumber.hpp"
#include "framework/resample/resample_stats.hpp"
#include "framework/resample/resample_workspace.hpp"
#include "framework/resample/select/selection.hpp"

namespace rsmc {

namespace rebalance_detail {

// MPI counts are ints: one message of more than 2^31 - 1 doubles is refused, naming the sizes.
inline int message_doubles(std::uint64_t particles, int d) {
  const std::uint64_t doubles = particles * static_cast<std::uint64_t>(d);
  if (doubles > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
    throw Error("rebalancing: one message of " + std::to_string(particles) + " particles x " + std::to_string(d) +
                " doubles exceeds MPI's int count; use more ranks or --balance-tolerance 0");
  return static_cast<int>(doubles);
}

template <class View>
auto first_entries(const View& view, std::size_t n) {
  return Kokkos::subview(view, std::make_pair(std::size_t(0), n));
}

// What one rebalancing works on: the plan, the new block, the particles' state and where it goes.
template <class MemorySpace>
struct Move {
  using Exec = typename MemorySpace::execution_space;
  using StateArray = typename ParticleStore<MemorySpace>::StateArray;
  Move(int rank_, RebalancePlan plan_) : rank(rank_), plan(std::move(plan_)) {}
  Exec exec;
  int rank;
  int d = 0;  // doubles per particle
  RebalancePlan plan;
  std::uint64_t block_first = 0, block_count = 0;      // the new block of this rank
  bool staged = false;                                 // MPI goes through pinned host copies (rebalance_transport.hpp)
  Kokkos::View<std::uint64_t*, MemorySpace> ancestor;  // of every held offspring, in id order
  StateArray state;                                    // the parents' states
  StateArray scratch;                                  // the new block's states
};

// keep: the offspring that stay, copied straight into the new block.
template <class MemorySpace>
void keep_staying(const Move<MemorySpace>& m) {
  const std::uint64_t from = m.plan.kept.first - m.plan.held.first, into = m.plan.kept.first - m.block_first;
  const int d = m.d;
  const auto ancestor = m.ancestor;
  const auto state = m.state;
  const auto scratch = m.scratch;
  Kokkos::parallel_for(
      "rsmc::rebalance_keep", Kokkos::RangePolicy<typename Move<MemorySpace>::Exec>(m.exec, 0, m.plan.kept.size()),
      KOKKOS_LAMBDA(const std::size_t k) {
        for (int c = 0; c < d; ++c) scratch(into + k, c) = state(ancestor(from + k), c);
      });
}

// The packed offspring that leave: message s is send_data[offset[s], offset[s + 1]).
struct Departures {
  std::vector<std::size_t> offset;
  const double* send_data = nullptr;  // what MPI reads: the buffer, or its pinned host copy
};

// pack: one bulk buffer, one message per destination, component-major (component c of a message's
// k-th particle at c x count + k: consecutive threads write consecutive doubles), copied to pinned
// host memory when MPI cannot read the particles' memory.
template <class MemorySpace>
Departures pack_leaving(const Move<MemorySpace>& m, ResampleWorkspace<MemorySpace>& workspace) {
  const std::vector<RebalancePlan::Send>& sends = m.plan.sends;
  Departures out;
  out.offset.assign(sends.size() + 1, 0);
  for (std::size_t s = 0; s < sends.size(); ++s)
    out.offset[s + 1] = out.offset[s] + static_cast<std::size_t>(message_doubles(sends[s].ids.size(), m.d));
  const std::size_t send_doubles = out.offset.back();
  reserve(workspace.send_buffer, send_doubles, "rsmc::send_buffer");
  const auto send_buffer = workspace.send_buffer;
  const int d = m.d;
  const auto ancestor = m.ancestor;
  const auto state = m.state;
  for (std::size_t s = 0; s < sends.size(); ++s) {
    const std::uint64_t from = sends[s].ids.first - m.plan.held.first, count = sends[s].ids.size();
    const std::size_t base = out.offset[s];
    Kokkos::parallel_for(
        "rsmc::rebalance_pack", Kokkos::RangePolicy<typename Move<MemorySpace>::Exec>(m.exec, 0, count),
        KOKKOS_LAMBDA(const std::size_t k) {
          for (int c = 0; c < d; ++c) send_buffer(base + c * count + k) = state(ancestor(from + k), c);
        });
  }
  out.send_data = send_buffer.data();
  if (m.staged && send_doubles > 0) {
    reserve(workspace.send_staging, send_doubles, "rsmc::send_staging");
    Kokkos::deep_copy(m.exec, first_entries(workspace.send_staging, send_doubles),
                      first_entries(send_buffer, send_doubles));
    out.send_data = workspace.send_staging.data();
  }
  m.exec.fence();  // MPI reads what the kernels (and the copy) wrote
  return out;
}

// send: one non-blocking send per destination; the requests are appended to `requests`.
inline void send_leaving(MPI_Comm comm, const RebalancePlan& plan, const Departures& departures,
                         std::vector<MPI_Request>& requests) {
  for (std::size_t s = 0; s < plan.sends.size(); ++s) {
    requests.emplace_back();
    MPI_Isend(departures.send_data + departures.offset[s],
              static_cast<int>(departures.offset[s + 1] - departures.offset[s]), MPI_DOUBLE, plan.sends[s].rank,
              tags::rebalance, comm, &requests.back());
  }
}

// The messages of one rebalancing that arrive at this rank: each one's source, particles and place.
struct IncomingMessages {
  struct Message {
    int source = 0;
    std::uint64_t count = 0;  // particles
    std::uint64_t into = 0;   // local index of its first particle in the new block
    std::size_t offset = 0;   // its first double in the receive buffer
    MPI_Message handle{};     // from MPI_Mprobe, for MPI_Imrecv
  };
  std::vector<Message> messages;  // by ascending source rank
};

// match: the messages (MPI_Mprobe) that bring this rank the `plan.to_receive` particles of its new
// block that other ranks hold, placed. No message says which ids it carries: held ranges are
// contiguous and ordered by rank, so the ids below this rank's held range come from lower ranks, in
// rank order, from the bottom of the block, and those above it from higher ranks, up to the block's
// end. The order in which messages arrive therefore cannot change the result.
inline IncomingMessages match_arriving(MPI_Comm comm, int rank, int d, const RebalancePlan& plan,
                                       std::uint64_t block_first, std::uint64_t block_count) {
  IncomingMessages in;
  std::uint64_t matched = 0;
  while (matched < plan.to_receive) {
    IncomingMessages::Message m;
    MPI_Status status;
    MPI_Mprobe(MPI_ANY_SOURCE, tags::rebalance, comm, &m.handle, &status);
    int doubles = 0;
    MPI_Get_count(&status, MPI_DOUBLE, &doubles);
    m.source = status.MPI_SOURCE;
    m.count = static_cast<std::uint64_t>(doubles) / static_cast<std::uint64_t>(d);
    matched += m.count;
    in.messages.push_back(m);
  }
  std::sort(in.messages.begin(), in.messages.end(), [](const auto& a, const auto& b) { return a.source < b.source; });
  // Particles from lower ranks: the block's ids below the held range.
  const std::uint64_t from_below =
      std::min(block_count, plan.held.first > block_first ? plan.held.first - block_first : 0);
  std::uint64_t below = 0, above = 0;
  for (const auto& m : in.messages) (m.source < rank ? below : above) += m.count;
  if (matched != plan.to_receive || below != from_below || above != plan.to_receive - from_below)
    throw Error("internal error: rebalancing received particles that do not fill this rank's new range");
  std::uint64_t lower_into = 0, upper_into = block_count - above;
  std::size_t offset = 0;
  for (auto& m : in.messages) {
    std::uint64_t& into = m.source < rank ? lower_into : upper_into;
    m.into = into;
    into += m.count;
    m.offset = offset;
    offset += m.count * static_cast<std::size_t>(d);
  }
  return in;
}

// receive: one non-blocking receive per matched message, into the receive buffer (or its pinned
// host copy), then every request (the sends' too) waited for.
template <class MemorySpace>
void receive_arriving(const Move<MemorySpace>& m, const IncomingMessages& incoming,
                      ResampleWorkspace<MemorySpace>& workspace, std::vector<MPI_Request>& requests) {
  const std::size_t receive_doubles = m.plan.to_receive * static_cast<std::size_t>(m.d);
  reserve(workspace.receive_buffer, receive_doubles, "rsmc::receive_buffer");
  double* receive_data = workspace.receive_buffer.data();
  if (m.staged && receive_doubles > 0) {
    reserve(workspace.receive_staging, receive_doubles, "rsmc::receive_staging");
    receive_data = workspace.receive_staging.data();
  }
  for (auto message : incoming.messages) {
    requests.emplace_back();
    MPI_Imrecv(receive_data + message.offset, message_doubles(message.count, m.d), MPI_DOUBLE, &message.handle,
               &requests.back());
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

// unpack: the received particles (copied back from pinned host memory first, when staged) into
// their places in the new block.
template <class MemorySpace>
void unpack_arrived(const Move<MemorySpace>& m, const IncomingMessages& incoming,
                    ResampleWorkspace<MemorySpace>& workspace) {
  const std::size_t receive_doubles = m.plan.to_receive * static_cast<std::size_t>(m.d);
  const auto receive_buffer = workspace.receive_buffer;
  if (m.staged && receive_doubles > 0)
    Kokkos::deep_copy(m.exec, first_entries(receive_buffer, receive_doubles),
                      first_entries(workspace.receive_staging, receive_doubles));
  const int d = m.d;
  const auto scratch = m.scratch;
  for (const auto& message : incoming.messages) {
    const std::uint64_t into = message.into, count = message.count;
    const std::size_t base = message.offset;
    Kokkos::parallel_for(
        "rsmc::rebalance_unpack", Kokkos::RangePolicy<typename Move<MemorySpace>::Exec>(m.exec, 0, count),
        KOKKOS_LAMBDA(const std::size_t k) {
          for (int c = 0; c < d; ++c) scratch(into + k, c) = receive_buffer(base + c * count + k);
        });
  }
}

template <class MemorySpace>
auto uninitialised(const std::string& label) {
  return Kokkos::view_alloc(Kokkos::WithoutInitializing, label);
}

// adopt: the new block becomes the store's state (local particle i the offspring with id
// block_first + i); the store's other arrays follow its size; every log-weight is 0.
template <class MemorySpace>
void adopt_new_block(const Move<MemorySpace>& m, ParticleStore<MemorySpace>& store) {
  using StateArray = typename ParticleStore<MemorySpace>::StateArray;
  using WeightArray = typename ParticleStore<MemorySpace>::WeightArray;
  store.swap_state();
  store.first_id = m.block_first;
  if (store.scratch.extent(0) != m.block_count) {  // the layout moved: the other arrays follow
    store.scratch = StateArray(uninitialised<MemorySpace>("rsmc::state_scratch"), m.block_count, m.d);
    store.log_weight = WeightArray(uninitialised<MemorySpace>("rsmc::log_weight"), m.block_count);
    store.scratch_log_weight = WeightArray(uninitialised<MemorySpace>("rsmc::log_weight_scratch"), m.block_count);
  }
  kernels::fill(m.exec, "rsmc::rebalance::reset_log_weight", store.log_weight, store.log_weight.extent(0), 0.0);
  m.exec.fence();
}

// stats: what this rebalancing moved, over all ranks (identical on every rank).
inline ResampleStats rebalance_stats(MPI_Comm comm, const RebalancePlan& plan, const IncomingMessages& incoming,
                                     std::uint64_t offspring, std::uint64_t block_count, int d) {
  ResampleStats stats;
  std::uint64_t local[4] = {plan.particles_sent(), plan.sends.size(),
                            offspring > block_count ? offspring - block_count : 0, 0};
  MPI_Allreduce(MPI_IN_PLACE, local, 3, MPI_UINT64_T, MPI_SUM, comm);
  std::uint64_t partners = plan.sends.size() + incoming.messages.size();
  MPI_Allreduce(MPI_IN_PLACE, &partners, 1, MPI_UINT64_T, MPI_MAX, comm);
  stats.particles_moved = local[0];
  stats.messages = local[1];
  stats.minimum_moves = local[2];
  stats.bytes_moved = stats.particles_moved * static_cast<std::uint64_t>(d) * sizeof(double);
  stats.max_partners = partners;
  return stats;
}

}  // namespace rebalance_detail

// Moves offspring to the layout `to`: after it, `store` holds to.count(rank) particles (its arrays
// reallocated when the count changes), local particle i being the offspring with new id
// to.first(rank) + i. `selection` gives the id of the first offspring and their number, and (with
// Renumbering::from_counts) the offspring of each local particle. The buffers come from `workspace`
// (kept between calls). The steps are named at the top of this file.
template <class MemorySpace>
ResampleStats rebalance(MPI_Comm comm, const Layout& to, ParticleStore<MemorySpace>& store, const Selection& selection,
                        ResampleWorkspace<MemorySpace>& workspace, Renumbering renumbering = Renumbering::from_counts) {
  using namespace rebalance_detail;
  using StateArray = typename ParticleStore<MemorySpace>::StateArray;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  Move<MemorySpace> m(rank, RebalancePlan(to, rank, selection.first_id, selection.offspring));
  m.d = store.state_dim();
  m.block_first = to.first(m.rank);
  m.block_count = to.count(m.rank);
  m.staged = rebalance_transport_for<MemorySpace>() == RebalanceTransport::pinned_staging;
  if (store.scratch.extent(0) != m.block_count)  // the layout moved: the new state gets its new size
    store.scratch = StateArray(uninitialised<MemorySpace>("rsmc::state_scratch"), m.block_count, m.d);
  if (renumbering == Renumbering::from_counts) renumber_from_counts(selection, m.plan.held.size(), workspace);
  m.ancestor = workspace.ancestor;
  m.state = store.state;
  m.scratch = store.scratch;

  keep_staying(m);
  const Departures departures = pack_leaving(m, workspace);
  std::vector<MPI_Request> requests;
  send_leaving(comm, m.plan, departures, requests);
  const IncomingMessages incoming = match_arriving(comm, m.rank, m.d, m.plan, m.block_first, m.block_count);
  receive_arriving(m, incoming, workspace, requests);
  unpack_arrived(m, incoming, workspace);
  adopt_new_block(m, store);
  return rebalance_stats(comm, m.plan, incoming, selection.offspring, m.block_count, m.d);
}

template <class MemorySpace>
ResampleStats rebalance(MPI_Comm comm, const BlockDistribution& dist, ParticleStore<MemorySpace>& store,
                        const Selection& selection) {
  ResampleWorkspace<MemorySpace> workspace;
  return rebalance(comm, Layout(dist), store, selection, workspace);
}

}  // namespace rsmc
