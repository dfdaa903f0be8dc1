#!/usr/bin/env bash
# gpu-check.sh: the one call that checks and measures rsmc on a lent GPU. It runs from the unpacked
# GPU kit (scripts/gpu-kit.sh packs this file as <kit>/gpu-check.sh beside bin/, lib/ and expected/)
# on a bare x86-64 machine that has only an NVIDIA driver. Every result goes into one folder,
# gpu-DATE-CARD/ (the coordinator copies it to bench/results/), packed at the end as ONE file
# --out/gpu-DATE-CARD.tgz (the device tool brings back a few files, not a tree); --out also gets
# gpu-check.log and gpu-check.json to read at once. The folder holds:
#   gpu-check.log        everything the steps printed (tails of long outputs)
#   gpu-check.json       date, device, driver, kit, each step's status and seconds, each comparison
#   compare.tsv          one line per host-vs-GPU comparison: run, ranks, device, result, seconds
#   bench-kernels.jsonl  `rsmc bench kernels` JSON lines (alias PSA / PSA+ / the mask sweep on the
#                        device against a device copy of the table, the butterfly's shared column
#                        and the lane table it replaced, host kernels)
#   bench-e2e.jsonl      `rsmc bench e2e` JSON lines (SV and linear Gaussian at N = 1e6, 1e7, 1e8)
#   profile-sv-1e8.csv, profile-summary.txt   Nsight Compute's time per kernel of one SV step at 1e8
#   butterfly-probe.tsv  the largest N that `rsmc filter --local-sampler butterfly` runs with
#   summary.txt          the numbers the issues ask for, read from the files above
#   logs/                the runs' outputs (comparisons that failed, every bench and probe step)
# Steps: nvidia-smi; the host-vs-GPU comparison (every run of expected/runs.txt, rsmc filter, and of
# expected/commands.txt, rsmc pmmh and simulate, on every rank count of expected/ranks, with the kit's
# rsmc on both of its devices, --device cuda and --device host (the same binary's host
# instantiation), each compared byte for byte with the host build's reference file through
# h5_datasets_equal, /resampling_traffic ignored as in scripts/compare-outputs.sh; every differing
# dataset is listed in the log; at most 110 s); the CUDA test executables (exit 77 = skipped: no
# usable GPU); the measurements of the table MEASUREMENTS below (one line each: adding a benchmark
# row, e.g. a G x N shape of grouped filters, is a one-line change there); the profile; the
# butterfly probe. A failing, crashing or differing step is recorded and the script goes on. Each
# step runs under `timeout`, cut to what is left of --budget, so the whole script ends within it.
#
#   gpu-check.sh [--dry-run] [--out DIR] [--jobs N] [--budget SECONDS] [--rsmc PATH]
#
#   --dry-run   on a machine without a GPU: runs every step with the host build's rsmc that wrote
#               expected/ (expected/reference-rsmc, or --rsmc), so every comparison must come out
#               identical (this proves the script's logic); CUDA tests report skipped; tiny benches
#   --out DIR   where the files go (default: $OUT if set, else ./gpu-check-out)
#   --jobs N    comparison runs at once, sharing the GPU (default 4)
#   --budget S  seconds the whole script may take (default 290; --dry-run: 600, on a slow shared CPU)
#   --rsmc PATH the rsmc to compare (default: the kit's bin/rsmc; --dry-run: the reference)
# Exit status: 0 when every step passed (a skipped CUDA test passes only in --dry-run), 1 otherwise.
set -uo pipefail
kit=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage() { sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "gpu-check: $*" >&2; exit 2; }

dry_run=0 out=${OUT:-./gpu-check-out} jobs=4 budget= rsmc=
while [ $# -gt 0 ]; do
  case $1 in
    --dry-run) dry_run=1 ;;
    --out) out=${2:?--out needs a directory}; shift ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift ;;
    --budget) budget=${2:?--budget needs seconds}; shift ;;
    --rsmc) rsmc=${2:?--rsmc needs a path}; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs '$jobs' is not a positive integer"
[ -n "$budget" ] || budget=$([ "$dry_run" = 1 ] && echo 600 || echo 290)
[[ $budget =~ ^[1-9][0-9]*$ ]] || die "--budget '$budget' is not a positive integer"
[ -f "$kit/expected/runs.txt" ] || die "$kit is not an unpacked GPU kit (no expected/runs.txt)"
if [ -z "$rsmc" ]; then
  rsmc=$kit/bin/rsmc
  [ "$dry_run" = 1 ] && rsmc=$(cat "$kit/expected/reference-rsmc")
