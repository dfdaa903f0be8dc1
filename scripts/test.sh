#!/usr/bin/env bash
# The whole test suite, in eight stages (a ninth on request); each stage's failure fails the script.
#   0. format    the C++ sources match .clang-format (scripts/format.sh --check), and the layering
#                rules of docs/design/architecture.md hold (scripts/check-rules.sh)
#   1. openmp    Kokkos 4.6 OpenMP: Kokkos (Serial + OpenMP) built and cached by
#                scripts/install-kokkos.sh, every rsmc target built against it in build-openmp/
#                (scripts/build-kokkos4.sh) for this machine's CPU (RSMC_TARGET_ARCH=native, the
#                default), and the whole CTest suite (unit, MPI on 1-8 ranks, command-line, SLURM,
#                math, fuzz-corpus replay) with 2 OpenMP threads per process, ranks x threads
#                oversubscribing the cores (the thread tests set 1, 2 and 3 themselves); the SLURM
#                tests at 1 thread
#   2. serial    Debian's Kokkos 3.4 Serial, the README's zero-setup build: `rsmc` in build/
#                (scripts/build.sh) for baseline x86-64 (RSMC_TARGET_ARCH=x86-64), and every
#                model x scheme x p-invariant sampler run with it on 1 rank and with stage 1's rsmc
#                (2 threads) on 3 ranks, compared byte for byte (scripts/compare-outputs.sh): the
#                two builds give the same results
#   3. vector    results do not depend on the vector width: SV, linear Gaussian, Lorenz-96 and SIR
#                x 4 schemes on 1 and 3 ranks with an x86-64-v3 (AVX2) and an x86-64-v4 (AVX-512)
#                rsmc, compared byte for byte with stage 2's baseline x86-64 rsmc
#                (scripts/vector-width.sh). Stage 1's native rsmc is the build of the highest level
#                this CPU has; the other level's `rsmc` is built against stage 1's Kokkos in
#                build-arch-<level>/ when this CPU runs it (an AVX-512 CPU: x86-64-v3). A level this
#                CPU cannot run is not built (ALL_LEVELS=1 builds it) and is reported skipped.
#   4. cuda      Kokkos 4.6 CUDA, compile and link only: Kokkos (Serial + CUDA, RSMC_KOKKOS_ARCH,
#                default HOPPER90) with the patches for CUDA 13; `rsmc`, the CUDA kernels and tests
#                and h5_datasets_equal through Kokkos' nvcc_wrapper in build-cuda/, host code for
#                baseline x86-64 (the GPU kit's CPU is unknown); the install, with
#                examples/random_walk built against it. Skipped, saying so, only when nvcc is absent.
#                The GPU kit is packed from build-cuda/ (scripts/gpu-kit.sh, docs/gpu.md), checked
#                complete, and its gpu-check.sh runs here in --dry-run mode: it runs the CUDA tests,
#                which report "skipped" (no GPU here), and compares the kit's reference results.
#   5. sanitize  the sanitizer build (clang, ASan + UBSan, warnings as errors, Debian's Kokkos) and its
#                CTest subset (scripts/sanitize.sh)
#   6. fuzz      the libFuzzer targets, each for RSMC_FUZZ_SECONDS (here 30, fuzz.sh alone 60) s (scripts/fuzz.sh)
#   7. cudatests every other target of build-cuda/ through nvcc, compile and link only: the unit and MPI
#                test executables (unity batches), the math, fuzz-replay and checkpoint tools. Only
#                when named (scripts/test.sh cudatests) or with RSMC_CUDA_ALL_TARGETS=1: its build
#                (390 s and more on 2 cores) is what pushed CI past its 90 minutes on 2026-11-28,
#                and stage 4 already compiles every CUDA kernel and CUDA test through nvcc. Its
#                build is the last in the background queue. Skipped, saying so, when nvcc is absent.
#   8. install   a new user's path (docs/building.md, "Using rsmc from your own project"): stage 2's
#                build/, configured by scripts/build.sh as scripts/demo.sh configures it (Debian's
#                Kokkos, the CUDA kernels when nvcc is present) but for baseline x86-64 (stage 3
#                compares with it), installed with `cmake --install build`, then examples/random_walk
#                against that install with no build type: it must configure as Release and compile
#                with -O3. A separate demo build would cost CI a whole `rsmc` build for a different
#                -march only.
#
# Builds run behind tests: most tests wait (MPI start-ups, SLURM, signals), so stage 1's CTest keeps
# about one of the two cores busy (1,009 CPU-s in 1,121 s). Once stage 1 is built, the builds of
# stages 2-5 (stage 6 uses stage 5's) run one after another in the background (build-logs/<stage>.log) under
# SCHED_IDLE (chrt --idle): they get a core only when no test wants it, and give it up as soon as a
# test wakes. Each later stage first waits for its own build (it prints the log), then runs as above,
# where its build commands find nothing left to do. SCHED_IDLE, not nice 19: an MPI run with more
# ranks than cores yields the CPU while it waits, and a niced build then keeps it for a whole time
# slice (rsmc pmmh on 3 ranks: 6.7 s alone, 70 s beside two nice-19 compilers, 19 s beside two
# SCHED_IDLE ones). RSMC_BACKGROUND_BUILDS=0: each stage builds in turn, in the foreground.
#
#   scripts/test.sh [STAGE...]    STAGE: format openmp serial vector cuda sanitize fuzz cudatests install
#                                 (default: all but cudatests, in this order; RSMC_CUDA_ALL_TARGETS=1 adds it)
#
# Stages 1, 3 and 4 need the Kokkos source: RSMC_KOKKOS_SOURCE, by default kokkos-4.6.01.tar.gz in
# RSMC_DEPS_DIR (default RSMC_CACHE_DIR/deps, i.e. ~/.cache/rsmc/deps; CI sets its own); the stage fails
# when there is none. Stage 4's patches: RSMC_KOKKOS_CUDA_PATCHES (':'-separated), by default
# RSMC_DEPS_DIR/kokkos-4.6.01-cuda13.patch when present. The Kokkos installs are cached under
# RSMC_CACHE_DIR (default ~/.cache/rsmc), so only a fresh machine pays for building them.
# Each stage prints its start time; the output ends with each stage's time.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
deps=${RSMC_DEPS_DIR:-${RSMC_CACHE_DIR:-$HOME/.cache/rsmc}/deps}
times=()
stage() {  # stage NAME COMMAND...: runs it, records its time
  local name=$1 start
  shift
  start=$(date +%s)
  echo "==== test.sh: stage $name (started $(date -u +%H:%M:%S) UTC)"
  "$@"
  times+=("$name: $(( $(date +%s) - start )) s")
}
kokkos_source() {  # exports RSMC_KOKKOS_SOURCE, or fails saying where it looked
  if [ -z "${RSMC_KOKKOS_SOURCE:-}" ] && [ -f "$deps/kokkos-4.6.01.tar.gz" ]; then
    RSMC_KOKKOS_SOURCE=$deps/kokkos-4.6.01.tar.gz
  fi
  [ -n "${RSMC_KOKKOS_SOURCE:-}" ] || {
    echo "test.sh: no Kokkos source: set RSMC_KOKKOS_SOURCE (e.g. kokkos-4.6.01.tar.gz) or RSMC_DEPS_DIR (now '$deps')" >&2
    return 1
  }
  export RSMC_KOKKOS_SOURCE
}
kokkos_openmp() {
  kokkos_source
  bash scripts/build-kokkos4.sh openmp
  background_builds "${behind[@]}"  # the later stages' builds, behind these tests
  # The whole suite with 2 OpenMP threads per process (issue 14), except the SLURM tests. MPI tests
  # on 2-8 ranks then oversubscribe CI's 2 cores, and a run of many small kernels waits at each
  # kernel's barrier for a descheduled thread: idle OpenMP threads sleep (OMP_WAIT_POLICY=passive;
  # mpi/rsmc_mpi_tests@3 at 2 threads: 25 s passive, over 100 s spinning), which changes no result.
  # Measured 2026-11-27 in this script from a fresh clone (beside the background builds): the 81
  # tests other than SLURM's took 1,250 s at 2 threads, where the whole suite took 947 s at 1 (and
  # the unit tests again at 2 threads 48 s); cli/pmmh_checkpoint 367 s at 2 threads against 71 s at
  # 1, hence its limit of 900 s (tests/CMakeLists.txt). The SLURM tests run at
  # 1 thread, as the issue's own measurement left them out: they check job scripts, and at 2 threads
  # slurm/jobscripts' signal to its pmmh job missed it ("Invalid job id"). The thread-sensitive
  # tests choose their own counts: cli/thread_invariance (every model, scheme and sampler at 1, 2
  # and 3 threads on 1 and 3 ranks) and unit/test_parallel_selection@threads=2,3. Kokkos' warning
  # that ranks x threads oversubscribe the cores (deliberate here) is off: tests that require a
  # refusal to be one line on stderr would otherwise see it on every multi-rank run.
  local env=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 KOKKOS_DISABLE_WARNINGS=1
    OMP_PROC_BIND=false OMPI_MCA_hwloc_base_binding_policy=none)
  (cd build-openmp && env "${env[@]}" OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive \
    ctest --output-on-failure -j "$jobs" --timeout 900 -E '^slurm/')
  (cd build-openmp && env "${env[@]}" OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive \
    ctest --output-on-failure -j "$jobs" --timeout 900 -R '^slurm/')
}
# The build of each stage that has one: build_STAGE. `build STAGE` runs it, unless it ran in the
# background and succeeded (then it prints that build's output).
build_serial() {
  # The README's build, configured as scripts/demo.sh configures it (Debian's Kokkos 3.4 Serial,
  # rsmc's CUDA kernels when nvcc is present), for baseline x86-64: stage 3 compares the other
  # instruction sets with it, and stage 8 installs it.
  bash scripts/build.sh -DRSMC_TARGET_ARCH=x86-64 --target rsmc --target h5_datasets_equal
}
build_vector() {
  kokkos_source
  bash scripts/vector-width.sh --build-only build/drivers/rsmc build-openmp/drivers/rsmc
}
have_nvcc() { command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; }
build_kokkos_cuda() {  # build_kokkos_cuda [TARGET...]: scripts/build-kokkos4.sh cuda, with the CUDA 13 patch
  kokkos_source
  if [ -z "${RSMC_KOKKOS_CUDA_PATCHES+set}" ] && [ -f "$deps/kokkos-4.6.01-cuda13.patch" ]; then
    RSMC_KOKKOS_CUDA_PATCHES=$deps/kokkos-4.6.01-cuda13.patch
  fi
  RSMC_KOKKOS_PATCHES=${RSMC_KOKKOS_CUDA_PATCHES:-} bash scripts/build-kokkos4.sh cuda "$@"
}
build_cuda() {
  have_nvcc || return 0
  # The GPU kit's executables through nvcc (gpu-kit.sh --list-targets): `rsmc` (engine, models,
  # drivers, benchmarks), h5_datasets_equal and rsmc's CUDA kernels and tests; files without Kokkos go
  # to the host compiler alone (rsmc_host_only in CMakeLists.txt). Stage 7 builds the other targets.
  local kit
  mapfile -t kit < <(bash scripts/gpu-kit.sh --list-targets)
  [ ${#kit[@]} -gt 0 ] || { echo "test.sh: scripts/gpu-kit.sh --list-targets listed no target" >&2; return 1; }
  build_kokkos_cuda "${kit[@]}"
  # The install, with examples/random_walk built against it.
  RSMC_BUILD_DIR=$PWD/build-cuda RSMC_SOURCE_DIR=$PWD RSMC_CXX_COMPILER=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' build-cuda/CMakeCache.txt) \
    bash tests/install/install_and_consume.sh --build-only
}
# Every other target through nvcc: `scripts/build-kokkos4.sh cuda` with no target builds all of them
# (about 390 s on 2 cores beyond the kit's, measured with ccache off 2026-11-27).
build_cudatests() {
  have_nvcc || return 0
  build_kokkos_cuda
}
# Stage 8's build: the demo's, configured as on a fresh machine (scripts/build.sh's defaults, the
# `rsmc` target), in a directory of its own.
# Stages 5 and 6 share build-sanitize/: one build for both (two builds queued behind each other would
# configure the directory while stage 5 runs in it).
build_sanitize() {
  bash scripts/sanitize.sh --build-only
  bash scripts/build-sanitize.sh rsmc_fuzzers
}

# background_builds STAGE...: build_STAGE of each in turn, under SCHED_IDLE, in a process group of its own
# (ended with this script); each writes $logs/STAGE.log, then $logs/STAGE.done ("EXIT SECONDS").
logs=build-logs
background_pid=""
build_times=()
background_builds() {
  [ $# -gt 0 ] && [ "${RSMC_BACKGROUND_BUILDS:-1}" != 0 ] || return 0
  rm -rf "$logs" && mkdir -p "$logs"
  echo "==== test.sh: building stages $* in the background under SCHED_IDLE (output: $logs/)"
  set -m  # job control: the builds get their own process group, so that one kill ends them all
  (
    trap - EXIT
    chrt --idle -p 0 "$BASHPID" || renice -n 19 -p "$BASHPID" >/dev/null  # inherited by every build
    for s in "$@"; do
      start=$(date +%s) rc=0
      "build_$s" >"$logs/$s.log" 2>&1 </dev/null || rc=$?
      echo "$rc $(($(date +%s) - start))" >"$logs/$s.done"
    done
  ) &
  background_pid=$!
  set +m
  trap 'kill -- -"$background_pid" 2>/dev/null || true' EXIT
}
# built_behind STAGE: waits for STAGE's background build (if it has one) and prints its output;
# true when it succeeded
built_behind() {
  # queued, not "has a log": a stage reached before its build started must wait, not build beside it
  [ -n "$background_pid" ] && [[ " ${behind[*]} " == *" $1 "* ]] || return 1
  until [ -f "$logs/$1.done" ]; do
    kill -0 "$background_pid" 2>/dev/null || { echo "test.sh: the background builds ended before stage $1's" >&2; return 1; }
    sleep 2
  done
  local rc secs
  read -r rc secs <"$logs/$1.done"
  echo "---- test.sh: stage $1 was built in the background ($secs s, exit $rc): $logs/$1.log"
  cat "$logs/$1.log"
  echo "---- test.sh: end of $logs/$1.log"
  build_times+=("$1: $secs s (exit $rc)")
  [ "$rc" -eq 0 ] || echo "test.sh: stage $1's background build failed: building it again here"
  [ "$rc" -eq 0 ]
}
build() { built_behind "$1" || "build_$1"; }
serial_matches_openmp() {
  build serial
  [ -x build-openmp/drivers/rsmc ] || {
    echo "test.sh: stage serial compares with build-openmp/drivers/rsmc: run the openmp stage first" >&2
    return 1
  }
  OMP_NUM_THREADS=2 OMP_PROC_BIND=false OMP_WAIT_POLICY=passive OMPI_MCA_hwloc_base_binding_policy=none \
    RANKS="3" bash scripts/compare-outputs.sh build-openmp/drivers/rsmc build/drivers/rsmc build/tests/h5_datasets_equal
}
vector_width() {
  build vector
  bash scripts/vector-width.sh build/drivers/rsmc build-openmp/drivers/rsmc
}
kokkos_cuda() {
  if ! have_nvcc; then
    echo "test.sh: SKIPPED the Kokkos 4.6 CUDA stage: no nvcc (not on PATH, not in /usr/local/cuda/bin)"
    return 0
  fi
  build cuda
  # The GPU kit (docs/gpu.md): packed from build-cuda/, its completeness check, and gpu-check.sh
  # --dry-run on the unpacked kit: the host build's rsmc of stage 2 (or one scripts/gpu-kit.sh builds)
  # must reproduce every reference file, and the CUDA tests, which need a GPU, each exit 77 and are
  # reported skipped, never passed (a CTest run of only skipped tests would end the log saying
  # "100% tests passed" of tests that did not run).
  bash scripts/gpu-kit.sh --build-dir build-cuda -o build-cuda/rsmc-gpu-kit.tar.gz
  rm -rf build-cuda/kit && mkdir build-cuda/kit && tar -xzf build-cuda/rsmc-gpu-kit.tar.gz -C build-cuda/kit
  bash build-cuda/kit/rsmc-gpu-kit/gpu-check.sh --dry-run --out build-cuda/kit/dry-run
}
cuda_test_executables() {
  if ! have_nvcc; then
    echo "test.sh: SKIPPED the CUDA build of the test executables: no nvcc (not on PATH, not in /usr/local/cuda/bin)"
    return 0
  fi
  build cudatests
  echo "test.sh: every target of build-cuda/ compiled and linked through nvcc (none runs: no GPU here)"
}
# A fresh clone's path to a model of one's own: the demo, `cmake --install` of its build, and
# examples/random_walk against the install with no build type, which must give a Release (-O3) build
# (issue 38). Only the example's `consumer` program is built: it compiles the engine with the model,
# which is what the optimisation level is about.
demo_install_consume() {
  build serial
  local out=build/install-check prefix consumer
  prefix=$PWD/$out/prefix consumer=$out/consumer
  rm -rf "$out" && mkdir -p "$out"
  cmake --install build --prefix "$prefix" >"$out/install.log" ||
    { cat "$out/install.log"; return 1; }
  cmake -S examples/random_walk -B "$consumer" -DCMAKE_PREFIX_PATH="$prefix" >"$out/consumer-configure.log" ||
    { cat "$out/consumer-configure.log"; return 1; }
  grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$consumer/CMakeCache.txt" ||
    { echo "test.sh: examples/random_walk with no build type did not configure as Release" >&2; return 1; }
  cmake --build "$consumer" --target consumer --verbose >"$out/consumer-build.log" 2>&1 ||
    { cat "$out/consumer-build.log"; return 1; }
  grep -q -- ' -O3 .*consumer\.cpp' "$out/consumer-build.log" ||
    { echo "test.sh: examples/random_walk's consumer.cpp was not compiled with -O3 ($out/consumer-build.log)" >&2; return 1; }
  echo "test.sh: the demo's build installed, and examples/random_walk built against it as Release (-O3)"
}
sanitizer_subset() {
  build sanitize
  bash scripts/sanitize.sh
}
fuzzing() {
  RSMC_FUZZ_SECONDS="${RSMC_FUZZ_SECONDS:-30}" bash scripts/fuzz.sh
}
all_stages=(format openmp serial vector cuda sanitize fuzz cudatests install)
default_stages=(format openmp serial vector cuda sanitize fuzz install)
[ "${RSMC_CUDA_ALL_TARGETS:-0}" != 1 ] || default_stages+=(cudatests)
selected=("$@")
[ ${#selected[@]} -gt 0 ] || selected=("${default_stages[@]}")
for s in "${selected[@]}"; do
  [[ " ${all_stages[*]} " == *" $s "* ]] || { echo "test.sh: unknown stage '$s' (stages: ${all_stages[*]})" >&2; exit 2; }
done
bash scripts/install-deps.sh
behind=()  # the selected stages that have a build of their own, after stage openmp
for s in "${selected[@]}"; do
  [ "$s" = openmp ] || ! declare -F "build_$s" >/dev/null || behind+=("$s")
done
[[ " ${selected[*]} " == *" openmp "* ]] || background_builds "${behind[@]}"
for s in "${selected[@]}"; do
  case $s in
    format) stage "0 formatting + layering rules" bash -c 'bash scripts/format.sh --check && bash scripts/check-rules.sh' ;;
    openmp) stage "1 Kokkos 4.6 OpenMP build + whole CTest" kokkos_openmp ;;
    serial) stage "2 Debian Kokkos 3.4 Serial build + same results as stage 1" serial_matches_openmp ;;
    vector) stage "3 native and x86-64-v3/v4 builds this CPU runs: same results as baseline x86-64" vector_width ;;
    cuda) stage "4 Kokkos 4.6 CUDA compile + GPU kit" kokkos_cuda ;;
    sanitize) stage "5 sanitizer build + ctest subset" sanitizer_subset ;;
    fuzz) stage "6 fuzzing" fuzzing ;;
    cudatests) stage "7 Kokkos 4.6 CUDA: every other target compiles and links" cuda_test_executables ;;
    install) stage "8 the demo's build installs; examples/random_walk against it is Release" demo_install_consume ;;
  esac
done
echo "==== test.sh: all stages passed (${selected[*]})"
printf '  %s\n' "${times[@]}"
[ ${#build_times[@]} -eq 0 ] || printf '  built in the background (included above where a stage waited): %s\n' "${build_times[*]}"
