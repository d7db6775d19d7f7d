#!/usr/bin/env python3
"""recheck.py -- a campaign's recorded disagreements checked again at the current build (issue 30).

    python3 tests/diff_ptxas/recheck.py CAMPAIGN.json.d [--build build] [--known tests/diff_ptxas/known.txt] [--json OUT]

The texts are the campaign's own (each chunk's example of each kind, from CAMPAIGN.json.d/chunk*.json),
not regenerated: a change of the table's rows changes which programs a seed makes.  Each text is
checked by `ptxgen check` (every error) and by ptxas on its target (sm_70 assembled as sm_75, as
diff_ptxas does) and classified:
  agrees      both accept, or both reject;
  documented  ptxas accepts and each error libptx reports matches a known.txt false-reject entry
              (most also falls-off-end: generated kernels end without ret), or libptx accepts and
              ptxas's first message matches a false-accept entry;
  disagrees   anything else.
Exit status 1 when any disagrees.
"""
import glob, json, os, re, subprocess, sys, tempfile

def load_known(path):
    ents = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        ents.append({"id": f[0], "dir": f[1], "re": re.compile(f[2]), "code": f[3]})
    return ents

def ptxas_verdict(ptxas, text):
    m = re.search(r"^\s*\.target\s+(sm_[0-9a-z]+)", text, re.M)
    arch = m.group(1) if m else "sm_80"
    if arch == "sm_70":
        arch = "sm_75"   # ptxas 13 has no sm_70 code generator
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(text)
        name = f.name
    try:
        r = subprocess.run([ptxas, "-arch=" + arch, name, "-o", "/dev/null"], capture_output=True, text=True, timeout=120)
    finally:
        os.unlink(name)
    if r.returncode < 0:
        return False, "ptxas crashed (signal %d)" % -r.returncode, None
    for line in r.stdout.splitlines() + r.stderr.splitlines():
        m = re.search(r"(error|fatal)   : (.*)", line)
        if m and "Ptx assembly aborted" not in m.group(2):
            ln = re.search(r"line ([0-9]+);", line)
            return False, m.group(2).strip(), opcode_at(text, int(ln.group(1))) if ln else None
    return r.returncode == 0, "" if r.returncode == 0 else "ptxas failed", None

def opcode_at(text, n):
    """the opcode of line n (1-based), after a guard: the filter of a false-accept entry"""
    lines = text.split("\n")
    if n < 1 or n > len(lines):
        return None
    m = re.match(r"\s*(@!?%?\w+\s+)?([A-Za-z_0-9]+)", lines[n - 1])
    return m.group(2) if m else None

def libptx_errors(ptxgen, text):
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(text)
        name = f.name
    try:
        r = subprocess.run([ptxgen, "check", name], capture_output=True, text=True, timeout=120)
    finally:
        os.unlink(name)
    errs = []
    for line in (r.stdout + r.stderr).splitlines():
        m = re.search(r": error\[(E[0-9]+)\]: (.*)$", line)
        if m:
            errs.append("%s %s" % (m.group(1), m.group(2)))
    return errs

def main():
    a = sys.argv[1:]
    if not a:
        print(__doc__)
        return 2
    d = a[0]
    opt = {"--build": "build", "--known": "tests/diff_ptxas/known.txt", "--json": None}
    for i in range(1, len(a) - 1, 2):
        opt[a[i]] = a[i + 1]
    known = load_known(opt["--known"])
    ptxgen = os.path.join(opt["--build"], "ptxgen")
    ptxas = os.environ.get("PTXAS") or "ptxas"
    examples = []
    for f in sorted(glob.glob(os.path.join(d, "chunk*.json")), key=lambda p: int(re.sub(r"\D", "", os.path.basename(p)) or 0)):
        j = json.load(open(f))
        for s in j.get("disagreements", []):
            if s.get("example"):
                examples.append({"chunk": os.path.basename(f), "key": s.get("key", s.get("libptx", "") if s["direction"] == "false-reject" else s.get("ptxas", "")), "direction": s["direction"], "text": s["example"]})
    out = {"examples": len(examples), "agree_now": 0, "documented_now": 0, "disagree_now": 0, "by_example": []}
    for e in examples:
        px_ok, px_msg, opc = ptxas_verdict(ptxas, e["text"])
        errs = libptx_errors(ptxgen, e["text"])
        lib_ok = not errs
        if px_ok == lib_ok:
            verdict, ids = "agrees now", []
        elif px_ok:
            ids = []
            for m in errs:
                hit = next((k["id"] for k in known if k["dir"] == "false-reject" and (k["code"] == "*" or m.startswith(k["code"]))
                            and k["re"].search(m)), None)
                ids.append(hit)
            verdict = "documented now (%s)" % ", ".join(sorted(set(ids))) if all(ids) else "disagrees"
        else:
            hit = next((k["id"] for k in known if k["dir"] == "false-accept" and (k["code"] == "*" or k["code"] == opc) and k["re"].search(px_msg)), None)
            ids = [hit]
            verdict = "documented now (%s)" % hit if hit else "disagrees"
        key = "agree_now" if verdict.startswith("agrees") else "documented_now" if verdict.startswith("documented") else "disagree_now"
        out[key] += 1
        out["by_example"].append({"chunk": e["chunk"], "key": e["key"], "verdict": verdict, "ptxas": px_msg or "ok",
                                  "libptx": errs[:3] or "ok"})
        print("%-12s %-40.40s %s" % (e["chunk"], e["key"][:40], verdict))
    print("recheck: %d examples: %d agree, %d documented, %d disagree" %
          (out["examples"], out["agree_now"], out["documented_now"], out["disagree_now"]))
    if opt["--json"]:
        json.dump(out, open(opt["--json"], "w"), indent=1)
    return 1 if out["disagree_now"] else 0

if __name__ == "__main__":
    sys.exit(main())
