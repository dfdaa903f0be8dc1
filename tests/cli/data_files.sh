#!/usr/bin/env bash
# Observations from files: `rsmc simulate` writes the same data as CSV and HDF5; filtering either
# file gives identical datasets, on 1 and 3 ranks; a CSV with missing rows runs and is invariant too.
# The simulated true states go beside the data (data.state.csv, or the dataset /state): a result
# filtered from the HDF5 file carries them as /true_state, as a run that simulates its own data does.
# (/resampling_traffic, the communication of each resampling, depends on the rank count: not compared.)
source "$(dirname "$0")/common.sh"
: "${H5_DATASETS_EQUAL:?set by CTest}"

rsmc_np 1 simulate --steps 30 --seed 4 --output "$WORK/data.csv" || fail "simulate to CSV"
rsmc_np 1 simulate --steps 30 --seed 4 --output "$WORK/data.h5" || fail "simulate to HDF5"
# --device host: the same data as the build's default device.
rsmc_np 1 simulate --steps 30 --seed 4 --device host --output "$WORK/data_host.h5" || fail "simulate --device host"
"$H5_DATASETS_EQUAL" "$WORK/data.h5" "$WORK/data_host.h5" || fail "simulate: --device host differs from the default"
# The HDF5 data file records the model it was simulated from.
output_has "simulated from model: linear_gaussian$" rsmc_np 1 info "$WORK/data.h5" ||
  fail "rsmc info data.h5 does not name the model the data were simulated from"
rsmc_np 1 filter --data "$WORK/data.csv" --seed 4 --particles 500 --quiet --output "$WORK/from_csv.h5" || fail "filter CSV"
rsmc_np 3 filter --data "$WORK/data.h5" --seed 4 --particles 500 --quiet --output "$WORK/from_h5.h5" || fail "filter HDF5"
# Without --data the filter simulates the very same data from the seed.
rsmc_np 2 filter --steps 30 --seed 4 --particles 500 --quiet --output "$WORK/simulated.h5" || fail "filter simulated"
"$H5_DATASETS_EQUAL" --ignore /resampling_traffic --ignore /true_state "$WORK/from_csv.h5" "$WORK/from_h5.h5" "$WORK/simulated.h5" ||
  fail "CSV, HDF5 and simulated data gave different results"
"$H5_DATASETS_EQUAL" --ignore /resampling_traffic "$WORK/from_h5.h5" "$WORK/simulated.h5" >/dev/null ||
  fail "the true states of the HDF5 data file did not reach the result as in a simulated run"
[ "$(head -n 1 "$WORK/data.state.csv")" = "x1,x2" ] || fail "data.state.csv: header '$(head -n 1 "$WORK/data.state.csv")'"
[ "$(grep -cv '^#' "$WORK/data.state.csv")" -eq 31 ] || fail "data.state.csv: expected a header and 30 states"
rsmc_np 1 simulate --model sir_epidemic --steps 5 --output "$WORK/sir.csv" >/dev/null || fail "simulate SIR"
[ "$(head -n 1 "$WORK/sir.state.csv")" = "S,I,R,incidence" ] || fail "sir.state.csv: the model's state names are missing"
rsmc_np 1 simulate --model sir_epidemic --steps 5 --output "$WORK/sir.csv" 2>"$WORK/err.txt" &&
  fail "an existing data file was replaced without --overwrite"
grep -q "already exists; pass --overwrite" "$WORK/err.txt" || fail "unexpected message: $(cat "$WORK/err.txt")"

# The format follows from the extension in any letter case, in every command.
rsmc_np 1 simulate --steps 30 --seed 4 --output "$WORK/UPPER.CSV" >/dev/null || fail "simulate to UPPER.CSV"
[ -f "$WORK/UPPER.state.csv" ] || fail "simulate to UPPER.CSV: no UPPER.state.csv beside it"
cmp -s "$WORK/UPPER.CSV" "$WORK/data.csv" || fail "UPPER.CSV differs from data.csv"
rsmc_np 1 simulate --steps 30 --seed 4 --output "$WORK/UPPER.H5" >/dev/null || fail "simulate to UPPER.H5"
rsmc_np 1 simulate --steps 30 --seed 4 --output "$WORK/Upper.Hdf5" >/dev/null || fail "simulate to Upper.Hdf5"
rsmc_np 1 filter --data "$WORK/UPPER.CSV" --seed 4 --particles 500 --quiet --output "$WORK/from_upper_csv.h5" ||
  fail "filter UPPER.CSV"
rsmc_np 1 filter --data "$WORK/UPPER.H5" --seed 4 --particles 500 --quiet --output "$WORK/from_upper_h5.h5" ||
  fail "filter UPPER.H5"
rsmc_np 1 filter --data "$WORK/Upper.Hdf5" --seed 4 --particles 500 --quiet --output "$WORK/from_upper_hdf5.h5" ||
  fail "filter Upper.Hdf5"
"$H5_DATASETS_EQUAL" --ignore /resampling_traffic --ignore /true_state "$WORK/from_upper_csv.h5" "$WORK/from_csv.h5" ||
  fail "UPPER.CSV gave other results than data.csv"
"$H5_DATASETS_EQUAL" --ignore /resampling_traffic "$WORK/from_upper_h5.h5" "$WORK/from_upper_hdf5.h5" "$WORK/from_h5.h5" ||
  fail "UPPER.H5 / Upper.Hdf5 gave other results (or no /true_state) than data.h5"
output_has "steps: *30$" rsmc_np 1 info "$WORK/UPPER.CSV" || fail "rsmc info UPPER.CSV"

# Missing observations: empty rows are "no observation this step".
{
  head -n 6 "$WORK/data.csv"
  echo ","
  echo ","
  tail -n +9 "$WORK/data.csv"
} >"$WORK/missing.csv"
rsmc_np 1 filter --data "$WORK/missing.csv" --particles 500 --quiet --output "$WORK/m1.h5" || fail "missing rows, 1 rank"
rsmc_np 3 filter --data "$WORK/missing.csv" --particles 500 --quiet --output "$WORK/m3.h5" || fail "missing rows, 3 ranks"
"$H5_DATASETS_EQUAL" --ignore /resampling_traffic "$WORK/m1.h5" "$WORK/m3.h5" || fail "missing-row results differ across rank counts"
# A bad --output is refused on every rank before anything is simulated or written.
if rsmc_np 2 simulate --steps 30 --output "$WORK/data.txt" 2>"$WORK/ext.err"; then fail "simulate accepted data.txt"; fi
[ "$(grep -c '^rsmc: error: --output: .*data.txt has an unknown extension' "$WORK/ext.err")" -eq 1 ] ||
  fail "simulate -o data.txt: expected one error line naming the extension, got: $(cat "$WORK/ext.err")"
[ ! -e "$WORK/data.txt" ] && [ ! -e "$WORK/data.state.csv.txt" ] || fail "simulate -o data.txt wrote a file"
cp "$WORK/data.csv" "$WORK/kept.csv"
if rsmc_np 1 simulate --steps 5 --output "$WORK/data.csv" 2>/dev/null; then fail "simulate replaced data.csv"; fi
cmp -s "$WORK/data.csv" "$WORK/kept.csv" || fail "a refused simulate changed data.csv"
finish
