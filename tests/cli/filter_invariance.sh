#!/usr/bin/env bash
# Acceptance: `rsmc filter` result files hold bitwise identical datasets for 1, 2, 3 and 4 ranks
# (compared byte for byte by h5_datasets_equal; attributes, which record the rank count, are not compared).
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"

for config in "--particles 2000 --steps 40 --seed 5" "--particles 1001 --steps 25 --seed 77 --ess-threshold 1"; do
  files=()
  for p in 1 2 3 4; do
    out="$WORK/result_p$p.h5"
    # shellcheck disable=SC2086
    rsmc_np "$p" filter $config --quiet --output "$out" || fail "rsmc filter on $p ranks ($config) failed"
    files+=("$out")
  done
  "$H5_DATASETS_EQUAL" "${files[@]}" || fail "datasets differ across rank counts ($config)"
  rm -f "${files[@]}"
done
finish
