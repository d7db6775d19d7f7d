"""generate2.py — the two-stage model on a GPU (docs/LITERATE.md), with outputs per stage for
`ptxgen eval --kernels`.

For every case (suite task x description style x sample) of --suite, and every task of --heldin
(training tasks, each with the one description it was trained with):

  plan    the plan turn (gen_prompt_build_plan: request + the task's CUDA C signature), sampled without
          the constraint -> OUT/plan/<case>.cu; nvcc -ptx of each plan -> OUT/plan/<case>.ptx, so that
          `ptxgen eval --kernels OUT/plan` measures plan pass@1 (a plan nvcc rejects gets a .ptx that
          says why, which the validator fails: it is counted, not missing)
  e2e     the PTX turn from the model's own plan (gen_prompt_build_ptx_plan), under the constraint with
          plan comments that quote the plan's own lines (dec_opts.plan; --free-comments: any text)
          -> OUT/e2e/<case>.ptx: end-to-end pass@1
  trans   the PTX turn from the task's own reference.cu as the plan -> OUT/trans/<case>.ptx:
          translation pass@1 (the second stage alone); with --trans-cap N the same rows again under
          dec_opts.plan_repeat_max N -> OUT/transcap/<case>.ptx (the cap's A/B), with --trans-greedy
          again at temperature 0 -> OUT/transgreedy/<case>.ptx (sampling's A/B)
  heldin  plan, then PTX, for the --heldin tasks -> OUT/heldin-plan/, OUT/heldin/: held-in pass@1

Sampling follows generate.py (top-k 5, T 0.3, sample-then-verify under the constraint for PTX);
the plan turn is unconstrained (the constraint knows PTX, not C), as gen_twin_sample.  All PTX-turn
rows of all stages are decoded together in batches of --batch; --deadline cuts what is still running
(written as unfinished, which eval counts as failures).

    python3 train/generate2.py --base /tmp/qwen-hf --adapter A --lib build/libptxgen.so \\
        --suite bench/suite --suite bench/suite-prose --heldin /tmp/heldin --out /tmp/gen2 --deadline 540
"""
import argparse
import concurrent.futures as cf
import glob
import json
import os
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate as G  # noqa: E402  (the shared pieces: libptxgen through ctypes, the PTX-turn decoder)
import kvdecode  # noqa: E402
import plan_loop  # noqa: E402  (the plan turn's loop stop, gen_text_loops' rule)

STYLES = G.STYLES


