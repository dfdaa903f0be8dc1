#!/usr/bin/env bash
# Faults of the checkpoint directory, on small tmpfs mounts made for the test (skipped, exit 77,
# where mounting is not permitted):
#  - a full disk while writing a checkpoint: one clear error line, a non-zero exit, no result file,
#    the earlier checkpoints intact, and a restart from them finishes bitwise identically;
#  - a read-only checkpoint directory: one error line naming it and the reason, nothing written,
#    and the checkpoints already in it (a restart) byte-identical;
#  - a full disk while writing --output (issue 39, B), with 0 to 16 KiB free, on 1 and 2 ranks: exit
#    code 1 (no signal, no crash at exit), one error line saying the disk is full and no HDF5 error
#    dump, no partial or temporary file, and an existing output (--overwrite) unchanged;
#  - --output on a read-only file system: refused before the run starts (nothing printed), naming
#    the reason.
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"
cd "$WORK"
mkdir -p full ro
if ! mount -t tmpfs -o size=700k tmpfs full 2>/dev/null; then
  echo "SKIP: cannot mount a tmpfs here (needs root with CAP_SYS_ADMIN); the disk-fault tests did not run"
  exit 77
fi
trap 'for m in full ro ro_ck out_full; do umount "$WORK/$m" 2>/dev/null; done; rm -rf "$WORK"' EXIT
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
# ---- a full disk while writing --output
mkdir -p out_full
mount -t tmpfs -o size=700k tmpfs out_full || fail "cannot mount a tmpfs for the output"
out_run="--particles 2000 --steps 40 --seed 7 --quiet"
rsmc_np 1 filter $out_run -o out_reference.h5 || fail "the run whose result fills the disk"
# fill_leaving KIB: fills out_full until KIB KiB are free (tmpfs counts 4 KiB pages).
fill_leaving() {
  rm -f out_full/filler
  local free_kib
  free_kib=$(df -k --output=avail out_full | tail -n 1 | tr -d ' ')
  [ "$free_kib" -le "$1" ] || dd if=/dev/zero of=out_full/filler bs=1k count=$((free_kib - $1)) status=none 2>/dev/null || true
}
for free in 0 4 16; do
  for p in 1 2; do
    fill_leaving "$free"
    rc=0
    rsmc_np "$p" filter $out_run -o out_full/out.h5 >out_err.txt 2>&1 || rc=$?
    what="--output on a full disk ($free KiB free, $p rank(s))"
    [ "$rc" -eq 1 ] || fail "$what: exit code $rc, expected 1: $(head -c 1500 out_err.txt)"
    [ "$(grep -c '^rsmc: error:' out_err.txt)" -eq 1 ] && grep -q '^rsmc: error: .*disk full' out_err.txt ||
      fail "$what: expected one error line saying the disk is full: $(head -c 1500 out_err.txt)"
    ! grep -q 'HDF5\|H5[A-Z]' out_err.txt || fail "$what: an HDF5 error dump: $(head -c 1500 out_err.txt)"
    [ ! -e out_full/out.h5 ] && ! compgen -G "out_full/.out.h5.tmp*" >/dev/null ||
      fail "$what: a partial or temporary output was left: $(ls -A out_full)"
  done
done
# An existing output is left as it was when its replacement does not fit.
rm -f out_full/filler
cp out_reference.h5 out_full/out.h5
fill_leaving 4
rc=0
rsmc_np 2 filter $out_run -o out_full/out.h5 --overwrite >out_err.txt 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "--overwrite on a full disk: exit code $rc, expected 1: $(head -c 1500 out_err.txt)"
cmp -s out_full/out.h5 out_reference.h5 || fail "--overwrite on a full disk: the existing output changed"

# ---- --output on a read-only file system: refused before the run
rc=0
rsmc_np 2 filter --particles 2000 --steps 40 --seed 7 -o ro/out.h5 >ro_out.txt 2>ro_err.txt || rc=$?
[ "$rc" -eq 1 ] && grep -q "^rsmc: error: --output: cannot create 'ro/out.h5': .*Read-only file system" ro_err.txt ||
  fail "--output on a read-only file system: rc $rc, unclear error: $(cat ro_err.txt)"
[ ! -s ro_out.txt ] || fail "--output on a read-only file system: the run started: $(cat ro_out.txt)"
finish  # the EXIT trap unmounts the file systems
