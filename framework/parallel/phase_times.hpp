// Wall time per phase of a filter step, so the next optimisation target is visible.
//
// Phases: propagate (transition kernel), weight (log-likelihood kernel; with a model's
// log_likelihood_bound on a host backend also the weight sums, step_kernels::weigh_and_sum), reduce
// (max, exact weight sums, moments and their allreduces), select (offspring counts: fixed weights,
// wheel scan, local sampling), rebalance (moving offspring to their owners), io (checkpoint writes and reads).
// A ScopedPhase fences Kokkos when it ends, so asynchronous device work is charged to the phase
// that launched it. Times are this rank's; FilterResult reports the maximum over ranks. They are
// measurements, not results: they depend on the machine and rank count and are never compared.
#pragma once

#include "framework/parallel/mpi.hpp"

#include <Kokkos_Core.hpp>
#include <array>
#include <cstddef>

namespace rsmc {

enum class Phase : int { propagate, weight, reduce, select, rebalance, io };
inline constexpr std::size_t kPhaseCount = 6;
inline constexpr const char* kPhaseNames[kPhaseCount] = {"propagate", "weight", "reduce", "select", "rebalance", "io"};

struct PhaseTimes {
  std::array<double, kPhaseCount> seconds{};

  double& operator[](Phase p) { return seconds[static_cast<std::size_t>(p)]; }
  double operator[](Phase p) const { return seconds[static_cast<std::size_t>(p)]; }
  double total() const {
    double sum = 0.0;
    for (double s : seconds) sum += s;
    return sum;
  }
  // The per-phase maximum over the ranks of `comm` (collective).
  PhaseTimes max_over(MPI_Comm comm) const {
    PhaseTimes out = *this;
    MPI_Allreduce(MPI_IN_PLACE, out.seconds.data(), static_cast<int>(kPhaseCount), MPI_DOUBLE, MPI_MAX, comm);
    return out;
  }
};

// Adds the wall time of its scope to one phase; a null `times` times nothing.
class ScopedPhase {
 public:
  ScopedPhase(PhaseTimes* times, Phase phase) : times_(times), phase_(phase), start_(times ? MPI_Wtime() : 0.0) {}
  ScopedPhase(const ScopedPhase&) = delete;
  ScopedPhase& operator=(const ScopedPhase&) = delete;
  ~ScopedPhase() {
    if (times_ == nullptr) return;
    // The engine's kernels run on the default instance of its space; fencing that instance (a
    // stream on a GPU) times them without a device-wide synchronisation.
    Kokkos::DefaultExecutionSpace().fence();
    (*times_)[phase_] += MPI_Wtime() - start_;
  }

 private:
  PhaseTimes* times_;
  Phase phase_;
  double start_;
};

}  // namespace rsmc
