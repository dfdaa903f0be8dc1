#include "drivers/checkpoint_signals.hpp"

#include <unistd.h>

#include <csignal>
#include <initializer_list>
#include <cstdlib>
#include <cstring>

namespace rsmc::drivers {
namespace {

volatile std::sig_atomic_t g_signal = 0;
volatile std::sig_atomic_t g_in_setup = 1;  // until end_of_setup(): SIGTERM ends the process
volatile std::sig_atomic_t g_talk = 1;      // whether this process prints the set-up message (rank 0)
volatile std::sig_atomic_t g_ended = 0;     // set by end_of_command: SIGTERM exits with g_exit_code
volatile std::sig_atomic_t g_exit_code = 0;

// The line SIGTERM during the set-up prints (composed before any signal: a handler may not format).
constexpr char kTermDuringSetup[] =
    "rsmc: error: stopped by SIGTERM during the set-up, before the first step; nothing was written (exit code 143)\n";

extern "C" void on_checkpoint_signal(int signal) {
  if (signal == SIGTERM && g_ended != 0) ::_exit(g_exit_code);  // the command's own outcome, said already
  if (signal == SIGTERM && g_in_setup != 0) {
    if (g_talk != 0) {
      const ssize_t ignored = ::write(STDERR_FILENO, kTermDuringSetup, sizeof kTermDuringSetup - 1);
      (void)ignored;
    }
    ::_exit(128 + SIGTERM);  // async-signal-safe; no stdio buffers or atexit handlers run
  }
  g_signal = signal;
}

// This process's rank before MPI knows it: what the common launchers put in the environment.
bool launched_as_rank_zero() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* value = std::getenv(name)) return std::strcmp(value, "0") == 0;
  return true;
}

}  // namespace

void install_checkpoint_signals() {
  g_talk = launched_as_rank_zero() ? 1 : 0;
  struct sigaction action {};
  action.sa_handler = on_checkpoint_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // MPI and file I/O calls resume rather than fail with EINTR
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGUSR1, &action, nullptr);
}

void end_of_setup() { g_in_setup = 0; }

void end_of_command(int code) {
  g_exit_code = code;
  g_ended = 1;
}

void restore_default_signals() {
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGUSR1, SIG_DFL);
  if (const int early = static_cast<int>(g_signal)) std::raise(early);  // its default action: the end
}

int checkpoint_requested(MPI_Comm comm) {
  int signal = static_cast<int>(g_signal);
  MPI_Allreduce(MPI_IN_PLACE, &signal, 1, MPI_INT, MPI_MAX, comm);
  return signal;
}

}  // namespace rsmc::drivers
