// MPI tests for rsmc::exact::allreduce_exact (framework/parallel/exact_sum_mpi.hpp) and
// rsmc::exact::allreduce_binned (framework/parallel/binned_sum_mpi.hpp).
// Run under mpiexec with any number of ranks; the test main calls MPI_Init / MPI_Finalize.
//
// Assertions inside collective sections use CHECK (never REQUIRE), so that a failure on one rank
// cannot leave the others waiting in a collective; the verdicts are then combined over the ranks.
#include "framework/parallel/exact_sum_mpi.hpp"  // first: it includes <mpi.h> without the C++ bindings
#include "framework/parallel/binned_sum_mpi.hpp"
#include "tests/support/bits.hpp"

using rsmc::test::bits_of;

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

using rsmc::exact::allreduce_binned;
using rsmc::exact::allreduce_exact;
using rsmc::exact::BinnedSum;
using rsmc::exact::ExactSum;

namespace {

constexpr std::size_t kN = 10000;
constexpr int kSums = 3;  // accumulators reduced together

double double_of(std::uint64_t u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// A fixed array of awkward doubles: random bit patterns over the whole exponent range (subnormals
// included), huge values cancelled by their negations placed far away, values around 1 that
// carry tiny tails, and extreme values. The exact total stays finite and is not dominated by one
// term.
const std::vector<double>& global_data() {
  static const std::vector<double> data = [] {
    std::mt19937_64 rng(0x5eed5eedULL);
    std::vector<double> xs(kN);
    for (std::size_t i = 0; i < kN; ++i) {
      double x;
      switch (rng() % 4) {
        case 0:  // any finite double of moderate size (|x| < 2^1000), subnormals included
          do x = double_of(rng());
          while (!std::isfinite(x) || std::fabs(x) >= 0x1p1000);
          break;
        case 1:  // around 1
          x = 1.0 + std::ldexp(static_cast<double>(rng() >> 12), -52);
          if (rng() & 1) x = -x;
          break;
        case 2:  // tiny tails
          x = std::ldexp(static_cast<double>(rng() >> 11), -53 - static_cast<int>(rng() % 1000));
          if (rng() & 1) x = -x;
          break;
        default:  // a subnormal
          x = std::ldexp(static_cast<double>(rng() >> 12), -1074);
          if (rng() & 1) x = -x;
          break;
      }
      xs[i] = x;
    }
    // Huge values and their exact negations, spread over the array (so they land on different
    // ranks), and a few extremes.
    for (std::size_t i = 0; i < 40; ++i) {
      const double big = std::ldexp(1.0 + static_cast<double>(i) / 64, 1000 + static_cast<int>(i % 23));
      xs[(i * 251) % kN] = big;
      xs[(i * 251 + kN / 2 + 7) % kN] = -big;
    }
    xs[1] = std::numeric_limits<double>::max();
    xs[kN - 2] = -std::numeric_limits<double>::max();
    xs[3] = std::numeric_limits<double>::denorm_min();
    xs[4] = -0.0;
    return xs;
  }();
  return data;
}

// The three accumulators for the index range [begin, end): the data, their negated squares (every
// product rounded, but deterministically per element), and the data with one +inf at index 77.
void accumulate(std::size_t begin, std::size_t end, ExactSum sums[kSums]) {
  const std::vector<double>& xs = global_data();
  for (int j = 0; j < kSums; ++j) sums[j].clear();
  for (std::size_t i = begin; i < end; ++i) {
    const double x = xs[i];
    sums[0].add(x);
    sums[1].add(-(x * 1e-200) * (x * 1e-200));
    sums[2].add(i == 77 ? std::numeric_limits<double>::infinity() : x);
  }
}

// Block distribution of n items over p ranks (n need not divide by p): the first n % p ranks get
// one extra item.
void block_range(std::size_t n, int p, int r, std::size_t* begin, std::size_t* end) {
  const std::size_t q = n / static_cast<std::size_t>(p), rem = n % static_cast<std::size_t>(p);
  const std::size_t ur = static_cast<std::size_t>(r);
  *begin = ur * q + (ur < rem ? ur : rem);
  *end = *begin + q + (ur < rem ? 1 : 0);
}

struct Serial {
  ExactSum sums[kSums];
  Serial() {
    accumulate(0, kN, sums);
    for (ExactSum& s : sums) s.normalize();
  }
};

const Serial& serial() {
  static const Serial s;
  return s;
}

bool same_sum_bytes(const ExactSum& a, const ExactSum& b) { return std::memcmp(&a, &b, sizeof(ExactSum)) == 0; }

// True on every rank iff ok is true on every rank of comm.
bool all_ranks(bool ok, MPI_Comm comm) {
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  return all == 1;
}

// The to_double() bits of every rank, gathered; true iff they are all equal to expect.
bool every_rank_reports(std::uint64_t mine, std::uint64_t expect, MPI_Comm comm) {
  int p = 0;
  MPI_Comm_size(comm, &p);
  std::vector<std::uint64_t> all(static_cast<std::size_t>(p));
  MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, comm);
  bool ok = true;
  for (std::uint64_t b : all) ok = ok && b == expect;
  return ok;
}

// For k = 1 .. p: on the first k ranks, check(sub, rank in sub, k) on a k-rank sub-communicator;
// true on every rank of MPI_COMM_WORLD iff every check returned true everywhere.
template <class Check>
void on_every_sub_communicator(Check check) {
  int rank = 0, p = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  for (int k = 1; k <= p; ++k) {
    MPI_Comm sub = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank < k ? 0 : MPI_UNDEFINED, rank, &sub);
    bool ok = true;
    if (sub != MPI_COMM_NULL) {
      int sr = 0, sp = 0;
      MPI_Comm_rank(sub, &sr);
      MPI_Comm_size(sub, &sp);
      CHECK(sp == k);
      ok = check(sub, sr, sp);
      MPI_Comm_free(&sub);
    }
    INFO("sub-communicator of size " << k);
    CHECK(all_ranks(ok, MPI_COMM_WORLD));
  }
}

