"""Markdown kernel cards -> kernel name and PTX signature, by the C parser.

A card, as a Jupyter user writes it::

    ## lj_energy
    - Input: `float3* positions` (N atoms), `float cutoff_sq = 100.0f`
    - Output: `float* energies` (N)
    - Goal: for each atom i, sum the Lennard-Jones energy over atoms j within the cutoff
    - Constraint: cache a tile of positions in shared memory
    - Launch: 256 threads per block, `cdiv(N,256)` blocks

There is one card parser, ``gen_card_parse`` in src/decode/card.c: ``ptxgen gen``
uses it, and this module calls it through libptxgen.so (``gen_card_json``, ctypes),
so the signature the glue code passes is the one ``ptxgen gen`` forced.  What is
added here is only the NumPy side of the glue (dtypes and components per element).
Which library: lib.py (``find_library``).
"""
import ctypes
import json
from dataclasses import dataclass, field
from typing import List, Optional

from .lib import LibraryError, _PgBuf, find_library

__all__ = ["Card", "Param", "CardError", "LibraryError", "parse_card", "normalize_card", "ptx_identifier", "find_library"]


class CardError(ValueError):
    """The text is not a usable kernel card (the message says why)."""


_LIB = None


def _lib():
    global _LIB
    if _LIB is None:
        path = find_library()
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            raise LibraryError(f"cannot load {path}: {e}") from e
        if not hasattr(lib, "gen_card_json"):
            raise LibraryError(f"{path} has no gen_card_json (an older build: run `make`)")
        lib.gen_card_json.argtypes = [ctypes.c_char_p, ctypes.POINTER(_PgBuf)]
        lib.gen_card_json.restype = ctypes.c_bool
        lib.pg_buf_free.argtypes = [ctypes.POINTER(_PgBuf)]
        lib.gen_card_kernel_name.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.gen_card_kernel_name.restype = ctypes.c_bool
        _LIB = lib
    return _LIB


def _parse_c(text: str) -> dict:
    lib = _lib()
    buf = _PgBuf()
    try:
        if not lib.gen_card_json(text.encode("utf-8"), ctypes.byref(buf)):
            raise MemoryError("gen_card_json: out of memory")
        return json.loads(ctypes.string_at(buf.data, buf.len).decode("utf-8"))
    finally:
        lib.pg_buf_free(ctypes.byref(buf))


# C type -> (NumPy dtype name, components per element) for buffers and scalars.
NUMPY_TYPES = {
    "float": ("float32", 1), "float2": ("float32", 2), "float3": ("float32", 3), "float4": ("float32", 4),
    "double": ("float64", 1), "double2": ("float64", 2), "f32": ("float32", 1), "f64": ("float64", 1),
    "half": ("float16", 1), "__half": ("float16", 1), "f16": ("float16", 1),
    "half2": ("float16", 2), "__half2": ("float16", 2),
    "bfloat16": ("uint16", 1), "__nv_bfloat16": ("uint16", 1), "bf16": ("uint16", 1),   # NumPy has no bf16: raw bits
    "int": ("int32", 1), "int32_t": ("int32", 1), "s32": ("int32", 1), "i32": ("int32", 1),
    "unsigned": ("uint32", 1), "unsigned int": ("uint32", 1), "uint32_t": ("uint32", 1), "u32": ("uint32", 1),
    "long": ("int64", 1), "long long": ("int64", 1), "int64_t": ("int64", 1), "s64": ("int64", 1), "i64": ("int64", 1),
    "unsigned long": ("uint64", 1), "unsigned long long": ("uint64", 1), "uint64_t": ("uint64", 1),
    "size_t": ("uint64", 1), "u64": ("uint64", 1),
    "short": ("int16", 1), "int16_t": ("int16", 1), "unsigned short": ("uint16", 1), "uint16_t": ("uint16", 1),
    "char": ("int8", 1), "int8_t": ("int8", 1), "unsigned char": ("uint8", 1), "uint8_t": ("uint8", 1),
    "u8": ("uint8", 1), "bool": ("uint8", 1),
}

