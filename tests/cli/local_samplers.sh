#!/usr/bin/env bash
# Acceptance (issue 4): `rsmc filter --local-sampler search|forest|butterfly` write bitwise identical
# datasets for every scheme on 1, 2, 3 and 4 ranks (12 result files per scheme, compared byte for byte
# by h5_datasets_equal; /resampling_traffic depends on the rank count and is left out).
# `--local-sampler alias` is not p-invariant: it must repeat itself exactly at a fixed rank count,
# record local_sampler = "alias" and p_invariant = 0 in the result file, and differ from search.
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"
command -v h5dump >/dev/null || { echo "h5dump not found (install hdf5-tools)"; exit 1; }

for scheme in systematic stratified multinomial residual; do
  config="--particles 777 --steps 12 --seed 31 --ess-threshold 0.9 --resampling $scheme"
  files=()
  for sampler in search forest butterfly; do
    for p in 1 2 3 4; do
      out="$WORK/${scheme}_${sampler}_p$p.h5"
      # shellcheck disable=SC2086
      rsmc_np "$p" filter $config --local-sampler "$sampler" --quiet --output "$out" ||
        fail "rsmc filter --local-sampler $sampler on $p ranks ($scheme) failed"
      files+=("$out")
    done
  done
  "$H5_DATASETS_EQUAL" --ignore /resampling_traffic "${files[@]}" ||
    fail "datasets differ across local samplers or rank counts ($scheme)"
  # The file says which sampler ran.
  output_has '"forest"' h5dump -a /local_sampler "$WORK/${scheme}_forest_p3.h5" ||
    fail "result file does not record local_sampler = forest ($scheme)"
  rm -f "${files[@]}"
done

# alias: deterministic for a fixed rank count, recorded, and not the inverse-CDF result.
config="--particles 777 --steps 12 --seed 31 --ess-threshold 0.9"
for run in a b; do
  rsmc_np 2 filter $config --local-sampler alias --quiet --output "$WORK/alias_$run.h5" || fail "alias run $run"
done
rsmc_np 2 filter $config --quiet --output "$WORK/search.h5" || fail "search run"
"$H5_DATASETS_EQUAL" "$WORK/alias_a.h5" "$WORK/alias_b.h5" || fail "alias runs on 2 ranks differ"
if "$H5_DATASETS_EQUAL" "$WORK/alias_a.h5" "$WORK/search.h5" >/dev/null 2>&1; then
  fail "alias and search gave identical datasets (the alias sampler was not used?)"
fi
output_has '"alias"' h5dump -a /local_sampler "$WORK/alias_a.h5" || fail "alias result does not record local_sampler"
output_has '(0): 0' h5dump -a /p_invariant "$WORK/alias_a.h5" || fail "alias result does not record p_invariant = 0"
output_has '(0): 1' h5dump -a /p_invariant "$WORK/search.h5" || fail "search result does not record p_invariant = 1"
# The file says where the filter ran and how rebalancing moved particles (this build's default
# device; a host build moves them in host memory).
if output_has '"host"' h5dump -a /device "$WORK/search.h5"; then
  output_has '"host-memory"' h5dump -a /rebalance_transport "$WORK/search.h5" ||
    fail "a host run does not record rebalance_transport = host-memory"
else
  output_has '"cuda"' h5dump -a /device "$WORK/search.h5" || fail "result file records no device"
fi
# --device host runs the same filter on the host's threads, with the same datasets, in any build.
rsmc_np 2 filter $config --device host --quiet --output "$WORK/search_host.h5" || fail "--device host run"
"$H5_DATASETS_EQUAL" "$WORK/search.h5" "$WORK/search_host.h5" || fail "--device host changed the datasets"
finish
