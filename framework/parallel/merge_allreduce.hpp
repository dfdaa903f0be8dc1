// The allreduce shared by the exact and the reproducible sums (exact_sum_mpi.cpp, binned_sum_mpi.cpp):
// any trivially copyable accumulator with merge() (exact, order-independent) and normalize()
// (canonical bytes), sent as a run of int64 through a commutative user-defined MPI_Op. Internal to the
// framework; not part of its API.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "framework/parallel/cached_reduction.hpp"
#include "framework/parallel/mpi.hpp"

namespace rsmc::exact::merge_allreduce_detail {

// Throws std::runtime_error("<function>: <what> failed: <MPI's message>") unless rc == MPI_SUCCESS.
inline void throw_unless_success(const char* function, int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) len = 0;
  throw std::runtime_error(std::string(function) + ": " + what +
                           " failed: " + std::string(msg, static_cast<std::size_t>(len)));
}

// inout[i] merged with in[i] and normalised. Exact merges make the op associative and commutative,
// and normalised values are canonical, so the result bytes do not depend on the reduction tree. The
// buffers are copied through locals: MPI's temporary buffers need no particular alignment.
template <class T>
void merge_op(void* in, void* inout, int* len, MPI_Datatype* /*type*/) {
  const char* src = static_cast<const char*>(in);
  char* dst = static_cast<char*>(inout);
  for (int i = 0; i < *len; ++i) {
    T a, b;
    std::memcpy(&a, src + i * sizeof(T), sizeof(T));
    std::memcpy(&b, dst + i * sizeof(T), sizeof(T));
    b.merge(a);
    b.normalize();
    std::memcpy(dst + i * sizeof(T), &b, sizeof(T));
  }
}

template <class T>
constexpr int int64_per_value() {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) % sizeof(std::int64_t) == 0,
                "sent as a contiguous run of int64");
  return static_cast<int>(sizeof(T) / sizeof(std::int64_t));
}

// values[i] becomes the merge of values[i] over the ranks of comm, normalised, identical bytes on
// every rank. `function` names the caller in errors; `reduction` is the caller's cached datatype and
// op (merge_op<T> over int64_per_value<T>() MPI_INT64_T).
template <class T>
void allreduce_merged(T* values, int count, MPI_Comm comm, const char* function, CachedReduction& reduction) {
  if (count < 0)
    throw std::invalid_argument(std::string(function) + ": count = " + std::to_string(count) + ", expected count >= 0");
  if (count > 0 && values == nullptr)
    throw std::invalid_argument(std::string(function) + ": the array is null, expected count accumulators");
  // Normalised inputs keep the op's intermediate values in range however many ranks take part.
  for (int i = 0; i < count; ++i) values[i].normalize();
  if (count == 0) return;
  MPI_Datatype type;
  MPI_Op op;
  reduction.get(&type, &op);
  throw_unless_success(function, MPI_Allreduce(MPI_IN_PLACE, values, count, type, op, comm), "MPI_Allreduce");
}

}  // namespace rsmc::exact::merge_allreduce_detail
