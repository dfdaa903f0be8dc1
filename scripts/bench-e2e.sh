#!/usr/bin/env bash
# Runs the benchmarks of the performance targets (docs/performance.md) in one go and writes all their
# JSON lines to bench/results/e2e-<date>.jsonl:
#   rsmc bench e2e       rsmc vs the reference and the scalar filter (ns per particle-step, ratios, Welch t),
#                        1 rank (phase profile) and 2 ranks (speed-up over 1 rank, measured in the same run)
#   thread sweep         with RSMC_OPENMP (an rsmc built against Kokkos 4 OpenMP): rsmc bench e2e at 1 and
#                        2 threads (OMP_NUM_THREADS), lines tagged "build":"openmp"
#   rsmc bench resample  systematic / search at N = 10^7 against a memcpy, 1 and 2 ranks
#   rsmc bench memory    peak resident bytes per particle, a fresh process per (model, N, implementation)
#   bench/peer/particles_sv.py   rsmc, reference and scalar vs the Python library `particles` on the same
#                        data (Welch t of the log-likelihoods; skipped line if not importable)
#
#   scripts/bench-e2e.sh [path/to/rsmc]      default: $RSMC, else build/drivers/rsmc
#
# Environment: OUT (the results file), MPIEXEC (default mpiexec), PYTHON (the interpreter with
# `particles`, default python3), QUICK=1 (tiny sizes: a smoke run of the script itself), BEFORE (an
# older rsmc build: its e2e and resampling runs at the largest small size are added, tagged "before"),
# RSMC_OPENMP (an rsmc built against Kokkos 4 OpenMP, for the thread sweep; without it the sweep is a
# skipped line).
# Then: python3 scripts/tables_from_json.py --replace-in docs/performance.md --section e2e <results file>
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rsmc=${1:-${RSMC:-$repo/build/drivers/rsmc}}
if [[ ! -x $rsmc ]]; then
  echo "bench-e2e.sh: '$rsmc' is not an executable; build rsmc (scripts/build.sh) or pass its path" >&2
  exit 1
fi
out=${OUT:-$repo/bench/results/e2e-$(date +%F).jsonl}
mpiexec=${MPIEXEC:-mpiexec}
python=${PYTHON:-python3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
models=linear_gaussian,stochastic_volatility,lorenz96-40,lorenz96-400
if [[ ${QUICK:-0} == 1 ]]; then
  small=1e3,1e4 large=2e4 mem_sizes="1e4" peer_sizes=1000 peer_large=2000 peer_repeats=3 steps=3 work=1e8
  sweep_n=1e4
else
  small=1e5,1e6 large=1e7 mem_sizes="1e5 1e6 1e7" peer_sizes=100000,1000000 peer_large=10000000 peer_repeats=10
  steps=5 work=1e9 sweep_n=1e6
fi

mkdir -p "$(dirname "$out")"
partial="$out.partial"
: > "$partial"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mpi() {  # mpi RANKS ARGS...: one rsmc command, its JSON lines appended to the results
  local ranks=$1
  shift
  echo "+ $mpiexec --oversubscribe -n $ranks rsmc $*" >&2
  "$mpiexec" --oversubscribe -n "$ranks" "$rsmc" "$@" >> "$partial"
}

# End to end: N up to 10^6 with 3 repeats, 10^7 once; --max-work skips what exceeds the time budget.
for ranks in 1 2; do
  mpi "$ranks" bench e2e --models "$models" --particles "$small" --steps "$steps" --repeats 3 --max-work "$work"
  mpi "$ranks" bench e2e --models "$models" --particles "$large" --steps "$steps" --repeats 2 --max-work "$work"
done

# Resampling at the target size against a memcpy of the same bytes.
for ranks in 1 2; do
  mpi "$ranks" bench resample --particles "$large" --state-bytes 16 --scheme systematic --implementations roulette \
    --repeats 5
done

# Peak memory: a fresh process per size (VmHWM only grows).
for model in ${models//,/ }; do
  for n in $mem_sizes; do
    for impl in framework reference scalar; do
      mpi 1 bench memory --model "$model" --particles "$n" --steps 2 --implementation "$impl"
    done
  done
done

# Thread sweep (issue 14): the Kokkos OpenMP build on 1 rank at 1 and 2 threads.
if [[ -z ${RSMC_OPENMP:-} || ! -x ${RSMC_OPENMP:-} ]]; then
  echo "{\"bench\":\"e2e\",\"build\":\"openmp\",\"model\":\"stochastic_volatility\",\"particles\":0,\"ranks\":1,\"skipped\":true,\"reason\":\"RSMC_OPENMP is not an rsmc built against Kokkos 4 OpenMP: no thread sweep\"}" >> "$partial"
else
  for threads in 1 2; do
    echo "+ OMP_NUM_THREADS=$threads $RSMC_OPENMP bench e2e (thread sweep)" >&2
    # Open MPI binds a lone rank to one core, where 2 threads would share it: no binding here
    OMP_NUM_THREADS=$threads OMP_PROC_BIND=false OMPI_MCA_hwloc_base_binding_policy=none \
      "$mpiexec" --oversubscribe -n 1 "$RSMC_OPENMP" bench e2e \
      --models linear_gaussian,stochastic_volatility --particles "$sweep_n" --steps "$steps" --repeats 3 \
      --implementations rsmc | sed 's/^{/{"build":"openmp",/' >> "$partial"
  done
fi

# The peer: the same stochastic volatility data for rsmc, the reference, the scalar filter and
# `particles`; N = 10^7 with 3 repeats (a `particles` run takes about a minute there).
"$mpiexec" -n 1 "$rsmc" simulate --model stochastic_volatility --steps 100 --seed 7 --output "$tmp/sv.csv" > /dev/null
echo "+ bench/peer/particles_sv.py --particles $peer_sizes, $peer_large" >&2
"$python" "$repo/bench/peer/particles_sv.py" --rsmc "$rsmc" --data "$tmp/sv.csv" --particles "$peer_sizes" \
  --repeats "$peer_repeats" --mpiexec "$mpiexec --oversubscribe" >> "$partial"
"$python" "$repo/bench/peer/particles_sv.py" --rsmc "$rsmc" --data "$tmp/sv.csv" --particles "$peer_large" \
  --repeats 3 --mpiexec "$mpiexec --oversubscribe" >> "$partial"

# Before/after: the same e2e and resampling runs with an older build (BEFORE=path/to/old/rsmc), its
# lines tagged "build":"before", so an optimisation's effect is measured in the same session.
if [[ -n ${BEFORE:-} && ! -x $BEFORE ]]; then
  echo "{\"bench\":\"e2e\",\"build\":\"before\",\"skipped\":true,\"reason\":\"BEFORE=$BEFORE is not an executable\"}" >> "$partial"
elif [[ -n ${BEFORE:-} ]]; then
  echo "+ BEFORE=$BEFORE: e2e and resample with the older build" >&2
  "$mpiexec" -n 1 "$BEFORE" bench e2e --models linear_gaussian,stochastic_volatility --particles "${small##*,}" \
    --steps "$steps" --repeats 3 | sed 's/^{/{"build":"before",/' >> "$partial"
  "$mpiexec" -n 1 "$BEFORE" bench resample --particles "$large" --state-bytes 16 --scheme systematic \
    --implementations roulette --repeats 5 | sed 's/^{/{"build":"before",/' >> "$partial"
fi

mv "$partial" "$out"
echo "wrote $out ($(wc -l < "$out") lines)" >&2
