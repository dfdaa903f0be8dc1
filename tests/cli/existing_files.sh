#!/usr/bin/env bash
# A run never clobbers what is already there:
#  1. An existing --output is refused before any work (no checkpoint directory appears), with or
#     without other options, and left byte-identical; with --overwrite, a run that fails (a NaN
#     error, a degenerate filter) still leaves it byte-identical; a run that succeeds replaces it.
#  2. A fresh run (no --restart) pointed at a --checkpoint-dir that holds checkpoints is refused
#     before writing anything, naming the directory and suggesting --restart latest, --overwrite or
#     not; the checkpoints stay byte-identical.
#  3. Pruning (--keep-checkpoints) removes only the run's own checkpoints: a restarted run sharing
#     its directory with a foreign checkpoint and an unreadable file deletes neither.
source "$(dirname "$0")/common.sh"
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

# ---- 3. pruning spares what is not the run's own
rsmc_np 1 filter --particles 2000 --steps 1 --seed 99 --checkpoint-every 1 --checkpoint-dir foreign --quiet ||
  fail "foreign run"
cp foreign/checkpoint-000000001.h5 ck/checkpoint-000000001.h5
echo "not a checkpoint" >ck/checkpoint-000000003.h5
kept=$(snapshot ck/checkpoint-000000001.h5 ck/checkpoint-000000003.h5)
rsmc_np 3 filter --particles 2000 --steps 12 --seed 11 --checkpoint-every 2 --keep-checkpoints 1 --checkpoint-dir ck \
  --restart latest --quiet || fail "restart into the shared directory"
[ "$(snapshot ck/checkpoint-000000001.h5 ck/checkpoint-000000003.h5)" = "$kept" ] ||
  fail "pruning deleted or changed a checkpoint of another run"
[ "$(cd ck && ls checkpoint-*.h5 | tr '\n' ' ')" = "checkpoint-000000001.h5 checkpoint-000000003.h5 checkpoint-000000012.h5 " ] ||
  fail "pruning: expected the foreign, the unreadable and the newest own checkpoint, got $(ls ck)"
finish
