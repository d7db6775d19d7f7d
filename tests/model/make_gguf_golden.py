#!/usr/bin/env python3
"""make_gguf_golden.py — golden logits for GGUF models in the C engine (src/model/test_model.c).

    python3 tests/model/make_gguf_golden.py                 # tiny models only
    PTXGEN_QWEN_GGUF=/work/dl/qwen.gguf PTXGEN_SMOL_GGUF=.../SmolLM2-135M-Instruct.Q4_1.gguf \
        python3 tests/model/make_gguf_golden.py             # and the real files
    python3 tests/model/make_gguf_golden.py --only qwen15   # one real case (re)made, the others kept
(the real files: qwen, smol and qwen15 = Qwen2.5-Coder-1.5B Q4_K_M, PTXGEN_QWEN15_GGUF or
models/base/qwen2.5-coder-1.5b-instruct.gguf, `models/fetch_base.sh --qwen15`)

Writes, under tests/model/gguf_engine/ (deterministic, seed 0):
  tiny_qwen2.gguf   qwen2 arch, 2 layers, hidden 128, 2 heads / 1 KV head (head_dim 64),
                    FFN 256, vocab 320, q/k/v biases, a separate output matrix;
  tiny_llama.gguf   llama arch, same sizes, no biases, output tied to token_embd;
                    between them every type the engine computes with: F32 F16 BF16 Q4_0
                    Q4_1 Q5_0 Q8_0 Q4_K Q6_K (the K-quants on ffn_down, the only 256-wide
                    input).  Quantized tensors are random blocks with scales chosen so
                    activations stay O(1); llama Q/K rows are taken as already permuted
                    the way llama.cpp's converter does (transformers un-permutes them).
  <case>_lora/      a PEFT LoRA adapter (r=2, alpha=4) on q,k,v,o,gate,up,down (+ lm_head
                    for the tiny models) with random non-zero A and B, so the side path
                    changes the logits.  For the real models only layers 0 and L-1 are
                    adapted (the others' B are zero and not saved: the C loader treats an
                    absent module as not adapted), which keeps the files small.
  golden.json       per case: the prompt ids, for every prefill row (tiny) or the last
                    one (real) and for 3 greedy decode steps the reference logits
                    (tiny: all of them; real: the top 50 ids and values), the greedy
                    token sequence and its FNV-1a hash.
Reference: transformers AutoModelForCausalLM.from_pretrained(dir, gguf_file=..., float32)
(it dequantizes with gguf-py), PEFT on top, torch float32 on the CPU.
"""
import hashlib, json, os, sys

import numpy as np
import torch
import gguf
from gguf import GGMLQuantizationType as Q

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gguf_engine")
STEPS = 3
TOP = 50


def f16_bytes(v):
    return np.asarray(v, np.float16).view(np.uint8).reshape(-1, 2)


