#!/usr/bin/env bash
# The sanitizer stage: builds rsmc with clang, AddressSanitizer (+ LeakSanitizer) and
# UndefinedBehaviorSanitizer, warnings as errors (scripts/build-sanitize.sh), and runs this CTest
# subset under it (a sanitizer report, a leak outside MPI/HDF5 or any undefined behaviour fails the
# test):
#   unit/*                    every unit test file but the slowest statistical ones (below)
#   mpi/rsmc_mpi_tests@1..4   all MPI test cases on 1, 2, 3 and 4 ranks
#   cli/<SANITIZE_CLI>        the command line reading config files and CSV/HDF5 data files
#   fuzz/replay_*             the fuzz corpora and crash regressions
# Left out (they run in stage 1's OpenMP build; under ASan each costs minutes of the CI budget):
# unit/test_model_sv, unit/test_local_samplers,
# unit/test_filter_vs_kalman, unit/test_pmmh_kalman (over 10 minutes under ASan; the other
# inference tests run here), unit/test_layout_choice (1.1 million brute-force layouts) (long statistical runs of code the other model and sampler tests
# cover), the MPI tests at 5, 7 and 8 ranks, and the other cli/ tests: checkpoint_restart (dozens of
# 20,000-particle x 2,000-step runs and SIGKILL timing: over 5 minutes under ASan on 2 cores; the
# checkpoint reader's damaged-file handling is covered here by fuzz/replay_checkpoint_structured and
# in stage 6 by the checkpoint_structured fuzzer), bad_inputs (150 s under ASan, alone on both
# cores: dozens of MPI start-ups; the readers' bad-input paths are what fuzz/replay_* and stage 6
# exercise), and the timing- or environment-bound kill_rank, disk_faults, bench_smoke,
# install_and_consume, slurm/*.
#
#   scripts/sanitize.sh [--build-only]      --build-only: the build, no test
set -euo pipefail
cd "$(dirname "$0")/.."
SANITIZE_CLI="config_file|data_files"
SANITIZE_SKIP_UNIT="test_model_sv|test_local_samplers|test_filter_vs_kalman|test_pmmh_kalman|test_layout_choice"
bash scripts/build-sanitize.sh rsmc_unit_tests rsmc_mpi_tests rsmc rsmc_fuzz_replay h5_datasets_equal checkpoint_tamper
[ "${1:-}" != --build-only ] || exit 0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd build-sanitize
ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)" --timeout 900 \
  -R "^(unit/|mpi/rsmc_mpi_tests@[1-4]$|cli/($SANITIZE_CLI)$|fuzz/replay_)" -E "^unit/($SANITIZE_SKIP_UNIT)$"
