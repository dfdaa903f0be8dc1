#!/usr/bin/env bash
# Configures and builds rsmc in ./build (Release; RSMC_BUILD_DIR: another directory). `--target
# NAME` (repeatable) builds only those targets, e.g. `scripts/build.sh --target rsmc` for the command
# line and the libraries it links (what the demo needs, and all that `cmake --install` copies);
# other arguments go to CMake, e.g.
#   scripts/build.sh -DRSMC_ENABLE_CUDA=OFF      or      scripts/build.sh -DKokkos_DIR=/opt/kokkos/lib/cmake/Kokkos
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
targets=()
cmake_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --target)
      targets+=(--target "$2")
      shift 2
      ;;
    *)
      cmake_args+=("$1")
      shift
      ;;
  esac
done
build=${RSMC_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "${cmake_args[@]}"
cmake --build "$build" -j "$jobs" "${targets[@]}"
