// Turning per-rank failures into one collective outcome.
//
// Input is read and checked on every rank. If any rank fails, every rank must stop (never leave
// the others waiting in a collective), and the user must see one line: the message of the lowest
// failing rank, printed by rank 0.
#pragma once

#include "framework/parallel/mpi.hpp"

#include <functional>
#include <string>

#include "base/core/error.hpp"

namespace rsmc::drivers {

// What run_collectively throws: the same error on every rank of its communicator at once. Its
// catcher (run in cli.cpp) prints it on rank 0 and, when that communicator held every rank of the
// command's (`ranks` equal: a sub-communicator as large as its parent is all of it), waits for every
// rank before exiting, so that no rank's exit makes the launcher kill rank 0 before the line is out.
class CollectiveError : public Error {
 public:
  CollectiveError(const std::string& message, int ranks) : Error(message), ranks_(ranks) {}
  int ranks() const { return ranks_; }  // the size of the communicator every rank of which threw it

 private:
  int ranks_;
};

// Runs `work` on every rank of `comm`. If it throws on any rank, every rank throws CollectiveError
// carrying the message of the lowest rank that failed (a FieldError's with the command line's flags,
// drivers/field_flags.hpp). Collective: all ranks must call it.
void run_collectively(MPI_Comm comm, const std::function<void()>& work);

// Runs `work` on rank 0 only (e.g. writing a file); failures are broadcast as above.
void run_on_root(MPI_Comm comm, const std::function<void()>& work);

}  // namespace rsmc::drivers
