// Declared model parameters (framework/model/parameters.hpp) and what is derived from a declaration:
// defaults, describe(), parameter_names(), the rows of `rsmc models`, validation messages, get / set /
// admits by name, and the [parameters] reader (drivers/model_parameters.hpp). Also: every built-in
// parameter struct reads back its own `rsmc models` defaults, and the model traits
// (framework/model/model_traits.hpp) see the members the models have.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "drivers/model_parameters.hpp"
#include "framework/config/toml.hpp"
#include "framework/model/model_traits.hpp"
#include "framework/model/parameters.hpp"
#include "models/linear_gaussian.hpp"
#include "models/lorenz96.hpp"
#include "models/nonlinear_growth.hpp"
#include "models/regime_switching.hpp"
#include "models/sir_epidemic.hpp"
#include "models/stochastic_volatility.hpp"
#include "tests/support/hazard_models.hpp"
#include "tests/support/model_testing.hpp"

using rsmc::test::validation_message;

namespace {

enum class Outline { round, square };
constexpr rsmc::ChoiceOption<Outline> kOutlines[] = {{"round", Outline::round}, {"square", Outline::square}};

// One parameter of every kind.
struct ExampleParams : rsmc::ParameterSet<ExampleParams> {
  static constexpr const char* model = "example";
  double rate, share;
  int count;
  std::int64_t big;
  Outline shape;
  int n;
  std::vector<double> weights, M;
  ExampleParams() { reset(); }
  template <class Declare>
  void declare_parameters(Declare&& declare) {
    declare(rsmc::real("rate", rate, 0.5, "a rate").positive());
    declare(rsmc::real("share", share, 0.25, "a share").above(0.0).at_most(1.0).because("a probability"));
    declare(rsmc::integer("count", count, 3, "a count").at_least(1).at_most(10, "ten at most"));
    declare(rsmc::integer<std::int64_t>("big", big, 5, "anything"));
    declare(rsmc::choice("shape", shape, Outline::round, "a shape", kOutlines));
    declare(rsmc::dimension("n", n, 2, "the rows of M"));
    declare(rsmc::real_vector("weights", weights, {1.0, 2.0}, "weights").nonnegative());
    declare(rsmc::real_matrix("M", M, {1.0, 0.0, 0.0, 1.0}, n, n, "an n x n matrix").defines_rows());
  }
  void check_relations() const {
    if (weights.size() != static_cast<std::size_t>(n))
      rsmc::bad_parameter(model, "weights", rsmc::vector_text(weights), "n = " + std::to_string(n) + " entries");
  }
};

template <class Call>
std::string error_of(Call call) {
  try {
    call();
  } catch (const rsmc::Error& e) {
    return e.what();
  }
  return "no error";
}

// The configuration's [parameters] as the command line hands them over (prefix removed).
struct GivenParameters {
  rsmc::config::TomlDocument doc;
  rsmc::drivers::ModelParameters given;
  explicit GivenParameters(const std::string& toml) : doc(rsmc::config::parse_toml(toml, "p.toml")) {
    std::map<std::string, rsmc::config::TomlValue> values;
    for (const auto& [key, value] : doc.values) values.emplace(key.substr(std::string("parameters.").size()), value);
    given = rsmc::drivers::ModelParameters(values, &doc);
  }
};

template <class P>
std::string read_error(const std::string& toml) {
  const GivenParameters g(toml);
  return error_of([&] { (void)g.given.read<P>(); });
}

}  // namespace

TEST_CASE("declared parameters: defaults, describe, names and the rows of rsmc models", "[parameters]") {
  const ExampleParams p;
  CHECK(p.describe() ==
        "rate = 0.5\nshare = 0.25\ncount = 3\nbig = 5\nshape = round\nn = 2\nweights = [1, 2]\nM = [[1, 0], [0, 1]]\n");
  CHECK(ExampleParams::parameter_names() ==
        std::vector<std::string>{"rate", "share", "count", "big", "shape", "weights", "M"});  // not the dimension n
  CHECK(validation_message(p) == "no error");
  const auto rows = rsmc::parameter_rows<ExampleParams>();
  REQUIRE(rows.size() == 7);
  CHECK(rows[0].default_text == "0.5");
  CHECK(rows[0].doc == "a rate (> 0)");
  CHECK(rows[1].doc == "a share (0 < share <= 1)");
  CHECK(rows[2].doc == "a count (1 <= count <= 10)");
  CHECK(rows[3].doc == "anything");
  CHECK(rows[4].default_text == "\"round\"");
  CHECK(rows[4].doc == "a shape (\"round\" or \"square\")");
  CHECK(rows[5].doc == "weights (entries >= 0)");
  CHECK(rows[6].name == "M");
  CHECK(rows[6].default_text == "[[1, 0], [0, 1]]");
}

