#include "environment.hpp"

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdlib>

namespace rsmc::fuzz {
namespace {

void finish_environment() {
  if (Kokkos::is_initialized()) Kokkos::finalize();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

}  // namespace

void start_environment(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  Kokkos::initialize(*argc, *argv);
  std::atexit(finish_environment);  // libFuzzer ends with exit(), not by returning from main
}

}  // namespace rsmc::fuzz
