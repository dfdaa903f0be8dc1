#!/usr/bin/env bash
# A run never clobbers what is already there:
#  1. An existing --output is refused before any work (no checkpoint directory appears), with or
#     without other options, and left byte-identical; with --overwrite, a run that fails (a NaN
#     error, a degenerate filter) still leaves it byte-identical; a run that succeeds replaces it.
#  2. A fresh run (no --restart) pointed at a --checkpoint-dir that holds checkpoints is refused
#     before writing anything, naming the directory and suggesting --restart latest, --overwrite or
#     not; the checkpoints stay byte-identical.
#  3. A restart (--restart FILE) pointed at a --checkpoint-dir that holds another run's checkpoints,
#     or a file named as a checkpoint that cannot be read, is refused before writing anything, naming
#     the directory; the other run's checkpoints stay byte-identical. An empty directory, or one of
#     the run's own checkpoints, is fine.
#  4. Pruning (--keep-checkpoints) removes only the run's own checkpoints: a restarted run sharing
#     its directory with another run's checkpoint of a later step (one it never reaches, so the
#     restart accepts it) does not delete it.
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"
cd "$WORK"

snapshot() { sha256sum "$@" 2>/dev/null | sort; }
errors() { grep -c '^rsmc: error:' "$1" || true; }

# ---- 1. --output exists
echo "precious" >existing.h5
before=$(snapshot existing.h5)
rc=0
rsmc_np 2 filter --particles 100 --steps 5 --checkpoint-every 1 --checkpoint-dir out_ck -o existing.h5 2>err.txt >out.txt ||
  rc=$?
[ "$rc" -eq 1 ] && [ "$(errors err.txt)" -eq 1 ] &&
  grep -q "^rsmc: error: --output: existing.h5 already exists; pass --overwrite to replace it" err.txt ||
  fail "existing output: rc $rc, expected one error line: $(cat err.txt)"
[ ! -e out_ck ] || fail "existing output: checkpoints were written before the refusal"
[ ! -s out.txt ] || fail "existing output: the run started before the refusal: $(cat out.txt)"
[ "$(snapshot existing.h5)" = "$before" ] || fail "existing output: the file was modified"

printf 'model = "stochastic_volatility"\n[parameters]\nmu = -709.5\nphi = 0.5\nsigma = 1.0\n' >nan.toml
printf 'y\n0\n0\n' >zeros.csv
rc=0
rsmc_np 2 filter --config nan.toml --data zeros.csv --particles 100 -o existing.h5 --overwrite --quiet 2>err.txt || rc=$?
[ "$rc" -eq 1 ] && grep -q "log_likelihood is NaN" err.txt || fail "--overwrite + NaN error: rc $rc, $(cat err.txt)"
printf 'y1,y2\n0.1,0.2\n1e200,1e200\n' >degenerate.csv
rc=0
rsmc_np 2 filter --data degenerate.csv --particles 100 --checkpoint-dir degen_ck -o existing.h5 --overwrite --quiet \
  2>err.txt || rc=$?
[ "$rc" -eq 3 ] || fail "--overwrite + degenerate filter: exit code $rc, expected 3: $(cat err.txt)"
[ "$(snapshot existing.h5)" = "$before" ] || fail "a failed run with --overwrite modified the existing output"
compgen -G ".existing.h5*" >/dev/null && fail "a failed run left a temporary output file: $(ls -a)"
rsmc_np 2 filter --particles 100 --steps 3 -o existing.h5 --overwrite --quiet || fail "--overwrite, successful run"
[ "$(snapshot existing.h5)" != "$before" ] || fail "--overwrite did not replace the file"

