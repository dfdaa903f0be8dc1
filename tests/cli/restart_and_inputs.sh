#!/usr/bin/env bash
# Restart and input conveniences (docs/usage.md):
#  1. `--restart latest --checkpoint-dir D` alone continues the checkpoint's run: model, [parameters],
#     a non-default N, steps, seed, scheme, local sampler and data path all come from the checkpoint,
#     and the result is bitwise identical to the uninterrupted run, on another rank count too.
#  2. Options given explicitly must still agree with the checkpoint: a different --particles, --seed
#     or [parameters] is refused with the error naming the first difference, nothing written.
#  3. Integer options accept integral scientific notation (1e6, 2.5e5, 1E+2) and refuse the rest
#     (1.5e0, 1e-3, 1e30, 2.5e0.5) with one error line naming the flag, nothing written.
#  4. Particles that cannot fit in memory (--particles 1e11 on one rank) fail before anything is
#     allocated, with one line naming N, the bytes per rank and the memory available.
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"
cd "$WORK"
errors() { grep -c '^rsmc: error:' "$1" || true; }
same() {  # same WHAT A.h5 B.h5: result datasets identical (traffic depends on the rank count)
  "$H5_DATASETS_EQUAL" --ignore /resampling_traffic "$2" "$3" >/dev/null || fail "$1: results differ"
}

# ---- 1. a restart takes the checkpoint's settings
"$RSMC" simulate --model stochastic_volatility --steps 30 --seed 4 -o sv.csv >/dev/null || fail "simulate"
printf 'model = "stochastic_volatility"\n[parameters]\nphi = 0.9\nsigma = 0.25\n' >sv.toml
run="--config sv.toml --data sv.csv --particles 3000 --seed 17 --resampling stratified --local-sampler forest"
# shellcheck disable=SC2086
rsmc_np 2 filter $run --steps 24 --quiet -o full.h5 || fail "uninterrupted run"
# shellcheck disable=SC2086
rsmc_np 2 filter $run --steps 24 --checkpoint-every 12 --checkpoint-dir ck --quiet -o first.h5 || fail "first run"
rm -f ck/checkpoint-000000024.h5  # as if the run had stopped after step 12
for p in 3 1; do
  rsmc_np "$p" filter --restart latest --checkpoint-dir ck -o "cont$p.h5" >"cont$p.txt" ||
    fail "restart latest on $p ranks with no other option"
  grep -q "model stochastic_volatility (state dim 1), 3000 particles on $p rank.*, 24 steps, seed 17" "cont$p.txt" ||
    fail "restart on $p ranks: the banner does not show the checkpoint's settings: $(head -3 "cont$p.txt")"
  grep -q "^observations: sv.csv" "cont$p.txt" || fail "restart on $p ranks: not the checkpoint's data path"
  grep -q "stratified scheme, roulette resampler, forest local sampler" "cont$p.txt" ||
    fail "restart on $p ranks: not the checkpoint's scheme and sampler: $(cat "cont$p.txt")"
  same "restart latest on $p ranks" full.h5 "cont$p.h5"
  rm -f ck/checkpoint-000000024.h5
done
# The same, from a run file that gives only the restart (the flags are the checkpoint's anyway).
printf 'restart = "latest"\ncheckpoint_dir = "ck"\n' >restart.toml
rsmc_np 2 filter --config restart.toml -o cont_toml.h5 --quiet || fail "restart from a run file"
same "restart from a run file" full.h5 cont_toml.h5
rm -f ck/checkpoint-000000024.h5
# --steps still extends the run: 30 steps, as an uninterrupted run of 30.
# shellcheck disable=SC2086
rsmc_np 2 filter $run --steps 30 --quiet -o full30.h5 || fail "uninterrupted run of 30 steps"
rsmc_np 2 filter --restart latest --checkpoint-dir ck --steps 30 -o cont30.h5 --quiet || fail "restart with --steps 30"
same "restart extended by --steps" full30.h5 cont30.h5
rm -f ck/checkpoint-000000030.h5

# ---- 2. explicit options must agree
expect_refusal() {  # expect_refusal PATTERN OPTIONS...: one error line matching PATTERN, nothing written
  local pattern=$1
  shift
  local rc=0
  rsmc_np 2 filter --restart latest --checkpoint-dir ck -o refused.h5 "$@" >refused.txt 2>refused.err || rc=$?
  if [ "$rc" -ne 1 ] || [ "$(errors refused.err)" -ne 1 ] || ! grep -q "^rsmc: error: .*$pattern" refused.err; then
    fail "restart with $*: rc $rc, expected one error line matching '$pattern': $(cat refused.err)"
  fi
  [ ! -e refused.h5 ] && [ ! -s refused.txt ] || fail "restart with $*: it ran"
}
expect_refusal "belongs to another run; particles: the checkpoint has 'particles = 3000', this run 'particles = 4000'" \
  --particles 4000
expect_refusal "belongs to another run; seed: the checkpoint has 'seed = 17', this run 'seed = 18'" --seed 18
expect_refusal "belongs to another run; resampling: the checkpoint has 'resampling = \"stratified\"'" \
  --resampling systematic
