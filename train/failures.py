"""failures.py — why each failed kernel of a two-stage evaluation failed, from its eval JSON, without
a GPU (bench/results/2026-12-05-plan-round4-h100/FAILURES.md).

For every row of `ptxgen eval --kernels` JSON that has a kernel and is not correct:

  verdict    the funnel's last stage (check / ptxas / fault / wrong / timeout)
  runtime    what the harness said, by kind: illegal-address, misaligned, illegal-instruction,
             oob-write (past a buffer's guard zone), input-modified, no-write (outputs as uploaded),
             values (rel L2 over tolerance), nan
  cut        the PTX turn hit the token limit: generate.py closes the kernel (dec_force_end) once a row has
             more than MAX_NEW - 128 tokens, so such a kernel is finished but cut short; or the batch's
             deadline ended it ("finished": false in the kernel's .json), which the validator then refuses
  slips      static patterns at the places where the eval-time constraint refused the training target:
             pragma-slot (where nvcc's `.pragma "nounroll";` heads a loop, the constraint refused .pragma
             and the model wrote `popc.b32 %rN, %rN;` or a stray `.reg` declaration right after the label), expf-no-sat (nvcc's expf
             range reduction `cvt.sat.f32.f32` written without .sat), shared-renamed (a __shared__ array of
             the plan declared under another name)
  first_diff the first plan line (in the order of nvcc's literate PTX of the same plan: `ptxgen synth
             --literate-of`, the PTX-turn target synth makes) whose instructions differ from the model's,
             as opcodes missing (-) and extra (+); and/or/xor and atom/red keep their literal operands
             ('and.b64#252', 'atom.global.add.u32#1'), so another mask or a register where the plan adds 1
             is a difference, not a faithful translation
  refused    the first construct of that target the constraint of --lib refuses (what the model could
             never write at eval time)
  plan       end to end: what nvcc made of the model's plan (the plan stage's own .ptx): rejected, no-kernel
             (nothing but comments, as a plan cut at the plan turn's token limit can be) or compiled; ", unfinished"
             when the plan turn hit its token limit
  plan_run   end to end with --plan-eval (the plan stage's own eval report: each plan, compiled by nvcc,
             run against the task's reference): correct, wrong (compiled, then refused or wrong on the GPU)
             or unverified (no row, or a row that never reached the GPU)
  cause      one per row, the first that applies: syntax, cut, plan-rejected, plan-wrong (the plan ran
             wrong by --plan-eval, or the PTX follows its plan line for line by opcodes and the plan has no
             passing verdict: end to end only), pragma-slot, expf-no-sat, ptx-deviates (the PTX's opcodes
             differ from the target's; with --plan-eval, of a plan the harness passed: the PTX turn's own
             failure, also when every line has the target's opcodes — then its operands differ, first_diff
             null), unexplained
With --plan-eval the report also counts the end-to-end rows by their plan's verdict: given a plan the
harness passed, how many kernels the PTX turn got right (translation of the model's own plans).

    python3 train/failures.py --eval E.json --kernels GEN/trans --suite bench/suite [--plans GEN/plan [--plan-eval P.json]]
        [--max-new 6144] [--ptxgen build/ptxgen] [--lib build/libptxgen.so] [--json OUT.json] [--markdown OUT.md]
    python3 train/failures.py --targets SYNTH.jsonl --lib build/libptxgen.so   # which training targets can be written

--plans: the model's plans (<case>.cu), for end-to-end reports; without it each task's reference.cu is the
plan (translation).  Counts come only from the files named; nothing here runs a kernel.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from expert_iter import atomic_write  # noqa: E402  (train/, run as a script or imported by its test)

RUNTIME = [  # (kind, pattern in the harness's detail), first match wins
    ("illegal-address", r"ILLEGAL_ADDRESS"),
    ("misaligned", r"MISALIGNED_ADDRESS"),
    ("illegal-instruction", r"ILLEGAL_INSTRUCTION"),
    ("oob-write", r"out-of-bounds write"),
    ("input-modified", r"input buffer '[^']*' was modified"),
    ("no-write", r"did not run or write"),
    ("watchdog", r"watchdog"),
    ("copies-input", r"copies|equals an input"),
    ("constant", r"constant"),
    ("nan", r"[1-9][0-9]* NaNs"),
    ("values", r"rel L2"),
]
CAUSES = ["syntax", "cut", "plan-rejected", "plan-wrong", "pragma-slot", "expf-no-sat", "ptx-deviates", "unexplained"]


def write_atomic(path, text):
    """path gets text whole or not at all (expert_iter.atomic_write: a temp file beside it, fsync, rename)."""
    atomic_write(path, lambda f: f.write(text))


def runtime_kind(detail):
    for kind, pat in RUNTIME:
        if re.search(pat, detail or ""):
            return kind
    return "other"


def parse_literate(ptx):
    """[(plan line or '', statement)] of a literate kernel's body: each instruction, label or .pragma
    with the plan comment heading its block ('' before the first)."""
    out, cur, body = [], "", False
    for raw in ptx.splitlines():
        s = raw.strip()
        if not body:
            body = s == "{"
            continue
        if s == "}" or not s:
            continue
        if s.startswith("//"):
            cur = s[2:].strip()
            continue
        if s.startswith(".reg") or s.startswith(".shared") or s.startswith(".local"):
            continue
        out.append((cur, s))
    return out


def opcode(stmt):
    """The opcode with its modifiers ('ld.global.nc.v4.f32'), 'label' for a label, '.pragma' for one."""
    s = re.sub(r"^@!?%\w+\s+", "", stmt)
    if s.endswith(":"):
        return "label"
    return s.split()[0].rstrip(";") if s else ""


def same_op(op, stmt):
    """The opcode up to rewrites that compute the same bits: add/sub/mul.lo/mad.lo of .s32 and .u32 (.s64/.u64)
    are one operation in two's complement, and mul.lo by a power of two is shl (nvcc writes shl, the model
    sometimes mul.lo.u32: not a slip)."""
    m = re.match(r"^(add|sub|mul\.lo|mad\.lo)\.[su](32|64)$", op)
    if m:
        imm = re.search(r",\s*(\d+);$", stmt)
        if m.group(1) == "mul.lo" and imm and int(imm.group(1)) > 0 and int(imm.group(1)) & (int(imm.group(1)) - 1) == 0:
            return f"shl.b{m.group(2)}"
        return f"{m.group(1)}.i{m.group(2)}"
    return op


VALUE_OPS = ("and.", "or.", "xor.", "atom.", "red.")   # ops whose literal operands are the value itself: a mask, an increment


def literals(stmt):
    """The integer literals among a statement's operands outside [addresses], as numbers (0xFC == 252)."""
    body = re.sub(r"\[[^\]]*\]", "", re.sub(r"^@!?%\w+\s+", "", stmt).rstrip(";"))
    parts = body.split(None, 1)   # the opcode, then its operands (none for e.g. "ret")
    out = []
    for tok in parts[1].split(",") if len(parts) > 1 else []:
        m = re.fullmatch(r"\s*(-?(?:0[xX][0-9a-fA-F]+|\d+))U?\s*", tok)
        if m:
            out.append(int(m.group(1), 0))
    return out


