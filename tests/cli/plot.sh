#!/usr/bin/env bash
# tools/plot.py turns a result file into a PNG (filtered mean +- 2 sd against the simulated truth, ESS,
# log-likelihood) and the chains of rsmc pmmh into trace and density plots, and says clearly what is
# wrong with a file that is not a result.
source "$(dirname "$0")/common.sh"
plot="$(cd "$(dirname "$0")/../.." && pwd)/tools/plot.py"
# Debian's python3 has python3-h5py and python3-matplotlib (scripts/install-deps.sh installs them).
python=${PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3

# --help gives the whole description (it was once cut off mid-sentence) and the options.
"$python" "$plot" --help >"$WORK/help" || fail "plot.py --help failed"
grep -q "result file's name with .png) and prints its path" "$WORK/help" || fail "plot.py --help is cut off: $(cat "$WORK/help")"
grep -q -- "--smoothed SMOOTHED" "$WORK/help" || fail "plot.py --help lists no --smoothed"

rsmc_np 2 filter --particles 2000 --steps 30 --quiet -o "$WORK/result.h5" || fail "filter"
output_has "DATASPACE  SIMPLE { ( 30, 2 )" h5dump -d /true_state "$WORK/result.h5" ||
  fail "the result of simulated data has no 30 x 2 /true_state"
"$python" "$plot" "$WORK/result.h5" -o "$WORK/result.png" >/dev/null || fail "plot.py failed"
[ "$(head -c 8 "$WORK/result.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "not a PNG file"
[ "$(stat -c %s "$WORK/result.png")" -gt 20000 ] || fail "the PNG is suspiciously small"
if "$python" "$plot" "$WORK/missing.h5" 2>"$WORK/err"; then fail "plot.py accepted a missing file"; fi
grep -q "cannot open" "$WORK/err" || fail "plot.py: unclear message for a missing file: $(cat "$WORK/err")"
"$python" "$plot" "$WORK/result.h5" --components 7 2>"$WORK/err" && fail "plot.py accepted component 7 of 2"
grep -q "out of range" "$WORK/err" || fail "plot.py: unclear message for a bad component: $(cat "$WORK/err")"
# The chains of rsmc pmmh: trace plots and marginal densities.
cat >"$WORK/pmmh.toml" <<'TOML'
model = "local_level"
steps = 10
particles = 32
iterations = 40
quiet = true
[infer.sigma_eps2]
prior = "inverse_gamma"
shape = 3.0
scale = 2.0
initial = 1.0
TOML
rsmc_np 2 pmmh --config "$WORK/pmmh.toml" --chains 2 -o "$WORK/chains.h5" || fail "pmmh"
"$python" "$plot" "$WORK/chains.h5" -o "$WORK/chains.png" >/dev/null || fail "plot.py failed on the chains"
[ "$(head -c 8 "$WORK/chains.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "chains: not a PNG file"
[ "$(stat -c %s "$WORK/chains.png")" -gt 20000 ] || fail "chains: the PNG is suspiciously small"
finish
