#include "framework/parallel/binned_sum_mpi.hpp"

#include "framework/parallel/merge_allreduce.hpp"

namespace rsmc::exact {
namespace {

constexpr const char* kFunction = "rsmc::exact::allreduce_binned";

void check(int rc, const char* what) { merge_allreduce_detail::throw_unless_success(kFunction, rc, what); }

}  // namespace

void allreduce_binned(BinnedSum* sums, int count, MPI_Comm comm) {
  static merge_allreduce_detail::CachedReduction binned_sum(merge_allreduce_detail::int64_per_value<BinnedSum>(),
                                                            MPI_INT64_T, &merge_allreduce_detail::merge_op<BinnedSum>,
                                                            &check);
  merge_allreduce_detail::allreduce_merged(sums, count, comm, kFunction, binned_sum);
}

}  // namespace rsmc::exact
