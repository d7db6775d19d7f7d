import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import json, collections, re, statistics as S
rows = [r for r in json.load(open("agg.json")) if r["set"] in ("suite", "heldin") and r.get("roots") is not None and r["cause"] not in ("cut",)]
for r in rows:
    r["faithful"] = not r["roots"] and not r["extras"]
print("rows with target (not cut):", len(rows), "faithful:", sum(r["faithful"] for r in rows), "correct:", sum(r["stage"] == "correct" for r in rows))
print("faithful & correct", sum(r["faithful"] and r["stage"]=="correct" for r in rows), "faithful & not correct", sum(r["faithful"] and r["stage"]!="correct" for r in rows),
      "causes of faithful-not-correct", collections.Counter(r["cause"] for r in rows if r["faithful"] and r["stage"]!="correct"))
def bins(key, edges):
    print(f"\n| {key} | rows | faithful | rate | correct |"); print("|---|---|---|---|---|")
    for lo, hi in zip(edges, edges[1:]):
        s = [r for r in rows if lo <= r[key] < hi]
        if s: print(f"| {lo}-{hi-1} | {len(s)} | {sum(r['faithful'] for r in s)} | {100*sum(r['faithful'] for r in s)/len(s):.0f}% | {sum(r['stage']=='correct' for r in s)} |")
bins("target_stmts", [0, 25, 50, 75, 100, 150, 250, 2000])
bins("tokens", [0, 500, 1000, 1500, 2000, 3000, 9000])
bins("plan_lines", [0, 5, 10, 15, 20, 30, 200])
print("\n| idiom in plan | rows | faithful rate | without: rows | faithful rate |"); print("|---|---|---|---|---|")
for k in ["reinterpret_cast", "vec-type", "shfl", "syncthreads", "atomic", "shared", "pragma-unroll", "math", "ternary", "half/bf16", "while", "grid-stride"]:
    a = [r for r in rows if k in r["idioms"]]; b = [r for r in rows if k not in r["idioms"]]
    if a: print(f"| {k} | {len(a)} | {100*sum(r['faithful'] for r in a)/len(a):.0f}% | {len(b)} | {100*sum(r['faithful'] for r in b)/len(b):.0f}% |")
print("\nop_ratio (opcode-sequence similarity to nvcc's, difflib):")
for lab, s in [("faithful", [r for r in rows if r["faithful"]]), ("deviating", [r for r in rows if not r["faithful"]]), ("ptx-deviates", [r for r in rows if r["cause"] == "ptx-deviates"])]:
    v = sorted(r["op_ratio"] for r in s); lr = sorted(r["line_ratio"] for r in s)
    print(lab, len(s), "median op_ratio", v[len(v)//2], "p25", v[len(v)//4], "min", v[0], "| median line_ratio", lr[len(lr)//2], "p25", lr[len(lr)//4],
          "| op_ratio>=0.9:", sum(x >= 0.9 for x in v), "| <0.7:", sum(x < 0.7 for x in v))
print("by family: faithful/rows")
fam = collections.defaultdict(list)
for r in rows: fam[r["family"]].append(r["faithful"])
print(", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in sorted(fam.items(), key=lambda kv: -len(kv[1]))))
print("by style:")
st = collections.defaultdict(list)
for r in rows: st[r["style"]].append(r["faithful"])
print(", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in st.items()))
print("multidef gen>ref:", sum(r["multidef"][0] > r["multidef"][1] for r in rows if not r["faithful"]), "of", sum(not r["faithful"] for r in rows), "; faithful:", sum(r["multidef"][0] > r["multidef"][1] for r in rows if r["faithful"]), "of", sum(r["faithful"] for r in rows))
