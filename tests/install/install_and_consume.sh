#!/usr/bin/env bash
# Acceptance: `cmake --install` of the build tree gives a usable package. Installs into a temporary
# prefix, checks the installed `rsmc` runs, then configures and builds examples/random_walk (an
# out-of-tree model that only does find_package(rsmc) with CMAKE_PREFIX_PATH=<prefix>) and runs it
# on 2 ranks: it filters its own model and compares with the exact Kalman filter.
#
# From CTest: RSMC_BUILD_DIR, RSMC_SOURCE_DIR, RSMC_VERSION, CMAKE_COMMAND, RSMC_CXX_COMPILER,
# RSMC_BUILD_CONFIG, MPIEXEC, MPIEXEC_FLAGS.
set -euo pipefail
: "${RSMC_BUILD_DIR:?set by CTest}" "${RSMC_SOURCE_DIR:?set by CTest}"
: "${CMAKE_COMMAND:=cmake}" "${MPIEXEC:=mpiexec}" "${MPIEXEC_FLAGS:=--oversubscribe}"
: "${RSMC_CXX_COMPILER:=}" "${RSMC_BUILD_CONFIG:=}" "${RSMC_VERSION:=}"
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
config=$(find "$prefix" -path '*/cmake/rsmc/rsmcConfig.cmake' | head -n 1)
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
consumer=$(find "$tmp/consumer" -type f -name consumer -perm -u+x | head -n 1)
[ -n "$consumer" ] || { echo "FAIL: the consumer executable was not built"; exit 1; }

step "run the consumer on 2 ranks"
# shellcheck disable=SC2086
"$MPIEXEC" -n 2 $MPIEXEC_FLAGS "$consumer"
echo "all checks passed"
