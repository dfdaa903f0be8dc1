// The TOML subset reader of run configurations (framework/config/toml.hpp): every supported form,
// and an error naming the file and line for every unsupported or malformed one.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "framework/config/toml.hpp"
#include "base/core/error.hpp"

using rsmc::config::parse_toml;
using rsmc::config::TomlValue;

TEST_CASE("TOML subset: values, tables, dotted keys, comments", "[config]") {
  const auto doc = parse_toml(
      "# a run\n"
      "particles = 1_000_000   # N\n"
      "seed = -3\n"
      "ess_threshold = 0.5\n"
      "big = 6.02e23\n"
      "name = \"sv \\\"demo\\\"\\n\\u00e9\"\n"
      "path = 'C:\\dir'\n"
      "quiet = true\n"
      "list = [1, 2.5, \"x\", ]\n"
      "\r\n"
      "[model]\n"
      "phi = 0.98\n"
      "noise.scale = inf\n"
      "[model.extra]\n"
      "k = 2\n",
      "run.toml");
  REQUIRE(doc.values.size() == 11);
  CHECK(doc.values.at("particles").type == TomlValue::Type::integer);
  CHECK(doc.values.at("particles").integer == 1000000);
  CHECK(doc.values.at("particles").line == 2);
  CHECK(doc.values.at("seed").integer == -3);
  CHECK(doc.values.at("ess_threshold").type == TomlValue::Type::floating);
  CHECK(doc.values.at("ess_threshold").floating == 0.5);
  CHECK(doc.values.at("big").floating == 6.02e23);
  CHECK(doc.values.at("name").text == "sv \"demo\"\n\xc3\xa9");
  CHECK(doc.values.at("path").text == "C:\\dir");
  CHECK(doc.values.at("quiet").boolean);
  const TomlValue& list = doc.values.at("list");
  REQUIRE(list.elements.size() == 3);
  CHECK(list.elements[1].floating == 2.5);
  CHECK(list.elements[2].text == "x");
  CHECK(doc.values.at("model.phi").floating == 0.98);
  CHECK(std::isinf(doc.values.at("model.noise.scale").floating));
  CHECK(doc.values.at("model.extra.k").integer == 2);
  CHECK(doc.where(doc.values.at("model.phi")) == "run.toml:12: ");
}

TEST_CASE("TOML subset: malformed input names the file and line", "[config]") {
  struct Bad {
    const char* text;
    const char* message;
  };
  const Bad cases[] = {
      {"a = 1\nb =\n", "run.toml:2: expected a value"},
      {"a = \"open\n", "run.toml:1: unterminated string"},
      {"a = 1\na = 2\n", "run.toml:2: 'a' is defined twice (first on line 1)"},
      {"a = 1 2\n", "run.toml:1: unexpected text after the value of 'a'"},
      {"a = many\n", "run.toml:1: 'many' is not a value"},
      {"a = 01\n", "leading zeros"},
      {"a = 99999999999999999999\n", "does not fit in a 64-bit integer"},
      {"a = [1, 2\n", "multi-line arrays are not supported"},
      {"a = {x = 1}\n", "inline tables are not supported"},
      {"[[runs]]\n", "arrays of tables"},
      {"[model\n", "expected ']' after the table name"},
      {"\"quoted\" = 1\n", "quoted keys are not supported"},
      {"a = \"\"\"x\"\"\"\n", "multi-line strings"},
      {"a = \"bad \\q\"\n", "unknown escape \\q"},
      {"model = 1\n[model]\nphi = 2\n", "run.toml:3: 'model' is a value (line 1)"},
      {"[model]\nphi = 2\n[x]\n", ""},  // fine: an empty table
      {"model.phi = 2\nmodel = 1\n", "run.toml:2: 'model' is a table"},
      {"a = 1_\n", "an underscore must sit between digits"},
      {"= 3\n", "run.toml:1: expected a key"},
      {"a 3\n", "expected '=' after the key 'a'"},
  };
  for (const Bad& bad : cases) {
    INFO(bad.text);
    if (std::string(bad.message).empty()) {
      CHECK_NOTHROW(parse_toml(bad.text, "run.toml"));
    } else {
      CHECK_THROWS_WITH(parse_toml(bad.text, "run.toml"), Catch::Contains(bad.message));
    }
  }
}

TEST_CASE("TOML subset: a missing file is an error naming it", "[config]") {
  CHECK_THROWS_WITH(rsmc::config::read_toml_file("/nonexistent/run.toml"), Catch::Contains("/nonexistent/run.toml"));
}
