// The bootstrap particle filter, distributed over the ranks of an MPI communicator.
//
// One step t (every rank, on its block of particles):
//   propagate x_i ~ transition(x_i) with the PROPAGATE stream of (step t, global id i)
//   log-weight += log_likelihood(y_t | x_i)            (skipped when y_t is missing; a NaN or +inf
//                                                       log-likelihood: FilterOptions::invalid_likelihood)
//   exact reductions: max log-weight, sum of weights, ESS, log-likelihood increment, moments
//   if ESS < threshold * N: resample (all weights equal afterwards); by default with the distributed
//   roulette resampler (framework/resample/roulette_resampler.hpp), systematic scheme
// Random draws are keyed by global particle id and step, and every sum is exact (ExactSum), so
// every number the filter reports is bitwise identical for any number of ranks.
#pragma once

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "framework/parallel/phase_times.hpp"
#include "framework/engine/filter_options.hpp"
#include "framework/engine/filter_result.hpp"
#include "framework/engine/run_progress.hpp"
#include "framework/engine/step_observer.hpp"
#include "base/exact/exact_reduce.hpp"
#include "framework/parallel/exact_sum_mpi.hpp"
#include "framework/model/model_traits.hpp"
#include "framework/model/observations.hpp"
#include "framework/particles/block_distribution.hpp"
#include "framework/particles/layout.hpp"
#include "framework/particles/load_band.hpp"
#include "framework/particles/particle_store.hpp"
#include "framework/resample/allgather_resampler.hpp"
#include "framework/resample/gather_root_resampler.hpp"
#include "framework/resample/roulette_resampler.hpp"
#include "base/rng/stream.hpp"

namespace rsmc {

template <class Model, class ExecutionSpace = Kokkos::DefaultExecutionSpace>
class BootstrapFilter {
  static_assert(check_filter_model<Model>(), "BootstrapFilter<Model>: Model is not a model (see the messages above)");

 public:
  using memory_space = typename ExecutionSpace::memory_space;

  BootstrapFilter(MPI_Comm comm, Model model, const FilterOptions& options)
      : comm_(comm),
        model_(std::move(model)),
        options_(options),
        band_(options.particles, comm_size(comm), options.balance),
        layout_(band_.target_layout()) {
    options_.validate();
    MPI_Comm_rank(comm_, &rank_);
    store_ = ParticleStore<memory_space>(layout_.count(rank_), model_.state_dim(), layout_.first(rank_));
    observation_ = Kokkos::View<double*, memory_space>("rsmc::observation", model_.obs_dim());
    mean_ = Kokkos::View<double*, memory_space>("rsmc::mean", model_.state_dim());
    weight_ = Kokkos::View<double*, memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::weight"),
                                                  store_.size());
    resample_workspace_.exp_weight = weight_;
  }

  // Which global ids each rank holds now: the band's targets (the block distribution by default)
  // until a roulette resampling with a tolerance moves it.
  const Layout& layout() const { return layout_; }
  const ParticleStore<memory_space>& particles() const { return store_; }

  // Draws x_0 ~ initial for every particle; all weights equal.
  void initialise() {
    auto state = store_.state;
    const Model model = model_;
    const std::uint64_t first = store_.first_id, seed = options_.seed;
    Kokkos::parallel_for(
        "rsmc::initialise", Kokkos::RangePolicy<ExecutionSpace>(0, store_.size()), KOKKOS_LAMBDA(const std::size_t i) {
          rng::Stream stream(seed, rng::Purpose::initialise, 0, first + i);
          model.initial(particle_state(state, i), stream);
        });
    Kokkos::deep_copy(store_.log_weight, 0.0);
    log_total_weight_ = std::log(static_cast<double>(band_.size()));
  }

