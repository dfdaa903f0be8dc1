#!/usr/bin/env bash
# Runs the local-kernel benchmark behind docs/performance.md and writes its JSON lines to
# bench/results/kernels-<date>.jsonl (one line per (n, weights, kernel, phase); `rsmc bench kernels --help`).
#
#   scripts/bench-kernels.sh [path/to/rsmc]      default: $RSMC, else build/drivers/rsmc
#
# Environment: OUT (the results file), MPIEXEC (default mpiexec), LARGE (default 1e8: the size run after
# 10^3..10^7, with 10^7 samples and 3 repeats; about 12 GiB of memory and a few minutes; empty: none),
# MAX_TABLE_GIB (default 8: kernels whose structure is larger are reported as skipped; the butterfly
# table at 10^8 takes 24 GiB), THREADS (default 1: the thread counts of the Kokkos alias kernels, a comma
# list; with a Kokkos 4 OpenMP build e.g. THREADS=1,2 and OMP_NUM_THREADS=2), NICE (default empty: a
# command prefix for the runs, e.g. "nice -n -5").
# Then: python3 scripts/tables_from_json.py --replace-in docs/performance.md <results file>
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rsmc=${1:-${RSMC:-$repo/build/drivers/rsmc}}
if [[ ! -x $rsmc ]]; then
  echo "bench-kernels.sh: '$rsmc' is not an executable; build rsmc (scripts/build.sh) or pass its path" >&2
  exit 1
fi
out=${OUT:-$repo/bench/results/kernels-$(date +%F).jsonl}
mpiexec=${MPIEXEC:-mpiexec}
# Open MPI binds a single rank to one core; the threaded alias kernels need all of them.
bind=()
mpiexec_version=$("$mpiexec" --version 2>/dev/null || true)
if [[ $mpiexec_version == *"Open MPI"* || $mpiexec_version == *OpenRTE* ]]; then bind=(--bind-to none); fi
large=${LARGE-1e8}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

mkdir -p "$(dirname "$out")"
partial="$out.partial"
: > "$partial"

run() {  # run ARGS...: one single-rank `rsmc bench kernels`, its JSON lines appended to the results
  echo "+ $mpiexec -n 1 rsmc bench kernels $*" >&2
  # shellcheck disable=SC2086  # NICE is a word list on purpose
  ${NICE:-} "$mpiexec" "${bind[@]}" -n 1 "$rsmc" bench kernels --weights uniform,power-law --kernels all \
      --max-table-gib "${MAX_TABLE_GIB:-8}" --threads "${THREADS:-1}" "$@" >> "$partial"
}

# n = 10^3 .. 10^7 with n samples each (--samples n), 5 repeats; then LARGE with 10^7 samples, 3 repeats.
run --sizes 1e3,1e4,1e5,1e6,1e7 --repeats 5
if [[ -n $large ]]; then
  run --sizes "$large" --repeats 3
fi

mv "$partial" "$out"
echo "wrote $out ($(wc -l < "$out") lines)" >&2
