"""The plan-correct end-to-end failures, one row each (section 3): reads agg.json and failures.py's
re-run JSONs new6-e2e-suite.json / new6-heldin.json in the working directory."""
import json, collections, os
exec(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sum2.py")).read().split("sel = ")[0])
rows = json.load(open("agg.json"))
new = {}
for f in ["new6-e2e-suite.json", "new6-heldin.json"]:
    if os.path.exists(f):
        for r in json.load(open(f)): new[("heldin" if "heldin" in f else "suite", r["case"])] = r["cause"]
sel = [r for r in rows if r["set"] != "prose" and r["plan_run"] == "correct" and r["stage"] != "correct"]
print("| set | case | verdict | cause | tokens | op_ratio | mechanisms (root deviations) |")
print("|---|---|---|---|---|---|---|")
c = collections.Counter()
for r in sel:
    gs = collections.Counter(group(d["mech"]) for d in r["roots"]) if r.get("roots") is not None else {}
    ex = sum(1 for e in r.get("extras") or [] if not e["has_same_op"])
    ms = ", ".join(f"{k} {v}" for k, v in gs.items()) + (f", invented {ex}" if ex else "")
    print(f"| {r['set']} | {r['case'].replace('.no_bias.0','')} | {r['stage']} | {new.get((r['set'], r['case']), r['cause'])} | {r['tokens']} | {r.get('op_ratio')} | {ms} |")
    c[(r["set"], "only-reg" if gs and all(k.startswith("register") for k in gs) else "any-reg" if any(k.startswith("register") for k in gs) else "no-reg")] += 1
print(c)