  // Advances the filter to step t (1-based) with observation y_t (nullptr or all-NaN: missing).
  StepSummary step(int t, const double* y_t) {
    if (t < 1) throw Error("filter step must be >= 1, got " + std::to_string(t));
    {
      ScopedPhase timed(&times_, Phase::propagate);
      propagate(t);
    }
    std::uint64_t invalid = 0;
    std::optional<double> local_max;  // this rank's maximum log-weight, when weight() ran
    if (y_t != nullptr) {
      ScopedPhase timed(&times_, Phase::weight);
      local_max.emplace();
      invalid = weight(t, y_t, *local_max);
    }
    double log_total = 0.0;
    StepSummary summary;
    try {
      ScopedPhase timed(&times_, Phase::reduce);
      summary = summarise(t, log_total, local_max);
    } catch (const DegenerateError& e) {
      // Undo the step (the previous states are in scratch, the previous weights in
      // scratch_log_weight): the filter is back at step t - 1, the last good one.
      store_.swap_state();
      if (y_t != nullptr) store_.swap_log_weight();
      if (invalid == 0) throw;
      throw DegenerateError(std::string(e.what()) + " (" + std::to_string(invalid) +
                                " of them had a NaN or +inf log-likelihood)",
                            t);
    }
    summary.invalid_likelihoods = invalid;
    summary.log_likelihood_increment = log_total - log_total_weight_;
    log_total_weight_ = log_total;
    if (observer_ != nullptr && observer_->wants_cloud(t)) {
      ScopedPhase timed(&times_, Phase::io);
      report_cloud(*observer_, t, store_);
    }
    if (summary.ess < options_.ess_threshold * static_cast<double>(band_.size())) {
      summary.resample_stats = resample(static_cast<std::uint32_t>(t));
      summary.resampled = true;
      log_total_weight_ = std::log(static_cast<double>(band_.size()));
    }
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
  }

  ParticleStore<memory_space>& particles_mut() { return store_; }

  // Installs (nullptr: removes) an observer of every step's weighted cloud and resampling (not
  // owned; must outlive the steps). The baseline resamplers do not report their selection.
  void set_observer(StepObserver* observer) {
    if (observer != nullptr && options_.resampler != Resampler::roulette &&
        options_.resampler != Resampler::roulette_algorithm1)
      throw Error(std::string("--resampler ") + resampler_name(options_.resampler) +
                  " does not record the genealogy of its resamplings; use --resampler roulette or "
                  "roulette-algorithm1 with a trace");
    observer_ = observer;
  }

 private:
  void check_observations(const Observations& observations, int steps) const {
    if (steps > observations.steps)
      throw Error("requested " + std::to_string(steps) + " steps but the data has only " +
                  std::to_string(observations.steps));
    if (observations.dim != model_.obs_dim())
      throw Error("observations have " + std::to_string(observations.dim) + " components but model " + Model::name +
                  " expects " + std::to_string(model_.obs_dim()));
  }

  static int comm_size(MPI_Comm comm) {
    int p = 0;
    MPI_Comm_size(comm, &p);
    return p;
  }

