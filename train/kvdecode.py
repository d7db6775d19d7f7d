"""kvdecode.py — batched decoding of a Qwen2 model with a preallocated KV cache, for generate.py
and generate2.py.

Why: transformers' dynamic cache grows by concatenation, so every decode step copies the whole
cache of every layer; at batch 384 with ~4k-token rows that copy, not the model, set the pace
(111 ms per step on the H200, 2026-12-04).  Here the cache is one tensor per layer, allocated for
the batch's longest row, written in place; a step costs the weights once plus one read of the
live cache.  The rows are left-padded as in generate.py, so every row writes the same column.

    dec = open_decoder(model, B, max_len, engine)   # "static" (this file) or "hf" (transformers' cache)
    logits = dec.start(ids, att)       # ids, att [B][L] left-padded prompts -> logits [B][V] (float)
    dec.keep(rows)                     # only these rows (indices into the current rows, ascending) go on
    logits = dec.step(tokens)          # tokens [b] (long, one per current row) -> logits [b][V]

The two engines agree to rounding (train/test_kvdecode.py runs both on a tiny random Qwen2).
The static engine knows the Qwen2 architecture only (rotary "default", no sliding window); for
any other model open_decoder falls back to "hf" and says why on stderr.
"""
import math
import sys

import torch
import torch.nn.functional as F

PREFILL_CHUNK = 256        # positions per prefill piece: bounds the [rows][heads][T][L] attention
PREFILL_ROWS = 64          # rows per prefill piece, for the same reason
COMPACT_AT = 0.75          # the cache is compacted when the live rows fall to this share of its rows
GROW = 512                 # columns the cache grows by when full (it starts at the prompt + GROW)


def _rope_theta(cfg):
    """The rotary base of a Qwen2 config, or None when its rotary embedding is not the plain one
    (transformers 4.x keeps rope_theta/rope_scaling, 5.x rope_parameters)."""
    rp = getattr(cfg, "rope_parameters", None)
    if isinstance(rp, dict):
        if rp.get("rope_type", "default") != "default":
            return None
        return float(rp.get("rope_theta", 10000.0))
    rs = getattr(cfg, "rope_scaling", None)
    if rs and (rs.get("rope_type") or rs.get("type", "default")) != "default":
        return None
    return float(getattr(cfg, "rope_theta", 10000.0))


def static_unsupported(model):
    """Why the static engine cannot run this model (a sentence), or None when it can."""
    cfg = model.config
    if getattr(cfg, "model_type", "") != "qwen2":
        return f"model_type {getattr(cfg, 'model_type', '?')!r} is not qwen2"
    if getattr(cfg, "use_sliding_window", False):
        return "a sliding attention window"
    if _rope_theta(cfg) is None:
        return "a scaled rotary embedding"
    if getattr(cfg, "hidden_act", "silu") != "silu":
        return f"activation {cfg.hidden_act!r}"
    return None


class HFDecoder:
    """transformers' own cache (the reference, and the path for other architectures)."""

    def __init__(self, model):
        self.model = model

    def start(self, ids, att):
        self.att = att
        pos = (att.cumsum(-1) - 1).clamp(min=0)                       # [B][L]
        cache = None
        for a in range(0, ids.shape[1], PREFILL_CHUNK):
            b = min(ids.shape[1], a + PREFILL_CHUNK)
            out = self.model(input_ids=ids[:, a:b], attention_mask=att[:, :b], position_ids=pos[:, a:b],
                             past_key_values=cache, use_cache=True, logits_to_keep=1)
            cache = out.past_key_values
        self.cache = cache
        return out.logits[:, -1, :].float()

    def keep(self, rows):
        kt = torch.tensor(rows, device=self.att.device)
        self.cache.batch_select_indices(kt)
        self.att = self.att[kt]

    def step(self, tokens):
        dev = self.att.device
        self.att = torch.cat([self.att, torch.ones((self.att.shape[0], 1), dtype=self.att.dtype, device=dev)], dim=1)
        pos = self.att.sum(-1, keepdim=True) - 1                           # [b][1]
        out = self.model(input_ids=tokens.view(-1, 1), attention_mask=self.att, position_ids=pos,
                         past_key_values=self.cache, use_cache=True)
        self.cache = out.past_key_values
        return out.logits[:, -1, :].float()


