// A contiguous MPI datatype and a commutative user-defined MPI_Op on it, created once and freed in
// MPI_Finalize: the life cycle shared by the exact reductions (exact_sum_mpi.cpp, u128_mpi.cpp).
//
// - The handles are created on the first get(); creation is guarded by a mutex, so concurrent first
//   calls create them once.
// - A keyval whose delete callback frees the handles is attached to MPI_COMM_SELF; the standard
//   deletes MPI_COMM_SELF's attributes first thing in MPI_Finalize, while freeing is still allowed.
//   The attribute value is the CachedReduction itself, so one callback serves every instance.
//
// Instances must have static storage duration (they are used until MPI_Finalize). Internal to the
// framework; not part of its API.
#pragma once

#include <mutex>

#include "framework/parallel/mpi.hpp"

namespace rsmc::exact::merge_allreduce_detail {

class CachedReduction {
 public:
  // Called with the return code of every MPI call made while creating the handles, and the call's
  // name; must throw when rc != MPI_SUCCESS (so that each user keeps its own error type and text).
  using Check = void (*)(int rc, const char* what);

  // The datatype is `count` consecutive `base` elements; `fn` is the (commutative) reduction on it.
  CachedReduction(int count, MPI_Datatype base, MPI_User_function* fn, Check check)
      : count_(count), base_(base), fn_(fn), check_(check) {}
  CachedReduction(const CachedReduction&) = delete;
  CachedReduction& operator=(const CachedReduction&) = delete;

  // The datatype and the op, created on the first call. Throws whatever `check` throws.
  void get(MPI_Datatype* type, MPI_Op* op);

  // Frees the handles. Called inside MPI_Finalize, by the delete callback of the attribute.
  void release();

 private:
  std::mutex mutex_;
  bool created_ = false;
  int count_;
  MPI_Datatype base_;
  MPI_User_function* fn_;
  Check check_;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Op op_ = MPI_OP_NULL;
  int keyval_ = MPI_KEYVAL_INVALID;
};

}  // namespace rsmc::exact::merge_allreduce_detail