def sample_free(model, tok, prompts, max_new, end_ids, pieces, special, args, gen, deadline, loop_stop=False):
    """Unconstrained top-k sampling of a list of prompts (token id lists), in batches of --batch,
    prefilled in chunks; returns [(text, tokens, finished, looped)] in the prompts' order.  A row ends at
    an end token, a NUL byte, max_new tokens, the model's context or the deadline (then unfinished); with
    loop_stop also when its text loops (plan_loop.loops, after a token with a newline: unfinished, looped),
    as `ptxgen gen`'s plan turn (gen_opts.loop_stop)."""
    dev, n = args.device, len(pieces)
    ctx = model.config.max_position_embeddings
    res = [("", 0, False, False)] * len(prompts)
    order = sorted(range(len(prompts)), key=lambda i: -len(prompts[i]))
    pad = tok.pad_token_id if tok.pad_token_id is not None else 0
    k = args.top_k if args.top_k > 0 else 1
    for b0 in range(0, len(order), args.batch):
        if G.past_deadline(deadline):
            break
        rows = order[b0:b0 + args.batch]
        B, L = len(rows), max(len(prompts[i]) for i in rows)
        ids = torch.full((B, L), pad, dtype=torch.long)     # [B][L] left-padded
        att = torch.zeros((B, L), dtype=torch.long)         # [B][L]
        for r, i in enumerate(rows):
            ids[r, L - len(prompts[i]):] = torch.tensor(prompts[i])
            att[r, L - len(prompts[i]):] = 1
        ids, att = ids.to(dev), att.to(dev)
        limit = [min(max_new, ctx - len(prompts[i]) - 1) for i in rows]
        text, ntok, fin, looped = [bytearray() for _ in rows], [0] * B, [False] * B, [False] * B
        alive = [r for r in range(B) if limit[r] > 0]
        with torch.no_grad():
            dec = kvdecode.open_decoder(model, B, min(L + max(limit) + 1, ctx), getattr(args, "engine", "static"))
            logits = dec.start(ids, att)                                              # [B][V]
            step = 0
            while alive and not G.past_deadline(deadline):
                lg = logits[:, :n]                                                    # [b][n]
                topv, topi = torch.topk(lg, k, dim=-1)                                # [b][k]
                if args.temperature > 0:
                    pick = torch.multinomial(torch.softmax(topv / args.temperature, dim=-1), 1, generator=gen)
                else:
                    pick = torch.zeros((topv.shape[0], 1), dtype=torch.long, device=dev)
                cand = topi.gather(1, pick).squeeze(1).tolist()
                keep = []
                for j, r in enumerate(alive):
                    t = cand[j]
                    if t in end_ids:
                        fin[r] = True
                    elif b"\0" not in pieces[t]:
                        if not special[t]:
                            text[r] += pieces[t]
                        ntok[r] += 1
                        if loop_stop and not special[t] and b"\n" in pieces[t] and \
                                plan_loop.loops(text[r].decode("utf-8", errors="replace")):
                            looped[r] = True
                        elif ntok[r] < limit[r]:
                            keep.append(j)
                if not keep:
                    break
                if len(keep) < len(alive):
                    dec.keep(keep)
                    alive = [alive[j] for j in keep]
                logits = dec.step(torch.tensor([cand[j] for j in keep], device=dev))    # [b][V]
                step += 1
        for r, i in enumerate(rows):
            res[i] = (text[r].decode("utf-8", errors="replace"), ntok[r], fin[r], looped[r])
    return res


def comment_repeats(ptx):
    """(plan comments, repeats, the most times one comment line appears) of a literate kernel: a
    model that loops back into plan lines it already wrote repeats far more of its comments than its
    training targets do (H200, 2026-12-05: 81.6% of the translations' comments against 42.3%)."""
    seen = {}
    for line in ptx.splitlines():
        t = line.strip()
        if t.startswith("// ") and not t.startswith("// GENERATED_BY") and not t.startswith("// ptxgen:"):
            seen[t] = seen.get(t, 0) + 1
    n = sum(seen.values())
    return n, n - len(seen), max(seen.values(), default=0)


def repeat_stats(out):
    """Per PTX stage folder of a generate2 run: kernels, plan comments, repeated ones, their share, and
    the kernels with a comment line four times or more."""
    res = {}
    for st in ("e2e", "trans", "transcap", "transgreedy", "transstrict", "heldin"):
        k = c = r = loops = 0
        for f in sorted(glob.glob(os.path.join(out, st, "*.ptx"))):
            n, rep, most = comment_repeats(open(f, encoding="utf-8", errors="replace").read())
            k, c, r, loops = k + 1, c + n, r + rep, loops + (most >= 4)
        if k:
            res[st] = {"kernels": k, "comments": c, "repeated": r, "share": round(r / c, 3) if c else 0.0, "line_4_times": loops}
    return res


def nvcc_plan(cu_path, ptx_path, arch, nvcc):
    """nvcc -ptx -O3 of one plan; on failure the .ptx says why (a comment the validator rejects as no
    kernel).  Returns (ok, first error line)."""
    r = subprocess.run([nvcc, "-ptx", "-O3", f"-arch={arch}", "-o", ptx_path + ".tmp", cu_path], capture_output=True, text=True,
                       timeout=120)
    if r.returncode == 0 and os.path.exists(ptx_path + ".tmp"):
        os.replace(ptx_path + ".tmp", ptx_path)
        return True, ""
    err = next((ln for ln in (r.stderr or "").splitlines() if "error" in ln), (r.stderr or "nvcc failed").strip()[:300])
    G.write_atomic(ptx_path, f"// ptxgen: nvcc rejected the plan: {err[:300]}\n")
    return False, err


