#!/usr/bin/env bash
# Issue 39, acceptance 5 and the set-up half of E: a run whose input-sized data cannot fit is refused
# with one line naming the input and the bytes it needs, before anything input-sized is allocated:
# the process's peak resident memory (VmHWM, measured by tests/tools/peak_rss) stays below 200 MB.
#  - `--steps 1e9` without --data (the simulated data and per-step results of 10^9 steps);
#  - Lorenz-96 with d = 10^8 from a run file (the message names the file's line), on 1 and 2 ranks;
#  - `rsmc simulate --steps 2e9`-sized data and `rsmc pmmh` simulating 10^9 steps.
# And SIGTERM during the set-up (here: reading --data from a FIFO that never ends) ends the run at
# once with one line and exit code 143, writing nothing.
source "$(dirname "$0")/common.sh"
: "${PEAK_RSS:?set by CTest}"
cd "$WORK"
limit_kb=$((200 * 1024))

# refused WHAT PATTERN P ARGS...: rsmc on P ranks (1: without mpiexec) exits 1 with one error line
# matching PATTERN, writes nothing, and peaks below 200 MB.
refused() {
  local what=$1 pattern=$2 p=$3 rc=0 peak
  shift 3
  if [ "$p" -eq 1 ]; then
    "$PEAK_RSS" peak.txt "$RSMC" "$@" >out.txt 2>err.txt || rc=$?
  else
    # shellcheck disable=SC2086
    "$PEAK_RSS" peak.txt "$MPIEXEC" -n "$p" $MPIEXEC_FLAGS "$RSMC" "$@" >out.txt 2>err.txt || rc=$?
  fi
  peak=$(cat peak.txt 2>/dev/null || echo 0)
  if [ "$rc" -eq 0 ] || [ "$(grep -c '^rsmc: error:' err.txt)" -ne 1 ] || ! grep -q -- "^rsmc: error: $pattern" err.txt; then
    fail "$what: rc $rc, expected one error line matching '$pattern': $(head -c 1500 err.txt)"
  elif [ "$p" -eq 1 ] && { [ "$rc" -ne 1 ] || [ "$(wc -l <err.txt)" -ne 1 ]; }; then
    fail "$what: rc $rc and $(wc -l <err.txt) lines on stderr; expected exit 1 and one line"
  elif [ "$peak" -le 0 ] || [ "$peak" -ge "$limit_kb" ]; then
    fail "$what: peak resident memory $peak kB; expected below $limit_kb kB (refused before allocating)"
  else
    echo "ok ($p rank(s), peak $((peak / 1024)) MB): $(grep '^rsmc: error:' err.txt)"
  fi
  [ ! -s out.txt ] && ! compgen -G "res*" >/dev/null && ! compgen -G ".res*" >/dev/null && [ ! -e ck ] ||
    fail "$what: something was written"
}

bytes='[0-9.]* [KMGTPE]iB per rank'
refused "--steps 1e9 without data" "--steps: 1000000000 steps need $bytes (1000000000 steps x [0-9]* bytes per step for the per-step results and the simulated data), but only [0-9.]* [A-Za-z]* of memory is available per rank" \
  1 filter --particles 1000 --steps 1e9 --checkpoint-dir ck -o res.h5
refused "--steps 1e9 without data, 2 ranks" "--steps: 1000000000 steps need $bytes" \
  2 filter --particles 1000 --steps 1e9 --checkpoint-dir ck -o res.h5
printf 'model = "lorenz96"\n[parameters]\nd = 100000000\n' >l96.toml
for p in 1 2; do
  refused "Lorenz-96 with d = 10^8 on $p rank(s)" \
    "--[a-z]*: [0-9]* [a-z]* need $bytes (.*state dimension 100000000 (.*l96.toml:3: parameters.d))" \
    "$p" filter --config l96.toml --particles 100 --checkpoint-dir ck -o res.h5
done
refused "rsmc simulate of 2e9 steps" "--steps: 2000000000 steps need $bytes (2000000000 steps x [0-9]* bytes per step for the simulated data)" \
  1 simulate --steps 2e9 -o res.csv
cat >pmmh.toml <<'TOML'
model = "local_level"
particles = 32
iterations = 10
[infer.sigma_eps2]
prior = "inverse_gamma"
shape = 3.0
scale = 2.0
initial = 1.0
TOML
refused "rsmc pmmh simulating 10^9 steps" "--steps: 1000000000 steps need $bytes" \
  1 pmmh --config pmmh.toml --steps 1e9 --checkpoint ck -o res.h5

# ---- SIGTERM during the set-up: the run blocks reading --data from a FIFO (its handlers are long
# installed); the signal ends it at once with one line.
mkfifo data.csv
sleep 60 >data.csv &  # the FIFO's writer: opens it once rsmc does, never writes
writer=$!
"$RSMC" filter --data data.csv --particles 100 -o res.h5 --checkpoint-dir ck >out.txt 2>err.txt &
pid=$!
tenths=0
until [ -n "$(find "/proc/$pid/fd" -lname "*data.csv" 2>/dev/null)" ]; do  # rsmc is reading the data
  kill -0 "$pid" 2>/dev/null && [ $((tenths += 1)) -le 300 ] || break
  sleep 0.1
done
start=$(date +%s)
kill -TERM "$pid" 2>/dev/null || fail "SIGTERM during the set-up: rsmc ended before reading the data ($(cat err.txt))"
rc=0
wait "$pid" || rc=$?
kill "$writer" 2>/dev/null || true
seconds=$(($(date +%s) - start))
[ "$rc" -eq 143 ] || fail "SIGTERM during the set-up: exit code $rc, expected 143 ($(cat err.txt))"
[ "$(wc -l <err.txt)" -eq 1 ] && grep -q "^rsmc: error: stopped by SIGTERM during the set-up, before the first step" err.txt ||
  fail "SIGTERM during the set-up: expected one line saying so, got: $(cat err.txt)"
[ "$seconds" -le 5 ] || fail "SIGTERM during the set-up: the run took $seconds s to end after the signal"
[ ! -e res.h5 ] && [ ! -e ck ] || fail "SIGTERM during the set-up: something was written"
finish
