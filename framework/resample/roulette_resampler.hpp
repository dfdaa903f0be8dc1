// The distributed roulette resampler (Nemeth et al., ICCS 2018, Algorithm 1, and beyond).
//
//   1. fixed-point weights relative to the global max log-weight (exact integers, 64 fraction bits)
//   2. this rank's total, the exclusive scan over ranks and the grand total: exact 128-bit integers
//   3. selection on the exact wheel: offspring counts per local particle and the new id q of the
//      first offspring; p-invariant by construction (the alias sampler's draws excepted). Data-parallel
//      kernels in the particles' execution space (parallel_selection.hpp) for every scheme and local
//      sampler; the serial host selection (selection.hpp) for Algorithm 1. The host selection is also
//      the reference the kernels match bit for bit (tests/unit/test_parallel_selection.cpp).
//   4. renumbering: offspring get ids q, q+1, ... in ancestor order, without communication (the
//      parallel selection writes the ancestors itself; after the host selection, a host pass)
//   5. neighbour rebalancing (rebalance_plan.hpp): contiguous id ranges held outside the rank's
//      range in the new layout go point-to-point to their owners, packed and unpacked by kernels in
//      bulk buffers in the particles' memory space, which MPI reads in place or through pinned host
//      buffers (rebalance_transport.hpp). The new layout is the band's targets (tau = 0: the block
//      distribution) or the one within the band that moves the fewest particles (layout_choice.hpp)
// Work per rank O(N/p + log N) plus what arrives; no collective is larger than a few integers, and
// p integers (the offspring counts) when tau > 0.
#pragma once

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "base/core/error.hpp"
#include "base/core/instance_copy.hpp"
#include "framework/parallel/phase_times.hpp"
#include "base/exact/fixed_weight.hpp"
#include "framework/parallel/u128_mpi.hpp"
#include "framework/particles/block_distribution.hpp"
#include "framework/particles/layout.hpp"
#include "framework/particles/load_band.hpp"
#include "framework/particles/particle_store.hpp"
#include "framework/resample/rebalance/layout_choice.hpp"
#include "framework/resample/rebalance/rebalance_plan.hpp"
#include "framework/resample/rebalance/rebalance_transport.hpp"
#include "framework/resample/resample_stats.hpp"
#include "framework/resample/resample_workspace.hpp"
#include "framework/resample/scheme.hpp"
#include "framework/resample/select/selection.hpp"
#include "kernels/fill.hpp"

namespace rsmc {

// Fixed-point weights of this rank's particles into workspace.fixed_host (global id order), and
// their exact sum. One pass: on a host memory space straight into the host vector, else a kernel
// and one copy. Uses workspace.exp_weight when set (see resample_workspace.hpp).
template <class MemorySpace>
exact::u128 compute_fixed_weights(const Kokkos::View<double*, MemorySpace>& log_weight, double max_log_weight,
                                  ResampleWorkspace<MemorySpace>& workspace) {
  using Exec = typename MemorySpace::execution_space;
  const std::size_t n = log_weight.extent(0);
  const auto e = workspace.exp_weight;
  const bool given = e.extent(0) >= n && n > 0;
  std::vector<std::uint64_t>& out = workspace.fixed_host;
  out.resize(n);
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) {
    // The 128-bit total as two 64-bit registers (a u128 accumulator is kept on the stack, a
    // store-to-load chain per particle).
    std::uint64_t low = 0, carries = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t f = given ? exact::fixed_weight_given_exp(log_weight(i), max_log_weight, e(i))
                                    : exact::fixed_weight(log_weight(i), max_log_weight);
      out[i] = f;
      low += f;
      carries += low < f ? 1 : 0;
    }
    return (exact::u128(carries) << 64) | low;
  } else {
    ResampleWorkspace<MemorySpace>::reserve(workspace.fixed, n, "rsmc::fixed_weight");
    const auto fixed = workspace.fixed;
    Kokkos::parallel_for(
        "rsmc::fixed_weight", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(const std::size_t i) {
          fixed(i) = given ? exact::fixed_weight_given_exp(log_weight(i), max_log_weight, e(i))
                           : exact::fixed_weight(log_weight(i), max_log_weight);
        });
    Kokkos::View<std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(out.data(), n);
    copy_and_fence(Exec(), host, Kokkos::subview(fixed, std::make_pair(std::size_t(0), n)));
    exact::u128 total = 0;
    for (auto w : out) total += w;
    return total;
  }
}

