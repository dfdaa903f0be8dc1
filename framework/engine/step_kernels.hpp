// The data-parallel kernels of one filter step: each is one Kokkos kernel over a rank's particles in
// ExecutionSpace, a free function of views, a model and plain values. BootstrapFilter
// (bootstrap_filter.hpp) calls them in order and does the MPI between them.
//
// Free functions rather than members of BootstrapFilter for two reasons: nvcc refuses extended
// (__host__ __device__) lambdas inside private member functions, and a phase that is a function of
// its inputs alone can be read, tested and timed on its own. Device code here uses no
// std::numeric_limits (its members are host-only constexpr functions to nvcc unless
// --expt-relaxed-constexpr is given): HUGE_VAL is +inf and DBL_MAX the largest finite double.
#pragma once

#include <Kokkos_Core.hpp>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "base/core/host_or_device.hpp"
#include "base/core/portability.hpp"
#include "base/exact/binned_reduce.hpp"
#include "base/math/math.hpp"
#include "base/rng/batch_draws.hpp"
#include "base/rng/counter_stream.hpp"
#include "framework/model/model_traits.hpp"
#include "framework/model/state_view.hpp"
#include "framework/particles/particle_store.hpp"

namespace rsmc::step_kernels {

template <class ExecutionSpace>
using Particles = Kokkos::RangePolicy<ExecutionSpace>;

// Particles per thread of the per-particle kernels (propagate, weight): on a host backend a batch of
// 256, whose intermediate values (2 KiB per double) stay in L1 between the loops over it and whose
// straight-line model code the compiler vectorises; on a GPU one particle per thread.
template <class ExecutionSpace>
constexpr std::size_t particle_batch() {
  return runs_on_host<ExecutionSpace>() ? 256 : 1;
}

// Whether a step weighs and sums its weights in one pass when their shift is known ahead
// (weigh_and_sum): where exact::reduce_binned goes by batches (a host backend), a batch then stays in
// L1; on a GPU the separate kernels keep one thread per particle. The results have the same bits
// either way.
template <class ExecutionSpace>
constexpr bool fuses_passes() {
  return exact::reduces_by_batches<ExecutionSpace>();
}

// The first and one-past-last particle of batch b of n.
struct BatchRange {
  std::size_t begin, end;
};
KOKKOS_INLINE_FUNCTION BatchRange batch_range(std::size_t b, std::size_t batch, std::size_t n) {
  const std::size_t begin = b * batch;
  return {begin, n - begin > batch ? begin + batch : n};
}

// Normal pairs computed ahead per particle of a propagate batch: the model's transition_normals hint
// (model_traits.hpp) rounded up to pairs, at most kMaxPregeneratedPairs (the rest come from the
// stream as it goes; 4 pairs x 256 particles = 16 KiB on the stack). None on a GPU: there a thread
// computes its own particle's normals.
constexpr int kMaxPregeneratedPairs = 4;
template <class ExecutionSpace, class Model>
constexpr std::uint32_t pregenerated_pairs() {
  constexpr int pairs = (transition_normals_v<Model> + 1) / 2;
  if (particle_batch<ExecutionSpace>() == 1 || pairs <= 0) return 0;
  return static_cast<std::uint32_t>(pairs < kMaxPregeneratedPairs ? pairs : kMaxPregeneratedPairs);
}

// x_0 ~ model.initial for each particle, with the INITIALISE stream of (global id first + i).
template <class ExecutionSpace, class Model, class StateView>
void initialise_states(const Model& model, const StateView& state, std::uint64_t first, std::uint64_t seed) {
  Kokkos::parallel_for(
      "rsmc::initialise", Particles<ExecutionSpace>(0, state.extent(0)), KOKKOS_LAMBDA(const std::size_t i) {
        rng::ModelStream stream(seed, rng::Purpose::initialise, 0, first + i);
        model.initial(particle_state(state, i), stream);
      });
}

// model.transition for the particles [range.begin, range.end), with their PROPAGATE streams; the
// first 2 Pairs normals of every stream computed ahead for the whole batch by the SIMD Philox
// (rng::generate_normals). The streams return those, so the bits do not depend on Pairs.
template <std::uint32_t Pairs, std::size_t Batch, class Model, class StateView>
RSMC_FLATTEN KOKKOS_INLINE_FUNCTION void propagate_batch(const Model& model, const StateView& from, const StateView& to,
                                                         int t, std::uint64_t first, std::uint64_t seed,
                                                         BatchRange range) {
  const auto step = static_cast<std::uint32_t>(t);
  if constexpr (Pairs > 0) {
    alignas(64) double z[2 * Pairs * Batch];
    const auto count = static_cast<std::uint32_t>(range.end - range.begin);
    rng::generate_normals(rng::stream_key(seed, rng::Purpose::propagate), step, first + range.begin, count, Pairs,
                          Batch, z);
    const rng::PregeneratedNormals ahead{z, 2 * Pairs, Batch};
    for (std::size_t i = range.begin; i < range.end; ++i) {
      rng::ModelStream stream(seed, rng::Purpose::propagate, step, first + i, ahead,
                              static_cast<std::uint32_t>(i - range.begin));
      model.transition(particle_state_const(from, i), particle_state(to, i), t, stream);
    }
  } else {
    for (std::size_t i = range.begin; i < range.end; ++i) {
      rng::ModelStream stream(seed, rng::Purpose::propagate, step, first + i);
      model.transition(particle_state_const(from, i), particle_state(to, i), t, stream);
    }
  }
}

// to_i ~ model.transition(from_i) at step t, with the PROPAGATE stream of (step t, global id first + i),
// in batches of particle_batch().
template <class ExecutionSpace, class Model, class StateView>
void propagate_states(const Model& model, const StateView& from, const StateView& to, int t, std::uint64_t first,
                      std::uint64_t seed) {
  constexpr std::size_t batch = particle_batch<ExecutionSpace>();
  constexpr std::uint32_t pairs = pregenerated_pairs<ExecutionSpace, Model>();
  const std::size_t n = from.extent(0);
  Kokkos::parallel_for(
      "rsmc::propagate", Particles<ExecutionSpace>(0, (n + batch - 1) / batch), KOKKOS_LAMBDA(const std::size_t b) {
        propagate_batch<pairs, batch>(model, from, to, t, first, seed, batch_range(b, batch, n));
      });
}

// next_i = model.log_likelihood(x_i, y, t) for the particles of `range`: a loop of straight-line
// model code (inlined by RSMC_FLATTEN) that the compiler can vectorise across particles.
template <class Model, class StateView, class WeightView>
RSMC_FLATTEN KOKKOS_INLINE_FUNCTION void log_likelihoods_batch(const Model& model, const StateView& state,
                                                               ObservationView y, const WeightView& next, int t,
                                                               BatchRange range) {
  for (std::size_t i = range.begin; i < range.end; ++i)
    next(i) = model.log_likelihood(particle_state_const(state, i), y, t);
}

// A weight relative to `shift`, exp(log_weight - shift): 0 for a log-weight that is NaN or +inf (an
// invalid log-likelihood; the step fails on it unless it gets weight zero) and for -inf. A select
// after the exp rather than a branch, so that loops over particles vectorise. rsmc::math::exp: the
// same bits on host and device, and the exp that exact::fixed_weight uses (resampling reuses w).
KOKKOS_INLINE_FUNCTION double shifted_weight(double log_weight, double shift) {
  const double w = math::exp(log_weight - shift);
  return log_weight < HUGE_VAL ? w : 0.0;
}

// What weighting found on this rank: how many log-likelihoods were NaN or +inf, and the largest new
// log-weight (-DBL_MAX when there is none above it: Kokkos::Max starts from the lowest finite double).
struct WeightingOutcome {
  std::uint64_t invalid = 0;
  double local_max = -HUGE_VAL;
};

// The largest of x[0 .. n) (-inf for n = 0; NaN never wins): eight independent running maxima, so
// that the comparisons pipeline (GCC does not vectorise a max reduction written as a select).
RSMC_VECTOR_INLINE double batch_max(const double* __restrict x, std::size_t n) {
  constexpr int kLanes = 8;
  double lane[kLanes];
  for (int l = 0; l < kLanes; ++l) lane[l] = -HUGE_VAL;
  std::size_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int l = 0; l < kLanes; ++l) lane[l] = x[j + l] > lane[l] ? x[j + l] : lane[l];
  for (; j < n; ++j) lane[0] = x[j] > lane[0] ? x[j] : lane[0];
  double m = lane[0];
  for (int l = 1; l < kLanes; ++l) m = lane[l] > m ? lane[l] : m;
  return m;
}

