#!/usr/bin/env bash
# Acceptance of `rsmc filter --trace` and `rsmc smooth` (docs/smoothing.md):
# - trace files are byte-for-byte identical for 1, 2, 3 and 4 ranks (and their datasets, compared
#   by h5_datasets_equal, which names a differing dataset), for several schemes and --trace-every;
# - `rsmc smooth` agrees with an independent numpy genealogy smoother (moments, distinct ancestors,
#   --paths trajectories) and gives byte-identical outputs on 1 and 3 ranks; its last step is the
#   filter's own filtered mean (same weights); --trace-every K records steps K, 2K, ... and the last step, and
#   smoothing its steps gives exactly the values of a --trace-every 1 trace there; tracing changes
#   no result; a run stopped by SIGTERM publishes the trace of its steps;
# - `rsmc info` describes traces and smoothed files; tools/plot.py overlays a smoothed file;
# - bad inputs: one `rsmc: error:` line naming the input, a non-zero exit, nothing written or changed.
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"
python=${PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3

configs=(
  "--particles 1001 --steps 20 --seed 3"
  "--particles 999 --steps 15 --seed 8 --ess-threshold 0.9 --resampling multinomial --trace-every 4"
  "--particles 999 --steps 15 --seed 8 --ess-threshold 0.9 --resampling residual --trace-every 2"
  "--particles 999 --steps 12 --seed 8 --ess-threshold 0.9 --resampling multinomial --resampler roulette-algorithm1"
  "--model nonlinear_growth --particles 700 --steps 12 --seed 2 --ess-threshold 1"
)
for config in "${configs[@]}"; do
  for p in 1 2 3 4; do
    # shellcheck disable=SC2086
    rsmc_np "$p" filter $config --quiet --trace "$WORK/trace_p$p.h5" --output "$WORK/result_p$p.h5" ||
      fail "rsmc filter --trace on $p ranks ($config) failed"
  done
  for p in 2 3 4; do
    cmp -s "$WORK/trace_p1.h5" "$WORK/trace_p$p.h5" || fail "trace files of 1 and $p ranks differ ($config)"
  done
  "$H5_DATASETS_EQUAL" "$WORK"/trace_p{1,2,3,4}.h5 || fail "trace datasets differ across rank counts ($config)"
  rsmc_np 1 smooth "$WORK/trace_p2.h5" -o "$WORK/smoothed_1.h5" --quiet || fail "rsmc smooth on 1 rank ($config)"
  rsmc_np 3 smooth "$WORK/trace_p2.h5" -o "$WORK/smoothed_3.h5" --quiet || fail "rsmc smooth on 3 ranks ($config)"
  cmp -s "$WORK/smoothed_1.h5" "$WORK/smoothed_3.h5" || fail "smoothed files of 1 and 3 ranks differ ($config)"
  # The last recorded step is the last filtered step: its smoothed mean is the filtered mean, up to
  # rounding. The smoother sums w x exactly; the filter sums w (x - K) about K = its previous mean
  # (reproducible binned sums, docs/reproducibility.md). Each term is rounded at most twice more by
  # 2^-53 relative, so the two differ by at most 3 * 2^-53 (max|x| + |K|) plus half an ulp of each.
  "$python" - "$WORK/result_p1.h5" "$WORK/smoothed_1.h5" "$WORK/trace_p2.h5" <<'PY' ||
import sys, h5py, numpy as np
r, s, t = (h5py.File(f, "r") for f in sys.argv[1:4])
T = r["filtered_mean"].shape[0]
assert s["steps"][-1] == T, (s["steps"][-1], r["filtered_mean"].shape)
smoothed, filtered = s["smoothed_mean"][-1], r["filtered_mean"][-1]
k = np.abs(r["filtered_mean"][-2])
max_abs_x = np.max(np.abs(t[f"cloud/{T}/state"][()]), axis=-1)
bound = 3 * 2.0**-53 * (max_abs_x + k) + 2.0**-52 * np.abs(filtered)
assert np.all(np.abs(smoothed - filtered) <= bound), (smoothed, filtered, bound)
PY
    fail "smoothed last step != filtered mean ($config)"
  rm -f "$WORK"/trace_p*.h5 "$WORK"/result_p*.h5 "$WORK"/smoothed_*.h5
done

# --trace-every 4 over 15 steps: clouds at 4, 8, 12 and the last step 15; every resampling recorded.
run="--particles 500 --steps 15 --seed 4 --ess-threshold 0.9 --quiet"
# shellcheck disable=SC2086
rsmc_np 2 filter $run --trace "$WORK/every4.h5" --trace-every 4 --output "$WORK/every4_result.h5" ||
  fail "filter --trace-every 4"
"$RSMC" info "$WORK/every4.h5" >"$WORK/info.txt" || fail "rsmc info on a trace"
grep -q "clouds (4): 4 8 12 15" "$WORK/info.txt" || fail "--trace-every 4: unexpected clouds: $(grep clouds "$WORK/info.txt")"
"$python" - "$WORK/every4_result.h5" "$WORK/every4.h5" <<'PY' || fail "the trace's resampled steps differ from the result's"
import sys, h5py, numpy as np
r, t = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
expected = np.nonzero(np.asarray(r["resampled"]))[0] + 1
assert np.array_equal(np.asarray(t["resampled_steps"]), expected), (t["resampled_steps"][:], expected)
for s in expected:
    assert t[f"genealogy/{s}/ancestor"].shape == (500,)
PY
rsmc_np 2 smooth "$WORK/every4.h5" -o "$WORK/every4_smoothed.h5" >"$WORK/smooth.txt" || fail "smooth of --trace-every 4"
grep -q "smoothed 4 recorded steps" "$WORK/smooth.txt" || fail "smooth: unexpected summary: $(cat "$WORK/smooth.txt")"
output_has "rsmc smoothed moments" "$RSMC" info "$WORK/every4_smoothed.h5" || fail "rsmc info on a smoothed file"
if "$python" -c "import matplotlib" 2>/dev/null; then
  "$python" "$(dirname "$0")/../../tools/plot.py" "$WORK/every4_result.h5" --smoothed "$WORK/every4_smoothed.h5" \
    -o "$WORK/smoothed.png" >/dev/null || fail "plot.py --smoothed"
  [ -s "$WORK/smoothed.png" ] || fail "plot.py --smoothed wrote no PNG"
else
  fail "matplotlib is missing (scripts/install-deps.sh installs python3-matplotlib)"
fi

# Tracing changes no result, and smoothing the steps of a --trace-every 4 trace gives exactly the
# values of the --trace-every 1 trace at those steps (paths go through every resampling either way).
# shellcheck disable=SC2086
rsmc_np 3 filter $run --output "$WORK/plain.h5" || fail "filter without a trace"
# shellcheck disable=SC2086
rsmc_np 3 filter $run --output "$WORK/traced.h5" --trace "$WORK/every1.h5" || fail "filter --trace-every 1"
"$H5_DATASETS_EQUAL" --ignore /resampling_traffic "$WORK/plain.h5" "$WORK/traced.h5" || fail "--trace changed the results"
rsmc_np 1 smooth "$WORK/every1.h5" -o "$WORK/every1_smoothed.h5" --quiet || fail "smooth of --trace-every 1"
"$python" - "$WORK/every1_smoothed.h5" "$WORK/every4_smoothed.h5" <<'PY' || fail "--trace-every 4 smoothing != --trace-every 1 at its steps"
import sys, h5py, numpy as np
full, sub = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
rows = np.asarray(sub["steps"]) - 1
assert list(sub["steps"]) == [4, 8, 12, 15], list(sub["steps"])
for name in ("smoothed_mean", "smoothed_variance", "distinct_ancestors"):
    assert np.array_equal(np.asarray(full[name])[rows], np.asarray(sub[name])), name
PY

# An independent smoother (numpy, tracing all N paths through /genealogy) gives the same moments, and
# the --paths trajectories are the traced states of their particles.
rsmc_np 2 smooth "$WORK/every1.h5" -o "$WORK/paths.h5" --paths 7 --quiet || fail "smooth --paths 7"
output_has "sampled paths:        7" "$RSMC" info "$WORK/paths.h5" || fail "rsmc info: no sampled paths"
"$python" - "$WORK/every1.h5" "$WORK/paths.h5" <<'PY' || fail "the smoothed file disagrees with a numpy genealogy smoother"
import sys, h5py, numpy as np
t, s = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
steps, resampled = list(t["cloud_steps"]), set(int(x) for x in t["resampled_steps"])
lw = np.asarray(t[f"cloud/{steps[-1]}/log_weight"])
w = np.exp(lw - lw.max())
ids = np.asarray(s["sampled_path_ids"])
assert len(ids) == 7 and np.all(np.diff(ids.astype(np.int64)) >= 0) and np.all(w[ids] > 0), ids
paths, path = np.asarray(s["sampled_paths"]), np.arange(len(w))
assert paths.shape == (7, len(steps), t.attrs["state_dim"]), paths.shape
for k in reversed(range(len(steps))):
    x = np.asarray(t[f"cloud/{steps[k]}/state"])[:, path]  # d x N: the state of every path at this step
    mean = (x * w).sum(axis=1) / w.sum()
    var = (((x - mean[:, None]) ** 2) * w).sum(axis=1) / w.sum()
    assert np.allclose(s["smoothed_mean"][k], mean, rtol=1e-11, atol=1e-12), (steps[k], s["smoothed_mean"][k], mean)
    assert np.allclose(s["smoothed_variance"][k], var, rtol=1e-11, atol=1e-12), (steps[k], s["smoothed_variance"][k], var)
    assert s["distinct_ancestors"][k] == len(np.unique(path)), steps[k]
    assert np.array_equal(paths[:, k, :], x[:, ids].T), steps[k]
    if k > 0:
        for step in range(steps[k] - 1, steps[k - 1] - 1, -1):
            if step in resampled:
                path = np.asarray(t[f"genealogy/{step}/ancestor"])[path]
PY

# A run stopped by SIGTERM (exit 75, checkpointed) publishes the trace of the steps it completed. The
# signal goes once the --progress line shows step 10 or later (the first recorded cloud is step 10);
# 20,000 steps of 5,000 particles keep the run going well beyond that (about 5 s on the 2026-11-26
# AVX-512 machine).
"$RSMC" filter --particles 5000 --steps 20000 --seed 9 --progress --trace "$WORK/sig_trace.h5" \
  --trace-every 10 --checkpoint-dir "$WORK/sig_ck" >/dev/null 2>"$WORK/sig.log" &
pid=$!
signal_when_output TERM "$pid" "$WORK/sig.log" 'step [1-9][0-9]'
rc=0
wait "$pid" || rc=$?
if [ "$rc" -eq 75 ]; then
  checkpoint=$(ls "$WORK"/sig_ck/checkpoint-*.h5)
  step=$((10#$(basename "$checkpoint" .h5 | sed 's/checkpoint-//')))
  output_has "steps covered:        1..$step\$" "$RSMC" info "$WORK/sig_trace.h5" ||
    fail "SIGTERM: the trace does not cover the checkpointed steps 1..$step: $("$RSMC" info "$WORK/sig_trace.h5" | head -6)"
  "$RSMC" smooth "$WORK/sig_trace.h5" -o "$WORK/sig_smoothed.h5" --quiet || fail "smooth of an interrupted run's trace"
else
  fail "SIGTERM: exit code $rc, expected 75 ($(tr '\r' '\n' <"$WORK/sig.log" | tail -n 2))"
fi

# expect_error P PATTERN ARGS...: one error line matching PATTERN, non-zero exit.
expect_error() { expect_one_error "$1" "$2" "" "${@:3}"; }
new="$WORK/new_trace.h5"
expect_error 2 "--trace-every: 0 is not valid" filter --steps 3 --trace "$new" --trace-every 0
expect_error 1 "--trace-every: -2 is negative; expected an integer >= 1" filter --steps 3 --trace "$new" --trace-every -2
expect_error 2 "--trace-every: given without --trace" filter --steps 3 --trace-every 2
expect_error 2 "--resampler allgather does not record the genealogy" filter --steps 3 --trace "$new" --resampler allgather
expect_error 1 "--trace: cannot be combined with --restart" filter --steps 3 --trace "$new" --restart latest \
  --checkpoint-dir "$WORK/none"
[ -e "$new" ] && fail "a trace was written despite an error"
echo "precious" >"$WORK/existing.h5"
before=$(sha256sum <"$WORK/existing.h5")
expect_error 2 "--trace: $WORK/existing.h5 already exists" filter --steps 3 --trace "$WORK/existing.h5"
expect_error 1 "--output: $WORK/existing.h5 already exists" smooth "$WORK/every4.h5" -o "$WORK/existing.h5"
[ "$(sha256sum <"$WORK/existing.h5")" = "$before" ] || fail "an existing file was changed"
expect_error 2 "trace '$WORK/every4_result.h5': is an HDF5 file without an rsmc seal, not an rsmc trace" smooth "$WORK/every4_result.h5" -o "$WORK/s.h5"
expect_error 1 "--paths: -3 is not valid" smooth "$WORK/every4.h5" -o "$WORK/s.h5" --paths -3
expect_error 1 "trace '$WORK/missing.h5': cannot open" smooth "$WORK/missing.h5" -o "$WORK/s.h5"
expect_error 1 "trace '$WORK/existing.h5': is not an rsmc trace (no rsmc seal at its start" smooth "$WORK/existing.h5" -o "$WORK/s.h5"
[ -e "$WORK/s.h5" ] && fail "a smoothed file was written despite an error"
compgen -G "$WORK/.*.tmp*" >/dev/null && fail "a temporary file was left behind: $(ls -a "$WORK")"

# --overwrite replaces an existing trace.
rsmc_np 2 filter --steps 3 --particles 100 --trace "$WORK/existing.h5" --overwrite --quiet || fail "--trace --overwrite"
output_has "rsmc trace" "$RSMC" info "$WORK/existing.h5" || fail "--overwrite did not replace the file with a trace"
finish
