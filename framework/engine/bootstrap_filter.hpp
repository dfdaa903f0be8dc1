// The bootstrap particle filter, distributed over the ranks of an MPI communicator.
//
// One step t (every rank, on its block of particles):
//   propagate x_i ~ transition(x_i) with the PROPAGATE stream of (step t, global id i)
//   log-weight += log_likelihood(y_t | x_i)            (skipped when y_t is missing; a NaN or +inf
//                                                       log-likelihood: FilterOptions::invalid_likelihood)
//   reductions: max log-weight, then in one pass the sum of weights, ESS, log-likelihood increment,
//               mean and variance (reproducible binned sums, exact::BinnedSum) of the weights
//               exp(log-weight - shift), shift the maximum or the model's bound (weight_shift)
//   if ESS < threshold * N: resample (all weights equal afterwards); by default with the distributed
//   roulette resampler (framework/resample/roulette_resampler.hpp), systematic scheme
// Random draws are keyed by global particle id and step, and every sum is reproducible (BinnedSum:
// the same bits for any order and split of its terms), so every number the filter reports is bitwise
// identical for any number of ranks and threads.
//
// step() is one plain loop of named phases, each a function that takes what the phase before it
// handed over and returns a struct for the next (Weighing, Reduction); the data-parallel kernel of
// each phase is in step_kernels.hpp. What lives on between steps is the filter's state (the
// particles, the log of the total weight, the maximum log-weight, the moments' reference point) and
// buffers that are only reused. A model with a log_likelihood_bound lets a host backend weigh and sum
// the weights in one pass (step_kernels::weigh_and_sum), with the same bits as the separate kernels.
//
// The filter duplicates the communicator it is given (framework/parallel/communicator.hpp), so that
// it can run inside another MPI program, beside other filters on the same ranks.
#pragma once

#include <Kokkos_Core.hpp>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/core/error.hpp"
#include "base/core/instance_copy.hpp"
#include "base/exact/binned_reduce.hpp"
#include "base/exact/moments.hpp"
#include "base/math/math.hpp"
#include "base/rng/stream.hpp"
#include "kernels/fill.hpp"
#include "framework/engine/filter_options.hpp"
#include "framework/engine/filter_result.hpp"
#include "framework/engine/run_progress.hpp"
#include "framework/engine/step_kernels.hpp"
#include "framework/engine/step_observer.hpp"
#include "framework/model/model_traits.hpp"
#include "framework/model/observations.hpp"
#include "framework/parallel/binned_sum_mpi.hpp"
#include "framework/parallel/communicator.hpp"
#include "framework/parallel/mpi.hpp"
#include "framework/parallel/phase_times.hpp"
#include "framework/particles/block_distribution.hpp"
#include "framework/particles/layout.hpp"
#include "framework/particles/load_band.hpp"
#include "framework/particles/particle_store.hpp"
#include "framework/resample/baselines/allgather_resampler.hpp"
#include "framework/resample/baselines/gather_root_resampler.hpp"
#include "framework/resample/roulette_resampler.hpp"
#include "framework/resample/shifted_weights.hpp"

namespace rsmc {

template <class Model, class ExecutionSpace = Kokkos::DefaultExecutionSpace>
class BootstrapFilter {
  static_assert(check_filter_model<Model>(), "BootstrapFilter<Model>: Model is not a model (see the messages above)");

 public:
  using memory_space = typename ExecutionSpace::memory_space;

  // A filter on the ranks of `comm`, which it duplicates (collectively; freed with the filter): its
  // messages never meet the caller's, nor another filter's on the same ranks.
  BootstrapFilter(MPI_Comm comm, Model model, const FilterOptions& options)
      : BootstrapFilter(std::optional<Communicator>(std::in_place, comm), MPI_COMM_NULL, std::move(model), options) {}
  // A filter on `comm` itself, a communicator of rsmc's own that outlives it: for a long-lived owner
  // of many short filters (a pmmh run's likelihood estimates), which duplicates once for all of them.
  BootstrapFilter(const Communicator& comm, Model model, const FilterOptions& options)
      : BootstrapFilter(std::nullopt, comm.get(), std::move(model), options) {}

