#include "drivers/checkpoint_signals.hpp"

#include <csignal>

namespace rsmc::drivers {
namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void remember_signal(int signal) { g_signal = signal; }

}  // namespace

void install_checkpoint_signals() {
  struct sigaction action {};
  action.sa_handler = remember_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // MPI and file I/O calls resume rather than fail with EINTR
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGUSR1, &action, nullptr);
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
