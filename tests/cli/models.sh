#!/usr/bin/env bash
# Every model `rsmc models` lists filters data simulated from it through the command line, on 1 and
# 3 ranks with bitwise identical results; [parameters] reach the model (lorenz96 with d = 60).
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"
models=$(rsmc_np 1 models | grep -E '^[a-z_0-9]+$')
[ "$(echo "$models" | wc -l)" -ge 7 ] || fail "rsmc models lists fewer than 7 models: $models"
for m in $models; do
  for p in 1 3; do
    rsmc_np "$p" filter --model "$m" --particles 1500 --steps 15 --seed 2 --quiet -o "$WORK/${m}_$p.h5" ||
      fail "$m on $p ranks"
  done
  "$H5_DATASETS_EQUAL" --ignore /resampling_traffic "$WORK/${m}_1.h5" "$WORK/${m}_3.h5" >/dev/null ||
    fail "$m: results differ between 1 and 3 ranks"
done
printf 'model = "lorenz96"\n[parameters]\nd = 60\nobs_every = 3\n' >"$WORK/l96.toml"
rsmc_np 2 filter --config "$WORK/l96.toml" --particles 300 --steps 4 --quiet -o "$WORK/l96.h5" || fail "lorenz96 d = 60"
output_has "DATASPACE  SIMPLE { ( 4, 60 )" h5dump -d /filtered_mean "$WORK/l96.h5" || fail "lorenz96: d = 60 not applied"
finish
