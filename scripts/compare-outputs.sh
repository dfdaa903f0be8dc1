#!/usr/bin/env bash
# scripts/compare-outputs.sh NEW_RSMC REF_RSMC H5_DATASETS_EQUAL
# The check that a change kept every result bitwise: runs `rsmc filter` for every shipped model x
# scheme x p-invariant local sampler with both binaries (REF on 1 rank, NEW on each of RANKS) and
# compares the result files' datasets byte for byte (h5_datasets_equal from a build's tests/;
# /resampling_traffic, which depends on the rank count, is left out).
#   RANKS="1 2 3 4" (default)   rank counts of NEW
#   QUICK=1                     3 models x 4 schemes x the search sampler only
#   MODELS="m1 m2 ..."          only these models (of scripts/filter-runs.sh's run table)
# Example, against the build of an earlier commit:
#   scripts/compare-outputs.sh build/drivers/rsmc ../old/build/drivers/rsmc build/tests/h5_datasets_equal
set -uo pipefail
[ $# -eq 3 ] || { echo "usage: scripts/compare-outputs.sh NEW_RSMC REF_RSMC H5_DATASETS_EQUAL" >&2; exit 2; }
new=$1; ref=$2; eq=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d /tmp/cmp.XXXXXX)
ranks=${RANKS:-"1 2 3 4"}
fails=0; runs=0
run() { # run BIN P OUT ARGS...
  local bin=$1 p=$2 out=$3; shift 3
  mpiexec -n "$p" --oversubscribe "$bin" filter "$@" --quiet --output "$out" --overwrite </dev/null >"$out.log" 2>&1
}
source "$(dirname "${BASH_SOURCE[0]}")/filter-runs.sh"  # the run table, shared with scripts/gpu-kit.sh
filter_run_inputs "$work"
read -r -a models <<<"${MODELS:-}"
runs_list=$(filter_runs "$([ "${QUICK:-0}" = 1 ] && echo quick || echo full)" "$work" ${models[@]+"${models[@]}"}) || exit 2
while IFS=$'\t' read -r tag argline; do
  read -r -a args <<<"$argline"
  run "$ref" 1 "$work/ref-$tag.h5" "${args[@]}" || { echo "REF FAILED $tag: $(tail -1 "$work/ref-$tag.h5.log")"; fails=$((fails+1)); continue; }
  for p in $ranks; do
    runs=$((runs+1))
    if ! run "$new" "$p" "$work/new-$tag-p$p.h5" "${args[@]}"; then
      echo "NEW FAILED $tag p=$p: $(tail -1 "$work/new-$tag-p$p.h5.log")"; fails=$((fails+1)); continue
    fi
    if ! out=$("$eq" --ignore /resampling_traffic "$work/ref-$tag.h5" "$work/new-$tag-p$p.h5" 2>&1); then
      echo "DIFFER $tag p=$p: $out"; fails=$((fails+1))
    fi
  done
done <<<"$runs_list"
echo "compare_outputs: $runs comparisons, $fails failures (work dir $work)"
[ "$fails" -eq 0 ] && rm -rf "$work"
exit $(( fails > 0 ))
