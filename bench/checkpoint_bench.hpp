// `rsmc bench checkpoint`: write and read throughput of checkpoints (framework/io/checkpoint_file.hpp)
// beside a plain sequential write and read of the same bytes, measured in the same run.
//
// For every (N, doubles per state): each rank fills its block of the block distribution with
// deterministic values, then --repeats times: write a checkpoint collectively (parallel HDF5, fsync
// and rename included), read it back (header + this rank's block + checksum check), and, as the
// baseline, write this rank's same bytes (states and log-weights) to a file of its own with write(2)
// + fsync and read them back with read(2). Each phase is timed between barriers as the slowest
// rank's time. Rank 0 prints one JSON line per (N, doubles, phase) on stdout (docs/performance.md);
// the files go to --dir and are removed afterwards. Reads of files that fit in memory come from the
// page cache, for the checkpoint and the baseline alike.
#pragma once

#include "framework/parallel/mpi.hpp"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace rsmc::bench {

struct CheckpointBench {
  std::vector<std::string> particles{"100000"};  // N; a comma list, 1e7 accepted
  std::vector<std::string> doubles{"8"};         // state doubles per particle
  std::string dir = ".";
  long long repeats = 3;
  bool verbose = false;

  void add_to(CLI::App& app);
  int run(MPI_Comm comm) const;  // returns the exit code; throws rsmc::Error on bad input
};

}  // namespace rsmc::bench
