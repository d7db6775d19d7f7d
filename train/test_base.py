"""test_base.py — CPU tests of the pretrained-base tools (tests/train_tests.sh runs it):
lora_base.py (LoRA on PTX tokens, adapter export), generate.py (generation under the
libptxgen constraint through ctypes) and gguf_to_hf.py (GGUF -> HF, against transformers'
own GGUF loader).  Tiny models only.

  python3 train/test_base.py       # ends with "base: N passed, N failed, N skipped"
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
TINY = os.path.join(ROOT, "tests", "gen", "tiny")            # a 2-layer Qwen2 with ptxgen's tokenizer
PAIRS = os.path.join(HERE, "testdata", "pairs_small.jsonl")  # ptxgen-format pairs
LIB = os.environ.get("PTXGEN_LIB", os.path.join(ROOT, os.environ.get("PTXGEN_BUILD", "build"), "libptxgen.so"))
PTXGEN = os.environ.get("PTXGEN", os.path.join(ROOT, "build", "ptxgen"))
HAS = {m: importlib.util.find_spec(m) is not None for m in ("torch", "transformers", "peft", "gguf", "safetensors")}


def load_json(p):
    with open(p, encoding="utf-8") as f:
        return json.load(f)


def read(p):
    with open(p, encoding="utf-8") as f:
        return f.read()


def run(args, **kw):
    env = dict(os.environ, OMP_NUM_THREADS="2", TOKENIZERS_PARALLELISM="false")
    return subprocess.run([sys.executable] + args, cwd=ROOT, capture_output=True, text=True, env=env, **kw)


@unittest.skipUnless(HAS["torch"] and HAS["transformers"] and HAS["peft"], "needs torch, transformers, peft")
class TestLoraAndGenerate(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="ptxgen-base-test-")
        cls.adapter = os.path.join(cls.tmp, "lora")
        cls.train = run(["train/lora_base.py", "--base", TINY, "--pairs", PAIRS, "--out", cls.adapter, "--max-steps", "3",
                         "--batch-tokens", "4096", "--max-len", "2048", "--log-every", "1", "--val", "2", "--device", "cpu",
                         "--lora-r", "4", "--lora-alpha", "8"], timeout=600)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_lora_trains_and_exports(self):
        self.assertEqual(self.train.returncode, 0, self.train.stderr[-2000:])
        for f in ("adapter_config.json", "adapter_model.safetensors", "train_log.jsonl"):
            self.assertTrue(os.path.exists(os.path.join(self.adapter, f)), f)
        log = [json.loads(line) for line in read(os.path.join(self.adapter, "train_log.jsonl")).splitlines()]
        steps = [r for r in log if r.get("event") == "step"]
        done = [r for r in log if r.get("event") == "done"]
        self.assertTrue(steps and done, log)
        self.assertEqual(done[-1]["steps"], 3)
        self.assertTrue(all(0 < r["loss"] < 50 for r in steps), steps)
        cfg = load_json(os.path.join(self.adapter, "adapter_config.json"))
        self.assertEqual(cfg["r"], 4)
        self.assertEqual(set(cfg["target_modules"]), {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"})
        # bf16 on disk, and PEFT loads it onto the base
        from safetensors import safe_open
        import torch
        with safe_open(os.path.join(self.adapter, "adapter_model.safetensors"), "pt") as f:
            self.assertTrue(all(f.get_tensor(k).dtype == torch.bfloat16 for k in f.keys()))
        from peft import PeftModel
        from transformers import AutoModelForCausalLM
        m = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(TINY), self.adapter)
        self.assertGreater(sum(p.numel() for n, p in m.named_parameters() if "lora_" in n), 0)

    def test_loss_only_on_completion(self):
        import lora_base as LB
        from hfutil import load_tokenizer
        tok = load_tokenizer(TINY)
        rows = LB.read_pairs(PAIRS)[:3]
        enc, dropped = LB.encode(rows, tok, 100000)
        self.assertEqual(dropped, 0)
        ids, labels, mask = LB.collate(enc, [0, 1, 2], 0, "cpu")
        for b, (s, np_) in enumerate(enc):
            self.assertTrue((labels[b, :np_] == LB.IGNORE).all())
            self.assertTrue((labels[b, np_:len(s)] == ids[b, np_:len(s)]).all())
            self.assertTrue((labels[b, len(s):] == LB.IGNORE).all())

    def test_drops_are_counted_per_family(self):
        import lora_base as LB
        from hfutil import load_tokenizer
        tok = load_tokenizer(TINY)
        rows = [dict(r, family=f) for r, f in zip(LB.read_pairs(PAIRS)[:3], ("a", "b", "b"))]
        lens = [len(s) for s, _ in LB.encode(rows, tok, 100000)[0]]
        cut = sorted(lens)[1]          # the two longer ones go
        fam = {}
        enc, dropped = LB.encode(rows, tok, cut - 1, fam)
        self.assertEqual((len(enc), dropped), (sum(n < cut for n in lens), sum(n >= cut for n in lens)))
        self.assertEqual({f: n for f, (n, _) in fam.items()}, {"a": 1, "b": 2})
        self.assertEqual(sum(d for _, d in fam.values()), dropped)
        rep = LB.dropped_report(fam)
        self.assertTrue(all("/" in v for v in rep.values()) and len(rep) >= 1, rep)

    def test_growing_pairs_reads_whole_new_lines_once(self):
        import lora_base as LB
        rows = LB.read_pairs(PAIRS)[:3]
        p = os.path.join(self.tmp, "grow.jsonl")
        with open(p, "w") as f:
            f.write(json.dumps(rows[0]) + "\n" + json.dumps(rows[1])[:25])   # the second line is still being written
        g = LB.GrowingPairs([p, os.path.join(self.tmp, "not-yet.jsonl")])
        self.assertEqual([r["prompt"] for r in g.poll()], [rows[0]["prompt"]])
        self.assertEqual(g.poll(), [])
        with open(p, "a") as f:
            f.write(json.dumps(rows[1])[25:] + "\n" + json.dumps(rows[0]) + "\n" + json.dumps(rows[2]) + "\n")
        # the rest of line 2, a duplicate of line 1 (dropped) and line 3
        self.assertEqual([r["prompt"] for r in g.poll()], [rows[1]["prompt"], rows[2]["prompt"]])
        with open(p, "a") as f:
            f.write("{not json\n")
        with self.assertRaises(SystemExit) as cm:
            g.poll()
        self.assertIn("malformed JSON", str(cm.exception))

    def test_grow_mixes_in_appended_pairs(self):
        rows = [json.loads(line) for line in read(PAIRS).splitlines() if line.strip()]
        first, later = os.path.join(self.tmp, "first.jsonl"), os.path.join(self.tmp, "later.jsonl")
        with open(first, "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in rows[:4]))
        with open(later, "w") as f:    # present from the start: read at the first look
            f.write("".join(json.dumps(dict(r, split="train")) + "\n" for r in rows[4:8]))
        out = os.path.join(self.tmp, "grown")
        r = run(["train/lora_base.py", "--base", TINY, "--pairs", first, "--grow", "0.01", "--grow-pairs", later,
                 "--out", out, "--max-steps", "4", "--time-budget", "600", "--batch-tokens", "4096", "--max-len", "2048",
                 "--log-every", "1", "--val", "1", "--device", "cpu", "--lora-r", "4", "--lora-alpha", "8"], timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        log = [json.loads(line) for line in read(os.path.join(out, "train_log.jsonl")).splitlines()]
        grow = [x for x in log if x.get("event") == "grow"]
        data = [x for x in log if x.get("event") == "data"][0]
        self.assertTrue(grow and grow[0]["pairs"] >= 1, log)
        self.assertEqual(grow[0]["total"], data["pairs"] + grow[0]["pairs"])
        self.assertEqual([x for x in log if x.get("event") == "done"][0]["steps"], 4)
        r = run(["train/lora_base.py", "--base", TINY, "--pairs", first, "--grow", "5", "--out", out + "2", "--device", "cpu"],
                timeout=600)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("--grow needs --time-budget", r.stderr)

    @unittest.skipUnless(os.path.exists(LIB), "build/libptxgen.so not built")
    def test_generate_is_valid_ptx(self):
        self.assertEqual(self.train.returncode, 0)
        out = os.path.join(self.tmp, "gen")
        r = run(["train/generate.py", "--base", TINY, "--adapter", self.adapter, "--suite", "bench/suite", "--only", "relu6",
                 "--styles", "terse,zh", "--samples", "1", "--out", out, "--max-new", "160", "--device", "cpu", "--lib", LIB,
                 "--model-name", "tiny"], timeout=900)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        for st in ("terse", "zh"):
            p = os.path.join(out, f"relu6.{st}.no_bias.0.ptx")
            meta = load_json(p[:-4] + ".json")
            self.assertTrue(meta["finished"], meta)          # the constraint closes the kernel within max-new
            text = read(p)
            self.assertTrue(text.startswith("// GENERATED_BY: ptxgen tiny\n"))
            self.assertIn(".visible .entry relu6(", text)
            if os.path.exists(PTXGEN):
                c = subprocess.run([PTXGEN, "check", p], capture_output=True, text=True)
                self.assertEqual(c.returncode, 0, c.stderr)
        # eval reads the same layout
        if os.path.exists(PTXGEN):
            ev = os.path.join(self.tmp, "ev.json")
            c = subprocess.run([PTXGEN, "eval", "--suite", "bench/suite", "--only", "relu6", "--kernels", out, "--model-name",
                                "tiny", "--no-bias", "--no-gpu", "--out", ev, "--no-progress"], cwd=ROOT, capture_output=True, text=True)
            self.assertEqual(c.returncode, 0, c.stderr)
            d = load_json(ev)
            rows = {r["description"]: r for r in d["rows"]}
            self.assertTrue(rows["terse"]["check"] and rows["zh"]["check"])
            self.assertEqual(rows["card"]["last_stage"], "generation")      # not generated: reported, not skipped
            self.assertIn("by_style", d)


def write_tiny_gguf(path, arch, ctx=256):
    """A tiny random GGUF of `arch` (qwen2 or llama) with a byte-level BPE vocabulary and the
    ChatML tokens, context `ctx`."""
    import numpy as np
    from gguf import GGUFWriter
    rng = np.random.default_rng(7)
    H, F, L, NH, NKV, V = 64, 96, 2, 4, 2, 320
    w = GGUFWriter(path, arch)
    w.add_block_count(L)
    w.add_context_length(ctx)
    w.add_embedding_length(H)
    w.add_feed_forward_length(F)
    w.add_head_count(NH)
    w.add_head_count_kv(NKV)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_rope_dimension_count(H // NH)
    # a byte-level BPE vocabulary: the 256 bytes, a few merges, the chat tokens
    from generate import bytes_to_unicode
    b2u = bytes_to_unicode()
    toks = [b2u[b] for b in range(256)] + ["ĠĠ", "ab", "ld"] + [f"<x{i}>" for i in range(V - 259 - 3)] + \
           ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2" if arch == "qwen2" else "smollm")
    w.add_token_list(toks)
    w.add_token_types([1] * (len(toks) - 3) + [3, 3, 3])
    w.add_token_merges(["Ġ Ġ", "a b", "l d"])
    w.add_eos_token_id(len(toks) - 1)
    w.add_bos_token_id(len(toks) - 3)
    V = len(toks)
    
    def t(name, *shape):
        w.add_tensor(name, (rng.standard_normal(shape) * 0.05).astype(np.float32))
    t("token_embd.weight", V, H)
    t("output_norm.weight", H)
    t("output.weight", V, H)
    for i in range(L):
        t(f"blk.{i}.attn_norm.weight", H)
        t(f"blk.{i}.ffn_norm.weight", H)
        t(f"blk.{i}.attn_q.weight", H, H)
        t(f"blk.{i}.attn_k.weight", H // NH * NKV, H)
        t(f"blk.{i}.attn_v.weight", H // NH * NKV, H)
        t(f"blk.{i}.attn_output.weight", H, H)
        t(f"blk.{i}.ffn_gate.weight", F, H)
        t(f"blk.{i}.ffn_up.weight", F, H)
        t(f"blk.{i}.ffn_down.weight", H, F)
        if arch == "qwen2":
            t(f"blk.{i}.attn_q.bias", H)
            t(f"blk.{i}.attn_k.bias", H // NH * NKV)
            t(f"blk.{i}.attn_v.bias", H // NH * NKV)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


@unittest.skipUnless(all(HAS.values()), "needs torch, transformers, gguf, safetensors")
class TestGgufToHf(unittest.TestCase):
    """A tiny random GGUF of each architecture, converted, against transformers' own GGUF loader."""

    def write_gguf(self, path, arch, ctx=256):
        write_tiny_gguf(path, arch, ctx)

    def check(self, arch):
        import torch
        from transformers import AutoModelForCausalLM
        import gguf_to_hf as G
        tmp = tempfile.mkdtemp(prefix="ptxgen-g2h-")
        try:
            p = os.path.join(tmp, "m.gguf")
            self.write_gguf(p, arch)
            G.convert(p, os.path.join(tmp, "hf"), dtype="f32")
            ref = AutoModelForCausalLM.from_pretrained(tmp, gguf_file="m.gguf", dtype=torch.float32).eval()
            mine = AutoModelForCausalLM.from_pretrained(os.path.join(tmp, "hf"), dtype=torch.float32).eval()
            ids = torch.tensor([[5, 70, 256, 100, 3, 9, 258]])
            with torch.no_grad():
                a, b = ref(ids).logits, mine(ids).logits
            self.assertLess((a - b).abs().max().item(), 1e-4 * max(1.0, a.abs().max().item()))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_qwen2(self):
        self.check("qwen2")

    @unittest.skipUnless(os.path.exists(PTXGEN), "needs build/ptxgen")
    def test_check_hf_gguf(self):
        """check_hf.py --gguf: the converted folder in transformers against the C engine on the file;
        a folder that is not the file's (one weight changed) fails the check."""
        from safetensors.torch import load_file, save_file
        import gguf_to_hf as G
        import check_hf as C
        tmp = tempfile.mkdtemp(prefix="ptxgen-g2h-c-")
        try:
            p = os.path.join(tmp, "m.gguf")
            self.write_gguf(p, "qwen2")
            hf = os.path.join(tmp, "hf")
            G.convert(p, hf, dtype="f32")
            prompts = [[5, 70, 256, 100, 3, 9, 258], [1, 2, 3]]
            for exact, tol in ((True, 1e-4), (False, 5e-2)):
                r = C.check_gguf(hf, p, prompts, PTXGEN, tol, exact=exact, steps=3)
                self.assertTrue(r["ok"], r)
                self.assertEqual(r["top1_agree"], "16/16", r)   # 7 + 3 positions and 3 steps each
            sd = load_file(os.path.join(hf, "model.safetensors"))
            sd["model.layers.1.mlp.down_proj.weight"] = sd["model.layers.1.mlp.down_proj.weight"] * 3
            save_file(sd, os.path.join(hf, "model.safetensors"), metadata={"format": "pt"})
            r = C.check_gguf(hf, p, prompts, PTXGEN, 1e-4, exact=True, steps=3)
            self.assertFalse(r["ok"], r)
            self.assertGreater(r["max_rel_diff"], 1e-3)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_llama_unpermutes_qk(self):
        self.check("llama")