TEST_CASE("declared parameters: each constraint's message names the model, the parameter and the range",
          "[parameters]") {
  struct Case {
    void (*change)(ExampleParams&);
    const char* message;
  };
  const Case cases[] = {
      {[](ExampleParams& q) { q.rate = 0.0; }, "example: rate = 0; expected a finite number > 0"},
      {[](ExampleParams& q) { q.rate = INFINITY; }, "example: rate = inf; expected a finite number > 0"},
      {[](ExampleParams& q) { q.share = 1.5; }, "example: share = 1.5; expected 0 < share <= 1 (a probability)"},
      {[](ExampleParams& q) { q.share = NAN; }, "example: share = nan; expected 0 < share <= 1 (a probability)"},
      {[](ExampleParams& q) { q.count = 0; }, "example: count = 0; expected an integer count >= 1"},
      {[](ExampleParams& q) { q.count = 11; }, "example: count = 11; expected an integer count <= 10 (ten at most)"},
      {[](ExampleParams& q) { q.shape = static_cast<Outline>(7); }, "example: shape = 7; expected 'round' or 'square'"},
      {[](ExampleParams& q) { q.n = 0; }, "example: n = 0; expected an integer n >= 1"},
      {[](ExampleParams& q) {
         q.weights = {1.0, -1.0};
       },
       "example: weights[1] = -1; expected a finite number >= 0"},
      {[](ExampleParams& q) { q.M[1] = NAN; }, "example: M[0][1] = nan; expected a finite number"},
      {[](ExampleParams& q) {
         q.weights = {1.0, 2.0, 3.0};
       },
       "example: weights = [1, 2, 3]; expected n = 2 entries"},
  };
  for (const Case& c : cases) {
    ExampleParams q;
    c.change(q);
    CHECK(validation_message(q) == c.message);
  }
}

TEST_CASE("declared parameters: get, set and admits by name, with the constraint check", "[parameters]") {
  ExampleParams p;
  CHECK(p.get("rate") == 0.5);
  p.set("rate", 2.0);
  CHECK(p.rate == 2.0);
  CHECK(p.get("rate") == 2.0);
  CHECK(error_of([&] { p.set("rate", -1.0); }) == "example: rate = -1; expected a finite number > 0");
  CHECK(p.rate == 2.0);  // unchanged
  CHECK(p.admits("share", 1.0));
  CHECK_FALSE(p.admits("share", 0.0));
  CHECK_FALSE(p.admits("rate", NAN));

  p.set("count", 4.0);
  CHECK(p.count == 4);
  CHECK(p.get("count") == 4.0);
  CHECK(error_of([&] { p.set("count", 4.5); }) == "example: count = 4.5; expected an integer 1 <= count <= 10");
  CHECK(error_of([&] { p.set("count", 11.0); }) ==
        "example: count = 11; expected an integer count <= 10 (ten at most)");
  CHECK_FALSE(p.admits("count", 0.0));
  CHECK(p.count == 4);
  p.set("big", -3.0);
  CHECK(p.big == -3);
  CHECK(error_of([&] { p.set("big", 1e300); }) ==
        "example: big = 1e+300; expected an integer big <= 9223372036854775807");

  CHECK(error_of([&] { p.set("weights", 1.0); }) ==
        "example: weights is not a real or integer parameter; get and set by name take real and integer parameters");
  CHECK(error_of([&] { (void)p.get("n"); }) ==
        "example: n is set by the shape of a matrix parameter; get and set by name take real and integer parameters");
  CHECK(error_of([&] { (void)p.admits("nope", 1.0); }) ==
        "example: no parameter 'nope'; its parameters: rate, share, count, big, shape, weights, M");
}

TEST_CASE("declared parameters: the model's own struct moves a parameter by name (SV phi)", "[parameters]") {
  rsmc::models::StochasticVolatilityParams p;
  p.set("phi", 0.9);
  CHECK(rsmc::models::StochasticVolatility(p).params().phi == 0.9);
  CHECK_FALSE(p.admits("phi", 1.0));
  CHECK(error_of([&] { p.set("sigma", 0.0); }) == "stochastic_volatility: sigma = 0; expected a finite number > 0");
  rsmc::models::Lorenz96Params l;
  l.set("obs_every", 50.0);  // within its own bounds; obs_every <= d is a rule between parameters
  CHECK(validation_message(l) == "lorenz96: obs_every = 50; expected an integer 1 <= obs_every <= d = 40");
}

