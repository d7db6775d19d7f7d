#!/usr/bin/env python3
"""plot_eval.py RESULTS.json [OUT.png] — speedup per task against the nvcc -O3
baseline (full config, first sample, best description), coloured by the
furthest funnel stage the task reached.  Tasks that are not correct have no
speedup; they are drawn as a short bar at the bottom in their verdict's colour,
so every task appears."""
import json
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

STAGES = ["generation", "validator", "ptxas", "gpu-not-run", "load", "timeout", "fault", "wrong", "correct", "timed"]
COLOURS = {"generation": "#7f7f7f", "validator": "#d62728", "ptxas": "#ff7f0e", "gpu-not-run": "#bcbd22",
           "load": "#9467bd", "timeout": "#e377c2", "fault": "#17becf", "wrong": "#8c564b", "correct": "#8c564b",
           "timed": "#2ca02c"}
LABELS = {"generation": "generation failed", "validator": "invalid PTX", "ptxas": "ptxas rejects",
          "gpu-not-run": "GPU not run", "load": "does not load", "timeout": "hangs", "fault": "faults",
          "wrong": "loads, wrong results", "correct": "loads, wrong results",
          "timed": "correct (speedup shown)"}


def main():
    src = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else src.rsplit(".", 1)[0] + ".png"
    doc = json.load(open(src))
    best = {}
    for r in doc["rows"]:
        if r["config"] != "full" or r["sample"] != 0:
            continue
        st = r["last_stage"]
        if r.get("correct") is True:
            st = "timed"                     # correct; the bar is its speedup when timed
        elif st == "correct":
            st = "wrong"                     # older result files: failed at the correctness check
        rank = STAGES.index(st) if st in STAGES else 0
        sp = r.get("speedup") or 0.0
        cur = best.get(r["task"])
        if cur is None or (rank, sp) > (cur[0], cur[1]):
            best[r["task"]] = (rank, sp, st)
    tasks = sorted(best, key=lambda t: (-best[t][0], -best[t][1], t))
    fig, ax = plt.subplots(figsize=(max(8, 0.28 * len(tasks) + 2), 5))
    for i, t in enumerate(tasks):
        rank, sp, st = best[t]
        ax.bar(i, sp if sp > 0 else 0.05, color=COLOURS.get(st, "#7f7f7f"))
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(tasks)))
    ax.set_xticklabels(tasks, rotation=75, ha="right", fontsize=7)
    ax.set_ylabel("speedup vs nvcc -O3 (baseline median / kernel median)")
    ax.set_title(f"ptxgen eval: {doc.get('model')} on {doc.get('device')} ({doc.get('date')}), "
                 f"{len(tasks)} tasks, full config, pass@1")
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLOURS[s]) for s in STAGES if any(best[t][2] == s for t in tasks)]
    labels = [LABELS[s] for s in STAGES if any(best[t][2] == s for t in tasks)]
    ax.legend(handles, labels, fontsize=8, loc="upper right")
    ax.set_ylim(0, max([1.5] + [best[t][1] * 1.1 for t in tasks]))
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("wrote", out)


if __name__ == "__main__":
    main()
