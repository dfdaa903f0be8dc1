// `rsmc sim-scale`: the communication and work of ONE resampling step at scales no test cluster has
// (p up to 65,536 ranks, N up to 10^10 particles), simulated without allocating a single particle.
//
// The model (docs/sim-scale.md derives and discusses it):
//   - Rank k holds its block of n_k particles (BlockDistribution). Its weight total W_k, a sum of n_k
//     i.i.d. weights with coefficient of variation cv, is drawn by the CLT as Normal(n_k, cv^2 n_k),
//     clamped at 0, from rng::Stream(seed, Purpose::model, 0, k). The totals become exact
//     fixed-point integers, so cumulative sums are exact as in the real resampler.
//   - Offspring per rank c_k (the number of sample points in rank k's slice of the wheel):
//       systematic   the exact rule of framework/resample/select/selection.cpp on the cumulative totals:
//                    P_j = T (j 2^53 + u) / (N 2^53), one u (stream of sample 0), c_k = points in
//                    [W_below, W_below + W_k), found by binary search; the c_k sum to N exactly.
//       stratified   the same with u_j from the stream of sample j.
//       multinomial  sequential conditional binomials c_k ~ Bin(N - c_0 - ... - c_{k-1},
//                    W_k / (W_k + ... + W_{p-1})), rsmc::rng::binomial with the stream
//                    rng::Stream(seed, Purpose::resample, 0, k): the law of the multinomial counts
//                    (not the sorted-multinomial tree's draw itself).
//   - scalable (rsmc's roulette) and algorithm1 (the paper's Algorithm 1): rank k holds the
//     renumbered offspring ids [q_k, q_k + c_k), q_k = c_0 + ... + c_{k-1}; the messages, partners
//     and particles moved are those of framework/resample/rebalance/rebalance_plan.hpp's RebalancePlan, rank by
//     rank (realised values for this draw), to the layout choose_layout picks within each
//     --balance-tolerance tau (framework/resample/rebalance/layout_choice.hpp; tau = 0: the blocks); tau > 0
//     adds an allgather of the p offspring counts to the collectives. Work = sample points a rank touches: c_k +
//     ceil(log2 N) (scalable) or N (algorithm1).
//   - allgather and gather-root (the naive baselines, as in the paper's sec. 2.1): analytic
//     expectations given the W_k. Offspring stay fixed to the block distribution and each draws its
//     ancestor independently with probability W_i / W (multinomial in sample order, or the alias
//     method), so the state exchange is any-to-any.
//   - --steps S > 1 (scalable and algorithm1): S resamplings in a row, each starting from the layout
//     the previous one chose (the weight totals of step s: Normal(n_k, cv^2 n_k) on the current
//     counts n_k from rng::Stream(seed, Purpose::model, s, k); the offspring of step s drawn with seed
//     + s), so a band's layout drifts towards its edges as in a long run. Counts are per-step means
//     (maxima for the *_max fields); step 0 is the single-step point.
//   - The step-time model (StepTimeModel; docs/sim-scale.md, "Choosing the default tolerance"): the
//     slowest rank's particles times a per-particle cost, plus the slowest rank's communication,
//     alpha per message it sends or receives plus its bytes over beta, plus the collectives.
// Everything is O(p) (plus O(p log N) for the systematic/stratified binary searches) per point and step.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "framework/particles/block_distribution.hpp"
#include "framework/particles/layout.hpp"
#include "framework/particles/load_band.hpp"

namespace rsmc::bench {

// The modelled time of a filter step with a resampling (docs/sim-scale.md, "Choosing the default
// tolerance", says why these constants).
struct StepTimeModel {
  double particle_seconds = 10e-9;  // one particle's propagate + weight + reduce: the 10 ns target (SV)
  double latency_seconds = 2e-6;    // alpha: the cost of one point-to-point message or collective round
  double bytes_per_second = 10e9;   // beta: one rank's link bandwidth (a 100 Gb/s network, ~80% of peak)
};

struct SimScaleOptions {
  std::vector<std::uint64_t> ranks{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536};
  std::vector<std::uint64_t> particles{1000000ULL, 100000000ULL, 10000000000ULL};
  double weight_cv = 1.0;         // coefficient of variation of one particle's weight
  std::uint64_t state_bytes = 8;  // bytes of one particle's state
  std::uint64_t seed = 1;
  std::string scheme = "systematic";    // systematic, stratified or multinomial
  std::vector<double> tolerances{0.0};  // --balance-tolerance: one scalable/algorithm1 line per tau
  std::uint64_t steps = 1;              // --steps: resamplings in a row, each from the last layout
  StepTimeModel model;

