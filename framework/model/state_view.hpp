// Views of one particle's state and of one observation, as a model's functions see them.
//
// Particles are stored as structure of arrays (component c of particle i at data[c * stride + i]),
// so one particle's state is a strided view. Models index it like an array: x[c]. The views are
// plain pointers plus a stride: cheap to pass by value into Kokkos and CUDA kernels.
//
// The observation a model writes (simulate_observation) has a type of its own, ObservationOut, so
// that a model's signatures say which argument is a state and which an observation, and a state
// view passed where the observation belongs (or the other way round) does not compile.
#pragma once

#include <cstddef>

#include "base/core/portability.hpp"

namespace rsmc {

// `Role` only makes views of the same element type distinct types (it is never defined).
template <class T, class Role = void>
struct StridedView {
  T* data;
  std::ptrdiff_t stride;
  RSMC_HOST_DEVICE T& operator[](int c) const { return data[c * stride]; }
};

struct ObservationRole;

using StateView = StridedView<double>;                        // a state the model writes
using ConstStateView = StridedView<const double>;             // a state the model reads
using ObservationView = StridedView<const double>;            // one observation vector y_t (NaN = missing)
using ObservationOut = StridedView<double, ObservationRole>;  // an observation y_t the model writes

}  // namespace rsmc
