// A step's weights as the resamplers take them: w_i = exp(log_weight_i - shift), with the one shift
// they were computed with, so the two cannot come from different places.
#pragma once

#include <Kokkos_Core.hpp>

namespace rsmc {

// shift >= every log-weight: the global maximum log-weight, or the model's bound above it
// (BootstrapFilter's weight_shift); the fixed-point weights of resampling are relative to it.
// exp_weight, when not empty, holds w_i = rsmc::math::exp(log_weight_i - shift) for every local
// particle (0 where the log-weight is -inf), as the filter's weight sums computed them: the
// resampler then takes the fixed-point weights from them without a second exp (the same bits,
// exact::fixed_weight_given_exp). Empty: the resampler computes the exps itself.
template <class MemorySpace>
struct ShiftedWeights {
  double shift = 0.0;
  Kokkos::View<const double*, MemorySpace> exp_weight;

  // The exps, when they cover the n local particles; else an empty View.
  Kokkos::View<const double*, MemorySpace> exps_for(std::size_t n) const {
    return exp_weight.extent(0) == n && n > 0 ? exp_weight : Kokkos::View<const double*, MemorySpace>();
  }
};

}  // namespace rsmc
