#!/usr/bin/env bash
# rsmc::math returns the same bits at every -march and optimisation level, vectorised or not.
#
#   scripts/math-cross-march.sh [N]      N arguments per function (default 1e7)
#
# Builds tests/math/math_hash.cpp (a plain loop over each function, hashed) with $CXX (default g++)
# at -O0 and at -O3 for x86-64 (SSE2), x86-64-v2, x86-64-v3 (AVX2), x86-64-v4 (AVX-512) and
# -march=native, plus one -O3 build with GCC's default -ftrapping-math (under which GCC 12 does not
# vectorise the selects; the bits must not change either). If $CLANG (default: clang++ when found)
# is set, two Clang builds join in (-O3 x86-64-v3 and native, Clang's default -ffp-contract=on).
# Every build runs the same arguments and must print the same hashes; an AVX-512 build on a CPU
# without AVX-512 is built and reported as not run. Each -O3 build (except the -ftrapping-math one)
# must also vectorise the loop of every function (GCC's -fopt-info-vec-optimized, Clang's
# -Rpass=loop-vectorize). Exit status 1 if any hash differs or a loop is not vectorised.
# The GCC builds use -ffp-contract=off, as rsmc does (tests/unit/test_math.cpp checks its own build).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=${1:-1e7}
cxx=${CXX:-g++}
clang=${CLANG-$(command -v clang++ || true)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source_file=$repo/tests/math/math_hash.cpp
loop_line=$(grep -n 'out\[i\] = f(x\[i\], y\[i\]);' "$source_file" | cut -d: -f1)
functions=$(grep -c '^RSMC_MATH_TEST_FUNCTION(' "$repo/tests/math/math_cases.hpp")
common=(-std=c++17 -I"$repo")

# Entries: name|compiler|flags.
gcc_flags="-ffp-contract=off -fno-trapping-math"
variants=("O0|$cxx|-O0 $gcc_flags")
if [[ $(uname -m) == x86_64 ]]; then
  variants+=("O3 x86-64 (SSE2)|$cxx|-O3 -march=x86-64 $gcc_flags"
             "O3 x86-64-v2 (SSE4.2)|$cxx|-O3 -march=x86-64-v2 $gcc_flags"
             "O3 x86-64-v3 (AVX2)|$cxx|-O3 -march=x86-64-v3 $gcc_flags"
             "O3 x86-64-v4 (AVX-512)|$cxx|-O3 -march=x86-64-v4 $gcc_flags")
fi
variants+=("O3 native|$cxx|-O3 -march=native $gcc_flags"
           "O3 native, -ftrapping-math|$cxx|-O3 -march=native -ffp-contract=off -ftrapping-math")
if [[ -n $clang ]]; then
  if [[ $(uname -m) == x86_64 ]]; then variants+=("clang O3 x86-64-v3|$clang|-O3 -march=x86-64-v3"); fi
  variants+=("clang O3 native|$clang|-O3 -march=native")
fi
cpu_has_avx512=no
if grep -q -w avx512f /proc/cpuinfo 2>/dev/null; then cpu_has_avx512=yes; fi

echo "rsmc::math cross-build check: $n arguments per function, $(uname -m); $("$cxx" --version | head -1)${clang:+; $("$clang" --version | head -1)}"
printf '%-30s %-16s %-10s %s\n' build vectorised seconds hashes
reference=""
status=0
i=0
for entry in "${variants[@]}"; do
  IFS='|' read -r name compiler flag_text <<< "$entry"
  read -r -a flags <<< "$flag_text"
  exe=$work/math_hash_$i
  log=$work/vec_$i.txt
  # Each function's loop reports once per vector width it got (GCC: main loop, then a narrower
  # epilogue): the number of functions vectorised is the number of reports at the widest width.
  if [[ $compiler == "$clang" ]]; then
    "$compiler" "${common[@]}" "${flags[@]}" -Rpass=loop-vectorize "$source_file" -o "$exe" 2> "$log"
    pattern="math_hash.cpp:$loop_line:[0-9]*: remark: vectorized loop (vectorization width: [0-9]*"
    unit=" lanes"
  else
    "$compiler" "${common[@]}" "${flags[@]}" -fopt-info-vec-optimized "$source_file" -o "$exe" 2> "$log"
    pattern="math_hash.cpp:$loop_line:[0-9]*: optimized: loop vectorized using [0-9]* byte"
    unit="B"
  fi
  loops="-"
  vectorised=0
  widest=$(grep -o "$pattern" "$log" | grep -o '[0-9]*$\|[0-9]* byte$' | grep -o '^[0-9]*' | sort -n | tail -1 || true)
  if [[ -n $widest ]]; then
    vectorised=$(grep -o "$pattern" "$log" | grep -c -e "using $widest byte" -e "width: $widest\$" || true)
  fi
  if [[ ${flags[0]} == -O3 ]]; then loops="$vectorised/$functions${widest:+ x$widest$unit}"; fi
  if [[ $name == *AVX-512* && $cpu_has_avx512 == no ]]; then
    printf '%-30s %-16s %-10s %s\n' "$name" "$loops" "-" "built, not run: this CPU has no AVX-512"
    i=$((i + 1))
    continue
  fi
  start=$(date +%s.%N)
  out=$("$exe" "$n")
  seconds=$(echo "$(date +%s.%N) - $start" | bc)
  if [[ -z $reference ]]; then
    reference=$out
    verdict="reference"
  elif [[ $out == "$reference" ]]; then
    verdict="identical to the reference"
  else
    verdict="DIFFERENT"
    status=1
    diff <(echo "$reference") <(echo "$out") || true
  fi
  printf '%-30s %-16s %-10.1f %s\n' "$name" "$loops" "$seconds" "$verdict"
  if [[ ${flags[0]} == -O3 && $name != *trapping* && $vectorised -lt $functions ]]; then
    echo "  not every function's loop was vectorised ($vectorised of $functions)"
    status=1
  fi
  i=$((i + 1))
done
echo "$reference"
exit $status
