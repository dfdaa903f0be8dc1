#!/usr/bin/env bash
# Builds and installs Kokkos (core, containers, algorithms, simd; no tests, examples or benchmarks)
# from a source the user names, for one backend set, into a cache directory keyed by everything that
# changes the result. A second run with the same inputs builds nothing: it prints the prefix and
# returns. The last line on stdout is always the install prefix; progress and the build's output go
# to stderr, so   prefix=$(scripts/install-kokkos.sh openmp kokkos-4.6.01.tar.gz)   works.
#
#   scripts/install-kokkos.sh [options] BACKEND [SOURCE]
#
# BACKEND   openmp  Serial + OpenMP, built with the host C++ compiler ($CXX, default c++)
#           cuda    Serial + CUDA, built with Kokkos' nvcc_wrapper around $CXX (default g++);
#                   needs nvcc (on PATH, $CUDA_ROOT/bin, or /usr/local/cuda/bin)
# SOURCE    a Kokkos release tarball (.tar.gz, .tgz, .tar.xz, .tar) or an unpacked source directory
#           (never modified: it is copied before patching); default: $RSMC_KOKKOS_SOURCE
#
# Options
#   --patch FILE    apply FILE with `patch -p1` inside the source before configuring; repeatable,
#                   applied in the order given (e.g. Kokkos 4.6's CUDA 13 patch)
#   --arch NAME     cuda only: the Kokkos GPU architecture, e.g. HOPPER90 (default), AMPERE80,
#                   ADA89, BLACKWELL100 (case-insensitive; a Kokkos_ARCH_<NAME> option)
#   --cache-dir DIR where installs live (default $RSMC_CACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/rsmc)
#   --jobs N        parallel build jobs (default: nproc)
#   --dry-run       print the cache key's inputs and the prefix (stdout), say whether it is
#                   installed (stderr), build nothing
#   -h, --help      this text
#
# The prefix is <cache-dir>/kokkos-<backend>-<hash>, the hash (16 hex digits of a SHA-256) over: the
# source's contents, each patch's contents (in order), the backend, the architecture, the compiler
# identities (the host compiler's path and version; for cuda also nvcc's path and version) and this
# script's CMake recipe; not the paths of the source and patches. Changing any of them gives a new
# prefix; old ones stay until removed by hand. An install is complete only when
# <prefix>/rsmc-kokkos-install.txt exists (written last: the key's inputs and the files used); an
# incomplete prefix left by an interrupted run is rebuilt. Concurrent runs for the same prefix wait
# for each other (flock).
#
# For cuda, the installed <prefix>/bin/nvcc_wrapper defaults to the chosen architecture (instead of
# the wrapper's sm_70, which CUDA 13 refuses) and to the nvcc used here (CUDA_ROOT still overrides
# it), so configuring a project with CMAKE_CXX_COMPILER=<prefix>/bin/nvcc_wrapper needs no extra
# flags. Use the install with  cmake -DKokkos_ROOT=<prefix> ...  (rsmc: docs/building.md).
set -euo pipefail

