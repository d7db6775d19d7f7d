#!/usr/bin/env bash
# run_baseline.sh — bench/suite/run_baseline.sh for the hand-written prose
# suite: every reference.cu of bench/suite-prose against its C reference on a
# GPU (and nvcc's timings), or with --dry-run the GPU-free checks.
#   bash bench/suite-prose/run_baseline.sh [--dry-run] [other ptxgen run options, e.g. --out R.json]
# Environment: PTXGEN (default build/ptxgen), ARCH (default sm_80).
set -u
cd "$(dirname "$0")/../.." || exit 2
SUITE=bench/suite-prose exec bash bench/suite/run_baseline.sh "$@"