def ops_by_line(stmts):
    """plan line -> Counter of opcodes (labels and pragmas left out: they are not computation), up to same_op.
    Masks and atomic operands keep their literals ('and.b64#252'): a kernel with nvcc's opcodes but another
    mask, or an atomic adding a register where the plan adds 1, does not follow its plan."""
    res = collections.OrderedDict()
    for line, st in stmts:
        op = same_op(opcode(st), st)
        if op in ("label", ".pragma", "") or op.startswith("cvta.to.") or op.startswith("ld.param."):
            continue   # the parameters' loads and conversions: nvcc heads them with whichever line needs them first
        if op.startswith(VALUE_OPS):
            op += "#" + ",".join(str(v) for v in literals(st))
        res.setdefault(line, collections.Counter())[op] += 1
    return res


def first_diff(ref, gen):
    """(plan line, missing ops, extra ops) of the first plan line, in the target's order then the
    model's, whose opcodes differ; None when every line has the same opcodes."""
    r, g = ops_by_line(ref), ops_by_line(gen)
    for line in list(r) + [ln for ln in g if ln not in r]:
        a, b = r.get(line, collections.Counter()), g.get(line, collections.Counter())
        if a != b:
            return line, sorted((a - b).elements()), sorted((b - a).elements())
    return None


