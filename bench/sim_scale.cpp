#include "bench/sim_scale.hpp"

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

#include "base/core/error.hpp"
#include "base/exact/uint128.hpp"
#include "framework/particles/load_band.hpp"
#include "framework/resample/rebalance/layout_choice.hpp"
#include "framework/resample/rebalance/rebalance_plan.hpp"
#include "base/rng/binomial.hpp"
#include "base/rng/stream.hpp"

namespace rsmc::bench {

namespace {

using exact::u128;
constexpr u128 kTwo53 = u128(1) << 53;
constexpr std::uint64_t kMaxRanks = std::uint64_t(1) << 24;      // O(p) memory per point
constexpr std::uint64_t kMaxParticles = std::uint64_t(1) << 53;  // counts stay exact as doubles

// ceil(log2 n) for n >= 1: the search / tree depth the scalable selection adds to a rank's work.
std::uint64_t ceil_log2(std::uint64_t n) {
  std::uint64_t bits = 0;
  while (bits < 64 && (std::uint64_t(1) << bits) < n) ++bits;
  return bits;
}

// Systematic / stratified: the number of sample points P_j = T (j 2^53 + u_j) / (N 2^53) below the
// wheel position x, i.e. the first j with T (j 2^53 + u_j) >= x N 2^53 (the rule of
// framework/resample/select/selection.cpp). A double estimate brackets it, exact comparisons settle it.
class EvenlySpacedPoints {
 public:
  EvenlySpacedPoints(bool stratified, std::uint64_t seed, std::uint64_t samples, u128 total)
      : stratified_(stratified),
        seed_(seed),
        n_(samples),
        total_(total),
        denominator_(u128(samples) * kTwo53),
        shared_(offset_bits(0)) {}

  std::uint64_t below(u128 x) const {
    if (x == 0) return 0;
    if (x >= total_) return n_;
    const double estimate = exact::to_double(x) / exact::to_double(total_) * static_cast<double>(n_);
    const auto guess = static_cast<std::uint64_t>(std::min(std::max(estimate, 0.0), static_cast<double>(n_)));
    // Bracket: (lo == 0 or !at_or_above(lo)) and (hi == N or at_or_above(hi)).
    std::uint64_t lo = guess > 2 ? guess - 2 : 0, hi = std::min(n_, guess + 2), step = 4;
    while (lo > 0 && at_or_above(lo, x)) {
      lo = lo > step ? lo - step : 0;
      step *= 2;
    }
    step = 4;
    while (hi < n_ && !at_or_above(hi, x)) {
      hi = n_ - hi > step ? hi + step : n_;
      step *= 2;
    }
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (at_or_above(mid, x))
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  }

 private:
  std::uint64_t offset_bits(std::uint64_t sample) const {
    return rng::Stream(seed_, rng::Purpose::resample, 0, sample).next_u64() >> 11;
  }
  bool at_or_above(std::uint64_t j, u128 x) const {  // P_j >= x
    const u128 factor = u128(j) * kTwo53 + (stratified_ ? offset_bits(j) : shared_);
    return exact::compare_products(total_, factor, x, denominator_) >= 0;
  }

