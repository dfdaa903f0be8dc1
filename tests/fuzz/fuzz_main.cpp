// The libFuzzer binary of one target (compiled once per target with RSMC_FUZZ_TARGET="<name>").
// rsmc::Error is the reader refusing bad input: expected. Any other exception escapes and libFuzzer
// reports it as a crash (std::terminate -> abort), like a sanitizer finding.
#include <cstdio>
#include <cstdlib>

#include "base/core/error.hpp"
#include "environment.hpp"
#include "fuzz_targets.hpp"

namespace {

rsmc::fuzz::Entry entry = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  entry = rsmc::fuzz::entry_by_name(RSMC_FUZZ_TARGET);
  if (entry == nullptr) {
    std::fprintf(stderr, "rsmc fuzz: unknown target '%s'\n", RSMC_FUZZ_TARGET);
    std::abort();
  }
  rsmc::fuzz::start_environment(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    entry(data, size);
  } catch (const rsmc::Error&) {
    // refused with a message: the reader did its job
  }
  return 0;
}
