// The model-independent part of `rsmc pmmh` (drivers/pmmh_run.hpp): the settings' checks, the chains
// on their split communicators, gathering their draws on rank 0, the output file and the summary.
//
// Every rank of a chain steps the same chain (the filter is collective over the chain's ranks and
// its estimate is the same on all of them), so the chain's leader (its first rank) holds what every
// rank holds; rank 0 receives each leader's draws as raw bytes, so the output is bitwise the chains'.
#include "framework/parallel/mpi.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "drivers/chain_summary.hpp"
#include "drivers/checkpoint_signals.hpp"
#include "drivers/collective.hpp"
#include "drivers/field_flags.hpp"
#include "drivers/filter_command.hpp"  // first_difference
#include "drivers/pmmh_run.hpp"
#include "drivers/version.hpp"
#include "framework/inference/chain_communicator.hpp"
#include "framework/inference/chain_random.hpp"
#include "framework/inference/chain_state.hpp"
#include "framework/io/chain_file.hpp"
#include "framework/io/existing_file.hpp"
#include "framework/io/observations_file.hpp"
#include "framework/parallel/communicator.hpp"
#include "framework/resample/scheme.hpp"

namespace rsmc::drivers {

void check_pmmh_settings(const PmmhCommand& c, int ranks) {
  if (c.chains < 1 || ranks % c.chains != 0)
    throw Error(input_name("chains") + ": " + std::to_string(c.chains) + " does not divide the " +
                std::to_string(ranks) +
                " ranks; expected a divisor of the rank count (each chain's filter gets ranks / C ranks)");
  if (static_cast<std::uint64_t>(c.chains) > inference::kMaxChains)
    throw Error(input_name("chains") + ": " + std::to_string(c.chains) + " is too many; expected C <= 2^32");
  // The command line and the run file refuse values below 1 already; a caller that sets the
  // command's fields itself gets the same refusal rather than a division by zero.
  if (c.iterations < 1)
    throw Error(input_name("iterations") + ": " + std::to_string(c.iterations) + " is not valid; expected I >= 1");
  if (static_cast<std::uint64_t>(c.iterations) > inference::kMaxChainIteration)
    throw Error(input_name("iterations") + ": " + std::to_string(c.iterations) +
                " is too many; expected at most 2^62 - 1");
  if (c.thinning < 1)
    throw Error(input_name("thinning") + ": " + std::to_string(c.thinning) + " is not valid; expected k >= 1");
  if (c.burn_in < 0 || c.burn_in >= c.iterations)
    throw Error(input_name("burn_in") + ": " + std::to_string(c.burn_in) + " leaves none of the " +
                std::to_string(c.iterations) + " iterations; expected 0 <= burn-in < iterations");
  if (c.thinning > c.iterations - c.burn_in)
    throw Error(input_name("thinning") + ": " + std::to_string(c.thinning) + " keeps none of the " +
                std::to_string(c.iterations - c.burn_in) +
                " iterations after the burn-in; expected thinning <= iterations - burn-in");
  if (c.steps < 0) throw Error(input_name("steps") + ": " + std::to_string(c.steps) + " is negative; expected T >= 1");
  if (!c.output.empty()) refuse_existing_file("output", c.output, c.overwrite);
  if (c.restart.empty() && something_exists(c.checkpoint))
    throw Error(input_name("checkpoint") + ": " + c.checkpoint +
                " already exists (the chains of a stopped run); continue them with --restart " + c.checkpoint +
                ", or remove it");
  pmmh_filter_options(c).validate(ranks / static_cast<int>(c.chains));
}

FilterOptions pmmh_filter_options(const PmmhCommand& c) {
  FilterOptions o;
  o.particles = static_cast<std::uint64_t>(c.particles);
  o.seed = static_cast<std::uint64_t>(c.seed);
  o.ess_threshold = c.ess_threshold;
  o.scheme = parse_scheme(c.resampling);
  return o;
}

Observations pmmh_observations(const PmmhCommand& c, int obs_dim) {
  Observations y = read_observations(c.data);
  if (y.dim != obs_dim)
    throw Error(c.data + ": observations have " + std::to_string(y.dim) + " components but model " + c.model +
                " expects " + std::to_string(obs_dim));
  if (c.steps > y.steps)
    throw Error(input_name("steps") + ": " + std::to_string(c.steps) + " exceeds the " + std::to_string(y.steps) +
                " observations in " + c.data);
  if (c.steps > 0) {
    y.steps = static_cast<int>(c.steps);
    y.values.resize(static_cast<std::size_t>(y.steps) * static_cast<std::size_t>(y.dim));
  }
  return y;
}

namespace {

// What one chain keeps: the kept draws and the proposal covariance at the schedule's points.
struct ChainRecording {
  std::vector<double> theta, log_likelihood, log_prior, proposed_log_likelihood, covariance;
  std::vector<std::uint8_t> outcome;
  std::vector<std::uint64_t> counters;
  std::vector<double> state_reals;  // a checkpoint only: the chain's state record
  std::vector<std::uint64_t> state_integers;

