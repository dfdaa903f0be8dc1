#!/usr/bin/env bash
# One device call: unpack the kit, run gpu-check.sh, then
#  - when baseline-rsmc.tar.gz is beside the kit (an earlier build's bin/rsmc), `rsmc bench e2e` with
#    it too, as gpu-check runs it, so that the ratio new/old comes from one machine;
#  - when a comparison differed or crashed, the runs' logs and how far each differing dataset is.
set -u
cd "$(dirname "$0")"
tar -xzf rsmc-gpu-kit.tar.gz
bash rsmc-gpu-kit/gpu-check.sh --out "$OUT" --budget "${BUDGET:-400}"
rc=$?
if [ -f baseline-rsmc.tar.gz ]; then
  tar -xzf baseline-rsmc.tar.gz
  kit=$PWD/rsmc-gpu-kit
  for n in 1e6 1e7 1e8; do
    timeout 120 env "LD_LIBRARY_PATH=$kit/lib:$kit/lib/x86_64-linux-gnu/openmpi/lib" "OPAL_PREFIX=$kit" "PATH=$kit/bin:$PATH" \
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated OMPI_MCA_pml=ob1 \
      OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_vader_single_copy_mechanism=none PMIX_MCA_pcompress_base_silence_warning=1 \
      "$kit/bin/orterun" -n 1 baseline/rsmc bench e2e --models stochastic_volatility,linear_gaussian --particles "$n" \
      --implementations rsmc --steps 10 --repeats 3 --max-work 1e11 < /dev/null 2>&1 | grep '^{' >> "$OUT/bench-e2e-baseline.jsonl"
  done
  echo "device-call: baseline bench e2e: $(wc -l < "$OUT/bench-e2e-baseline.jsonl") JSON lines"
fi
work=$(ls -d /tmp/gpu-check.* 2> /dev/null | head -n 1)
if [ -n "$work" ]; then
  tar -czf "$OUT/work-logs.tgz" -C "$work" --exclude='*.h5' --exclude='*.checkpoints' .
  timeout 60 python3 diag.py "$work/cmp" rsmc-gpu-kit/expected > "$OUT/diag.log" 2>&1
fi
echo "device-call: gpu-check exit $rc"
exit $rc
