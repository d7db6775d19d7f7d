"""Value-numbering comparison of a model's literate PTX with nvcc's literate PTX of the same plan."""
import collections, difflib, hashlib, json, os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "train"))
import failures as F

COMM = ("add.", "mul.", "min.", "max.", "and.", "or.", "xor.", "fma.", "mad.", "mul24.", "mad24.")
REGRE = re.compile(r"^%[a-z]+\d+$")
SPECIAL = re.compile(r"^%(tid|ntid|ctaid|nctaid|laneid|warpid|clock|lanemask)")


def split_ops(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip()); cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_stmt(st):
    st = st.rstrip(";").strip()
    guard = None
    m = re.match(r"^@(!?%\w+)\s+(.*)$", st)
    if m:
        guard, st = m.group(1), m.group(2)
    if st.endswith(":"):
        return dict(op="label", guard=None, ops=[st[:-1]])
    parts = st.split(None, 1)
    op = parts[0]
    ops = split_ops(parts[1]) if len(parts) > 1 else []
    return dict(op=op, guard=guard, ops=ops)


def norm_op(op, ops):
    m = re.match(r"^(add|sub|mul\.lo|mad\.lo|mul\.wide|mul\.hi)\.[su](16|32|64)$", op)
    if m and m.group(1) in ("add", "sub", "mul.lo", "mad.lo"):
        op = f"{m.group(1)}.i{m.group(2)}"
    m = re.match(r"^mov\.[usb](16|32|64)$", op)
    if m:
        op = f"mov.b{m.group(1)}"
    return op


def immval(t):
    t = t.strip()
    if re.fullmatch(r"0[fF][0-9a-fA-F]{8}", t) or re.fullmatch(r"0[dD][0-9a-fA-F]{16}", t):
        return "F" + t[2:].upper()
    m = re.fullmatch(r"(-?(?:0[xX][0-9a-fA-F]+|\d+))U?", t)
    if m:
        return "I" + str(int(m.group(1), 0) & 0xFFFFFFFFFFFFFFFF)
    return None


def dests(p):
    op = p["op"]
    if op == "label" or op.startswith(("st.", "red.", "bar", "bra", "ret", "membar", "fence", "prefetch", "trap", "exit")):
        return 0
    if op.startswith("setp") or op.startswith("shfl") or op.startswith("atom") or op.startswith("vote"):
        return 1
    return 1 if p["ops"] else 0


def H(*xs):
    return hashlib.md5(repr(xs).encode()).hexdigest()[:12]


