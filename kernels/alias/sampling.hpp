// Drawing from an alias table in batches (portable Kokkos, on the execution space the caller passes,
// or the default one of the table's memory space).
//
// What the engine needs: "given the number of draws that land on this rank, draw them from the local
// alias table". Two methods, each with two outputs (counts per item, or one item per draw):
//
// - baseline (Walker): draw d is one Philox block of Stream(seed, resample, step, first_draw_id + d):
//   a uniform row (Stream::integer) and a uniform offset inside it. One thread per draw on devices;
//   on host execution spaces batches of 64 draws compute their rows first and prefetch them, so that
//   the table loads overlap (the same draws; the sectioned draws are batched the same way). This is
//   the engine's method: sample_draws(exec, table, seed, step, ancestors, {first_draw_id}) gives the
//   same ancestors on Serial, OpenMP (any thread count) and CUDA.
// - sectioned (Lehmann et al., "cached sectioned sampling"): the rows are cut into sections of
//   `section_rows`; the number of draws per section is generated without communication by binomial
//   splitting on a fixed tree (section_draws in alias_core.hpp: a pure function of (seed, step,
//   total_draws, rows, section_rows, section)); a team then draws its section's share from its rows
//   only, so its table reads stay in cache. Draw k of section s uses the stream
//   Stream(seed, resample, step, kSectionedDrawTag | (first_draw_id + offset_s + k)), offset_s = draws
//   of the sections before s, and draws from the section's rows uniformly (staged in team scratch
//   memory when that pays). Its per-draw output lists the draws section by section (offset_s + k),
//   not in a random order. NOT offered to the engine: the section tree's streams ignore first_draw_id,
//   so two ranks with the same (seed, step, draws, rows) would split their draws over sections
//   identically. It serves the benchmarks (rsmc bench kernels) and the CUDA kernels' tests.
//
// The counts of both methods are the histograms of their per-draw outputs. Results are a pure function
// of (table, total_draws, seed, step, options) on every backend (counts use atomic increments off the
// host's Serial space; integer sums do not depend on their order).
//
// Not p-invariant (docs/reproducibility.md): the caller keeps the ranks' streams apart through
// first_draw_id (e.g. the rank's first global draw index).
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <type_traits>

#include "base/core/host_or_device.hpp"
#include "kernels/alias/alias_table.hpp"
#include "kernels/fill.hpp"

