#!/usr/bin/env bash
# Seventh call (2026-11-27): the GPU's PSA alias build at n = 10^7 against the section size of its
# final sweep (the table does not depend on it: the hash is printed), with an rsmc that has
# `bench kernels --section-items` (sweep-rsmc.tar.gz) and the kit's libraries.
set -u
cd "$(dirname "$0")" || exit 2
tar -xzf rsmc-gpu-kit.tar.gz
tar -xzf sweep-rsmc.tar.gz
kit=$PWD/rsmc-gpu-kit
env "LD_LIBRARY_PATH=$kit/lib:$kit/lib/x86_64-linux-gnu/openmpi/lib" "OPAL_PREFIX=$kit" "PATH=$kit/bin:$PATH" \
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated OMPI_MCA_pml=ob1 \
  OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_vader_single_copy_mechanism=none PMIX_MCA_pcompress_base_silence_warning=1 \
  timeout 150 "$kit/bin/orterun" -n 1 sweep/rsmc bench kernels --sizes 1e6,1e7 --weights uniform,power-law \
  --kernels alias-psa-device --section-items 0,256,128,64,32,16,8 --repeats 3 < /dev/null 2>&1 |
  grep '^{' > "$OUT/sections.jsonl"
python3 - "$OUT/sections.jsonl" << 'PY'
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    print(f"n {d['n']:>9} {d['weights']:>9} sections {d.get('sections')!s:>8} build {d['seconds_median'] * 1e3:8.3f} ms"
          f"  copy {d['copy_seconds_median'] * 1e3:.3f} ms  ratio {d['kernel_to_copy_ratio']:6.1f}  hash {d['table_hash']}")
PY