class Qwen2Weights:
    """The weights of a (merged) Qwen2ForCausalLM, q/k/v and gate/up fused so a layer is four
    matrix products.  Built once per model; the tensors keep the model's dtype and device."""

    def __init__(self, model):
        cfg, m = model.config, model.model
        self.nh, self.nkv = cfg.num_attention_heads, cfg.num_key_value_heads
        self.hd = getattr(cfg, "head_dim", None) or cfg.hidden_size // self.nh
        self.eps = cfg.rms_norm_eps
        self.embed = m.embed_tokens.weight                                  # [V][E]
        self.norm = m.norm.weight                                           # [E]
        self.head = model.get_output_embeddings().weight                    # [V][E]
        self.layers = []
        with torch.no_grad():
            for ly in m.layers:
                a, p = ly.self_attn, ly.mlp
                qkv_w = torch.cat([a.q_proj.weight, a.k_proj.weight, a.v_proj.weight])          # [(H+2K)*D][E]
                bias = [x.bias if x.bias is not None else torch.zeros(x.weight.shape[0], dtype=x.weight.dtype,
                                                                        device=x.weight.device)
                        for x in (a.q_proj, a.k_proj, a.v_proj)]
                self.layers.append(dict(ln1=ly.input_layernorm.weight, ln2=ly.post_attention_layernorm.weight,
                                        qkv_w=qkv_w, qkv_b=torch.cat(bias), o_w=a.o_proj.weight,
                                        gu_w=torch.cat([p.gate_proj.weight, p.up_proj.weight]),     # [2F][E]
                                        down_w=p.down_proj.weight))
        half = torch.arange(0, self.hd, 2, dtype=torch.float32, device=self.embed.device) / self.hd
        self.inv_freq = 1.0 / (_rope_theta(cfg) ** half)                    # [D/2]
        self.scale = 1.0 / math.sqrt(self.hd)


def _rms(x, w, eps):
    """Qwen2's RMSNorm: in float32, then back to the activations' dtype, times the weight."""
    xf = x.float()
    return w * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)


def _rope(x, cos, sin):
    """x [..., D] rotated by cos/sin [..., D] (the half-split layout of transformers' Qwen2)."""
    h = x.shape[-1] // 2
    return x * cos + torch.cat([-x[..., h:], x[..., :h]], dim=-1) * sin