namespace rsmc::kernels::alias {

struct AliasSampleOptions {
  std::uint64_t first_draw_id = 0;    // stream id offset of draw 0 (first_draw_id + draws < 2^62)
  std::uint64_t section_rows = 4096;  // sectioned sampling: rows per section
};

namespace sampling_detail {

// Both predicates are host-and-device functions: nvcc refuses (or, without -Werror, warns about) a
// host constexpr function called from device code.
template <class Exec>
KOKKOS_INLINE_FUNCTION constexpr bool needs_atomics() {
#if defined(KOKKOS_ENABLE_SERIAL)
  return !std::is_same<Exec, Kokkos::Serial>::value;
#else
  return true;
#endif
}

template <class Exec, class CountsView>
KOKKOS_INLINE_FUNCTION void count_one(const CountsView& counts, std::uint64_t item) {
  if constexpr (needs_atomics<Exec>())
    Kokkos::atomic_add(&counts(item), std::uint64_t{1});  // Kokkos 5 has no atomic_increment, 3.4 no atomic_inc
  else
    ++counts(item);
}

inline void check_draws(std::uint64_t n, std::uint64_t total_draws, const AliasSampleOptions& o) {
  if (n == 0) throw Error("alias sampling: the table is empty");
  if (o.first_draw_id > kDrawIdLimit || total_draws > kDrawIdLimit - o.first_draw_id)
    throw Error("alias sampling: first_draw_id + draws = " + std::to_string(o.first_draw_id) + " + " +
                std::to_string(total_draws) + "; expected at most 2^62");
}

template <class CountsView>
void check_counts(const CountsView& counts, std::uint64_t n) {
  static_assert(std::is_same<typename CountsView::non_const_value_type, std::uint64_t>::value,
                "alias sampling: counts per item are std::uint64_t");
  if (counts.extent(0) != n)
    throw Error("alias sampling: counts_per_item has " + std::to_string(counts.extent(0)) +
                " entries; expected one per table row (" + std::to_string(n) + ")");
}

// Per-section draw counts and their exclusive prefix sums (the draw offset of every section).
template <class Exec, class Space>
void section_plan(const Exec& exec, std::uint64_t n, std::uint64_t section_rows, std::uint64_t total_draws,
                  std::uint64_t seed, std::uint32_t step, Kokkos::View<std::uint64_t*, Space>& counts,
                  Kokkos::View<std::uint64_t*, Space>& offsets) {
  if (section_rows == 0) throw Error("alias sampling: section_rows = 0; expected at least 1");
  using policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::uint64_t>>;
  const std::uint64_t S = section_count_of(n, section_rows);
  counts = Kokkos::View<std::uint64_t*, Space>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("rsmc::alias section counts")), S);
  offsets = Kokkos::View<std::uint64_t*, Space>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("rsmc::alias section offsets")), S);
  const auto c = counts;
  const auto o = offsets;
  Kokkos::parallel_for(
      "rsmc::alias section counts", policy(exec, 0, S),
      KOKKOS_LAMBDA(std::uint64_t s) { c(s) = section_draws(seed, step, total_draws, n, section_rows, s); });
  std::uint64_t sum = 0;
  Kokkos::parallel_scan(
      "rsmc::alias section offsets", policy(exec, 0, S),
      KOKKOS_LAMBDA(std::uint64_t s, std::uint64_t & acc, bool final) {
        if (final) o(s) = acc;
        acc += c(s);
      },
      sum);
  if (sum != total_draws)
    throw Error("alias sampling: section counts sum to " + std::to_string(sum) + ", not " +
                std::to_string(total_draws) + " (internal error)");
}

// kBatch draws (or fewer: count) from rows[0..rows_count) (item first_row + row), draw k with the
// stream id id0 + k, handed to sink(item, position0 + k). Two passes: every draw's row and offset
// first (alias_draw_prepare, with a prefetch of the row on the host), then the choices, so that the
// table loads of a batch overlap instead of waiting one after another. Each item is alias_draw_at's,
// draw for draw. Host execution spaces use it for the baseline and the sectioned draws.
constexpr std::uint64_t kBatch = 64;

template <class Weight, class Sink>
KOKKOS_INLINE_FUNCTION void draw_batch(const AliasRow<Weight>* rows, std::uint64_t first_row, std::uint64_t rows_count,
                                       alias_value_t<Weight> cap, std::uint64_t seed, std::uint32_t step,
                                       std::uint64_t id0, std::uint64_t position0, std::uint64_t count,
                                       const Sink& sink) {
  std::uint64_t row[kBatch];
  alias_value_t<Weight> offset[kBatch];
  bool fast[kBatch];
  for (std::uint64_t k = 0; k < count; ++k) {
    row[k] = 0;
    fast[k] = alias_draw_prepare<Weight>(rows_count, cap, seed, step, id0 + k, row[k], offset[k]);
#if !defined(__CUDA_ARCH__) && defined(__GNUC__)
    __builtin_prefetch(rows + row[k]);
#endif
  }
  for (std::uint64_t k = 0; k < count; ++k)
    sink(fast[k] ? alias_choice<Weight>(rows[row[k]], first_row + row[k], offset[k])
                 : alias_draw_at<Weight>(rows, first_row, rows_count, cap, seed, step, id0 + k),
         position0 + k);
}

