#include "drivers/filter_command.hpp"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <optional>
#include <sstream>

#include "drivers/checkpoint_signals.hpp"
#include "drivers/collective.hpp"
#include "drivers/progress_line.hpp"
#include "drivers/model_registry.hpp"
#include "drivers/version.hpp"
#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/simulate.hpp"
#include "framework/io/checkpoint_file.hpp"
#include "framework/io/observations_file.hpp"
#include "framework/io/result_file.hpp"

namespace rsmc::drivers {

void FilterCommand::add_to(CLI::App& app) {
  app.add_option("--config", config_file,
                 "Run configuration (TOML): any option below as `key = value` with '-' written '_' (e.g. "
                 "ess_threshold = 0.9), model parameters under [parameters]; flags given on the command line win");
  auto* o_model = app.add_option("--model", model, "State-space model to filter (see the list below)")->capture_default_str();
  auto* o_particles = app.add_option("--particles,-n", particles, "Total number of particles N over all ranks (N >= ranks)")
      ->capture_default_str();
  steps_option = app.add_option("--steps,-T", steps,
                 "Number of observations to filter (default: all of --data, or " +
                     std::to_string(kDefaultSimulatedSteps) + " simulated steps)");
  auto* o_seed = app.add_option("--seed", seed, "Seed of every random stream, 0 <= seed < 2^56")->capture_default_str();
  auto* o_ess = app.add_option("--ess-threshold", ess_threshold,
                 "Resample when ESS < threshold * N; threshold in (0, 1], 1 resamples every step")
      ->capture_default_str();
  auto* o_resampling = app.add_option("--resampling", resampling,
                 "Resampling scheme: multinomial, stratified, systematic or residual")
      ->capture_default_str();
  auto* o_resampler = app.add_option("--resampler", resampler,
                 "roulette (distributed, O(N/p) per rank; default), roulette-algorithm1 (the paper's Algorithm 1, "
                 "multinomial only), allgather or gather-root (naive baselines, systematic only)")
      ->capture_default_str();
  auto* o_local = app.add_option("--local-sampler", local_sampler,
                 "How the roulette resampler finds the ancestors of this rank's sample points: search (prefix "
                 "sums + binary search), forest (Cutpoint + radix tree forest) or butterfly (butterfly partial "
                 "sums) give identical results; alias draws each rank's offspring from an alias table "
                 "(statistically valid and deterministic for a fixed rank count, but NOT identical across rank "
                 "counts; recorded in the result file)")
      ->capture_default_str();
  auto* o_data = app.add_option("--data", data,
                 "Observations: a CSV file (header row, one column per component, empty field = missing) "
                 "or an HDF5 file with a dataset 'observations' (T x m). Without it, data are simulated from the "
                 "model with --seed");
  auto* o_output = app.add_option("--output,-o", output, "HDF5 result file (per-step ESS, log-likelihood increments, filtered "
                                         "means and variances, resampling flags)");
  auto* o_overwrite = app.add_flag("--overwrite", overwrite,
                                   "Replace --output and --trace if they exist (otherwise an existing file is an error)");
  auto* o_every = app.add_option("--checkpoint-every", checkpoint_every,
                 "Write a checkpoint every K steps (0: only when SIGTERM or SIGUSR1 arrives, which always "
                 "checkpoints and stops with exit code 75)")
      ->capture_default_str();
  auto* o_dir = app.add_option("--checkpoint-dir", checkpoint_dir,
                 "Directory of the checkpoints (checkpoint-<step>.h5; created if missing)")
      ->capture_default_str();
  auto* o_keep = app.add_option("--keep-checkpoints", keep_checkpoints, "How many of the newest checkpoints to keep (>= 1)")
      ->capture_default_str();
  auto* o_restart = app.add_option("--restart", restart,
                 "Continue from a checkpoint file, or `latest` (the newest in --checkpoint-dir), on any number of "
                 "ranks; give the original run's options: a run that differs in a way that changes results is "
                 "refused");
  auto* o_quiet = app.add_flag("--quiet,-q", quiet, "Print nothing but errors");
  auto* o_verbose = app.add_flag("--verbose,-v", verbose,
                                 "Also print the wall time per phase (propagate, weight, reduce, select, rebalance, "
                                 "io; maximum over ranks) and the resampling traffic");
  o_verbose->excludes(o_quiet);
  auto* o_progress = app.add_flag("--progress", show_progress,
                                  "Show the progress line (step, ESS, log-likelihood, speed, ETA) on stderr even when "
                                  "it is not a terminal (default: only on a terminal)");

  // The same settings in a --config file (ranges as the command line checks them).
  config_keys.text("model", model, o_model);
  config_keys.integer("particles", particles, 1, o_particles);
  config_keys.integer("steps", steps, 1, steps_option);
  config_keys.integer("seed", seed, 0, o_seed);
  config_keys.number("ess_threshold", ess_threshold, 0.0, 1.0, true, o_ess);
  config_keys.text("resampling", resampling, o_resampling, {"multinomial", "stratified", "systematic", "residual"});
  config_keys.text("resampler", resampler, o_resampler, {"roulette", "roulette-algorithm1", "allgather", "gather-root"});
  config_keys.text("local_sampler", local_sampler, o_local, {"search", "forest", "butterfly", "alias"});
  config_keys.text("data", data, o_data);
  config_keys.text("output", output, o_output);
  config_keys.boolean("overwrite", overwrite, o_overwrite);
  config_keys.integer("checkpoint_every", checkpoint_every, 0, o_every);
  config_keys.text("checkpoint_dir", checkpoint_dir, o_dir);
  config_keys.integer("keep_checkpoints", keep_checkpoints, 1, o_keep);
  config_keys.text("restart", restart, o_restart);
  config_keys.boolean("quiet", quiet, o_quiet);
  config_keys.boolean("verbose", verbose, o_verbose);
  config_keys.boolean("progress", show_progress, o_progress);
  trace.add_to(app, config_keys);  // --trace, --trace-every (and their keys, listed last)
}

void FilterCommand::load_config() {
  if (config_file.empty()) return;
  const config::TomlDocument doc = config::read_toml_file(config_file);
  config_document = std::make_shared<config::TomlDocument>(doc);
  model_parameters = ModelParameters(config_keys.apply(*config_document, "parameters"), config_document.get());
}

std::string FilterCommand::configuration_text(int ranks, int resolved_steps) const {
  std::ostringstream out;
  out << "model = \"" << model << "\"\n"
      << "particles = " << particles << "\n"
      << "steps = " << resolved_steps << "\n"
      << "seed = " << seed << "\n"
      << "ess_threshold = " << std::setprecision(17) << ess_threshold << "\n"
      << "data = \"" << data << "\"\n"
      << "resampling = \"" << resampling << "\"\n"
      << "resampler = \"" << resampler << "\"\n"
      << "local_sampler = \"" << local_sampler << "\"\n"
      << "ranks = " << ranks << "\n";
  return out.str();
}

std::string FilterCommand::identity_text(const std::string& parameters, int state_dim, int ranks,
                                         std::uint64_t data_hash) const {
  std::ostringstream out;
  out << "model = \"" << model << "\"\n"
      << "parameters = \"" << parameters << "\"\n"
      << "state_dim = " << state_dim << "\n"
      << "particles = " << particles << "\n"
      << "seed = " << seed << "\n"
      << "ess_threshold = " << std::setprecision(17) << ess_threshold << "\n"
      << "resampling = \"" << resampling << "\"\n"
      << "resampler = \"" << resampler << "\"\n"
      << "local_sampler = \"" << local_sampler << "\"\n"
      << "observations_hash = " << data_hash << "\n";
  // The alias sampler's results depend on the rank count: a continuation must keep it.
  if (local_sampler == "alias") out << "ranks = " << ranks << "\n";
  return out.str();
}

namespace {

// A hash of the observations of steps 1..steps (the data a checkpoint has consumed).
std::uint64_t observations_hash(const Observations& y, int steps) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a over the bytes of the values
  const std::size_t n = static_cast<std::size_t>(steps) * static_cast<std::size_t>(y.dim);
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(y.values.data());
  for (std::size_t i = 0; i < n * sizeof(double); ++i) h = (h ^ bytes[i]) * 1099511628211ULL;
  return h;
}

// The first line of `expected` that `actual` does not have, as "key: checkpoint has X, this run Y".
std::string first_difference(const std::string& in_checkpoint, const std::string& in_run) {
  std::istringstream a(in_checkpoint), b(in_run);
  std::string la, lb;
  while (true) {
    const bool ga = static_cast<bool>(std::getline(a, la)), gb = static_cast<bool>(std::getline(b, lb));
    if (!ga && !gb) return "";
    if (la != lb || ga != gb) {
      const std::string key = (ga ? la : lb).substr(0, (ga ? la : lb).find(" ="));
      return key + ": the checkpoint has '" + (ga ? la : std::string("nothing")) + "', this run '" +
             (gb ? lb : std::string("nothing")) + "'";
    }
  }
}

// --verbose: where the time went, and what resampling moved.
void print_verbose(const FilterResult& result) {
  double total = 0.0;
  for (double s : result.phase_seconds) total += s;
  std::printf("time per phase (s, max over ranks):");
  for (std::size_t k = 0; k < kPhaseCount; ++k)
    std::printf(" %s %.3g (%.0f%%)", kPhaseNames[k], result.phase_seconds[k],
                total > 0.0 ? 100.0 * result.phase_seconds[k] / total : 0.0);
  std::uint64_t moved = 0, bytes = 0, messages = 0;
  for (std::size_t t = 0; t < result.traffic.particles_moved.size(); ++t) {
    moved += result.traffic.particles_moved[t];
    bytes += result.traffic.bytes_moved[t];
    messages += result.traffic.messages[t];
  }
  std::printf("\nresampling traffic: %llu particles (%llu bytes) moved between ranks in %llu messages\n",
              static_cast<unsigned long long>(moved), static_cast<unsigned long long>(bytes),
              static_cast<unsigned long long>(messages));
}

}  // namespace