  bool stratified_;
  std::uint64_t seed_, n_;
  u128 total_, denominator_;
  std::uint64_t shared_;
};

// Expected any-to-any exchange of the naive baselines (docs/sim-scale.md, "Baselines"): offspring
// stay on their block, each has its ancestor on rank i with probability pi_i = W_i / W, all
// independent. z(i, n) = (1 - pi_i)^n = P(none of n offspring descends from rank i).
struct AnyToAny {
  double moved = 0;                   // E sum_k #{offspring of block k with a remote ancestor}
  double pairs = 0;                   // E #{(i -> k), i != k, with at least one particle}
  double sends_max = 0;               // max_i E #{k != i : i -> k}
  double sources_plus_sends_max = 0;  // max_k E (#sources + #destinations)
  double partners_max = 0;            // max_k E #{i != k : i -> k or k -> i}
};

AnyToAny any_to_any(const BlockDistribution& dist, const std::vector<std::uint64_t>& fixed) {
  const std::size_t p = fixed.size();
  u128 total = 0;
  for (auto w : fixed) total += w;
  const double t = exact::to_double(total);
  std::vector<double> log_keep(p);  // log(1 - pi_i)
  std::vector<double> pi(p);
  for (std::size_t i = 0; i < p; ++i) {
    pi[i] = static_cast<double>(fixed[i]) / t;
    log_keep[i] = std::log1p(-std::min(pi[i], 1.0));
  }
  // Block sizes take two values: big = base + 1 (the first `extra` ranks) and base.
  const std::uint64_t extra = dist.size() % p;  // ranks 0 .. extra-1 hold base + 1
  const double sizes[2] = {static_cast<double>(dist.size() / p), static_cast<double>(dist.size() / p + 1)};
  const double group_count[2] = {static_cast<double>(p - extra), static_cast<double>(extra)};
  auto group = [&](std::size_t k) { return k < extra ? 1 : 0; };
  auto z = [&](std::size_t i, int g) { return std::exp(sizes[g] * log_keep[i]); };
  auto m = [&](std::size_t i, int g) { return -std::expm1(sizes[g] * log_keep[i]); };
  // S[g] = sum_i m(i, g); A[h][g] = sum_{i in group h} z(i, g).
  double s_sum[2] = {0, 0}, a_sum[2][2] = {{0, 0}, {0, 0}};
  for (std::size_t i = 0; i < p; ++i)
    for (int g = 0; g < 2; ++g) {
      s_sum[g] += m(i, g);
      a_sum[group(i)][g] += z(i, g);
    }
  AnyToAny r;
  for (std::size_t k = 0; k < p; ++k) {
    const int g = group(k);
    const double n_k = sizes[g];
    r.moved += n_k * (1.0 - pi[k]);
    const double sources = s_sum[g] - m(k, g);
    const double sends = group_count[0] * m(k, 0) + group_count[1] * m(k, 1) - m(k, g);
    r.pairs += sources;
    r.sends_max = std::max(r.sends_max, sends);
    r.sources_plus_sends_max = std::max(r.sources_plus_sends_max, sources + sends);
    // sum_{i != k} [1 - z(i, n_k) z(k, n_i)]
    const double both_silent = a_sum[0][g] * z(k, 0) + a_sum[1][g] * z(k, 1) - z(k, g) * z(k, g);
    r.partners_max = std::max(r.partners_max, static_cast<double>(p - 1) - both_silent);
  }
  return r;
}

// "12", "1e10", "10^8", "2^16" -> an exact unsigned count; "" on success, else the error.
std::string parse_count(std::string& text) {
  auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 20 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  auto to_u64 = [](const std::string& s, std::uint64_t& v) {
    errno = 0;
    char* end = nullptr;
    const unsigned long long x = std::strtoull(s.c_str(), &end, 10);
    if (errno != 0 || end == s.c_str() || *end != '\0') return false;
    v = x;
    return true;
  };
  auto power = [](std::uint64_t base, std::uint64_t exp, std::uint64_t mul, std::uint64_t& v) {
    v = mul;
    for (std::uint64_t i = 0; i < exp; ++i) {
      if (base != 0 && v > UINT64_MAX / base) return false;
      v *= base;
    }
    return true;
  };
  std::uint64_t value = 0;
  bool ok = false;
  const auto e = text.find_first_of("eE"), caret = text.find('^');
  if (e != std::string::npos && caret == std::string::npos) {
    std::uint64_t mantissa = 0, exponent = 0;
    const std::string a = text.substr(0, e), b = text.substr(e + 1);
    ok = digits(a) && digits(b) && to_u64(a, mantissa) && to_u64(b, exponent) && exponent <= 20 &&
         power(10, exponent, mantissa, value);
  } else if (caret != std::string::npos && e == std::string::npos) {
    std::uint64_t base = 0, exponent = 0;
    const std::string a = text.substr(0, caret), b = text.substr(caret + 1);
    ok = digits(a) && digits(b) && to_u64(a, base) && to_u64(b, exponent) && exponent <= 64 &&
         power(base, exponent, 1, value);
  } else {
    ok = digits(text) && to_u64(text, value);
  }
  if (!ok) return "'" + text + "' is not a count; expected an integer such as 65536, 1e10, 10^8 or 2^16";
  text = std::to_string(value);
  return "";
}

// A JSON number: integral values as integers, others with 12 significant digits.
std::string number(double v) {
  char buf[64];
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

}  // namespace

void SimScaleOptions::validate() const {
  if (ranks.empty()) throw Error("--ranks: no rank count given; expected at least one");
  if (particles.empty()) throw Error("--particles: no particle count given; expected at least one");
  for (auto p : ranks)
    if (p < 1 || p > kMaxRanks)
      throw Error("--ranks: " + std::to_string(p) +
                  " is out of range; expected 1 <= p <= " + std::to_string(kMaxRanks));
  for (auto n : particles) {
    if (n < 1 || n > kMaxParticles)
      throw Error("--particles: " + std::to_string(n) + " is out of range; expected 1 <= N <= 2^53");
    for (auto p : ranks)
      if (n < p)
        throw Error("--particles: " + std::to_string(n) + " particles cannot be spread over " + std::to_string(p) +
                    " ranks; expected N >= p for every pair of --particles and --ranks");
  }
  if (!(weight_cv >= 0.0) || !std::isfinite(weight_cv))
    throw Error("--weight-cv: " + std::to_string(weight_cv) +
                " is not a coefficient of variation; expected a finite value >= 0");
  if (tolerances.empty()) throw Error("--balance-tolerance: no tolerance given; expected at least one");
  if (steps < 1 || steps > 1000000)
    throw Error("--steps: " + std::to_string(steps) + " is out of range; expected 1 <= steps <= 10^6");
  if (!rng::seed_is_valid(seed + steps - 1))
    throw Error("--seed: " + std::to_string(seed) + " + --steps must stay below 2^56 (step s uses seed + s)");
  const auto positive = [](double x) { return std::isfinite(x) && x > 0.0; };
  if (!positive(model.particle_seconds) || !positive(model.latency_seconds) || !positive(model.bytes_per_second))
    throw Error("--model-particle-ns, --model-latency-us, --model-bandwidth-gbs: expected finite values > 0");
  for (double tau : tolerances) BalanceOptions{tau, {}}.validate(1);  // throws naming --balance-tolerance
  if (state_bytes < 1) throw Error("--state-bytes: 0; expected at least 1 byte per particle state");
  if (!rng::seed_is_valid(seed))
    throw Error("--seed: " + std::to_string(seed) + " is out of range; expected 0 <= seed < 2^56");
  if (scheme != "systematic" && scheme != "stratified" && scheme != "multinomial")
    throw Error("--scheme: unknown scheme '" + scheme + "'; expected systematic, stratified or multinomial");
}

std::vector<double> simulate_weight_totals(const Layout& layout, double weight_cv, std::uint64_t seed,
                                           std::uint32_t step) {
  std::vector<double> w(static_cast<std::size_t>(layout.ranks()));
  for (int k = 0; k < layout.ranks(); ++k) {
    rng::Stream stream(seed, rng::Purpose::model, step, static_cast<std::uint64_t>(k));
    const double n = static_cast<double>(layout.count(k));
    w[static_cast<std::size_t>(k)] = std::max(0.0, n + weight_cv * std::sqrt(n) * stream.normal());
  }
  return w;
}

std::vector<double> simulate_weight_totals(const BlockDistribution& dist, double weight_cv, std::uint64_t seed) {
  return simulate_weight_totals(Layout(dist), weight_cv, seed, 0);
}

std::vector<std::uint64_t> fixed_weight_totals(const std::vector<double>& weight_total) {
  const double largest = *std::max_element(weight_total.begin(), weight_total.end());
  if (!(largest > 0.0)) throw Error("sim-scale: every rank's simulated weight total is 0; lower --weight-cv");
  int exponent = 0;
  std::frexp(largest, &exponent);  // largest < 2^exponent
  const int shift = std::min(40, 62 - exponent);
  std::vector<std::uint64_t> fixed(weight_total.size());
  for (std::size_t k = 0; k < weight_total.size(); ++k)
    fixed[k] = static_cast<std::uint64_t>(std::llround(std::ldexp(weight_total[k], shift)));
  return fixed;
}

std::vector<std::uint64_t> simulate_offspring(const std::string& scheme, const std::vector<double>& weight_total,
                                              std::uint64_t particles, std::uint64_t seed) {
  const std::vector<std::uint64_t> fixed = fixed_weight_totals(weight_total);
  const std::size_t p = fixed.size();
  std::vector<std::uint64_t> c(p, 0);
  if (scheme == "systematic" || scheme == "stratified") {
    u128 total = 0;
    for (auto w : fixed) total += w;
    const EvenlySpacedPoints points(scheme == "stratified", seed, particles, total);
    u128 cumulative = 0;
    std::uint64_t first = 0;
    for (std::size_t k = 0; k < p; ++k) {
      cumulative += fixed[k];
      const std::uint64_t end = points.below(cumulative);
      c[k] = end - first;
      first = end;
    }
  } else if (scheme == "multinomial") {
    std::vector<u128> suffix(p + 1, 0);  // suffix[k] = w_k + ... + w_{p-1}, exact
    for (std::size_t k = p; k-- > 0;) suffix[k] = suffix[k + 1] + fixed[k];
    std::uint64_t left = particles;
    for (std::size_t k = 0; k < p && left > 0; ++k) {
      if (suffix[k] == 0) break;  // cannot happen: the last positive total takes probability 1
      rng::Stream stream(seed, rng::Purpose::resample, 0, k);
      const double prob = fixed[k] == suffix[k] ? 1.0 : static_cast<double>(fixed[k]) / exact::to_double(suffix[k]);
      c[k] = rng::binomial(stream, left, prob);
      left -= c[k];
    }
  } else {
    throw Error("--scheme: unknown scheme '" + scheme + "'; expected systematic, stratified or multinomial");
  }
  return c;
}

namespace {

// The traffic of the scalable rebalancing to layout `to` from the renumbered offspring counts:
// RebalancePlan rank by rank. Work is left to the caller. destinations: each rank's message targets.
SimScaleMetrics rebalance_metrics(const Layout& to, const std::vector<std::uint64_t>& offspring, double state_bytes,
                                  std::vector<std::vector<int>>* destinations) {
  const std::size_t p = offspring.size();
  SimScaleMetrics m;
  m.impl = "scalable";
  std::vector<std::uint32_t> sources(p, 0), sends(p, 0);
  std::vector<double> bytes(p, 0.0);  // sent plus received, per rank (states + an 8-byte header per message)
  std::uint64_t first_id = 0, moved = 0, messages = 0;
  for (std::size_t k = 0; k < p; ++k) {
    const RebalancePlan plan(to, static_cast<int>(k), first_id, offspring[k]);
    first_id += offspring[k];
    moved += plan.particles_sent();
    messages += plan.sends.size();
    sends[k] = static_cast<std::uint32_t>(plan.sends.size());
    for (const auto& s : plan.sends) {
      ++sources[static_cast<std::size_t>(s.rank)];
      const double message_bytes = static_cast<double>(s.ids.size()) * state_bytes + 8.0;
      bytes[k] += message_bytes;
      bytes[static_cast<std::size_t>(s.rank)] += message_bytes;
      if (destinations) (*destinations)[k].push_back(s.rank);
    }
  }
  m.exchange_bytes_max = 0.0;
  for (std::size_t k = 0; k < p; ++k) {
    m.messages_sent_max = std::max(m.messages_sent_max, static_cast<double>(sends[k]));
    m.partners_max = std::max(m.partners_max, static_cast<double>(sends[k] + sources[k]));
    m.exchange_bytes_max = std::max(m.exchange_bytes_max, bytes[k]);
  }
  m.messages = static_cast<double>(messages);
  m.particles_moved = static_cast<double>(moved);
  m.bytes_moved = static_cast<double>(moved) * state_bytes + 8.0 * static_cast<double>(messages);  // 8-byte id header
  // Exclusive scan and grand total of the 128-bit rank totals: 2 x 16 bytes per rank.
  const double pd = static_cast<double>(p);
  m.collective_bytes_max = p > 1 ? 32.0 : 0.0;
  m.collective_bytes_total = p > 1 ? 32.0 * pd : 0.0;
  return m;
}

// The step-time model of one rebalanced step (StepTimeModel): the slowest rank's particles, and the
// slowest rank's exchange (its messages and bytes, each at its maximum over ranks: an upper bound
// where two ranks hold the two maxima) plus the collectives: the exclusive scan and the grand total
// of the 128-bit rank totals (ceil(log2 p) rounds of 16 bytes each) and, for a band that can move,
// the allgather of the p offspring counts (ceil(log2 p) rounds, 8 (p - 1) bytes).
void model_step(SimScaleMetrics& m, const StepTimeModel& model, std::uint64_t most, std::size_t p, bool allgather) {
  m.model_compute_seconds = static_cast<double>(most) * model.particle_seconds;
  m.model_comm_seconds = 0.0;
  if (p > 1) {
    const double rounds = static_cast<double>(ceil_log2(p));
    m.model_comm_seconds = m.partners_max * model.latency_seconds + m.exchange_bytes_max / model.bytes_per_second +
                           2.0 * rounds * (model.latency_seconds + 16.0 / model.bytes_per_second);
    if (allgather)
      m.model_comm_seconds +=
          rounds * model.latency_seconds + 8.0 * static_cast<double>(p - 1) / model.bytes_per_second;
  }
  m.model_step_seconds = m.model_compute_seconds + m.model_comm_seconds;
}

// One rebalanced step: the traffic to the layout choose_layout picks for `offspring`, the work, the
// load and the modelled time.
SimScaleMetrics rebalanced_step(const SimScaleOptions& options, const LoadBand& band,
                                const std::vector<std::uint64_t>& offspring, const Layout& to,
                                std::vector<std::vector<int>>* destinations) {
  const std::size_t p = offspring.size();
  const double pd = static_cast<double>(p), n = static_cast<double>(band.size());
  SimScaleMetrics m = rebalance_metrics(to, offspring, static_cast<double>(options.state_bytes), destinations);
  std::uint64_t most = 0;
  for (int k = 0; k < to.ranks(); ++k) most = std::max(most, to.count(k));
  m.load_max_over_mean = static_cast<double>(most) * pd / n;
  if (!band.fixed() && p > 1) {  // choose_layout needs every rank's offspring count: an allgather
    m.collective_bytes_max += 8.0 * (pd - 1);
    m.collective_bytes_total += 8.0 * (pd - 1) * pd;
  }
  const double log_n = static_cast<double>(ceil_log2(band.size()));
  for (std::size_t k = 0; k < p; ++k) {
    const double work = static_cast<double>(offspring[k]) + log_n;
    m.work_max = std::max(m.work_max, work);
    m.work_mean += work / pd;
  }
  model_step(m, options.model, most, p, !band.fixed());
  return m;
}

// The fields rebalanced_steps averages over the steps, and those it takes the maximum of.
constexpr double SimScaleMetrics::*kStepMeans[] = {&SimScaleMetrics::work_max,
                                                   &SimScaleMetrics::work_mean,
                                                   &SimScaleMetrics::messages,
                                                   &SimScaleMetrics::particles_moved,
                                                   &SimScaleMetrics::bytes_moved,
                                                   &SimScaleMetrics::load_max_over_mean,
                                                   &SimScaleMetrics::model_compute_seconds,
                                                   &SimScaleMetrics::model_comm_seconds,
                                                   &SimScaleMetrics::model_step_seconds};
constexpr double SimScaleMetrics::*kStepMaxima[] = {&SimScaleMetrics::messages_sent_max, &SimScaleMetrics::partners_max,
                                                    &SimScaleMetrics::exchange_bytes_max};

// options.steps resamplings in a row for one band: step 0 from the blocks with the point's offspring,
// step s from the layout step s - 1 chose (weight totals on its counts, offspring with seed + s).
// The counts, the load and the model times are per-step means, the *_max traffic fields maxima
// (one step: that step's values exactly).
SimScaleMetrics rebalanced_steps(const SimScaleOptions& options, const LoadBand& band,
                                 const std::vector<std::uint64_t>& first_offspring,
                                 std::vector<std::vector<int>>* destinations) {
  SimScaleMetrics sum;
  Layout layout = band.target_layout();
  std::vector<std::uint64_t> offspring = first_offspring;
  const double steps = static_cast<double>(options.steps);
  for (std::uint64_t s = 0; s < options.steps; ++s) {
    if (s > 0) {
      const auto step = static_cast<std::uint32_t>(s);
      offspring =
          simulate_offspring(options.scheme, simulate_weight_totals(layout, options.weight_cv, options.seed, step),
                             band.size(), options.seed + s);
    }
    const Layout to = choose_layout(band, offspring);
    const SimScaleMetrics m = rebalanced_step(options, band, offspring, to, s == 0 ? destinations : nullptr);
    if (s == 0) {
      sum = m;
    } else {
      for (auto mean : kStepMeans) sum.*mean += m.*mean;
      for (auto most : kStepMaxima) sum.*most = std::max(sum.*most, m.*most);
    }
    layout = to;
  }
  if (options.steps > 1)
    for (auto mean : kStepMeans) sum.*mean /= steps;
  return sum;
}

}  // namespace

SimScalePoint simulate_point(const SimScaleOptions& options, std::uint64_t ranks, std::uint64_t particles,
                             bool keep_destinations) {
  const auto start = std::chrono::steady_clock::now();
  if (ranks < 1 || ranks > kMaxRanks)
    throw Error("sim-scale: rank count " + std::to_string(ranks) + " is out of range");
  const BlockDistribution dist(particles, static_cast<int>(ranks));
  const std::size_t p = static_cast<std::size_t>(ranks);
  const double n = static_cast<double>(particles), pd = static_cast<double>(p);
  const double bytes = static_cast<double>(options.state_bytes);

  SimScalePoint pt;
  pt.ranks = ranks;
  pt.particles = particles;
  pt.weight_total = simulate_weight_totals(dist, options.weight_cv, options.seed);
  pt.offspring = simulate_offspring(options.scheme, pt.weight_total, particles, options.seed);

  // Deviation of the offspring counts from the blocks: the any-layout bound of the block layout.
  for (std::size_t k = 0; k < p; ++k) {
    const std::uint64_t c = pt.offspring[k], block = dist.count(static_cast<int>(k));
    pt.lower_bound += c > block ? c - block : 0;
    pt.max_deviation = std::max(pt.max_deviation, c > block ? c - block : block - c);
  }

  // scalable and algorithm1, for every tolerance: renumbered ranges, rebalanced by RebalancePlan to
  // the layout choose_layout picks in the band (the block layout for tau = 0), over options.steps.
  if (keep_destinations) pt.destinations.assign(p, {});
  std::vector<SimScaleMetrics> rebalanced;
  for (std::size_t i = 0; i < options.tolerances.size(); ++i) {
    const LoadBand band(particles, static_cast<int>(p), BalanceOptions{options.tolerances[i], {}});
    SimScaleMetrics scalable =
        rebalanced_steps(options, band, pt.offspring, keep_destinations && i == 0 ? &pt.destinations : nullptr);
    scalable.balance_tolerance = options.tolerances[i];
    SimScaleMetrics algorithm1 = scalable;
    algorithm1.impl = "algorithm1";
    algorithm1.work_max = algorithm1.work_mean = n;  // every rank loops over all N uniforms
    rebalanced.push_back(scalable);
    rebalanced.push_back(algorithm1);
  }

  // Baselines: expectations of the any-to-any exchange given the W_k.
  const AnyToAny a2a = any_to_any(dist, fixed_weight_totals(pt.weight_total));
  const double n_min = static_cast<double>(dist.count(static_cast<int>(p) - 1));
  const double n0 = static_cast<double>(dist.count(0));
  const double others = pd > 1 ? 4.0 * (pd - 1) : 0.0;  // MPI_Alltoall of request counts (4-byte ints)

  SimScaleMetrics allgather;
  allgather.impl = "allgather";
  allgather.expected = true;
  allgather.work_max = allgather.work_mean = n;  // N - n_k foreign weights scanned + n_k samples drawn
  allgather.messages = a2a.pairs;
  allgather.messages_sent_max = a2a.sends_max;
  allgather.partners_max = a2a.partners_max;
  allgather.particles_moved = a2a.moved;
  allgather.bytes_moved = a2a.moved * bytes;
  allgather.collective_bytes_max = 8.0 * (n - n_min);
  allgather.collective_bytes_total = 8.0 * n * (pd - 1);

  SimScaleMetrics gather_root;
  gather_root.impl = "gather-root";
  gather_root.expected = true;
  // Root: N - n_0 foreign weights + N sample points; other ranks: their n_k ancestor ids.
  gather_root.work_max = 2.0 * n - n0;
  gather_root.work_mean = (2.0 * n - n0 + (n - n0)) / pd;
  gather_root.messages = 2.0 * a2a.pairs;  // a request and a reply per (source, destination)
  gather_root.messages_sent_max = a2a.sources_plus_sends_max;
  gather_root.partners_max = a2a.partners_max;
  gather_root.particles_moved = a2a.moved;
  gather_root.bytes_moved = a2a.moved * (bytes + 8.0);  // + the 8-byte ancestor id of each request
  if (p > 1) {
    const double second = static_cast<double>(dist.count(1));  // largest block among ranks k > 0
    gather_root.collective_bytes_max = std::max(8.0 * (n - n0), 8.0 * second) + others;
    gather_root.collective_bytes_total = 16.0 * (n - n0) + pd * others;  // gather + scatter + counts
  }

  pt.impls = rebalanced;
  pt.impls.push_back(allgather);
  pt.impls.push_back(gather_root);
  pt.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return pt;
}

std::string to_json(const SimScaleOptions& options, const SimScalePoint& point, const SimScaleMetrics& m) {
  auto modelled = [](double x) { return x < 0.0 ? std::string("null") : number(x); };  // baselines: null
  std::ostringstream out;
  out << "{\"bench\":\"sim-scale\",\"impl\":\"" << m.impl << "\",\"scheme\":\"" << options.scheme
      << "\",\"ranks\":" << point.ranks << ",\"particles\":" << point.particles
      << ",\"weight_cv\":" << number(options.weight_cv) << ",\"state_bytes\":" << options.state_bytes
      << ",\"seed\":" << options.seed << ",\"model\":\"" << (m.expected ? "expected" : "realised") << "\""
      << ",\"work_max\":" << number(m.work_max) << ",\"work_mean\":" << number(m.work_mean)
      << ",\"messages\":" << number(m.messages) << ",\"messages_sent_max\":" << number(m.messages_sent_max)
      << ",\"partners_max\":" << number(m.partners_max) << ",\"particles_moved\":" << number(m.particles_moved)
      << ",\"bytes_moved\":" << number(m.bytes_moved) << ",\"collective_bytes_max\":" << number(m.collective_bytes_max)
      << ",\"collective_bytes_total\":" << number(m.collective_bytes_total)
      << ",\"balance_tolerance\":" << number(m.balance_tolerance)
      << ",\"load_max_over_mean\":" << number(m.load_max_over_mean) << ",\"steps\":" << options.steps
      << ",\"exchange_bytes_max\":" << modelled(m.exchange_bytes_max)
      << ",\"model_compute_seconds\":" << modelled(m.model_compute_seconds)
      << ",\"model_comm_seconds\":" << modelled(m.model_comm_seconds)
      << ",\"model_step_seconds\":" << modelled(m.model_step_seconds) << ",\"lower_bound\":" << point.lower_bound
      << ",\"max_deviation\":" << point.max_deviation << ",\"sim_seconds\":" << number(point.seconds) << "}";
  return out.str();
}

void SimScaleCommand::add_to(CLI::App& app) {
  const CLI::Validator count(parse_count, "COUNT", "count");
  app.add_option("--ranks,-p", options.ranks, "Rank counts p to simulate (list; 1e4, 2^16 and 10^8 forms accepted)")
      ->delimiter(',')
      ->transform(count)
      ->capture_default_str();
  app.add_option("--particles,-n", options.particles, "Particle counts N to simulate (list; N >= p for every p)")
      ->delimiter(',')
      ->transform(count)
      ->capture_default_str();
  app.add_option("--weight-cv", options.weight_cv,
                 "Coefficient of variation of one particle's weight; a rank's total is Normal(n_k, cv^2 n_k)")
      ->capture_default_str();
  app.add_option("--state-bytes", options.state_bytes, "Bytes of one particle's state (what rebalancing moves)")
      ->capture_default_str();
  app.add_option("--seed", options.seed, "Seed of the simulated weight totals and offspring counts, < 2^56")
      ->capture_default_str();
  app.add_option("--balance-tolerance", options.tolerances,
                 "Load tolerances tau of the rebalancing layout (list; scalable and algorithm1 get one line each)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--scheme", options.scheme, "Offspring counts: systematic, stratified or multinomial")
      ->capture_default_str();
  app.add_option("--steps", options.steps,
                 "Resamplings in a row, each from the layout the last one chose (scalable, algorithm1: per-step "
                 "means); step s draws its weight totals on the current counts, its offspring with seed + s")
      ->capture_default_str();
  app.add_option("--model-particle-ns", model_particle_ns,
                 "Step-time model: nanoseconds one particle's propagate, weight and reduce take")
      ->capture_default_str();
  app.add_option("--model-latency-us", model_latency_us,
                 "Step-time model: microseconds per message (alpha) and per collective round")
      ->capture_default_str();
  app.add_option("--model-bandwidth-gbs", model_bandwidth_gbs,
                 "Step-time model: a rank's link bandwidth in GB/s (beta)")
      ->capture_default_str();
}

int SimScaleCommand::run() const { return run(std::cout); }

int SimScaleCommand::run(std::ostream& out) const {
  SimScaleOptions resolved = options;
  resolved.model = {model_particle_ns * 1e-9, model_latency_us * 1e-6, model_bandwidth_gbs * 1e9};
  resolved.validate();
  for (auto n : resolved.particles)
    for (auto p : resolved.ranks) {
      const SimScalePoint point = simulate_point(resolved, p, n);
      for (const auto& m : point.impls) out << to_json(resolved, point, m) << '\n';
      out.flush();
    }
  return 0;
}

}  // namespace rsmc::bench
