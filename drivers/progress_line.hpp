// The rank-0 progress line of long runs: step, ESS, log-likelihood so far, particle-steps per
// second and the estimated time to completion, redrawn in place at most twice a second on stderr.
// Shown by default only when stderr is a terminal (never in log files), or always with --progress.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace rsmc::drivers {

class ProgressLine {
 public:
  // `enabled`: draw at all (rank 0, not --quiet, and a terminal or --progress).
  ProgressLine(bool enabled, int first_step, int last_step, std::uint64_t particles)
      : enabled_(enabled),
        first_(first_step),
        last_(last_step),
        particles_(particles),
        start_(std::chrono::steady_clock::now()),
        last_draw_(start_) {}

  void update(int step, double ess, double log_likelihood) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (step < last_ && now - last_draw_ < std::chrono::milliseconds(500)) return;
    last_draw_ = now;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    const double done = step - first_;
    const double rate = seconds > 0 ? done * static_cast<double>(particles_) / seconds : 0.0;
    const double eta = done > 0 ? seconds * (last_ - step) / done : 0.0;
    std::fprintf(stderr, "\r  step %d/%d  ESS %.4g  log-likelihood %.6g  %.3g particle-steps/s  ETA %.0f s   ", step,
                 last_, ess, log_likelihood, rate, eta);
    if (step == last_) std::fputc('\n', stderr);
    std::fflush(stderr);
    drawn_ = true;
  }

  // Ends the line early (a signal, an error) so that later messages start on a fresh line.
  void close() {
    if (enabled_ && drawn_) std::fputc('\n', stderr);
    enabled_ = false;
  }

 private:
  bool enabled_;
  int first_, last_;
  std::uint64_t particles_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  bool drawn_ = false;
};

}  // namespace rsmc::drivers
