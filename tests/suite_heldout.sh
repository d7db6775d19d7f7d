#!/usr/bin/env bash
# suite_heldout.sh — the held-out evaluation suites (bench/suite and the
# hand-written bench/suite-prose) stay out of the training data and are
# statically sound:
#  1. a synth sample made with --exclude bench/suite --exclude bench/suite-prose
#     (300 samples, seed 1) contains no task of either: no sample's task name
#     is a suite task name and no expression equals a suite task's expression;
#     the run reports what it skipped in its .meta.json sidecar, naming both
#     folders (the same sample without --exclude is only counted: the expr
#     family can draw a small held-out tree itself);
#  2. every task of both suites passes the GPU-free checks with nvcc's PTX of
#     its reference.cu as the kernel (bench/suite/run_baseline.sh --dry-run,
#     bench/suite-prose/run_baseline.sh --dry-run); no task name is in both.
# Needs ptxas/nvcc; prints SKIPPED parts where they are missing.
set -u
cd "$(dirname "$0")/.."
P=${PTXGEN:-build/ptxgen}
SUITE=bench/suite
PROSE=bench/suite-prose
pass=0
fail=0
ok() { pass=$((pass + 1)); }
no() { echo "FAIL: $*"; fail=$((fail + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=$(ls "$SUITE"/*/task.json 2>/dev/null | wc -l)
[ "$n" -ge 44 ] && ok || no "the suite has $n tasks (want >= 44)"
n2=$(ls "$PROSE"/*/task.json 2>/dev/null | wc -l)
[ "$n2" -ge 30 ] && ok || no "the prose suite has $n2 tasks (want >= 30)"

# suite identities of both suites: task names and expressions
python3 - "$SUITE" "$PROSE" >"$tmp/ids" <<'PY' || no "cannot read the suite specs"
import glob, json, os, sys
for d in sys.argv[1:]:
    for p in sorted(glob.glob(os.path.join(d, "*", "task.json"))):
        t = json.load(open(p))
        print("name\t" + t["name"])
        if "expr" in t:
            print("expr\t" + t["expr"])
PY
dup=$(cut -f2 "$tmp/ids" | sort | uniq -d | head -n 3)
[ -z "$dup" ] && ok || no "task names in both suites: $dup"

# leaks FILE: suite identities found in a dataset
leaks() {
    python3 - "$tmp/ids" "$1" <<'PY'
import json, sys
names, exprs = set(), set()
for line in open(sys.argv[1]):
    k, v = line.rstrip("\n").split("\t", 1)
    (names if k == "name" else exprs).add(v)
bad = 0
for line in open(sys.argv[2]):
    t = json.loads(line)["task"]
    if t.get("name") in names or t.get("expr") in exprs:
        print("leak:", t.get("name"), t.get("expr"))
        bad += 1
print(bad)
PY
}

if command -v ptxas >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/ptxas" ]; then
    if "$P" synth --count 300 --seed 1 --jobs 2 --no-progress --out "$tmp/plain.jsonl" 2>"$tmp/log"; then
        ok
        # informational: the expr family can draw a small held-out tree by itself
        # (a random tree can equal a suite task's), which is why datasets are made with --exclude
        r=$(leaks "$tmp/plain.jsonl" | tail -n 1)
        echo "without --exclude: $r samples of suite tasks in the sample"
    else
        no "synth failed: $(tail -n 3 "$tmp/log")"
    fi
    if "$P" synth --count 300 --seed 1 --jobs 2 --no-progress --exclude "$SUITE" --exclude "$PROSE" --out "$tmp/excl.jsonl" 2>"$tmp/log"; then
        ok
        r=$(leaks "$tmp/excl.jsonl" | tail -n 1)
        [ "$r" = "0" ] && ok || no "$r suite tasks appear in a synth sample made with --exclude"
        grep -q '"excluded_heldout"' "$tmp/excl.jsonl.meta.json" && ok || no "the .meta.json does not report excluded_heldout"
        grep -q "\"exclude\": \"$SUITE,$PROSE\"" "$tmp/excl.jsonl.meta.json" && ok || no "the .meta.json does not name both excluded suites"
    else
        no "synth --exclude failed: $(tail -n 3 "$tmp/log")"
    fi
    "$P" synth --count 4 --seed 1 --no-progress --exclude "$tmp/no-such-dir" --out "$tmp/x.jsonl" 2>/dev/null
    [ $? -ne 0 ] && ok || no "synth --exclude with a missing folder succeeded"
    "$P" synth --count 4 --seed 1 --no-progress --exclude "$SUITE" --exclude "$tmp/no-such-dir" --out "$tmp/x.jsonl" 2>/dev/null
    [ $? -ne 0 ] && ok || no "synth with a missing second --exclude folder succeeded"
else
    echo "SKIPPED: synth held-out checks need ptxas (not found)"
fi

if command -v nvcc >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; then
    out=$(PTXGEN="$P" bash "$SUITE/run_baseline.sh" --dry-run 2>&1)
    good=$(echo "$out" | grep -c "static ok")
    echo "$out" | grep -v "static ok"
    [ "$good" -eq "$n" ] && ok || no "$good of $n suite tasks pass the static checks with reference.cu as the kernel"
    out=$(PTXGEN="$P" bash "$PROSE/run_baseline.sh" --dry-run 2>&1)
    good=$(echo "$out" | grep -c "static ok")
    echo "$out" | grep -v "static ok"
    [ "$good" -eq "$n2" ] && ok || no "$good of $n2 prose suite tasks pass the static checks with reference.cu as the kernel"
else
    echo "SKIPPED: static suite checks need nvcc (not found)"
fi
echo "suite-heldout: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
