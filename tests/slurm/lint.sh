#!/usr/bin/env bash
# Acceptance (issue 7, part 4): every job script in jobscripts/, and the SLURM test scripts, pass
# `bash -n` and shellcheck (Debian package shellcheck; skipped with exit code 77 without it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
scripts=("$root"/jobscripts/*.sbatch)
failures=0
for f in "${scripts[@]}" "$here"/*.sh; do
  bash -n "$f" || { echo "FAIL: bash -n $f"; failures=$((failures + 1)); }
done
if ! command -v shellcheck >/dev/null 2>&1; then
  echo "SKIP: shellcheck is not installed (Debian package shellcheck; scripts/install-deps.sh installs it);"
  echo "      bash -n passed for ${#scripts[@]} job scripts"
  [ "$failures" -eq 0 ] || exit 1
  exit 77
fi
# -x with the scripts' own directory as source path: the test scripts source their helpers.
for f in "${scripts[@]}" "$here"/*.sh; do
  (cd "$(dirname "$f")" && shellcheck -x "$(basename "$f")") || { echo "FAIL: shellcheck $f"; failures=$((failures + 1)); }
done
if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "bash -n and shellcheck $(shellcheck --version | sed -n 's/^version: //p'): ${#scripts[@]} job scripts and $(find "$here" -name '*.sh' | wc -l) test scripts clean"