@unittest.skipUnless(all(HAS.values()) and os.path.exists(LIB), "needs torch, transformers, gguf, safetensors and libptxgen.so")
class TestTwoStage(unittest.TestCase):
    """generate2.py end to end on a tiny random ChatML model: every stage writes the layout
    `ptxgen eval --kernels` reads (plans with their nvcc verdict, e2e, translation and held-in
    kernels), and heldin.py builds the held-in suite from a synth file."""

    def test_stages(self):
        import torch  # noqa: F401
        import gguf_to_hf as G
        tmp = tempfile.mkdtemp(prefix="ptxgen-2stage-")
        try:
            g = os.path.join(tmp, "m.gguf")
            write_tiny_gguf(g, "qwen2", ctx=4096)
            G.convert(g, os.path.join(tmp, "hf"), dtype="f32")
            from transformers import AutoTokenizer
            AutoTokenizer.from_pretrained(tmp, gguf_file="m.gguf").save_pretrained(os.path.join(tmp, "hf"))
            # a synth line of a training task, and its held-in suite
            task = load_json(os.path.join(ROOT, "bench", "suite", "relu6", "task.json"))
            task["name"] = task["kernel"] = "relu6_train"
            synth = os.path.join(tmp, "synth.jsonl")
            with open(synth, "w", encoding="utf-8") as f:
                f.write(json.dumps({"id": "a-1", "split": "train", "family": "map", "task": task, "description_style": "terse",
                                    "description": task["descriptions"]["terse"]}) + "\n")
                f.write(json.dumps({"id": "a-2", "split": "val", "family": "map", "task": task, "description_style": "zh",
                                    "description": "held out"}) + "\n")
            trained = os.path.join(tmp, "trained.txt")
            with open(trained, "w") as f:
                f.write("a-1\n")
            r = run(["train/heldin.py", "--synth", synth, "--trained", trained, "--n", "5", "--out", os.path.join(tmp, "heldin")])
            self.assertEqual(r.returncode, 0, r.stderr)
            h = load_json(os.path.join(tmp, "heldin", "relu6_train", "task.json"))
            self.assertEqual(h["descriptions"], {"terse": task["descriptions"]["terse"]})   # the trained description only
            self.assertEqual(os.listdir(os.path.join(tmp, "heldin")), ["relu6_train"])     # the val sample is not held-in
            out = os.path.join(tmp, "gen")
            r = run(["train/generate2.py", "--base", os.path.join(tmp, "hf"), "--lib", LIB, "--suite", "bench/suite", "--only", "relu6",
                     "--styles", "terse", "--heldin", os.path.join(tmp, "heldin"), "--out", out, "--plan-max-new", "8",
                     # (240: the signature is sampled under the constraint since 2026-12-06, not prefilled, and counts)
                     "--max-new", "240", "--device", "cpu", "--batch", "8", "--jobs", "2", "--model-name", "tiny2",
                     "--retrieve", os.path.join(ROOT, "tests", "golden", "retrieve", "tiny.jsonl"),
                     "--trans-cap", "1", "--trans-greedy", "--trans-strict", "--plan-tries", "2"], timeout=900)
            self.assertEqual(r.returncode, 0, r.stderr[-3000:])
            case = "relu6.terse.no_bias.0"
            self.assertTrue(os.path.exists(os.path.join(out, "plan", case + ".cu")))
            # the plan's .ptx is nvcc's output, or says why there is none (a random model's plan is not C)
            self.assertTrue(os.path.exists(os.path.join(out, "plan", case + ".ptx")))
            for stage, c in (("e2e", case), ("trans", case), ("transcap", case), ("transgreedy", case), ("transstrict", case),
                             ("heldin", "relu6_train.terse.no_bias.0")):
                p = os.path.join(out, stage, c + ".ptx")
                text = read(p)
                self.assertTrue(text.startswith("// GENERATED_BY: ptxgen tiny2\n"), stage)
                if os.path.exists(PTXGEN):
                    chk = subprocess.run([PTXGEN, "check", p], capture_output=True, text=True)
                    self.assertEqual(chk.returncode, 0, stage + ": " + chk.stderr)
            self.assertTrue(os.path.exists(os.path.join(out, "heldin-plan", "relu6_train.terse.no_bias.0.cu")))
            # the PTX turn's comments quote its plan (dec_opts.plan): the translation's plan is relu6's reference
            ref = read(os.path.join(ROOT, "bench", "suite", "relu6", "reference.cu"))
            lines = {" " + " ".join(x.split()) for x in ref.split("\n")}
            for ln in read(os.path.join(out, "trans", case + ".ptx")).split("\n"):
                if ln.lstrip("\t").startswith("//") and ln.startswith("\t"):
                    self.assertIn(ln.lstrip("\t")[2:], lines)
            # --trans-cap 1: relu6's straight lines head one comment each at most (dec_opts.plan_repeat_max)
            capped = [ln for ln in read(os.path.join(out, "transcap", case + ".ptx")).split("\n") if ln.startswith("\t//")]
            self.assertEqual(len(capped), len(set(capped)), "a line of relu6's body came back under --trans-cap 1")
            stats = load_json(os.path.join(out, "generate2.json"))
            self.assertEqual(stats["plans"], 2)
            # --plan-tries 2: a random model's plans are cut at 8 tokens and are not C (plan_fails), so each is drawn once more
            self.assertEqual(stats["plan_redraws"], 2)
            self.assertEqual(stats["plan_loops"], 0)   # 8 tokens of random text: no loop
            meta = load_json(os.path.join(out, "plan", case + ".json"))
            self.assertLessEqual(meta["gen_tokens"], 8)
            self.assertFalse(meta["looped"])
            self.assertEqual(stats["plans_compiled"], 0)   # each redrawn plan compiled once more, rejected again
            self.assertEqual(stats["ptx_kernels"], 6)
            self.assertEqual(sorted(stats["comment_repeats"]), ["e2e", "heldin", "trans", "transcap", "transgreedy", "transstrict"])
            self.assertEqual(stats["comment_repeats"]["e2e"]["kernels"], 1)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


