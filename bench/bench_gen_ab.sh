#!/usr/bin/env bash
# bench_gen_ab.sh — the engine now against the engine of BASE_REF, side by side, on one machine:
#  1. gen on one bench/suite task, plain (--draft 0) and speculative (--draft 8), with both
#     binaries, ROUNDS rounds, the order of the four runs reversed every other round; each run's
#     own timer (gen --json "seconds": decoding, no ptxas), the load average before it; every
#     output compared byte for byte with the others;
#  2. bench_model decode (--pp 16 --tg TG --reps 3: tokens/s and the share of the read bandwidth
#     the same run measured) and the verify-step curve (--exact 1,4,6,9: wall and process CPU ms
#     of one step of n rows), both binaries alternating, ROUNDS rounds.
# Usage: bash bench/bench_gen_ab.sh [OUT.json]   (default bench/results/<today>-gen-cpu-ab.json)
# Environment: GGUF (default models/base/qwen2.5-coder-0.5b-instruct.gguf), THREADS 2, ROUNDS 2,
#   TG 64, TASK (default bias_gelu_residual: the median task of 2026-12-05-gen-cpu.json),
#   BASE_REF (default main): the engine before, built from `git archive` in a temp dir, or
#   BASE_BUILD: a build folder of it (its ptxgen and bench_model) to skip that build.
#   MODEL: what gen runs (default GGUF; e.g. models/qwen-plan: the two-stage adapter, whose runs
#   then include the plan turn, nvcc's check of it and the plan's own speculative counts; its
#   ngram.bin is used by both binaries), SAMPLES (1; plan attempts of a two-stage model), DRAFT (8),
#   LLAMA_BENCH: a llama-bench binary; when set, llama.cpp decodes the same GGUF (-p 16 -n TG -r 3)
#   beside bench_model in each decode round.  Each gen run's process CPU seconds (user + sys) are
#   recorded beside gen's wall timer: with other sessions on the VM, CPU time moves less.
#   Outputs are compared across all runs and within each engine (plain against speculative: that
#   must hold even where the new engine's numerics, and with them the text, differ from the old).
set -eu
cd "$(dirname "$0")/.."
BUILD=${PTXGEN_BUILD:-build}
GGUF=${GGUF:-models/base/qwen2.5-coder-0.5b-instruct.gguf}
OUT=${1:-bench/results/$(date +%F)-gen-cpu-ab.json}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-2}
TG=${TG:-64}
TASK=${TASK:-bias_gelu_residual}
MODEL=${MODEL:-$GGUF}
SAMPLES=${SAMPLES:-1}
DRAFT=${DRAFT:-8}
export MODEL SAMPLES DRAFT
BASE_REF=${BASE_REF:-main}
[ -f "$GGUF" ] || { echo "bench_gen_ab: no $GGUF (bash models/fetch_base.sh)" >&2; exit 1; }
[ -f "bench/suite/$TASK/task.json" ] || { echo "bench_gen_ab: no bench/suite/$TASK/task.json" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-ab.XXXXXX")
tmp_out=
trap 'rm -rf "$WORK"; [ -z "$tmp_out" ] || rm -f "$tmp_out"' EXIT
make -s all "$BUILD/bench_model"
if [ -n "${BASE_BUILD:-}" ]; then
    BASE=$BASE_BUILD
    base_commit=${BASE_COMMIT:-unknown}
else
    mkdir -p "$WORK/base"
    git archive "$BASE_REF" | tar -x -C "$WORK/base"
    make -s -C "$WORK/base" build/bench_model build/ptxgen >/dev/null
    BASE=$WORK/base/build
    base_commit=$(git rev-parse "$BASE_REF")
fi
load() { cut -d' ' -f1-3 /proc/loadavg; }
side_bin() { [ "$1" = now ] && echo "$BUILD" || echo "$BASE"; }

# --- 1. gen: {now, before} x {plain, spec}, alternating -----------------------------------------
: > "$WORK/gen.jsonl"
for r in $(seq 1 "$ROUNDS"); do
    runs="before:spec now:spec before:plain now:plain"
    [ $((r % 2)) = 0 ] && runs="now:plain before:plain now:spec before:spec"
    for sr in $runs; do
        s=${sr%%:*} mode=${sr##*:}
        draft=0
        [ "$mode" = spec ] && draft=$DRAFT
        l=$(load)
        /usr/bin/time -f "%e %U %S" -o "$WORK/$r-$s-$mode.time" \
            "$(side_bin "$s")/ptxgen" gen --model "$MODEL" --task "bench/suite/$TASK/task.json" --threads "$THREADS" --samples "$SAMPLES" \
            --draft "$draft" --json -o "$WORK/$r-$s-$mode.ptx" > "$WORK/$r-$s-$mode.json" 2> "$WORK/$r-$s-$mode.err" || true
        python3 - "$WORK/$r-$s-$mode.json" "$r" "$s" "$mode" "$l" "$(load)" "$WORK/$r-$s-$mode.time" >> "$WORK/gen.jsonl" <<'PY'
import json, sys
f, r, s, mode, lb, la, tf = sys.argv[1:8]
try:
    g = json.load(open(f))
    row = {"seconds": g["seconds"], "tokens": g["tokens"], "speculative": g["speculative"]}
    if "plan" in g:   # the two-stage model: its plan turn (all attempts; seconds include nvcc)
        row["plan"] = g["plan"]
        row["end_to_end_decode_seconds"] = g["seconds"] + g["plan"].get("decode_seconds", g["plan"]["seconds"])
    w, u, sy = (float(x) for x in open(tf).read().split()[-3:])
    row.update({"process_wall_s": w, "process_cpu_s": round(u + sy, 2)})
except Exception as e:
    row = {"error": str(e)}
print(json.dumps({"round": int(r), "side": s, "mode": mode, "load_before": lb, "load_after": la, **row}))
PY
        echo "gen round $r $s $mode done" >&2
    done
done
same=true
for f in "$WORK"/*-*-*.ptx; do cmp -s "$f" "$WORK/1-before-plain.ptx" || same=false; done
for f in "$WORK"/*-*-*.cu; do [ -f "$f" ] && { cmp -s "$f" "$WORK/1-before-plain.cu" || same=false; }; done
# each engine against its own plain run: what must hold when the new engine's numerics differ
same_side=
for s in now before; do
    ok=true
    for f in "$WORK"/*-"$s"-*.ptx; do cmp -s "$f" "$WORK/1-$s-plain.ptx" || ok=false; done
    for f in "$WORK"/*-"$s"-*.cu; do [ -f "$f" ] && { cmp -s "$f" "$WORK/1-$s-plain.cu" || ok=false; }; done
    same_side="$same_side $s=$ok"
done

# --- 2. decode and the verify step, both binaries alternating ------------------------------------
: > "$WORK/decode.jsonl"
: > "$WORK/exact.jsonl"
for r in $(seq 1 "$ROUNDS"); do
    order="now before"
    [ $((r % 2)) = 0 ] && order="before now"
    for s in $order; do
        l=$(load)
        "$(side_bin "$s")/bench_model" "$GGUF" --threads "$THREADS" --pp 16 --tg "$TG" --reps 3 \
            | sed "s/^{/{\"side\": \"$s\", \"round\": $r, \"load\": \"$l\", /" >> "$WORK/decode.jsonl"
        if [ -n "${LLAMA_BENCH:-}" ] && [ "$s" = now ]; then   # the peer, same GGUF, threads and lengths
            l=$(load)
            "$LLAMA_BENCH" -m "$GGUF" -t "$THREADS" -p 16 -n "$TG" -r 3 -o jsonl 2>/dev/null \
                | sed "s/^{/{\"side\": \"llama.cpp\", \"round\": $r, \"load\": \"$l\", /" >> "$WORK/llama.jsonl" || true
        fi
        l=$(load)
        "$(side_bin "$s")/bench_model" "$GGUF" --threads "$THREADS" --reps 3 --exact 1,4,6,9 \
            | sed "s/^{/{\"side\": \"$s\", \"round\": $r, \"load\": \"$l\", /" >> "$WORK/exact.jsonl"
    done
    echo "decode/exact round $r done" >&2
done

mkdir -p "$(dirname "$OUT")"
tmp_out=$(mktemp "$OUT.XXXXXX")
python3 - "$WORK" "$GGUF" "$THREADS" "$ROUNDS" "$TG" "$TASK" "$base_commit" "$same" "$same_side" > "$tmp_out" <<'PY'
import datetime, json, os, platform, statistics, subprocess, sys
work, gguf, threads, rounds, tg, task, base_commit, same, same_side = sys.argv[1:10]
med = statistics.median
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
flags = next((l.split(":", 1)[1].split() for l in open("/proc/cpuinfo") if l.startswith("flags")), [])
gen = [json.loads(l) for l in open(os.path.join(work, "gen.jsonl"))]
secs = {}
for g in gen:
    if "seconds" in g:
        secs.setdefault(f"{g['side']}_{g['mode']}", []).append(round(g["seconds"], 2))
m = {k: med(v) for k, v in secs.items()}
def medof(key):   # medians of another per-run number, by side and mode
    d = {}
    for g in gen:
        if key in g:
            d.setdefault(f"{g['side']}_{g['mode']}", []).append(g[key])
    return {k: round(med(v), 2) for k, v in d.items()}
e2e, cpu_s = medof("end_to_end_decode_seconds"), medof("process_cpu_s")
llama = [json.loads(l) for l in open(os.path.join(work, "llama.jsonl"))] if os.path.exists(os.path.join(work, "llama.jsonl")) else []
ratio = lambda a, b: round(m[a] / m[b], 2) if a in m and b in m else None
dec = [json.loads(l) for l in open(os.path.join(work, "decode.jsonl"))]
ex = [json.loads(l) for l in open(os.path.join(work, "exact.jsonl"))]
def dsum(side):
    rows = [d for d in dec if d["side"] == side]
    return {"tg_tok_s": [d[f"tg{tg}_tok_s"] for d in rows], "pct_of_read_bw": [d.get("tg_pct_of_read_bw") for d in rows],
            "read_bw_gb_s": [d.get("read_bw_gb_s") for d in rows], "load": [d["load"] for d in rows],
            "median_tg_tok_s": med([d[f"tg{tg}_tok_s"] for d in rows]) if rows else None,
            "median_pct_of_read_bw": med([d["tg_pct_of_read_bw"] for d in rows if d.get("tg_pct_of_read_bw") is not None] or [0])}
def esum(side):
    out = {}
    for e in ex:
        if e["side"] == side:
            out.setdefault(str(e["n"]), {"exact_ms": [], "exact_cpu_ms": []})
            out[str(e["n"])]["exact_ms"].append(e["exact_ms"])
            out[str(e["n"])]["exact_cpu_ms"].append(e["exact_cpu_ms"])
    for v in out.values():
        v["median_exact_ms"] = med(v["exact_ms"])
        v["median_exact_cpu_ms"] = med(v["exact_cpu_ms"])
    return out
commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout.strip())
res = {
    "name": "gen-cpu-ab", "date": datetime.date.today().isoformat(),
    "commit": commit + ("+dirty" if dirty else ""), "base_commit": base_commit,
    "machine": {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
                "isa": sorted(x for x in flags if x.startswith(("avx512", "amx", "avx2", "fma", "f16c")))},
    "model": {"file": gguf, "bytes": os.path.getsize(gguf),
              "gen_model": os.environ.get("MODEL", gguf), "samples": int(os.environ.get("SAMPLES", "1")),
              "draft": int(os.environ.get("DRAFT", "8"))},
    "threads": int(threads), "rounds": int(rounds), "task": task,
    "gen": {"runs": gen, "median_seconds": m, "byte_identical_all_runs": same == "true",
            "byte_identical_within_engine": {kv.split("=")[0]: kv.split("=")[1] == "true" for kv in same_side.split()},
            "speedup_spec_over_plain_now": ratio("now_plain", "now_spec"),
            "speedup_spec_over_plain_before": ratio("before_plain", "before_spec"),
            "speedup_spec_now_over_spec_before": ratio("before_spec", "now_spec"),
            "speedup_plain_now_over_plain_before": ratio("before_plain", "now_plain"),
            "speedup_spec_now_over_plain_before": ratio("before_plain", "now_spec"),
            "median_end_to_end_decode_seconds": e2e, "median_process_cpu_s": cpu_s,
            "speedup_end_to_end_spec_over_plain_now": round(e2e["now_plain"] / e2e["now_spec"], 2) if "now_spec" in e2e and "now_plain" in e2e else None,
            "speedup_cpu_spec_over_plain_now": round(cpu_s["now_plain"] / cpu_s["now_spec"], 2) if "now_spec" in cpu_s and "now_plain" in cpu_s else None},
    "llama_cpp": {"rows": llama, "median_tg_tok_s": med([x["avg_ts"] for x in llama if x.get("n_gen")]) if any(x.get("n_gen") for x in llama) else None},
    "decode": {"now": dsum("now"), "before": dsum("before"), "rows": dec},
    "exact_step": {"now": esum("now"), "before": esum("before"), "rows": ex},
}
json.dump(res, sys.stdout, indent=1)
print()
PY
mv "$tmp_out" "$OUT"
tmp_out=
python3 - "$OUT" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
g = r["gen"]
print("gen median seconds", g["median_seconds"], "identical", g["byte_identical_all_runs"], "within each engine", g["byte_identical_within_engine"])
print("end to end (plan + PTX decode)", g.get("median_end_to_end_decode_seconds"), "process CPU s", g.get("median_process_cpu_s"))
for k in ("speedup_spec_over_plain_now", "speedup_spec_over_plain_before", "speedup_spec_now_over_spec_before",
          "speedup_plain_now_over_plain_before", "speedup_spec_now_over_plain_before"):
    print(" ", k, g[k])
for s in ("now", "before"):
    d = r["decode"][s]
    print("decode", s, d["median_tg_tok_s"], "tok/s", d["median_pct_of_read_bw"], "% of read bw")
    print("exact", s, {n: v["median_exact_ms"] for n, v in r["exact_step"][s].items()})
print("wrote", sys.argv[1])
PY
