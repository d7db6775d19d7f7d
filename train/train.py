"""train.py — pretrain and LoRA-fine-tune ptxgen's Qwen2 model, then export it in HF layout.

  python3 train/train.py --data pairs.jsonl --out models/run --phase both \\
      --config-size default --time-budget 480        # CUDA: bf16 autocast; CPU: f32
  torchrun --nproc_per_node 2 train/train.py ...     # DDP (WORLD_SIZE unset = one process)

Phase 1 (pretrain): causal LM on the PTX completions of the train split, packed rows of
--seq-len tokens separated by <|endoftext|>; all weights train.
Phase 2 (finetune): prompt + completion with loss on the completion only, LoRA on
--lora-targets (q_proj,v_proj r 64 alpha 128 by default, `all` = every projection),
length-bucketed batches of <= --batch-tokens padded tokens.
At the end the adapter is saved in PEFT format to OUT/adapter/, merged into the weights,
and the merged model exported to OUT (loads with no adapter).  OUT/train_log.jsonl gets a
JSON line per log interval, evaluation, checkpoint and phase end.  Evaluation: train/val
loss and, on a fixed set of val prompts, the share of greedy and sampled (top-k 5, T 0.3)
outputs that pass `ptxgen check` and ptxas (skipped with a note when ptxas is absent).
--time-budget stops cleanly (--pretrain-share of it for phase 1); a checkpoint
(CKPT_DIR/ckpt.pt, --resume) and an export of the model so far are written every
--ckpt-every-s seconds, so a run cut short still leaves a usable model.
"""
import argparse
import copy
import datetime
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data as D  # noqa: E402
import export as E  # noqa: E402
import lora as L  # noqa: E402
from model import Qwen2Config, Qwen2ForCausalLM, generate, load_hf_dir  # noqa: E402


# ---- small helpers ---------------------------------------------------------------------------

def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


class Logger:
    """JSON lines to OUT/train_log.jsonl (rank 0 only) + human lines / a progress bar on stderr."""

    def __init__(self, path, rank):
        self.path, self.rank = path, rank
        self.tty = sys.stderr.isatty()
        self.records = []
        if rank == 0 and path:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)

    def log(self, rec, echo=True):
        rec = {"time": now_iso(), **rec}
        self.records.append(rec)
        if self.rank != 0:
            return
        if self.path:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(rec) + "\n")
        if echo:
            self.clear_bar()
            print("train: " + " ".join(f"{k}={_fmt(v)}" for k, v in rec.items() if k != "time"),
                  file=sys.stderr, flush=True)

    def bar(self, text):
        if self.rank == 0 and self.tty:
            print("\r" + text[:150].ljust(150), end="", file=sys.stderr, flush=True)

    def clear_bar(self):
        if self.rank == 0 and self.tty:
            print("\r" + " " * 150 + "\r", end="", file=sys.stderr, flush=True)


def _fmt(v):
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def lr_at(step, progress, peak, warmup, min_ratio=0.1):
    """Linear warm-up over `warmup` steps, then cosine from peak to min_ratio*peak over progress 0..1."""
    w = min(1.0, (step + 1) / max(1, warmup))
    c = min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))
    return peak * w * c


