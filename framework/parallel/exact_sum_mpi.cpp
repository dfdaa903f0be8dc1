#include "framework/parallel/exact_sum_mpi.hpp"

#include "framework/parallel/merge_allreduce.hpp"

namespace rsmc {
namespace exact {
namespace {

constexpr const char* kFunction = "rsmc::exact::allreduce_exact";

void check(int rc, const char* what) { detail::throw_unless_success(kFunction, rc, what); }

}  // namespace

// ExactSum::merge is exact integer arithmetic and normalize() makes the bytes canonical, so the
// shared merge op gives every rank the same bytes (merge_allreduce.hpp).
void allreduce_exact(ExactSum* sums, int count, MPI_Comm comm) {
  static detail::CachedReduction exact_sum(detail::int64_per_value<ExactSum>(), MPI_INT64_T,
                                           &detail::merge_op<ExactSum>, &check);
  detail::allreduce_merged(sums, count, comm, kFunction, exact_sum);
}

}  // namespace exact
}  // namespace rsmc
