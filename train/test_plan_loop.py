"""test_plan_loop.py — CPU tests of train/plan_loop.py (the plan turn's loop stop) and of generate2's
plan_fails (which plans are drawn again); with libptxgen.so, the rule against gen_text_loops, the C
function `ptxgen gen`'s plan turn uses, on the same texts.

  python3 train/test_plan_loop.py       # tests/train_tests.sh train/test_plan_loop.py runs it
"""
import ctypes as C
import importlib.util
import json
import os
import random
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import plan_loop as P  # noqa: E402

LIB = os.environ.get("PTXGEN_LIB", os.path.join(ROOT, os.environ.get("PTXGEN_BUILD", "build"), "libptxgen.so"))
HEAD = "// ew_silu: out[i] = a*silu(a)\n"
SILU = "//   result is a*rsqrt(abs(a) + 1) + a with rcp.approx (one MUFU op per thread): the"   # round 6's ew_silu loop, 15 words
PARA = "of the rows the block is one row of the block (the sum of the negative log-likelihood".split()   # 17 words


def paragraph(words, total, per, lead):
    """words taken round and round, total in all, per a line, each line led by lead (test_textloop.c's)."""
    out = "__global__ void k(float *x) {}\n"
    for i in range(total):
        if i % per == 0:
            out += lead
        out += words[i % len(words)] + ("\n" if i % per == per - 1 or i == total - 1 else " ")
    return out


