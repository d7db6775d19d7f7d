"""test_train.py — CPU tests of the training side (tests/train_tests.sh runs it).

  python3 train/test_train.py          # ends with "train: N passed, N failed, N skipped"

Tiny models only; the whole file runs in well under a minute on two cores.
"""
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import unittest

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import data as D  # noqa: E402
import export as E  # noqa: E402
import lora as L  # noqa: E402
import train as T  # noqa: E402
from model import Qwen2Config, Qwen2ForCausalLM, generate, load_hf_dir  # noqa: E402

FIXTURE = os.path.join(HERE, "testdata", "pairs_small.jsonl")
TOKENIZER = os.path.join(ROOT, "models", "default", "tokenizer.json")
HAS_TF = importlib.util.find_spec("transformers") is not None
HAS_PEFT = importlib.util.find_spec("peft") is not None
torch.set_num_threads(2)


def micro_config(tied=True):
    return Qwen2Config(vocab_size=6144, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                       num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=512,
                       tie_word_embeddings=tied)


def rand_ids(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 6144, (2, n), generator=g)                 # [2, n]


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptxgen-train-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


class TestData(Tmp):
    def test_loss_masking(self):
        tok = D.Tokenizer(TOKENIZER)
        pairs = D.load_pairs(FIXTURE)[:6]
        ft = D.FinetuneData(tok, pairs, max_length=2048, batch_tokens=4096)
        x, y = ft.collate(list(range(len(ft.examples))))                 # [B, L]
        for b, (p, ex) in enumerate(zip(pairs, ft.examples)):
            np_, nc = len(tok.encode(p["prompt"])), len(tok.encode(p["completion"]))
            self.assertTrue((y[b, :np_] == D.IGNORE).all(), "prompt tokens must be -100")
            self.assertEqual(y[b, np_:np_ + nc].tolist(), tok.encode(p["completion"]))
            self.assertTrue((y[b, np_ + nc:] == D.IGNORE).all(), "padding must be -100")
            self.assertEqual(x[b, np_ - 1].item(), tok.encode(D.TOK_PTX)[0])
            self.assertEqual(y[b, np_ + nc - 1].item(), D.END_ID)          # completion ends with <|end|>

    def test_max_length_and_drops(self):
        self.assertEqual(D.pick_max_length([100] * 95 + [5000] * 5), 128)
        self.assertEqual(D.pick_max_length([10, 3000]), 2048)             # capped
        tok = D.Tokenizer(TOKENIZER)
        pairs = D.load_pairs(FIXTURE)
        long = dict(pairs[0], completion=pairs[0]["completion"] * 8)      # far past the p95
        pairs = pairs + [long, long]
        ft = D.FinetuneData(tok, pairs)
        self.assertEqual(ft.max_length % 128, 0)
        self.assertEqual(ft.dropped + len(ft.examples), len(pairs))
        self.assertGreater(ft.dropped, 0)                                  # p95: a few longer ones go
        for _ in range(3):
            x, y = ft.batch()
            self.assertLessEqual(x.numel(), max(ft.batch_tokens, ft.max_length))

    def test_special_tokens_and_regex(self):
        tok = D.Tokenizer(TOKENIZER)
        for i, s in enumerate(D.SPECIAL_TOKENS):
            self.assertEqual(tok.encode(s), [i])
        for s in ["ld.global.nc.v4.f32", "setp.ge.u32", "\n\t", " [%rd", ".reg", "cvta.to.global.u64"]:
            self.assertEqual(len(tok.encode(s)), 1, s)
        text = "\tmad.lo.u32 %r5, %r2, %r3, %r4;\n<|end|>"
        self.assertEqual(tok.decode(tok.encode(text)), text)

    def test_bad_input(self):
        p = os.path.join(self.tmp, "bad.jsonl")
        with open(p, "w") as f:
            f.write('{"prompt": "a", "completion": "b"}\n{"prompt": \n')
        with self.assertRaisesRegex(ValueError, r"bad.jsonl:2: malformed JSON"):
            D.load_pairs(p)
        with open(p, "w") as f:
            f.write('{"prompt": "a"}\n')
        with self.assertRaisesRegex(ValueError, "field 'completion'"):
            D.load_pairs(p)
        with self.assertRaisesRegex(ValueError, "field 'hidden_size'"):
            Qwen2Config.from_hf({"model_type": "qwen2", "vocab_size": 5}, "x/config.json")

    def test_signature_of(self):
        ptx = ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 a,\n" \
              "\t.param .u32 n\n)\n{\n\tret;\n}\n"
        self.assertEqual(D.signature_of(ptx), ".visible .entry k(\n\t.param .u64 a,\n\t.param .u32 n\n)")


