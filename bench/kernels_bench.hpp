// `rsmc bench kernels`: construction (items/s) and sampling (samples/s) of every local sampling
// kernel (kernels/), beside std::discrete_distribution and a memory-bandwidth floor (a std::memcpy
// of the same bytes) measured in the same run.
//
// For every size n (--sizes) and weight pattern (--weights):
//   uniform    w_i = 1 + floor(u_i S), u_i uniform on (0, 1) from Stream(seed, initialise, 0, i),
//              S = floor(2^52 / n);
//   power-law  shuffled power law with exponent 1: w_i = floor(S / (pi(i) + 1)),
//              S = floor(2^52 / (ln n + 1)), pi a Fisher-Yates permutation drawn from the stream
//              Stream(seed, initialise, 1, 0) (Lehmann et al.'s "shuffled power law");
//   equal      w_i = floor(2^52 / n).
// The weights are integer-valued doubles whose total is at most 2^52 + n < 2^53, so every prefix sum
// (and every butterfly partial sum) is exact: all inverse-CDF kernels must return exactly the index
// of a binary search, and they are checked to (untimed; a wrong kernel is an error, not a number).
//
// Kernels (--kernels, default all); each is timed in the phases it has:
//   binary-search    build: prefix sums C; sample: upper_bound_index(C, x)
//   cutpoint         build: lower bounds + CutpointTable (guide cells, binary search inside a cell)
//   forest           build: lower bounds + RadixForest (guide table + radix tree forest)
//   butterfly        build: ButterflyWarpTable<double, 32> with every lane holding the distribution
//                    (W x n cells of 8 bytes); sample: its warp search, 32 points per round
//   alias-vose       build: build_vose (sequential; table and workspace reused)
//   alias-psa        build: build_alias, PSA (Kokkos on a host execution space instance of --threads
//                    threads; storage reused across builds, the total computed inside; timed again
//                    with the total passed in, as the engine calls it: "given_total_*" fields)
//   alias-psa-plus   build: build_alias, PSA+ (likewise; 2^16-item greedy sections)
//   alias-baseline   sample: sample_draws on the Vose table (one Philox block per draw, RNG included)
//   alias-sectioned  sample: sample_draws_sectioned (4096-row sections)
// The alias kernels build exact tables from the same weights as std::uint64_t (the engine's
// fixed-point weights; integer-valued doubles convert exactly): 16-byte rows of a 96-bit threshold
// and a 32-bit alias. alias-psa-plus at n = 10^7 with 1 or 2 threads also reports its ratio to wrs, the
// CPU PSA+ of Huebschle-Schneider and Sanders, measured on this machine (kWrsReference in the source).
//   std-discrete     build and sample: std::discrete_distribution<std::uint64_t>, std::mt19937_64
//   rng              sample: the Philox uniforms alone (the RNG share of every inverse-CDF sample)
// Inverse-CDF sampling maps point k = u_k * total (u_k = the uniform of Stream(seed, resample, 1, k),
// one Philox4x32-10 block; the point clamped below the total), so the RNG cost is in every sample
// rate. Each measurement is the median over --repeats of one call (calls on small inputs are looped
// `inner` times per timing and divided); before each, a std::memcpy of the phase's bytes (build: the
// structure the kernel builds; sample: 8 bytes per sample, the indices it writes) is timed as the floor.
//
// Rank 0 runs everything (other ranks wait idle, sleeping): the sequential kernels on one thread, the
// Kokkos alias kernels (alias-psa, alias-psa-plus, alias-baseline, alias-sectioned) once per --threads
// count on a host execution space instance of that many threads (Kokkos 4 OpenMP builds: up to
// OMP_NUM_THREADS; Serial builds: 1) and prints one JSON line per (n, weights, kernel, phase) on stdout
// (fields: docs/performance.md); a kernel that cannot run a size (its structure above --max-table-gib,
// or more items than its index type) gets a line with "skipped": true and a reason. Nothing else goes
// to stdout; --verbose reports progress on stderr.
#pragma once

#include "framework/parallel/mpi.hpp"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace rsmc::bench {

struct KernelsBench {
  std::vector<std::string> sizes{"1e3,1e4,1e5"};          // n; a comma list, 1e6 accepted
  std::vector<std::string> weights{"uniform,power-law"};  // uniform, power-law, equal
  std::vector<std::string> kernels{"all"};
  std::string samples = "n";  // samples per size: a count, or n (= n, at most 10^7)
  long long repeats = 5;
  long long seed = 1;
  double max_table_gib = 8.0;                   // a kernel whose structure is larger is skipped
  std::vector<std::string> threads{"1"};        // thread counts of the Kokkos alias kernels
  std::vector<std::string> section_items{"0"};  // alias-psa-device: items per sweep section (0: default)
  std::string greedy_items = "65536";           // alias-psa-plus(-device): items per greedy section
  bool verbose = false;

  void add_to(CLI::App& app);
  int run(MPI_Comm comm) const;  // returns the exit code; throws rsmc::Error on bad input
};

}  // namespace rsmc::bench