// next[j] = log_weight[j] + next[j] for j < n, next holding the log-likelihoods: a NaN or +inf one is
// counted, and gives -inf when zero_weight. Returns the count and the largest result. Restrict
// pointers and a loop of its own without the maximum, so that GCC vectorises it (it does not over
// View accesses inside a kernel's lambda, nor a loop with a max reduction written as a select).
RSMC_VECTOR_INLINE WeightingOutcome add_log_likelihoods(const double* __restrict log_weight, double* __restrict next,
                                                        std::size_t n, bool zero_weight) {
  std::uint64_t invalid = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const double ll = next[j];
    const bool bad = !(ll < HUGE_VAL);  // NaN or +inf
    invalid += bad ? 1 : 0;
    next[j] = bad && zero_weight ? -HUGE_VAL : log_weight[j] + ll;
  }
  return {invalid, batch_max(next, n)};
}

// weight[j] = terms[j] = shifted_weight(log_weight[j], shift) for j < n.
RSMC_VECTOR_INLINE void shifted_weights(const double* __restrict log_weight, double shift, std::size_t n,
                                        double* __restrict weight, double* __restrict terms) {
  for (std::size_t j = 0; j < n; ++j) {
    const double w = shifted_weight(log_weight[j], shift);
    weight[j] = w;
    terms[j] = w;
  }
}

