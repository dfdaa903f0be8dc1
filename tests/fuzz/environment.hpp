// The process environment every fuzz entry needs, set up once per process by the libFuzzer main
// and the replay main: MPI (a singleton; the checkpoint reader runs on MPI_COMM_SELF) and Kokkos
// (the models that the config target builds allocate Kokkos views). Both are finalised at exit.
#pragma once

namespace rsmc::fuzz {

void start_environment(int* argc, char*** argv);

}  // namespace rsmc::fuzz
