#!/usr/bin/env python3
"""make_gguf.py — small GGUF files and golden data for src/model/test_gguf.c.

    python3 tests/model/make_gguf.py            # writes tests/model/gguf/*.gguf (deterministic)
    python3 tests/model/make_gguf.py --real qwen=QWEN.gguf smol=SMOL.gguf
                                                # writes tests/model/gguf/real_rows.json

types.gguf (GGUFWriter, version 3, alignment 32):
  metadata: one key of every value type and arrays of each element kind; the
    values are listed in KV below and repeated in test_gguf.c (test_metadata).
  tensors: for every type T the C reader dequantizes, "q.T" holds random
    blocks (3 rows x 512 elements; the f16 scales are random finite values,
    subnormals and zeros included) and "expect.T" (F32, same shape) is
    gguf.quants.dequantize of those bytes: the golden the C dequantizer must
    match bit for bit.  F32/F16/BF16 data include +-0, infinities, quiet NaNs
    and subnormals.  Plus "odd.3d" (F32 [2][3][32]) for a 3-D shape.
align64.gguf: two F32 tensors with general.alignment = 64.
small.gguf: a few keys (a string array among them) and four tiny tensors of
  different types (F16, Q4_0, Q5_1, Q6_K): the fuzz target's small seed.

real_rows.json: for each real model file (its size and tensor count), every
tensor's first and last row dequantized by gguf-py, as an FNV-1a 64 hash of
the f32 bytes plus the first 4 values (null when not finite); test_gguf.c
compares its own dequantization when the files are present.
"""
import json, os, sys
import numpy as np
import gguf
from gguf import GGMLQuantizationType as Q

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gguf")
QUANTS = ["Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"]
# byte offsets of the f16 scale fields inside one block
F16_FIELDS = {"Q4_0": [0], "Q4_1": [0, 2], "Q5_0": [0], "Q5_1": [0, 2], "Q8_0": [0], "Q2_K": [80, 82],
              "Q3_K": [108], "Q4_K": [0, 2], "Q5_K": [0, 2], "Q6_K": [208]}
ROWS, COLS = 3, 512

KV = [  # (key, writer method, value) — test_gguf.c checks these
    ("t.u8", "add_uint8", 200), ("t.i8", "add_int8", -100), ("t.u16", "add_uint16", 60000),
    ("t.i16", "add_int16", -30000), ("t.u32", "add_uint32", 4000000000), ("t.i32", "add_int32", -2000000000),
    ("t.f32", "add_float32", 0.25), ("t.bool", "add_bool", True), ("t.str", "add_string", "héllo, 世界"),
    ("t.u64", "add_uint64", 2**63 + 5), ("t.i64", "add_int64", -(2**62)), ("t.f64", "add_float64", -1.5e300),
]


def random_f16(rng, n):
    """Finite f16 values: normal, subnormal, zero, both signs."""
    bits = rng.integers(0, 0x7C00, size=n, dtype=np.uint16)          # exponent < 31: finite
    bits[::7] = rng.integers(0, 0x400, size=len(bits[::7]), dtype=np.uint16)   # subnormals
    bits[::11] = 0
    bits |= (rng.integers(0, 2, size=n, dtype=np.uint16) << 15)
    # keep most scales moderate so products stay finite and interesting
    exps = (bits >> 10) & 0x1F
    bits = np.where(exps > 20, (bits & 0x83FF) | (np.uint16(14) << 10), bits).astype(np.uint16)
    return bits


def quant_bytes(rng, name, rows=ROWS, cols=COLS):
    qt = Q[name]
    block, size = gguf.GGML_QUANT_SIZES[qt]
    nblocks = rows * cols // block
    raw = rng.integers(0, 256, size=(nblocks, size), dtype=np.uint8)
    for off in F16_FIELDS[name]:
        raw[:, off:off + 2] = random_f16(rng, nblocks).view(np.uint8).reshape(nblocks, 2)
    return raw.reshape(rows, cols // block * size)


def special_f32(rng):
    v = rng.standard_normal(ROWS * COLS).astype(np.float32)
    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -3e-39, 65504, 1e-8], dtype=np.float32)
    v[:len(sp)] = sp
    return v.reshape(ROWS, COLS)