// next_i = log_weight_i + log p(y_t | x_i); a NaN or +inf log-likelihood is counted, and gives
// next_i = -inf when zero_weight (otherwise the caller fails the step). Per batch of particles, two
// loops: the log-likelihoods alone into next (log_likelihoods_batch), then the sums, the checks and
// the maximum (add_log_likelihoods). The same values as one loop.
template <class ExecutionSpace, class Model, class StateView, class WeightView, class ObservationDeviceView>
WeightingOutcome weight_particles(const Model& model, const StateView& state, const ObservationDeviceView& y,
                                  const WeightView& log_weight, const WeightView& next_log_weight, bool zero_weight,
                                  int t) {
  WeightingOutcome out;
  constexpr std::size_t batch = particle_batch<ExecutionSpace>();
  const std::size_t n = state.extent(0);
  Kokkos::parallel_reduce(
      "rsmc::weight", Particles<ExecutionSpace>(0, (n + batch - 1) / batch),
      KOKKOS_LAMBDA(const std::size_t b, std::uint64_t& count, double& m) {
        const BatchRange range = batch_range(b, batch, n);
        log_likelihoods_batch(model, state, ObservationView{y.data(), 1}, next_log_weight, t, range);
        const WeightingOutcome out = add_log_likelihoods(&log_weight(range.begin), &next_log_weight(range.begin),
                                                         range.end - range.begin, zero_weight);
        count += out.invalid;
        if (out.local_max > m) m = out.local_max;
      },
      Kokkos::Sum<std::uint64_t>(out.invalid), Kokkos::Max<double>(out.local_max));
  return out;
}

// The lowest global id (first + i) whose log-weight is NaN or +inf; the largest uint64 when none is.
template <class ExecutionSpace, class WeightView>
std::uint64_t lowest_invalid_id(const WeightView& log_weight, std::uint64_t first) {
  std::uint64_t lowest = ~std::uint64_t{0};
  Kokkos::parallel_reduce(
      "rsmc::lowest_invalid_id", Particles<ExecutionSpace>(0, log_weight.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i, std::uint64_t& low) {
        if (!(log_weight(i) < HUGE_VAL) && first + i < low) low = first + i;
      },
      Kokkos::Min<std::uint64_t>(lowest));
  return lowest;
}

// The largest log-weight of this rank (-DBL_MAX when all are -inf or there are none).
template <class ExecutionSpace, class WeightView>
double max_log_weight(const WeightView& log_weight) {
  double max_lw = -HUGE_VAL;
  Kokkos::parallel_reduce(
      "rsmc::max_log_weight", Particles<ExecutionSpace>(0, log_weight.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i, double& m) {
        if (log_weight(i) > m) m = log_weight(i);
      },
      Kokkos::Max<double>(max_lw));
  return max_lw;
}

