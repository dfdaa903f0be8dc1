#!/usr/bin/env bash
# The demo: install what is missing, build the `rsmc` command only (not the tests and tools), and
# filter the default model (2-D linear Gaussian, 10^4 particles, 50 simulated steps, seed 1) on 2
# ranks. Prints the particle filter's log-likelihood estimate beside the exact Kalman filter value,
# writes demo.h5, and plots it to demo.png (filtered mean +- 2 sd against the simulated truth, ESS,
# log-likelihood; tools/plot.py). Its build (./build, RSMC_BUILD_DIR: another directory) installs:
# `cmake --install build --prefix P` (docs/building.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh --target rsmc
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpiexec -n 2 --oversubscribe "${RSMC_BUILD_DIR:-build}/drivers/rsmc" filter --output demo.h5 --overwrite
python=/usr/bin/python3  # Debian's, with python3-h5py and python3-matplotlib
[ -x "$python" ] || python=python3
echo "plot: $("$python" tools/plot.py demo.h5 -o demo.png)"
