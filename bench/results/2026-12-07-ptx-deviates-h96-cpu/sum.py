import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import json, collections, statistics as S
rows = json.load(open("agg.json"))
def mech(d):
    m = d["mech"]
    return m
def show(sel, title):
    print("==", title, len(sel))
    first = collections.Counter(); anyc = collections.Counter(); allc = collections.Counter()
    for r in sel:
        roots = r.get("roots")
        if roots is None:
            first["(no target)"] += 1; continue
        ex = r["extras"]
        if not roots and not ex:
            first["(no root found)"] += 1
        elif roots:
            first[mech(roots[0])] += 1
        else:
            first["extra statement only"] += 1
        for m in set(mech(d) for d in roots): anyc[m] += 1
        for d in roots: allc[mech(d)] += 1
        if ex: anyc["+extra statement"] += 1
        allc["+extra statement"] += len(ex)
    print(" first root:"); [print("   %3d %s" % (v, k)) for k, v in first.most_common()]
    print(" kernels with:"); [print("   %3d %s" % (v, k)) for k, v in anyc.most_common()]
    print(" all roots:"); [print("   %3d %s" % (v, k)) for k, v in allc.most_common()]
sel = [r for r in rows if r["set"] == "suite" and r["cause"] == "ptx-deviates"]
show(sel, "suite ptx-deviates")
show([r for r in rows if r["set"] == "heldin" and r["cause"] == "ptx-deviates"], "heldin ptx-deviates")
show([r for r in rows if r["set"] == "prose" and r["cause"] == "ptx-deviates"], "prose ptx-deviates")
show([r for r in rows if r["plan_run"] == "correct" and r["stage"] != "correct" and r["set"]!="prose"], "plan correct, kernel not (suite+heldin)")
show([r for r in rows if r["stage"] == "correct"], "correct kernels")