class TestModel(Tmp):
    def test_kv_cache_matches_full_forward(self):
        torch.manual_seed(0)
        m = Qwen2ForCausalLM(micro_config()).eval()
        ids = rand_ids(20)
        full, _ = m(ids)                                                   # [2, 20, V]
        caches = [dict() for _ in m.model.layers]
        a, _ = m(ids[:, :12], caches=caches)
        b, _ = m(ids[:, 12:15], caches=caches, start_pos=12)
        c, _ = m(ids[:, 15:16], caches=caches, start_pos=15)
        self.assertLess((torch.cat([a, b, c], 1) - full[:, :16]).abs().max().item(), 1e-5)
        g1 = generate(m, ids[0, :5].tolist(), 6, eos_id=-1, use_cache=True)
        g2 = generate(m, ids[0, :5].tolist(), 6, eos_id=-1, use_cache=False)
        self.assertEqual(g1, g2)

    @unittest.skipUnless(HAS_TF, "transformers not installed")
    def test_logits_match_transformers(self):
        from transformers import AutoModelForCausalLM
        for tied in (True, False):
            torch.manual_seed(1)
            m = Qwen2ForCausalLM(micro_config(tied)).eval()
            with torch.no_grad():                      # non-trivial norms and biases
                for n, p in m.named_parameters():
                    if n.endswith("norm.weight") or n.endswith(".bias"):
                        p.add_(torch.randn_like(p) * 0.1)
            d = os.path.join(self.tmp, f"m{tied}")
            E.export_model(m, d, os.path.dirname(TOKENIZER), [], "f32")
            hf = AutoModelForCausalLM.from_pretrained(d, dtype=torch.float32).eval()
            ids = rand_ids(33, 2)
            with torch.no_grad():
                a, _ = m(ids)
                b = hf(ids).logits
            rel = ((a - b).abs().max() / b.abs().max()).item()
            self.assertLess(rel, 1e-4, f"tied={tied}")
            with open(os.path.join(d, "config.json")) as f:
                cfg = json.load(f)
            self.assertEqual(cfg["architectures"], ["Qwen2ForCausalLM"])
            self.assertEqual(cfg["tie_word_embeddings"], tied)
            ours = load_hf_dir(d).eval()                                   # our loader, same logits
            with torch.no_grad():
                self.assertLess((ours(ids)[0] - a).abs().max().item(), 1e-6)

    def test_shards_respect_limit(self):
        torch.manual_seed(0)
        m = Qwen2ForCausalLM(Qwen2Config.preset("default"))                # the shipped size
        self.assertLessEqual(m.num_params() * 2, 32 * 2**20)
        d = os.path.join(self.tmp, "default")
        files = E.export_model(m, d, None, [], "bf16")
        shards = [f for f in files if f.endswith(".safetensors")]
        self.assertGreaterEqual(len(shards), 2)
        for f in shards:
            self.assertLessEqual(os.path.getsize(os.path.join(d, f)), E.SHARD_BYTES, f)
        with open(os.path.join(d, "model.safetensors.index.json")) as f:
            idx = json.load(f)
        self.assertEqual(set(idx["weight_map"]), set(m.hf_state_dict()))
        back = load_hf_dir(d)
        w = m.model.layers[3].mlp.up_proj.weight
        self.assertTrue(torch.equal(back.model.layers[3].mlp.up_proj.weight, w.bfloat16().float()))
        small = E.plan_shards([("a", 10), ("b", 10), ("c", 30)], max_bytes=64 * 1024 + 25)
        self.assertEqual(small, [["a", "b"], ["c"]])


class TestLoRA(Tmp):
    def lora_model(self, targets):
        torch.manual_seed(3)
        m = Qwen2ForCausalLM(micro_config())
        L.apply_lora(m, r=4, alpha=8, dropout=0.0, targets=targets)
        with torch.no_grad():                       # B starts at zero: give it values
            for n, p in m.named_parameters():
                if "lora_B" in n:
                    p.normal_(0, 0.05)
        return m.eval()

    def test_merge_equals_unmerged(self):
        m = self.lora_model(L.TARGETS_ALL)
        ids = rand_ids(17)
        with torch.no_grad():
            a, _ = m(ids)
            L.merge_lora(m)
            b, _ = m(ids)
        self.assertLess((a - b).abs().max().item(), 1e-4)
        self.assertFalse(any("lora" in k for k in m.state_dict()))

    @unittest.skipUnless(HAS_TF and HAS_PEFT, "transformers/peft not installed")
    def test_peft_loads_adapter(self):
        from peft import PeftModel
        from transformers import AutoModelForCausalLM
        for targets in (L.TARGETS_DEFAULT, L.TARGETS_ALL):
            m = self.lora_model(targets)
            base = os.path.join(self.tmp, "base")
            ad = os.path.join(self.tmp, "adapter")
            L.save_adapter(m, ad, base)
            plain = Qwen2ForCausalLM(micro_config())
            plain.load_state_dict({k: v for k, v in m.state_dict().items() if "lora" not in k})
            E.export_model(plain, base, None, [], "f32")
            with open(os.path.join(ad, "adapter_config.json")) as f:
                cfg = json.load(f)
            self.assertEqual((cfg["peft_type"], cfg["task_type"], cfg["r"]), ("LORA", "CAUSAL_LM", 4))
            from safetensors.torch import load_file
            names = list(load_file(os.path.join(ad, "adapter_model.safetensors")))
            self.assertIn("base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight", names)
            pm = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(base, dtype=torch.float32), ad).eval()
            ids = rand_ids(21, 5)
            with torch.no_grad():
                L.merge_lora(m)
                a, _ = m(ids)
                b = pm(input_ids=ids).logits
            self.assertLess(((a - b).abs().max() / b.abs().max()).item(), 1e-4, targets)
            back = load_hf_dir(base)                 # our own loader of the adapter agrees
            L.load_adapter(back, ad)
            L.merge_lora(back)
            with torch.no_grad():
                self.assertLess((back.eval()(ids)[0] - a).abs().max().item(), 1e-5)