// One team's `count` draws of a sectioned batch from its section's rows (staged or in place), handed
// to sink(item, offset + k): batches of kBatch draws on host execution spaces, one thread per draw on
// devices (the same draws). A function of its own because nvcc refuses a device lambda (sectioned's
// kernel) whose captures first occur inside `if constexpr`.
template <class Exec, class Weight, class Member, class Sink>
KOKKOS_INLINE_FUNCTION void draw_section(const Member& team, const AliasRow<Weight>* section, std::uint64_t first_row,
                                         std::uint64_t len, std::uint64_t count, std::uint64_t offset,
                                         alias_value_t<Weight> cap, std::uint64_t seed, std::uint32_t step,
                                         std::uint64_t first_id, const Sink& sink) {
  if constexpr (runs_on_host<Exec>()) {
    const std::uint64_t batches = (count + kBatch - 1) / kBatch;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, batches), [&](std::uint64_t b) {
      const std::uint64_t k0 = b * kBatch;
      draw_batch<Weight>(section, first_row, len, cap, seed, step, kSectionedDrawTag | (first_id + offset + k0),
                         offset + k0, count - k0 < kBatch ? count - k0 : kBatch, sink);
    });
  } else {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](std::uint64_t k) {
      sink(sectioned_draw<Weight>(section, first_row, len, cap, seed, step, first_id + offset + k), offset + k);
    });
  }
}

// What a team of a sectioned batch draws from: section `index`'s rows (first_row, len), staged in
// scratch (level `level`, room for `staged_rows`) when that pays, i.e. the section has at least an
// eighth as many draws as rows, else read in place (the same rows either way); its draw count and the
// draws of the sections before it.
template <class Row>
struct TeamSection {
  std::uint64_t first_row, len, count, offset;
  const Row* rows;
};

template <class ScratchRows, class Member, class RowsView, class CountsView>
KOKKOS_INLINE_FUNCTION TeamSection<typename RowsView::non_const_value_type> team_section(
    const Member& team, const RowsView& rows, const CountsView& counts, const CountsView& offsets,
    std::uint64_t section_rows, int level, std::uint64_t staged_rows) {
  const std::uint64_t s = static_cast<std::uint64_t>(team.league_rank());
  const std::uint64_t n = rows.extent(0), first_row = s * section_rows;
  TeamSection<typename RowsView::non_const_value_type> t{
      first_row, n - first_row < section_rows ? n - first_row : section_rows, counts(s), offsets(s), nullptr};
  t.rows = rows.data() + first_row;
  if (level < 0 || t.count < t.len / 8) return t;
  ScratchRows staged(team.team_scratch(level), staged_rows);
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, t.len), [&](std::uint64_t r) { staged(r) = rows(first_row + r); });
  team.team_barrier();
  t.rows = staged.data();
  return t;
}

// Runs sink(item, draw position) for every draw of a sectioned batch. A team stages its section's
// rows in scratch memory first (level 0 when they fit: GPU shared memory; on host backends level 1,
// which keeps them in cache) when the section has enough draws to pay for the copy (at least an
// eighth of its rows); the draws are the same either way.
template <class Exec, class Weight, class Space, class Sink>
void sectioned(const Exec& exec, const AliasTable<Weight, Space>& table, std::uint64_t total_draws, std::uint64_t seed,
               std::uint32_t step, const AliasSampleOptions& options, const Sink& sink) {
  using team_policy = Kokkos::TeamPolicy<Exec>;
  using member_type = typename team_policy::member_type;
  using scratch_rows = Kokkos::View<AliasRow<Weight>*, typename Exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const std::uint64_t n = table.size();
  Kokkos::View<std::uint64_t*, Space> counts, offsets;
  section_plan(exec, n, options.section_rows, total_draws, seed, step, counts, offsets);
  const std::uint64_t S = counts.extent(0), R = options.section_rows, first_id = options.first_draw_id;
  const auto rows = table.rows;
  const alias_value_t<Weight> cap = table.capacity;
  const std::uint64_t rows_staged = R < n ? R : n;
  const std::size_t bytes = scratch_rows::shmem_size(rows_staged);
  int level = -1;
  if (bytes <= static_cast<std::size_t>(team_policy::scratch_size_max(0)))
    level = 0;
  else if (runs_on_host<Exec>() && bytes <= static_cast<std::size_t>(team_policy::scratch_size_max(1)))
    level = 1;
  team_policy policy(exec, static_cast<int>(S), Kokkos::AUTO);
  if (level >= 0) policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
  Kokkos::parallel_for(
      "rsmc::alias sectioned", policy, KOKKOS_LAMBDA(const member_type& team) {
        const auto t = team_section<scratch_rows>(team, rows, counts, offsets, R, level, rows_staged);
        draw_section<Exec, Weight>(team, t.rows, t.first_row, t.len, t.count, t.offset, cap, seed, step, first_id,
                                   sink);
      });
}

