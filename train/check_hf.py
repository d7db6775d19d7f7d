"""check_hf.py — does an exported directory mean the same thing to transformers, peft,
the C engine and train/model.py?

  python3 train/check_hf.py DIR [--adapter ADAPTER_DIR --base BASE_DIR] [--ptxgen build/ptxgen]
                            [--prompts N] [--tol 1e-3]

1. transformers.AutoModelForCausalLM.from_pretrained(DIR) vs our model loaded from DIR:
   logits on a few prompts (f32), max relative difference.
2. With --ptxgen (and `ptxgen logits` built): `ptxgen logits --model DIR --ids ... --full`.
3. With --adapter: peft.PeftModel.from_pretrained(BASE, ADAPTER) vs our model with the
   adapter merged (base = --base, default DIR).
4. With --gguf FILE (and --ptxgen): DIR is what train/gguf_to_hf.py made of FILE, and
   transformers on DIR is checked against the C engine on FILE itself
   (`ptxgen logits --model FILE --full --steps S`; f32 activations unless --fast): the prompt
   as one prefill, S greedy decode steps, the last step's logits (max relative difference)
   and every position's greedy token.  This is how the
   device's HF base is tied to the quantized file `ptxgen gen` runs (docs/MODELS.md).
   Alone, --gguf skips checks 1 and 2 (DIR in transformers is the reference).
Prints one JSON verdict {"ok": ..., "checks": [...]}; exit 0 when every check that ran passed.
"""
import argparse
import json
import os
import subprocess
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lora as L  # noqa: E402
from model import load_hf_dir  # noqa: E402

PROMPTS = [
    "<|task|>Add two float arrays: c[i] = a[i] + b[i].\n<|arch|>sm_90\n<|signature|>\n<|ptx|>",
    "<|task|>Sum reduction of a float array with warp shuffles.\n<|arch|>sm_80\n<|signature|>"
    ".visible .entry reduce(\n\t.param .u64 x,\n\t.param .u32 n\n)\n<|ptx|>.version 8.0\n.target sm_80\n",
    "\tld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd10];\n\tfma.rn.f32 %f5, %f1, %f2, %f3;",
]


def hf_load(d):
    """AutoModelForCausalLM in f32 (transformers 5 says dtype=, 4 says torch_dtype=)."""
    from transformers import AutoModelForCausalLM
    try:
        return AutoModelForCausalLM.from_pretrained(d, dtype=torch.float32)
    except TypeError:
        return AutoModelForCausalLM.from_pretrained(d, torch_dtype=torch.float32)


def rel_diff(a, b):
    """max |a-b| / max |b| (a, b: [T, V] float32)."""
    return float((a - b).abs().max() / b.abs().max().clamp_min(1e-12))


def prompt_ids(model_dir, n):
    from tokenizers import Tokenizer
    p = os.path.join(model_dir, "tokenizer.json")
    if os.path.exists(p):
        t = Tokenizer.from_file(p)
        return [t.encode(s, add_special_tokens=False).ids for s in PROMPTS[:n]]
    g = torch.Generator().manual_seed(0)           # no tokenizer: random ids
    return [torch.randint(0, 100, (17,), generator=g).tolist() for _ in range(n)]


@torch.no_grad()
def our_logits(model, ids):
    return model(torch.tensor([ids]))[0][0].float()                   # [T, V]


def check_transformers(d, prompts, tol):
    hf = hf_load(d).eval()
    ours = load_hf_dir(d).float().eval()
    worst = 0.0
    with torch.no_grad():
        for ids in prompts:
            a = our_logits(ours, ids)
            b = hf(torch.tensor([ids])).logits[0].float()              # [T, V]
            worst = max(worst, rel_diff(a, b))
    return {"check": "transformers", "max_rel_diff": worst, "ok": worst <= tol, "prompts": len(prompts)}


