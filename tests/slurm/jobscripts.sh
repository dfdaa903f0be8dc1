#!/usr/bin/env bash
# Acceptance (issue 7): the job scripts of jobscripts/ on a real SLURM. Starts munged, slurmctld and
# slurmd on localhost in a temporary directory (local_cluster.sh), submits each script with sbatch,
# waits with a bounded timeout and checks:
#  1. rsmc-cpu.sbatch on 2 tasks (srun --mpi=pmix when SLURM has PMIx, and LAUNCHER=mpirun) writes
#     exactly the datasets of a direct mpiexec run of the same configuration.
#  2. rsmc-array.sbatch: 3 replicas (3 distinct results, each equal to a direct run with its seed) and
#     a 2-task parameter sweep from a file.
#  3. rsmc-gpu.sbatch without a usable GPU: pretend GPUs granted but not visible, and no GPU
#     requested, both say so and fall back to the CPU build (same result as 1.); GPU_FALLBACK=fail
#     says so and fails without running.
#  4. rsmc-chain.sbatch with --time=1 --signal=B:USR1@55 and a filter that needs CHAIN_SECONDS
#     (default 80) of computing: SLURM's signal, a checkpoint, `scontrol requeue`, at least twice,
#     then completion with a result identical to an uninterrupted run. CHAIN_MODE=submit once, with
#     the signal sent by `scancel --batch --signal=USR1`: the successor (sbatch --dependency)
#     finishes identically.
#  5. rsmc-pmmh.sbatch (issue 18) on 2 tasks with 2 chains: a first segment whose tasks die of the
#     signal before rsmc starts (requeued, not failed); then signalled with `scancel --batch
#     --signal=USR1` once the chains run: a checkpoint, `scontrol requeue`, and the requeued job ends
#     with a chain file identical to an uninterrupted run.
# Exit code 77 (CTest: skipped) with a message when the SLURM or munge packages are missing or the
# daemons do not start. Every daemon started here is stopped by pid on exit.
# shellcheck source-path=SCRIPTDIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../cli/common.sh
source "$here/../cli/common.sh"
# shellcheck source=local_cluster.sh
source "$here/local_cluster.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"
JOBSCRIPTS=${JOBSCRIPTS:-$here/../../jobscripts}
CHAIN_SECONDS=${CHAIN_SECONDS:-80}   # single-core filter time of the requeued chain
CHAIN_PARTICLES=200000
# The jobs run side by side on 2 cores, with more ranks than cores. Ranks that srun starts do not
# know that (the pretend node has 8 CPUs) and would spin in MPI's progress loop while the rank they
# wait for has no core: the pmmh job, a collective per iteration, ran 20 times slower than alone.
export OMPI_MCA_mpi_yield_when_idle=1

