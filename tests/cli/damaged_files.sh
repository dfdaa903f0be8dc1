#!/usr/bin/env bash
# Acceptance (issue 19, section 8): a damaged checkpoint or trace never reaches HDF5's parser.
#  1. The three files that crash HDF5 1.10.8 (tests/fuzz/hdf5-findings), as `rsmc filter --restart
#     FILE` and as `rsmc info FILE`: one error line each, a non-zero exit, nothing written.
#  2. A checkpoint truncated at 20 offsets (inside the seal, HDF5's superblock, metadata and data):
#     the same for --restart and info. A trace truncated at 20 offsets: the same for `rsmc smooth`
#     and info. Zeroed 4 KiB blocks and appended bytes: the same for info and --restart latest.
#  3. Sealed files stay plain HDF5 files: h5dump reads a checkpoint and a trace, and the digest in
#     the seal is the documented one (recomputed here with Python's hashlib).
#  4. pmmh checkpoints (issue 39, acceptance 4): 40 random bit flips of a checkpoint are each refused
#     in one line by `rsmc info` (and the first 5 by a restart), writing nothing, and so are zeroed
#     4 KiB blocks; a checkpoint
#     without its seal (as rsmc wrote them before they were sealed) is refused in one line saying
#     why, by a restart and by `rsmc info`.
source "$(dirname "$0")/common.sh"
cd "$WORK"
mkdir cuts  # scratch files of the test; the checks compare the listing of the work directory only
findings=$(cd "$(dirname "$0")/../fuzz/hdf5-findings" && pwd)
run="--particles 400 --steps 8 --seed 5"

rsmc_np 2 filter $run --quiet --checkpoint-every 8 --checkpoint-dir ck --trace trace.h5 ||
  fail "the run that writes the checkpoint and the trace"
good=ck/checkpoint-000000008.h5
[ -f "$good" ] && [ -f trace.h5 ] || fail "no checkpoint or trace to damage"

# one_error WHAT CMD...: CMD fails with exactly one line on stderr, an "rsmc: error:" line, and
# writes nothing into the work directory (the directory listing is unchanged).
one_error() {
  local what=$1 err="$WORK/cuts/err.txt" before after
  shift
  before=$(ls -A "$WORK")
  if "$@" >/dev/null 2>"$err"; then
    fail "$what: succeeded; expected an error"
  elif [ "$(wc -l <"$err")" -ne 1 ] || [ "$(grep -c '^rsmc: error:' "$err")" -ne 1 ]; then
    fail "$what: expected one 'rsmc: error:' line, got: $(head -c 2000 "$err")"
  fi
  after=$(ls -A "$WORK")
  [ "$before" = "$after" ] || fail "$what: something was written: $(diff <(echo "$before") <(echo "$after") | tail -3)"
}
restart_from() {  # restart_from FILE: a restart into a fresh checkpoint dir and a result file
  "$RSMC" filter $run --quiet -o restarted.h5 --checkpoint-dir restart_ck --restart "$1"
}

