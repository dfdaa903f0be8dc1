#!/usr/bin/env bash
# The benchmarks run and print valid JSON lines: `rsmc bench resample` on 1 and 3 ranks (every
# implementation, one line each), `rsmc bench select` on 1 and 3 ranks, `rsmc bench kernels` (every
# kernel and phase, a skipped line), `rsmc bench checkpoint`, `rsmc bench e2e` on 1 and 2 ranks,
# `rsmc bench memory`, and `rsmc sim-scale` at a small and a large point. Fields only: timing targets
# live in the benchmarks, never here.
source "$(dirname "$0")/common.sh"

for p in 1 3; do
  rsmc_np "$p" bench resample --particles 1000 --repeats 1 >"$WORK/bench_$p.jsonl" || fail "bench resample on $p ranks"
  python3 - "$WORK/bench_$p.jsonl" "$p" <<'PY' || fail "bench resample on $p ranks: bad JSON"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 4, lines
assert all(r["bench"] == "resample" and r["ranks"] == int(sys.argv[2]) for r in lines), lines
assert {r["implementation"] for r in lines} == {"roulette", "roulette-algorithm1", "allgather", "gather-root"}
PY
done

# --balance-tolerance on 3 ranks, skewed weights (offspring far outside every band): the roulette
# resamplers move exactly the band's exact minimum (bench/band_minimum.hpp), the baselines run at
# tau = 0 only, and scripts/balance_table.py (which fails on a mismatch) turns the lines into its table.
rsmc_np 3 bench resample --particles 3000 --repeats 2 --weights skewed --scheme systematic,multinomial \
  --balance-tolerance 0,0.1 >"$WORK/balance.jsonl" || fail "bench resample --balance-tolerance"
python3 - "$WORK/balance.jsonl" <<'PY' || fail "bench resample --balance-tolerance: bad JSON"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 2 * 4 * 2, len(lines)  # schemes x implementations x tolerances
run = [r for r in lines if not r.get("skipped")]
roulette = [r for r in run if r["implementation"].startswith("roulette")]
assert len(roulette) == 2 + 2 + 1 + 1, roulette  # roulette: both schemes; algorithm1: multinomial; each tau
assert all(r["particles_moved"] == r["band_minimum"] > 0 for r in roulette), roulette
assert all(r["balance_tolerance"] == 0 for r in run if not r["implementation"].startswith("roulette")), run
assert any(r["imbalance"] > 1.05 for r in roulette if r["balance_tolerance"] == 0.1), roulette
PY
python3 "$(dirname "$0")/../../scripts/balance_table.py" "$WORK/balance.jsonl" >"$WORK/balance.md" ||
  fail "balance_table.py"
grep -q "| skewed | roulette | systematic | 0.1 |" "$WORK/balance.md" || fail "balance_table.py: no row for tau = 0.1"

# `rsmc bench select` on 1 and 3 ranks: one line per (N, scheme, sampler); it checks the parallel
# selection against the serial one itself and fails if they differ.
for p in 1 3; do
  rsmc_np "$p" bench select --particles 1000,333 --scheme systematic,residual --local-sampler search,forest \
    --repeats 1 >"$WORK/select_$p.jsonl" || fail "bench select on $p ranks"
  python3 - "$WORK/select_$p.jsonl" "$p" <<'PY' || fail "bench select on $p ranks: bad JSON"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 2 * 2 * 2, lines
times = ["serial_ns_per_particle", "serial_with_ancestors_ns_per_particle", "parallel_ns_per_particle",
         "parallel_with_counts_ns_per_particle"]
for r in lines:
    assert r["bench"] == "select" and r["ranks"] == int(sys.argv[2]) and r["concurrency"] >= 1, r
    assert all(r[t] > 0 for t in times) and r["serial_to_parallel_ratio"] > 0, r
assert {(r["particles"], r["scheme"], r["local_sampler"]) for r in lines} == \
    {(n, s, k) for n in (1000, 333) for s in ("systematic", "residual") for k in ("search", "forest")}
PY
done

# rsmc bench kernels on 2 ranks (rank 0 works, rank 1 waits): every kernel and phase at two sizes and
# both weight patterns; a --max-table-gib below the butterfly's table (32 x 1000 x 8 bytes) skips it.
rsmc_np 2 bench kernels --sizes 1000,100 --repeats 1 --max-table-gib 0.0001 >"$WORK/kernels.jsonl" ||
  fail "bench kernels"
python3 - "$WORK/kernels.jsonl" <<'PY' || fail "bench kernels: bad JSON"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
builds = {"binary-search", "cutpoint", "forest", "butterfly", "butterfly-column", "alias-vose", "alias-psa",
          "alias-psa-plus", "alias-psa-device", "alias-psa-plus-device", "alias-psa-masks-device", "std-discrete"}
samples = {"binary-search", "cutpoint", "forest", "butterfly", "butterfly-column", "butterfly-device",
           "butterfly-lanes-device", "alias-baseline", "alias-sectioned", "std-discrete", "rng"}
