#!/usr/bin/env bash
# Acceptance: every bad input gives exactly one `rsmc: error:` line naming the problem, a non-zero
# exit, and nothing written (an existing output file is left byte-identical).
source "$(dirname "$0")/common.sh"

printf 'y1,y2\n0.1,0.2\n0.3,0.4\n0.5,oops\n0.7,0.8\n' >"$WORK/malformed.csv"
printf 'y1,y2,y3\n0.1,0.2,0.3\n' >"$WORK/three_columns.csv"
printf 'y1,y2\n0.1,0.2\n0.3\n' >"$WORK/short_row.csv"
printf 'y1,y2\n0.1,0.2\n0.3,0.4\n,\n0.7,0.8\n' >"$WORK/good.csv"
printf 'particles = 0\n' >"$WORK/zero.toml"
printf 'steps = 10\nparticles = "many"\n' >"$WORK/string.toml"
printf 'partciles = 5\n' >"$WORK/typo.toml"
printf 'resampling = "fast"\n' >"$WORK/choice.toml"
printf 'ess_threshold = 1.5\n' >"$WORK/range.toml"
printf 'particles = 100\nparticles = 200\n' >"$WORK/twice.toml"
printf 'particles = [1, 2\n' >"$WORK/syntax.toml"
printf '[parameters]\nphi = 0.9\n' >"$WORK/unknown_parameter.toml"
printf '[parameters]\nQ = [[0.2, 0.0], [0.0]]\n' >"$WORK/ragged.toml"
printf '[parameters]\nQ = [[0.2, 0.3], [0.3, 0.2]]\n' >"$WORK/indefinite.toml"
printf 'model = "local_level"\n[parameters]\nsigma_eps2 = "big"\n' >"$WORK/string_parameter.toml"
printf 'model = "stochastic_volatility"\n[parameters]\nphi = 1.2\n' >"$WORK/sv_phi.toml"
printf 'model = "sir_epidemic"\n[parameters]\nobservation = "gauss"\n' >"$WORK/sir_observation.toml"
# Integer parameters held in an int: out of range is refused, never wrapped (2^32 + 1 would become 1).
printf 'model = "lorenz96"\n[parameters]\nd = 5000000000\n' >"$WORK/l96_huge_d.toml"
printf 'model = "lorenz96"\n[parameters]\nd = 8\nobs_every = 4294967297\n' >"$WORK/l96_wrapping_obs_every.toml"
printf 'model = "regime_switching"\n[parameters]\nK = 4294967298\n' >"$WORK/regime_huge_k.toml"

# expect_error P PATTERN ARGS...: rsmc on P ranks must fail with one error line matching PATTERN and
# write no --output.
expect_error() {
  local p=$1 pattern=$2
  shift 2
  expect_one_error "$p" "$pattern" "$WORK/out.h5" "$@" --output "$WORK/out.h5"
}

printf '2\nx1\n' > "$WORK/capacities.txt"
expect_error 3 "cannot be spread over 3 ranks" filter --particles 2
expect_error 1 "particles: 0" filter --particles 0
expect_error 2 "particles: 0" filter --particles 0
expect_error 1 "steps: 0" filter --steps 0
expect_error 2 "steps: -4" filter --steps -4
expect_error 2 "missing.csv" filter --data "$WORK/missing.csv"
expect_error 2 "balance-tolerance: -0.1 is out of range" filter --balance-tolerance=-0.1
expect_error 2 "rank-capacity: 3 capacities given for 2 ranks" filter --rank-capacity 1,2,3
expect_error 2 "rank-capacity: the capacity of rank 1 is 0" filter --rank-capacity 1,0
expect_error 1 "rank-capacity: 'x1'" filter --rank-capacity "$WORK/capacities.txt"
expect_error 1 "rank-capacity: '$WORK/none.txt' is neither" filter --rank-capacity "$WORK/none.txt"
expect_error 2 "keeps the block distribution" filter --resampler allgather --balance-tolerance 0.1
expect_error 2 "line 4" filter --data "$WORK/malformed.csv"
expect_error 1 "line 3" filter --data "$WORK/short_row.csv"
expect_error 2 "3 components but model linear_gaussian expects 2" filter --data "$WORK/three_columns.csv"
expect_error 2 "unknown model 'no_such_model'" filter --model no_such_model
expect_error 1 "ess-threshold" filter --ess-threshold 0
expect_error 1 "ess-threshold" filter --ess-threshold 1.5
expect_error 1 "seed" filter --seed -3
expect_error 2 "unknown scheme 'bogus'" filter --resampling bogus
expect_error 1 "unknown resampler 'fast'" filter --resampler fast
expect_error 2 "systematic-resampling baseline" filter --resampler allgather --resampling multinomial
expect_error 1 "multinomial selection" filter --resampler roulette-algorithm1
expect_error 2 "unknown sampler 'tree'" filter --local-sampler tree
expect_error 2 "device: 'gpu' is not a device" filter --device gpu
# A build without CUDA says so (a GPU build runs the filter: nothing to refuse there).
if ! rsmc_np 1 filter --device cuda --particles 10 --steps 1 --quiet >/dev/null 2>&1; then
  expect_error 2 "device cuda: this rsmc is built without CUDA" filter --device cuda
  expect_error 1 "device cuda: this rsmc is built without CUDA" simulate --device cuda
