// Tests for the per-step series table (framework/engine/step_series.hpp), SHA-256, sealed files
// (framework/io/sealed_file.hpp) and the checkpoint file on one rank (framework/io/checkpoint_file.hpp).
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <thread>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "framework/engine/step_series.hpp"
#include "framework/io/atomic_file.hpp"
#include "framework/io/checkpoint_file.hpp"
#include "framework/io/result_file.hpp"
#include "framework/io/sealed_file.hpp"
#include "framework/io/sha256.hpp"
#include "tests/support/scratch_dir.hpp"

using rsmc::test::read_bytes;
using rsmc::test::ScratchDir;

namespace fs = std::filesystem;
using namespace rsmc;
using Catch::Contains;

namespace {

// A pid that runs no process now (the kernel does not reuse one at once).
long pid_of_no_process() {
  for (long pid = 4194000; pid > 300000; --pid)
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return pid;
  return 4194303;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// A step whose every value differs from every other step's (so a mixed-up series shows).
StepSummary sample_step(int t, int d) {
  StepSummary s;
  s.ess = 100.0 + t;
  s.log_likelihood_increment = -0.5 * t;
  for (int c = 0; c < d; ++c) {
    s.mean.push_back(t + 0.1 * c);
    s.variance.push_back(1.0 / (t + c + 1));
  }
  s.resampled = t % 2 == 0;
  s.invalid_likelihoods = static_cast<std::uint64_t>(3 * t);
  s.resample_stats = {10u + t, 20u + t, 30u + t, 40u + t, 50u + t};
  s.imbalance = 1.0 + 1.0 / (t + 7);
  return s;
}

RunProgress sample_progress(int steps, int d) {
  RunProgress p;
  p.result.state_dim = d;
  p.log_likelihood.clear();
  for (int t = 1; t <= steps; ++t) {
    const StepSummary s = sample_step(t, d);
    p.result.append(s);
    p.log_likelihood.add(s.log_likelihood_increment);
  }
  p.step = steps;
  p.log_total_weight = 1.25;
  return p;
}

CheckpointInfo sample_info(std::uint64_t n, int d) {
  CheckpointInfo info;
  info.particles = n;
  info.state_dim = d;
  info.model = "linear_gaussian";
  info.parameters = "d = 2";
  info.identity = "seed = 1";
  info.configuration = "particles = 7";
  return info;
}

CheckpointBlock sample_block(std::uint64_t n, int d) {
  CheckpointBlock b;
  b.count = n;
  for (std::uint64_t i = 0; i < n * static_cast<std::uint64_t>(d); ++i) b.state.push_back(0.5 * static_cast<double>(i));
  for (std::uint64_t i = 0; i < n; ++i) b.log_weight.push_back(-static_cast<double>(i));
  return b;
}

// Every series of the table holds the same values in both.
bool same_series(const FilterResult& a, const FilterResult& b) {
  bool same = true;
  for (const StepSeries& series : kStepSeries)
    std::visit([&](const auto& column) { same = same && stored_values(column, a) == stored_values(column, b); },
               series.column);
  return same;
}

std::string write_sample_checkpoint(const ScratchDir& dir, const std::string& name = "checkpoint-000000004.h5") {
  const std::string path = dir.file(name);
  write_checkpoint(MPI_COMM_SELF, path, sample_info(7, 2), sample_progress(4, 2), sample_block(7, 2));
  return path;
}

// Reads the checkpoint as a restart does; returns the error message, or "" when accepted.
std::string restart_error(const std::string& path) {
  try {
    const CheckpointContents c = read_checkpoint_header(MPI_COMM_SELF, path);
    read_checkpoint_block(MPI_COMM_SELF, path, c.info, 0, c.info.particles);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("sha256: the FIPS 180-4 example messages", "[io][sha256]") {
  CHECK(to_hex(Sha256::of("abc", 3)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(to_hex(Sha256::of("", 0)) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const std::string two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";  // 448 bits
  CHECK(to_hex(Sha256::of(two_blocks.data(), two_blocks.size())) ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // One million 'a', given in pieces of every length 1..97 (crossing block boundaries everywhere).
  const std::string million(1000000, 'a');
  Sha256 pieces;
  std::size_t at = 0;
  for (std::size_t len = 1; at < million.size(); len = len % 97 + 1) {
    const std::size_t n = std::min(len, million.size() - at);
    pieces.update(million.data() + at, n);
    at += n;
  }
  CHECK(to_hex(pieces.finish()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Lengths around the padding boundary (55, 56, 63, 64 bytes) agree between one call and byte by byte.
  for (std::size_t n : {55u, 56u, 63u, 64u, 65u, 119u, 120u}) {
    const std::string m(n, 'x');
    Sha256 bytewise;
    for (char c : m) bytewise.update(&c, 1);
    CHECK(bytewise.finish() == Sha256::of(m.data(), m.size()));
  }
}

TEST_CASE("step series: one row per series, appended once per step", "[io][step_series]") {
  std::set<std::string> names;
  for (const StepSeries& series : kStepSeries) {
    CHECK(names.insert(series.name).second);  // distinct names: they are dataset names
    CHECK(std::strlen(series.doc) > 0);
  }
  // Only the moments have one value per state component.
  for (const StepSeries& series : kStepSeries)
    CHECK(series.per_component ==
          (std::string(series.name) == "filtered_mean" || std::string(series.name) == "filtered_variance"));
  const int d = 3;
  FilterResult r;
  r.state_dim = d;
  for (int t = 1; t <= 5; ++t) r.append(sample_step(t, d));
  CHECK(r.steps == 5);
  for (const StepSeries& series : kStepSeries)
    std::visit([&](const auto& column) { CHECK(stored_values(column, r).size() == series_length(series, 5, d)); },
               series.column);
  // Each value lands in its own series, in step order.
  CHECK(r.ess == std::vector<double>{101, 102, 103, 104, 105});
  CHECK(r.resampled == std::vector<std::uint8_t>{0, 1, 0, 1, 0});
  CHECK(r.invalid_likelihoods == std::vector<std::uint64_t>{3, 6, 9, 12, 15});
  CHECK(r.traffic.minimum_moves == std::vector<std::uint64_t>{51, 52, 53, 54, 55});
  CHECK(r.traffic.imbalance ==
        std::vector<double>{1.0 + 1.0 / 8, 1.0 + 1.0 / 9, 1.0 + 1.0 / 10, 1.0 + 1.0 / 11, 1.0 + 1.0 / 12});
  CHECK(r.variance[3 * 2 + 1] == 1.0 / (3 + 1 + 1));
}

TEST_CASE("step series: every series round-trips through the result file", "[io][step_series]") {
  ScratchDir dir;
  FilterResult r = sample_progress(6, 2).result;
  r.log_likelihood = -3.5;
  const std::string path = dir.file("result.h5");
  write_result_file(path, r, {}, false);
  const FilterResult back = read_result_file(path);
  CHECK(back.steps == 6);
  CHECK(back.state_dim == 2);
  CHECK(same_series(back, r));
  CHECK(back.log_likelihood == -3.5);
  // The result file is a plain HDF5 file: no seal.
  CHECK(file_start(path) == FileStart::plain_hdf5);
}

TEST_CASE("checkpoint: every series and the particles round-trip; the file is sealed", "[io][checkpoint]") {
  ScratchDir dir;
  const std::string path = write_sample_checkpoint(dir);
  CHECK(dir.entries() == std::vector<std::string>{"checkpoint-000000004.h5"});  // no temporary left
  CHECK(file_start(path) == FileStart::sealed_checkpoint);
  const CheckpointContents c = read_checkpoint_header(MPI_COMM_SELF, path);
  CHECK(c.info.format_version == kCheckpointFormatVersion);
  CHECK(c.info.model == "linear_gaussian");
  CHECK(c.progress.step == 4);
  CHECK(c.progress.log_total_weight == 1.25);
  CHECK(same_series(c.progress.result, sample_progress(4, 2).result));
  const CheckpointBlock b = read_checkpoint_block(MPI_COMM_SELF, path, c.info, 0, 7);
  const CheckpointBlock all = sample_block(7, 2);
  CHECK(b.log_weight == all.log_weight);
  CHECK(b.state == all.state);
  // One rank reading part of the particles: the checksum covers all ranks' blocks together.
  REQUIRE_THROWS_WITH(read_checkpoint_block(MPI_COMM_SELF, path, c.info, 2, 3), Contains("checksum"));
  // Writing the same checkpoint again gives the same bytes (no timestamps; the seal is a pure function).
  const std::string first = read_bytes(path);
  write_sample_checkpoint(dir);
  CHECK(read_bytes(path) == first);
}

TEST_CASE("checkpoint: a truncated file is refused at every offset, before HDF5 reads it", "[io][checkpoint]") {
  ScratchDir dir;
  const std::string path = write_sample_checkpoint(dir);
  const std::string bytes = read_bytes(path);
  const std::string cut = dir.file("cut.h5");
  for (int k = 0; k < 20; ++k) {
    const std::size_t size = bytes.size() * static_cast<std::size_t>(k) / 20 + (k % 3);  // 0, 1, 2, ... , near the end
    write_bytes(cut, bytes.substr(0, size));
    const std::string error = restart_error(cut);
    INFO("truncated to " << size << " of " << bytes.size() << " bytes: " << error);
    CHECK(error.find("checkpoint '" + cut + "'") == 0);
    CHECK((error.find("truncated") != std::string::npos || error.find("not an rsmc checkpoint") != std::string::npos));
  }
  write_bytes(cut, bytes + "x");
  CHECK_THAT(restart_error(cut), Contains("longer than it was written"));
}

TEST_CASE("checkpoint: a changed byte anywhere is refused by the digest", "[io][checkpoint]") {
  ScratchDir dir;
  const std::string path = write_sample_checkpoint(dir);
  const std::string bytes = read_bytes(path);
  const std::string damaged = dir.file("damaged.h5");
  // Bytes of the seal's digest and text, HDF5's superblock, metadata and raw data.
  for (std::size_t at :
       {std::size_t{50}, std::size_t{100}, std::size_t{512}, std::size_t{600}, bytes.size() / 2, bytes.size() - 1}) {
    std::string copy = bytes;
    copy[at] = static_cast<char>(copy[at] ^ 0x04);
    write_bytes(damaged, copy);
    INFO("byte " << at);
    CHECK_THAT(restart_error(damaged), Contains("is damaged (its bytes do not match the SHA-256 digest"));
  }
  // The seal's own fields.
  std::string other_kind = bytes;
  std::memcpy(&other_kind[8], "trace\0\0\0\0\0", 10);
  write_bytes(damaged, other_kind);
  CHECK_THAT(restart_error(damaged), Contains("is an rsmc trace, not an rsmc checkpoint"));
  std::string newer = bytes;
  newer[24] = 2;
  write_bytes(damaged, newer);
  CHECK_THAT(restart_error(damaged), Contains("has seal version 2") && Contains("newer rsmc"));
  std::string no_magic = bytes;
  no_magic[1] = 'X';
  write_bytes(damaged, no_magic);
  CHECK_THAT(restart_error(damaged), Contains("no rsmc seal at its start"));
}

TEST_CASE("checkpoint: the HDF5 crash findings and unsealed files never reach HDF5", "[io][checkpoint]") {
  for (const char* name :
       {"h5aexists-heap-use-after-free.h5", "h5c-protect-4gib-allocation.h5", "h5fopen-garbage-allocation-size.h5"}) {
    const std::string path = std::string(RSMC_SOURCE_DIR) + "/tests/fuzz/hdf5-findings/" + name;
    INFO(path);
    REQUIRE(fs::exists(path));
    CHECK_THAT(restart_error(path), Contains("is an HDF5 file without an rsmc seal"));
  }
  // The same damage inside a sealed file: the digest refuses it.
  ScratchDir dir;
  const std::string path = write_sample_checkpoint(dir);
  std::string sealed = read_bytes(path);
  const std::string finding =
      read_bytes(std::string(RSMC_SOURCE_DIR) + "/tests/fuzz/hdf5-findings/h5aexists-heap-use-after-free.h5");
  sealed.replace(512, std::string::npos, finding);
  sealed.resize(read_bytes(path).size(), '\0');  // the size the seal records
  write_bytes(path, sealed);
  CHECK_THAT(restart_error(path), Contains("is damaged"));
}

TEST_CASE("checkpoint: the block reader refuses a file replaced after the header was read", "[io][checkpoint]") {
  ScratchDir dir;
  const std::string path = write_sample_checkpoint(dir);
  const CheckpointContents c = read_checkpoint_header(MPI_COMM_SELF, path);
  // Another (valid) checkpoint now at the same path.
  write_checkpoint(MPI_COMM_SELF, path, sample_info(7, 2), sample_progress(3, 2), sample_block(7, 2));
  REQUIRE_THROWS_WITH(read_checkpoint_block(MPI_COMM_SELF, path, c.info, 0, 7), Contains("changed on disk"));
  // A file this process wrote, then damaged in place (same size, seal untouched), is read again and
  // refused: its change time moved. (The pause exceeds the file system's timestamp granularity,
  // a few milliseconds; sealed_file.hpp.)
  read_checkpoint_header(MPI_COMM_SELF, path);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const int fd = ::open(path.c_str(), O_WRONLY);
  REQUIRE(fd >= 0);
  const char byte = 0x55;
  REQUIRE(::pwrite(fd, &byte, 1, 700) == 1);
  ::close(fd);
  CHECK_THAT(restart_error(path), Contains("is damaged"));
}

TEST_CASE("checkpoint: write failures name the file and leave nothing behind", "[io][checkpoint]") {
  ScratchDir dir;
  const std::string missing = dir.file("no_such_dir/checkpoint-000000001.h5");
  REQUIRE_THROWS_WITH(
      write_checkpoint(MPI_COMM_SELF, missing, sample_info(7, 2), sample_progress(1, 2), sample_block(7, 2)),
      Contains("checkpoint '" + missing + "'") && Contains("does not exist"));
  RunProgress short_series = sample_progress(2, 2);
  short_series.result.traffic.messages.pop_back();
  REQUIRE_THROWS_WITH(
      write_checkpoint(MPI_COMM_SELF, dir.file("c.h5"), sample_info(7, 2), short_series, sample_block(7, 2)),
      Contains("series of inconsistent lengths"));
  // A leftover temporary file of a killed write of the same checkpoint is removed; one whose writer
  // may be alive (another host, or a pid that runs a process here) is kept.
  const std::string tmp = std::filesystem::path(atomic_temporary_path(dir.file("checkpoint-000000004.h5"))).filename();
  const std::string prefix = tmp.substr(0, tmp.rfind('.') + 1);  // ".checkpoint-000000004.h5.tmp.<host>."
  const std::string gone = prefix + std::to_string(pid_of_no_process());
  const std::string alive = prefix + std::to_string(::getppid());
  const std::string elsewhere = ".checkpoint-000000004.h5.tmp.another-host." + std::to_string(pid_of_no_process());
  for (const std::string& name : {gone, alive, elsewhere}) write_bytes(dir.file(name), "partial");
  write_sample_checkpoint(dir);
  std::vector<std::string> kept{alive, elsewhere, "checkpoint-000000004.h5"};
  std::vector<std::string> entries = dir.entries();
  std::sort(kept.begin(), kept.end());
  std::sort(entries.begin(), entries.end());
  CHECK(entries == kept);
}

TEST_CASE("temporary files: only those whose writer is certainly gone are abandoned", "[io][atomic]") {
  const std::string tmp = std::filesystem::path(atomic_temporary_path("x/run.h5")).filename();
  CHECK(tmp.rfind(".run.h5.tmp.", 0) == 0);
  const std::string host = tmp.substr(std::strlen(".run.h5.tmp."), tmp.rfind('.') - std::strlen(".run.h5.tmp."));
  CHECK(!host.empty());
  CHECK(host.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") == std::string::npos);
  CHECK(tmp.substr(tmp.rfind('.') + 1) == std::to_string(::getpid()));
  const std::string gone = std::to_string(pid_of_no_process());
  CHECK(abandoned_temporary(".run.h5.tmp." + host + "." + gone));
  CHECK(!abandoned_temporary(tmp));                                                        // this process
  CHECK(!abandoned_temporary(".run.h5.tmp." + host + "." + std::to_string(::getppid())));  // alive
  CHECK(!abandoned_temporary(".run.h5.tmp.another-host." + gone));                         // cannot tell
  CHECK(!abandoned_temporary(".run.h5.tmp." + gone));                                      // no host: an older rsmc
  CHECK(!abandoned_temporary(".run.h5.tmp." + host + ".12x"));
  CHECK(!abandoned_temporary("run.h5"));
}

TEST_CASE("atomic publish: a failed flush is an error naming the path", "[io][atomic]") {
  ScratchDir dir;
  const std::string tmp = dir.file(".gone.tmp.1");
  REQUIRE_THROWS_WITH(publish_atomically(tmp, dir.file("gone.h5"), true),
                      Contains("cannot open the file '" + tmp + "' to flush it to disk: No such file or directory"));
  CHECK(dir.entries().empty());
}
