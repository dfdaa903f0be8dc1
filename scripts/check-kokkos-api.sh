#!/usr/bin/env bash
# Compile-only check of rsmc's C++ sources against another Kokkos's headers (docs/building.md,
# "Checking against another Kokkos"). Nothing is linked or run, so the Kokkos install only needs its
# headers (with its generated KokkosCore_config.h); its libraries may be for another system.
#
#   scripts/check-kokkos-api.sh [--compile] KOKKOS_INCLUDE_DIR [BUILD_DIR]
#
# KOKKOS_INCLUDE_DIR  the directory holding Kokkos_Core.hpp and KokkosCore_config.h
# BUILD_DIR           a configured rsmc build tree with compile_commands.json (CMake option
#                     CMAKE_EXPORT_COMPILE_COMMANDS=ON); without it, one is configured in a temporary
#                     directory (rsmc's defaults, against the Kokkos CMake finds). Only a build with
#                     CUDA lists tests/cuda/*.cpp (host C++ that includes Kokkos).
# --compile           compile each TU with the build's optimisation flags (object thrown away)
#                     instead of -fsyntax-only: slower, but also shows warnings that only the
#                     optimiser emits (GCC's -Wrestrict, -Warray-bounds, ...)
# JOBS                environment: parallel compilations (default 2)
#
# Every C++ translation unit of the build (framework, models, drivers, bench, tests, tools) plus the
# out-of-tree example examples/random_walk is compiled with its own command from the build, with
# these changes: the build's Kokkos include directory (the -I/-isystem holding Kokkos_Core.hpp) is
# replaced by KOKKOS_INCLUDE_DIR, -std= becomes the newer of the build's and the one this Kokkos was
# built with (KOKKOS_ENABLE_CXXnn; Kokkos 5: C++20), as CMake does with Kokkos' cxx_std_nn compile
# feature, -fopenmp is added when that Kokkos has the OpenMP backend, and -fsyntax-only (or, with
# --compile, -o /dev/null) replaces the output. Warning flags (-Wall -Wextra -Wpedantic -Werror)
# stay: Kokkos comes in as a system include, so a warning that fails a TU is rsmc's (including uses
# of deprecated Kokkos APIs). Prints one line per TU, "ok   <file>" or "FAIL <file>: <first error>",
# then a count; the full compiler output of every failure is kept in a log directory named at the
# end. Exit status 1 when a TU fails, 2 on bad arguments. Kokkos built for CUDA/HIP/SYCL is refused:
# its headers need the device compiler.
set -euo pipefail
mode=syntax
if [[ ${1:-} == --compile ]]; then
  mode=compile
  shift
