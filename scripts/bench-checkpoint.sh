#!/usr/bin/env bash
# Runs the checkpoint benchmark behind docs/performance.md and writes its JSON lines to
# bench/results/checkpoint-<date>.jsonl (one line per (N, doubles, phase, ranks);
# `rsmc bench checkpoint --help`).
#
#   scripts/bench-checkpoint.sh [path/to/rsmc]      default: $RSMC, else build/drivers/rsmc
#
# Environment: OUT (the results file), DIR (where the files go; default a temporary directory on the
# file system of /tmp), PARTICLES (default 1e7), RANKS (default "1 2"), MPIEXEC (default mpiexec).
# N = 10^7 with 64 doubles writes 5.2 GB per file and needs about 16 GB of memory.
# Then: python3 scripts/tables_from_json.py --replace-in docs/performance.md <results file>
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rsmc=${1:-${RSMC:-$repo/build/drivers/rsmc}}
if [[ ! -x $rsmc ]]; then
  echo "bench-checkpoint.sh: '$rsmc' is not an executable; build rsmc (scripts/build.sh) or pass its path" >&2
  exit 1
fi
out=${OUT:-$repo/bench/results/checkpoint-$(date +%F).jsonl}
dir=${DIR:-$(mktemp -d)}
mpiexec=${MPIEXEC:-mpiexec}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

mkdir -p "$(dirname "$out")" "$dir"
partial="$out.partial"
: > "$partial"
for ranks in ${RANKS:-1 2}; do
  echo "+ $mpiexec -n $ranks rsmc bench checkpoint --particles ${PARTICLES:-1e7} --doubles 8,64" >&2
  "$mpiexec" --oversubscribe -n "$ranks" "$rsmc" bench checkpoint --particles "${PARTICLES:-1e7}" --doubles 8,64 \
      --repeats 3 --dir "$dir" >> "$partial"
done
mv "$partial" "$out"
echo "wrote $out" >&2
