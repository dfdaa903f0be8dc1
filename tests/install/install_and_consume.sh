#!/usr/bin/env bash
# Acceptance: `cmake --install` of the build tree gives a usable package. Installs into a temporary
# prefix, checks the installed `rsmc` runs, then configures and builds examples/random_walk (an
# out-of-tree model that only does find_package(rsmc) with CMAKE_PREFIX_PATH=<prefix>) and runs it
# on 2 ranks: it filters its own model and compares with the exact Kalman filter. Then runs the
# project's rsmc-random-walk (the standard command line with the model registered, rsmc::cli): it
# lists the model, filters it on 1 and 3 ranks with identical results, continues a checkpoint on
# another rank count bit for bit, refuses an unknown parameter, runs random_walk when --model is left
# out (run_cli's default model), and infers a parameter with rsmc pmmh. Building the consumer also
# runs rsmc_check_model on random_walk.hpp (examples/random_walk/CMakeLists.txt).
#
# From CTest: RSMC_BUILD_DIR, RSMC_SOURCE_DIR, RSMC_VERSION, CMAKE_COMMAND, RSMC_CXX_COMPILER,
# RSMC_BUILD_CONFIG, MPIEXEC, MPIEXEC_FLAGS, H5_DATASETS_EQUAL.
#
# --build-only: install and build the consumer, run nothing (a build whose programs cannot run here,
# e.g. Kokkos CUDA without a GPU; scripts/test.sh). Needs only RSMC_BUILD_DIR and RSMC_SOURCE_DIR
# (and RSMC_CXX_COMPILER: the compiler rsmc was built with, e.g. Kokkos' nvcc_wrapper).
set -euo pipefail
build_only=false
if [ "${1:-}" = --build-only ]; then build_only=true; fi
: "${RSMC_BUILD_DIR:?set by CTest}" "${RSMC_SOURCE_DIR:?set by CTest}"
: "${CMAKE_COMMAND:=cmake}" "${MPIEXEC:=mpiexec}" "${MPIEXEC_FLAGS:=--oversubscribe}"
: "${RSMC_CXX_COMPILER:=}" "${RSMC_BUILD_CONFIG:=}" "${RSMC_VERSION:=}"
$build_only || : "${H5_DATASETS_EQUAL:?set by CTest}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rsmc-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"

step() { echo "== $*"; }

