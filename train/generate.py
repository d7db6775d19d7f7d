"""generate.py — batched generation on a GPU with PyTorch under ptxgen's constraint,
for evaluating models the C engine cannot run yet and for fast sweeps.

The constraint, the prompt builder and the task signatures are ptxgen's own,
called from build/libptxgen.so through ctypes: the same recognizer
(dec_accepts / dec_mask / dec_advance), the same gen_prompt_build_fmt and
gen_signature_from_task as `ptxgen gen` and `ptxgen eval`.  Sampling follows
gen.c: top-k (default 5) at temperature T (default 0.3) restricted to the
tokens the constraint allows (sample-then-verify: the sampled token is checked;
when it is rejected, the k best allowed tokens are found by walking the logits
in descending order, the full mask only when the best 256 hold fewer than k).
The performance bias (a CPU-side logit table) is not applied: rows are written
under the `no_bias` config.

Output: DIR/<task>.<style>.<config>.<sample>.ptx (+ .json: tokens, seconds,
finished), the layout `ptxgen eval --kernels DIR` reads.

--twin adds the second turn (twin_turn): for every finished kernel, the prompt of
gen_prompt_build_twin_fmt (description + the generated PTX -> the CUDA C twin),
sampled unconstrained at the same temperature and top-k up to --twin-max-new
tokens, written to DIR/<case>.cu beside the PTX: eval then reports how far
"agrees with its twin" can be trusted (twin precision/recall).  The twin turn
runs after the PTX turn and gets what --deadline leaves (--twin-reserve keeps
seconds for it); a twin the deadline cut gets no .cu.

    python3 train/generate.py --base /tmp/qwen-hf --adapter models/default \\
        --suite bench/suite --suite bench/suite-prose --samples 2 --out /tmp/gen
"""
import argparse
import ctypes as C
import glob
import json
import os
import sys
import time

import numpy as np
import torch

import kvdecode

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

STYLES = ["terse", "detailed", "card", "zh", "prose"]


# ---- libptxgen ------------------------------------------------------------------------------------
class PgBuf(C.Structure):
    _fields_ = [("data", C.c_char_p), ("len", C.c_size_t), ("cap", C.c_size_t)]


class DiagSink(C.Structure):
    _fields_ = [("fn", C.c_void_p), ("user", C.c_void_p), ("nerrors", C.c_int), ("nwarnings", C.c_int), ("max_errors", C.c_int)]


class DecOpts(C.Structure):
    _fields_ = [("arch", C.c_char_p), ("signature", C.c_char_p), ("max_statements", C.c_int), ("max_regs_per_decl", C.c_int),
                ("block", C.c_int * 3), ("entry_name", C.c_char_p), ("comment_max", C.c_int),
                ("regs_named", C.c_int), ("plan", C.c_char_p),
                ("plan_repeat_max", C.c_int), ("regs_grow", C.c_int), ("reads_unwritten", C.c_int)]   # include/ptxgen/decode.h dec_opts, field for field


class RetrHit(C.Structure):   # gen_retr_hit (include/ptxgen/decode.h)
    _fields_ = [("index", C.c_int), ("task", C.c_char_p), ("family", C.c_char_p), ("plan", C.c_char_p), ("ptx", C.c_char_p),
                ("score", C.c_double)]


class RetrFilter(C.Structure):   # gen_retr_filter
    _fields_ = [("exclude_task", C.c_char_p), ("max_plan_bytes", C.c_size_t), ("max_ptx_bytes", C.c_size_t)]


