// The one way rsmc includes MPI: every rsmc header that needs MPI includes this instead of <mpi.h>.
//
// rsmc uses MPI's C API only. The deprecated C++ bindings are left out: their headers warn under
// -Wextra. The rsmc::framework target also defines both macros, so this guard matters for code that
// includes an rsmc header without linking through that target.
#pragma once

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>
