"""expert_iter.py — expert iteration (rejection-sampling fine-tuning) on the model's own
GPU-verified kernels (issue 16).  One round:

  sample    K kernels per task and description style of a training pool, with
            train/generate.py (PyTorch, under libptxgen's constraint)
  verify    every kernel through `ptxgen eval --kernels` (validator, ptxas, the GPU
            harness on every input set, reward hygiene)
  select    per task, the correct kernels that reward hygiene neither rejected nor
            flagged, distinct texts only; with a GPU the best few are re-run with
            `ptxgen run --seeds 10 --all-sets` (more seeds, every set) and timed
            against nvcc, and the fastest one that passes again is kept
  pairs     the kept kernels under every description of their task, in the chatml
            training format (`ptxgen prompts --format chatml`, the same prompt
            builder as generation), accumulated over the rounds, plus optional replay
  train     LoRA fine-tuning (train/lora_base.py), continuing from the previous
            round's adapter (--init-adapter) or from --adapter0
  evaluate  generate + `ptxgen eval --kernels` on the held-out suites (bench/suite,
            bench/suite-prose): pass@1, pass@k, fast_1.0 against nvcc
  metrics   round-R/metrics.json: the counts and metrics of the round

Every step writes its result atomically under WORK/round-R/ and is skipped when the
result exists, so a round resumes from files (device calls are at most 10 minutes:
run `all` with --deadline again until it says "round complete").

    python3 train/expert_iter.py all --round 1 --work /tmp/pg/ei --pool /tmp/pg/pool \\
        --base /tmp/pg/qwen-hf --adapter0 /tmp/pg/qwen-lora --samples 8 --deadline 560
"""
import argparse
import contextlib
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STEPS = ["sample", "verify", "select", "pairs", "train", "evaluate", "metrics"]
STYLES = ["terse", "detailed", "card", "zh", "prose"]


# ---- files ------------------------------------------------------------------------------------------
def pid_alive(pid):
    """Is pid running?  A zombie is not (a killed writer nobody reaped: kill(pid, 0) still succeeds)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[-1][:2] != " Z"
    except OSError:
        return True


def atomic_write(path, write):
    """write(f) into a temporary file beside path, flushed and fsync'd, then renamed over path:
    a crash leaves the old file or the new one, never half of one (a half-written result would
    look done).  The temporary is removed when anything fails, and the error goes on."""
    for stale in glob.glob(glob.escape(path) + ".tmp.*"):   # left by a killed run (SIGKILL cleans nothing up)
        pid = stale[len(path) + len(".tmp."):].split(".")[0]   # ours: .tmp.PID; ptxgen's pg_out: .tmp.PID.N
        if pid.isdigit() and int(pid) != os.getpid() and not pid_alive(int(pid)):
            with contextlib.suppress(OSError):
                os.remove(stale)
    tmp = f"{path}.tmp.{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise


def write_json(path, obj):
    atomic_write(path, lambda f: (json.dump(obj, f, indent=1, sort_keys=True), f.write("\n")))


def copy_file(src, dst):
    """dst as a complete copy of src (atomic_write)."""
    with open(src, encoding="utf-8") as f:
        text = f.read()
    atomic_write(dst, lambda f: f.write(text))


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def rdir(args, r=None):
    return os.path.join(args.work, f"round-{args.round if r is None else r}")


def log(msg, **kw):
    print(json.dumps(dict(kw, msg=msg, t=round(time.time(), 1))), flush=True)


def run(cmd, **kw):
    log("run", cmd=" ".join(cmd))
    return subprocess.run(cmd, **kw)


# ---- pure parts (tested on CPU: train/test_expert.py) ---------------------------------------------------
def normalize_ptx(text):
    """The text without comments and blank space, to tell distinct kernels apart."""
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def kernel_path(kernels_dir, row):
    return os.path.join(kernels_dir, f"{row['task']}.{row['description']}.{row['config']}.{row['sample']}.ptx")


def row_ok(row, allow_unverified=False):
    """A row whose kernel may be learned from: correct on the GPU, and reward hygiene neither
    rejected nor flagged it.  allow_unverified (CPU tests only): valid and ptxas-clean instead."""
    if row.get("hygiene") or row.get("faster_than_light"):
        return False
    if row.get("correct") is True:
        return True
    return allow_unverified and row.get("check") is True and row.get("ptxas") is True


def candidates(eval_doc, kernels_dir, allow_unverified=False):
    """{task: [candidate...]} from a results document: distinct kernel texts of the good rows,
    best first (higher measured speedup, then the shorter text).  A candidate is
    {task, dir, family, path, text, speedup, styles}."""
    out = {}
    for row in eval_doc.get("rows", []):
        if not row_ok(row, allow_unverified):
            continue
        p = kernel_path(kernels_dir, row)
        if not os.path.exists(p):
            continue
        with open(p, encoding="utf-8") as f:
            text = f.read()
        key = normalize_ptx(text)
        lst = out.setdefault(row["task"], [])
        same = [c for c in lst if c["key"] == key]
        if same:
            c = same[0]
            c["speedup"] = max(c["speedup"], float(row.get("speedup") or 0))
            c["styles"] = sorted(set(c["styles"]) | {row["description"]})
            continue
        lst.append({"task": row["task"], "dir": row.get("dir") or row["task"], "family": row.get("family", ""), "path": p,
                    "text": text, "key": key, "speedup": float(row.get("speedup") or 0), "styles": [row["description"]]})
    for lst in out.values():
        lst.sort(key=lambda c: (-c["speedup"], len(c["key"])))
    return out


def pool_counts(eval_doc):
    """Per-round counts over the pool's results: samples, correct, tasks solved, hygiene."""
    rows = eval_doc.get("rows", [])
    solved = {r["task"] for r in rows if r.get("correct") is True and not r.get("hygiene") and not r.get("faster_than_light")}
    hyg = {}
    for r in rows:
        if r.get("hygiene"):
            hyg[r["hygiene"]] = hyg.get(r["hygiene"], 0) + 1
    return {"tasks": len({r["task"] for r in rows}), "samples": len(rows),
            "valid": sum(1 for r in rows if r.get("check") is True and r.get("ptxas") is True),
            "correct": sum(1 for r in rows if r.get("correct") is True), "tasks_solved": len(solved),
            "hygiene": hyg, "gpu_ran": bool(eval_doc.get("gpu_ran"))}


