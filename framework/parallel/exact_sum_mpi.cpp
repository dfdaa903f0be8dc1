#include "framework/parallel/exact_sum_mpi.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#include "framework/parallel/cached_reduction.hpp"

namespace rsmc {
namespace exact {
namespace {

static_assert(sizeof(ExactSum) % sizeof(std::int64_t) == 0,
              "ExactSum is sent as a contiguous run of int64");
constexpr int kInt64PerSum = static_cast<int>(sizeof(ExactSum) / sizeof(std::int64_t));

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) len = 0;
  throw std::runtime_error(std::string("rsmc::exact::allreduce_exact: ") + what +
                           " failed: " + std::string(msg, static_cast<std::size_t>(len)));
}

// inout[i] += in[i]; result normalised. Exact integer arithmetic, so the op is associative and
// commutative, and since normalised values are canonical the result bytes do not depend on the
// reduction tree. The buffers are copied through locals so that MPI's temporary buffers need no
// particular alignment.
extern "C" void exact_sum_op(void* in, void* inout, int* len, MPI_Datatype* /*type*/) {
  const char* src = static_cast<const char*>(in);
  char* dst = static_cast<char*>(inout);
  for (int i = 0; i < *len; ++i) {
    ExactSum a, b;
    std::memcpy(&a, src + i * sizeof(ExactSum), sizeof(ExactSum));
    std::memcpy(&b, dst + i * sizeof(ExactSum), sizeof(ExactSum));
    b.merge(a);
    b.normalize();
    std::memcpy(dst + i * sizeof(ExactSum), &b, sizeof(ExactSum));
  }
}

}  // namespace

void allreduce_exact(ExactSum* sums, int count, MPI_Comm comm) {
  if (count < 0)
    throw std::invalid_argument("rsmc::exact::allreduce_exact: count = " + std::to_string(count) +
                                ", expected count >= 0");
  if (count > 0 && sums == nullptr)
    throw std::invalid_argument(
        "rsmc::exact::allreduce_exact: sums is null, expected an array of count accumulators");
  // Normalised inputs keep every limb below 2^32 before the op, and the op normalises its result,
  // so limb additions cannot overflow however many ranks take part.
  for (int i = 0; i < count; ++i) sums[i].normalize();
  if (count == 0) return;
  static detail::CachedReduction exact_sum(kInt64PerSum, MPI_INT64_T, &exact_sum_op, &check);
  MPI_Datatype type;
  MPI_Op op;
  exact_sum.get(&type, &op);
  check(MPI_Allreduce(MPI_IN_PLACE, sums, count, type, op, comm), "MPI_Allreduce");
}

}  // namespace exact
}  // namespace rsmc
