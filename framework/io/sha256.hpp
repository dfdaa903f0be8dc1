// SHA-256 (NIST FIPS 180-4, "Secure Hash Standard", 2015), rsmc's own implementation: the digest
// that seals checkpoint and trace files (framework/io/sealed_file.hpp). Portable C++, no CPU-
// specific instructions; checked against the FIPS 180-4 example vectors in tests/unit/test_io.cpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace rsmc {

class Sha256 {
 public:
  using Digest = std::array<std::uint8_t, 32>;

  void update(const void* data, std::size_t size);
  // The digest of everything given to update(); the object must not be updated afterwards.
  Digest finish();
  static Digest of(const void* data, std::size_t size);

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::array<std::uint8_t, 64> block_{};
  std::size_t buffered_ = 0;  // bytes in block_
  std::uint64_t total_bytes_ = 0;
};

// Lower-case hexadecimal, 64 characters.
std::string to_hex(const Sha256::Digest& digest);

}  // namespace rsmc
