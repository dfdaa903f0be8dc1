#!/usr/bin/env bash
# Acceptance (issue 14): `rsmc filter` result files hold bitwise identical datasets whatever the
# number of Kokkos threads per rank (1, 2 and 3, through OMP_NUM_THREADS, which Kokkos' OpenMP
# backend follows when --kokkos-num-threads is not given), on 1 and 3 ranks, for every shipped model,
# every scheme and the three p-invariant local samplers. alias is compared across thread counts at a
# fixed rank count (its results depend on the rank count only). /resampling_traffic depends on the
# rank count and is left out.
# A build whose Kokkos has no threaded host backend (Debian's 3.4 is Serial only) has nothing to
# compare: the test says so and reports "skipped" (exit 77), never "passed".
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}" "${RSMC_KOKKOS_DEVICES:?set by CTest}"
case ",${RSMC_KOKKOS_DEVICES}," in
  *",OPENMP,"* | *",THREADS,"*) ;;
  *) echo "SKIPPED: this build's Kokkos has no threaded host backend (devices: $RSMC_KOKKOS_DEVICES)"; exit 77 ;;
esac
export OMP_PROC_BIND=false OMPI_MCA_hwloc_base_binding_policy=none

# run_threads LABEL RANKS ARGS...: the same run with 1, 2 and 3 threads per rank; adds the files to `files`.
run_threads() {
  local label=$1 p=$2 t out
  shift 2
  for t in 1 2 3; do
    out="$WORK/${label}_p${p}_t$t.h5"
    OMP_NUM_THREADS=$t rsmc_np "$p" filter "$@" --quiet --output "$out" ||
      fail "rsmc filter on $p ranks x $t threads ($label: $*) failed"
    files+=("$out")
  done
}

models=(linear_gaussian local_level stochastic_volatility nonlinear_growth lorenz96 sir_epidemic regime_switching)
schemes=(systematic stratified multinomial residual)
for i in "${!models[@]}"; do
  model=${models[$i]}
  # Every model meets every scheme once over the loop, with N not a multiple of the thread or rank counts.
  scheme=${schemes[$((i % ${#schemes[@]}))]}
  config=(--model "$model" --particles 1537 --steps 10 --seed $((11 + i)) --ess-threshold 0.9 --resampling "$scheme")
  files=()
  for sampler in search forest butterfly; do
    for p in 1 3; do run_threads "${model}_$sampler" "$p" "${config[@]}" --local-sampler "$sampler"; done
  done
  "$H5_DATASETS_EQUAL" --ignore /resampling_traffic "${files[@]}" ||
    fail "datasets differ across thread counts, rank counts or samplers ($model, $scheme)"
  rm -f "${files[@]}"
done

# alias (the exact PSA table and the draws' counts are built by threads in the execution space:
# parallel_selection.hpp, Run::alias): identical across thread counts at a fixed rank count.
for scheme in "${schemes[@]}"; do
  files=()
  run_threads "alias_$scheme" 2 --model stochastic_volatility --particles 5003 --steps 8 --seed 3 \
    --ess-threshold 1 --resampling "$scheme" --local-sampler alias
  "$H5_DATASETS_EQUAL" "${files[@]}" || fail "alias datasets differ across thread counts ($scheme, 2 ranks)"
  rm -f "${files[@]}"
done
finish
