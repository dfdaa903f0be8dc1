#!/usr/bin/env bash
# The fuzzing stage: builds the libFuzzer targets (scripts/build-sanitize.sh) and runs each for a
# bounded time from a scratch copy of its committed seed corpus (tests/fuzz/corpus/<target>; new
# inputs never go into the tree). Fails on the first crash, sanitizer report, leak, timeout (one
# input > 10 s) or OOM (> 2 GiB); the input that did it is kept under build-sanitize/fuzz-artifacts/
# (replay: build-sanitize/tests/fuzz/fuzz_<target> FILE; keep it as a regression test:
# cp FILE tests/fuzz/regressions/<target>/ once the reader is fixed).
#
#   scripts/fuzz.sh [TARGET...]        default: config csv checkpoint checkpoint_structured
#                                      pmmh_checkpoint pmmh_checkpoint_structured (what CI runs);
#                                      checkpoint, pmmh_checkpoint: raw bytes, stopped by the seal
#                                      before HDF5 parses them (tests/fuzz/hdf5-findings/README.md)
#   RSMC_FUZZ_SECONDS=600 scripts/fuzz.sh csv      longer runs (default 60 s per target)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${RSMC_FUZZ_SECONDS:-60}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(config csv checkpoint checkpoint_structured pmmh_checkpoint pmmh_checkpoint_structured)

bash scripts/build-sanitize.sh rsmc_fuzzers
# shellcheck source=/dev/null
source build-sanitize/sanitizer-env.sh
# libFuzzer checks for leaks after every input that allocated more than it freed; the check at exit
# is off (it would see Open MPI's plugins already unloaded by MPI_Finalize; see
# cmake/RsmcSanitizers.cmake). HDF5's own memory errors on crafted files are not counted:
# tests/sanitizers/asan_fuzz.supp says which and why. allocator_may_return_null: a request beyond
# what ASan can allocate fails as it would without ASan (HDF5 asks for garbage sizes on damaged
# files and handles the failure); in rsmc's code such a request is an uncaught std::bad_alloc, and
# any allocation over 2 GiB still fails the run (libFuzzer's -rss_limit_mb/-malloc_limit_mb).
export ASAN_OPTIONS="$ASAN_OPTIONS:leak_check_at_exit=0:allocator_may_return_null=1"
export ASAN_OPTIONS="$ASAN_OPTIONS:suppressions=$PWD/tests/sanitizers/asan_fuzz.supp"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d "${TMPDIR:-/tmp}/rsmc-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
artifacts=build-sanitize/fuzz-artifacts
mkdir -p "$artifacts"

for target in "${targets[@]}"; do
  fuzzer=build-sanitize/tests/fuzz/fuzz_$target
  corpus=tests/fuzz/corpus/$target
  if [ ! -x "$fuzzer" ] || [ ! -d "$corpus" ]; then
    echo "fuzz: no fuzzer or corpus for target '$target'" >&2
    exit 1
  fi
  mkdir -p "$work/$target"
  cp "$corpus"/* "$work/$target/"
  # Former crashes are seeds too (only tests/fuzz/regressions/<target> holds them).
  [ -d "tests/fuzz/regressions/$target" ] && cp "tests/fuzz/regressions/$target"/* "$work/$target/"
  dict=()
  [ -f "tests/fuzz/$target.dict" ] && dict=("-dict=tests/fuzz/$target.dict")
  echo "fuzz: $target for ${seconds} s (corpus: $(find "$corpus" -type f | wc -l) seeds)"
  start=$(date +%s)
  if ! "$fuzzer" "$work/$target" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$artifacts/$target-" -print_final_stats=1 >"$work/$target.log" 2>&1; then
    tail -n 60 "$work/$target.log" >&2
    echo "fuzz: $target FAILED (input kept under $artifacts/)" >&2
    exit 1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$target.log" | grep -o '[0-9]*$' || echo 0)
  if [ "$runs" -eq 0 ]; then  # a fuzzer that did not run must not pass
    tail -n 30 "$work/$target.log" >&2
    echo "fuzz: $target ran no inputs" >&2
    exit 1
  fi
  echo "fuzz: $target passed: $runs inputs in $(( $(date +%s) - start )) s, corpus grew to $(find "$work/$target" -type f | wc -l)"
done