// terms[j] = w_j (x_j - k), or w_j (x_j - k)^2 when squared, for j < n. A zero weight adds nothing,
// and its state may be inf or NaN (a model that failed there): 0 * inf would make the sum NaN, so
// such a term is 0, by a select rather than a branch. Restrict pointers in a function of its own:
// GCC does not vectorise the same loop over View accesses inside the kernel's lambda.
RSMC_VECTOR_INLINE void deviation_terms(const double* __restrict w, const double* __restrict x, double k, bool squared,
                                        std::size_t n, double* __restrict terms) {
  if (squared) {
    for (std::size_t j = 0; j < n; ++j) {
      const double dx = w[j] > 0.0 ? x[j] - k : 0.0;
      terms[j] = w[j] * dx * dx;
    }
  } else {
    for (std::size_t j = 0; j < n; ++j) terms[j] = w[j] > 0.0 ? w[j] * (x[j] - k) : 0.0;
  }
}

// Sum `sum` >= 1 of moment_sums for the particles [begin, begin + n), whose weights are already in
// weight: w^2, w (x_c - k_c) or w (x_c - k_c)^2 (d components).
template <class StateView, class WeightView, class ReferenceView>
KOKKOS_INLINE_FUNCTION void moment_terms(int sum, const WeightView& weight, const StateView& state,
                                         const ReferenceView& k, std::size_t begin, std::size_t n, double* terms) {
  const int d = static_cast<int>(state.extent(1));
  if (sum == 1) {
    for (std::size_t j = 0; j < n; ++j) terms[j] = weight(begin + j) * weight(begin + j);
  } else {
    const int c = (sum - 2) % d;
    // state is LayoutLeft: component c of the batch is contiguous
    deviation_terms(&weight(begin), &state(begin, c), k(c), sum >= 2 + d, n, terms);
  }
}

// The number of sums moment_sums and weigh_and_sum fill for a d-dimensional state.
constexpr int moment_sum_count(int d) { return 2 + 2 * d; }

// The sums of one step's moments, in one pass, reproducibly (exact::BinnedSum): with
// w_i = exp(log_weight_i - shift) (shifted_weight; shift >= every log-weight, so w <= 1; kept in
// weight for resampling) and dx = x_c - k_c,
//   sums[0] = sum w,  sums[1] = sum w^2,  sums[2 + c] = sum w dx,  sums[2 + d + c] = sum w dx^2,
// d = state.extent(1). k is a reference point known before the pass and the same on every rank (the
// filter's previous mean): about it, mean and variance follow from these sums without a second pass
// and without cancellation (exact::one_pass_moments).
template <class ExecutionSpace, class StateView, class WeightView, class ReferenceView>
void moment_sums(const WeightView& log_weight, const StateView& state, double shift, const ReferenceView& k,
                 const WeightView& weight,
                 exact::BinnedReduceWorkspace<typename ExecutionSpace::memory_space>& workspace,
                 exact::BinnedSum* sums) {
  exact::reduce_binned<ExecutionSpace>(
      "rsmc::moment_sums", log_weight.extent(0), moment_sum_count(static_cast<int>(state.extent(1))),
      KOKKOS_LAMBDA(const int sum, const std::size_t begin, const std::size_t end, double* terms) {
        if (sum == 0) {  // the weights themselves, computed here: sum 0 comes first for every batch
          shifted_weights(&log_weight(begin), shift, end - begin, &weight(begin), terms);
        } else {
          moment_terms(sum, weight, state, k, begin, end - begin, terms);
        }
      },
      workspace, sums);
}