@unittest.skipUnless(HAS["torch"], "needs torch")
class TestCommentRepeats(unittest.TestCase):
    """generate2.comment_repeats: plan comments, repeats and the most frequent line of a kernel."""

    def test_counts(self):
        import generate2
        ptx = ("// GENERATED_BY: ptxgen x\n.entry k()\n{\n\t// int i = 0;\n\tmov.u32 %r1, 0;\n\t// y[i] = x[i];\n\tret;\n"
               "\t// int i = 0;\n\t// int i = 0;\n\t// int i = 0;\n}\n")
        self.assertEqual(generate2.comment_repeats(ptx), (5, 3, 4))
        self.assertEqual(generate2.comment_repeats(".entry k()\n{\n\tret;\n}\n"), (0, 0, 0))


@unittest.skipUnless(HAS["torch"] and os.path.exists(LIB), "needs torch and libptxgen.so")
class TestTransPerTask(unittest.TestCase):
    """generate2.py --trans-per-task N: N translation rows a task (the first of --styles it has), every
    style for the other stages; 0 keeps every style."""

    def test_rows(self):
        import types
        import generate as G
        import generate2
        lib = G.Lib(LIB)
        for n, want in ((0, {"terse", "detailed", "zh"}), (1, {"terse"}), (2, {"terse", "detailed"})):
            a = types.SimpleNamespace(styles="terse,detailed,zh", only="relu6", suite=[os.path.join(ROOT, "bench", "suite")], samples=1,
                                      config="no_bias", heldin=None, trans_per_task=n)
            cases, trans = generate2.load_cases(a, lib)
            self.assertEqual({c["style"] for c in cases}, {"terse", "detailed", "zh"})
            self.assertEqual({t["style"] for t in trans}, want, n)
            self.assertEqual(len(trans), len(want))


