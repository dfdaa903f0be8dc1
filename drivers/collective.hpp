// Turning per-rank failures into one collective outcome.
//
// Input is read and checked on every rank. If any rank fails, every rank must stop (never leave
// the others waiting in a collective), and the user must see one line: the message of the lowest
// failing rank, printed by rank 0.
#pragma once

#include "framework/parallel/mpi.hpp"

#include <functional>

namespace rsmc::drivers {

// Runs `work` on every rank of `comm`. If it throws on any rank, every rank throws rsmc::Error
// carrying the message of the lowest rank that failed (a FieldError's with the command line's flags,
// drivers/field_flags.hpp). Collective: all ranks must call it.
void run_collectively(MPI_Comm comm, const std::function<void()>& work);

// Runs `work` on rank 0 only (e.g. writing a file); failures are broadcast as above.
void run_on_root(MPI_Comm comm, const std::function<void()>& work);

}  // namespace rsmc::drivers
