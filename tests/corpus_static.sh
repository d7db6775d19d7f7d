#!/usr/bin/env bash
# corpus_static.sh — every corpus task through the checks that need no GPU:
# spec loads, kernel.ptx passes `ptxgen check` and ptxas, its signature and
# reference.cu's match the spec, and the C reference runs on the smallest size.
set -u
cd "$(dirname "$0")/.."
P=${PTXGEN:-build/ptxgen}
out=$("$P" run --dry-run --suite corpus 2>&1)
echo "$out" | grep -v "static ok"
pass=$(echo "$out" | grep -c "static ok")
fail=$(echo "$out" | grep -c "STATIC CHECK FAILED\|error\[")
n=$(ls -d corpus/*/ | wc -l)
echo "corpus: $n task folders, $pass statically ok"
[ "$n" -ge 50 ] || { echo "corpus has fewer than 50 tasks"; fail=$((fail + 1)); }
echo "corpus: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
