#!/usr/bin/env bash
# A real annual series end to end through the command line: the Nile flows (examples/nile/nile.csv,
# 100 observations) under the local level model of examples/nile/nile.toml, on 1 and 3 ranks with
# bitwise identical results, beside the exact Kalman log-likelihood. The statistical agreement with
# the Kalman value (over 32 seeds) is tests/unit/test_nile_local_level.cpp.
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"
nile="$(cd "$(dirname "$0")/../../examples/nile" && pwd)"
for p in 1 3; do
  rsmc_np "$p" filter --config "$nile/nile.toml" --data "$nile/nile.csv" --particles 20000 -o "$WORK/nile_$p.h5" \
    >"$WORK/nile_$p.txt" || fail "the Nile run on $p ranks"
done
"$H5_DATASETS_EQUAL" --ignore /resampling_traffic "$WORK/nile_1.h5" "$WORK/nile_3.h5" >/dev/null ||
  fail "the Nile results differ between 1 and 3 ranks"
grep -q "100 steps" "$WORK/nile_1.txt" || fail "not all 100 observations were filtered: $(head -1 "$WORK/nile_1.txt")"
# The exact value for this prior (anchored to statsmodels in the unit test).
grep -q "exact (Kalman filter):   -639.306901" "$WORK/nile_1.txt" || fail "exact value missing: $(cat "$WORK/nile_1.txt")"
finish