def slips(gen_ptx, ref_ptx, plan):
    """The static slip patterns of one kernel (see the module's docstring)."""
    out = []
    ref_pragmas = ref_ptx is None or '.pragma "nounroll"' in ref_ptx
    body = [ln.strip() for ln in gen_ptx.splitlines()]
    for i in range(len(body) - 1):
        if body[i].startswith("$") and body[i].endswith(":") and ref_pragmas and \
                (body[i + 1].startswith("popc.") or body[i + 1].startswith(".reg ")):
            out.append("pragma-slot")
            break
    if ref_ptx is not None:   # nvcc's expf writes cvt.sat.f32.f32 (clamp to [0, 1]); the model, refused, dropped .sat
        if ref_ptx.count("cvt.sat.f32.f32") > gen_ptx.count("cvt.sat.f32.f32"):
            out.append("expf-no-sat")
    else:
        lines = gen_ptx.splitlines()
        for i, ln in enumerate(lines):
            if "0f3BBB989D" in ln:
                nxt = next((x.strip() for x in lines[i + 1:i + 4] if x.strip().startswith("cvt")), None)
                if nxt is not None and not nxt.startswith("cvt.sat"):
                    out.append("expf-no-sat")
                    break
    for name in re.findall(r"__shared__\s+[\w ]+?\s(\w+)\s*\[", plan or ""):
        if re.search(r"\.shared\s", gen_ptx) and not re.search(r"\.shared[^\n]*\s%s\[" % re.escape(name), gen_ptx):
            out.append("shared-renamed")
            break
    return out


class Constraint:
    """The eval-time constraint (libptxgen's dec_*) on a byte vocabulary: the first construct of a
    kernel it refuses, given the signature, block and plan the evaluation gave it."""

    def __init__(self, lib_path):
        import ctypes as C
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import generate as G  # libptxgen through ctypes (needs torch importable, as generate.py does)
        self.C, self.G = C, G
        self.lib = G.Lib(lib_path)
        pieces = [bytes([i]) for i in range(1, 256)]   # token id b-1 is byte b
        n = len(pieces)
        arr = (C.c_char_p * n)(*pieces)
        lens = (C.c_size_t * n)(*[1] * n)
        spc = (C.c_bool * n)(*[False] * n)
        self.vocab, q = C.c_void_p(), G.DiagSink()
        if self.lib.L.dec_vocab_from_pieces(arr, lens, spc, n, C.byref(self.vocab), C.byref(q)) != 0:
            raise SystemExit("dec_vocab_from_pieces failed")

    def refused(self, task_json, ptx, plan, arch="sm_80", sig=None, blk=None):
        C, G, L = self.C, self.G, self.lib.L
        if sig is None:
            sig, blk = self.lib.task_signature(task_json)
        d, q = C.c_void_p(), G.DiagSink()
        opts = G.DecOpts(arch.encode(), sig.encode(), 0, 0, (C.c_int * 3)(*blk), None, 161, 0, plan.encode() if plan else None, 0)
        if L.dec_new(self.vocab, C.byref(opts), C.byref(d), C.byref(q)) != 0:
            return "the decoder does not start"
        try:
            fb = G.PgBuf()
            L.dec_forced_text(d, C.byref(fb))
            forced = self.lib._take(fb)
            if forced not in ptx:
                return "the forced header differs"
            L.dec_advance_text(d, forced.encode(), len(forced.encode()), C.byref(q))
            b = ptx[ptx.index(forced) + len(forced):].encode()
            for i, ch in enumerate(b):
                if ch == 0 or not L.dec_accepts(d, ch - 1):
                    ls = b.rfind(b"\n", 0, i) + 1
                    le = b.find(b"\n", i)
                    return b[ls:le if le >= 0 else len(b)].decode(errors="replace").strip()
                L.dec_advance(d, ch - 1, C.byref(G.DiagSink()))
            return None
        finally:
            L.dec_free(d)


