#!/usr/bin/env bash
# bench_gguf_kernels.sh — decode's per-type inner kernel: ptxgen's quant.c against ggml's vec_dot
# (llama.cpp's CPU backend, the same build bench_llama_cpp.sh makes), one thread, same blocks.
# See bench/gguf_kernels_vs_ggml.c for what is timed.
#   LLAMA_DIR=/path/to/llama.cpp bash bench/bench_gguf_kernels.sh [OUT.json]
# LLAMA_DIR must have build/bin/libggml-base.so and libggml-cpu.so (cmake -DGGML_NATIVE=ON, Release).
set -eu
cd "$(dirname "$0")/.."
BUILD=${PTXGEN_BUILD:-build}
OUT=${1:-bench/results/$(date +%F)-gguf-kernels.json}
: "${LLAMA_DIR:?set LLAMA_DIR to a llama.cpp tree with ggml built}"
LIBS=$LLAMA_DIR/build/bin
[ -f "$LIBS/libggml-cpu.so" ] || { echo "bench_gguf_kernels: no $LIBS/libggml-cpu.so" >&2; exit 1; }
make -s "$BUILD/libptxgen.a"
${CC:-cc} -std=c11 -O2 -g -Iinclude -Isrc -I"$LLAMA_DIR/ggml/include" -D_POSIX_C_SOURCE=200809L \
    -o "$BUILD/gguf_kernels_vs_ggml" bench/gguf_kernels_vs_ggml.c "$BUILD/libptxgen.a" \
    -L"$LIBS" -Wl,-rpath,"$LIBS" -lggml-cpu -lggml-base -ljansson -lpcre2-8 -ldl -lm -lpthread
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
taskset -c 0 "$BUILD/gguf_kernels_vs_ggml" "${REPS:-7}" > "$tmp" 2>/dev/null || "$BUILD/gguf_kernels_vs_ggml" "${REPS:-7}" > "$tmp"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
commit=$(git -C "$LLAMA_DIR" rev-parse HEAD 2>/dev/null || echo unknown)
mkdir -p "$(dirname "$OUT")"
python3 - "$tmp" "$OUT" "$load_before" "$load_after" "$commit" <<'PY'
import datetime, json, os, platform, sys
r = json.load(open(sys.argv[1]))
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
res = {"name": "gguf-kernels-vs-ggml", "date": datetime.date.today().isoformat(),
       "machine": {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
                   "loadavg_before": sys.argv[3], "loadavg_after": sys.argv[4]},
       "llama_cpp_commit": sys.argv[5],
       "method": "one thread (core 0); per type: random blocks, rows of k elements, one activation vector quantized by "
                 "each side (ggml: vec_dot_type from_float; ptxgen: quant_act32/256); every row dotted; best of REPS "
                 "passes; matrix_mb 0.25 = L2-resident (instruction cost), 64 = streamed from memory (as decode)",
       **r}
tmp = sys.argv[2] + ".tmp"
json.dump(res, open(tmp, "w"), indent=1)
os.replace(tmp, sys.argv[2])
for row in r["rows"]:
    print(f"{row['type']:5} {row['matrix_mb']:7.2f} MB  ptxgen {row['ptxgen_ns_per_weight']:.4f}  ggml {row['ggml_ns_per_weight']:.4f} ns/weight"
          f"  ptxgen/ggml speed {row['ptxgen_over_ggml_speed']:.3f}  rel diff {row['max_rel_diff']:.1e}")
print("wrote", sys.argv[2])
PY
