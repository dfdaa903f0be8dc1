// Views of one particle's state and of one observation, as a model's functions see them.
//
// Particles are stored as structure of arrays (component c of particle i at data[c * stride + i]),
// so one particle's state is a strided view. Models index it like an array: x[c]. The views are
// plain pointers plus a stride: cheap to pass by value into Kokkos and CUDA kernels.
#pragma once

#include <cstddef>

#include "base/core/portability.hpp"

namespace rsmc {

template <class T>
struct StridedView {
  T* data;
  std::ptrdiff_t stride;
  RSMC_HOST_DEVICE T& operator[](int c) const { return data[c * stride]; }
};

using StateView = StridedView<double>;             // a state the model writes
using ConstStateView = StridedView<const double>;  // a state the model reads
using ObservationView = StridedView<const double>; // one observation vector y_t (NaN = missing)

}  // namespace rsmc
