// See model_support.hpp.
#include "models/model_support.hpp"

#include <Kokkos_Core.hpp>

#include <string>

#include "base/core/error.hpp"

namespace rsmc::models::support {

void require_kokkos(const char* model) {
  if (!Kokkos::is_initialized())
    throw Error(std::string(model) +
                ": Kokkos is not initialised; expected the model to be created between Kokkos::initialize and "
                "Kokkos::finalize");
}

}  // namespace rsmc::models::support
