#!/usr/bin/env bash
# `rsmc filter --config run.toml`: the file sets the options (same datasets as the equivalent flags,
# on 1 and 3 ranks), a flag given on the command line overrides the file, [parameters] reach the
# model, and TOML 1.0 forms (inline tables, arrays over several lines) read as their plain equivalents.
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"
cat >"$WORK/run.toml" <<'TOML'
# a run configuration
particles = 1_500
steps = 20
seed = 11
ess_threshold = 0.75
resampling = "stratified"
local_sampler = "forest"
quiet = true
TOML
flags="--particles 1500 --steps 20 --seed 11 --ess-threshold 0.75 --resampling stratified --local-sampler forest"
rsmc_np 1 filter $flags --quiet -o "$WORK/flags.h5" || fail "run with flags"
for p in 1 3; do
  rsmc_np "$p" filter --config "$WORK/run.toml" -o "$WORK/config_$p.h5" || fail "run with --config on $p ranks"
done
"$H5_DATASETS_EQUAL" --ignore /resampling_traffic "$WORK/flags.h5" "$WORK/config_1.h5" "$WORK/config_3.h5" ||
  fail "--config and the equivalent flags give different results"
rsmc_np 1 filter --config "$WORK/run.toml" --seed 12 -o "$WORK/override.h5" || fail "run with --config and --seed"
rsmc_np 1 filter ${flags/--seed 11/--seed 12} --quiet -o "$WORK/flags12.h5" || fail "run with flags, seed 12"
"$H5_DATASETS_EQUAL" "$WORK/override.h5" "$WORK/flags12.h5" || fail "a command-line flag did not override the file"
output_has 'local_sampler = "forest"' h5dump -a /configuration "$WORK/config_3.h5" ||
  fail "the result file's configuration does not show the file's settings"
# Model parameters under [parameters]: `rsmc simulate` and `rsmc filter` read the same file; the result
# records the parameters used, and the filter is a local level model (state dimension 1).
cat >"$WORK/level.toml" <<'TOML'
model = "local_level"
steps = 30
particles = 2000
quiet = true
[parameters]
sigma_eta2 = 2.5
sigma_eps2 = 9.0
a1 = 100.0
p1 = 50.0
TOML
rsmc_np 1 simulate --config "$WORK/level.toml" -o "$WORK/level.csv" >/dev/null || fail "simulate --config"
[ "$(head -1 "$WORK/level.csv")" = "y1" ] || fail "simulate --config: not a one-component series"
rsmc_np 2 filter --config "$WORK/level.toml" --data "$WORK/level.csv" -o "$WORK/level.h5" || fail "filter --config local_level"
output_has "Q = \[\[2.5\]\]" h5dump -a /parameters "$WORK/level.h5" || fail "the result does not record sigma_eta2 = 2.5 as Q"
output_has "DATASPACE  SIMPLE { ( 30, 1 )" h5dump -d /filtered_mean "$WORK/level.h5" || fail "local_level: not 30 x 1 means"
# TOML 1.0 forms the reader takes (toml++): [parameters] as an inline table (the same results as the
# table form above), and a matrix written over several lines with a comment inside.
cat >"$WORK/level_inline.toml" <<'TOML'
model = "local_level"
steps = 30
particles = 2_000
quiet = true
parameters = { sigma_eta2 = 2.5, sigma_eps2 = 9.0, a1 = 100.0, p1 = 50.0 }
TOML
rsmc_np 2 filter --config "$WORK/level_inline.toml" --data "$WORK/level.csv" -o "$WORK/level_inline.h5" ||
  fail "filter --config with an inline [parameters] table"
"$H5_DATASETS_EQUAL" --ignore /resampling_traffic "$WORK/level.h5" "$WORK/level_inline.h5" ||
  fail "an inline parameters table gives other results than the [parameters] table"
cat >"$WORK/lg_lines.toml" <<'TOML'
model = "linear_gaussian"
steps = 10
particles = 500
quiet = true
[parameters]
A = [
  [0.5, 0.0],  # row 0
  [0.0, 0.5],
]
TOML
rsmc_np 1 filter --config "$WORK/lg_lines.toml" -o "$WORK/lg_lines.h5" || fail "filter --config with a matrix over lines"
output_has "A = \[\[0.5, 0\], \[0, 0.5\]\]" h5dump -a /parameters "$WORK/lg_lines.h5" ||
  fail "the matrix written over lines is not the one recorded"
finish