def write_types(path):
    rng = np.random.default_rng(1234)
    w = gguf.GGUFWriter(path, "ptxgen-test")
    for key, meth, val in KV:
        getattr(w, meth)(key, val)
    w.add_key_value("t.empty", "", gguf.GGUFValueType.STRING)   # add_string drops empty strings
    w.add_array("t.arr_i32", [1, -2, 3, 2**31 - 1])
    w.add_array("t.arr_f32", [0.5, -2.0])
    w.add_array("t.arr_str", ["a", "", "ld.global.f32", "\u00e9\u4e2d"])
    w.add_key_value("t.arr_u8", [0, 255, 7], gguf.GGUFValueType.ARRAY, sub_type=gguf.GGUFValueType.UINT8)
    w.add_key_value("t.arr_bool", [True, False], gguf.GGUFValueType.ARRAY, sub_type=gguf.GGUFValueType.BOOL)

    f = special_f32(rng)
    w.add_tensor("q.F32", f)
    w.add_tensor("expect.F32", f)
    h = special_f32(rng)
    h[0, :5] = np.array([65504, -65504, 6e-8, np.inf, -0.0], dtype=np.float32)
    h16 = h.astype(np.float16)
    w.add_tensor("q.F16", h16)
    w.add_tensor("expect.F16", gguf.quants.dequantize(h16.view(np.uint8), Q.F16).reshape(ROWS, COLS))
    b = special_f32(rng)
    bq = gguf.quants.quantize(b, Q.BF16)
    w.add_tensor("q.BF16", bq, raw_dtype=Q.BF16)
    w.add_tensor("expect.BF16", gguf.quants.dequantize(bq, Q.BF16))
    for name in QUANTS:
        raw = quant_bytes(rng, name)
        w.add_tensor("q." + name, raw, raw_dtype=Q[name])
        w.add_tensor("expect." + name, gguf.quants.dequantize(raw, Q[name]).astype(np.float32))
    w.add_tensor("odd.3d", np.arange(2 * 3 * 32, dtype=np.float32).reshape(2, 3, 32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def write_align64(path):
    w = gguf.GGUFWriter(path, "ptxgen-test")
    w.add_custom_alignment(64)
    w.add_tensor("a", np.arange(3, dtype=np.float32))
    w.add_tensor("b", np.arange(40, dtype=np.float32).reshape(5, 8))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def write_small(path):
    rng = np.random.default_rng(7)
    w = gguf.GGUFWriter(path, "ptxgen-test")
    w.add_uint32("s.n", 3)
    w.add_float32("s.eps", 1e-6)
    w.add_array("s.toks", ["<|im_start|>", "ld", ".global", "\u0120%"])
    w.add_array("s.types", [3, 1, 1, 1])
    w.add_tensor("h", rng.standard_normal((2, 8)).astype(np.float16))
    for name, cols in (("Q4_0", 32), ("Q5_1", 64), ("Q6_K", 256)):
        w.add_tensor("q." + name, quant_bytes(rng, name, 1, cols), raw_dtype=Q[name])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def fnv64(b):
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def row_info(t, r):
    data = np.asarray(t.data)
    rows = data.reshape(-1, data.shape[-1])
    f = gguf.quants.dequantize(np.ascontiguousarray(rows[r:r + 1]), t.tensor_type).astype(np.float32).ravel()
    head = [float(x) if np.isfinite(x) else None for x in f[:4]]
    return {"row": r, "fnv": "%016x" % fnv64(f.tobytes()), "head": head}


def write_real(args):
    out = {}
    for arg in args:
        key, p = arg.split("=", 1)
        rd = gguf.GGUFReader(p)
        ts = {}
        for t in rd.tensors:
            nrows = int(np.prod(t.shape[1:])) if len(t.shape) > 1 else 1
            ts[t.name] = {"type": t.tensor_type.name, "ne": [int(x) for x in t.shape],
                          "rows": [row_info(t, 0), row_info(t, nrows - 1)]}
        out[key] = {"size": os.path.getsize(p), "tensors": len(rd.tensors), "by_name": ts}
    with open(os.path.join(HERE, "real_rows.json"), "w") as fo:
        json.dump(out, fo, indent=None, separators=(",", ":"))
        fo.write("\n")


def main():
    os.makedirs(HERE, exist_ok=True)
    if len(sys.argv) > 1 and sys.argv[1] == "--real":
        write_real(sys.argv[2:])
        return
    write_types(os.path.join(HERE, "types.gguf"))
    write_align64(os.path.join(HERE, "align64.gguf"))
    write_small(os.path.join(HERE, "small.gguf"))


if __name__ == "__main__":
    main()
