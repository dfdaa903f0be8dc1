// The run-configuration reader (framework/config/toml.hpp, toml++ underneath): every form of value,
// the keys flattened to dotted paths with their lines and source text, and an error naming the file
// and line (and column, for syntax) for malformed or unsupported input.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "base/core/error.hpp"
#include "framework/config/toml.hpp"

using rsmc::config::parse_toml;
using rsmc::config::TomlValue;

TEST_CASE("TOML: values, tables, dotted keys, comments", "[config]") {
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
  CHECK(doc.values.at("particles").text == "1_000_000");  // the source text, for messages
  CHECK(doc.values.at("seed").integer == -3);
  CHECK(doc.values.at("seed").floating == -3.0);
  CHECK(doc.values.at("ess_threshold").type == TomlValue::Type::floating);
  CHECK(doc.values.at("ess_threshold").floating == 0.5);
  CHECK(doc.values.at("ess_threshold").text == "0.5");
  CHECK(doc.values.at("big").floating == 6.02e23);
  CHECK(doc.values.at("name").text == "sv \"demo\"\n\xc3\xa9");
  CHECK(doc.values.at("path").text == "C:\\dir");
  CHECK(doc.values.at("quiet").boolean);
  const TomlValue& list = doc.values.at("list");
  REQUIRE(list.elements.size() == 3);
  CHECK(list.text == "[1, 2.5, \"x\", ]");
  CHECK(list.elements[1].floating == 2.5);
  CHECK(list.elements[2].text == "x");
  CHECK(doc.values.at("model.phi").floating == 0.98);
  CHECK(std::isinf(doc.values.at("model.noise.scale").floating));
  CHECK(doc.values.at("model.extra.k").integer == 2);
  CHECK(doc.where(doc.values.at("model.phi")) == "run.toml:12: ");
}

TEST_CASE("TOML: the forms of TOML 1.0 a hand-written subset refused", "[config]") {
  const auto doc = parse_toml(
      "A = [[0.9, 0.1],\n"
      "     [0.0, 0.8]]   # a matrix over two lines\n"
      "parameters = {mu = -0.5, phi = 0.9}\n"
      "\"quoted\" = 0x1F\n"
      "text = \"\"\"\n"
      "two\n"
      "lines\"\"\"\n"
      "after = 'é'   # a multi-byte character before a value on its line\n"
      "x = 1e3\n",
      "run.toml");
  const TomlValue& a = doc.values.at("A");
  REQUIRE(a.elements.size() == 2);
  CHECK(a.elements[1].elements[1].floating == 0.8);
  CHECK(a.elements[1].line == 2);
  CHECK(a.text == "[...]");  // over several lines
  CHECK(doc.values.at("parameters.mu").floating == -0.5);
  CHECK(doc.values.at("parameters.phi").line == 3);
  CHECK(doc.values.at("quoted").integer == 31);
  CHECK(doc.values.at("text").text == "two\nlines");
  CHECK(doc.values.at("after").text == "\xc3\xa9");
  CHECK(doc.values.at("x").text == "1e3");
  CHECK(doc.values.at("x").line == 9);
}

TEST_CASE("TOML: a byte-order mark and CRLF line ends are read", "[config]") {
  const auto doc = parse_toml("\xEF\xBB\xBFseed = 5\r\n[parameters]\r\nphi = 0.5\r\n", "run.toml");
  CHECK(doc.values.at("seed").integer == 5);
  CHECK(doc.values.at("seed").text == "5");
  CHECK(doc.values.at("parameters.phi").line == 3);
}

