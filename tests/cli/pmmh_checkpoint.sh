#!/usr/bin/env bash
# `rsmc pmmh`, issue 18 acceptance 2: a run stopped by SIGTERM writes its chains so far and their states
# to --checkpoint and exits with 75; restarted from it on another rank count it ends byte-identical to
# an uninterrupted run. A checkpoint of another run is refused on restart, and a fresh run refuses to
# replace an existing checkpoint; both with one line and nothing written.
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"
here=$(cd "$(dirname "$0")" && pwd)
cd "$WORK" || exit 1
# Long enough for a signal after 1 s (about 10 s on one core).
sed 's/^iterations = 60$/iterations = 20000/; s/^particles = 48$/particles = 100/' \
  "$here/pmmh_local_level.toml" >run.toml
rsmc_np 2 pmmh --config run.toml --output full.h5 --checkpoint unused.h5 || fail "uninterrupted run"
[ -e unused.h5 ] && fail "an uninterrupted run wrote a checkpoint"

signal_after TERM 1 "$RSMC" pmmh --config run.toml --output stopped.h5 --checkpoint ck.h5
[ "$SIGNAL_RC" -eq 75 ] || fail "SIGTERM: exit code $SIGNAL_RC, expected 75 (did the run finish within 1 s?)"
[ -e ck.h5 ] || fail "SIGTERM wrote no checkpoint"
[ -e stopped.h5 ] && fail "a stopped run wrote its --output"
output_has "rsmc pmmh chains" "$RSMC" info ck.h5 || fail "rsmc info does not read the checkpoint"

# Restarting with another seed: refused, naming the setting; nothing written.
code=0
rsmc_np 1 pmmh --config run.toml --seed 6 --restart ck.h5 --output other.h5 2>err.txt >/dev/null || code=$?
[ "$code" -ne 0 ] || fail "a checkpoint of seed 5 continued a run of seed 6"
grep -q "^rsmc: error: --restart: 'ck.h5' belongs to another run; seed" err.txt || fail "unclear refusal: $(cat err.txt)"
[ -e other.h5 ] && fail "a refused restart wrote its output"
# A fresh run does not replace the checkpoint of a stopped one.
cp ck.h5 ck_before.h5
code=0
rsmc_np 1 pmmh --config run.toml --checkpoint ck.h5 --output fresh.h5 2>err.txt >/dev/null || code=$?
[ "$code" -ne 0 ] || fail "a fresh run accepted an existing --checkpoint"
grep -q "^rsmc: error: --checkpoint: ck.h5 already exists" err.txt || fail "unclear refusal: $(cat err.txt)"
cmp -s ck.h5 ck_before.h5 || fail "the existing checkpoint was changed"

rsmc_np 3 pmmh --config run.toml --restart ck.h5 --checkpoint ck.h5 --output restarted.h5 ||
  fail "restart on 3 ranks"
"$H5_DATASETS_EQUAL" full.h5 restarted.h5 || fail "stopped and restarted on 3 ranks differs from the run on 2"
finish
