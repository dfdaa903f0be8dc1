#include "bench/checkpoint_bench.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "bench/bench_common.hpp"
#include "bench/timed.hpp"
#include "base/core/error.hpp"
#include "framework/io/checkpoint_file.hpp"
#include "framework/particles/block_distribution.hpp"

namespace rsmc::bench {
namespace {

// write(2) / read(2) of a whole buffer, retrying short transfers.
void write_all(const std::string& path, const std::vector<const std::vector<double>*>& parts) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error("bench checkpoint: cannot create '" + path + "': " + std::strerror(errno));
  for (const auto* part : parts) {
    const char* p = reinterpret_cast<const char*>(part->data());
    std::size_t left = part->size() * sizeof(double);
    while (left > 0) {
      const ssize_t n = ::write(fd, p, left);
      if (n <= 0) {
        ::close(fd);
        throw Error("bench checkpoint: cannot write '" + path + "': " + std::strerror(errno));
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }
  ::fsync(fd);
  ::close(fd);
}
void read_all(const std::string& path, std::vector<double>& out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("bench checkpoint: cannot open '" + path + "': " + std::strerror(errno));
  char* p = reinterpret_cast<char*>(out.data());
  std::size_t left = out.size() * sizeof(double);
  while (left > 0) {
    const ssize_t n = ::read(fd, p, left);
    if (n <= 0) break;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (left != 0) throw Error("bench checkpoint: short read of '" + path + "'");
}

}  // namespace

void CheckpointBench::add_to(CLI::App& app) {
  app.footer(
      "Each configuration: --repeats times, write a checkpoint (parallel HDF5, each rank its block; fsync and "
      "rename included), read it back with its checksum check, and write + read the same bytes per rank with "
      "write(2)/read(2) + fsync as the baseline; slowest rank's time between barriers. One JSON line per (particles, "
      "doubles, phase) on stdout; see docs/performance.md.");
  app.add_option("--particles,-n", particles, "Total particle counts N; a comma list, e.g. 1e6,1e7")
      ->type_name("N,...")
      ->capture_default_str();
  app.add_option("--doubles", doubles, "State doubles per particle; a comma list, e.g. 8,64")
      ->type_name("D,...")
      ->capture_default_str();
  app.add_option("--dir", dir, "Directory for the files (removed afterwards)")->capture_default_str();
  app.add_option("--repeats", repeats, "Timed repetitions; the median is reported")->capture_default_str();
  app.add_flag("--verbose,-v", verbose, "Report progress on stderr");
}

int CheckpointBench::run(MPI_Comm comm) const {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  std::vector<std::uint64_t> sizes, dims;
  for (const auto& text : list_entries("--particles", particles)) {
    std::uint64_t n = 0;
    if (!parse_count(text, n) || n < static_cast<std::uint64_t>(ranks))
      throw Error("--particles: '" + text + "' is not a valid particle count; expected an integer >= the " +
                  std::to_string(ranks) + " ranks");
    sizes.push_back(n);
  }
  for (const auto& text : list_entries("--doubles", doubles)) {
    std::uint64_t d = 0;
    if (!parse_count(text, d) || d == 0 || d > static_cast<std::uint64_t>(INT_MAX))
      throw Error("--doubles: '" + text + "' is not a valid state size; expected an integer >= 1");
    dims.push_back(d);
  }
  if (repeats < 1 || repeats > 1000) throw Error("--repeats: expected 1 to 1000, got " + std::to_string(repeats));
  if (!std::filesystem::is_directory(dir)) throw Error("--dir: '" + dir + "' is not a directory");
  const std::string date = today(), host = host_name();

  for (const std::uint64_t n : sizes) {
    for (const std::uint64_t d : dims) {
      const BlockDistribution dist(n, ranks);
      CheckpointBlock block;
      block.first_id = dist.first(rank);
      block.count = dist.count(rank);
      block.state.resize(block.count * d);
      block.log_weight.resize(block.count);
      for (std::uint64_t i = 0; i < block.count; ++i) {
        const double gid = static_cast<double>(block.first_id + i);
        for (std::uint64_t c = 0; c < d; ++c) block.state[c * block.count + i] = gid + 0.25 * static_cast<double>(c);
        block.log_weight[i] = -1e-6 * gid;
      }
      CheckpointInfo info;
      info.particles = n;
      info.state_dim = static_cast<int>(d);
      info.model = "benchmark";
      info.parameters = "synthetic";
      info.identity = "bench = checkpoint\n";
      info.configuration = info.identity;
      RunProgress progress;
      progress.result.state_dim = static_cast<int>(d);
      progress.log_likelihood.clear();
      const std::string path = (std::filesystem::path(dir) / "rsmc-bench-checkpoint.h5").string();
      const std::string plain = (std::filesystem::path(dir) / ("rsmc-bench-plain." + std::to_string(rank))).string();
      std::vector<double> plain_back(block.state.size() + block.log_weight.size());

      std::vector<double> t_write, t_read, t_plain_write, t_plain_read;
      for (long long r = 0; r < repeats; ++r) {
        t_write.push_back(timed(comm, [&] { write_checkpoint(comm, path, info, progress, block); }));
        t_read.push_back(timed(comm, [&] {
          const CheckpointContents header = read_checkpoint_header(comm, path);
          const CheckpointBlock back = read_checkpoint_block(comm, path, header.info, block.first_id, block.count);
          if (back.state != block.state || back.log_weight != block.log_weight)
            throw Error("bench checkpoint: the block read back differs from the block written");
        }));
        t_plain_write.push_back(timed(comm, [&] { write_all(plain, {&block.state, &block.log_weight}); }));
        t_plain_read.push_back(timed(comm, [&] { read_all(plain, plain_back); }));
        if (rank == 0 && verbose)
          std::fprintf(stderr, "bench checkpoint N = %llu, d = %llu, repeat %lld: write %.3f s, read %.3f s\n",
                       static_cast<unsigned long long>(n), static_cast<unsigned long long>(d), r + 1, t_write.back(),
                       t_read.back());
      }
      std::filesystem::remove(plain);
      MPI_Barrier(comm);
      if (rank == 0) std::filesystem::remove(path);

      const double bytes = static_cast<double>(n) * static_cast<double>(d + 1) * sizeof(double);
      auto line = [&](const char* phase, const std::vector<double>& t, const std::vector<double>& base) {
        const double s = median(t), b = median(base);
        return std::string("{\"bench\":\"checkpoint\",\"phase\":\"") + phase + "\",\"particles\":" + std::to_string(n) +
               ",\"state_doubles\":" + std::to_string(d) + ",\"ranks\":" + std::to_string(ranks) +
               ",\"bytes\":" + json_number(bytes) + ",\"repeats\":" + std::to_string(repeats) +
               ",\"seconds_median\":" + json_number(s) + ",\"gb_per_s\":" + json_number(bytes / s / 1e9) +
               ",\"plain_seconds_median\":" + json_number(b) + ",\"plain_gb_per_s\":" + json_number(bytes / b / 1e9) +
               ",\"checkpoint_to_plain_ratio\":" + json_number(s / b) + ",\"date\":" + json_string(date) +
               ",\"host\":" + json_string(host) + "}\n";
      };
      if (rank == 0) {
        std::fputs(line("write", t_write, t_plain_write).c_str(), stdout);
        std::fputs(line("read", t_read, t_plain_read).c_str(), stdout);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}

}  // namespace rsmc::bench