class Rule(unittest.TestCase):
    def test_line_repeats(self):
        text = HEAD + "  } x\n" * (P.LINE_REPEATS - 1)
        self.assertIsNone(P.loops(text))
        self.assertIsNone(P.loops(text + "} x"), "a line without its newline does not count")
        self.assertEqual(P.loops(text + "} x\n"), 'the line "} x" 8 times in a row')
        self.assertIsNotNone(P.loops(HEAD + "} x\n   \n\t} x  \n\n" * (P.LINE_REPEATS // 2)), "blank lines are skipped")
        self.assertIsNone(P.loops("__global__ void k(float *x) {\n" + "}\n" * 5), "five closing braces")

    def test_period(self):
        self.assertIsNone(P.loops(HEAD + (SILU + "\n") * 5))
        self.assertEqual(P.loops(HEAD + (SILU + "\n") * 6), "a period of 15 words 6 times")
        self.assertIsNone(P.loops(paragraph(PARA, P.PERIOD_REPS * len(PARA) - 1, 11, "// ")))
        self.assertEqual(P.loops(paragraph(PARA, P.PERIOD_REPS * len(PARA), 11, "// ")), "a period of 17 words 6 times")
        self.assertIsNotNone(P.loops(paragraph(PARA, P.PERIOD_REPS * len(PARA), 7, "")), "wrapped elsewhere, no markers")
        self.assertIsNone(P.loops(paragraph(["a", "b"], 24, 6, "")), "24 words of a 2-word period")
        self.assertIsNotNone(P.loops(paragraph(["a", "b"], P.PERIOD_SPAN_MIN, 6, "")))
        many = [f"w{i}" for i in range(P.PERIOD_WORDS_MAX + 1)]
        self.assertIsNone(P.loops(paragraph(many, P.PERIOD_REPS * len(many), 9, "// ")), "a period over the longest")
        self.assertIsNotNone(P.loops(paragraph(many[:-1], P.PERIOD_REPS * (len(many) - 1), 9, "// ")))
        drift = "".join(f"// Thread c+{i} owns thread c+{i + 1}, ... (column c+{i + 2})\n" for i in range(40))
        self.assertIsNone(P.loops(drift), "lines that drift are left to the token limit")
        for t in ("", "no newline", "\n" * 9):
            self.assertIsNone(P.loops(t))

    def test_first_stop_and_stats(self):
        text = HEAD + (SILU + "\n") * 9
        at, why = P.first_stop(text)
        self.assertEqual(at, len(HEAD) + 6 * (len(SILU) + 1))
        self.assertEqual(why, "a period of 15 words 6 times")
        self.assertEqual(P.repeat_stats(text), (9, 9.0))
        self.assertEqual(P.first_stop("int x;\n"), (None, None))

    def test_corpus_never_stops(self):
        import glob
        files = sorted(glob.glob(os.path.join(ROOT, "corpus", "*", "*.cu")))
        self.assertGreater(len(files), 50)
        for f in files:
            self.assertEqual(P.first_stop(open(f, encoding="utf-8").read()), (None, None), f)


@unittest.skipUnless(os.path.exists(LIB), "needs libptxgen.so")
class SameAsC(unittest.TestCase):
    """plan_loop.loops and gen_text_loops agree, on the fixtures and on random texts made to loop now and then."""

    def test_agree(self):
        lib = C.CDLL(LIB)
        f = lib.gen_text_loops
        f.argtypes = [C.c_char_p, C.c_size_t, C.c_char_p, C.c_size_t]
        f.restype = C.c_bool

        def c_loops(t):
            b = t.encode("utf-8")
            return f(b, len(b), None, 0)
        texts = [HEAD + (SILU + "\n") * k for k in range(4, 9)] + [paragraph(PARA, n, 11, "// ") for n in range(90, 110)]
        rng = random.Random(7)
        vocab = ["}", "x", "//", "a[i]", "=", "b;", "the", "sum", "\t", "  ", "{"]
        for _ in range(400):
            lines = [" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 6))) for _ in range(rng.randint(1, 8))]
            text = "".join(rng.choice(lines) + "\n" for _ in range(rng.randint(1, 60)))
            texts.append(text + rng.choice(["", "} x", "tail"]))
        agree = [(P.loops(t) is not None) == c_loops(t) for t in texts]
        self.assertTrue(all(agree), [t for t, a in zip(texts, agree) if not a][:2])
        self.assertGreater(sum(P.loops(t) is not None for t in texts), 20)   # both verdicts are exercised
        self.assertGreater(sum(P.loops(t) is None for t in texts), 20)


@unittest.skipUnless(importlib.util.find_spec("torch") is not None, "needs torch (generate2 imports it)")
class PlanFails(unittest.TestCase):
    def test_verdicts(self):
        import generate2
        d = tempfile.mkdtemp(prefix="ptxgen-planfails-")
        try:
            def plan(name, meta, ptx):
                cu = os.path.join(d, name + ".cu")
                open(cu, "w").write("// a plan\n")
                if meta is not None:
                    open(cu[:-3] + ".json", "w").write(json.dumps(meta))
                if ptx is not None:
                    open(cu[:-3] + ".ptx", "w").write(ptx)
                return cu
            good = ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n)\n{\n\tret;\n}\n"
            empty = "//\n// Generated by NVIDIA NVVM Compiler\n.version 8.0\n.target sm_80\n.address_size 64\n\n"
            fin = {"gen_tokens": 200, "finished": True}
            self.assertIsNone(generate2.plan_fails(plan("ok", fin, good)))
            self.assertEqual(generate2.plan_fails(plan("rej", fin, "// ptxgen: nvcc rejected the plan: error\n")), "rejected")
            self.assertEqual(generate2.plan_fails(plan("empty", fin, empty)), "no-kernel")
            self.assertEqual(generate2.plan_fails(plan("cut", {"gen_tokens": 1024, "finished": False}, good)), "unfinished")
            self.assertEqual(generate2.plan_fails(plan("loop", {"gen_tokens": 386, "finished": False, "looped": True}, empty)),
                             "looped")
            self.assertEqual(generate2.plan_fails(plan("nojson", None, good)), "unfinished")
        finally:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    res = unittest.main(exit=False, verbosity=1).result
    bad = len(res.failures) + len(res.errors)
    skipped = len(res.skipped)
    print(f"plan_loop: {res.testsRun - bad - skipped} passed, {bad} failed, {skipped} skipped")
    sys.exit(1 if bad else 0)