  // Throws rsmc::Error naming the option and what was expected.
  void validate() const;
};

// The cost of one resampling step for one implementation at one (p, N). Values are exact counts for
// scalable / algorithm1 (realised for the simulated draw) and expectations for the baselines.
struct SimScaleMetrics {
  std::string impl;                    // "scalable", "algorithm1", "allgather", "gather-root"
  bool expected = false;               // true: analytic expectation given the W_k
  double work_max = 0, work_mean = 0;  // per-rank work in particle-sized items (sample points + foreign weights)
  double messages = 0;                 // point-to-point messages carrying particles (or requests), all ranks
  double messages_sent_max = 0;        // most such messages one rank sends
  double partners_max = 0;             // most distinct ranks one rank exchanges particles with
  double particles_moved = 0;          // particle states sent to another rank
  double bytes_moved = 0;              // bytes of the particle exchange (states + ids / headers)
  double collective_bytes_max = 0;     // most bytes one rank receives in the weight / ancestor collectives
  double collective_bytes_total = 0;   // the same, summed over ranks
  double balance_tolerance = 0;        // tau of the layout rebalancing moved to (baselines: 0, the blocks)
  double load_max_over_mean = 1;       // the most particles one rank holds afterwards, over N / p
  // Scalable / algorithm1 only (negative: not modelled, for the baselines):
  double exchange_bytes_max = -1;     // most bytes one rank sends plus receives (its messages: partners_max)
  double model_compute_seconds = -1;  // slowest rank's particles x particle_seconds
  double model_comm_seconds = -1;     // slowest rank's exchange + the collectives
  double model_step_seconds = -1;     // their sum
};

// One simulated (p, N): the draw, and the four implementations' metrics.
struct SimScalePoint {
  std::uint64_t ranks = 0, particles = 0;
  std::vector<double> weight_total;      // W_k
  std::vector<std::uint64_t> offspring;  // c_k
  std::uint64_t lower_bound = 0;         // sum_k max(0, c_k - n_k)
  std::uint64_t max_deviation = 0;       // max_k |c_k - n_k|
  std::vector<SimScaleMetrics> impls;    // scalable, algorithm1 (per tolerance), allgather, gather-root
  double seconds = 0;                    // wall time of this simulation
  // Destinations of each rank's rebalancing messages (scalable), only when asked for (small p).
  // For the first tolerance.
  std::vector<std::vector<int>> destinations;
};

// W_k ~ Normal(n_k, cv^2 n_k), clamped at 0, from rng::Stream(seed, Purpose::model, step, k), for the
// counts n_k of `layout` (the blocks: step 0).
std::vector<double> simulate_weight_totals(const Layout& layout, double weight_cv, std::uint64_t seed,
                                           std::uint32_t step);
std::vector<double> simulate_weight_totals(const BlockDistribution& dist, double weight_cv, std::uint64_t seed);

// The totals as exact fixed-point integers round(W_k 2^s), s = min(40, 62 - ceil(log2 max W_k)) so
// that each stays below 2^62 (their u128 cumulative sums are exact, as in the real resampler).
std::vector<std::uint64_t> fixed_weight_totals(const std::vector<double>& weight_total);

// Offspring per rank c_k for `scheme` given the weight totals (they sum to N).
std::vector<std::uint64_t> simulate_offspring(const std::string& scheme, const std::vector<double>& weight_total,
                                              std::uint64_t particles, std::uint64_t seed);

// The whole point. keep_destinations: fill SimScalePoint::destinations (O(p) vectors; for tests).
SimScalePoint simulate_point(const SimScaleOptions& options, std::uint64_t ranks, std::uint64_t particles,
                             bool keep_destinations = false);

// One JSON line (no trailing newline) per implementation of a point.
std::string to_json(const SimScaleOptions& options, const SimScalePoint& point, const SimScaleMetrics& metrics);

struct SimScaleCommand {
  SimScaleOptions options;
  // The step-time model's constants in the units of their options (run() converts them to options.model).
  double model_particle_ns = StepTimeModel{}.particle_seconds * 1e9;
  double model_latency_us = StepTimeModel{}.latency_seconds * 1e6;
  double model_bandwidth_gbs = StepTimeModel{}.bytes_per_second * 1e-9;

  // Options: --ranks, --particles (lists: space- or comma-separated), --weight-cv, --state-bytes,
  // --seed, --scheme, --balance-tolerance (list), --steps, --model-particle-ns, --model-latency-us,
  // --model-bandwidth-gbs.
  void add_to(CLI::App& app);
  // Prints one JSON line per (p, N, implementation) on stdout; returns the exit code (0).
  // Throws rsmc::Error on bad options before printing anything. Needs no MPI (call it on rank 0).
  int run() const;
  int run(std::ostream& out) const;
};

}  // namespace rsmc::bench
