#!/usr/bin/env bash
# Acceptance: `rsmc filter` result files hold bitwise identical datasets for 1, 2, 3 and 4 ranks
# (compared byte for byte by h5_datasets_equal; attributes, which record the rank count, are not compared,
# and neither is /resampling_traffic, the communication of each resampling, which depends on it too).
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"
command -v h5dump >/dev/null || { echo "h5dump not found (install hdf5-tools)"; exit 1; }

configs=(
  "--particles 2000 --steps 40 --seed 5"
  "--particles 1001 --steps 25 --seed 77 --ess-threshold 1"
  "--particles 999 --steps 15 --seed 8 --ess-threshold 0.9 --resampling multinomial"
  "--particles 999 --steps 15 --seed 8 --ess-threshold 0.9 --resampling stratified"
  "--particles 999 --steps 15 --seed 8 --ess-threshold 0.9 --resampling residual"
  "--particles 999 --steps 15 --seed 8 --ess-threshold 0.9 --resampling multinomial --resampler roulette-algorithm1"
  "--particles 999 --steps 15 --seed 8 --ess-threshold 0.9 --resampler allgather"
  "--particles 999 --steps 15 --seed 8 --ess-threshold 0.9 --resampler gather-root"
)
for config in "${configs[@]}"; do
  files=()
  for p in 1 2 3 4; do
    out="$WORK/result_p$p.h5"
    # shellcheck disable=SC2086
    rsmc_np "$p" filter $config --quiet --output "$out" || fail "rsmc filter on $p ranks ($config) failed"
    files+=("$out")
  done
  "$H5_DATASETS_EQUAL" --ignore /resampling_traffic "${files[@]}" || fail "datasets differ across rank counts ($config)"
  # The traffic is recorded (its values depend on the rank count and are not checked here).
  for name in particles_moved bytes_moved messages max_partners minimum_moves; do
    h5dump -d "/resampling_traffic/$name" "$WORK/result_p2.h5" >/dev/null ||
      fail "no dataset /resampling_traffic/$name in the 2-rank result ($config)"
  done
  rm -f "${files[@]}"
done

# The layouts of --balance-tolerance and --rank-capacity: tests/cli/layout_invariance.sh.
finish