  // Which global ids each rank holds now: the band's targets (the block distribution by default)
  // until a roulette resampling with a tolerance moves it.
  const Layout& layout() const { return layout_; }
  const ParticleStore<memory_space>& particles() const { return store_; }

  // Draws x_0 ~ initial for every particle; all weights equal.
  void initialise() {
    step_kernels::initialise_states<ExecutionSpace>(model_, store_.state, store_.first_id, options_.seed);
    kernels::fill<ExecutionSpace>("rsmc::initialise::log_weight", store_.log_weight, store_.size(), 0.0);
    ExecutionSpace().fence();
    log_total_weight_ = math::log(static_cast<double>(band_.size()));
    known_max_log_weight_ = 0.0;
    set_moment_reference(nullptr);
  }

  // Advances the filter to step t (1-based) with observation y_t (nullptr or all-NaN: missing): the
  // phases in order, each handed what the one before returned.
  StepSummary step(int t, const double* y_t) {
    if (t < 1) throw Error("filter step must be >= 1, got " + std::to_string(t));
    const std::optional<double> bound_shift = y_t != nullptr ? shift_from_bound(t, y_t) : std::nullopt;
    {
      ScopedPhase timed(&times_, Phase::propagate);
      propagate(t);
    }
    std::optional<Weighing> weighing;  // none at a step without an observation
    if (y_t != nullptr) {
      ScopedPhase timed(&times_, Phase::weight);
      weighing = weigh(t, y_t, bound_shift);
    }
    const std::uint64_t invalid = weighing ? weighing->invalid : 0;
    Reduction reduced;
    try {
      ScopedPhase timed(&times_, Phase::reduce);
      reduced = reduce(t, std::move(weighing), bound_shift);
    } catch (const DegenerateError& e) {
      // Undo the step (the previous states are in scratch, the previous weights in
      // scratch_log_weight): the filter is back at step t - 1, the last good one.
      known_max_log_weight_.reset();
      store_.swap_state();
      if (y_t != nullptr) store_.swap_log_weight();
      if (invalid == 0) throw;
      throw DegenerateError(
          std::string(e.what()) + " (" + std::to_string(invalid) + " of them had a NaN or +inf log-likelihood)", t);
    }
    // The filter's state after the step's weights: what the next step starts from.
    known_max_log_weight_ = reduced.max_log_weight;
    set_moment_reference(reduced.summary.mean.data());
    StepSummary summary = std::move(reduced.summary);
    summary.invalid_likelihoods = invalid;
    summary.log_likelihood_increment = reduced.log_total - log_total_weight_;
    log_total_weight_ = reduced.log_total;
    if (observer_ != nullptr && observer_->wants_cloud(t)) {
      ScopedPhase timed(&times_, Phase::io);
      report_cloud(*observer_, t, store_);
    }
    if (summary.ess < options_.ess_threshold * static_cast<double>(band_.size())) {
      summary.resample_stats = resample(static_cast<std::uint32_t>(t), reduced.weights);
      summary.resampled = true;
      log_total_weight_ = math::log(static_cast<double>(band_.size()));
      known_max_log_weight_ = 0.0;  // every resampler resets the log-weights to 0
    }
    summary.imbalance = band_.imbalance(layout_);
    return summary;
  }

  // Runs steps 1..steps of `observations` (or all of them when steps <= 0) from a fresh start.
  FilterResult run(const Observations& observations, int steps = 0) {
    if (steps <= 0) steps = observations.steps;
    check_observations(observations, steps);
    RunProgress progress = start();
    while (progress.step < steps) advance(progress, observations);
    return finish(progress);
  }

  // The pieces of run(), for drivers that checkpoint between steps:
  //   start()                 initialises the particles; progress at step 0
  //   advance(progress, y)    filters step progress.step + 1 and records it in progress
  //   finish(progress)        the result of the steps so far, with the exact log-likelihood
  // A run restored from a checkpoint loads the particles into particles_mut(), then calls
  // resume(progress) and continues with advance().
  RunProgress start() {
    initialise();
    RunProgress progress;
    progress.log_total_weight = log_total_weight_;
    progress.log_likelihood.clear();
    progress.result.state_dim = model_.state_dim();
    return progress;
  }