printf 'model = "stochastic_volatility"\n[parameters]\nphi = 0.95\n' >other.toml
expect_refusal "belongs to another run; phi: the checkpoint has 'phi = 0.9', this run 'phi = 0.95'" --config other.toml
expect_refusal "is of model 'stochastic_volatility', not 'linear_gaussian'" --model linear_gaussian
[ "$(compgen -G 'ck/checkpoint-*.h5' | wc -l)" -eq 1 ] || fail "a refused restart changed the checkpoints: $(ls ck)"

# ---- 3. integers in scientific notation
for n in 1e6 2.5e5; do
  want=$(python3 -c "print(int(float('$n')))")
  out=$(rsmc_np 1 filter --particles "$n" --steps 2 --seed 3 -o "n$n.h5") || fail "--particles $n refused"
  grep -q "^rsmc .* $want particles on 1 rank, 2 steps, seed 3" <<<"$out" ||
    fail "--particles $n: expected $want particles: $(head -1 <<<"$out")"
done
rsmc_np 1 filter --particles 2500 --steps 2 --seed 3 -o plain.h5 --quiet || fail "--particles 2500"
rsmc_np 1 filter --particles 2.5e3 --steps 2E+0 --seed 3e0 -o sci.h5 --quiet || fail "--particles 2.5e3 --steps 2E+0"
same "2.5e3 / 2E+0 / 3e0 as 2500 / 2 / 3" plain.h5 sci.h5
"$RSMC" simulate --steps 1e1 --seed 4 -o ten.csv >/dev/null || fail "simulate --steps 1e1"
[ "$(($(wc -l <ten.csv) - 1))" -eq 10 ] || fail "simulate --steps 1e1 did not write 10 rows"

expect_input_error() {  # expect_input_error PATTERN ARGS...: exit 2, one error line matching PATTERN
  local pattern=$1
  shift
  local rc=0
  rm -f bad.h5
  rsmc_np 1 "$@" -o bad.h5 >bad.txt 2>bad.err || rc=$?
  if [ "$rc" -ne 2 ] || [ "$(errors bad.err)" -ne 1 ] || ! grep -q -- "^rsmc: error: $pattern" bad.err; then
    fail "$*: rc $rc, expected exit 2 and one error line matching '$pattern': $(cat bad.err)"
  else
    echo "ok: $(cat bad.err)"
  fi
  [ ! -e bad.h5 ] && [ ! -s bad.txt ] || fail "$*: it ran"
}
expect_input_error "--particles: 1.5e0 is not an integer" filter --particles 1.5e0
expect_input_error "--particles: 1e-3 is not an integer" filter --particles 1e-3
expect_input_error "--particles: 1e30 is out of range; expected at most 2^63 - 1" filter --particles 1e30
expect_input_error "--particles: 2.5e0.5 is not a number" filter --particles 2.5e0.5
expect_input_error "--particles: -1e3 is negative" filter --particles -1e3
expect_input_error "--steps: 0.5 is not an integer" filter --steps 0.5
expect_input_error "--seed: 1e999999 is out of range" filter --seed 1e999999
expect_input_error "--checkpoint-every: 2.5 is not an integer" filter --checkpoint-every 2.5
expect_input_error "--steps: 1e-1 is not an integer" simulate --steps 1e-1

# ---- 4. particles that cannot fit: one line (the whole of stderr on one rank without mpiexec, which
# adds its own lines on a failure), no allocator message, nothing started.
for p in 1 2; do
  rc=0
  if [ "$p" -eq 1 ]; then
    "$RSMC" filter --particles 1e11 --checkpoint-dir mem_ck -o mem.h5 >mem.txt 2>mem.err || rc=$?
    [ "$(wc -l <mem.err)" -eq 1 ] || fail "--particles 1e11 on 1 rank: more than one line on stderr: $(cat mem.err)"
  else
    rsmc_np "$p" filter --particles 1e11 --checkpoint-dir mem_ck -o mem.h5 >mem.txt 2>mem.err || rc=$?
  fi
  per_rank=$((100000000000 / p))
  if [ "$rc" -ne 1 ] || [ "$(errors mem.err)" -ne 1 ] || grep -qi "kokkos" mem.err ||
    ! grep -q "^rsmc: error: --particles: 100000000000 particles need [0-9.]* [KMGTPE]iB per rank ($per_rank particles per rank x [0-9]* bytes per particle), but only [0-9.]* [A-Za-z]* of memory is available per rank" mem.err; then
    fail "--particles 1e11 on $p rank(s): rc $rc, expected exit 1 and one line naming N, the bytes per rank and the memory: $(cat mem.err)"
  else
    echo "ok ($p ranks): $(grep '^rsmc: error:' mem.err)"
  fi
  [ ! -s mem.txt ] && [ ! -e mem.h5 ] && [ ! -e mem_ck ] || fail "--particles 1e11 on $p rank(s): it started"
done
finish
