"""Calling `ptxgen gen`: one code path for the notebook, the shell and CI.

The generation is the library's `pipe_generate` (src/pipeline/generate.c), the same call
`ptxgen gen` makes: through libptxgen.so (`pipe_generate_json`, ctypes; the library
lib.py finds) when $PTXGEN_BIN is not set, else (or when the library cannot be loaded,
or for flags the JSON request does not carry) by running the binary: $PTXGEN_BIN, else
../build/ptxgen of the source checkout this package sits in, else `ptxgen` on PATH.
Either way the result is the same JSON object; "runner" says which one ran."""
import ctypes
import json
import os
import shutil
import subprocess
import time
from typing import List, Optional

from .lib import LibraryError, PtxgenError, _PgBuf, find_library

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


_GEN_LIB = None


def _gen_lib():
    """libptxgen.so with pipe_generate_json, or None (then the binary runs)."""
    global _GEN_LIB
    if _GEN_LIB is None:
        try:
            lib = ctypes.CDLL(find_library())
        except (LibraryError, OSError):
            return None
        if not hasattr(lib, "pipe_generate_json"):
            return None
        lib.pipe_generate_json.argtypes = [ctypes.c_char_p, ctypes.POINTER(_PgBuf), ctypes.POINTER(_PgBuf)]
        lib.pipe_generate_json.restype = ctypes.c_int
        lib.pg_buf_free.argtypes = [ctypes.POINTER(_PgBuf)]
        _GEN_LIB = lib
    return _GEN_LIB


def default_model_dir(root: str = "") -> Optional[str]:
    """model_default_dir of include/ptxgen/model.h: the first of ROOT/models/qwen15-plan and
    ROOT/models/qwen-plan whose base.json names a "gguf" file (relative to that folder) that
    exists, else ROOT/models/default when it holds base.json or config.json, else None.  root ""
    searches the cwd (relative result)."""
    for name in ("qwen15-plan", "qwen-plan"):
        plan = os.path.join(root, "models", name)
        try:
            with open(os.path.join(plan, "base.json")) as f:
                rel = json.load(f).get("gguf")
        except (OSError, ValueError, AttributeError):
            rel = None
        if isinstance(rel, str) and rel and not rel.startswith("/") and os.access(os.path.join(plan, rel), os.R_OK):
            return plan
    d = os.path.join(root, "models", "default")
    if any(os.access(os.path.join(d, m), os.R_OK) for m in ("base.json", "config.json")):
        return d
    return None


def _default_model() -> Optional[str]:
    """The model `ptxgen gen` would take without --model: $PTXGEN_MODEL, the search in the
    cwd, then in the checkout this package sits in."""
    env = os.environ.get("PTXGEN_MODEL")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for root in ("", os.path.normpath(os.path.join(here, "..", ".."))):
        d = default_model_dir(root)
        if d:
            return d
    return None


def _request(description, out_path, arch, verify, samples, model, adapter, seed, task, extra) -> Optional[dict]:
    """The JSON request of pipe_generate_json, or None for flags it does not carry."""
    req = {"request": description, "out": out_path, "json": True}
    for key, val in (("arch", arch), ("verify", verify), ("samples", samples), ("model", model),
                     ("adapter", adapter), ("seed", seed), ("task", task)):
        if val is not None:
            req[key] = val
    extra = list(extra or [])
    while extra:
        flag = extra.pop(0)
        if flag == "--twin":
            req["twin"] = True
        elif flag == "--twin-file" and extra:
            req["twin_file"] = extra.pop(0)
        else:
            return None
    if model is None:
        dm = _default_model()
        if dm is None:
            return None   # the binary's own search (beside the installed binary)
        req["default_model"] = dm
    return req


def _run_gen_lib(lib, req: dict) -> dict:
    out, log = _PgBuf(), _PgBuf()
    t0 = time.time()
    try:
        rc = lib.pipe_generate_json(json.dumps(req).encode("utf-8"), ctypes.byref(out), ctypes.byref(log))
        stdout = ctypes.string_at(out.data, out.len).decode("utf-8", "replace") if out.data else ""
        stderr = ctypes.string_at(log.data, log.len).decode("utf-8", "replace") if log.data else ""
    finally:
        lib.pg_buf_free(ctypes.byref(out))
        lib.pg_buf_free(ctypes.byref(log))
    res = _last_json(stdout) if rc in (0, 1) else None
    if res is None:
        msg = stderr.strip() or f"exit code {rc}"
        raise PtxgenError(f"ptxgen gen failed (exit {rc}): {msg}")
    res["exit_code"] = rc
    res["stderr"] = stderr
    res["wall_seconds"] = time.time() - t0
    res["runner"] = "library"
    return res


def run_gen(description: str, out_path: str, arch: Optional[str] = None, verify: Optional[str] = None,
            samples: Optional[int] = None, model: Optional[str] = None, adapter: Optional[str] = None,
            seed: Optional[int] = None, task: Optional[str] = None, extra: Optional[List[str]] = None,
            binary: Optional[str] = None, timeout: float = 3600) -> dict:
    """Run `ptxgen gen DESCRIPTION -o out_path --json ...` and return its JSON
    object plus "exit_code", "stderr" and "wall_seconds".  Exit 1 (no sample
    passed the requested verification) is a result; exit 2 or no JSON raises.
    Without `binary` and $PTXGEN_BIN the library runs it in this process (no timeout)."""
    if binary is None and not os.environ.get("PTXGEN_BIN"):
        lib = _gen_lib()
        req = _request(description, out_path, arch, verify, samples, model, adapter, seed, task, extra) if lib else None
        if req is not None:
            return _run_gen_lib(lib, req)
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
    res["runner"] = "cli"
    return res
