"""lora_base.py — LoRA fine-tuning of a pretrained chat base (Qwen2.5-Coder-0.5B,
SmolLM2-135M) on ptxgen's training pairs, loss on the PTX tokens only.

Input: pairs JSONL from `ptxgen prompts --format chatml` (or --format ptxgen for a
model with ptxgen's own special tokens), one object a line with "prompt",
"completion" and "split".  The prompt and the completion are tokenized
separately and concatenated, exactly as generation sees them (prompt, then the
module), so the boundary tokens match.

The base is a GGUF file (transformers dequantizes it; `--save-hf DIR` keeps a
bf16 copy that later runs load in seconds) or a Hugging Face directory.  LoRA
runs on the dequantized weights, which are the values the C engine holds in
its quantized blocks, so the adapter is applied there as a side path
y = Wx + s·B(Ax) without merging (QLoRA-equivalent).

--init-adapter DIR continues from an existing PEFT adapter (its rank and target
modules; --lora-r/--targets are then ignored): expert iteration fine-tunes the
current adapter on the model's own verified kernels (train/expert_iter.py).

Output (--out): the PEFT adapter (adapter_config.json, adapter_model.safetensors
in bf16), train_log.jsonl (loss, tokens/s per logged step, val loss at the end),
and base.json naming the base file and its sha256 when the base is a GGUF.

    python3 train/lora_base.py --gguf models/base/qwen2.5-coder-0.5b-instruct.gguf \\
        --pairs pairs.jsonl --out models/qwen-lora --time-budget 480
"""
import argparse
import hashlib
import json
import math
import os
import random
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

IGNORE = -100


def log(rec, f):
    rec = dict(rec, t=round(time.time(), 1))
    f.write(json.dumps(rec) + "\n")
    f.flush()
    print(json.dumps(rec), flush=True)


def read_pairs(path):
    with open(path, encoding="utf-8") as fh:
        return [r for r in (parse_pair(line, f"{path}:{n}") for n, line in enumerate(fh, 1)) if r is not None]


def parse_pair(line, where):
    """One pairs line -> dict (None for a blank line); a bad line stops with `where` named."""
    if not line.strip():
        return None
    try:
        r = json.loads(line)
    except json.JSONDecodeError as e:
        raise SystemExit(f"{where}: malformed JSON ({e.msg})")
    if not isinstance(r.get("prompt"), str) or not isinstance(r.get("completion"), str):
        raise SystemExit(f"{where}: 'prompt' and 'completion' must be strings")
    return r


class GrowingPairs:
    """Pairs files that another process is still appending to (the synth on the GPU
    machine runs beside the training): each poll returns the whole lines added
    since the last one; a line still being written waits for the next poll."""

    def __init__(self, paths):
        self.paths = list(paths)
        self.offsets = {p: 0 for p in self.paths}
        self.seen = set()

    def poll(self):
        rows = []
        for p in self.paths:
            if not os.path.exists(p):
                continue
            with open(p, "rb") as fh:
                fh.seek(self.offsets[p])
                data = fh.read()
            end = data.rfind(b"\n") + 1
            self.offsets[p] += end
            for n, line in enumerate(data[:end].decode("utf-8").splitlines(), 1):
                r = parse_pair(line, f"{p}: a new line {n} after byte {self.offsets[p] - end}")
                if r is None:
                    continue
                key = hashlib.sha1((r["prompt"] + "\0" + r["completion"]).encode()).digest()
                if key in self.seen:      # two synth runs (different seeds) can meet
                    continue
                self.seen.add(key)
                rows.append(r)
        return rows


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def load_base(args, dtype, device):
    from transformers import AutoModelForCausalLM, AutoTokenizer
    if args.gguf:
        d, name = os.path.split(os.path.abspath(args.gguf))
        tok = AutoTokenizer.from_pretrained(d, gguf_file=name)
        model = AutoModelForCausalLM.from_pretrained(d, gguf_file=name, dtype=dtype)
        if args.save_hf:
            model.save_pretrained(args.save_hf)
            tok.save_pretrained(args.save_hf)
    else:
        from hfutil import load_tokenizer
        tok = load_tokenizer(args.base)
        model = AutoModelForCausalLM.from_pretrained(args.base, dtype=dtype)
    return tok, model.to(device)


