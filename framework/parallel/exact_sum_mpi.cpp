#include "framework/parallel/exact_sum_mpi.hpp"

#include "framework/parallel/merge_allreduce.hpp"

namespace rsmc {
namespace exact {
namespace {

constexpr const char* kFunction = "rsmc::exact::allreduce_exact";

void check(int rc, const char* what) { merge_allreduce_detail::throw_unless_success(kFunction, rc, what); }

}  // namespace

// ExactSum::merge is exact integer arithmetic and normalize() makes the bytes canonical, so the
// shared merge op gives every rank the same bytes (merge_allreduce.hpp).
void allreduce_exact(ExactSum* sums, int count, MPI_Comm comm) {
  static merge_allreduce_detail::CachedReduction exact_sum(merge_allreduce_detail::int64_per_value<ExactSum>(),
                                                           MPI_INT64_T, &merge_allreduce_detail::merge_op<ExactSum>,
                                                           &check);
  merge_allreduce_detail::allreduce_merged(sums, count, comm, kFunction, exact_sum);
}

}  // namespace exact
}  // namespace rsmc
