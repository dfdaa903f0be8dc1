# Helpers for the command-line tests. Sourced; expects RSMC, MPIEXEC, MPIEXEC_FLAGS from CTest.
set -euo pipefail
: "${RSMC:?set by CTest}" "${MPIEXEC:=mpiexec}" "${MPIEXEC_FLAGS:=--oversubscribe}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rsmc-cli.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FAILURES=0

# rsmc_np P ARGS...: run rsmc on P ranks.
rsmc_np() {
  local p=$1
  shift
  # shellcheck disable=SC2086
  "$MPIEXEC" -n "$p" $MPIEXEC_FLAGS "$RSMC" "$@"
}

# signal_after SIGNAL SECONDS ARGS...: runs ARGS in the background, sends it SIGNAL after SECONDS and
# waits; SIGNAL_RC is its exit code (a failed check if it had ended before the signal).
signal_after() {
  local signal=$1 seconds=$2 pid
  shift 2
  "$@" &
  pid=$!
  sleep "$seconds"
  kill "-$signal" "$pid" || fail "$signal: the run ended before the signal: $*"
  SIGNAL_RC=0
  wait "$pid" || SIGNAL_RC=$?
}

# signal_when_stepping SIGNAL PID LOG: waits until LOG, the --progress output (stderr) of the filter
# run PID, shows a step, then sends SIGNAL to PID (a rank, or mpiexec, which forwards it). The run is
# then past its start-up, its handlers installed, and mid-run, however fast or loaded the machine:
# a fixed delay either struck a run still starting (under CI's load) or one already done.
signal_when_stepping() {
  local signal=$1 pid=$2 log=$3 tenths=0
  until grep -q 'step [1-9]' "$log" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { fail "$signal: the run ended before it showed a step ($log)"; return 1; }
    ((tenths++ < 600)) || { fail "$signal: the run showed no step within 60 s ($log)"; return 1; }
    sleep 0.1
  done
  kill "-$signal" "$pid" || fail "$signal: the run ended before the signal"
}

# output_has PATTERN CMD...: CMD succeeds and its standard output has a line matching PATTERN. The output
# is captured first: `CMD | grep -q PATTERN` under pipefail fails at random, when grep exits on the
# first match and CMD, still writing, dies of SIGPIPE.
output_has() {
  local pattern=$1 out
  shift
  out=$("$@") || return 1
  grep -q -- "$pattern" <<<"$out"
}

fail() {
  echo "FAIL: $*"
  FAILURES=$((FAILURES + 1))
}

finish() {
  if [ "$FAILURES" -ne 0 ]; then
    echo "$FAILURES check(s) failed"
    exit 1
  fi
  echo "all checks passed"
}
