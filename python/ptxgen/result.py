"""The object %%ptxgen returns."""
from dataclasses import dataclass, field
from typing import Dict, Optional

from .card import Card
from .glue import launch_config

__all__ = ["PtxgenResult"]


def _cdiv(a, b):
    return (a + b - 1) // b


@dataclass
class PtxgenResult:
    card: Card
    ptx: str                      # the module text
    ptx_path: str
    glue: str                     # the glue cell's code
    verdicts: Dict[str, str]      # check / ptxas / gpu -> pass | fail | not run
    gen: dict = field(default_factory=dict)   # the full `ptxgen gen --json` object
    sizes: Dict[str, int] = field(default_factory=dict)
    twin: Optional[dict] = None           # gen's "twin" object: file, verdict, line, task_file, ...
    twin_source: Optional[str] = None     # the twin's CUDA C

    @property
    def kernel(self) -> str:
        return self.card.kernel

    @property
    def signature(self) -> str:
        return self.gen.get("signature") or self.card.signature()

    @property
    def ok(self) -> bool:
        return self.gen.get("exit_code", 1) == 0

    def summary(self) -> str:
        v = self.verdicts
        s = (f"ptxgen: {self.kernel} -> {self.ptx_path}\n"
             f"  check: {v.get('check', 'not run')}, ptxas: {v.get('ptxas', 'not run')}, gpu: {v.get('gpu', 'not run')}")
        if self.gen.get("tokens") is not None:
            s += f"\n  {self.gen.get('tokens')} tokens in {float(self.gen.get('seconds') or 0):.2f} s"
            if self.gen.get("registers") is not None:
                s += f", {self.gen.get('registers')} registers"
            if self.gen.get("model"):
                s += f", model {self.gen.get('model')}"
        if self.twin:
            s += f"\n  CUDA twin {self.twin.get('file')}: {self.twin.get('line')}"
            if self.twin.get("task_file"):
                s += f"\n  inferred task {self.twin.get('task_file')} (check it; rerun with --task to correct it)"
        return s

    def __repr__(self) -> str:
        return f"<PtxgenResult {self.kernel}: " + ", ".join(f"{k} {v}" for k, v in self.verdicts.items()) + ">"

    def _repr_markdown_(self) -> str:
        rows = "\n".join(f"| {k} | {v} |" for k, v in self.verdicts.items())
        md = (f"**ptxgen** `{self.kernel}` → `{self.ptx_path}`\n\n| verification | verdict |\n| --- | --- |\n{rows}\n\n"
              f"```\n{self.signature}\n```\n")
        if self.twin:
            md += f"\n**CUDA twin** `{self.twin.get('file')}`: {self.twin.get('line')}\n"
            if self.twin.get("task_file"):
                md += f"\ninferred task: `{self.twin.get('task_file')}` (check it; rerun with `--task` to correct it)\n"
            if self.twin_source is not None:
                md += f"\n```cuda\n{self.twin_source.rstrip()}\n```\n"
        return md

    def launch(self, block=None, grid=None, **args):
        """Launch with CuPy.  Pass every pointer parameter as a CuPy or NumPy
        array (outputs may be omitted: they are allocated zeroed) and scalars
        by name; size symbols default to the magic's --size values.  Returns
        {name: cupy array} of every pointer argument after the launch."""
        import cupy as cp
        env = dict(self.sizes)
        for s in self.card.sizes:
            if s in args:
                env[s] = int(args[s])
        kargs, bufs = [], {}
        for p in self.card.params:
            if p.pointer:
                a = args.get(p.name)
                if a is None:
                    if p.role != "out":
                        raise TypeError(f"launch(): input buffer '{p.name}' is required")
                    count = eval(p.size or "1", {"__builtins__": {}}, dict(env))
                    shape = (count,) if p.components == 1 else (count, p.components)
                    a = cp.zeros(shape, dtype=p.numpy_dtype)
                a = cp.asarray(a, dtype=p.numpy_dtype)
                bufs[p.name] = a
                kargs.append(a)
            else:
                if p.name in args:
                    val = args[p.name]
                elif p.name in env:
                    val = env[p.name]
                elif p.default is not None:
                    val = float(p.default)
                else:
                    raise TypeError(f"launch(): scalar '{p.name}' is required")
                kargs.append(getattr(cp, p.numpy_dtype)(val))
        b_expr, g_expr = launch_config(self.card, block if isinstance(block, int) else None)
        ns = dict(env, cdiv=_cdiv, min=min, max=max)
        for p in self.card.params:
            if not p.pointer and p.name not in ns:
                ns[p.name] = args.get(p.name, 1)
        blk = tuple(block) if isinstance(block, (tuple, list)) else eval(b_expr, {"__builtins__": {}}, ns)
        grd = tuple(grid) if grid is not None else eval(g_expr, {"__builtins__": {}}, ns)
        kernel = cp.RawModule(path=self.ptx_path).get_function(self.kernel)
        kernel(grd, blk, tuple(kargs))
        cp.cuda.Device().synchronize()
        return bufs
