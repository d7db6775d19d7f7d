"""Card parsing: names, types, sizes, signature (and agreement with the C parser)."""
import os
import unittest

from _util import LJ_CARD, REPO, SAXPY_CARD
from ptxgen.card import CardError, LibraryError, find_library, normalize_card, parse_card, ptx_identifier


class CardTests(unittest.TestCase):
    def test_saxpy(self):
        c = parse_card(SAXPY_CARD)
        self.assertEqual(c.kernel, "saxpy")
        self.assertEqual([(p.name, p.ptx_type, p.role) for p in c.params],
                         [("x", "u64", "in"), ("y", "u64", "inout"), ("a", "f32", "in"), ("n", "u32", "size")])
        self.assertEqual(c.param("x").size, "n")
        self.assertEqual(c.goal, "`y = a*x + y`")
        self.assertEqual(c.signature(), ".visible .entry saxpy(\n\t.param .u64 x,\n\t.param .u64 y,\n"
                                        "\t.param .f32 a,\n\t.param .u32 n\n)")

    def test_article_card_on_one_line(self):
        c = parse_card(LJ_CARD)
        self.assertEqual(c.kernel, "GPU_Kernel_LJ_Potential_Calculation")
        self.assertEqual(len(normalize_card(LJ_CARD).splitlines()), 5)
        names = [p.name for p in c.params]
        self.assertEqual(names, ["positions", "masses", "forces", "energies", "cutoff_sq", "N"])
        pos = c.param("positions")
        self.assertEqual((pos.ptx_type, pos.size, pos.numpy_dtype, pos.components), ("u64", "N", "float32", 3))
        self.assertEqual(c.param("forces").size, "N*3")
        self.assertEqual(c.param("forces").role, "out")
        self.assertEqual(c.param("cutoff_sq").default, "100.0")
        self.assertEqual(c.param("N").ptx_type, "u32")
        self.assertEqual(c.sizes, ["N"])

    def test_chinese_goal(self):
        c = parse_card("## 能量 energy\n- Input: `double* x` (n)\n- Output: `double* e` (n)\n"
                       "- Goal: 对每个原子 i 计算 Lennard-Jones 势能，截断半径 r_c\n")
        self.assertEqual(c.kernel, "energy")
        self.assertIn("Lennard-Jones 势能", c.goal)
        self.assertEqual([p.ptx_type for p in c.params], ["u64", "u64", "u32"])
        self.assertEqual(c.param("x").numpy_dtype, "float64")

    def test_scalar_types(self):
        c = parse_card("## k\n- Input: `int* idx` (m), `double s`, `unsigned count`, `int64_t big`, `size_t len`, "
                       "`half h`\n- Output: `float4* out` (rows x cols)\n")
        types = {p.name: p.ptx_type for p in c.params}
        self.assertEqual(types, {"idx": "u64", "out": "u64", "s": "f64", "count": "u32", "big": "s64", "len": "u64",
                                 "h": "b16", "m": "u32", "rows": "u32", "cols": "u32"})
        self.assertEqual(c.param("out").size, "rows*cols")
        self.assertEqual(c.param("out").components, 4)
        self.assertEqual(c.param("idx").numpy_dtype, "int32")
        self.assertEqual(c.param("h").numpy_dtype, "float16")

    def test_declared_size_not_repeated(self):
        c = parse_card("## k\n- Input: `float* a, b` (n), `int n`\n- Output: `float* c` (n)\n")
        self.assertEqual([(p.name, p.ptx_type) for p in c.params],
                         [("a", "u64"), ("b", "u64"), ("c", "u64"), ("n", "s32")])

    def test_not_a_card(self):
        with self.assertRaises(CardError):
            parse_card("add two vectors")
        with self.assertRaises(CardError):
            parse_card("## k\n- Goal: something\n")   # no typed pointer
        with self.assertRaises(CardError):
            ptx_identifier("能量")

    def test_the_c_parser_is_the_parser(self):
        """No parser of its own: with the library gone, parse_card cannot parse."""
        from ptxgen import card as card_mod
        saved, saved_lib = os.environ.get("PTXGEN_LIB"), card_mod._LIB
        try:
            os.environ["PTXGEN_LIB"] = os.path.join(REPO, "no-such-libptxgen.so")
            card_mod._LIB = None
            with self.assertRaises(LibraryError):
                parse_card(SAXPY_CARD)
        finally:
            card_mod._LIB = saved_lib
            if saved is None:
                os.environ.pop("PTXGEN_LIB", None)
            else:
                os.environ["PTXGEN_LIB"] = saved
        self.assertTrue(find_library().endswith("libptxgen.so"), find_library())

    def test_one_line_card_signature(self):
        """The card that was right in %%ptxgen and wrong in `ptxgen gen` (issue 33): one parser now."""
        one_line = ("## scale - Input: `float* x` (n), `float s` - Output: `float* y` (n) - Goal: y = s * x")
        c = parse_card(one_line)
        self.assertEqual(c.signature(), ".visible .entry scale(\n\t.param .u64 x,\n\t.param .u64 y,\n"
                                        "\t.param .f32 s,\n\t.param .u32 n\n)")
        self.assertEqual(c.text.splitlines()[1], "- Input: `float* x` (n), `float s`")


if __name__ == "__main__":
    unittest.main()
