"""Glue generation: it compiles, launches with typed arguments in signature
order, derives grid/block, and runs up to the launch without CuPy."""
import ast
import os
import tempfile
import unittest

from _util import LJ_CARD, SAXPY_CARD, have
from ptxgen.card import parse_card
from ptxgen.glue import glue_code, launch_config


def launch_call(code):
    """The kernel(...) call of the glue as an AST node."""
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "kernel":
            return node
    raise AssertionError("no kernel(...) call in the glue")


class GlueTests(unittest.TestCase):
    def test_saxpy_glue_compiles_and_types_args(self):
        card = parse_card(SAXPY_CARD)
        code = glue_code(card, "/tmp/saxpy.ptx", sizes={"n": 1000})
        compile(code, "<glue>", "exec")
        self.assertIn("cp.RawModule(path=PTX_PATH)", code)
        self.assertIn("module.get_function(KERNEL)", code)
        call = launch_call(code)
        grid, block, args = call.args
        self.assertEqual(ast.unparse(grid), "grid")
        self.assertEqual([ast.unparse(a) for a in args.elts], ["x_dev", "y_dev", "cp.float32(a)", "cp.uint32(n)"])
        self.assertIn("n = 1000", code)
        self.assertIn("block = (256, 1, 1)", code)
        self.assertIn("grid = (cdiv(n,256), 1, 1)", code)

    def test_lj_glue(self):
        card = parse_card(LJ_CARD)
        code = glue_code(card, "/tmp/lj.ptx", sizes={"N": 512}, block=128)
        args = [ast.unparse(a) for a in launch_call(code).args[2].elts]
        self.assertEqual(args, ["positions_dev", "masses_dev", "forces_dev", "energies_dev", "cp.float32(cutoff_sq)",
                                "cp.uint32(N)"])
        self.assertIn("cutoff_sq = 100.0", code)
        self.assertIn("positions_host = rng.uniform(-1, 1, size=(N, 3)).astype(np.float32)", code)
        self.assertIn("forces_host = np.zeros((N*3,), dtype=np.float32)", code)
        self.assertIn("block = (128, 1, 1)", code)
        self.assertIn("grid = (cdiv(N, 128), 1, 1)", code)

    def test_launch_line_variants(self):
        mk = lambda launch: parse_card(f"## k\n- Input: `float* x` (rows*cols)\n- Launch: {launch}\n")
        self.assertEqual(launch_config(mk("16x16 threads, grid `(cdiv(cols,16), cdiv(rows,16))`")),
                         ("(16, 16, 1)", "(cdiv(cols,16), cdiv(rows,16))"))
        self.assertEqual(launch_config(mk("512 threads per block, `rows` blocks")), ("(512, 1, 1)", "(rows, 1, 1)"))
        # anything but sizes, integers and cdiv/min/max is not evaluated: default grid
        self.assertEqual(launch_config(mk("128 threads per block, `__import__('os')` blocks")),
                         ("(128, 1, 1)", "(cdiv(rows, 128), 1, 1)"))
        self.assertEqual(launch_config(mk("`rows/2` blocks")), ("(256, 1, 1)", "(rows//2, 1, 1)"))

    def test_extras_install_what_the_glue_imports(self):
        """`pip install -e 'python/[jupyter]'` must bring every module the glue imports outside
        a try/except ImportError (the README's install line; numpy was once missing)."""
        import re
        import sys
        import tomllib
        with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyproject.toml"), "rb") as f:
            extras = tomllib.load(f)["project"]["optional-dependencies"]
        jupyter = {re.split(r"[<>=!~\[ ]", r, 1)[0].lower() for r in extras["jupyter"]}
        tree = ast.parse(glue_code(parse_card(LJ_CARD), "/tmp/lj.ptx"))
        guarded = {id(n) for t in ast.walk(tree) if isinstance(t, ast.Try)
                   for h in t.handlers if ast.unparse(h.type or ast.Name("BaseException")) in ("ImportError", "ModuleNotFoundError")
                   for b in t.body for n in ast.walk(b)}
        needed = set()
        for n in ast.walk(tree):
            if isinstance(n, (ast.Import, ast.ImportFrom)) and id(n) not in guarded:
                for a in (n.names if isinstance(n, ast.Import) else [ast.alias(n.module or "")]):
                    top = a.name.split(".")[0]
                    if top not in sys.stdlib_module_names:
                        needed.add(top.lower())
        self.assertIn("numpy", needed)   # the check sees the glue's imports
        self.assertEqual(needed - jupyter, set(), f"the glue imports {sorted(needed)}; the jupyter extra has {sorted(jupyter)}")

    @unittest.skipIf(not have("numpy"), "numpy missing")
    def test_glue_runs_up_to_the_launch_without_cupy(self):
        if have("cupy"):
            self.skipTest("cupy is importable here: the device script tests the launch")
        card = parse_card(LJ_CARD)
        code = glue_code(card, "/nonexistent.ptx", sizes={"N": 100})
        ns = {}
        import contextlib
        import io
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, "<glue>", "exec"), ns)
        self.assertIn("cupy not available: launch skipped", out.getvalue())
        self.assertEqual(ns["positions_host"].shape, (100, 3))
        self.assertEqual(str(ns["positions_host"].dtype), "float32")
        self.assertEqual(ns["forces_host"].shape, (300,))
        self.assertEqual(ns["grid"], (1, 1, 1))
        self.assertEqual(ns["cutoff_sq"], 100.0)


if __name__ == "__main__":
    unittest.main()