int FilterCommand::run(MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);

  run_collectively(comm, [&] { load_config(); });
  const bool talk = rank == 0 && !quiet;

  int exit_code = 0;
  with_model(model, model_parameters, [&](auto model_instance) {
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
      options.validate();
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
    });

    // A restart: the checkpoint must belong to this run (everything that changes results matches).
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
        const std::string mismatch = first_difference(
            header.info.identity,
            identity_text(model_instance.params().describe(), model_instance.state_dim(), ranks,
                          observations_hash(observations, header.progress.step)));
        if (!mismatch.empty()) throw Error(what + " belongs to another run; " + mismatch);
      });
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
    trace_info.parameters = model_instance.params().describe();
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
      info.parameters = model_instance.params().describe();
      info.identity = identity_text(info.parameters, info.state_dim, ranks, observations_hash(observations, progress.step));
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
        const auto all = list_checkpoints(checkpoint_dir);
        for (std::size_t k = 0; k + static_cast<std::size_t>(keep_checkpoints) < all.size(); ++k)
          std::filesystem::remove(all[k]);
        // Temporary files of runs killed while writing (never complete checkpoints).
        for (const auto& entry : std::filesystem::directory_iterator(checkpoint_dir)) {
          const std::string name = entry.path().filename().string();
          if (name.rfind(".checkpoint-", 0) == 0 && name.size() > 7 && name.substr(name.size() - 7) == ".h5.tmp")
            std::filesystem::remove(entry.path());
        }
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
                           {"parameters", model_instance.params().describe()},
                           {"local_sampler", local_sampler_name(options.local_sampler)}};
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
      if (verbose) print_verbose(result);
      if (!output.empty()) std::printf("wrote %s\n", output.c_str());
    }
    exit_code = 0;
  });
  return exit_code;
}

}  // namespace rsmc::drivers
