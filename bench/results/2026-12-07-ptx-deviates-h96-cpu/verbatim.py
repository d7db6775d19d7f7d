"""How many of the model's statements are verbatim nvcc's (same register numbers), by cause (section 4)."""
import json, collections, sys, os
import dev
rows = json.load(open("agg.json"))
def body(p):
    return [st for _, st in dev.F.parse_literate(open(p).read())]
res = collections.defaultdict(list)
for r in rows:
    if r.get("roots") is None or r["set"] == "prose": continue
    kd, pd = ("heldin", "heldin-plan") if r["set"] == "heldin" else ("e2e", "plan")
    g, t = body(f"gen-plan/{kd}/{r['case']}.ptx"), body(f"lit/{pd}/{r['case']}.ptx")
    verb = sum((collections.Counter(g) & collections.Counter(t)).values()) / max(1, len(g))
    res["correct" if r["stage"] == "correct" else r["cause"]].append((g == t, verb))
for k, v in res.items():
    vs = sorted(x[1] for x in v)
    print(k, len(v), "text-identical", sum(x[0] for x in v), "median verbatim share %.2f" % vs[len(vs)//2], "p25 %.2f" % vs[len(vs)//4])
