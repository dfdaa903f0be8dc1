#!/usr/bin/env bash
# The GPU benchmarks: builds rsmc with CUDA in build-gpu/ (RSMC_ENABLE_CUDA=ON; pass -DKokkos_DIR=... for
# a Kokkos built with CUDA, so that the filter itself runs on the device) and runs, on one GPU,
#   rsmc bench kernels   the local sampling kernels (construction, sampling) against a memcpy;
#   rsmc bench e2e       whole filter runs (the hand-written CPU filter is skipped when the model lives
#                        in device memory; the JSON says so);
# writing bench/results/gpu-<date>-<device>.jsonl with a first line naming the date, the device
# (nvidia-smi) and the Kokkos backend. Compare with docs/performance.md (section GPU): the alias
# construction and sampling figures of Lehmann, Huebschle-Schneider & Sanders, "Weighted random
# sampling on GPUs" (2021, Tables 2 and 3) and the memory-bandwidth floor.
#
#   scripts/gpu-bench.sh [extra CMake arguments]
#
# Environment: OUT (the results file), SIZES (kernel sizes, default 1e5,1e6,1e7,1e8), E2E_PARTICLES
# (default 1e5,1e6,1e7). Fails with a clear message where there is no GPU or no nvcc.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if ! command -v nvidia-smi > /dev/null || ! nvidia-smi -L > /dev/null 2>&1; then
  echo "gpu-bench.sh: no NVIDIA GPU here (nvidia-smi is missing or lists no device); run it on a GPU machine" >&2
  exit 1
fi
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [[ ! -x $nvcc ]]; then
  echo "gpu-bench.sh: no nvcc (CUDA toolkit) found; install it or put it on PATH" >&2
  exit 1
fi
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
slug=$(echo "$device" | tr -c 'A-Za-z0-9\n' '-' | tr -s '-' | sed 's/-$//')
date=$(date +%F)
out=${OUT:-$repo/bench/results/gpu-$date-$slug.jsonl}
build=$repo/build-gpu
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DRSMC_ENABLE_CUDA=ON -DRSMC_BUILD_TESTS=OFF \
  -DCMAKE_CUDA_COMPILER="$nvcc" "$@"
cmake --build "$build" -j "$(nproc)" --target rsmc
rsmc=$build/drivers/rsmc
backend=$(grep -E '^Kokkos_ENABLE_CUDA:' "$build/CMakeCache.txt" 2> /dev/null | cut -d= -f2 || true)

mkdir -p "$(dirname "$out")"
partial="$out.partial"
python3 - "$device" "$date" "${backend:-unknown}" > "$partial" <<'PY'
import json, subprocess, sys
smi = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version,clocks.max.memory",
                      "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
print(json.dumps({"bench": "gpu-device", "device": sys.argv[1], "date": sys.argv[2],
                  "kokkos_cuda": sys.argv[3], "nvidia_smi": smi}))
PY
echo "+ rsmc bench kernels" >&2
mpiexec -n 1 "$rsmc" bench kernels --sizes "${SIZES:-1e5,1e6,1e7,1e8}" --weights uniform,power-law --kernels all \
  --repeats 5 >> "$partial"
echo "+ rsmc bench e2e" >&2
mpiexec -n 1 "$rsmc" bench e2e --models linear_gaussian,stochastic_volatility,lorenz96-40,lorenz96-400 \
  --particles "${E2E_PARTICLES:-1e5,1e6,1e7}" --steps 10 --repeats 3 --max-work 1e11 >> "$partial"
mv "$partial" "$out"
echo "wrote $out ($(wc -l < "$out") lines); commit it with the date and device in its name" >&2
