"""%load_ext ptxgen and %%ptxgen in a real IPython InteractiveShell, with a
fake ptxgen binary (tests/fake_ptxgen.py via PTXGEN_BIN)."""
import contextlib
import io
import json
import os
import tempfile
import unittest

from _util import FAKE, SAXPY_CARD, have


@unittest.skipIf(not have("IPython"), "IPython missing")
class MagicTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from IPython.core.interactiveshell import InteractiveShell
        cls.shell = InteractiveShell.instance()
        cls.shell.run_line_magic("load_ext", "ptxgen")

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.env = dict(os.environ)
        os.environ["PTXGEN_BIN"] = FAKE
        os.environ["FAKE_PTXGEN_LOG"] = os.path.join(self.tmp.name, "argv.log")
        os.environ.pop("FAKE_PTXGEN_MODE", None)
        self.cwd = os.getcwd()
        os.chdir(self.tmp.name)

    def tearDown(self):
        os.chdir(self.cwd)
        os.environ.clear()
        os.environ.update(self.env)
        self.tmp.cleanup()

    def run_cell(self, line, cell):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            res = self.shell.run_cell_magic("ptxgen", line, cell)
        return res, out.getvalue()

    def test_registered(self):
        self.assertIn("ptxgen", self.shell.magics_manager.magics["cell"])

    def test_cell_generates_and_inserts_glue(self):
        self.shell.rl_next_input = None
        res, out = self.run_cell("--size n=4096 --arch sm_90 --verify ptxas", SAXPY_CARD)
        self.assertIsNotNone(res, out)
        self.assertEqual(res.kernel, "saxpy")
        self.assertEqual(res.verdicts, {"check": "pass", "ptxas": "pass", "gpu": "not run"})
        self.assertIn(".visible .entry saxpy(", res.ptx)
        self.assertTrue(res.ptx_path.endswith("ptxgen_kernels/saxpy.ptx"))
        self.assertIn("check: pass, ptxas: pass, gpu: not run", out)
        self.assertIs(self.shell.user_ns["_ptxgen"], res)
        self.assertEqual(self.shell.rl_next_input, res.glue)   # the new cell
        self.assertIn("n = 4096", res.glue)
        compile(res.glue, "<glue>", "exec")
        with open(os.environ["FAKE_PTXGEN_LOG"]) as f:
            argv = json.loads(f.readline())
        self.assertEqual(argv[0], "gen")
        self.assertTrue(argv[1].startswith("## saxpy\n- Input:"))
        for flag in (["--json"], ["--arch", "sm_90"], ["--verify", "ptxas"], ["-o", "ptxgen_kernels/saxpy.ptx"]):
            self.assertTrue(any(argv[i:i + len(flag)] == flag for i in range(len(argv))), flag)
        self.assertIn("**ptxgen** `saxpy`", res._repr_markdown_())

    def test_no_cell_and_var(self):
        self.shell.rl_next_input = None
        res, _ = self.run_cell("--no-cell --var k1 -o out/k.ptx", SAXPY_CARD)
        self.assertIsNone(self.shell.rl_next_input)
        self.assertIs(self.shell.user_ns["k1"], res)
        self.assertTrue(os.path.exists("out/k.ptx"))

    def test_twin_is_shown_with_its_verdict(self):
        with open("mine.cu", "w") as f:
            f.write('extern "C" __global__ void saxpy(const float *x, float *y, float a, unsigned n) { /* mine */ }\n')
        res, out = self.run_cell("--no-cell --twin-file mine.cu", SAXPY_CARD)
        self.assertIsNotNone(res, out)
        self.assertEqual(res.twin["verdict"], "not-run")
        self.assertIn("/* mine */", res.twin_source)
        self.assertIn("CUDA twin", out)
        self.assertIn("twin compiles; not run (no GPU: fake)", out)
        self.assertIn("inferred task", out)
        md = res._repr_markdown_()
        self.assertIn("```cuda\n", md)
        self.assertIn("/* mine */", md)
        with open(os.environ["FAKE_PTXGEN_LOG"]) as f:
            argv = json.loads(f.readlines()[-1])
        self.assertIn("--twin-file", argv)
        res, out = self.run_cell("--no-cell --twin", SAXPY_CARD)
        self.assertTrue(res.twin["generated"])
        self.assertIn('extern "C" __global__ void saxpy(', res.twin_source)
        res, out = self.run_cell("--no-cell", SAXPY_CARD)
        self.assertIsNone(res.twin)
        self.assertNotIn("CUDA twin", out + res._repr_markdown_())

    def test_errors_are_messages_not_tracebacks(self):
        res, out = self.run_cell("", "just some words")
        self.assertIsNone(res)
        self.assertIn("not a kernel card", out)
        res, out = self.run_cell("--size n", SAXPY_CARD)
        self.assertIsNone(res)
        self.assertIn("--size expects NAME=VALUE", out)
        res, out = self.run_cell("--verify nope", SAXPY_CARD)
        self.assertIsNone(res)
        self.assertIn("invalid choice", out)
        os.environ["FAKE_PTXGEN_MODE"] = "usage"
        res, out = self.run_cell("", SAXPY_CARD)
        self.assertIsNone(res)
        self.assertIn("ptxgen gen failed (exit 2): ptxgen gen: not built yet", out)
        os.environ["PTXGEN_BIN"] = "/nonexistent/ptxgen"
        res, out = self.run_cell("", SAXPY_CARD)
        self.assertIn("PTXGEN_BIN=/nonexistent/ptxgen is not an executable file", out)


if __name__ == "__main__":
    unittest.main()
