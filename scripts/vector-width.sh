#!/usr/bin/env bash
# scripts/vector-width.sh: results do not depend on the vector width or instruction set. Compares
# with the baseline x86-64 build, byte for byte (scripts/compare-outputs.sh), one build per level:
#   baseline   BASELINE_RSMC (default build/drivers/rsmc: test.sh's stage 2, RSMC_TARGET_ARCH=x86-64),
#              the reference, on 1 rank
#   native     NATIVE_RSMC (default build-openmp/drivers/rsmc: stage 1, RSMC_TARGET_ARCH=native)
#   x86-64-v3  AVX2, FMA (never contracted: -ffp-contract=off), BMI2
#   x86-64-v4  AVX-512
# The native build is built for this CPU, so it stands in for the highest level this CPU has (x86-64-v4
# on an AVX-512 CPU, else x86-64-v3): only the other level is built, the `rsmc` target against the
# Kokkos 4.6 OpenMP install of scripts/build-kokkos4.sh openmp, in build-arch-<level>/
# (RSMC_TARGET_ARCH=<level>), and only when this CPU can run it: a binary that cannot run here checks
# nothing but compilation, which stage 1's native build and stage 2's baseline build already do, and
# it cost CI a whole `rsmc` build (961 s behind stage 1, 2026-11-26). ALL_LEVELS=1 builds both levels
# anyway, a level this CPU lacks included.
# each on 1 and 3 ranks, 1 OpenMP thread, for stochastic_volatility, linear_gaussian, lorenz96 and
# sir_epidemic x 4 resampling schemes (scripts/filter-runs.sh's quick set; 997 particles, 12 steps:
# a bitwise check, not statistics). A level whose instructions this CPU lacks (/proc/cpuinfo) is
# skipped, saying so (built first under ALL_LEVELS=1); it is never counted as compared.
# Fails when any run differs or fails, or when BASELINE_RSMC's build is not a baseline one.
#
#   scripts/vector-width.sh [--build-only] [BASELINE_RSMC [NATIVE_RSMC]]
#   --build-only   builds the levels and compares nothing (scripts/test.sh builds ahead of its stages)
#
# Kokkos: as scripts/build-kokkos4.sh (RSMC_KOKKOS_ROOT, or RSMC_KOKKOS_SOURCE for its cached
# install). H5_DATASETS_EQUAL: the comparison tool (default build/tests/h5_datasets_equal).
set -euo pipefail
cd "$(dirname "$0")/.."
build_only=false
if [ "${1:-}" = --build-only ]; then build_only=true; shift; fi
baseline=${1:-build/drivers/rsmc}
native=${2:-build-openmp/drivers/rsmc}
eq=${H5_DATASETS_EQUAL:-build/tests/h5_datasets_equal}
models=(stochastic_volatility linear_gaussian lorenz96 sir_epidemic)
levels=(x86-64-v3 x86-64-v4)
# The /proc/cpuinfo flags each level needs (GCC's -march=x86-64-v3 and -v4 instruction sets).
declare -A level_cpu_flags=(
  [x86-64-v3]="avx avx2 bmi1 bmi2 f16c fma abm movbe"
  [x86-64-v4]="avx512f avx512bw avx512cd avx512dq avx512vl")
die() { echo "vector-width: $*" >&2; exit 2; }

# cache_value BUILD_DIR NAME: a CMake cache entry of the build BUILD_DIR (empty when unset)
cache_value() { sed -n "s/^$2:[A-Z]*=//p" "$1/CMakeCache.txt" 2>/dev/null; }
# missing_cpu_flags LEVEL: the instructions of LEVEL that this CPU lacks (empty: it runs LEVEL)
missing_cpu_flags() {
  local cpu f missing=()
  cpu=" $(awk -F ': ' '$1 ~ /^flags/ { print $2; exit }' /proc/cpuinfo) "
  for f in ${level_cpu_flags[$1]}; do [[ $cpu == *" $f "* ]] || missing+=("$f"); done
  echo "${missing[*]}"
}

compared_files=("$baseline" "$native" "$eq")
$build_only && compared_files=("$native")  # whose build says what native stands for
for f in "${compared_files[@]}"; do [ -x "$f" ] || die "$f is missing: build it first (scripts/test.sh openmp serial)"; done
if ! $build_only; then
  baseline_arch=$(cache_value "$(dirname "$baseline")/.." RSMC_TARGET_ARCH)
  case $baseline_arch in
    x86-64 | none | "") ;;
    *) die "$baseline is built for RSMC_TARGET_ARCH=$baseline_arch, not the baseline x86-64: nothing would be compared with it" ;;
  esac
fi
# What native means here, for the log (the whole output first: no pipe that a reader may close early)
target_help=$(${CXX:-c++} -march=native -Q --help=target 2>/dev/null || true)
native_march=$(awk '$1 == "-march=" { print $2 }' <<<"$target_help")
# The level the native build stands in for: the highest one whose instructions this CPU has.
native_level=""
if [ "$(cache_value "$(dirname "$native")/.." RSMC_TARGET_ARCH)" = native ]; then
  for level in "${levels[@]}"; do [ -n "$(missing_cpu_flags "$level")" ] || native_level=$level; done
fi
skipped=()
variants=("native ($(cache_value "$(dirname "$native")/.." RSMC_TARGET_ARCH), ${native_march:-?} here${native_level:+, the $native_level build})|$native")
for level in "${levels[@]}"; do
  if [ "$level" = "$native_level" ] && [ "${ALL_LEVELS:-0}" != 1 ]; then
    echo "vector-width: $level not built again: the native build runs this CPU's $level instructions"
    continue
  fi
  lacks=$(missing_cpu_flags "$level")
  if [ -n "$lacks" ] && [ "${ALL_LEVELS:-0}" != 1 ]; then
    $build_only || echo "vector-width: $level not built, runs SKIPPED: this CPU lacks $lacks (/proc/cpuinfo; ALL_LEVELS=1 builds it)"
    $build_only || skipped+=("$level")
    continue
  fi
  RSMC_BUILD_DIR=build-arch-$level RSMC_CMAKE_ARGS="${RSMC_CMAKE_ARGS:-} -DRSMC_TARGET_ARCH=$level -DRSMC_BUILD_TESTS=OFF" \
    bash scripts/build-kokkos4.sh openmp rsmc
  variants+=("$level|build-arch-$level/drivers/rsmc")
done
$build_only && exit 0

compared=() failed=()
for v in "${variants[@]}"; do
  name=${v%%|*} bin=${v#*|} lacks=""
  [ -z "${level_cpu_flags[$name]+set}" ] || lacks=$(missing_cpu_flags "$name")
  if [ -n "$lacks" ]; then
    echo "vector-width: $name built, runs SKIPPED: this CPU lacks $lacks (/proc/cpuinfo)"
    skipped+=("$name")
    continue
  fi
  echo "vector-width: $name against the baseline x86-64 build ($baseline)"
  if OMP_NUM_THREADS=1 OMP_PROC_BIND=false OMPI_MCA_hwloc_base_binding_policy=none RANKS="1 3" QUICK=1 \
    MODELS="${models[*]}" bash scripts/compare-outputs.sh "$bin" "$baseline" "$eq"; then
    compared+=("$name")
  else
    failed+=("$name")
  fi
done
echo "vector-width: identical to the baseline x86-64: ${compared[*]:-none}; skipped (CPU): ${skipped[*]:-none}; different or failed: ${failed[*]:-none}"
[ ${#failed[@]} -eq 0 ]