  void keep(const inference::ChainState& s, const inference::StepResult& r) {
    theta.insert(theta.end(), s.theta.begin(), s.theta.end());
    log_likelihood.push_back(s.log_likelihood);
    log_prior.push_back(s.log_prior);
    proposed_log_likelihood.push_back(r.proposed_log_likelihood);
    outcome.push_back(static_cast<std::uint8_t>(r.outcome));
  }
  void keep_covariance(const inference::ChainState& s) {
    const std::vector<double>& c = s.proposal.covariance();
    covariance.insert(covariance.end(), c.begin(), c.end());
  }
  void finish(const inference::ChainCounters& k) {
    counters = {k.accepted, k.rejected, k.non_finite, k.outside_support, k.adaptations, k.adaptation_failures};
  }
  void keep_state(const inference::ChainRecord& record) {
    for (const inference::NamedReal& r : record.reals) state_reals.push_back(r.value);
    for (const inference::NamedInteger& i : record.integers) state_integers.push_back(i.value);
  }
};

// Row c of an array of `chains` equal rows.
template <class T>
std::vector<T> row(const std::vector<T>& all, int chains, int c) {
  const std::size_t n = all.size() / static_cast<std::size_t>(chains);
  return std::vector<T>(all.begin() + static_cast<std::ptrdiff_t>(n * c),
                        all.begin() + static_cast<std::ptrdiff_t>(n * (c + 1)));
}

// Chain c's draws so far and its state record, from a checkpoint.
ChainRecording recording_of(const ChainOutput& o, int c, inference::ChainRecord& record) {
  ChainRecording r;
  r.theta = row(o.theta, o.chains, c);
  r.log_likelihood = row(o.log_likelihood, o.chains, c);
  r.log_prior = row(o.log_prior, o.chains, c);
  r.proposed_log_likelihood = row(o.proposed_log_likelihood, o.chains, c);
  r.covariance = row(o.proposal_covariance, o.chains, c);
  r.outcome = row(o.outcome, o.chains, c);
  const std::vector<double> reals = row(o.state_reals, o.chains, c);
  const std::vector<std::uint64_t> integers = row(o.state_integers, o.chains, c);
  for (std::size_t i = 0; i < reals.size(); ++i) record.reals.push_back({o.state_real_names[i], reals[i]});
  for (std::size_t i = 0; i < integers.size(); ++i) record.integers.push_back({o.state_integer_names[i], integers[i]});
  return r;
}

// The chain's settings that fix which iterations are kept and when the covariance is recorded.
struct Schedule {
  std::uint64_t iterations, burn_in, thinning;
  inference::AdaptationOptions adaptation;