# ---- 2. a populated checkpoint directory
run="--particles 2000 --steps 6"
rsmc_np 2 filter $run --seed 11 --checkpoint-every 2 --checkpoint-dir ck --quiet || fail "the first run"
[ "$(compgen -G 'ck/checkpoint-*.h5' | wc -l)" -eq 2 ] || fail "the first run kept $(ls ck) (expected 2 checkpoints)"
before=$(snapshot ck/*)
for extra in "--seed 12" "--seed 11" "--seed 11 --overwrite" "--seed 12 --overwrite --keep-checkpoints 1"; do
  rc=0
  # shellcheck disable=SC2086
  rsmc_np 2 filter $run $extra --checkpoint-every 1 --checkpoint-dir ck -o fresh.h5 2>err.txt >out.txt || rc=$?
  [ "$rc" -eq 1 ] && [ "$(errors err.txt)" -eq 1 ] &&
    grep -q "^rsmc: error: --checkpoint-dir: 'ck' already holds 2 checkpoints (newest checkpoint-000000006.h5) of an earlier run; continue that run with --restart latest, or give another --checkpoint-dir" err.txt ||
    fail "fresh run into a populated directory ($extra): rc $rc: $(cat err.txt)"
  [ ! -e fresh.h5 ] && [ ! -s out.txt ] || fail "fresh run into a populated directory ($extra): it ran"
  [ "$(snapshot ck/*)" = "$before" ] || fail "fresh run into a populated directory ($extra): checkpoints changed"
done

# ---- 3. a restart into another run's checkpoint directory
long_run="--particles 2000 --steps 12 --seed 11 --checkpoint-every 2"  # continues the run of part 2
rsmc_np 2 filter $run --seed 12 --checkpoint-every 2 --checkpoint-dir other --quiet || fail "the other run"
cp other/checkpoint-000000006.h5 other6.orig
before=$(snapshot other/*)
mkdir damaged
cp ck/checkpoint-000000004.h5 damaged/
echo "not a checkpoint" >damaged/checkpoint-000000003.h5
for dir in other damaged; do
  rc=0
  # Restarting from step 4 would write checkpoint-000000006.h5 into $dir.
  # shellcheck disable=SC2086
  rsmc_np 2 filter $long_run --restart ck/checkpoint-000000004.h5 --checkpoint-dir $dir -o restarted.h5 2>err.txt \
    >out.txt || rc=$?
  if [ $dir = other ]; then
    pattern="^rsmc: error: --checkpoint-dir: 'other' holds another run's checkpoints (checkpoint-000000004.h5: seed: the checkpoint has 'seed = 12', this run 'seed = 11'); a directory holds the checkpoints of one run"
  else
    pattern="^rsmc: error: --checkpoint-dir: 'damaged' holds a checkpoint that cannot be read (.*checkpoint-000000003.h5"
  fi
  [ "$rc" -eq 1 ] && [ "$(errors err.txt)" -eq 1 ] && grep -q "$pattern" err.txt ||
    fail "restart into $dir: rc $rc, expected one error line: $(cat err.txt)"
  [ ! -e restarted.h5 ] && [ ! -s out.txt ] || fail "restart into $dir: it ran"
done
cmp other/checkpoint-000000006.h5 other6.orig || fail "restart into another run's directory: its step-6 checkpoint changed"
[ "$(snapshot other/*)" = "$before" ] || fail "restart into another run's directory: its checkpoints changed"
[ "$(cd damaged && ls)" = "$(printf 'checkpoint-000000003.h5\ncheckpoint-000000004.h5')" ] ||
  fail "restart into a directory with an unreadable checkpoint: it changed: $(ls damaged)"
# An empty (or missing) directory, and restarting in place with a named checkpoint, are fine.
rsmc_np 2 filter $long_run --restart ck/checkpoint-000000004.h5 --checkpoint-dir moved --quiet -o moved.h5 ||
  fail "restart into a new directory"
[ -f moved/checkpoint-000000012.h5 ] || fail "restart into a new directory: no checkpoint of step 12: $(ls moved)"
rm -rf moved
mkdir moved
rsmc_np 3 filter $long_run --restart ck/checkpoint-000000004.h5 --checkpoint-dir moved --quiet -o moved2.h5 ||
  fail "restart into an empty directory"
"$H5_DATASETS_EQUAL" --ignore /resampling_traffic moved.h5 moved2.h5 >/dev/null ||
  fail "restarts into a new and an empty directory differ"
rsmc_np 2 filter --particles 2000 --steps 6 --seed 11 --checkpoint-every 2 --restart ck/checkpoint-000000004.h5 \
  --checkpoint-dir ck --quiet || fail "restart in place from a named checkpoint"

# ---- 4. pruning spares what is not the run's own
rsmc_np 1 filter --particles 2000 --steps 13 --seed 99 --checkpoint-every 13 --checkpoint-dir foreign --quiet ||
  fail "foreign run"
cp foreign/checkpoint-000000013.h5 ck/checkpoint-000000013.h5
kept=$(snapshot ck/checkpoint-000000013.h5)
rsmc_np 3 filter $long_run --keep-checkpoints 1 --checkpoint-dir ck --restart ck/checkpoint-000000006.h5 --quiet ||
  fail "restart into the shared directory"
[ "$(snapshot ck/checkpoint-000000013.h5)" = "$kept" ] || fail "pruning deleted or changed a checkpoint of another run"
[ "$(cd ck && ls checkpoint-*.h5 | tr '\n' ' ')" = "checkpoint-000000012.h5 checkpoint-000000013.h5 " ] ||
  fail "pruning: expected the newest own and the foreign checkpoint, got $(ls ck)"
finish
