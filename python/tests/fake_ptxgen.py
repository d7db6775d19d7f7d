#!/usr/bin/env python3
"""A stand-in for `ptxgen gen DESCRIPTION -o OUT --json` in the Python tests:
writes a fixed, valid saxpy-shaped PTX module (renamed to the card's kernel)
and prints the JSON object of the CLI contract.  FAKE_PTXGEN_MODE=usage
makes it fail like a usage error (exit 2); FAKE_PTXGEN_LOG=FILE records argv."""
import json
import os
import re
import sys

PTX = """//
// GENERATED_BY: ptxgen fake-model
.version 8.0
.target sm_80
.address_size 64

.visible .entry KERNEL(
\t.param .u64 x,
\t.param .u64 y,
\t.param .f32 a,
\t.param .u32 n
)
{
\t.reg .pred %p<2>;
\t.reg .b32 %r<5>;
\t.reg .f32 %f<5>;
\t.reg .b64 %rd<8>;

\tld.param.u64 %rd1, [x];
\tld.param.u64 %rd2, [y];
\tld.param.f32 %f1, [a];
\tld.param.u32 %r2, [n];
\tmov.u32 %r3, %ctaid.x;
\tmov.u32 %r4, %ntid.x;
\tmov.u32 %r1, %tid.x;
\tmad.lo.s32 %r1, %r3, %r4, %r1;
\tsetp.ge.u32 %p1, %r1, %r2;
\t@%p1 bra DONE;
\tcvta.to.global.u64 %rd3, %rd1;
\tcvta.to.global.u64 %rd4, %rd2;
\tmul.wide.u32 %rd5, %r1, 4;
\tadd.s64 %rd6, %rd3, %rd5;
\tadd.s64 %rd7, %rd4, %rd5;
\tld.global.f32 %f2, [%rd6];
\tld.global.f32 %f3, [%rd7];
\tfma.rn.f32 %f4, %f1, %f2, %f3;
\tst.global.f32 [%rd7], %f4;
DONE:
\tret;
}
"""


def main(argv):
    if os.environ.get("FAKE_PTXGEN_LOG"):
        with open(os.environ["FAKE_PTXGEN_LOG"], "a") as f:
            f.write(json.dumps(argv) + "\n")
    if len(argv) < 2 or argv[0] != "gen":
        print("fake ptxgen: only 'gen'", file=sys.stderr)
        return 2
    if os.environ.get("FAKE_PTXGEN_MODE") == "usage":
        print("ptxgen gen: not built yet", file=sys.stderr)
        return 2
    desc = argv[1]
    out = argv[argv.index("-o") + 1] if "-o" in argv else "out.ptx"
    m = re.search(r"^##\s+(.+)$", desc, re.M)
    name = re.sub(r"[^A-Za-z0-9_]+", "_", m.group(1)).strip("_") if m else "kernel"
    with open(out, "w") as f:
        f.write(PTX.replace("KERNEL", name))
    twin = None
    if "--twin" in argv or "--twin-file" in argv:   # the twin beside the PTX, and gen's "twin" object
        cu = out[:-4] + ".cu" if out.endswith(".ptx") else out + ".cu"
        src = open(argv[argv.index("--twin-file") + 1]).read() if "--twin-file" in argv else \
            f'extern "C" __global__ void {name}(const float *x, float *y, float a, unsigned n) {{ }}\n'
        with open(cu, "w") as f:
            f.write(src)
        twin = {"file": cu, "generated": "--twin" in argv, "verdict": "not-run",
                "line": "twin compiles; not run (no GPU: fake)", "input_sets": 0, "attempts": 0,
                "task_file": cu[:-3] + ".task.json", "nvcc": None}
    print(json.dumps({
        "ptx_file": out, "kernel": name,
        "signature": f".visible .entry {name}(\n\t.param .u64 x,\n\t.param .u64 y,\n\t.param .f32 a,\n\t.param .u32 n\n)",
        "model": "fake-model", "tokens": 123, "seconds": 0.5, "tokens_per_s": 246.0, "registers": 10,
        "verdicts": {"check": "pass", "ptxas": "pass", "gpu": "not run"}, "attempts": 1,
        **({"twin": twin} if twin else {})}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
