#!/usr/bin/env bash
# `rsmc pmmh`, issue 18 acceptance 2: a run stopped by SIGTERM writes its chains so far and their states
# to --checkpoint and exits with 75; restarted from it on another rank count it ends byte-identical to
# an uninterrupted run. A checkpoint of another run is refused on restart, and a fresh run refuses to
# replace an existing checkpoint; both with one line and nothing written.
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"
here=$(cd "$(dirname "$0")" && pwd)
cd "$WORK" || exit 1
# Long enough that a signal at the first progress line (iteration 400 of 4,000) lands mid-run. The
# stopped run talks (quiet = false) so that the test can see it iterating; quiet is not part of a
# run's identity, so its checkpoint continues the quiet runs.
sed 's/^iterations = 60$/iterations = 4000/; s/^particles = 48$/particles = 100/' \
  "$here/pmmh_local_level.toml" >run.toml
sed 's/^quiet = true$/quiet = false/' run.toml >loud.toml
rsmc_np 2 pmmh --config run.toml --output full.h5 --checkpoint unused.h5 || fail "uninterrupted run"
[ -e unused.h5 ] && fail "an uninterrupted run wrote a checkpoint"

"$RSMC" pmmh --config loud.toml --output stopped.h5 --checkpoint ck.h5 >stopped.log 2>&1 &
pid=$!
signal_when_output TERM "$pid" stopped.log '^chain 0: iteration' 300
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 75 ] || fail "SIGTERM: exit code $rc, expected 75 ($(tail -n 2 stopped.log))"
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
