#include "framework/parallel/cached_reduction.hpp"

// The attribute's delete callback: C language linkage (MPI calls it through a C function pointer)
// and internal linkage (static), defined at the end of this file.
extern "C" {
static int rsmc_cached_reduction_free(MPI_Comm comm, int keyval, void* attr, void* extra);
}

namespace rsmc::exact::merge_allreduce_detail {

void CachedReduction::get(MPI_Datatype* type, MPI_Op* op) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!created_) {
    check_(MPI_Type_contiguous(count_, base_, &type_), "MPI_Type_contiguous");
    check_(MPI_Type_commit(&type_), "MPI_Type_commit");
    check_(MPI_Op_create(fn_, /*commute=*/1, &op_), "MPI_Op_create");
    check_(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &rsmc_cached_reduction_free, &keyval_, nullptr),
           "MPI_Comm_create_keyval");
    check_(MPI_Comm_set_attr(MPI_COMM_SELF, keyval_, this), "MPI_Comm_set_attr");
    created_ = true;
  }
  *type = type_;
  *op = op_;
}

void CachedReduction::release() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!created_) return;
  MPI_Op_free(&op_);
  MPI_Type_free(&type_);
  MPI_Comm_free_keyval(&keyval_);
  created_ = false;
}

}  // namespace rsmc::exact::merge_allreduce_detail

static int rsmc_cached_reduction_free(MPI_Comm /*comm*/, int /*keyval*/, void* attr, void* /*extra*/) {
  static_cast<rsmc::exact::merge_allreduce_detail::CachedReduction*>(attr)->release();
  return MPI_SUCCESS;
}
