#!/usr/bin/env bash
# Third call (2026-11-27): the butterfly CUDA test after its fix (boundary points inside [0, total)),
# with the kit's libraries.
set -u
cd "$(dirname "$0")"
tar -xzf rsmc-gpu-kit.tar.gz
kit=$PWD/rsmc-gpu-kit
LD_LIBRARY_PATH=$kit/lib timeout 120 ./rsmc_cuda_butterfly_tests > "$OUT/rsmc_cuda_butterfly_tests.txt" 2>&1
rc=$?
grep -v '^ok' "$OUT/rsmc_cuda_butterfly_tests.txt" | tail -n 20
echo "butterfly-call: rsmc_cuda_butterfly_tests exit $rc"
exit $rc