expected = {(k, "build") for k in builds} | {(k, "sample") for k in samples}
common = {"bench", "kernel", "phase", "n", "weights", "exponent", "repeats", "seed", "threads", "date", "host"}
measured = common | {"samples", "rng", "inner", "seconds_median", "seconds_min", "table_bytes", "copy_bytes",
                     "copy_seconds_median", "copy_bytes_per_s", "kernel_to_copy_ratio"}
assert len(lines) == 2 * 2 * len(expected), len(lines)
for n in (1000, 100):
    for w in ("uniform", "power-law"):
        got = {(r["kernel"], r["phase"]) for r in lines if r["n"] == n and r["weights"] == w}
        assert got == expected, (n, w, expected ^ got)
for r in lines:
    assert r["bench"] == "kernels" and common <= set(r), r
    if r["kernel"] == "butterfly" and r["n"] == 1000:
        assert r["skipped"] is True and "max-table-gib" in r["reason"], r
        continue
    if r["kernel"] in ("butterfly-device", "butterfly-lanes-device") and r.get("skipped"):
        # no device kernels in a build without CUDA; the lane table of 1000 items is above the limit
        assert "RSMC_ENABLE_CUDA" in r["reason"] or "max-table-gib" in r["reason"], r
        continue
    assert "skipped" not in r and measured <= set(r), r
    rate = "items_per_s" if r["phase"] == "build" else "samples_per_s"
    assert r[rate] > 0 and r["seconds_median"] > 0 and r["copy_seconds_median"] >= 0, r
    assert (r["samples"] is None) == (r["phase"] == "build"), r
# PSA's table is Vose's, on the host's threads and in the default execution space alike, with either
# sweep; PSA+'s is the host's in the default execution space too (the same greedy sections).
for n in (1000, 100):
    for w in ("uniform", "power-law"):
        psa = ("alias-vose", "alias-psa", "alias-psa-device", "alias-psa-masks-device")
        hashes = {r["kernel"]: r["table_hash"] for r in lines if r["n"] == n and r["weights"] == w and r["kernel"] in psa}
        assert len(hashes) == 4 and len(set(hashes.values())) == 1, (n, w, hashes)
        plus = {r["kernel"]: (r["table_hash"], r["greedy_items"]) for r in lines
                if r["n"] == n and r["weights"] == w and r["kernel"] in ("alias-psa-plus", "alias-psa-plus-device")}
        assert len(plus) == 2 and len(set(plus.values())) == 1, (n, w, plus)
        device = [r for r in lines if r["n"] == n and r["weights"] == w and r["kernel"] == "alias-psa-device"]
        assert device[0]["execution_space"] and device[0]["layout"], device
PY

# --threads: the Kokkos alias kernels once per count (1 here: every build can run it), the sequential
# ones once; a count of 0 is a one-line error naming --threads.
rsmc_np 1 bench kernels --sizes 1000 --weights uniform --kernels alias-vose,alias-psa,alias-psa-plus,alias-baseline \
  --threads 1 --repeats 1 >"$WORK/threads.jsonl" || fail "bench kernels --threads 1"
python3 - "$WORK/threads.jsonl" <<'PY' || fail "bench kernels --threads: bad JSON"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert sorted((r["kernel"], r["threads"]) for r in lines) == [
    ("alias-baseline", 1), ("alias-psa", 1), ("alias-psa-plus", 1), ("alias-vose", 1)], lines
PY
code=0
rsmc_np 1 bench kernels --sizes 1000 --threads 0 >"$WORK/stdout" 2>"$WORK/stderr" || code=$?
[ "$code" -ne 0 ] && output_has "threads" grep '^rsmc: error:' "$WORK/stderr" ||
  fail "bench kernels --threads 0: expected one error line naming --threads"
code=0
rsmc_np 1 bench kernels --sizes 1000 --greedy-items 1000 >"$WORK/stdout" 2>"$WORK/stderr" || code=$?
[ "$code" -ne 0 ] && output_has "greedy-items" grep '^rsmc: error:' "$WORK/stderr" ||
  fail "bench kernels --greedy-items 1000: expected one error line naming --greedy-items"

# `rsmc bench checkpoint` on 2 ranks: one write and one read line per (N, doubles), files cleaned up.
mkdir -p "$WORK/ckbench"
rsmc_np 2 bench checkpoint --particles 1000,333 --doubles 1,3 --repeats 1 --dir "$WORK/ckbench" \
  >"$WORK/checkpoint.jsonl" || fail "bench checkpoint on 2 ranks"
python3 - "$WORK/checkpoint.jsonl" <<'PY' || fail "bench checkpoint: bad JSON"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 2 * 2 * 2, len(lines)
fields = {"bench", "phase", "particles", "state_doubles", "ranks", "bytes", "repeats", "seconds_median", "gb_per_s",
          "plain_seconds_median", "plain_gb_per_s", "checkpoint_to_plain_ratio", "date", "host"}
