// The split of a communicator into chains (framework/inference/chain_communicator.hpp).
#include "framework/inference/chain_communicator.hpp"

#include <string>

#include "base/core/error.hpp"

namespace rsmc::inference {

ChainCommunicator split_chains(MPI_Comm comm, int chains) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  if (chains < 1) throw Error("--chains: " + std::to_string(chains) + " is not a chain count; expected C >= 1");
  if (ranks % chains != 0)
    throw Error("--chains: " + std::to_string(chains) + " does not divide the " + std::to_string(ranks) +
                " ranks; expected a divisor of the rank count (each chain's filter gets ranks / C ranks)");
  ChainCommunicator out;
  out.chains = chains;
  out.chain = rank / (ranks / chains);
  MPI_Comm_split(comm, out.chain, rank, &out.comm);
  return out;
}

}  // namespace rsmc::inference