fi
# The kit's rsmc holds both devices; the reference build (--dry-run) has only the host.
devices=(cuda host)
[ "$dry_run" = 1 ] && devices=(host)
[ -x "$rsmc" ] || die "rsmc '$rsmc' is not an executable (--dry-run: pass the host build's with --rsmc)"
mkdir -p "$out" || die "cannot create --out '$out'"
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
res=$work/results  # renamed gpu-DATE-CARD when packed
mkdir -p "$res/logs"
log=$res/gpu-check.log
: > "$log"
deadline=$((SECONDS + budget))

# The kit's libraries only for the kit's programs: system tools (nvidia-smi, timeout) keep their own.
# OpenMPI relocates through OPAL_PREFIX (the kit mirrors /usr's layout); plm isolated because the
# GPU machine may have no ssh/rsh (the rsh launcher refuses to start without one, even on one node);
# ob1 over shared memory (tcp as a fallback), without the single-copy (CMA) path that containers may
# forbid.
kit_ld=$kit/lib:$kit/lib/x86_64-linux-gnu/openmpi/lib
kit_env=(env "LD_LIBRARY_PATH=$kit_ld${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "OPAL_PREFIX=$kit" "PATH=$kit/bin:$PATH"
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated OMPI_MCA_pml=ob1
  OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
  OMPI_MCA_hwloc_base_binding_policy=none  # concurrent runs: never all bound to core 0
  PMIX_MCA_pcompress_base_silence_warning=1)  # the GPU machine has no zlib for PMIx: harmless, and noisy
mpirun=("${kit_env[@]}" "$kit/bin/orterun" --oversubscribe)

say() { printf '%s\n' "$*" | tee -a "$log"; }
# left [WANT]: seconds a step may still take (WANT at most), keeping 5 s for the report
left() {
  local rest=$((deadline - SECONDS - 5)) want=${1:-1000000}
  ((rest < want)) && want=$rest
  echo $((want > 0 ? want : 0))
}
# the steps' table: name, status (pass, fail, skip), seconds, one line of detail
step_names=() step_status=() step_seconds=() step_detail=()
record() {
  step_names+=("$1") step_status+=("$2") step_seconds+=("$3") step_detail+=("$4")
  say "== $1: $2 ($3 s) $4"
}
# timed SECONDS OUTFILE CMD...: runs CMD under timeout, output to OUTFILE; sets rc and took
timed() {
  local limit=$(($1 > 0 ? $1 : 1)) file=$2 t0=$SECONDS
  shift 2
  timeout -k 10 "$limit" "$@" < /dev/null > "$file" 2>&1
  rc=$?
  took=$((SECONDS - t0))
}
json_string() {
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\t'/ }
  printf '"%s"' "${s//$'\n'/ }"
}

device=none driver=none
step_gpu() {
  if ! command -v nvidia-smi > /dev/null; then
    record nvidia-smi "$([ "$dry_run" = 1 ] && echo skip || echo fail)" 0 "no nvidia-smi on this machine"
    return
  fi
  timed "$(left 30)" "$work/smi.txt" nvidia-smi
  local smi_rc=$rc
  tee -a "$log" < "$work/smi.txt" > /dev/null
  timed "$(left 30)" "$work/smi.csv" nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  if [ "$smi_rc" = 0 ] && [ "$rc" = 0 ]; then
    device=$(head -n 1 "$work/smi.csv" | cut -d, -f1 | sed 's/^ *//; s/ *$//')
    driver=$(head -n 1 "$work/smi.csv" | cut -d, -f2 | sed 's/^ *//; s/ *$//')
    record nvidia-smi pass "$took" "$(head -n 1 "$work/smi.csv")"
  else
    record nvidia-smi "$([ "$dry_run" = 1 ] && echo skip || echo fail)" "$took" "nvidia-smi exit $smi_rc/$rc"
  fi
}

