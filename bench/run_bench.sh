#!/usr/bin/env bash
# run_bench.sh — `make bench`: libptx parse+validate throughput vs ptxas on the
# nvcc-generated corpus.  Writes bench/results/<date>-libptx.json and prints it.
set -eu
cd "$(dirname "$0")/.."
BUILD=${PTXGEN_BUILD:-build}
CORPUS=$BUILD/testcorpus
if [ ! -f "$CORPUS/.complete" ]; then
    bash tests/cuda/build_corpus.sh "$CORPUS" >/dev/null 2>&1 && touch "$CORPUS/.complete"
fi
files=$(ls "$CORPUS"/*.ptx)
date=$(date -u +%Y-%m-%d)
out=bench/results/$date-libptx.json
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
# shellcheck disable=SC2086
res=$(taskset -c 0 "$BUILD/bench_ptx" --ptxas --min-seconds 5 $files 2>/dev/null || "$BUILD/bench_ptx" --ptxas --min-seconds 5 $files)
tmp=$(mktemp "$out.tmp.XXXX")
{
    echo "{"
    echo "  \"benchmark\": \"libptx parse+validate vs ptxas\","
    echo "  \"date\": \"$date\","
    echo "  \"device\": \"CPU: $cpu (one core)\","
    echo "  \"ptxas\": \"$(ptxas --version 2>/dev/null | tail -n1)\","
    echo "  \"targets\": {\"parse_validate_mb_per_s\": 100, \"speedup_vs_ptxas\": 50},"
    echo "  \"result\": $res"
    echo "}"
} >"$tmp"
mv "$tmp" "$out"
cat "$out"

# ptxgen synth throughput: verified samples per second on this machine's cores
sout=bench/results/$date-synth.json
d=$(mktemp -d)
start=$(date +%s.%N)
"$BUILD/ptxgen" synth --count 1000 --seed 1 --out "$d/s.jsonl" --no-progress --jobs "$(nproc)" 2>/dev/null
end=$(date +%s.%N)
tmp=$(mktemp "$sout.tmp.XXXX")
{
    echo "{"
    echo "  \"benchmark\": \"ptxgen synth --count 1000 (check + ptxas per sample)\","
    echo "  \"date\": \"$date\","
    echo "  \"device\": \"CPU: $cpu x $(nproc) cores\","
    echo "  \"target_samples_per_s\": 50,"
    echo "  \"wall_seconds\": $(awk "BEGIN{print $end - $start}"),"
    echo "  \"run\": $(cat "$d/s.jsonl.meta.json")"
    echo "}"
} >"$tmp"
mv "$tmp" "$sout"
cat "$sout"
rm -rf "$d"

# the C inference engine (prefill/decode tok/s, TTFT, RSS; vs PyTorch) and the
# constraint's mask latency at the default vocabulary
bash bench/bench_model.sh "bench/results/$date-model-cpu.json"
"$BUILD/bench_decode" --gens 30 --out "bench/results/$date-decode.json"
# issue 29 on the CPU: decode vs the engine before and llama.cpp, the stage profile, gen with
# speculative decoding against plain (byte-identical), when the base GGUF is there
if [ -f "${GGUF:-models/base/qwen2.5-coder-0.5b-instruct.gguf}" ]; then
    bash bench/bench_gen_cpu.sh "bench/results/$date-gen-cpu.json"
fi
# llama.cpp side by side, when a built tree is given (bench/bench_llama_cpp.sh can also fetch and build one)
if [ -n "${LLAMA_DIR:-}" ]; then
    bash bench/bench_llama_cpp.sh "bench/results/$date-llama-cpp-vs-ptxgen.json"
fi
