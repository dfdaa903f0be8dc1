#!/usr/bin/env bash
# Speed of rsmc::math against libm (ns per call, one thread) at several -march levels; JSON lines
# to bench/results/math-<date>.jsonl and a table on stdout (the numbers in docs/math.md).
#
#   scripts/bench-math.sh [N] [REPEATS]      N calls per function (default 1e7), median of REPEATS (5)
#
# Environment: CXX (default g++), MARCHES (default "native x86-64-v3 x86-64"), OUT (results file).
# Each -march builds bench/math_bench.cpp with the flags rsmc's kernels use (-O3 -ffp-contract=off
# -fno-trapping-math -fno-math-errno). The libm loop is timed in the same run as the rsmc loop.
# An -march the CPU cannot run (e.g. x86-64-v4 without AVX-512) is built and reported as skipped.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=${1:-1e7}
repeats=${2:-5}
cxx=${CXX:-g++}
marches=${MARCHES:-native x86-64-v3 x86-64}
out=${OUT:-$repo/bench/results/math-$(date +%F).jsonl}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$out")"
: > "$out"

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg); $("$cxx" --version | head -1)" >&2
for march in $marches; do
  exe=$work/math_bench_$march
  "$cxx" -std=c++17 -O3 -march="$march" -ffp-contract=off -fno-trapping-math -fno-math-errno \
      -DRSMC_MATH_BENCH_MARCH="\"$march\"" -I"$repo" "$repo/bench/math_bench.cpp" -o "$exe"
  if ! "$exe" 1 1 > /dev/null 2>&1; then
    echo "march $march: built, not run (this CPU cannot execute it)" >&2
    continue
  fi
  "$exe" "$n" "$repeats" | tee -a "$out" > /dev/null
done
python3 - "$out" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print(f"{'march':11} {'data':9} {'function':16} {'rsmc ns':>8} {'libm ns':>8} {'libm/rsmc':>9}")
for r in rows:
    print(f"{r['march']:11} {r['data']:9} {r['function']:16} {r['rsmc_ns_per_call']:8.2f} "
          f"{r['libm_ns_per_call']:8.2f} {r['libm_to_rsmc_ratio']:9.2f}")
PY
echo "results: $out" >&2
