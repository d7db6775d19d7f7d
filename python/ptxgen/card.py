"""Markdown kernel cards -> kernel name and PTX signature.

A card, as a Jupyter user writes it::

    ## lj_energy
    - Input: `float3* positions` (N atoms), `float cutoff_sq = 100.0f`
    - Output: `float* energies` (N)
    - Goal: for each atom i, sum the Lennard-Jones energy over atoms j within the cutoff
    - Constraint: cache a tile of positions in shared memory
    - Launch: 256 threads per block, `cdiv(N,256)` blocks

This module mirrors the C implementation (``gen_card_parse`` and
``gen_signature_from_card`` in src/decode/prompt.c) so the signature the glue
code passes is the one ``ptxgen gen`` forced: pointers in order of appearance
(Input, In/out, Output), then typed scalars, then size symbols found in
parentheses ("(N atoms)" -> N) that were not declared, as .u32.
Pointers are .u64; float -> .f32, double -> .f64, int -> .s32,
unsigned -> .u32, size_t/long/int64 -> .u64/.s64, half -> .b16.
"""
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional

__all__ = ["Card", "Param", "CardError", "parse_card", "normalize_card", "ptx_identifier"]


class CardError(ValueError):
    """The text is not a usable kernel card (the message says why)."""


# C type words -> PTX scalar parameter type (same table and order as prompt.c:
# longer spellings first so "unsigned int" wins over "unsigned").
CTYPES = [
    ("unsigned long long", "u64"), ("unsigned long", "u64"), ("long long", "s64"), ("unsigned char", "u8"),
    ("unsigned short", "u16"), ("unsigned int", "u32"), ("unsigned", "u32"),
    ("uint64_t", "u64"), ("int64_t", "s64"), ("size_t", "u64"), ("uint32_t", "u32"), ("int32_t", "s32"),
    ("uint16_t", "u16"), ("int16_t", "s16"), ("uint8_t", "u8"), ("int8_t", "s8"),
    ("long", "s64"), ("short", "s16"), ("char", "s8"), ("int", "s32"), ("bool", "u8"),
    ("double2", "f64"), ("double", "f64"), ("float4", "f32"), ("float3", "f32"), ("float2", "f32"), ("float", "f32"),
    ("__half2", "b32"), ("__half", "b16"), ("half2", "b32"), ("half", "b16"), ("__nv_bfloat16", "b16"),
    ("bfloat16", "b16"), ("bf16", "b16"), ("f64", "f64"), ("f32", "f32"), ("f16", "b16"),
    ("u64", "u64"), ("s64", "s64"), ("u32", "u32"), ("s32", "s32"), ("u8", "u8"), ("i32", "s32"), ("i64", "s64"),
]

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