def synth_rows(kept, pool_dir, round_no, arch):
    """Rows in `ptxgen synth`'s format (what `ptxgen prompts` reads): each kept kernel under
    every description its task has (the kernel solves the task whatever the wording)."""
    rows = []
    for task in sorted(kept):
        k = kept[task]
        spec = read_json(os.path.join(pool_dir, k["dir"], "task.json"))
        with open(k["path"], encoding="utf-8") as f:
            text = f.read()
        for st in STYLES:
            d = spec.get("descriptions", {}).get(st)
            if not d:
                continue
            rows.append({"id": f"ei{round_no}-{task}-{st}", "family": spec.get("family", k.get("family", "")), "source": "expert-iter",
                         "arch": arch, "description": d, "description_style": st, "ptx_code": text, "split": "train",
                         "task": task})
    return rows


def suite_metrics(doc, k):
    """pass@1, pass@k, fast_1 and hygiene counts of one results document (the config that ran)."""
    cfgs = doc.get("configs", {})
    name = next(iter(cfgs), None)
    a = cfgs.get(name, {}) if name else {}
    curve = a.get("pass_at") if isinstance(a.get("pass_at"), dict) else {}
    return {"config": name, "cases": a.get("cases"), "pass_at_1": a.get("pass_at_1"), f"pass_at_{k}": curve.get(str(k), a.get("pass_at_k")),
            "pass_at": curve, "fast_1": a.get("fast_1"), "geomean_speedup": a.get("geomean_speedup"),
            "hygiene": a.get("hygiene"), "gpu_ran": bool(doc.get("gpu_ran"))}


def merge_pairs(paths, out):
    """Concatenate pairs files, dropping repeated (prompt, completion) pairs; returns the count."""
    seen, lines = set(), []
    for p in paths:
        with open(p, encoding="utf-8") as fi:
            for line in fi:
                if not line.strip():
                    continue
                r = json.loads(line)
                key = (r["prompt"], r["completion"])
                if key in seen:
                    continue
                seen.add(key)
                lines.append(json.dumps(r, ensure_ascii=False) + "\n")
    atomic_write(out, lambda fo: fo.writelines(lines))
    return len(lines)


