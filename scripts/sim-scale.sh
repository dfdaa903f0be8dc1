#!/usr/bin/env bash
# Runs the scale simulation behind docs/sim-scale.md and writes its JSON lines to
# bench/results/sim-scale-<date>.jsonl, then regenerates the tables of docs/sim-scale.md from them.
#
#   scripts/sim-scale.sh [path/to/rsmc]      default: $RSMC, else build/drivers/rsmc
#
# The sweep: p = 1, 4, 16, ..., 65536 ranks at N = 10^6, 10^8, 10^10 particles, for the systematic,
# stratified and multinomial schemes (seed 1, weight cv 1, 8-byte states); then seeds 2..8 at
# N = 10^10, p = 256 and 65536 (systematic) for the seed-to-seed spread. `rsmc sim-scale` needs no
# MPI job: it is one process simulating p ranks (O(p) per point, well under a second each).
# Environment: OUT (the results file), DOC (the Markdown file to update, default docs/sim-scale.md;
# DOC= skips the update).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rsmc=${1:-${RSMC:-$repo/build/drivers/rsmc}}
if [[ ! -x $rsmc ]]; then
  echo "sim-scale.sh: '$rsmc' is not an executable; build rsmc (scripts/build.sh) or pass its path" >&2
  exit 1
fi
out=${OUT:-$repo/bench/results/sim-scale-$(date +%F).jsonl}
doc=${DOC-$repo/docs/sim-scale.md}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # rsmc initialises MPI (singleton)

ranks=1,4,16,64,256,1024,4096,16384,65536
particles=1e6,1e8,1e10

mkdir -p "$(dirname "$out")"
partial="$out.partial"
: > "$partial"

run() {  # run ARGS...: one `rsmc sim-scale`, its JSON lines appended to the results
  echo "+ rsmc sim-scale $*" >&2
  "$rsmc" sim-scale "$@" >> "$partial"
}

for scheme in systematic stratified multinomial; do
  run --scheme "$scheme" --ranks "$ranks" --particles "$particles" --weight-cv 1 --state-bytes 8 --seed 1
done
for seed in 2 3 4 5 6 7 8; do
  run --scheme systematic --ranks 256,65536 --particles 1e10 --weight-cv 1 --state-bytes 8 --seed "$seed"
done

mv "$partial" "$out"
echo "wrote $out ($(wc -l < "$out") lines)" >&2
if [[ -n $doc ]]; then
  cd "$repo"
  for page in "$doc" docs/performance.md; do
    python3 scripts/sim_scale_table.py "$(realpath --relative-to="$repo" "$out")" --update "$page"
    echo "updated the tables of $page" >&2
  done
fi