class Lib:
    """The parts of libptxgen.so generation needs (include/ptxgen/decode.h, task.h)."""

    def __init__(self, path):
        L = C.CDLL(path)
        self.L = L
        vp, i32 = C.c_void_p, C.c_int32
        L.dec_vocab_from_pieces.argtypes = [C.POINTER(C.c_char_p), C.POINTER(C.c_size_t), C.POINTER(C.c_bool), C.c_int,
                                            C.POINTER(vp), C.POINTER(DiagSink)]
        L.dec_vocab_from_pieces.restype = C.c_int
        L.dec_vocab_free.argtypes = [vp]
        L.dec_new.argtypes = [vp, C.POINTER(DecOpts), C.POINTER(vp), C.POINTER(DiagSink)]
        L.dec_new.restype = C.c_int
        L.dec_free.argtypes = [vp]
        L.dec_forced_text.argtypes = [vp, C.POINTER(PgBuf)]
        L.dec_forced_left.argtypes = [vp]
        L.dec_forced_left.restype = C.c_size_t
        L.dec_end_bytes.argtypes = [vp]
        L.dec_end_bytes.restype = C.c_size_t
        L.dec_forced_text.restype = C.c_size_t
        L.dec_accepts.argtypes = [vp, i32]
        L.dec_accepts.restype = C.c_bool
        L.dec_mask.argtypes = [vp, C.POINTER(C.c_uint32)]
        L.dec_mask.restype = C.c_int
        L.dec_advance.argtypes = [vp, i32, C.POINTER(DiagSink)]
        L.dec_advance.restype = C.c_int
        L.dec_advance_text.argtypes = [vp, C.c_char_p, C.c_size_t, C.POINTER(DiagSink)]
        L.dec_advance_text.restype = C.c_int
        L.dec_force_end.argtypes = [vp]
        L.dec_done.argtypes = [vp]
        L.dec_done.restype = C.c_bool
        L.dec_text.argtypes = [vp, C.POINTER(C.c_size_t)]
        L.dec_text.restype = C.POINTER(C.c_char)
        L.gen_prompt_build_fmt.argtypes = [C.c_int, C.c_char_p, C.c_char_p, C.c_char_p, C.POINTER(PgBuf)]
        L.gen_prompt_build_twin_fmt.argtypes = [C.c_int, C.c_char_p, C.c_char_p, C.c_char_p, C.c_char_p, C.POINTER(PgBuf)]
        L.twin_strip_fence.argtypes = [C.c_char_p, C.POINTER(PgBuf)]
        L.ptx_regs_tighten_text.argtypes = [C.c_char_p, C.c_size_t, C.POINTER(PgBuf)]
        L.ptx_regs_tighten_text.restype = C.c_bool
        L.gen_signature_from_task.argtypes = [vp, C.POINTER(PgBuf)]
        L.gen_c_signature_from_task.argtypes = [vp, C.POINTER(PgBuf)]
        L.gen_prompt_build_plan.argtypes = [C.c_char_p, C.c_char_p, C.c_char_p, C.POINTER(PgBuf)]
        L.gen_prompt_build_ptx_plan.argtypes = [C.c_char_p, C.c_char_p, C.c_char_p, C.c_char_p, C.POINTER(PgBuf)]
        L.gen_prompt_build_plan_ex.argtypes = [C.c_char_p, C.c_char_p, C.c_char_p, C.c_char_p, C.POINTER(RetrHit), C.c_int,
                                               C.POINTER(PgBuf)]
        L.gen_prompt_build_ptx_plan_ex.argtypes = [C.c_char_p, C.c_char_p, C.c_char_p, C.c_char_p, C.c_char_p, C.POINTER(RetrHit),
                                                   C.c_int, C.POINTER(PgBuf)]
        L.gen_launch_from_task.argtypes = [vp, C.POINTER(PgBuf)]
        L.gen_retr_load.argtypes = [C.c_char_p, C.POINTER(vp), C.POINTER(DiagSink)]
        L.gen_retr_load.restype = C.c_int
        L.gen_retr_query.argtypes = [vp, C.c_char_p, C.POINTER(RetrFilter), C.c_int, C.POINTER(RetrHit)]
        L.gen_retr_query.restype = C.c_int
        L.gen_retr_free.argtypes = [vp]
        L.task_load.argtypes = [C.c_char_p, C.POINTER(vp), C.POINTER(DiagSink)]
        L.task_block_max.argtypes = [vp, C.POINTER(C.c_int)]
        L.task_load.restype = C.c_int
        L.task_free.argtypes = [vp]
        L.pg_buf_free.argtypes = [C.POINTER(PgBuf)]

    def _take(self, b):
        s = C.string_at(b.data, b.len).decode("utf-8") if b.data else ""
        self.L.pg_buf_free(C.byref(b))
        return s

    def prompt(self, fmt, desc, arch, sig):
        b = PgBuf()
        self.L.gen_prompt_build_fmt(fmt, desc.encode(), arch.encode(), sig.encode(), C.byref(b))
        return self._take(b)

    def twin_prompt(self, fmt, desc, arch, sig, ptx):
        """The twin turn's prompt: the first turn's, the PTX as its answer, then the request for the CUDA C twin."""
        b = PgBuf()
        self.L.gen_prompt_build_twin_fmt(fmt, desc.encode(), arch.encode(), sig.encode(), ptx.encode(), C.byref(b))
        return self._take(b)

    def strip_fence(self, text):
        """The C inside a ``` fence when the model fenced it, else the text (twin_strip_fence, as gen --twin writes twins)."""
        b = PgBuf()
        self.L.twin_strip_fence(text.encode(), C.byref(b))
        return self._take(b)

    def tighten(self, text):
        """The text with exact register counts (ptx_regs_tighten_text), as `gen` writes kernels: a model
        trained on widened declarations (prompts --widen-regs) declares more than it uses."""
        b, raw = PgBuf(), text.encode()
        self.L.ptx_regs_tighten_text(raw, len(raw), C.byref(b))
        return self._take(b)

    def plan_prompt(self, desc, arch, c_sig, hits=None, launch=""):
        """The plan turn's prompt (gen_prompt_build_plan_ex, docs/LITERATE.md); hits: retrieve()'s kernels;
        launch: task_launch()'s text ("" leaves the line out)."""
        b = PgBuf()
        arr, n = hits if hits else (None, 0)
        self.L.gen_prompt_build_plan_ex(desc.encode(), arch.encode(), (launch or "").encode(), (c_sig or "").encode(), arr, n,
                                        C.byref(b))
        return self._take(b)

    def ptx_plan_prompt(self, desc, arch, plan, sig, hits=None, launch=""):
        """The PTX turn's prompt (gen_prompt_build_ptx_plan_ex): request + launch + plan -> literate PTX."""
        b = PgBuf()
        arr, n = hits if hits else (None, 0)
        self.L.gen_prompt_build_ptx_plan_ex(desc.encode(), arch.encode(), (launch or "").encode(), plan.encode(), sig.encode(), arr, n,
                                            C.byref(b))
        return self._take(b)

    def retr_load(self, path):
        """A retrieval library (gen_retr_load); freed with the process."""
        r, q = C.c_void_p(), DiagSink()
        if self.L.gen_retr_load(path.encode(), C.byref(r), C.byref(q)) != 0:
            raise SystemExit(f"{path}: not a retrieval library ({q.nerrors} errors; run `ptxgen retrieve query --lib {path} x`)")
        return r

    def retrieve(self, lib, request, k, exclude_task=None, max_ptx_bytes=0):
        """(hits array, n): the k nearest kernels of the library (gen_retr_query), for plan_prompt / ptx_plan_prompt.
        The hits point into the library, which must outlive them."""
        hits = (RetrHit * max(k, 1))()
        f = RetrFilter(exclude_task.encode() if exclude_task else None, 0, max_ptx_bytes)
        n = self.L.gen_retr_query(lib, request.encode(), C.byref(f), k, hits)
        return hits, n

    def _task_text(self, path, fn):
        """fn(task, buf)'s text for the task at path (a gen_*_from_task printer)."""
        t, q = C.c_void_p(), DiagSink()
        if self.L.task_load(path.encode(), C.byref(t), C.byref(q)) != 0:
            raise SystemExit(f"{path}: task_load failed ({q.nerrors} errors)")
        b = PgBuf()
        fn(t, C.byref(b))
        self.L.task_free(t)
        return self._take(b)

    def task_c_signature(self, path):
        """The task's CUDA C signature (gen_c_signature_from_task), as the plan turn gives it."""
        return self._task_text(path, self.L.gen_c_signature_from_task)

    def task_launch(self, path):
        """The task's launch as both turns state it (gen_launch_from_task): "block 256, grid cdiv(n,256)"."""
        return self._task_text(path, self.L.gen_launch_from_task)

    def task_signature(self, path):
        """(signature, block): the forced entry header and the launch's block (task_block_max), as eval uses them."""
        t, q = C.c_void_p(), DiagSink()
        if self.L.task_load(path.encode(), C.byref(t), C.byref(q)) != 0:
            raise SystemExit(f"{path}: task_load failed ({q.nerrors} errors; run `ptxgen run --dry-run` on it)")
        b = PgBuf()
        self.L.gen_signature_from_task(t, C.byref(b))
        blk = (C.c_int * 3)()
        self.L.task_block_max(t, blk)
        self.L.task_free(t)
        return self._take(b), tuple(blk)


