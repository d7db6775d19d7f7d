"""model.py — a Qwen2 decoder in plain PyTorch (no transformers import).

Module and parameter names are exactly those of HF's Qwen2ForCausalLM state_dict
(model.embed_tokens, model.layers.N.self_attn.{q,k,v,o}_proj, mlp.{gate,up,down}_proj,
input_layernorm, post_attention_layernorm, model.norm, lm_head), so an exported
model.safetensors loads with transformers.AutoModelForCausalLM and the C engine.

Shapes: B batch, T tokens, D hidden, H query heads, K kv heads, Dh head dim,
F intermediate, V vocabulary.
"""
import json
from dataclasses import asdict, dataclass, fields

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Qwen2Config:
    vocab_size: int = 6144
    hidden_size: int = 384
    intermediate_size: int = 1024
    num_hidden_layers: int = 8
    num_attention_heads: int = 6
    num_key_value_heads: int = 2
    head_dim: int = 64
    max_position_embeddings: int = 4096
    rope_theta: float = 10000.0
    rms_norm_eps: float = 1e-6
    tie_word_embeddings: bool = True
    initializer_range: float = 0.02
    bos_token_id: int = 0          # <|endoftext|>
    eos_token_id: int = 5          # <|end|>
    pad_token_id: int = 0          # <|endoftext|>

    # ---- sizes the project ships ----
    @staticmethod
    def preset(name, vocab_size=6144):
        if name == "default":      # ~15M parameters, ~30 MB in bf16
            return Qwen2Config(vocab_size=vocab_size)
        if name == "tiny":         # tests and CPU smoke runs
            return Qwen2Config(vocab_size=vocab_size, hidden_size=64, intermediate_size=128,
                               num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                               head_dim=16, max_position_embeddings=2048)
        raise ValueError(f"unknown config size '{name}' (tiny|default)")

    # ---- HF config.json ----
    def to_hf(self, dtype="bfloat16"):
        d = asdict(self)
        d.update({
            "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_act": "silu",
            "attention_dropout": 0.0, "use_cache": True, "use_sliding_window": False,
            "sliding_window": None, "max_window_layers": self.num_hidden_layers,
            "torch_dtype": dtype, "dtype": dtype,        # transformers 4.x reads the first, 5.x the second
            "rope_scaling": None,
        })
        return d

    @staticmethod
    def from_hf(d, source="config.json"):
        """From a parsed HF config.json; missing required fields are errors naming the file."""
        if d.get("model_type") not in ("qwen2", None):
            raise ValueError(f"{source}: model_type is '{d.get('model_type')}', want 'qwen2'")
        need = ["vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads"]
        for k in need:
            if not isinstance(d.get(k), int):
                raise ValueError(f"{source}: field '{k}' missing or not an integer")
        kw = {f.name: d[f.name] for f in fields(Qwen2Config) if f.name in d and d[f.name] is not None}
        if "rope_theta" not in d and isinstance(d.get("rope_parameters"), dict):   # transformers 5.x
            kw["rope_theta"] = d["rope_parameters"].get("rope_theta", 10000.0)
        kw.setdefault("num_key_value_heads", d["num_attention_heads"])
        kw.setdefault("head_dim", d["hidden_size"] // d["num_attention_heads"])
        kw.setdefault("tie_word_embeddings", False)      # HF's Qwen2Config default
        for k in ("bos_token_id", "eos_token_id", "pad_token_id"):
            if isinstance(kw.get(k), list):
                kw[k] = kw[k][0]
        c = Qwen2Config(**kw)
        if c.num_attention_heads % c.num_key_value_heads:
            raise ValueError(f"{source}: num_attention_heads {c.num_attention_heads} is not a multiple "
                             f"of num_key_value_heads {c.num_key_value_heads}")
        return c

    @staticmethod
    def load(path):
        with open(path, encoding="utf-8") as f:
            try:
                d = json.load(f)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}: malformed JSON ({e.msg}, line {e.lineno})") from None
        return Qwen2Config.from_hf(d, path)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))     # [D]
        self.eps = eps

    def forward(self, x):                               # x: [..., D]
        dtype = x.dtype
        x = x.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)                # as HF: scale in the input dtype