# ---- 1. the HDF5 crash findings
for f in "$findings"/*.h5; do
  one_error "restart from $(basename "$f")" restart_from "$f"
  one_error "info $(basename "$f")" "$RSMC" info "$f"
done

# ---- 2. truncated checkpoints and traces
cut=cuts/cut.h5
# 20 offsets in a file of $1 bytes: the seal, HDF5's superblock and first metadata, then 7 eighths.
offsets_in() {
  local k
  echo 0 1 7 8 100 511 512 513 520 600 1024 2048 4096
  for k in 1 2 3 4 5 6 7; do echo $(($1 * k / 8)); done
}
size=$(stat -c %s "$good")
[ "$(offsets_in "$size" | wc -w)" -eq 20 ] || fail "expected 20 offsets"
for off in $(offsets_in "$size"); do
  head -c "$off" "$good" >"$cut"
  one_error "restart from the checkpoint cut at $off of $size bytes" restart_from "$cut"
  one_error "info on the checkpoint cut at $off of $size bytes" "$RSMC" info "$cut"
done
size=$(stat -c %s trace.h5)
for off in $(offsets_in "$size"); do
  head -c "$off" trace.h5 >"$cut"
  one_error "smooth the trace cut at $off of $size bytes" "$RSMC" smooth "$cut" -o smoothed.h5
  one_error "info on the trace cut at $off of $size bytes" "$RSMC" info "$cut"
done
# Zeroed 4 KiB blocks and appended bytes (the probe of issue 39), through `rsmc info` and through
# `--restart latest` (the damaged file the newest in its directory).
size=$(stat -c %s "$good")
damaged_dir=cuts/latest
mkdir -p "$damaged_dir"
for damage in "zero 0" "zero 512" "zero $((size / 2))" "zero $((size - 4096))" "append 1" "append 4096"; do
  set -- $damage
  cp "$good" "$cut"
  if [ "$1" = zero ]; then
    dd if=/dev/zero of="$cut" bs=1 seek="$2" count=4096 conv=notrunc status=none
  else
    head -c "$2" /dev/urandom >>"$cut"
  fi
  one_error "info on the checkpoint with $damage" "$RSMC" info "$cut"
  rm -f "$damaged_dir"/* && cp "$cut" "$damaged_dir/checkpoint-000000008.h5"
  one_error "--restart latest from the checkpoint with $damage" \
    "$RSMC" filter $run --quiet -o restarted.h5 --checkpoint-dir "$damaged_dir" --restart latest
done
[ ! -e restart_ck ] || fail "a refused restart created its checkpoint directory"

# ---- 3. plain HDF5, and the documented digest
for f in "$good" trace.h5; do
  out=$(h5dump -H "$f" 2>&1) || fail "h5dump cannot read $f: $out"
done
if command -v python3 >/dev/null; then
  python3 - "$good" trace.h5 <<'PY' || fail "the seal's digest is not the documented SHA-256 hash list"
import hashlib, sys
for f in sys.argv[1:]:
    b = bytearray(open(f, 'rb').read()); d = bytes(b[48:80]); b[48:80] = bytes(32); L = 4 << 20
    leaves = b''.join(hashlib.sha256(b[i:i + L]).digest() for i in range(0, len(b), L))
    assert hashlib.sha256(leaves).digest() == d, f
PY
fi
output_has "seal and checksums verified" "$RSMC" info "$good" || fail "rsmc info on the good checkpoint"

# ---- 4. pmmh checkpoints
here=$(cd "$(dirname "$0")" && pwd)
sed 's/^iterations = 60$/iterations = 4000/; s/^quiet = true$/quiet = false/' "$here/pmmh_local_level.toml" >cuts/pmmh.toml
"$RSMC" pmmh --config cuts/pmmh.toml --checkpoint pmmh_ck.h5 --output cuts/unused.h5 >cuts/pmmh.log 2>&1 &
pid=$!
signal_when_output TERM "$pid" cuts/pmmh.log '^chain 0: iteration' 300
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 75 ] && [ -f pmmh_ck.h5 ] || fail "the pmmh run to checkpoint: exit code $rc ($(tail -n 2 cuts/pmmh.log))"
output_has "a checkpoint of a stopped run, seal verified" "$RSMC" info pmmh_ck.h5 || fail "rsmc info on the pmmh checkpoint"
pmmh_restart() {  # pmmh_restart FILE: a restart of the stopped run from FILE
  "$RSMC" pmmh --config cuts/pmmh.toml --restart "$1" --checkpoint cuts/next_ck.h5 --output restarted_chains.h5
}
flip=cuts/flipped.h5
size=$(stat -c %s pmmh_ck.h5)
RANDOM=39  # the same 40 flips in every run
for k in $(seq 1 40); do
  offset=$(((RANDOM * 32768 + RANDOM) % size))
  bit=$((RANDOM % 8))
  cp pmmh_ck.h5 "$flip"
  byte=$(od -An -tu1 -j "$offset" -N 1 "$flip" | tr -d ' ')
  printf "$(printf '\\%03o' $((byte ^ (1 << bit))))" | dd of="$flip" bs=1 seek="$offset" conv=notrunc status=none
  cmp -s "$flip" pmmh_ck.h5 && fail "flip $k: the file did not change"
  one_error "info on the pmmh checkpoint with bit $bit of byte $offset flipped" "$RSMC" info "$flip"
  [ "$k" -gt 5 ] || one_error "restart from the pmmh checkpoint with bit $bit of byte $offset flipped" pmmh_restart "$flip"
done
for at in 0 512 $((size / 2)); do  # zeroed 4 KiB blocks (one zeroed 512 log-likelihoods in the probe)
  cp pmmh_ck.h5 "$flip"
  dd if=/dev/zero of="$flip" bs=1 seek="$at" count=4096 conv=notrunc status=none
  one_error "info on the pmmh checkpoint with 4 KiB zeroed at $at" "$RSMC" info "$flip"
done
one_error "restart from the pmmh checkpoint with 4 KiB zeroed at $((size / 2))" pmmh_restart "$flip"
if h5unjam -i pmmh_ck.h5 -o cuts/unsealed.h5 >/dev/null 2>&1; then  # the seal (the user block) taken off
  one_error "restart from an unsealed pmmh checkpoint" pmmh_restart cuts/unsealed.h5
  why=$(pmmh_restart cuts/unsealed.h5 2>&1 >/dev/null || true)
  grep -q "without an rsmc seal.*an unsealed file cannot be checked" <<<"$why" ||
    fail "the refusal of an unsealed pmmh checkpoint does not say why: $why"
  one_error "info on an unsealed pmmh checkpoint" "$RSMC" info cuts/unsealed.h5
else
  fail "h5unjam cannot take the seal off the pmmh checkpoint"
fi
finish