# ---- steps ---------------------------------------------------------------------------------------------
def gen_cmd(args, suites, out, samples, adapter, only=None, evaluation=False):
    """generate.py for the pool (temperature --temperature, a seed per round: diverse candidates) or,
    evaluation=True, for the held-out suites (--eval-temperature, the same seed every round, so that
    rounds compare case by case).  Its time: what the call has left, capped by --sample-seconds or
    --eval-gen-seconds so that verification still fits in the same call."""
    seed = args.seed if evaluation else args.seed + 1000 * args.round
    temp = args.eval_temperature if evaluation else args.temperature
    cmd = [sys.executable, os.path.join(HERE, "generate.py"), "--base", args.base, "--lib", args.lib]
    for s in suites:
        cmd += ["--suite", s]
    cmd += ["--samples", str(samples), "--out", out, "--model-name", args.model_name,
            "--styles", args.eval_styles if evaluation else args.styles,
            "--temperature", str(temp), "--max-new", str(args.max_new), "--seed", str(seed)]
    if adapter:
        cmd += ["--adapter", adapter]
    if args.tokenizer:
        cmd += ["--tokenizer", args.tokenizer]
    if args.device:
        cmd += ["--device", args.device]
    if args.batch:
        cmd += ["--batch", str(args.batch)]
    if only:
        cmd += ["--only", only]
    cap = args.eval_gen_seconds if evaluation else args.sample_seconds
    left = max(30, args.t_end - time.time() - 30) if args.deadline else float("inf")
    left = min(left, cap) if cap else left
    if left != float("inf"):
        cmd += ["--time-budget", str(int(left * 0.8)), "--deadline", str(int(left))]
    return cmd


def prev_adapter(args):
    """The adapter this round starts from: the previous round's, else --adapter0 (None: the base alone)."""
    if args.round > 1:
        p = os.path.join(rdir(args, args.round - 1), "adapter")
        if not os.path.exists(os.path.join(p, "adapter_config.json")):
            raise SystemExit(f"round {args.round} needs round {args.round - 1}'s adapter ({p}): run that round first")
        return p
    return args.adapter0


def gen_complete(args, suite, out, samples, styles=None):
    """Has generation written every (task, style, sample) of the suite?"""
    styles = (styles or args.styles).split(",")
    only = set(args.only.split(",")) if args.only else None
    for tj in glob.glob(os.path.join(suite, "*", "task.json")):
        spec = read_json(tj)
        if only and spec["name"] not in only:
            continue
        for st in styles:
            if not spec.get("descriptions", {}).get(st):
                continue
            for s in range(samples):
                if not os.path.exists(os.path.join(out, f"{spec['name']}.{st}.no_bias.{s}.ptx")):
                    return False
    return True