def rand_tensor(rng, qt, rows, cols, std=0.06):
    """A [rows][cols] weight of type qt as the bytes GGUFWriter wants."""
    if qt == Q.F32:
        return (rng.standard_normal((rows, cols)) * std).astype(np.float32), None
    if qt == Q.F16:
        return (rng.standard_normal((rows, cols)) * std).astype(np.float16), None
    if qt in (Q.BF16, Q.Q4_0, Q.Q4_1, Q.Q5_0, Q.Q8_0):
        x = (rng.standard_normal((rows, cols)) * std).astype(np.float32)
        return gguf.quants.quantize(x, qt), qt
    bs, ts = gguf.GGML_QUANT_SIZES[qt]
    nb = rows * cols // bs
    raw = rng.integers(0, 256, size=(nb, ts), dtype=np.uint8)
    if qt == Q.Q4_K:   # d * sc * 15 ~ 0.15 with 6-bit scales; mins up to dmin * 63
        raw[:, 0:2] = f16_bytes(rng.uniform(1e-4, 2.5e-4, nb))
        raw[:, 2:4] = f16_bytes(rng.uniform(1e-4, 2.5e-4, nb))
    elif qt == Q.Q6_K:   # d * sc * 32 ~ 0.1 with int8 scales
        raw[:, 208:210] = f16_bytes(rng.uniform(1e-5, 2.5e-5, nb) * rng.choice([-1, 1], nb))
    else:
        raise ValueError(qt)
    return raw.reshape(rows, cols // bs * ts), qt


TINY = dict(vocab=320, hidden=128, ffn=256, layers=2, heads=2, kv=1)
TYPES = {
    "qwen2": {"token_embd": Q.Q8_0, "output": Q.Q4_1,
              0: dict(q=Q.Q4_0, k=Q.Q5_0, v=Q.Q8_0, o=Q.F16, gate=Q.Q4_1, up=Q.BF16, down=Q.Q4_K),
              1: dict(q=Q.F32, k=Q.BF16, v=Q.Q4_1, o=Q.Q5_0, gate=Q.Q8_0, up=Q.Q4_0, down=Q.Q6_K)},
    "llama": {"token_embd": Q.Q5_0, "output": None,
              0: dict(q=Q.Q5_0, k=Q.Q4_0, v=Q.Q4_1, o=Q.Q8_0, gate=Q.F16, up=Q.Q5_0, down=Q.Q6_K),
              1: dict(q=Q.Q8_0, k=Q.Q8_0, v=Q.F16, o=Q.Q4_0, gate=Q.BF16, up=Q.Q4_1, down=Q.Q4_K)},
}


def write_tiny(arch, path, seed):
    rng = np.random.default_rng(seed)
    c = TINY
    hd = c["hidden"] // c["heads"]
    w = gguf.GGUFWriter(path, arch)
    w.add_block_count(c["layers"])
    w.add_context_length(256)
    w.add_embedding_length(c["hidden"])
    w.add_feed_forward_length(c["ffn"])
    w.add_head_count(c["heads"])
    w.add_head_count_kv(c["kv"])
    w.add_rope_freq_base(10000.0 if arch == "llama" else 1e6)
    w.add_layer_norm_rms_eps(1e-6 if arch == "qwen2" else 1e-5)
    w.add_rope_dimension_count(hd)
    w.add_vocab_size(c["vocab"])
    w.add_tokenizer_model("gpt2")
    w.add_token_list([f"t{i}" for i in range(c["vocab"])])
    w.add_token_types([1] * c["vocab"])
    w.add_token_merges([])
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    T = TYPES[arch]

    def put(name, qt, rows, cols, std=0.06):
        data, raw = rand_tensor(rng, qt, rows, cols, std)
        w.add_tensor(name, data, raw_dtype=raw)

    put("token_embd.weight", T["token_embd"], c["vocab"], c["hidden"], 0.5)
    for l in range(c["layers"]):
        t = T[l]
        H, QD, KVD, I = c["hidden"], c["heads"] * hd, c["kv"] * hd, c["ffn"]
        w.add_tensor(f"blk.{l}.attn_norm.weight", (1 + 0.1 * rng.standard_normal(H)).astype(np.float32))
        w.add_tensor(f"blk.{l}.ffn_norm.weight", (1 + 0.1 * rng.standard_normal(H)).astype(np.float32))
        put(f"blk.{l}.attn_q.weight", t["q"], QD, H)
        put(f"blk.{l}.attn_k.weight", t["k"], KVD, H)
        put(f"blk.{l}.attn_v.weight", t["v"], KVD, H)
        if arch == "qwen2":
            for nm, n in (("q", QD), ("k", KVD), ("v", KVD)):
                w.add_tensor(f"blk.{l}.attn_{nm}.bias", (0.1 * rng.standard_normal(n)).astype(np.float32))
        put(f"blk.{l}.attn_output.weight", t["o"], H, QD)
        put(f"blk.{l}.ffn_gate.weight", t["gate"], I, H)
        put(f"blk.{l}.ffn_up.weight", t["up"], I, H)
        put(f"blk.{l}.ffn_down.weight", t["down"], H, I)
    w.add_tensor("output_norm.weight", (1 + 0.1 * rng.standard_normal(c["hidden"])).astype(np.float32))
    if T["output"] is not None:
        put("output.weight", T["output"], c["vocab"], c["hidden"], 0.1)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def load_hf(path):
    from transformers import AutoModelForCausalLM
    d, f = os.path.split(os.path.abspath(path))
    m = AutoModelForCausalLM.from_pretrained(d, gguf_file=f, dtype=torch.float32)
    # the file decides: a separate output.weight is the head, none means tied
    r = gguf.GGUFReader(path)
    has_output = any(t.name == "output.weight" for t in r.tensors)
    if not has_output and not torch.equal(m.lm_head.weight, m.model.embed_tokens.weight):   # tied: make it so
        m.config.tie_word_embeddings = False
        m.lm_head = torch.nn.Linear(m.config.hidden_size, m.config.vocab_size, bias=False)
        m.lm_head.weight.data.copy_(m.model.embed_tokens.weight.data)
    if has_output:
        t = next(t for t in r.tensors if t.name == "output.weight")
        out = torch.from_numpy(gguf.quants.dequantize(t.data, t.tensor_type).reshape(m.lm_head.weight.shape).astype(np.float32))
        if m.lm_head.weight.data_ptr() == m.model.embed_tokens.weight.data_ptr() or not torch.equal(m.lm_head.weight, out):
            m.config.tie_word_embeddings = False
            m.lm_head = torch.nn.Linear(out.shape[1], out.shape[0], bias=False)
            m.lm_head.weight.data.copy_(out)
    return m.eval()


def add_lora(model, out_dir, seed, layers, head):
    from peft import LoraConfig, get_peft_model
    targets = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"] + (["lm_head"] if head else [])
    cfg = LoraConfig(r=2, lora_alpha=4, target_modules=targets, lora_dropout=0.0, bias="none")
    pm = get_peft_model(model, cfg)
    g = torch.Generator().manual_seed(seed)
    keep = {}
    for name, p in pm.named_parameters():
        if "lora_" not in name:
            continue
        li = None
        if ".layers." in name:
            li = int(name.split(".layers.")[1].split(".")[0])
        with torch.no_grad():
            if li is not None and layers is not None and li not in layers:
                p.zero_()
                continue
            p.copy_(torch.randn(p.shape, generator=g) * (0.3 if "lora_A" in name else 0.2))
        keep[name] = p
    pm.save_pretrained(out_dir, save_embedding_layers=False)
    # only the adapted modules' tensors (the zero ones would add nothing but bytes)
    from safetensors.torch import load_file, save_file
    f = os.path.join(out_dir, "adapter_model.safetensors")
    sd = load_file(f)
    if layers is not None:
        sd = {k: v for k, v in sd.items() if ".layers." not in k or int(k.split(".layers.")[1].split(".")[0]) in layers}
    save_file({k: v.contiguous() for k, v in sd.items()}, f, metadata={"format": "pt"})
    for extra in ("README.md",):
        if os.path.exists(os.path.join(out_dir, extra)):
            os.remove(os.path.join(out_dir, extra))
    return pm.eval()


def run(model, prompt):
    with torch.no_grad():
        out = model(torch.tensor([prompt]), use_cache=True)
        rows = [out.logits[0, i].double().numpy() for i in range(len(prompt))]
        past = out.past_key_values
        steps, toks = [], []
        last = rows[-1]
        for _ in range(STEPS):
            nxt = int(np.argmax(last))
            toks.append(nxt)
            o = model(torch.tensor([[nxt]]), past_key_values=past, use_cache=True)
            past = o.past_key_values
            last = o.logits[0, -1].double().numpy()
            steps.append(last)
        toks.append(int(np.argmax(last)))
    return rows, steps, toks


def fnv(ids):
    h = 0xcbf29ce484222325
    for i in ids:
        for b in int(i).to_bytes(4, "little"):
            h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def row_json(v, full):
    if full:
        return {"logits": [round(float(x), 6) for x in v]}
    idx = np.argsort(-v, kind="stable")[:TOP]
    return {"top_ids": [int(i) for i in idx], "top_vals": [round(float(v[i]), 6) for i in idx]}


def case(name, path, prompt, lora_layers, head, full, rel_file):
    print(f"{name}: {path}", file=sys.stderr)
    res = {"name": name, "file": rel_file, "file_bytes": os.path.getsize(path), "prompt": prompt, "steps": STEPS}
    base = load_hf(path)
    if full:   # the base alone as well (tiny models only: the real ones cost a minute each)
        rows, steps, toks = run(base, prompt)
        res["base"] = {"prefill": [row_json(r, True) for r in rows], "decode": [row_json(s, True) for s in steps],
                       "greedy": toks, "greedy_fnv": fnv(toks)}
    ad = os.path.join(HERE, name + "_lora")
    pm = add_lora(base, ad, 1, lora_layers, head)
    rows, steps, toks = run(pm, prompt)
    res["lora"] = {"adapter": name + "_lora",
                   "prefill": [row_json(r, full) for r in (rows if full else rows[-1:])],
                   "prefill_rows": list(range(len(prompt))) if full else [len(prompt) - 1],
                   "decode": [row_json(s, full) for s in steps], "greedy": toks, "greedy_fnv": fnv(toks)}
    return res


REAL = [("qwen", "PTXGEN_QWEN_GGUF", "models/base/qwen2.5-coder-0.5b-instruct.gguf",
         [151644, 872, 198, 7985, 264, 729, 429, 16, 220, 17, 13], 24),
        ("smol", "PTXGEN_SMOL_GGUF", "models/base/smollm2-135m-instruct.Q4_1.gguf",
         [1, 4093, 198, 19161, 253, 1759, 338, 253, 216, 34, 30], 30),
        ("qwen15", "PTXGEN_QWEN15_GGUF", "models/base/qwen2.5-coder-1.5b-instruct.gguf",
         [151644, 872, 198, 7985, 264, 729, 429, 16, 220, 17, 13], 28)]


# the exact-path bound of a case whose f32 reference is itself that uncertain (default 1e-4, test_gguf_model.c):
# the 1.5B's random adapter (A 0.3, B 0.2 on 8960-wide inputs) moves the reference's last prefill row by
# 1.48e-4 between PEFT's side path and the adapter merged into the weights (2026-12-05), more than 1e-4
EXACT_TOL = {"qwen15": 4e-4}


def real_case(name, env, default, prompt, nl):
    path = os.environ.get(env, default)
    if not os.path.exists(path):
        print(f"{name}: {path} absent, skipped", file=sys.stderr)
        return None
    r = case(name, path, prompt, {0, nl - 1}, False, False, os.path.basename(path))
    with open(path, "rb") as f:
        r["sha256"] = hashlib.file_digest(f, "sha256").hexdigest()
    if name in EXACT_TOL:
        r["exact_tol"] = EXACT_TOL[name]
    return r


def main():
    os.makedirs(HERE, exist_ok=True)
    torch.manual_seed(0)
    if len(sys.argv) == 3 and sys.argv[1] == "--only":   # one real case into the existing golden.json
        gp = os.path.join(HERE, "golden.json")
        with open(gp) as f:
            out = json.load(f)
        spec = [r for r in REAL if r[0] == sys.argv[2]]
        if not spec:
            raise SystemExit(f"--only {sys.argv[2]}: not one of {', '.join(r[0] for r in REAL)}")
        r = real_case(*spec[0])
        if r is None:
            raise SystemExit(1)
        out["cases"] = [c for c in out["cases"] if c["name"] != r["name"]] + [r]
        with open(gp + ".tmp", "w") as f:
            json.dump(out, f, separators=(",", ":"))
            f.write("\n")
        os.replace(gp + ".tmp", gp)
        return
    out = {"generator": "tests/model/make_gguf_golden.py", "steps": STEPS, "top": TOP, "cases": []}
    for arch, seed in (("qwen2", 11), ("llama", 12)):
        p = os.path.join(HERE, f"tiny_{arch}.gguf")
        write_tiny(arch, p, seed)
        out["cases"].append(case(f"tiny_{arch}", p, [1, 5, 17, 42, 99, 150, 200, 7, 311], None, True, True,
                                 f"tests/model/gguf_engine/tiny_{arch}.gguf"))
    for spec in REAL:
        r = real_case(*spec)
        if r is not None:
            out["cases"].append(r)
    with open(os.path.join(HERE, "golden.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
