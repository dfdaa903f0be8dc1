#!/usr/bin/env bash
# Second GPU call: why butterfly runs crash, and which datasets differ host vs GPU (and by how much).
set -u
kit=$PWD/build-kit/rsmc-gpu-kit
tar -xzf build-kit/rsmc-gpu-kit.tar.gz -C build-kit
kit_ld=$kit/lib:$kit/lib/x86_64-linux-gnu/openmpi/lib
E=(env "LD_LIBRARY_PATH=$kit_ld" "OPAL_PREFIX=$kit" "PATH=$kit/bin:$PATH" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none)
A="--particles 997 --steps 50 --seed 11 --ess-threshold 0.7"
echo "== butterfly on 1 rank, directly (no mpirun)"
"${E[@]}" timeout 60 $kit/bin/rsmc filter --model stochastic_volatility $A --resampling systematic --local-sampler butterfly --output /tmp/b1.h5 --overwrite --quiet > /tmp/b1.log 2>&1; echo "rc=$?"; grep -v pmix /tmp/b1.log | tail -25
echo "== butterfly via orterun -n 1"
"${E[@]}" timeout 60 $kit/bin/orterun -n 1 $kit/bin/rsmc filter --model linear_gaussian $A --resampling stratified --local-sampler butterfly --output /tmp/b2.h5 --overwrite --quiet > /tmp/b2.log 2>&1; echo "rc=$?"; grep -v "pmix\|PMIx\|compress" /tmp/b2.log | tail -15
for tag in stochastic_volatility-systematic-search linear_gaussian-systematic-search sir_epidemic-systematic-search; do
  m=${tag%%-*}; r=$(echo $tag | cut -d- -f2); ls=$(echo $tag | cut -d- -f3)
  "${E[@]}" timeout 60 $kit/bin/rsmc filter --model $m $A --resampling $r --local-sampler $ls --output /tmp/$tag.h5 --overwrite --quiet > /tmp/$tag.log 2>&1
  echo "== $tag rc=$?: datasets host vs GPU"
  python3 - "$kit/expected/$tag-p1.h5" "/tmp/$tag.h5" <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], 'r'), h5py.File(sys.argv[2], 'r')
names = []
a.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
for n in names:
    x, y = a[n][()], (b[n][()] if n in b else None)
    if y is None: print(f"  {n}: missing on GPU"); continue
    if x.tobytes() == y.tobytes(): print(f"  {n}: identical"); continue
    try:
        xf, yf = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
        d = np.abs(xf - yf); rel = d / np.maximum(np.abs(xf), 1e-300)
        first = int(np.argmax(d > 0))
        print(f"  {n}: DIFFER {int((d>0).sum())}/{d.size} elements, first at {first}, max rel {rel.max():.3e}")
    except Exception as e:
        print(f"  {n}: DIFFER (non-numeric: {e})")
PY
  ign=(--ignore /resampling_traffic)
  for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
    o=$("${E[@]}" $kit/bin/h5_datasets_equal "${ign[@]}" "$kit/expected/$tag-p1.h5" "/tmp/$tag.h5" 2>&1) && { echo "  rest identical"; break; }
    echo "  $o" | cut -c1-160; d=$(echo "$o" | sed -n "s/.*dataset '\([^']*\)'.*/\1/p" | head -1); [ -n "$d" ] || break; ign+=(--ignore "$d")
  done
done