fi
if [[ $# -lt 1 || $# -gt 2 || $1 == -h || $1 == --help ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd -P)
kokkos_inc=$(cd "$1" && pwd)
for f in Kokkos_Core.hpp KokkosCore_config.h; do
  [[ -f $kokkos_inc/$f ]] || { echo "check-kokkos-api: no $f in $kokkos_inc" >&2; exit 2; }
done
if [[ $# -eq 2 ]]; then
  build=$(cd "$2" && pwd)
else
  build=$(mktemp -d /tmp/rsmc-check-kokkos-api.XXXXXX)
  echo "check-kokkos-api: configuring a build tree in $build for its compile commands"
  cmake -S "$repo" -B "$build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON > "$build/configure.log" 2>&1 ||
    { echo "check-kokkos-api: configure failed, see $build/configure.log" >&2; exit 2; }
fi
[[ -f $build/compile_commands.json ]] ||
  { echo "check-kokkos-api: no compile_commands.json in $build (configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)" >&2; exit 2; }
logs=$(mktemp -d /tmp/rsmc-check-kokkos-api-logs.XXXXXX)

exec python3 - "$repo" "$kokkos_inc" "$build" "$logs" "${JOBS:-2}" "$mode" <<'PYTHON'
import concurrent.futures, json, os, re, shlex, subprocess, sys

repo, kokkos_inc, build, logs, jobs, mode = sys.argv[1:7]
config = open(os.path.join(kokkos_inc, "KokkosCore_config.h")).read()
def defined(macro):
    return re.search(r"^\s*#\s*define\s+" + macro + r"\b", config, re.M) is not None
version = re.search(r"^\s*#\s*define\s+KOKKOS_VERSION\s+(\d+)", config, re.M)
version = int(version.group(1)) if version else 0
backends = [b for b in ("SERIAL", "OPENMP", "THREADS", "HPX", "CUDA", "HIP", "SYCL", "OPENACC", "OPENMPTARGET")
            if defined("KOKKOS_ENABLE_" + b)]
device = [b for b in backends if b in ("CUDA", "HIP", "SYCL", "OPENACC", "OPENMPTARGET")]
if device:
    print(f"check-kokkos-api: this Kokkos enables {', '.join(device)}; its headers need the device "
          "compiler (nvcc_wrapper, hipcc, ...), not a host-only syntax check", file=sys.stderr)
    sys.exit(2)
kokkos_std = next((int(s) for s in ("26", "23", "20", "17", "14") if defined("KOKKOS_ENABLE_CXX" + s)), 20)
print(f"check-kokkos-api: Kokkos {version // 10000}.{version // 100 % 100}.{version % 100} from {kokkos_inc}; "
      f"backends {' '.join(backends) or '(none found)'}; C++{kokkos_std} or the build's newer standard; "
      + ("compiled, object discarded" if mode == "compile" else "-fsyntax-only"))

STD_ALIASES = {"1y": 14, "1z": 17, "2a": 20, "2b": 23, "2c": 26}
def std_flag(flag):
    """The build's -std=c++NN / gnu++NN, raised to kokkos_std; unchanged when not understood."""
    m = re.fullmatch(r"-std=(c|gnu)\+\+(\w+)", flag)
    n = m and STD_ALIASES.get(m.group(2), int(m.group(2)) if m.group(2).isdigit() else None)
    if n is None:
        return flag
    n = n - 100 if n >= 90 else n  # c++98
    return f"-std={m.group(1)}++{max(n, kokkos_std)}"

def has_kokkos(d):
    return os.path.isfile(os.path.join(d, "Kokkos_Core.hpp"))

def rewrite(args, directory):
    """The TU's compile command with kokkos_inc for the Kokkos it had and no output."""
    out, uses_kokkos, i = [], False, 0
    while i < len(args):
        a = args[i]
        if a in ("-o", "-MF", "-MT", "-MQ"):  # no object, no dependency file in the build tree
            i += 2
            continue
        if a in ("-MD", "-MMD"):
            i += 1
            continue
        if a in ("-I", "-isystem") and i + 1 < len(args):
            flag, d, i = a, args[i + 1], i + 2
        elif a.startswith("-isystem") or (a.startswith("-I") and len(a) > 2):
            flag = "-isystem" if a.startswith("-isystem") else "-I"
            d, i = a[len(flag):], i + 1
        else:
            out.append(std_flag(a) if a.startswith("-std=") else a)
            i += 1
            continue
        if has_kokkos(os.path.join(directory, d)):
            if not uses_kokkos:
                out += ["-isystem", kokkos_inc]
            uses_kokkos = True
        else:
            out += [flag, d]
    if not any(a.startswith("-std=") for a in out):
        out.insert(1, f"-std=c++{kokkos_std}")
    if uses_kokkos and "OPENMP" in backends:
        out.insert(1, "-fopenmp")
    return out + (["-o", os.devnull] if mode == "compile" else ["-fsyntax-only"])

entries = json.load(open(os.path.join(build, "compile_commands.json")))
units = []  # (file relative to the repository, directory, arguments)
template = None
for e in entries:
    f = os.path.realpath(os.path.join(e["directory"], e["file"]))
    if not f.startswith(repo + os.sep) or not re.search(r"\.(cpp|cc|cxx)$", f):
        continue
    args = e["arguments"] if "arguments" in e else shlex.split(e["command"])
    rel = os.path.relpath(f, repo)
    units.append((rel, e["directory"], rewrite(args, e["directory"])))
    if rel == "drivers/main.cpp":
        template = (e["directory"], args, e["file"])  # the file as its command names it
# examples/random_walk is built against an installed rsmc, never in the tree: check it with the
# command of drivers/main.cpp (same include paths: the tree's root stands for <prefix>/include/rsmc).
examples = sorted(os.path.relpath(os.path.join(d, n), repo)
                  for d, _, names in os.walk(os.path.join(repo, "examples")) for n in names if n.endswith(".cpp"))
if template:
    directory, args, main = template
    for rel in examples:
        units.append((rel, directory, rewrite([os.path.join(repo, rel) if a == main else a for a in args], directory)))
elif examples:
    print("check-kokkos-api: drivers/main.cpp is not in the build; examples/ not checked")
if not units:
    print(f"check-kokkos-api: {build}/compile_commands.json has no source of {repo} (a build of another checkout?)",
          file=sys.stderr)
    sys.exit(2)

def check(unit):
    rel, directory, args = unit
    p = subprocess.run(args, cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode == 0:
        return f"ok   {rel}", True
    log = os.path.join(logs, rel.replace(os.sep, "__") + ".log")
    with open(log, "w") as fh:
        fh.write(" ".join(shlex.quote(a) for a in args) + "\n\n" + p.stdout)
    lines = p.stdout.splitlines()
    k = next((i for i, l in enumerate(lines) if re.search(r"\berror\b", l)), None)
    if k is None:
        return f"FAIL {rel}: {lines[-1] if lines else f'exit {p.returncode}'}", False
    first = lines[k]
    if not first.startswith(repo + os.sep):  # in a system header: name the nearest rsmc line that led there
        site = next((m.group(1) for l in reversed(lines[:k])
                     for m in [re.search(re.escape(repo + os.sep) + r"(\S+?:\d+)", l)] if m), None)
        first += f" (from {site})" if site else ""
    return f"FAIL {rel}: {first.replace(repo + os.sep, '')}", False

ok = failed = 0
with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, int(jobs))) as pool:
    for line, good in pool.map(check, units):
        print(line, flush=True)
        ok, failed = ok + good, failed + (not good)
print(f"check-kokkos-api: {ok} TUs ok, {failed} failed" + (f"; compiler output in {logs}" if failed else ""))
if not failed:
    os.rmdir(logs)
sys.exit(1 if failed else 0)
PYTHON
