#!/usr/bin/env python3
"""make_bench_model.py — the benchmark model and the PyTorch CPU baseline.

  python3 bench/make_bench_model.py OUT_DIR          # write the model (HF layout, f32 safetensors)
  python3 bench/make_bench_model.py --torch OUT_DIR  # time PyTorch on it, print one JSON line

The model is a random-weight (seed 0) Qwen2 of 15.7M parameters — vocab 8192,
hidden 384, 8 layers, 6 heads, 2 kv heads, head_dim 64, intermediate 1024,
tied embeddings — the same shape the llama.cpp numbers in bench/NOTES.md use.
PyTorch timing: torch.set_num_threads(2), float32, pp64 = one forward of 64
tokens, tg256 = 256 single-token steps with the KV cache from an empty context.
"""
import json, os, sys, time, resource


def make(out):
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM
    torch.manual_seed(0)
    cfg = Qwen2Config(vocab_size=8192, hidden_size=384, intermediate_size=1024, num_hidden_layers=8,
                      num_attention_heads=6, num_key_value_heads=2, head_dim=64, max_position_embeddings=2048,
                      rope_theta=10000.0, rms_norm_eps=1e-6, tie_word_embeddings=True, bos_token_id=1,
                      eos_token_id=2, use_sliding_window=False)
    m = Qwen2ForCausalLM(cfg).float().eval()
    n = sum(p.numel() for p in m.parameters())
    m.save_pretrained(out, safe_serialization=True)
    print(f"{out}: {n / 1e6:.2f}M parameters")


def bench_torch(d, threads=2, pp=64, tg=256, reps=3):
    import torch
    from transformers import Qwen2ForCausalLM, DynamicCache
    torch.set_num_threads(threads)
    m = Qwen2ForCausalLM.from_pretrained(d, dtype=torch.float32).eval()
    g = torch.Generator().manual_seed(1)
    prompt = torch.randint(3, m.config.vocab_size, (1, pp), generator=g)
    best_pp, best_tg = 1e9, 1e9
    with torch.inference_mode():
        for _ in range(reps + 1):   # the first round warms up
            t0 = time.perf_counter()
            m(input_ids=prompt, past_key_values=DynamicCache(), use_cache=True)
            t_pp = time.perf_counter() - t0
            cache, tok = DynamicCache(), torch.tensor([[1]])
            t0 = time.perf_counter()
            for _ in range(tg):
                out = m(input_ids=tok, past_key_values=cache, use_cache=True)
                tok = out.logits[:, -1].argmax(-1, keepdim=True)
            t_tg = time.perf_counter() - t0
            if _ > 0 or reps == 0:
                best_pp, best_tg = min(best_pp, t_pp), min(best_tg, t_tg)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"engine": "pytorch", "model": d, "torch": torch.__version__, "dtype": "f32", "threads": threads,
                      "pp64_tok_s": pp / best_pp, "tg256_tok_s": tg / best_tg, "ttft_ms": best_pp * 1e3,
                      "peak_rss_mb": rss}))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--torch":
        bench_torch(sys.argv[2])
    elif len(sys.argv) == 2:
        make(sys.argv[1])
    else:
        sys.exit(__doc__)
