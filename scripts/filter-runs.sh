# scripts/filter-runs.sh: the one table of `rsmc filter` runs that the bitwise comparisons share
# (scripts/compare-outputs.sh: a change against an earlier build; scripts/gpu-kit.sh: the host
# reference files of the GPU kit, rerun on the GPU by gpu-check.sh). Sourced, not run:
#   filter_runs SET INPUTS [MODEL...]
#                             one line per run on stdout: TAG, a tab, then the `rsmc filter` arguments
#                             (space-separated, no spaces inside one); INPUTS is the directory the
#                             arguments name for input files (written by filter_run_inputs). MODELs
#                             (shipped models) replace the set's models (full and quick only)
#   filter_run_inputs DIR     writes the input files the runs name (lorenz96's configuration, the
#                             run files of kit_command_runs)
#   kit_command_runs INPUTS   the GPU kit's runs of the other commands whose models run on the device
#                             (`rsmc pmmh`'s filters, `rsmc simulate`'s model): TAG, a tab, then the
#                             command and its arguments (before --device and --output)
# SET is one of
#   full    every shipped model x scheme x rank-count-invariant local sampler (search, forest, butterfly)
#   quick   3 models x 4 schemes x the search sampler
#   kit     every model (systematic, search), and linear_gaussian and stochastic_volatility x every
#           scheme x every local sampler including alias (whose results hold for one rank count: compare
#           it only against a reference run on the same number of ranks)
# Every run: 997 particles (uneven over 2 or more ranks), seed 11, ESS threshold 0.7; 12 steps (kit: 50).

filter_run_models=(linear_gaussian local_level stochastic_volatility nonlinear_growth lorenz96 sir_epidemic regime_switching)
filter_run_schemes=(systematic stratified multinomial residual)

filter_run_inputs() {
  mkdir -p "$1" && printf '[parameters]\nd = 8\n' > "$1/l96.toml"
  # Two small PMMH runs of one chain: local level (linear Gaussian; the CLI tests' run file) and
  # stochastic volatility (exp and Box-Muller in every weight and move); adaptation from iteration 10.
  cp "$(dirname "${BASH_SOURCE[0]}")/../tests/cli/pmmh_local_level.toml" "$1/pmmh_local_level.toml"
  cat > "$1/pmmh_sv.toml" << 'EOF'
model = "stochastic_volatility"
steps = 40
particles = 97
seed = 7
iterations = 40
quiet = true
[infer.phi]
prior = "uniform"
lower = 0.5
upper = 0.999
initial = 0.95
proposal_sd = 0.3
[infer.sigma]
prior = "gamma"
shape = 2.0
rate = 10.0
initial = 0.2
proposal_sd = 0.3
[adaptation]
start = 10
interval = 5
EOF
}

kit_command_runs() {
  local inputs=$1 m extra
  printf 'pmmh-local_level\tpmmh --config %s/pmmh_local_level.toml\n' "$inputs"
  printf 'pmmh-stochastic_volatility\tpmmh --config %s/pmmh_sv.toml\n' "$inputs"
  for m in "${filter_run_models[@]}"; do
    extra=''
    [ "$m" = lorenz96 ] && extra=" --config $inputs/l96.toml"
    printf 'simulate-%s\tsimulate --model %s --steps 200 --seed 11%s\n' "$m" "$m" "$extra"
  done
}

# filter_run_line INPUTS STEPS MODEL SCHEME SAMPLER: one line of the table
filter_run_line() {
  local inputs=$1 steps=$2 m=$3 s=$4 ls=$5
  local args="--model $m --particles 997 --steps $steps --seed 11 --ess-threshold 0.7 --resampling $s --local-sampler $ls"
  [ "$m" = lorenz96 ] && args+=" --config $inputs/l96.toml"
  printf '%s\t%s\n' "$m-$s-$ls" "$args"
}

filter_runs() {
  local set=$1 inputs=$2 m s ls
  shift 2
  local models=("${filter_run_models[@]}") samplers=(search forest butterfly)
  for m in "$@"; do
    [[ " ${filter_run_models[*]} " == *" $m "* ]] ||
      { echo "filter_runs: unknown model '$m' (models: ${filter_run_models[*]})" >&2; return 2; }
  done
  case $set in
    full) ;;
    quick) models=(linear_gaussian stochastic_volatility sir_epidemic) samplers=(search) ;;
    kit)
      [ $# -eq 0 ] || { echo "filter_runs: the kit set has its own models; it takes no MODEL" >&2; return 2; }
      for m in "${filter_run_models[@]}"; do filter_run_line "$inputs" 50 "$m" systematic search; done
      for m in linear_gaussian stochastic_volatility; do
        for s in "${filter_run_schemes[@]}"; do
          for ls in search forest butterfly alias; do
            [ "$s-$ls" = systematic-search ] || filter_run_line "$inputs" 50 "$m" "$s" "$ls"
          done
        done
      done
      return
      ;;
    *)
      echo "filter_runs: unknown set '$set' (full, quick or kit)" >&2
      return 2
      ;;
  esac
  [ $# -eq 0 ] || models=("$@")
  for m in "${models[@]}"; do
    for s in "${filter_run_schemes[@]}"; do
      for ls in "${samplers[@]}"; do filter_run_line "$inputs" 12 "$m" "$s" "$ls"; done
    done
  done
}
