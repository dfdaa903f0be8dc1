// The `rsmc` command line as a function, so a program with its own models is the standard driver:
// register them (drivers/register_model.hpp), then `return rsmc::drivers::run_cli(argc, argv);`, or
// `run_cli(argc, argv, "my_model")` to make one of them the default model.
//
// run_cli initialises and finalises MPI and Kokkos itself. Every rank parses the same arguments;
// only rank 0 prints. Arguments starting with --kokkos- go to Kokkos (e.g. --kokkos-threads=8,
// --kokkos-device-id=1). Exit codes: 0 success, 1 bad input or a failed run (one line on stderr),
// 2 bad command line; `rsmc filter` also 3 (degenerate filter, last good step checkpointed) and 75
// (checkpointed on a signal), see docs/reliability.md.
#pragma once

#include <string>

namespace rsmc::drivers {

// default_model: the model filter, simulate and pmmh use when --model (or the run file's `model`)
// is not given; a program built around one model of its own names it here, so that forgetting
// --model runs that model and not the built-in linear_gaussian. It must be registered.
int run_cli(int argc, char** argv, const std::string& default_model = "linear_gaussian");

}  // namespace rsmc::drivers
