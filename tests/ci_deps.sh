#!/usr/bin/env bash
# ci_deps.sh — `make test` on a fresh machine needs only what .ci/run installs (issue 32):
#   - every third-party module the Python code imports (train/, python/, tests/) is in
#     .ci/run's PyPI list (or is GPU-only and guarded: cupy);
#   - the tools the test scripts call are in its Debian list (pkg-config, git, clang,
#     python3's venv for the editable install);
#   - packages come from the standard registries by name: no other index URL in the
#     repository (pip's --index-url / --extra-index-url / --find-links, or a wheel host).
# Prints "ci-deps: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
python3 - <<'PY'
import ast, glob, os, re, subprocess, sys

ok = bad = 0
def check(cond, msg):
    global ok, bad
    if cond:
        ok += 1
    else:
        bad += 1
        print("FAIL:", msg)

ci = open(".ci/run").read()
def bash_list(name):
    m = re.search(name + r"=\(([^)]*)\)", ci, re.S)
    return re.findall(r'"([^"]+)"|(\S+)', m.group(1)) if m else []
pypi = {a or b for a, b in bash_list("PYPI_PACKAGES")} | {re.split(r"[<>=]", a or b)[0] for a, b in bash_list("PYPI_BUILD")}
debian = {a or b for a, b in bash_list("DEBIAN_PACKAGES")}
check(pypi and debian, ".ci/run has PYPI_PACKAGES and DEBIAN_PACKAGES lists")

# modules: the import name -> the PyPI name where they differ
dist = {"IPython": "ipython", "yaml": "pyyaml", "PIL": "pillow", "sklearn": "scikit-learn"}
gpu_only = {"cupy"}   # imported inside try/except, on a GPU machine only
local = set()
for p in glob.glob("**/*.py", recursive=True):
    local.add(os.path.splitext(os.path.basename(p))[0])
    local.add(p.split(os.sep)[0])
for d in glob.glob("**/__init__.py", recursive=True):
    local.add(os.path.basename(os.path.dirname(d)))
local |= {"_util"}
std = set(sys.stdlib_module_names)
need = {}
for root in ("train", "python", "tests"):
    for p in glob.glob(root + "/**/*.py", recursive=True):
        tree = ast.parse(open(p, encoding="utf-8").read(), p)
        for n in ast.walk(tree):
            names = [a.name for a in n.names] if isinstance(n, ast.Import) else \
                    [n.module] if isinstance(n, ast.ImportFrom) and n.module and n.level == 0 else []
            for name in names:
                top = name.split(".")[0]
                if top not in std and top not in local and top not in gpu_only:
                    need.setdefault(top, p)
for mod, where in sorted(need.items()):
    check(dist.get(mod, mod).lower() in {x.lower() for x in pypi}, f"{where} imports {mod}: not in .ci/run's PYPI_PACKAGES")
# the notebook test runs a kernel it does not import
check("ipykernel" in pypi, "the notebook test needs ipykernel: not in .ci/run")

tools = {"pkg-config": "pkg-config", "git": "git", "clang": "clang", "python3 -m venv": "python3-venv", "gcc": "gcc"}
scripts = "".join(open(p).read() for p in glob.glob("tests/*.sh") + ["Makefile"])
for tool, pkg in tools.items():
    if tool in scripts:
        check(pkg in debian, f"the tests call {tool}: .ci/run's DEBIAN_PACKAGES lacks {pkg}")

files = subprocess.run(["git", "ls-files"], capture_output=True, text=True).stdout.split()
pat = re.compile(r"--index-url|--extra-index-url|--find-links|download\.pytorch\.org|PIP_INDEX_URL|PIP_EXTRA_INDEX_URL")
other = []
for f in files:
    if f == "tests/ci_deps.sh" or not os.path.isfile(f):
        continue
    try:
        text = open(f, encoding="utf-8").read()
    except (UnicodeDecodeError, OSError):
        continue
    other += [f"{f}:{i}: {line.strip()[:120]}" for i, line in enumerate(text.splitlines(), 1) if pat.search(line)]
check(not other, "a package index other than PyPI's:\n  " + "\n  ".join(other))
print(f"ci-deps: {ok} passed, {bad} failed")
sys.exit(1 if bad else 0)
PY
