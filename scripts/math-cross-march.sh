#!/usr/bin/env bash
# rsmc::math returns the same bits at every -march and optimisation level, vectorised or not.
#
#   scripts/math-cross-march.sh [N]      N arguments per function (default 1e7)
#
# Builds tests/math/math_hash.cpp (a plain loop over each function, hashed) with $CXX (default g++)
# at -O0 and at -O3 for x86-64 (SSE2), x86-64-v2, x86-64-v3 (AVX2), x86-64-v4 (AVX-512) and
# -march=native, plus one -O3 build with GCC's default -ftrapping-math (under which GCC 12 does not
# vectorise the selects; the bits must not change either). Every build runs the same arguments and
# must print the same hashes; an AVX-512 build on a CPU without AVX-512 is built and reported as not
# run. Each -O3 build (except the -ftrapping-math one) must also vectorise the loop of every function
# (GCC's -fopt-info-vec-optimized). Exit status 1 if any hash differs or a loop is not vectorised.
# All builds use -ffp-contract=off, as rsmc does (tests/unit/test_math.cpp checks its own build).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=${1:-1e7}
cxx=${CXX:-g++}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source_file=$repo/tests/math/math_hash.cpp
loop_line=$(grep -n 'out\[i\] = f(x\[i\], y\[i\]);' "$source_file" | cut -d: -f1)
functions=$(grep -c '^RSMC_MATH_TEST_FUNCTION(' "$repo/tests/math/math_cases.hpp")
common=(-std=c++17 -ffp-contract=off -I"$repo")

variants=("O0|-O0 -fno-trapping-math")
if [[ $(uname -m) == x86_64 ]]; then
  variants+=("O3 x86-64 (SSE2)|-O3 -march=x86-64 -fno-trapping-math"
             "O3 x86-64-v2 (SSE4.2)|-O3 -march=x86-64-v2 -fno-trapping-math"
             "O3 x86-64-v3 (AVX2)|-O3 -march=x86-64-v3 -fno-trapping-math"
             "O3 x86-64-v4 (AVX-512)|-O3 -march=x86-64-v4 -fno-trapping-math")
fi
variants+=("O3 native|-O3 -march=native -fno-trapping-math"
           "O3 native, -ftrapping-math|-O3 -march=native -ftrapping-math")
cpu_has_avx512=no
if grep -q -w avx512f /proc/cpuinfo 2>/dev/null; then cpu_has_avx512=yes; fi

echo "rsmc::math cross-build check: $n arguments per function, $("$cxx" --version | head -1), $(uname -m)"
printf '%-30s %-12s %-10s %s\n' build vectorised seconds hashes
reference=""
status=0
i=0
for entry in "${variants[@]}"; do
  name=${entry%%|*}
  read -r -a flags <<< "${entry#*|}"
  exe=$work/math_hash_$i
  log=$work/vec_$i.txt
  "$cxx" "${common[@]}" "${flags[@]}" -fopt-info-vec-optimized "$source_file" -o "$exe" 2> "$log"
  # Each function's loop reports once per vector width it got (main loop, then a narrower epilogue):
  # the number of functions vectorised is the number of reports at the widest width.
  loops="-"
  vectorised=0
  widest=$(grep -o "math_hash.cpp:$loop_line:[0-9]*: optimized: loop vectorized using [0-9]* byte" "$log" |
           grep -o '[0-9]* byte' | sort -n | tail -1 | cut -d' ' -f1 || true)
  if [[ -n $widest ]]; then
    vectorised=$(grep -c "math_hash.cpp:$loop_line:[0-9]*: optimized: loop vectorized using $widest byte" "$log" || true)
  fi
  if [[ ${flags[0]} == -O3 ]]; then loops="$vectorised/$functions${widest:+ x${widest}B}"; fi
  if [[ $name == *AVX-512* && $cpu_has_avx512 == no ]]; then
    printf '%-30s %-12s %-10s %s\n' "$name" "$loops" "-" "built, not run: this CPU has no AVX-512"
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
  printf '%-30s %-12s %-10.1f %s\n' "$name" "$loops" "$seconds" "$verdict"
  if [[ ${flags[0]} == -O3 && $name != *trapping* && $vectorised -lt $functions ]]; then
    echo "  not every function's loop was vectorised ($vectorised of $functions)"
    status=1
  fi
  i=$((i + 1))
done
echo "$reference"
exit $status
