#!/usr/bin/env bash
# Mutation test of the validator (property 2): on PTX that ptxas rejects,
# `ptxgen check` rejects it and points at the offending line in >= 95% of cases.
#
#   usage: tests/mutants.sh [CORPUS_DIR [TEST_BINARY [extra test_mutants args...]]]
#     CORPUS_DIR   default build/testcorpus (made by tests/cuda/build_corpus.sh)
#     TEST_BINARY  default build/san/tests/ptx/test_mutants (make build/san/tests/ptx/test_mutants)
#
# Builds nothing.  Picks a deterministic subset of the corpus (the -O3 files for
# sm_80, sm_90 and sm_90a, spread evenly down to at most $MAX_FILES = 60), runs
# test_mutants with --json build/mutants.json and exits with its status.
# Prints "mutants: skipped (...)" and exits 0 when ptxas or the corpus is missing.
set -euo pipefail

CORPUS="${1:-build/testcorpus}"
BIN="${2:-build/san/tests/ptx/test_mutants}"
shift $(( $# < 2 ? $# : 2 ))
MAX_FILES="${MAX_FILES:-60}"
JSON="${MUTANTS_JSON:-build/mutants.json}"

# the same search as ptx_ptxas_find(): $PTXAS, PATH, $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin
have_ptxas=""
if [ -n "${PTXAS:-}" ]; then
    [ -x "$PTXAS" ] && have_ptxas=1
elif command -v ptxas >/dev/null 2>&1; then
    have_ptxas=1
else
    for root in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
        if [ -n "$root" ] && [ -x "$root/bin/ptxas" ]; then have_ptxas=1; break; fi
    done
fi
if [ -z "$have_ptxas" ]; then
    echo "mutants: skipped (ptxas not found)"
    exit 0
fi
if [ ! -x "$BIN" ]; then
    echo "mutants: $BIN not built (make $BIN)" >&2
    exit 2
fi

shopt -s nullglob
all=()
for f in "$CORPUS"/*.sm_80.O3.ptx "$CORPUS"/*.sm_90.O3.ptx "$CORPUS"/*.sm_90a.O3.ptx; do all+=("$f"); done
if [ ${#all[@]} -eq 0 ]; then
    echo "mutants: skipped (no -O3 sm_80/sm_90/sm_90a PTX in $CORPUS; run tests/cuda/build_corpus.sh $CORPUS)"
    exit 0
fi
mapfile -t all < <(printf '%s\n' "${all[@]}" | LC_ALL=C sort)
n=${#all[@]}
files=()
if [ "$n" -le "$MAX_FILES" ]; then
    files=("${all[@]}")
else
    for ((i = 0; i < MAX_FILES; i++)); do files+=("${all[i * n / MAX_FILES]}"); done
fi

mkdir -p "$(dirname "$JSON")"
echo "mutants: ${#files[@]} of $n files from $CORPUS"
set +e
"$BIN" --json "$JSON" "$@" "${files[@]}"
rc=$?
set -e
exit $rc