fi
expect_error 1 "device: 'gpu' is not a device" simulate --device gpu
expect_error 1 "applies to --resampler roulette only" filter --resampler gather-root --local-sampler forest
expect_error 2 "zero.toml:1: particles: expected an integer >= 1, got an integer 0" filter --config "$WORK/zero.toml"
expect_error 1 "string.toml:2: particles: expected an integer >= 1, got a string \"many\"" filter --config "$WORK/string.toml"
expect_error 2 "typo.toml:1: unknown key 'partciles'; known keys: model, particles" filter --config "$WORK/typo.toml"
expect_error 1 "choice.toml:1: resampling: expected one of" filter --config "$WORK/choice.toml"
expect_error 1 "range.toml:1: ess_threshold: expected a number in (0, 1], got a number 1.5" filter --config "$WORK/range.toml"
expect_error 1 "twice.toml:2:13: .*cannot redefine existing integer 'particles'" filter --config "$WORK/twice.toml"
expect_error 2 "syntax.toml:1:19: Error while parsing array: encountered end-of-file" filter --config "$WORK/syntax.toml"
expect_error 1 "cannot read '$WORK/none.toml'" filter --config "$WORK/none.toml"
expect_error 2 "unknown_parameter.toml:2: parameters.phi: model 'linear_gaussian' has no parameter 'phi'" filter --config "$WORK/unknown_parameter.toml"
expect_error 1 "ragged.toml:2: parameters.Q: expected a matrix" filter --config "$WORK/ragged.toml"
expect_error 1 "Q is not symmetric positive definite" filter --config "$WORK/indefinite.toml"
expect_error 1 "string_parameter.toml:3: parameters.sigma_eps2: expected a number, got a string" filter --config "$WORK/string_parameter.toml"
expect_error 2 "stochastic_volatility: phi = 1.2; expected -1 < phi < 1" filter --config "$WORK/sv_phi.toml"
expect_error 1 "sir_epidemic: observation = 'gauss'; expected 'poisson' or 'negative_binomial'" simulate --config "$WORK/sir_observation.toml"
expect_error 1 "l96_huge_d.toml:3: parameters.d: expected an integer in \\[4, 2147483647\\], got an integer 5000000000" filter --config "$WORK/l96_huge_d.toml"
expect_error 2 "l96_huge_d.toml:3: parameters.d: expected an integer in \\[4, 2147483647\\]" simulate --config "$WORK/l96_huge_d.toml"
expect_error 1 "l96_wrapping_obs_every.toml:4: parameters.obs_every: expected an integer in \\[1, 2147483647\\], got an integer 4294967297" filter --config "$WORK/l96_wrapping_obs_every.toml"
expect_error 1 "regime_huge_k.toml:3: parameters.K: expected an integer in \\[1, 31\\], got an integer 4294967298" filter --config "$WORK/regime_huge_k.toml"
expect_error 1 "steps: 9 exceeds the 4 observations" filter --data "$WORK/good.csv" --steps 9

