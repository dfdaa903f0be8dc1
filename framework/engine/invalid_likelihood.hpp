// What the filter does with a particle whose log-likelihood is NaN or +inf (a model bug, or a
// numerical failure such as 0 * inf), with its command-line names (--invalid-likelihood).
//   error        stop with an rsmc::Error naming the model, the step and the lowest such global id
//                (default: a NaN usually means a wrong result, which must not pass unnoticed)
//   zero_weight  give the particle log-weight -inf (weight zero) and count it; the counts per step
//                are part of the result (FilterResult::invalid_likelihoods)
#pragma once

#include <string>

#include "base/core/error.hpp"

namespace rsmc {

enum class InvalidLikelihood { error, zero_weight };

inline const char* invalid_likelihood_name(InvalidLikelihood mode) {
  return mode == InvalidLikelihood::zero_weight ? "zero-weight" : "error";
}

inline InvalidLikelihood parse_invalid_likelihood(const std::string& name) {
  for (InvalidLikelihood mode : {InvalidLikelihood::error, InvalidLikelihood::zero_weight})
    if (name == invalid_likelihood_name(mode)) return mode;
  throw unknown_choice("invalid_likelihood", name, "mode", "error or zero-weight");
}

}  // namespace rsmc