def plan_fails(cu_path):
    """Why the plan at cu_path fails, or None: unfinished (its .json: cut at --plan-max-new or ended at a
    loop), nvcc rejected it, or nvcc's PTX has no kernel (no .entry: a plan of comments only compiles).
    Reads the .json and the .ptx nvcc_plan wrote.  Round 6 (H100, 2026-12-06): 29 of the 32 cut suite
    plans compiled to no kernel, and only rejected plans were drawn again."""
    try:
        meta = json.load(open(cu_path[:-3] + ".json", encoding="utf-8"))
    except (OSError, ValueError):
        meta = {}
    if not meta.get("finished", False):
        return "looped" if meta.get("looped") else "unfinished"
    ptx = open(cu_path[:-3] + ".ptx", encoding="utf-8", errors="replace").read() if os.path.exists(cu_path[:-3] + ".ptx") else ""
    if ptx.startswith("// ptxgen: nvcc rejected"):
        return "rejected"
    return None if ".entry" in ptx else "no-kernel"


def load_cases(args, lib):
    """(stage-1 cases, trans cases).  A case: dict(key, task, desc, style, sample, sig, csig, launch, blk, ref)."""
    cases, trans = [], []
    styles = [s for s in args.styles.split(",") if s]
    only = set(args.only.split(",")) if args.only else None
    for suite in args.suite:
        for tj in sorted(glob.glob(os.path.join(suite, "*", "task.json"))):
            spec = json.load(open(tj, encoding="utf-8"))
            if only and spec["name"] not in only:
                continue
            sig, blk = lib.task_signature(tj)
            csig, launch = lib.task_c_signature(tj), lib.task_launch(tj)
            ref = os.path.join(os.path.dirname(tj), "reference.cu")
            for st in styles:
                d = spec.get("descriptions", {}).get(st)
                if not d:
                    continue
                for s in range(args.samples):
                    c = dict(key=f"{spec['name']}.{st}.{args.config}.{s}", task=tj, desc=d, style=st, sample=s, sig=sig, csig=csig,
                             launch=launch, blk=blk, heldin=False)
                    cases.append(c)
                    if s == 0 and os.path.exists(ref) and (args.trans_per_task <= 0 or
                                                           sum(t["task"] == tj for t in trans) < args.trans_per_task):
                        trans.append(dict(c, ref=ref))
    if args.heldin:
        for tj in sorted(glob.glob(os.path.join(args.heldin, "*", "task.json"))):
            spec = json.load(open(tj, encoding="utf-8"))
            sig, blk = lib.task_signature(tj)
            for st, d in spec.get("descriptions", {}).items():
                cases.append(dict(key=f"{spec['name']}.{st}.{args.config}.0", task=tj, desc=d, style=st, sample=0, sig=sig,
                                  csig=lib.task_c_signature(tj), launch=lib.task_launch(tj), blk=blk, heldin=True))
    return cases, trans


