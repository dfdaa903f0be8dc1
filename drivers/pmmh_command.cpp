// `rsmc pmmh`: options, the run file's inference tables and the configuration text
// (drivers/pmmh_command.hpp); the chains themselves run in pmmh_chains.cpp.
#include "drivers/pmmh_command.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "base/core/error.hpp"
#include "drivers/collective.hpp"
#include "drivers/integer_option.hpp"
#include "drivers/model_registry.hpp"
#include "drivers/shared_options.hpp"
#include "framework/inference/prior.hpp"
#include "framework/inference/proposal.hpp"
#include "framework/inference/transform.hpp"
#include "framework/model/parameters.hpp"  // number_text

namespace rsmc::drivers {

void PmmhCommand::add_to(CLI::App& app) {
  app.add_option("--config", config_file,
                 "Run file (TOML): model, data, particles, fixed [parameters], one [infer.<name>] table per "
                 "inferred parameter (prior, its arguments, initial, optional transform and proposal_sd), "
                 "[proposal] covariance and [adaptation]; see docs/inference.md. Flags given here win")
      ->required();
  // Each option with its run-file key; the ones rsmc filter and simulate share come from their one
  // table (shared_options.hpp).
  add_shared(app, config_keys, *this, SharedOption::model);
  add_shared(app, config_keys, *this, SharedOption::particles, "in each likelihood estimate");
  add_shared(app, config_keys, *this, SharedOption::steps);
  add_shared(app, config_keys, *this, SharedOption::seed,
             "the chains' proposals, accept/reject draws and filter seeds are keyed by (seed, chain, iteration)");
  add_shared(app, config_keys, *this, SharedOption::ess_threshold, "in each likelihood estimate's filter");
  add_shared(app, config_keys, *this, SharedOption::resampling);
  add_shared(app, config_keys, *this, SharedOption::data,
             "the simulation takes the inferred parameters at their initial values");
  add_shared(app, config_keys, *this, SharedOption::output,
             "HDF5, the chains: per chain and kept iteration the parameters, log-likelihood estimate, log-prior "
             "and outcome; the proposal covariance over time; counters; the configuration (summarise it with "
             "rsmc info)");
  add_shared(app, config_keys, *this, SharedOption::overwrite);
  add_shared(app, config_keys, *this, SharedOption::quiet);
  config_keys.integer("chains", chains, 1,
                      app.add_option("--chains,-C", chains,
                                     "Independent chains; C must divide the number of ranks, each chain's filter "
                                     "runs on ranks / C of them")
                          ->transform(integer_notation(false))
                          ->capture_default_str());
  config_keys.integer("iterations", iterations, 1,
                      app.add_option("--iterations", iterations, "Metropolis-Hastings iterations per chain")
                          ->transform(integer_notation(false))
                          ->capture_default_str());
  config_keys.integer("thinning", thinning, 1,
                      app.add_option("--thinning", thinning, "Keep every k-th iteration after the burn-in")
                          ->transform(integer_notation(false))
                          ->capture_default_str());
  config_keys.integer("burn_in", burn_in, 0,
                      app.add_option("--burn-in", burn_in, "Iterations not kept at the start of each chain")
                          ->transform(integer_notation(false))
                          ->capture_default_str());
  config_keys.text("checkpoint", checkpoint,
                   app.add_option("--checkpoint", checkpoint,
                                  "Where SIGTERM or SIGUSR1 (what SLURM sends before a time limit) writes the chains "
                                  "so far and their states; the run then stops with exit code 75")
                       ->capture_default_str());
  config_keys.text("restart", restart,
                   app.add_option("--restart", restart,
                                  "Continue the chains of a --checkpoint file, on any number of ranks, with the same "
                                  "run file and settings; ends bitwise as an uninterrupted run"));
  add_shared(app, config_keys, *this, SharedOption::device,
             "few particles per estimate run faster on the host; a restart may change it; the output records which "
             "ran");
}

namespace {

// The tables the command reads itself; everything else goes through config_keys and [parameters].
struct InferenceTable {
  const char* prefix;
  std::map<std::string, config::TomlValue> PmmhCommand::*values;
};
const InferenceTable kInferenceTables[] = {{"infer.", &PmmhCommand::infer_values},
                                           {"proposal.", &PmmhCommand::proposal_values},
                                           {"adaptation.", &PmmhCommand::adaptation_values}};

// The value of a table written first in the file (where messages about the whole table point).
const config::TomlValue& first_in_file(const std::map<std::string, config::TomlValue>& values) {
  const config::TomlValue* first = &values.begin()->second;
  for (const auto& entry : values)
    if (entry.second.line < first->line) first = &entry.second;
  return *first;
}

bool numeric(const config::TomlValue& v) {
  return v.type == config::TomlValue::Type::integer || v.type == config::TomlValue::Type::floating;
}

// The keys of one table of the run file (prefix removed), taken one by one so that whatever is left
// over can be refused by name. Errors read "FILE:LINE: <table>.<key>: ...".
class Table {
 public:
  Table(const config::TomlDocument& doc, std::string table, std::map<std::string, config::TomlValue> values)
      : doc_(doc), table_(std::move(table)), values_(std::move(values)) {}

