#!/usr/bin/env bash
# smoke.sh — the differential fuzzer's part of `make test` (issue 30):
#  1. the regression cases tests/ptx/valid/diff_*.ptx and tests/ptx/invalid/diff_*.ptx
#     (libptx and, when it is there, ptxas must both accept / both reject);
#  2. a short fixed-seed run (SMOKE_PROGRAMS programs, seed 30, sm_70/sm_80/sm_90).
# Every disagreement of the run must be fixed, documented in known.txt (deliberate),
# or listed in open.txt (found, not fixed yet); a kind on neither list fails.  The run
# cannot pass vacuously: it fails when no check ran or ptxas accepted no program.
# Without ptxas, part 2 is SKIPPED (with a message) and part 1 runs the libptx side.
set -u
cd "$(dirname "$0")/../.."
BUILD=${PTXGEN_BUILD:-build}
DP=$BUILD/diff_ptxas
N=${SMOKE_PROGRAMS:-1500}
[ -x "$DP" ] || { echo "smoke.sh: $DP missing"; echo "0 passed, 1 failed"; exit 1; }
pass=0; fail=0
cases=$(ls tests/ptx/valid/diff_*.ptx tests/ptx/invalid/diff_*.ptx 2>/dev/null)
if [ -n "$cases" ]; then
    # shellcheck disable=SC2086
    out=$("$DP" --regress $cases); rc=$?
    echo "$out" | grep -v '^$'
    line=$(echo "$out" | grep -E '^regression cases: [0-9]+ passed' | tail -n1)
    p=$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+'); f=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
    pass=$((pass + ${p:-0})); fail=$((fail + ${f:-1}))
    [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ] && fail=$((fail + 1))
else
    echo "FAIL: no regression cases tests/ptx/{valid,invalid}/diff_*.ptx"; fail=$((fail + 1))
fi
j=$(mktemp); trap 'rm -f "$j"' EXIT
out=$("$DP" --seed 30 --programs "$N" --known tests/diff_ptxas/known.txt --no-reduce --quiet --json "$j" 2>&1)
if echo "$out" | grep -q '^SKIPPED'; then
    echo "diff_ptxas fixed-seed run: SKIPPED (ptxas not found: set PTXAS or CUDA_HOME); regression cases checked on the libptx side only"
else
    echo "$out" | grep '^diff_ptxas:'
    res=$(python3 - "$j" tests/diff_ptxas/open.txt <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
opened = set(l.rstrip("\n") for l in open(sys.argv[2]) if l.strip() and not l.startswith("#"))
t = j["total"]
bad = 0
if t["checks"] == 0 or t["both_accept"] == 0 or t["both_reject"] == 0:
    print("FAIL: vacuous run (%d checks, %d accepted by both, %d rejected by both)" % (t["checks"], t["both_accept"], t["both_reject"]))
    bad += 1
seen = set()
for d in j["disagreements"]:
    seen.add(d["key"])
    if d["key"] not in opened:
        print("FAIL: new disagreement (%s x%d on %s): %s\n  libptx: %s | ptxas: %s\n%s" % (d["direction"], d["count"], d["target"], d["key"],
              d["libptx"], d["ptxas"], d.get("example", "")[-600:]))
        bad += 1
known_open = sum(d["count"] for d in j["disagreements"] if d["key"] in opened)
print("open (listed in open.txt, not fixed yet): %d kinds, %d checks; fixed since listed: %d kinds" %
      (len(seen & opened), known_open, len(opened - seen)))
print("RESULT %d %d" % (t["both_accept"] + t["both_reject"] + t["documented"], bad))
PY
)
    echo "$res" | grep -v '^RESULT'
    r=$(echo "$res" | grep '^RESULT')
    if [ -z "$r" ]; then fail=$((fail + 1)); else
        pass=$((pass + $(echo "$r" | cut -d' ' -f2))); fail=$((fail + $(echo "$r" | cut -d' ' -f3)))
    fi
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