TEST_CASE("declared parameters: [parameters] of a run file override the defaults", "[parameters]") {
  const GivenParameters g(
      "[parameters]\nrate = 2\ncount = 7\nshape = \"square\"\nM = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\n"
      "weights = [0.5, 0.5, 0.5]\n");
  const ExampleParams p = g.given.read<ExampleParams>();
  CHECK(p.rate == 2.0);  // an integer where a real is declared
  CHECK(p.count == 7);
  CHECK(p.shape == Outline::square);
  CHECK(p.n == 3);         // M defines n
  CHECK(p.share == 0.25);  // not given: the default
  CHECK(validation_message(p) == "no error");

  CHECK(read_error<ExampleParams>("[parameters]\ncount = 11\n") ==
        "p.toml:2: parameters.count: expected an integer in [1, 10], got an integer 11");
  CHECK(read_error<ExampleParams>("[parameters]\ncount = 2.5\n") ==
        "p.toml:2: parameters.count: expected an integer, got a number 2.5");
  CHECK(read_error<ExampleParams>("[parameters]\nrate = \"fast\"\n") ==
        "p.toml:2: parameters.rate: expected a number, got a string \"fast\"");
  CHECK(read_error<ExampleParams>("[parameters]\nshape = \"oval\"\n") ==
        "example: shape = 'oval'; expected 'round' or 'square'");
  CHECK(read_error<ExampleParams>("[parameters]\nn = 3\n") ==
        "p.toml:2: parameters.n: model 'example' has no parameter 'n'; its parameters: rate, share, count, big, "
        "shape, weights, M");
  CHECK(read_error<rsmc::models::Lorenz96Params>("[parameters]\nd = 5000000000\n") ==
        "p.toml:2: parameters.d: expected an integer in [4, 2147483647], got an integer 5000000000");
}

TEMPLATE_TEST_CASE("declared parameters: a built-in struct reads back the defaults rsmc models prints", "[parameters]",
                   rsmc::models::LinearGaussianParams, rsmc::models::LocalLevelParams,
                   rsmc::models::StochasticVolatilityParams, rsmc::models::NonlinearGrowthParams,
                   rsmc::models::Lorenz96Params, rsmc::models::SirEpidemicParams, rsmc::models::RegimeSwitchingParams) {
  std::string toml = "[parameters]\n";
  std::vector<std::string> names;
  for (const rsmc::ParameterRow& row : rsmc::parameter_rows<TestType>()) {
    toml += row.name + " = " + row.default_text + "\n";
    names.push_back(row.name);
    CHECK_FALSE(row.doc.empty());
  }
  CHECK(names == TestType::parameter_names());
  const GivenParameters g(toml);
  const TestType read = g.given.read<TestType>();
  CHECK(read.describe() == TestType().describe());
  CHECK(validation_message(read) == "no error");
}

TEST_CASE("model traits: the members each model has", "[parameters][traits]") {
  using rsmc::models::Lorenz96;
  using rsmc::models::StochasticVolatility;
  STATIC_REQUIRE(rsmc::is_model_v<StochasticVolatility>);
  STATIC_REQUIRE(rsmc::is_model_v<rsmc::models::LinearGaussian>);
  STATIC_REQUIRE(rsmc::is_filter_model_v<rsmc::test::Ar1>);  // filtered in tests, never simulated
  STATIC_REQUIRE_FALSE(rsmc::is_model_v<rsmc::test::Ar1>);
  STATIC_REQUIRE_FALSE(rsmc::is_filter_model_v<ExampleParams>);
  STATIC_REQUIRE(rsmc::has_parameter_description_v<StochasticVolatility>);
  STATIC_REQUIRE_FALSE(rsmc::has_parameter_description_v<rsmc::test::Ar1>);
  STATIC_REQUIRE(rsmc::has_state_name_v<Lorenz96>);
  STATIC_REQUIRE_FALSE(rsmc::has_observation_name_v<Lorenz96>);
  STATIC_REQUIRE(rsmc::has_observation_name_v<StochasticVolatility>);
  STATIC_REQUIRE_FALSE(std::is_same_v<rsmc::ObservationOut, rsmc::StateView>);  // a distinct type
}