  const config::TomlValue* find(const std::string& key) const {
    const auto it = values_.find(key);
    return it == values_.end() ? nullptr : &it->second;
  }
  // "FILE:LINE: " of `key`'s value (of the table's first value if absent).
  std::string location(const std::string& key = "") const {
    const config::TomlValue* v = find(key);
    if (v == nullptr && !values_.empty()) v = &first_in_file(values_);
    return v ? doc_.where(*v) : doc_.source + ": ";
  }
  // "FILE:LINE: table.key: " for messages about `key`.
  std::string where(const std::string& key) const { return location(key) + table_ + "." + key + ": "; }
  [[noreturn]] void bad(const std::string& key, const std::string& expected) const {
    const config::TomlValue& v = *find(key);
    const std::string got = v.type == config::TomlValue::Type::string ? "\"" + v.text + "\"" : v.text;
    throw Error(where(key) + "expected " + expected + ", got " + v.type_name() + " " + got);
  }
  [[noreturn]] void missing(const std::string& key, const std::string& expected) const {
    throw Error(where(key) + "missing; expected " + expected);
  }

  std::optional<double> number(const std::string& key) {
    used_.insert(key);
    const config::TomlValue* v = find(key);
    if (v == nullptr) return std::nullopt;
    if (!numeric(*v)) bad(key, "a number");
    return v->floating;
  }
  double required_number(const std::string& key, const std::string& what) {
    const std::optional<double> x = number(key);
    if (!x) missing(key, what);
    return *x;
  }
  std::optional<std::string> text(const std::string& key) {
    used_.insert(key);
    const config::TomlValue* v = find(key);
    if (v == nullptr) return std::nullopt;
    if (v->type != config::TomlValue::Type::string) bad(key, "a string");
    return v->text;
  }
  std::optional<bool> boolean(const std::string& key) {
    used_.insert(key);
    const config::TomlValue* v = find(key);
    if (v == nullptr) return std::nullopt;
    if (v->type != config::TomlValue::Type::boolean) bad(key, "true or false");
    return v->boolean;
  }
  std::optional<long long> integer(const std::string& key, long long min) {
    used_.insert(key);
    const config::TomlValue* v = find(key);
    if (v == nullptr) return std::nullopt;
    if (v->type != config::TomlValue::Type::integer || v->integer < min)
      bad(key, "an integer >= " + std::to_string(min));
    return v->integer;
  }
  // An array of `n` numbers (n = 0: any length >= 1).
  std::optional<std::vector<double>> numbers(const std::string& key, std::size_t n, const std::string& expected) {
    used_.insert(key);
    const config::TomlValue* v = find(key);
    if (v == nullptr) return std::nullopt;
    if (v->type != config::TomlValue::Type::array || (n != 0 && v->elements.size() != n) || v->elements.empty())
      bad(key, expected);
    std::vector<double> out;
    for (const config::TomlValue& e : v->elements) {
      if (!numeric(e)) bad(key, expected);
      out.push_back(e.floating);
    }
    return out;
  }
  // A d x d matrix as an array of d rows, row-major.
  std::optional<std::vector<double>> matrix(const std::string& key, std::size_t d) {
    used_.insert(key);
    const config::TomlValue* v = find(key);
    if (v == nullptr) return std::nullopt;
    const std::string expected = "a " + std::to_string(d) + " x " + std::to_string(d) +
                                 " matrix as an array of rows, e.g. [[0.01, 0], [0, 0.01]]";
    if (v->type != config::TomlValue::Type::array || v->elements.size() != d) bad(key, expected);
    std::vector<double> out;
    for (const config::TomlValue& row : v->elements) {
      if (row.type != config::TomlValue::Type::array || row.elements.size() != d) bad(key, expected);
      for (const config::TomlValue& e : row.elements) {
        if (!numeric(e)) bad(key, expected);
        out.push_back(e.floating);
      }
    }
    return out;
  }
  // Refuses a key nothing asked for.
  void expect_no_others(const std::string& known) const {
    for (const auto& [key, value] : values_)
      if (used_.count(key) == 0)
        throw Error(doc_.where(value) + "unknown key '" + table_ + "." + key + "'; expected " + known);
  }

