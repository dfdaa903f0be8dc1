#!/usr/bin/env bash
# Issue 39, acceptance 1: every shipped model (each name `rsmc models` lists, so a new model is
# covered without editing this test) checkpoints on 2 ranks and restarts on 3 from the checkpoint
# alone (`--restart latest`: model, parameters, particles, steps and seed come from it), ending
# bitwise identical to the uninterrupted run; the result records the model under its registered
# name (local_level, not the linear_gaussian it is built as).
# Then the temporary files of killed checkpoint writes: a restart removes those whose writer is
# gone (this host, a pid that runs no process), never one another live process may be writing.
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"
cd "$WORK"
run="--particles 300 --steps 6 --seed 11 --quiet"

models=$("$RSMC" models | grep -E '^[A-Za-z0-9_]+$' || true)
[ "$(wc -w <<<"$models")" -ge 7 ] || fail "rsmc models lists fewer than the 7 shipped models: $models"
for model in $models; do
  failures_before=$FAILURES
  rsmc_np 2 filter --model "$model" $run --checkpoint-every 3 --checkpoint-dir "ck_$model" -o "full_$model.h5" ||
    { fail "$model: the run on 2 ranks"; continue; }
  [ -f "ck_$model/checkpoint-000000003.h5" ] || { fail "$model: no checkpoint of step 3"; continue; }
  rm -f "ck_$model/checkpoint-000000006.h5"
  rsmc_np 3 filter --restart latest --checkpoint-dir "ck_$model" --quiet -o "restarted_$model.h5" ||
    { fail "$model: the restart on 3 ranks from step 3"; continue; }
  "$H5_DATASETS_EQUAL" --ignore /resampling_traffic "full_$model.h5" "restarted_$model.h5" >/dev/null ||
    fail "$model: the restart on 3 ranks differs from the run on 2"
  output_has "^  model: *$model\$" "$RSMC" info "restarted_$model.h5" ||
    fail "$model: the result does not record model $model"
  output_has "^  model: *$model\$" "$RSMC" info "ck_$model/checkpoint-000000003.h5" ||
    fail "$model: the checkpoint does not record model $model"
  [ "$FAILURES" -ne "$failures_before" ] || echo "ok: $model restarts on 3 ranks bitwise"
done

# ---- temporary files of killed checkpoint writes
host=$(hostname | cut -d. -f1 | sed 's/[^A-Za-z0-9-]/-/g')
sleep 600 &
live=$!
gone=$(sh -c 'echo $$')  # a process that has ended: its pid runs nothing (unless reused at once)
mkdir -p tmp_ck
cp ck_linear_gaussian/checkpoint-000000003.h5 tmp_ck/
for owner in "$host.$gone" "$host.$live" "another-host.$gone" "$gone"; do
  head -c 4096 /dev/urandom >"tmp_ck/.checkpoint-000000006.h5.tmp.$owner"
done
rsmc_np 2 filter --restart latest --checkpoint-dir tmp_ck --quiet -o tmp_restarted.h5 ||
  fail "the restart beside temporary files"
[ ! -e "tmp_ck/.checkpoint-000000006.h5.tmp.$host.$gone" ] ||
  fail "the temporary file of a writer that is gone was left behind"
for owner in "$host.$live" "another-host.$gone" "$gone"; do
  [ -e "tmp_ck/.checkpoint-000000006.h5.tmp.$owner" ] ||
    fail "the temporary file '.tmp.$owner' was removed: its writer may be alive"
done
kill "$live"
"$H5_DATASETS_EQUAL" --ignore /resampling_traffic full_linear_gaussian.h5 tmp_restarted.h5 >/dev/null ||
  fail "the restart beside temporary files differs"
finish