def encode(rows, tok, max_len, by_family=None, ids_out=None):
    """[(ids, n_prompt)] with the over-long samples dropped (a cut module teaches nothing).
    by_family, when given, counts {family: [pairs, dropped]}: the drops are not uniform
    (the long nvcc-compiled families lose most), and the log must show it."""
    out, dropped = [], 0
    if not rows:   # no validation pairs (expert iteration's are all "train"): the tokenizer rejects an empty batch
        return out, dropped
    prompts = tok([r["prompt"] for r in rows], add_special_tokens=False)["input_ids"]
    comps = tok([r["completion"] for r in rows], add_special_tokens=False)["input_ids"]
    for r, p, c in zip(rows, prompts, comps):
        long_ = len(p) + len(c) > max_len
        if by_family is not None:
            f = by_family.setdefault(str(r.get("family", "?")), [0, 0])
            f[0] += 1
            f[1] += long_
        if long_:
            dropped += 1
            continue
        out.append((p + c, len(p)))
        if ids_out is not None:
            ids_out.append(r.get("id"))
    return out, dropped


def dropped_report(by_family):
    """{family: "dropped/pairs"} for the families that lost any pair, worst share first."""
    bad = sorted(((d / n, f, d, n) for f, (n, d) in by_family.items() if d), reverse=True)
    return {f: f"{d}/{n}" for _, f, d, n in bad}


def batches(samples, batch_tokens, rng, idxs=None):
    """Length-bucketed batches of samples[idxs] (default: all): sort by length, cut runs
    whose padded size fits batch_tokens, shuffle."""
    order = sorted(range(len(samples)) if idxs is None else idxs, key=lambda i: len(samples[i][0]))
    out, cur, cur_max = [], [], 0
    for i in order:
        L = len(samples[i][0])
        if cur and max(cur_max, L) * (len(cur) + 1) > batch_tokens:
            out.append(cur)
            cur, cur_max = [], 0
        cur.append(i)
        cur_max = max(cur_max, L)
    if cur:
        out.append(cur)
    rng.shuffle(out)
    return out


def collate(samples, idx, pad_id, device):
    L = max(len(samples[i][0]) for i in idx)
    ids = torch.full((len(idx), L), pad_id, dtype=torch.long)      # [B][L]
    labels = torch.full((len(idx), L), IGNORE, dtype=torch.long)   # [B][L]
    mask = torch.zeros((len(idx), L), dtype=torch.long)            # [B][L]
    for b, i in enumerate(idx):
        s, np_ = samples[i]
        ids[b, :len(s)] = torch.tensor(s)
        labels[b, np_:len(s)] = torch.tensor(s[np_:])
        mask[b, :len(s)] = 1
    return ids.to(device), labels.to(device), mask.to(device)


def causal_lm(peft_model):
    """The wrapped model's decoder and output layer (PEFT wraps the HF model)."""
    m = peft_model.get_base_model()
    return m.model, m.lm_head


def loss_on_labels(peft_model, ids, labels, mask):
    """Cross-entropy on the completion tokens only; the 151,936-wide output layer
    runs on those positions alone (prompt positions never need logits)."""
    decoder, head = causal_lm(peft_model)
    # Right padding under a causal mask: no real token ever attends to a pad, so no
    # padding mask is passed and SDPA can take its flash/causal path.
    h = decoder(input_ids=ids).last_hidden_state                         # [B][L][H]
    tgt = labels[:, 1:]                                                  # [B][L-1]
    sel = tgt != IGNORE
    hs = h[:, :-1][sel]                                                  # [N][H]
    y = tgt[sel]                                                         # [N]
    total = torch.zeros((), device=ids.device, dtype=torch.float32)
    for a in range(0, hs.shape[0], 8192):                                # chunks bound the [N][V] logits
        logits = head(hs[a:a + 8192]).float()                            # [n][V]
        total = total + F.cross_entropy(logits, y[a:a + 8192], reduction="sum")
    return total / max(1, y.numel()), y.numel()


