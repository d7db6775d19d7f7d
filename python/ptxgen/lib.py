"""libptxgen.so for the package: where it is, the buffer its JSON calls fill, the errors.

The library is $PTXGEN_LIB, else build/libptxgen.so of the source checkout this package
sits in, else the one next to the ``ptxgen`` binary (build/ or ../lib/), else the system's
(ldconfig).  card.py (the card parser) and runner.py (the generation) both load it; this
module imports neither, so they do not import each other."""
import ctypes
import ctypes.util
import os
import shutil

__all__ = ["PtxgenError", "LibraryError", "find_library"]


class PtxgenError(RuntimeError):
    """`ptxgen gen` could not run or gave no result (usage error, missing binary)."""


class LibraryError(PtxgenError):
    """libptxgen.so (the C card parser) cannot be found or loaded."""


class _PgBuf(ctypes.Structure):
    _fields_ = [("data", ctypes.c_char_p), ("len", ctypes.c_size_t), ("cap", ctypes.c_size_t)]


def find_library() -> str:
    """The path of libptxgen.so this package uses (see the module docstring)."""
    env = os.environ.get("PTXGEN_LIB")
    if env:
        if not os.path.isfile(env):
            raise LibraryError(f"PTXGEN_LIB={env} is not a file")
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    cands = [os.path.normpath(os.path.join(here, "..", "..", "build", "libptxgen.so"))]
    exe = os.environ.get("PTXGEN_BIN") or shutil.which("ptxgen")
    if exe:
        d = os.path.dirname(os.path.realpath(exe))
        cands += [os.path.join(d, "libptxgen.so"), os.path.normpath(os.path.join(d, "..", "lib", "libptxgen.so"))]
    for c in cands:
        if os.path.isfile(c):
            return c
    sys_lib = ctypes.util.find_library("ptxgen")
    if sys_lib:
        return sys_lib
    raise LibraryError("libptxgen.so not found: build it with `make` in the checkout, set PTXGEN_LIB, "
                       "or install ptxgen (`make install`)")

