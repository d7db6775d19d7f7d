"""test_twin.py — CPU tests of generate.py's twin turn (--twin: description + generated PTX -> the
CUDA C twin, written as DIR/<case>.cu for `ptxgen eval --kernels`); tests/train_tests.sh runs it.
Tiny random model (tests/gen/tiny): what it writes is not C, only where and how it is written is
checked here.

  python3 train/test_twin.py       # ends with "twin: N passed, N failed, N skipped"
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
TINY = os.path.join(ROOT, "tests", "gen", "tiny")            # a 2-layer Qwen2 with ptxgen's tokenizer
LIB = os.environ.get("PTXGEN_LIB", os.path.join(ROOT, os.environ.get("PTXGEN_BUILD", "build"), "libptxgen.so"))
PTXGEN = os.environ.get("PTXGEN", os.path.join(ROOT, "build", "ptxgen"))
HAS = all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers"))
CASE = "relu6.terse.no_bias.0"                               # <task>.<style>.<config>.<sample>: eval's name


def read(p):
    with open(p, encoding="utf-8") as f:
        return f.read()


@unittest.skipUnless(HAS and os.path.exists(LIB), "needs torch, transformers and build/libptxgen.so")
class TestStripFence(unittest.TestCase):
    """generate.py's twins go through twin_strip_fence (the rule of gen --twin; its C unit test is in
    src/twin/test_twin.c): the binding, and the rule on what chat models write."""

    def test_rule(self):
        from generate import Lib
        strip = Lib(LIB).strip_fence
        body = 'extern "C" __global__ void k(float *x) {\n    x[0] = 1.0f;  // 一\n}\n'     # UTF-8 passes through
        self.assertEqual(strip(body), body)                                         # no fence: as it is
        self.assertEqual(strip("```cuda\n" + body + "```\n"), body)
        self.assertEqual(strip("```\n" + body + "```"), body)
        self.assertEqual(strip("```c++\n" + body + "```\nThis kernel sets x[0].\n"), body)
        self.assertEqual(strip("Here is the twin:\n\n```cuda\n" + body + "```\n"), body)   # prose before it
        self.assertEqual(strip("```cuda\n" + body + "  x[1] = 2;"), body + "  x[1] = 2;\n")   # cut by the limit
        self.assertEqual(strip("```cuda\n" + body + "```\nand\n```cuda\nint other;\n```\n"), body)   # the first block
        inline = 'extern "C" __global__ void k() {}  // not ```cuda\n'
        self.assertEqual(strip(inline), inline)                                     # a ``` inside a line is no fence
        self.assertEqual(strip(""), "")


@unittest.skipUnless(HAS and os.path.exists(LIB), "needs torch, transformers and build/libptxgen.so")
class TestTighten(unittest.TestCase):
    """generate.py writes finished kernels with exact register counts (ptx_regs_tighten_text), so a model
    trained on widened declarations leaves kernels like gen's; text that does not parse stays as it is."""

    def test_binding(self):
        from generate import Lib
        tighten = Lib(LIB).tighten
        wide = (".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n    .param .u64 k_x\n)\n{\n"
                "    .reg .b64 %rd<512>;\n    .reg .f32 %f<512>;  // kept comment\n\n"
                "    ld.param.u64 %rd1, [k_x];\n    cvta.to.global.u64 %rd2, %rd1;\n    mov.f32 %f1, 0f3F800000;\n"
                "    st.global.f32 [%rd2], %f1;\n    ret;\n}\n")
        self.assertEqual(tighten(wide), wide.replace("%rd<512>", "%rd<3>").replace("%f<512>", "%f<2>"))
        self.assertEqual(tighten(wide[:-3]), wide[:-3])                 # cut text: unchanged