def save_adapter(model, out, args, base_info):
    os.makedirs(out, exist_ok=True)
    tmp = out + ".tmp"
    model.save_pretrained(tmp, safe_serialization=True)
    # bf16 on disk: half the size, and the C engine computes the side path in f32 anyway
    from safetensors.torch import load_file, save_file
    p = os.path.join(tmp, "adapter_model.safetensors")
    sd = {k: v.to(torch.bfloat16).contiguous() for k, v in load_file(p).items()}
    save_file(sd, p, metadata={"format": "pt"})
    if base_info:
        with open(os.path.join(tmp, "base.json"), "w") as f:
            json.dump(base_info, f, indent=1)
    for name in os.listdir(tmp):
        os.replace(os.path.join(tmp, name), os.path.join(out, name))
    os.rmdir(tmp)


def main(argv=None):
    # cuDNN's fused attention failed in the backward pass on the H200 (mha_graph.execute, Qwen2 GQA, 2026-12-01)
    torch.backends.cuda.enable_cudnn_sdp(False)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--gguf", help="base model as a GGUF file")
    g.add_argument("--base", help="base model as a Hugging Face directory")
    ap.add_argument("--save-hf", help="with --gguf: also save the dequantized base (bf16) here")
    ap.add_argument("--base-gguf", help="with --base: the GGUF file the directory was made from (recorded in base.json)")
    ap.add_argument("--base-name", help="base.json's 'gguf' path, relative to the adapter directory (default: the GGUF's path)")
    ap.add_argument("--pairs", required=True, nargs="+", help="pairs JSONL file(s)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--time-budget", type=float, default=0, help="seconds of training (0 = one epoch)")
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--batch-tokens", type=int, default=32768, help="padded tokens per batch")
    # 8192: Qwen's tokenizer spends ~1.4 characters per PTX token, and 4096 dropped 18-21% of the pairs,
    # most of the long families (docs/MODELS.md); a batch of --batch-tokens still holds one such pair
    ap.add_argument("--max-len", type=int, default=8192, help="longer pairs are dropped (counted per family in the log)")
    ap.add_argument("--lora-r", type=int, default=16)
    ap.add_argument("--lora-alpha", type=float, default=32)
    ap.add_argument("--lora-dropout", type=float, default=0.0)
    ap.add_argument("--init-adapter", help="continue from this PEFT adapter directory instead of a fresh LoRA")
    ap.add_argument("--targets", default="all", help="'all' (every linear layer of the blocks) or a comma list, e.g. q_proj,v_proj")
    ap.add_argument("--log-every", type=int, default=20)
    ap.add_argument("--val", type=int, default=256, help="validation pairs (split != train) for the final val loss")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--max-steps", type=int, default=0, help="stop after N steps (0 = budget/epochs)")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--pipeline", choices=["single", "plan-literate"], default="single",
                    help="what the adapter was trained for, recorded in base.json: one PTX turn, or the two-stage "
                         "plan + literate PTX model (docs/LITERATE.md) that `ptxgen gen` then runs in two stages")
    ap.add_argument("--grow", type=float, default=0,
                    help="with --time-budget: every N seconds read the pairs that were appended to --grow-pairs "
                         "since the last look and mix them into the rest of the current epoch")
    ap.add_argument("--grow-pairs", nargs="*", default=[], help="pairs files still being written (see --grow)")
    args = ap.parse_args(argv)
    if args.grow and not args.time_budget:
        ap.error("--grow needs --time-budget (the data's size is not known in advance)")

    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    dtype = torch.bfloat16 if args.device.startswith("cuda") else torch.float32
    os.makedirs(args.out, exist_ok=True)
    logf = open(os.path.join(args.out, "train_log.jsonl"), "a")
    t_load = time.time()
    tok, model = load_base(args, dtype, args.device)
    pad_id = tok.pad_token_id if tok.pad_token_id is not None else 0
    log({"event": "loaded", "seconds": round(time.time() - t_load, 1), "params": sum(p.numel() for p in model.parameters())}, logf)

    from peft import LoraConfig, PeftModel, get_peft_model
    if args.init_adapter:
        if not os.path.exists(os.path.join(args.init_adapter, "adapter_config.json")):
            raise SystemExit(f"--init-adapter {args.init_adapter}: no adapter_config.json there")
        model = PeftModel.from_pretrained(model, args.init_adapter, is_trainable=True)
        pc = model.peft_config["default"]
        targets, args.lora_r = sorted(pc.target_modules), pc.r
        log({"event": "init_adapter", "from": args.init_adapter, "r": pc.r, "targets": targets}, logf)
    else:
        targets = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"] if args.targets == "all" \
            else [t for t in args.targets.split(",") if t]
        cfg = LoraConfig(r=args.lora_r, lora_alpha=args.lora_alpha, lora_dropout=args.lora_dropout, target_modules=targets,
                         bias="none", task_type="CAUSAL_LM")
        model = get_peft_model(model, cfg)
    for n, p in model.named_parameters():       # the adapter trains in f32 on a bf16 base
        if p.requires_grad:
            p.data = p.data.float()
    ntrain = sum(p.numel() for p in model.parameters() if p.requires_grad)

    rows = []
    for p in args.pairs:
        rows += read_pairs(p)
    train_rows = [r for r in rows if r.get("split", "train") == "train"]
    val_rows = [r for r in rows if r.get("split", "train") != "train"][: args.val]
    t0 = time.time()
    fam_len = {}
    train_ids = []   # the sample id of every encoded training pair (trained_ids.txt: the held-in check's pool)
    train, dropped = encode(train_rows, tok, args.max_len, fam_len, train_ids)
    val, _ = encode(val_rows, tok, args.max_len)
    ntok = sum(len(s) - p for s, p in train)
    log({"event": "data", "pairs": len(train), "dropped_too_long": dropped, "dropped_by_family": dropped_report(fam_len),
         "val_pairs": len(val), "completion_tokens": ntok,
         "tokens_per_pair": round(sum(len(s) for s, _ in train) / max(1, len(train)), 1), "tokenize_s": round(time.time() - t0, 1),
         "lora_params": ntrain, "targets": targets, "r": args.lora_r}, logf)
    grower = GrowingPairs(args.grow_pairs) if args.grow else None
    if grower:
        grown = [r for r in grower.poll() if r.get("split", "train") == "train"]
        more, d2 = encode(grown, tok, args.max_len, fam_len, train_ids)
        train += more
        dropped += d2
        ntok += sum(len(s) - p for s, p in more)
        log({"event": "grow", "pairs": len(more), "dropped_too_long": d2, "total": len(train)}, logf)
    if not train:
        raise SystemExit("no training pairs left")

    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr, weight_decay=0.0, betas=(0.9, 0.99))
    plan = []
    epoch = 0
    while not grower and (epoch < math.ceil(args.epochs) or args.time_budget):
        plan += batches(train, args.batch_tokens, rng)
        epoch += 1
        if args.time_budget and epoch >= 20:
            break
    if grower:   # one epoch at a time: later epochs see the pairs that arrived meanwhile
        plan = batches(train, args.batch_tokens, rng)
    if not args.time_budget:
        plan = plan[: max(1, int(len(plan) / math.ceil(args.epochs) * args.epochs))]
    total_steps = len(plan) if not args.max_steps else min(len(plan), args.max_steps)
    if grower:
        total_steps = args.max_steps or 10 ** 9
    last_grow = time.time()
    model.train()
    t_start = time.time()
    seen, step, ema = 0, 0, None
    trained = set()
    for step in range(1, total_steps + 1):
        el = time.time() - t_start
        if args.time_budget and el > args.time_budget:
            step -= 1
            break
        if grower and time.time() - last_grow > args.grow:
            last_grow = time.time()
            grown = [r for r in grower.poll() if r.get("split", "train") == "train"]
            if grown:
                more, d2 = encode(grown, tok, args.max_len, fam_len, train_ids)
                first = len(train)
                train += more
                dropped += d2
                ntok += sum(len(s) - p for s, p in more)
                # new batches go to random places in the rest of this epoch, so they are seen about as often as the old
                for b in batches(train, args.batch_tokens, rng, range(first, len(train))):
                    plan.insert(rng.randint(step - 1, len(plan)), b)
                log({"event": "grow", "pairs": len(more), "dropped_too_long": d2, "total": len(train), "step": step}, logf)
        if grower and step > len(plan):
            plan += batches(train, args.batch_tokens, rng)
            epoch += 1
        # cosine schedule over the planned length; under a time budget the length is
        # re-estimated from the measured step time, so the decay ends at the budget
        if args.time_budget and step > 10:
            est = min(total_steps, int(args.time_budget / (el / (step - 1))))
        elif grower:
            est = max(len(plan), 100)
        else:
            est = total_steps
        lr = args.lr * min(1.0, step / args.warmup) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, step / max(1, est)))))
        for gp in opt.param_groups:
            gp["lr"] = lr
        ids, labels, mask = collate(train, plan[step - 1], pad_id, args.device)
        trained.update(train_ids[i] for i in plan[step - 1])
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=args.device.startswith("cuda")):
            loss, n = loss_on_labels(model, ids, labels, mask)
        loss.backward()
        torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        seen += n
        lv = loss.item()
        ema = lv if ema is None else 0.95 * ema + 0.05 * lv
        if step % args.log_every == 0 or step == 1:
            el = time.time() - t_start
            log({"event": "step", "step": step, "loss": round(lv, 4), "loss_ema": round(ema, 4), "lr": round(lr, 7),
                 "completion_tokens": seen, "tok_per_s": round(seen / max(el, 1e-9)), "elapsed": round(el, 1),
                 "batch": len(plan[step - 1]), "width": ids.shape[1]}, logf)
    train_s = time.time() - t_start
    # validation loss on unseen pairs
    model.eval()
    vl, vn = 0.0, 0
    by_turn = {}   # the two-stage model's turns ("plan", "ptx") apart: which one the model has not learnt
    groups = {}
    for r in val_rows:
        groups.setdefault(r.get("turn", "ptx"), []).append(r)
    with torch.no_grad():
        for t, rows_t in sorted(groups.items()):
            enc, _ = encode(rows_t, tok, args.max_len)
            for idx in batches(enc, args.batch_tokens, rng):
                ids, labels, mask = collate(enc, idx, pad_id, args.device)
                with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=args.device.startswith("cuda")):
                    l, n = loss_on_labels(model, ids, labels, mask)
                vl += l.item() * n
                vn += n
                a = by_turn.setdefault(t, [0.0, 0])
                a[0] += l.item() * n
                a[1] += n
    base_info = None
    gg = args.gguf or args.base_gguf
    if gg:
        base_info = {"gguf": args.base_name or gg, "sha256": sha256_file(gg), "format": "chatml", "pipeline": args.pipeline}
    save_adapter(model, args.out, args, base_info)
    with open(os.path.join(args.out, "trained_ids.txt"), "w") as f:   # what the held-in check may draw from
        f.write("".join(f"{i}\n" for i in sorted(x for x in trained if x)))
    log({"event": "done", "steps": step, "train_seconds": round(train_s, 1), "completion_tokens": seen,
         "epochs": round(seen / max(1, ntok), 3), "pairs": len(train), "dropped_too_long": dropped,
         "dropped_by_family": dropped_report(fam_len), "final_loss_ema": round(ema or 0, 4),
         "val_loss": round(vl / vn, 4) if vn else None, "tok_per_s": round(seen / max(train_s, 1e-9)),
         "val_loss_by_turn": {t: round(a[0] / a[1], 4) for t, a in by_turn.items() if a[1]},
         # peak GPU memory: what decides whether two runs fit side by side on one GPU
         "peak_gib": round(torch.cuda.max_memory_allocated() / 2**30, 1) if torch.cuda.is_available() else None}, logf)


if __name__ == "__main__":
    sys.exit(main())
