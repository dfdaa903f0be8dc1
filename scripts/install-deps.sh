#!/usr/bin/env bash
# Installs the Debian 12 packages rsmc needs to build, test and run (skips what is installed).
# Run as root (or with sudo). CUDA is optional: the CUDA parts build when nvcc is found
# (/usr/local/cuda/bin/nvcc or on PATH); the CUDA toolkit is not a Debian package here.
set -euo pipefail
packages=(
  build-essential cmake git pkg-config
  libopenmpi-dev openmpi-bin
  libhdf5-openmpi-dev hdf5-tools
  librandom123-dev libtrilinos-kokkos-dev
  catch2 libcli11-dev libtomlplusplus-dev
  python3 python3-h5py python3-matplotlib
  # The sanitizer and fuzzing stages of scripts/test.sh (scripts/build-sanitize.sh): clang 14 and
  # its compiler-rt, which holds the ASan/UBSan runtimes and libFuzzer (libclang_rt.fuzzer*.a).
  clang-14 libclang-rt-14-dev
  # scripts/format.sh (test.sh's stage 0 checks that the sources match .clang-format)
  clang-format-14
  # compiler cache: scripts/build-kokkos4.sh uses it when present, so a rebuild (or a CI machine
  # that keeps ~/.cache) compiles only what changed
  ccache
)
# For the SLURM tests only (tests/slurm: job scripts on a private localhost controller, shellcheck);
# optional: when they cannot be installed those tests are skipped. The tests start their own munged,
# slurmctld and slurmd; the packages' system services are not used.
optional=(slurmctld slurmd slurm-client munge shellcheck)
not_installed() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
mapfile -t missing < <(not_installed "${packages[@]}")
mapfile -t missing_optional < <(not_installed "${optional[@]}")
if [ ${#missing[@]} -eq 0 ] && [ ${#missing_optional[@]} -eq 0 ]; then
  echo "install-deps: all $((${#packages[@]} + ${#optional[@]})) packages already installed"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ${#missing_optional[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing_optional[*]} (optional, for the SLURM tests)"
  $SUDO apt-get install -y -qq --no-install-recommends "${missing_optional[@]}" >/dev/null ||
    echo "install-deps: warning: could not install ${missing_optional[*]}; the SLURM tests will be skipped"
fi
echo "install-deps: done"