FMT = {"ptxgen": 0, "chatml": 1}


def bytes_to_unicode():
    """GPT-2's byte-level alphabet: every byte as a printable character."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


def token_bytes(tok):
    """Every token id's bytes (byte-level BPE decoded) and whether it is special."""
    u2b = {u: b for b, u in bytes_to_unicode().items()}
    n = len(tok)
    pieces, special = [b""] * n, [False] * n
    specials = set(tok.all_special_ids) | {i for i, t in tok.added_tokens_decoder.items() if t.special}
    for i, s in enumerate(tok.convert_ids_to_tokens(list(range(n)))):
        if s is None:
            continue
        if i in specials:
            pieces[i], special[i] = s.encode(), True
        else:
            try:
                pieces[i] = bytes(u2b[ch] for ch in s)
            except KeyError:          # an added non-special token written in plain text
                pieces[i] = s.encode()
    return pieces, special


class Seq:
    __slots__ = ("key", "dec", "toks", "done", "t0", "gen", "forced", "forced_end", "written", "desc", "sig", "text", "finished",
                 "temp")

    def __init__(self, key, dec, desc, sig):
        self.key, self.dec, self.toks, self.done = key, dec, [], False
        self.t0, self.gen, self.forced, self.forced_end, self.written = time.time(), 0, 0, False, False
        self.desc, self.sig, self.text, self.finished = desc, sig, "", False
        self.temp = None   # this row's temperature when it is not --temperature (generate2's greedy translations)


