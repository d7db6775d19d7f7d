#!/usr/bin/env python3
"""bench_gen_ref_summary.py RUNS.jsonl META.json OUT.json -- the summary of bench_gen_ref.sh's runs:
per task and mode (ref: --draft 8 with the reference source; noref: --draft 8 --no-draft-ref;
plain: --draft 0) the medians of the PTX turn's model steps and decode seconds, process wall and
CPU seconds, the draft sources' drafted/kept; the ratios against plain and noref; and whether
every run's module and plan equal the task's plain output (sha256)."""
import json, statistics, sys

runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
meta = json.load(open(sys.argv[2]))
med = lambda xs: round(statistics.median(xs), 2) if xs else None
tasks = {}
for r in runs:
    tasks.setdefault(r["task"], {}).setdefault(r["mode"], []).append(r)
summary, identical = {}, True
for task, modes in tasks.items():
    plain = modes.get("plain", [])
    want = {(p.get("ptx_sha256_16"), p.get("plan_sha256_16")) for p in plain}
    checked = [r for rs in modes.values() for r in rs if r.get("ptx_sha256_16")]
    same = len(want) == 1 and all((r.get("ptx_sha256_16"), r.get("plan_sha256_16")) in want for r in checked)
    identical = identical and same
    t = {"byte_identical_to_plain": same, "runs_compared": len(checked), "runs_not_compared": sum(map(len, modes.values())) - len(checked)}
    for mode, rs in modes.items():
        ok = [r for r in rs if "error" not in r]
        src = {}
        for r in ok:
            for k, (d, a) in (r.get("ptx_by_source_drafted_kept") or {}).items():
                s = src.setdefault(k, [0, 0])
                s[0] += d
                s[1] += a
        t[mode] = {"runs": len(ok), "ptx_tokens": med([r["ptx_tokens"] for r in ok]),
                   "ptx_model_steps": med([r["ptx_model_steps"] for r in ok]),
                   "ptx_decode_s": med([r["ptx_decode_s"] for r in ok]),
                   "process_wall_s": med([r["process_wall_s"] for r in ok]),
                   "process_cpu_s": med([r["process_cpu_s"] for r in ok]),
                   "ptx_by_source_drafted_kept_sum": src,
                   "loads_before": [r["load_before"] for r in rs]}
    for a, b in (("ref", "plain"), ("noref", "plain"), ("ref", "noref")):
        if a in t and b in t and t[a]["runs"] and t[b]["runs"]:
            t["%s_over_%s" % (b, a)] = {k: round(t[b][k] / t[a][k], 2) for k in
                                        ("ptx_model_steps", "ptx_decode_s", "process_wall_s", "process_cpu_s") if t[a][k]}
    summary[task] = t
out = dict(meta)
out.update({"byte_identical_to_plain_all": identical, "summary": summary, "runs": runs})
json.dump(out, open(sys.argv[3], "w"), indent=1)
print(json.dumps({k: {m: v for m, v in t.items() if "_over_" in m or m == "byte_identical_to_plain"} for k, t in summary.items()}, indent=1))
