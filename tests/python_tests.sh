#!/usr/bin/env bash
# python_tests.sh — the Python package (python/: %%ptxgen magic, card parsing,
# CuPy glue) under unittest, with a fake ptxgen binary.  Tests whose modules
# are missing (IPython, nbclient, nbformat, ipykernel) print SKIPPED.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../python"
PY=${PYTHON:-python3}
if ! command -v "$PY" >/dev/null 2>&1; then
    echo "SKIPPED: $PY not found"
    echo "0 passed, 0 failed"
    exit 0
fi
for m in IPython nbclient nbformat ipykernel numpy; do
    "$PY" -c "import $m" 2>/dev/null || echo "SKIPPED: tests needing $m (pip install $m)"
done
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$PY" - >"$log" 2>&1 <<'PYEOF'
import sys, unittest
sys.path.insert(0, "tests")
suite = unittest.defaultTestLoader.discover("tests", pattern="test_*.py", top_level_dir="tests")
r = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
for t, why in r.skipped:
    print(f"SKIPPED: {t.id()}: {why}")
bad = len(r.failures) + len(r.errors) + len(r.unexpectedSuccesses)
print(f"{r.testsRun - len(r.skipped) - bad} passed, {bad} failed")
PYEOF
rc=$?
grep -v "Kernel is running over TCP" "$log" | grep -vE '^[0-9]+ passed, [0-9]+ failed$'
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
if [ -z "$line" ]; then
    echo "   unittest: no result line (exit $rc)"
    line="0 passed, 1 failed"
fi
pass=$(echo "$line" | grep -oE '^[0-9]+')
fail=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')

# `pip install -e python/`, then `import ptxgen` (as `%load_ext ptxgen` does) from the folder that
# contains a clone named ptxgen: that folder is an implicit namespace package `ptxgen`, which
# must not shadow the installed package (the editable install puts python/ on sys.path).
tmp=$(mktemp -d)
trap 'rm -f "$log"; rm -rf "$tmp"' EXIT
if "$PY" -m pip --help 2>/dev/null | grep -q -- "--python" && "$PY" -c "import setuptools, sys; sys.exit(int(setuptools.__version__.split('.')[0]) < 64)" 2>/dev/null; then
    mkdir -p "$tmp/parent"
    ln -s "$(cd .. && pwd)" "$tmp/parent/ptxgen"
    if "$PY" -m venv --system-site-packages --without-pip "$tmp/venv" &&
       "$PY" -m pip --python "$tmp/venv/bin/python" install -q --no-build-isolation --no-deps -e "$tmp/parent/ptxgen/python" >"$tmp/pip.log" 2>&1; then
        got=$(cd "$tmp/parent" && "$tmp/venv/bin/python" -c "import ptxgen; print(ptxgen.load_ipython_extension.__module__)" 2>&1)
        if [ "$got" = "ptxgen" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: editable install shadowed by the clone's folder: $got"; fi
        left=$(cd .. && git status --porcelain --untracked-files=all python 2>/dev/null | grep '^??')
        [ -z "$left" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: the editable install left untracked files: $left"; }
    else
        fail=$((fail + 1))
        echo "FAIL: pip install -e python/: $(tail -3 "$tmp/pip.log")"
    fi
else
    echo "SKIPPED: editable-install test (needs pip --python and setuptools >= 64)"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