def past_deadline(deadline):
    return deadline > 0 and time.time() - T0 > deadline


T0 = time.time()


def main(argv=None):
    # cuDNN's fused attention failed in the backward pass on the H200 (mha_graph.execute, Qwen2 GQA, 2026-12-01)
    torch.backends.cuda.enable_cudnn_sdp(False)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="HF model directory (a from-scratch ptxgen model or a dequantized base)")
    ap.add_argument("--gguf", help="load the base from this GGUF file inside --base instead")
    ap.add_argument("--adapter", help="PEFT LoRA adapter directory")
    ap.add_argument("--tokenizer", help="tokenizer.json (default: the base's)")
    ap.add_argument("--format", choices=["ptxgen", "chatml"], help="prompt format (default: chatml unless the tokenizer has <|task|>)")
    ap.add_argument("--suite", action="append", required=True, help="suite folder (repeatable)")
    ap.add_argument("--only", help="comma list of task names")
    ap.add_argument("--styles", default=",".join(STYLES))
    ap.add_argument("--samples", type=int, default=1)
    ap.add_argument("--out", required=True)
    ap.add_argument("--lib", default="build/libptxgen.so")
    ap.add_argument("--arch", default="sm_80")
    ap.add_argument("--temperature", type=float, default=0.3)
    ap.add_argument("--top-k", type=int, default=5)
    ap.add_argument("--regs-strict", action="store_true",
                    help="register indices must stay below the declared counts (dec_opts.regs_grow 0; default: they may pass them "
                         "and the counts are tightened afterwards, as gen does)")
    ap.add_argument("--max-new", type=int, default=3072)
    ap.add_argument("--batch", type=int, default=640, help="sequences decoded together (the KV cache of 640 x 4k tokens of the 0.5B model is ~30 GB)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--model-name", default=None)
    ap.add_argument("--config", default="no_bias", help="the config name in the output file names")
    ap.add_argument("--time-budget", type=float, default=0, help="stop starting new batches after this many seconds")
    ap.add_argument("--deadline", type=float, default=0,
                    help="seconds after which the unfinished sequences are written as they are (finished=false) and the run ends")
    ap.add_argument("--twin", action="store_true", help="a second turn per finished kernel: its CUDA C twin, DIR/<case>.cu")
    ap.add_argument("--twin-max-new", type=int, default=2048, help="token limit of the twin turn")
    ap.add_argument("--twin-reserve", type=float, default=0,
                    help="with --twin and --deadline: the PTX turn stops this many seconds before the deadline")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--engine", choices=["static", "hf"], default="static",
                    help="decoding cache: static (kvdecode.py, preallocated) or hf (transformers' own)")
    args = ap.parse_args(argv)
    # the PTX turn's cut-off (0: none); the twin turn runs to --deadline itself
    args.ptx_deadline = args.deadline - args.twin_reserve if args.twin and args.deadline else args.deadline
    if args.deadline and args.ptx_deadline <= 0:
        ap.error(f"--twin-reserve {args.twin_reserve} leaves the PTX turn no time before --deadline {args.deadline}")

    from transformers import AutoModelForCausalLM, AutoTokenizer
    from hfutil import load_tokenizer
    t_load = time.time()
    dtype = torch.bfloat16 if args.device.startswith("cuda") else torch.float32
    if args.gguf:
        tok = AutoTokenizer.from_pretrained(args.base, gguf_file=args.gguf)
    else:
        tok = load_tokenizer(args.base, args.tokenizer)
    model = AutoModelForCausalLM.from_pretrained(args.base, gguf_file=args.gguf, dtype=dtype) if args.gguf else \
        AutoModelForCausalLM.from_pretrained(args.base, dtype=dtype)
    if args.adapter:
        from peft import PeftModel
        model = PeftModel.from_pretrained(model, args.adapter).merge_and_unload()
    model.to(args.device).eval()
    vocab_rows = model.get_output_embeddings().weight.shape[0]
    fmt = args.format or ("ptxgen" if tok.convert_tokens_to_ids("<|task|>") not in (None, tok.unk_token_id) else "chatml")
    end_text = "<|end|>" if fmt == "ptxgen" else "<|im_end|>"
    end_id = tok.convert_tokens_to_ids(end_text)
    name = args.model_name or (os.path.basename(os.path.normpath(args.adapter)) if args.adapter else os.path.basename(os.path.normpath(args.base)))

    lib = Lib(args.lib)
    pieces, special = token_bytes(tok)
    n = len(pieces)
    arr = (C.c_char_p * n)(*pieces)
    lens = (C.c_size_t * n)(*[len(p) for p in pieces])
    spc = (C.c_bool * n)(*special)
    vocab, q = C.c_void_p(), DiagSink()
    if lib.L.dec_vocab_from_pieces(arr, lens, spc, n, C.byref(vocab), C.byref(q)) != 0:
        raise SystemExit("dec_vocab_from_pieces failed")
    mask_words = (n + 31) // 32
    maskbuf = (C.c_uint32 * mask_words)()
    args.engine, eng = kvdecode.selfcheck(model, args.engine)
    print(json.dumps(dict({"event": "loaded", "seconds": round(time.time() - t_load, 1), "vocab": n, "rows": vocab_rows, "format": fmt},
                          **eng)), flush=True)

    # the cases: every task x style x sample that is not done yet
    only = set(args.only.split(",")) if args.only else None
    styles = [s for s in args.styles.split(",") if s]
    os.makedirs(args.out, exist_ok=True)
    cases = []
    for suite in args.suite:
        for tj in sorted(glob.glob(os.path.join(suite, "*", "task.json"))):
            spec = json.load(open(tj, encoding="utf-8"))
            tname = spec["name"]
            if only and tname not in only:
                continue
            sig, blk = lib.task_signature(tj)
            descs = spec.get("descriptions", {})
            for st in styles:
                d = descs.get(st)
                if not d:
                    continue
                for s in range(args.samples):
                    key = f"{tname}.{st}.{args.config}.{s}"
                    if os.path.exists(os.path.join(args.out, key + ".ptx")):
                        continue
                    cases.append((key, lib.prompt(FMT[fmt], d, args.arch, sig), sig, s, blk, d))
    print(json.dumps({"event": "cases", "todo": len(cases)}), flush=True)
    # longest prompts first keeps the padded prefill small within a batch
    cases.sort(key=lambda c: -len(c[1]))
    gen = torch.Generator(device=args.device)
    gen.manual_seed(args.seed)
    t_all = time.time()
    stats = {"kernels": 0, "finished": 0, "rejections": 0, "full_masks": 0, "tokens": 0}
    kernels = []            # the written kernels (Seq), for the twin turn
    for b0 in range(0, len(cases), args.batch):
        if args.time_budget and time.time() - t_all > args.time_budget:
            print(json.dumps({"event": "budget", "left": len(cases) - b0}), flush=True)
            break
        kernels += run_batch(cases[b0:b0 + args.batch], args, lib, vocab, tok, model, end_id, n, vocab_rows, maskbuf, gen, name,
                             stats)
        print(json.dumps(dict(stats, event="batch", done=min(len(cases), b0 + args.batch), of=len(cases),
                              elapsed=round(time.time() - t_all, 1))), flush=True)
    lib.L.dec_vocab_free(vocab)
    if args.twin:
        eot = tok.convert_tokens_to_ids("<|endoftext|>")
        end_ids = {end_id} | ({eot} if eot not in (None, tok.unk_token_id) else set())
        tw = twin_turn(kernels, args, lib, fmt, tok, model, end_ids, pieces, special, gen, name)
        print(json.dumps(dict(tw, event="twin", elapsed=round(time.time() - t_all, 1))), flush=True)