def eval_suite(args, suite, kernels, samples, out, timing=True, styles=None):
    """`ptxgen eval --kernels` (sharded, then merged), then (timing) the timing pass on sample 0.
    styles: the description styles that were sampled (the others are neither run nor counted)."""
    only = set(args.only.split(",")) if args.only else None
    ntasks = sum(1 for tj in glob.glob(os.path.join(suite, "*", "task.json"))
                 if not only or os.path.basename(os.path.dirname(tj)) in only)
    if ntasks == 0:
        raise SystemExit(f"{suite}: no task folders{' named by --only' if only else ''}")
    shards = max(1, min(args.shards, ntasks))   # a shard without tasks is an error to ptxgen eval
    parts, procs = [], []
    for i in range(shards):
        part = f"{out}.shard{i}.json"
        parts.append(part)
        cmd = [args.ptxgen, "eval", "--suite", suite, "--kernels", kernels, "--model-name", args.model_name, "--no-bias",
               "--samples", str(samples), "--no-progress", "--no-timing", "--resume", "--out", part]
        if shards > 1:
            cmd += ["--shard", f"{i}/{shards}"]
        if args.only:
            cmd += ["--only", args.only]
        if styles:
            cmd += ["--styles", styles]
        if args.no_gpu:
            cmd += ["--no-gpu"]
        log("run", cmd=" ".join(cmd))
        procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL))
    rc = []
    for p in procs:   # at the call's deadline the shards stop; --resume continues them next call
        try:
            rc.append(p.wait(timeout=max(1, args.t_end - time.time() - 15) if args.deadline else None))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.terminate()
            for q in procs:
                q.wait()
            log("deadline: verification of " + suite + " continues next call")
            return "partial"
    if any(c not in (0, 1) for c in rc):
        raise SystemExit(f"ptxgen eval failed ({rc}) on {suite}")
    tmp = f"{out}.merged.json"
    if shards > 1:
        if run([args.ptxgen, "eval", "--merge"] + parts + ["--out", tmp]).returncode != 0:
            raise SystemExit("ptxgen eval --merge failed")
    else:
        copy_file(parts[0], tmp)
    doc = read_json(tmp)
    if timing and doc.get("gpu_ran") and not args.no_timing:   # time the correct sample-0 kernels one at a time
        tp = [args.ptxgen, "eval", "--time-pass", "--suite", suite, "--keep", kernels, "--no-bias", "--out", tmp, "--no-progress"]
        try:   # the verdicts are worth more than the timings: at the call's deadline keep them, partly timed
            subprocess.run(tp, timeout=max(1, args.t_end - time.time() - 15) if args.deadline else None)
        except subprocess.TimeoutExpired:
            log("deadline: the timing pass of " + suite + " was cut; the kernels it did not reach stay untimed")
            doc = read_json(tmp)   # --time-pass saves after every kernel: what it timed is kept
            doc["timing_cut_by_deadline"] = True
            write_json(tmp, doc)
    os.replace(tmp, out)
    for p in parts:
        os.remove(p)
    return "done"


def step_sample(args):
    out = os.path.join(rdir(args), "gen")
    if gen_complete(args, args.pool, out, args.samples):
        return "done"
    os.makedirs(out, exist_ok=True)
    r = run(gen_cmd(args, [args.pool], out, args.samples, prev_adapter(args), args.only))
    if r.returncode != 0:
        raise SystemExit(f"generate.py failed ({r.returncode})")
    return "done" if gen_complete(args, args.pool, out, args.samples) else "partial"


def step_verify(args):
    out = os.path.join(rdir(args), "pool-eval.json")
    if os.path.exists(out):
        return "done"
    # no timing pass here: select re-runs and times the few candidates it may keep
    return eval_suite(args, args.pool, os.path.join(rdir(args), "gen"), args.samples, out, timing=False, styles=args.styles)


def reverify(args, cand):
    """Run a candidate again with more seeds on every input set, timed against nvcc:
    (ok, speedup, detail).  The harness applies reward hygiene again.  With --reverify-jobs > 1
    the re-runs share the GPU, so they are not timed (speedup 0): correctness only."""
    tj = os.path.join(args.pool, cand["dir"], "task.json")
    untimed = ["--no-timing", "--no-baseline"] if args.reverify_jobs > 1 else []
    r = subprocess.run([args.ptxgen, "run", "--json", "--seeds", str(args.reverify_seeds), "--all-sets"] + untimed + [tj, cand["path"]],
                       capture_output=True, text=True, timeout=900)
    try:
        k = json.loads(r.stdout)["tasks"][0]
    except (ValueError, KeyError, IndexError):
        return False, 0.0, f"ptxgen run gave no result (exit {r.returncode}): {r.stderr[-300:]}"
    kern = k.get("kernel", {})
    ok = kern.get("status") == "ok" and not kern.get("hygiene") and not kern.get("faster_than_light")
    return ok, float(k.get("speedup_vs_nvcc") or 0), kern.get("detail") or kern.get("hygiene") or ""


