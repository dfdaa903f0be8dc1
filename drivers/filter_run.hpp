// FilterCommand::run_model: `rsmc filter` for one concrete model type. A template, so that a model
// registered from outside rsmc (drivers/register_model.hpp) gets the same engine, checkpoints and
// outputs as the built-in ones, compiled for its type in the user's program.
//
// A run goes in named steps (FilterRun, below): check the inputs before anything is written (and
// whether the particles fit in memory), check a restart's checkpoint, print the banner, start the
// filter (fresh or from the checkpoint), open the trace, advance step by step with checkpoints until
// the last step, a signal or a degenerate step, then write the result and print the summary.
#pragma once

#include "framework/parallel/mpi.hpp"
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "drivers/checkpoint_directory.hpp"
#include "drivers/checkpoint_signals.hpp"
#include "drivers/collective.hpp"
#include "drivers/component_names.hpp"
#include "drivers/device_choice.hpp"
#include "drivers/exact_log_likelihood.hpp"
#include "drivers/field_flags.hpp"
#include "drivers/filter_command.hpp"
#include "drivers/progress_line.hpp"
#include "drivers/version.hpp"
#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/memory_preflight.hpp"
#include "framework/engine/simulate.hpp"
#include "framework/io/atomic_file.hpp"
#include "framework/io/checkpoint_file.hpp"
#include "framework/io/checkpoint_particles.hpp"
#include "framework/io/existing_file.hpp"
#include "framework/io/observations_file.hpp"
#include "framework/io/result_file.hpp"
#include "framework/model/model_traits.hpp"

namespace rsmc::drivers {

template <class Model>
std::string FilterCommand::parameters_text(const Model& model_instance) const {
  if constexpr (has_parameter_description_v<Model>)  // framework/model/model_traits.hpp
    return model_instance.params().describe();
  else
    return model_parameters.describe();
}

// One `rsmc filter` run of a model on an execution space (--device): the steps of
// FilterCommand::run_model, sharing the run's state. Every member is called on every rank.
template <class Model, class ExecutionSpace = Kokkos::DefaultExecutionSpace>
class FilterRun {
  using Filter = BootstrapFilter<Model, ExecutionSpace>;