class StaticDecoder:
    """The preallocated cache: kv[layer] [2][B][K][cols][D]; column t is the next one written,
    the same for every row (left padding); mask [B][max_len] marks the real tokens; npos [B] is
    each row's next position (its count of real tokens).  The cache starts at the prompt + GROW
    columns and grows by GROW when full, up to max_len.  Rows that end stay in the cache until
    the live ones fall to COMPACT_AT of it (or it grows) (a step over a dead row costs less than moving the cache
    every time one ends); live [b] maps the caller's rows to the cache's."""

    def __init__(self, w, batch, max_len, dtype, device):
        self.w, self.max_len, self.dtype, self.dev = w, max_len, dtype, device
        self.batch, self.kv, self.t, self.live = batch, None, 0, None
        self.npos = torch.zeros(batch, dtype=torch.long, device=device)

    def _alloc(self, rows, cols, keep=None):
        """The cache for `rows` rows of `cols` columns; with keep (cache rows, ascending), the first
        self.t columns of those rows are carried over, one layer at a time (old and new side by
        side for a single layer only)."""
        w, kv = self.w, []
        for li in range(len(w.layers)):
            new = torch.empty((2, rows, w.nkv, cols, w.hd), dtype=self.dtype, device=self.dev)   # [2][B][K][cols][D]
            if keep is not None:
                new[:, :, :, :self.t] = self.kv[li][:, keep, :, :self.t]
                self.kv[li] = None
            kv.append(new)
        mask = torch.zeros((rows, cols), dtype=torch.bool, device=self.dev)
        if keep is not None:
            mask[:, :self.t] = self.mask[keep, :self.t]
            self.npos = self.npos[keep]
        self.kv, self.mask = kv, mask

    def _cos_sin(self, pos):
        """pos [...] (long) -> cos, sin [...][D] in the activations' dtype, computed in float32."""
        f = pos.float()[..., None] * self.w.inv_freq                        # [...][D/2]
        e = torch.cat([f, f], dim=-1)
        return e.cos().to(self.dtype), e.sin().to(self.dtype)

    def _layers(self, x, rows, cols, pos, amask, last_only):
        """x [r][T][E] for cache rows `rows` (a slice) at columns cols (a slice of T), positions
        pos [r][T], attention mask amask [r][1][T][cols.stop] (True: attend).  Returns the final
        norm of the last position [r][E] (last_only) or of all [r][T][E]."""
        w = self.w
        r, T = x.shape[0], x.shape[1]
        cos, sin = self._cos_sin(pos)
        cos, sin = cos[:, None], sin[:, None]                               # [r][1][T][D]
        nq, nk = w.nh * w.hd, w.nkv * w.hd
        for li, ly in enumerate(w.layers):
            h = _rms(x, ly["ln1"], w.eps)
            qkv = F.linear(h, ly["qkv_w"], ly["qkv_b"])                     # [r][T][(H+2K)*D]
            q = qkv[..., :nq].view(r, T, w.nh, w.hd).transpose(1, 2)        # [r][H][T][D]
            k = qkv[..., nq:nq + nk].view(r, T, w.nkv, w.hd).transpose(1, 2)  # [r][K][T][D]
            v = qkv[..., nq + nk:].view(r, T, w.nkv, w.hd).transpose(1, 2)
            q, k = _rope(q, cos, sin), _rope(k, cos, sin)
            kv = self.kv[li]
            kv[0, rows, :, cols] = k
            kv[1, rows, :, cols] = v
            keys, vals = kv[0, rows, :, :cols.stop], kv[1, rows, :, :cols.stop]  # [r][K][L][D]
            g = w.nh // w.nkv
            if T == 1:
                # one query per row: the g heads sharing a kv head are g "positions" of one query
                # block, so the cache is read once and never expanded
                o = F.scaled_dot_product_attention(q.view(r, w.nkv, g, w.hd), keys, vals, attn_mask=amask,
                                                   scale=w.scale)               # [r][K][g][D]
            else:
                o = F.scaled_dot_product_attention(q, keys.repeat_interleave(g, dim=1), vals.repeat_interleave(g, dim=1),
                                                   attn_mask=amask, scale=w.scale)  # [r][H][T][D]
            x = x + F.linear(o.reshape(r, w.nh, T, w.hd).transpose(1, 2).reshape(r, T, nq), ly["o_w"])
            h = _rms(x, ly["ln2"], w.eps)
            gu = F.linear(h, ly["gu_w"])                                    # [r][T][2F]
            gate, up = gu.chunk(2, dim=-1)
            x = x + F.linear(F.silu(gate) * up, ly["down_w"])
        if last_only:
            x = x[:, -1]
        return _rms(x, w.norm, w.eps)

    @torch.no_grad()
    def start(self, ids, att):
        B, L = ids.shape
        if L > self.max_len:
            raise ValueError(f"prompt of {L} tokens is longer than the cache ({self.max_len})")
        ids, att = ids.to(self.dev), att.to(self.dev).bool()
        pos = (att.long().cumsum(-1) - 1).clamp(min=0)                      # [B][L]
        self._alloc(B, min(self.max_len, L + GROW))
        self.mask[:, :L] = att
        out = torch.empty((B, self.w.embed.shape[1]), dtype=self.dtype, device=self.dev)
        ar = torch.arange(L, device=self.dev)
        for r0 in range(0, B, PREFILL_ROWS):
            r1 = min(B, r0 + PREFILL_ROWS)
            for a in range(0, L, PREFILL_CHUNK):
                b = min(L, a + PREFILL_CHUNK)
                q_at = ar[a:b, None]                                         # [T][1]
                k_at = ar[None, :b]                                          # [1][b]
                # a query sees the real keys up to itself, and always itself: a padding position
                # with no real key before it would otherwise attend to nothing (NaN in the cache)
                m = (att[r0:r1, None, :b] & (k_at <= q_at)[None]) | (k_at == q_at)[None]   # [r][T][b]
                x = F.embedding(ids[r0:r1, a:b], self.w.embed)
                hid = self._layers(x, slice(r0, r1), slice(a, b), pos[r0:r1, a:b], m[:, None], b == L)
            out[r0:r1] = hid
        self.t, self.npos = L, att.long().sum(-1)
        self.live = torch.arange(B, device=self.dev)
        return F.linear(out, self.w.head).float()

    def keep(self, rows):
        live = self.live[torch.as_tensor(rows, dtype=torch.long, device=self.dev)]
        n = live.numel()
        if n > COMPACT_AT * self.kv[0].shape[1] or n == 0:
            self.live = live
            return
        self._alloc(n, self.kv[0].shape[3], live)
        self.live = torch.arange(n, device=self.dev)

    @torch.no_grad()
    def step(self, tokens):
        t = self.t
        if t >= self.max_len:
            raise ValueError(f"the cache of {self.max_len} positions is full")
        if t >= self.kv[0].shape[3]:
            # full: grow by GROW columns, keeping only the live rows
            self._alloc(self.live.numel(), min(self.max_len, t + GROW), self.live)
            self.live = torch.arange(self.live.numel(), device=self.dev)
        B = self.kv[0].shape[1]
        toks = torch.zeros(B, dtype=torch.long, device=self.dev)
        toks[self.live] = tokens.to(self.dev).view(-1)                     # dead rows read token 0
        self.mask[:, t] = True
        x = F.embedding(toks, self.w.embed)[:, None]                        # [B][1][E]
        amask = self.mask[:, None, None, :t + 1]                            # [B][1][1][t+1]
        hid = self._layers(x, slice(0, B), slice(t, t + 1), self.npos[:, None], amask, True)   # [B][E]
        self.npos += 1
        self.t = t + 1
        return F.linear(hid[self.live], self.w.head).float()