def run_batch(batch, args, lib, vocab, tok, model, end_id, n, vocab_rows, maskbuf, gen, name, stats):
    dev = args.device
    cpu_gen = torch.Generator()
    cpu_gen.manual_seed(args.seed + 1)
    t_batch, nsteps = time.time(), 0
    seqs, prompts = [], []
    for key, prompt, sig, s, blk, desc, *rest in batch:
        # rest: the plan the PTX turn follows (generate2.py): its comments may only quote the plan's lines,
        # and the comments a straight plan line may head (dec_opts.plan_repeat_max, 0: no limit)
        plan = rest[0] if rest and rest[0] and getattr(args, "comment_max", 0) else None
        cap = rest[1] if plan and len(rest) > 1 else 0
        temp = rest[2] if len(rest) > 2 and rest[2] is not None else args.temperature   # this row's temperature
        # register indices past a declared count (dec_opts.regs_grow; the counts are tightened below), unless strict
        grow = rest[3] if len(rest) > 3 and rest[3] is not None else int(not getattr(args, "regs_strict", False))
        d, q = C.c_void_p(), DiagSink()
        opts = DecOpts(args.arch.encode(), sig.encode(), 0, 0, (C.c_int * 3)(*blk), None, getattr(args, "comment_max", 0),
                       int(getattr(args, "regs_named", False)), plan.encode() if plan else None, cap, grow)
        if lib.L.dec_new(vocab, C.byref(opts), C.byref(d), C.byref(q)) != 0:
            # a signature the decoder cannot constrain: that case fails (a kernel file saying why,
            # which the validator rejects, so it is counted), the batch goes on
            stats["decoder_not_started"] = stats.get("decoder_not_started", 0) + 1
            print(json.dumps({"event": "dec_new_failed", "case": key, "signature": sig[:300]}), flush=True)
            write_atomic(os.path.join(args.out, key + ".ptx"),
                         f"// ptxgen: the constrained decoder could not start for this signature: {' '.join(sig.split())[:300]}\n")
            continue
        sq = Seq(key, d, desc, sig)
        sq.temp = temp
        # the forced opening (header + signature) goes into the prompt, all but its last
        # token: that one the model samples under the constraint, so a token that would
        # merge across the boundary in the training text is still reachable
        fb = PgBuf()
        lib.L.dec_forced_text(d, C.byref(fb))
        forced = lib._take(fb)
        fids = tok(forced, add_special_tokens=False)["input_ids"][:-1] if forced else []
        ftext = tok.decode(fids, clean_up_tokenization_spaces=False).encode() if fids else b""
        if ftext and not forced.encode().startswith(ftext):
            fids, ftext = [], b""
        if ftext:
            lib.L.dec_advance_text(d, ftext, len(ftext), C.byref(q))
        sq.forced = len(fids)
        sq.toks = list(fids)
        seqs.append(sq)
        prompts.append(tok(prompt, add_special_tokens=False)["input_ids"] + fids)
    B = len(seqs)
    L = max(len(p) for p in prompts)
    pad = tok.pad_token_id if tok.pad_token_id is not None else 0
    ids = torch.full((B, L), pad, dtype=torch.long)     # [B][L] left-padded
    att = torch.zeros((B, L), dtype=torch.long)         # [B][L]
    for i, p in enumerate(prompts):
        ids[i, L - len(p):] = torch.tensor(p)
        att[i, L - len(p):] = 1
    ids, att = ids.to(dev), att.to(dev)
    alive = list(range(B))                              # batch rows still generating
    temps = torch.tensor([sq.temp for sq in seqs], dtype=torch.float32, device=dev)   # [B] each row's temperature
    with torch.no_grad():
        # in chunks of positions: a batch of long prompts (the two-stage model's carry the plan) would need
        # [B][heads][L][L] attention scores at once (313 GiB for 700 rows of ~2k tokens, seen 2026-12-04)
        dec = kvdecode.open_decoder(model, B, min(L + args.max_new + 1, model.config.max_position_embeddings), getattr(args, "engine", "static"))
        logits = dec.start(ids, att)                                         # [B][V]
        for step in range(args.max_new):
            if past_deadline(args.ptx_deadline):
                stats["cut_by_deadline"] = stats.get("cut_by_deadline", 0) + len(alive)
                break
            k = args.top_k if args.top_k > 0 else 1
            lg = logits[:, :n] if vocab_rows > n else logits                     # [b][n]
            topv, topi = torch.topk(lg, k, dim=-1)                               # [b][k]
            t_alive = temps[torch.tensor(alive, device=dev)] if len(alive) < B else temps   # [b]
            if args.temperature > 0 or bool((t_alive > 0).any()):
                # a row at temperature 0 takes its best token (index 0 of the top-k), the others draw
                pr = torch.softmax(topv.float() / t_alive.clamp(min=1e-3)[:, None], dim=-1)
                pick = torch.multinomial(pr, 1, generator=gen).squeeze(1)
                pick = torch.where(t_alive > 0, pick, torch.zeros_like(pick))
            else:
                pick = torch.zeros(topv.shape[0], dtype=torch.long, device=dev)
            cand = topi.gather(1, pick[:, None]).squeeze(1).tolist()
            # sample-then-verify: the drawn token is checked; only rejected rows look further
            rej = []
            for j, row in enumerate(alive):
                sq = seqs[row]
                # (+ the forced signature's bytes while module-scope declarations come before it)
                # leave room to close the kernel: the statement under way, the forced signature's bytes and the
                # shortest end's own (owed labels first), as gen does
                if sq.gen > args.max_new - 128 - lib.L.dec_forced_left(sq.dec) - lib.L.dec_end_bytes(sq.dec) and not sq.forced_end:
                    lib.L.dec_force_end(sq.dec)
                    sq.forced_end = True
                if not lib.L.dec_accepts(sq.dec, cand[j]):
                    rej.append(j)
            if rej:
                stats["rejections"] += len(rej)
                rv, ri = torch.topk(lg[torch.tensor(rej, device=dev)], 256, dim=-1)   # [r][256]
                rv, ri = rv.float().cpu(), ri.cpu().tolist()
                for r, j in enumerate(rej):
                    sq = seqs[alive[j]]
                    # the k best allowed tokens = the first k accepted in descending logit order
                    okp = [m for m, c in enumerate(ri[r]) if lib.L.dec_accepts(sq.dec, c)][:k]
                    if len(okp) == k or (okp and sq.temp == 0):
                        ok, v = [ri[r][m] for m in okp], rv[r, okp]
                    else:
                        stats["full_masks"] += 1
                        if lib.L.dec_mask(sq.dec, maskbuf) == 0:
                            raise SystemExit(f"{sq.key}: the constraint allows no token (a constraint bug)")
                        bits = np.frombuffer(maskbuf, dtype=np.uint32)
                        allowed = torch.from_numpy(np.unpackbits(bits.view(np.uint8), bitorder="little")[:n].astype(bool)).to(dev)
                        row_l = lg[j].masked_fill(~allowed, float("-inf"))
                        v, oi = torch.topk(row_l, min(k, int(allowed.sum())))
                        ok, v = oi.tolist(), v.float().cpu()
                    if sq.temp > 0 and len(ok) > 1:
                        p = torch.softmax(v / sq.temp, dim=-1)
                        cand[j] = ok[int(torch.multinomial(p, 1, generator=cpu_gen))]
                    else:
                        cand[j] = ok[0]
            nxt = []
            for j, row in enumerate(alive):
                sq = seqs[row]
                t = cand[j]
                if t == end_id:
                    sq.done = True
                    nxt.append(t)
                    continue
                q = DiagSink()
                if lib.L.dec_advance(sq.dec, t, C.byref(q)) != 0:
                    raise SystemExit(f"{sq.key}: dec_advance refused an accepted token {t}")
                sq.toks.append(t)
                sq.gen += 1
                nxt.append(t)
            stats["steps"] = stats.get("steps", 0) + 1
            nsteps += 1
            # finish rows that reached the end token or the budget
            keep = [j for j, row in enumerate(alive) if not seqs[row].done and seqs[row].gen < args.max_new]
            for j, row in enumerate(alive):
                if seqs[row].done or seqs[row].gen >= args.max_new:
                    write_kernel(seqs[row], args, lib, name, stats)
            if not keep:
                break
            if len(keep) < len(alive):
                dec.keep(keep)
                alive = [alive[j] for j in keep]
            logits = dec.step(torch.tensor([nxt[j] for j in keep], device=dev))   # [b][V]
        for row in alive:
            if not seqs[row].written:
                write_kernel(seqs[row], args, lib, name, stats)
    for sq in seqs:
        lib.L.dec_free(sq.dec)
        sq.dec = None
    stats["ms_per_step"] = round(1000 * (time.time() - t_batch) / max(1, nsteps), 1)
    return [sq for sq in seqs if sq.written]