 public:
  FilterRun(const FilterCommand& command, MPI_Comm comm, Model model)
      : command_(command), comm_(comm), model_(std::move(model)), parameters_(command.parameters_text(model_)) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &ranks_);
    talk_ = rank_ == 0 && !command_.quiet;
  }

  // Everything that can be wrong with the options, found before anything is written or read. Wrap
  // in run_collectively: throws on the ranks that find a problem.
  void check_inputs() {
    const FilterCommand& c = command_;
    options_.particles = static_cast<std::uint64_t>(c.particles);  // >= 0: the option's notation and --config
    options_.seed = static_cast<std::uint64_t>(c.seed);
    options_.ess_threshold = c.ess_threshold;
    options_.scheme = parse_scheme(c.resampling);
    options_.resampler = parse_resampler(c.resampler);
    options_.local_sampler = parse_local_sampler(c.local_sampler);
    options_.invalid_likelihood = parse_invalid_likelihood(c.invalid_likelihood);
    options_.balance = {c.balance_tolerance, FilterCommand::parse_rank_capacity(c.rank_capacity)};
    options_.validate(ranks_);
    LoadBand(options_.particles, ranks_, options_.balance);  // throws naming the option
    if (c.steps != 0 || (c.steps_option != nullptr && c.steps_option->count() > 0)) check_step_count(c.steps);
    if (c.data.empty()) steps_ = c.steps > 0 ? static_cast<int>(c.steps) : FilterCommand::kDefaultSimulatedSteps;
    if (!c.output.empty()) refuse_existing_file("output", c.output, c.overwrite);
    if (!c.output.empty() && rank_ == 0) refuse_uncreatable_file("output", c.output);  // rank 0 writes it
    if (c.checkpoint_every < 0)
      throw Error(input_name("checkpoint_every") + ": " + std::to_string(c.checkpoint_every) +
                  " is negative; expected K >= 0");
    if (c.keep_checkpoints < 1)
      throw Error(input_name("keep_checkpoints") + ": " + std::to_string(c.keep_checkpoints) +
                  " is not valid; expected K >= 1");
    if (c.checkpoint_dir.empty()) throw Error(input_name("checkpoint_dir") + ": empty; expected a directory");
    c.trace.validate(c.overwrite, options_.resampler);
    if (!c.restart_header) refuse_populated_checkpoint_dir(c.checkpoint_dir);
  }

  // Whether the particles and the per-step data fit in memory, before any is allocated
  // (memory_preflight.hpp): before the data are simulated (steps_ is --steps then), and again once
  // --data has been read (steps_ is its length). Collective.
  void check_memory() const {
    FilterMemory need;
    need.particles = options_.particles;
    need.filter_ranks = ranks_;
    need.state_dim = model_.state_dim();
    need.obs_dim = model_.obs_dim();
    need.steps = static_cast<std::uint64_t>(std::max(steps_, 0));
    need.simulated = command_.data.empty();
    need.state_dim_source = command_.model_parameters.where_integer(model_.state_dim());
    check_filter_memory<typename Filter::memory_space>(comm_, need);
  }

  // --data, or data simulated from the model with --seed; the number of steps to filter; the true
  // states where known (simulated, or recorded by `rsmc simulate` in an HDF5 data file). Wrap in
  // run_collectively.
  void load_observations() {
    const FilterCommand& c = command_;
    if (c.data.empty()) {
      const Simulation simulated = simulate(model_, steps_, options_.seed);
      observations_ = simulated.observations;
      // x_1..x_T (the simulation also holds x_0), written to the result for comparison.
      true_state_.assign(simulated.states.begin() + simulated.state_dim, simulated.states.end());
      return;
    }
    observations_ = read_observations(c.data);
    if (observations_.dim != model_.obs_dim())
      throw Error(c.data + ": observations have " + std::to_string(observations_.dim) + " components but model " +
                  c.model + " expects " + std::to_string(model_.obs_dim()));
    if (c.steps > observations_.steps)
      throw Error(input_name("steps") + ": " + std::to_string(c.steps) + " exceeds the " +
                  std::to_string(observations_.steps) + " observations in " + c.data);
    steps_ = c.steps > 0 ? static_cast<int>(c.steps) : observations_.steps;
    true_state_ = recorded_true_state(c.data, model_.state_dim(), steps_);
  }

  // Whether the data come from --data (read by load_observations) rather than the model.
  bool reads_data() const { return !command_.data.empty(); }

  // --restart: the checkpoint must belong to this run (everything that changes results matches; its
  // model was checked by inherit_from_checkpoint), and so must the checkpoints already in
  // --checkpoint-dir (one run per directory). Collective.
  void check_restart() {
    const CheckpointContents& header = *command_.restart_header;
    run_collectively(comm_, [&] {
      const std::string what = "--restart: checkpoint '" + command_.restart_path + "'";
      if (header.progress.step > steps_)
        throw Error(what + " is at step " + std::to_string(header.progress.step) + ", beyond the " +
                    std::to_string(steps_) + " steps of this run");
      const std::string mismatch = first_difference(header.info.identity, identity_at(header.progress.step));
      if (!mismatch.empty()) throw Error(what + " belongs to another run; " + mismatch);
    });
    run_on_root(comm_, [&] { refuse_foreign_checkpoints(command_.checkpoint_dir, identity_function()); });
    progress_ = header.progress;
  }

  void print_banner() const {
    if (!talk_) return;
    const FilterCommand& c = command_;
    std::printf("rsmc %s filter: model %s (state dim %d), %llu particles on %d rank%s, %d steps, seed %llu\n", kVersion,
                c.model.c_str(), model_.state_dim(), static_cast<unsigned long long>(options_.particles), ranks_,
                ranks_ == 1 ? "" : "s", steps_, static_cast<unsigned long long>(options_.seed));
    std::printf("device: %s (Kokkos::%s)\n", resolve_device(c.device).c_str(), ExecutionSpace::name());
    std::printf("observations: %s\n", c.data.empty() ? "simulated from the model (no --data given)" : c.data.c_str());
    std::printf("resampling: %s scheme, %s resampler, %s local sampler%s\n", c.resampling.c_str(), c.resampler.c_str(),
                c.local_sampler.c_str(),
                is_p_invariant(options_.local_sampler) ? "" : " (results depend on the number of ranks)");
    std::fflush(stdout);
  }

  // The filter at step 0, or at the checkpoint's step with its particles. Collective.
  void start_filter() {
    // Temporary files of checkpoint writes that were killed (a restart without --checkpoint-every
    // would otherwise never prune them); only those whose writer is gone.
    run_on_root(comm_, [&] { remove_abandoned_checkpoint_files(command_.checkpoint_dir); });
    start_time_ = std::chrono::steady_clock::now();
    filter_.emplace(comm_, model_, options_);
    if (!command_.restart_header) {
      progress_ = filter_->start();
    } else {
      auto& store = filter_->particles_mut();
      const double read_start = MPI_Wtime();
      load_checkpoint_block(read_checkpoint_block(comm_, command_.restart_path, command_.restart_header->info,
                                                  store.first_id, store.size()),
                            store);
      filter_->resume(progress_);
      filter_->phase_times()[Phase::io] += MPI_Wtime() - read_start;
      if (talk_) std::printf("restarted from %s at step %d\n", command_.restart_path.c_str(), progress_.step);
    }
  }

  // Opens --trace (if given) and installs it as the filter's observer. Collective.
  void open_trace() {
    TraceInfo info;
    info.particles = options_.particles;
    info.state_dim = model_.state_dim();
    info.steps = steps_;
    info.every = static_cast<int>(command_.trace.every);
    info.p_invariant = is_p_invariant(options_.local_sampler);
    info.model = command_.model;
    info.parameters = parameters_;
    // Without the rank count, so that the whole trace file is bitwise identical for any number of
    // ranks, except with a sampler whose results depend on it.
    info.configuration =
        command_.configuration_text(info.p_invariant ? std::nullopt : std::optional<int>(ranks_), steps_);
    trace_writer_ = command_.trace.open(comm_, info, command_.overwrite);
    filter_->set_observer(trace_writer_.get());
    line_.emplace(rank_ == 0 && !command_.quiet && (command_.show_progress || ::isatty(STDERR_FILENO) == 1),
                  progress_.step, steps_, options_.particles);
  }

  bool done() const { return progress_.step >= steps_; }

  // One filter step. False when every particle lost its weight: the filter has restored the last
  // good step (progress_.step), and stop_degenerate() keeps it for inspection.
  bool advance() {
    try {
      filter_->advance(progress_, observations_);
    } catch (const DegenerateError& e) {
      degenerate_ = e.what();
      return false;
    }
    line_->update(progress_.step, progress_.result.ess.back(), progress_.log_likelihood.to_double());
    return true;
  }

  void checkpoint_if_due() {
    if (command_.checkpoint_every > 0 && progress_.step % command_.checkpoint_every == 0) checkpoint();
  }

  // After advance() returned false: checkpoints the last good step and says where. Returns the exit code.
  int stop_degenerate() {
    stop_early();
    if (rank_ == 0)
      std::fprintf(stderr, "rsmc: error: %s; the last good step (%d) is checkpointed in %s (exit code %d)\n",
                   degenerate_.c_str(), progress_.step, command_.checkpoint_dir.c_str(), kExitDegenerate);
    return kExitDegenerate;
  }

  // On SIGTERM or SIGUSR1 (checkpoint_requested): checkpoints and says how to go on. Returns the exit code.
  int stop_on_signal(int signal) {
    stop_early();
    if (talk_)
      std::printf("stopping after step %d on signal %d; restart with --restart latest (exit code %d)\n", progress_.step,
                  signal, kExitCheckpointed);
    return kExitCheckpointed;
  }

  // After the last step: the trace, the result (with the true states of simulated data) and the
  // exact log-likelihood where the model has one. Collective.
  FilterResult finish() {
    finish_trace();
    FilterResult result = filter_->finish(progress_);
    result.true_state = std::move(true_state_);
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time_).count();
    run_collectively(comm_, [&] { exact_ = exact_log_likelihood(model_, observations_, steps_); });
    return result;
  }

  // --output: the result file, written by rank 0. Collective.
  void write_result(const FilterResult& result) const {
    if (command_.output.empty()) return;
    run_on_root(comm_, [&] {
      ResultAttributes attributes;
      attributes.text = {
          {"rsmc_version", kVersion},
          {"model", command_.model},
          {"configuration", command_.configuration_text(ranks_, steps_)},
          {"parameters", parameters_},
          {"local_sampler", local_sampler_name(options_.local_sampler)},
          {"device", resolve_device(command_.device)},
          {"execution_space", ExecutionSpace::name()},
          {"rebalance_transport", rebalance_transport_name(rebalance_transport_for<typename Filter::memory_space>())},
          {"state_names", joined(state_names(model_))}};
      // p_invariant = 0: the datasets depend on the number of ranks (--local-sampler alias).
      attributes.integers = {{"ranks", ranks_},
                             {"particles", static_cast<long long>(options_.particles)},
                             {"steps", steps_},
                             {"p_invariant", is_p_invariant(options_.local_sampler) ? 1 : 0}};
      for (std::size_t k = 0; k < kPhaseCount; ++k)
        attributes.reals.emplace_back(std::string("seconds_") + kPhaseNames[k], result.phase_seconds[k]);
      write_result_file(command_.output, result, attributes, command_.overwrite);
    });
  }

  void print_summary(const FilterResult& result) const {
    if (!talk_) return;
    int resampled = 0;
    for (auto r : result.resampled) resampled += r;
    std::printf("log-likelihood estimate: %.6f\n", result.log_likelihood);
    if (exact_)
      std::printf("exact (Kalman filter):   %.6f   (estimate - exact = %+.6f)\n", *exact_,
                  result.log_likelihood - *exact_);
    std::printf("resampled at %d of %d steps; %.3f s, %.3g particle-steps/s\n", resampled, steps_, seconds_,
                static_cast<double>(options_.particles) * steps_ / seconds_);
    if (options_.invalid_likelihood == InvalidLikelihood::zero_weight) print_invalid_likelihoods(result);
    if (command_.verbose) print_verbose(result);
    if (!command_.output.empty()) std::printf("wrote %s\n", command_.output.c_str());
  }

 private:
  // This run's identity at a step: what its checkpoint of that step carries ("" beyond the data).
  std::string identity_at(int step) const {
    if (step < 0 || step > observations_.steps) return std::string();
    return command_.identity_text(parameters_, model_.state_dim(), ranks_, observations_hash(observations_, step));
  }
  IdentityAtStep identity_function() const {
    return [this](int step) { return identity_at(step); };
  }

  // Writes a checkpoint of the current progress and keeps this run's newest --keep-checkpoints.
  void checkpoint() {
    ScopedPhase timed(&filter_->phase_times(), Phase::io);
    const std::string& dir = command_.checkpoint_dir;
    run_on_root(comm_, [&] { std::filesystem::create_directories(dir); });
    CheckpointInfo info;
    info.particles = options_.particles;
    info.state_dim = model_.state_dim();
    info.model = command_.model;
    info.parameters = parameters_;
    info.identity = identity_at(progress_.step);
    info.configuration = command_.checkpoint_configuration(ranks_, steps_);
    const std::string path = (std::filesystem::path(dir) / checkpoint_name(progress_.step)).string();
    write_checkpoint(comm_, path, info, progress_, checkpoint_block(filter_->particles()));
    run_on_root(comm_, [&] {
      prune_checkpoints(dir, static_cast<std::size_t>(command_.keep_checkpoints), identity_function());
    });
    if (talk_) {
      std::printf("checkpoint: %s (step %d)\n", path.c_str(), progress_.step);
      std::fflush(stdout);
    }
  }

  // A run that stops early (a signal, a degenerate step) checkpoints and still publishes the trace
  // of its steps.
  void stop_early() {
    line_->close();
    checkpoint();
    finish_trace();
  }

  void finish_trace() {
    if (!trace_writer_) return;
    ScopedPhase timed(&filter_->phase_times(), Phase::io);
    trace_writer_->finish(progress_.step);
    if (talk_) std::printf("wrote trace %s (steps 1..%d)\n", command_.trace.path.c_str(), progress_.step);
  }

  const FilterCommand& command_;
  MPI_Comm comm_;
  Model model_;
  std::string parameters_;  // the model's parameters as text (result attributes, checkpoint identity)
  int rank_ = 0, ranks_ = 1;
  bool talk_ = false;  // rank 0 prints, unless --quiet

  FilterOptions options_;
  Observations observations_;
  int steps_ = 0;                   // the steps to filter (--steps, or all of the data)
  std::vector<double> true_state_;  // x_1..x_T when known

  std::optional<Filter> filter_;
  RunProgress progress_;
  std::unique_ptr<TraceWriter> trace_writer_;
  std::optional<ProgressLine> line_;
  std::string degenerate_;  // the DegenerateError's message, once advance() returned false
  std::chrono::steady_clock::time_point start_time_;
  double seconds_ = 0.0;
  std::optional<double> exact_;
};