# cuda_stub_env: --dry-run on a machine without a driver: the CUDA toolkit's stub libcuda (every
# call fails), so that the CUDA executables load and take their own "no GPU" path (exit 77)
cuda_stub_env=()
loader_cache=$(ldconfig -p 2> /dev/null || true)
if [ "$dry_run" = 1 ] && [[ $loader_cache != *"libcuda.so.1 "* ]]; then
  stub=${CUDA_HOME:-/usr/local/cuda}/lib64/stubs/libcuda.so
  if [ -f "$stub" ]; then
    mkdir -p "$work/stub" && ln -s "$stub" "$work/stub/libcuda.so.1"
    cuda_stub_env=("LD_LIBRARY_PATH=$kit_ld:$work/stub")
  fi
fi

step_cuda_tests() {
  local t status
  for t in rsmc_cuda_tests rsmc_cuda_alias_tests rsmc_cuda_butterfly_tests rsmc_cuda_math_tests; do
    [ -x "$kit/bin/$t" ] || { record "cuda/$t" fail 0 "not in the kit"; continue; }
    (($(left) > 0)) || { record "cuda/$t" fail 0 "not run: time budget spent"; continue; }
    timed "$(left 60)" "$work/$t.txt" "${kit_env[@]}" ${cuda_stub_env[@]+"${cuda_stub_env[@]}"} "$kit/bin/$t"
    tail -n 30 "$work/$t.txt" | sed "s/^/  [$t] /" >> "$log"
    cp "$work/$t.txt" "$res/logs/"
    case $rc in
      0) status=pass ;;
      77) status=$([ "$dry_run" = 1 ] && echo skip || echo fail) ;;  # a GPU machine must not skip
      124 | 137) status=fail rc="timeout" ;;
      *) status=fail ;;
    esac
    record "cuda/$t" "$status" "$took" "exit $rc: $(tail -n 1 "$work/$t.txt")"
  done
}

# differing_datasets REF FILE: every dataset in which FILE differs from REF, one h5_datasets_equal
# line each (it names the first difference it finds; that dataset is then ignored and it runs again)
differing_datasets() {
  local ignore=(--ignore /resampling_traffic) line name i
  for ((i = 0; i < 40; i++)); do
    line=$("${kit_env[@]}" "$kit/bin/h5_datasets_equal" "${ignore[@]}" "$1" "$2" 2>&1) && return 0
    echo "$line"
    name=$(sed -n "s/^different: dataset '\([^']*\)'.*/\1/p" <<< "$line" | head -n 1)
    [ -n "$name" ] || return 0
    ignore+=(--ignore "$name")
  done
}

# compare_one TAG P DEVICE LIMIT COMMAND ARGS...: one host-vs-GPU comparison of `rsmc COMMAND ARGS`;
# writes TAG-pP-DEVICE.result, and .h5.cmp with the differing datasets
compare_one() {
  local tag=$1 p=$2 dev=$3 limit=$4 name=$1-p$2-$3 result
  shift 4
  local file=$work/cmp/$name.h5 ref=$kit/expected/$tag-p$p.h5
  # A filter run gets its own checkpoint directory: a run stopped by its time limit (SIGTERM)
  # checkpoints, and a directory shared with later runs would make them refuse to start.
  local args=("$@")
  [ "$1" = filter ] && args+=(--checkpoint-dir "$file.checkpoints")
  timed "$limit" "$file.log" "${mpirun[@]}" -n "$p" "$rsmc" "${args[@]}" --device "$dev" --output "$file" --overwrite
  if [ ! -f "$ref" ]; then
    result=no-reference
  elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    result=timeout
  elif [ "$rc" != 0 ] || [ ! -f "$file" ]; then
    result=crashed
  elif "${kit_env[@]}" "$kit/bin/h5_datasets_equal" --ignore /resampling_traffic "$ref" "$file" > "$file.cmp" 2>&1; then
    result=identical
  else
    result=different
    differing_datasets "$ref" "$file" > "$file.cmp"
  fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$tag" "$p" "$dev" "$result" "$took" > "$work/cmp/$name.result"
}

# comparison_table: TAG<TAB>rsmc command and arguments of every comparison: the filter runs of
# expected/runs.txt, then the pmmh and simulate runs of expected/commands.txt (when the kit has it)
comparison_table() {
  sed 's/\t/\tfilter --quiet /' "$kit/expected/runs.txt"
  [ ! -f "$kit/expected/commands.txt" ] || cat "$kit/expected/commands.txt"
}

