// A Kokkos reducer for any accumulator with clear() and merge(): BinnedSum, ExactSum, or a struct of
// several (bench/step_prototype.hpp's StepSums). Every join is the accumulator's own exact merge, so
// a parallel_reduce gives the same value for any thread count, backend and join order, as long as
// merge() is exact and order-independent (both of the accumulators above are).
//
//   exact::BinnedSum s;
//   Kokkos::parallel_reduce(policy, KOKKOS_LAMBDA(int b, exact::BinnedSum& acc) { acc.add(...); },
//                           exact::MergeReducer<exact::BinnedSum>(s));
//
// The value type is trivially copyable and large (BinnedSum: 656 bytes): meant for reductions over
// batches of particles, one accumulator per thread, not per particle.
#pragma once

#include <Kokkos_Core.hpp>

namespace rsmc::exact {

template <class Accumulator, class Space = Kokkos::HostSpace>
struct MergeReducer {
  using reducer = MergeReducer;
  using value_type = Accumulator;
  using result_view_type = Kokkos::View<value_type, Space, Kokkos::MemoryUnmanaged>;

  KOKKOS_INLINE_FUNCTION explicit MergeReducer(value_type& value) : value_(&value) {}
  KOKKOS_INLINE_FUNCTION void join(value_type& dest, const value_type& src) const { dest.merge(src); }
  // Kokkos 3 calls the volatile overload on some backends; the accumulators are not volatile-aware.
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dest, const volatile value_type& src) const {
    const_cast<value_type&>(dest).merge(const_cast<const value_type&>(src));
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v.clear(); }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *value_.data(); }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return value_; }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }

 private:
  result_view_type value_;
};

}  // namespace rsmc::exact