// Runs sink(item, d) for every baseline draw d < total_draws: one thread per draw on devices, batches
// of kBatch draws (draw_batch) on host execution spaces; the draws are the same.
template <class Exec, class Weight, class Space, class Sink>
void baseline(const Exec& exec, const AliasTable<Weight, Space>& table, std::uint64_t total_draws, std::uint64_t seed,
              std::uint32_t step, const AliasSampleOptions& options, const Sink& sink) {
  using policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::uint64_t>>;
  const std::uint64_t n = table.size(), first_id = options.first_draw_id;
  const auto rows = table.rows;
  const alias_value_t<Weight> cap = table.capacity;
  if constexpr (runs_on_host<Exec>()) {
    const std::uint64_t batches = (total_draws + kBatch - 1) / kBatch;
    Kokkos::parallel_for(
        "rsmc::alias baseline", policy(exec, 0, batches), KOKKOS_LAMBDA(std::uint64_t b) {
          const std::uint64_t d0 = b * kBatch;
          const std::uint64_t count = total_draws - d0 < kBatch ? total_draws - d0 : kBatch;
          draw_batch<Weight>(rows.data(), 0, n, cap, seed, step, first_id + d0, d0, count, sink);
        });
  } else {
    Kokkos::parallel_for(
        "rsmc::alias baseline", policy(exec, 0, total_draws), KOKKOS_LAMBDA(std::uint64_t d) {
          sink(baseline_draw<Weight>(rows.data(), n, cap, seed, step, first_id + d), d);
        });
  }
}

template <class Exec, class CountsView>
struct CountSink {
  CountsView counts;
  KOKKOS_INLINE_FUNCTION void operator()(std::uint64_t item, std::uint64_t) const { count_one<Exec>(counts, item); }
};

template <class DrawsView>
struct DrawSink {
  DrawsView draws;
  KOKKOS_INLINE_FUNCTION void operator()(std::uint64_t item, std::uint64_t position) const { draws(position) = item; }
};

template <class Weight, class Space>
using default_exec_t = typename AliasTable<Weight, Space>::rows_view::execution_space;

}  // namespace sampling_detail

// Baseline: counts_per_item(i) = how many of `total_draws` draws chose item i (overwritten); draw d
// uses the stream (seed, resample, step, first_draw_id + d). Runs on exec.
template <class Exec, class Weight, class Space, class CountsView>
void sample_counts(const Exec& exec, const AliasTable<Weight, Space>& table, std::uint64_t total_draws,
                   std::uint64_t seed, std::uint32_t step, const CountsView& counts_per_item,
                   const AliasSampleOptions& options = {}) {
  const std::uint64_t n = table.size();
  sampling_detail::check_draws(n, total_draws, options);
  sampling_detail::check_counts(counts_per_item, n);
  kernels::fill(exec, "rsmc::alias counts", counts_per_item, n, std::uint64_t{0});  // a kernel: see kernels/fill.hpp
  sampling_detail::baseline(exec, table, total_draws, seed, step, options,
                            sampling_detail::CountSink<Exec, CountsView>{counts_per_item});
}

