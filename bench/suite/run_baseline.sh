#!/usr/bin/env bash
# run_baseline.sh — check a suite's own reference.cu kernels against the C
# references (bench/suite by default, any suite folder with SUITE=DIR, e.g.
# bench/suite-prose): every task folder is copied to a temporary suite whose
# kernel.ptx is nvcc's PTX of reference.cu, then `ptxgen run --suite` runs on
# it.  On a GPU this proves each reference.cu (the speed baseline) computes
# what task.json says; with --dry-run it does the GPU-free checks (spec,
# check + ptxas, signatures, C reference on the smallest size).
#   bash bench/suite/run_baseline.sh [--dry-run] [other ptxgen run options, e.g. --out R.json]
# Environment: PTXGEN (default build/ptxgen), SUITE (default bench/suite; a folder of task folders), ARCH (default sm_80).
set -u
cd "$(dirname "$0")/../.." || exit 2
P=${PTXGEN:-build/ptxgen}
SUITE=${SUITE:-bench/suite}
[ -d "$SUITE" ] || { echo "run_baseline: no suite folder $SUITE"; exit 2; }
ARCH=${ARCH:-sm_80}
NVCC=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
[ -x "$NVCC" ] || { echo "run_baseline: nvcc not found"; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
for d in "$SUITE"/*/; do
    [ -f "$d/task.json" ] || continue
    t=$(basename "$d")
    mkdir -p "$tmp/$t"
    cp "$d/task.json" "$d/reference.cu" "$tmp/$t/"
    if ! "$NVCC" -ptx -O3 -arch="$ARCH" -o "$tmp/$t/kernel.ptx" "$tmp/$t/reference.cu" 2>"$tmp/$t/nvcc.log"; then
        echo "$t: nvcc failed:"; cat "$tmp/$t/nvcc.log"; bad=$((bad + 1))
    fi
done
"$P" run --suite "$tmp" "$@"
rc=$?
[ "$bad" -eq 0 ] || rc=1
exit $rc
