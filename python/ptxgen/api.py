"""What `%%ptxgen` does, without IPython (also used by device_check.py).

`%%ptxgen`: a Markdown kernel card in, PTX + verdicts + a CuPy glue cell out.

    %%ptxgen [--arch sm_90] [--verify check|ptxas|gpu] [--samples N] [--model DIR]
             [--adapter DIR] [--seed S] [-o PATH] [--size N=4096 ...] [--block 256]
             [--var NAME] [--no-cell] [--twin | --twin-file TWIN.cu]
    ## lj_energy
    - Input: `float3* positions` (N atoms), `float cutoff_sq = 100.0f`
    - Output: `float* energies` (N)
    - Goal: ...

--twin asks the model for the kernel's CUDA C twin too (a second turn); --twin-file
uses yours.  The twin is written beside the PTX (<kernel>.cu), compiled with nvcc, a
task is inferred from it (<kernel>.task.json) and, with a GPU, the PTX runs against
it; the result shows the twin and that verdict (res.twin, res.twin_source).

The result (a PtxgenResult) is returned, stored in the user namespace as
`_ptxgen` (or --var NAME), and the glue code is put in a new cell below
(IPython's set_next_input)."""
import argparse
import os
import shlex

from .card import CardError, parse_card
from .glue import glue_code
from .result import PtxgenResult
from .runner import PtxgenError, run_gen

__all__ = ["ArgError", "build_parser", "parse_line", "generate"]


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="%%ptxgen", add_help=False)
    ap.add_argument("--arch")
    ap.add_argument("--verify", choices=["check", "ptxas", "gpu"])
    ap.add_argument("--samples", type=int)
    ap.add_argument("--model")
    ap.add_argument("--adapter")
    ap.add_argument("--seed", type=int)
    ap.add_argument("-o", "--output", help="where the PTX goes (default ptxgen_kernels/<kernel>.ptx)")
    ap.add_argument("--size", action="append", default=[], metavar="NAME=VALUE",
                    help="value of a size symbol of the card in the glue (default 65536)")
    ap.add_argument("--block", type=int, help="threads per block when the card has no Launch line (256)")
    ap.add_argument("--var", default="_ptxgen", help="user-namespace variable for the result")
    ap.add_argument("--no-cell", action="store_true", help="do not insert the glue cell")
    ap.add_argument("--twin", action="store_true", help="the model also writes the CUDA C twin (a second turn)")
    ap.add_argument("--twin-file", help="your CUDA C twin of the kernel (extern \"C\" __global__, same name and parameters)")
    return ap


class ArgError(Exception):
    """Bad %%ptxgen options."""


def parse_line(line: str) -> argparse.Namespace:
    ap = build_parser()
    ap.error = lambda msg: (_ for _ in ()).throw(ArgError(msg))   # no SystemExit inside a kernel
    return ap.parse_args(shlex.split(line or ""))


def _sizes(items) -> dict:
    out = {}
    for it in items:
        name, sep, val = it.partition("=")
        if not sep or not name.strip().isidentifier():
            raise ArgError(f"--size expects NAME=VALUE, got '{it}'")
        try:
            out[name.strip()] = int(val, 0)
        except ValueError:
            raise ArgError(f"--size {it}: '{val}' is not an integer") from None
    return out


def generate(cell: str, line: str = "") -> PtxgenResult:
    """What the magic does, without IPython: parse the card, run `ptxgen gen`,
    read the PTX, build the glue."""
    opts = parse_line(line)
    card = parse_card(cell)
    out = opts.output or os.path.join("ptxgen_kernels", card.kernel + ".ptx")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    extra = []
    if opts.twin_file:
        extra += ["--twin-file", opts.twin_file]
    elif opts.twin:
        extra += ["--twin"]
    gen = run_gen(card.text, out, arch=opts.arch, verify=opts.verify, samples=opts.samples, model=opts.model,
                  adapter=opts.adapter, seed=opts.seed, extra=extra)
    ptx_path = gen.get("ptx_file") or out
    try:
        with open(ptx_path, encoding="utf-8") as f:
            ptx = f.read()
    except OSError as e:
        raise PtxgenError(f"ptxgen gen reported {ptx_path} but it cannot be read: {e}") from e
    if gen.get("kernel") and gen["kernel"] != card.kernel:
        raise PtxgenError(f"ptxgen gen named the kernel '{gen['kernel']}' but the card gives '{card.kernel}'")
    sizes = _sizes(opts.size)
    verdicts = {k: str(v) for k, v in (gen.get("verdicts") or {}).items()}
    glue = glue_code(card, os.path.abspath(ptx_path), sizes=sizes, block=opts.block)
    twin = gen.get("twin") if isinstance(gen.get("twin"), dict) else None
    twin_source = None
    if twin and twin.get("file"):
        try:
            with open(twin["file"], encoding="utf-8") as f:
                twin_source = f.read()
        except OSError as e:
            raise PtxgenError(f"ptxgen gen reported the twin {twin['file']} but it cannot be read: {e}") from e
    return PtxgenResult(card=card, ptx=ptx, ptx_path=os.path.abspath(ptx_path), glue=glue, verdicts=verdicts,
                        gen=gen, sizes=sizes, twin=twin, twin_source=twin_source)