# the comparisons: at most 180 s of the budget (a run that has not started by then is not-run), 60 s a run
# first_lines LOG: the first lines of a run's output that are not OpenMPI's frame (the cause, usually)
# (PMIx's notes about its plugins and compression, which Debian's build prints on such a machine, are
# not: they hid a segmentation fault on 2026-11-27)
first_lines() {
  local noise=(-e '^--*$' -e '^ *$' -e pmix -e compress -e zlib -e 'startup times' -e 'continue, but' -e 'large data')
  grep -v -i "${noise[@]}" "$1" 2> /dev/null | head -n 4 | cut -c1-300 | tr '\n' ' '
}
step_compare() {
  local tag argline p args t0=$SECONDS stop dev
  stop=$((SECONDS + $(left $([ "$dry_run" = 1 ] && echo 300 || echo 110))))
  mkdir -p "$work/cmp"
  while IFS=$'\t' read -r tag argline; do
    read -r -a args <<< "${argline//@INPUTS@/$kit/expected}"
    for p in $(cat "$kit/expected/ranks"); do
      for dev in "${devices[@]}"; do
        while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
        if ((stop - SECONDS < 5)); then
          printf '%s\t%s\t%s\tnot-run\t0\n' "$tag" "$p" "$dev" > "$work/cmp/$tag-p$p-$dev.result"
          continue
        fi
        compare_one "$tag" "$p" "$dev" "$(left $((stop - SECONDS < 60 ? stop - SECONDS : 60)))" "${args[@]}" &
      done
    done
  done < <(comparison_table)
  wait
  cat "$work"/cmp/*.result | sort > "$res/compare.tsv"
  local f
  for f in "$work"/cmp/*.result; do
    case $(cut -f4 "$f") in
      identical) ;;
      different)
        say "  DIFFER $(basename "$f" .result): $(wc -l < "${f%.result}.h5.cmp") dataset(s)"
        cut -c1-300 "${f%.result}.h5.cmp" | sed 's/^/    /' >> "$log"
        ;;
      not-run) ;;
      *) say "  $(cut -f4 "$f" | tr a-z A-Z) $(basename "$f" .result): $(first_lines "${f%.result}.h5.log")" ;;
    esac
    [ "$(cut -f4 "$f")" = identical ] || cp "${f%.result}".h5.log "${f%.result}".h5.cmp "$res/logs/" 2> /dev/null
  done
  local total identical
  total=$(wc -l < "$res/compare.tsv")
  identical=$(cut -f4 "$res/compare.tsv" | grep -c '^identical$')
  local counts
  counts=$(cut -f4 "$res/compare.tsv" | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $2; sep=", "}')
  record compare "$([ "$total" -gt 0 ] && [ "$identical" = "$total" ] && echo pass || echo fail)" \
    $((SECONDS - t0)) "$total runs: $counts"
}

# MEASUREMENTS: one line per step: its name, the file its JSON lines go to (in the results folder),
# its time limit in seconds, and the `rsmc` arguments. {N6} {N7} {N8} stand for 1e6, 1e7, 1e8 (in
# --dry-run: 1e3, 2e3, 4e3), {REPEATS} for 3 (1), {KREPEATS} for 5 (1). bench e2e runs the engine
# resampling every step with the systematic scheme and the search sampler (the fastest on a GPU), on
# one rank. Lines starting with # are skipped: to add a row, e.g. for grouped filters (issue 33),
# write one line such as
#   e2e-sv-4096x1024  bench-e2e.jsonl  60  bench e2e --models stochastic_volatility --groups 4096 --particles 1024 ...
measurements() {
  cat << 'TABLE'
kernels-device	bench-kernels.jsonl	60	bench kernels --sizes {N7} --weights uniform,power-law --kernels alias-psa-device,alias-psa-plus-device,alias-psa-masks-device,alias-psa-plus,butterfly-device,butterfly-lanes-device --repeats {KREPEATS}
kernels-device-g4096	bench-kernels.jsonl	40	bench kernels --sizes {N7} --weights uniform,power-law --kernels alias-psa-plus-device,alias-psa-plus --greedy-items 4096 --repeats {KREPEATS}
e2e-1e6	bench-e2e.jsonl	60	bench e2e --models stochastic_volatility,linear_gaussian --particles {N6} --implementations rsmc --steps 10 --repeats {REPEATS} --max-work 1e11
e2e-1e7	bench-e2e.jsonl	60	bench e2e --models stochastic_volatility,linear_gaussian --particles {N7} --implementations rsmc --steps 10 --repeats {REPEATS} --max-work 1e11
e2e-1e8	bench-e2e.jsonl	90	bench e2e --models stochastic_volatility,linear_gaussian --particles {N8} --implementations rsmc --steps 10 --repeats {REPEATS} --max-work 1e11
kernels-host	bench-kernels.jsonl	40	bench kernels --sizes 1e5,{N6} --weights power-law --kernels binary-search,forest,butterfly,butterfly-column,alias-psa,alias-sectioned --repeats {REPEATS}
TABLE
}

sizes_for() { # sizes_for ARGS: the table's size tokens replaced
  local a=$1
  if [ "$dry_run" = 1 ]; then
    a=${a//\{N6\}/1e3} a=${a//\{N7\}/2e3} a=${a//\{N8\}/4e3} a=${a//\{REPEATS\}/1} a=${a//\{KREPEATS\}/1}
  else
    a=${a//\{N6\}/1e6} a=${a//\{N7\}/1e7} a=${a//\{N8\}/1e8} a=${a//\{REPEATS\}/3} a=${a//\{KREPEATS\}/5}
  fi
  echo "$a"
}

step_measurements() {
  local name file limit argline args lines
  : > "$res/bench-kernels.jsonl"
  : > "$res/bench-e2e.jsonl"
  while IFS=$'\t' read -r name file limit argline; do
    [ -z "$name" ] || [ "${name:0:1}" = "#" ] && continue
    (($(left) > 5)) || { record "$name" fail 0 "not run: time budget spent"; continue; }
    read -r -a args <<< "$(sizes_for "$argline")"
    timed "$(left "$limit")" "$res/logs/$name.out" "${mpirun[@]}" -n 1 "$rsmc" "${args[@]}"
    grep '^{' "$res/logs/$name.out" >> "$res/$file"
    grep -v '^{' "$res/logs/$name.out" | grep -v -i -e pmix -e 'dlopen error' | tail -n 20 | sed "s/^/  [$name] /" >> "$log"
    lines=$(grep -c '^{' "$res/logs/$name.out")
    record "$name" "$([ "$rc" = 0 ] && [ "$lines" -gt 0 ] && echo pass || echo fail)" "$took" "exit $rc, $lines JSON lines"
  done < <(measurements)
}

# The profile: Nsight Compute's time per kernel (one metric, gpu__time_duration: one pass, no
# replay) of `rsmc filter` for SV at N = 1e8, one step resampling every step (--clock-control none:
# the card's clocks as they are). Nsight Systems (nsys) is not on these machines (device notes); ncu
# is, under /opt/nvidia/nsight-compute. Without either the step says so and is skipped.
step_profile() {
  local ncu f
  ncu=$(command -v ncu || true)
  for f in /opt/nvidia/nsight-compute/*/ncu; do [ -n "$ncu" ] || [ ! -x "$f" ] || ncu=$f; done
  if [ -z "$ncu" ]; then
    local nsys
    nsys=$(command -v nsys || true)
    record profile "$([ "$dry_run" = 1 ] && echo skip || echo fail)" 0 \
      "no Nsight Compute (ncu) on this machine$([ -n "$nsys" ] && echo ", nsys at $nsys: not used" || echo ", no nsys either"): no profile"
    return
  fi
  (($(left) > 20)) || { record profile fail 0 "not run: time budget spent"; return; }
  local particles=1e8
  [ "$dry_run" = 1 ] && particles=4e3
  timed "$(left 90)" "$res/profile-sv-1e8.csv" "${mpirun[@]}" -n 1 "$ncu" --clock-control none \
    --metrics gpu__time_duration.sum --csv --print-units base "$rsmc" filter --model stochastic_volatility \
    --particles "$particles" --steps 1 --seed 3 --ess-threshold 1 --output "$work/profile.h5" --overwrite --quiet
  local prc=$rc ptook=$took
  summarize_profile "$res/profile-sv-1e8.csv" > "$res/profile-summary.txt" 2>&1
  sed 's/^/  [profile] /' "$res/profile-summary.txt" | head -n 25 >> "$log"
  record profile "$([ "$prc" = 0 ] && echo pass || echo fail)" "$ptook" "ncu exit $prc: $(head -n 1 "$res/profile-summary.txt")"
}