@unittest.skipUnless(os.path.exists(LIB), "needs libptxgen.so")
class TestRetrieveBinding(unittest.TestCase):
    """generate.Lib's retrieval (ctypes over gen_retr_*): the prompts generate2.py builds with
    retrieved kernels are the library's, and without them the plain turns."""

    def test_prompts(self):
        import generate as G
        lib = G.Lib(LIB)
        r = lib.retr_load(os.path.join(ROOT, "tests", "golden", "retrieve", "tiny.jsonl"))
        hits, n = lib.retrieve(r, "elementwise relu of n floats", 2)
        self.assertEqual((n, hits[0].task, hits[1].task), (2, b"relu_f32", b"relu_f16"))
        hits2, n2 = lib.retrieve(r, "elementwise relu of n floats", 2, exclude_task="relu_f32")
        self.assertEqual(hits2[0].task, b"relu_f16")
        self.assertNotIn(b"relu_f32", [hits2[i].task for i in range(n2)])
        p = lib.plan_prompt("relu of x", "sm_80", "", (hits, n))
        self.assertIn("Target: sm_80\nSimilar verified kernels (they may differ from this request):\n// relu_f32\nextern", p)
        self.assertEqual(lib.plan_prompt("relu", "sm_80", "sig"), lib.plan_prompt("relu", "sm_80", "sig", None))
        q = lib.ptx_plan_prompt("relu", "sm_80", "the plan", "sig", (hits, n))
        self.assertIn("A similar verified kernel in literate PTX (it may differ from this plan):\n// relu_f32\n.version", q)
        self.assertNotIn("relu_f16", q)
        # the task's launch, as generate2 gives both turns (gen_launch_from_task)
        task = os.path.join(ROOT, "bench", "suite", "relu6", "task.json")
        launch = lib.task_launch(task)
        self.assertEqual(launch, "block 256, grid cdiv(n,256)")
        with open(task, encoding="utf-8") as f:
            spec = json.load(f)
        with open(os.path.join(ROOT, "tests", "golden", "prompts", "plan_launch.txt"), encoding="utf-8") as f:
            self.assertEqual(lib.plan_prompt(spec["descriptions"]["terse"], "sm_80", lib.task_c_signature(task), None, launch), f.read())
        self.assertIn("Target: sm_80\nLaunch: block 256, grid cdiv(n,256)\nThe plan (CUDA C):",
                      lib.ptx_plan_prompt("relu", "sm_80", "p", "sig", None, launch))
        with self.assertRaises(SystemExit):
            lib.retr_load(os.path.join(ROOT, "tests", "golden", "retrieve", "synth.jsonl"))