 private:
  const config::TomlDocument& doc_;
  std::string table_;
  std::map<std::string, config::TomlValue> values_;
  std::set<std::string> used_;
};

// infer.<name>.<key> grouped by <name>, prefixes removed. A value directly under [infer] (not a table)
// is refused.
std::map<std::string, std::map<std::string, config::TomlValue>> infer_tables(
    const config::TomlDocument& doc, const std::map<std::string, config::TomlValue>& values) {
  std::map<std::string, std::map<std::string, config::TomlValue>> out;
  for (const auto& [key, value] : values) {
    const std::size_t dot = key.find('.');
    if (dot == std::string::npos)
      throw Error(doc.where(value) + "infer." + key + ": expected a table [infer." + key +
                  "] with prior, its arguments and initial");
    out[key.substr(0, dot)].emplace(key.substr(dot + 1), value);
  }
  return out;
}

const char* const kInferKeys =
    "prior, the prior's two arguments by name (e.g. shape and rate), initial, transform, transform_bounds, "
    "proposal_sd";

// One [infer.<name>] table as an inferred parameter, checked against the parameter's valid range.
inference::InferredParameter read_inferred(Table& t, const std::string& name, const inference::Interval& range,
                                           double& initial, double& proposal_sd) {
  const std::optional<std::string> prior_name = t.text("prior");
  if (!prior_name) t.missing("prior", "one of " + inference::prior_names());
  const auto prefixed = [&](const std::string& key, const auto& make) {
    try {
      return make();
    } catch (const Error& e) {
      throw Error(t.where(key) + e.what());
    }
  };
  const std::vector<std::string> arguments =
      prefixed("prior", [&] { return inference::prior_argument_names(*prior_name); });
  const double a = t.required_number(arguments[0], "a number (the " + *prior_name + " prior's " + arguments[0] + ")");
  const double b = t.required_number(arguments[1], "a number (the " + *prior_name + " prior's " + arguments[1] + ")");
  const inference::Prior prior = prefixed("prior", [&] { return inference::Prior::from_name(*prior_name, a, b); });
  const std::optional<std::string> transform_name = t.text("transform");
  const std::optional<std::vector<double>> bounds = t.numbers("transform_bounds", 2, "[lower, upper]");
  if (bounds && transform_name.value_or("") != "logit")
    throw Error(t.where("transform_bounds") + "given without transform = \"logit\"");
  const inference::InferredParameter p =
      transform_name ? inference::InferredParameter(
                           name, prior,
                           prefixed("transform",
                                    [&] {
                                      if (*transform_name == "logit" && !bounds)
                                        throw Error("the logit transform needs transform_bounds = [lower, upper]");
                                      return inference::Transform::from_name(
                                          *transform_name, bounds ? (*bounds)[0] : 0.0, bounds ? (*bounds)[1] : 0.0);
                                    }))
                     : prefixed("prior", [&] { return inference::InferredParameter(name, prior); });
  // The library's messages start with the parameter's name: "infer." makes them name the table.
  try {
    inference::check_prior_fits(p, range);
  } catch (const Error& e) {
    throw Error(t.location("prior") + "infer." + e.what());
  }
  initial = t.required_number("initial", "the chain's initial value of " + name);
  try {
    inference::check_initial_value(p, initial);
  } catch (const Error& e) {
    throw Error(t.where("initial") + std::string(e.what()).substr(name.size() + 2));
  }
  proposal_sd = t.number("proposal_sd").value_or(PmmhCommand::kDefaultProposalSd);
  // Its square is the proposal's variance: that must be a finite number > 0 too.
  const double variance = proposal_sd * proposal_sd;
  if (!(std::isfinite(proposal_sd) && proposal_sd > 0.0 && std::isfinite(variance) && variance > 0.0))
    t.bad("proposal_sd", "a number > 0 whose square (the proposal variance) is finite and > 0, e.g. 0.1");
  t.expect_no_others(kInferKeys);
  return p;
}

inference::AdaptationOptions read_adaptation(Table& t) {
  inference::AdaptationOptions a;
  a.enabled = t.boolean("enabled").value_or(a.enabled);
  a.start = static_cast<std::uint64_t>(t.integer("start", 2).value_or(static_cast<long long>(a.start)));
  a.interval = static_cast<std::uint64_t>(t.integer("interval", 1).value_or(static_cast<long long>(a.interval)));
  if (const auto stop = t.integer("stop", 0)) a.stop = static_cast<std::uint64_t>(*stop);
  a.scale = t.number("scale").value_or(a.scale);
  a.regularisation = t.number("regularisation").value_or(a.regularisation);
  a.initial_weight = t.number("initial_weight").value_or(a.initial_weight);
  t.expect_no_others("enabled, start, interval, stop, scale, regularisation, initial_weight");
  try {
    a.validate();
  } catch (const Error& e) {
    throw Error(t.location() + e.what());  // "adaptation.interval = 0; expected ..."
  }
  return a;
}

}  // namespace

void PmmhCommand::load_config() {
  if (config_file.empty()) return;
  config_document = std::make_shared<config::TomlDocument>(config::read_toml_file(config_file));
  config::TomlDocument rest = *config_document;
  for (const InferenceTable& table : kInferenceTables) {
    const std::string prefix = table.prefix;
    for (auto it = rest.values.begin(); it != rest.values.end();) {
      if (it->first.compare(0, prefix.size(), prefix) == 0) {
        (this->*table.values).emplace(it->first.substr(prefix.size()), it->second);
        it = rest.values.erase(it);
      } else {
        ++it;
      }
    }
  }
  parameter_values = config_keys.apply(rest, "parameters");
  model_parameters = ModelParameters(parameter_values, config_document.get());
}

InferenceSettings PmmhCommand::inference_settings(const InferableParameters& info) const {
  const config::TomlDocument& doc = *config_document;
  const auto tables = infer_tables(doc, infer_values);
  if (tables.empty())
    throw Error(doc.source + ": no [infer.<name>] table; expected one per parameter to infer, e.g. [infer." +
                info.names.front() + "] with prior, its arguments and initial");
  std::string known;
  for (const std::string& n : info.names) known += (known.empty() ? "" : ", ") + n;
  for (const auto& [name, values] : tables) {
    const std::string where = doc.where(first_in_file(values)) + "infer." + name + ": ";
    if (std::find(info.names.begin(), info.names.end(), name) == info.names.end())
      throw Error(where + "model " + info.model + " has no parameter '" + name + "'; its parameters: " + known);
    if (parameter_values.count(name) > 0)
      throw Error(where + "'" + name + "' is also fixed under [parameters] (line " +
                  std::to_string(parameter_values.at(name).line) + "); a parameter is either fixed or inferred");
    if (!info.real_range(name))
      throw Error(where + "'" + name + "' is not a real parameter of model " + info.model +
                  "; only real parameters can be inferred");
  }

  InferenceSettings s;
  std::vector<double> sds;
  for (const std::string& name : info.names) {  // the model's declaration order
    const auto found = tables.find(name);
    if (found == tables.end()) continue;
    Table t(doc, "infer." + name, found->second);
    double initial = 0.0, sd = 0.0;
    s.parameters.push_back(read_inferred(t, name, *info.real_range(name), initial, sd));
    s.initial.push_back(initial);
    sds.push_back(sd);
  }
  const std::size_t d = s.parameters.size();
  Table proposal(doc, "proposal", proposal_values);
  s.chain.proposal_covariance = proposal.matrix("covariance", d).value_or(std::vector<double>(d * d, 0.0));
  if (!proposal.find("covariance"))
    for (std::size_t i = 0; i < d; ++i) s.chain.proposal_covariance[i * d + i] = sds[i] * sds[i];
  proposal.expect_no_others("covariance (rows and columns in the model's parameter order)");
  if (proposal.find("covariance")) {
    try {
      inference::check_covariance(s.chain.proposal_covariance, static_cast<int>(d), "covariance");
    } catch (const Error& e) {
      throw Error(proposal.where("covariance") + e.what());
    }
  }
  Table adaptation(doc, "adaptation", adaptation_values);
  s.chain.adaptation = read_adaptation(adaptation);
  s.chain.seed = static_cast<std::uint64_t>(seed);
  return s;
}

std::string PmmhCommand::configuration_text() const {
  std::ostringstream out;
  out << "model = " << quoted(model) << "\n"
      << "data = " << quoted(data) << "\n"
      << "particles = " << particles << "\n"
      << "steps = " << steps << "\n"
      << "seed = " << seed << "\n"
      << "ess_threshold = " << number_text(ess_threshold) << "\n"
      << "resampling = " << quoted(resampling) << "\n"
      << "chains = " << chains << "\n"
      << "iterations = " << iterations << "\n"
      << "thinning = " << thinning << "\n"
      << "burn_in = " << burn_in << "\n";
  // The tables as dotted keys at the root: valid TOML in any order.
  for (const auto& [key, value] : parameter_values) out << "parameters." << key << " = " << toml_text(value) << "\n";
  for (const InferenceTable& table : kInferenceTables)
    for (const auto& [key, value] : this->*table.values)
      out << table.prefix << key << " = " << toml_text(value) << "\n";
  return out.str();
}

int PmmhCommand::run(MPI_Comm comm) {
  run_collectively(comm, [&] { load_config(); });
  return find_model(model).pmmh(*this, comm);
}

}  // namespace rsmc::drivers
