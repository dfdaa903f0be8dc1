// Takes typed values off the front of a fuzz input, for the structure-aware targets. Past the end
// every value is zero (an empty string), so any input, even an empty one, describes one case.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace rsmc::fuzz {

class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  // A value in [0, n) for n >= 1 (one byte; n <= 256).
  unsigned below(unsigned n) { return byte() % n; }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | byte();
    return v;
  }
  // Any bit pattern: NaN, infinities and subnormals included.
  double f64() {
    const std::uint64_t bits = u64();
    double x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
  }
  // A string of up to `max` bytes (any bytes, NUL included); its length comes first.
  std::string text(std::size_t max) {
    std::string s(byte() % (max + 1), '\0');
    for (char& c : s) c = static_cast<char>(byte());
    return s;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

}  // namespace rsmc::fuzz
