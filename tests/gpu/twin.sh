#!/usr/bin/env bash
# tests/gpu/twin.sh — CUDA C twins on the GPU machine (one device call).
# Usage on the device: bash tests/gpu/twin.sh OUTDIR   (expects a prebuilt build/ptxgen)
# 1. tests/gpu_tests.sh's twin checks (GPU_TESTS_ONLY=twin; set GPU_TESTS_ONLY= for all of it): the
#    verdicts of ptxgen twin and eval's twin precision;
# 2. each tests/twin/*.cu twin against nvcc's own PTX of it (ptxgen twin): the inferred task must
#    run and agree, which checks the inference end to end (lengths, roles, launch);
# 3. gen --twin-file with the shipped model on two requests (what a user sees).
set -u
out=${1:?OUTDIR}
export PATH="$PATH:/usr/local/cuda/bin"
P=build/ptxgen
mkdir -p "$out"
{ date -u; nvidia-smi -L; nvcc --version | tail -n 2; } >"$out/env.txt" 2>&1
GPU_TESTS_ONLY=${GPU_TESTS_ONLY-twin} PTXGEN=$P bash tests/gpu_tests.sh >"$out/gpu_tests.txt" 2>&1
tail -n 6 "$out/gpu_tests.txt"
for t in saxpy gemv rowmax gather; do
    mkdir -p "$out/self/$t"
    cp "tests/twin/$t.cu" "$out/self/$t/$t.cu"
    nvcc -ptx -O3 -arch=sm_90 -o "$out/self/$t/$t.ptx" "$out/self/$t/$t.cu"
    "$P" twin --arch sm_90 --json "$out/self/$t/$t.ptx" "$out/self/$t/$t.cu" >"$out/self/$t/verdict.json" 2>"$out/self/$t/err.txt"
    echo "self $t: exit $? $(grep -o '"line": "[^"]*' "$out/self/$t/verdict.json")"
done
mkdir -p "$out/gen"
cp tests/twin/saxpy.cu tests/twin/gemv.cu "$out/gen/"
"$P" gen "y = a*x + y over n floats" --twin-file "$out/gen/saxpy.cu" -o "$out/gen/saxpy.ptx" --samples 3 --json \
    >"$out/gen/saxpy.json" 2>"$out/gen/saxpy.err"
echo "gen saxpy: exit $?"; tail -n 2 "$out/gen/saxpy.err"
"$P" gen "y = A x for a row-major rows x cols matrix, one thread per row" --twin-file "$out/gen/gemv.cu" \
    -o "$out/gen/gemv.ptx" --samples 3 --json >"$out/gen/gemv.json" 2>"$out/gen/gemv.err"
echo "gen gemv: exit $?"; tail -n 2 "$out/gen/gemv.err"