def literate_of(ptxgen, plan_path, cache):
    """nvcc's literate PTX of a plan as synth makes the targets (`ptxgen synth --literate-of`), or None."""
    if plan_path in cache:
        return cache[plan_path]
    try:
        r = subprocess.run([ptxgen, "synth", "--literate-of", plan_path, "--arch", "sm_80"], capture_output=True, text=True, timeout=300)
        cache[plan_path] = r.stdout if r.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        cache[plan_path] = None
    return cache[plan_path]


def row_key(r):
    return f"{r['task']}.{r['description']}.{r['config']}.{r['sample']}"


def plan_verdicts(path):
    """case key -> correct / wrong / unverified, from the plan stage's eval report (None: no report)."""
    if not path:
        return None
    out = {}
    for r in json.load(open(path, encoding="utf-8"))["rows"]:
        st = r.get("last_stage")
        out[row_key(r)] = "correct" if r.get("correct") is True else "unverified" if st in (None, "skipped", "generation") else "wrong"
    return out


def analyse(args):
    rep = json.load(open(args.eval, encoding="utf-8"))
    con = Constraint(args.lib) if args.lib else None
    pv = plan_verdicts(getattr(args, "plan_eval", None))
    args.by_plan = collections.Counter()   # (plan verdict, end-to-end correct) over every verified row, with --plan-eval
    cache, rows = {}, []
    args.correct_refused = [0, 0]   # correct kernels with a target, of them with a target the constraint refuses
    for r in rep["rows"]:
        key = row_key(r)
        kp = os.path.join(args.kernels, key + ".ptx")
        if not os.path.exists(kp):
            continue
        plan_run = pv.get(key, "unverified") if pv is not None else None
        if pv is not None and r.get("last_stage") != "generation":
            args.by_plan[(plan_run, r.get("last_stage") == "correct")] += 1
        if r.get("last_stage") == "correct":
            plan_p = os.path.join(args.plans, key + ".cu") if args.plans else os.path.join(args.suite, r["dir"], "reference.cu")
            ref = literate_of(args.ptxgen, plan_p, cache) if os.path.exists(plan_p) else None
            if ref and con:
                args.correct_refused[0] += 1
                args.correct_refused[1] += con.refused(os.path.join(args.suite, r["dir"], "task.json"), ref,
                                                       open(plan_p, encoding="utf-8", errors="replace").read()) is not None
            continue
        gen = open(kp, encoding="utf-8", errors="replace").read()
        meta_p = os.path.join(args.kernels, key + ".json")
        meta = json.load(open(meta_p)) if os.path.exists(meta_p) else {}
        task_json = os.path.join(args.suite, r["dir"], "task.json")
        if args.plans:
            plan_p = os.path.join(args.plans, key + ".cu")
            plan_ptx = os.path.join(args.plans, key + ".ptx")
            pmeta = os.path.join(args.plans, key + ".json")
            ptext = open(plan_ptx, errors="replace").read() if os.path.exists(plan_ptx) else "// ptxgen: nvcc rejected"
            # the plan turn's state: nvcc rejected it, or compiled a file without a kernel (a plan cut at the plan
            # turn's token limit can be all comment), else compiled; "unfinished" marks a cut plan turn
            plan_state = "rejected" if ptext.startswith("// ptxgen: nvcc rejected") else "no-kernel" if ".entry" not in ptext else "compiled"
            if os.path.exists(pmeta) and not json.load(open(pmeta)).get("finished", True):
                plan_state += ", unfinished"
            plan_ok = plan_state == "compiled"
        else:
            plan_p, plan_ok, plan_state = os.path.join(args.suite, r["dir"], "reference.cu"), True, "reference"
        plan = open(plan_p, encoding="utf-8", errors="replace").read() if os.path.exists(plan_p) else None
        ref = literate_of(args.ptxgen, plan_p, cache) if plan is not None and plan_ok else None
        row = dict(case=key, task=r["task"], style=r["description"], category=r.get("family", ""), verdict=r["last_stage"],
                   runtime=runtime_kind(r.get("detail", "")) if r["last_stage"] in ("fault", "wrong", "timeout") else "",
                   tokens=meta.get("gen_tokens", r.get("tokens", 0)),
                   cut=meta.get("gen_tokens", 0) > args.max_new - 128 or meta.get("finished") is False,
                   plan_compiled=plan_ok, plan=plan_state,
                   slips=slips(gen, ref, plan), target=ref is not None, plan_run=plan_run)
        gst = parse_literate(gen)
        row["statements"] = sum(1 for _, st in gst if opcode(st) != "label")
        row["target_statements"] = sum(1 for _, st in parse_literate(ref) if opcode(st) != "label") if ref else None
        heads = collections.Counter(ln.strip() for ln in gen.splitlines() if ln.strip().startswith("// ") and "GENERATED_BY" not in ln)
        row["most_repeated_comment"] = max(heads.values(), default=0)   # a turn looping back into plan lines
        d = first_diff(parse_literate(ref), gst) if ref else None
        row["first_diff"] = None if d is None else {"line": d[0][:120], "missing": d[1][:8], "extra": d[2][:8]}
        row["refused"] = con.refused(task_json, ref, plan) if (con and ref) else None
        if row["cut"]:   # before syntax: a kernel closed unfinished fails the validator because it was cut
            cause = "cut"
        elif r["last_stage"] in ("check", "validator", "ptxas", "generation"):
            cause = "syntax"
        elif not plan_ok:
            cause = "plan-rejected"
        elif plan_run == "wrong":   # the plan itself is wrong: no faithful translation of it could pass
            cause = "plan-wrong"
        elif "pragma-slot" in row["slips"]:
            cause = "pragma-slot"
        elif "expf-no-sat" in row["slips"]:
            cause = "expf-no-sat"
        elif ref and d is None and args.plans and plan_run != "correct":
            cause = "plan-wrong"   # nvcc's opcodes line for line: the plan, unless the harness passed it (then operands)
        elif ref and (d is not None or plan_run == "correct"):
            cause = "ptx-deviates"
        else:
            cause = "unexplained"
        row["cause"] = cause
        rows.append(row)
    return rep, rows


