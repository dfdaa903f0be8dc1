// FilterCommand::run_model: `rsmc filter` for one concrete model type. A template, so that a model
// registered from outside rsmc (drivers/register_model.hpp) gets the same engine, checkpoints and
// outputs as the built-in ones, compiled for its type in the user's program.
#pragma once

#include <mpi.h>
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
#include "drivers/exact_log_likelihood.hpp"
#include "drivers/filter_command.hpp"
#include "drivers/progress_line.hpp"
#include "drivers/version.hpp"
#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/simulate.hpp"
#include "framework/io/checkpoint_file.hpp"
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

template <class M>
int FilterCommand::run_model(MPI_Comm comm, M model_instance) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const bool talk = rank == 0 && !quiet;

  int exit_code = 0;
  [&] {
    using Model = decltype(model_instance);
    FilterOptions options;
    Observations observations;
    int resolved_steps = 0;
    std::string restart_path;
    std::vector<double> true_state;  // when the data are simulated
    // Everything that can be wrong with the input is found here, before anything is written.
    run_collectively(comm, [&] {
      if (particles < 1)
        throw Error("--particles: " + std::to_string(particles) + " is not a valid particle count; expected >= 1");
      if (particles < ranks)
        throw Error("--particles: " + std::to_string(particles) + " particles cannot be spread over " +
                    std::to_string(ranks) + " ranks; expected at least one particle per rank");
      if (seed < 0) throw Error("--seed: " + std::to_string(seed) + " is negative; expected 0 <= seed < 2^56");
      options.particles = static_cast<std::uint64_t>(particles);
      options.seed = static_cast<std::uint64_t>(seed);
      options.ess_threshold = ess_threshold;
      options.scheme = parse_scheme(resampling);
      options.resampler = parse_resampler(resampler);
      options.local_sampler = parse_local_sampler(local_sampler);
      options.invalid_likelihood = parse_invalid_likelihood(invalid_likelihood);
      options.balance = {balance_tolerance, parse_rank_capacity(rank_capacity)};
      options.validate();
      LoadBand(options.particles, ranks, options.balance);  // throws naming the option
      if (steps_option != nullptr && steps_option->count() > 0 && steps < 1)
        throw Error("--steps: " + std::to_string(steps) + " is not a valid step count; expected >= 1");
      if (data.empty()) {
        resolved_steps = steps > 0 ? static_cast<int>(steps) : kDefaultSimulatedSteps;
        const Simulation simulated = simulate(model_instance, resolved_steps, options.seed);
        observations = simulated.observations;
        // x_1..x_T (the simulation also holds x_0), written to the result for comparison.
        true_state.assign(simulated.states.begin() + simulated.state_dim, simulated.states.end());
      } else {
        observations = read_observations(data);
        if (observations.dim != model_instance.obs_dim())
          throw Error(data + ": observations have " + std::to_string(observations.dim) + " components but model " +
                      Model::name + " expects " + std::to_string(model_instance.obs_dim()));
        if (steps > observations.steps)
          throw Error("--steps: " + std::to_string(steps) + " exceeds the " + std::to_string(observations.steps) +
                      " observations in " + data);
        resolved_steps = steps > 0 ? static_cast<int>(steps) : observations.steps;
        true_state = recorded_true_state(data, model_instance.state_dim(), resolved_steps);
      }
      if (!output.empty() && !overwrite && std::ifstream(output).good())
        throw Error("--output: " + output + " already exists; pass --overwrite to replace it");
      if (checkpoint_every < 0)
        throw Error("--checkpoint-every: " + std::to_string(checkpoint_every) + " is negative; expected K >= 0");
      if (keep_checkpoints < 1)
        throw Error("--keep-checkpoints: " + std::to_string(keep_checkpoints) + " is not valid; expected K >= 1");
      if (checkpoint_dir.empty()) throw Error("--checkpoint-dir: empty; expected a directory");
      trace.validate(overwrite, !restart.empty(), resampler);
      if (restart == "latest") {
        const auto found = list_checkpoints(checkpoint_dir);
        if (found.empty())
          throw Error("--restart latest: no checkpoint-<step>.h5 in --checkpoint-dir '" + checkpoint_dir + "'");
        restart_path = found.back();
      } else {
        restart_path = restart;
      }
      if (restart_path.empty()) refuse_populated_checkpoint_dir(checkpoint_dir);
    });

    // This run's identity at a step: what its checkpoint of that step carries ("" beyond the data).
    const std::string parameters = parameters_text(model_instance);
    const IdentityAtStep identity_at = [&](int step) {
      if (step < 0 || step > observations.steps) return std::string();
      return identity_text(parameters, model_instance.state_dim(), ranks, observations_hash(observations, step));
    };

    // A restart: the checkpoint must belong to this run (everything that changes results matches),
    // and so must the checkpoints already in --checkpoint-dir (one run per directory).
    RunProgress progress;
    CheckpointInfo restart_info;
    if (!restart_path.empty()) {
      CheckpointContents header = read_checkpoint_header(comm, restart_path);
      run_collectively(comm, [&] {
        const std::string what = "--restart: checkpoint '" + restart_path + "'";
        if (header.info.model != Model::name)
          throw Error(what + " is of model '" + header.info.model + "', not '" + model + "'");
        if (header.progress.step > resolved_steps)
          throw Error(what + " is at step " + std::to_string(header.progress.step) + ", beyond the " +
                      std::to_string(resolved_steps) + " steps of this run");
        const std::string mismatch = first_difference(header.info.identity, identity_at(header.progress.step));
        if (!mismatch.empty()) throw Error(what + " belongs to another run; " + mismatch);
      });
      run_on_root(comm, [&] { refuse_foreign_checkpoints(checkpoint_dir, identity_at); });
      progress = std::move(header.progress);
      restart_info = std::move(header.info);
    }

    if (talk) {
      std::printf("rsmc %s filter: model %s (state dim %d), %llu particles on %d rank%s, %d steps, seed %llu\n",
                  kVersion, Model::name, model_instance.state_dim(), static_cast<unsigned long long>(particles), ranks,
                  ranks == 1 ? "" : "s", resolved_steps, static_cast<unsigned long long>(seed));
      std::printf("observations: %s\n",
                  data.empty() ? "simulated from the model (no --data given)" : data.c_str());
      std::printf("resampling: %s scheme, %s resampler, %s local sampler%s\n", resampling.c_str(), resampler.c_str(),
                  local_sampler.c_str(),
                  is_p_invariant(options.local_sampler) ? ""
                                                        : " (results depend on the number of ranks)");
      std::fflush(stdout);
    }

    const auto start = std::chrono::steady_clock::now();
    install_checkpoint_signals();
    BootstrapFilter<Model> filter(comm, model_instance, options);
    if (restart_path.empty()) {
      progress = filter.start();
    } else {
      auto& store = filter.particles_mut();
      const double read_start = MPI_Wtime();
      const CheckpointBlock block =
          read_checkpoint_block(comm, restart_path, restart_info, store.first_id, store.size());
      const double restart_read_seconds = MPI_Wtime() - read_start;
      auto state = Kokkos::create_mirror_view(store.state);
      auto log_weight = Kokkos::create_mirror_view(store.log_weight);
      for (std::uint64_t i = 0; i < block.count; ++i) {
        for (int c = 0; c < store.state_dim(); ++c) state(i, c) = block.state[c * block.count + i];
        log_weight(i) = block.log_weight[i];
      }
      Kokkos::deep_copy(store.state, state);
      Kokkos::deep_copy(store.log_weight, log_weight);
      filter.resume(progress);
      filter.phase_times()[Phase::io] += restart_read_seconds;
      if (talk) std::printf("restarted from %s at step %d\n", restart_path.c_str(), progress.step);
    }
    TraceInfo trace_info;
    trace_info.particles = static_cast<std::uint64_t>(particles);
    trace_info.state_dim = model_instance.state_dim();
    trace_info.steps = resolved_steps;
    trace_info.every = static_cast<int>(trace.every);
    trace_info.p_invariant = is_p_invariant(options.local_sampler);
    trace_info.model = Model::name;
    trace_info.parameters = parameters;
    // Without the rank count (the last line), so that the whole trace file is bitwise identical for
    // any number of ranks, except with a sampler whose results depend on it.
    trace_info.configuration = configuration_text(ranks, resolved_steps);
    if (const auto at = trace_info.configuration.rfind("ranks = "); trace_info.p_invariant && at != std::string::npos)
      trace_info.configuration.erase(at);
    const std::unique_ptr<TraceWriter> trace_writer = trace.open(comm, trace_info, overwrite);
    filter.set_observer(trace_writer.get());
    // A run that stops early (a signal, a degenerate step) still publishes the trace of its steps.
    auto finish_trace = [&] {
      if (!trace_writer) return;
      ScopedPhase timed(&filter.phase_times(), Phase::io);
      trace_writer->finish(progress.step);
      if (talk) std::printf("wrote trace %s (steps 1..%d)\n", trace.path.c_str(), progress.step);
    };

    // Writes a checkpoint of the current progress and keeps the newest --keep-checkpoints.
    auto checkpoint = [&] {
      ScopedPhase timed(&filter.phase_times(), Phase::io);
      run_on_root(comm, [&] { std::filesystem::create_directories(checkpoint_dir); });
      CheckpointInfo info;
      info.particles = static_cast<std::uint64_t>(particles);
      info.state_dim = model_instance.state_dim();
      info.model = Model::name;
      info.parameters = parameters;
      info.identity = identity_at(progress.step);
      info.configuration = configuration_text(ranks, resolved_steps);
      const auto& store = filter.particles();
      auto state = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), store.state);
      auto log_weight = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), store.log_weight);
      CheckpointBlock block;
      block.first_id = store.first_id;
      block.count = store.size();
      block.state.assign(state.data(), state.data() + block.count * store.state_dim());
      block.log_weight.assign(log_weight.data(), log_weight.data() + block.count);
      const std::string path = (std::filesystem::path(checkpoint_dir) / checkpoint_name(progress.step)).string();
      write_checkpoint(comm, path, info, progress, block);
      run_on_root(comm, [&] {
        prune_checkpoints(checkpoint_dir, static_cast<std::size_t>(keep_checkpoints), identity_at);
      });
      if (talk) {
        std::printf("checkpoint: %s (step %d)\n", path.c_str(), progress.step);
        std::fflush(stdout);
      }
    };

    ProgressLine line(rank == 0 && !quiet && (show_progress || ::isatty(STDERR_FILENO) == 1), progress.step,
                      resolved_steps, static_cast<std::uint64_t>(particles));
    while (progress.step < resolved_steps) {
      try {
        filter.advance(progress, observations);
      } catch (const DegenerateError& e) {
        // The filter has restored the last good step (progress.step): keep it for inspection.
        line.close();
        checkpoint();
        finish_trace();
        if (rank == 0)
          std::fprintf(stderr, "rsmc: error: %s; the last good step (%d) is checkpointed in %s (exit code %d)\n",
                       e.what(), progress.step, checkpoint_dir.c_str(), kExitDegenerate);
        exit_code = kExitDegenerate;
        return;
      }
      line.update(progress.step, progress.result.ess.back(), progress.log_likelihood.to_double());
      if (const int signal = checkpoint_requested(comm)) {
        line.close();
        checkpoint();
        finish_trace();
        if (talk)
          std::printf("stopping after step %d on signal %d; restart with --restart latest (exit code %d)\n",
                      progress.step, signal, kExitCheckpointed);
        exit_code = kExitCheckpointed;
        return;
      }
      if (checkpoint_every > 0 && progress.step % checkpoint_every == 0)
        checkpoint();
    }
    finish_trace();
    FilterResult result = filter.finish(progress);
    result.true_state = std::move(true_state);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    std::optional<double> exact;
    run_collectively(comm, [&] { exact = exact_log_likelihood(model_instance, observations, resolved_steps); });

    if (!output.empty()) {
      run_on_root(comm, [&] {
        ResultAttributes attributes;
        attributes.text = {{"rsmc_version", kVersion},
                           {"model", Model::name},
                           {"configuration", configuration_text(ranks, resolved_steps)},
                           {"parameters", parameters},
                           {"local_sampler", local_sampler_name(options.local_sampler)},
                           {"state_names", joined(state_names(model_instance))}};
        // p_invariant = 0: the datasets depend on the number of ranks (--local-sampler alias).
        attributes.integers = {{"ranks", ranks},
                               {"particles", particles},
                               {"steps", resolved_steps},
                               {"p_invariant", is_p_invariant(options.local_sampler) ? 1 : 0}};
        for (std::size_t k = 0; k < kPhaseCount; ++k)
          attributes.reals.emplace_back(std::string("seconds_") + kPhaseNames[k], result.phase_seconds[k]);
        write_result_file(output, result, attributes, overwrite);
      });
    }

    if (talk) {
      int resampled = 0;
      for (auto r : result.resampled) resampled += r;
      std::printf("log-likelihood estimate: %.6f\n", result.log_likelihood);
      if (exact) {
        std::printf("exact (Kalman filter):   %.6f   (estimate - exact = %+.6f)\n", *exact,
                    result.log_likelihood - *exact);
      }
      std::printf("resampled at %d of %d steps; %.3f s, %.3g particle-steps/s\n", resampled, resolved_steps, seconds,
                  static_cast<double>(particles) * resolved_steps / seconds);
      if (options.invalid_likelihood == InvalidLikelihood::zero_weight) print_invalid_likelihoods(result);
      if (verbose) print_verbose(result);
      if (!output.empty()) std::printf("wrote %s\n", output.c_str());
    }
    exit_code = 0;
  }();
  return exit_code;
}

}  // namespace rsmc::drivers
