import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import re, json, collections, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dev
W = {"f32": 4, "u32": 4, "s32": 4, "b32": 4, "f16": 2, "b16": 2, "u16": 2, "s16": 2, "f64": 8, "u64": 8, "s64": 8, "b64": 8, "u8": 1, "s8": 1, "b8": 1}
def mismatches(text):
    defs = {}; out = []
    for line, st in dev.F.parse_literate(text):
        p = dev.parse_stmt(st)
        op = p["op"]
        m = re.match(r"^(ld|st)\.global(?:\.nc)?(?:\.v(\d))?\.(\w+)$", op)
        if m:
            addr = p["ops"][1] if m.group(1) == "ld" else p["ops"][0]
            a = re.match(r"^\[(%rd\d+)(?:\+(\d+))?\]$", addr)
            if a and a.group(1) in defs:
                d = defs[a.group(1)]
                if d["op"] == "add.s64":
                    for o in d["ops"][1:]:
                        s = defs.get(o)
                        if s and re.match(r"mul\.wide\.[su]32", s["op"]) and re.fullmatch(r"\d+", s["ops"][2]):
                            want = W.get(m.group(3), 0) * int(m.group(2) or 1)
                            sc = int(s["ops"][2])
                            if want and sc != want and sc in (1, 2, 4, 8, 16) and want not in (0,):
                                out.append((line, st, s["op"] + " " + ",".join(s["ops"]), sc, want))
        if p["ops"] and op != "label" and dev.dests(p):
            for r in re.findall(r"%\w+", p["ops"][0]):
                defs[r] = p
    return out
rows = json.load(open("agg.json"))
cnt = collections.Counter()
for r in rows:
    if r.get("roots") is None: continue
    kd, pd = ("heldin", "heldin-plan") if r["set"] == "heldin" else ("e2e", "plan")
    g = mismatches(open(f"gen-plan/{kd}/{r['case']}.ptx").read()); t = mismatches(open(f"lit/{pd}/{r['case']}.ptx").read())
    if len(g) > len(t):
        cnt[(r["set"], r["cause"])] += 1
        print(r["set"], r["case"], r["cause"], g[0][1], "|", g[0][2], "scale", g[0][3], "want", g[0][4])
print(cnt)