def table(rows, key, cols):
    """Markdown counts of rows by `key` (rows) and `cols` (columns)."""
    ks = sorted({k for k in (r[key] for r in rows)})
    cs = [c for c in cols if any(r["cause"] == c for r in rows)]
    out = [f"| {key} | " + " | ".join(cs) + " | all |", "|---|" + "---|" * (len(cs) + 1)]
    for k in ks:
        sel = [r for r in rows if r[key] == k]
        out.append(f"| {k} | " + " | ".join(str(sum(r['cause'] == c for r in sel)) for c in cs) + f" | {len(sel)} |")
    out.append("| all | " + " | ".join(str(sum(r['cause'] == c for r in rows)) for c in cs) + f" | {len(rows)} |")
    return "\n".join(out)


def cut_line(rows):
    """How the cut kernels compare with their targets: longer than the target or a plan line heading
    four comments or more (the turn looping), or a target that is itself long."""
    cut = [r for r in rows if r["cut"]]
    with_t = [r for r in cut if r["target_statements"]]
    loop = sum(1 for r in cut if r["most_repeated_comment"] >= 4)
    longer = sum(1 for r in with_t if r["statements"] > r["target_statements"])
    return (f"Of the {len(cut)} cut kernels, {loop} have a plan line heading 4+ comments; {len(with_t)} have a target, "
            f"{longer} of them with more statements written than the whole target has (median target "
            f"{sorted(r['target_statements'] for r in with_t)[len(with_t) // 2] if with_t else 0} statements).\n")


