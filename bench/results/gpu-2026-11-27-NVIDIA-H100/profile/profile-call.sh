#!/usr/bin/env bash
# Sixth call (2026-11-27): where the GPU time goes, per kernel (Nsight Compute's gpu__time_duration,
# one metric, so one pass per kernel): the PSA alias build at n = 10^7 (bench kernels), and three
# steps of the SV filter at N = 10^7 resampling every step.
set -u
cd "$(dirname "$0")" || exit 2
tar -xzf rsmc-gpu-kit.tar.gz
kit=$PWD/rsmc-gpu-kit
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2> /dev/null | head -n 1)
echo "ncu: $NCU"
run() {
  env "LD_LIBRARY_PATH=$kit/lib:$kit/lib/x86_64-linux-gnu/openmpi/lib" "OPAL_PREFIX=$kit" "PATH=$kit/bin:$PATH" \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated OMPI_MCA_pml=ob1 \
    OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_vader_single_copy_mechanism=none PMIX_MCA_pcompress_base_silence_warning=1 \
    "$@" < /dev/null
}
ncu_args=(--metrics gpu__time_duration.sum --csv --print-units base)
run timeout 150 "$kit/bin/orterun" -n 1 "$NCU" "${ncu_args[@]}" "$kit/bin/rsmc" bench kernels --sizes 1e7 \
  --weights power-law --kernels alias-psa-device --repeats 1 > "$OUT/ncu-alias.csv" 2> "$OUT/ncu-alias.err"
echo "alias: exit $?, $(wc -l < "$OUT/ncu-alias.csv") lines"
run timeout 150 "$kit/bin/orterun" -n 1 "$NCU" "${ncu_args[@]}" "$kit/bin/rsmc" filter --model stochastic_volatility \
  --particles 1e7 --steps 3 --seed 3 --ess-threshold 1 --output /tmp/p.h5 --overwrite --quiet > "$OUT/ncu-filter.csv" 2> "$OUT/ncu-filter.err"
echo "filter: exit $?, $(wc -l < "$OUT/ncu-filter.csv") lines"
for f in alias filter; do
  python3 - "$OUT/ncu-$f.csv" << 'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: print("no rows"); sys.exit()
head = rows[0]; k = head.index("Kernel Name"); v = head.index("Metric Value")
tot = collections.Counter(); cnt = collections.Counter()
for r in rows[1:]:
    try: t = float(r[v].replace(",", ""))
    except ValueError: continue
    name = r[k][:110]; tot[name] += t; cnt[name] += 1
s = sum(tot.values())
print(f"== {sys.argv[1]}: {s / 1e6:.3f} ms in {sum(cnt.values())} kernels")
for name, t in tot.most_common(15): print(f"{t / 1e6:9.3f} ms {100 * t / s:5.1f}% x{cnt[name]:4d} {name}")
PY
done
