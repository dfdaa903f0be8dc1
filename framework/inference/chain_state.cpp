// The chain state's flat record and its restoration (framework/inference/chain_state.hpp).
#include "framework/inference/chain_state.hpp"

#include <cstring>
#include <limits>
#include <map>

#include "base/core/error.hpp"
#include "framework/model/parameters.hpp"  // number_text

namespace rsmc::inference {

namespace {

std::string indexed(const std::string& base, std::size_t i) { return base + "[" + std::to_string(i) + "]"; }
std::string indexed(const std::string& base, std::size_t i, std::size_t j) {
  return base + "[" + std::to_string(i) + "," + std::to_string(j) + "]";
}

// The counters, in record order: one table for writing and reading them.
struct IntegerField {
  const char* name;
  std::uint64_t ChainCounters::*counter;
};
const IntegerField kCounterFields[] = {
    {"accepted", &ChainCounters::accepted},       {"rejected", &ChainCounters::rejected},
    {"non_finite", &ChainCounters::non_finite},   {"outside_support", &ChainCounters::outside_support},
    {"adaptations", &ChainCounters::adaptations}, {"adaptation_failures", &ChainCounters::adaptation_failures},
};

void add_vector(ChainRecord& r, const std::string& base, const std::vector<double>& v) {
  for (std::size_t i = 0; i < v.size(); ++i) r.reals.push_back({indexed(base, i), v[i]});
}
void add_matrix(ChainRecord& r, const std::string& base, const std::vector<double>& m, std::size_t d) {
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < d; ++j) r.reals.push_back({indexed(base, i, j), m[i * d + j]});
}

// The record's entries by name; every lookup is checked off, so leftovers can be reported.
template <class Value>
class Lookup {
 public:
  template <class Entries>
  explicit Lookup(const Entries& entries) {
    for (const auto& e : entries)
      if (!values_.emplace(e.name, e.value).second) throw Error("chain state: '" + e.name + "' appears twice");
  }
  Value take(const std::string& name) {
    const auto it = values_.find(name);
    if (it == values_.end()) throw Error("chain state: '" + name + "' is missing");
    const Value v = it->second;
    values_.erase(it);
    return v;
  }
  void expect_empty() const {
    if (!values_.empty()) throw Error("chain state: unexpected entry '" + values_.begin()->first + "'");
  }

 private:
  std::map<std::string, Value> values_;
};

std::vector<double> take_vector(Lookup<double>& reals, const std::string& base, std::size_t d) {
  std::vector<double> v(d);
  for (std::size_t i = 0; i < d; ++i) v[i] = reals.take(indexed(base, i));
  return v;
}
std::vector<double> take_matrix(Lookup<double>& reals, const std::string& base, std::size_t d) {
  std::vector<double> m(d * d);
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < d; ++j) m[i * d + j] = reals.take(indexed(base, i, j));
  return m;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void require_reproduced(const char* name, double stored, double recomputed) {
  if (!same_bits(stored, recomputed))
    throw Error(std::string("chain state: ") + name + " = " + number_text(stored) + " but the run's priors give " +
                number_text(recomputed) + "; were the priors or transforms changed since the checkpoint?");
}

}  // namespace

double ChainState::acceptance_rate() const {
  if (iteration == 0) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(counters.accepted) / static_cast<double>(iteration);
}

ChainRecord to_record(const ChainState& s) {
  const std::size_t d = s.theta.size();
  ChainRecord r;
  r.integers.push_back({"dimension", d});
  r.integers.push_back({"iteration", s.iteration});
  for (const IntegerField& f : kCounterFields) r.integers.push_back({f.name, s.counters.*f.counter});
  r.integers.push_back({"adaptation.count", s.adaptation.count});
  add_vector(r, "theta", s.theta);
  add_vector(r, "phi", s.phi);
  r.reals.push_back({"log_likelihood", s.log_likelihood});
  r.reals.push_back({"log_prior", s.log_prior});
  r.reals.push_back({"log_jacobian", s.log_jacobian});
  add_vector(r, "adaptation.mean", s.adaptation.mean);
  add_matrix(r, "adaptation.comoment", s.adaptation.comoment, d);
  add_matrix(r, "proposal.covariance", s.proposal.covariance(), d);
  return r;
}

ChainState restore(const ChainRecord& record, const InferredParameterSet& parameters) {
  Lookup<std::uint64_t> integers(record.integers);
  Lookup<double> reals(record.reals);
  const std::size_t d = static_cast<std::size_t>(parameters.dimension());
  const std::uint64_t stored_d = integers.take("dimension");
  if (stored_d != d)
    throw Error("chain state: dimension = " + std::to_string(stored_d) + " but the run infers " + std::to_string(d) +
                " parameters");
  ChainState s;
  s.iteration = integers.take("iteration");
  for (const IntegerField& f : kCounterFields) s.counters.*f.counter = integers.take(f.name);
  s.adaptation.count = integers.take("adaptation.count");
  s.theta = take_vector(reals, "theta", d);
  s.phi = take_vector(reals, "phi", d);
  s.log_likelihood = reals.take("log_likelihood");
  s.log_prior = reals.take("log_prior");
  s.log_jacobian = reals.take("log_jacobian");
  s.adaptation.mean = take_vector(reals, "adaptation.mean", d);
  s.adaptation.comoment = take_matrix(reals, "adaptation.comoment", d);
  s.proposal = RandomWalkProposal(static_cast<int>(d), take_matrix(reals, "proposal.covariance", d));
  integers.expect_empty();
  reals.expect_empty();
  if (s.counters.accepted + s.counters.rejected != s.iteration)
    throw Error("chain state: accepted + rejected = " + std::to_string(s.counters.accepted + s.counters.rejected) +
                " differs from iteration = " + std::to_string(s.iteration));
  require_reproduced("log_prior", s.log_prior, parameters.log_prior(s.theta.data()));
  require_reproduced("log_jacobian", s.log_jacobian, parameters.log_jacobian(s.phi.data()));
  return s;
}

}  // namespace rsmc::inference