// weight_particles and moment_sums as one pass over the particles, for a step whose shift of the
// weights is known before they are weighed (the model's log_likelihood_bound; BootstrapFilter::
// weight_shift): each batch of 256 particles is weighed and summed while it is in L1.
// next_log_weight and the returned outcome as weight_particles gives them; weight and sums as
// moment_sums(next_log_weight, state, shift, k) gives them: the same bits as those two kernels, which
// a GPU runs instead (there one thread per particle beats one per chunk). batch_outcome: each batch's
// count and maximum (grown to the number of batches when smaller; kept between steps by the caller).
// Propagate stays a kernel of its own: inside this pass it measured 2 ns per particle slower (SV,
// docs/design/vectorised-step.md).
template <class ExecutionSpace, class Model, class StateView, class WeightView, class ObservationDeviceView,
          class ReferenceView>
WeightingOutcome weigh_and_sum(const Model& model, const StateView& state, const ObservationDeviceView& y,
                               const WeightView& log_weight, const WeightView& next_log_weight, bool zero_weight, int t,
                               double shift, const ReferenceView& k, const WeightView& weight,
                               Kokkos::View<WeightingOutcome*, typename ExecutionSpace::memory_space>& batch_outcome,
                               exact::BinnedReduceWorkspace<typename ExecutionSpace::memory_space>& workspace,
                               exact::BinnedSum* sums) {
  // Each batch's outcome goes to outcomes(begin / batch), which needs fill(0, begin, end) called once
  // per batch of kBatch: reduce_binned's batch path. Its team path (devices) cuts other ranges.
  static_assert(fuses_passes<ExecutionSpace>(),
                "step_kernels::weigh_and_sum runs only where exact::reduce_binned goes by batches (a host "
                "backend); elsewhere the step runs weight_particles and moment_sums (fuses_passes)");
  constexpr std::size_t batch = exact::binned_reduce_detail::kBatch;  // the batches of fill(0, ...)
  const std::size_t n = state.extent(0), batches = (n + batch - 1) / batch;
  if (batch_outcome.extent(0) < batches)
    batch_outcome = std::remove_reference_t<decltype(batch_outcome)>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::batch_outcome"), batches);
  const auto outcomes = batch_outcome;
  exact::reduce_binned<ExecutionSpace>(
      "rsmc::weigh_and_sum", n, moment_sum_count(static_cast<int>(state.extent(1))),
      KOKKOS_LAMBDA(const int sum, const std::size_t begin, const std::size_t end, double* terms) {
        if (sum != 0) return moment_terms(sum, weight, state, k, begin, end - begin, terms);
        // sum 0 comes first for every batch: the batch's log-weights and weights
        log_likelihoods_batch(model, state, ObservationView{y.data(), 1}, next_log_weight, t, BatchRange{begin, end});
        outcomes(begin / batch) =
            add_log_likelihoods(&log_weight(begin), &next_log_weight(begin), end - begin, zero_weight);
        shifted_weights(&next_log_weight(begin), shift, end - begin, &weight(begin), terms);
      },
      workspace, sums);
  WeightingOutcome total;
  Kokkos::parallel_reduce(
      "rsmc::weigh_and_sum::outcome", Kokkos::RangePolicy<ExecutionSpace>(0, batches),
      KOKKOS_LAMBDA(const std::size_t b, std::uint64_t& count, double& m) {
        count += outcomes(b).invalid;
        if (outcomes(b).local_max > m) m = outcomes(b).local_max;
      },
      Kokkos::Sum<std::uint64_t>(total.invalid), Kokkos::Max<double>(total.local_max));
  return total;
}

// The second pass, for a step whose mean moved too far from the reference point for the one-pass
// variance to keep its digits (BootstrapFilter::reduce decides): sums[c] = sum w (x_c - mean_c)^2,
// the numerically safe form, with the w of moment_sums.
template <class ExecutionSpace, class StateView, class WeightView, class MeanView>
void variance_sums(const WeightView& weight, const StateView& state, const MeanView& mean,
                   exact::BinnedReduceWorkspace<typename ExecutionSpace::memory_space>& workspace,
                   exact::BinnedSum* sums) {
  exact::reduce_binned<ExecutionSpace>(
      "rsmc::variance_sums", weight.extent(0), static_cast<int>(state.extent(1)),
      KOKKOS_LAMBDA(const int c, const std::size_t begin, const std::size_t end, double* terms) {
        deviation_terms(&weight(begin), &state(begin, c), mean(c), true, end - begin, terms);
      },
      workspace, sums);
}

}  // namespace rsmc::step_kernels