class Prog:
    """Value numbering in linear order.  vals: list of dict(idx, line, op, hash, srcs, kind) per instruction."""

    def __init__(self, text):
        self.stmts = F.parse_literate(text)
        self.cur = {}          # reg -> value hash
        self.defs = collections.Counter()
        self.undef_reads = []  # (idx, reg)
        self.instrs = []
        self.hist, self.held = {}, {}
        self.hash2instr = {}
        for i, (line, st) in enumerate(self.stmts):
            p = parse_stmt(st)
            p["line"], p["text"], p["idx"] = line, st, i
            if p["op"] == "label":
                p["hash"] = None; self.instrs.append(p); continue
            op = norm_op(p["op"], p["ops"])
            nd = dests(p)
            ops = list(p["ops"])
            dst = ops[:nd]
            srcs = ops[nd:]
            if op.startswith("bra"):
                srcs = []   # label names differ
            sh = [self.sig(s, i) for s in srcs]
            if op.startswith(COMM) and not op.startswith(("sub", "mul.wide")) or op.startswith("mul.wide"):
                k = 2 if len(sh) >= 2 else len(sh)
                sh = sorted(sh[:k]) + sh[k:]
            g = self.sig(p["guard"].lstrip("!"), i) + ("!" if p["guard"].startswith("!") else "") if p["guard"] else None
            mm = re.match(r"^mul\.lo\.i(32|64)$", op)
            if mm and len(srcs) == 2 and immval(srcs[1]) and immval(srcs[1]).startswith("I"):
                v = int(immval(srcs[1])[1:])
                if v > 0 and v & (v - 1) == 0:
                    op, sh = f"shl.b{mm.group(1)}", [sh[0], "I" + str(v.bit_length() - 1)]
            if op.startswith("ld.param"):
                h = H("param", srcs[0])
            elif op.startswith("mov.") and len(sh) == 1 and not g and not dst[0].startswith("{"):
                h = sh[0]   # copy propagation
            else:
                h = H(op, tuple(sh), g)
            p["nop"], p["hash"], p["srcsig"], p["guardsig"] = op, h, sh, g
            p["dst"], p["srcs"] = dst, srcs
            p["srcregs"] = [x.strip() if REGRE.match(x.strip()) else (re.match(r"^\[(%\w+)", x.strip()).group(1) if re.match(r"^\[(%\w+)", x.strip()) else None) for x in srcs]
            for d in dst:
                regs = [x.strip() for x in re.split(r"[{},|]", d) if x.strip().startswith("%")]
                for k, r in enumerate(regs):
                    self.defs[r] += 1
                    self.cur[r] = H(h, k) if len(regs) > 1 else h
                    self.hist.setdefault(r, []).append((i, self.cur[r]))
                    self.held.setdefault(self.cur[r], []).append((i, r))
            self.instrs.append(p)

    def sig(self, s, i):
        s = s.strip()
        if s.startswith("["):
            inner = s[1:-1]
            m = re.match(r"^(%?\w+)\s*(?:\+\s*(-?\d+))?$", inner)
            if m:
                base = self.sig(m.group(1), i) if m.group(1).startswith("%") else "S" + m.group(1)
                return H("addr", base, int(m.group(2) or 0))
            return "A" + inner
        if s.startswith("{"):
            return H("vec", tuple(self.sig(x, i) for x in s[1:-1].split(",")))
        if "|" in s:
            return H("pair", tuple(self.sig(x, i) for x in s.split("|")))
        v = immval(s)
        if v:
            return v
        if SPECIAL.match(s):
            return s
        if REGRE.match(s):
            if s not in self.cur:
                self.undef_reads.append((i, s))
                return "U" + s
            return self.cur[s]
        return "S" + s


def is_sink(p):
    return p["op"].startswith(("st.", "atom", "red.")) or (p["op"].startswith("bra") and p.get("guardsig"))


def value_at(prog, reg, i):
    v = None
    for j, h in prog.hist.get(reg, []):
        if j < i:
            v = h
    return v

MATH = re.compile(r"\b(expf?|exp2f?|expm1f?|logf?|log2f?|log1pf?|tanhf?|erff?|erfcf?|sinf?|cosf?|powf?|rsqrtf?|__expf|__logf|sigmoid|softplus|normcdff?)\s*\(")


def base_op(op):
    """opcode without type suffixes: 'add.f32' -> 'add', 'cvt.rn.f32.f64' -> 'cvt.rn', 'ld.global.nc.f32' -> 'ld.global.nc'."""
    return ".".join(x for x in op.split(".") if not re.fullmatch(r"[subf]\d+|f16x2|bf16x2|v[24]|pred", x))


def diagnose(ref, gen):
    """Root deviations: ref instructions whose value is missing in gen though all their inputs exist in gen."""
    gh = collections.Counter(p["hash"] for p in gen.instrs if p["hash"])
    gvals = set(gh)
    for r, hl in gen.hist.items():
        gvals.update(h for _, h in hl)
    rvals = set(p["hash"] for p in ref.instrs if p["hash"])
    for r, hl in ref.hist.items():
        rvals.update(h for _, h in hl)
    out = []
    for p in ref.instrs:
        if not p["hash"] or p["hash"] in gh:
            continue
        ins = [s for s in p["srcsig"] + ([p["guardsig"].rstrip("!")] if p["guardsig"] else [])]
        if not all(s in gvals or s[0] in "IFSAU%" or len(s) != 12 for s in ins):
            continue   # propagated: an input already deviates
        out.append(classify(p, ref, gen, gvals, rvals))
    return out


