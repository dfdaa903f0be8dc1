#!/usr/bin/env bash
# Checks the libquadmath reference of the rsmc::math accuracy test against mpmath at 100 digits on
# N arguments per function (default 1e5; about 10^6 mpmath evaluations, several minutes). CTest's
# math/reference_check runs the same with 5000 per function.
#
#   scripts/math-validate-reference.sh [N] [path/to/math_accuracy]   (default build/tests/math_accuracy)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=${1:-1e5}
accuracy=${2:-$repo/build/tests/math_accuracy}
if [[ ! -x $accuracy ]]; then
  echo "math-validate-reference.sh: '$accuracy' is not an executable; build the target math_accuracy" >&2
  exit 1
fi
start=$(date +%s)
"$accuracy" --dump "$n" | python3 "$repo/tests/math/validate_reference.py"
echo "wall time: $(( $(date +%s) - start )) s"