@unittest.skipUnless(HAS and os.path.exists(LIB), "needs torch, transformers and build/libptxgen.so")
class TestTwinTurn(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="ptxgen-twin-test-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def model(self):
        import torch
        from transformers import AutoModelForCausalLM
        from hfutil import load_tokenizer
        torch.manual_seed(0)
        return AutoModelForCausalLM.from_pretrained(TINY, dtype=torch.float32).eval(), load_tokenizer(TINY, None)

    def test_prefill_in_pieces_matches_whole(self):
        import torch
        import kvdecode as K
        m, _ = self.model()
        ids = torch.tensor([[0, 0, 0, 7, 8, 9, 10, 11, 12, 13, 14], [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]])
        att = (torch.arange(11)[None, :] >= torch.tensor([[3], [0]])).long()      # row 0 left-padded by 3
        old = K.PREFILL_CHUNK
        try:
            with torch.no_grad():
                ref = m(input_ids=ids, attention_mask=att, position_ids=(att.cumsum(-1) - 1).clamp(min=0)).logits[:, -1, :]
                for engine in ("hf", "static"):
                    for chunk in (64, 4):
                        K.PREFILL_CHUNK = chunk
                        got = K.open_decoder(m, 2, 12, engine).start(ids, att)
                        self.assertEqual(tuple(got.shape), (2, m.config.vocab_size))
                        self.assertLess((got - ref).abs().max().item(), 1e-4, (engine, chunk))
        finally:
            K.PREFILL_CHUNK = old

    def run_turn(self, out, deadline, finished=True):
        """twin_turn in-process on one finished (or unfinished) relu6 kernel, with the tiny model."""
        import torch
        import generate as G
        m, tok = self.model()
        lib = G.Lib(LIB)
        sig, _ = lib.task_signature(os.path.join(ROOT, "bench", "suite", "relu6", "task.json"))
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, CASE + ".json"), "w") as f:
            json.dump({"gen_tokens": 3, "finished": finished}, f)
        sq = G.Seq(CASE, None, "y = relu6(x)", sig)
        sq.text, sq.finished = ".version 8.0\n.target sm_80\n.address_size 64\n\n" + sig + "\n{\n\tret;\n}\n", finished
        args = types.SimpleNamespace(device="cpu", twin_max_new=12, top_k=5, temperature=0.3, batch=8, deadline=deadline,
                                     arch="sm_80", out=out)
        pieces, special = G.token_bytes(tok)
        gen = torch.Generator()
        gen.manual_seed(1)
        end_ids = {tok.convert_tokens_to_ids("<|end|>")}
        return G.twin_turn([sq], args, lib, "ptxgen", tok, m, end_ids, pieces, special, gen, "tiny")

    def test_turn_writes_twin_and_counts(self):
        out = os.path.join(self.tmp, "inproc")
        st = self.run_turn(out, 0)
        self.assertEqual((st["twins"], st["twin_cut_by_deadline"], st["twin_skipped_unfinished_ptx"]), (1, 0, 0), st)
        self.assertLessEqual(st["twin_tokens"], 12)
        self.assertTrue(read(os.path.join(out, CASE + ".cu")).startswith("// GENERATED_BY: ptxgen tiny (CUDA C twin"))
        meta = json.loads(read(os.path.join(out, CASE + ".json")))
        self.assertEqual(meta["gen_tokens"], 3)                                      # the PTX turn's fields stay
        self.assertEqual(meta["twin"]["gen_tokens"], st["twin_tokens"])
        self.assertEqual([f for f in os.listdir(out) if f.endswith(".tmp")], [])

    def test_deadline_and_unfinished_ptx_get_no_twin(self):
        out = os.path.join(self.tmp, "late")
        st = self.run_turn(out, 1e-6)                   # the deadline (from generate.py's import) has passed
        self.assertEqual((st["twins"], st["twin_cut_by_deadline"]), (0, 1), st)
        self.assertFalse(os.path.exists(os.path.join(out, CASE + ".cu")))
        out = os.path.join(self.tmp, "unfinished")
        st = self.run_turn(out, 0, finished=False)
        self.assertEqual((st["twins"], st["twin_skipped_unfinished_ptx"]), (0, 1), st)
        self.assertFalse(os.path.exists(os.path.join(out, CASE + ".cu")))

    def test_generate_twin_cli_and_eval_finds_it(self):
        out = os.path.join(self.tmp, "gen")
        env = dict(os.environ, OMP_NUM_THREADS="2", TOKENIZERS_PARALLELISM="false")
        r = subprocess.run([sys.executable, "train/generate.py", "--base", TINY, "--suite", "bench/suite", "--only", "relu6",
                            "--styles", "terse", "--out", out, "--max-new", "160", "--twin", "--twin-max-new", "16",
                            "--device", "cpu", "--lib", LIB, "--model-name", "tiny"],
                           cwd=ROOT, capture_output=True, text=True, env=env, timeout=900)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        ev = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
        tw = [e for e in ev if e["event"] == "twin"]
        self.assertEqual(len(tw), 1, r.stdout)
        self.assertEqual((tw[0]["twins"], tw[0]["twin_cut_by_deadline"]), (1, 0), tw)
        meta = json.loads(read(os.path.join(out, CASE + ".json")))
        self.assertTrue(meta["finished"], meta)
        self.assertTrue(0 < meta["twin"]["gen_tokens"] <= 16, meta)
        cu = read(os.path.join(out, CASE + ".cu"))
        self.assertTrue(cu.startswith("// GENERATED_BY: ptxgen tiny (CUDA C twin"), cu[:200])
        self.assertEqual(sorted(os.listdir(out)), sorted(CASE + e for e in (".ptx", ".json", ".cu")))
        # eval finds the twin beside the kernel (row "twin"), under the name written here
        if os.path.exists(PTXGEN):
            evp = os.path.join(self.tmp, "ev.json")
            c = subprocess.run([PTXGEN, "eval", "--suite", "bench/suite", "--only", "relu6", "--kernels", out, "--model-name",
                                "tiny", "--no-bias", "--no-gpu", "--out", evp, "--no-progress"], cwd=ROOT, capture_output=True,
                               text=True)
            self.assertEqual(c.returncode, 0, c.stderr)
            rows = {row["description"]: row for row in json.loads(read(evp))["rows"]}
            self.assertEqual(rows["terse"]["twin"]["file"], CASE + ".cu", rows["terse"])
            self.assertNotIn("twin", rows["zh"])                                     # no twin, no field

    def test_twin_reserve_beyond_deadline_is_refused(self):
        r = subprocess.run([sys.executable, "train/generate.py", "--base", TINY, "--suite", "bench/suite", "--out",
                            os.path.join(self.tmp, "no"), "--twin", "--deadline", "60", "--twin-reserve", "60", "--device", "cpu",
                            "--lib", LIB], cwd=ROOT, capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 2, r.stderr[-2000:])
        self.assertIn("--twin-reserve 60.0 leaves the PTX turn no time before --deadline 60.0", r.stderr)


if __name__ == "__main__":
    res = unittest.main(exit=False, verbosity=1).result
    bad = len(res.failures) + len(res.errors)
    skipped = len(res.skipped)
    print(f"twin: {res.testsRun - bad - skipped} passed, {bad} failed, {skipped} skipped")
    sys.exit(1 if bad else 0)