def step_select(args):
    out = os.path.join(rdir(args), "kept.json")
    if os.path.exists(out):
        return "done"
    doc = read_json(os.path.join(rdir(args), "pool-eval.json"))
    gpu = bool(doc.get("gpu_ran"))
    if not gpu and not args.allow_unverified:
        raise SystemExit("the pool was not run on a GPU: nothing is verified, so nothing is kept "
                         "(--allow-unverified is for CPU tests of the data path only)")
    cands = candidates(doc, os.path.join(rdir(args), "gen"), args.allow_unverified)
    partial = out + ".partial"
    state = read_json(partial) if os.path.exists(partial) else {"kept": {}, "failed_reverify": [], "done": []}
    kdir = os.path.join(rdir(args), "kept")
    os.makedirs(kdir, exist_ok=True)

    def judge(task):
        """(task, the best candidate that passes again or None, the failures)."""
        best, fails = None, []
        for c in cands[task][: max(1, args.time_top)]:
            if gpu and not args.no_reverify:
                ok, sp, why = reverify(args, c)
                if not ok:
                    fails.append({"task": task, "path": c["path"], "why": why[:300]})
                    continue
                c = dict(c, speedup=sp)
            if best is None or c["speedup"] > best["speedup"]:
                best = c
        return task, best, fails

    todo = [t for t in sorted(cands) if t not in state["done"]]
    jobs = max(1, args.reverify_jobs)
    with ThreadPoolExecutor(jobs) as ex:   # waves of `jobs` tasks; the state is saved after each
        for w in range(0, len(todo), jobs):
            if args.deadline and time.time() > args.t_end - 20:
                write_json(partial, state)
                return "partial"
            for task, best, fails in ex.map(judge, todo[w:w + jobs]):
                state["failed_reverify"] += fails
                if best:
                    dst = os.path.join(kdir, f"{task}.ptx")
                    copy_file(best["path"], dst)
                    state["kept"][task] = {"dir": best["dir"], "family": best["family"], "path": dst, "from": best["path"],
                                           "speedup": best["speedup"], "styles_solved": best["styles"],
                                           "verified": "gpu" if gpu else "not verified (CPU test)"}
                state["done"].append(task)
            write_json(partial, state)
    state["candidates"] = sum(len(v) for v in cands.values())
    write_json(out, state)
    os.remove(partial)
    return "done"


