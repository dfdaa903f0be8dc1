#include "drivers/filter_command.hpp"

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>

#include "drivers/collective.hpp"
#include "drivers/field_flags.hpp"
#include "drivers/integer_option.hpp"
#include "drivers/model_registry.hpp"
#include "drivers/shared_options.hpp"
#include "framework/parallel/phase_times.hpp"
#include "framework/io/hdf5_observations.hpp"
#include "framework/io/observations_file.hpp"

namespace rsmc::drivers {

void FilterCommand::add_to(CLI::App& app) {
  app.add_option("--config", config_file,
                 "Run configuration (TOML): any option below as `key = value` with '-' written '_' (e.g. "
                 "ess_threshold = 0.9), model parameters under [parameters]; flags given on the command line win");
  // Each option with its run-file key (ranges as the command line checks them); the options rsmc
  // pmmh and simulate share come from their one table (shared_options.hpp).
  add_shared(app, config_keys, *this, SharedOption::model);
  add_shared(app, config_keys, *this, SharedOption::particles);
  steps_option = add_shared(app, config_keys, *this, SharedOption::steps);
  add_shared(app, config_keys, *this, SharedOption::seed);
  add_shared(app, config_keys, *this, SharedOption::ess_threshold);
  add_shared(app, config_keys, *this, SharedOption::resampling);
  config_keys.text("resampler", resampler,
                   app.add_option("--resampler", resampler,
                                  "roulette (distributed, O(N/p) per rank; default), roulette-algorithm1 (the paper's "
                                  "Algorithm 1, multinomial only), allgather or gather-root (naive baselines, "
                                  "systematic only)")
                       ->capture_default_str(),
                   {"roulette", "roulette-algorithm1", "allgather", "gather-root"});
  config_keys.text(
      "local_sampler", local_sampler,
      app.add_option("--local-sampler", local_sampler,
                     "How the roulette resampler finds the ancestors of this rank's sample points: search (prefix "
                     "sums + binary search), forest (Cutpoint + radix tree forest) or butterfly (butterfly partial "
                     "sums) give identical results; alias draws each rank's offspring from an alias table "
                     "(statistically valid and deterministic for a fixed rank count, but NOT identical across rank "
                     "counts; recorded in the result file)")
          ->capture_default_str(),
      {"search", "forest", "butterfly", "alias"});
  config_keys.text(
      "invalid_likelihood", invalid_likelihood,
      app.add_option("--invalid-likelihood", invalid_likelihood,
                     "What a NaN or +inf log-likelihood does: error (stop, naming the step and the lowest such global "
                     "particle id) or zero-weight (the particle gets weight zero; the count per step is reported and "
                     "written to --output as invalid_likelihoods)")
          ->capture_default_str(),
      {"error", "zero-weight"});
  config_keys.number(
      "balance_tolerance", balance_tolerance, 0.0, 1000.0, false,
      app.add_option("--balance-tolerance", balance_tolerance,
                     "Load tolerance tau >= 0 of the roulette resampler: after a resampling each rank holds between "
                     "(1 - tau) and (1 + tau) times its target, in the contiguous layout that moves the fewest "
                     "particles (0: the fixed block layout). Moves particles only; results are identical for any tau")
          ->capture_default_str());
  config_keys.text("rank_capacity", rank_capacity,
                   app.add_option("--rank-capacity", rank_capacity,
                                  "Relative speed of each rank, for ranks of unequal capacity: p positive weights "
                                  "separated by commas, or a file holding them; rank k's target is N capacity_k / "
                                  "sum. Default: equal"));
  add_shared(app, config_keys, *this, SharedOption::data);
  add_shared(app, config_keys, *this, SharedOption::output,
             "HDF5 result file (per-step ESS, log-likelihood increments, filtered means and variances, resampling "
             "flags)");
  add_shared(app, config_keys, *this, SharedOption::overwrite, "also --trace; never checkpoints");
  config_keys.integer(
      "checkpoint_every", checkpoint_every, 0,
      app.add_option("--checkpoint-every", checkpoint_every,
                     "Write a checkpoint every K steps (0: only when SIGTERM or SIGUSR1 arrives, which always "
                     "checkpoints and stops with exit code 75)")
          ->transform(integer_notation(true))
          ->capture_default_str());
  config_keys.text(
      "checkpoint_dir", checkpoint_dir,
      app.add_option(
             "--checkpoint-dir", checkpoint_dir,
             "Directory of the checkpoints (checkpoint-<step>.h5; created if missing). One run per directory: a run "
             "without --restart refuses a directory that already holds checkpoints")
          ->capture_default_str());
  config_keys.integer(
      "keep_checkpoints", keep_checkpoints, 1,
      app.add_option("--keep-checkpoints", keep_checkpoints,
                     "How many of this run's newest checkpoints to keep (>= 1); files of other runs are never deleted")
          ->transform(integer_notation(true))
          ->capture_default_str());
  config_keys.text(
      "restart", restart,
      app.add_option("--restart", restart,
                     "Continue from a checkpoint file, or `latest` (the newest in --checkpoint-dir), on any number of "
                     "ranks. Every option the checkpoint's run had and this command (or --config) does not give is "
                     "taken from the checkpoint: model, [parameters], particles, steps, seed, ess-threshold, scheme, "
                     "resampler, samplers, invalid-likelihood, data (not --balance-tolerance or --rank-capacity, "
                     "which only place particles on ranks). Options given must agree with it: a run that differs in "
                     "a way that changes results is refused"));
  CLI::Option* o_quiet = add_shared(app, config_keys, *this, SharedOption::quiet);
  CLI::Option* o_verbose = app.add_flag("--verbose,-v", verbose,
                                        "Also print the wall time per phase (propagate, weight, reduce, select, "
                                        "rebalance, io; maximum over ranks) and the resampling traffic");
  o_verbose->excludes(o_quiet);
  config_keys.boolean("verbose", verbose, o_verbose);
  config_keys.boolean("progress", show_progress,
                      app.add_flag("--progress", show_progress,
                                   "Show the progress line (step, ESS, log-likelihood, speed, ETA) on stderr even when "
                                   "it is not a terminal (default: only on a terminal)"));
  add_shared(app, config_keys, *this, SharedOption::device, "the result file records which ran");
  trace.add_to(app, config_keys);  // --trace, --trace-every (and their keys, listed last)
}

void FilterCommand::load_config() {
  if (config_file.empty()) return;
  const config::TomlDocument doc = config::read_toml_file(config_file);
  config_document = std::make_shared<config::TomlDocument>(doc);
  parameter_values = config_keys.apply(*config_document, "parameters");
  model_parameters = ModelParameters(parameter_values, config_document.get());
}

namespace {

// The newest checkpoint in `dir` for `--restart latest`, else `restart` itself.
std::string restart_file(const std::string& restart, const std::string& dir) {
  if (restart != "latest") return restart;
  const auto found = list_checkpoints(dir);
  if (found.empty()) throw Error("--restart latest: no checkpoint-<step>.h5 in --checkpoint-dir '" + dir + "'");
  return found.back();
}

}  // namespace

std::string FilterCommand::configuration_text(std::optional<int> ranks, int resolved_steps) const {
  std::ostringstream out;
  out << "model = " << quoted(model) << "\n"
      << "particles = " << particles << "\n"
      << "steps = " << resolved_steps << "\n"
      << "seed = " << seed << "\n"
      << "ess_threshold = " << std::setprecision(17) << ess_threshold << "\n"
      << "data = " << quoted(data) << "\n"
      << "resampling = " << quoted(resampling) << "\n"
      << "resampler = " << quoted(resampler) << "\n"
      << "local_sampler = " << quoted(local_sampler) << "\n"
      << "invalid_likelihood = " << quoted(invalid_likelihood) << "\n"
      << "balance_tolerance = " << std::setprecision(17) << balance_tolerance << "\n"
      << "rank_capacity = " << quoted(rank_capacity) << "\n";
  if (ranks) out << "ranks = " << *ranks << "\n";
  return out.str();
}

std::string FilterCommand::checkpoint_configuration(int ranks, int resolved_steps) const {
  std::string text = configuration_text(ranks, resolved_steps);
  if (!parameter_values.empty()) text += "[parameters]\n";
  for (const auto& [key, value] : parameter_values) text += key + " = " + toml_text(value) + "\n";
  return text;
}

void FilterCommand::inherit_from_checkpoint(MPI_Comm comm) {
  run_collectively(comm, [&] {
    trace.refuse_restart();
    restart_path = restart_file(restart, checkpoint_dir);
  });
  restart_header = read_checkpoint_header(comm, restart_path);
  run_collectively(comm, [&] {
    checkpoint_document = std::make_shared<config::TomlDocument>(
        config::parse_toml(restart_header->info.configuration, "checkpoint '" + restart_path + "' configuration"));
    // What the checkpoint's run had and neither --config nor the command line gives (apply() passes
    // over the settings given as flags).
    config::TomlDocument inherited = *checkpoint_document;
    // Not settings of the run: the rank count is free on a restart, and so is the layout of the
    // particles over the ranks (the capacities name ranks that may not exist any more).
    for (const char* key : {"ranks", "balance_tolerance", "rank_capacity"}) inherited.values.erase(key);
    const bool parameters_given = !parameter_values.empty();
    if (config_document)
      for (const auto& [key, value] : config_document->values) inherited.values.erase(key);
    std::map<std::string, config::TomlValue> parameters = config_keys.apply(inherited, "parameters");
    if (model != restart_header->info.model)
      throw Error("--restart: checkpoint '" + restart_path + "' is of model '" + restart_header->info.model +
                  "', not '" + model + "'");
    // [parameters] go as a whole: those of --config, or else the checkpoint's.
    if (!parameters_given && !parameters.empty()) {
      parameter_values = std::move(parameters);
      model_parameters = ModelParameters(parameter_values, checkpoint_document.get());
    }
  });
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
  // Zero weights instead of an error change results from the first NaN on. Only written when set (and
  // last, so that a mismatch reads "this run 'nothing'"): checkpoints from before the option existed
  // still match a run with the default.
  if (invalid_likelihood != "error") out << "invalid_likelihood = \"" << invalid_likelihood << "\"\n";
  return out.str();
}

std::vector<double> FilterCommand::parse_rank_capacity(const std::string& value) {
  if (value.empty()) return {};
  const bool is_list = value.find_first_not_of("0123456789.eE+-, ") == std::string::npos;
  std::string text = value;
  if (!is_list) {
    std::ifstream in(value);
    if (!in)
      throw Error(input_name("rank_capacity") + ": '" + value + "' is neither a list of numbers nor a readable file");
    std::ostringstream all;
    all << in.rdbuf();
    text = all.str();
  }
  for (char& c : text)
    if (c == ',' || c == '\n' || c == '\r' || c == '\t') c = ' ';
  std::istringstream words(text);
  std::vector<double> out;
  std::string word;
  while (words >> word) {
    char* end = nullptr;
    const double x = std::strtod(word.c_str(), &end);
    if (end == word.c_str() || *end != '\0')
      throw Error(input_name("rank_capacity") + ": '" + word + "'" + (is_list ? "" : " in " + value) +
                  " is not a number");
    out.push_back(x);
  }
  if (out.empty()) throw Error(input_name("rank_capacity") + ": no capacities in '" + value + "'");
  return out;
}

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

std::vector<double> recorded_true_state(const std::string& data, int state_dim, int steps) {
  if (data_format(data) != DataFormat::hdf5) return {};
  const std::optional<Observations> states = read_states_hdf5(data);
  if (!states || states->dim != state_dim || states->steps < steps) return {};
  return std::vector<double>(states->values.begin(),
                             states->values.begin() + static_cast<std::ptrdiff_t>(steps) * state_dim);
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

// --invalid-likelihood zero-weight: how many particles lost their weight that way, and when.
void print_invalid_likelihoods(const FilterResult& result) {
  unsigned long long total = 0;
  int steps = 0;
  for (std::uint64_t k : result.invalid_likelihoods) {
    total += k;
    steps += k > 0 ? 1 : 0;
  }
  std::printf("%llu particle log-likelihoods were NaN or +inf and got weight zero (at %d of %d steps)\n", total, steps,
              result.steps);
}

int FilterCommand::run(MPI_Comm comm) {
  run_collectively(comm, [&] { load_config(); });
  if (!restart.empty()) inherit_from_checkpoint(comm);
  return find_model(model).filter(*this, comm);
}

}  // namespace rsmc::drivers
