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
  catch2 libcli11-dev
  python3
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
