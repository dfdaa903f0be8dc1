#!/usr/bin/env bash
# Numerical hazards through the command line (the engine side is tests/unit/test_numerical_hazards.cpp
# and tests/mpi/test_numerical_hazards_mpi.cpp):
#  1. NaN log-likelihoods: the stochastic volatility model with mu = -709.5 and y = 0 computes
#     0 * exp(-x) = 0 * inf = NaN for every particle with x < -709.78 (about 40% of them, every step).
#     Default (error): exit 1, one error line naming the model, step 1 and the lowest global particle
#     id, the same line on 1 and 3 ranks, no result file. --invalid-likelihood zero-weight (or the
#     config key): exit 0, the count in the summary equals the sum of /invalid_likelihoods, results
#     bitwise identical on 1..4 ranks; a checkpointed run restarts on other ranks identically, and a
#     restart in the other mode is refused.
#  2. Every particle NaN (mu = -2000) in zero-weight mode: degenerate at step 1, exit 3, a valid
#     checkpoint of step 0, no result file.
#  3. Sizes: N = 1 (ESS 1 at every step), N = p on 2, 3, 4 ranks equal to the same N on 1 rank,
#     steps = 1 on 1..3 ranks.
#  4. Missing observations: all-missing rows give increment 0 (and no observation at all gives
#     log-likelihood 0), identical on 1 and 3 ranks; a partly missing row is one error line naming
#     the file and line (rsmc does not filter partially observed steps).
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"
command -v h5dump >/dev/null || { echo "h5dump not found (install hdf5-tools)"; exit 1; }
cd "$WORK"

same() {  # same WHAT A.h5 B.h5 ...: result datasets identical (traffic depends on the rank count)
  local what=$1
  shift
  "$H5_DATASETS_EQUAL" --ignore /resampling_traffic "$@" >/dev/null || fail "$what: results differ"
}
values() {  # values FILE DATASET: the dataset's values, one per line
  h5dump -d "$2" -y -w 0 -o values.txt "$1" >/dev/null && tr ', ' '\n\n' <values.txt | grep -v '^$'
}
errors() { grep -c '^rsmc: error:' "$1" || true; }

# ---- 1. NaN log-likelihoods
printf 'model = "stochastic_volatility"\n[parameters]\nmu = -709.5\nphi = 0.5\nsigma = 1.0\n' >nan.toml
{ echo y; for _ in $(seq 1 8); do echo 0; done; } >zeros.csv
nan="--config nan.toml --data zeros.csv --particles 400 --seed 6"

for p in 1 3; do
  rc=0
  rsmc_np "$p" filter $nan -o err$p.h5 >/dev/null 2>err$p.txt || rc=$?
  [ "$rc" -eq 1 ] || fail "NaN, error mode, $p ranks: exit code $rc, expected 1"
  [ "$(errors err$p.txt)" -eq 1 ] &&
    grep -q '^rsmc: error: model stochastic_volatility: log_likelihood is NaN or +inf at step 1 for global particle id [0-9]' err$p.txt ||
    fail "NaN, error mode, $p ranks: expected one error line naming the model, step 1 and a particle: $(cat err$p.txt)"
  [ ! -e err$p.h5 ] || fail "NaN, error mode, $p ranks: a result file was written"
done
[ "$(grep '^rsmc: error:' err1.txt)" = "$(grep '^rsmc: error:' err3.txt)" ] ||
  fail "NaN, error mode: the error differs between 1 and 3 ranks: $(cat err1.txt err3.txt)"

files=()
for p in 1 2 3 4; do
  rsmc_np "$p" filter $nan --invalid-likelihood zero-weight -o zw$p.h5 >zw$p.txt || fail "zero-weight on $p ranks"
  files+=(zw$p.h5)
done
same "zero-weight mode on 1..4 ranks" "${files[@]}"
counted=$(values zw1.h5 /invalid_likelihoods | paste -sd+ | bc)
reported=$(sed -n 's/^\([0-9]*\) particle log-likelihoods were NaN or +inf and got weight zero (at 8 of 8 steps)$/\1/p' zw1.txt)
[ -n "$reported" ] || fail "zero-weight: no summary line with the count: $(cat zw1.txt)"
[ "$counted" -gt 0 ] || fail "zero-weight: no particle was counted (the test model should produce NaNs)"
[ "$reported" = "$counted" ] || fail "zero-weight: summary says $reported, /invalid_likelihoods sums to $counted"
for p in 2 3 4; do cmp -s <(grep "weight zero" zw1.txt) <(grep "weight zero" zw$p.txt) || fail "count differs on $p ranks"; done
for v in $(values zw1.h5 /ess); do
  awk -v e="$v" 'BEGIN { exit !(e > 0 && e <= 400) }' || fail "zero-weight: ESS $v is not in (0, N]"
done

# The config key does what the flag does.
cp nan.toml nan_zw.toml && sed -i '1a invalid_likelihood = "zero-weight"' nan_zw.toml
rsmc_np 2 filter --config nan_zw.toml --data zeros.csv --particles 400 --seed 6 -o cfg.h5 --quiet || fail "config key"
same "invalid_likelihood in --config" zw1.h5 cfg.h5

# Checkpoint at step 4 on 2 ranks, restart on 3: identical to the uninterrupted run (the counts of
# steps 1..4 come back from the checkpoint). A restart asking for error mode is another run: refused.
rsmc_np 2 filter $nan --invalid-likelihood zero-weight --steps 4 --checkpoint-every 4 --checkpoint-dir ck --quiet ||
  fail "zero-weight, first half"
