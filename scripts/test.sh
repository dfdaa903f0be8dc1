#!/usr/bin/env bash
# The whole test suite, in three stages; each stage's failure fails the script.
#   1. the regular build (with CUDA when nvcc is present) and all of CTest: unit, MPI (1-8 ranks,
#      oversubscribed), command-line, fuzz-corpus replay and CUDA tests (CUDA tests report
#      "skipped" without a GPU)
#   2. the sanitizer build (clang, ASan + UBSan, warnings as errors) and its CTest subset
#      (scripts/sanitize.sh)
#   3. the libFuzzer targets, each for RSMC_FUZZ_SECONDS (default 60) s (scripts/fuzz.sh)
# The output ends with each stage's time.
set -euo pipefail
cd "$(dirname "$0")/.."
times=()
stage() {  # stage NAME COMMAND...: runs it, records its time
  local name=$1 start
  shift
  start=$(date +%s)
  echo "==== test.sh: stage $name"
  "$@"
  times+=("$name: $(( $(date +%s) - start )) s")
}
regular() {
  bash scripts/build.sh
  (cd build && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)" --timeout 900)
}
bash scripts/install-deps.sh
stage "1 regular build + ctest" regular
stage "2 sanitizer build + ctest subset" bash scripts/sanitize.sh
stage "3 fuzzing" bash scripts/fuzz.sh
echo "==== test.sh: all stages passed"
printf '  %s\n' "${times[@]}"
