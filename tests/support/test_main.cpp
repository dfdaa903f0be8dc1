// Shared main of every Catch2 test executable: MPI and Kokkos are initialised once around the
// session. Unit tests run as a single process (MPI singleton); MPI tests run under mpiexec with
// several rank counts (see tests/CMakeLists.txt). Only rank 0 reports, but every rank's failures
// count: the exit code is the maximum over ranks.
#define CATCH_CONFIG_RUNNER
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <catch2/catch.hpp>
#include <cstdio>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int failed = 0;
  Kokkos::initialize(argc, argv);
  {
    Catch::Session session;
    const int parse = session.applyCommandLine(argc, argv);
    if (parse != 0) {
      failed = parse;
    } else {
      if (rank != 0) {
        // Other ranks use the terse reporter: their failures still show, and set the exit code.
        session.configData().reporterName = "compact";
      }
      failed = session.run();
    }
  }
  Kokkos::finalize();
  int any = failed;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any > 255 ? 255 : any;
}