summarize_profile() { # the kernels' total time, the top kernels and their shares
  command -v python3 > /dev/null || { echo "no python3: see the CSV"; return 0; }
  python3 - "$1" << 'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1], errors="replace")) if len(r) > 10]
heads = [i for i, r in enumerate(rows) if "Kernel Name" in r and "Metric Value" in r]
if not heads:
    print("no kernel rows"); sys.exit()
head = rows[heads[0]]; k = head.index("Kernel Name"); v = head.index("Metric Value")
rows = rows[heads[0]:]
tot = collections.Counter(); cnt = collections.Counter()
for r in rows[1:]:
    try: t = float(r[v].replace(",", ""))
    except ValueError: continue
    tot[r[k][:110]] += t; cnt[r[k][:110]] += 1
s = sum(tot.values())
print(f"{s / 1e6:.3f} ms of GPU time in {sum(cnt.values())} kernel launches (init and one step)")
for name, t in tot.most_common(20): print(f"{t / 1e6:9.3f} ms {100 * t / s:5.1f}% x{cnt[name]:4d} {name}")
PY
}

# The butterfly probe: rsmc filter for SV with --local-sampler butterfly, 2 steps, at growing N until
# one fails (out of memory); the largest that ran is the card's answer.
step_butterfly_probe() {
  local n sizes=(1e8 2e8 3e8 4e8 5e8 6e8) largest=none t0=$SECONDS
  [ "$dry_run" = 1 ] && sizes=(1e3 2e3)
  printf 'particles\tresult\tseconds\n' > "$res/butterfly-probe.tsv"
  for n in "${sizes[@]}"; do
    (($(left) > 15)) || break
    timed "$(left 40)" "$res/logs/butterfly-$n.out" "${mpirun[@]}" -n 1 "$rsmc" filter --model stochastic_volatility \
      --particles "$n" --steps 2 --seed 5 --ess-threshold 1 --local-sampler butterfly --output "$work/probe.h5" \
      --overwrite --quiet
    printf '%s\t%s\t%s\n' "$n" "$([ "$rc" = 0 ] && echo ran || echo "failed ($rc)")" "$took" >> "$res/butterfly-probe.tsv"
    [ "$rc" = 0 ] || { first_lines "$res/logs/butterfly-$n.out" | sed "s/^/  [butterfly $n] /" >> "$log"; break; }
    largest=$n
  done
  record butterfly-probe "$([ "$largest" != none ] && echo pass || echo fail)" $((SECONDS - t0)) \
    "largest N run with the butterfly sampler: $largest ($(($(wc -l < "$res/butterfly-probe.tsv") - 1)) tried)"
}

