// Writing and reading the chains of `rsmc pmmh` (framework/io/chain_file.hpp).
#include "framework/io/chain_file.hpp"

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "framework/io/atomic_file.hpp"
#include "framework/io/hdf5_util.hpp"
#include "framework/io/sealed_file.hpp"

namespace rsmc {
namespace {

using namespace io_detail;  // Hid, Hdf5Type, SilenceHdf5Errors, write_dataset, write_attribute, read_dataset

constexpr std::size_t kCounterCount = 6;

std::string joined(const std::vector<std::string>& names, char separator) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : std::string(1, separator)) + n;
  return out;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(separator, start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

template <class T>
void write(hid_t f, const char* name, const std::vector<hsize_t>& dims, const std::vector<T>& values,
           const std::string& fail) {
  write_dataset(f, name, Hdf5Type<T>::file(), Hdf5Type<T>::memory(), dims, values.data(), fail);
}

// Reads dataset `name` and checks that its shape is `expected`.
template <class T>
void read(hid_t f, const std::string& what, const char* name, const std::vector<hsize_t>& expected,
          std::vector<T>& values) {
  const std::vector<hsize_t> dims = read_dataset(f, what, name, static_cast<int>(expected.size()), values);
  if (dims != expected)
    throw Error(what + ", dataset '/" + name + "': has shape " + shape_text(dims) + "; expected " +
                shape_text(expected));
}

}  // namespace

const char* const kChainCounterNames[6] = {"accepted",        "rejected",    "non_finite",
                                           "outside_support", "adaptations", "adaptation_failures"};

std::vector<double> ChainOutput::draws(int c, int j) const {
  const std::size_t K = kept(), d = static_cast<std::size_t>(dimension());
  std::vector<double> out(K);
  for (std::size_t k = 0; k < K; ++k) out[k] = theta[(static_cast<std::size_t>(c) * K + k) * d + j];
  return out;
}

void ChainOutput::check_shapes(const std::string& what) const {
  const std::size_t C = static_cast<std::size_t>(chains), K = kept(), d = static_cast<std::size_t>(dimension());
  const std::size_t A = covariance_iteration.size();
  const auto require = [&](const char* name, std::size_t size, std::size_t expected) {
    if (size != expected)
      throw Error(what + ": '" + name + "' holds " + std::to_string(size) + " values; expected " +
                  std::to_string(expected));
  };
  if (C < 1 || d < 1) throw Error(what + ": expected at least one chain and one parameter");
  require("theta", theta.size(), C * K * d);
  require("log_likelihood", log_likelihood.size(), C * K);
  require("log_prior", log_prior.size(), C * K);
  require("outcome", outcome.size(), C * K);
  require("proposed_log_likelihood", proposed_log_likelihood.size(), C * K);
  require("proposal_covariance", proposal_covariance.size(), C * A * d * d);
  require("counters", counters.size(), C * kCounterCount);
  require("state_reals", state_reals.size(), C * state_real_names.size());
  require("state_integers", state_integers.size(), C * state_integer_names.size());
}

void write_chain_file(const std::string& path, const ChainOutput& o, const ResultAttributes& attributes, bool overwrite,
                      ChainFileKind kind) {
  const bool checkpoint = kind == ChainFileKind::checkpoint;
  const std::string what = (checkpoint ? "checkpoint '" : "output file '") + path + "'";
  o.check_shapes(what);
  if (checkpoint && o.state_real_names.empty())
    throw Error(what + ": internal error: a checkpoint without chain states");
  const hsize_t C = static_cast<hsize_t>(o.chains), K = o.kept(), d = static_cast<hsize_t>(o.dimension());
  const hsize_t A = o.covariance_iteration.size();
  SilenceHdf5Errors silence;
  write_atomically(path, overwrite, [&](const std::string& tmp) {
    const std::string fail = what + ": cannot write the temporary file '" + tmp + "'";
    Hid file(create_output_file(tmp, fail, checkpoint), H5Fclose);
    const hid_t f = file.get();
    write(f, "iteration", {K}, o.iteration, fail);
    write(f, "theta", {C, K, d}, o.theta, fail);
    write(f, "log_likelihood", {C, K}, o.log_likelihood, fail);
    write(f, "log_prior", {C, K}, o.log_prior, fail);
    write(f, "outcome", {C, K}, o.outcome, fail);
    write(f, "proposed_log_likelihood", {C, K}, o.proposed_log_likelihood, fail);
    write(f, "covariance_iteration", {A}, o.covariance_iteration, fail);
    write(f, "proposal_covariance", {C, A, d, d}, o.proposal_covariance, fail);
    write(f, "counters", {C, kCounterCount}, o.counters, fail);
    if (!o.state_real_names.empty()) {
      write(f, "state_reals", {C, o.state_real_names.size()}, o.state_reals, fail);
      write(f, "state_integers", {C, o.state_integer_names.size()}, o.state_integers, fail);
    }

    // The format and the parameter names first, then the caller's attributes.
    ResultAttributes all;
    all.integers = {{"chain_format_version", kChainFormatVersion}};
    all.text = {{"parameter_names", joined(o.parameter_names, ',')}};
    if (!o.state_real_names.empty()) {
      all.text.emplace_back("state_real_names", joined(o.state_real_names, '\n'));
      all.text.emplace_back("state_integer_names", joined(o.state_integer_names, '\n'));
    }
    write_attributes(f, all, fail);
    write_attributes(f, attributes, fail);
    save_output_file(file, tmp, fail);
    if (checkpoint) seal_file(MPI_COMM_SELF, tmp, SealedKind::pmmh_checkpoint, fail);
  });
}

namespace {

// The datasets and names of a chain file whose seal, if it has one, has been checked.
ChainOutput read_chain_datasets(const std::string& path, const std::string& what) {
  ChainOutput o;
  for (const auto& [key, value] : read_result_attributes(path).text) {
    if (key == "parameter_names") o.parameter_names = split(value, ',');
    if (key == "state_real_names") o.state_real_names = split(value, '\n');
    if (key == "state_integer_names") o.state_integer_names = split(value, '\n');
  }
  if (o.parameter_names.empty()) throw Error(what + ": no parameter_names attribute; expected an rsmc pmmh output");
  SilenceHdf5Errors silence;
  Hid file(open_hdf5_read_only(path, what), H5Fclose);
  const hid_t f = file.get();
  std::vector<double> theta;
  const std::vector<hsize_t> dims = read_dataset(f, what, "theta", 3, theta);
  const hsize_t C = dims[0], K = dims[1], d = o.parameter_names.size();
  if (dims[2] != d || C < 1)
    throw Error(what + ", dataset '/theta': has shape " + shape_text(dims) + "; expected (C x K x " +
                std::to_string(d) + ") for the " + std::to_string(d) + " parameter names, C >= 1");
  o.chains = static_cast<int>(C);
  o.theta = std::move(theta);
  read(f, what, "iteration", {K}, o.iteration);
  read(f, what, "log_likelihood", {C, K}, o.log_likelihood);
  read(f, what, "log_prior", {C, K}, o.log_prior);
  read(f, what, "outcome", {C, K}, o.outcome);
  read(f, what, "proposed_log_likelihood", {C, K}, o.proposed_log_likelihood);
  std::vector<hsize_t> adims = read_dataset(f, what, "covariance_iteration", 1, o.covariance_iteration);
  read(f, what, "proposal_covariance", {C, adims[0], d, d}, o.proposal_covariance);
  read(f, what, "counters", {C, kCounterCount}, o.counters);
  if (!o.state_real_names.empty()) {
    read(f, what, "state_reals", {C, o.state_real_names.size()}, o.state_reals);
    read(f, what, "state_integers", {C, o.state_integer_names.size()}, o.state_integers);
  }
  if (o.state_real_names.size() > 1u << 20 || o.state_integer_names.size() > 1u << 20)
    throw Error(what + ": implausibly many chain state entries (damaged?)");
  return o;
}

}  // namespace

ChainOutput read_chain_file(const std::string& path) {
  const std::string what = "chain file '" + path + "'";
  if (file_start(path) == FileStart::sealed_pmmh_checkpoint)
    verify_sealed_file(MPI_COMM_SELF, path, SealedKind::pmmh_checkpoint, what);
  return read_chain_datasets(path, what);
}

ChainOutput read_chain_checkpoint(const std::string& path, const std::string& what) {
  verify_sealed_file(MPI_COMM_SELF, path, SealedKind::pmmh_checkpoint, what);
  ChainOutput o = read_chain_datasets(path, what);
  if (o.state_real_names.empty() || o.state_integer_names.empty())
    throw Error(what + ": holds no chain states; expected a checkpoint of rsmc pmmh");
  return o;
}

}  // namespace rsmc