background=()
show_logs() {
  echo "---- job logs"
  for f in "$WORK"/jobs/*.out; do [ -e "$f" ] && { echo "== $f"; tail -n 25 "$f"; }; done
  echo "---- daemon logs"
  for f in "$WORK"/cluster/log/*.log; do [ -e "$f" ] && { echo "== $f"; tail -n 15 "$f"; }; done
}
cleanup() {
  local rc=$? pid
  for pid in "${background[@]}"; do kill "$pid" 2>/dev/null || true; done
  cluster_stop
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then show_logs; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

rc=0
cluster_start "$WORK/cluster" || rc=$?
if [ "$rc" -ne 0 ]; then
  echo "SKIP: no local SLURM controller could be started here; the job scripts were not run on SLURM"
  exit 77
fi
echo "srun MPI plugins: $(srun --mpi=list 2>&1 | sed -n 's/^\t//p' | tr '\n' ' ')"
mkdir -p "$WORK/jobs"
cd "$WORK/jobs" || exit 1
t0=$SECONDS

same() {  # same WHAT A.h5 B.h5 [options]: every dataset byte-identical
  local what=$1 a=$2 b=$3
  shift 3
  if [ ! -e "$a" ] || [ ! -e "$b" ]; then
    fail "$what: no result file ($a: $([ -e "$a" ] && echo present || echo missing), $b: $([ -e "$b" ] && echo present || echo missing))"
  else
    "$H5_DATASETS_EQUAL" "$@" "$a" "$b" >/dev/null || fail "$what: $a and $b differ"
  fi
}
submit() {  # submit ARGS...: sbatch, prints the job id
  sbatch --parsable "$@" | cut -d';' -f1
}
finished() {  # finished WHAT ID SECONDS [STATE]: wait for job ID; every task must end in STATE (COMPLETED)
  local what=$1 id=$2 limit=$3 want=${4:-COMPLETED} states
  if ! cluster_wait_job "$id" "$limit"; then
    fail "$what: job $id still queued or running after $limit s"
    return 1
  fi
  states=$(scontrol -o show job "$id" | grep -o 'JobState=[A-Z_]*' | sort -u | tr '\n' ' ')
  if [ "$states" != "JobState=$want " ]; then
    fail "$what: job $id ended with $states(expected $want)"
    return 1
  fi
}
expect_log() {  # expect_log WHAT FILE PATTERN
  grep -q -- "$3" "$2" || fail "$1: '$3' not in $2"
}
wait_for_line() {  # wait_for_line FILE PATTERN SECONDS: until FILE has a line matching PATTERN; false on timeout
  local limit=$((SECONDS + $3))
  until grep -q -- "$2" "$1" 2>/dev/null; do
    [ $SECONDS -lt $limit ] || return 1
    sleep 0.2
  done
}

# ---- the chain first: it takes longest. Calibrate its length to CHAIN_SECONDS on this machine.
rate=$("$RSMC" filter --particles "$CHAIN_PARTICLES" --steps 30 --seed 2 | sed -n 's/.*, \([0-9.e+]*\) particle-steps\/s$/\1/p')
chain_steps=$(awk -v r="$rate" -v s="$CHAIN_SECONDS" -v n="$CHAIN_PARTICLES" 'BEGIN { printf "%d", s * r / n + 1 }')
echo "rsmc runs at $rate particle-steps/s here: the requeued chain filters $CHAIN_PARTICLES particles for $chain_steps steps (~$CHAIN_SECONDS s)"
chain_id=$(PARTICLES=$CHAIN_PARTICLES STEPS=$chain_steps SEED=5 OUTPUT=chain.h5 CHECKPOINT_DIR=chain.ckpt \
  submit --ntasks=1 --time=1 --signal=B:USR1@55 --output=chain.out "$JOBSCRIPTS/rsmc-chain.sbatch")
"$RSMC" filter --particles "$CHAIN_PARTICLES" --steps "$chain_steps" --seed 5 --quiet -o chain_ref.h5 &
chain_ref_pid=$!
background+=("$chain_ref_pid")

# ---- 1. CPU job on 2 tasks == a direct mpiexec run
config=(--particles 40000 --steps 30 --seed 4)
rsmc_np 2 filter "${config[@]}" --quiet -o direct.h5 || fail "direct mpiexec run"
export PARTICLES=40000 STEPS=30 SEED=4
cpu_id=$(OUTPUT=cpu.h5 submit --ntasks=2 --time=5 --output=cpu.out "$JOBSCRIPTS/rsmc-cpu.sbatch")
cpu_mpirun_id=$(OUTPUT=cpu_mpirun.h5 LAUNCHER=mpirun submit --ntasks=2 --time=5 --output=cpu_mpirun.out \
  "$JOBSCRIPTS/rsmc-cpu.sbatch")
# ---- 3. GPU job without a usable GPU (the same configuration)
gpu_id=$(OUTPUT=gpu.h5 submit --ntasks=2 --cpus-per-task=1 --time=5 --output=gpu.out "$JOBSCRIPTS/rsmc-gpu.sbatch")
nogpu_id=$(OUTPUT=nogpu.h5 submit --ntasks=2 --cpus-per-task=1 --gpus-per-task=0 --time=5 --output=nogpu.out \
  "$JOBSCRIPTS/rsmc-gpu.sbatch")
gpufail_id=$(OUTPUT=gpufail.h5 GPU_FALLBACK=fail submit --ntasks=2 --cpus-per-task=1 --time=5 --output=gpufail.out \
  "$JOBSCRIPTS/rsmc-gpu.sbatch")
unset PARTICLES STEPS SEED

if finished "CPU job (auto launcher)" "$cpu_id" 120; then
  same "CPU job vs direct mpiexec" direct.h5 cpu.h5
  if grep -qw pmix <<<"$(srun --mpi=list 2>&1)"; then expect_log "CPU job" cpu.out "2 ranks with srun"; fi
fi
finished "CPU job (LAUNCHER=mpirun)" "$cpu_mpirun_id" 120 && same "CPU job with mpirun vs direct" direct.h5 cpu_mpirun.h5
if finished "GPU job, GPUs granted but not visible" "$gpu_id" 120; then
  same "GPU job fallback vs direct" direct.h5 gpu.h5
  if output_has '^GPU' nvidia-smi -L 2>/dev/null; then
    echo "note: this machine has a GPU; the pretend-GPU job ran the GPU path"
  else
    expect_log "GPU job" gpu.out "none visible.*falling back to the CPU build"
  fi
fi
if finished "GPU job, no GPU requested" "$nogpu_id" 120; then
  same "GPU job without GPUs vs direct" direct.h5 nogpu.h5
  expect_log "GPU job, no GPU requested" nogpu.out "no GPU in this allocation.*falling back to the CPU build"
fi
if finished "GPU job, GPU_FALLBACK=fail" "$gpufail_id" 120 FAILED; then
  [ ! -e gpufail.h5 ] || fail "GPU_FALLBACK=fail wrote a result"
  output_has '^GPU' nvidia-smi -L 2>/dev/null || expect_log "GPU_FALLBACK=fail" gpufail.out "stopping without running"
fi
echo "CPU and GPU jobs checked at $((SECONDS - t0)) s"

# ---- 2. array jobs: 3 replicas, then a 2-task sweep from a file
array_id=$(PARTICLES=20000 STEPS=20 SEED=10 submit --array=0-2 --time=5 --output='array-%A_%a.out' \
  "$JOBSCRIPTS/rsmc-array.sbatch")
cat >sweep.txt <<'EOF'
# one task per line
--particles 15000 --resampling stratified

--particles 25000 --seed 11 --ess-threshold 0.8
EOF
sweep_id=$(STEPS=20 SEED=3 SWEEP=file PARAM_FILE=sweep.txt OUTPUT_PREFIX=sweep \
  submit --array=0-1 --time=5 --output='sweep-%A_%a.out' "$JOBSCRIPTS/rsmc-array.sbatch")
for i in 0 1 2; do
  "$RSMC" filter --particles 20000 --steps 20 --seed $((10 + i)) --quiet -o "replica_ref$i.h5" || fail "replica $i direct run"
done
"$RSMC" filter --particles 15000 --resampling stratified --steps 20 --seed 3 --quiet -o sweep_ref0.h5 || fail "sweep 0 direct"
"$RSMC" filter --particles 25000 --seed 11 --ess-threshold 0.8 --steps 20 --quiet -o sweep_ref1.h5 || fail "sweep 1 direct"
if finished "array job" "$array_id" 120; then
  for i in 0 1 2; do same "array task $i" "replica_ref$i.h5" "rsmc-array-${array_id}_$i.h5"; done
  for pair in "0 1" "0 2" "1 2"; do
    read -r a b <<<"$pair"
    if "$H5_DATASETS_EQUAL" "rsmc-array-${array_id}_$a.h5" "rsmc-array-${array_id}_$b.h5" >/dev/null 2>&1; then
      fail "array tasks $a and $b wrote the same result"
    fi
  done
fi
if finished "sweep array job" "$sweep_id" 120; then
  for i in 0 1; do same "sweep task $i" "sweep_ref$i.h5" "sweep-${sweep_id}_$i.h5"; done
fi
echo "array jobs checked at $((SECONDS - t0)) s"

# ---- 4b. CHAIN_MODE=submit: signal the batch script by hand once the filter runs; the successor
# (submitted with --dependency=afterany) continues from the checkpoint.
small_steps=$(awk -v r="$rate" -v n="$CHAIN_PARTICLES" 'BEGIN { printf "%d", 8 * r / n + 1 }')
"$RSMC" filter --particles "$CHAIN_PARTICLES" --steps "$small_steps" --seed 6 --quiet -o submit_ref.h5 &
submit_ref_pid=$!
background+=("$submit_ref_pid")
first=$(CHAIN_MODE=submit CHAIN_SBATCH_ARGS="--signal=B:USR1@10 --output=submit-%j.out" PARTICLES=$CHAIN_PARTICLES STEPS=$small_steps SEED=6 OUTPUT=submit.h5 \
  CHECKPOINT_DIR=submit.ckpt submit --ntasks=1 --time=5 --signal=B:USR1@10 --output='submit-%j.out' \
  "$JOBSCRIPTS/rsmc-chain.sbatch")
wait_for_line "submit-$first.out" '^rsmc .* filter:' 60 || true  # the checks below say what went wrong
sleep 2
scancel --batch --signal=USR1 "$first" || fail "CHAIN_MODE=submit: scancel --signal=USR1 failed"
if finished "CHAIN_MODE=submit, first job" "$first" 90; then
  next=$(sed -n 's/.*submitted successor job \([0-9]*\).*/\1/p' "submit-$first.out")
  if [ -z "$next" ]; then
    fail "CHAIN_MODE=submit: no successor submitted"
  elif finished "CHAIN_MODE=submit, successor" "$next" 120; then
    expect_log "CHAIN_MODE=submit, successor" "submit-$next.out" "continuing from the newest checkpoint"
    wait "$submit_ref_pid" || fail "CHAIN_MODE=submit: uninterrupted run"
    same "CHAIN_MODE=submit vs uninterrupted" submit_ref.h5 submit.h5
  fi
fi
echo "CHAIN_MODE=submit checked at $((SECONDS - t0)) s"

# ---- 5. rsmc-pmmh.sbatch. Segment 1: the signal kills the tasks before rsmc starts (the launched
# program signals the job, then waits without a handler); the script requeues. Segment 2: stopped
# by hand once the chains run; it checkpoints and requeues. Segment 3 continues from the checkpoint
# and completes. Long enough (about 20 s on one core) for the signal to land before the end.
# --signal=B:USR1@10: SLURM's own signal (the script's @300 with --time=5 comes at once) stays out.
# Not quiet: the test waits for rsmc's banner.
sed 's/^iterations = 60$/iterations = 40000/; s/^particles = 48$/particles = 100/; /^quiet = true$/d' \
  "$here/../cli/pmmh_local_level.toml" >pmmh.toml
rsmc_np 2 pmmh --config pmmh.toml --chains 2 --quiet --output pmmh_ref.h5 &
pmmh_ref_pid=$!
background+=("$pmmh_ref_pid")
cat >early_signal_rsmc.sh <<EOF
#!/usr/bin/env bash
# the first segment's tasks: signal the job, and die of the signal forwarded to them
if [ "\${SLURM_RESTART_COUNT:-0}" = 0 ]; then
  scancel --batch --signal=USR1 "\$SLURM_JOB_ID"
  sleep 60
  exit 3
fi
exec "$RSMC" "\$@"
EOF
chmod +x early_signal_rsmc.sh
pmmh_id=$(RSMC=$PWD/early_signal_rsmc.sh CONFIG=pmmh.toml CHAINS=2 OUTPUT=pmmh.h5 \
  CHECKPOINT=pmmh.checkpoint.h5 submit --ntasks=2 --time=5 --signal=B:USR1@10 --output=pmmh.out \
  "$JOBSCRIPTS/rsmc-pmmh.sbatch")
# rsmc's banner: every rank's signal handlers are in place (before it, SIGUSR1 would kill the tasks)
wait_for_line pmmh.out '^rsmc .* pmmh:' 90 || fail "rsmc-pmmh: no banner of rsmc pmmh in pmmh.out within 90 s"
sleep 3
scancel --batch --signal=USR1 "$pmmh_id" || fail "rsmc-pmmh: scancel --signal=USR1 failed"
if finished "rsmc-pmmh job" "$pmmh_id" 300; then
  expect_log "rsmc-pmmh job" pmmh.out "stopped before it could checkpoint"
  expect_log "rsmc-pmmh job" pmmh.out "checkpointed to pmmh.checkpoint.h5 after SIGUSR1"
  expect_log "rsmc-pmmh job" pmmh.out "requeueing job $pmmh_id"
  expect_log "rsmc-pmmh job" pmmh.out "continuing the chains of pmmh.checkpoint.h5"
  expect_log "rsmc-pmmh job" pmmh.out "completed: pmmh.h5"
  wait "$pmmh_ref_pid" || fail "rsmc-pmmh: uninterrupted run"
  same "rsmc-pmmh job vs uninterrupted" pmmh_ref.h5 pmmh.h5
fi
echo "rsmc-pmmh job checked at $((SECONDS - t0)) s"

# ---- 4. the requeued chain
if finished "chained job" "$chain_id" 480; then
  restarts=$(scontrol -o show job "$chain_id" | sed -n 's/.* Restarts=\([0-9]*\).*/\1/p')
  requeues=$(grep -c 'requeueing job' chain.out || true)
  echo "chained job: $((${restarts:-0} + 1)) segments ($requeues requeues by the script, Restarts=$restarts)"
  [ "${restarts:-0}" -ge 2 ] || fail "chained job: only ${restarts:-0} requeues (at least 2 wanted; raise CHAIN_SECONDS)"
  [ "$requeues" -ge 2 ] || fail "chained job: the script requeued $requeues times"
  expect_log "chained job" chain.out "completed: chain.h5"
  wait "$chain_ref_pid" || fail "chained job: uninterrupted run"
  same "chained job vs uninterrupted" chain_ref.h5 chain.h5
fi
echo "chained job checked at $((SECONDS - t0)) s"
finish