  bool kept(std::uint64_t i) const { return i > burn_in && (i - burn_in) % thinning == 0; }
  // The kept iterations and the covariance records up to iteration `last`.
  std::vector<std::uint64_t> kept_iterations(std::uint64_t last) const {
    std::vector<std::uint64_t> out;
    for (std::uint64_t i = burn_in + thinning; i <= last; i += thinning) out.push_back(i);
    return out;
  }
  std::vector<std::uint64_t> covariance_iterations(std::uint64_t last) const {
    std::vector<std::uint64_t> out{0};
    for (std::uint64_t i = 1; i <= last; ++i)
      if (adaptation.due(i)) out.push_back(i);
    return out;
  }
};

// Prints the progress of chain 0 about ten times per run.
void print_progress(const inference::ChainState& s, std::uint64_t iterations) {
  const std::uint64_t every = iterations >= 10 ? iterations / 10 : 1;
  if (s.iteration % every != 0 && s.iteration != iterations) return;
  std::printf("chain 0: iteration %llu of %llu, acceptance rate %.3f\n", static_cast<unsigned long long>(s.iteration),
              static_cast<unsigned long long>(iterations), s.acceptance_rate());
  std::fflush(stdout);
}

// One iteration of this rank's chain (collective over the chain's ranks), recorded as the schedule says.
void step_chain(const inference::PmmhChain& chain, inference::ChainState& state,
                const inference::LogLikelihood& log_likelihood, const Schedule& schedule, ChainRecording& rec,
                bool talk) {
  const inference::StepResult r = chain.step(state, log_likelihood);
  if (schedule.kept(r.iteration)) rec.keep(state, r);
  if (schedule.adaptation.due(r.iteration)) rec.keep_covariance(state);
  if (talk) print_progress(state, schedule.iterations);
}

template <class T>
MPI_Datatype mpi_type();
template <>
MPI_Datatype mpi_type<double>() {
  return MPI_DOUBLE;
}
template <>
MPI_Datatype mpi_type<std::uint8_t>() {
  return MPI_UINT8_T;
}
template <>
MPI_Datatype mpi_type<std::uint64_t>() {
  return MPI_UINT64_T;
}

// Appends `v` on `to` as sent from `from` (the same rank: a copy).
template <class T>
void transfer(const std::vector<T>& v, std::vector<T>& to, int from, int rank, MPI_Comm comm) {
  if (from == 0) {
    if (rank == 0) to.insert(to.end(), v.begin(), v.end());
    return;
  }
  if (rank == from) MPI_Send(v.data(), static_cast<int>(v.size()), mpi_type<T>(), 0, tags::chain_output, comm);
  if (rank == 0) {
    MPI_Status status;
    int count = 0;
    MPI_Probe(from, tags::chain_output, comm, &status);
    MPI_Get_count(&status, mpi_type<T>(), &count);
    const std::size_t old = to.size();
    to.resize(old + static_cast<std::size_t>(count));
    MPI_Recv(to.data() + old, count, mpi_type<T>(), from, tags::chain_output, comm, MPI_STATUS_IGNORE);
  }
}

// Every chain's recording on rank 0, in chain order (chain c's leader is rank c * ranks / C).
void gather(const ChainRecording& mine, int chains, MPI_Comm comm, ChainOutput& out) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  for (int c = 0; c < chains; ++c) {
    const int leader = c * (ranks / chains);
    transfer(mine.theta, out.theta, leader, rank, comm);
    transfer(mine.log_likelihood, out.log_likelihood, leader, rank, comm);
    transfer(mine.log_prior, out.log_prior, leader, rank, comm);
    transfer(mine.outcome, out.outcome, leader, rank, comm);
    transfer(mine.proposed_log_likelihood, out.proposed_log_likelihood, leader, rank, comm);
    transfer(mine.covariance, out.proposal_covariance, leader, rank, comm);
    transfer(mine.counters, out.counters, leader, rank, comm);
    transfer(mine.state_reals, out.state_reals, leader, rank, comm);
    transfer(mine.state_integers, out.state_integers, leader, rank, comm);
  }
}

}  // namespace

namespace {

// The file's attributes: the configuration (what a restart must match) and the run's shape.
ResultAttributes chain_attributes(const PmmhCommand& c, int ranks, const char* execution_space) {
  ResultAttributes attributes;
  attributes.text = {{"rsmc_version", kVersion},
                     {"model", c.model},
                     {"configuration", c.configuration_text()},
                     {"device", resolve_device(c.device)},
                     {"execution_space", execution_space}};
  attributes.integers = {{"ranks", ranks},           {"chains", c.chains},
                         {"particles", c.particles}, {"iterations", c.iterations},
                         {"burn_in", c.burn_in},     {"thinning", c.thinning}};
  return attributes;
}

// --restart: the checkpoint, refused unless it is of this run (the same configuration, rank count free).
ChainOutput read_restart(const PmmhCommand& c) {
  const std::string what = input_name("restart") + ": '" + c.restart + "'";
  // Sealed: the whole file is checked before HDF5 parses it (framework/io/chain_file.hpp).
  const ChainOutput checkpoint = read_chain_checkpoint(c.restart, what);
  std::string configuration;
  for (const auto& [key, value] : read_result_attributes(c.restart).text)
    if (key == "configuration") configuration = value;
  const std::string mismatch = first_difference(configuration, c.configuration_text());
  if (!mismatch.empty()) throw Error(what + " belongs to another run; " + mismatch);
  return checkpoint;
}

void print_banner(const PmmhCommand& c, const InferenceSettings& settings, int ranks, const char* execution_space) {
  std::printf(
      "rsmc %s pmmh: model %s, %lld chain%s on %d rank%s (%d per chain), %lld particles, %lld iterations, "
      "seed %lld\n",
      kVersion, c.model.c_str(), c.chains, c.chains == 1 ? "" : "s", ranks, ranks == 1 ? "" : "s",
      ranks / static_cast<int>(c.chains), c.particles, c.iterations, c.seed);
  for (const inference::InferredParameter& p : settings.parameters)
    std::printf("  infer %s ~ %s, %s transform\n", p.name.c_str(), p.prior.describe().c_str(),
                p.transform.describe().c_str());
  std::printf("  device: %s (Kokkos::%s)\n", resolve_device(c.device).c_str(), execution_space);
  std::fflush(stdout);
}

}  // namespace

