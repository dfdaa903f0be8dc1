#!/usr/bin/env bash
# Configures and builds rsmc in ./build (Release). Extra arguments go to CMake, e.g.
#   scripts/build.sh -DRSMC_ENABLE_CUDA=OFF      or      scripts/build.sh -DKokkos_DIR=/opt/kokkos/lib/cmake/Kokkos
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j "$jobs"
