"""test_failures.py — CPU tests of train/failures.py (the failure table of a two-stage evaluation):
the literate parser, the slip patterns, the first differing plan line, the harness's detail kinds and
the table from a small eval JSON (a stand-in `ptxgen` prints the target, so no nvcc is needed); with
PTXGEN_LIB, the constraint check of a target.

  python3 train/test_failures.py       # tests/train_tests.sh train/test_failures.py runs it
"""
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import failures as F  # noqa: E402

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 a,\n\t.param .u32 n\n)\n{\n" \
       "\t.reg .pred %p<3>;\n\t.reg .f32 %f<8>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [a];\n"
# a target (nvcc's literate PTX of a plan) and the model's version of it: the loop head's pragma became
# a popc of the loop counter, and the square of the loop body lost its mul
TARGET = HEAD + "\t// for (unsigned i = 0; i < n; i++) a[i] = a[i] * a[i];\n\tcvta.to.global.u64 %rd2, %rd1;\n" \
    "\tmov.u32 %r1, 0;\n$L__BB0_1:\n\t.pragma \"nounroll\";\n\tld.global.f32 %f1, [%rd2];\n\tmul.f32 %f2, %f1, %f1;\n" \
    "\tst.global.f32 [%rd2], %f2;\n\tadd.s32 %r1, %r1, 1;\n\tsetp.lt.u32 %p1, %r1, %r2;\n\t@%p1 bra $L__BB0_1;\n\tret;\n}\n"
MODEL = TARGET.replace("\t.pragma \"nounroll\";\n", "\tpopc.b32 %r1, %r1;\n").replace("\tmul.f32 %f2, %f1, %f1;\n", "")


def read(p):
    with open(p, encoding="utf-8") as f:
        return f.read()


class Parts(unittest.TestCase):
    def test_parse_and_opcode(self):
        st = F.parse_literate(TARGET)
        self.assertEqual(st[0], ("", "ld.param.u64 %rd1, [a];"))
        self.assertEqual([F.opcode(s) for _, s in st[2:5]], ["mov.u32", "label", ".pragma"])
        self.assertEqual(F.opcode("@%p1 bra $L__BB0_1;"), "bra")
        self.assertEqual(F.opcode("@!%p1 bra.uni $L;"), "bra.uni")
        self.assertTrue(all(line.startswith("for (unsigned i") for line, _ in st[1:]))

    def test_first_diff(self):
        d = F.first_diff(F.parse_literate(TARGET), F.parse_literate(MODEL))
        self.assertEqual(d, ("for (unsigned i = 0; i < n; i++) a[i] = a[i] * a[i];", ["mul.f32"], ["popc.b32"]))
        self.assertIsNone(F.first_diff(F.parse_literate(TARGET), F.parse_literate(TARGET)))
        # a parameter's cvta headed by another line is no difference (nvcc puts it where it is first needed)
        moved = TARGET.replace("\tcvta.to.global.u64 %rd2, %rd1;\n", "").replace("\tret;", "\t// return;\n\tcvta.to.global.u64 %rd2, %rd1;\n\tret;")
        d = F.first_diff(F.parse_literate(TARGET), F.parse_literate(moved))
        self.assertEqual(d, ("for (unsigned i = 0; i < n; i++) a[i] = a[i] * a[i];", ["ret"], []))

    def test_first_diff_literals(self):
        # same opcodes, another mask or an atomic adding a register instead of 1: the kernel does not follow its plan
        ref = HEAD + "\t// atomicAdd(&bins[x & 63], 1u);\n\tand.b64 %rd3, %rd2, 252;\n\tatom.global.add.u32 %r1, [%rd3], 1;\n\tret;\n}\n"
        line = "atomicAdd(&bins[x & 63], 1u);"
        self.assertIsNone(F.first_diff(F.parse_literate(ref), F.parse_literate(ref.replace("252", "0xFC"))))
        d = F.first_diff(F.parse_literate(ref), F.parse_literate(ref.replace("252", "255")))
        self.assertEqual(d, (line, ["and.b64#252"], ["and.b64#255"]))
        d = F.first_diff(F.parse_literate(ref), F.parse_literate(ref.replace("[%rd3], 1;", "[%rd1], %r2;")))
        self.assertEqual(d, (line, ["atom.global.add.u32#1"], ["atom.global.add.u32#"]))
        # an address offset inside [ ] is no literal operand
        self.assertEqual(F.literals("atom.shared.add.u32 %r6, [sh+255], 1;"), [1])

    def test_same_op(self):
        self.assertEqual(F.same_op("mul.lo.u32", "mul.lo.u32 %r2, %r1, 256;"), "shl.b32")
        self.assertEqual(F.same_op("mul.lo.s32", "mul.lo.s32 %r2, %r1, 12;"), "mul.lo.i32")
        self.assertEqual(F.same_op("mad.lo.u32", "mad.lo.u32 %r2, %r1, %r3, %r4;"), F.same_op("mad.lo.s32", "mad.lo.s32 %r2, %r1, %r3, %r4;"))
        self.assertEqual(F.same_op("setp.ge.u32", "setp.ge.u32 %p1, %r1, %r2;"), "setp.ge.u32")   # signedness matters there

    def test_slips(self):
        self.assertEqual(F.slips(MODEL, TARGET, ""), ["pragma-slot"])
        self.assertEqual(F.slips(TARGET, TARGET, ""), [])
        self.assertEqual(F.slips(MODEL, None, ""), ["pragma-slot"])   # no target: the pattern alone
        reg = TARGET.replace('\t.pragma "nounroll";\n', "\t.reg .b32 %rv<1>;\n")   # the other thing written there
        self.assertEqual(F.slips(reg, TARGET, ""), ["pragma-slot"])
        # a popc after a label is no slip when the target has no pragma there (a real popc loop)
        self.assertEqual(F.slips(MODEL, TARGET.replace('\t.pragma "nounroll";\n', ""), ""), [])
        expf_t = HEAD + "\tfma.rn.f32 %f2, %f1, 0f3BBB989D, 0f3F000000;\n\tcvt.sat.f32.f32 %f3, %f2;\n\tret;\n}\n"
        expf_m = expf_t.replace("cvt.sat.f32.f32", "cvt.f32.f32")
        self.assertEqual(F.slips(expf_m, expf_t, ""), ["expf-no-sat"])
        self.assertEqual(F.slips(expf_m, None, ""), ["expf-no-sat"])
        self.assertEqual(F.slips(expf_t, None, ""), [])
        sh = HEAD + "\t.shared .align 4 .b8 red_1[16];\n\tret;\n}\n"
        self.assertEqual(F.slips(sh, None, "__shared__ float red[4];"), ["shared-renamed"])
        self.assertEqual(F.slips(sh.replace("red_1", "red"), None, "__shared__ float red[4];"), [])

    def test_runtime_kind(self):
        k = F.runtime_kind
        self.assertEqual(k("kernel execution: CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access"), "illegal-address")
        self.assertEqual(k("kernel execution: CUDA_ERROR_MISALIGNED_ADDRESS (716): misaligned address"), "misaligned")
        self.assertEqual(k("size n=1: out-of-bounds write past the end of buffer 'y' (byte 0 of the guard zone)"), "oob-write")
        self.assertEqual(k("seed 1: input buffer 'g' was modified"), "input-modified")
        self.assertEqual(k("did not run or write: every output is exactly as uploaded (poison)"), "no-write")
        self.assertEqual(k("output 'y': rel L2 0.27 (tol 1e-05), max abs 0.145, 0 NaNs, first bad element 0"), "values")
        self.assertEqual(k("output 'y': rel L2 nan (tol 1e-05), max abs nan, 12 NaNs"), "nan")
        self.assertEqual(k("killed by the watchdog after 60 s (a hang or an endless loop)"), "watchdog")


class Table(unittest.TestCase):
    def test_report(self):
        with tempfile.TemporaryDirectory() as d:
            suite, kern = os.path.join(d, "suite"), os.path.join(d, "trans")
            os.makedirs(os.path.join(suite, "k"))
            os.makedirs(kern)
            open(os.path.join(suite, "k", "reference.cu"), "w").write("__global__ void k(float* a, unsigned n) {}\n")
            open(os.path.join(d, "target.ptx"), "w").write(TARGET)
            fake = os.path.join(d, "ptxgen")   # stands in for `ptxgen synth --literate-of PLAN`: prints the target
            open(fake, "w").write(f"#!/bin/sh\ncat '{os.path.join(d, 'target.ptx')}'\n")
            os.chmod(fake, 0o755)
            rows = []
            for i, (stage, detail, tok, ptx) in enumerate([("fault", "CUDA_ERROR_ILLEGAL_ADDRESS", 900, MODEL),
                                                           ("wrong", "rel L2 1 (tol 0)", 6100, TARGET),
                                                           ("wrong", "rel L2 1 (tol 0)", 5000, TARGET),
                                                           ("wrong", "rel L2 1 (tol 0)", 900, TARGET),
                                                           ("validator", "unexpected end", 700, TARGET),
                                                           ("correct", "", 800, TARGET)]):
                key = f"k.s{i}.no_bias.0"
                open(os.path.join(kern, key + ".ptx"), "w").write(ptx)
                meta = {"gen_tokens": tok}
                if stage == "validator":
                    meta["finished"] = False   # the batch's deadline closed it: a cut, not a syntax slip
                json.dump(meta, open(os.path.join(kern, key + ".json"), "w"))
                rows.append(dict(task="k", dir="k", description=f"s{i}", config="no_bias", sample=0, family="expr", last_stage=stage,
                                 correct=stage == "correct", detail=detail, tokens=tok))
            rows.append(dict(task="k", dir="k", description="s9", config="no_bias", sample=0, family="expr", last_stage="generation",
                             correct="not run", detail="no kernel", tokens=0))
            ev = os.path.join(d, "eval.json")
            json.dump({"rows": rows}, open(ev, "w"))
            out_j, out_m = os.path.join(d, "f.json"), os.path.join(d, "f.md")
            F.main(["--eval", ev, "--kernels", kern, "--suite", suite, "--ptxgen", fake, "--json", out_j, "--markdown", out_m])
            got = json.loads(read(out_j))
            # 6100 tokens is past the default limit (6144, generate2.py's) less 128: cut; 5000 is a finished kernel
            self.assertEqual([(r["style"], r["cause"]) for r in got],
                             [("s0", "pragma-slot"), ("s1", "cut"), ("s2", "unexplained"), ("s3", "unexplained"), ("s4", "cut")])
            self.assertEqual(got[0]["first_diff"]["missing"], ["mul.f32"])
            self.assertEqual(got[0]["runtime"], "illegal-address")
            md = read(out_m)
            self.assertIn("5 failed kernels of 6 verified rows (1 correct).", md)
            self.assertIn("| expr | 2 | 1 | 2 | 5 |", md)   # cut (tokens, deadline), pragma-slot, unexplained

    def test_plan_eval(self):
        """--plan-eval: a failed kernel whose plan ran wrong is plan-wrong though its PTX deviates; one whose
        plan passed is ptx-deviates, also with the target's opcodes line for line (its operands differ); the
        rows are counted by their plan's verdict."""
        with tempfile.TemporaryDirectory() as d:
            suite, kern, plans = (os.path.join(d, x) for x in ("suite", "e2e", "plan"))
            os.makedirs(os.path.join(suite, "k"))
            os.makedirs(kern)
            os.makedirs(plans)
            open(os.path.join(d, "target.ptx"), "w").write(TARGET)
            fake = os.path.join(d, "ptxgen")
            open(fake, "w").write(f"#!/bin/sh\ncat '{os.path.join(d, 'target.ptx')}'\n")
            os.chmod(fake, 0o755)
            deviates = TARGET.replace("\tmul.f32 %f2, %f1, %f1;\n", "")
            e2e, prow = [], []
            # (style, e2e verdict, PTX written, the plan stage's verdict: None = no row for it)
            # same opcodes as the target, another register: st.global stores the loaded value, not its square
            operands = TARGET.replace("\tst.global.f32 [%rd2], %f2;\n", "\tst.global.f32 [%rd2], %f1;\n")
            for st, stage, ptx, pstage in [("s0", "wrong", deviates, "wrong"), ("s1", "wrong", deviates, "correct"),
                                           ("s2", "correct", TARGET, "correct"), ("s3", "wrong", deviates, None),
                                           ("s4", "fault", deviates, "generation"), ("s5", "wrong", operands, "correct"),
                                           ("s6", "wrong", operands, None)]:
                key = f"k.{st}.no_bias.0"
                open(os.path.join(kern, key + ".ptx"), "w").write(ptx)
                json.dump({"gen_tokens": 500}, open(os.path.join(kern, key + ".json"), "w"))
                open(os.path.join(plans, key + ".cu"), "w").write("__global__ void k(float* a, unsigned n) {}\n")
                open(os.path.join(plans, key + ".ptx"), "w").write(".visible .entry k()\n{\n\tret;\n}\n")
                base = dict(task="k", dir="k", description=st, config="no_bias", sample=0, family="expr", tokens=500)
                e2e.append(dict(base, last_stage=stage, correct=stage == "correct", detail="rel L2 1 (tol 0)"))
                if pstage:
                    prow.append(dict(base, last_stage=pstage, correct=pstage == "correct", detail=""))
            ev, pe = os.path.join(d, "e2e.json"), os.path.join(d, "plan.json")
            json.dump({"rows": e2e}, open(ev, "w"))
            json.dump({"rows": prow}, open(pe, "w"))
            out_j, out_m = os.path.join(d, "f.json"), os.path.join(d, "f.md")
            F.main(["--eval", ev, "--kernels", kern, "--suite", suite, "--plans", plans, "--plan-eval", pe, "--ptxgen", fake,
                    "--json", out_j, "--markdown", out_m])
            got = json.loads(read(out_j))
            self.assertEqual([(r["style"], r["plan_run"], r["cause"]) for r in got],
                             [("s0", "wrong", "plan-wrong"), ("s1", "correct", "ptx-deviates"), ("s3", "unverified", "ptx-deviates"),
                              ("s4", "unverified", "ptx-deviates"), ("s5", "correct", "ptx-deviates"), ("s6", "unverified", "plan-wrong")])
            # a plan the harness passed is never plan-wrong: nvcc's opcodes with other operands are the PTX turn's
            self.assertIsNone(got[4]["first_diff"])
            md = read(out_m)
            self.assertIn("plan correct: 1 of 3 kernels correct; plan wrong: 0 of 1 kernels correct; "
                          "plan unverified: 0 of 3 kernels correct. Translation of the model's plans that passed: 33%.", md)
            self.assertEqual([n for n in os.listdir(d) if ".tmp." in n], [])   # written whole, no temp file left
            with self.assertRaises(SystemExit):   # --plan-eval reads end-to-end reports only
                F.main(["--eval", ev, "--kernels", kern, "--suite", suite, "--plan-eval", pe])

    @unittest.skipUnless(os.environ.get("PTXGEN_LIB") and os.path.exists(os.environ.get("PTXGEN_LIB", "")), "PTXGEN_LIB not set")
    def test_constraint(self):
        try:
            con = F.Constraint(os.environ["PTXGEN_LIB"])
        except ImportError as e:
            self.skipTest(f"generate.py does not import here: {e}")
        tj = os.path.join(ROOT, "bench", "suite", "softmax_row_b128", "task.json")
        gold = os.path.join(ROOT, "tests", "golden", "decode", "literate", "softmax_row_b128")
        ptx, plan = read(gold + ".ptx"), read(os.path.join(ROOT, "bench", "suite", "softmax_row_b128", "reference.cu"))
        # the target has .pragma "nounroll", expf's cvt.sat.f32.f32 and a shared array `red` (FAILURES.md)
        self.assertIsNone(con.refused(tj, ptx, plan))
        self.assertEqual(con.refused(tj, ptx.replace("cvt.sat.f32.f32", "cvt.sat.f32.f64", 1), plan).split(" ")[0], "cvt.sat.f32.f64")


if __name__ == "__main__":
    res = unittest.main(exit=False, verbosity=1).result
    bad = len(res.failures) + len(res.errors)
    skipped = len(res.skipped)
    print(f"failures: {res.testsRun - bad - skipped} passed, {bad} failed, {skipped} skipped")
    sys.exit(1 if bad else 0)
