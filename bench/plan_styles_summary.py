#!/usr/bin/env python3
"""Summarize a plan-style A/B of `ptxgen synth` (docs/LITERATE.md "Plan styles").

Two runs with the same arguments but --plan-style varied / fixed draw the same tasks; this
pairs their samples by id and writes, per family, the share of each plan style of the varied
run, the verification counts of both runs (synth's OUT.meta.json), and the token counts
(Qwen's tokenizer through `ptxgen tokenize --stats`) of the literate target (ptx_code) and
of the plan (cuda_c) per style, median per sample, beside the fixed run's same samples.

usage: plan_styles_summary.py --varied V.jsonl --fixed F.jsonl --tokenizer QWEN.gguf
                              [--ptxgen build/ptxgen] --out RESULT.json [--meta key=value ...]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def p50(ptxgen, tok, records, field):
    """Median tokens per sample of field over records (`ptxgen tokenize --stats`, nearest rank)."""
    if not records:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for r in records:
            f.write(json.dumps({field: r.get(field, "")}) + "\n")
        path = f.name
    try:
        out = subprocess.run([ptxgen, "tokenize", "--tokenizer", tok, "--stats", path, "--field", field, "--json"], check=True,
                             capture_output=True, text=True).stdout
    finally:
        os.unlink(path)
    return json.loads(out)["tokens_per_sample"]["p50"]


def load(path):
    with open(path) as f:
        return {j["id"]: j for j in map(json.loads, f)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--varied", required=True)
    ap.add_argument("--fixed", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--ptxgen", default="build/ptxgen")
    ap.add_argument("--out", required=True)
    ap.add_argument("--meta", nargs="*", default=[])
    a = ap.parse_args()
    var, fix = load(a.varied), load(a.fixed)
    fams = {}
    groups = {}
    for sid, v in sorted(var.items()):
        fam = v["family"]
        style = v.get("plan_style", "house (no variants)")
        shape = style.split("/")[0] if "/" in style else style
        fams.setdefault(fam, {"samples": 0, "styles": {}, "shapes": {}})
        fams[fam]["samples"] += 1
        fams[fam]["styles"][style] = fams[fam]["styles"].get(style, 0) + 1
        fams[fam]["shapes"][shape] = fams[fam]["shapes"].get(shape, 0) + 1
        f = fix.get(sid)
        if f is None or f["task"] != v["task"]:
            continue   # paired only where both runs wrote the same task
        key = "rowwise:" + style.split("/")[1] if shape.startswith("names") else shape
        groups.setdefault(key, []).append((v, f))
        groups.setdefault("all", []).append((v, f))
    for fam in fams.values():
        n = fam["samples"]
        fam["shape_share"] = {k: round(c / n, 3) for k, c in sorted(fam["shapes"].items())}
    tok = {}
    for k, pairs in sorted(groups.items()):
        vs, fs = [p[0] for p in pairs], [p[1] for p in pairs]
        tok[k] = {
            "paired_samples": len(pairs),
            "plan_identical_to_fixed": sum(1 for v, f in pairs if v.get("cuda_c") == f.get("cuda_c")),
            "literate_ptx_tokens_median": p50(a.ptxgen, a.tokenizer, vs, "ptx_code"),
            "literate_ptx_tokens_median_fixed_same_tasks": p50(a.ptxgen, a.tokenizer, fs, "ptx_code"),
            "plan_tokens_median": p50(a.ptxgen, a.tokenizer, vs, "cuda_c"),
            "plan_tokens_median_fixed_same_tasks": p50(a.ptxgen, a.tokenizer, fs, "cuda_c"),
        }
    meta = {}
    for side, path in (("varied", a.varied), ("fixed", a.fixed)):
        mp = path + ".meta.json"
        if os.path.exists(mp):
            with open(mp) as f:
                meta[side] = json.load(f)
    res = {"date": "2026-12-06", "inputs": {"varied": a.varied, "fixed": a.fixed, "tokenizer": os.path.basename(a.tokenizer)},
           "notes": dict(kv.split("=", 1) for kv in a.meta), "families": fams, "tokens_by_style": tok,
           "synth_meta": meta, "samples": {"varied": len(var), "fixed": len(fix),
                                           "paired_same_task": sum(1 for k in var if k in fix and fix[k]["task"] == var[k]["task"])}}
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(res, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, a.out)
    print(json.dumps(tok, indent=1))


if __name__ == "__main__":
    sys.exit(main())