@unittest.skipUnless(HAS["torch"] and HAS["transformers"], "needs torch and transformers")
class TestKVDecode(unittest.TestCase):
    """kvdecode.py's preallocated cache against transformers' own (HFDecoder), float32 on the CPU:
    left-padded rows of different lengths, prefill in pieces of rows and positions, rows ending at
    different steps (lazily kept, then compacted), the cache growing twice, so every path of
    StaticDecoder is compared."""

    @classmethod
    def setUpClass(cls):
        import torch
        from transformers import AutoModelForCausalLM
        torch.manual_seed(0)
        cls.torch = torch
        cls.model = AutoModelForCausalLM.from_pretrained(TINY, dtype=torch.float32).eval()

    def batch(self, lens, seed=3):
        torch = self.torch
        g = torch.Generator().manual_seed(seed)
        L = max(lens)
        ids = torch.zeros((len(lens), L), dtype=torch.long)     # [B][L] left-padded
        att = torch.zeros((len(lens), L), dtype=torch.long)
        for i, n in enumerate(lens):
            ids[i, L - n:] = torch.randint(6, 6000, (n,), generator=g)
            att[i, L - n:] = 1
        return ids, att

    def test_static_equals_hf(self):
        import kvdecode as K
        torch = self.torch
        old = (K.PREFILL_CHUNK, K.PREFILL_ROWS, K.GROW)
        K.PREFILL_CHUNK, K.PREFILL_ROWS, K.GROW = 5, 2, 4   # several pieces of rows and of positions; the cache grows
        try:
            lens = [13, 7, 1, 11, 9]
            ids, att = self.batch(lens)
            st = K.open_decoder(self.model, len(lens), ids.shape[1] + 12, "static")
            hf = K.open_decoder(self.model, len(lens), ids.shape[1] + 12, "hf")
            self.assertIsInstance(st, K.StaticDecoder)
            a, b = st.start(ids, att), hf.start(ids.clone(), att.clone())
            self.assertLess((a - b).abs().max().item(), 1e-4)
            rows = list(range(len(lens)))
            g = torch.Generator().manual_seed(7)
            for step in range(10):
                if step in (2, 5, 6):                   # one row ends: kept lazily, then compacted
                    drop = rows[len(rows) // 2]
                    keep = [j for j, r in enumerate(rows) if r != drop]
                    rows = [rows[j] for j in keep]
                    st.keep(keep)
                    hf.keep(keep)
                tok = torch.randint(6, 6000, (len(rows),), generator=g)
                a, b = st.step(tok), hf.step(tok.clone())
                self.assertEqual(a.shape, (len(rows), b.shape[1]))
                self.assertLess((a - b).abs().max().item(), 1e-4, f"step {step}")
            self.assertEqual(st.kv[0].shape[1], 2)      # compacted once the live rows fell to 2 of 5
            self.assertEqual(st.kv[0].shape[3], 13 + 3 * 4)   # grew twice past the prompt + GROW
        finally:
            K.PREFILL_CHUNK, K.PREFILL_ROWS, K.GROW = old

    def test_padding_does_not_matter(self):
        """A row's logits are its own: alone and unpadded equals in a padded batch."""
        import kvdecode as K
        ids, att = self.batch([6, 3])
        st = K.open_decoder(self.model, 2, 8, "static")
        both = st.start(ids, att)
        one = K.open_decoder(self.model, 1, 8, "static").start(ids[1:, 3:], att[1:, 3:])
        self.assertLess((both[1] - one[0]).abs().max().item(), 1e-5)

    def test_selfcheck(self):
        import kvdecode as K
        self.assertEqual(K.selfcheck(self.model)[0], "static")
        self.assertEqual(K.selfcheck(self.model, "hf"), ("hf", {"engine": "hf"}))
        # a static engine that disagrees with transformers' is not used
        old = K._rope
        K._rope = lambda x, cos, sin: x
        try:
            eng, rep = K.selfcheck(self.model)
        finally:
            K._rope = old
        self.assertEqual(eng, "hf")
        self.assertIn("total variation", rep["why"])

    def test_limits(self):
        import kvdecode as K
        ids, att = self.batch([4])
        st = K.open_decoder(self.model, 1, 5, "static")
        with self.assertRaisesRegex(ValueError, "longer than the cache"):
            K.open_decoder(self.model, 1, 3, "static").start(ids, att)
        st.start(ids, att)
        st.step(self.torch.tensor([7]))
        with self.assertRaisesRegex(ValueError, "cache of 5 positions is full"):
            st.step(self.torch.tensor([7]))
        with self.assertRaisesRegex(ValueError, "unknown decoding engine"):
            K.open_decoder(self.model, 1, 5, "fast")


if __name__ == "__main__":
    res = unittest.main(exit=False, verbosity=1).result
    bad = len(res.failures) + len(res.errors)
    skipped = len(res.skipped)
    print(f"base: {res.testsRun - bad - skipped} passed, {bad} failed, {skipped} skipped")
    sys.exit(1 if bad else 0)
