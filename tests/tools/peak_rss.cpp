// peak_rss FILE COMMAND [ARGS...]: runs COMMAND, writes its peak resident memory in kB to FILE (the
// largest of the command and the processes it waited for: the kernel's high-water mark that
// /proc/PID/status calls VmHWM, as wait4 reports it in ru_maxrss) and exits with the command's exit
// code (128 + N when signal N ended it). For the tests that check a refusal comes before any large
// allocation (tests/cli/memory_guards.sh).
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: peak_rss FILE COMMAND [ARGS...]\n");
    return 2;
  }
  const pid_t child = ::fork();
  if (child < 0) {
    std::fprintf(stderr, "peak_rss: fork: %s\n", std::strerror(errno));
    return 2;
  }
  if (child == 0) {
    ::execvp(argv[2], argv + 2);
    std::fprintf(stderr, "peak_rss: cannot run %s: %s\n", argv[2], std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  while (::wait4(child, &status, 0, &usage) < 0)
    if (errno != EINTR) {
      std::fprintf(stderr, "peak_rss: wait4: %s\n", std::strerror(errno));
      return 2;
    }
  std::FILE* out = std::fopen(argv[1], "w");
  if (out == nullptr || std::fprintf(out, "%ld\n", usage.ru_maxrss) < 0 || std::fclose(out) != 0) {
    std::fprintf(stderr, "peak_rss: cannot write %s\n", argv[1]);
    return 2;
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