for r in lines:
    assert set(r) == fields and r["bench"] == "checkpoint" and r["ranks"] == 2, r
    assert r["bytes"] == r["particles"] * (r["state_doubles"] + 1) * 8 and r["gb_per_s"] > 0, r
assert {(r["particles"], r["state_doubles"], r["phase"]) for r in lines} == \
    {(n, d, p) for n in (1000, 333) for d in (1, 3) for p in ("write", "read")}
PY
[ -z "$(ls -A "$WORK/ckbench")" ] || fail "bench checkpoint left files in --dir"

# `rsmc bench e2e` on 1 and 2 ranks: one line per (model, N), a skipped line past --max-work; the
# framework and the scalar filter use the same streams, so their log-likelihoods agree closely; the
# reference filter draws its own numbers (a finite estimate, and a Welch t against rsmc).
for p in 1 2; do
  rsmc_np "$p" bench e2e --models linear_gaussian,lorenz96-40 --particles 200,1000 --steps 3 --repeats 2 \
    --max-work 50000 >"$WORK/e2e_$p.jsonl" || fail "bench e2e on $p ranks"
  python3 - "$WORK/e2e_$p.jsonl" "$p" <<'PY' || fail "bench e2e on $p ranks: bad JSON"
import json, math, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
ranks = int(sys.argv[2])
assert len(lines) == 4, lines
phases = ["propagate", "weight", "reduce", "select", "rebalance", "io", "other"]
for r in lines:
    assert r["bench"] == "e2e" and r["ranks"] == ranks, r
    if r["model"] == "lorenz96-40" and r["particles"] == 1000:  # 1000 x 40 x 3 > --max-work
        assert r["skipped"] is True and "max-work" in r["reason"], r
        continue
    assert "skipped" not in r and "loadavg_before" in r, r
    assert r["particle_steps_per_s"] > 0 and r["reference_ns_per_particle_step"] > 0 and r["scalar_ns_per_particle_step"] > 0
    assert r["overhead_ratio_one_rank"] > 0 and r["scalar_ratio_one_rank"] > 0 and r["threads"] >= 1, r
    assert r["speedup_vs_one_rank"] > 0 and all(0 <= r["phase_" + p] <= 1.0 for p in phases), r
    assert len(r["log_likelihoods"]) == len(r["reference_log_likelihoods"]) == len(r["scalar_log_likelihoods"]) == 2, r
    for a, b in zip(r["log_likelihoods"], r["scalar_log_likelihoods"]):  # same seeds, same streams
        assert abs(a - b) < 1e-6 * abs(a) + 1e-9, r
    assert all(math.isfinite(v) for v in r["reference_log_likelihoods"]) and math.isfinite(r["welch_t_rsmc_reference"]), r
PY
done

# `rsmc bench memory`: one line, the framework, the reference and the scalar filter.
for impl in framework reference scalar; do
  rsmc_np 1 bench memory --model stochastic_volatility --particles 20000 --implementation "$impl" \
    >"$WORK/memory.jsonl" || fail "bench memory --implementation $impl"
  python3 - "$WORK/memory.jsonl" "$impl" <<'PY' || fail "bench memory: bad JSON"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 1, lines
r = lines[0]
assert r["bench"] == "memory" and r["implementation"] == sys.argv[2] and r["particles"] == 20000, r
assert r["peak_bytes"] >= r["baseline_peak_bytes"] > 0 and r["state_bytes_per_particle"] == 8, r
assert r["target_bytes_per_particle"] == 3 * 8 + 64 and "loadavg" in r, r
PY
done

rsmc_np 1 sim-scale --ranks 4,65536 --particles 1e6,1e10 >"$WORK/sim.jsonl" || fail "sim-scale"
python3 - "$WORK/sim.jsonl" <<'PY' || fail "sim-scale: bad JSON"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 16, len(lines)  # 2 rank counts x 2 sizes x 4 implementations
big = [r for r in lines if r["ranks"] == 65536 and r["particles"] == 10**10 and r["impl"] == "scalable"][0]
assert big["partners_max"] <= 8 and big["work_max"] < 10**10 // 1000, big
PY
rsmc_np 1 sim-scale --ranks 16 --particles 1e6 --balance-tolerance 0,0.05 --steps 3 >"$WORK/steps.jsonl" ||
  fail "sim-scale --steps"
python3 - "$WORK/steps.jsonl" <<'PY' || fail "sim-scale --steps: bad JSON"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 2 * 2 + 2, len(lines)
for r in lines:
    modelled = r["impl"] in ("scalable", "algorithm1")
    assert r["steps"] == 3 and (r["model_step_seconds"] is not None) == modelled, r
    if modelled:
        assert abs(r["model_step_seconds"] - r["model_compute_seconds"] - r["model_comm_seconds"]) <= \
            1e-9 * r["model_step_seconds"], r
PY
finish
