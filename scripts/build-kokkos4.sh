#!/usr/bin/env bash
# Builds rsmc against a Kokkos 4 install of one backend set, in ./build-<backend> (Release):
#   openmp  Kokkos Serial + OpenMP, the host compiler; build-openmp/ runs the whole CTest suite
#   cuda    Kokkos Serial + CUDA, every C++ file through Kokkos' nvcc_wrapper (and rsmc's own CUDA
#           kernels, RSMC_ENABLE_CUDA); build-cuda/ compiles and links, nothing of it runs without a GPU.
#           Its host code is for baseline x86-64 (RSMC_TARGET_ARCH=x86-64): the GPU kit packs it for
#           a machine whose CPU is unknown (scripts/gpu-kit.sh refuses -march=native). The openmp
#           build keeps rsmc's default, the building machine's own (native).
#
#   scripts/build-kokkos4.sh openmp|cuda [TARGET...]      (default: every target)
#
# Kokkos: RSMC_KOKKOS_ROOT, an existing install of that backend set (its prefix, as for Kokkos_ROOT);
# otherwise scripts/install-kokkos.sh builds one (cached: free after the first time) from
#   RSMC_KOKKOS_SOURCE   a Kokkos source tarball or directory (required then)
#   RSMC_KOKKOS_PATCHES  patch files for that source, separated by ':' (e.g. Kokkos 4.6's CUDA 13 patch)
#   RSMC_KOKKOS_ARCH     cuda: the Kokkos GPU architecture (install-kokkos.sh's default: HOPPER90)
# RSMC_CMAKE_ARGS: extra CMake options (whitespace-separated), e.g. -DRSMC_TEST_RANKS="1;2;3"; they
# come last, so -DRSMC_TARGET_ARCH=native makes a cuda build for this machine's CPU.
# RSMC_BUILD_DIR: the build directory (default build-<backend>), e.g. for one -march variant of the
# openmp build (scripts/vector-width.sh).
# ccache is used when installed; for the cuda build in its depend mode (the object's key comes from
# the headers nvcc read, not from a preprocessed host text that hides device-only code).
# The Kokkos prefix and the build's compiler are printed; the build directory keeps them (changing
# the Kokkos of an existing build-<backend> is refused by CMake's cache: remove the directory).
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "build-kokkos4: $*" >&2; exit 2; }
backend=${1:-}
case $backend in
  openmp|cuda) shift ;;
  *) die "usage: scripts/build-kokkos4.sh openmp|cuda [TARGET...] (see the comment at its top)" ;;
esac

kokkos_prefix() {
  if [ -n "${RSMC_KOKKOS_ROOT:-}" ]; then
    [ -f "$RSMC_KOKKOS_ROOT/lib/cmake/Kokkos/KokkosConfig.cmake" ] || [ -f "$RSMC_KOKKOS_ROOT/lib64/cmake/Kokkos/KokkosConfig.cmake" ] ||
      die "RSMC_KOKKOS_ROOT='$RSMC_KOKKOS_ROOT' holds no lib/cmake/Kokkos/KokkosConfig.cmake"
    echo "$RSMC_KOKKOS_ROOT"
    return
  fi
  [ -n "${RSMC_KOKKOS_SOURCE:-}" ] ||
    die "no Kokkos: set RSMC_KOKKOS_SOURCE (a Kokkos 4 source tarball or directory) or RSMC_KOKKOS_ROOT (an install)"
  local args=("$backend" "$RSMC_KOKKOS_SOURCE") patch patches
  IFS=: read -r -a patches <<<"${RSMC_KOKKOS_PATCHES:-}"
  for patch in ${patches[@]+"${patches[@]}"}; do args+=(--patch "$patch"); done
  [ "$backend" = openmp ] || [ -z "${RSMC_KOKKOS_ARCH:-}" ] || args+=(--arch "$RSMC_KOKKOS_ARCH")
  bash scripts/install-kokkos.sh "${args[@]}" | tail -n 1
}

prefix=$(kokkos_prefix)
[ -n "$prefix" ] || die "scripts/install-kokkos.sh gave no prefix"
build=${RSMC_BUILD_DIR:-build-$backend}
options=(-DCMAKE_BUILD_TYPE=Release "-DKokkos_ROOT=$prefix")
launcher=ccache
if [ "$backend" = cuda ]; then
  wrapper=$prefix/bin/nvcc_wrapper
  [ -x "$wrapper" ] || die "$prefix has no bin/nvcc_wrapper: not a Kokkos built for CUDA by nvcc"
  options+=("-DCMAKE_CXX_COMPILER=$wrapper" -DRSMC_ENABLE_CUDA=ON -DRSMC_TARGET_ARCH=x86-64)
  launcher="env;CCACHE_DEPEND=1;ccache"
else
  options+=(-DRSMC_ENABLE_CUDA=OFF)  # rsmc's own CUDA kernels: built by the cuda build
fi
if command -v ccache >/dev/null; then
  options+=("-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher" "-DCMAKE_CUDA_COMPILER_LAUNCHER=$launcher")
fi
read -r -a extra <<<"${RSMC_CMAKE_ARGS:-}"
echo "build-kokkos4: $build against Kokkos in $prefix"
mkdir -p "$build"
cmake -S . -B "$build" "${options[@]}" ${extra[@]+"${extra[@]}"} >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; die "configuring $build failed"; }
grep "rsmc: Kokkos\|rsmc: host code" "$build/configure.log" || true
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" ${targets[@]+"${targets[@]}"}
