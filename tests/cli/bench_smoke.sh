#!/usr/bin/env bash
# The benchmarks run and print valid JSON lines: `rsmc bench resample` on 1 and 3 ranks (every
# implementation, one line each) and `rsmc sim-scale` at a small and a large point.
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

rsmc_np 1 sim-scale --ranks 4,65536 --particles 1e6,1e10 >"$WORK/sim.jsonl" || fail "sim-scale"
python3 - "$WORK/sim.jsonl" <<'PY' || fail "sim-scale: bad JSON"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 16, len(lines)  # 2 rank counts x 2 sizes x 4 implementations
big = [r for r in lines if r["ranks"] == 65536 and r["particles"] == 10**10 and r["impl"] == "scalable"][0]
assert big["partners_max"] <= 8 and big["work_max"] < 10**10 // 1000, big
PY
finish