template <class M>
int FilterCommand::run_model(MPI_Comm comm, M model_instance) {
  std::string resolved;
  run_collectively(comm, [&] { resolved = resolve_device(device); });
  return with_device_space(resolved,
                           [&](auto space) { return run_on<M, decltype(space)>(comm, std::move(model_instance)); });
}

template <class M, class ExecutionSpace>
int FilterCommand::run_on(MPI_Comm comm, M model_instance) {
  FilterRun<M, ExecutionSpace> run(*this, comm, std::move(model_instance));
  // Before the first collective, so that every rank has its handlers once the banner is out: job
  // scripts signal a run once they see it, and an unhandled SIGUSR1 kills the process. SIGTERM
  // during the set-up ends the run at once; any other signal is honoured after the next step.
  install_checkpoint_signals();
  run_collectively(comm, [&] { run.check_inputs(); });
  run.check_memory();  // before data are simulated or particles allocated
  run_collectively(comm, [&] { run.load_observations(); });
  if (run.reads_data()) run.check_memory();  // with the length of --data
  if (restart_header) run.check_restart();
  // From here on SIGTERM too checkpoints after the next step (checkpoint_signals.hpp); every rank
  // is past its set-up before the banner, which job scripts wait for before they signal, appears.
  end_of_setup();
  MPI_Barrier(comm);
  run.print_banner();

  run.start_filter();
  run.open_trace();
  while (!run.done()) {
    if (!run.advance()) return run.stop_degenerate();
    if (const int signal = checkpoint_requested(comm)) return run.stop_on_signal(signal);
    run.checkpoint_if_due();
  }

  const FilterResult result = run.finish();
  run.write_result(result);
  run.print_summary(result);
  return 0;
}

}  // namespace rsmc::drivers
