#!/usr/bin/env bash
# Acceptance (issue 6): checkpoint and restart.
#  1. 100 steps on 4 ranks == 50 steps on 4 ranks, checkpoint, then the remaining 50 on 3 ranks (and
#     on 1): every result dataset and the final particles (compared through a checkpoint at step 100)
#     bitwise identical; also from a checkpoint written with --balance-tolerance and
#     --rank-capacity, continued with another tolerance.
#  2. SIGTERM (one rank, no mpiexec) and SIGUSR1 (to mpiexec, which forwards it) during a run: exit
#     code 75, a checkpoint, and the restart finishes bitwise identically.
#  3. SIGKILL at 20 different moments while checkpoints are being written (one every step): the
#     newest complete checkpoint always restarts and finishes bitwise identically.
#  4. Truncated, bit-flipped (refused by the seal; resealed: by the particle checksum), wrong-model,
#     future-version and wrong-configuration checkpoints: a one-line error naming the problem, a
#     non-zero exit, and nothing written (tests/cli/damaged_files.sh: every kind of damage).
#  5. A degenerate filter (all weights zero) stops with exit code 3 and checkpoints the last good step.
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}" "${CHECKPOINT_TAMPER:?set by CTest}"

same() {  # same WHAT A.h5 B.h5 ...: result datasets identical (traffic depends on the rank count)
  local what=$1
  shift
  "$H5_DATASETS_EQUAL" --ignore /resampling_traffic "$@" >/dev/null || fail "$what: results differ"
}

cd "$WORK"
base="--particles 3000 --steps 100 --seed 3"

# ---- 1. continuation on other rank counts
rsmc_np 4 filter $base --quiet -o full.h5 --checkpoint-every 100 --checkpoint-dir full_ck || fail "uninterrupted run"
rsmc_np 4 filter --particles 3000 --steps 50 --seed 3 --quiet -o half.h5 --checkpoint-every 50 --checkpoint-dir ck ||
  fail "first half"
[ -f ck/checkpoint-000000050.h5 ] || fail "no checkpoint at step 50"
for p in 3 1; do
  rsmc_np "$p" filter $base --quiet -o "cont$p.h5" --restart latest --checkpoint-dir ck --checkpoint-every 100 ||
    fail "restart on $p ranks"
  same "restart on $p ranks" full.h5 "cont$p.h5"
  # Final particles: the step-100 checkpoints of both runs (run progress aside, whose traffic depends on p).
  "$H5_DATASETS_EQUAL" --ignore /progress full_ck/checkpoint-000000100.h5 ck/checkpoint-000000100.h5 >/dev/null ||
    fail "final particles differ after a restart on $p ranks"
  rm -f ck/checkpoint-000000100.h5
done
# A checkpoint written in a moved layout (tolerance, uneven capacities) continues on another rank
# count and layout with the same results and final particles (checkpoints are read by global id).
rsmc_np 4 filter --particles 3000 --steps 50 --seed 3 --quiet -o half_moved.h5 --checkpoint-every 50 \
  --checkpoint-dir ck_moved --balance-tolerance 0.3 --rank-capacity 1,2,3,4 || fail "first half, moved layout"
rsmc_np 3 filter $base --quiet -o cont_moved.h5 --restart latest --checkpoint-dir ck_moved --checkpoint-every 100 \
  --balance-tolerance 0.05 || fail "restart of a moved layout on 3 ranks"
same "restart of a moved layout" full.h5 cont_moved.h5
"$H5_DATASETS_EQUAL" --ignore /progress full_ck/checkpoint-000000100.h5 ck_moved/checkpoint-000000100.h5 >/dev/null ||
  fail "final particles differ after a restart of a moved layout"

