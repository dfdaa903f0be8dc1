#!/usr/bin/env bash
# The rules of docs/design/architecture.md that a text search can check (CI's stage 0, beside the
# formatting): each violation is one line "FILE:LINE: what", and the script fails.
#   - rsmc's own code (base kernels framework models drivers bench, what the libraries and the
#     installed headers are made of) includes MPI through framework/parallel/mpi.hpp only, never
#     <mpi.h> itself: mpi.hpp leaves out MPI's deprecated C++ bindings also for a user's file that
#     includes an rsmc header without linking through rsmc's targets. Tests, examples and tools are
#     programs of their own, built through the targets, and may include <mpi.h>.
#   - base/ and kernels/ compile for a device: no MPI, no HDF5, and no header of a layer above them.
#   - nothing but .ci/run (CI machine settings) points to ../shared or /work/shared, which a clone
#     of the repository does not have, and
#     every relative link of the Markdown files (README.md, docs/) names a file of the repository.
set -uo pipefail
cd "$(dirname "$0")/.."
found=0
report() {  # report WHAT: git grep's FILE:LINE:TEXT lines on stdin, each reported as a violation
  local line
  while IFS= read -r line; do
    echo "${line%%:*}:$(cut -d: -f2 <<<"$line"): $1"
    found=$((found + 1))
  done
}
report 'includes <mpi.h>: include "framework/parallel/mpi.hpp" instead' < <(
  git grep -n -E '#include\s*<mpi\.h>' -- base kernels framework models drivers bench ':!framework/parallel/mpi.hpp')
report 'base/ and kernels/ compile for a device: no MPI, no HDF5, nothing of framework/, models/, drivers/ or bench/' < <(
  git grep -n -E '#include\s*["<](mpi|hdf5|H5[A-Za-z]*)\.h[">]|#include\s*"(framework|models|drivers|bench)/' -- base kernels)
report 'points to ../shared, which a clone of the repository does not have' < <(
  git grep -n -E '(\.\./|/work/)shared/' -- . ':!scripts/check-rules.sh' ':!.ci/run')  # CI's own machine
report 'links to a file that is not in the repository' < <(
  git ls-files '*.md' | python3 -c '
import os, re, sys
for f in sys.stdin.read().split():
    for n, line in enumerate(open(f, encoding="utf-8"), 1):
        for link in re.findall(r"\]\(([^)\s]+)\)", line):
            path = link.split("#")[0]
            if path and not re.match(r"[a-z]+:", path) and not os.path.exists(os.path.join(os.path.dirname(f), path)):
                print(f"{f}:{n}:{link}")
')
if [ "$found" -gt 0 ]; then
  echo "check-rules.sh: $found violation(s) of docs/design/architecture.md's rules" >&2
  exit 1
fi
echo "check-rules.sh: the include and layering rules hold (docs/design/architecture.md)"