def classify(p, ref, gen, gvals, rvals):
    line = p["line"]
    same_line = [q for q in gen.instrs if q["hash"] and q["line"] == line]
    cands = [q for q in same_line if q["nop"] == p["nop"] and len(q["srcsig"]) == len(p["srcsig"])] or \
            [q for q in gen.instrs if q["hash"] and q["nop"] == p["nop"] and len(q["srcsig"]) == len(p["srcsig"])]
    ctx = "math" if MATH.search(line) else ""
    d = dict(line=line, ref=p["text"], ctx=ctx)
    if cands:
        def score(q):
            return sum(a == b for a, b in zip(p["srcsig"], q["srcsig"])) + (q["guardsig"] == p["guardsig"])
        q = max(cands, key=score)
        d["gen"] = q["text"]
        diffs = [k for k, (a, b) in enumerate(zip(p["srcsig"], q["srcsig"])) if a != b]
        if not diffs and q["guardsig"] != p["guardsig"]:
            d["mech"] = "predicate"
            return d
        if len(diffs) > 1 and p["nop"].startswith(COMM):
            pass
        k = diffs[0] if diffs else 0
        a, b = p["srcsig"][k], q["srcsig"][k] if diffs else (None, None)
        rs, gs = p["srcs"][k] if k < len(p["srcs"]) else "", q["srcs"][k] if k < len(q["srcs"]) else ""
        if len(diffs) >= 1 and rs.strip().startswith("[") or gs.strip().startswith("["):
            # address operand: base register or offset
            mr, mg = re.match(r"^\[(%?\w+)\s*(?:\+\s*(-?\d+))?\]$", rs.strip()), re.match(r"^\[(%?\w+)\s*(?:\+\s*(-?\d+))?\]$", gs.strip())
            if mr and mg and (mr.group(2) or "0") != (mg.group(2) or "0"):
                d["mech"] = "address: offset"
                return d
            d["mech"] = "address: base " + reg_why(p, q, k, ref, gen, gvals, rvals)
            return d
        if a and (a[0] in "IF") or (b and b[0] in "IF"):
            d["mech"] = "immediate" if not (a and a[0] == "F" or b and b[0] == "F") else "float literal"
            if a and b and not (a[0] in "IF" and b[0] in "IF"):
                d["mech"] = "register vs immediate"
            return d
        if a and SPECIAL.match(a) or b and SPECIAL.match(b):
            d["mech"] = "special register"
            return d
        d["mech"] = "operand: " + reg_why(p, q, k, ref, gen, gvals, rvals)
        return d
    # no same-opcode instruction: type/width or dropped
    bo = base_op(p["nop"])
    tw = [q for q in same_line if base_op(q["nop"]) == bo]
    if tw:
        d["gen"] = tw[0]["text"]
        d["mech"] = "type/width"
        return d
    d["mech"] = "dropped statement"
    return d


def reg_why(p, q, k, ref, gen, gvals, rvals):
    """Why gen's k-th source holds another value than ref's."""
    want = p["srcsig"][k]
    greg = q["srcregs"][k] if k < len(q["srcregs"]) else None
    if greg is None:
        return "(other)"
    got = value_at(gen, greg, q["idx"])
    if got is None:
        return "read-before-write"
    holders = [(j, r) for j, r in gen.held.get(want, []) if j < q["idx"]]
    if not holders:
        if want not in gvals:
            return "value never computed"
        return "value computed later"
    if any(value_at(gen, r, q["idx"]) == want for j, r in holders):
        # the wanted value is still in a register: the model named another register
        if got in rvals:
            return "wrong register (holds another value of the target)"
        return "wrong register (holds a value the target never computes)"
    return "clobbered (register rewritten while live)"


def extras(ref, gen):
    """Gen's root insertions: instructions whose value the target never computes though all their inputs are target values."""
    rh = set(p["hash"] for p in ref.instrs if p["hash"])
    rvals = set(rh)
    for r, hl in ref.hist.items():
        rvals.update(h for _, h in hl)
    out = []
    for q in gen.instrs:
        if not q["hash"] or q["hash"] in rh or q["nop"].startswith("bra"):
            continue
        ins = q["srcsig"] + ([q["guardsig"].rstrip("!")] if q["guardsig"] else [])
        if all(s in rvals or len(s) != 12 for s in ins):
            same = [p for p in ref.instrs if p["hash"] and p["line"] == q["line"] and p["nop"] == q["nop"]]
            out.append(dict(line=q["line"], gen=q["text"], has_same_op=bool(same)))
    return out