// Baseline: draws(d) = the item of draw d, for d < draws.extent(0), draw d with the stream
// (seed, resample, step, first_draw_id + d): the engine's ancestors. Runs on exec; the same items on
// every backend and for any thread count.
template <class Exec, class Weight, class Space, class DrawsView>
void sample_draws(const Exec& exec, const AliasTable<Weight, Space>& table, std::uint64_t seed, std::uint32_t step,
                  const DrawsView& draws, const AliasSampleOptions& options = {}) {
  const std::uint64_t n = table.size(), total = draws.extent(0);
  sampling_detail::check_draws(n, total, options);
  sampling_detail::baseline(exec, table, total, seed, step, options, sampling_detail::DrawSink<DrawsView>{draws});
}

// Sectioned: counts_per_item(i) = how many of `total_draws` draws chose item i (overwritten).
template <class Exec, class Weight, class Space, class CountsView>
void sample_counts_sectioned(const Exec& exec, const AliasTable<Weight, Space>& table, std::uint64_t total_draws,
                             std::uint64_t seed, std::uint32_t step, const CountsView& counts_per_item,
                             const AliasSampleOptions& options = {}) {
  const std::uint64_t n = table.size();
  sampling_detail::check_draws(n, total_draws, options);
  sampling_detail::check_counts(counts_per_item, n);
  kernels::fill(exec, "rsmc::alias counts", counts_per_item, n, std::uint64_t{0});  // a kernel: see kernels/fill.hpp
  sampling_detail::sectioned(exec, table, total_draws, seed, step, options,
                             sampling_detail::CountSink<Exec, CountsView>{counts_per_item});
}

// Sectioned: draws(offset_s + k) = the item of draw k of section s (grouped by section).
template <class Exec, class Weight, class Space, class DrawsView>
void sample_draws_sectioned(const Exec& exec, const AliasTable<Weight, Space>& table, std::uint64_t seed,
                            std::uint32_t step, const DrawsView& draws, const AliasSampleOptions& options = {}) {
  const std::uint64_t n = table.size(), total = draws.extent(0);
  sampling_detail::check_draws(n, total, options);
  sampling_detail::sectioned(exec, table, total, seed, step, options, sampling_detail::DrawSink<DrawsView>{draws});
}

// The same four on the default execution space of the table's memory space.
template <class Weight, class Space, class CountsView>
void sample_counts(const AliasTable<Weight, Space>& table, std::uint64_t total_draws, std::uint64_t seed,
                   std::uint32_t step, const CountsView& counts_per_item, const AliasSampleOptions& options = {}) {
  sample_counts(sampling_detail::default_exec_t<Weight, Space>(), table, total_draws, seed, step, counts_per_item,
                options);
}

template <class Weight, class Space, class DrawsView>
void sample_draws(const AliasTable<Weight, Space>& table, std::uint64_t seed, std::uint32_t step,
                  const DrawsView& draws, const AliasSampleOptions& options = {}) {
  sample_draws(sampling_detail::default_exec_t<Weight, Space>(), table, seed, step, draws, options);
}

template <class Weight, class Space, class CountsView>
void sample_counts_sectioned(const AliasTable<Weight, Space>& table, std::uint64_t total_draws, std::uint64_t seed,
                             std::uint32_t step, const CountsView& counts_per_item,
                             const AliasSampleOptions& options = {}) {
  sample_counts_sectioned(sampling_detail::default_exec_t<Weight, Space>(), table, total_draws, seed, step,
                          counts_per_item, options);
}

template <class Weight, class Space, class DrawsView>
void sample_draws_sectioned(const AliasTable<Weight, Space>& table, std::uint64_t seed, std::uint32_t step,
                            const DrawsView& draws, const AliasSampleOptions& options = {}) {
  sample_draws_sectioned(sampling_detail::default_exec_t<Weight, Space>(), table, seed, step, draws, options);
}

}  // namespace rsmc::kernels::alias
