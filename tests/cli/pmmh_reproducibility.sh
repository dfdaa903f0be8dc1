#!/usr/bin/env bash
# `rsmc pmmh`, issue 18 acceptance 2: the same run with 1 chain on 1, 2 and 3 ranks gives byte-identical
# chains, and 2 chains on 2 and 4 ranks too (every dataset compared, attributes such as the rank count
# not). The chains adapt their proposal during the run, so the adaptation is covered. Also: the chains
# of one run differ, a different seed gives different chains, and rsmc info summarises the output.
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"
cp "$(dirname "$0")/pmmh_local_level.toml" "$WORK/run.toml"
for p in 1 2 3; do
  rsmc_np "$p" pmmh --config "$WORK/run.toml" --output "$WORK/one_$p.h5" || fail "1 chain on $p ranks"
done
"$H5_DATASETS_EQUAL" "$WORK/one_1.h5" "$WORK/one_2.h5" "$WORK/one_3.h5" ||
  fail "1 chain: the chains differ between 1, 2 and 3 ranks"
for p in 2 4; do
  rsmc_np "$p" pmmh --config "$WORK/run.toml" --chains 2 --output "$WORK/two_$p.h5" || fail "2 chains on $p ranks"
done
"$H5_DATASETS_EQUAL" "$WORK/two_2.h5" "$WORK/two_4.h5" || fail "2 chains: the chains differ between 2 and 4 ranks"

info=$(rsmc_np 1 info "$WORK/two_4.h5") || fail "rsmc info on the chains"
echo "$info"
grep -q "rsmc pmmh chains" <<<"$info" || fail "rsmc info does not recognise the chains"
grep -q "ess_bulk" <<<"$info" || fail "rsmc info prints no ESS"
grep -Eq '^ +sigma_eps2 ' <<<"$info" || fail "rsmc info prints no summary of sigma_eps2"
# theta of one chain (C x K x d = chain x 25 x 2), all 17 digits.
theta_of() {
  h5dump -d /theta -s "$2,0,0" -c 1,25,2 -y -w 0 -m %.17g -o "$3" "$1" >/dev/null
}
theta_of "$WORK/two_2.h5" 0 "$WORK/c0.txt"
theta_of "$WORK/two_2.h5" 1 "$WORK/c1.txt"
theta_of "$WORK/one_1.h5" 0 "$WORK/single.txt"
[ -s "$WORK/c0.txt" ] || fail "no /theta of chain 0"
# Chain 0 and chain 1 of one run are different chains; chain 0 does not depend on --chains.
cmp -s "$WORK/c0.txt" "$WORK/c1.txt" && fail "chains 0 and 1 of one run are identical"
cmp -s "$WORK/c0.txt" "$WORK/single.txt" || fail "chain 0 differs between --chains 1 and --chains 2"
# Both outcomes happen, and the covariance was adapted (5 scheduled updates: after 20, 30, ..., 60).
h5dump -d /counters -y -w 0 -o "$WORK/counters.txt" "$WORK/two_4.h5" >/dev/null
read -r -a counters <<<"$(tr -c '0-9' ' ' <"$WORK/counters.txt")"
[ "${#counters[@]}" -eq 12 ] || fail "/counters: expected 2 x 6 values, got ${counters[*]}"
for c in 0 6; do
  [ "${counters[c]}" -gt 0 ] && [ "${counters[c + 1]}" -gt 0 ] || fail "a chain accepted or rejected nothing: ${counters[*]}"
  [ $((counters[c] + counters[c + 1])) -eq 60 ] || fail "accepted + rejected is not 60: ${counters[*]}"
  [ "${counters[c + 4]}" -eq 5 ] || fail "expected 5 adaptations per chain: ${counters[*]}"
done
# --device host: the same chains as the build's default device, and the output says which ran.
rsmc_np 2 pmmh --config "$WORK/run.toml" --device host --output "$WORK/host_2.h5" || fail "run with --device host"
"$H5_DATASETS_EQUAL" "$WORK/one_1.h5" "$WORK/host_2.h5" || fail "--device host differs from the default device"
device=$(h5dump -a /device -y "$WORK/host_2.h5") || fail "no device attribute"
grep -q '"host"' <<<"$device" || fail "the device attribute does not say host: $device"
rsmc_np 1 pmmh --config "$WORK/run.toml" --seed 6 --output "$WORK/seed6.h5" || fail "run with --seed 6"
"$H5_DATASETS_EQUAL" "$WORK/one_1.h5" "$WORK/seed6.h5" >/dev/null 2>&1 && fail "--seed 6 gives the chains of seed 5"
finish
