"""Calling `ptxgen gen` (the CLI: one code path for the notebook, the shell and CI).

The binary is $PTXGEN_BIN, else ../build/ptxgen of the source checkout this
package sits in, else `ptxgen` on PATH."""
import json
import os
import shutil
import subprocess
import time
from typing import List, Optional

__all__ = ["PtxgenError", "find_binary", "run_gen"]


class PtxgenError(RuntimeError):
    """`ptxgen gen` could not run or gave no result (usage error, missing binary)."""


def find_binary() -> str:
    env = os.environ.get("PTXGEN_BIN")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise PtxgenError(f"PTXGEN_BIN={env} is not an executable file")
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    checkout = os.path.normpath(os.path.join(here, "..", "..", "build", "ptxgen"))
    if os.path.isfile(checkout) and os.access(checkout, os.X_OK):
        return checkout
    on_path = shutil.which("ptxgen")
    if on_path:
        return on_path
    raise PtxgenError("ptxgen binary not found: set PTXGEN_BIN, build it with `make` in the checkout, "
                      "or put it on PATH")


def _last_json(text: str) -> Optional[dict]:
    """The last line of stdout that is a JSON object (--json prints one)."""
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                pass
    try:
        return json.loads(text)
    except ValueError:
        return None


def run_gen(description: str, out_path: str, arch: Optional[str] = None, verify: Optional[str] = None,
            samples: Optional[int] = None, model: Optional[str] = None, adapter: Optional[str] = None,
            seed: Optional[int] = None, task: Optional[str] = None, extra: Optional[List[str]] = None,
            binary: Optional[str] = None, timeout: float = 3600) -> dict:
    """Run `ptxgen gen DESCRIPTION -o out_path --json ...` and return its JSON
    object plus "exit_code", "stderr" and "wall_seconds".  Exit 1 (no sample
    passed the requested verification) is a result; exit 2 or no JSON raises."""
    exe = binary or find_binary()
    argv = [exe, "gen", description, "-o", out_path, "--json"]
    for flag, val in (("--arch", arch), ("--verify", verify), ("--samples", samples), ("--model", model),
                      ("--adapter", adapter), ("--seed", seed), ("--task", task)):
        if val is not None:
            argv += [flag, str(val)]
    argv += list(extra or [])
    t0 = time.time()
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except OSError as e:
        raise PtxgenError(f"cannot run {exe}: {e}") from e
    except subprocess.TimeoutExpired as e:
        raise PtxgenError(f"ptxgen gen did not finish in {timeout:.0f} s") from e
    res = _last_json(p.stdout) if p.returncode in (0, 1) else None
    if res is None:
        msg = (p.stderr or p.stdout).strip() or f"exit code {p.returncode}"
        raise PtxgenError(f"ptxgen gen failed (exit {p.returncode}): {msg}")
    res["exit_code"] = p.returncode
    res["stderr"] = p.stderr
    res["wall_seconds"] = time.time() - t0
    return res