# ---- 2. signals
# Each signal goes once the run shows its first steps (--progress: drawn from 0.5 s on), so that it
# lands mid-run: the run takes about 6 s on one core of the 2026-11-26 AVX-512 machine, 5 s on 2
# ranks at 2 threads each under CI's load. A fixed 2 s delay once missed on a loaded CI machine.
long="--particles 20000 --steps 10000 --seed 9"
rsmc_np 1 filter $long --quiet -o long_full.h5 || fail "uninterrupted long run"
"$RSMC" filter $long --progress -o sig.h5 --checkpoint-dir sig_ck >/dev/null 2>sig.log &
pid=$!
signal_when_stepping TERM "$pid" sig.log
rc=0
wait "$pid" || rc=$?
if [ "$rc" -eq 75 ]; then
  [ ! -e sig.h5 ] || fail "SIGTERM: a result file was written by the interrupted run"
  rsmc_np 2 filter $long --quiet -o sig.h5 --restart latest --checkpoint-dir sig_ck || fail "restart after SIGTERM"
  same "SIGTERM + restart" long_full.h5 sig.h5
else
  fail "SIGTERM: exit code $rc, expected 75 (sig.log: $(tr '\r' '\n' <sig.log | tail -n 2))"
fi
"$MPIEXEC" -n 2 $MPIEXEC_FLAGS "$RSMC" filter $long --progress -o usr1.h5 --checkpoint-dir usr1_ck >/dev/null 2>usr1.log &
pid=$!
signal_when_stepping USR1 "$pid" usr1.log
wait "$pid" || true
ls usr1_ck/checkpoint-*.h5 >/dev/null 2>&1 || fail "SIGUSR1 to mpiexec: no checkpoint"
rsmc_np 3 filter $long --quiet -o usr1.h5 --restart latest --checkpoint-dir usr1_ck || fail "restart after SIGUSR1"
same "SIGUSR1 + restart" long_full.h5 usr1.h5

# ---- 3. SIGKILL while a checkpoint is being written (one every step): wait until 1..5 checkpoints
# are complete and the temporary file of the next appears, then kill within 0..4 ms.
kill_run="--particles 500000 --steps 12 --seed 21"
rsmc_np 1 filter $kill_run --quiet -o kill_full.h5 || fail "uninterrupted kill-test run"
restarted=0
during_write=0
for i in $(seq 1 20); do
  rm -rf kill_ck kill.h5
  "$RSMC" filter $kill_run --quiet -o kill.h5 --checkpoint-every 1 --keep-checkpoints 20 --checkpoint-dir kill_ck &
  pid=$!
  # Let 1..5 checkpoints complete, then strike during the next one.
  want=$((1 + i % 5))
  until [ "$(compgen -G "kill_ck/checkpoint-*.h5" | wc -l)" -ge "$want" ] || ! kill -0 "$pid" 2>/dev/null; do
    sleep 0.01
  done
  until compgen -G "kill_ck/.checkpoint-*.h5.tmp.*" >/dev/null || ! kill -0 "$pid" 2>/dev/null; do sleep 0.002; done
  sleep "0.00$((i % 5))"
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if compgen -G "kill_ck/.checkpoint-*.h5.tmp.*" >/dev/null; then during_write=$((during_write + 1)); fi
  [ ! -e kill.h5 ] || continue  # the run finished before the kill
  ls kill_ck/checkpoint-*.h5 >/dev/null 2>&1 || continue  # killed while writing the first checkpoint
  ranks=$((1 + i % 3))
  rsmc_np "$ranks" filter $kill_run --quiet -o kill.h5 --restart latest --checkpoint-dir kill_ck ||
    fail "kill $i: restart from the newest checkpoint failed"
  same "kill $i" kill_full.h5 kill.h5
  restarted=$((restarted + 1))
done
echo "SIGKILL: $during_write of 20 kills hit a checkpoint being written; $restarted restarted and matched"
[ "$during_write" -ge 10 ] || fail "only $during_write of 20 kills landed while a checkpoint was being written"
[ "$restarted" -ge 18 ] || fail "only $restarted of 20 killed runs could restart"