# summary.txt: what the issues ask for, read back from the results (python3; else a note)
write_summary() {
  command -v python3 > /dev/null || { echo "no python3 on this machine: read the JSON lines" > "$res/summary.txt"; return; }
  python3 - "$res" "$device" > "$res/summary.txt" 2>&1 << 'PY'
import json, os, sys
res, device = sys.argv[1], sys.argv[2]
def lines(name):
    path = os.path.join(res, name)
    if not os.path.exists(path): return []
    out = []
    for l in open(path):
        try: out.append(json.loads(l))
        except ValueError: pass
    return out
print(f"device: {device}")
cmp = [l.split("\t") for l in open(os.path.join(res, "compare.tsv")) if l.strip()] if os.path.exists(os.path.join(res, "compare.tsv")) else []
same = sum(1 for c in cmp if len(c) > 3 and c[3] == "identical")
print(f"host = GPU: {same} of {len(cmp)} comparisons identical")
print("\nbench e2e (particle-steps/s; phase shares where reported):")
for r in lines("bench-e2e.jsonl"):
    if r.get("skipped"): continue
    rate = r.get("particle_steps_per_s")
    shares = ", ".join(f"{k[6:]} {v:.0%}" for k, v in r.items() if k.startswith("phase_") and isinstance(v, float))
    extra = "".join(f", {k} {r[k]}" for k in ("groups",) if k in r)
    print(f"  {r.get('model')} N = {r.get('particles')}{extra}: {rate:.3g} ({shares})"
          if isinstance(rate, float) else f"  {r.get('model')} N = {r.get('particles')}: {rate}")
print("\nbench kernels (device builds: time / device copy of the table; butterfly: table bytes per item):")
hashes = {}
for r in lines("bench-kernels.jsonl"):
    if r.get("skipped"):
        print(f"  {r['kernel']} n = {r['n']} {r['weights']}: skipped ({r.get('reason')})"); continue
    if r.get("table_hash"): hashes[(r["kernel"], r["n"], r["weights"], r.get("greedy_items"))] = r["table_hash"]
    if r["kernel"].endswith("-device"):
        extra = f", {r['layout']}, greedy rows {r['greedy_rows']}" if r.get("layout") else ""
        extra += f", greedy sections of {r['greedy_items']}" if r.get("greedy_items") else ""
        print(f"  {r['kernel']} n = {r['n']} {r['weights']}: {r['seconds_median'] * 1e3:.3f} ms, "
              f"{r['kernel_to_copy_ratio']:.1f}x the copy, {r['table_bytes_per_item']:.1f} bytes/item{extra}")
for (k, n, w, g), h in sorted(hashes.items(), key=str):
    if k == "alias-psa-plus-device":
        host = hashes.get(("alias-psa-plus", n, w, g))
        print(f"  PSA+ table n = {n} {w} greedy {g}: device {h}, host {host}: {'identical' if h == host else 'DIFFERENT'}")
    if k == "alias-psa-device":
        masks = hashes.get(("alias-psa-masks-device", n, w, g))
        print(f"  PSA table n = {n} {w}: lists {h}, masks {masks}: {'identical' if h == masks else 'DIFFERENT'}")
PY
}

