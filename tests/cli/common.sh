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

# signal_when_output SIGNAL PID LOG PATTERN [SECONDS]: waits until LOG, the output of the run PID,
# has a line matching PATTERN (at most SECONDS, default 60), then sends SIGNAL to PID (a rank, or
# mpiexec, which forwards it). Chosen so that the run is then past its start-up, its handlers
# installed, and mid-run, however fast or loaded the machine: a fixed delay either struck a run still
# starting (under CI's load) or one already done.
signal_when_output() {
  local signal=$1 pid=$2 log=$3 pattern=$4 limit=${5:-60} tenths=0
  until grep -q "$pattern" "$log" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { fail "$signal: the run ended before its output matched '$pattern' ($log)"; return 1; }
    ((tenths++ < 10 * limit)) || { fail "$signal: no output matched '$pattern' within $limit s ($log)"; return 1; }
    sleep 0.1
  done
  kill "-$signal" "$pid" || fail "$signal: the run ended before the signal"
}

# signal_when_stepping SIGNAL PID LOG: signal_when_output once the filter's --progress line (stderr,
# drawn from 0.5 s on) shows a step.
signal_when_stepping() { signal_when_output "$1" "$2" "$3" 'step [1-9]'; }

# expect_one_error P PATTERN OUTPUT ARGS...: rsmc on P ranks with ARGS must exit non-zero with exactly
# one `rsmc: error:` line on stderr, matching PATTERN, and leave neither OUTPUT nor its temporary
# file (.OUTPUT.tmp*) behind; OUTPUT "" when the run names no output.
expect_one_error() {
  local p=$1 pattern=$2 out=$3 code=0 lines
  shift 3
  [ -z "$out" ] || rm -f "$out"
  rsmc_np "$p" "$@" >"$WORK/stdout" 2>"$WORK/stderr" || code=$?
  lines=$(grep -c '^rsmc: error:' "$WORK/stderr" || true)
  if [ "$code" -eq 0 ]; then
    fail "expected failure, got exit 0: rsmc $*"
  elif [ "$lines" -ne 1 ]; then
    fail "expected exactly one 'rsmc: error:' line, got $lines: rsmc $*: $(cat "$WORK/stderr")"
  elif ! output_has "$pattern" grep '^rsmc: error:' "$WORK/stderr"; then
    fail "error line does not mention '$pattern': rsmc $*: $(cat "$WORK/stderr")"
  elif [ -n "$out" ] && { [ -e "$out" ] || compgen -G "$(dirname "$out")/.$(basename "$out").tmp*" >/dev/null; }; then
    fail "an output file was written despite the error: rsmc $*"
  else
    echo "ok ($p ranks): $(grep '^rsmc: error:' "$WORK/stderr")"
  fi
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
