#!/usr/bin/env bash
# bench_bases_cpu.sh — the CPU cost of the two Qwen bases side by side in one run (issue 28 item 7:
# the 1.5B "with its CPU cost stated"): build/bench_model on Qwen2.5-Coder-0.5B and -1.5B GGUFs,
# alternating round by round so drift in this shared VM's speed hits both alike, the load average
# recorded around every run.  Per base: prefill (pp) and decode (tg) tokens/s, decode's share of
# the read bandwidth (bench_model's probe, same threads), peak RSS; medians over the rounds.
#   bash bench/bench_bases_cpu.sh [OUT.json]      (default bench/results/<date>-qwen15-cpu.json)
# Knobs: THREADS 2, ROUNDS 3, PP 64, TG 64; Q05/Q15 the files (models/fetch_base.sh [--qwen15]).
set -eu
cd "$(dirname "$0")/.."
BUILD=${PTXGEN_BUILD:-build}
OUT=${1:-bench/results/$(date +%F)-qwen15-cpu.json}
THREADS=${THREADS:-2} ROUNDS=${ROUNDS:-3} PP=${PP:-64} TG=${TG:-64}
Q05=${Q05:-models/base/qwen2.5-coder-0.5b-instruct.gguf}
Q15=${Q15:-models/base/qwen2.5-coder-1.5b-instruct.gguf}
for f in "$Q05" "$Q15"; do [ -f "$f" ] || { echo "bench_bases_cpu: no $f (bash models/fetch_base.sh --qwen15)" >&2; exit 1; }; done
[ -x "$BUILD/bench_model" ] || { echo "bench_bases_cpu: no $BUILD/bench_model (make $BUILD/bench_model)" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-bases.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
load() { cut -d' ' -f1 /proc/loadavg; }
for r in $(seq 1 "$ROUNDS"); do
    for b in q05 q15; do
        f=$Q05; [ "$b" = q15 ] && f=$Q15
        l0=$(load)
        "$BUILD/bench_model" "$f" --threads "$THREADS" --pp "$PP" --tg "$TG" --reps 1 > "$WORK/run.json"
        echo "{\"base\": \"$b\", \"round\": $r, \"load_before\": $l0, \"load_after\": $(load), \"run\": $(cat "$WORK/run.json")}" >> "$WORK/runs.jsonl"
        echo "round $r $b: $(grep -o '"pp_best_tok_s": [0-9.]*\|"tg_best_tok_s": [0-9.]*' "$WORK/run.json" | tr '\n' ' ')load $l0" >&2
    done
done
python3 - "$WORK/runs.jsonl" "$OUT" "$Q05" "$Q15" "$THREADS" "$PP" "$TG" <<'PY'
import json, platform, statistics, subprocess, sys, time
runs = [json.loads(l) for l in open(sys.argv[1])]
out, q05, q15, threads, pp, tg = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
med = lambda xs: round(statistics.median(xs), 2)
summary = {}
for b, f in (("q05", q05), ("q15", q15)):
    rs = [r["run"] for r in runs if r["base"] == b]
    summary[b] = {"file": f, "model_params": rs[0]["params"], "weight_bytes": rs[0]["weight_bytes"],
                  "decode_bytes": rs[0]["decode_bytes"], "kernels": rs[0]["kernels"],
                  f"pp{pp}_tok_s": med([r["pp_best_tok_s"] for r in rs]), f"tg{tg}_tok_s": med([r["tg_best_tok_s"] for r in rs]),
                  "ttft_ms": med([r["ttft_ms"] for r in rs]), "tg_weight_gb_s": med([r["tg_weight_gb_s"] for r in rs]),
                  "read_bw_gb_s": med([r["read_bw_gb_s"] for r in rs]), "tg_pct_of_read_bw": med([r["tg_pct_of_read_bw"] for r in rs]),
                  "peak_rss_mb": max(r["peak_rss_mb"] for r in rs)}
ratio = {k: round(summary["q05"][k] / summary["q15"][k], 2) for k in (f"pp{pp}_tok_s", f"tg{tg}_tok_s")}
doc = {"what": "C engine (build/bench_model) on the two Qwen2.5-Coder GGUF bases, alternating round by round",
       "machine": f"build VM, {cpu}, 2 cores shared by four agents' jobs (no GPU)", "os": platform.platform(),
       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": commit, "threads": threads,
       "rounds": len(runs) // 2, "load_avg_range": [min(min(r["load_before"], r["load_after"]) for r in runs),
                                                   max(max(r["load_before"], r["load_after"]) for r in runs)],
       "medians": summary, "speed_0.5b_over_1.5b": ratio, "runs": runs}
with open(out + ".tmp", "w") as fh:
    json.dump(doc, fh, indent=1)
    fh.write("\n")
import os
os.replace(out + ".tmp", out)
print(json.dumps({k: doc[k] for k in ("date", "commit", "load_avg_range", "speed_0.5b_over_1.5b")}))
for b in ("q05", "q15"):
    print(b, json.dumps({k: v for k, v in summary[b].items() if k != "file"}))
PY
