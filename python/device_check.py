#!/usr/bin/env python3
"""Device check of the Jupyter integration (the lead runs it on the GPU machine):

  1. saxpy: %%ptxgen's code path (ptxgen.api.generate) with the real `ptxgen gen`,
     then PtxgenResult.launch() with CuPy, compared with NumPy;
  2. examples/lj_energy.ipynb end to end (the magic, the glue cell's launch,
     the NumPy check cell) in a real kernel via nbclient when installed, else
     cell by cell in this process (magics handled by ptxgen.api).

Prints one JSON object; exit 0 when every check passed.
Usage: PTXGEN_BIN=build/ptxgen python3 python/device_check.py [--model DIR] [--arch sm_90]"""
import argparse
import json
import os
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SAXPY = """## saxpy
- Input: `float* x` (n), `float a`
- In/out: `float* y` (n), updated in place
- Goal: `y = a*x + y`
- Launch: 256 threads per block, `cdiv(n,256)` blocks
"""


def check_saxpy(extra):
    import cupy as cp
    import numpy as np
    from ptxgen.api import generate
    t0 = time.time()
    res = generate(SAXPY, f"--size n=1000003 -o saxpy.ptx {extra}")
    out = {"verdicts": res.verdicts, "gen_exit": res.gen.get("exit_code"), "gen_seconds": time.time() - t0,
           "tokens_per_s": res.gen.get("tokens_per_s")}
    n = 1000003
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, n).astype(np.float32)
    y = rng.uniform(-1, 1, n).astype(np.float32)
    bufs = res.launch(x=x, y=y, a=2.5, n=n)
    got = cp.asnumpy(bufs["y"])
    want = 2.5 * x.astype(np.float64) + y
    out["rel_l2"] = float(np.linalg.norm(got - want) / np.linalg.norm(want))
    out["ok"] = out["rel_l2"] < 1e-5
    return out


def run_nb_inprocess(nb, extra):
    """The notebook's code cells in order; %load_ext is a no-op and %%ptxgen
    goes through ptxgen.api.generate, as the magic does."""
    import contextlib
    import io
    from ptxgen.api import generate
    ns, texts = {}, []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            if src.startswith("%load_ext"):
                pass
            elif src.startswith("%%ptxgen"):
                line, _, body = src.partition("\n")
                ns["_ptxgen"] = res = generate(body, line[len("%%ptxgen"):] + " " + extra)
                print(res.summary())
            else:
                exec(compile(src, "<cell>", "exec"), ns)
        texts.append(buf.getvalue())
    return texts


def check_notebook(extra):
    path = os.path.join(HERE, "examples", "lj_energy.ipynb")
    with open(path) as f:
        nbj = json.load(f)
    cwd = os.getcwd()
    try:
        import nbclient
        import nbformat
        nb = nbformat.reads(json.dumps(nbj), as_version=4)
        for c in nb.cells:
            if c.cell_type == "code" and c.source.startswith("%%ptxgen") and extra:
                first, _, rest = c.source.partition("\n")
                c.source = first + " " + extra + "\n" + rest
        os.environ["PYTHONPATH"] = HERE + os.pathsep + os.environ.get("PYTHONPATH", "")
        nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": cwd}}).execute()
        texts = ["".join(o.get("text", "") for o in c.get("outputs", []) if o.get("output_type") == "stream")
                 for c in nb.cells if c.cell_type == "code"]
        runner = "nbclient"
    except ImportError:
        texts = run_nb_inprocess(nbj, extra)
        runner = "in-process"
    rel = None
    for t in texts:
        for line in t.splitlines():
            if line.startswith("relative L2 error vs NumPy:"):
                rel = float(line.split(":")[1])
    return {"runner": runner, "outputs": [t[-400:] for t in texts], "rel_l2": rel, "ok": rel is not None and rel < 1e-4}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model")
    ap.add_argument("--arch")
    a = ap.parse_args()
    extra = " ".join(f"--{k} {v}" for k, v in (("model", a.model), ("arch", a.arch)) if v)
    report = {"date": time.strftime("%Y-%m-%d"), "ptxgen_bin": os.environ.get("PTXGEN_BIN", "")}
    try:
        import cupy
        report["cupy"] = cupy.__version__
    except ImportError as e:
        report["error"] = f"cupy not importable: {e}"
        print(json.dumps(report, indent=2))
        return 1
    with tempfile.TemporaryDirectory() as d:
        os.chdir(d)
        for name, fn in (("saxpy", check_saxpy), ("lj_energy_notebook", check_notebook)):
            try:
                report[name] = fn(extra)
            except Exception as e:   # report, do not stop: the other check may still pass
                report[name] = {"ok": False, "error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()[-2000:]}
    report["ok"] = all(report[k].get("ok") for k in ("saxpy", "lj_energy_notebook"))
    print(json.dumps(report, indent=2))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
