// A communicator of rsmc's own, so that rsmc embeds in other people's MPI programs (as Cabana does).
//
// Each long-lived owner of communication (a filter run: BootstrapFilter; a pmmh run) duplicates the
// communicator it is given once, with MPI_Comm_dup, and sends its messages on the duplicate, with the
// tags below. The caller's messages, and another owner's, can then never match its receives, whatever
// tags and sources either uses (an MPI_ANY_SOURCE probe included): MPI matches messages only within
// one communicator. Work that lives no longer than one call of an owner (a likelihood evaluation of
// a pmmh chain) borrows the owner's communicator instead of duplicating its own.
#pragma once

#include <utility>

#include "framework/parallel/mpi.hpp"

namespace rsmc {

// The tags of rsmc's point-to-point messages, one per kind of message; on a Communicator they meet
// only rsmc's own messages.
namespace tags {
constexpr int rebalance = 1;     // particles moving to their new rank (rebalance/rebalance.hpp)
constexpr int chain_output = 2;  // a pmmh chain's recording sent to rank 0 (drivers/pmmh_chains.cpp)
}  // namespace tags

// An MPI_Comm_dup of a communicator, freed with the object. Constructing one is collective over the
// given communicator. Move-only.
class Communicator {
 public:
  explicit Communicator(MPI_Comm given) { MPI_Comm_dup(given, &comm_); }
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  Communicator(Communicator&& other) noexcept : comm_(std::exchange(other.comm_, MPI_COMM_NULL)) {}
  Communicator& operator=(Communicator&& other) noexcept {
    if (this != &other) {
      release();
      comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
    }
    return *this;
  }
  ~Communicator() { release(); }

  MPI_Comm get() const { return comm_; }
  int rank() const {
    int r = 0;
    MPI_Comm_rank(comm_, &r);
    return r;
  }
  int size() const {
    int p = 0;
    MPI_Comm_size(comm_, &p);
    return p;
  }

 private:
  // MPI_Comm_free is collective in name only (it marks the communicator for freeing); after
  // MPI_Finalize nothing may be called, so a Communicator must not outlive MPI.
  void release() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace rsmc