die() { echo "install-kokkos: $*" >&2; exit 2; }
say() { echo "install-kokkos: $*" >&2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

# The CMake recipe version: bump when the options below change in a way the argument list does not show.
readonly RECIPE=3
# Kokkos' NVIDIA architectures (Kokkos 4.6); nvcc itself refuses the ones it no longer supports.
readonly CUDA_ARCHS="KEPLER30 KEPLER32 KEPLER35 KEPLER37 MAXWELL50 MAXWELL52 MAXWELL53 PASCAL60 PASCAL61
VOLTA70 VOLTA72 TURING75 AMPERE80 AMPERE86 ADA89 HOPPER90 BLACKWELL100 BLACKWELL120"

backend="" source="${RSMC_KOKKOS_SOURCE:-}" arch=HOPPER90 arch_given=false dry_run=false
cache_dir="${RSMC_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rsmc}"
jobs=$(nproc 2>/dev/null || echo 2)
patches=() work=""
parse_args() {
  local positional=()
  while [ $# -gt 0 ]; do
    case $1 in
      -h|--help) usage; exit 0 ;;
      --patch) [ $# -ge 2 ] || die "--patch needs a file"; patches+=("$2"); shift ;;
      --arch) [ $# -ge 2 ] || die "--arch needs a name, e.g. AMPERE80"; arch=${2^^}; arch_given=true; shift ;;
      --cache-dir) [ $# -ge 2 ] || die "--cache-dir needs a directory"; cache_dir=$2; shift ;;
      --jobs) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--jobs needs a positive number"; jobs=$2; shift ;;
      --dry-run) dry_run=true ;;
      -*) die "unknown option '$1' (see --help)" ;;
      *) positional+=("$1") ;;
    esac
    shift
  done
  [ ${#positional[@]} -ge 1 ] || die "no backend given: openmp or cuda (see --help)"
  [ ${#positional[@]} -le 2 ] || die "too many arguments: '${positional[*]}' (see --help)"
  backend=${positional[0]}
  [ ${#positional[@]} -lt 2 ] || source=${positional[1]}
}

check_inputs() {
  case $backend in
    openmp|cuda) ;;
    *) die "unknown backend '$backend': use openmp (Serial + OpenMP) or cuda (Serial + CUDA)" ;;
  esac
  [ -n "$source" ] || die "no Kokkos source: pass a tarball or directory, or set RSMC_KOKKOS_SOURCE"
  [ -e "$source" ] || die "Kokkos source '$source' does not exist"
  source=$(cd "$(dirname "$source")" && pwd -P)/$(basename "$source")
  if [ -d "$source" ]; then
    [[ -f $source/CMakeLists.txt && -d $source/core ]] || die "'$source' is not a Kokkos source directory (no CMakeLists.txt and core/)"
  else
    case $source in
      *.tar.gz|*.tgz|*.tar.xz|*.tar) ;;
      *) die "Kokkos source '$source' is neither a directory nor a .tar.gz/.tgz/.tar.xz/.tar file" ;;
    esac
  fi
  local i
  for i in "${!patches[@]}"; do
    [ -f "${patches[$i]}" ] || die "patch file '${patches[$i]}' does not exist"
    patches[i]=$(cd "$(dirname "${patches[$i]}")" && pwd -P)/$(basename "${patches[$i]}")
  done
  if [ "$backend" = cuda ]; then
    [[ " ${CUDA_ARCHS//$'\n'/ } " == *" $arch "* ]] || die "unknown CUDA architecture '$arch': one of ${CUDA_ARCHS//$'\n'/ }"
  elif $arch_given; then
    die "--arch is for the cuda backend only (the openmp build targets the host compiler's default CPU)"
  fi
}

# The C++ compiler (and for cuda nvcc): absolute paths, so that the recorded identity is the one used.
find_compilers() {
  local cxx=${CXX:-}
  [ -n "$cxx" ] || { [ "$backend" = cuda ] && cxx=${NVCC_WRAPPER_DEFAULT_COMPILER:-g++} || cxx=c++; }
  host_cxx=$(command -v "$cxx") || die "C++ compiler '$cxx' not found (set CXX)"
  host_cxx=$(readlink -f "$host_cxx")
  nvcc=""
  if [ "$backend" = cuda ]; then
    local candidate
    for candidate in "$(command -v nvcc || true)" "${CUDA_ROOT:+$CUDA_ROOT/bin/nvcc}" /usr/local/cuda/bin/nvcc; do
      if [ -n "$candidate" ] && [ -x "$candidate" ]; then nvcc=$(readlink -f "$candidate"); break; fi
    done
    [ -n "$nvcc" ] || die "the cuda backend needs nvcc: not on PATH, in \$CUDA_ROOT/bin or /usr/local/cuda/bin"
  fi
}

cmake_args() {  # the CMake options of the recipe (source and install paths are added at configure)
  printf '%s\n' -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF \
    -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF \
    -DKokkos_ENABLE_BENCHMARKS=OFF
  case $backend in
    openmp) printf '%s\n' -DKokkos_ENABLE_OPENMP=ON ;;
    cuda) printf '%s\n' -DKokkos_ENABLE_CUDA=ON "-DKokkos_ARCH_$arch=ON" ;;
  esac
}

source_hash() {
  if [ -d "$source" ]; then  # names and contents of every file, in a fixed order; .git excluded
    (cd "$source" && find . -path ./.git -prune -o -type f -print0 | LC_ALL=C sort -z |
       xargs -0 sha256sum) | sha256sum | cut -c1-64
  else
    sha256sum "$source" | cut -c1-64
  fi
}

describe_key() {  # the inputs of the cache key, one per line: contents and identities, not paths
  echo "recipe: $RECIPE"
  echo "source sha256: $(source_hash)"
  local p
  for p in ${patches[@]+"${patches[@]}"}; do echo "patch sha256: $(sha256sum "$p" | cut -c1-64)"; done
  echo "backend: $backend"
  [ "$backend" = cuda ] && echo "arch: $arch"
  echo "c++: $host_cxx ($("$host_cxx" --version | head -n1))"
  [ -z "$nvcc" ] || echo "nvcc: $nvcc ($("$nvcc" --version | tail -n1))"
  echo "cmake options: $(cmake_args | tr '\n' ' ')"
}