_WEIGHTS = {}


def selfcheck(model, engine="static", rows=3, steps=4):
    """The engine to use for `model`, decided once per process on its own device: the static
    engine against transformers' cache on a few random left-padded rows (prefill + steps), in the
    model's dtype.  Returns (engine, report); the report says why "hf" was chosen when the static
    engine raised or its next-token distributions differ (total variation > 0.1 at any position;
    two bf16 implementations of the same model differ by far less)."""
    if engine != "static":
        return engine, {"engine": engine}
    why = static_unsupported(model)
    if why:
        return "hf", {"engine": "hf", "why": why}
    p = next(model.parameters())
    g = torch.Generator().manual_seed(0)
    V = model.get_output_embeddings().weight.shape[0]
    lens = [9, 5, 1][:rows]
    L = max(lens)
    ids = torch.randint(0, V, (len(lens), L), generator=g)               # [B][L] left-padded
    att = (torch.arange(L)[None, :] >= torch.tensor([[L - n] for n in lens])).long()
    toks = torch.randint(0, V, (steps, len(lens)), generator=g)
    worst = 0.0
    try:
        with torch.no_grad():
            a = open_decoder(model, len(lens), L + steps + 1, "static")
            b = HFDecoder(model)
            pairs = [(a.start(ids.to(p.device), att.to(p.device)), b.start(ids.to(p.device), att.to(p.device)))]
            for t in toks:
                pairs.append((a.step(t.to(p.device)), b.step(t.to(p.device))))
            for x, y in pairs:
                tv = 0.5 * (torch.softmax(x, -1) - torch.softmax(y, -1)).abs().sum(-1).max().item()
                worst = max(worst, tv)
    except RuntimeError as e:
        return "hf", {"engine": "hf", "why": f"the static engine failed: {str(e)[:300]}"}
    if not worst <= 0.1:
        return "hf", {"engine": "hf", "why": f"the static engine's distributions differ from transformers' (total variation {worst:.3f})"}
    return "static", {"engine": "static", "selfcheck_tv": round(worst, 5)}


def open_decoder(model, batch, max_len, engine="static"):
    """A decoder for `batch` rows of up to `max_len` positions (prompt + new tokens) of `model`.
    engine "static": the preallocated cache (falls back to "hf" for a model it does not know);
    "hf": transformers' cache."""
    if engine == "static":
        why = static_unsupported(model)
        if why is None:
            w = _WEIGHTS.get(id(model))
            if w is None or w[0] is not model:
                w = _WEIGHTS[id(model)] = (model, Qwen2Weights(model))
            p = next(model.parameters())
            return StaticDecoder(w[1], batch, max_len, p.dtype, p.device)
        print(f"kvdecode: the static cache does not support this model ({why}); using transformers' cache", file=sys.stderr)
    elif engine != "hf":
        raise ValueError(f"unknown decoding engine {engine!r} (static or hf)")
    return HFDecoder(model)
