"""heldin.py — a suite folder of training tasks for the held-in check (issue 28): while the model
cannot reproduce kernels it was trained on, it needs more training, not new ideas.

From a synth JSONL (`ptxgen synth`) it takes --n samples of the train split with distinct task
names, drawn round-robin over the families so that every family is checked, and writes
OUT/<name>/task.json: the sample's task with one description, the one the sample was trained
with (`descriptions` = {style: text}).  `ptxgen eval --suite OUT --kernels K` then verifies the
model's kernels for them; train/generate2.py --heldin OUT generates them.

    python3 train/heldin.py --synth synth.jsonl --n 100 --out /tmp/heldin [--seed 1]
"""
import argparse
import json
import os
import random
import sys


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--synth", required=True, nargs="+", help="synth JSONL file(s)")
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pairs", help="only samples whose id appears in this pairs JSONL (the ones the model trained on)")
    ap.add_argument("--trained", help="only samples whose id is a line of this file (lora_base.py's trained_ids.txt)")
    args = ap.parse_args(argv)
    trained = None
    if args.trained:
        with open(args.trained, encoding="utf-8") as f:
            trained = {line.strip() for line in f if line.strip()}
    elif args.pairs:
        trained = set()
        with open(args.pairs, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    trained.add(json.loads(line)["id"])
    by_fam = {}
    seen = set()
    for path in args.synth:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError as e:
                    raise SystemExit(f"{path}:{n}: malformed JSON ({e.msg})")
                task, style, desc = r.get("task"), r.get("description_style"), r.get("description")
                if r.get("split") != "train" or not isinstance(task, dict) or not style or not desc:
                    continue
                if trained is not None and r.get("id") not in trained:
                    continue
                name = task.get("name")
                if not name or name in seen or "/" in name or name.startswith("."):
                    continue
                seen.add(name)
                by_fam.setdefault(r.get("family", "?"), []).append((name, style, desc, task))
    rng = random.Random(args.seed)
    fams = sorted(by_fam)
    for f in fams:
        rng.shuffle(by_fam[f])
    picked = []
    while len(picked) < args.n and any(by_fam[f] for f in fams):
        for f in fams:
            if by_fam[f] and len(picked) < args.n:
                picked.append(by_fam[f].pop())
    os.makedirs(args.out, exist_ok=True)
    for name, style, desc, task in picked:
        d = os.path.join(args.out, name)
        os.makedirs(d, exist_ok=True)
        t = dict(task, descriptions={style: desc})
        tmp = os.path.join(d, "task.json.tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(t, fh, ensure_ascii=False, indent=1)
        os.replace(tmp, os.path.join(d, "task.json"))
    print(json.dumps({"heldin": len(picked), "families": len({p[3].get('family') for p in picked}), "out": args.out}))
    return 0 if picked else 1


if __name__ == "__main__":
    sys.exit(main())