// ---- BinnedSum: weights in [0, 1], products w x of states of mixed magnitude (some beyond the
// levels, summed exactly), and the weights with one NaN: the three kinds of terms of a filter step.
const std::vector<double>& binned_data(int which) {
  static const std::vector<std::vector<double>> all = [] {
    std::mt19937_64 g(0xb1aedull);
    std::normal_distribution<double> normal;
    std::vector<std::vector<double>> d(kSums, std::vector<double>(kN));
    for (std::size_t i = 0; i < kN; ++i) {
      const double w = std::exp(-0.5 * normal(g) * normal(g) * 9.0);
      d[0][i] = w;
      d[1][i] = w * (i % 997 == 0 ? 0x1p900 : std::ldexp(normal(g), static_cast<int>(g() % 40) - 20));
      d[2][i] = i == 777 ? std::numeric_limits<double>::quiet_NaN() : w;
    }
    return d;
  }();
  return all[static_cast<std::size_t>(which)];
}

// The binned sums of [begin, end), in uneven chunks (as threads or batches would).
void accumulate_binned(std::size_t begin, std::size_t end, BinnedSum sums[kSums]) {
  for (int j = 0; j < kSums; ++j) {
    sums[j].clear();
    for (std::size_t i = begin; i < end; i += 333)
      sums[j].add(binned_data(j).data() + i, std::min<std::size_t>(333, end - i));
  }
}

}  // namespace

TEST_CASE("the serial reference is sensible", "[exact][mpi]") {
  const Serial& ref = serial();
  const double total = ref.sums[0].to_double();
  CHECK(std::isfinite(total));
  CHECK(total != 0.0);
  CHECK(std::isfinite(ref.sums[1].to_double()));
  CHECK(ref.sums[2].to_double() == std::numeric_limits<double>::infinity());
}