KEYS = {
    "input": "inputs", "inputs": "inputs", "in/out": "inouts", "inout": "inouts", "output": "outputs",
    "outputs": "outputs", "goal": "goal", "constraint": "constraints", "constraints": "constraints",
    "launch": "launch", "notes": "constraints", "technique": "constraints",
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


_INLINE_KEY = re.compile(r"\s+[-*]\s+(?=(?:" + "|".join(re.escape(k) for k in sorted(KEYS, key=len, reverse=True)) +
                         r")\s*:)", re.IGNORECASE)


def normalize_card(text: str) -> str:
    """One "- Key: value" per line.  Cards pasted from prose often arrive on one
    line ("## k - Input: ... - Output: ..."); the C parser reads lines."""
    out = []
    for line in text.splitlines():
        out.extend(_INLINE_KEY.sub("\n- ", line).split("\n"))
    return "\n".join(l.rstrip() for l in out).strip() + "\n"


def ptx_identifier(name: str) -> str:
    """"GPU Kernel: LJ energy" -> "GPU_Kernel_LJ_energy" (as prompt.c does)."""
    out = []
    for ch in name:
        if ch.isascii() and (ch.isalnum() or ch == "_"):
            out.append(ch)
        elif out and out[-1] != "_":
            out.append("_")
    s = "".join(out).rstrip("_")
    if not s or not (s[0].isalpha() or s[0] == "_"):
        raise CardError(f"card name '{name}' gives no PTX identifier")
    return s


def _ident_start(c: str) -> bool:
    return c.isascii() and (c.isalpha() or c == "_")


def _ident_char(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c == "_")


def _match_ctype(s: str, i: int):
    for c, ptx in CTYPES:
        if s.startswith(c, i) and not (i + len(c) < len(s) and _ident_char(s[i + len(c)])):
            return c, ptx
    return None, None


def _size_symbols(inner: str) -> List[str]:
    """Identifiers that name sizes in "(...)": the first word, and words joined
    to another by an operator ("rows*cols", "M x K").  Same rule as prompt.c."""
    inner = inner.split(",", 1)[0]
    out: List[str] = []
    first, after_op, i = True, False, 0
    while i < len(inner):
        c = inner[i]
        if _ident_start(c):
            j = i
            while j < len(inner) and _ident_char(inner[j]):
                j += 1
            word = inner[i:j]
            is_x = word == "x"
            r = j
            while r < len(inner) and inner[r] == " ":
                r += 1
            before_op = r < len(inner) and inner[r] in "*+-/x" and not (
                inner[r] == "x" and r + 1 < len(inner) and _ident_char(inner[r + 1]))
            if not is_x and (first or after_op or before_op) and word not in out:
                out.append(word)
            after_op, first, i = is_x, False, j
        else:
            if c in "*+-/":
                after_op = True
            elif not c.isspace():
                after_op = first = False
            i += 1
    return out


def _size_expr(inner: str, symbols: List[str]) -> str:
    """"N atoms" -> "N", "N*3" -> "N*3", "M x K" -> "M*K": the size symbols,
    numbers and operators of the parenthesised text."""
    inner = inner.split(",", 1)[0]
    toks = re.findall(r"[A-Za-z_]\w*|\d+|[*+\-/()]", inner)
    keep = []
    for t in toks:
        if t in symbols or t.isdigit() or t in "+-/*()":
            keep.append(t)
        elif t == "x":
            keep.append("*")
        else:
            break   # "(N atoms)": prose ends the expression
    while keep and keep[-1] in "+-/*(":
        keep.pop()
    while keep and keep[0] in "+-/*)":
        keep.pop(0)
    expr = "".join(keep)
    return expr if expr.count("(") == expr.count(")") else (symbols[0] if symbols else "")


def _scan_field(text: str, role: str, ptrs: List[Param], scalars: List[Param], sizes: List[str]) -> None:
    if not text:
        return
    known = {p.name for p in ptrs} | {p.name for p in scalars}
    p = 0
    while p < len(text):
        ctype, ptx = (None, None)
        if p == 0 or not _ident_char(text[p - 1]):
            ctype, ptx = _match_ctype(text, p)
        if not ctype:
            p += 1
            continue
        q = p + len(ctype)
        while q < len(text) and text[q] == " ":
            q += 1
        ptr = False
        while q < len(text) and text[q] == "*":
            ptr, q = True, q + 1
        new: List[Param] = []
        while True:
            while q < len(text) and text[q] == " ":
                q += 1
            if q >= len(text) or not _ident_start(text[q]):
                break
            a = q
            while q < len(text) and _ident_char(text[q]):
                q += 1
            name = text[a:q][:63]
            prm = Param(name=name, ptx_type="u64" if ptr else ptx, pointer=ptr, ctype=ctype, role=role)
            m = re.match(r"\s*=\s*([-+0-9.eE]+)[fF]?", text[q:])
            if m and not ptr:
                prm.default = m.group(1)
            if name not in known:
                known.add(name)
                (ptrs if ptr else scalars).append(prm)
                new.append(prm)
            r = q
            while r < len(text) and text[r] == " ":
                r += 1
            if r < len(text) and text[r] == "," and r + 1 < len(text) and (text[r + 1] == " " or _ident_start(text[r + 1])):
                t = r + 1
                while t < len(text) and text[t] == " ":
                    t += 1
                if _match_ctype(text, t)[0]:
                    break          # "float* x, int n": a new typed item
                q = r + 1
                continue
            break
        r = q
        while r < len(text) and text[r] in "` ":
            r += 1
        if r < len(text) and text[r] == "(":
            close = text.find(")", r)
            if close > 0:
                syms = _size_symbols(text[r + 1:close])
                for s in syms:
                    if s not in sizes:
                        sizes.append(s)
                expr = _size_expr(text[r + 1:close], syms)
                for prm in new:
                    if prm.pointer:
                        prm.size = expr or None
        p = q if q > p else p + 1


def parse_card(text: str) -> Card:
    """Parse a card; raises CardError when it is not one or gives no signature."""
    norm = normalize_card(text)
    fields: Dict[str, List[str]] = {}
    name = None
    for raw in norm.splitlines():
        s = raw.strip()
        if s.startswith("## ") and name is None:
            name = s[3:].strip()
        elif len(s) > 2 and s[0] in "-*" and s[1] == " " and ":" in s:
            key, _, val = s[2:].partition(":")
            f = KEYS.get(key.strip().lower()) if key == key.rstrip() else None
            if f:
                fields.setdefault(f, []).append(val.strip())
    if not name or not fields:
        raise CardError("not a kernel card (needs a '## name' line and '- Input:'-style lines)")
    card = Card(name=name, kernel=ptx_identifier(name), text=norm,
                **{k: "; ".join(v) for k, v in fields.items()})
    ptrs: List[Param] = []
    scalars: List[Param] = []
    _scan_field(card.inputs, "in", ptrs, scalars, card.sizes)
    _scan_field(card.inouts, "inout", ptrs, scalars, card.sizes)
    _scan_field(card.outputs, "out", ptrs, scalars, card.sizes)
    if not ptrs:
        raise CardError("no typed pointer parameter ('float* x (n)') in the card's Input/Output lines")
    declared = {p.name for p in ptrs} | {p.name for p in scalars}
    implicit = [Param(name=s, ptx_type="u32", pointer=False, ctype="", role="size") for s in card.sizes if s not in declared]
    card.params = ptrs + scalars + implicit
    for p in card.params:
        if p.pointer and not p.size:
            p.size = card.sizes[0] if card.sizes else None
    return card
