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

# The layout: --balance-tolerance and --rank-capacity move particles only. Every scheme, on 3 and 5
# ranks with tau = 0.05 and with tau = 0.3 plus uneven capacities, against 1 rank with the blocks.
# The traffic must show fewer particles moved than the blocks need somewhere, or nothing moved.
fewer=0
total_moved() {  # the sum of /resampling_traffic/particles_moved (h5dump -o writes the values alone)
  h5dump -y -o "$WORK/values.txt" -d /resampling_traffic/particles_moved "$1" >/dev/null || fail "no traffic in $1"
  tr ',' ' ' <"$WORK/values.txt" | awk '{for (i = 1; i <= NF; i++) s += $i} END {print s + 0}'
}
for scheme in systematic stratified multinomial residual; do
  base="--particles 997 --steps 15 --seed 21 --ess-threshold 0.9 --resampling $scheme"
  # shellcheck disable=SC2086
  rsmc_np 1 filter $base --quiet --overwrite --output "$WORK/ref.h5" || fail "rsmc filter ($base) failed"
  for p in 3 5; do
    capacities=$(python3 -c "import random; random.seed($p); print(','.join(str(random.uniform(0.5, 2)) for _ in range($p)))")
    # shellcheck disable=SC2086
    rsmc_np "$p" filter $base --quiet --overwrite --output "$WORK/blocks.h5" || fail "rsmc filter on $p ranks ($base) failed"
    for layout in "--balance-tolerance 0.05" "--balance-tolerance 0.3 --rank-capacity $capacities"; do
      # shellcheck disable=SC2086
      rsmc_np "$p" filter $base $layout --quiet --overwrite --output "$WORK/moved.h5" ||
        fail "rsmc filter on $p ranks ($base $layout) failed"
      "$H5_DATASETS_EQUAL" --ignore /resampling_traffic "$WORK/ref.h5" "$WORK/moved.h5" ||
        fail "datasets differ with $layout on $p ranks ($base)"
      blocks_moved=$(total_moved "$WORK/blocks.h5")
      moved=$(total_moved "$WORK/moved.h5")
      [ "$moved" -lt "$blocks_moved" ] && fewer=$((fewer + 1))
    done
  done
done
[ "$fewer" -gt 0 ] || fail "no run with --balance-tolerance moved fewer particles than the block layout"
finish