def rope_cos_sin(positions, head_dim, theta, dtype):
    """positions: LongTensor [T] -> cos, sin: [T, Dh] (frequencies repeated twice, HF layout)."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.int64, device=positions.device)
                                .float() / head_dim))             # [Dh/2]
    freqs = positions.float()[:, None] * inv_freq[None, :]         # [T, Dh/2]
    emb = torch.cat((freqs, freqs), dim=-1)                        # [T, Dh]
    return emb.cos().to(dtype), emb.sin().to(dtype)


def rotate_half(x):                                     # x: [..., Dh]
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rope(x, cos, sin):                            # x: [B, heads, T, Dh]; cos/sin: [T, Dh]
    return x * cos + rotate_half(x) * sin


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.n_heads, self.n_kv, self.head_dim = c.num_attention_heads, c.num_key_value_heads, c.head_dim
        self.q_proj = nn.Linear(c.hidden_size, self.n_heads * self.head_dim, bias=True)
        self.k_proj = nn.Linear(c.hidden_size, self.n_kv * self.head_dim, bias=True)
        self.v_proj = nn.Linear(c.hidden_size, self.n_kv * self.head_dim, bias=True)
        self.o_proj = nn.Linear(self.n_heads * self.head_dim, c.hidden_size, bias=False)

    def forward(self, x, cos, sin, cache=None):
        """x: [B, T, D]; cache: None or a dict {"k": [B, K, S, Dh], "v": ...} updated in place."""
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)   # [B, H, T, Dh]
        k = self.k_proj(x).view(B, T, self.n_kv, self.head_dim).transpose(1, 2)      # [B, K, T, Dh]
        v = self.v_proj(x).view(B, T, self.n_kv, self.head_dim).transpose(1, 2)      # [B, K, T, Dh]
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        if cache is not None:
            if "k" in cache:
                k = torch.cat((cache["k"], k), dim=2)                                 # [B, K, S+T, Dh]
                v = torch.cat((cache["v"], v), dim=2)
            cache["k"], cache["v"] = k, v
        rep = self.n_heads // self.n_kv                   # GQA: each kv head serves `rep` query heads
        k = k.repeat_interleave(rep, dim=1)               # [B, H, S, Dh]
        v = v.repeat_interleave(rep, dim=1)               # [B, H, S, Dh]
        S = k.shape[2]
        if T == S:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)               # [B, H, T, Dh]
        elif T == 1:
            y = F.scaled_dot_product_attention(q, k, v)                                # attends to all S
        else:   # several new tokens after a cached prefix: query i sees keys <= S-T+i
            mask = torch.ones(T, S, dtype=torch.bool, device=x.device).tril(diagonal=S - T)  # [T, S]
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        y = y.transpose(1, 2).reshape(B, T, self.n_heads * self.head_dim)             # [B, T, H*Dh]
        return self.o_proj(y)                                                          # [B, T, D]


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.gate_proj = nn.Linear(c.hidden_size, c.intermediate_size, bias=False)
        self.up_proj = nn.Linear(c.hidden_size, c.intermediate_size, bias=False)
        self.down_proj = nn.Linear(c.intermediate_size, c.hidden_size, bias=False)

    def forward(self, x):                                                  # x: [B, T, D]
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))  # SwiGLU, [B, T, F] inside


class DecoderLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self_attn = Attention(c)
        self.mlp = MLP(c)
        self.input_layernorm = RMSNorm(c.hidden_size, c.rms_norm_eps)
        self.post_attention_layernorm = RMSNorm(c.hidden_size, c.rms_norm_eps)

    def forward(self, x, cos, sin, cache=None):                            # x: [B, T, D]
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, cache)
        return x + self.mlp(self.post_attention_layernorm(x))


class Qwen2Model(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embed_tokens = nn.Embedding(c.vocab_size, c.hidden_size)      # [V, D]
        self.layers = nn.ModuleList(DecoderLayer(c) for _ in range(c.num_hidden_layers))
        self.norm = RMSNorm(c.hidden_size, c.rms_norm_eps)


class Qwen2ForCausalLM(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.config = c
        self.model = Qwen2Model(c)
        self.lm_head = nn.Linear(c.hidden_size, c.vocab_size, bias=False)  # [V, D]
        self.apply(self._init)
        if c.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight

    def _init(self, m):
        std = self.config.initializer_range
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, 0.0, std)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, 0.0, std)

    def forward(self, ids, labels=None, caches=None, start_pos=0):
        """ids: LongTensor [B, T]; labels: [B, T] or None (-100 = ignored; shifted inside, as HF);
        caches: None or a list of per-layer dicts (KV cache), start_pos = tokens already cached.
        Returns logits [B, T, V] (float32) and the mean loss (or None)."""
        B, T = ids.shape
        x = self.model.embed_tokens(ids)                                    # [B, T, D]
        pos = torch.arange(start_pos, start_pos + T, device=ids.device)    # [T]
        cos, sin = rope_cos_sin(pos, self.config.head_dim, self.config.rope_theta, x.dtype)  # [T, Dh]
        for i, layer in enumerate(self.model.layers):
            x = layer(x, cos, sin, None if caches is None else caches[i])
        x = self.model.norm(x)                                             # [B, T, D]
        logits = self.lm_head(x).float()                                   # [B, T, V]
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1),
                                   ignore_index=-100)
        return logits, loss

    def num_params(self):
        seen, n = set(), 0
        for p in self.parameters():       # parameters() already skips the tied duplicate
            if id(p) not in seen:
                seen.add(id(p))
                n += p.numel()
        return n

    # ---- HF weights ----
    def hf_state_dict(self):
        """name -> tensor in HF naming; lm_head.weight left out when tied (as HF saves it)."""
        sd = {k: v for k, v in self.state_dict().items()}
        if self.config.tie_word_embeddings:
            sd.pop("lm_head.weight", None)
        return sd

    def load_hf_state_dict(self, sd, source="model.safetensors"):
        """Load HF-named tensors; shape mismatches and missing tensors are errors naming them."""
        own = self.state_dict()
        missing = [k for k in own if k not in sd and not (k == "lm_head.weight" and self.config.tie_word_embeddings)]
        if "lm_head.weight" in missing and "model.embed_tokens.weight" in sd:
            missing.remove("lm_head.weight")       # untied config but no lm_head: HF ties it too
            sd = dict(sd)
            sd["lm_head.weight"] = sd["model.embed_tokens.weight"]
        if missing:
            raise ValueError(f"{source}: missing tensors: {', '.join(missing[:5])}"
                             f"{' ...' if len(missing) > 5 else ''}")
        unexpected = [k for k in sd if k not in own and "rotary_emb" not in k]
        if unexpected:
            raise ValueError(f"{source}: unexpected tensors: {', '.join(unexpected[:5])}")
        with torch.no_grad():
            for k, t in own.items():
                if k not in sd:
                    continue
                if tuple(sd[k].shape) != tuple(t.shape):
                    raise ValueError(f"{source}: tensor '{k}': shape {list(sd[k].shape)}, config wants {list(t.shape)}")
                t.copy_(sd[k].to(t.dtype))


def load_hf_dir(d, device="cpu"):
    """Our model from an HF Qwen2 directory (config.json + model.safetensors or shards)."""
    import os
    from safetensors.torch import load_file
    cfg = Qwen2Config.load(os.path.join(d, "config.json"))
    m = Qwen2ForCausalLM(cfg)
    idx = os.path.join(d, "model.safetensors.index.json")
    sd = {}
    if os.path.exists(idx):
        with open(idx, encoding="utf-8") as f:
            wm = json.load(f)["weight_map"]
        for shard in sorted(set(wm.values())):
            sd.update(load_file(os.path.join(d, shard)))
    else:
        p = os.path.join(d, "model.safetensors")
        if not os.path.exists(p):
            raise FileNotFoundError(f"{d}: neither model.safetensors nor model.safetensors.index.json")
        sd = load_file(p)
    m.load_hf_state_dict({k: v.float() for k, v in sd.items()}, d)
    return m.to(device)


@torch.no_grad()
def generate(model, prompt_ids, max_new_tokens, eos_id, temperature=0.0, top_k=0, seed=0, use_cache=True):
    """Plain sampling (greedy when temperature == 0; else top-k then temperature).
    prompt_ids: list[int] -> list[int] of new tokens (stops after eos_id)."""
    dev = next(model.parameters()).device
    g = torch.Generator(device="cpu").manual_seed(seed)
    ids = torch.tensor([prompt_ids], dtype=torch.long, device=dev)       # [1, P]
    caches = [dict() for _ in model.model.layers] if use_cache else None
    out, pos = [], 0
    inp = ids
    limit = model.config.max_position_embeddings
    for _ in range(max_new_tokens):
        if use_cache:
            logits, _ = model(inp, caches=caches, start_pos=pos)          # [1, t, V]
            pos += inp.shape[1]
        else:
            logits, _ = model(ids)
        last = logits[0, -1].float().cpu()                                 # [V]
        if temperature <= 0:
            nxt = int(last.argmax())
        else:
            if top_k > 0:
                v, ix = last.topk(min(top_k, last.numel()))                # [k]
                probs = F.softmax(v / temperature, dim=-1)
                nxt = int(ix[torch.multinomial(probs, 1, generator=g)])
            else:
                nxt = int(torch.multinomial(F.softmax(last / temperature, -1), 1, generator=g))
        out.append(nxt)
        if nxt == eos_id or len(prompt_ids) + len(out) >= limit:
            break
        inp = torch.tensor([[nxt]], dtype=torch.long, device=dev)          # [1, 1]
        ids = torch.cat((ids, inp), dim=1)
    return out


def count_bytes(model, bytes_per_param=2):
    return model.num_params() * bytes_per_param


if __name__ == "__main__":
    for name in ("tiny", "default"):
        m = Qwen2ForCausalLM(Qwen2Config.preset(name))
        n = m.num_params()
        print(f"{name}: {n / 1e6:.2f}M parameters, {n * 2 / 2**20:.1f} MiB in bf16")
