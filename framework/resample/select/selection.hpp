// Offspring selection on the exact roulette wheel: how many copies each local particle gets, and
// the new global id of this rank's first offspring (renumbering). No particle data moves here.
//
// The wheel is [0, T): particle i (global id order) owns [C_{i-1}, C_i), where C are exact integer
// cumulative sums of the fixed-point weights (base/exact/fixed_weight.hpp). Rank k owns the
// slice [below, below + local). A sample point P selects the first particle with C_i > P (the
// monotonic inverse CDF), so offspring come out in ancestor order and the new ids
// q, q + 1, ... (q = samples that landed on lower ranks) are the same for any number of ranks.
//
// Every scheme's points are a pure function of (seed, step, sample index or tree node):
//   systematic   P_j = T (j + U) / N, one U for the step (stream of sample 0)
//   stratified   P_j = T (j + U_j) / N, U_j from the stream of sample j
//   multinomial  N i.i.d. uniform integers in [0, T), generated sorted per value range by
//                binomial splitting on a fixed tree (framework/resample/select/sorted_multinomial.hpp)
//   residual     floor(N w_i / W) copies each, then a multinomial draw of the remaining M
//                samples on the wheel of residuals N w_i - floor(...) W
// U has 53 random bits and every comparison is exact integer arithmetic (up to 256 bits).
// The rank's points (offsets from its slice start) then go to a local kernel, --local-sampler
// (framework/resample/select/local_sampling.hpp): search, forest and butterfly map every point to the same
// ancestor; alias keeps only the number of points and draws that many ancestors from an alias table.
// Work per rank: O(local particles + local offspring + log N) (multinomial: + tree depth; search:
// times log of the local particles).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "base/exact/uint128.hpp"
#include "framework/resample/select/local_sampler.hpp"
#include "framework/resample/scheme.hpp"

namespace rsmc {

struct WheelShare {       // this rank's slice of the roulette wheel, exact
  exact::u128 below = 0;  // fixed-weight total of lower ranks
  exact::u128 local = 0;  // this rank's total
  exact::u128 total = 0;  // all ranks
};

struct Selection {
  std::vector<std::uint64_t> counts;  // offspring per local particle
  std::uint64_t first_id = 0;         // q: new global id of this rank's first offspring
  std::uint64_t offspring = 0;        // sum of counts
};

struct SelectionInputs {
  const std::vector<std::uint64_t>* fixed_weights = nullptr;  // this rank's particles, global id order
  WheelShare wheel;
  std::uint64_t samples = 0;  // N offspring in total
  std::uint64_t seed = 0;
  std::uint32_t step = 0;
  LocalSampler sampler = LocalSampler::search;  // the local kernel (Algorithm 1 always searches)
  // Optional: a vector whose storage the returned Selection::counts takes over (moved from), so a
  // caller that hands the counts back after each call allocates them once (resample_workspace.hpp).
  std::vector<std::uint64_t>* counts_buffer = nullptr;
};

// The scalable selection (default). Residual needs two exact scans over `comm`; the other schemes
// communicate nothing here.
Selection select_offspring(Scheme scheme, const SelectionInputs& in, MPI_Comm comm);

// The roulette paper's Algorithm 1 (multinomial), faithfully: every rank loops over all N samples,
// drawing sample i uniformly on [0, T) from the stream of sample i, counts those below its slice
// and binary-searches those inside. O(N log(N/p)) per rank; reference and benchmark baseline.
Selection select_algorithm1(const SelectionInputs& in);

}  // namespace rsmc