rc=0
rsmc_np 2 filter $nan --invalid-likelihood error --restart latest --checkpoint-dir ck -o refused.h5 2>refused.txt \
  >/dev/null || rc=$?
[ "$rc" -eq 1 ] && grep -q "belongs to another run; invalid_likelihood" refused.txt ||
  fail "a restart in error mode from a zero-weight checkpoint was not refused: rc $rc, $(cat refused.txt)"
# The continuation runs to the end of the data: --steps 8 (a restart takes the first half's --steps 4 otherwise).
rsmc_np 3 filter $nan --invalid-likelihood zero-weight --steps 8 --restart latest --checkpoint-dir ck -o cont.h5 --quiet ||
  fail "zero-weight restart on 3 ranks"
same "zero-weight restart on 3 ranks" zw1.h5 cont.h5

# ---- 2. every particle NaN: degenerate at step 1
sed 's/mu = -709.5/mu = -2000/' nan.toml >all_nan.toml
rc=0
rsmc_np 3 filter --config all_nan.toml --data zeros.csv --particles 300 --invalid-likelihood zero-weight \
  --checkpoint-dir degen -o degen.h5 --quiet 2>degen.txt || rc=$?
[ "$rc" -eq 3 ] || fail "all NaN, zero-weight: exit code $rc, expected 3"
[ "$(errors degen.txt)" -eq 1 ] &&
  grep -q "^rsmc: error: filter degenerate at step 1: every particle has zero weight (300 of them had a NaN or +inf log-likelihood)" degen.txt ||
  fail "all NaN, zero-weight: unexpected error: $(cat degen.txt)"
[ ! -e degen.h5 ] || fail "all NaN, zero-weight: a result file was written"
output_has "checksums verified" rsmc_np 1 info degen/checkpoint-000000000.h5 ||
  fail "all NaN, zero-weight: no valid checkpoint of step 0"
rc=0
rsmc_np 2 filter --config all_nan.toml --data zeros.csv --particles 300 --quiet 2>all_err.txt || rc=$?
[ "$rc" -eq 1 ] && grep -q "at step 1 for global particle id 0 (300 particles in all" all_err.txt ||
  fail "all NaN, error mode: rc $rc, $(cat all_err.txt)"

# ---- 3. sizes
rsmc_np 1 filter --particles 1 --steps 20 --seed 2 -o n1.h5 --quiet || fail "N = 1"
[ "$(values n1.h5 /ess | sort -u)" = "1" ] || fail "N = 1: ESS is not 1 at every step: $(values n1.h5 /ess | sort -u)"
for p in 2 3 4; do
  rsmc_np 1 filter --particles "$p" --steps 30 --seed 2 --ess-threshold 1 -o np_ref$p.h5 --quiet || fail "N = $p on 1 rank"
  rsmc_np "$p" filter --particles "$p" --steps 30 --seed 2 --ess-threshold 1 -o np$p.h5 --quiet || fail "N = p = $p"
  same "N = p = $p against 1 rank" np_ref$p.h5 np$p.h5
done
for p in 1 2 3; do rsmc_np "$p" filter --particles 500 --steps 1 --seed 2 -o t1_$p.h5 --quiet || fail "steps = 1, $p ranks"; done
same "steps = 1 on 1..3 ranks" t1_1.h5 t1_2.h5 t1_3.h5
[ "$(values t1_1.h5 /log_likelihood_increment)" = "$(values t1_1.h5 /log_likelihood)" ] ||
  fail "steps = 1: the log-likelihood is not the one increment"

# ---- 4. missing observations
rsmc_np 1 simulate --steps 12 --seed 4 --output data.csv || fail "simulate"
awk -F, 'NR == 4 || NR == 5 || NR == 9 { print ","; next } { print }' data.csv >gaps.csv  # steps 3, 4, 8 missing
for p in 1 3; do rsmc_np "$p" filter --data gaps.csv --particles 500 -o gaps$p.h5 --quiet || fail "missing rows, $p ranks"; done
same "missing rows on 1 and 3 ranks" gaps1.h5 gaps3.h5
values gaps1.h5 /log_likelihood_increment >increments.txt
for t in 3 4 8; do
  [ "$(sed -n "${t}p" increments.txt)" = "0" ] || fail "missing step $t: increment $(sed -n "${t}p" increments.txt), expected 0"
done
[ "$(grep -cx 0 increments.txt)" -eq 3 ] || fail "increments of observed steps are 0: $(tr '\n' ' ' <increments.txt)"
{ echo y1,y2; for _ in 1 2 3 4 5; do echo ,; done; } >blind.csv
for p in 1 3; do rsmc_np "$p" filter --data blind.csv --particles 300 -o blind$p.h5 --quiet || fail "no observations, $p ranks"; done
same "no observations on 1 and 3 ranks" blind1.h5 blind3.h5
[ "$(values blind1.h5 /log_likelihood)" = "0" ] || fail "no observations: log-likelihood $(values blind1.h5 /log_likelihood)"
printf 'y1,y2\n0.1,0.2\n0.3,NA\n' >partial.csv
rc=0
rsmc_np 2 filter --data partial.csv --particles 100 -o partial.h5 --quiet 2>partial.txt || rc=$?
[ "$rc" -eq 1 ] && [ "$(errors partial.txt)" -eq 1 ] && grep -q "partial.csv', line 3: 1 of 2 fields missing" partial.txt ||
  fail "a partly missing row: rc $rc, expected one error line naming the file and line: $(cat partial.txt)"
[ ! -e partial.h5 ] || fail "a partly missing row: a result file was written"
finish