class TestTraining(Tmp):
    ARGS = ["--data", FIXTURE, "--tokenizer", TOKENIZER, "--config-size", "tiny", "--seq-len", "128",
            "--batch-tokens", "512", "--warmup", "3", "--lr", "5e-3", "--ft-lr", "5e-3", "--log-every", "5",
            "--eval-prompts", "1", "--eval-max-new", "8", "--lora-r", "4", "--lora-alpha", "8",
            "--ckpt-every-s", "0", "--device", "cpu", "--ptxgen", os.path.join(ROOT, "build", "ptxgen")]

    def log(self, out):
        with open(os.path.join(out, "train_log.jsonl")) as f:
            return [json.loads(line) for line in f]

    def test_pretrain_loss_falls_then_finetune_and_resume(self):
        out = os.path.join(self.tmp, "run")
        T.main(self.ARGS + ["--out", out, "--phase", "both", "--steps", "30", "--ft-steps", "4",
                            "--max-length", "512"])
        log = self.log(out)
        steps = [r for r in log if r["event"] == "step" and r["phase"] == "pretrain"]
        first, last = steps[0]["loss"], steps[-1]["loss"]
        self.assertLess(last, 0.75 * first, f"loss {first} -> {last}")
        ends = {r["phase"]: r for r in log if r["event"] == "phase_end"}
        self.assertEqual((ends["pretrain"]["steps"], ends["finetune"]["steps"]), (30, 4))
        evals = [r for r in log if r["event"] == "eval"]
        self.assertTrue(evals and evals[-1]["val_loss"] > 0 and "n_prompts" in evals[-1])
        for f in ("config.json", "model.safetensors", "generation_config.json", "tokenizer.json",
                  "README.md", "adapter/adapter_config.json", "adapter/adapter_model.safetensors"):
            self.assertTrue(os.path.exists(os.path.join(out, f)), f)
        with open(os.path.join(out, "README.md")) as f:
            card = f.read()
        self.assertIn("phase pretrain: 30 steps", card)
        m = load_hf_dir(out)                                 # merged: loads with no adapter
        self.assertFalse(any("lora" in k for k in m.state_dict()))
        # resume: the finished run has nothing left; a longer fine-tune continues at step 4
        T.main(self.ARGS + ["--out", out, "--phase", "both", "--steps", "30", "--ft-steps", "6",
                            "--max-length", "512", "--resume"])
        ends = [r for r in self.log(out) if r["event"] == "phase_end"]
        self.assertEqual(len(ends), 2)                       # "finetune:done" -> no phase ran again
        if HAS_TF:
            import check_hf
            v = check_hf.run_checks(out, adapter=os.path.join(out, "adapter"),
                                    base=os.path.join(out, "base"), n=2, tol=1e-3)
            self.assertTrue(v["ok"], json.dumps(v))

    def test_finetune_from_hf_base(self):
        if not HAS_TF:
            self.skipTest("transformers not installed")
        from transformers import Qwen2Config as HC
        from transformers import Qwen2ForCausalLM as HM
        base = os.path.join(self.tmp, "hfbase")
        torch.manual_seed(0)
        HM(HC(vocab_size=6144, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
              num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
              tie_word_embeddings=True)).save_pretrained(base)
        out = os.path.join(self.tmp, "ft")
        T.main(self.ARGS + ["--out", out, "--phase", "finetune", "--base", base, "--ft-steps", "3",
                            "--max-length", "512", "--lora-targets", "all", "--eval-prompts", "0"])
        ends = [r for r in self.log(out) if r["event"] == "phase_end"]
        self.assertEqual(ends[0]["steps"], 3)
        m = load_hf_dir(out)
        self.assertEqual(m.config.hidden_size, 32)
        with open(os.path.join(out, "adapter", "adapter_config.json")) as f:
            self.assertEqual(sorted(json.load(f)["target_modules"]), sorted(L.TARGETS_ALL))


if __name__ == "__main__":
    res = unittest.main(exit=False, verbosity=2).result
    bad = len(res.failures) + len(res.errors)
    skipped = len(res.skipped)
    print(f"train: {res.testsRun - bad - skipped} passed, {bad} failed, {skipped} skipped")
    sys.exit(1 if bad else 0)
