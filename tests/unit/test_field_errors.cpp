// The library refuses inputs in its own terms (FieldError: field, value, expectation; base/core/error.hpp),
// and the command line alone turns field names into flags (drivers/field_flags.hpp); integer options
// read integral scientific notation exactly (drivers/integer_option.hpp).
#include <mpi.h>

#include <catch2/catch.hpp>
#include <string>

#include "base/core/error.hpp"
#include "drivers/field_flags.hpp"
#include "drivers/integer_option.hpp"
#include "framework/engine/bootstrap_filter.hpp"
#include "framework/engine/filter_options.hpp"
#include "framework/io/existing_file.hpp"
#include "framework/resample/scheme.hpp"
#include "tests/support/hazard_models.hpp"

namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using rsmc::FieldError;
using rsmc::FilterOptions;

// The FieldError `f` throws; fails the test when it throws something else or nothing.
template <class F>
FieldError field_error_of(F&& f) {
  try {
    f();
  } catch (const FieldError& e) {
    return e;
  }
  FAIL("expected a FieldError");
  throw;  // not reached
}

bool mentions_a_flag(const std::string& text) { return text.find("--") != std::string::npos; }

}  // namespace

TEST_CASE("a C++ caller with options.particles = 0 is told about the field particles, not a flag", "[field_errors]") {
  FilterOptions options;
  options.particles = 0;
  const FieldError e = field_error_of([&] { options.validate(); });
  CHECK(e.field() == "particles");
  CHECK(e.value() == "0");
  CHECK(e.expectation() == "an integer >= 1");
  CHECK(std::string(e.what()) == "particles: 0 is not a valid particle count; expected an integer >= 1");
  CHECK_FALSE(mentions_a_flag(e.what()));

  // The same through the filter's constructor, the way a program uses the library.
  const rsmc::test::InvalidAtIds model{};
  const FieldError from_filter =
      field_error_of([&] { rsmc::BootstrapFilter<rsmc::test::InvalidAtIds> filter(MPI_COMM_WORLD, model, options); });
  CHECK(from_filter.field() == "particles");
  CHECK_THAT(from_filter.what(), StartsWith("particles: 0 "));
  CHECK_FALSE(mentions_a_flag(from_filter.what()));
}

TEST_CASE("every option check names its field and what was expected, in the library's terms", "[field_errors]") {
  FilterOptions options;
  SECTION("seed") {
    options.seed = std::uint64_t{1} << 56;
    const FieldError e = field_error_of([&] { options.validate(); });
    CHECK(e.field() == "seed");
    CHECK(std::string(e.what()) == "seed: 72057594037927936 is too large; expected 0 <= seed < 2^56");
  }
  SECTION("more ranks than particles") {
    options.particles = 2;
    const FieldError e = field_error_of([&] { options.validate(3); });
    CHECK(e.field() == "particles");
    CHECK_THAT(e.what(), Contains("cannot be spread over 3 ranks"));
  }
  SECTION("Algorithm 1 is multinomial only: another field named in the message") {
    options.resampler = rsmc::Resampler::roulette_algorithm1;
    options.scheme = rsmc::Scheme::stratified;
    const FieldError e = field_error_of([&] { options.validate(); });
    CHECK(e.field() == "resampler");
    CHECK(e.value() == "roulette-algorithm1");
    CHECK(e.expectation() == "scheme = multinomial");
    CHECK(std::string(e.what()) ==
          "resampler = roulette-algorithm1 is the paper's multinomial selection; use scheme = multinomial");
  }
  SECTION("a local sampler with a baseline resampler") {
    options.resampler = rsmc::Resampler::gather_root;
    options.local_sampler = rsmc::LocalSampler::forest;
    const FieldError e = field_error_of([&] { options.validate(); });
    CHECK(e.field() == "local_sampler");
    CHECK_FALSE(mentions_a_flag(e.what()));
  }
  SECTION("an unknown scheme name") {
    const FieldError e = field_error_of([] { rsmc::parse_scheme("bogus"); });
    CHECK(e.field() == "scheme");
    CHECK(std::string(e.what()) ==
          "scheme: unknown scheme 'bogus'; expected multinomial, stratified, systematic or residual");
  }
  SECTION("steps") {
    const FieldError e = field_error_of([] { rsmc::check_step_count(0); });
    CHECK(e.field() == "steps");
    CHECK_THAT(e.what(), StartsWith("steps: 0 is not a valid step count"));
  }
}

TEST_CASE("the command line writes the fields of a FieldError as its flags", "[field_errors]") {
  using rsmc::drivers::error_text;
  FilterOptions options;
  options.particles = 0;
  CHECK(error_text(field_error_of([&] { options.validate(); })) ==
        "--particles: 0 is not a valid particle count; expected an integer >= 1");
  options = FilterOptions{};
  options.resampler = rsmc::Resampler::roulette_algorithm1;
  options.scheme = rsmc::Scheme::systematic;
  CHECK(error_text(field_error_of([&] { options.validate(); })) ==
        "--resampler roulette-algorithm1 is the paper's multinomial selection; use --resampling multinomial");
  // A switch set to true is the bare flag; a value with braces is taken literally.
  CHECK(error_text(rsmc::existing_file_error("output", "run{1}.h5")) ==
        "--output: run{1}.h5 already exists; pass --overwrite to replace it");
  CHECK(std::string(rsmc::existing_file_error("output", "run{1}.h5").what()) ==
        "output: run{1}.h5 already exists; pass overwrite = true to replace it");
  // Errors without fields pass through unchanged.
  CHECK(error_text(rsmc::Error("plain")) == "plain");
  CHECK(rsmc::drivers::flag_for("scheme") == "--resampling");
  CHECK(rsmc::drivers::flag_for("no_such_field") == "no_such_field");
}

