#include "framework/parallel/u128_mpi.hpp"

#include <cstddef>
#include <cstring>
#include <string>

#include "base/core/error.hpp"
#include "framework/parallel/cached_reduction.hpp"

// The MPI_Op's function: C language linkage (MPI calls it through a C function pointer) and internal
// linkage (static), defined at the end of this file.
extern "C" {
static void rsmc_u128_sum_op(void* in, void* inout, int* len, MPI_Datatype* type);
}

namespace rsmc::exact {
namespace {

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) len = 0;
  throw Error(std::string("rsmc::exact::exclusive_scan_total: ") + what +
              " failed: " + std::string(msg, static_cast<std::size_t>(len)));
}

// The wire format of a u128: two 64-bit words, low first (independent of how the compiler lays out
// unsigned __int128, and with no 16-byte alignment requirement on MPI's buffers).
struct Words {
  std::uint64_t lo;
  std::uint64_t hi;
};
static_assert(sizeof(Words) == 2 * sizeof(std::uint64_t), "Words must be two packed uint64");

Words to_words(u128 x) { return Words{u128_detail::lo64(x), u128_detail::hi64(x)}; }
u128 from_words(const Words& w) { return (static_cast<u128>(w.hi) << 64) | w.lo; }

}  // namespace

ScanTotal exclusive_scan_total(u128 local, MPI_Comm comm) {
  static merge_allreduce_detail::CachedReduction u128_sum(2, MPI_UINT64_T, &rsmc_u128_sum_op, &check);
  MPI_Datatype type;
  MPI_Op op;
  u128_sum.get(&type, &op);
  const Words mine = to_words(local);
  Words below{0, 0};
  Words total{0, 0};
  check(MPI_Exscan(&mine, &below, 1, type, op, comm), "MPI_Exscan");
  int rank = 0;
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  if (rank == 0) below = Words{0, 0};  // MPI_Exscan leaves rank 0's buffer undefined
  check(MPI_Allreduce(&mine, &total, 1, type, op, comm), "MPI_Allreduce");
  return ScanTotal{from_words(below), from_words(total)};
}

ScanTotal exclusive_scan_total(std::uint64_t local, MPI_Comm comm) {
  std::uint64_t below = 0;
  std::uint64_t total = 0;
  check(MPI_Exscan(&local, &below, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Exscan");
  int rank = 0;
  check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  if (rank == 0) below = 0;  // MPI_Exscan leaves rank 0's buffer undefined
  check(MPI_Allreduce(&local, &total, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce");
  return ScanTotal{below, total};
}

}  // namespace rsmc::exact

// inout[i] += in[i] modulo 2^128, the carry of the low words going into the high words. Exact
// integer addition is associative and commutative, so the result does not depend on the reduction
// tree MPI uses. Copies go through locals, so MPI's temporary buffers need no particular alignment.
static void rsmc_u128_sum_op(void* in, void* inout, int* len, MPI_Datatype* /*type*/) {
  using rsmc::exact::Words;
  const char* src = static_cast<const char*>(in);
  char* dst = static_cast<char*>(inout);
  for (int i = 0; i < *len; ++i) {
    const std::size_t at = static_cast<std::size_t>(i) * sizeof(Words);
    Words a, b;
    std::memcpy(&a, src + at, sizeof(Words));
    std::memcpy(&b, dst + at, sizeof(Words));
    const std::uint64_t lo = a.lo + b.lo;
    const std::uint64_t carry = lo < a.lo ? 1 : 0;
    b.hi = a.hi + b.hi + carry;
    b.lo = lo;
    std::memcpy(dst + at, &b, sizeof(Words));
  }
}
