// Tests for framework/io: CSV and HDF5 observations, the result file, atomic writes.
#include <hdf5.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "framework/io/atomic_file.hpp"
#include "framework/io/csv_observations.hpp"
#include "framework/io/hdf5_observations.hpp"
#include "framework/io/observations_file.hpp"
#include "framework/io/result_file.hpp"
#include "tests/support/bits.hpp"
#include "tests/support/inference_testing.hpp"
#include "tests/support/scratch_dir.hpp"

using rsmc::test::read_bytes;
using rsmc::test::ScratchDir;

using rsmc::testing::same_bits;

using rsmc::test::kNaN;

namespace fs = std::filesystem;
using namespace rsmc;
using Catch::Contains;

namespace {

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

// Reads CSV text written to a scratch file.
Observations csv(const ScratchDir& dir, const std::string& text) {
  const std::string path = dir.file("y.csv");
  write_text(path, text);
  return read_observations_csv(path);
}

// Writes one dataset with the HDF5 C API (for inputs the rsmc writers never produce).
void make_h5(const std::string& path, const char* name, std::vector<hsize_t> dims, hid_t file_type, hid_t mem_type,
             const void* data) {
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  REQUIRE(file >= 0);
  const hid_t space =
      dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  const hid_t dset = H5Dcreate2(file, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  REQUIRE(dset >= 0);
  if (data) REQUIRE(H5Dwrite(dset, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
  H5Dclose(dset);
  H5Sclose(space);
  REQUIRE(H5Fclose(file) >= 0);
}

FilterResult sample_result() {
  FilterResult r;
  r.steps = 4;
  r.state_dim = 3;
  r.ess = {1000.0, 523.25, 0.1 + 0.2, 1e-300};
  r.log_likelihood_increment = {-1.0 / 3.0, 0.0, -0.0, -std::numeric_limits<double>::infinity()};
  for (int i = 0; i < 12; ++i) {
    r.mean.push_back(std::sqrt(i + 2.0) * (i % 2 ? -1 : 1));
    r.variance.push_back(std::exp(-i * 7.5));
  }
  r.mean[5] = kNaN;
  r.variance[11] = std::numeric_limits<double>::denorm_min();
  r.resampled = {0, 1, 1, 0};
  r.log_likelihood = -123.456789012345678;
  const std::uint64_t big = std::numeric_limits<std::uint64_t>::max();
  r.traffic.particles_moved = {0, 4000, 1, 0};
  r.traffic.bytes_moved = {0, 96000, 24, 0};
  r.traffic.messages = {0, 6, 1, 0};
  r.traffic.max_partners = {0, 3, 1, 0};
  r.traffic.minimum_moves = {0, big, std::uint64_t{1} << 63, 0};  // every bit pattern survives
  r.traffic.imbalance = {1.0, 1.25, 1.0 + 1e-15, 1.0};
  return r;
}

ResultAttributes sample_attributes() {
  ResultAttributes a;
  a.text = {{"rsmc_version", "0.1.0"},
            {"model", "linear_gaussian"},
            {"configuration", "[filter]\nparticles = 10000\nseed = 42\n"},
            {"parameters", "é ✓ unicode"}};
  a.integers = {{"ranks", 4}, {"particles", 10000}, {"big", std::numeric_limits<std::int64_t>::min()}};
  a.reals = {{"seconds_propagate", 0.125}, {"tiny", std::numeric_limits<double>::denorm_min()}};
  return a;
}

void require_same(const FilterResult& a, const FilterResult& b) {
  REQUIRE(a.steps == b.steps);
  REQUIRE(a.state_dim == b.state_dim);
  REQUIRE(same_bits(a.ess, b.ess));
  REQUIRE(same_bits(a.log_likelihood_increment, b.log_likelihood_increment));
  REQUIRE(same_bits(a.mean, b.mean));
  REQUIRE(same_bits(a.variance, b.variance));
  REQUIRE(a.resampled == b.resampled);
  REQUIRE(std::memcmp(&a.log_likelihood, &b.log_likelihood, sizeof(double)) == 0);
  REQUIRE(a.traffic.particles_moved == b.traffic.particles_moved);
  REQUIRE(a.traffic.bytes_moved == b.traffic.bytes_moved);
  REQUIRE(a.traffic.messages == b.traffic.messages);
  REQUIRE(a.traffic.max_partners == b.traffic.max_partners);
  REQUIRE(a.traffic.minimum_moves == b.traffic.minimum_moves);
  REQUIRE(same_bits(a.traffic.imbalance, b.traffic.imbalance));
  REQUIRE(same_bits(a.true_state, b.true_state));
}

const char* const kTrafficDatasets[] = {"particles_moved", "bytes_moved", "messages", "max_partners", "minimum_moves"};

// The file type of dataset `name` equals `expected`.
bool dataset_type_is(const std::string& path, const std::string& name, hid_t expected) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  const hid_t dset = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  REQUIRE(dset >= 0);
  const hid_t type = H5Dget_type(dset);
  const bool same = H5Tequal(type, expected) > 0;
  H5Tclose(type);
  H5Dclose(dset);
  H5Fclose(file);
  return same;
}

// The variable-length string attribute `attr` of the object `object`.
std::string text_attribute(const std::string& path, const char* object, const char* attr) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  const hid_t a = H5Aopen_by_name(file, object, attr, H5P_DEFAULT, H5P_DEFAULT);
  REQUIRE(a >= 0);
  const hid_t mem = H5Tcopy(H5T_C_S1);
  H5Tset_size(mem, H5T_VARIABLE);
  H5Tset_cset(mem, H5T_CSET_UTF8);
  char* value = nullptr;
  const herr_t rc = H5Aread(a, mem, &value);
  const std::string text = value ? value : "";
  H5free_memory(value);
  H5Tclose(mem);
  H5Aclose(a);
  H5Fclose(file);
  REQUIRE(rc >= 0);
  return text;
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// CSV reading

TEST_CASE("csv: comments, blank lines, CRLF, whitespace, missing rows", "[io][csv]") {
  ScratchDir dir;
  const Observations obs = csv(dir,
                               "\xEF\xBB\xBF# simulated data\r\n"
                               "\r\n"
                               "  y1 ,\ty2  \r\n"
                               "0.25, -1.5\r\n"
                               "   # a comment between rows\n"
                               "NA,NA\n"
                               ",\n"
                               " NaN , nan \n"
                               "\n"
                               "1e-3,+2\n"
                               "-0,  7.000000000000001");  // no final newline
  REQUIRE(obs.dim == 2);
  REQUIRE(obs.steps == 6);
  REQUIRE(obs.values.size() == 12);
  CHECK(obs.row(1)[0] == 0.25);
  CHECK(obs.row(1)[1] == -1.5);
  for (int t = 2; t <= 4; ++t) {
    CHECK(obs.missing(t));
    CHECK(std::isnan(obs.row(t)[0]));
    CHECK(std::isnan(obs.row(t)[1]));
  }
  CHECK(!obs.missing(1));
  CHECK(obs.row(5)[0] == 1e-3);
  CHECK(obs.row(5)[1] == 2.0);
  CHECK(std::signbit(obs.row(6)[0]));
  CHECK(obs.row(6)[1] == 7.000000000000001);
}

TEST_CASE("csv: decimal numbers in every form", "[io][csv]") {
  ScratchDir dir;
  const Observations obs = csv(dir, "y\n1.\n.5\n+2\n-2E-3\n1e5\n-.25e+1\n007\n");
  REQUIRE(obs.steps == 7);
  const double expected[] = {1.0, 0.5, 2.0, -2e-3, 1e5, -2.5, 7.0};
  for (int t = 1; t <= 7; ++t) CHECK(obs.row(t)[0] == expected[t - 1]);
}

TEST_CASE("csv: one column with missing steps", "[io][csv]") {
  ScratchDir dir;
  const Observations obs = csv(dir, "y\n1\nNA\n3\nNaN\n");
  REQUIRE(obs.dim == 1);
  REQUIRE(obs.steps == 4);
  CHECK(obs.row(1)[0] == 1.0);
  CHECK(obs.missing(2));
  CHECK(obs.row(3)[0] == 3.0);
  CHECK(obs.missing(4));
}

TEST_CASE("csv: errors name the file and the line", "[io][csv]") {
  ScratchDir dir;
  const std::string path = dir.file("y.csv");
  auto fails_with = [&](const std::string& text, const std::string& what) {
    write_text(path, text);
    REQUIRE_THROWS_AS(read_observations_csv(path), Error);
    REQUIRE_THROWS_WITH(read_observations_csv(path), Contains(path) && Contains(what));
  };

  SECTION("missing file") {
    const std::string missing = dir.file("absent.csv");
    REQUIRE_THROWS_WITH(read_observations_csv(missing), Contains(missing) && Contains("No such file"));
  }
  SECTION("a directory") { REQUIRE_THROWS_WITH(read_observations_csv(dir.file("")), Contains("directory")); }
  SECTION("empty file: no header") { fails_with("", "no header"); }
  SECTION("only comments: no header") { fails_with("# nothing\n\n# here\n", "no header"); }
  SECTION("numbers where the header should be") { fails_with("# c\n1.5,2\n3,4\n", "line 2: no header"); }
  SECTION("empty header name") {
    fails_with("# c\n\ny1,,y3\n1,2,3\n", "line 3: header column 2 of 3 has an empty name");
  }
  SECTION("trailing comma in header") {
    fails_with("y1,y2,\n1,2,\n", "line 1: header column 3 of 3 has an empty name");
  }
  SECTION("duplicate header name") { fails_with("a, b ,b\n1,2,3\n", "line 1: header names column 'b' twice"); }
  SECTION("too many fields") {
    fails_with("# c\ny1,y2\n1,2\n3,4\n5,6,7\n", "line 5: 3 fields, expected 2 (header has 2 columns)");
  }
  SECTION("too few fields") {
    fails_with("y1,y2,y3\r\n1,2,3\r\n4,5\r\n", "line 3: 2 fields, expected 3 (header has 3 columns)");
  }
  SECTION("one column, two fields") { fails_with("y\n1\n2,3\n", "line 3: 2 fields, expected 1 (header has 1 column)"); }
  SECTION("not a number") { fails_with("y1,y2\n1,2\n3,abc\n", "line 3: column 'y2': 'abc' is not a finite number"); }
  SECTION("trailing garbage") { fails_with("y1,y2\n1.5x,2\n", "line 2: column 'y1': '1.5x' is not a finite number"); }
  SECTION("two numbers in a field") {
    fails_with("y1,y2\n1 2,2\n", "line 2: column 'y1': '1 2' is not a finite number");
  }
  SECTION("inf") { fails_with("y1,y2\n1,2\ninf,2\n", "line 3: column 'y1': 'inf' is not a finite number"); }
  SECTION("-Infinity") { fails_with("y\n-Infinity\n", "line 2: column 'y': '-Infinity' is not a finite number"); }
  SECTION("overflow") { fails_with("y\n1e999\n", "line 2: column 'y': '1e999' is not a finite number"); }
  SECTION("NaN spelled otherwise") { fails_with("y\nNAN\n", "line 2: column 'y': 'NAN' is not a finite number"); }
  // std::strtod reads these; a data file holds decimal numbers only.
  SECTION("hexadecimal float") {
    fails_with("y1,y2\n1,2\n3,0x1p3\n", "line 3: column 'y2': '0x1p3' is not a finite number");
  }
  SECTION("hexadecimal integer") { fails_with("y\n0X10\n", "line 2: column 'y': '0X10' is not a finite number"); }
  SECTION("+inf") { fails_with("y\n+inf\n", "line 2: column 'y': '+inf' is not a finite number"); }
  SECTION("nan with a payload") { fails_with("y\nnan(1)\n", "line 2: column 'y': 'nan(1)' is not a finite number"); }
  SECTION("-nan") { fails_with("y\n-nan\n", "line 2: column 'y': '-nan' is not a finite number"); }
  SECTION("no digits") {
    fails_with("y\n.\n", "line 2: column 'y': '.' is not a finite number");
    fails_with("y\n-e5\n", "line 2: column 'y': '-e5' is not a finite number");
    fails_with("y\n1e\n", "line 2: column 'y': '1e' is not a finite number");
    fails_with("y\n1e+\n", "line 2: column 'y': '1e+' is not a finite number");
  }
  SECTION("partially missing row") {
    fails_with("y1,y2,y3\n1,2,3\n\n4,NA,6\n",
               "line 4: 1 of 3 fields missing (column 'y2' missing, column 'y1' present)");
    fails_with("y1,y2\n,2\n", "line 2: 1 of 2 fields missing");
    fails_with("y1,y2\n1,2\nnan,2\n", "partially observed");
  }
  SECTION("header but no data rows") { fails_with("# c\ny1,y2\n# nothing\n\n", "no data rows"); }
}

// ------------------------------------------------------------------------------------------------
// CSV writing

TEST_CASE("csv: write then read round-trips bitwise", "[io][csv]") {
  ScratchDir dir;
  Observations obs;
  obs.dim = 3;
  obs.steps = 5;
  obs.values = {0.1,
                1.0 / 3.0,
                -0.0,  //
                kNaN,
                kNaN,
                kNaN,  //
                1e308,
                -1e-308,
                std::numeric_limits<double>::denorm_min(),  //
                std::nextafter(1.0, 2.0),
                -123456789.123456789,
                2.5e-17,  //
                kNaN,
                kNaN,
                kNaN};
  const std::string path = dir.file("out.csv");
  write_observations_csv(path, obs, {"a", "b", "c"}, false);
  const Observations back = read_observations_csv(path);
  REQUIRE(back.steps == obs.steps);
  REQUIRE(back.dim == obs.dim);
  REQUIRE(same_bits(back.values, obs.values));
  CHECK(read_bytes(path).rfind("a,b,c\n", 0) == 0);
  CHECK(read_bytes(path).find("\n,,\n") != std::string::npos);  // missing rows are empty fields

  SECTION("one column: missing rows are written as NA") {
    Observations one;
    one.dim = 1;
    one.steps = 3;
    one.values = {2.0, kNaN, 0.3};
    const std::string p1 = dir.file("one.csv");
    write_observations_csv(p1, one, {}, false);  // default names y1..
    CHECK(read_bytes(p1) == "y1\n2\nNA\n0.29999999999999999\n");
    REQUIRE(same_bits(read_observations_csv(p1).values, one.values));
  }
}

TEST_CASE("csv: writer rejects what the reader would reject", "[io][csv]") {
  ScratchDir dir;
  const std::string path = dir.file("out.csv");
  Observations obs;
  obs.dim = 2;
  obs.steps = 2;
  obs.values = {1, 2, 3, 4};
  REQUIRE_THROWS_WITH(write_observations_csv(path, obs, {"a"}, false), Contains("1 column names for 2"));
  REQUIRE_THROWS_WITH(write_observations_csv(path, obs, {"a", "a"}, false), Contains("appears twice"));
  REQUIRE_THROWS_WITH(write_observations_csv(path, obs, {"a", "b,c"}, false), Contains("not allowed"));
  REQUIRE_THROWS_WITH(write_observations_csv(path, obs, {"#a", "b"}, false), Contains("not allowed"));
  REQUIRE_THROWS_WITH(write_observations_csv(path, obs, {"1", "2"}, false), Contains("all numbers"));
  obs.values[3] = kNaN;
  REQUIRE_THROWS_WITH(write_observations_csv(path, obs, {"a", "b"}, false), Contains("step 2 has 1 of 2"));
  obs.values[3] = std::numeric_limits<double>::infinity();
  REQUIRE_THROWS_WITH(write_observations_csv(path, obs, {"a", "b"}, false), Contains("infinite"));
  obs.values.pop_back();
  REQUIRE_THROWS_WITH(write_observations_csv(path, obs, {"a", "b"}, false), Contains("expected steps x dim"));
  CHECK(dir.entries().empty());
}

// ------------------------------------------------------------------------------------------------
// HDF5 observations

TEST_CASE("hdf5 observations: 2-D write then read round-trips bitwise", "[io][hdf5]") {
  ScratchDir dir;
  Observations obs;
  obs.dim = 2;
  obs.steps = 4;
  obs.values = {0.1, -0.0, kNaN, kNaN, 1e-310, 1e308, 1.0 / 7.0, -2.0};
  const std::string path = dir.file("y.h5");
  write_observations_hdf5(path, obs, false);
  const Observations back = read_observations_hdf5(path);
  REQUIRE(back.steps == 4);
  REQUIRE(back.dim == 2);
  REQUIRE(same_bits(back.values, obs.values));
  REQUIRE(back.missing(2));
  // The dispatcher picks HDF5 for .h5 and .hdf5 (any case).
  REQUIRE(same_bits(read_observations(path).values, obs.values));
  const std::string upper = dir.file("y.HDF5");
  fs::copy_file(path, upper);
  REQUIRE(same_bits(read_observations(upper).values, obs.values));
}

TEST_CASE("hdf5 observations: a 1-D dataset and a float32 dataset", "[io][hdf5]") {
  ScratchDir dir;
  const std::string path = dir.file("y1.h5");
  const std::vector<double> y = {1.5, kNaN, -3.25, 1.0 / 3.0};
  make_h5(path, "observations", {4}, H5T_IEEE_F64BE, H5T_NATIVE_DOUBLE, y.data());  // big-endian on disk
  const Observations obs = read_observations_hdf5(path);
  REQUIRE(obs.dim == 1);
  REQUIRE(obs.steps == 4);
  REQUIRE(same_bits(obs.values, y));

  const std::string p32 = dir.file("y32.h5");
  const std::vector<float> y32 = {0.1f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f};
  make_h5(p32, "data", {3, 2}, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, y32.data());
  const Observations o32 = read_observations_hdf5(p32, "data");
  REQUIRE(o32.dim == 2);
  REQUIRE(o32.steps == 3);
  CHECK(o32.values[0] == static_cast<double>(0.1f));
  CHECK(o32.values[5] == 6.0);
}

TEST_CASE("hdf5 observations: errors", "[io][hdf5]") {
  ScratchDir dir;
  const std::string path = dir.file("y.h5");
  SECTION("missing file") {
    REQUIRE_THROWS_WITH(read_observations_hdf5(path), Contains(path) && Contains("No such file"));
  }
  SECTION("not an HDF5 file") {
    write_text(path, "y\n1\n");
    REQUIRE_THROWS_WITH(read_observations_hdf5(path), Contains(path) && Contains("not an HDF5 file"));
  }
  SECTION("missing dataset lists the datasets found") {
    const double v[2] = {1, 2};
    make_h5(path, "obs", {2}, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v);
    REQUIRE_THROWS_WITH(read_observations_hdf5(path),
                        Contains(path) && Contains("no dataset 'observations'") && Contains("'obs'"));
  }
  SECTION("rank 3") {
    const std::vector<double> v(8, 1.0);
    make_h5(path, "observations", {2, 2, 2}, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v.data());
    REQUIRE_THROWS_WITH(read_observations_hdf5(path), Contains("rank 3; expected a 1-D (T) or 2-D (T x m)"));
  }
  SECTION("scalar") {
    const double v = 1.0;
    make_h5(path, "observations", {}, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
    REQUIRE_THROWS_WITH(read_observations_hdf5(path), Contains("rank 0"));
  }
  SECTION("integer type") {
    const int v[3] = {1, 2, 3};
    make_h5(path, "observations", {3}, H5T_STD_I32LE, H5T_NATIVE_INT, v);
    REQUIRE_THROWS_WITH(read_observations_hdf5(path),
                        Contains(path) && Contains("integer type; expected floating-point"));
  }
  SECTION("empty") {
    make_h5(path, "observations", {0, 2}, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, nullptr);
    REQUIRE_THROWS_WITH(read_observations_hdf5(path), Contains("is empty (0 x 2)"));
  }
  SECTION("partially NaN row") {
    const double v[6] = {1, 2, 3, kNaN, 5, 6};
    make_h5(path, "observations", {3, 2}, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v);
    REQUIRE_THROWS_WITH(read_observations_hdf5(path), Contains("row 1 (step 2) has 1 of 2 values NaN"));
  }
  SECTION("infinite value") {
    const double v[2] = {1, -std::numeric_limits<double>::infinity()};
    make_h5(path, "observations", {2}, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v);
    REQUIRE_THROWS_WITH(read_observations_hdf5(path), Contains("row 1 (step 2), column 0 is infinite"));
  }
  SECTION("the name is a group") {
    const double v[2] = {1, 2};
    make_h5(path, "g", {2}, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v);
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Gclose(H5Gcreate2(f, "observations", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Fclose(f);
    REQUIRE_THROWS_WITH(read_observations_hdf5(path), Contains("not a dataset"));
  }
}

TEST_CASE("read_observations dispatches on the extension", "[io]") {
  ScratchDir dir;
  write_text(dir.file("y.CSV"), "y\n1\n2\n");
  CHECK(read_observations(dir.file("y.CSV")).steps == 2);
  write_text(dir.file("y.txt"), "y\n1\n2\n");
  REQUIRE_THROWS_WITH(read_observations(dir.file("y.txt")),
                      Contains(dir.file("y.txt")) && Contains("'.txt'") && Contains(".csv, .h5 or .hdf5"));
  REQUIRE_THROWS_WITH(read_observations(dir.file("data")), Contains("no file extension"));
}

// ------------------------------------------------------------------------------------------------
// Result file and atomic writes

TEST_CASE("result file: write then read round-trips bitwise", "[io][result]") {
  ScratchDir dir;
  const std::string path = dir.file("result.h5");
  const FilterResult r = sample_result();
  write_result_file(path, r, sample_attributes(), false);
  require_same(read_result_file(path), r);
  CHECK(dir.entries() == std::vector<std::string>{"result.h5"});  // no temporary left

  const ResultAttributes a = read_result_attributes(path);
  CHECK(a.text == sample_attributes().text);  // in the order given
  CHECK(a.integers == sample_attributes().integers);
  CHECK(a.reals == sample_attributes().reals);  // bit for bit: float64 in the file

  // The traffic is uint64 (the imbalance float64) under /resampling_traffic, with a note that it
  // depends on the rank count.
  for (const char* name : kTrafficDatasets)
    CHECK(dataset_type_is(path, std::string("/resampling_traffic/") + name, H5T_STD_U64LE));
  CHECK(dataset_type_is(path, "/resampling_traffic/imbalance", H5T_IEEE_F64LE));
  CHECK(dataset_type_is(path, "/resampled", H5T_STD_U8LE));
  CHECK(text_attribute(path, "/resampling_traffic", "note") ==
        "communication and load balance of each resampling; depends on the number of ranks and the layout, unlike "
        "every other dataset");

  // The simulated truth, when given, is /true_state (T x d) and reads back; a wrong size is refused.
  FilterResult with_truth = r;
  for (std::size_t i = 0; i < r.mean.size(); ++i) with_truth.true_state.push_back(0.25 * static_cast<double>(i) - 1.0);
  const std::string truth_path = dir.file("truth.h5");
  write_result_file(truth_path, with_truth, {}, false);
  require_same(read_result_file(truth_path), with_truth);
  with_truth.true_state.pop_back();
  REQUIRE_THROWS_WITH(write_result_file(dir.file("bad_truth.h5"), with_truth, {}, false), Contains("'true_state'"));

  // Objects carry no timestamps: writing the same result twice gives the same bytes.
  const std::string again = dir.file("again.h5");
  write_result_file(again, r, sample_attributes(), false);
  CHECK(read_bytes(again) == read_bytes(path));
}

TEST_CASE("result file: traffic not recorded, and files without it", "[io][result]") {
  ScratchDir dir;
  const std::string path = dir.file("result.h5");
  FilterResult r = sample_result();
  r.traffic = {};  // all six empty: "not recorded", written as zeros of length T
  write_result_file(path, r, {}, false);
  const FilterResult back = read_result_file(path);
  const std::vector<std::uint64_t> zeros(4, 0);
  CHECK(back.traffic.particles_moved == zeros);
  CHECK(back.traffic.bytes_moved == zeros);
  CHECK(back.traffic.messages == zeros);
  CHECK(back.traffic.max_partners == zeros);
  CHECK(back.traffic.minimum_moves == zeros);
  CHECK(back.traffic.imbalance == std::vector<double>(4, 0.0));
  FilterResult expected = r;
  expected.traffic.particles_moved = expected.traffic.bytes_moved = expected.traffic.messages =
      expected.traffic.max_partners = expected.traffic.minimum_moves = zeros;
  expected.traffic.imbalance.assign(4, 0.0);
  require_same(back, expected);

  // A file written before /resampling_traffic existed reads back with empty traffic.
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  REQUIRE(f >= 0);
  REQUIRE(H5Ldelete(f, "resampling_traffic", H5P_DEFAULT) >= 0);
  H5Fclose(f);
  const FilterResult old = read_result_file(path);
  CHECK(old.traffic.particles_moved.empty());
  CHECK(old.traffic.bytes_moved.empty());
  CHECK(old.traffic.messages.empty());
  CHECK(old.traffic.max_partners.empty());
  CHECK(old.traffic.minimum_moves.empty());
  CHECK(old.traffic.imbalance.empty());
  require_same(old, r);
}

TEST_CASE("result file: validation and reading errors", "[io][result]") {
  ScratchDir dir;
  const std::string path = dir.file("result.h5");
  FilterResult r = sample_result();
  r.mean.pop_back();
  REQUIRE_THROWS_WITH(write_result_file(path, r, {}, false), Contains("'filtered_mean' holds 11 values; expected 12"));
  ResultAttributes dup;
  dup.text = {{"ranks", "x"}};
  dup.integers = {{"ranks", 4}};
  REQUIRE_THROWS_WITH(write_result_file(path, sample_result(), dup, false), Contains("'ranks' is given twice"));
  dup.integers.clear();
  dup.reals = {{"ranks", 1.0}};
  REQUIRE_THROWS_WITH(write_result_file(path, sample_result(), dup, false), Contains("'ranks' is given twice"));
  FilterResult partial = sample_result();  // a required series empty: refused (an optional one is zeros)
  partial.ess.clear();
  REQUIRE_THROWS_WITH(write_result_file(path, partial, {}, false), Contains("'ess' holds 0 values; expected 4"));
  FilterResult long_traffic = sample_result();
  long_traffic.traffic.minimum_moves.push_back(0);
  REQUIRE_THROWS_WITH(write_result_file(path, long_traffic, {}, false),
                      Contains("'minimum_moves' holds 5 values; expected 4"));
  CHECK(dir.entries().empty());

  // A file that is not a result file.
  Observations obs;
  obs.dim = 1;
  obs.steps = 1;
  obs.values = {1.0};
  write_observations_hdf5(path, obs, false);
  REQUIRE_THROWS_WITH(read_result_file(path), Contains(path) && Contains("no dataset '/ess'"));
}

TEST_CASE("result file: reading a damaged traffic group", "[io][result]") {
  ScratchDir dir;
  const std::string path = dir.file("result.h5");
  write_result_file(path, sample_result(), {}, false);
  // Replaces /resampling_traffic/<name> by a dataset of `n` values of type `type`.
  auto replace = [&](const char* name, hsize_t n, hid_t type) {
    const std::string full = std::string("resampling_traffic/") + name;
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0);
    REQUIRE(H5Ldelete(f, full.c_str(), H5P_DEFAULT) >= 0);
    const std::vector<double> v(static_cast<std::size_t>(n), 1.0);
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t dset = H5Dcreate2(f, full.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(dset >= 0);
    REQUIRE(H5Dwrite(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0);
    H5Dclose(dset);
    H5Sclose(space);
    H5Fclose(f);
  };
  SECTION("wrong length") {
    replace("bytes_moved", 3, H5T_STD_U64LE);
    REQUIRE_THROWS_WITH(read_result_file(path), Contains(path) && Contains("'/resampling_traffic/bytes_moved'") &&
                                                    Contains("has shape (3); expected (4)"));
  }
  SECTION("wrong type") {
    replace("messages", 4, H5T_IEEE_F64LE);
    REQUIRE_THROWS_WITH(read_result_file(path), Contains("'/resampling_traffic/messages'") &&
                                                    Contains("wrong type; expected unsigned 64-bit integers"));
  }
  SECTION("another integer type is converted") {
    replace("max_partners", 4, H5T_STD_U16BE);
    CHECK(read_result_file(path).traffic.max_partners == std::vector<std::uint64_t>(4, 1));
  }
  SECTION("an optional series missing: not recorded (a result file written before it existed)") {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0);
    REQUIRE(H5Ldelete(f, "resampling_traffic/minimum_moves", H5P_DEFAULT) >= 0);
    H5Fclose(f);
    const FilterResult back = read_result_file(path);
    CHECK(back.traffic.minimum_moves.empty());
    CHECK(back.traffic.messages == sample_result().traffic.messages);
  }
  SECTION("a required series missing") {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0);
    REQUIRE(H5Ldelete(f, "filtered_variance", H5P_DEFAULT) >= 0);
    H5Fclose(f);
    REQUIRE_THROWS_WITH(read_result_file(path), Contains("no dataset '/filtered_variance'"));
  }
}

TEST_CASE("atomic writes: refuse, overwrite, fail cleanly", "[io][atomic]") {
  ScratchDir dir;
  const std::string path = dir.file("result.h5");
  const FilterResult r = sample_result();
  write_result_file(path, r, sample_attributes(), false);
  const std::string original = read_bytes(path);

  SECTION("refusing to overwrite leaves the old file byte-identical") {
    FilterResult other = r;
    other.log_likelihood = 1.0;
    // In the library's terms (the command line writes the flags, drivers/field_flags.hpp).
    REQUIRE_THROWS_WITH(write_result_file(path, other, {}, false),
                        Contains("output: " + path + " already exists; pass overwrite = true to replace it"));
    REQUIRE_THROWS_AS(write_result_file(path, other, {}, false), rsmc::FieldError);
    CHECK(read_bytes(path) == original);
    Observations obs;
    obs.dim = 1;
    obs.steps = 1;
    obs.values = {1.0};
    REQUIRE_THROWS_WITH(write_observations_hdf5(path, obs, false), Contains("overwrite = true"));
    REQUIRE_THROWS_WITH(write_observations_csv(path, obs, {"y"}, false), Contains("overwrite = true"));
    CHECK(read_bytes(path) == original);
    CHECK(dir.entries() == std::vector<std::string>{"result.h5"});
  }
  SECTION("overwrite=true replaces it") {
    FilterResult other = r;
    other.log_likelihood = 1.0;
    other.ess[2] = 7.0;
    write_result_file(path, other, {}, true);
    require_same(read_result_file(path), other);
    CHECK(read_bytes(path) != original);
    CHECK(dir.entries() == std::vector<std::string>{"result.h5"});
  }
  SECTION("a failing writer removes its temporary and leaves the old file alone") {
    std::string seen_tmp;
    auto failing = [&](const std::string& tmp) {
      seen_tmp = tmp;
      write_text(tmp, "partial");
      throw Error("simulated failure half-way");
    };
    REQUIRE_THROWS_WITH(write_atomically(path, true, failing), Contains("simulated failure"));
    CHECK(seen_tmp == atomic_temporary_path(path));
    CHECK(fs::path(seen_tmp).parent_path() == fs::path(path).parent_path());
    CHECK(fs::path(seen_tmp).filename().string().rfind(".result.h5.tmp.", 0) == 0);
    CHECK(!fs::exists(seen_tmp));
    CHECK(read_bytes(path) == original);
    CHECK(dir.entries() == std::vector<std::string>{"result.h5"});
    // Exceptions other than rsmc::Error become rsmc::Error naming the path.
    REQUIRE_THROWS_AS(write_atomically(path, true, [](const std::string&) { throw std::runtime_error("boom"); }),
                      Error);
    CHECK(read_bytes(path) == original);
  }
  SECTION("writing into a non-existent directory fails cleanly") {
    const std::string nowhere = dir.file("no/such/dir/result.h5");
    REQUIRE_THROWS_AS(write_result_file(nowhere, r, {}, false), Error);
    REQUIRE_THROWS_WITH(write_result_file(nowhere, r, {}, true), Contains(nowhere) && Contains("No such file"));
    Observations obs;
    obs.dim = 1;
    obs.steps = 1;
    obs.values = {1.0};
    REQUIRE_THROWS_AS(write_observations_csv(dir.file("nodir/y.csv"), obs, {"y"}, true), Error);
    REQUIRE_THROWS_AS(write_observations_hdf5(dir.file("nodir/y.h5"), obs, true), Error);
    CHECK(dir.entries() == std::vector<std::string>{"result.h5"});
  }
  SECTION("the target is a directory") {
    fs::create_directory(dir.file("adir"));
    REQUIRE_THROWS_WITH(write_result_file(dir.file("adir"), r, {}, true), Contains("is a directory"));
    REQUIRE_THROWS_WITH(write_result_file(dir.file("adir/"), r, {}, true), Contains("not a directory"));
  }
}
