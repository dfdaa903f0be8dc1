#include "drivers/filter_command.hpp"

#include <chrono>
#include <fstream>
#include <cstdio>
#include <iomanip>
#include <optional>
#include <sstream>

#include "drivers/collective.hpp"
#include "drivers/model_registry.hpp"
#include "drivers/version.hpp"
#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/simulate.hpp"
#include "framework/io/observations_file.hpp"
#include "framework/io/result_file.hpp"

namespace rsmc::drivers {

void FilterCommand::add_to(CLI::App& app) {
  app.add_option("--model", model, "State-space model to filter (see the list below)")->capture_default_str();
  app.add_option("--particles,-n", particles, "Total number of particles N over all ranks (N >= ranks)")
      ->capture_default_str();
  steps_option = app.add_option("--steps,-T", steps,
                 "Number of observations to filter (default: all of --data, or " +
                     std::to_string(kDefaultSimulatedSteps) + " simulated steps)");
  app.add_option("--seed", seed, "Seed of every random stream, 0 <= seed < 2^56")->capture_default_str();
  app.add_option("--ess-threshold", ess_threshold,
                 "Resample when ESS < threshold * N; threshold in (0, 1], 1 resamples every step")
      ->capture_default_str();
  app.add_option("--resampling", resampling,
                 "Resampling scheme: multinomial, stratified, systematic or residual")
      ->capture_default_str();
  app.add_option("--resampler", resampler,
                 "roulette (distributed, O(N/p) per rank; default), roulette-algorithm1 (the paper's Algorithm 1, "
                 "multinomial only), allgather or gather-root (naive baselines, systematic only)")
      ->capture_default_str();
  app.add_option("--local-sampler", local_sampler,
                 "How the roulette resampler finds the ancestors of this rank's sample points: search (prefix "
                 "sums + binary search), forest (Cutpoint + radix tree forest) or butterfly (butterfly partial "
                 "sums) give identical results; alias draws each rank's offspring from an alias table "
                 "(statistically valid and deterministic for a fixed rank count, but NOT identical across rank "
                 "counts; recorded in the result file)")
      ->capture_default_str();
  app.add_option("--data", data,
                 "Observations: a CSV file (header row, one column per component, empty field = missing) "
                 "or an HDF5 file with a dataset 'observations' (T x m). Without it, data are simulated from the "
                 "model with --seed");
  app.add_option("--output,-o", output, "HDF5 result file (per-step ESS, log-likelihood increments, filtered "
                                         "means and variances, resampling flags)");
  app.add_flag("--overwrite", overwrite, "Replace --output if it exists (otherwise an existing file is an error)");
  app.add_flag("--quiet,-q", quiet, "Print nothing but errors");
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

int FilterCommand::run(MPI_Comm comm) const {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const bool talk = rank == 0 && !quiet;

  int exit_code = 0;
  with_model(model, [&](auto model_instance) {
    using Model = decltype(model_instance);
    FilterOptions options;
    Observations observations;
    int resolved_steps = 0;
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
        observations = simulate(model_instance, resolved_steps, options.seed).observations;
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
    });

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
    BootstrapFilter<Model> filter(comm, model_instance, options);
    const FilterResult result = filter.run(observations, resolved_steps);
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
      if (!output.empty()) std::printf("wrote %s\n", output.c_str());
    }
    exit_code = 0;
  });
  return exit_code;
}

}  // namespace rsmc::drivers