# PTX scalar parameter type -> the CuPy/NumPy scalar constructor used in the glue.
PTX_TO_NUMPY = {
    "f32": "float32", "f64": "float64", "s32": "int32", "u32": "uint32", "s64": "int64", "u64": "uint64",
    "s16": "int16", "u16": "uint16", "s8": "int8", "u8": "uint8", "b16": "float16", "b32": "uint32",
}


@dataclass
class Param:
    """One kernel parameter, in signature order."""
    name: str
    ptx_type: str                  # "u64" for pointers, else the scalar type ("f32", "s32", ...)
    pointer: bool
    ctype: str = ""                # the C type as written ("float3"); "" for implicit size symbols
    role: str = "in"               # in / out / inout (pointers); "size" for implicit size symbols
    size: Optional[str] = None     # pointers: element count expression over the size symbols ("N", "N*3")
    default: Optional[str] = None  # scalars: "= 100.0f" in the card -> "100.0"

    @property
    def numpy_dtype(self) -> str:
        if self.pointer:
            return NUMPY_TYPES.get(self.ctype, ("float32", 1))[0]
        return PTX_TO_NUMPY.get(self.ptx_type, "float32")

    @property
    def components(self) -> int:
        """Scalars per element: 3 for float3."""
        return NUMPY_TYPES.get(self.ctype, ("float32", 1))[1] if self.pointer else 1


@dataclass
class Card:
    name: str                      # the "## ..." heading as written
    kernel: str                    # a PTX identifier made from it
    inputs: str = ""
    outputs: str = ""
    inouts: str = ""
    goal: str = ""
    constraints: str = ""
    launch: str = ""
    params: List[Param] = field(default_factory=list)
    sizes: List[str] = field(default_factory=list)   # size symbols ("N"), in order of appearance
    text: str = ""                 # the normalized card (one "- Key:" per line)

    def signature(self) -> str:
        """The forced entry header, as the C side prints it."""
        lines = [f"\t.param .{p.ptx_type} {p.name}" for p in self.params]
        return f".visible .entry {self.kernel}(\n" + ",\n".join(lines) + "\n)"

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


def normalize_card(text: str) -> str:
    """One "- Key: value" per line (the C parser's normalization: cards pasted from
    prose often arrive on one line, "## k - Input: ... - Output: ...")."""
    return _parse_c(text)["text"]


def ptx_identifier(name: str) -> str:
    """"GPU Kernel: LJ energy" -> "GPU_Kernel_LJ_energy" (gen_card_kernel_name)."""
    out = ctypes.create_string_buffer(64)
    if not _lib().gen_card_kernel_name(name.encode("utf-8"), out, 64):
        raise CardError(f"card name '{name}' gives no PTX identifier")
    return out.value.decode()


def parse_card(text: str) -> Card:
    """Parse a card with the C parser; raises CardError when it is not one or gives no
    signature, LibraryError when libptxgen.so cannot be loaded."""
    d = _parse_c(text)
    if not d["ok"]:
        raise CardError(d["error"] or "not a kernel card")
    f = d["fields"]
    card = Card(name=d["name"], kernel=d["kernel"], inputs=f["inputs"], outputs=f["outputs"], inouts=f["inouts"],
                goal=f["goal"], constraints=f["constraints"], launch=f["launch"], sizes=list(d["sizes"]), text=d["text"])
    card.params = [Param(name=p["name"], ptx_type=p["ptx_type"], pointer=p["pointer"], ctype=p["ctype"], role=p["role"],
                         size=p["size"], default=p["default"]) for p in d["params"]]
    if card.signature() != d["signature"]:   # Card.signature() prints what the C side forced
        raise LibraryError(f"the signature of {card.kernel} differs between C and Python: a stale libptxgen.so?")
    return card