def plan_line(by_plan):
    """End-to-end rows by their plan's verdict (--plan-eval): the PTX turn's rate on plans that passed."""
    if not by_plan:
        return ""
    parts = []
    for v in ("correct", "wrong", "unverified"):
        n = by_plan[(v, True)] + by_plan[(v, False)]
        if n:
            parts.append(f"plan {v}: {by_plan[(v, True)]} of {n} kernels correct")
    ok = by_plan[("correct", True)] + by_plan[("correct", False)]
    rate = f"{100.0 * by_plan[('correct', True)] / ok:.0f}%" if ok else "-"
    return f"By the plan's own verdict (--plan-eval): {'; '.join(parts)}. Translation of the model's plans that passed: {rate}.\n"


def markdown(rep, rows, title, correct_refused=(0, 0), by_plan=None):
    n = sum(1 for r in rep["rows"] if r.get("last_stage") != "generation")
    cnt = lambda f: collections.Counter(f(r) for r in rows)  # noqa: E731
    md = [f"### {title}", "",
          f"{len(rows)} failed kernels of {n} verified rows ({sum(1 for r in rep['rows'] if r.get('last_stage') == 'correct')} correct).", "",
          "By cause and category:", "", table(rows, "category", CAUSES), "",
          "By cause and style:", "", table(rows, "style", CAUSES), "",
          "Verdict and runtime kind: " + ", ".join(f"{k} {v}" for k, v in sorted(cnt(lambda r: f"{r['verdict']}/{r['runtime']}").items())), "",
          "Slips (a kernel may have several): " + ", ".join(f"{k} {v}" for k, v in sorted(
              collections.Counter(s for r in rows for s in r["slips"]).items())) + f"; none {sum(not r['slips'] for r in rows)}", "",
          "Cause by runtime kind:", "", table(rows, "runtime", CAUSES), "",
          "Plans: " + ", ".join(f"{k} {v}" for k, v in sorted(cnt(lambda r: r["plan"]).items())), "",
          plan_line(by_plan),
          cut_line(rows),
          f"Cut (the token limit or the batch deadline): {sum(r['cut'] for r in rows)}. Targets made (nvcc's literate PTX of the plan): "
          f"{sum(r['target'] for r in rows)}; of those the constraint refuses something: "
          f"{sum(1 for r in rows if r['refused'])}: " + ", ".join(f"`{k}` {v}" for k, v in collections.Counter(
              re.sub(r"%\w+", "%r", (r['refused'] or '').split(' ')[0]) for r in rows if r['refused']).most_common()) +
          f". Correct kernels: {correct_refused[1]} of the {correct_refused[0]} with a target have one the constraint refuses.", "",
          "| case | verdict | runtime | tokens | cause | slips | first plan line that differs (-missing +extra) | target refused at |",
          "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        d = r["first_diff"]
        dd = "" if not d else f"`{d['line'][:70]}` " + " ".join(["-" + x for x in d["missing"][:4]] + ["+" + x for x in d["extra"][:4]])
        md.append(f"| {r['case']} | {r['verdict']} | {r['runtime']} | {r['tokens']} | {r['cause']} | {' '.join(r['slips'])} | "
                  f"{dd.replace('|', '/')} | {('`' + r['refused'][:50] + '`') if r['refused'] else ''} |")
    return "\n".join(md) + "\n"


def targets(args):
    """--targets SYNTH.jsonl: the PTX-turn training targets of a synth file (`ptxgen prompts --stage ptx`,
    byte for byte what training sees), each fed to the constraint of --lib with its plan, signature and
    block as the evaluation gives them; counts of the first construct refused."""
    import tempfile
    con = Constraint(args.lib)
    with tempfile.TemporaryDirectory() as d:
        pairs = os.path.join(d, "pairs.jsonl")
        subprocess.run([args.ptxgen, "prompts", "--format", "chatml", "--stage", "ptx", "--in", args.targets, "--out", pairs],
                       check=True, capture_output=True)
        samples = [json.loads(ln) for ln in open(args.targets, encoding="utf-8") if ln.strip()]
        samples = [x for x in samples if x.get("cuda_c")]
        res, ex, rows = collections.Counter(), {}, []
        for smp, ln in zip(samples, open(pairs, encoding="utf-8")):
            pr = json.loads(ln)
            prompt, ptx = pr["prompt"], pr["completion"].replace("<|im_end|>", "")
            plan = prompt.split("The plan (CUDA C):\n", 1)[1].split("\n\nStep 2 of 2", 1)[0]
            sig = prompt.split("Signature:\n", 1)[1].split("<|im_end|>", 1)[0]
            tj = os.path.join(d, "task.json")
            json.dump(smp["task"], open(tj, "w"))
            _, blk = con.lib.task_signature(tj)
            why = con.refused(None, ptx, plan, smp.get("arch", "sm_80"), sig, list(blk))
            key = "accepted" if why is None else re.sub(r"%\w+|\d+", "N", why)[:40]
            res[key] += 1
            ex.setdefault(key, smp["id"])
            rows.append({"id": smp["id"], "family": smp.get("family"), "source": smp.get("source"),
                         "task": smp["task"].get("name"), "statements": ptx.count(";\n") + ptx.count("\t//"),
                         "refused": why})
    n = sum(res.values())
    print(f"{n} PTX-turn targets of {args.targets}; the constraint of {args.lib} accepts {res['accepted']} in full")
    for k, v in res.most_common():
        if k != "accepted":
            print(f"  {v:5d}  refused first at `{k}` (e.g. {ex[k]})")
    if args.json:   # one row per target: its family, source and the first construct refused (null: accepted)
        write_atomic(args.json, json.dumps(rows, indent=1))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--targets", help="a literate synth file: how many of its PTX-turn targets the constraint of --lib "
                                      "accepts, and where it refuses the others (instead of an eval report)")
    ap.add_argument("--eval")
    ap.add_argument("--kernels")
    ap.add_argument("--suite")
    ap.add_argument("--plans")
    ap.add_argument("--plan-eval", help="the plan stage's eval report (eval-...-plan-...json): each failed row's plan verdict "
                                        "(needs --plans)")
    ap.add_argument("--max-new", type=int, default=6144,
                    help="the PTX turn's token limit the kernels were generated with (generate2.py --max-new and "
                         "recipe.sh MAX_NEW default to 6144; a smaller value calls finished kernels cut)")
    ap.add_argument("--ptxgen", default="build/ptxgen")
    ap.add_argument("--lib", default="", help="libptxgen.so whose constraint checks the targets (empty: not checked)")
    ap.add_argument("--title", default="")
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    args = ap.parse_args(argv)
    if args.targets:
        if not args.lib:
            ap.error("--targets needs --lib")
        return targets(args)
    if not (args.eval and args.kernels and args.suite):
        ap.error("--eval, --kernels and --suite are needed (or --targets)")
    if args.plan_eval and not args.plans:
        ap.error("--plan-eval needs --plans (it reads end-to-end reports)")
    rep, rows = analyse(args)
    if args.json:
        write_atomic(args.json, json.dumps(rows, indent=1))
    md = markdown(rep, rows, args.title or os.path.basename(args.eval), getattr(args, "correct_refused", (0, 0)), args.by_plan)
    if args.markdown:
        write_atomic(args.markdown, md)
    else:
        sys.stdout.write(md)


if __name__ == "__main__":
    sys.exit(main())