int run_pmmh_chains(const PmmhCommand& c, MPI_Comm given, const InferenceSettings& settings,
                    const char* execution_space,
                    const std::function<inference::LogLikelihood(MPI_Comm)>& likelihood_on) {
  // The run's own communicator (framework/parallel/communicator.hpp): its messages, the chains'
  // split and their filters never meet a caller's.
  const Communicator own(given);
  const MPI_Comm comm = own.get();
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const bool talk = rank == 0 && !c.quiet;
  // Every rank has its handlers before rank 0 announces the run (job scripts signal a run once they
  // see its banner; an unhandled SIGUSR1 kills the process). SIGTERM during the set-up (before the
  // banner) ends the run at once; any other signal stops the chains after their next iteration.
  install_checkpoint_signals();
  // --restart: the checkpoint is read (its seal and settings checked) before the banner, so that a
  // refused one is one error line and nothing else.
  ChainOutput checkpoint;
  run_collectively(comm, [&] {
    if (!c.restart.empty()) checkpoint = read_restart(c);
  });
  end_of_setup();
  MPI_Barrier(comm);  // every rank past its set-up before the banner appears
  const Schedule schedule{static_cast<std::uint64_t>(c.iterations), static_cast<std::uint64_t>(c.burn_in),
                          static_cast<std::uint64_t>(c.thinning), settings.chain.adaptation};
  ChainOutput output;
  output.chains = static_cast<int>(c.chains);
  for (const inference::InferredParameter& p : settings.parameters) output.parameter_names.push_back(p.name);
  if (talk) print_banner(c, settings, ranks, execution_space);

  const inference::ChainCommunicator split = inference::split_chains(comm, static_cast<int>(c.chains));
  inference::ChainOptions options = settings.chain;
  options.chain = static_cast<std::uint32_t>(split.chain);
  const inference::InferredParameterSet parameters(settings.parameters);
  const inference::PmmhChain chain(parameters, options);
  const inference::LogLikelihood log_likelihood = likelihood_on(split.comm);
  ChainRecording mine;
  inference::ChainState state;
  run_collectively(comm, [&] {
    if (!c.restart.empty()) {
      inference::ChainRecord record;
      mine = recording_of(checkpoint, split.chain, record);
      state = inference::restore(record, parameters);
      if (talk)
        std::printf("restarted from %s at iteration %llu\n", c.restart.c_str(),
                    static_cast<unsigned long long>(state.iteration));
    } else {
      state = chain.start(settings.initial, log_likelihood);
      mine.keep_covariance(state);
    }
  });
  const bool talk_progress = talk && split.chain == 0;
  int signal = 0;
  while (state.iteration < schedule.iterations && signal == 0) {
    run_collectively(comm, [&] { step_chain(chain, state, log_likelihood, schedule, mine, talk_progress); });
    signal = checkpoint_requested(comm);
  }
  MPI_Comm comm_to_free = split.comm;
  MPI_Comm_free(&comm_to_free);
  mine.finish(state.counters);
  // A stopped run writes its draws so far and every chain's state to --checkpoint instead.
  if (signal != 0) {
    const inference::ChainRecord record = inference::to_record(state);
    mine.keep_state(record);
    for (const inference::NamedReal& r : record.reals) output.state_real_names.push_back(r.name);
    for (const inference::NamedInteger& i : record.integers) output.state_integer_names.push_back(i.name);
  }
  output.iteration = schedule.kept_iterations(state.iteration);
  output.covariance_iteration = schedule.covariance_iterations(state.iteration);
  gather(mine, output.chains, comm, output);

  if (signal != 0) {
    run_on_root(comm, [&] {
      write_chain_file(c.checkpoint, output, chain_attributes(c, ranks, execution_space), true,
                       ChainFileKind::checkpoint);
    });
    if (talk)
      std::printf(
          "stopping after iteration %llu on signal %d; checkpoint: %s; continue with --restart %s (exit code "
          "%d)\n",
          static_cast<unsigned long long>(state.iteration), signal, c.checkpoint.c_str(), c.checkpoint.c_str(),
          kExitCheckpointed);
    return kExitCheckpointed;
  }
  run_on_root(comm, [&] {
    const std::string summary = chain_summary_text(output);
    if (!c.output.empty()) write_chain_file(c.output, output, chain_attributes(c, ranks, execution_space), c.overwrite);
    if (talk) {
      std::fputs(summary.c_str(), stdout);
      if (!c.output.empty()) std::printf("wrote %s\n", c.output.c_str());
    }
  });
  return 0;
}

}  // namespace rsmc::drivers