# examples/random_walk against the installed rsmc: its `consumer` and `rsmc-random-walk`.
configure_and_build_consumer() {
  local cmake_args=(-S "$RSMC_SOURCE_DIR/examples/random_walk" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix")
  # The same C++ compiler as rsmc (the libraries are C++) and the build type that was installed.
  [ -n "$RSMC_CXX_COMPILER" ] && cmake_args+=(-DCMAKE_CXX_COMPILER="$RSMC_CXX_COMPILER")
  [ -n "$RSMC_BUILD_CONFIG" ] && cmake_args+=(-DCMAKE_BUILD_TYPE="$RSMC_BUILD_CONFIG")
  "$CMAKE_COMMAND" "${cmake_args[@]}"
  "$CMAKE_COMMAND" --build "$tmp/consumer" "${config_args[@]}"
  local exe
  for exe in consumer rsmc-random-walk; do
    [ -n "$(find "$tmp/consumer" -type f -name "$exe" -perm -u+x -print -quit)" ] ||
      { echo "FAIL: $exe was not built"; exit 1; }
  done
}

# rsmcConfig.cmake must never let the consumer build against another Kokkos than rsmc was built
# with (e.g. Debian's 3.4 for an rsmc built against Kokkos 4). The other Kokkos: RSMC_OTHER_KOKKOS_DIR,
# else the first Kokkos CMake package in the system paths that is not rsmc's.
other_kokkos_refused() {
  local ours other="${RSMC_OTHER_KOKKOS_DIR:-}" dir
  ours=$(sed -n 's/^Kokkos_DIR:[A-Z]*=//p' "$RSMC_BUILD_DIR/CMakeCache.txt")
  ours=$(readlink -f "$ours")
  if [ -z "$other" ]; then
    for dir in /usr/lib/cmake/Kokkos /usr/lib/*/cmake/Kokkos /usr/local/lib/cmake/Kokkos /usr/local/lib64/cmake/Kokkos; do
      if [ -f "$dir/KokkosConfig.cmake" ] && [ "$(readlink -f "$dir")" != "$ours" ]; then other=$dir; break; fi
    done
  fi
  if [ -z "$other" ]; then
    echo "no Kokkos other than $ours on this machine: the refusal is not exercised here"
    return
  fi
  local args=(-S "$RSMC_SOURCE_DIR/examples/random_walk" -B "$tmp/other-kokkos" -DCMAKE_PREFIX_PATH="$prefix" -DKokkos_DIR="$other")
  [ -n "$RSMC_CXX_COMPILER" ] && args+=(-DCMAKE_CXX_COMPILER="$RSMC_CXX_COMPILER")
  # Two right outcomes. The other Kokkos has rsmc's version: configuring stops, naming both. It has
  # another version: find_package skips it (rsmc asks for its exact version) and finds rsmc's own
  # through the package's hint, so the consumer is configured, against rsmc's Kokkos.
  if "$CMAKE_COMMAND" "${args[@]}" >"$tmp/other-kokkos.log" 2>&1; then
    grep -q "^-- consumer: .*; Kokkos .* at $ours\$" "$tmp/other-kokkos.log" ||
      { echo "FAIL: the consumer configured with Kokkos_DIR=$other, but not against rsmc's Kokkos $ours:"; cat "$tmp/other-kokkos.log"; exit 1; }
    echo "skipped, as it should: Kokkos_DIR=$other has another version; the consumer uses rsmc's Kokkos at $ours"
    return
  fi
  grep -q "was built against Kokkos .* at $ours, but this project found Kokkos .* at $other" "$tmp/other-kokkos.log" ||
    { echo "FAIL: unexpected configure output with Kokkos_DIR=$other:"; cat "$tmp/other-kokkos.log"; exit 1; }
  echo "refused, as it should: Kokkos_DIR=$other"
}

step "install $RSMC_BUILD_DIR into $prefix"
config_args=()
[ -n "$RSMC_BUILD_CONFIG" ] && config_args=(--config "$RSMC_BUILD_CONFIG")
"$CMAKE_COMMAND" --install "$RSMC_BUILD_DIR" --prefix "$prefix" "${config_args[@]}" >"$tmp/install.log" ||
  { cat "$tmp/install.log"; exit 1; }
for f in bin/rsmc include/rsmc/framework/engine/bootstrap_filter.hpp include/rsmc/models/linear_gaussian.hpp; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $prefix/$f was not installed"; exit 1; }
done
config=$(find "$prefix" -path '*/cmake/rsmc/rsmcConfig.cmake' -print -quit)
[ -n "$config" ] || { echo "FAIL: no rsmcConfig.cmake under $prefix"; exit 1; }
[ -e "$(dirname "$config")/rsmcConfigVersion.cmake" ] || { echo "FAIL: no rsmcConfigVersion.cmake"; exit 1; }

step "find_package(rsmc) never builds against a Kokkos other than rsmc's"
other_kokkos_refused

if $build_only; then
  step "configure and build the consumer against $prefix (build only)"
  configure_and_build_consumer
  echo "the consumer and rsmc-random-walk built; nothing was run (--build-only)"
  exit 0
fi

step "installed rsmc --version"
version=$("$prefix/bin/rsmc" --version)
echo "$version"
if [ -n "$RSMC_VERSION" ] && [ "$version" != "$RSMC_VERSION" ]; then
  echo "FAIL: installed rsmc reports version '$version', expected '$RSMC_VERSION'"
  exit 1
fi

step "configure and build the consumer against $prefix"
configure_and_build_consumer
consumer=$(find "$tmp/consumer" -type f -name consumer -perm -u+x -print -quit)

step "run the consumer on 2 ranks"
# shellcheck disable=SC2086
"$MPIEXEC" -n 2 $MPIEXEC_FLAGS "$consumer"

step "the standard command line with the example's model (rsmc-random-walk)"
driver=$(find "$tmp/consumer" -type f -name rsmc-random-walk -perm -u+x -print -quit)
[ -n "$driver" ] || { echo "FAIL: rsmc-random-walk was not built"; exit 1; }
models=$("$driver" models)
for m in random_walk linear_gaussian; do
  grep -q "^$m\$" <<<"$models" || { echo "FAIL: '$driver models' does not list $m"; echo "$models"; exit 1; }
done
config="$RSMC_SOURCE_DIR/examples/random_walk/random_walk.toml"
cd "$tmp"
for p in 1 3; do
  # shellcheck disable=SC2086
  "$MPIEXEC" -n $p $MPIEXEC_FLAGS "$driver" filter --config "$config" -o "rw_$p.h5" -q
done
"$H5_DATASETS_EQUAL" --ignore /resampling_traffic rw_1.h5 rw_3.h5 || { echo "FAIL: 1 and 3 ranks differ"; exit 1; }
# A checkpoint at step 20 of a 2-rank run, continued on 3 ranks, gives the uninterrupted result.
# shellcheck disable=SC2086
"$MPIEXEC" -n 2 $MPIEXEC_FLAGS "$driver" filter --config "$config" --steps 20 --checkpoint-every 20 \
  --checkpoint-dir ck -o part.h5 -q
# shellcheck disable=SC2086
"$MPIEXEC" -n 3 $MPIEXEC_FLAGS "$driver" filter --config "$config" --checkpoint-dir ck --restart latest \
  -o restarted.h5 -q
"$H5_DATASETS_EQUAL" --ignore /resampling_traffic rw_1.h5 restarted.h5 ||
  { echo "FAIL: the restarted run differs from the uninterrupted one"; exit 1; }
# random_walk is the program's default model (run_cli's third argument): no --model needed.
"$driver" filter --steps 10 --particles 200 >default.txt || { echo "FAIL: filter without --model"; exit 1; }
grep -q "model random_walk" default.txt || { echo "FAIL: filter without --model did not run random_walk:"; cat default.txt; exit 1; }
printf 'model = "random_walk"\n[parameters]\nsigma = 1.0\n' >bad.toml
if "$driver" filter --config bad.toml -q 2>err.txt; then echo "FAIL: an unknown parameter was accepted"; exit 1; fi
grep -q "model 'random_walk' has no parameter 'sigma'; its parameters: q, r, m0, p0" err.txt ||
  { echo "FAIL: unexpected message: $(cat err.txt)"; exit 1; }
# rsmc pmmh infers the out-of-tree model's parameters too: the same chain on 1 and 2 ranks.
printf 'model = "random_walk"\nsteps = 20\nparticles = 200\niterations = 30\nquiet = true\n[infer.q]\nprior = "gamma"\nshape = 2.0\nrate = 4.0\ninitial = 0.5\n' >pmmh.toml
for p in 1 2; do
  # shellcheck disable=SC2086
  "$MPIEXEC" -n $p $MPIEXEC_FLAGS "$driver" pmmh --config pmmh.toml -o "chains_$p.h5"
done
"$H5_DATASETS_EQUAL" chains_1.h5 chains_2.h5 || { echo "FAIL: pmmh of random_walk differs on 1 and 2 ranks"; exit 1; }
echo "all checks passed"