def check_c_engine(d, prompts, ptxgen, tol):
    ours = load_hf_dir(d).float().eval()
    worst = 0.0
    for ids in prompts:
        r = subprocess.run([ptxgen, "logits", "--model", d, "--ids", ",".join(map(str, ids)), "--full"],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            return {"check": "c_engine", "ok": None,
                    "note": f"ptxgen logits failed (exit {r.returncode}): {r.stderr.strip()[:200]}"}
        try:
            out = json.loads(r.stdout)
        except json.JSONDecodeError:
            return {"check": "c_engine", "ok": False, "note": "ptxgen logits printed no JSON"}
        # `ptxgen logits --full` prints {"last_logits": [V], ...}; accept {"logits": [[V] x T]} too
        got = (out.get("logits") or out.get("last_logits")) if isinstance(out, dict) else out
        c = torch.tensor(got, dtype=torch.float32)
        a = our_logits(ours, ids)
        if c.dim() == 1:                        # last position only
            a = a[-1:]
            c = c[None]
        if c.shape != a.shape:
            return {"check": "c_engine", "ok": False, "note": f"shape {list(c.shape)} vs {list(a.shape)}"}
        worst = max(worst, rel_diff(c, a))
    return {"check": "c_engine", "max_rel_diff": worst, "ok": worst <= tol, "prompts": len(prompts)}


def check_gguf(d, gguf, prompts, ptxgen, tol, exact=True, steps=4):
    """transformers on DIR (converted from GGUF) against the C engine on the GGUF file: the prompt
    as one prefill, then `steps` greedy decode steps (the decode kernels: int8 activations unless
    exact), the last step's logits compared whole and every position's greedy token."""
    hf = hf_load(d).eval()
    worst, agree, total = 0.0, 0, 0
    for ids in prompts:
        cmd = [ptxgen, "logits", "--model", gguf, "--ids", ",".join(map(str, ids)), "--full", "--top", "1", "--steps", str(steps)]
        r = subprocess.run(cmd + (["--exact"] if exact else []), capture_output=True, text=True, timeout=900)
        if r.returncode != 0:
            return {"check": "gguf", "ok": False, "note": f"ptxgen logits failed (exit {r.returncode}): {r.stderr.strip()[:200]}"}
        out = json.loads(r.stdout)
        c = torch.tensor(out["last_logits"], dtype=torch.float32)
        seq = list(ids) + [s["token"] for s in out["steps"]]       # what the engine saw, step tokens included
        with torch.no_grad():
            ref = hf(torch.tensor([seq])).logits[0].float()                # [T, V]
        if c.shape[0] != ref.shape[1]:
            return {"check": "gguf", "ok": False, "note": f"vocab {c.shape[0]} vs {ref.shape[1]}"}
        worst = max(worst, rel_diff(c[None], ref[-1:]))
        # the engine's greedy choice at every position against transformers' (ties aside)
        mine = [p["top"][0][0] for p in out["positions"] + out["steps"]]
        agree += sum(int(a == b) for a, b in zip(mine, ref.argmax(-1).tolist()))
        total += len(mine)
    return {"check": "gguf", "gguf": gguf, "exact": exact, "steps": steps, "max_rel_diff": worst, "top1_agree": f"{agree}/{total}",
            "ok": worst <= tol, "prompts": len(prompts)}


def check_peft(base, adapter, prompts, tol):
    try:
        from peft import PeftModel
    except ImportError:
        return {"check": "peft", "ok": None, "note": "peft not installed: skipped"}
    hf = hf_load(base)
    pm = PeftModel.from_pretrained(hf, adapter).eval()
    ours = load_hf_dir(base).float()
    L.load_adapter(ours, adapter)
    L.merge_lora(ours)
    ours.eval()
    worst = 0.0
    with torch.no_grad():
        for ids in prompts:
            a = our_logits(ours, ids)
            b = pm(input_ids=torch.tensor([ids])).logits[0].float()
            worst = max(worst, rel_diff(a, b))
    return {"check": "peft", "max_rel_diff": worst, "ok": worst <= tol, "prompts": len(prompts)}


def run_checks(d, adapter=None, base=None, ptxgen=None, n=3, tol=1e-3, gguf=None, exact=True, steps=4):
    prompts = prompt_ids(d, n)
    checks = []
    for fn in (lambda: check_transformers(d, prompts, tol) if not gguf else None,
               lambda: check_c_engine(d, prompts, ptxgen, tol) if ptxgen and not gguf else None,
               lambda: check_peft(base or d, adapter, prompts, tol) if adapter else None,
               lambda: check_gguf(d, gguf, prompts, ptxgen, tol, exact, steps) if gguf else None):
        try:
            r = fn()
        except Exception as e:  # a broken file must give a verdict, not a traceback
            r = {"check": "?", "ok": False, "note": f"{type(e).__name__}: {e}"[:300]}
        if r:
            checks.append(r)
    ok = all(c["ok"] is not False for c in checks) and any(c["ok"] for c in checks)
    return {"ok": ok, "dir": d, "tolerance": tol, "checks": checks}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--adapter")
    ap.add_argument("--base", help="base model for --adapter (default DIR)")
    ap.add_argument("--ptxgen", help="build/ptxgen with the `logits` command")
    ap.add_argument("--prompts", type=int, default=3)
    ap.add_argument("--tol", type=float, default=1e-3, help="max relative logit difference")
    ap.add_argument("--gguf", help="the GGUF file DIR was converted from: check the C engine on it (needs --ptxgen)")
    ap.add_argument("--fast", action="store_true", help="with --gguf: the engine's default int8 activations, not --exact")
    ap.add_argument("--steps", type=int, default=4, help="with --gguf: greedy decode steps after the prompt (default 4)")
    a = ap.parse_args()
    if a.gguf and not a.ptxgen:
        ap.error("--gguf needs --ptxgen")
    torch.manual_seed(0)
    v = run_checks(a.dir, a.adapter, a.base, a.ptxgen, a.prompts, a.tol, a.gguf, not a.fast, a.steps)
    print(json.dumps(v, indent=1))
    sys.exit(0 if v["ok"] else 1)


if __name__ == "__main__":
    main()
