#!/usr/bin/env bash
# Fault: one rank of a 4-rank run is killed (SIGKILL) mid-run. The job must end by itself (bounded by
# a timeout: no hang), with a non-zero exit and no result file; its newest checkpoint must be valid
# (`rsmc info` verifies both checksums), and a restart on 3 ranks must finish bitwise identically to
# an uninterrupted run.
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"
cd "$WORK"
run="--particles 100000 --steps 200 --seed 5"
rsmc_np 2 filter $run --quiet -o full.h5 || fail "uninterrupted run"

timeout 120 "$MPIEXEC" -n 4 $MPIEXEC_FLAGS "$RSMC" filter $run --quiet -o killed.h5 --checkpoint-every 10 \
  --checkpoint-dir ck >job.log 2>&1 &
job=$!
# Wait for a checkpoint, then kill the highest-numbered rank process of the job.
for _ in $(seq 1 600); do
  compgen -G "ck/checkpoint-*.h5" >/dev/null && break
  sleep 0.05
done
launcher=$(pgrep -P "$job" | head -1)
victim=$(pgrep -P "$launcher" -f "$RSMC" | sort -n | tail -1)
if [ -z "$victim" ]; then
  fail "no rank process found to kill (did the run end before its first checkpoint?)"
else
  kill -KILL "$victim"
fi
rc=0
wait "$job" || rc=$?
[ "$rc" -ne 124 ] || fail "the job hung after a rank was killed (timeout)"
[ "$rc" -ne 0 ] || fail "the job reported success although a rank was killed"
[ ! -e killed.h5 ] || fail "a result file was written by the killed job"
latest=$(compgen -G "ck/checkpoint-*.h5" | sort | tail -1)
output_has "checksums verified" rsmc_np 1 info "$latest" || fail "the newest checkpoint $latest is not valid"
rsmc_np 3 filter $run --quiet -o restarted.h5 --restart latest --checkpoint-dir ck || fail "restart on 3 ranks"
"$H5_DATASETS_EQUAL" --ignore /resampling_traffic full.h5 restarted.h5 >/dev/null ||
  fail "the restart after a killed rank differs from the uninterrupted run"
echo "killed rank pid $victim; job exit code $rc; restarted from $latest"
finish
