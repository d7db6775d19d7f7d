"""The magic's generation is the library's pipeline: without $PTXGEN_BIN, run_gen calls
pipe_generate_json in libptxgen.so (the call `ptxgen gen` makes), and its kernel is byte
for byte the one the CLI writes for the same request (tests/gen/tiny, a random model)."""
import ctypes
import os
import tempfile
import unittest

from _util import REPO, SAXPY_CARD, have

LIB = os.path.join(REPO, "build", "libptxgen.so")
BIN = os.path.join(REPO, "build", "ptxgen")
TINY = os.path.join(REPO, "tests", "gen", "tiny")


def _has_pipeline():
    try:
        return hasattr(ctypes.CDLL(LIB), "pipe_generate_json")
    except OSError:
        return False


@unittest.skipIf(not os.path.isfile(LIB) or not _has_pipeline(), "build/libptxgen.so with pipe_generate_json missing (make)")
class LibraryRunnerTests(unittest.TestCase):
    def setUp(self):
        from ptxgen import runner
        self.runner = runner
        self.tmp = tempfile.TemporaryDirectory()
        self.saved = {k: os.environ.get(k) for k in ("PTXGEN_BIN", "PTXGEN_LIB")}
        os.environ.pop("PTXGEN_BIN", None)
        os.environ["PTXGEN_LIB"] = LIB
        runner._GEN_LIB = None

    def tearDown(self):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        self.runner._GEN_LIB = None
        self.tmp.cleanup()

    def test_library_and_cli_write_the_same_kernel(self):
        lib_out = os.path.join(self.tmp.name, "lib.ptx")
        cli_out = os.path.join(self.tmp.name, "cli.ptx")
        a = self.runner.run_gen("vector add", lib_out, samples=1, seed=5, model=TINY)
        self.assertEqual(a["runner"], "library")
        self.assertIn(a["exit_code"], (0, 1))
        self.assertIn("verdicts", a)
        self.assertIn("gen: ", a["stderr"])   # the summary line, through the notes
        if os.path.isfile(BIN):
            b = self.runner.run_gen("vector add", cli_out, samples=1, seed=5, model=TINY, binary=BIN)
            self.assertEqual(b["runner"], "cli")
            self.assertEqual(a["exit_code"], b["exit_code"])
            with open(lib_out) as f1, open(cli_out) as f2:
                self.assertEqual(f1.read(), f2.read())

    def test_library_errors_raise(self):
        from ptxgen.runner import PtxgenError
        with self.assertRaises(PtxgenError) as cm:
            self.runner.run_gen("x", os.path.join(self.tmp.name, "x.ptx"), model=os.path.join(self.tmp.name, "nope"))
        self.assertIn("exit 2", str(cm.exception))

    @unittest.skipIf(not have("numpy"), "numpy missing (the glue)")
    def test_magic_path_uses_the_library(self):
        from ptxgen.api import generate
        cwd = os.getcwd()
        os.chdir(self.tmp.name)
        try:
            res = generate(SAXPY_CARD, f"--model {TINY} --samples 1 --seed 3")
        finally:
            os.chdir(cwd)
        self.assertEqual(res.gen["runner"], "library")
        self.assertTrue(res.ptx.startswith("// GENERATED_BY: ptxgen "))
        self.assertEqual(res.gen["signature_source"], "card")


if __name__ == "__main__":
    unittest.main()


class DefaultModelSearchTests(unittest.TestCase):
    """runner.default_model_dir mirrors model_default_dir (src/model/test_find.c): the two-stage
    adapter only when its base file is there, else the 15M model, else none."""

    def test_search(self):
        from ptxgen import runner
        with tempfile.TemporaryDirectory() as root:
            models = os.path.join(root, "models")
            os.makedirs(os.path.join(models, "qwen-plan"))
            os.makedirs(os.path.join(models, "default"))
            self.assertIsNone(runner.default_model_dir(root))
            with open(os.path.join(models, "qwen-plan", "base.json"), "w") as f:
                f.write('{"gguf": "../base/b.gguf", "sha256": "00"}')
            self.assertIsNone(runner.default_model_dir(root))
            with open(os.path.join(models, "default", "config.json"), "w") as f:
                f.write("{}")
            self.assertEqual(runner.default_model_dir(root), os.path.join(models, "default"))
            os.makedirs(os.path.join(models, "base"))
            open(os.path.join(models, "base", "b.gguf"), "w").close()   # empty: the search only looks
            self.assertEqual(runner.default_model_dir(root), os.path.join(models, "qwen-plan"))
            # the 1.5B's adapter first once its own base is there, and only then
            os.makedirs(os.path.join(models, "qwen15-plan"))
            with open(os.path.join(models, "qwen15-plan", "base.json"), "w") as f:
                f.write('{"gguf": "../base/b15.gguf"}')
            self.assertEqual(runner.default_model_dir(root), os.path.join(models, "qwen-plan"))
            open(os.path.join(models, "base", "b15.gguf"), "w").close()
            self.assertEqual(runner.default_model_dir(root), os.path.join(models, "qwen15-plan"))
            os.remove(os.path.join(models, "base", "b15.gguf"))
            with open(os.path.join(models, "qwen-plan", "base.json"), "w") as f:
                f.write('["not", "an", "object"]')
            self.assertEqual(runner.default_model_dir(root), os.path.join(models, "default"))
            saved, cwd = os.environ.get("PTXGEN_MODEL"), os.getcwd()
            try:
                os.environ["PTXGEN_MODEL"] = "/elsewhere/m"
                self.assertEqual(runner._default_model(), "/elsewhere/m")   # the variable overrides
                os.environ.pop("PTXGEN_MODEL")
                with open(os.path.join(models, "qwen-plan", "base.json"), "w") as f:
                    f.write('{"gguf": "../base/b.gguf"}')
                os.chdir(root)
                self.assertEqual(runner._default_model(), os.path.join("models", "qwen-plan"))
            finally:
                os.chdir(cwd)
                if saved is not None:
                    os.environ["PTXGEN_MODEL"] = saved