write_json() {
  local i sep= f
  {
    printf '{"check":"gpu-check","date":%s,"dry_run":%s,' "$(json_string "$(date -u +%FT%TZ)")" \
      "$([ "$dry_run" = 1 ] && echo true || echo false)"
    printf '"device":%s,"driver":%s,' "$(json_string "$device")" "$(json_string "$driver")"
    printf '"host":%s,' "$(json_string "$(uname -srm); $(grep -m 1 'model name' /proc/cpuinfo | cut -d: -f2-)")"
    printf '"kit":%s,"rsmc":%s,' "$(json_string "$(tr '\n' ' ' < "$kit/expected/KIT")")" "$(json_string "$rsmc")"
    printf '"seconds":%d,"steps":[' "$SECONDS"
    for i in "${!step_names[@]}"; do
      printf '%s{"name":%s,"status":"%s","seconds":%s,"detail":%s}' "$sep" "$(json_string "${step_names[i]}")" \
        "${step_status[i]}" "${step_seconds[i]}" "$(json_string "${step_detail[i]}")"
      sep=,
    done
    printf '],"comparisons":['
    sep=
    while IFS=$'\t' read -r tag p dev result seconds; do
      printf '%s{"run":"%s","ranks":%s,"device":"%s","result":"%s","seconds":%s}' "$sep" "$tag" "$p" "$dev" "$result" \
        "$seconds"
      sep=,
    done < "$res/compare.tsv"
    printf ']}\n'
  } > "$res/gpu-check.json"
}

say "gpu-check: kit $kit, rsmc $rsmc, dry run $dry_run, budget ${budget}s, out $out ($(date -u +%FT%TZ))"
: > "$res/compare.tsv"
step_gpu
step_compare  # first: what the check is for
step_cuda_tests
step_measurements
step_profile
step_butterfly_probe
write_json
write_summary
say ""
say "$(printf '%-28s %-6s %6s  %s' step status secs detail)"
failed=0
for i in "${!step_names[@]}"; do
  say "$(printf '%-28s %-6s %6s  %s' "${step_names[i]}" "${step_status[i]}" "${step_seconds[i]}" "${step_detail[i]:0:90}")"
  [ "${step_status[i]}" = fail ] && failed=$((failed + 1))
done
card=$(printf '%s' "${device:-none}" | tr -c 'A-Za-z0-9' '-' | tr -s '-' | sed 's/^-//; s/-$//')
[ "$dry_run" = 1 ] && card=dry-run
name=gpu-$(date -u +%F)-$card
say "gpu-check: $failed failed step(s) in ${SECONDS}s; results in $out/$name.tgz (folder $name/)"
cp "$res/gpu-check.json" "$res/summary.txt" "$out/" 2> /dev/null
mv "$res" "$work/$name"
tar -czf "$out/$name.tgz" -C "$work" "$name"
cp "$work/$name/gpu-check.log" "$out/"
# The work files (comparison outputs) stay for a look when something failed.
[ "$failed" = 0 ] && rm -rf "$work"
exit $((failed > 0))
