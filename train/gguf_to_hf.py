"""gguf_to_hf.py — a GGUF base (qwen2 or llama architecture) as a Hugging Face
directory (config.json + model.safetensors in bf16 or f32), for training and
GPU generation in PyTorch.

It dequantizes every tensor with the `gguf` package (gguf.quants.dequantize),
maps llama.cpp's tensor names to transformers' and undoes the Q/K row
permutation llama.cpp's converter applies for the llama architecture (qwen2
keeps the NEOX rope and needs none).  Independent of how a given transformers
version loads GGUF files (some keep the weights packed and refuse to train
them).  The tokenizer is not converted here: pass --tokenizer-from DIR to copy
tokenizer files made once by `AutoTokenizer.from_pretrained(dir, gguf_file=..)
.save_pretrained(DIR)`.

    python3 train/gguf_to_hf.py models/base/qwen2.5-coder-0.5b-instruct.gguf /tmp/qwen-hf
"""
import argparse
import json
import os
import shutil
import sys

import numpy as np


def meta(r, key, default=None):
    f = r.fields.get(key)
    if f is None:
        return default
    v = f.contents()
    return v


def reverse_permute(w, n_head):
    """Undo llama.cpp's permute(): rows grouped (head, pair, half) back to (head, half, pair)."""
    dim = w.shape[0] // n_head // 2
    return w.reshape(n_head, dim, 2, *w.shape[1:]).swapaxes(2, 1).reshape(w.shape)


def convert(gguf_path, out, dtype="bf16", tokenizer_from=None):
    import torch
    from gguf import GGUFReader
    from gguf.quants import dequantize
    from safetensors.torch import save_file

    r = GGUFReader(gguf_path)
    arch = meta(r, "general.architecture")
    if arch not in ("qwen2", "llama"):
        raise SystemExit(f"{gguf_path}: architecture '{arch}' is not qwen2 or llama")
    p = arch + "."
    tensors = {t.name: t for t in r.tensors}
    n_layer = int(meta(r, p + "block_count"))
    hidden = int(meta(r, p + "embedding_length"))
    n_head = int(meta(r, p + "attention.head_count"))
    n_kv = int(meta(r, p + "attention.head_count_kv", n_head))
    vocab = int(tensors["token_embd.weight"].shape[1])
    tied = "output.weight" not in tensors
    cfg = {
        "architectures": ["Qwen2ForCausalLM" if arch == "qwen2" else "LlamaForCausalLM"],
        "model_type": arch,
        "vocab_size": vocab,
        "hidden_size": hidden,
        "intermediate_size": int(meta(r, p + "feed_forward_length")),
        "num_hidden_layers": n_layer,
        "num_attention_heads": n_head,
        "num_key_value_heads": n_kv,
        "head_dim": int(meta(r, p + "rope.dimension_count", hidden // n_head)),
        "max_position_embeddings": int(meta(r, p + "context_length", 4096)),
        "rope_theta": float(meta(r, p + "rope.freq_base", 10000.0)),
        "rms_norm_eps": float(meta(r, p + "attention.layer_norm_rms_epsilon", 1e-6)),
        "hidden_act": "silu",
        "tie_word_embeddings": tied,
        "torch_dtype": "bfloat16" if dtype == "bf16" else "float32",
        "use_cache": True,
        "_name_or_path": str(meta(r, "general.name", os.path.basename(gguf_path))),
    }
    if arch == "qwen2":
        cfg.update({"use_sliding_window": False, "sliding_window": None, "max_window_layers": n_layer, "attention_dropout": 0.0})
    else:
        cfg.update({"attention_bias": False, "mlp_bias": False, "pretraining_tp": 1})
    names = {"token_embd.weight": "model.embed_tokens.weight", "output_norm.weight": "model.norm.weight",
             "output.weight": "lm_head.weight"}
    per = {"attn_norm.weight": "input_layernorm.weight", "ffn_norm.weight": "post_attention_layernorm.weight",
           "attn_q.weight": "self_attn.q_proj.weight", "attn_q.bias": "self_attn.q_proj.bias",
           "attn_k.weight": "self_attn.k_proj.weight", "attn_k.bias": "self_attn.k_proj.bias",
           "attn_v.weight": "self_attn.v_proj.weight", "attn_v.bias": "self_attn.v_proj.bias",
           "attn_output.weight": "self_attn.o_proj.weight", "ffn_gate.weight": "mlp.gate_proj.weight",
           "ffn_up.weight": "mlp.up_proj.weight", "ffn_down.weight": "mlp.down_proj.weight"}
    for i in range(n_layer):
        for k, v in per.items():
            names[f"blk.{i}.{k}"] = f"model.layers.{i}.{v}"
    tdt = torch.bfloat16 if dtype == "bf16" else torch.float32
    sd = {}
    for name, t in tensors.items():
        if name not in names:
            if name.startswith("rope_freqs"):
                continue
            raise SystemExit(f"{gguf_path}: tensor '{name}' has no Hugging Face name")
        w = dequantize(t.data, t.tensor_type).astype(np.float32)
        w = w.reshape([int(d) for d in reversed(t.shape)]) if w.ndim != len(t.shape) else w
        if arch == "llama" and name.endswith("attn_q.weight"):
            w = reverse_permute(w, n_head)
        elif arch == "llama" and name.endswith("attn_k.weight"):
            w = reverse_permute(w, n_kv)
        sd[names[name]] = torch.from_numpy(np.ascontiguousarray(w)).to(tdt)
    os.makedirs(out, exist_ok=True)
    save_file(sd, os.path.join(out, "model.safetensors"), metadata={"format": "pt"})
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    if tokenizer_from:
        for fn in os.listdir(tokenizer_from):
            if fn.startswith("tokenizer") or fn in ("special_tokens_map.json", "chat_template.jinja", "generation_config.json"):
                shutil.copy(os.path.join(tokenizer_from, fn), os.path.join(out, fn))
    return cfg


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gguf")
    ap.add_argument("out")
    ap.add_argument("--dtype", choices=["bf16", "f32"], default="bf16")
    ap.add_argument("--tokenizer-from", help="copy tokenizer files from this directory")
    a = ap.parse_args(argv)
    cfg = convert(a.gguf, a.out, a.dtype, a.tokenizer_from)
    print(json.dumps({"out": a.out, "model_type": cfg["model_type"], "layers": cfg["num_hidden_layers"], "vocab": cfg["vocab_size"],
                      "tied": cfg["tie_word_embeddings"]}))


if __name__ == "__main__":
    sys.exit(main())
