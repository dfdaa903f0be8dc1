#!/usr/bin/env bash
# Formats rsmc's C++ sources with clang-format 14 and the repository's .clang-format, in place.
#   scripts/format.sh            reformat every tracked C++ file (*.cpp *.hpp *.h *.cu *.cuh)
#   scripts/format.sh --check    change nothing; list the files that differ and fail (CI's stage 0)
#   scripts/format.sh FILE...    reformat only these files
# Includes keep their order (SortIncludes: Never), so formatting never changes what a file means.
set -euo pipefail
cd "$(dirname "$0")/.."
format=$(command -v clang-format-14 || command -v clang-format || true)
[ -n "$format" ] || { echo "format.sh: clang-format not found (Debian 12: apt-get install clang-format-14)" >&2; exit 2; }
check=false
if [ "${1:-}" = --check ]; then check=true; shift; fi
if [ $# -gt 0 ]; then
  files=("$@")
elif git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh')
else
  mapfile -t files < <(find . -path ./build\* -prune -o -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print)
fi
if ! $check; then
  "$format" -i --style=file "${files[@]}"
  exit 0
fi
unformatted=()
for f in "${files[@]}"; do
  "$format" --style=file --dry-run --Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
done
if [ ${#unformatted[@]} -gt 0 ]; then
  echo "format.sh: ${#unformatted[@]} of ${#files[@]} files differ from .clang-format (run scripts/format.sh):" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  exit 1
fi
echo "format.sh: all ${#files[@]} C++ files match .clang-format ($("$format" --version | head -n 1))"
