#include "drivers/cli.hpp"

#include "framework/parallel/mpi.hpp"

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include <exception>

#include "bench/checkpoint_bench.hpp"
#include "bench/e2e_bench.hpp"
#include "bench/kernels_bench.hpp"
#include "bench/memory_bench.hpp"
#include "bench/resample_bench.hpp"
#include "bench/select_bench.hpp"
#include "bench/sim_scale.hpp"
#include "drivers/checkpoint_signals.hpp"
#include "drivers/collective.hpp"
#include "drivers/field_flags.hpp"
#include "drivers/filter_command.hpp"
#include "drivers/info_command.hpp"
#include "drivers/model_registry.hpp"
#include "drivers/pmmh_command.hpp"
#include "drivers/shared_options.hpp"
#include "drivers/simulate_command.hpp"
#include "drivers/smooth_command.hpp"
#include "drivers/version.hpp"
#if defined(RSMC_ENGINE_CUDA_KERNELS)
#include "kernels/cuda/cuda_kernels.hpp"
#endif

namespace {

// A subcommand's parsed options (its CLI::App) and what runs it.
struct Subcommand {
  CLI::App* app;
  std::function<int(MPI_Comm)> run;
  bool checkpoints_on_signal = false;  // SIGTERM/SIGUSR1 ask it to checkpoint and stop
};

// The same subcommand, stopped by SIGTERM/SIGUSR1 through a checkpoint (checkpoint_signals.hpp).
Subcommand checkpointing(Subcommand command) {
  command.checkpoints_on_signal = true;
  return command;
}

// Registers the subcommand NAME of `parent`: a Command (its options bound to it by add_to, its work
// done by run(comm)) owned by the returned run. A non-empty footer ends the subcommand's --help.
template <class Command>
Subcommand add_command(CLI::App& parent, const char* name, const std::string& description,
                       const std::string& footer = "") {
  auto command = std::make_shared<Command>();
  CLI::App* app = parent.add_subcommand(name, description);
  command->add_to(*app);
  if (!footer.empty()) app->footer(footer);
  return {app, [command](MPI_Comm comm) { return command->run(comm); }};
}

int run(int argc, char** argv, MPI_Comm comm, const std::string& default_model) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  try {
    rsmc::drivers::find_model(default_model);  // throws naming the registered models
  } catch (const std::exception& e) {
    if (rank == 0) std::fprintf(stderr, "rsmc: error: run_cli's default model: %s\n", e.what());
    return 1;
  }
  rsmc::drivers::RunSettings::set_default_model_name(default_model);  // before the commands are made

  std::string models;
  for (const auto& name : rsmc::drivers::model_names()) models += "  " + name + "\n";
  CLI::App app{std::string("rsmc ") + rsmc::drivers::kVersion +
                   ": reproducible distributed Sequential Monte Carlo (particle filters).\n"
                   "Run under MPI, e.g. `mpiexec -n 4 rsmc filter --particles 1000000`; results are bitwise\n"
                   "identical for any number of ranks.",
               "rsmc"};
  app.require_subcommand(1);
  app.set_version_flag("--version", rsmc::drivers::kVersion);
  const std::string model_list = "Models:\n" + models;
  std::vector<Subcommand> commands = {
      checkpointing(add_command<rsmc::drivers::FilterCommand>(
          app, "filter", "Run a bootstrap particle filter and report the log-likelihood, ESS and filtered moments",
          model_list)),
      add_command<rsmc::drivers::SimulateCommand>(
          app, "simulate", "Simulate observations from a model into a CSV or HDF5 file", model_list),
      checkpointing(add_command<rsmc::drivers::PmmhCommand>(
          app, "pmmh",
          "Infer model parameters by particle marginal Metropolis-Hastings, the likelihood estimated by the "
          "distributed filter (docs/inference.md)",
          model_list))};
  CLI::App* bench_app = app.add_subcommand("bench", "Benchmarks: JSON lines on stdout (`rsmc bench` lists them)");
  std::vector<Subcommand> benches = {
      add_command<rsmc::bench::ResampleBench>(
          *bench_app, "resample", "Time the resampler implementations against a memcpy of the same state bytes"),
      add_command<rsmc::bench::SelectBench>(
          *bench_app, "select",
          "Time the data-parallel selection against the serial select_offspring on the same weights"),
      add_command<rsmc::bench::KernelsBench>(
          *bench_app, "kernels",
          "Time construction and sampling of the local sampling kernels against std::discrete_distribution "
          "and a memcpy of the same bytes (rank 0 only, one thread)"),
      add_command<rsmc::bench::CheckpointBench>(
          *bench_app, "checkpoint",
          "Time checkpoint writes and reads (parallel HDF5) against a plain write/read of the same bytes"),
      add_command<rsmc::bench::E2EBench>(
          *bench_app, "e2e",
          "Time whole filter runs (particle-steps per second) against a hand-written single-process filter, "
          "with the phase profile and the speed-up over one rank"),
      add_command<rsmc::bench::MemoryBench>(
          *bench_app, "memory",
          "Measure the peak resident bytes per particle of one filter run (one size per process)")};
  CLI::App* models_app = app.add_subcommand("models",
                                            "List the models and their parameters (with defaults), "
                                            "settable under [parameters] in a --config file");
  commands.push_back(add_command<rsmc::drivers::InfoCommand>(
      app, "info",
      "Describe a result file, a checkpoint (verifying its checksums), a trace, a smoothed file or an "
      "observations file"));
  commands.push_back(add_command<rsmc::drivers::SmoothCommand>(
      app, "smooth", "Smoothed means and variances from a trace file (rsmc filter --trace) by genealogy tracing"));
  rsmc::bench::SimScaleCommand sim_scale;
  CLI::App* sim_scale_app = app.add_subcommand(
      "sim-scale",
      "Model the communication of one resampling for up to 65,536 ranks and 10^10 particles, without "
      "allocating particles (JSON lines; docs/sim-scale.md)");
  sim_scale.add_to(*sim_scale_app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return rank == 0 ? app.exit(e) : 0;
  } catch (const CLI::CallForAllHelp& e) {
    return rank == 0 ? app.exit(e) : 0;
  } catch (const CLI::CallForVersion& e) {
    return rank == 0 ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    if (rank == 0)
      std::fprintf(stderr, "rsmc: error: %s (see rsmc --help)\n", rsmc::drivers::one_line(e.what()).c_str());
    return 2;
  }

