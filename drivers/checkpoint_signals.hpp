// SIGTERM and SIGUSR1 ask a running filter to checkpoint and stop (what SLURM sends before a time
// limit or a pre-emption). The handler only sets a flag; the filter looks at it between steps, all
// ranks together (checkpoint_requested is collective), so every rank stops after the same step.
// During the set-up (until end_of_setup: inputs read, data simulated, the banner about to print)
// there is nothing to checkpoint, and the set-up can take long (simulating data, reading a large
// file): SIGTERM, the request to end, then ends the process at once, with one line on rank 0 and
// exit code 143 (128 + 15, as if the signal had killed it). SIGUSR1, the request to checkpoint
// (what the job scripts forward), is honoured after the first step, so that every job segment of a
// chain makes progress however early its signal comes.
#pragma once

#include "framework/parallel/mpi.hpp"

namespace rsmc::drivers {

// The exit code of a run that stopped on a signal after writing a checkpoint: "checkpointed,
// restart me" (EX_TEMPFAIL of sysexits.h). Job scripts requeue on it.
constexpr int kExitCheckpointed = 75;

// The exit code of a run whose particles all lost their weight: the last good step was checkpointed
// (the error line says where) and no result file was written.
constexpr int kExitDegenerate = 3;

// Installs the handlers (idempotent). Until then the signals keep their default action. run_cli
// installs them first thing, so that a signal sent while a run starts (MPI and Kokkos start-up,
// reading inputs: seconds on a loaded node) is handled as above, not by the default action.
void install_checkpoint_signals();

// The run is set up: from now on SIGTERM too asks for a checkpoint after the current step.
void end_of_setup();

// The command has returned `code`. When a rank exits with an error first, the launcher (mpiexec,
// srun) sends SIGTERM to the ranks still finishing (Kokkos::finalize, MPI_Finalize); their error, if
// any, is already printed, so SIGTERM from here on ends the process silently with `code`, instead of
// adding a second, false line ("stopped during the set-up") after the real one.
void end_of_command(int code);

// For the commands that do not checkpoint: the default actions again, and a signal received since
// install_checkpoint_signals is delivered now (so it ends the process, as it would have).
void restore_default_signals();

// Collective over `comm`: whether any rank has received SIGTERM or SIGUSR1; the signal number
// (the largest one received on any rank), or 0.
int checkpoint_requested(MPI_Comm comm);

}  // namespace rsmc::drivers
