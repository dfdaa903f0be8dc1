// The signal handlers of drivers/checkpoint_signals.hpp, each case in a forked child (the handlers
// end the process): SIGTERM during the set-up ends it with 143 and one line; SIGTERM after the
// command has returned (mpiexec tearing down the job after another rank's error) ends it with the
// command's own code and prints nothing, so that an error is never followed by a false second line.
#include <catch2/catch.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <string>

#include "drivers/checkpoint_signals.hpp"

namespace {

struct ChildOutcome {
  int exit_code = -1;  // -1: the child did not exit normally
  std::string stderr_text;
};

// Runs `body` in a child whose stderr goes to a pipe; the child then raises SIGTERM.
template <class Body>
ChildOutcome sigterm_in_child(Body body) {
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::dup2(pipe_fds[1], STDERR_FILENO);
    ::close(pipe_fds[0]);
    body();
    std::raise(SIGTERM);
    ::_exit(99);  // the handler returned: the signal did not end the process
  }
  ::close(pipe_fds[1]);
  ChildOutcome outcome;
  char buffer[512];
  for (ssize_t got; (got = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
    outcome.stderr_text.append(buffer, static_cast<std::size_t>(got));
  ::close(pipe_fds[0]);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  return outcome;
}

}  // namespace

TEST_CASE("checkpoint signals: SIGTERM during the set-up ends the process with 143 and one line", "[signals]") {
  ::unsetenv("OMPI_COMM_WORLD_RANK");  // in the child: rank 0 as far as the handler can tell
  const ChildOutcome outcome = sigterm_in_child([] { rsmc::drivers::install_checkpoint_signals(); });
  CHECK(outcome.exit_code == 143);
  CHECK(outcome.stderr_text ==
        "rsmc: error: stopped by SIGTERM during the set-up, before the first step; nothing was written "
        "(exit code 143)\n");
}

TEST_CASE("checkpoint signals: SIGTERM after the command returned keeps its exit code, silently", "[signals]") {
  for (const int code : {0, 1, 2}) {
    const ChildOutcome outcome = sigterm_in_child([code] {
      rsmc::drivers::install_checkpoint_signals();
      rsmc::drivers::end_of_command(code);
    });
    CHECK(outcome.exit_code == code);
    CHECK(outcome.stderr_text.empty());
  }
}
