// Reproducible MPI reduction of binned sums (base/exact/binned_sum.hpp): the rank merge of the
// per-step reproducible sums, as allreduce_exact (exact_sum_mpi.hpp) is for ExactSum.
#pragma once

#include "base/exact/binned_sum.hpp"
#include "framework/parallel/mpi.hpp"

namespace rsmc::exact {

// In place: sums[i] becomes the merge of sums[i] over all ranks of comm, for i in [0, count).
// Collective. Every merge is exact (integer spills aligned to the highest level), so the result is
// the same whatever the rank count and MPI's reduction tree; it is normalised (canonical bytes), so
// every rank holds identical bytes. Same handle life cycle and errors as allreduce_exact.
void allreduce_binned(BinnedSum* sums, int count, MPI_Comm comm);

}  // namespace rsmc::exact
