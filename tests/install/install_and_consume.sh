#!/usr/bin/env bash
# Acceptance: `cmake --install` of the build tree gives a usable package. Installs into a temporary
# prefix, checks the installed `rsmc` runs, then configures and builds examples/random_walk (an
# out-of-tree model that only does find_package(rsmc) with CMAKE_PREFIX_PATH=<prefix>) and runs it
# on 2 ranks: it filters its own model and compares with the exact Kalman filter. Then runs the
# project's rsmc-random-walk (the standard command line with the model registered, rsmc::cli): it
# lists the model, filters it on 1 and 3 ranks with identical results, continues a checkpoint on
# another rank count bit for bit, and refuses an unknown parameter.
#
# From CTest: RSMC_BUILD_DIR, RSMC_SOURCE_DIR, RSMC_VERSION, CMAKE_COMMAND, RSMC_CXX_COMPILER,
# RSMC_BUILD_CONFIG, MPIEXEC, MPIEXEC_FLAGS, H5_DATASETS_EQUAL.
set -euo pipefail
: "${RSMC_BUILD_DIR:?set by CTest}" "${RSMC_SOURCE_DIR:?set by CTest}"
: "${CMAKE_COMMAND:=cmake}" "${MPIEXEC:=mpiexec}" "${MPIEXEC_FLAGS:=--oversubscribe}"
: "${RSMC_CXX_COMPILER:=}" "${RSMC_BUILD_CONFIG:=}" "${RSMC_VERSION:=}" "${H5_DATASETS_EQUAL:?set by CTest}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rsmc-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"

step() { echo "== $*"; }

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

step "installed rsmc --version"
version=$("$prefix/bin/rsmc" --version)
echo "$version"
if [ -n "$RSMC_VERSION" ] && [ "$version" != "$RSMC_VERSION" ]; then
  echo "FAIL: installed rsmc reports version '$version', expected '$RSMC_VERSION'"
  exit 1
fi

step "configure and build the consumer against $prefix"
cmake_args=(-S "$RSMC_SOURCE_DIR/examples/random_walk" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix")
# The same C++ compiler as rsmc (the libraries are C++) and the build type that was installed.
[ -n "$RSMC_CXX_COMPILER" ] && cmake_args+=(-DCMAKE_CXX_COMPILER="$RSMC_CXX_COMPILER")
[ -n "$RSMC_BUILD_CONFIG" ] && cmake_args+=(-DCMAKE_BUILD_TYPE="$RSMC_BUILD_CONFIG")
"$CMAKE_COMMAND" "${cmake_args[@]}"
"$CMAKE_COMMAND" --build "$tmp/consumer" "${config_args[@]}"
consumer=$(find "$tmp/consumer" -type f -name consumer -perm -u+x -print -quit)
[ -n "$consumer" ] || { echo "FAIL: the consumer executable was not built"; exit 1; }

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
printf 'model = "random_walk"\n[parameters]\nsigma = 1.0\n' >bad.toml
if "$driver" filter --config bad.toml -q 2>err.txt; then echo "FAIL: an unknown parameter was accepted"; exit 1; fi
grep -q "model 'random_walk' has no parameter 'sigma'; its parameters: q, r, m0, p0" err.txt ||
  { echo "FAIL: unexpected message: $(cat err.txt)"; exit 1; }
echo "all checks passed"
