#!/usr/bin/env bash
# Acceptance (issue 17, point 2): results do not depend on the layout. For every scheme, the same run
# on 1, 3, 5 and 8 ranks with --balance-tolerance 0, 0.05 and 0.3, and with random --rank-capacity
# (tau 0 and 0.3), writes result files byte-identical to one rank's (h5_datasets_equal; every dataset
# but /resampling_traffic, whose traffic and imbalance describe the layout). The recorded imbalance
# is 1 in the target layout and at most 1 + tau otherwise, and some band run must leave it above 1
# and move fewer particles than the blocks (else the layouts never moved and the test proves nothing).
# Then checkpoints: one written on 8 ranks with tau = 0.3 and random capacities restarts on 3 and on
# 5 ranks, in other layouts, and continues byte-identically (results and final particles).
# 8 ranks are oversubscribed on small machines: N and the steps are small.
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"
command -v h5dump >/dev/null || { echo "h5dump not found (install hdf5-tools)"; exit 1; }

values() {  # values FILE DATASET: the dataset's values, one per line (h5dump -o writes the values alone)
  h5dump -y -o "$WORK/values.txt" -d "$2" "$1" >/dev/null || fail "no dataset $2 in $1"
  tr ', ' '\n\n' <"$WORK/values.txt" | sed '/^$/d'
}
total() { values "$1" "$2" | awk '{s += $1} END {print s + 0}'; }
capacities() {  # capacities P SEED: P random capacities in [0.5, 2], comma-separated
  python3 -c "import random; random.seed($2); print(','.join(str(random.uniform(0.5, 2)) for _ in range($1)))"
}
same() {  # same WHAT A.h5 B.h5: every dataset but the traffic group identical
  "$H5_DATASETS_EQUAL" --ignore /resampling_traffic "$2" "$3" >/dev/null || fail "$1: results differ"
}

moved_above_one=0 fewer=0
# check_imbalance FILE TAU WHAT: every step's imbalance in [1, 1 + tau] (exactly 1 for tau = 0).
check_imbalance() {
  local file=$1 tau=$2 what=$3 out
  out=$(values "$file" /resampling_traffic/imbalance | awk -v tau="$tau" '
    $1 < 1 || $1 > 1 + tau + 1e-12 {bad++} $1 > 1 {above++}
    END {print NR, bad + 0, above + 0}')
  read -r count bad above <<<"$out"
  [ "$count" -eq 12 ] || fail "$what: $count imbalance values, expected 12"
  [ "$bad" -eq 0 ] || fail "$what: $bad imbalance values outside [1, 1 + $tau]"
  [ "$above" -gt 0 ] && moved_above_one=$((moved_above_one + 1))
  return 0
}

for scheme in systematic stratified multinomial residual; do
  base="--particles 997 --steps 12 --seed 21 --ess-threshold 0.9 --resampling $scheme --quiet --overwrite"
  # shellcheck disable=SC2086
  rsmc_np 1 filter $base --output "$WORK/ref.h5" || fail "rsmc filter ($base) failed"
  check_imbalance "$WORK/ref.h5" 0 "$scheme, 1 rank"
  for p in 1 3 5 8; do
    caps=$(capacities "$p" "$p")
    layouts=("--balance-tolerance 0.3 --rank-capacity $caps")
    [ "$p" -gt 1 ] && layouts+=("--balance-tolerance 0" "--balance-tolerance 0.05" "--balance-tolerance 0.3"
                                "--balance-tolerance 0 --rank-capacity $caps")
    for layout in "${layouts[@]}"; do
      # shellcheck disable=SC2086
      rsmc_np "$p" filter $base $layout --output "$WORK/moved.h5" || fail "rsmc filter on $p ranks ($base $layout)"
      same "$scheme, $p ranks, $layout" "$WORK/ref.h5" "$WORK/moved.h5"
      tau=$(awk '{for (i = 1; i < NF; i++) if ($i == "--balance-tolerance") print $(i + 1)}' <<<"$layout")
      # Uneven capacities at tau = 0: the targets' layout, off the blocks but exactly on target.
      check_imbalance "$WORK/moved.h5" "$tau" "$scheme, $p ranks, $layout"
      if [ "$layout" = "--balance-tolerance 0" ]; then
        blocks_moved=$(total "$WORK/moved.h5" /resampling_traffic/particles_moved)
      elif [ "$layout" = "--balance-tolerance 0.3" ]; then
        [ "$(total "$WORK/moved.h5" /resampling_traffic/particles_moved)" -lt "$blocks_moved" ] && fewer=$((fewer + 1))
      fi
    done
  done
done
[ "$moved_above_one" -gt 0 ] || fail "no run with --balance-tolerance left a rank above its target"
[ "$fewer" -gt 0 ] || fail "no run with --balance-tolerance 0.3 moved fewer particles than the block layout"

# Checkpoints from a moved layout continue on other rank counts and layouts.
cd "$WORK"
full="--particles 997 --steps 12 --seed 4 --ess-threshold 0.9 --resampling stratified --quiet"
# shellcheck disable=SC2086
rsmc_np 1 filter $full -o full.h5 --checkpoint-every 12 --checkpoint-dir full_ck || fail "uninterrupted run"
# shellcheck disable=SC2086
rsmc_np 8 filter ${full/--steps 12/--steps 6} -o half.h5 --checkpoint-every 6 --checkpoint-dir ck \
  --balance-tolerance 0.3 --rank-capacity "$(capacities 8 88)" || fail "first half on 8 ranks, tau 0.3, capacities"
[ -f ck/checkpoint-000000006.h5 ] || fail "no checkpoint at step 6"
for restart in "3 --balance-tolerance 0.05" "5 --balance-tolerance 0.3 --rank-capacity $(capacities 5 55)"; do
  read -r p layout <<<"$restart"
  rm -rf "ck$p"
  cp -r ck "ck$p"
  # shellcheck disable=SC2086
  rsmc_np "$p" filter $full -o "cont$p.h5" --restart latest --checkpoint-dir "ck$p" --checkpoint-every 12 $layout ||
    fail "restart on $p ranks ($layout)"
  same "restart on $p ranks ($layout)" full.h5 "cont$p.h5"
  # The final particles, through the step-12 checkpoints (the run progress holds the traffic).
  "$H5_DATASETS_EQUAL" --ignore /progress full_ck/checkpoint-000000012.h5 "ck$p/checkpoint-000000012.h5" >/dev/null ||
    fail "final particles differ after a restart on $p ranks ($layout)"
done
finish
