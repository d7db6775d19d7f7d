"""export.py — write a model in Hugging Face's layout.

OUT/config.json, OUT/generation_config.json, OUT/model.safetensors (bf16 by default,
or f32) — or shards model-0000K-of-0000N.safetensors of at most 16 MiB each plus
model.safetensors.index.json when the weights are larger — the tokenizer files,
and a model card README.md generated from the training log.  Every file is
written to a temporary name and renamed.

Usage: python3 train/export.py --ckpt OUT/ckpt.pt --out DIR [--dtype bf16|f32]
       (re-export a training checkpoint; train.py calls export_model itself).
"""
import argparse
import datetime
import json
import os
import shutil
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

SHARD_BYTES = 16 * 2**20
DTYPES = {"bf16": torch.bfloat16, "f32": torch.float32, "f16": torch.float16}
HF_DTYPE = {"bf16": "bfloat16", "f32": "float32", "f16": "float16"}


def write_atomic(path, data):
    """data: bytes or str."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def plan_shards(sizes, max_bytes=SHARD_BYTES):
    """sizes: list of (name, nbytes) in order -> list of lists of names, each <= max_bytes
    (plus the safetensors header, a few KiB).  A tensor larger than max_bytes gets a shard
    of its own; that shard is then over the limit, which the caller reports."""
    shards, cur, cur_bytes = [], [], 0
    header_reserve = 64 * 1024
    for name, n in sizes:
        if cur and cur_bytes + n > max_bytes - header_reserve:
            shards.append(cur)
            cur, cur_bytes = [], 0
        cur.append(name)
        cur_bytes += n
    if cur:
        shards.append(cur)
    return shards


def save_weights(sd, out_dir, dtype="bf16", max_shard_bytes=SHARD_BYTES):
    """sd: name -> tensor (HF names).  Returns the list of files written."""
    from safetensors.torch import save
    t = {k: v.detach().to(DTYPES[dtype]).contiguous().cpu() for k, v in sd.items()}
    total = sum(v.numel() * v.element_size() for v in t.values())
    for old in os.listdir(out_dir):          # weights of an earlier export with another shard count
        if old.startswith("model-") and old.endswith(".safetensors") or old == "model.safetensors.index.json" \
                or old == "model.safetensors":
            os.remove(os.path.join(out_dir, old))
    if total + 64 * 1024 <= max_shard_bytes:
        write_atomic(os.path.join(out_dir, "model.safetensors"), save(t, metadata={"format": "pt"}))
        return ["model.safetensors"]
    names = sorted(t)                         # deterministic order
    shards = plan_shards([(k, t[k].numel() * t[k].element_size()) for k in names], max_shard_bytes)
    files, weight_map = [], {}
    for i, group in enumerate(shards, 1):
        fn = f"model-{i:05d}-of-{len(shards):05d}.safetensors"
        data = save({k: t[k] for k in group}, metadata={"format": "pt"})
        if len(data) > max_shard_bytes:
            print(f"export: warning: {fn} is {len(data)} bytes (one tensor over {max_shard_bytes})", file=sys.stderr)
        write_atomic(os.path.join(out_dir, fn), data)
        files.append(fn)
        for k in group:
            weight_map[k] = fn
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    write_atomic(os.path.join(out_dir, "model.safetensors.index.json"), json.dumps(index, indent=2) + "\n")
    return files + ["model.safetensors.index.json"]


def model_card(cfg, log, n_params, dtype):
    """README.md from the training log (list of JSON records written by train.py)."""
    start = next((r for r in log if r.get("event") == "start"), {})
    end = next((r for r in reversed(log) if r.get("event") in ("end", "checkpoint")), {})
    evals = [r for r in log if r.get("event") == "eval"]
    last = evals[-1] if evals else {}
    phases = [r for r in log if r.get("event") == "phase_end"]
    lines = [
        "---", "library_name: transformers", "tags: [ptx, cuda, code-generation, qwen2]", "---", "",
        "# ptxgen PTX model", "",
        "A small Qwen2-architecture decoder that writes NVIDIA PTX from a kernel description, "
        f"trained by `train/train.py` of ptxgen (start: {start.get('model', '?')}) on the project's synthetic dataset "
        "(every sample passes `ptxgen check` and ptxas). Loads with "
        "`transformers.AutoModelForCausalLM` and with ptxgen's C engine.", "",
        "## Prompt format", "",
        "```", "<|task|>{description}", "<|arch|>{arch}", "<|signature|>{signature}",
        "<|ptx|>{canonical PTX}<|end|>", "```", "",
        "## Model", "",
        f"- architecture: Qwen2 ({cfg.num_hidden_layers} layers, hidden {cfg.hidden_size}, "
        f"{cfg.num_attention_heads} heads / {cfg.num_key_value_heads} kv heads, head_dim {cfg.head_dim}, "
        f"intermediate {cfg.intermediate_size}, vocab {cfg.vocab_size}, "
        f"{'tied' if cfg.tie_word_embeddings else 'untied'} embeddings)",
        f"- parameters: {n_params:,} ({dtype} weights)",
        f"- LoRA (fine-tune phase) merged into the weights; the adapter alone is in `adapter/` when shipped", "",
        "## Training", "",
        f"- date: {end.get('time', start.get('time', datetime.datetime.now(datetime.timezone.utc).isoformat()))}",
        f"- device: {start.get('device', '?')} (world size {start.get('world_size', 1)})",
        f"- data: `{start.get('data', '?')}`: {start.get('pairs_train', '?')} train / "
        f"{start.get('pairs_val', '?')} val pairs",
    ]
    for p in phases:
        lines.append(f"- phase {p['phase']}: {p['steps']} steps, {p['tokens']:,} tokens seen, "
                     f"{p['seconds']:.0f} s, last train loss {p.get('train_loss', float('nan')):.4f}"
                     + (f", max_length {p['max_length']} ({p['dropped']} longer samples dropped)"
                        if "max_length" in p else ""))
    if last:
        lines += ["", "## Metrics (last evaluation)", "",
                  "| metric | value |", "| --- | --- |"]
        for k in ("phase", "step", "train_loss", "val_loss", "n_prompts", "greedy_check_pass",
                  "greedy_ptxas_pass", "greedy_ended", "sampled_check_pass", "sampled_ptxas_pass",
                  "sampled_ended", "sampling"):
            if k in last:
                v = last[k]
                lines.append(f"| {k} | {v:.4f} |" if isinstance(v, float) else f"| {k} | {v} |")
        if last.get("ptxas_note"):
            lines.append(f"\n{last['ptxas_note']}")
    lines += ["", "Outputs are unconstrained samples here; `ptxgen gen` adds the constrained decoder.", ""]
    return "\n".join(lines)


def export_model(model, out_dir, tokenizer_dir=None, log=None, dtype="bf16", max_shard_bytes=SHARD_BYTES):
    """Write the HF directory for `model` (our Qwen2ForCausalLM, LoRA already merged)."""
    os.makedirs(out_dir, exist_ok=True)
    cfg = model.config
    write_atomic(os.path.join(out_dir, "config.json"), json.dumps(cfg.to_hf(HF_DTYPE[dtype]), indent=2) + "\n")
    gen = {"bos_token_id": cfg.bos_token_id, "eos_token_id": cfg.eos_token_id, "pad_token_id": cfg.pad_token_id,
           "do_sample": True, "temperature": 0.3, "top_k": 5, "max_new_tokens": 1536}
    write_atomic(os.path.join(out_dir, "generation_config.json"), json.dumps(gen, indent=2) + "\n")
    files = save_weights(model.hf_state_dict(), out_dir, dtype, max_shard_bytes)
    if tokenizer_dir:
        for fn in ("tokenizer.json", "tokenizer_config.json"):
            src = os.path.join(tokenizer_dir, fn)
            if os.path.exists(src) and os.path.abspath(src) != os.path.abspath(os.path.join(out_dir, fn)):
                tmp = os.path.join(out_dir, fn + ".tmp")
                shutil.copyfile(src, tmp)
                os.replace(tmp, os.path.join(out_dir, fn))
    write_atomic(os.path.join(out_dir, "README.md"), model_card(cfg, log or [], model.num_params(), dtype))
    return files


def read_log(path):
    out = []
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    pass          # a line cut by a kill: the rest is still useful
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", required=True, help="checkpoint written by train.py (ckpt.pt)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--dtype", default="bf16", choices=sorted(DTYPES))
    ap.add_argument("--tokenizer-dir", default="models/default")
    ap.add_argument("--log", default=None, help="train_log.jsonl for the model card")
    args = ap.parse_args()
    from model import Qwen2Config, Qwen2ForCausalLM
    import lora as L
    ck = torch.load(args.ckpt, map_location="cpu", weights_only=False)
    m = Qwen2ForCausalLM(Qwen2Config(**ck["config"]))
    if ck.get("lora"):
        info = ck["lora"]
        L.apply_lora(m, info["r"], info["alpha"], 0.0, info["targets"])
    m.load_state_dict(ck["model"])
    if ck.get("lora"):
        L.save_adapter(m, os.path.join(args.out, "adapter"))
        L.merge_lora(m)
    files = export_model(m, args.out, args.tokenizer_dir, read_log(args.log), args.dtype)
    print(json.dumps({"out": args.out, "files": files}))


if __name__ == "__main__":
    main()