  // Resamples with the configured resampler; afterwards all weights are equal.
  ResampleStats resample(std::uint32_t step) {
    switch (options_.resampler) {
      case Resampler::roulette:
      case Resampler::roulette_algorithm1: {
        Selection selection;  // the genealogy, for the observer
        const std::uint64_t first_id = store_.first_id;
        const ResampleStats stats = resample_roulette(
            comm_, band_, layout_, store_, max_log_weight_, options_.scheme, options_.resampler == Resampler::roulette_algorithm1,
            options_.seed, step, options_.local_sampler, &times_, &resample_workspace_,
            observer_ != nullptr ? &selection : nullptr);
        if (weight_.extent(0) != store_.size()) {  // the layout moved: so does the weight buffer
          weight_ = Kokkos::View<double*, memory_space>(
              Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsmc::weight"), store_.size());
          resample_workspace_.exp_weight = weight_;
        }
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
                   ? resample_allgather(comm_, blocks, store_, max_log_weight_, u)
                   : resample_gather_root(comm_, blocks, store_, max_log_weight_, u);
      }
    }
    throw Error("unknown resampler");
  }

  void propagate(int t) {
    auto from = store_.state;
    auto to = store_.scratch;
    const Model model = model_;
    const std::uint64_t first = store_.first_id, seed = options_.seed;
    const auto step = static_cast<std::uint32_t>(t);
    Kokkos::parallel_for(
        "rsmc::propagate", Kokkos::RangePolicy<ExecutionSpace>(0, store_.size()), KOKKOS_LAMBDA(const std::size_t i) {
          rng::Stream stream(seed, rng::Purpose::propagate, step, first + i);
          model.transition(particle_state_const(from, i), particle_state(to, i), t, stream);
        });
    store_.swap_state();
  }

  // Adds log p(y_t | x_i) to every log-weight. Returns how many particles of all ranks had a NaN or
  // +inf log-likelihood (an exact integer: the same for any number of ranks). Those particles get
  // log-weight -inf under InvalidLikelihood::zero_weight; otherwise the step fails with an Error
  // naming the lowest such global id (the minimum over ranks, so also rank-count independent).
  // local_max receives this rank's maximum new log-weight (one read of them less in summarise).
  std::uint64_t weight(int t, const double* y_host, double& local_max) {
    const int m = model_.obs_dim();
    auto y = observation_;
    auto y_mirror = Kokkos::create_mirror_view(y);
    for (int j = 0; j < m; ++j) y_mirror(j) = y_host[j];
    Kokkos::deep_copy(y, y_mirror);

    auto state = store_.state;
    auto log_weight = store_.log_weight;
    auto next_log_weight = store_.scratch_log_weight;
    const Model model = model_;
    const bool zero_weight = options_.invalid_likelihood == InvalidLikelihood::zero_weight;
    std::uint64_t invalid = 0;
    local_max = -std::numeric_limits<double>::infinity();
    Kokkos::parallel_reduce(
        "rsmc::weight", Kokkos::RangePolicy<ExecutionSpace>(0, store_.size()),
        KOKKOS_LAMBDA(const std::size_t i, std::uint64_t& count, double& m) {
          const double ll = model.log_likelihood(particle_state_const(state, i), ObservationView{y.data(), 1}, t);
          const bool bad = !(ll < std::numeric_limits<double>::infinity());  // NaN or +inf
          if (bad) ++count;
          const double lw = bad && zero_weight ? -std::numeric_limits<double>::infinity() : log_weight(i) + ll;
          next_log_weight(i) = lw;
          if (lw > m) m = lw;
        },
        Kokkos::Sum<std::uint64_t>(invalid), Kokkos::Max<double>(local_max));
    store_.swap_log_weight();  // the previous weights stay in scratch_log_weight until the next step
    MPI_Allreduce(MPI_IN_PLACE, &invalid, 1, MPI_UINT64_T, MPI_SUM, comm_);
    if (invalid > 0 && !zero_weight)
      throw Error(std::string("model ") + Model::name + ": log_likelihood is NaN or +inf at step " + std::to_string(t) +
                  " for global particle id " + std::to_string(lowest_invalid_id()) + " (" + std::to_string(invalid) +
                  " particle" + (invalid == 1 ? "" : "s") +
                  " in all; --invalid-likelihood zero-weight gives them weight zero instead)");
    return invalid;
  }

  // The lowest global id, over all ranks, whose log-weight is NaN or +inf. After weight() in error
  // mode these are exactly the particles with a NaN or +inf log-likelihood: earlier log-weights are
  // finite or -inf, and finite or -inf plus a finite or -inf log-likelihood stays finite or -inf.
  std::uint64_t lowest_invalid_id() const {
    auto log_weight = store_.log_weight;
    const std::uint64_t first = store_.first_id;
    std::uint64_t lowest = std::numeric_limits<std::uint64_t>::max();
    Kokkos::parallel_reduce(
        "rsmc::lowest_invalid_id", Kokkos::RangePolicy<ExecutionSpace>(0, store_.size()),
        KOKKOS_LAMBDA(const std::size_t i, std::uint64_t& low) {
          if (!(log_weight(i) < std::numeric_limits<double>::infinity()) && first + i < low) low = first + i;
        },
        Kokkos::Min<std::uint64_t>(lowest));
    MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_UINT64_T, MPI_MIN, comm_);
    return lowest;
  }