  void advance(RunProgress& progress, const Observations& observations) {
    const int t = progress.step + 1;
    check_observations(observations, t);
    if (progress.log_total_weight != log_total_weight_)
      throw Error("internal error: advance() was given the progress of another run (call resume() first)");
    const StepSummary s = step(t, observations.missing(t) ? nullptr : observations.row(t));
    progress.result.append(s);
    progress.log_likelihood.add(s.log_likelihood_increment);
    progress.log_total_weight = log_total_weight_;
    progress.step = t;
  }

  // Collective: the phase times are the maxima over the ranks.
  FilterResult finish(const RunProgress& progress) const {
    FilterResult result = progress.result;
    result.log_likelihood = progress.log_likelihood.to_double();
    result.phase_seconds = times_.max_over(comm_).seconds;
    return result;
  }

  // Wall time per phase on this rank since construction (drivers add their I/O to Phase::io).
  PhaseTimes& phase_times() { return times_; }

  // Continues from a checkpoint: the particles must already be in particles_mut().
  void resume(const RunProgress& progress) {
    if (progress.result.state_dim != model_.state_dim() || progress.result.steps != progress.step)
      throw Error("internal error: resume() was given an inconsistent run progress");
    log_total_weight_ = progress.log_total_weight;
    known_max_log_weight_.reset();  // found from the restored log-weights when needed
    const int d = model_.state_dim();
    set_moment_reference(progress.step > 0 ? progress.result.mean.data() + (progress.step - 1) * d : nullptr);
  }

  ParticleStore<memory_space>& particles_mut() { return store_; }

  // Installs (nullptr: removes) an observer of every step's weighted cloud and resampling (not
  // owned; must outlive the steps). The baseline resamplers do not report their selection.
  void set_observer(StepObserver* observer) {
    if (observer != nullptr) check_records_genealogy(options_.resampler);
    observer_ = observer;
  }

 private:
  BootstrapFilter(std::optional<Communicator> owned, MPI_Comm borrowed, Model model, const FilterOptions& options)
      : own_comm_(std::move(owned)),
        comm_(own_comm_ ? own_comm_->get() : borrowed),
        model_(std::move(model)),
        options_(validated(options, comm_)),
        band_(options.particles, comm_size(comm_), options.balance),
        layout_(band_.target_layout()) {
    MPI_Comm_rank(comm_, &rank_);
    store_ = ParticleStore<memory_space>(layout_.count(rank_), model_.state_dim(), layout_.first(rank_));
    observation_ = Kokkos::View<double*, memory_space>("rsmc::observation", model_.obs_dim());
    reference_ = Kokkos::View<double*, memory_space>("rsmc::moment_reference", model_.state_dim());
    reference_host_ = Kokkos::create_mirror_view(reference_);
    mean_ = Kokkos::View<double*, memory_space>("rsmc::mean", model_.state_dim());
    mean_host_ = Kokkos::create_mirror_view(mean_);
    weight_ = Kokkos::View<double*, memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::weight"),
                                                  store_.size());
  }

  // What the weighing phase hands the reduction.
  struct Weighing {
    std::uint64_t invalid = 0;     // NaN or +inf log-likelihoods, all ranks (count_invalid)
    double local_max = -HUGE_VAL;  // this rank's largest new log-weight (-DBL_MAX: none above it)
    // With the fused pass (weigh_and_sum): this rank's moment sums, relative to sums_shift (the
    // model's bound). The reduction keeps them when it chooses the same shift (weight_shift).
    std::optional<double> sums_shift;
    std::vector<exact::BinnedSum> sums;
  };

  // What the reduction hands on: the step's summary and its weights.
  struct Reduction {
    StepSummary summary;                   // ESS, filtered mean and variance (the rest is filled in by step())
    double max_log_weight = 0.0;           // over all ranks
    double log_total = 0.0;                // log of the sum of all weights: shift + log(sum of w)
    ShiftedWeights<memory_space> weights;  // w = exp(log-weight - shift), this rank's (in weight_)
  };

