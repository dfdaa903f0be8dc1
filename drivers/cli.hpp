// The `rsmc` command line as a function, so a program with its own models is the standard driver:
// register them (drivers/register_model.hpp), then `return rsmc::drivers::run_cli(argc, argv);`.
//
// run_cli initialises and finalises MPI and Kokkos itself. Every rank parses the same arguments;
// only rank 0 prints. Arguments starting with --kokkos- go to Kokkos (e.g. --kokkos-threads=8,
// --kokkos-device-id=1). Exit codes: 0 success, 1 bad input or a failed run (one line on stderr),
// 2 bad command line; `rsmc filter` also 3 (degenerate filter, last good step checkpointed) and 75
// (checkpointed on a signal), see docs/reliability.md.
#pragma once

namespace rsmc::drivers {

int run_cli(int argc, char** argv);

}  // namespace rsmc::drivers
