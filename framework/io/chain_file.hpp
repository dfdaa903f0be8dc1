// The output of `rsmc pmmh`: the kept draws of C Metropolis-Hastings chains as an HDF5 file (serial
// HDF5 C API, written by rank 0, atomically like the result files).
//
// Layout (C chains, K kept iterations each, d inferred parameters; readable with h5dump and h5py):
//   /iteration                 (K)            uint64   the iteration of each kept draw (after burn-in,
//                                                      every thinning-th)
//   /theta                     (C x K x d)    float64  the chain's state after that iteration
//   /log_likelihood            (C x K)        float64  its log-likelihood estimate
//   /log_prior                 (C x K)        float64  its log-prior
//   /outcome                   (C x K)        uint8    what that iteration's proposal did: 0 accepted,
//                                                      1 rejected, 2 non-finite log-likelihood estimate,
//                                                      3 outside the prior's support
//   /proposed_log_likelihood   (C x K)        float64  the proposal's estimate (NaN when not evaluated)
//   /covariance_iteration      (A)            uint64   0 (the initial proposal) and each iteration at
//                                                      which the adaptation schedule was due
//   /proposal_covariance       (C x A x d x d) float64 the proposal covariance (unconstrained scale) in
//                                                      force after that iteration
//   /counters                  (C x 6)        uint64   accepted, rejected, non_finite, outside_support,
//                                                      adaptations, adaptation_failures (all iterations,
//                                                      burn-in included)
// A checkpoint of a stopped run is the same file holding the draws so far, sealed like a filter
// checkpoint (a SHA-256 digest of all its bytes in the user block, checked before HDF5 parses the
// file: framework/io/sealed_file.hpp, kind "pmmh checkpoint"), plus each chain's state
// (framework/inference/chain_state.hpp's record, bit for bit):
//   /state_reals               (C x R)        float64  the record's reals, named by the attribute
//                                                      state_real_names (one name per line)
//   /state_integers            (C x I)        uint64   its integers, named by state_integer_names
// plus root attributes: chain_format_version (int64, 1), parameter_names (text, comma separated, in
// the order of the last axis of /theta) and the caller's ResultAttributes (the configuration as TOML,
// the rank count, ...). The datasets are bitwise identical for any number of ranks per chain; the
// attributes are not (they record the rank count), which is why tests compare datasets only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/io/result_file.hpp"  // ResultAttributes

namespace rsmc {

constexpr std::int64_t kChainFormatVersion = 1;

// The names of /counters' columns, in order.
extern const char* const kChainCounterNames[6];

struct ChainOutput {
  std::vector<std::string> parameter_names;         // d
  int chains = 0;                                   // C
  std::vector<std::uint64_t> iteration;             // K
  std::vector<double> theta;                        // C x K x d
  std::vector<double> log_likelihood;               // C x K
  std::vector<double> log_prior;                    // C x K
  std::vector<std::uint8_t> outcome;                // C x K
  std::vector<double> proposed_log_likelihood;      // C x K
  std::vector<std::uint64_t> covariance_iteration;  // A
  std::vector<double> proposal_covariance;          // C x A x d x d
  std::vector<std::uint64_t> counters;              // C x 6
  // A checkpoint only (else empty): each chain's state record, the names shared by all chains.
  std::vector<std::string> state_real_names, state_integer_names;  // R, I
  std::vector<double> state_reals;                                 // C x R
  std::vector<std::uint64_t> state_integers;                       // C x I

  int dimension() const { return static_cast<int>(parameter_names.size()); }
  std::size_t kept() const { return iteration.size(); }
  // The draws of parameter j in chain c (K values).
  std::vector<double> draws(int c, int j) const;
  // Throws rsmc::Error starting with `what` if a vector's size does not match C, K, A and d.
  void check_shapes(const std::string& what) const;
};

// What a chain file is: the output of a finished run, or the checkpoint of a stopped one (sealed).
enum class ChainFileKind { output, checkpoint };

// Writes atomically (framework/io/atomic_file.hpp): refuses an existing `path` unless `overwrite`;
// on failure nothing changes at `path` and an rsmc::Error is thrown. A checkpoint must hold the
// chains' states and is sealed before it is moved into place.
void write_chain_file(const std::string& path, const ChainOutput& output, const ResultAttributes& attributes,
                      bool overwrite, ChainFileKind kind = ChainFileKind::output);

// Reads the datasets and parameter names back; throws rsmc::Error naming the file and dataset. A
// sealed file (a checkpoint) is verified first.
ChainOutput read_chain_file(const std::string& path);

// Reads a pmmh checkpoint for a restart: refuses, with rsmc::Error starting with `what`, a file
// that is not a complete sealed pmmh checkpoint (unsealed, damaged, truncated, another kind) or
// holds no chain states, before HDF5 parses any of it.
ChainOutput read_chain_checkpoint(const std::string& path, const std::string& what);

}  // namespace rsmc