# ---- 4. damaged and foreign checkpoints: one error line naming the problem, nothing written
good=ck/checkpoint-000000050.h5
expect_refusal() {  # expect_refusal PATTERN FILE [extra options]
  local pattern=$1 file=$2
  shift 2
  local err="$WORK/err.txt"
  if rsmc_np 2 filter $base --quiet -o refused.h5 --restart "$file" "$@" 2>"$err" >/dev/null; then
    fail "restart from $file succeeded; expected an error matching '$pattern'"
  elif [ "$(grep -c '^rsmc: error:' "$err")" -ne 1 ] || ! grep -q "^rsmc: error:.*$pattern" "$err"; then
    fail "restart from $file: expected one 'rsmc: error:' line matching '$pattern', got: $(cat "$err")"
  fi
  [ ! -e refused.h5 ] || fail "restart from $file: a result file was written"
}
cp "$good" truncated.h5 && truncate -s $(($(stat -c %s "$good") / 2)) truncated.h5
expect_refusal "truncated.h5" truncated.h5
cp "$good" flipped.h5 && "$CHECKPOINT_TAMPER" flipped.h5 --flip-state-bit || fail "tamper: flip"
expect_refusal "is damaged (its bytes do not match the SHA-256 digest" flipped.h5
# Behind the seal: a flipped bit in a file resealed afterwards is still caught by the particle checksum.
cp flipped.h5 flipped_resealed.h5 && "$CHECKPOINT_TAMPER" flipped_resealed.h5 --reseal || fail "tamper: reseal"
expect_refusal "the particle data do not match their checksum" flipped_resealed.h5
cp "$good" other_model.h5 && "$CHECKPOINT_TAMPER" other_model.h5 --model lorenz96 || fail "tamper: model"
expect_refusal "of model 'lorenz96'" other_model.h5
cp "$good" future.h5 && "$CHECKPOINT_TAMPER" future.h5 --format-version 99 || fail "tamper: version"
expect_refusal "format version 99" future.h5
expect_refusal "resampling: the checkpoint has 'resampling = \"systematic\"', this run 'resampling = \"stratified\"'" \
  "$good" --resampling stratified
expect_refusal "no checkpoint-<step>.h5" latest --checkpoint-dir empty_dir
cmp -s "$good" ck/checkpoint-000000050.h5 || fail "a refused restart changed the checkpoint"
# rsmc info verifies checkpoints as a restart would, and describes result files.
output_has "checksums verified" rsmc_np 1 info "$good" || fail "rsmc info on a good checkpoint"
if rsmc_np 1 info flipped.h5 >/dev/null 2>&1; then fail "rsmc info accepted a bit-flipped checkpoint"; fi
output_has "log-likelihood:" rsmc_np 1 info full.h5 || fail "rsmc info on a result file"

# ---- 5. a degenerate filter (every weight zero at step 5: an observation of 1e200 makes every
# log-likelihood -inf): exit code 3, one error line, no result file, and a checkpoint of step 4
# identical to the one an ordinary run of 4 steps writes, on any rank count.
printf 'y1,y2\n0.1,0.2\n0.3,0.4\n-0.2,0.1\n0.5,0.5\n1e200,1e200\n0.1,0.1\n' >degenerate.csv
rsmc_np 1 filter --data degenerate.csv --particles 500 --steps 4 --checkpoint-every 4 --checkpoint-dir good4 --quiet ||
  fail "4 good steps"
for p in 1 3; do
  rc=0
  rsmc_np "$p" filter --data degenerate.csv --particles 500 --checkpoint-dir "degen$p" -o degen.h5 --quiet \
    2>degen.err || rc=$?
  [ "$rc" -eq 3 ] || fail "degenerate filter on $p ranks: exit code $rc, expected 3"
  [ "$(grep -c '^rsmc: error: filter degenerate at step 5' degen.err)" -eq 1 ] ||
    fail "degenerate filter on $p ranks: expected one error line naming step 5, got: $(cat degen.err)"
  [ ! -e degen.h5 ] || fail "degenerate filter on $p ranks: a result file was written"
  "$H5_DATASETS_EQUAL" --ignore /progress good4/checkpoint-000000004.h5 "degen$p/checkpoint-000000004.h5" >/dev/null ||
    fail "degenerate filter on $p ranks: the checkpoint of step 4 differs from an ordinary one"
done
finish