  // Exact reductions over all particles of all ranks; log_total receives log(sum of weights).
  // local_max: this rank's maximum log-weight when weight() found it (a maximum is exact, so the
  // same whichever kernel finds it); otherwise (a step without an observation) it is found here.
  StepSummary summarise(int t, double& log_total, const std::optional<double>& local_max) {
    auto log_weight = store_.log_weight;
    auto state = store_.state;
    const int d = store_.state_dim();
    double max_lw = -std::numeric_limits<double>::infinity();
    if (local_max) {
      max_lw = *local_max;
    } else {
      Kokkos::parallel_reduce(
          "rsmc::max_log_weight", Kokkos::RangePolicy<ExecutionSpace>(0, store_.size()),
          KOKKOS_LAMBDA(const std::size_t i, double& m) {
            if (log_weight(i) > m) m = log_weight(i);
          },
          Kokkos::Max<double>(max_lw));
    }
    MPI_Allreduce(MPI_IN_PLACE, &max_lw, 1, MPI_DOUBLE, MPI_MAX, comm_);
    // Kokkos::Max starts from the lowest finite double, not -inf: a rank (or all) with only -inf
    // log-weights reports -DBL_MAX. No real log-weight is that small, so both mean "all zero".
    if (!(max_lw > -std::numeric_limits<double>::max()))
      throw DegenerateError("filter degenerate at step " + std::to_string(t) + ": every particle has zero weight", t);
    max_log_weight_ = max_lw;

    // Pass 1: sum w, sum w^2, sum w x_c  (w relative to the global maximum, so w <= 1). The w are
    // kept in weight_ for pass 2 and the fixed-point weights of resampling: one exp per particle.
    auto weight = weight_;
    std::vector<exact::ExactSum> sums(2 + d);
    for (auto& s : sums) s.clear();
    exact::reduce_exact<ExecutionSpace>(
        "rsmc::weight_sums", store_.size(), 2 + d,
        KOKKOS_LAMBDA(const std::size_t i, const exact::ChunkSums& acc) {
          const double w = exp(log_weight(i) - max_lw);  // ::exp: callable on host and CUDA devices
          weight(i) = w;
          // A zero weight adds nothing, and its state may be inf or NaN (a model that failed there):
          // 0 * inf would make every sum NaN.
          if (!(w > 0.0)) return;
          acc.add(0, w);
          acc.add(1, w * w);
          for (int c = 0; c < d; ++c) acc.add(2 + c, w * state(i, c));
        },
        sums.data());
    exact::allreduce_exact(sums.data(), 2 + d, comm_);
    const double total = sums[0].to_double();
    const double total_sq = sums[1].to_double();
    StepSummary s;
    s.ess = total * total / total_sq;
    log_total = max_lw + std::log(total);
    s.mean.resize(d);
    for (int c = 0; c < d; ++c) s.mean[c] = sums[2 + c].to_double() / total;

    // Pass 2: sum w (x_c - mean_c)^2, the numerically safe form of the variance.
    auto mean = mean_;
    auto mean_host = Kokkos::create_mirror_view(mean);
    for (int c = 0; c < d; ++c) mean_host(c) = s.mean[c];
    Kokkos::deep_copy(mean, mean_host);
    std::vector<exact::ExactSum> sq(d);
    for (auto& a : sq) a.clear();
    exact::reduce_exact<ExecutionSpace>(
        "rsmc::variance_sums", store_.size(), d,
        KOKKOS_LAMBDA(const std::size_t i, const exact::ChunkSums& acc) {
          const double w = weight(i);
          if (!(w > 0.0)) return;  // as in pass 1
          for (int c = 0; c < d; ++c) {
            const double dev = state(i, c) - mean(c);
            acc.add(c, w * dev * dev);
          }
        },
        sq.data());
    exact::allreduce_exact(sq.data(), d, comm_);
    s.variance.resize(d);
    for (int c = 0; c < d; ++c) s.variance[c] = sq[c].to_double() / total;
    return s;
  }

  MPI_Comm comm_;
  Model model_;
  FilterOptions options_;
  LoadBand band_;    // the counts each rank may hold
  Layout layout_;    // the ids each rank holds now
  int rank_ = 0;
  ParticleStore<memory_space> store_;
  Kokkos::View<double*, memory_space> observation_;  // y_t on the device
  Kokkos::View<double*, memory_space> mean_;         // filtered mean on the device (variance pass)
  Kokkos::View<double*, memory_space> weight_;       // exp(log-weight - max) of the last summarise()
  ResampleWorkspace<memory_space> resample_workspace_;  // resampling buffers, kept between steps
  double max_log_weight_ = 0.0;
  double log_total_weight_ = 0.0;  // log of the sum of all weights after the previous step
  PhaseTimes times_;
  StepObserver* observer_ = nullptr;  // set_observer
};

}  // namespace rsmc
