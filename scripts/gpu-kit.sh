#!/usr/bin/env bash
# scripts/gpu-kit.sh: packs the GPU kit, one tarball (at most 50 MiB) that runs rsmc's GPU check on a
# bare x86-64 Linux machine that has only an NVIDIA driver (no MPI, no HDF5, maybe a newer glibc):
#   bin/       rsmc (Kokkos Serial + CUDA), h5_datasets_equal, the CUDA test executables, OpenMPI's
#              orterun and orted (mpirun, mpiexec: links to orterun)
#   lib/       every shared library those ELF files and OpenMPI's plugins need (their ldd closure)
#   lib/x86_64-linux-gnu/openmpi/, share/openmpi/   OpenMPI's plugins and data, in /usr's layout, so
#              that OPAL_PREFIX=<kit> relocates it
#   expected/  host reference result files (the host build's rsmc, on 1 and 2 ranks) of the runs of
#              scripts/filter-runs.sh's `kit` table (runs.txt: rsmc filter) and of its kit_command_runs
#              (commands.txt: rsmc pmmh and simulate), with their inputs, ranks and KIT (what built the kit)
#   gpu-check.sh, README
# and checks that it is complete (below). Run on the GPU machine: gpu-check.sh (docs/gpu.md).
#
#   scripts/gpu-kit.sh [--build-dir DIR] [--reference-rsmc PATH] [-o KIT.tar.gz]
#   scripts/gpu-kit.sh --check KIT_DIR_OR_TARBALL
#   scripts/gpu-kit.sh --list-targets
#
#   --build-dir DIR        an existing Kokkos-CUDA build of rsmc (configured by scripts/build-kokkos4.sh
#                          cuda); only the kit's targets are built in it. Default: build-cuda/, built
#                          (or updated) through scripts/build-kokkos4.sh cuda, which needs
#                          RSMC_KOKKOS_ROOT or RSMC_KOKKOS_SOURCE (and RSMC_KOKKOS_PATCHES) as it says
#   --reference-rsmc PATH  the host build's rsmc that writes expected/ (default build/drivers/rsmc,
#                          built by scripts/build.sh --target rsmc when absent)
#   -o FILE                the tarball (default rsmc-gpu-kit.tar.gz)
#   --check KIT            only the completeness check of an unpacked kit or a tarball
#   --list-targets         print the kit's CMake targets, one per line (scripts/test.sh builds them)
# Environment: RSMC_KIT_JOBS (build jobs, default 2), RSMC_KIT_RANKS (default "1 2").
#
# The completeness check: every ELF file in the kit (binaries, libraries, plugins) resolves each of
# its NEEDED libraries to a file inside the kit, with only the kit's lib directories on
# LD_LIBRARY_PATH, except libcuda (the driver's) and the glibc family (libc, libm, libdl, libpthread,
# librt, libresolv, libutil, libanl, ld-linux-x86-64: the GPU machine's newer glibc must be used with
# its own loader, and binaries linked against an older glibc run on a newer one; mixing a packed libc
# with the host's loader does not). Where unshare works, it then hides the system's OpenMPI and every
# system copy of a kit library in a private mount namespace and runs `orterun -n 2 h5_datasets_equal`
# from the kit on two of its expected files.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "gpu-kit: $*" >&2; exit 2; }
say() { echo "gpu-kit: $*" >&2; }

multiarch=x86_64-linux-gnu
ompi_lib=/usr/lib/$multiarch/openmpi
ompi_share=/usr/share/openmpi
kit_bins=(rsmc h5_datasets_equal rsmc_cuda_tests rsmc_cuda_alias_tests rsmc_cuda_butterfly_tests rsmc_cuda_math_tests)
max_bytes=$((50 * 1024 * 1024))

