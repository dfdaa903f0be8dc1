#!/usr/bin/env bash
# Configures and builds the sanitizer build in ./build-sanitize: clang, AddressSanitizer (with
# LeakSanitizer) + UndefinedBehaviorSanitizer on all of rsmc's code, warnings as errors, and
# libFuzzer's coverage instrumentation so that the same build also gives the fuzzers
# (cmake/RsmcSanitizers.cmake). Arguments are the targets to build (default: all), e.g.
#   scripts/build-sanitize.sh rsmc_unit_tests      or      scripts/build-sanitize.sh rsmc_fuzzers
# Used by scripts/sanitize.sh (the CTest stage) and scripts/fuzz.sh (the fuzzing stage).
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian 12's clang (package clang-14; libFuzzer and the sanitizer runtimes: libclang-rt-14-dev).
cc=${RSMC_SANITIZE_CC:-clang-14} cxx=${RSMC_SANITIZE_CXX:-clang++-14}
for tool in "$cc" "$cxx"; do
  command -v "$tool" >/dev/null || { echo "build-sanitize: '$tool' not found; run scripts/install-deps.sh" >&2; exit 1; }
done
jobs=$(nproc 2>/dev/null || echo 2)
# The compilers are chosen when the build directory is first configured (changing them later would
# make CMake start over).
[ -f build-sanitize/CMakeCache.txt ] || export CC=$cc CXX=$cxx
# -O1 with line tables only, as the sanitizers' documentation advises: reports keep file:line for every
# frame, and the build takes a fifth less time than -O2 -g (a unit-test batch: 75 s against 96 s).
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRSMC_ENABLE_CUDA=OFF \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
  -DRSMC_WARNINGS_AS_ERRORS=ON -DRSMC_SANITIZE="address;undefined" -DRSMC_BUILD_FUZZERS=ON >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build build-sanitize -j "$jobs" "${targets[@]}"
