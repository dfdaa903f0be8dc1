# shellcheck shell=bash
# A private SLURM cluster on localhost for the tests: munged, slurmctld and slurmd from Debian's
# munge and slurm-wlm packages, with their own key, sockets, ports, state and logs under one
# directory. Sourced; needs `set -euo pipefail`. Clients (sbatch, squeue, scontrol) find it through
# the exported SLURM_CONF. cluster_stop stops only the daemons cluster_start started, by pid.
#
#   cluster_start DIR    start everything under DIR; returns 77 with a message when it cannot
#   cluster_stop         stop the daemons (safe to call twice, and from an EXIT trap)
#   cluster_wait_job ID SECONDS    wait until job ID (all its array tasks) has left the queue
#
# The configuration is minimal: one node (this machine, with at least 8 CPUs declared), proctrack/
# linuxproc, task/none, no cgroup.conf, no accounting. Options that keep the tests fast: the scheduler runs every 2 s,
# a requeued job may start again after cred_expire=10 s (default 120 s), finished jobs stay visible
# to scontrol for 10 minutes.

CLUSTER_PIDS=()
CLUSTER_DIR=""

cluster_log() { echo "slurm-cluster: $*"; }

# cluster_free_port: a TCP port nothing listens on (the kernel's choice, released right away).
cluster_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

cluster_start() {
  CLUSTER_DIR=$1
  local d=$CLUSTER_DIR tool
  for tool in munged mungekey slurmctld slurmd slurmstepd sbatch squeue scontrol srun; do
    if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
      cluster_log "SKIP: '$tool' is not installed (Debian packages munge, slurmctld, slurmd, slurm-client;"
      cluster_log "      scripts/install-deps.sh installs them)"
      return 77
    fi
  done
  if [ "$(id -u)" -ne 0 ]; then
    cluster_log "SKIP: slurmd must run as root to start jobs (this test is run as $(id -un))"
    return 77
  fi
  export PATH="$PATH:/usr/sbin"
  mkdir -p "$d"/{munge,state,spool,log}
  chmod 0700 "$d/munge"
  mungekey --create --keyfile="$d/munge/munge.key" --force >/dev/null 2>&1 ||
    dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 status=none
  chmod 0600 "$d/munge/munge.key"

  local node cpus mem ctld_port slurmd_port i
  node=$(hostname -s)
  # At least 8 CPUs (SlurmdParameters=config_overrides accepts more than the machine has), so that
  # the tests' jobs run side by side even on 2 cores; 4 pretend GPUs.
  cpus=$(nproc)
  [ "$cpus" -ge 8 ] || cpus=8
  mem=$(slurmd -C 2>/dev/null | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' | head -n1)
  mem=${mem:-1024}
  ctld_port=$(cluster_free_port)
  slurmd_port=$(cluster_free_port)
  while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(cluster_free_port); done

  cat >"$d/slurm.conf" <<EOF
ClusterName=rsmctest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/munge.socket,cred_expire=10
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/slurmd-%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=2
JobRequeue=1
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=600
KillWait=10
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=60
GresTypes=gpu
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem Gres=gpu:4 State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
  # 4 pretend GPUs (their "device files" are links to /dev/null): jobs may ask for GPUs and have them
  # granted, and jobscripts/rsmc-gpu.sbatch then finds none it can use.
  mkdir -p "$d/dev"
  : >"$d/gres.conf"
  for ((i = 0; i < 4; i++)); do
    ln -sf /dev/null "$d/dev/fakegpu$i"
    echo "NodeName=$node Name=gpu File=$d/dev/fakegpu$i" >>"$d/gres.conf"
  done
  export SLURM_CONF="$d/slurm.conf"

  munged --foreground --force --socket="$d/munge/munge.socket" --key-file="$d/munge/munge.key" \
    --pid-file="$d/munge/munged.pid" --log-file="$d/log/munged.log" --seed-file="$d/munge/munged.seed" \
    >"$d/log/munged.out" 2>&1 &
  CLUSTER_PIDS+=($!)
  for i in $(seq 1 50); do [ -S "$d/munge/munge.socket" ] && break; sleep 0.1; done
  if [ ! -S "$d/munge/munge.socket" ]; then
    cluster_log "SKIP: munged did not start: $(tail -n 3 "$d/log/munged.out" "$d/log/munged.log" 2>/dev/null)"
    return 77
  fi

  slurmctld -D -i -f "$d/slurm.conf" >"$d/log/slurmctld.out" 2>&1 &
  CLUSTER_PIDS+=($!)
  slurmd -D -f "$d/slurm.conf" -N "$node" >"$d/log/slurmd.out" 2>&1 &
  CLUSTER_PIDS+=($!)

  # Ready when the node is idle (slurmd registered) — at most 60 s.
  local state=""
  for i in $(seq 1 120); do
    state=$(sinfo -h -n "$node" -o %t 2>/dev/null || true)
    case $state in idle*) break ;; esac
    sleep 0.5
  done
  case $state in
    idle*) cluster_log "up in $d: node $node ($cpus CPUs), slurmctld port $ctld_port, slurmd port $slurmd_port" ;;
    *)
      cluster_log "SKIP: the daemons did not come up (node state '$state'); their logs:"
      tail -n 5 "$d"/log/*.log "$d"/log/*.out 2>/dev/null | sed 's/^/  /'
      return 77
      ;;
  esac
}

cluster_stop() {
  local pid i
  [ ${#CLUSTER_PIDS[@]} -gt 0 ] || return 0
  # Jobs first (scancel asks slurmd to kill their processes), then the daemons in reverse order.
  if [ -n "$(squeue -h -o %i 2>/dev/null)" ]; then
    scancel --quiet --user="$(id -un)" >/dev/null 2>&1 || true
    for _ in $(seq 1 30); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.5; done
  fi
  for ((i = ${#CLUSTER_PIDS[@]} - 1; i >= 0; i--)); do
    pid=${CLUSTER_PIDS[i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  CLUSTER_PIDS=()
}

# cluster_wait_job ID SECONDS: 0 once no task of job ID is pending or running, 1 on timeout.
cluster_wait_job() {
  local id=$1 limit=$2 start=$SECONDS
  while [ $((SECONDS - start)) -lt "$limit" ]; do
    [ -z "$(squeue -h -j "$id" -o %i 2>/dev/null)" ] && return 0
    sleep 1
  done
  return 1
}