  void check_observations(const Observations& observations, int steps) const {
    if (steps > observations.steps)
      throw Error("requested " + std::to_string(steps) + " steps but the data has only " +
                  std::to_string(observations.steps));
    if (observations.dim != model_.obs_dim())
      throw Error("observations have " + std::to_string(observations.dim) + " components but model " + Model::name +
                  " expects " + std::to_string(model_.obs_dim()));
  }

  // `options` once FilterOptions::validate has accepted them for the ranks of `comm` (before the
  // block distribution is made of them).
  static const FilterOptions& validated(const FilterOptions& options, MPI_Comm comm) {
    options.validate(comm_size(comm));
    return options;
  }

  static int comm_size(MPI_Comm comm) {
    int p = 0;
    MPI_Comm_size(comm, &p);
    return p;
  }

  // Resamples with the configured resampler, the step's weights as the reduction left them;
  // afterwards all weights are equal.
  ResampleStats resample(std::uint32_t step, const ShiftedWeights<memory_space>& weights) {
    switch (options_.resampler) {
      case Resampler::roulette:
      case Resampler::roulette_algorithm1: {
        Selection selection;  // the genealogy, for the observer
        const std::uint64_t first_id = store_.first_id;
        RouletteRequest<memory_space> request;
        request.weights = weights;
        request.scheme = options_.scheme;
        request.resampler = options_.resampler;
        request.sampler = options_.local_sampler;
        request.seed = options_.seed;
        request.step = step;
        request.times = &times_;
        request.workspace = &resample_workspace_;
        request.selection_out = observer_ != nullptr ? &selection : nullptr;
        const ResampleStats stats = resample_roulette(comm_, band_, layout_, store_, request);
        if (weight_.extent(0) != store_.size())  // the layout moved: so does the weight buffer
          weight_ = Kokkos::View<double*, memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::weight"),
                                                        store_.size());
        if (observer_ != nullptr) {
          ScopedPhase timed(&times_, Phase::io);
          observer_->resampled(static_cast<int>(step), first_id, selection);
        }
        return stats;
      }
      case Resampler::allgather:
      case Resampler::gather_root: {  // baselines: selection and movement are one phase here
        ScopedPhase timed(&times_, Phase::rebalance);
        const double u = rng::Stream(options_.seed, rng::Purpose::resample, step, 0).uniform();
        const BlockDistribution blocks(band_.size(), band_.ranks());  // FilterOptions::validate keeps them
        return options_.resampler == Resampler::allgather
                   ? resample_allgather(comm_, blocks, store_, weights.shift, u)
                   : resample_gather_root(comm_, blocks, store_, weights.shift, u);
      }
    }
    throw Error("unknown resampler");
  }

  void propagate(int t) {
    step_kernels::propagate_states<ExecutionSpace>(model_, store_.state, store_.scratch, t, store_.first_id,
                                                   options_.seed);
    store_.swap_state();
  }

  // Adds log p(y_t | x_i) to every log-weight: in one pass with the moment sums when their shift is
  // known ahead (the model's bound) and the backend fuses passes, otherwise alone. Particles with a
  // NaN or +inf log-likelihood get log-weight -inf under InvalidLikelihood::zero_weight; otherwise the
  // step fails (count_invalid).
  Weighing weigh(int t, const double* y_host, const std::optional<double>& bound_shift) {
    upload_observation(y_host);
    if constexpr (step_kernels::fuses_passes<ExecutionSpace>()) {
      if (bound_shift) return weigh_and_sum(t, *bound_shift);
    }
    const step_kernels::WeightingOutcome outcome = step_kernels::weight_particles<ExecutionSpace>(
        model_, store_.state, observation_, store_.log_weight, store_.scratch_log_weight, zero_weight(), t);
    store_.swap_log_weight();  // the previous weights stay in scratch_log_weight until the next step
    Weighing w;
    w.invalid = count_invalid(outcome.invalid, t);
    w.local_max = outcome.local_max;
    return w;
  }

  // weigh() and this rank's moment sums relative to `shift` in one pass (step_kernels::weigh_and_sum).
  Weighing weigh_and_sum(int t, double shift) {
    copy_and_fence(ExecutionSpace(), reference_, reference_host_);
    Weighing w;
    w.sums = cleared_sums();
    const step_kernels::WeightingOutcome outcome = step_kernels::weigh_and_sum<ExecutionSpace>(
        model_, store_.state, observation_, store_.log_weight, store_.scratch_log_weight, zero_weight(), t, shift,
        reference_, weight_, batch_outcome_, moment_workspace_, w.sums.data());
    store_.swap_log_weight();  // the previous weights stay in scratch_log_weight until the next step
    w.invalid = count_invalid(outcome.invalid, t);
    w.local_max = outcome.local_max;
    w.sums_shift = shift;
    return w;
  }

  bool zero_weight() const { return options_.invalid_likelihood == InvalidLikelihood::zero_weight; }

  void upload_observation(const double* y_host) {
    auto y_mirror = Kokkos::create_mirror_view(observation_);
    for (int j = 0; j < model_.obs_dim(); ++j) y_mirror(j) = y_host[j];
    copy_and_fence(ExecutionSpace(), observation_, y_mirror);
  }

  // The invalid log-likelihoods of all ranks (local: this rank's). Unless they get weight zero, a
  // step with any fails with an Error naming the lowest such global id (the minimum over ranks, so
  // also rank-count independent).
  std::uint64_t count_invalid(std::uint64_t local, int t) {
    std::uint64_t invalid = local;
    MPI_Allreduce(MPI_IN_PLACE, &invalid, 1, MPI_UINT64_T, MPI_SUM, comm_);
    if (invalid > 0 && !zero_weight())
      throw FieldError(
          "invalid_likelihood", "error",
          FieldError::Template{std::string("model ") + Model::name +
                               ": log_likelihood is NaN or +inf at "
                               "step " +
                               std::to_string(t) + " for global particle id " + std::to_string(lowest_invalid_id()) +
                               " (" + std::to_string(invalid) + " particle" + (invalid == 1 ? "" : "s") +
                               " in all; {invalid_likelihood zero-weight} gives them weight zero instead)"},
          "{invalid_likelihood zero-weight}");
    return invalid;
  }

  // The shift of step t's weights that the model's log_likelihood_bound offers: the largest log-weight
  // before the step plus the bound for y_t, plus a slack for the rounding of both sums (a violated
  // bound costs only speed: weight_shift). nullopt when the model has no bound or it is not finite
  // for y_t. The same on every rank: all inputs are.
  std::optional<double> shift_from_bound(int t, const double* y_host) {
    if constexpr (has_log_likelihood_bound_v<Model>) {
      const double bound = model_.log_likelihood_bound(ObservationView{y_host, 1}, t);
      if (!(bound < HUGE_VAL && bound > -HUGE_VAL)) return std::nullopt;
      const double shift = previous_max_log_weight() + bound;
      const double padded = shift + kBoundSlack * (1.0 + std::fabs(shift));
      if (!(padded < HUGE_VAL && padded > -HUGE_VAL)) return std::nullopt;
      return padded;
    } else {
      (void)t;
      (void)y_host;
      return std::nullopt;
    }
  }
  static constexpr double kBoundSlack = 0x1p-40;

  // The largest log-weight over all ranks before this step's weighing: known after a step, a
  // resampling or initialise; found (collectively) after resume().
  double previous_max_log_weight() {
    if (!known_max_log_weight_) {
      double m = step_kernels::max_log_weight<ExecutionSpace>(store_.log_weight);
      MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, comm_);
      known_max_log_weight_ = m;
    }
    return *known_max_log_weight_;
  }

  // The shift of a step's weights w = exp(log-weight - shift), which the moments and the resampling
  // wheel (the fixed-point weights) are relative to: the model's bound (shift_from_bound) when it
  // holds and lies within kMaxBoundGap of the maximum log-weight max_lw, otherwise max_lw. Within the
  // gap the largest fixed-point weight keeps at least 2^64 e^-8 > 2^52, a double's precision. Every
  // input is the same on every rank, thread count and backend, so is the choice; a model without a
  // bound always has shift = max_lw.
  static constexpr double kMaxBoundGap = 8.0;
  static double weight_shift(double max_lw, const std::optional<double>& bound_shift) {
    if (bound_shift && max_lw <= *bound_shift && max_lw >= *bound_shift - kMaxBoundGap) return *bound_shift;
    return max_lw;
  }

  // The lowest global id, over all ranks, whose log-weight is NaN or +inf. After weight() in error
  // mode these are exactly the particles with a NaN or +inf log-likelihood: earlier log-weights are
  // finite or -inf, and finite or -inf plus a finite or -inf log-likelihood stays finite or -inf.
  std::uint64_t lowest_invalid_id() const {
    std::uint64_t lowest = step_kernels::lowest_invalid_id<ExecutionSpace>(store_.log_weight, store_.first_id);
    MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_UINT64_T, MPI_MIN, comm_);
    return lowest;
  }

  // Reproducible reductions over all particles of all ranks: the maximum log-weight (from weighing's
  // local maxima, or found here at a step without an observation: a maximum is exact, so the same
  // whichever kernel finds it), the shift of the weights (weight_shift), the moment sums (weighing's
  // when they are relative to that shift, else a pass of their own), ESS, the log of the total
  // weight, mean and variance. Throws DegenerateError when every weight is zero.
  Reduction reduce(int t, std::optional<Weighing> weighing, const std::optional<double>& bound_shift) {
    const int d = store_.state_dim();
    double max_lw = weighing ? weighing->local_max : step_kernels::max_log_weight<ExecutionSpace>(store_.log_weight);
    MPI_Allreduce(MPI_IN_PLACE, &max_lw, 1, MPI_DOUBLE, MPI_MAX, comm_);
    // Kokkos::Max starts from the lowest finite double, not -inf: a rank (or all) with only -inf
    // log-weights reports -DBL_MAX. No real log-weight is that small, so both mean "all zero".
    if (!(max_lw > -DBL_MAX))
      throw DegenerateError("filter degenerate at step " + std::to_string(t) + ": every particle has zero weight", t);
    const double shift = weight_shift(max_lw, bound_shift);

    // One pass: sum w, sum w^2, sum w dx_c, sum w dx_c^2 with dx = x - k, k the previous step's mean
    // (w relative to the shift, so w <= 1). The w are kept in weight_ for the fixed-point weights of
    // resampling: one exp per particle.
    std::vector<exact::BinnedSum> sums =
        weighing && weighing->sums_shift == shift ? std::move(weighing->sums) : moment_sums(shift);
    exact::allreduce_binned(sums.data(), 2 + 2 * d, comm_);
    const double total = sums[0].to_double();
    const double total_sq = sums[1].to_double();
    Reduction r;
    r.max_log_weight = max_lw;
    r.log_total = shift + math::log(total);
    r.weights.shift = shift;
    r.weights.exp_weight = weight_;
    StepSummary& s = r.summary;
    s.ess = total * total / total_sq;
    s.mean.resize(d);
    s.variance.resize(d);
    const exact::DoubleDouble s0 = sums[0].to_double_double();
    bool second_pass = false;
    for (int c = 0; c < d; ++c) {
      const exact::WeightedMoments m = exact::one_pass_moments(reference_host_(c), s0, sums[2 + c].to_double_double(),
                                                               sums[2 + d + c].to_double_double());
      s.mean[c] = m.mean;
      s.variance[c] = m.variance;
      second_pass |= !one_pass_variance_is_accurate(m.mean - reference_host_(c), m.variance);
    }
    if (second_pass) variance_about_mean(total, s);
    return r;
  }

  // This rank's moment sums relative to `shift` (step_kernels::moment_sums), the weights into weight_.
  std::vector<exact::BinnedSum> moment_sums(double shift) {
    copy_and_fence(ExecutionSpace(), reference_, reference_host_);
    std::vector<exact::BinnedSum> sums = cleared_sums();
    step_kernels::moment_sums<ExecutionSpace>(store_.log_weight, store_.state, shift, reference_, weight_,
                                              moment_workspace_, sums.data());
    return sums;
  }

  // Cleared sums for this model's moments.
  std::vector<exact::BinnedSum> cleared_sums() const {
    std::vector<exact::BinnedSum> sums(step_kernels::moment_sum_count(model_.state_dim()));
    for (auto& sum : sums) sum.clear();
    return sums;
  }

  // The one-pass variance loses the digits that (mean - k)^2 / variance cancels (each term
  // w (x - k)^2 is rounded, relative 2^-53, and the rounding errors are amplified by 1 + that ratio).
  // Up to kMaxShiftRatio it stays within a small multiple of the two-pass form's rounding; beyond
  // (a model whose mean moves many standard deviations in one step, such as Lorenz-96 with precise
  // observations, or a variance of 0), the step takes a second pass. Both inputs are the same on
  // every rank, so every rank decides alike.
  static constexpr double kMaxShiftRatio = 4.0;
  static bool one_pass_variance_is_accurate(double shift, double variance) {
    return shift * shift <= kMaxShiftRatio * variance;
  }

  // s.variance = sum w (x - mean)^2 / total over all ranks: the second pass.
  void variance_about_mean(double total, StepSummary& s) {
    const int d = store_.state_dim();
    for (int c = 0; c < d; ++c) mean_host_(c) = s.mean[c];
    copy_and_fence(ExecutionSpace(), mean_, mean_host_);
    std::vector<exact::BinnedSum> sq(d);
    for (auto& sum : sq) sum.clear();
    step_kernels::variance_sums<ExecutionSpace>(weight_, store_.state, mean_, variance_workspace_, sq.data());
    exact::allreduce_binned(sq.data(), d, comm_);
    for (int c = 0; c < d; ++c) s.variance[c] = sq[c].to_double() / total;
  }

  // The reference point k of the next step's one-pass moments (step_kernels::moment_sums): the
  // filtered mean of the last step (nullptr: none yet, k = 0). A component that is not finite gives
  // 0, so that one bad step cannot poison the sums of the next. A pure function of the reported
  // means, so every rank, and a run restarted from a checkpoint, uses the same k.
  void set_moment_reference(const double* mean) {
    for (int c = 0; c < model_.state_dim(); ++c) {
      const double m = mean != nullptr ? mean[c] : 0.0;
      reference_host_(c) = m - m == 0.0 ? m : 0.0;
    }
  }

  std::optional<Communicator> own_comm_;  // the duplicate this filter made, unless it borrows one
  MPI_Comm comm_;                         // own_comm_'s, or the one borrowed
  Model model_;
  FilterOptions options_;
  LoadBand band_;  // the counts each rank may hold
  Layout layout_;  // the ids each rank holds now
  int rank_ = 0;
  ParticleStore<memory_space> store_;
  Kokkos::View<double*, memory_space> observation_;  // y_t on the device
  Kokkos::View<double*, memory_space> reference_;    // the moments' reference point k on the device
  typename Kokkos::View<double*, memory_space>::HostMirror reference_host_;  // ... and on the host
  Kokkos::View<double*, memory_space> mean_;  // the filtered mean on the device (second pass)
  typename Kokkos::View<double*, memory_space>::HostMirror mean_host_;
  exact::BinnedReduceWorkspace<memory_space> moment_workspace_;    // moment_sums' chunk sums, kept between steps
  exact::BinnedReduceWorkspace<memory_space> variance_workspace_;  // variance_sums' (another shape)
  Kokkos::View<step_kernels::WeightingOutcome*, memory_space> batch_outcome_;  // weigh_and_sum's, kept
  Kokkos::View<double*, memory_space> weight_;  // where the step's w = exp(log-weight - shift) go (Reduction::weights)
  ResampleWorkspace<memory_space> resample_workspace_;  // resampling buffers, kept between steps
  // The filter's state between steps (step() updates it from what the phases return):
  std::optional<double> known_max_log_weight_;  // the global maximum log-weight now, when known
  double log_total_weight_ = 0.0;               // log of the sum of all weights after the previous step
  PhaseTimes times_;
  StepObserver* observer_ = nullptr;  // set_observer
};

}  // namespace rsmc