# excluded_lib SONAME: true for what the kit must not carry (the driver's libcuda, the glibc family)
excluded_lib() {
  case $1 in
    libcuda.so* | libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | libresolv.so* | \
      libutil.so* | libanl.so* | ld-linux-x86-64.so* | linux-vdso.so*) return 0 ;;
  esac
  return 1
}
is_elf() { [ -f "$1" ] && [ ! -L "$1" ] && [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; }
elf_files() { find "$1" -type f | while read -r f; do is_elf "$f" && echo "$f"; done; }
# ldd_pairs FILE: "soname<TAB>path" per resolved library, "soname<TAB>not found" per missing one
ldd_pairs() {
  ldd "$1" 2> /dev/null | awk '$2 == "=>" { print $1 "\t" ($3 == "not" ? "not found" : $3) }'
}

check_kit() { # check_kit DIR: the completeness check; prints what is missing and fails
  local kit=$1 f soname path missing=0 files=0
  local kit_ld=$kit/lib:$kit/lib/$multiarch/openmpi/lib
  while read -r f; do
    files=$((files + 1))
    while IFS=$'\t' read -r soname path; do
      excluded_lib "$soname" && continue
      case $path in
        "$kit"/*) ;;
        *)
          echo "MISSING ${f#"$kit"/}: $soname (resolves to: $path)"
          missing=$((missing + 1))
          ;;
      esac
    done < <(LD_LIBRARY_PATH=$kit_ld ldd_pairs "$f")
  done < <(elf_files "$kit")
  [ "$files" -gt 0 ] || { echo "gpu-kit --check: no ELF files in $kit"; return 1; }
  echo "gpu-kit --check: $files ELF files, $missing unresolved libraries"
  [ "$missing" = 0 ] && prove_isolated "$kit"
}

# prove_isolated KIT: OpenMPI and HDF5 from the kit alone (system copies hidden); skipped, saying so,
# where this machine allows no private mount namespace
prove_isolated() {
  local kit=$1 empty ref
  ref=$(find "$kit/expected" -name '*-p1.h5' | head -n 1)
  [ -n "$ref" ] || { echo "gpu-kit --check: no expected/*-p1.h5 to run the isolation proof on"; return 1; }
  empty=$(mktemp -d)
  : > "$empty/file"
  local script='set -e
    export LD_LIBRARY_PATH="$K/lib"  # the tools below too: their libraries may be hidden next
    mount --bind "$E" '"$ompi_lib"'; mount --bind "$E" '"$ompi_share"'
    for f in "$K"/lib/*; do s=/usr/lib/'"$multiarch"'/$(basename "$f"); [ -e "$s" ] && mount --bind "$E/file" "$s"; done
    cd "$K"; env OPAL_PREFIX="$K" PATH="$K/bin:$PATH" LD_LIBRARY_PATH="$K/lib:$K/lib/'"$multiarch"'/openmpi/lib" \
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated \
      bin/orterun -n 2 --oversubscribe bin/h5_datasets_equal "$R" "$R"'
  if ! unshare -m true 2> /dev/null; then
    echo "gpu-kit --check: isolation proof skipped (unshare -m is not permitted here)"
  elif E=$empty K=$kit R=$ref unshare -m bash -c "$script" > "$empty/log" 2>&1; then
    echo "gpu-kit --check: isolation proof passed (orterun -n 2 h5_datasets_equal with the system's OpenMPI and the kit's libraries hidden)"
  else
    cat "$empty/log"
    echo "gpu-kit --check: isolation proof FAILED (above)"
    rm -rf "$empty"
    return 1
  fi
  rm -rf "$empty"
}

check_mode() { # check_mode KIT_DIR_OR_TARBALL
  local target=$1 dir
  if [ -d "$target" ]; then
    check_kit "$(cd "$target" && pwd)"
  elif [ -f "$target" ]; then
    dir=$(mktemp -d)
    tar -xzf "$target" -C "$dir" || die "cannot unpack '$target'"
    local rc=0
    check_kit "$dir/$(ls "$dir" | head -n 1)" || rc=1
    rm -rf "$dir"
    return $rc
  else
    die "--check: '$target' is neither a directory nor a file"
  fi
}

build_dir='' reference='' output=rsmc-gpu-kit.tar.gz
while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) build_dir=${2:?--build-dir needs a directory}; shift ;;
    --reference-rsmc) reference=${2:?--reference-rsmc needs a path}; shift ;;
    -o) output=${2:?-o needs a file}; shift ;;
    --check) [ $# = 2 ] || die "--check takes one KIT_DIR_OR_TARBALL"; check_mode "$2"; exit ;;
    --list-targets) printf '%s\n' "${kit_bins[@]}"; exit 0 ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done

# build_kit_targets: the kit's executables in a Kokkos-CUDA build; prints the build directory
build_kit_targets() {
  local targets=() t
  for t in "${kit_bins[@]}"; do targets+=(--target "$t"); done
  if [ -z "$build_dir" ]; then
    (cd "$repo" && nice bash scripts/build-kokkos4.sh cuda "${kit_bins[@]}") >&2
    build_dir=$repo/build-cuda
  fi
  [ -f "$build_dir/CMakeCache.txt" ] || die "--build-dir '$build_dir' is not a configured CMake build"
  grep -q '^RSMC_ENABLE_CUDA:BOOL=ON$' "$build_dir/CMakeCache.txt" ||
    die "--build-dir '$build_dir' is not a CUDA build (RSMC_ENABLE_CUDA is not ON; use scripts/build-kokkos4.sh cuda)"
  grep -q 'nvcc_wrapper' "$build_dir/CMakeCache.txt" ||
    die "--build-dir '$build_dir' does not compile through Kokkos' nvcc_wrapper: not a Kokkos-CUDA build"
  nice cmake --build "$build_dir" -j "${RSMC_KIT_JOBS:-2}" "${targets[@]}" >&2
}

# check_host_arch: the kit's host code must run on any x86-64 CPU (the GPU machine's is unknown):
# scripts/build-kokkos4.sh cuda configures RSMC_TARGET_ARCH=x86-64 (rsmc's default is native). Refuses
# a build whose flags name -march=native or a level above x86-64-v2 (RSMC_TARGET_ARCH, or e.g.
# CMAKE_CXX_FLAGS).
check_host_arch() {
  local flags bad
  flags=$(find "$build_dir" -name flags.make -path '*CMakeFiles*' -not -path '*/bench/*' -exec cat {} + | grep -oE -- '-march=[^ ]+' | sort -u || true)
  bad=$(echo "$flags" | grep -vE '^(-march=x86-64|-march=x86-64-v2)?$' || true)
  [ -z "$bad" ] || die "$build_dir compiles host code with $bad: the GPU machine's CPU is unknown; reconfigure it with -DRSMC_TARGET_ARCH=x86-64 and rebuild"
  say "host code flags: ${flags:-no -march, so the compiler default: baseline x86-64}"
}

# write_expected DIR: host reference files of every kit run on every rank count, the run tables:
# runs.txt (`rsmc filter` runs, filter-runs.sh's kit table) and commands.txt (pmmh and simulate runs)
write_expected() {
  local dir=$1 tag argline p args n=0
  source "$repo/scripts/filter-runs.sh"
  filter_run_inputs "$dir"
  filter_runs kit @INPUTS@ > "$dir/runs.txt"
  kit_command_runs @INPUTS@ > "$dir/commands.txt"
  echo "${RSMC_KIT_RANKS:-1 2}" > "$dir/ranks"
  readlink -f "$reference" > "$dir/reference-rsmc"
  while IFS=$'\t' read -r tag argline; do
    read -r -a args <<< "${argline//@INPUTS@/$dir}"
    for p in $(cat "$dir/ranks"); do
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpiexec -n "$p" --oversubscribe "$reference" \
        "${args[@]}" --output "$dir/$tag-p$p.h5" < /dev/null > "$dir/log" 2>&1 ||
        die "reference run $tag on $p ranks failed: $(tail -n 3 "$dir/log")"
      n=$((n + 1))
    done
  done < <(sed 's/\t/\tfilter --quiet /' "$dir/runs.txt"; cat "$dir/commands.txt")
  rm -f "$dir/log"
  say "expected/: $n reference result files from $reference"
}

# copy_closure KIT: every library the kit's ELF files need, into KIT/lib (one pass suffices: ldd
# lists the transitive closure of each file)
copy_closure() {
  local kit=$1 f soname path
  while read -r f; do
    while IFS=$'\t' read -r soname path; do
      excluded_lib "$soname" && continue
      [ "$path" != "not found" ] || die "${f#"$kit"/} needs $soname, which is not installed here"
      case $path in "$kit"/*) continue ;; esac
      [ -e "$kit/lib/$soname" ] || cp -L "$path" "$kit/lib/$soname"
    done < <(LD_LIBRARY_PATH=$kit/lib ldd_pairs "$f")
  done < <(elf_files "$kit")
}

stage_kit() { # stage_kit KIT: the kit's tree
  local kit=$1 b build_file
  mkdir -p "$kit/bin" "$kit/lib/$multiarch/openmpi/lib" "$kit/share" "$kit/expected"
  for b in "${kit_bins[@]}"; do
    build_file=$(find "$build_dir/drivers" "$build_dir/tests" -maxdepth 1 -type f -name "$b" | head -n 1)
    [ -n "$build_file" ] || die "$build_dir has no $b"
    cp "$build_file" "$kit/bin/"
  done
  cp /usr/bin/orterun /usr/bin/orted "$kit/bin/"
  ln -s orterun "$kit/bin/mpirun"
  ln -s orterun "$kit/bin/mpiexec"
  # OpenMPI's plugins and files, without its headers and its development links (../../libmpi.so
  # and the like, which point outside the kit; the plugins need the versioned libraries in lib/)
  cp -r "$ompi_lib/lib/openmpi3" "$kit/lib/$multiarch/openmpi/lib/"
  find "$ompi_lib/lib" -maxdepth 1 -type f -exec cp {} "$kit/lib/$multiarch/openmpi/lib/" \;
  cp -r "$ompi_share" "$kit/share/"
  copy_closure "$kit"
  write_expected "$kit/expected"
  cp "$repo/scripts/gpu-check.sh" "$kit/"
  {
    echo "commit $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- . 2> /dev/null || echo ' (modified)')"
    echo "packed $(date -u +%FT%TZ) on $(uname -n)"
    echo "build $build_dir"
    echo "reference $(cat "$kit/expected/reference-rsmc")"
  } > "$kit/expected/KIT"
  write_readme "$kit/README"
}

write_readme() {
  cat > "$1" << 'EOF'
rsmc GPU kit (packed by scripts/gpu-kit.sh; see docs/gpu.md in the rsmc repository)

Run on a GPU machine, from anywhere:
    bash <kit>/gpu-check.sh --out DIR        (--help for the options)
It needs only an NVIDIA driver (libcuda) and glibc: OpenMPI, HDF5, the C++ runtime and CUDA's runtime
come with the kit (OPAL_PREFIX=<kit> relocates OpenMPI; gpu-check.sh sets it). Within 5 minutes it
checks host = GPU, runs the CUDA tests, the benchmarks, a profile and the butterfly probe, and packs
every result into DIR/gpu-DATE-CARD.tgz (beside it: gpu-check.log, gpu-check.json, summary.txt).

bin/       rsmc (Kokkos Serial + CUDA), h5_datasets_equal, the CUDA tests, orterun, orted
lib/       the shared libraries they need (not libcuda, not glibc)
lib/x86_64-linux-gnu/openmpi/lib/openmpi3, share/openmpi: OpenMPI's plugins and data
expected/  host reference result files: runs.txt (TAG<TAB>rsmc filter arguments), commands.txt
           (TAG<TAB>rsmc pmmh or simulate and arguments), ranks, KIT
EOF
}

[ -n "$reference" ] || reference=$repo/build/drivers/rsmc
if [ ! -x "$reference" ]; then
  say "no reference rsmc at $reference: building it (scripts/build.sh --target rsmc)"
  (cd "$repo" && nice bash scripts/build.sh --target rsmc) >&2
  reference=$repo/build/drivers/rsmc
fi
command -v mpiexec > /dev/null || die "no mpiexec here (the reference runs need OpenMPI)"
[ -d "$ompi_lib/lib/openmpi3" ] || die "no OpenMPI plugins in $ompi_lib/lib/openmpi3 (Debian's openmpi-bin)"
build_kit_targets
check_host_arch
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
kit=$stage/rsmc-gpu-kit
stage_kit "$kit"
check_kit "$kit" || die "the kit is incomplete (above)"
case $output in /*) ;; *) output=$PWD/$output ;; esac
tar -czf "$output.partial" -C "$stage" rsmc-gpu-kit
bytes=$(stat -c %s "$output.partial")
if [ "$bytes" -gt "$max_bytes" ]; then
  rm -f "$output.partial"
  die "the kit is $bytes bytes, over the 50 MiB the device tool can carry; largest files:
$(cd "$kit" && find . -type f -printf '%s %p\n' | sort -rn | head -n 10)"
fi
mv "$output.partial" "$output"
say "wrote $output ($((bytes / 1024)) KiB); unpack it and run rsmc-gpu-kit/gpu-check.sh (--dry-run here)"
