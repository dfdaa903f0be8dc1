#!/usr/bin/env bash
# `rsmc pmmh`, issue 18: every bad run file gives exactly one `rsmc: error:` line naming the key (the
# file and line where it has one), a non-zero exit and no output file: an unknown parameter, a
# parameter both fixed and inferred, a prior outside the parameter's valid range, an initial value
# with zero prior density, a chain count that does not divide the ranks, and a few more.
source "$(dirname "$0")/common.sh"

# A good run file with one [infer.<name>] table replaced by $1 (and extra top-level lines $2).
run_file() {
  cat <<TOML
model = "local_level"
steps = 10
particles = 32
iterations = 20
quiet = true
${2:-}
[parameters]
a1 = 0.0
p1 = 10.0
[infer.sigma_eta2]
prior = "gamma"
shape = 2.0
rate = 4.0
initial = 0.5
$1
TOML
}
eps_ok='[infer.sigma_eps2]
prior = "inverse_gamma"
shape = 3.0
scale = 2.0
initial = 1.0'

# expect_error P PATTERN TOML-FILE [ARGS...]: rsmc pmmh on P ranks must fail with one error line
# matching PATTERN and write nothing.
expect_error() {
  local p=$1 pattern=$2 toml=$3
  shift 3
  expect_one_error "$p" "$pattern" "$WORK/chains.h5" pmmh --config "$toml" --output "$WORK/chains.h5" "$@"
}

run_file "$eps_ok" >"$WORK/good.toml"
rsmc_np 1 pmmh --config "$WORK/good.toml" --output "$WORK/good.h5" || fail "the good run file fails"
[ -e "$WORK/good.h5" ] || fail "the good run file wrote no output"

run_file '[infer.sigma]
prior = "gamma"
shape = 2.0
rate = 1.0
initial = 1.0' >"$WORK/unknown.toml"
expect_error 1 "unknown.toml:16: infer.sigma: model local_level has no parameter 'sigma'" "$WORK/unknown.toml"

run_file "$eps_ok" >"$WORK/fixed.toml"
sed -i 's/^p1 = 10.0$/p1 = 10.0\nsigma_eps2 = 1.0/' "$WORK/fixed.toml"
expect_error 2 "infer.sigma_eps2: 'sigma_eps2' is also fixed under \[parameters\]" "$WORK/fixed.toml"

run_file '[infer.sigma_eps2]
prior = "normal"
mean = 1.0
sd = 0.5
initial = 1.0' >"$WORK/normal_variance.toml"
expect_error 1 "infer.sigma_eps2: the prior normal(mean = 1, sd = 0.5) with the identity transform reaches (-inf, inf), outside the parameter's valid range (0, inf)" "$WORK/normal_variance.toml"

run_file '[infer.sigma_eps2]
prior = "uniform"
lower = 0.5
upper = 2.0
transform = "log"
initial = 3.0' >"$WORK/zero_density.toml"
expect_error 1 "zero_density.toml:20: infer.sigma_eps2.initial: initial value 3 has zero density under the prior uniform" "$WORK/zero_density.toml"

run_file "$eps_ok" >"$WORK/chains.toml"
expect_error 2 "--chains: 3 does not divide the 2 ranks" "$WORK/chains.toml" --chains 3
run_file "$eps_ok" 'chains = 2' >"$WORK/chains_in_file.toml"
expect_error 3 "chains_in_file.toml:6: chains: 2 does not divide the 3 ranks" "$WORK/chains_in_file.toml"

run_file '[infer.sigma_eps2]
prior = "inverse_gamma"
shape = 3.0
rate = 2.0
initial = 1.0' >"$WORK/argument_name.toml"
expect_error 1 "infer.sigma_eps2.scale: missing; expected a number (the inverse_gamma prior's scale)" "$WORK/argument_name.toml"

run_file '[infer.sigma_eps2]
prior = "gama"
shape = 3.0
scale = 2.0
initial = 1.0' >"$WORK/prior_name.toml"
expect_error 1 'infer.sigma_eps2.prior: prior "gama" is unknown' "$WORK/prior_name.toml"

run_file "$eps_ok
initail = 2.0" >"$WORK/typo.toml"
expect_error 1 "unknown key 'infer.sigma_eps2.initail'" "$WORK/typo.toml"

run_file '[infer.sigma_eps2]
prior = "gamma"
shape = -1.0
rate = 2.0
initial = 1.0' >"$WORK/bad_argument.toml"
expect_error 1 "infer.sigma_eps2.prior: gamma prior: shape = -1; expected a finite number > 0" "$WORK/bad_argument.toml"

