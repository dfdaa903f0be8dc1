#!/usr/bin/env bash
# The whole test suite, in six stages; each stage's failure fails the script.
#   0. the C++ sources match .clang-format (scripts/format.sh --check)
#   1. the regular build (Debian's Kokkos 3.4 Serial; with CUDA kernels when nvcc is present) and all
#      of CTest: unit, MPI (1-8 ranks, oversubscribed), command-line, fuzz-corpus replay and CUDA
#      tests (CUDA tests report "skipped" without a GPU)
#   2. the sanitizer build (clang, ASan + UBSan, warnings as errors) and its CTest subset
#      (scripts/sanitize.sh)
#   3. the libFuzzer targets, each for RSMC_FUZZ_SECONDS (default 60) s (scripts/fuzz.sh)
#   4. Kokkos 4.6 OpenMP: Kokkos (Serial + OpenMP) built and cached by scripts/install-kokkos.sh, rsmc
#      built against it in build-openmp/ (scripts/build-kokkos4.sh), and the thread-sensitive part of
#      CTest (kokkos_openmp below) with 2 OpenMP threads per process (OMP_NUM_THREADS=2,
#      OMP_PROC_BIND=false, MPI ranks not bound to cores)
#   5. Kokkos 4.6 CUDA, compile and link only: Kokkos (Serial + CUDA, RSMC_KOKKOS_ARCH, default
#      HOPPER90) with the patches for CUDA 13, the rsmc command (engine, models, drivers) built
#      through Kokkos' nvcc_wrapper in build-cuda/, then installed and examples/random_walk built
#      against the install; the GPU kit packed from it (scripts/gpu-kit.sh: the CUDA test executables
#      too, the completeness check) and its gpu-check.sh --dry-run. Nothing runs on a GPU (none
#      here). Skipped, saying so, only when nvcc is absent.
#
#   scripts/test.sh [STAGE...]    STAGE: format regular sanitize fuzz openmp cuda (default: all, in this order)
#
# Stages 4 and 5 need the Kokkos source: RSMC_KOKKOS_SOURCE, by default kokkos-4.6.01.tar.gz in
# RSMC_DEPS_DIR (default ../shared/deps, beside the repository, where CI keeps it); the stage fails
# when there is none. Stage 5's patches: RSMC_KOKKOS_CUDA_PATCHES (':'-separated), by default
# RSMC_DEPS_DIR/kokkos-4.6.01-cuda13.patch when present. The Kokkos installs are cached under
# RSMC_CACHE_DIR (default ~/.cache/rsmc), so only a fresh machine pays for building them.
# The output ends with each stage's time.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
deps=${RSMC_DEPS_DIR:-../shared/deps}
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
    ctest --output-on-failure -j "$jobs" --timeout 900)
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
  # What this stage adds to stage 1 is threads: it builds what the thread-sensitive tests need and
  # runs them (the whole suite under OpenMP does not fit CI's time with stages 1-3 on 2 cores;
  # `scripts/build-kokkos4.sh openmp` and ctest in build-openmp run all of it by hand):
  #   unit/*                     every unit test file (selection, alias/PSA, exact reductions and the
  #                              rest, at 2 threads; some files also at 1 and 3)
  #   mpi/rsmc_mpi_tests@1,3     the MPI cases
  #   cli/thread_invariance      every model, scheme and sampler at 1, 2 and 3 threads on 1 and 3 ranks
  #                              (it also covers what cli/filter_invariance and cli/local_samplers
  #                              check in stage 1, rank invariance, now with threads)
  #   cli/install_and_consume    the installed package finds this Kokkos, not Debian's
  RSMC_CMAKE_ARGS="-DRSMC_TEST_RANKS=1;3 ${RSMC_CMAKE_ARGS:-}" bash scripts/build-kokkos4.sh openmp \
    rsmc rsmc_unit_tests rsmc_mpi_tests h5_datasets_equal
  # Every process gets 2 threads; MPI tests run ranks x 2 threads on the cores, oversubscribed and
  # unbound (Open MPI binds ranks to cores by default). Tests that set their own thread count
  # (--kokkos-num-threads, or OMP_NUM_THREADS in their environment) override these.
  (cd build-openmp && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    OMP_NUM_THREADS=2 OMP_PROC_BIND=false OMPI_MCA_hwloc_base_binding_policy=none \
    ctest --output-on-failure -j "$jobs" --timeout 900 \
      -R "^(unit/|mpi/rsmc_mpi_tests@|cli/(thread_invariance|install_and_consume)$)")
}
kokkos_cuda() {
  if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    echo "test.sh: SKIPPED the Kokkos 4.6 CUDA stage: no nvcc (not on PATH, not in /usr/local/cuda/bin)"
    return 0
  fi
  kokkos_source
  if [ -z "${RSMC_KOKKOS_CUDA_PATCHES+set}" ] && [ -f "$deps/kokkos-4.6.01-cuda13.patch" ]; then
    RSMC_KOKKOS_CUDA_PATCHES=$deps/kokkos-4.6.01-cuda13.patch
  fi
  # The `rsmc` target: the engine, every model, the drivers and benchmarks through nvcc. The test
  # executables are built below, for the GPU kit only (through nvcc each of their files takes about a
  # minute on 2 cores); the rest of tests/ is left to `scripts/build-kokkos4.sh cuda` by hand.
  RSMC_KOKKOS_PATCHES=${RSMC_KOKKOS_CUDA_PATCHES:-} bash scripts/build-kokkos4.sh cuda rsmc
  RSMC_BUILD_DIR=$PWD/build-cuda RSMC_SOURCE_DIR=$PWD RSMC_CXX_COMPILER=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' build-cuda/CMakeCache.txt) \
    bash tests/install/install_and_consume.sh --build-only
  # The GPU kit (docs/gpu.md): packed from build-cuda/ (which builds the CUDA test executables too),
  # its completeness check, and gpu-check.sh --dry-run on the unpacked kit (the host build's rsmc
  # of stage 1, or one scripts/gpu-kit.sh builds, must reproduce every reference file)
  bash scripts/gpu-kit.sh --build-dir build-cuda -o build-cuda/rsmc-gpu-kit.tar.gz
  rm -rf build-cuda/kit && mkdir build-cuda/kit && tar -xzf build-cuda/rsmc-gpu-kit.tar.gz -C build-cuda/kit
  bash build-cuda/kit/rsmc-gpu-kit/gpu-check.sh --dry-run --out build-cuda/kit/dry-run
}
all_stages=(format regular sanitize fuzz openmp cuda)
selected=("$@")
[ ${#selected[@]} -gt 0 ] || selected=("${all_stages[@]}")
for s in "${selected[@]}"; do
  [[ " ${all_stages[*]} " == *" $s "* ]] || { echo "test.sh: unknown stage '$s' (stages: ${all_stages[*]})" >&2; exit 2; }
done
bash scripts/install-deps.sh
for s in "${selected[@]}"; do
  case $s in
    format) stage "0 formatting" bash scripts/format.sh --check ;;
    regular) stage "1 regular build + ctest" regular ;;
    sanitize) stage "2 sanitizer build + ctest subset" bash scripts/sanitize.sh ;;
    fuzz) stage "3 fuzzing" bash scripts/fuzz.sh ;;
    openmp) stage "4 Kokkos 4.6 OpenMP build + ctest" kokkos_openmp ;;
    cuda) stage "5 Kokkos 4.6 CUDA compile" kokkos_cuda ;;
  esac
done
echo "==== test.sh: all stages passed"
printf '  %s\n' "${times[@]}"
