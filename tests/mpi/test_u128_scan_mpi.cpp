// MPI tests for rsmc::exact::exclusive_scan_total (framework/parallel/u128_mpi.hpp).
// Run under mpiexec with any number of ranks; the test main calls MPI_Init / MPI_Finalize.
//
// Every rank computes the serial prefix sums of all ranks' values itself (the values are a fixed
// function of the rank) and compares them with the collective's result. Assertions inside collective
// sections use CHECK (never REQUIRE), so that a failure on one rank cannot leave the others waiting
// in a collective; the test main combines the verdicts over the ranks.
#include "framework/parallel/u128_mpi.hpp"  // first: it includes <mpi.h> without the C++ bindings

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

using rsmc::exact::exclusive_scan_total;
using rsmc::exact::ScanTotal;
using rsmc::exact::to_string;
using rsmc::exact::u128;

namespace {

int rank_of(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

int size_of(MPI_Comm comm) {
  int p = 0;
  MPI_Comm_size(comm, &p);
  return p;
}

// Uneven 128-bit values near 2^100 whose low words are close to 2^64, so that adding any two carries
// into the high word; one rank in three contributes 0.
u128 big_value(int rank, int variant) {
  if ((rank + variant) % 3 == 2) return 0;
  const u128 one = 1;
  const std::uint64_t low = ~std::uint64_t{0} - static_cast<std::uint64_t>(rank) * 977u;
  return (one << 100) * static_cast<unsigned>(rank + 1 + variant) + low;
}

// Uneven particle counts, some zero.
std::uint64_t count_value(int rank) { return static_cast<std::uint64_t>((rank * 7 + 3) % 5) * 1000003u; }

// A large count whose total over up to ~8 ranks stays below 2^64.
std::uint64_t large_count(int rank) { return (std::uint64_t{1} << 60) + static_cast<std::uint64_t>(rank) * 12345u; }

template <class T, class F>
ScanTotal serial(int rank, int size, F value) {
  ScanTotal want{0, 0};
  for (int r = 0; r < size; ++r) {
    const u128 v = static_cast<T>(value(r));
    if (r < rank) want.below += v;
    want.total += v;
  }
  return want;
}

void check_equal(const ScanTotal& got, const ScanTotal& want, int rank) {
  INFO("rank " << rank << ": below " << to_string(got.below) << " vs " << to_string(want.below) << ", total "
               << to_string(got.total) << " vs " << to_string(want.total));
  CHECK(got.below == want.below);
  CHECK(got.total == want.total);
}

}  // namespace

TEST_CASE("exclusive_scan_total(u128) equals the serial prefix sums", "[u128_scan_mpi]") {
  const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
  for (int variant = 0; variant < 3; ++variant) {  // repeated calls reuse the cached MPI_Op
    const ScanTotal got = exclusive_scan_total(big_value(rank, variant), MPI_COMM_WORLD);
    const ScanTotal want = serial<u128>(rank, size, [variant](int r) { return big_value(r, variant); });
    check_equal(got, want, rank);
    if (rank == 0) CHECK(got.below == 0);
  }
}

TEST_CASE("exclusive_scan_total(u128): all zero, and a total near 2^128", "[u128_scan_mpi]") {
  const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
  const ScanTotal zero = exclusive_scan_total(u128{0}, MPI_COMM_WORLD);
  CHECK(zero.below == 0);
  CHECK(zero.total == 0);
  // Each rank holds (2^128 - 1) / size (+ the remainder on the last rank): the total is exactly
  // 2^128 - 1, the largest value the precondition allows.
  const u128 max = ~u128{0};
  const u128 share = max / static_cast<unsigned>(size);
  auto value = [&](int r) { return r == size - 1 ? max - share * static_cast<unsigned>(size - 1) : share; };
  const ScanTotal got = exclusive_scan_total(value(rank), MPI_COMM_WORLD);
  CHECK(got.total == max);
  CHECK(got.below == share * static_cast<unsigned>(rank));
}

TEST_CASE("exclusive_scan_total(uint64) equals the serial prefix sums", "[u128_scan_mpi]") {
  const int rank = rank_of(MPI_COMM_WORLD), size = size_of(MPI_COMM_WORLD);
  {
    const ScanTotal got = exclusive_scan_total(count_value(rank), MPI_COMM_WORLD);
    check_equal(got, serial<std::uint64_t>(rank, size, count_value), rank);
  }
  {
    const ScanTotal got = exclusive_scan_total(large_count(rank), MPI_COMM_WORLD);
    check_equal(got, serial<std::uint64_t>(rank, size, large_count), rank);
  }
}

TEST_CASE("exclusive_scan_total on a sub-communicator", "[u128_scan_mpi]") {
  const int world_rank = rank_of(MPI_COMM_WORLD);
  // Two interleaved halves, ranks in reverse order of their world rank.
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, -world_rank, &half);
  const int rank = rank_of(half), size = size_of(half);
  const ScanTotal got = exclusive_scan_total(big_value(rank, 1), half);
  check_equal(got, serial<u128>(rank, size, [](int r) { return big_value(r, 1); }), rank);
  const ScanTotal counts = exclusive_scan_total(count_value(rank), half);
  check_equal(counts, serial<std::uint64_t>(rank, size, count_value), rank);
  MPI_Comm_free(&half);
}