# Unpacks (or copies) the source into $1 and prints the Kokkos top directory.
stage_source() {
  local into=$1 top
  if [ -d "$source" ]; then
    cp -a "$source" "$into/src"
    top="$into/src"
  else
    tar -xf "$source" -C "$into" || die "cannot unpack '$source'"
    top=$(find "$into" -mindepth 1 -maxdepth 2 -name CMakeLists.txt -printf '%h\n' | head -n1)
    [[ -n $top && -d $top/core ]] || die "'$source' does not contain a Kokkos source tree"
  fi
  echo "$top"
}

apply_patches() {
  local top=$1 p
  for p in ${patches[@]+"${patches[@]}"}; do
    say "applying $p"
    patch -d "$top" -p1 --forward --batch -i "$p" >&2 || die "patch '$p' does not apply to this Kokkos source"
  done
}

# nvcc_wrapper ("Default settings: change those according to your machine"): default to the chosen
# architecture, the host compiler and the nvcc used here, instead of sm_70, g++ and whatever nvcc is
# on PATH. The wrapper's overrides (-arch, -ccbin, NVCC_WRAPPER_DEFAULT_COMPILER, CUDA_ROOT) still work.
set_wrapper_defaults() {
  local wrapper=$1/bin/nvcc_wrapper sm="sm_${arch//[!0-9]/}" line
  [ -f "$wrapper" ] || die "this Kokkos source has no bin/nvcc_wrapper"
  sed -i -e "s|^default_arch=\"sm_[0-9]*\"\$|default_arch=\"$sm\"|" \
         -e "s|^host_compiler=\\\${NVCC_WRAPPER_DEFAULT_COMPILER:-\"g++\"}\$|host_compiler=\\\${NVCC_WRAPPER_DEFAULT_COMPILER:-\"$host_cxx\"}|" \
         -e "s|^nvcc_compiler=nvcc\$|nvcc_compiler=$nvcc|" "$wrapper"
  for line in "default_arch=\"$sm\"" "host_compiler=\${NVCC_WRAPPER_DEFAULT_COMPILER:-\"$host_cxx\"}" "nvcc_compiler=$nvcc"; do
    grep -qxF "$line" "$wrapper" || die "could not set '$line' in $wrapper (the wrapper's default lines changed?)"
  done
}

build_and_install() {
  local work=$1 top
  top=$(stage_source "$work")
  apply_patches "$top"
  local compiler=("-DCMAKE_CXX_COMPILER=$host_cxx")
  if [ "$backend" = cuda ]; then
    # The build compiles through the wrapper at its installed path, which Kokkos' CMake package then
    # records as the compiler Kokkos was built with (Kokkos_CXX_COMPILER).
    set_wrapper_defaults "$top"
    mkdir -p "$prefix/bin"
    cp "$top/bin/nvcc_wrapper" "$prefix/bin/nvcc_wrapper"
    compiler=("-DCMAKE_CXX_COMPILER=$prefix/bin/nvcc_wrapper")
  fi
  local launcher=()
  if command -v ccache >/dev/null && [ "$backend" = openmp ]; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)  # helps only repeated builds on one machine
  fi
  mapfile -t options < <(cmake_args)
  cmake -S "$top" -B "$work/build" "-DCMAKE_INSTALL_PREFIX=$prefix" "${compiler[@]}" \
    ${launcher[@]+"${launcher[@]}"} "${options[@]}" >&2
  cmake --build "$work/build" -j "$jobs" >&2
  cmake --install "$work/build" >&2
}

main() {
  parse_args "$@"
  check_inputs
  find_compilers
  local key hash
  key=$(describe_key)
  hash=$(sha256sum <<<"$key" | cut -c1-16)
  prefix="$cache_dir/kokkos-$backend-$hash"
  local stamp="$prefix/rsmc-kokkos-install.txt"
  if $dry_run; then
    echo "$key"
    if [ -f "$stamp" ]; then say "installed: $prefix"; else say "not installed: $prefix"; fi
    echo "$prefix"
    return
  fi
  mkdir -p "$cache_dir"
  exec 9>"$prefix.lock"
  flock 9
  if [ -f "$stamp" ]; then
    say "cached: Kokkos ($backend) in $prefix"
    echo "$prefix"
    return
  fi
  rm -rf "$prefix"  # an interrupted earlier install
  local start=$SECONDS
  work=$(mktemp -d "$cache_dir/kokkos-$backend-$hash.build.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  say "building Kokkos ($backend${nvcc:+, $arch}) from $source with $jobs jobs into $prefix"
  build_and_install "$work"
  { echo "$key"; echo "built from: $source"; printf 'patch file: %s\n' ${patches[@]+"${patches[@]}"}; } >"$stamp"
  say "installed Kokkos ($backend) in $((SECONDS - start)) s: $prefix"
  echo "$prefix"
}

main "$@"
