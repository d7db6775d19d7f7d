#!/usr/bin/env python3
"""Share of synth prose descriptions that state a fact, per family (h114).
Input: JSON lines from dump.c ({"family":..., "task": task.json}).  The truth of each fact comes
from the task's family_params / params / name; a fact counts as stated when its detector matches
the prose.  Usage: measure.py dump.jsonl [style]"""
import json, re, sys, collections

style = sys.argv[2] if len(sys.argv) > 2 else "prose"
by = collections.defaultdict(list)
for l in open(sys.argv[1]):
    o = json.loads(l)
    by[o["family"]].append(o["task"])

def pval(t, name):
    for p in t["params"]:
        if p["name"] == name:
            return p.get("value")
    return None

def rx(p):
    return lambda s: re.search(p, s, re.I) is not None

FACTS = []  # (family, fact, applies(task) -> detector or None)
def fact(fam, name):
    def deco(fn):
        FACTS.append((fam, name, fn))
        return fn
    return deco

@fact("quantize", "multiply or divide by the scale (quantize)")
def _(t):
    fp = t["family_params"]
    if fp["dequant"]: return None
    return rx(r"multipl|\btimes\b|\*|乘") if fp["mult"] else rx(r"divid|\bover\b|/|除")
@fact("quantize", "rounding rule: ties to even / away (quantize)")
def _(t):
    fp = t["family_params"]
    if fp["dequant"]: return None
    return rx(r"away|远离") if fp["away"] else rx(r"even|偶")
@fact("quantize", "saturation range lo..hi (quantize)")
def _(t):
    fp = t["family_params"]
    if fp["dequant"]: return None
    lo, hi = str(fp["lo"]), str(fp["hi"])
    num = lambda v: r"(?<![\d])(?<!\d\.)" + re.escape(v) + r"(?!\d)(?!\.\d)"
    return lambda s: re.search(num(lo), s) and re.search(num(hi), s)
@fact("quantize", "multiply by the scale (dequantize)")
def _(t):
    return rx(r"multipl|\btimes\b|\*|乘") if t["family_params"]["dequant"] else None
@fact("quantize", "zero point subtracted/added (when there is one)")
def _(t):
    fp = t["family_params"]
    if not fp.get("zp"): return None
    return rx(r"zero[ _-]?point|零点|\b" + re.escape(fp["zp"]) + r"\b")
@fact("complex", "storage: interleaved pairs / separate re and im arrays, with real names")
def _(t):
    names = [p["name"] for p in t["params"] if p["type"].endswith("*")]
    if any(n.endswith("_re") for n in names):
        re_names = [n for n in names if n.endswith("_re")]
        return lambda s: "NAME" not in s and all(n in s for n in re_names)
    return rx(r"interleav|2k|2n|pair|back to back|交错")
@fact("nbody", "position layout (xyz triples / 4 per particle / 3 arrays)")
def _(t):
    lay = t["family_params"]["layout"]
    if lay == "aos4": return rx(r"\bfour\b|\b4 (values|floats|doubles|numbers)|4i|4\*N|float4|double4|x, y, z(,| and| then)|4 个值|4 consecutive")
    if lay == "aos3": return rx(r"triple|\bthree (values|floats|doubles|numbers|coordinates)|3i|3\*N|xyz|x, ?y, ?z|三元组|三个值")
    return rx(r"separate|own arrays?|three arrays|3 arrays|one array (per|for each)|三个数组")
@fact("nbody", "LJ: r^2 clamped at (sigma/2)^2")
def _(t):
    return rx(r"sigma\^2/4|sigma/2|half (of )?sigma|sigma \* 0\.5|sigma\*0\.5|sigma 的一半") if t["family_params"]["op"].startswith("lj") else None
@fact("nbody", "LJ energy: shifted to zero at the cutoff")
def _(t):
    fp = t["family_params"]
    if not (fp["op"] == "lj_energy" and fp["shifted"]): return None
    return rx(r"shift|value at the cutoff|zero at the cutoff|平移")
@fact("rownorm", "output stored as 16-bit (f16/bf16 data)")
def _(t):
    fp = t["family_params"]
    if fp["dtype"] not in ("f16", "bf16"): return None
    return rx(r"half|f16|fp16|16-bit|bf16|bfloat|半精度")
@fact("rownorm", "in place (x == y)")
def _(t):
    fp = t["family_params"]
    if fp["x"] != fp["y"]: return None
    return rx(r"in place|overwrite|原地|itself")
@fact("reduce", "tile (piece) size as a number (per-tile outputs, not atomics)")
def _(t):
    if t["family_params"].get("atomic"): return None
    return lambda s: re.search(r"(?<!\d)%d(?!\d)" % t["family_params"]["tile"], s)
@fact("stencil_bc", "boundary rule")
def _(t):
    b = t["family_params"]["boundary"]
    pat = {"reflect": r"reflect|mirror|镜像|反射", "copy": r"cop(y|ied)|unchanged|keep|复制|不变", "clamp": r"clamp|edge|repeat|nearest|钳",
           "zero": r"zero|0|零", "periodic": r"wrap|periodic|torus|周期"}.get(b, b)
    return rx(pat)
@fact("stencil2d", "boundary rule")
def _(t):
    b = t["family_params"]["boundary"]
    pat = {"copy": r"cop(y|ied)|unchanged|keep|as (it is|is)|复制|不变", "clamp": r"clamp|edge|repeat|nearest|钳",
           "zero": r"zero|\b0\b|零", "skip": r"skip|untouched|not written|leave|不写"}.get(b, b)
    return rx(pat)
@fact("bias_act", "bias axis (per column / per row)")
def _(t):
    n = t["name"]
    if "cbias" in n or "colbias" in n: return rx(r"column|per-feature|列")
    if "rbias" in n or "rowbias" in n: return rx(r"\brow\b|per row|行")
    return None
@fact("optimizer", "state updated in place")
def _(t):
    return rx(r"in place|overwrit|原地|stored back|updated|update[sd]? \w+ in|\w\[i\] [-+*/]?= ")
@fact("histogram", "counts added to the existing counters")
def _(t):
    return rx(r"existing|not overwrite|on top|already|accumulat|add the counts|adds? (the|its) counts|累加|不清零")
@fact("loss", "result added to the existing value (accumulating forms)")
def _(t):
    n = t["name"]
    if not re.search(r"_(sum|mean)_", n): return None
    return rx(r"already|existing|accumulat|add (the|its)|adds? .* to|累加")

rows = []
for fam, name, fn in FACTS:
    app = st = 0
    for t in by.get(fam, []):
        det = fn(t)
        if det is None: continue
        app += 1
        if det(t["descriptions"][style]): st += 1
    rows.append((fam, name, app, st))
for fam, name, app, st in rows:
    print("%s\t%s\t%d\t%d\t%.0f%%" % (fam, name, app, st, 100.0 * st / app if app else 0))