def find_ptxas():
    p = shutil.which("ptxas")
    if p:
        return p
    for d in (os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"):
        c = os.path.join(d, "bin", "ptxas")
        if d and os.path.exists(c):
            return c
    return None


def check_outputs(texts, arch_of, ptxgen, ptxas):
    """texts: generated modules -> (n passing `ptxgen check`, n passing ptxas or None)."""
    n_check, n_ptxas = 0, 0
    with tempfile.TemporaryDirectory() as d:
        for i, t in enumerate(texts):
            p = os.path.join(d, f"g{i}.ptx")
            with open(p, "w", encoding="utf-8") as f:
                f.write(t)
            if ptxgen and os.path.exists(ptxgen):
                r = subprocess.run([ptxgen, "check", p], capture_output=True, timeout=60)
                n_check += r.returncode == 0
            if ptxas:
                r = subprocess.run([ptxas, f"-arch={arch_of[i]}", p, "-o", os.path.join(d, "g.cubin")],
                                   capture_output=True, timeout=120)
                n_ptxas += r.returncode == 0
    return n_check, (n_ptxas if ptxas else None)


# ---- the trainer ---------------------------------------------------------------------------------

class Trainer:
    def __init__(self, args):
        self.a = args
        self.world = int(os.environ.get("WORLD_SIZE", "1"))
        self.rank = int(os.environ.get("RANK", "0"))
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        if self.world > 1:
            dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
        if args.device:
            self.device = torch.device(args.device)
        elif torch.cuda.is_available():
            self.device = torch.device("cuda", self.local_rank)
        else:
            self.device = torch.device("cpu")
        if self.device.type == "cuda":
            torch.cuda.set_device(self.device)
            torch.backends.cuda.matmul.allow_tf32 = True
        self.amp = self.device.type == "cuda" and not args.f32
        torch.manual_seed(args.seed + self.rank)
        self.ckpt_dir = args.ckpt_dir or args.out
        os.makedirs(args.out, exist_ok=True)
        os.makedirs(self.ckpt_dir, exist_ok=True)
        self.log = Logger(os.path.join(args.out, "train_log.jsonl"), self.rank)
        self.tok = D.Tokenizer(args.tokenizer)
        self.tok_dir = os.path.dirname(os.path.abspath(args.tokenizer))
        pairs = D.load_pairs(args.data)
        self.train_pairs, self.val_pairs = D.split_pairs(pairs)
        self.t0 = time.time()
        self.ptxgen = args.ptxgen if os.path.exists(args.ptxgen) else None
        self.ptxas = None if args.no_ptxas else find_ptxas()
        self.last_ckpt = time.time()
        self.stop_all = False

    # -- model set-up --
    def build_model(self):
        a = self.a
        if a.base:
            m = load_hf_dir(a.base)
            src = a.base
        else:
            m = Qwen2ForCausalLM(Qwen2Config.preset(a.config_size, self.tok.vocab_size))
            src = f"random init ({a.config_size})"
        if m.config.vocab_size < self.tok.vocab_size:
            raise ValueError(f"model vocab {m.config.vocab_size} < tokenizer vocab {self.tok.vocab_size}")
        return m.to(self.device), src

    def wrap(self, model):
        """(module to call for training, the raw module): DDP and/or torch.compile."""
        run = model
        if self.a.compile:
            run = torch.compile(run, dynamic=True)
        if self.world > 1:
            from torch.nn.parallel import DistributedDataParallel as DDP
            run = DDP(run, device_ids=[self.device.index] if self.device.type == "cuda" else None)
        return run

    def optimizer(self, model, lr):
        decay = [p for p in model.parameters() if p.requires_grad and p.dim() >= 2]
        no_decay = [p for p in model.parameters() if p.requires_grad and p.dim() < 2]
        groups = [{"params": decay, "weight_decay": self.a.weight_decay},
                  {"params": no_decay, "weight_decay": 0.0}]
        fused = self.device.type == "cuda"
        return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95), eps=1e-8, fused=fused)

    def sync_flags(self, *flags):
        """Every rank takes the same decisions (stop, evaluate, checkpoint): OR over ranks."""
        if self.world == 1:
            return tuple(bool(f) for f in flags)
        t = torch.tensor([1.0 if f else 0.0 for f in flags], device=self.device)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return tuple(bool(v > 0) for v in t.tolist())

    # -- evaluation --
    @torch.no_grad()
    def val_loss(self, model, phase, ft_val=None, max_batches=20):
        model.eval()
        losses = []
        if phase == "pretrain":
            pk = self.val_packed
            for i in range(0, min(max_batches, pk.rows.shape[0]), 4):
                r = pk.rows[i:i + 4].to(self.device)                 # [<=4, T]
                with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.amp):
                    _, loss = model(r, labels=r)
                losses.append(loss.item())
        else:
            for x, y in ft_val[:max_batches]:
                with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.amp):
                    _, loss = model(x.to(self.device), labels=y.to(self.device))
                losses.append(loss.item())
        model.train()
        return sum(losses) / max(1, len(losses))

    @torch.no_grad()
    def eval_generation(self, model):
        """Greedy and sampled outputs on the fixed val prompts through ptxgen check and ptxas."""
        a = self.a
        if a.eval_prompts <= 0 or not self.eval_set:
            return {}
        model.eval()
        res = {"n_prompts": len(self.eval_set), "sampling": f"greedy + top-k 5 T 0.3, max {a.eval_max_new} new"}
        t = time.time()
        for mode, temp in (("greedy", 0.0), ("sampled", 0.3)):
            texts, archs, ended = [], [], 0
            for j, (p, arch) in enumerate(self.eval_set):
                with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.amp):
                    out = generate(model, p, a.eval_max_new, D.END_ID, temperature=temp, top_k=5, seed=j)
                ended += bool(out) and out[-1] == D.END_ID
                texts.append(self.tok.decode([i for i in out if i != D.END_ID]))
                archs.append(arch)
            nc, npx = check_outputs(texts, archs, self.ptxgen, self.ptxas)
            res[f"{mode}_ended"] = ended / len(texts)
            res[f"{mode}_check_pass"] = nc / len(texts) if self.ptxgen else None
            res[f"{mode}_ptxas_pass"] = npx / len(texts) if npx is not None else None
        res["check_pass"] = res["greedy_check_pass"]
        res["ptxas_pass"] = res["greedy_ptxas_pass"]
        res["ended"] = res["greedy_ended"]
        if not self.ptxas:
            res["ptxas_note"] = "ptxas not found: ptxas pass rate not measured"
        if not self.ptxgen:
            res["check_note"] = f"{self.a.ptxgen} not found: check pass rate not measured"
        res["gen_seconds"] = round(time.time() - t, 1)
        model.train()
        return res

    def make_eval_set(self):
        """Fixed val prompts: short enough completions, spread over the val set (sorted by id)."""
        a = self.a
        vals = sorted(self.val_pairs, key=lambda p: str(p.get("id", "")))
        lens = self.tok.encode_batch([p["completion"] for p in vals])
        ok = [(p, len(c)) for p, c in zip(vals, lens) if len(c) <= a.eval_max_new]
        if not ok:        # nothing fits: the shortest ones (they are cut at eval_max_new)
            ok = sorted(zip(vals, map(len, lens)), key=lambda x: x[1])[: a.eval_prompts]
        if not ok:
            return []
        step = max(1, len(ok) // max(1, a.eval_prompts))
        chosen = ok[::step][: a.eval_prompts]
        out = []
        for p, _ in chosen:
            arch = "sm_80"
            for line in p["prompt"].split("\n"):
                if line.startswith(D.TOK_ARCH):
                    arch = line[len(D.TOK_ARCH):].strip() or arch
            out.append((self.tok.encode(p["prompt"]), arch))
        return out

    # -- checkpoints and exports --
    def save_ckpt(self, model, opt, phase, step, tokens, phase_elapsed):
        if self.rank != 0:
            return
        ck = {"config": vars(model.config), "model": model.state_dict(), "opt": opt.state_dict(),
              "phase": phase, "step": step, "tokens": tokens, "phase_elapsed": phase_elapsed,
              "lora": getattr(model, "lora", None), "args": vars(self.a)}
        path = os.path.join(self.ckpt_dir, "ckpt.pt")
        torch.save(ck, path + ".tmp")
        os.replace(path + ".tmp", path)

    def export(self, model, final=False):
        """Merged copy of the model -> OUT (HF layout); the adapter -> OUT/adapter when LoRA is on."""
        if self.rank != 0:
            return []
        m = copy.deepcopy(model).float().cpu()
        if getattr(m, "lora", None):
            L.save_adapter(m, os.path.join(self.a.out, "adapter"), base_model_name_or_path=self.base_name)
            L.merge_lora(m)
        files = E.export_model(m, self.a.out, self.tok_dir, self.log.records, self.a.export_dtype)
        self.log.log({"event": "export", "final": final, "files": len(files), "out": self.a.out})
        return files

    def periodic(self, model, opt, phase, step, tokens, phase_elapsed):
        self.save_ckpt(model, opt, phase, step, tokens, phase_elapsed)
        self.log.log({"event": "checkpoint", "phase": phase, "step": step, "tokens": tokens})
        if not self.a.no_periodic_export:
            self.export(model)
        self.last_ckpt = time.time()
        if self.world > 1:
            dist.barrier()

    # -- one phase --
    def run_phase(self, phase, model, deadline, resume=None):
        a = self.a
        lora_on = phase == "finetune" and not a.full_finetune
        if lora_on and not getattr(model, "lora", None):
            targets = L.TARGETS_ALL if a.lora_targets == "all" else a.lora_targets.split(",")
            L.apply_lora(model, a.lora_r, a.lora_alpha, a.lora_dropout, targets)
            model.to(self.device)
        peak = a.lr if phase == "pretrain" else a.ft_lr
        max_steps = a.steps if phase == "pretrain" else (a.ft_steps or a.steps)
        opt = self.optimizer(model, peak)
        step, tokens, elapsed0 = 0, 0, 0.0
        if resume:
            opt.load_state_dict(resume["opt"])
            step, tokens, elapsed0 = resume["step"], resume["tokens"], resume["phase_elapsed"]
        run = self.wrap(model)
        info = {}
        if phase == "pretrain":
            train = D.PackedData(self.tok, self.train_pairs, a.seq_len, seed=a.seed + self.rank)
            bs = max(1, a.batch_tokens // a.seq_len)
            next_batch = lambda: train.batch(bs)  # noqa: E731
            info = {"data_tokens": train.tokens, "batch_size": bs, "seq_len": a.seq_len}
        else:
            train = D.FinetuneData(self.tok, self.train_pairs, a.max_length, a.batch_tokens, seed=a.seed + self.rank)
            val = D.FinetuneData(self.tok, self.val_pairs, train.max_length, a.batch_tokens, seed=0)
            self.ft_val = val.all_batches()
            next_batch = train.batch
            info = {"data_tokens": train.tokens, "max_length": train.max_length, "dropped": train.dropped,
                    "examples": len(train.examples)}
        n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
        self.log.log({"event": "phase_start", "phase": phase, "trainable_params": n_train,
                      "lora": getattr(model, "lora", None), "deadline_s": None if deadline is None
                      else round(deadline - time.time(), 1), **info})
        t_start = time.time() - elapsed0
        budget = None if deadline is None else deadline - time.time() + elapsed0
        last_eval, losses, recent, t_log, tok_log = time.time(), [], [], time.time(), 0
        model.train()
        while True:
            elapsed = time.time() - t_start
            progress = max(step / max_steps if max_steps else 0.0,
                           elapsed / budget if budget else 0.0)
            stop, due_eval, due_ckpt = self.sync_flags(
                (max_steps and step >= max_steps) or (deadline is not None and time.time() >= deadline),
                step > 0 and ((a.eval_every and step % a.eval_every == 0) or
                              (a.eval_every_s and time.time() - last_eval >= a.eval_every_s)),
                step > 0 and a.ckpt_every_s > 0 and time.time() - self.last_ckpt >= a.ckpt_every_s)
            if stop:
                break
            if due_eval:
                self.evaluate(model, phase, step, losses)
                last_eval = time.time()
            if due_ckpt:
                self.periodic(model, opt, phase, step, tokens, time.time() - t_start)
            lr = lr_at(step, progress, peak, a.warmup)
            for g in opt.param_groups:
                g["lr"] = lr
            x, y = next_batch()                                     # [B, T] each
            x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.amp):
                _, loss = run(x, labels=y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], 1.0)
            opt.step()
            step += 1
            ntok = int((y != D.IGNORE).sum()) if phase == "finetune" else x.numel()
            ntok *= self.world
            tokens += ntok
            tok_log += ntok
            recent.append(loss.detach())           # .item() only at log time: no sync every step
            if step % a.log_every == 0 or step == 1 or (self.log.tty and step % 10 == 0):
                losses.append(torch.stack(recent).float().mean().item())
                recent = []
                dt = time.time() - t_log
                tps = tok_log / max(dt, 1e-6)
                eta = (budget - elapsed) if budget else ((max_steps - step) * elapsed / step if max_steps else 0)
                self.log.bar(f"{phase} step {step} loss {losses[-1]:.4f} lr {lr:.2e} {tps:,.0f} tok/s ETA {eta:.0f}s")
                if step % a.log_every == 0 or step == 1:
                    self.log.log({"event": "step", "phase": phase, "step": step, "loss": round(losses[-1], 4),
                                  "lr": lr, "tokens": tokens, "tok_per_s": round(tps),
                                  "elapsed_s": round(time.time() - self.t0, 1)}, echo=not self.log.tty)
                t_log, tok_log = time.time(), 0
        secs = time.time() - t_start
        if recent:
            losses.append(torch.stack(recent).float().mean().item())
        tl = losses[-1] if losses else float("nan")
        ev = self.evaluate(model, phase, step, losses)
        self.save_ckpt(model, opt, phase + ":done", step, tokens, secs)
        rec = {"event": "phase_end", "phase": phase, "steps": step, "tokens": tokens, "seconds": round(secs, 1),
               "train_loss": round(tl, 4), "val_loss": ev.get("val_loss"), **{k: v for k, v in info.items()
                                                                             if k in ("max_length", "dropped")}}
        self.log.log(rec)
        return model

    def evaluate(self, model, phase, step, losses):
        if self.rank != 0:
            if self.world > 1:
                dist.barrier()
            return {}
        self.log.clear_bar()
        rec = {"event": "eval", "phase": phase, "step": step,
               "train_loss": round(losses[-1], 4) if losses else None,
               "val_loss": round(self.val_loss(model, phase, getattr(self, "ft_val", None)), 4)}
        rec.update(self.eval_generation(model))
        self.log.log(rec)
        if self.world > 1:
            dist.barrier()
        return rec

    # -- the whole run --
    def run(self):
        a = self.a
        resume = None
        ck_path = os.path.join(self.ckpt_dir, "ckpt.pt")
        if a.resume:
            if not os.path.exists(ck_path):
                raise FileNotFoundError(f"--resume: {ck_path} does not exist")
            resume = torch.load(ck_path, map_location="cpu", weights_only=False)
            model = Qwen2ForCausalLM(Qwen2Config(**resume["config"]))
            if resume.get("lora"):
                i = resume["lora"]
                L.apply_lora(model, i["r"], i["alpha"], i["dropout"], i["targets"])
            model.load_state_dict(resume["model"])
            model.to(self.device)
            src = f"resume {ck_path} ({resume['phase']} step {resume['step']})"
        else:
            model, src = self.build_model()
        self.base_name = a.base or "ptxgen-pretrained"
        phases = ["pretrain", "finetune"] if a.phase == "both" else [a.phase]
        if a.phase == "finetune" and not a.base and not resume:
            raise SystemExit("train.py: --phase finetune needs --base DIR (a pretrained model) or --resume")
        if resume:     # skip finished phases; continue the interrupted one
            done = resume["phase"]
            if done == "pretrain:done":
                phases = [p for p in phases if p != "pretrain"]
                resume = None
            elif done == "finetune:done":
                phases, resume = [], None
            elif done == "finetune":
                phases = ["finetune"]
        self.val_packed = D.PackedData(self.tok, self.val_pairs, self.a.seq_len, seed=1)
        self.eval_set = self.make_eval_set() if self.rank == 0 else []
        dev_name = torch.cuda.get_device_name(self.device) if self.device.type == "cuda" else "cpu"
        self.log.log({"event": "start", "device": dev_name, "world_size": self.world, "data": a.data,
                      "pairs_train": len(self.train_pairs), "pairs_val": len(self.val_pairs),
                      "model": src, "params": model.num_params(), "config": vars(model.config),
                      "phases": phases, "amp_bf16": self.amp, "time_budget_s": a.time_budget,
                      "ptxas": self.ptxas, "torch": torch.__version__})
        t_end = None if not a.time_budget else self.t0 + a.time_budget
        for i, ph in enumerate(phases):
            if t_end is None:
                deadline = None
            elif ph == "pretrain" and len(phases) > 1:
                deadline = self.t0 + a.time_budget * a.pretrain_share
            else:
                deadline = t_end
            r = resume if (resume and resume["phase"] == ph) else None
            model = self.run_phase(ph, model, deadline, r)
            resume = None
            if ph == "pretrain" and "finetune" in phases and self.rank == 0:
                # the base the adapter applies to (f32, for check_hf.py --adapter ... --base CKPT_DIR/base)
                base_dir = os.path.join(self.ckpt_dir, "base")
                E.export_model(copy.deepcopy(model).float().cpu(), base_dir, self.tok_dir, self.log.records, "f32")
                self.base_name = base_dir
        # the shipped model: adapter saved apart, merged weights exported
        files = self.export(model, final=True)
        self.log.log({"event": "end", "seconds": round(time.time() - self.t0, 1), "files": files,
                      "params": model.num_params()})
        if self.world > 1:
            dist.barrier()
            dist.destroy_process_group()


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--phase", choices=["pretrain", "finetune", "both"], default="both")
    ap.add_argument("--data", required=True, help="pairs JSONL (ptxgen prompts)")
    ap.add_argument("--tokenizer", default="models/default/tokenizer.json")
    ap.add_argument("--config-size", choices=["tiny", "default"], default="default")
    ap.add_argument("--base", help="start from this HF Qwen2 directory (config.json + safetensors)")
    ap.add_argument("--out", required=True, help="export directory (HF layout) and train_log.jsonl")
    ap.add_argument("--ckpt-dir", help="where ckpt.pt goes (default: OUT)")
    ap.add_argument("--resume", action="store_true", help="continue from CKPT_DIR/ckpt.pt")
    ap.add_argument("--time-budget", type=float, default=0, help="seconds for the whole run (0 = none)")
    ap.add_argument("--pretrain-share", type=float, default=0.7)
    ap.add_argument("--steps", type=int, default=0, help="max steps per phase (0 = until the time budget)")
    ap.add_argument("--ft-steps", type=int, default=0, help="max fine-tune steps (default: --steps)")
    ap.add_argument("--lr", type=float, default=1e-3, help="peak learning rate, pretrain")
    ap.add_argument("--ft-lr", type=float, default=5e-4, help="peak learning rate, fine-tune")
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--weight-decay", type=float, default=0.1)
    ap.add_argument("--batch-tokens", type=int, default=65536, help="tokens per batch per process")
    ap.add_argument("--seq-len", type=int, default=1024, help="pretrain row length")
    ap.add_argument("--max-length", type=int, default=0, help="fine-tune max length (0 = p95 of the data)")
    ap.add_argument("--lora-r", type=int, default=64)
    ap.add_argument("--lora-alpha", type=float, default=128)
    ap.add_argument("--lora-dropout", type=float, default=0.05)
    ap.add_argument("--lora-targets", default="q_proj,v_proj", help="comma list or 'all'")
    ap.add_argument("--full-finetune", action="store_true", help="fine-tune every weight (no LoRA)")
    ap.add_argument("--eval-every", type=int, default=0, help="evaluate every N steps")
    ap.add_argument("--eval-every-s", type=float, default=0, help="evaluate every N seconds")
    ap.add_argument("--eval-prompts", type=int, default=8)
    ap.add_argument("--eval-max-new", type=int, default=768)
    ap.add_argument("--ckpt-every-s", type=float, default=180)
    ap.add_argument("--no-periodic-export", action="store_true")
    ap.add_argument("--export-dtype", choices=["bf16", "f32"], default="bf16")
    ap.add_argument("--log-every", type=int, default=50)
    ap.add_argument("--compile", action="store_true", help="torch.compile the training forward")
    ap.add_argument("--f32", action="store_true", help="no bf16 autocast on CUDA")
    ap.add_argument("--device", help="cpu, cuda, cuda:1 (default: cuda when present)")
    ap.add_argument("--ptxgen", default="build/ptxgen")
    ap.add_argument("--no-ptxas", action="store_true")
    ap.add_argument("--seed", type=int, default=1234)
    a = ap.parse_args(argv)
    if not a.steps and not a.time_budget and not a.ft_steps:
        ap.error("give --steps or --time-budget")
    if a.lora_targets != "all":
        bad = [t for t in a.lora_targets.split(",") if t not in L.TARGETS_ALL]
        if bad:
            ap.error(f"--lora-targets: unknown module(s) {bad}; choose from {L.TARGETS_ALL} or 'all'")
    return a


def main(argv=None):
    Trainer(parse_args(argv)).run()


if __name__ == "__main__":
    main()
