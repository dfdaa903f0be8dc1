// Parallel chains on one MPI communicator: `rsmc pmmh --chains C` on p ranks gives each chain a
// contiguous block of p / C ranks for its particle filter (chain c: ranks c p/C .. (c+1) p/C - 1).
//
// Why contiguous blocks: ranks that are neighbours in the communicator usually share a node, so a
// chain's filter keeps its collectives on as few nodes as possible. Which ranks a chain gets does not
// change its results (the filter is rank-count invariant and the chain's random numbers are keyed by
// (seed, chain, iteration)), so the layout is free to choose.
#pragma once

#include "framework/parallel/mpi.hpp"

namespace rsmc::inference {

struct ChainCommunicator {
  int chain = 0;  // this rank's chain, 0 .. chains - 1
  int chains = 1;
  MPI_Comm comm = MPI_COMM_NULL;  // the ranks of this rank's chain (free with MPI_Comm_free)
};

// Collective over `comm`. Throws rsmc::Error (on every rank) "--chains: C ..." unless 1 <= C and C
// divides the communicator's size.
ChainCommunicator split_chains(MPI_Comm comm, int chains);

}  // namespace rsmc::inference
