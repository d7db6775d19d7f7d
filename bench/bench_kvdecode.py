"""bench_kvdecode.py — decode steps of train/kvdecode.py's two engines side by side, alternating:
"static" (the preallocated cache) and "hf" (transformers' cache, which grows by concatenation).

A random Qwen2 of the 0.5B's layer shape (hidden 896, 14 heads, 2 KV heads, MLP 4864; --layers of
them, a small vocabulary) so the cache, not the weights, is what differs; B left-padded rows of
prompts of ~L tokens, then S steps.  Prints one JSON line per round and a summary.

    python3 bench/bench_kvdecode.py --rows 16 --prompt 1500 --steps 40 --layers 2          # CPU
    python3 bench/bench_kvdecode.py --rows 384 --prompt 4000 --steps 200 --layers 24      # H200
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "train"))
import kvdecode  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=16)
    ap.add_argument("--prompt", type=int, default=1500)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--vocab", type=int, default=4096)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = ap.parse_args()
    from transformers import Qwen2Config, Qwen2ForCausalLM
    torch.manual_seed(0)
    cfg = Qwen2Config(hidden_size=896, num_attention_heads=14, num_key_value_heads=2, intermediate_size=4864,
                      num_hidden_layers=args.layers, vocab_size=args.vocab, max_position_embeddings=32768,
                      tie_word_embeddings=True, rope_theta=1000000.0)
    dtype = torch.bfloat16 if args.device.startswith("cuda") else torch.float32
    model = Qwen2ForCausalLM(cfg).to(dtype).to(args.device).eval()
    g = torch.Generator().manual_seed(1)
    B, L = args.rows, args.prompt
    lens = torch.randint(L // 2, L + 1, (B,), generator=g)
    lens[0] = L
    ids = torch.randint(0, args.vocab, (B, L), generator=g)                   # [B][L] left-padded
    att = (torch.arange(L)[None, :] >= (L - lens)[:, None]).long()
    toks = torch.randint(0, args.vocab, (args.steps, B), generator=g)
    sync = torch.cuda.synchronize if args.device.startswith("cuda") else (lambda: None)
    res = {"static": [], "hf": []}
    for r in range(args.rounds):
        for eng in ("hf", "static"):
            with torch.no_grad():
                dec = kvdecode.open_decoder(model, B, L + args.steps + 1, eng)
                t0 = time.time()
                dec.start(ids.to(args.device), att.to(args.device))
                sync()
                t1 = time.time()
                for t in toks:
                    dec.step(t.to(args.device))
                sync()
                t2 = time.time()
            row = {"round": r + 1, "engine": eng, "prefill_s": round(t1 - t0, 3), "ms_per_step": round(1000 * (t2 - t1) / args.steps, 2),
                   "load": os.getloadavg()[0]}
            res[eng].append(row["ms_per_step"])
            print(json.dumps(row), flush=True)
            del dec
    med = {e: statistics.median(v) for e, v in res.items()}
    print(json.dumps({"summary": True, "device": args.device, "rows": B, "prompt": L, "steps": args.steps, "layers": args.layers,
                      "median_ms_per_step": med, "speedup": round(med["hf"] / med["static"], 2)}), flush=True)


if __name__ == "__main__":
    main()
