#!/usr/bin/env bash
# Faults of the checkpoint directory, on small tmpfs mounts made for the test (skipped, exit 77,
# where mounting is not permitted):
#  - a full disk while writing a checkpoint: one clear error line, a non-zero exit, no result file,
#    the earlier checkpoints intact, and a restart from them finishes bitwise identically;
#  - a read-only checkpoint directory: one error line naming it and the reason, nothing written,
#    and the checkpoints already in it (a restart) byte-identical.
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"
cd "$WORK"
mkdir -p full ro
if ! mount -t tmpfs -o size=700k tmpfs full 2>/dev/null; then
  echo "SKIP: cannot mount a tmpfs here (needs root with CAP_SYS_ADMIN); the disk-fault tests did not run"
  exit 77
fi
trap 'umount "$WORK/full" 2>/dev/null; umount "$WORK/ro" 2>/dev/null; umount "$WORK/ro_ck" 2>/dev/null; rm -rf "$WORK"' EXIT
run="--particles 10000 --steps 12 --seed 8"
rsmc_np 1 filter $run --quiet -o full_run.h5 || fail "uninterrupted run"

# Each checkpoint is about 330 kB: the second fits, the third does not.
rc=0
rsmc_np 2 filter $run --quiet -o out.h5 --checkpoint-every 1 --keep-checkpoints 10 --checkpoint-dir full \
  2>err.txt || rc=$?
[ "$rc" -ne 0 ] || fail "full disk: the run reported success"
[ "$(grep -c '^rsmc: error:' err.txt)" -eq 1 ] && grep -q "disk full" err.txt ||
  fail "full disk: expected one error line saying the disk is full, got: $(cat err.txt)"
[ ! -e out.h5 ] || fail "full disk: a result file was written"
ls full/checkpoint-*.h5 >/dev/null 2>&1 || fail "full disk: no earlier checkpoint survived"
for ck in full/checkpoint-*.h5; do
  output_has "checksums verified" rsmc_np 1 info "$ck" || fail "full disk: $ck is damaged"
done
cp full/checkpoint-*.h5 . && mkdir -p kept && mv checkpoint-*.h5 kept/
rsmc_np 2 filter $run --quiet -o restarted.h5 --restart latest --checkpoint-dir kept || fail "restart after a full disk"
"$H5_DATASETS_EQUAL" --ignore /resampling_traffic full_run.h5 restarted.h5 >/dev/null ||
  fail "the restart after a full disk differs from the uninterrupted run"

mount -t tmpfs -o size=1m,ro tmpfs ro || fail "cannot mount a read-only tmpfs"
rc=0
rsmc_np 2 filter $run --quiet -o out.h5 --checkpoint-every 1 --checkpoint-dir ro 2>err.txt || rc=$?
[ "$rc" -ne 0 ] || fail "read-only directory: the run reported success"
grep -q "^rsmc: error: .*cannot write in the directory '\(.*/\)\?ro': Read-only file system" err.txt ||
  fail "read-only directory: unclear error: $(cat err.txt)"
[ ! -e out.h5 ] || fail "read-only directory: a result file was written"

# A read-only directory holding checkpoints: a restart cannot write its next one; the error names
# the reason and every checkpoint stays byte-identical.
mkdir -p ro_ck
mount -t tmpfs -o size=2m tmpfs ro_ck || fail "cannot mount a tmpfs for the read-only checkpoints"
cp kept/checkpoint-*.h5 ro_ck/ && mount -o remount,ro ro_ck || fail "cannot make the checkpoint tmpfs read-only"
before=$(cd ro_ck && sha256sum checkpoint-*.h5)
rc=0
rsmc_np 2 filter $run --quiet -o out.h5 --restart latest --checkpoint-every 1 --checkpoint-dir ro_ck 2>err.txt || rc=$?
[ "$rc" -ne 0 ] || fail "read-only directory with checkpoints: the restart reported success"
grep -q "^rsmc: error: .*cannot write in the directory '\(.*/\)\?ro_ck': Read-only file system" err.txt ||
  fail "read-only directory with checkpoints: unclear error: $(cat err.txt)"
[ "$(cd ro_ck && sha256sum checkpoint-*.h5)" = "$before" ] || fail "read-only directory: its checkpoints changed"
[ ! -e out.h5 ] || fail "read-only directory with checkpoints: a result file was written"
finish  # the EXIT trap unmounts the three file systems
