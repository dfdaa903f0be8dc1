#!/usr/bin/env bash
# Fourth call (2026-11-27): `rsmc filter` on the GPU with each local sampler, resampling every step,
# SV at N = 10^7 and 10^8 on 1 rank, and at 10^8 on 2 ranks sharing the GPU (rebalancing through
# pinned host buffers); the rate line each run prints, and the result file's rebalance_transport.
set -u
cd "$(dirname "$0")" || exit 2
tar -xzf rsmc-gpu-kit.tar.gz
kit=$PWD/rsmc-gpu-kit
run() {
  env "LD_LIBRARY_PATH=$kit/lib:$kit/lib/x86_64-linux-gnu/openmpi/lib" "OPAL_PREFIX=$kit" "PATH=$kit/bin:$PATH" \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated OMPI_MCA_pml=ob1 \
    OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1 \
    OMPI_MCA_hwloc_base_binding_policy=none PMIX_MCA_pcompress_base_silence_warning=1 "$@" < /dev/null
}
for p in 1 2; do
  for n in 1e7 1e8; do
    [ "$p" = 2 ] && [ "$n" = 1e7 ] && continue
    for s in search forest butterfly alias; do
      out=/tmp/f-$p-$n-$s.h5
      line=$(run timeout 60 "$kit/bin/orterun" -n "$p" "$kit/bin/rsmc" filter --model stochastic_volatility \
        --particles "$n" --steps 10 --seed 3 --ess-threshold 1 --local-sampler "$s" --output "$out" --overwrite 2>&1 |
        grep -E 'particle-steps/s|rsmc: error' | head -n 1)
      transport=$(python3 -c "
import h5py, sys
f = h5py.File(sys.argv[1], 'r')
t = f.attrs.get('rebalance_transport', '?')
print(t.decode() if isinstance(t, bytes) else t, 'bytes_moved', int(f['resampling_traffic/bytes_moved'][()].sum()))" "$out" 2>&1 | tail -n 1)
      echo "ranks $p N $n sampler $s: $line; rebalance_transport $transport" | tee -a "$OUT/samplers.txt"
    done
  done
done
