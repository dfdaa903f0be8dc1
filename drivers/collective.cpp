#include "drivers/collective.hpp"

#include <exception>
#include <string>

#include "drivers/field_flags.hpp"

namespace rsmc::drivers {

void run_collectively(MPI_Comm comm, const std::function<void()>& work) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::string message;
  bool failed = false;
  try {
    work();
  } catch (const std::exception& e) {
    failed = true;
    message = error_text(e);
  }
  int first_failed = failed ? rank : size;
  MPI_Allreduce(MPI_IN_PLACE, &first_failed, 1, MPI_INT, MPI_MIN, comm);
  if (first_failed == size) return;
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, first_failed, comm);
  message.resize(static_cast<std::size_t>(length));
  MPI_Bcast(message.data(), length, MPI_CHAR, first_failed, comm);
  throw CollectiveError(message, size);
}

void run_on_root(MPI_Comm comm, const std::function<void()>& work) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  run_collectively(comm, [&] {
    if (rank == 0) work();
  });
}

}  // namespace rsmc::drivers
