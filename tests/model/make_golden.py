#!/usr/bin/env python3
"""make_golden.py — tiny random Qwen2 models + golden logits for src/model/test_model.c.

Writes into tests/model/ (run from anywhere; deterministic for the seed):
  tied/            Qwen2ForCausalLM, tie_word_embeddings=true, f32, one model.safetensors
  untied_sharded/  a second model, tie_word_embeddings=false, f32, 2+ shards + index json
  tied_bf16/       the tied model saved in bf16
  lora/            PEFT LoRA adapter for tied/ (r=4, q_proj+v_proj, nonzero B)
  golden.json      prompt ids, shapes, greedy decode ids, tolerances; logits in golden.bin
  golden.bin       float32 little-endian logits, concatenated in golden.json's order

Golden logits are computed by transformers/peft in float32: for each case the
prefill logits of every prompt position [n][vocab], then 3 greedy decode steps
with the KV cache ([3][vocab]).  The bf16 case is the bf16-rounded weights run
in float32 (so the C engine, which widens bf16 exactly, must match to 1e-4).
"""
import json, os, shutil, struct, sys
import torch
from transformers import Qwen2Config, Qwen2ForCausalLM

HERE = os.path.dirname(os.path.abspath(__file__))
PROMPT = [1, 17, 42, 99, 150, 7, 288, 3, 64, 201, 5, 123]
STEPS = 3


def make_model(seed, tied):
    torch.manual_seed(seed)
    cfg = Qwen2Config(vocab_size=300, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                      rope_theta=10000.0, rms_norm_eps=1e-6, tie_word_embeddings=tied,
                      bos_token_id=1, eos_token_id=2, initializer_range=0.1, use_sliding_window=False)
    m = Qwen2ForCausalLM(cfg).float().eval()
    with torch.no_grad():  # biases and norm weights are 0/1 after init: make them matter
        for name, p in m.named_parameters():
            if name.endswith("bias"):
                p.copy_(torch.randn_like(p) * 0.1)
            elif "norm" in name:
                p.copy_(1.0 + torch.randn_like(p) * 0.2)
    return m


@torch.no_grad()
def golden(model):
    ids = torch.tensor([PROMPT])
    out = model(input_ids=ids, use_cache=True)
    rows = [out.logits[0].float()]
    past = out.past_key_values
    nxt = int(out.logits[0, -1].argmax())
    dec = []
    for _ in range(STEPS):
        dec.append(nxt)
        out = model(input_ids=torch.tensor([[nxt]]), past_key_values=past, use_cache=True)
        past = out.past_key_values
        rows.append(out.logits[0].float())
        nxt = int(out.logits[0, -1].argmax())
    return torch.cat(rows, 0), dec


def main():
    for d in ["tied", "untied_sharded", "tied_bf16", "lora"]:
        shutil.rmtree(os.path.join(HERE, d), ignore_errors=True)
    cases, blobs = [], []

    def add(name, model_dir, adapter, model, note):
        logits, dec = golden(model)
        cases.append({"name": name, "model": model_dir, "adapter": adapter, "decode_ids": dec,
                      "rows": logits.shape[0], "offset": sum(b.numel() for b in blobs) * 4, "note": note})
        blobs.append(logits.contiguous())

    tied = make_model(0, True)
    tied.save_pretrained(os.path.join(HERE, "tied"), safe_serialization=True)
    add("tied", "tied", None, tied, "f32, tied embeddings, one file")

    untied = make_model(1, False)
    untied.save_pretrained(os.path.join(HERE, "untied_sharded"), safe_serialization=True, max_shard_size="200KB")
    add("untied_sharded", "untied_sharded", None, untied, "f32, lm_head.weight, sharded")

    bf = make_model(0, True).to(torch.bfloat16)
    bf.save_pretrained(os.path.join(HERE, "tied_bf16"), safe_serialization=True)
    # reload in f32 (a fresh f32 RoPE table; bf.float() would keep inv_freq rounded to bf16)
    bf32 = Qwen2ForCausalLM.from_pretrained(os.path.join(HERE, "tied_bf16"), dtype=torch.float32).eval()
    add("tied_bf16", "tied_bf16", None, bf32, "bf16 weights, computed in f32")

    from peft import LoraConfig, get_peft_model
    torch.manual_seed(2)
    base = make_model(0, True)
    lcfg = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], lora_dropout=0.0,
                      bias="none", init_lora_weights=False, use_rslora=False)
    pm = get_peft_model(base, lcfg).eval()
    with torch.no_grad():  # make the update large enough to move the logits visibly
        for n, p in pm.named_parameters():
            if "lora_B" in n:
                p.mul_(4.0)
    pm.save_pretrained(os.path.join(HERE, "lora"))
    os.remove(os.path.join(HERE, "lora", "README.md"))  # PEFT's model card template
    add("tied+lora", "tied", "lora", pm, "tied + PEFT LoRA r=4 alpha=8 on q_proj,v_proj, merged at load")

    with open(os.path.join(HERE, "golden.bin"), "wb") as f:
        for b in blobs:
            f.write(b.numpy().astype("<f4").tobytes())
    meta = {"prompt": PROMPT, "steps": STEPS, "vocab": 300, "cases": cases,
            "made_by": "tests/model/make_golden.py", "torch": torch.__version__}
    with open(os.path.join(HERE, "golden.json"), "w") as f:
        json.dump(meta, f, indent=1)
    n = sum(len(fs) for _, _, fs in os.walk(HERE))
    size = sum(os.path.getsize(os.path.join(r, x)) for r, _, fs in os.walk(HERE) for x in fs)
    print(f"wrote {len(cases)} cases, {n} files, {size} bytes")


if __name__ == "__main__":
    main()
