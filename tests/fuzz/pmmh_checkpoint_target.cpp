// Fuzz entries for the pmmh checkpoint reader: what `rsmc pmmh --restart` and `rsmc info` do with the
// file (read_chain_checkpoint: the seal, then the datasets; then each chain's state record restored
// as a restart restores it).
//  - pmmh_checkpoint: the bytes are the file. The seal (a SHA-256 digest of all its bytes) stops any
//    damage before HDF5 parses it, so this target checks that nothing but rsmc::Error comes out.
//  - pmmh_checkpoint_structured: the bytes shape a valid checkpoint (chains, kept draws, parameters,
//    covariance records and every stored number), which write_chain_file writes and seals; it is
//    then damaged through HDF5 (hdf5_damage.hpp) and resealed, to reach the checks behind the seal.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "byte_reader.hpp"
#include "framework/inference/chain_state.hpp"
#include "framework/inference/parameters.hpp"
#include "framework/inference/prior.hpp"
#include "framework/io/chain_file.hpp"
#include "framework/io/sealed_file.hpp"
#include "fuzz_targets.hpp"
#include "hdf5_damage.hpp"
#include "scratch_file.hpp"

namespace rsmc::fuzz {
namespace {

constexpr const char* kAttributes[] = {"chain_format_version", "parameter_names", "state_real_names",
                                       "state_integer_names",  "configuration",   "chains"};
constexpr const char* kDatasets[] = {"iteration",
                                     "theta",
                                     "log_likelihood",
                                     "log_prior",
                                     "outcome",
                                     "proposed_log_likelihood",
                                     "covariance_iteration",
                                     "proposal_covariance",
                                     "counters",
                                     "state_reals",
                                     "state_integers"};

[[noreturn]] void inconsistent(const char* what) {
  std::fprintf(stderr, "rsmc fuzz: the pmmh checkpoint reader accepted %s\n", what);
  std::abort();
}

// Row c of an array of `chains` equal rows.
template <class T>
std::vector<T> row(const std::vector<T>& all, int chains, int c) {
  const std::size_t n = all.size() / static_cast<std::size_t>(chains);
  return std::vector<T>(all.begin() + static_cast<std::ptrdiff_t>(n * c),
                        all.begin() + static_cast<std::ptrdiff_t>(n * (c + 1)));
}

// What a restart does with the file: read it, then restore every chain's state (parameters with
// standard normal priors: a stored log-prior that they do not reproduce is refused, as a restart
// with other priors is).
void restore_whole_checkpoint(const std::string& path) {
  const ChainOutput o = read_chain_checkpoint(path, "fuzz: pmmh checkpoint");
  try {
    o.check_shapes("fuzz");
  } catch (const Error&) {
    inconsistent("datasets of inconsistent shapes");
  }
  if (o.state_real_names.empty() || o.state_integer_names.empty()) inconsistent("a checkpoint without chain states");
  std::vector<inference::InferredParameter> parameters;
  for (const std::string& name : o.parameter_names)
    parameters.emplace_back(name, inference::Prior::from_name("normal", 0.0, 1.0));
  const inference::InferredParameterSet set(parameters);
  for (int c = 0; c < o.chains; ++c) {
    inference::ChainRecord record;
    const std::vector<double> reals = row(o.state_reals, o.chains, c);
    const std::vector<std::uint64_t> integers = row(o.state_integers, o.chains, c);
    for (std::size_t i = 0; i < reals.size(); ++i) record.reals.push_back({o.state_real_names[i], reals[i]});
    for (std::size_t i = 0; i < integers.size(); ++i)
      record.integers.push_back({o.state_integer_names[i], integers[i]});
    const inference::ChainState state = inference::restore(record, set);
    if (state.dimension() != o.dimension()) inconsistent("a chain state of another dimension");
  }
}

}  // namespace

void pmmh_checkpoint_input(const std::uint8_t* data, std::size_t size) {
  restore_whole_checkpoint(write_scratch(".h5", data, size));
}

void pmmh_checkpoint_structured_input(const std::uint8_t* data, std::size_t size) {
  ByteReader in(data, size);
  ChainOutput o;
  o.chains = 1 + static_cast<int>(in.below(3));
  const std::size_t C = static_cast<std::size_t>(o.chains), K = in.below(4), d = 1 + in.below(3), A = 1 + in.below(3);
  for (std::size_t j = 0; j < d; ++j)
    o.parameter_names.push_back(in.below(4) == 0 ? in.text(6) : "p" + std::to_string(j));
  for (std::size_t k = 0; k < K; ++k) o.iteration.push_back(in.u64());
  for (std::size_t i = 0; i < C * K * d; ++i) o.theta.push_back(in.f64());
  for (std::size_t i = 0; i < C * K; ++i) {
    o.log_likelihood.push_back(in.f64());
    o.log_prior.push_back(in.f64());
    o.outcome.push_back(in.byte());
    o.proposed_log_likelihood.push_back(in.f64());
  }
  for (std::size_t a = 0; a < A; ++a) o.covariance_iteration.push_back(in.u64());
  for (std::size_t i = 0; i < C * A * d * d; ++i) o.proposal_covariance.push_back(in.f64());
  for (std::size_t i = 0; i < C * 6; ++i) o.counters.push_back(in.u64());
  // The state record of a chain of dimension d (its names as the chains write them), any values.
  inference::ChainState shape;
  shape.theta.assign(d, 0.0);
  shape.phi.assign(d, 0.0);
  shape.adaptation.mean.assign(d, 0.0);
  shape.adaptation.comoment.assign(d * d, 0.0);
  std::vector<double> identity(d * d, 0.0);
  for (std::size_t i = 0; i < d; ++i) identity[i * d + i] = 1.0;
  shape.proposal = inference::RandomWalkProposal(static_cast<int>(d), identity);
  const inference::ChainRecord record = inference::to_record(shape);
  for (const inference::NamedReal& r : record.reals) o.state_real_names.push_back(r.name);
  for (const inference::NamedInteger& i : record.integers) o.state_integer_names.push_back(i.name);
  for (std::size_t c = 0; c < C; ++c) {
    for (std::size_t i = 0; i < record.reals.size(); ++i) o.state_reals.push_back(in.below(2) ? in.f64() : 0.5);
    for (std::size_t i = 0; i < record.integers.size(); ++i)
      o.state_integers.push_back(i == 0 ? d : in.below(2) ? in.u64() : in.below(8));
  }
  ResultAttributes attributes;
  attributes.text = {{"configuration", in.text(24)}};
  attributes.integers = {{"chains", o.chains}};

  const std::string path = scratch_path(".h5");
  write_chain_file(path, o, attributes, true, ChainFileKind::checkpoint);
  damage_through_hdf5(path, in, kAttributes, kDatasets);
  seal_file(MPI_COMM_SELF, path, SealedKind::pmmh_checkpoint, "fuzz: cannot reseal the damaged pmmh checkpoint");
  restore_whole_checkpoint(path);
}

}  // namespace rsmc::fuzz
