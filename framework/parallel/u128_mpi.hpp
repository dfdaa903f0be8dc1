// Exact exclusive scan and total over MPI ranks of 128-bit (and 64-bit) unsigned integers.
//
// Why: the distributed roulette resampler needs, on every rank k, the sum W_below of the fixed-point
// weight totals W_j of the ranks j < k and the grand total W_total (see fixed_weight.hpp and
// docs/reproducibility.md). Integer sums are exact, so both are the same for any number of ranks and any
// reduction order MPI chooses: a selection never depends on where a rank boundary falls.
//
// Range (precondition): the grand total must stay below 2^128 (respectively 2^64 for the 64-bit
// overload). Fixed-point weights are below 2^64 each, so N particles sum to less than N * 2^64,
// which is below 2^128 whenever N < 2^64, i.e. always. Overflow is not detected: the sums would
// silently wrap modulo 2^128 (2^64).
#pragma once

#include <cstdint>

#include "framework/parallel/mpi.hpp"
#include "base/exact/uint128.hpp"

namespace rsmc::exact {

// below: the sum of `local` over the ranks of lower rank in comm (0 on rank 0);
// total: the sum over all ranks of comm (the same on every rank).
struct ScanTotal {
  u128 below;
  u128 total;
};

// Collective over comm; exact. The 128-bit sums go through a commutative user-defined MPI_Op on a
// contiguous datatype of two MPI_UINT64_T words (low word first, the carry propagated into the high
// word); both are created on the first call and freed automatically in MPI_Finalize. Thread-safe
// creation; the collectives follow the thread level MPI was initialised with.
// Throws rsmc::Error when an MPI call returns an error (only under a non-fatal error handler).
ScanTotal exclusive_scan_total(u128 local, MPI_Comm comm);

// The same for 64-bit counts (MPI_UINT64_T with MPI_SUM); the results are widened to u128.
// Precondition: the total over all ranks is below 2^64.
// Note: pass a std::uint64_t (or a u128); a plain int argument is ambiguous between the overloads.
ScanTotal exclusive_scan_total(std::uint64_t local, MPI_Comm comm);

}  // namespace rsmc::exact