  try {
    for (const auto* list : {&commands, &benches})
      for (const Subcommand& command : *list)
        if (*command.app) {
          if (!command.checkpoints_on_signal) rsmc::drivers::restore_default_signals();
          return command.run(comm);
        }
    rsmc::drivers::restore_default_signals();
    if (*models_app) {
      if (rank == 0) std::fputs(rsmc::drivers::models_text().c_str(), stdout);
      return 0;
    }
    if (*sim_scale_app) return rank == 0 ? sim_scale.run() : 0;  // a model: no MPI work to share
    if (*bench_app) {                                            // `rsmc bench` alone: list the benchmarks
      if (rank == 0) std::fputs(bench_app->help().c_str(), stdout);
      return 0;
    }
  } catch (const std::exception& e) {
    if (rank == 0)
      std::fprintf(stderr, "rsmc: error: %s\n", rsmc::drivers::one_line(rsmc::drivers::error_text(e)).c_str());
    rsmc::drivers::end_of_command(1);  // said: a launcher's SIGTERM from here on ends this rank quietly
    // Every rank holds a collective error: none exits (which makes mpiexec kill the others) before
    // rank 0 has printed it. Any other error may be this rank's alone, so nothing to wait for.
    const auto* collective = dynamic_cast<const rsmc::drivers::CollectiveError*>(&e);
    int ranks = 1;
    MPI_Comm_size(comm, &ranks);
    if (collective != nullptr && collective->ranks() == ranks) MPI_Barrier(comm);
    return 1;
  }
  return 0;
}

}  // namespace

namespace rsmc::drivers {

namespace {

// A Kokkos CUDA build initialises CUDA in Kokkos::initialize, which aborts with a stack of messages
// when no GPU is visible; say it in one line first. Always true in a build without CUDA.
bool gpu_visible_if_needed() {
#if defined(RSMC_ENGINE_CUDA_KERNELS)
  std::string why;
  if (kernels::cuda::device_count(&why) > 0) return true;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    std::fprintf(stderr,
                 "rsmc: error: this rsmc is built for CUDA and sees no GPU (%s); run it where a GPU is visible "
                 "(--device host still needs one to start), or use a host build (docs/building.md)\n",
                 why.c_str());
  return false;
#else
  return true;
#endif
}

}  // namespace

int run_cli(int argc, char** argv, const std::string& default_model) {
  install_checkpoint_signals();  // before the seconds of start-up (checkpoint_signals.hpp)
  MPI_Init(&argc, &argv);
  // Kokkos gets only its own --kokkos-* arguments (it would otherwise answer --help itself);
  // rsmc's parser gets the rest.
  std::vector<char*> kokkos_args{argv[0]}, rsmc_args{argv[0]};
  for (int i = 1; i < argc; ++i)
    (std::strncmp(argv[i], "--kokkos-", 9) == 0 ? kokkos_args : rsmc_args).push_back(argv[i]);
  int kokkos_argc = static_cast<int>(kokkos_args.size());
  kokkos_args.push_back(nullptr);
  if (!gpu_visible_if_needed()) {
    MPI_Finalize();
    return 1;
  }
  Kokkos::initialize(kokkos_argc, kokkos_args.data());
  const int code = run(static_cast<int>(rsmc_args.size()), rsmc_args.data(), MPI_COMM_WORLD, default_model);
  end_of_command(code);  // a launcher's SIGTERM while this rank finishes must not add a line
  Kokkos::finalize();
  MPI_Finalize();
  return code;
}

}  // namespace rsmc::drivers
