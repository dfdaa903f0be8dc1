#!/usr/bin/env bash
# The whole test suite: install what is missing, build (with CUDA when nvcc is present), run CTest.
# Unit, MPI (1-5 ranks, oversubscribed), command-line and CUDA tests; CUDA tests report "skipped"
# when there is no GPU. The output ends with CTest's summary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd build
ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)" --timeout 900