TEST_CASE("allreduce_exact over MPI_COMM_WORLD equals the serial exact sum bitwise", "[exact][mpi]") {
  int rank = 0, p = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  std::size_t begin, end;
  block_range(kN, p, rank, &begin, &end);
  ExactSum sums[kSums];
  accumulate(begin, end, sums);
  allreduce_exact(sums, kSums, MPI_COMM_WORLD);

  bool ok = true;
  for (int j = 0; j < kSums; ++j) {
    CHECK(same_sum_bytes(sums[j], serial().sums[j]));
    ok = ok && same_sum_bytes(sums[j], serial().sums[j]);
    const std::uint64_t expect = bits_of(serial().sums[j].to_double());
    const bool everywhere = every_rank_reports(bits_of(sums[j].to_double()), expect, MPI_COMM_WORLD);
    CHECK(everywhere);
    ok = ok && everywhere;
  }
  CHECK(all_ranks(ok, MPI_COMM_WORLD));
}

TEST_CASE("every sub-communicator size gives the same bits", "[exact][mpi]") {
  on_every_sub_communicator([](MPI_Comm sub, int sr, int sp) {
    std::size_t begin, end;
    block_range(kN, sp, sr, &begin, &end);
    ExactSum sums[kSums];
    accumulate(begin, end, sums);
    allreduce_exact(sums, kSums, sub);
    bool ok = true;
    for (int j = 0; j < kSums; ++j) {
      const bool same = same_sum_bytes(sums[j], serial().sums[j]) &&
                        bits_of(sums[j].to_double()) == bits_of(serial().sums[j].to_double());
      CHECK(same);
      ok = ok && same;
    }
    return ok;
  });
}

TEST_CASE("allreduce_binned: every sub-communicator size gives the serial sum's bytes", "[binned][mpi]") {
  BinnedSum reference[kSums];
  accumulate_binned(0, kN, reference);
  for (auto& s : reference) s.normalize();
  CHECK(reference[0].to_double() > 0.0);
  CHECK(std::isnan(reference[2].to_double()));
  on_every_sub_communicator([&](MPI_Comm sub, int sr, int sp) {
    std::size_t begin, end;
    block_range(kN, sp, sr, &begin, &end);
    BinnedSum sums[kSums];
    accumulate_binned(begin, end, sums);
    allreduce_binned(sums, kSums, sub);
    bool ok = true;
    for (int j = 0; j < kSums; ++j) ok = ok && std::memcmp(&sums[j], &reference[j], sizeof(BinnedSum)) == 0;
    CHECK(ok);
    return ok;
  });
}

TEST_CASE("uneven and empty local shares", "[exact][mpi]") {
  // Everything on the last rank, nothing elsewhere; and one element per rank.
  int rank = 0, p = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  ExactSum sums[kSums];
  if (rank == p - 1)
    accumulate(0, kN, sums);
  else
    accumulate(0, 0, sums);
  allreduce_exact(sums, kSums, MPI_COMM_WORLD);
  bool ok = true;
  for (int j = 0; j < kSums; ++j) ok = ok && same_sum_bytes(sums[j], serial().sums[j]);
  CHECK(all_ranks(ok, MPI_COMM_WORLD));

  ExactSum one[1];
  one[0].clear();
  one[0].add(static_cast<double>(rank + 1));
  one[0].add(1e300);
  one[0].add(-1e300);
  allreduce_exact(one, 1, MPI_COMM_WORLD);
  CHECK(one[0].to_double() == static_cast<double>(p) * (p + 1) / 2);
}

TEST_CASE("allreduce_exact argument checks and count 0", "[exact][mpi]") {
  ExactSum s{};
  CHECK_NOTHROW(allreduce_exact(&s, 0, MPI_COMM_WORLD));
  CHECK_NOTHROW(allreduce_exact(nullptr, 0, MPI_COMM_WORLD));
  CHECK_THROWS_AS(allreduce_exact(&s, -1, MPI_COMM_WORLD), std::invalid_argument);
  CHECK_THROWS_AS(allreduce_exact(nullptr, 1, MPI_COMM_WORLD), std::invalid_argument);
}