def write_kernel(sq, args, lib, name, stats):
    if sq.written:
        return
    n = C.c_size_t()
    p = lib.L.dec_text(sq.dec, C.byref(n))
    text = C.string_at(p, n.value).decode("utf-8", errors="replace")
    finished = sq.done and lib.L.dec_done(sq.dec)
    if finished:
        text = lib.tighten(text)
    path = os.path.join(args.out, sq.key)
    with open(path + ".ptx.tmp", "w", encoding="utf-8") as f:
        f.write(f"// GENERATED_BY: ptxgen {name}\n" + text)
    sq.text, sq.finished = text, bool(finished)
    with open(path + ".json.tmp", "w") as f:
        json.dump({"gen_tokens": sq.gen, "forced_tokens": sq.forced, "seconds": round(time.time() - sq.t0, 2), "finished": finished}, f)
    os.replace(path + ".json.tmp", path + ".json")
    os.replace(path + ".ptx.tmp", path + ".ptx")
    stats["kernels"] += 1
    stats["finished"] += bool(finished)
    stats["tokens"] += sq.gen
    sq.written = True



def write_atomic(path, data):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(data)
    os.replace(path + ".tmp", path)


# ---- the twin turn ----------------------------------------------------------------------------------


def twin_turn(kernels, args, lib, fmt, tok, model, end_ids, pieces, special, gen, name):
    """The second turn for every finished kernel this run wrote (Seq): gen_prompt_build_twin_fmt's
    prompt (description + the generated PTX), sampled without the constraint (it knows PTX, not C)
    at the same temperature and top-k, in batches of --batch.  A row ends at an end token
    (finished), a NUL byte, --twin-max-new tokens or the model's context (as gen_twin_sample in
    src/decode/gen.c); its text, unfenced (twin_strip_fence, as gen --twin), goes to DIR/<case>.cu
    after a GENERATED_BY line, and its counts into <case>.json ("twin").  Rows still running at
    --deadline get no .cu.  Returns the counts for the log."""
    dev, n, t0 = args.device, len(pieces), time.time()
    ctx = model.config.max_position_embeddings
    st = {"twins": 0, "twins_finished": 0, "twin_tokens": 0, "twin_cut_by_deadline": 0, "twin_too_long": 0,
          "twin_skipped_unfinished_ptx": sum(not sq.finished for sq in kernels)}
    todo = []                                           # (Seq, prompt ids, token limit)
    for sq in kernels:
        if not sq.finished:
            continue
        ids = tok(lib.twin_prompt(FMT[fmt], sq.desc, args.arch, sq.sig, sq.text), add_special_tokens=False)["input_ids"]
        room = min(args.twin_max_new, ctx - len(ids) - 1)
        if room < 1:
            st["twin_too_long"] += 1
            continue
        todo.append((sq, ids, room))
    todo.sort(key=lambda c: -len(c[1]))
    pad = tok.pad_token_id if tok.pad_token_id is not None else 0
    k = args.top_k if args.top_k > 0 else 1
    for b0 in range(0, len(todo), args.batch):
        batch = todo[b0:b0 + args.batch]
        if past_deadline(args.deadline):
            st["twin_cut_by_deadline"] += len(todo) - b0
            break
        B, L = len(batch), max(len(c[1]) for c in batch)
        ids = torch.full((B, L), pad, dtype=torch.long)     # [B][L] left-padded
        att = torch.zeros((B, L), dtype=torch.long)         # [B][L]
        for i, (_, p, _) in enumerate(batch):
            ids[i, L - len(p):] = torch.tensor(p)
            att[i, L - len(p):] = 1
        ids, att = ids.to(dev), att.to(dev)
        text, ntok, fin, tb = [bytearray() for _ in batch], [0] * B, [False] * B, time.time()
        alive = list(range(B))                              # batch rows still sampling
        with torch.no_grad():
            dec = kvdecode.open_decoder(model, B, min(L + max(c[2] for c in batch) + 1, ctx), getattr(args, "engine", "static"))
            logits = dec.start(ids, att)                                            # [B][V]
            while alive:
                if past_deadline(args.deadline):       # the next batch's check counts the rest
                    st["twin_cut_by_deadline"] += len(alive)
                    break
                topv, topi = torch.topk(logits[:, :n], k, dim=-1)                  # [b][k]
                if args.temperature > 0:
                    pick = torch.multinomial(torch.softmax(topv / args.temperature, dim=-1), 1, generator=gen)
                else:
                    pick = torch.zeros((topv.shape[0], 1), dtype=torch.long, device=dev)
                cand = topi.gather(1, pick).squeeze(1).tolist()
                keep = []
                for j, row in enumerate(alive):
                    t = cand[j]
                    if t in end_ids:
                        fin[row] = True
                    elif b"\0" not in pieces[t]:               # gen.c stops a twin at a NUL byte
                        if not special[t]:
                            text[row] += pieces[t]
                        ntok[row] += 1
                        if ntok[row] < batch[row][2]:
                            keep.append(j)
                            continue
                    write_twin(batch[row][0], lib.strip_fence(text[row].decode("utf-8", errors="replace")), ntok[row], fin[row],
                               time.time() - tb, args, name, st)
                if not keep:
                    break
                if len(keep) < len(alive):
                    dec.keep(keep)
                    alive = [alive[j] for j in keep]
                logits = dec.step(torch.tensor([cand[j] for j in keep], device=dev))  # [b][V]
    st["twin_seconds"] = round(time.time() - t0, 1)
    return st


def write_twin(sq, src, ntok, finished, seconds, args, name, st):
    """DIR/<case>.cu (the name `ptxgen eval --kernels` looks for beside <case>.ptx) and the twin's counts in <case>.json."""
    path = os.path.join(args.out, sq.key)
    write_atomic(path + ".cu", f"// GENERATED_BY: ptxgen {name} (CUDA C twin, the model's second turn; review it before relying on it)\n"
                 + src)
    with open(path + ".json", encoding="utf-8") as f:
        meta = json.load(f)
    meta["twin"] = {"gen_tokens": ntok, "finished": finished, "seconds": round(seconds, 2)}
    write_atomic(path + ".json", json.dumps(meta))
    st["twins"] += 1
    st["twins_finished"] += bool(finished)
    st["twin_tokens"] += ntok


if __name__ == "__main__":
    sys.exit(main())
