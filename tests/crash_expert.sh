#!/usr/bin/env bash
# crash_expert.sh PTXGEN — expert iteration's data steps (train/expert_iter.py select, then
# pairs) in the working directory, on the round-1 fixture that `crash_expert.sh --fixture DIR`
# writes (generated kernels + a results document, as train/test_expert.py sets them up).
# tests/crash_resume.sh kills it at random points and compares what the steps wrote.
set -e
R=$(cd "$(dirname "$0")/.." && pwd)
if [ "$1" = --fixture ]; then
    python3 - "$2" "$R/corpus" <<'PY'
import json, os, sys
d, pool = sys.argv[1], sys.argv[2]
gen = os.path.join(d, "round-1", "gen")
os.makedirs(gen)
read = lambda t: open(os.path.join(pool, t, "kernel.ptx")).read()
files = {"relu.terse.no_bias.0.ptx": read("relu"), "relu.terse.no_bias.1.ptx": "// another comment\n" + read("relu"),
         "saxpy.card.no_bias.0.ptx": read("saxpy"), "vecadd.terse.no_bias.0.ptx": read("vecadd"),
         "vecadd.zh.no_bias.0.ptx": read("vecadd")}
for n, t in files.items():
    open(os.path.join(gen, n), "w").write(t)
row = lambda task, style, s, **kw: dict({"task": task, "dir": task, "family": "elementwise", "description": style,
                                        "config": "no_bias", "sample": s, "check": True, "ptxas": True, "correct": True,
                                        "last_stage": "correct"}, **kw)
doc = {"gpu_ran": True, "rows": [row("relu", "terse", 0, speedup=1.25), row("relu", "terse", 1), row("saxpy", "card", 0),
                                 row("vecadd", "terse", 0, speedup=0.9), row("vecadd", "zh", 0)]}
json.dump(doc, open(os.path.join(d, "round-1", "pool-eval.json"), "w"))
PY
    exit
fi
P=$1
for step in select pairs; do
    python3 "$R/train/expert_iter.py" "$step" --round 1 --work . --pool "$R/corpus" --base "$R/tests/gen/tiny" --ptxgen "$P" --no-reverify
done
