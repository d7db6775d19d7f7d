#!/usr/bin/env python3
"""How well `ptxgen twin` infers a task from a CUDA C twin, measured without a GPU.

Every corpus and held-out suite task with a reference.cu is taken as its own twin: nvcc -ptx
compiles it, `ptxgen twin --no-gpu` infers <task>.task.json, and the inferred parameters are
compared with the hand-written task.json: pointer roles (in/out/inout) and element counts
(the two length expressions evaluated at every size of the real task).  Launch grids are
reported too, but a different grid is often just another valid launch (a grid-stride loop,
another block size), so it is not a correctness figure.

usage: python3 bench/twin_infer.py [--ptxgen build/ptxgen] [--out bench/results/F.json] [-v]"""
import argparse, glob, json, os, shutil, subprocess, sys, tempfile


def ev(e, env):
    env = {k: v for k, v in env.items() if k != "time"}
    try:
        return eval(e.replace("cdiv(", "_cdiv("), {"__builtins__": {}, "_cdiv": lambda a, b: (a + b - 1) // b,
                                                    "min": min, "max": max}, env)
    except Exception:
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxgen", default="build/ptxgen")
    ap.add_argument("--out")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    res = {"tasks": 0, "inferred": 0, "pointers": 0, "role_match": 0, "length_match": 0, "grid_match": 0, "misses": []}
    tmp = tempfile.mkdtemp()
    for d in sorted(glob.glob("corpus/*/")) + sorted(glob.glob("bench/suite/*/")):
        cu = os.path.join(d, "reference.cu")
        if not os.path.exists(cu):
            continue
        t = json.load(open(os.path.join(d, "task.json")))
        name = os.path.basename(d.rstrip("/"))
        res["tasks"] += 1
        k = os.path.join(tmp, name)
        os.makedirs(k, exist_ok=True)
        shutil.copy(cu, os.path.join(k, t["kernel"] + ".cu"))
        ptx = os.path.join(k, t["kernel"] + ".ptx")
        if subprocess.run([nvcc, "-ptx", "-O3", "-arch=sm_80", "-o", ptx, cu], capture_output=True).returncode:
            res["misses"].append([name, "nvcc failed"])
            continue
        p = subprocess.run([a.ptxgen, "twin", "--no-gpu", ptx, os.path.join(k, t["kernel"] + ".cu")], capture_output=True, text=True)
        tj = os.path.join(k, t["kernel"] + ".task.json")
        if not os.path.exists(tj):
            res["misses"].append([name, "no task inferred: " + p.stderr.strip()[-200:]])
            continue
        res["inferred"] += 1
        it = json.load(open(tj))
        for rp, ip in zip(t["params"], it["params"]):
            if not rp["type"].endswith("*"):
                continue
            res["pointers"] += 1
            role_ok = rp.get("role") == ip.get("role")
            len_ok = all(ev(rp["len"], s) == ev(ip["len"], s) for s in t["sizes"])
            res["role_match"] += role_ok
            res["length_match"] += len_ok
            if not (role_ok and len_ok):
                res["misses"].append([name, rp["name"], f"role {rp.get('role')} / inferred {ip.get('role')}",
                                      f"len {rp['len']} / inferred {ip['len']}"])
        res["grid_match"] += all(ev(t["launch"]["grid"][i], s) == ev(g, s) for s in t["sizes"]
                                 for i, g in enumerate(it["launch"]["grid"][:len(t["launch"]["grid"])]))
    shutil.rmtree(tmp)
    print(f"{res['inferred']}/{res['tasks']} tasks inferred; pointer roles {res['role_match']}/{res['pointers']}, "
          f"element counts {res['length_match']}/{res['pointers']}; grids equal to the hand-written ones "
          f"{res['grid_match']}/{res['inferred']} (another grid is often also valid)")
    if a.v:
        for m in res["misses"]:
            print("  ", *m)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