TEST_CASE("TOML: malformed or unsupported input names the file and line", "[config]") {
  struct Bad {
    const char* text;
    const char* message;  // a part of the message; "" means: accepted
  };
  const Bad cases[] = {
      {"a = 1\nb =\n", "run.toml:2:"},
      {"a = \"open\n", "run.toml:1:"},
      {"a = 1\na = 2\n", "run.toml:2:"},
      {"a = 1\na = 2\n", "'a'"},
      {"a = 1 2\n", "run.toml:1:"},
      {"a = many\n", "run.toml:1:"},
      {"a = 01\n", "run.toml:1:"},
      {"a = 99999999999999999999\n", "run.toml:1:"},
      {"a = [1, 2\n", "run.toml:1:"},  // never closed: the end of the file is after line 1
      {"[model\n", "run.toml:1:"},
      {"a = \"bad \\q\"\n", "run.toml:1:"},
      {"model = 1\n[model]\nphi = 2\n", "run.toml:2:"},
      {"[model]\nphi = 2\n[x]\n", ""},  // fine: an empty table
      {"model.phi = 2\nmodel = 1\n", "run.toml:2:"},
      {"a = 1_\n", "run.toml:1:"},
      {"= 3\n", "run.toml:1:"},
      {"a 3\n", "run.toml:1:"},
      {"[\nk = 1\n", "run.toml:1:"},  // toml++ 3.3 asserted here (see toml.cpp); an error in every build
      {"[[runs]]\nn = 1\n", "run.toml:1: 'runs': arrays of tables are not supported"},
      {"a = [{x = 1}]\n", "run.toml:1: 'a': arrays of tables are not supported"},
      {"when = 1979-05-27\n", "run.toml:1: 'when': dates and times are not supported"},
      {"\"a.b\" = 1\n", "run.toml:1: 'a.b': a key must not be empty or contain '.'"},
      {"[t]\n\"\" = 1\n", "run.toml:2: 't.': a key must not be empty"},
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

TEST_CASE("TOML: non-ASCII characters in strings and comments only (a guard against a toml++ bug)", "[config]") {
  const auto doc = parse_toml(
      "# \xc3\xa9t\xc3\xa9\nk = '\xc3\xa9' # \xc3\xbc\ns = \"\"\"a\\\n  b\xc2\xa7\"\"\"\n"
      "t.\"\xc3\xa9\" = [\"\xc3\xa9\",\n  '\xc3\xbc']\nu = {\"\xc3\xa9\" = '\xc3\xa9'}\n[\"\xc3\xa9\".x]\ny = 1\n",
      "run.toml");
  CHECK(doc.values.at("k").text == "\xc3\xa9");
  CHECK(doc.values.at("t.\xc3\xa9").elements.size() == 2);
  CHECK(doc.values.at("u.\xc3\xa9").text == "\xc3\xa9");
  CHECK(doc.values.at("\xc3\xa9.x.y").integer == 1);
  CHECK(doc.values.at("s").text == "ab\xc2\xa7");  // a line-ending backslash trims the break and the indent
  struct Bad {
    const char* text;
    const char* message;
  };
  const Bad cases[] = {
      {"a = 1 \xc3\xa9\n", "run.toml:1:7: a non-ASCII character outside a string or comment"},
      {"k\xc3\xa9 = 1\n", "run.toml:1:2: a non-ASCII character outside a string or comment"},
      {"\xcc\xaa", "run.toml:1:1: a non-ASCII character outside a string or comment"},
      {"a = \"x\"\n[t]\nb = [1, \xc2\xa7]\n", "run.toml:3:9: a non-ASCII character outside"},
      {"s = \"\\\xc3\xa9\"\n", "run.toml:1:7: a non-ASCII character after a backslash in a string"},
      {"s = \"\"\"\\\n\xc2\xa7\"\"\"\n", "run.toml:2:1: a non-ASCII character right after a line-ending backslash"},
      {"s = \"\"\"x\"\"\"\"\xc3\xa9 = 1\n", "run.toml:1:13: a non-ASCII character outside"},  // after """x""""
      {"c = [1\"x\xcc\xaa\"]\n", "run.toml:1:9: a non-ASCII character outside"},              // 1"x... is no string
      {"c = 1.\"\xc3\xa9\"\n", "run.toml:1:8: a non-ASCII character outside"},                // '.' in a value
      {"c = 1[\"x\xcc\xaa\"\n", "run.toml:1:9: a non-ASCII character outside"},               // '[' in a value
  };
  for (const Bad& bad : cases) {
    INFO(bad.text);
    CHECK_THROWS_WITH(parse_toml(bad.text, "run.toml"), Catch::StartsWith(bad.message));
  }
}

TEST_CASE("TOML: a syntax error gives the line and column toml++ reports", "[config]") {
  CHECK_THROWS_WITH(parse_toml("seed = 1\nparticles = \n", "run.toml"), Catch::StartsWith("run.toml:2:"));
  try {
    parse_toml("seed = 1\nparticles = ]\n", "run.toml");
    FAIL("no error");
  } catch (const rsmc::Error& e) {
    const std::string what = e.what();
    CHECK(what.rfind("run.toml:2:13: ", 0) == 0);  // the ']' is the 13th character of line 2
  }
}

TEST_CASE("TOML: a missing file is an error naming it", "[config]") {
  CHECK_THROWS_WITH(rsmc::config::read_toml_file("/nonexistent/run.toml"), Catch::Contains("/nonexistent/run.toml"));
}
