#!/usr/bin/env python3
"""Regenerate tests/gen/tiny: a randomly initialised Qwen2 (transformers, seed 0)
with the project tokenizer, for the constrained-generation tests (`test_gen`):
whatever the weights, constrained output must be valid PTX.

    python3 tests/gen/make_tiny_model.py      # from the repository root
"""
import json, os, shutil, sys

import torch
from transformers import Qwen2Config, Qwen2ForCausalLM

root = os.path.dirname(os.path.abspath(__file__))
tok_path = os.path.join(root, "..", "..", "models", "default", "tokenizer.json")
tok = json.load(open(tok_path))
vocab = max(max(tok["model"]["vocab"].values()), max(t["id"] for t in tok["added_tokens"])) + 1
ids = {t["content"]: t["id"] for t in tok["added_tokens"]}
torch.manual_seed(0)
cfg = Qwen2Config(vocab_size=vocab, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096,
                  rope_theta=10000.0, rms_norm_eps=1e-6, tie_word_embeddings=True,
                  bos_token_id=ids["<|endoftext|>"], eos_token_id=ids["<|end|>"], torch_dtype="bfloat16")
model = Qwen2ForCausalLM(cfg)
# larger-than-default init so the random model has opinions (peaked distributions)
with torch.no_grad():
    for p in model.parameters():
        if p.dim() > 1:
            p.normal_(0, 0.5)
out = os.path.join(root, "tiny")
tmp = out + ".tmp"
shutil.rmtree(tmp, ignore_errors=True)
model.to(torch.bfloat16).save_pretrained(tmp, safe_serialization=True)
shutil.copy(tok_path, os.path.join(tmp, "tokenizer.json"))
shutil.rmtree(out, ignore_errors=True)
os.rename(tmp, out)
print("wrote", out, "vocab", vocab, "params", sum(p.numel() for p in model.parameters()))
