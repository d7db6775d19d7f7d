#!/usr/bin/env bash
# train_tests.sh [TEST.py] — the training side's tests (train/test_train.py by default, or
# train/test_base.py, train/test_expert.py, train/test_twin.py), CPU only, tiny models.
# Prints "train: N passed, N failed[, N skipped]" like every suite; without torch (or
# tokenizers/safetensors) everything is SKIPPED, loudly.
set -u
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! command -v "$PY" >/dev/null 2>&1; then
    echo "SKIPPED: training tests ($PY not found)"
    echo "train: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
missing=$("$PY" - <<'PYEOF' 2>/dev/null
import importlib.util
print(" ".join(m for m in ("torch", "tokenizers", "safetensors", "numpy") if importlib.util.find_spec(m) is None))
PYEOF
)
if [ $? -ne 0 ] || [ -n "$missing" ]; then
    echo "SKIPPED: training tests (python modules missing: ${missing:-?})"
    echo "train: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
export HF_HUB_OFFLINE=1 TRANSFORMERS_NO_ADVISORY_WARNINGS=1
# $1: the test file (train/test_train.py; train/test_base.py tests the pretrained-base tools)
"$PY" "${1:-train/test_train.py}" 2>&1 | grep -v '^Loading weights\|^Writing model shards\|^Converting'
exit "${PIPESTATUS[0]}"