// Fixed-point weights of this rank's particles (host copy, global id order).
template <class MemorySpace>
std::vector<std::uint64_t> fixed_weights(const Kokkos::View<double*, MemorySpace>& log_weight, double max_log_weight) {
  ResampleWorkspace<MemorySpace> workspace;
  compute_fixed_weights(log_weight, max_log_weight, workspace);
  return std::move(workspace.fixed_host);
}

// Exact shares of the wheel from this rank's total: the total of lower ranks, and the grand total.
inline WheelShare wheel_share(exact::u128 local, MPI_Comm comm) {
  const exact::ScanTotal scan = exact::exclusive_scan_total(local, comm);
  return WheelShare{scan.below, local, scan.total};
}
inline WheelShare wheel_share(const std::vector<std::uint64_t>& fixed, MPI_Comm comm) {
  exact::u128 local = 0;
  for (auto w : fixed) local += w;
  return wheel_share(local, comm);
}

// Where the offspring's ancestors come from: the selection's counts (a host pass), or already in
// workspace.ancestor (the data-parallel selection wrote them).
enum class Renumbering { from_counts, ancestors_given };

// Renumbering on the host: workspace.ancestor[k] = the local index of the parent of the k-th held
// offspring, from the offspring counts of `selection`.
template <class MemorySpace>
void renumber_from_counts(const Selection& selection, std::uint64_t held, ResampleWorkspace<MemorySpace>& workspace) {
  // Two spare entries let the common counts 0, 1 and 2 be written with two unconditional stores (a
  // loop of count iterations mispredicts at almost every particle); the spares are never read.
  ResampleWorkspace<MemorySpace>::reserve(workspace.ancestor, held + 2, "rsmc::ancestor");
  auto host = Kokkos::create_mirror_view(workspace.ancestor);
  std::uint64_t* out = host.data();
  const std::uint64_t* counts = selection.counts.data();
  std::size_t pos = 0;
  for (std::size_t i = 0; i < selection.counts.size(); ++i) {
    const std::uint64_t c = counts[i];
    if (c <= 2) {
      out[pos] = i;
      out[pos + 1] = i;
    } else {
      for (std::uint64_t k = 0; k < c; ++k) out[pos + k] = i;
    }
    pos += c;
  }
  if (pos != held) throw Error("internal error: offspring counts do not add up to the held offspring");
  copy_and_fence(typename MemorySpace::execution_space(), workspace.ancestor, host);
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

// Matches (MPI_Mprobe) the messages that bring this rank the `plan.to_receive` particles of its new
// block that other ranks hold, and places them. No message says which ids it carries: held ranges
// are contiguous and ordered by rank, so the ids below this rank's held range come from lower ranks,
// in rank order, from the bottom of the block, and those above it from higher ranks, up to the
// block's end. The order in which messages arrive therefore cannot change the result.
inline IncomingMessages match_incoming(MPI_Comm comm, int rank, int tag, int d, const RebalancePlan& plan,
                                       std::uint64_t block_first, std::uint64_t block_count) {
  IncomingMessages in;
  std::uint64_t matched = 0;
  while (matched < plan.to_receive) {
    IncomingMessages::Message m;
    MPI_Status status;
    MPI_Mprobe(MPI_ANY_SOURCE, tag, comm, &m.handle, &status);
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

// MPI counts are ints: one message of more than 2^31 - 1 doubles is refused, naming the sizes.
inline int message_doubles(std::uint64_t particles, int d) {
  const std::uint64_t doubles = particles * static_cast<std::uint64_t>(d);
  if (doubles > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
    throw Error("rebalancing: one message of " + std::to_string(particles) + " particles x " + std::to_string(d) +
                " doubles exceeds MPI's int count; use more ranks or --balance-tolerance 0");
  return static_cast<int>(doubles);
}

// Moves offspring to the layout `to`: after it, `store` holds to.count(rank) particles (its arrays
// reallocated when the count changes), local particle i being the offspring with new id
// to.first(rank) + i. `selection` gives the id of the first offspring and their number, and (with
// Renumbering::from_counts) the offspring of each local particle. The buffers come from `workspace`
// (kept between calls). Packing and unpacking are kernels on the particles' execution space; MPI
// reads and writes the buffers as rebalance_transport_for<MemorySpace>() says
// (rebalance_transport.hpp): in place, or through pinned host buffers. One non-blocking send per
// destination and one non-blocking receive per source.
template <class MemorySpace>
ResampleStats rebalance(MPI_Comm comm, const Layout& to, ParticleStore<MemorySpace>& store, const Selection& selection,
                        ResampleWorkspace<MemorySpace>& workspace, Renumbering renumbering = Renumbering::from_counts) {
  using Exec = typename MemorySpace::execution_space;
  using Workspace = ResampleWorkspace<MemorySpace>;
  const Exec exec;
  const RebalanceTransport transport = rebalance_transport_for<MemorySpace>();
  const bool staged = transport == RebalanceTransport::pinned_staging;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int d = store.state_dim();
  const RebalancePlan plan(to, rank, selection.first_id, selection.offspring);
  const std::uint64_t block_first = to.first(rank), block_count = to.count(rank);
  using StateArray = typename ParticleStore<MemorySpace>::StateArray;
  using WeightArray = typename ParticleStore<MemorySpace>::WeightArray;
  const auto uninitialised = [](const std::string& label) {
    return Kokkos::view_alloc(Kokkos::WithoutInitializing, label);
  };
  if (store.scratch.extent(0) != block_count)  // the layout moved: the new state gets its new size
    store.scratch = StateArray(uninitialised("rsmc::state_scratch"), block_count, d);

  // Ancestor (local index) of every offspring this rank holds, in id order: renumbering.
  if (renumbering == Renumbering::from_counts) renumber_from_counts(selection, plan.held.size(), workspace);
  const auto ancestor = workspace.ancestor;
  const auto state = store.state;
  const auto scratch = store.scratch;

  // Offspring that stay: copy straight into the new state.
  {
    const std::uint64_t from = plan.kept.first - plan.held.first, into = plan.kept.first - block_first;
    Kokkos::parallel_for(
        "rsmc::rebalance_keep", Kokkos::RangePolicy<Exec>(exec, 0, plan.kept.size()),
        KOKKOS_LAMBDA(const std::size_t k) {
          for (int c = 0; c < d; ++c) scratch(into + k, c) = state(ancestor(from + k), c);
        });
  }

  // Offspring that leave: one bulk buffer, one message per destination, component-major (component c
  // of a message's k-th particle at c x count + k: consecutive threads write consecutive doubles).
  const int tag = 7207;
  std::vector<std::size_t> send_offset(plan.sends.size() + 1, 0);
  for (std::size_t s = 0; s < plan.sends.size(); ++s)
    send_offset[s + 1] = send_offset[s] + static_cast<std::size_t>(message_doubles(plan.sends[s].ids.size(), d));
  const std::size_t send_doubles = send_offset.back();
  Workspace::reserve(workspace.send_buffer, send_doubles, "rsmc::send_buffer");
  const auto send_buffer = workspace.send_buffer;
  for (std::size_t s = 0; s < plan.sends.size(); ++s) {
    const std::uint64_t from = plan.sends[s].ids.first - plan.held.first, count = plan.sends[s].ids.size();
    const std::size_t base = send_offset[s];
    Kokkos::parallel_for(
        "rsmc::rebalance_pack", Kokkos::RangePolicy<Exec>(exec, 0, count), KOKKOS_LAMBDA(const std::size_t k) {
          for (int c = 0; c < d; ++c) send_buffer(base + c * count + k) = state(ancestor(from + k), c);
        });
  }
  const auto used = [](const auto& view, std::size_t n) {
    return Kokkos::subview(view, std::make_pair(std::size_t(0), n));
  };
  const double* send_data = send_buffer.data();
  if (staged && send_doubles > 0) {
    Workspace::reserve(workspace.send_staging, send_doubles, "rsmc::send_staging");
    Kokkos::deep_copy(exec, used(workspace.send_staging, send_doubles), used(send_buffer, send_doubles));
    send_data = workspace.send_staging.data();
  }
  exec.fence();  // MPI reads what the kernels (and the copy) wrote
  std::vector<MPI_Request> requests;
  for (std::size_t s = 0; s < plan.sends.size(); ++s) {
    requests.emplace_back();
    MPI_Isend(send_data + send_offset[s], static_cast<int>(send_offset[s + 1] - send_offset[s]), MPI_DOUBLE,
              plan.sends[s].rank, tag, comm, &requests.back());
  }

  // Offspring that arrive: every message matched and placed first, then received where they go.
  const IncomingMessages incoming = match_incoming(comm, rank, tag, d, plan, block_first, block_count);
  const std::size_t receive_doubles = plan.to_receive * static_cast<std::size_t>(d);
  Workspace::reserve(workspace.receive_buffer, receive_doubles, "rsmc::receive_buffer");
  double* receive_data = workspace.receive_buffer.data();
  if (staged && receive_doubles > 0) {
    Workspace::reserve(workspace.receive_staging, receive_doubles, "rsmc::receive_staging");
    receive_data = workspace.receive_staging.data();
  }
  for (auto m : incoming.messages) {
    requests.emplace_back();
    MPI_Imrecv(receive_data + m.offset, message_doubles(m.count, d), MPI_DOUBLE, &m.handle, &requests.back());
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  const auto receive_buffer = workspace.receive_buffer;
  if (staged && receive_doubles > 0)
    Kokkos::deep_copy(exec, used(receive_buffer, receive_doubles), used(workspace.receive_staging, receive_doubles));
  for (const auto& m : incoming.messages) {
    const std::uint64_t into = m.into, count = m.count;
    const std::size_t base = m.offset;
    Kokkos::parallel_for(
        "rsmc::rebalance_unpack", Kokkos::RangePolicy<Exec>(exec, 0, count), KOKKOS_LAMBDA(const std::size_t k) {
          for (int c = 0; c < d; ++c) scratch(into + k, c) = receive_buffer(base + c * count + k);
        });
  }
  store.swap_state();
  store.first_id = block_first;
  if (store.scratch.extent(0) != block_count) {  // the layout moved: the other arrays follow
    store.scratch = StateArray(uninitialised("rsmc::state_scratch"), block_count, d);
    store.log_weight = WeightArray(uninitialised("rsmc::log_weight"), block_count);
    store.scratch_log_weight = WeightArray(uninitialised("rsmc::log_weight_scratch"), block_count);
  }
  kernels::fill(exec, "rsmc::rebalance::reset_log_weight", store.log_weight, store.log_weight.extent(0), 0.0);
  exec.fence();

  ResampleStats stats;
  std::uint64_t local[4] = {plan.particles_sent(), plan.sends.size(),
                            selection.offspring > block_count ? selection.offspring - block_count : 0, 0};
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

template <class MemorySpace>
ResampleStats rebalance(MPI_Comm comm, const BlockDistribution& dist, ParticleStore<MemorySpace>& store,
                        const Selection& selection) {
  ResampleWorkspace<MemorySpace> workspace;
  return rebalance(comm, Layout(dist), store, selection, workspace);
}

// The layout after a selection: the band's targets when it is fixed (tau = 0: no communication),
// else choose_layout on every rank's offspring count (one allgather of p integers).
inline Layout next_layout(MPI_Comm comm, const LoadBand& band, const Selection& selection) {
  if (band.fixed()) return band.target_layout();
  std::vector<std::uint64_t> held(static_cast<std::size_t>(band.ranks()));
  std::uint64_t mine = selection.offspring;
  MPI_Allgather(&mine, 1, MPI_UINT64_T, held.data(), 1, MPI_UINT64_T, comm);
  return choose_layout(band, held);
}

// What one resampling with the roulette resampler needs besides the particles, and where its
// optional outputs go.
template <class MemorySpace>
struct RouletteRequest {
  double max_log_weight = 0.0;  // the maximum log-weight over all ranks (the fixed-point weights' scale)
  Scheme scheme = Scheme::systematic;
  // Resampler::roulette (the scalable selection) or Resampler::roulette_algorithm1 (the paper's
  // Algorithm 1; multinomial only).
  Resampler resampler = Resampler::roulette;
  LocalSampler sampler = LocalSampler::search;  // the scalable selection's local kernel
  std::uint64_t seed = 0;
  std::uint32_t step = 0;
  PhaseTimes* times = nullptr;  // optional: receives the select and rebalance times
  // Optional: keeps the buffers between calls; without one they are allocated per call.
  ResampleWorkspace<MemorySpace>* workspace = nullptr;
  // Optional: receives a copy of the selection (offspring counts of this rank's particles; the genealogy).
  Selection* selection_out = nullptr;
};

// The selection by the serial host code (selection.hpp): Algorithm 1 (every local sampler of the
// scalable selection runs as data-parallel kernels: select_in_parallel).
template <class MemorySpace>
Selection select_on_host(MPI_Comm comm, const LoadBand& band, ParticleStore<MemorySpace>& store,
                         const RouletteRequest<MemorySpace>& request, ResampleWorkspace<MemorySpace>& ws) {
  SelectionInputs in;
  in.wheel = wheel_share(compute_fixed_weights(store.log_weight, request.max_log_weight, ws), comm);
  in.fixed_weights = &ws.fixed_host;
  in.samples = band.size();
  in.seed = request.seed;
  in.step = request.step;
  in.sampler = request.sampler;
  in.counts_buffer = &ws.counts;
  return request.resampler == Resampler::roulette_algorithm1 ? select_algorithm1(in)
                                                             : select_offspring(request.scheme, in, comm);
}

// The selection as data-parallel kernels in the particles' execution space (parallel_selection.hpp):
// fixed-point weights and the wheel's chunk scan in one pass, then the ancestors straight into
// ws.ancestor (renumbering done). The per-particle counts are copied to the host only when the
// caller asks for the selection (the genealogy's trace); otherwise nothing proportional to the
// particles leaves the device.
template <class MemorySpace>
Selection select_in_parallel(MPI_Comm comm, const LoadBand& band, ParticleStore<MemorySpace>& store,
                             const RouletteRequest<MemorySpace>& request, ResampleWorkspace<MemorySpace>& ws) {
  using Exec = typename MemorySpace::execution_space;
  const Exec exec;
  const std::size_t n = store.log_weight.extent(0);
  ResampleWorkspace<MemorySpace>::reserve(ws.fixed, n, "rsmc::fixed_weight");
  const auto fixed = Kokkos::subview(ws.fixed, std::make_pair(std::size_t(0), n));
  // The filter's exps of this step, when it left them (same bits as computing them here).
  const Kokkos::View<const double*, MemorySpace> exps =
      ws.exp_weight.extent(0) >= n && n > 0 ? ws.exp_weight : Kokkos::View<const double*, MemorySpace>();
  ParallelSelectionOptions options;
  options.counts = request.selection_out != nullptr;
  const exact::u128 local =
      fixed_weights_and_wheel(exec, store.log_weight, request.max_log_weight, exps, fixed, ws.selection, options);
  options.wheel_scanned = true;
  ParallelSelectionInputs<MemorySpace> in;
  in.fixed_weights = fixed;
  in.wheel = wheel_share(local, comm);
  in.samples = band.size();
  in.seed = request.seed;
  in.step = request.step;
  in.scheme = request.scheme;
  in.sampler = request.sampler;
  const SelectionShareResult share = select_offspring_parallel(exec, in, comm, ws.selection, options);
  ws.ancestor = ws.selection.ancestor;
  Selection selection;
  selection.first_id = share.first_id;
  selection.offspring = share.offspring;
  if (options.counts) {
    selection.counts = std::move(ws.counts);
    selection.counts.resize(n);
    Kokkos::View<std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(
        selection.counts.data(), n);
    copy_and_fence(exec, host, Kokkos::subview(ws.selection.counts, std::make_pair(std::size_t(0), n)));
  }
  return selection;
}

// One resampling of `store` with the roulette resampler, as `request` says. `band` gives the counts
// each rank may end with; `layout` (in: the store's, out: the new one) follows the particles. Throws
// FieldError for a scheme the resampler does not implement.
template <class MemorySpace>
ResampleStats resample_roulette(MPI_Comm comm, const LoadBand& band, Layout& layout, ParticleStore<MemorySpace>& store,
                                const RouletteRequest<MemorySpace>& request) {
  check_scheme_for(request.resampler, request.scheme);
  if (request.resampler != Resampler::roulette && request.resampler != Resampler::roulette_algorithm1)
    throw FieldError("resampler", resampler_name(request.resampler), "is not a roulette resampler",
                     "{resampler roulette} or roulette-algorithm1");
  const bool algorithm1 = request.resampler == Resampler::roulette_algorithm1;
  ResampleWorkspace<MemorySpace> local_workspace;
  ResampleWorkspace<MemorySpace>& ws = request.workspace != nullptr ? *request.workspace : local_workspace;
  const bool parallel = !algorithm1;  // every scheme and local sampler of the scalable selection
  Selection selection;
  {
    ScopedPhase timed(request.times, Phase::select);
    selection =
        parallel ? select_in_parallel(comm, band, store, request, ws) : select_on_host(comm, band, store, request, ws);
  }
  ScopedPhase timed(request.times, Phase::rebalance);
  layout = next_layout(comm, band, selection);
  const ResampleStats stats =
      rebalance(comm, layout, store, selection, ws, parallel ? Renumbering::ancestors_given : Renumbering::from_counts);
  if (request.selection_out != nullptr) *request.selection_out = selection;  // a copy: the counts' buffer stays below
  ws.counts = std::move(selection.counts);                                   // its capacity serves the next call
  return stats;
}

// The same with the fixed block distribution (tau = 0, equal capacities).
template <class MemorySpace>
ResampleStats resample_roulette(MPI_Comm comm, const BlockDistribution& dist, ParticleStore<MemorySpace>& store,
                                const RouletteRequest<MemorySpace>& request) {
  Layout layout(dist);
  return resample_roulette(comm, LoadBand(dist.size(), dist.ranks()), layout, store, request);
}

}  // namespace rsmc