def main(argv=None):
    torch.backends.cuda.enable_cudnn_sdp(False)   # see generate.py
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="HF model directory (the dequantized base)")
    ap.add_argument("--adapter", help="PEFT LoRA adapter directory")
    ap.add_argument("--tokenizer", help="tokenizer.json (default: the base's)")
    ap.add_argument("--suite", action="append", default=[], help="suite folder (repeatable)")
    ap.add_argument("--heldin", help="a suite folder of training tasks (train/heldin.py), for the held-in check")
    ap.add_argument("--only", help="comma list of task names")
    ap.add_argument("--styles", default=",".join(STYLES))
    ap.add_argument("--samples", type=int, default=1)
    ap.add_argument("--stages", default="plan,e2e,trans,heldin")
    ap.add_argument("--trans-per-task", type=int, default=0,
                    help="translation rows per task, the first styles of --styles that the task has (0 = every style): "
                         "the plan is the task's reference.cu whatever the style, so one row a task measures the PTX turn")
    ap.add_argument("--retrieve", help="a retrieval library (ptxgen retrieve build): the nearest kernels go into both turns' "
                                       "prompts, as `prompts --retrieve` put them into the training pairs")
    ap.add_argument("--retrieve-k", type=int, default=2, help="plans in the plan turn (the PTX turn gets the first kernel)")
    ap.add_argument("--retrieve-max-ptx", type=int, default=12000, help="skip library kernels with longer PTX")
    ap.add_argument("--out", required=True)
    ap.add_argument("--lib", default="build/libptxgen.so")
    ap.add_argument("--arch", default="sm_80")
    ap.add_argument("--temperature", type=float, default=0.3)
    ap.add_argument("--top-k", type=int, default=5)
    ap.add_argument("--plan-max-new", type=int, default=1024)
    ap.add_argument("--plan-tries", type=int, default=1,
                    help="draws of a failing plan (unfinished, rejected by nvcc, or no kernel in nvcc's PTX: plan_fails), in all, "
                         "before its PTX turn (1: the first plan, as rounds 1-4 were measured)")
    ap.add_argument("--no-plan-loop-stop", action="store_true",
                    help="let a looping plan run to --plan-max-new (default: end it at the loop, plan_loop.loops; rounds 1-6 had no stop)")
    ap.add_argument("--max-new", type=int, default=6144, help="PTX-turn token limit")
    ap.add_argument("--comment-max", type=int, default=161,
                    help="plan comment bytes the constraint allows (dec_opts.comment_max): ' ' + a plan line of up to 160 (PTX_LITERATE_LINE_MAX)")
    ap.add_argument("--free-comments", action="store_true",
                    help="let the PTX turn's comments be any text (default: only the plan's own lines, dec_opts.plan)")
    ap.add_argument("--plan-repeat-max", type=int, default=0,
                    help="a straight plan line (kernel body, outside loops) may head at most N comments of a PTX turn "
                         "(dec_opts.plan_repeat_max; 0: no limit)")
    ap.add_argument("--trans-cap", type=int, default=0,
                    help="also write every translation row again under plan_repeat_max N, into transcap/ (an A/B of the cap "
                         "on the stage that fails; 0: not)")
    ap.add_argument("--trans-greedy", action="store_true",
                    help="also write every translation row again at temperature 0 (greedy) into transgreedy/ (an A/B of sampling "
                         "on the stage that fails)")
    ap.add_argument("--trans-strict", action="store_true",
                    help="also write every translation row again with register indices held below the declared counts "
                         "(dec_opts.regs_grow 0, as before 2026-12-05) into transstrict/ (the A/B of regs_grow)")
    ap.add_argument("--regs-strict", action="store_true",
                    help="every row with dec_opts.regs_grow 0: a register index must stay below its declared count")
    ap.add_argument("--regs-named", action="store_true",
                    help="the PTX turn may declare named registers, `.reg .T %%name;` (dec_opts.regs_named; docs/LITERATE.md)")
    ap.add_argument("--batch", type=int, default=768)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--model-name", default=None)
    ap.add_argument("--config", default="no_bias")
    ap.add_argument("--plan-deadline", type=float, default=0, help="seconds after which the plan turn stops")
    ap.add_argument("--deadline", type=float, default=0, help="seconds after which everything still running is written as unfinished")
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--engine", choices=["static", "hf"], default="static",
                    help="decoding cache: static (kvdecode.py, preallocated) or hf (transformers' own)")
    args = ap.parse_args(argv)
    args.time_budget = 0
    args.ptx_deadline = args.deadline
    args.comment_max = args.comment_max
    stages = set(s for s in args.stages.split(",") if s)
    from transformers import AutoModelForCausalLM
    from hfutil import load_tokenizer
    t_load = time.time()
    dtype = torch.bfloat16 if args.device.startswith("cuda") else torch.float32
    tok = load_tokenizer(args.base, args.tokenizer)
    model = AutoModelForCausalLM.from_pretrained(args.base, dtype=dtype)
    if args.adapter:
        from peft import PeftModel
        model = PeftModel.from_pretrained(model, args.adapter).merge_and_unload()
    model.to(args.device).eval()
    vocab_rows = model.get_output_embeddings().weight.shape[0]
    end_id = tok.convert_tokens_to_ids("<|im_end|>")
    eot = tok.convert_tokens_to_ids("<|endoftext|>")
    end_ids = {end_id} | ({eot} if eot not in (None, tok.unk_token_id) else set())
    name = args.model_name or (os.path.basename(os.path.normpath(args.adapter)) if args.adapter else "base")
    lib = G.Lib(args.lib)
    pieces, special = G.token_bytes(tok)
    n = len(pieces)
    import ctypes as C
    arr = (C.c_char_p * n)(*pieces)
    lens = (C.c_size_t * n)(*[len(p) for p in pieces])
    spc = (C.c_bool * n)(*special)
    vocab, q = C.c_void_p(), G.DiagSink()
    if lib.L.dec_vocab_from_pieces(arr, lens, spc, n, C.byref(vocab), C.byref(q)) != 0:
        raise SystemExit("dec_vocab_from_pieces failed")
    maskbuf = (C.c_uint32 * ((n + 31) // 32))()
    gen = torch.Generator(device=args.device)
    gen.manual_seed(args.seed)
    log = lambda **kw: print(json.dumps(dict(kw, elapsed=round(time.time() - G.T0, 1))), flush=True)  # noqa: E731
    args.engine, eng = kvdecode.selfcheck(model, args.engine)
    log(event="loaded", seconds=round(time.time() - t_load, 1), vocab=n, **eng)

    cases, trans = load_cases(args, lib)
    rlib = lib.retr_load(args.retrieve) if args.retrieve else None
    hits = {}   # the retrieved kernels of a request (a held-in task never retrieves itself)

    def nearest(c):
        if rlib is None:
            return None
        if c["key"] not in hits:
            own = json.load(open(c["task"], encoding="utf-8"))["name"] if c["heldin"] else None
            hits[c["key"]] = lib.retrieve(rlib, c["desc"], args.retrieve_k, exclude_task=own, max_ptx_bytes=args.retrieve_max_ptx)
        return hits[c["key"]]
    if "heldin" not in stages:
        cases = [c for c in cases if not c["heldin"]]
    if not ({"plan", "e2e"} & stages):
        cases = [c for c in cases if c["heldin"]]
    ab = (("transcap",) if args.trans_cap > 0 else ()) + (("transgreedy",) if args.trans_greedy else ()) + \
        (("transstrict",) if args.trans_strict else ())   # the A/B folders
    for d in ("plan", "e2e", "trans", "heldin-plan", "heldin") + ab:
        os.makedirs(os.path.join(args.out, d), exist_ok=True)
    stats = {"plans": 0, "plans_finished": 0, "plans_compiled": 0, "plan_tokens": 0}

    # ---- stage 1: the plans ----
    plan_dir = lambda c: "heldin-plan" if c["heldin"] else "plan"  # noqa: E731
    todo = [c for c in cases if not os.path.exists(os.path.join(args.out, plan_dir(c), c["key"] + ".cu"))]
    prompts = [tok(lib.plan_prompt(c["desc"], args.arch, c["csig"], nearest(c), c["launch"]), add_special_tokens=False)["input_ids"] for c in todo]
    t1 = time.time()
    stop = not args.no_plan_loop_stop
    res = sample_free(model, tok, prompts, args.plan_max_new, end_ids, pieces, special, args, gen, args.plan_deadline or args.deadline, stop)
    stats["plan_loops"] = 0
    for c, (text, ntok, fin, looped) in zip(todo, res):
        if not ntok and not fin:
            continue   # cut by the deadline before it started
        plan = lib.strip_fence(text)
        G.write_atomic(os.path.join(args.out, plan_dir(c), c["key"] + ".cu"), plan)
        G.write_atomic(os.path.join(args.out, plan_dir(c), c["key"] + ".json"),
                       json.dumps({"gen_tokens": ntok, "finished": fin, "looped": looped}))
        stats["plans"] += 1
        stats["plans_finished"] += fin
        stats["plan_tokens"] += ntok
        stats["plan_loops"] += looped
    log(event="plans", seconds=round(time.time() - t1, 1), **stats)
    # a failing plan (plan_fails: unfinished, rejected, no kernel) is drawn again, up to --plan-tries draws
    # in all, before any PTX is written: this needs no reference, so `ptxgen gen` does it too (its plan turn
    # draws until one passes); a cut or rejected plan otherwise goes on to a PTX turn that cannot be right
    # (2026-12-06: 54 of the 230 end-to-end suite plans were rejected, 48 of the 190 failures; round 6:
    # 20 of 176 failures were plans cut at the limit that compiled to no kernel, kept since nvcc took them)
    stats["plan_redraws"] = 0
    fin_of = {c["key"] + plan_dir(c): fin for c, (_, _, fin, _) in zip(todo, res)}
    again = todo
    compiled = {}   # plan .cu -> nvcc's verdict on its present text (a redrawn plan loses its entry)
    for _ in range(1, args.plan_tries if args.temperature > 0 else 1):
        with cf.ThreadPoolExecutor(args.jobs) as p:
            fs = {}
            for c in again:
                cu = os.path.join(args.out, plan_dir(c), c["key"] + ".cu")
                if os.path.exists(cu):
                    fs[p.submit(nvcc_plan, cu, cu[:-3] + ".ptx", args.arch, args.nvcc)] = (c, cu)
            again = []
            for f in cf.as_completed(fs):
                c, cu = fs[f]
                compiled[cu] = f.result()[0]
                if plan_fails(cu):
                    again.append(c)
        if not again or G.past_deadline(args.plan_deadline or args.deadline):
            break
        prompts = [tok(lib.plan_prompt(c["desc"], args.arch, c["csig"], nearest(c), c["launch"]), add_special_tokens=False)["input_ids"] for c in again]
        res = sample_free(model, tok, prompts, args.plan_max_new, end_ids, pieces, special, args, gen, args.plan_deadline or args.deadline,
                          stop)
        drawn = []
        for c, (text, ntok, fin, looped) in zip(again, res):
            if not ntok and not fin:
                continue
            d = os.path.join(args.out, plan_dir(c))
            G.write_atomic(os.path.join(d, c["key"] + ".cu"), lib.strip_fence(text))
            compiled.pop(os.path.join(d, c["key"] + ".cu"), None)
            G.write_atomic(os.path.join(d, c["key"] + ".json"), json.dumps({"gen_tokens": ntok, "finished": fin, "looped": looped}))
            stats["plan_redraws"] += 1
            stats["plan_loops"] += looped
            stats["plan_tokens"] += ntok
            stats["plans_finished"] += fin - fin_of.get(c["key"] + plan_dir(c), False)
            fin_of[c["key"] + plan_dir(c)] = fin
            drawn.append(c)
        again = drawn
    if stats["plan_redraws"]:
        log(event="plan-redraws", seconds=round(time.time() - t1, 1), **stats)
    # nvcc on every plan not compiled as it stands (plan pass@1 is eval --kernels over these), on the CPUs
    # while stage 2 runs
    pool = cf.ThreadPoolExecutor(args.jobs)
    futs = {}
    stats["plans_compiled"] = sum(compiled.values())
    for c in cases:
        cu = os.path.join(args.out, plan_dir(c), c["key"] + ".cu")
        if os.path.exists(cu) and cu not in compiled:
            futs[pool.submit(nvcc_plan, cu, cu[:-3] + ".ptx", args.arch, args.nvcc)] = c

    # ---- stage 2: every PTX turn together ----
    batch = []
    for c in cases:
        cu = os.path.join(args.out, plan_dir(c), c["key"] + ".cu")
        stage = "heldin" if c["heldin"] else "e2e"
        if stage not in stages or not os.path.exists(cu) or os.path.exists(os.path.join(args.out, stage, c["key"] + ".ptx")):
            continue
        plan = open(cu, encoding="utf-8").read()
        batch.append((f"{stage}/{c['key']}", lib.ptx_plan_prompt(c["desc"], args.arch, plan, c["sig"], nearest(c), c["launch"]), c["sig"], c["sample"],
                      c["blk"], c["desc"], None if args.free_comments else plan, args.plan_repeat_max))
    # (folder, plan_repeat_max, temperature or None: the run's, regs_grow or None: the run's)
    trans_dirs = [("trans", args.plan_repeat_max, None, None)] + \
        ([("transcap", args.trans_cap, None, None)] if args.trans_cap > 0 else []) + \
        ([("transgreedy", args.plan_repeat_max, 0.0, None)] if args.trans_greedy else []) + \
        ([("transstrict", args.plan_repeat_max, None, 0)] if args.trans_strict else [])
    for td, cap, temp, grow in trans_dirs if "trans" in stages else []:
        for c in trans:
            if os.path.exists(os.path.join(args.out, td, c["key"] + ".ptx")):
                continue
            plan = open(c["ref"], encoding="utf-8").read()
            batch.append((f"{td}/{c['key']}", lib.ptx_plan_prompt(c["desc"], args.arch, plan, c["sig"], nearest(c), c["launch"]), c["sig"], c["sample"],
                          c["blk"], c["desc"], None if args.free_comments else plan, cap, temp, grow))
    # e2e and held-in first (stage order), longest prompts first within a stage: a deadline cuts translation last
    rank = {"e2e": 0, "heldin": 1, "trans": 2, "transcap": 3, "transgreedy": 4, "transstrict": 5}
    batch.sort(key=lambda b: (rank[b[0].split("/")[0]], -len(b[1])))
    pstats = {"kernels": 0, "finished": 0, "rejections": 0, "full_masks": 0, "tokens": 0}
    t2 = time.time()
    for b0 in range(0, len(batch), args.batch):
        if G.past_deadline(args.deadline):
            pstats["not_started"] = len(batch) - b0
            break
        G.run_batch(batch[b0:b0 + args.batch], args, lib, vocab, tok, model, end_id, n, vocab_rows, maskbuf, gen, name, pstats)
        log(event="ptx-batch", done=min(len(batch), b0 + args.batch), of=len(batch), **pstats)
    log(event="ptx", seconds=round(time.time() - t2, 1), **pstats)
    for f in cf.as_completed(futs):
        ok, _ = f.result()
        stats["plans_compiled"] += ok
    pool.shutdown()
    lib.L.dec_vocab_free(vocab)
    stats["comment_repeats"] = repeat_stats(args.out)   # does the PTX turn loop back into written plan lines?
    log(event="done", **stats, **{"ptx_" + k: v for k, v in pstats.items()})
    json.dump(dict(stats, **{"ptx_" + k: v for k, v in pstats.items()}), open(os.path.join(args.out, "generate2.json"), "w"))


if __name__ == "__main__":
    sys.exit(main())
