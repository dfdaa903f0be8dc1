// Replays fuzz inputs through the same entries as the fuzzers, in the regular build (no libFuzzer):
//
//   rsmc_fuzz_replay TARGET PATH...     PATH: a file, or a directory whose files are all replayed
//
// Each input must be accepted or refused with rsmc::Error; any other exception fails the run (a
// crash fails it by itself). Prints one line per input and a summary; exit 0 when every input
// passed, 1 otherwise, 2 on bad usage (an unknown target, a missing path, no inputs at all: a
// replay of nothing must not pass).
#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "base/core/error.hpp"
#include "environment.hpp"
#include "fuzz_targets.hpp"

namespace fs = std::filesystem;

namespace {

std::vector<std::string> inputs_under(const std::vector<std::string>& paths, bool& ok) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (const auto& e : fs::directory_iterator(p, ec))
        if (e.is_regular_file()) files.push_back(e.path().string());
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "rsmc_fuzz_replay: '%s' is not a file or directory\n", p.c_str());
      ok = false;
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// "accepted", "refused: <message>" or "FAILED: <why>".
std::string replay(rsmc::fuzz::Entry entry, const std::string& file, bool& passed) {
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  passed = true;
  try {
    entry(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    return "accepted";
  } catch (const rsmc::Error& e) {
    return std::string("refused: ") + e.what();
  } catch (const std::exception& e) {
    passed = false;
    return std::string("FAILED: an exception other than rsmc::Error: ") + e.what();
  } catch (...) {
    passed = false;
    return "FAILED: a non-standard exception";
  }
}

}  // namespace

int main(int argc, char** argv) {
  rsmc::fuzz::start_environment(&argc, &argv);
  int status = 0;
  if (argc < 3) {
    std::fprintf(stderr, "usage: rsmc_fuzz_replay TARGET PATH...\n");
    status = 2;
  } else if (rsmc::fuzz::Entry entry = rsmc::fuzz::entry_by_name(argv[1]); entry == nullptr) {
    std::fprintf(stderr, "rsmc_fuzz_replay: unknown target '%s'\n", argv[1]);
    status = 2;
  } else {
    bool paths_ok = true;
    const std::vector<std::string> files = inputs_under(std::vector<std::string>(argv + 2, argv + argc), paths_ok);
    int failed = 0;
    for (const std::string& file : files) {
      bool passed = true;
      const std::string outcome = replay(entry, file, passed);
      std::printf("%s: %s\n", file.c_str(), outcome.c_str());
      failed += passed ? 0 : 1;
    }
    std::printf("rsmc_fuzz_replay %s: %zu inputs, %d failed\n", argv[1], files.size(), failed);
    if (!paths_ok || files.empty())
      status = 2;
    else if (failed > 0)
      status = 1;
  }
  return status;  // MPI and Kokkos are finalised at exit
}