TEST_CASE("integer options read integral scientific notation exactly and refuse the rest", "[field_errors]") {
  using rsmc::drivers::integer_text;
  CHECK(integer_text("1e6", false) == "1000000");
  CHECK(integer_text("2.5e5", false) == "250000");
  CHECK(integer_text("1E+2", false) == "100");
  CHECK(integer_text("+7", false) == "7");
  CHECK(integer_text("0012", false) == "12");
  CHECK(integer_text("0.0e5", false) == "0");
  CHECK(integer_text("1.250e2", false) == "125");
  CHECK(integer_text("12300e-2", false) == "123");
  CHECK(integer_text("1e0005", false) == "100000");
  CHECK(integer_text("-4", true) == "-4");
  CHECK(integer_text("-2.5e1", true) == "-25");
  // Exactly, beyond the 53 bits of a double.
  CHECK(integer_text("9223372036854775807", false) == "9223372036854775807");
  CHECK(integer_text("9.223372036854775807e18", false) == "9223372036854775807");
  CHECK(integer_text("-9223372036854775808", true) == "-9223372036854775808");
  CHECK(integer_text("12345678901234567e2", false) == "1234567890123456700");

  CHECK_THROWS_WITH(integer_text("1.5e0", false),
                    "1.5e0 is not an integer; expected an integer >= 0, e.g. 250000 or 2.5e5");
  CHECK_THROWS_WITH(integer_text("1e-3", false), StartsWith("1e-3 is not an integer"));
  CHECK_THROWS_WITH(integer_text("1e-99999", false), StartsWith("1e-99999 is not an integer"));
  CHECK_THROWS_WITH(integer_text("1e30", false), StartsWith("1e30 is out of range"));
  CHECK_THROWS_WITH(integer_text("9223372036854775808", false), StartsWith("9223372036854775808 is out of range"));
  CHECK_THROWS_WITH(integer_text("-9223372036854775809", true), StartsWith("-9223372036854775809 is out of range"));
  CHECK_THROWS_WITH(integer_text("1e99999", false), StartsWith("1e99999 is out of range"));
  CHECK_THROWS_WITH(integer_text("-3", false), StartsWith("-3 is negative"));
  for (const char* text : {"", "e5", "1e", "1e+", "abc", "1,000", "0x10", "1.2.3", "2.5e0.5", "1 000", "."})
    CHECK_THROWS_WITH(integer_text(text, true), Contains("is not a number"));
}

TEST_CASE("a field a run file set is named by the file's line, not by a flag that was never given", "[field_errors]") {
  using rsmc::drivers::error_text;
  using rsmc::drivers::input_name;
  FilterOptions options;
  options.seed = std::uint64_t{1} << 56;
  rsmc::drivers::record_value_origin("seed", "run.toml:3: ");
  CHECK(error_text(field_error_of([&] { options.validate(); })) ==
        "run.toml:3: seed: 72057594037927936 is too large; expected 0 <= seed < 2^56");
  CHECK(input_name("seed") == "run.toml:3: seed");
  CHECK(input_name("burn_in") == "--burn-in");  // not set by the file: the flag
  rsmc::drivers::clear_value_origins();
  CHECK(error_text(field_error_of([&] { options.validate(); })) ==
        "--seed: 72057594037927936 is too large; expected 0 <= seed < 2^56");
  CHECK(input_name("seed") == "--seed");
}

TEST_CASE("an error line is one printable line of a sane length, whatever the input held", "[field_errors]") {
  using rsmc::drivers::one_line;
  CHECK(one_line(std::string("a\nb\0c\td", 7)) == "a\\nb\\x00c\\td");
  CHECK(one_line("\xff\xfey\x00") == "\\xff\\xfey");                          // UTF-16: not UTF-8
  CHECK(one_line("caf\xc3\xa9 \xe2\x82\xac") == "caf\xc3\xa9 \xe2\x82\xac");  // UTF-8 stays
  CHECK(one_line("\xc3(") == "\\xc3(");                                       // a broken sequence
  CHECK(one_line("\xed\xa0\x80") == "\\xed\\xa0\\x80");                       // a surrogate is not UTF-8
  const std::string huge = "start " + std::string(1 << 20, 'a') + " end";
  const std::string line = one_line(huge);
  CHECK(line.size() < 2100);
  CHECK_THAT(line, StartsWith("start aaa"));
  CHECK_THAT(line, Contains(" bytes left out ...] "));
  CHECK(line.substr(line.size() - 8) == "aaaa end");
  CHECK(one_line(std::string(1000, 'b')) == std::string(1000, 'b'));
  CHECK(rsmc::excerpt(std::string(1 << 20, 'a')) == std::string(56, 'a') + "... (1048576 bytes)");
  CHECK(rsmc::excerpt("short") == "short");
}
