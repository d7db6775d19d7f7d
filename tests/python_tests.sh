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
grep -v "Kernel is running over TCP" "$log"
grep -qE '^[0-9]+ passed, 0 failed$' "$log" && exit 0
[ "$rc" -ne 0 ] && ! grep -qE '^[0-9]+ passed, [0-9]+ failed$' "$log" && echo "0 passed, 1 failed"
exit 1
