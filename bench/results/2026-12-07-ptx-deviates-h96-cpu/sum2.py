import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import json, collections, re, statistics as S, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dev
rows = json.load(open("agg.json"))
def group(m):
    if m.startswith("operand") or m.startswith("address: base"):
        return "register naming (" + ("clobbered" if "clobber" in m else "computed later" if "later" in m else "read-before-write" if "read-before" in m else "other value") + ")"
    if m in ("register vs immediate", "immediate", "float literal", "address: offset"): return "constant/immediate/offset"
    return m
def role(d):
    t = d["ref"]; op = t.split()[0] if not t.startswith("@") else t.split()[1]
    if d.get("ctx") == "math": return "math-fn expansion"
    if re.match(r"(shfl|bar|atom|red|ld\.shared|st\.shared|membar)", op) or ".shared" in op: return "shared/shfl/atomic/barrier"
    if re.match(r"(setp|bra|selp|and\.pred|or\.pred|not\.pred)", op): return "predicate/branch/loop"
    if re.match(r"(cvt\.[us]64\.[us]32|mul\.wide|cvta|shl\.b64|mul\.lo\.[su]64|add\.s64|sub\.s64|mad\.wide|ld\.param|mov\.u64)", op) or "[" in t: return "address/index arithmetic"
    if re.match(r"(ld|st)\.", op): return "load/store"
    return "arithmetic"
sel = [r for r in rows if r["cause"] == "ptx-deviates" and r["set"] in ("suite", "heldin") and r.get("roots") is not None]
print("n", len(sel))
tab = collections.Counter(); first = collections.Counter(); kern = collections.Counter()
for r in sel:
    ms = set()
    for i, d in enumerate(r["roots"]):
        g, ro = group(d["mech"]), role(d)
        tab[(ro, g)] += 1; ms.add(g)
        if i == 0: first[(ro, g)] += 1
    for g in ms: kern[g] += 1
    if any(not e["has_same_op"] for e in r["extras"]): kern["invented statement (no such opcode in the target's line)"] += 1
roles = sorted({k[0] for k in tab}); groups = sorted({k[1] for k in tab})
print("| first root: role \\ mechanism | " + " | ".join(groups) + " | all |")
for ro in roles:
    print(f"| {ro} | " + " | ".join(str(first[(ro, g)]) for g in groups) + f" | {sum(first[(ro, g)] for g in groups)} |")
print("| all | " + " | ".join(str(sum(first[(ro, g)] for ro in roles)) for g in groups) + f" | {sum(first.values())} |")
print()
print("| all roots: role \\ mechanism | " + " | ".join(groups) + " | all |")
for ro in roles:
    print(f"| {ro} | " + " | ".join(str(tab[(ro, g)]) for g in groups) + f" | {sum(tab[(ro, g)] for g in groups)} |")
print("| all | " + " | ".join(str(sum(tab[(ro, g)] for ro in roles)) for g in groups) + f" | {sum(tab.values())} |")
print("kernels with:", kern.most_common())
print("no roots:", sum(1 for r in sel if not r["roots"]), "no roots/no extras", sum(1 for r in sel if not r["roots"] and not r["extras"]))
