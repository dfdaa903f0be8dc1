#!/usr/bin/env bash
# Runs the resampling benchmark behind docs/performance.md and writes its JSON lines to
# bench/results/resample-<date>.jsonl (one line per configuration; `rsmc bench resample --help`).
#
#   scripts/bench-resample.sh [path/to/rsmc]      default: $RSMC, else build/drivers/rsmc
#
# Environment: OUT (the results file), MPIEXEC (default mpiexec), MPIEXEC_FLAGS (default
# --oversubscribe, Open MPI's spelling; the 4- and 8-rank traffic runs need it on small machines).
# Then: python3 scripts/tables_from_json.py --time-ranks 1,2 --traffic-ranks 2,4,8 <results file>
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rsmc=${1:-${RSMC:-$repo/build/drivers/rsmc}}
if [[ ! -x $rsmc ]]; then
  echo "bench-resample.sh: '$rsmc' is not an executable; build rsmc (scripts/build.sh) or pass its path" >&2
  exit 1
fi
out=${OUT:-$repo/bench/results/resample-$(date +%F).jsonl}
mpiexec=${MPIEXEC:-mpiexec}
read -r -a mpiexec_flags <<< "${MPIEXEC_FLAGS---oversubscribe}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

mkdir -p "$(dirname "$out")"
partial="$out.partial"
: > "$partial"

run() {  # run RANKS ARGS...: one `rsmc bench resample`, its JSON lines appended to the results
  local ranks=$1
  shift
  echo "+ $mpiexec ${mpiexec_flags[*]} -n $ranks rsmc bench resample $*" >&2
  "$mpiexec" "${mpiexec_flags[@]}" -n "$ranks" "$rsmc" bench resample "$@" >> "$partial"
}

# Timings: 1 and 2 ranks, 16-byte states, both schemes, every implementation. The paper's
# Algorithm 1 loops over all N samples on every rank, so at N = 10^7 it runs once.
for ranks in 1 2; do
  run "$ranks" --particles 1e5,1e6 --state-bytes 16 --scheme systematic,multinomial --implementations all --repeats 5
  run "$ranks" --particles 1e7 --state-bytes 16 --scheme systematic,multinomial \
      --implementations roulette,allgather,gather-root --repeats 5
  run "$ranks" --particles 1e7 --state-bytes 16 --scheme systematic,multinomial \
      --implementations roulette-algorithm1 --repeats 1
done

# Traffic: 4 and 8 (oversubscribed) ranks at N = 10^6; the counts are exact, the times are not
# meaningful on fewer cores than ranks. Random weights, then weights skewed along the global ids.
for ranks in 4 8; do
  for weights in random skewed; do
    run "$ranks" --particles 1e6 --state-bytes 16 --scheme systematic,multinomial --implementations all \
        --weights "$weights" --repeats 1
  done
done

mv "$partial" "$out"
echo "wrote $out ($(wc -l < "$out") lines)" >&2
