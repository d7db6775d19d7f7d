"""A real IPython kernel (nbclient + ipykernel) runs notebooks end to end up
to the launch, with the fake ptxgen binary: %load_ext, %%ptxgen, the glue."""
import os
import tempfile
import unittest

from _util import FAKE, PKG_ROOT, SAXPY_CARD, have

NEED = [m for m in ("nbclient", "nbformat", "ipykernel", "numpy") if not have(m)]


def run_notebook(nb, cwd):
    from nbclient import NotebookClient
    env_keep = dict(os.environ)
    os.environ["PYTHONPATH"] = PKG_ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")
    os.environ["PTXGEN_BIN"] = FAKE
    try:
        NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": cwd}}).execute()
    finally:
        os.environ.clear()
        os.environ.update(env_keep)
    return nb


def text_of(cell):
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")


@unittest.skipIf(NEED, "missing: " + ", ".join(NEED))
class NotebookTests(unittest.TestCase):
    def test_saxpy_notebook(self):
        import nbformat
        nb = nbformat.v4.new_notebook()
        nb.cells = [
            nbformat.v4.new_code_cell("%load_ext ptxgen"),
            nbformat.v4.new_code_cell("%%ptxgen --size n=1000\n" + SAXPY_CARD),
            nbformat.v4.new_code_cell('exec(compile(_ptxgen.glue, "<glue>", "exec"))'),
            nbformat.v4.new_code_cell("print(x_host.shape, y_host.dtype, grid, block, type(a).__name__)"),
        ]
        with tempfile.TemporaryDirectory() as d:
            run_notebook(nb, d)
            self.assertTrue(os.path.exists(os.path.join(d, "ptxgen_kernels", "saxpy.ptx")))
        self.assertIn("check: pass, ptxas: pass, gpu: not run", text_of(nb.cells[1]))
        results = [o for o in nb.cells[1].outputs if o.output_type == "execute_result"]
        self.assertIn("<PtxgenResult saxpy", results[0]["data"]["text/plain"])
        if not have("cupy"):
            self.assertIn("cupy not available: launch skipped", text_of(nb.cells[2]))
        self.assertEqual(text_of(nb.cells[3]).strip(), "(1000,) float32 (4, 1, 1) (256, 1, 1) float")

    def test_example_notebook_runs_up_to_the_launch(self):
        if have("cupy"):
            self.skipTest("cupy present: python/device_check.py runs the example for real")
        import nbformat
        nb = nbformat.read(os.path.join(PKG_ROOT, "examples", "lj_energy.ipynb"), as_version=4)
        with tempfile.TemporaryDirectory() as d:
            run_notebook(nb, d)
        code = [c for c in nb.cells if c.cell_type == "code"]
        self.assertIn("lj_energy", text_of(code[1]))
        self.assertIn("cupy not available: launch skipped", text_of(code[2]))
        self.assertIn("cupy not available: NumPy check skipped", text_of(code[3]))
        # the committed glue cell is what the magic generates for the card today
        self.assertEqual(code[2].source.strip(), nb_glue(code[1].source).strip())


def nb_glue(magic_cell):
    from ptxgen.api import parse_line
    from ptxgen.card import parse_card
    from ptxgen.glue import glue_code
    line, _, card = magic_cell.partition("\n")
    opts = parse_line(line[len("%%ptxgen"):])
    sizes = dict(s.split("=") for s in opts.size)
    return glue_code(parse_card(card), "ptxgen_kernels/lj_energy.ptx", sizes={k: int(v) for k, v in sizes.items()})


if __name__ == "__main__":
    unittest.main()