def step_pairs(args):
    out = os.path.join(rdir(args), "pairs.jsonl")
    if os.path.exists(out):
        return "done"
    kept = read_json(os.path.join(rdir(args), "kept.json"))["kept"]
    rows = synth_rows(kept, args.pool, args.round, args.arch)
    sj = os.path.join(rdir(args), "kept-synth.jsonl")
    atomic_write(sj, lambda f: f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    own = os.path.join(rdir(args), "pairs-own.jsonl")
    r = run([args.ptxgen, "prompts", "--format", "chatml", "--no-signature-pct", str(args.no_signature_pct), "--arch", args.arch,
             "--in", sj, "--out", own])
    if r.returncode not in (0, 1):
        raise SystemExit(f"ptxgen prompts failed ({r.returncode})")
    # this round's pairs, the earlier rounds' (expert iteration trains on all it has verified), replay
    files = [own] + [os.path.join(rdir(args, q), "pairs-own.jsonl") for q in range(1, args.round)]
    files = [p for p in files if os.path.exists(p)]
    if args.replay:
        rp = os.path.join(rdir(args), "replay.jsonl")
        with open(args.replay, encoding="utf-8") as fi:
            lines = [ln for ln in fi if ln.strip()]
        # a seeded uniform sample (the file's first lines are one source, e.g. the local pairs)
        pick = sorted(random.Random(args.seed + args.round).sample(range(len(lines)), min(args.replay_n, len(lines))))
        atomic_write(rp, lambda fo: fo.writelines(lines[i] for i in pick))
        files.append(rp)
    # pairs.jsonl says the step is done, so it is written last (a crash before it redoes the step)
    n = merge_pairs(files, out + ".build")
    write_json(os.path.join(rdir(args), "pairs.json"), {"rows": len(rows), "pairs": n, "files": files})
    os.replace(out + ".build", out)
    return "done"


def step_train(args):
    out = os.path.join(rdir(args), "adapter")
    if os.path.exists(os.path.join(out, "adapter_config.json")):
        return "done"
    pairs = os.path.join(rdir(args), "pairs.jsonl")
    if os.path.getsize(pairs) == 0:
        raise SystemExit("no verified pairs this round: nothing to train on (more samples, or an easier pool)")
    cmd = [sys.executable, os.path.join(HERE, "lora_base.py"), "--base", args.base, "--pairs", pairs, "--out", out,
           "--lr", str(args.lr)]
    init = prev_adapter(args)
    if init:
        cmd += ["--init-adapter", init]
    if args.train_seconds:
        cmd += ["--time-budget", str(args.train_seconds)]
    if args.train_steps:
        cmd += ["--max-steps", str(args.train_steps)]
    cmd += args.train_args.split() if args.train_args else []
    if args.device:
        cmd += ["--device", args.device]
    r = run(cmd)
    if r.returncode != 0:
        raise SystemExit(f"lora_base.py failed ({r.returncode})")
    return "done"


def step_evaluate(args):
    """One generation run over every suite (one batch: the suites' cases decode together, so a
    deadline cuts the slowest kernels of all suites rather than a whole suite), then each suite
    verified.  Kernels the deadline cut are written unfinished and count as failures."""
    adapter = os.path.join(rdir(args), "adapter") if args.round > 0 else args.adapter0
    suites = args.suites.split(",")
    todo = [s for s in suites if not os.path.exists(os.path.join(rdir(args), f"eval-{os.path.basename(os.path.normpath(s))}.json"))]
    if not todo:
        return "done"
    gdir = os.path.join(rdir(args), "gen-eval")
    if not all(gen_complete(args, s, gdir, args.eval_samples, args.eval_styles) for s in todo):
        os.makedirs(gdir, exist_ok=True)
        run(gen_cmd(args, todo, gdir, args.eval_samples, adapter, args.only, evaluation=True))
        if not all(gen_complete(args, s, gdir, args.eval_samples, args.eval_styles) for s in todo):
            return "partial"
    for suite in todo:
        out = os.path.join(rdir(args), f"eval-{os.path.basename(os.path.normpath(suite))}.json")
        if eval_suite(args, suite, gdir, args.eval_samples, out, styles=args.eval_styles) != "done":
            return "partial"
    return "done"


def step_metrics(args):
    out = os.path.join(rdir(args), "metrics.json")
    m = {"round": args.round, "model": args.model_name, "date": time.strftime("%Y-%m-%d", time.gmtime()),
         "start_adapter": prev_adapter(args) if args.round > 0 else args.adapter0}
    pe = os.path.join(rdir(args), "pool-eval.json")
    if os.path.exists(pe):
        m["pool"] = pool_counts(read_json(pe))
        m["pool"]["samples_per_case"] = args.samples
    kj = os.path.join(rdir(args), "kept.json")
    if os.path.exists(kj):
        k = read_json(kj)
        m["kept"] = len(k["kept"])
        m["failed_reverify"] = len(k["failed_reverify"])
        sp = [v["speedup"] for v in k["kept"].values() if v["speedup"] > 0]
        m["kept_faster_than_nvcc"] = sum(1 for x in sp if x >= 1.0)
    pj = os.path.join(rdir(args), "pairs.json")
    if os.path.exists(pj):
        m["pairs"] = read_json(pj)["pairs"]
    tl = os.path.join(rdir(args), "adapter", "train_log.jsonl")
    if os.path.exists(tl):
        with open(tl) as f:
            done = [json.loads(x) for x in f if '"done"' in x]
        if done:
            m["train"] = {k: done[-1].get(k) for k in ("steps", "train_seconds", "final_loss_ema", "val_loss", "epochs")}
    m["suites"] = {}
    for suite in args.suites.split(","):
        s = os.path.basename(os.path.normpath(suite))
        p = os.path.join(rdir(args), f"eval-{s}.json")
        if os.path.exists(p):
            m["suites"][s] = suite_metrics(read_json(p), args.eval_samples)
    write_json(out, m)
    return "done"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("step", choices=STEPS + ["all"])
    ap.add_argument("--round", type=int, required=True, help="1, 2, ...; 0 evaluates the starting model (evaluate, metrics)")
    ap.add_argument("--work", required=True, help="folder of the rounds (round-R/ each)")
    ap.add_argument("--pool", help="training pool: task folders (NAME/task.json), e.g. from train/task_pool.py")
    ap.add_argument("--base", required=True, help="HF base directory (as lora_base.py and generate.py take it)")
    ap.add_argument("--adapter0", help="the adapter round 1 starts from (default: the base alone, a fresh LoRA)")
    ap.add_argument("--tokenizer")
    ap.add_argument("--samples", type=int, default=8, help="K: kernels per task and description style")
    ap.add_argument("--styles", default=",".join(STYLES))
    ap.add_argument("--only", help="comma list of task names (pool and suites)")
    ap.add_argument("--suites", default="bench/suite,bench/suite-prose")
    ap.add_argument("--eval-samples", type=int, default=8)
    ap.add_argument("--ptxgen", default=os.path.join(ROOT, "build", "ptxgen"))
    ap.add_argument("--lib", default=os.path.join(ROOT, "build", "libptxgen.so"))
    ap.add_argument("--model-name", default="expert-iter")
    ap.add_argument("--arch", default="sm_80")
    ap.add_argument("--temperature", type=float, default=0.7, help="sampling temperature for the pool (diversity)")
    ap.add_argument("--eval-temperature", type=float, default=0.3,
                    help="sampling temperature on the held-out suites (generate.py's default, as every suite eval)")
    ap.add_argument("--eval-styles", default=",".join(STYLES), help="description styles evaluated on the suites")
    ap.add_argument("--sample-seconds", type=float, default=0, help="cap on the pool's generation time (0: the call's)")
    ap.add_argument("--eval-gen-seconds", type=float, default=0, help="cap on the suites' generation time (0: the call's)")
    ap.add_argument("--max-new", type=int, default=3072)
    ap.add_argument("--batch", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--device")
    ap.add_argument("--shards", type=int, default=8, help="parallel `ptxgen eval` shards")
    ap.add_argument("--time-top", type=int, default=2, help="candidates per task re-verified and timed")
    ap.add_argument("--reverify-seeds", type=int, default=10)
    ap.add_argument("--reverify-jobs", type=int, default=1,
                    help="re-runs at once (> 1: they share the GPU, so they are not timed: correctness only)")
    ap.add_argument("--no-reverify", action="store_true")
    ap.add_argument("--no-timing", action="store_true")
    ap.add_argument("--no-gpu", action="store_true", help="eval without the GPU (CPU tests)")
    ap.add_argument("--allow-unverified", action="store_true", help="CPU tests only: keep valid kernels nothing verified")
    ap.add_argument("--no-signature-pct", type=int, default=0)
    ap.add_argument("--replay", help="pairs JSONL mixed into every round (the original training data), first --replay-n lines")
    ap.add_argument("--replay-n", type=int, default=2000)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--train-seconds", type=float, default=300)
    ap.add_argument("--train-steps", type=int, default=0)
    ap.add_argument("--train-args", default="", help="more lora_base.py arguments, space separated")
    ap.add_argument("--deadline", type=float, default=0, help="seconds for this call; later steps wait for the next call")
    ap.add_argument("--stop-after", choices=STEPS, help="with `all`: end this call after that step, done now or "
                    "before (e.g. train, so that evaluate starts with a whole call's time); leave it off the next call")
    args = ap.parse_args(argv)
    args.t_end = time.time() + args.deadline if args.deadline else float("inf")
    os.makedirs(rdir(args), exist_ok=True)
    steps = STEPS if args.step == "all" else [args.step]
    if args.round == 0:
        steps = [s for s in steps if s in ("evaluate", "metrics")]
    for st in steps:
        if st in ("sample", "verify", "select", "pairs") and not args.pool:
            raise SystemExit(f"{st} needs --pool")
        if args.deadline and time.time() > args.t_end - 30:
            log("deadline: stopping before " + st, round=args.round)
            return 4
        res = globals()["step_" + st](args)
        log(st + ": " + res, round=args.round)
        if res != "done":
            return 4
        if args.stop_after == st and st != steps[-1]:
            log("stopping after " + st + " (--stop-after); call again to continue", round=args.round)
            return 4
    if args.step == "all":
        log("round complete", round=args.round)
    return 0


if __name__ == "__main__":
    sys.exit(main())