# ---- issue 39, F: a wrong run-file value is an error even when a flag overrides it; an error about
# a value the run file set names the file and line; echoed input is cut short; odd CSV encodings.
expect_error 1 "string.toml:2: particles: expected an integer >= 1, got a string \"many\"" filter --config "$WORK/string.toml" --particles 1000
printf 'seed = 72057594037927936\n' >"$WORK/big_seed.toml"
expect_error 1 "big_seed.toml:1: seed: 72057594037927936" filter --config "$WORK/big_seed.toml"
printf 'particles = 5000000000000000000\n' >"$WORK/big_particles.toml"
expect_error 1 "big_particles.toml:1: particles: 5000000000000000000" filter --config "$WORK/big_particles.toml"
printf 'model = "no_such_model"\n' >"$WORK/model.toml"
expect_error 2 "model.toml:1: model: unknown model 'no_such_model'" filter --config "$WORK/model.toml"
printf '[parameters]\nR = [[inf, 0.0], [0.0, 1.0]]\n' >"$WORK/r_inf.toml"
expect_error 1 "r_inf.toml:2: linear_gaussian: R\[0\]\[0\] = inf" filter --config "$WORK/r_inf.toml"
expect_error 1 "--particles: -5 is negative; expected an integer >= 1" filter --particles -5
expect_error 1 "--particles: 0 is not valid; expected an integer >= 1" filter --particles 0
# A megabyte of model name: one line of a sane length, the name cut, the rest of the message kept.
{ printf 'model = "'; head -c 1048576 /dev/zero | tr '\0' a; printf '"\n'; } >"$WORK/long_model.toml"
expect_error 1 "long_model.toml:1: model: unknown model 'aaaa*\.\.\. (1048576 bytes)'; available models: " filter --config "$WORK/long_model.toml"
[ "$(grep '^rsmc: error:' "$WORK/stderr" | wc -c)" -le 400 ] || fail "the error about a 1 MB model name is $(wc -c <"$WORK/stderr") bytes long"
# CSV: a NUL byte and UTF-16 text are named (and never cut the line short); CR-only line endings are lines.
{ printf 'y1,y2\n0.1,0.2\n0.3,'; printf '\000'; printf '0.4\n'; } >"$WORK/nul.csv"
expect_error 1 "nul.csv', line 3: a NUL byte at column 5; expected text" filter --data "$WORK/nul.csv"
{ printf '\377\376y\000'; printf '1\000\n\000'; } >"$WORK/utf16.csv"
expect_error 1 "utf16.csv': is UTF-16 text (it starts with the byte-order mark FF FE); expected ASCII or UTF-8" filter --data "$WORK/utf16.csv"
printf 'y1\000y2\n0.1,0.2\n' >"$WORK/nul_header.csv"
expect_error 1 "line 1: a NUL byte at column 3" filter --data "$WORK/nul_header.csv"
printf 'y1,y2\r0.1,0.2\r0.3,0.4\r,\r0.7,0.8\r' >"$WORK/cr_only.csv"
output_has "steps: *4" "$RSMC" info "$WORK/cr_only.csv" || fail "CR-only line endings: not 4 steps: $("$RSMC" info "$WORK/cr_only.csv" 2>&1)"
rsmc_np 1 filter --data "$WORK/cr_only.csv" --particles 200 --quiet -o "$WORK/cr.h5" || fail "CR-only line endings: the run"
rsmc_np 1 filter --data "$WORK/good.csv" --particles 200 --quiet -o "$WORK/lf.h5" || fail "LF line endings: the run"
"${H5_DATASETS_EQUAL:?set by CTest}" "$WORK/cr.h5" "$WORK/lf.h5" >/dev/null || fail "CR-only line endings read differently from LF"

# An existing output is refused without --overwrite, and left exactly as it was.
echo "precious" >"$WORK/existing.h5"
before=$(sha256sum <"$WORK/existing.h5")
code=0
rsmc_np 2 filter --particles 100 --steps 3 --output "$WORK/existing.h5" 2>"$WORK/stderr" >/dev/null || code=$?
[ "$code" -ne 0 ] || fail "overwrote an existing output without --overwrite"
grep -q "already exists" "$WORK/stderr" || fail "no 'already exists' message"
[ "$(sha256sum <"$WORK/existing.h5")" = "$before" ] || fail "existing output was modified"
rsmc_np 2 filter --particles 100 --steps 3 --output "$WORK/existing.h5" --overwrite --quiet ||
  fail "--overwrite did not replace the file"
finish
