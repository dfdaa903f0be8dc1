#include "framework/resample/rebalance/rebalance_transport.hpp"

#include <mpi.h>

// Open MPI declares MPIX_Query_cuda_support() in its extensions header. MPIX_CUDA_AWARE_SUPPORT says
// only whether the library was configured for CUDA at build time (Debian's is not); the query says
// whether this run can use it.
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

namespace rsmc {

const char* rebalance_transport_name(RebalanceTransport transport) {
  switch (transport) {
    case RebalanceTransport::host_memory:
      return "host-memory";
    case RebalanceTransport::device_memory:
      return "device-memory";
    case RebalanceTransport::pinned_staging:
      return "pinned-staging";
  }
  return "unknown";
}

bool mpi_reads_cuda_memory() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

}  // namespace rsmc
