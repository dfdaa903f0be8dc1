// Host-side helper of the shipped models that own Kokkos Views: the check that Kokkos is initialised
// when such a model is built. (Parameter checks and descriptions come from the parameter declarations,
// framework/model/parameters.hpp.)
#pragma once

namespace rsmc::models::support {

// Throws rsmc::Error naming the model unless Kokkos is initialised (models that own Views need it).
void require_kokkos(const char* model);

}  // namespace rsmc::models::support
