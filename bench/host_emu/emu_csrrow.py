"""Host emulation of the csrrow family's CUDA C plans (no GPU): compile each dumped
reference.cu (SYNTH_FAMILY_DUMP=DIR ... test_synth_family) with g++ as host code
(cuda_emu.h: one std::thread per CUDA thread, warp barriers for shuffles, a block
barrier for __syncthreads), launch it on small inputs and compare with an
independent computation in this script.  Usage: python3 emu_csrrow.py DIR.  Exit 1 on a mismatch."""
import json, os, subprocess, sys, tempfile, math, random
root = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
TMP = tempfile.mkdtemp(prefix="host_emu_")
ok = bad = 0
for d in sorted(os.listdir(root)):
    t = json.load(open(f"{root}/{d}/task.json"))
    if t["family"] != "csrrow": continue
    fp = t["family_params"]; cu = open(f"{root}/{d}/reference.cu").read(); name = t["kernel"]
    B = int(t["launch"]["block"][0]); grid = t["launch"]["grid"][0]
    random.seed(5)
    if fp["op"] == "offsets":
        cases = []
        for rows in sorted({1, 37 if B >= 37 else B, B, B - 5}):
            cnt = [random.randint(0, 1000) for _ in range(rows)]
            want = [0]
            for c in cnt: want.append(want[-1] + c)
            cases.append((rows, cnt, want))
        body = ""
        for rows, cnt, want in cases:
            body += f'''{{ int c[] = {{{",".join(map(str,cnt))}}}; long long w[] = {{{",".join(map(str,want))}}}; int* rp = new int[{rows}+1];
  for (int i = 0; i <= {rows}; i++) rp[i] = -7;
  launch(1, {B}, [&]{{ {name}(c, rp, {rows}); }});
  for (int i = 0; i <= {rows}; i++) if (rp[i] != w[i]) bad++; }}
'''
    else:
        T = "double" if fp["dtype"] == "f64" else "float"
        rows = 45
        lens = [random.choice([0, 1, 3, 7, 31, 32, 33, 70]) for _ in range(rows)]
        rp = [0]
        for l in lens: rp.append(rp[-1] + l)
        nnz = rp[-1]
        vals = [random.uniform(-1, 1) for _ in range(nnz)]
        sc = [random.uniform(-2, 2) for _ in range(rows)]
        op = fp["op"]; inplace = fp["inplace"]
        exp = []
        if op in ("sum", "maxabs"):
            for r in range(rows):
                seg = vals[rp[r]:rp[r+1]]
                exp.append(sum(seg) if op == "sum" else max([abs(v) for v in seg], default=0.0))
        else:
            exp = list(vals)
            for r in range(rows):
                seg = range(rp[r], rp[r+1])
                if op == "scale": f = sc[r]
                elif op == "l1norm": f = sum(abs(vals[j]) for j in seg)
                else: f = math.sqrt(sum(vals[j]**2 for j in seg))
                for j in seg:
                    exp[j] = vals[j] * f if op == "scale" else (vals[j] / f if f > 0 else vals[j])
        args = "rp, v"
        if op == "scale": args += ", s"
        if not inplace: args += ", o"
        nout = rows if op in ("sum", "maxabs") else nnz
        gx = f"({rows} + {B if fp['mapping']=='thread' else B//32} - 1) / {B if fp['mapping']=='thread' else B//32}"
        body = f'''{{ int rp[] = {{{",".join(map(str,rp))}}}; {T} v[] = {{{",".join(repr(x) for x in vals)}}}; {T} s[] = {{{",".join(repr(x) for x in sc)}}};
  double e[] = {{{",".join(repr(x) for x in exp)}}}; {T}* o = new {T}[{nout}];
  launch({gx}, {B}, [&]{{ {name}({args}, {rows}); }});
  const {T}* res = {"v" if inplace else "o"};
  for (int i = 0; i < {nout}; i++) if (fabs(res[i] - e[i]) > 1e-5 * (1 + fabs(e[i]))) {{ bad++; if (bad < 4) printf("i %d got %g want %g\\n", i, (double)res[i], e[i]); }} }}
'''
    src = '#include "cuda_emu.h"\n' + cu + "\nint main() { int bad = 0;\n" + body + ' printf("%s %d\\n", bad ? "BAD" : "OK", bad); return bad != 0; }\n'
    open(f"{TMP}/c.cpp", "w").write(src)
    r = subprocess.run(["g++", "-std=c++20", "-O1", "-w", "-pthread", f"-I{HERE}", "-o", f"{TMP}/c", f"{TMP}/c.cpp"], capture_output=True, text=True)
    if r.returncode: print(d, "COMPILE", r.stderr[:1500]); bad += 1; continue
    r = subprocess.run([f"{TMP}/c"], capture_output=True, text=True, timeout=120)
    print(d, fp["op"], fp.get("mapping", fp.get("scan")), r.stdout.strip()[-200:])
    ok += r.returncode == 0; bad += r.returncode != 0
print("ok", ok, "bad", bad)
sys.exit(1 if bad else 0)
