#!/usr/bin/env bash
# The demo: install what is missing, build, and filter the default model (2-D linear Gaussian,
# 10^4 particles, 50 simulated steps, seed 1) on 2 ranks. Prints the particle filter's
# log-likelihood estimate beside the exact Kalman filter value, and writes demo.h5.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpiexec -n 2 --oversubscribe build/drivers/rsmc filter --output demo.h5 --overwrite
