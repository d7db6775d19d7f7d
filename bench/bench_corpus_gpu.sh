#!/usr/bin/env bash
# bench/bench_corpus_gpu.sh — the corpus benchmark on the GPU machine, one device call (see bench/NOTES.md).
# Usage on the device: bash bench/bench_corpus_gpu.sh OUTDIR [TASK-GLOB]
# Expects a prebuilt build/ptxgen (carried from the build machine).
set -u
out=${1:?OUTDIR}
glob=${2:-*}
export PATH="$PATH:/usr/local/cuda/bin"
P=build/ptxgen
mkdir -p "$out"
{
    date -u
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>&1
    nvcc --version | tail -n 2
} >"$out/env.txt" 2>&1
"$P" devinfo --remeasure --json >"$out/devinfo.json" 2>&1
cat "$out/devinfo.json"
PTXGEN=$P bash tests/gpu_tests.sh 2>&1 | tee "$out/gpu_tests.txt"
# the corpus, or the folders matching TASK-GLOB
suite=$(mktemp -d)
for d in corpus/$glob/; do ln -s "$PWD/$d" "$suite/$(basename "$d")"; done
"$P" run --suite "$suite" --out "$out/corpus.json" 2>&1 | tee "$out/corpus.txt"
