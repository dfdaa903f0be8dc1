// Bit-level helpers the tests share: the bits of a double, byte-for-byte equality of vectors, and the
// special doubles. One definition here rather than one per test file: the test executables are
// unity builds (tests/CMakeLists.txt), where every file's helpers meet in one translation unit.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace rsmc::test {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kMax = std::numeric_limits<double>::max();

inline std::uint64_t bits_of(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// Byte-for-byte equality (memcmp must not see the null data() of an empty vector, even with a zero
// length: UBSan).
template <class T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

}  // namespace rsmc::test