run_file "$eps_ok" '[adaptation]
interval = 0' >"$WORK/adaptation.toml"
expect_error 1 "adaptation.interval: expected an integer >= 1" "$WORK/adaptation.toml"

run_file "$eps_ok" '[proposal]
covariance = [[0.1, 0.2], [0.2, 0.1]]' >"$WORK/covariance.toml"
expect_error 1 "proposal.covariance: covariance" "$WORK/covariance.toml"

run_file "$eps_ok" >"$WORK/device.toml"
expect_error 2 "device: 'gpu' is not a device" "$WORK/device.toml" --device gpu
# A build without CUDA says so (a GPU build runs the chains there: nothing to refuse).
if ! rsmc_np 1 pmmh --config "$WORK/device.toml" --device cuda --output "$WORK/probe.h5" >/dev/null 2>&1; then
  expect_error 1 "device cuda: this rsmc is built without CUDA" "$WORK/device.toml" --device cuda
fi
run_file "$eps_ok" 'device = "gpu"' >"$WORK/device_key.toml"
expect_error 1 'device_key.toml:6: device: expected one of "host" "cuda"' "$WORK/device_key.toml"

run_file "$eps_ok" 'burn_in = 20' >"$WORK/burn_in.toml"
expect_error 1 "burn_in.toml:6: burn_in: 20 leaves none of the 20 iterations" "$WORK/burn_in.toml"
expect_error 1 "--burn-in: 20 leaves none of the 20 iterations" "$WORK/good.toml" --burn-in 20

# Issue 39, C and F: the chain's schedule, the proposal's scale and the initial value, each refused in
# one line naming the flag or the file and line (never a division by zero or a summary error at the end).
expect_error 1 "--thinning: 0 is not valid; expected an integer >= 1" "$WORK/good.toml" --thinning 0
expect_error 2 "--thinning: 0 is not valid" "$WORK/good.toml" --thinning 0
expect_error 1 "--iterations: 0 is not valid; expected an integer >= 1" "$WORK/good.toml" --iterations 0
expect_error 1 "--steps: 0 is not valid; expected an integer >= 1" "$WORK/good.toml" --steps 0
run_file "$eps_ok" 'thinning = 1000' >"$WORK/thinning.toml"
expect_error 1 "thinning.toml:6: thinning: 1000 keeps none of the 20 iterations after the burn-in; expected thinning <= iterations - burn-in" "$WORK/thinning.toml"
expect_error 1 "--thinning: 50 keeps none of the 20 iterations after the burn-in" "$WORK/good.toml" --thinning 50
run_file "$eps_ok
proposal_sd = 1e300" >"$WORK/proposal_sd.toml"
expect_error 1 "proposal_sd.toml:20: infer.sigma_eps2.proposal_sd: expected a number > 0 whose square (the proposal variance) is finite" "$WORK/proposal_sd.toml"

# An initial value near the largest double under a prior that admits it: draws whose sums overflow.
# The run finishes and keeps its output; the summary says which parameter it cannot summarise.
run_file "$eps_ok" >"$WORK/huge_initial.toml"
sed -i 's/^prior = "gamma"$/prior = "uniform"/; s/^shape = 2.0$/lower = 0.0/; s/^rate = 4.0$/upper = 1.7e308/; s/^initial = 0.5$/initial = 1e308/' \
  "$WORK/huge_initial.toml"
rsmc_np 1 pmmh --config "$WORK/huge_initial.toml" --output "$WORK/huge.h5" >/dev/null 2>"$WORK/stderr" ||
  fail "an initial value of 1e308: the run failed: $(cat "$WORK/stderr")"
output_has "sigma_eta2 *not summarised: " "$RSMC" info "$WORK/huge.h5" ||
  fail "an initial value of 1e308: the summary does not say it cannot summarise sigma_eta2"

# An existing output is refused (and left as it was) without --overwrite.
cp "$WORK/good.h5" "$WORK/chains.h5"
cp "$WORK/good.h5" "$WORK/before.h5"
code=0
rsmc_np 1 pmmh --config "$WORK/good.toml" --output "$WORK/chains.h5" 2>"$WORK/stderr" >/dev/null || code=$?
[ "$code" -ne 0 ] || fail "an existing --output was replaced without --overwrite"
cmp -s "$WORK/chains.h5" "$WORK/before.h5" || fail "the existing --output was changed"
finish
