"""plan_loop.py — the plan turn's loop stop, the same rule as gen_text_loops (src/decode/textloop.c).

A looping plan repeats itself until the token limit (round 6, H100 2026-12-06: 32 of 270 suite plans
hit the 1024-token limit, most of them one comment line or one wrapped paragraph over and over).  The
text loops when its complete lines end in

  * the same non-blank line (surrounding whitespace ignored) LINE_REPEATS times in a row, or
  * PERIOD_REPS repetitions of a period of 1..PERIOD_WORDS_MAX words (whitespace-separated, the
    comment marker "//" not counted), and PERIOD_SPAN_MIN words at least (a short period repeats more): a paragraph the model keeps
    rewriting, wrapped at other places each time, repeats as words, not as lines.

The numbers come from round 6's plans (bench/results/2026-12-06-plan-loops-cpu.json): a finished plan
nvcc compiled repeats a line at most 4 times in a row ("}" closing nested blocks), the corpus's and
suite's CUDA at most 3; the longest periodic word tail of a finished plan is 3.7 repetitions (a 43-word
paragraph).  Only complete lines count, so callers check after each token that holds a newline.
"""
import re

LINE_REPEATS = 8
PERIOD_REPS = 6
PERIOD_WORDS_MAX = 64
PERIOD_SPAN_MIN = 32

_WS = re.compile(r"[ \t\n\r\f\v]+")   # ASCII whitespace, as C's isspace in the "C" locale


def _words(line):
    return [w for w in _WS.split(line) if w and w != "//"]


def loops(text):
    """Why text (the plan so far) is a loop, or None.  Only lines ended by a newline are read."""
    end = text.rfind("\n")
    if end < 0:
        return None
    lines = [ln.strip(" \t\r\f\v") for ln in text[:end].split("\n")]
    lines = [ln for ln in lines if ln]
    if not lines:
        return None
    run = 1
    while run < min(len(lines), LINE_REPEATS) and lines[-1 - run] == lines[-1]:
        run += 1
    if run >= LINE_REPEATS:
        return f'the line "{lines[-1][:60]}" {run} times in a row'
    need = max(PERIOD_REPS * PERIOD_WORDS_MAX, PERIOD_SPAN_MIN)   # the words any period's check reads
    words = []
    for ln in reversed(lines):
        words[:0] = _words(ln)
        if len(words) >= need:
            break
    n = len(words)
    for p in range(1, PERIOD_WORDS_MAX + 1):
        span = max(PERIOD_REPS * p, PERIOD_SPAN_MIN)
        if span > n:
            break
        if all(words[i] == words[i - p] for i in range(n - span + p, n)):
            return f"a period of {p} words {span // p} times"
    return None


def first_stop(text):
    """(byte offset just past the newline where loops() first fires, why), or (None, None): the rule as
    a decoder applies it, after every newline."""
    at = text.find("\n")
    while at >= 0:
        why = loops(text[:at + 1])
        if why:
            return at + 1, why
        at = text.find("\n", at + 1)
    return None, None


def repeat_stats(text):
    """(the most times one non-blank line comes in a row, the most repetitions of a periodic word tail of
    PERIOD_SPAN_MIN words or more at any newline, as a float): how close a text comes to the rule."""
    best_line, run, prev, best_rep, words = 0, 0, None, 0.0, []
    for ln in text.split("\n"):
        t = ln.strip(" \t\r\f\v")
        if not t:
            continue
        run = run + 1 if t == prev else 1
        prev, best_line = t, max(best_line, run)
        words += _words(t)
        n = len(words)
        for p in range(1, min(PERIOD_WORDS_MAX, n // 2) + 1):
            i = n - 1
            while i - p >= 0 and words[i] == words[i - p]:
                i -= 1
            span = n - 1 - i + p
            if span >= PERIOD_SPAN_MIN and span >= 2 * p:
                best_rep = max(best_rep, span / p)
    return best_line, round(best_rep, 2)


def measure(gen_dir, tokenizer, twins):
    """Round-trip of a generate2 run's plans (GEN/plan, GEN/heldin-plan: .cu, .json, .ptx) through the rule."""
    import glob
    import json
    import os
    from collections import Counter
    from tokenizers import Tokenizer
    tk = Tokenizer.from_file(tokenizer)
    ntok = lambda s: len(tk.encode(s, add_special_tokens=False).ids)  # noqa: E731
    out = {"rule": {"line_repeats": LINE_REPEATS, "period_reps": PERIOD_REPS, "period_words_max": PERIOD_WORDS_MAX,
                    "period_span_min": PERIOD_SPAN_MIN}, "sets": {}, "legit": {}}
    for d in ("plan", "heldin-plan"):
        rows, st = [], Counter()
        for cu in sorted(glob.glob(os.path.join(gen_dir, d, "*.cu"))):
            text = open(cu, encoding="utf-8", errors="replace").read()
            meta = json.load(open(cu[:-3] + ".json"))
            ptx = open(cu[:-3] + ".ptx", encoding="utf-8", errors="replace").read() if os.path.exists(cu[:-3] + ".ptx") else ""
            fin, rejected, entry = bool(meta["finished"]), ptx.startswith("// ptxgen: nvcc rejected"), ".entry" in ptx
            stop, why = first_stop(text)
            line, rep = repeat_stats(text)
            r = {"case": os.path.basename(cu)[:-3], "gen_tokens": meta["gen_tokens"], "finished": fin,
                 "nvcc": "rejected" if rejected else "entry" if entry else "no-entry", "line_run": line, "period_reps": rep}
            kind = ("finished" if fin else "unfinished") + "," + r["nvcc"]
            st[kind] += 1
            st["redrawn_before"] += rejected
            st["redrawn_now"] += rejected or not fin or not entry
            if stop is not None:
                at = ntok(text[:stop])
                r.update(stopped_at_token=at, saved_tokens=max(0, meta["gen_tokens"] - at), why=why)
                st["stopped"] += 1
                st["stopped_finished"] += fin
                st["stopped_finished_compiled"] += fin and entry
                st["saved_tokens"] += r["saved_tokens"]
            rows.append(r)
        st["plans"], st["gen_tokens"] = len(rows), sum(r["gen_tokens"] for r in rows)
        st["unfinished"] = sum(not r["finished"] for r in rows)
        st["unfinished_stopped"] = sum(not r["finished"] and "why" in r for r in rows)
        ok = [r for r in rows if r["finished"] and r["nvcc"] == "entry"]
        out["legit"][d + " finished+compiled"] = {"plans": len(ok), "line_run": dict(sorted(Counter(r["line_run"] for r in ok).items())),
                                                  "period_reps_max": max((r["period_reps"] for r in ok), default=0)}
        out["sets"][d] = {"summary": dict(sorted(st.items())), "rows": rows}
    for name, texts in twins.items():
        stats = [repeat_stats(t) for t in texts]
        out["legit"][name] = {"texts": len(texts), "line_run": dict(sorted(Counter(s[0] for s in stats).items())),
                              "period_reps_max": max((s[1] for s in stats), default=0),
                              "stopped": sum(first_stop(t)[0] is not None for t in texts)}
    return out


def variants(gen_dir, tokenizer, twins):
    """The rule's numbers moved one at a time: plans stopped (finished ones among them), tokens saved, and
    twin texts stopped, to see how much the margins cost."""
    import glob
    import json
    import os
    from tokenizers import Tokenizer
    tk = Tokenizer.from_file(tokenizer)
    plans = [(open(cu, encoding="utf-8", errors="replace").read(), json.load(open(cu[:-3] + ".json")))
             for d in ("plan", "heldin-plan") for cu in sorted(glob.glob(os.path.join(gen_dir, d, "*.cu")))]
    keep = (LINE_REPEATS, PERIOD_REPS, PERIOD_WORDS_MAX, PERIOD_SPAN_MIN)
    rows = []
    try:
        for lr, pr, pw, ps in ((8, 6, 64, 32), (6, 6, 64, 32), (8, 5, 64, 32), (8, 4, 64, 32), (8, 6, 128, 32), (8, 6, 64, 16)):
            g = globals()
            g["LINE_REPEATS"], g["PERIOD_REPS"], g["PERIOD_WORDS_MAX"], g["PERIOD_SPAN_MIN"] = lr, pr, pw, ps
            r = {"line_repeats": lr, "period_reps": pr, "period_words_max": pw, "period_span_min": ps, "stopped": 0,
                 "stopped_finished": 0, "saved_tokens": 0}
            for text, meta in plans:
                at, _ = first_stop(text)
                if at is not None:
                    r["stopped"] += 1
                    r["stopped_finished"] += bool(meta["finished"])
                    r["saved_tokens"] += max(0, meta["gen_tokens"] - len(tk.encode(text[:at], add_special_tokens=False).ids))
            r["twins_stopped"] = sum(first_stop(t)[0] is not None for ts in twins.values() for t in ts)
            rows.append(r)
    finally:
        g = globals()
        g["LINE_REPEATS"], g["PERIOD_REPS"], g["PERIOD_WORDS_MAX"], g["PERIOD_SPAN_MIN"] = keep
    return rows


def main(argv=None):
    import argparse
    import glob
    import json
    ap = argparse.ArgumentParser(description="the loop rule over a generate2 run's plans (no GPU)")
    ap.add_argument("--gen", required=True, help="a generate2 output folder (plan/, heldin-plan/)")
    ap.add_argument("--tokenizer", required=True, help="the plan model's tokenizer.json (for token positions)")
    ap.add_argument("--twin", action="append", default=[], help="NAME=GLOB of CUDA files, or NAME=FILE.jsonl (synth: its cuda_c)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    twins = {}
    for spec in a.twin:
        name, pat = spec.split("=", 1)
        if pat.endswith(".jsonl"):
            twins[name] = [j["cuda_c"] for j in map(json.loads, open(pat, encoding="utf-8")) if j.get("cuda_c")]
        else:
            twins[name] = [open(f, encoding="utf-8", errors="replace").read() for f in sorted(glob.glob(pat))]
    res = measure(a.gen, a.tokenizer, twins)
    res["variants"] = variants(a.gen, a.tokenizer, twins)
    res["meta"] = {"gen": a.gen, "tokenizer": a.tokenizer, "twins": {k: len(v) for k, v in twins.items()},
                   "note": "stopped_at_token: the .cu text up to the stop re-tokenized (the fence stripped), so approximate; "
                           "redrawn_now: unfinished, rejected or no .entry (generate2.plan_fails); redrawn_before: rejected"}
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(res, f, indent=1)
    print(json.dumps({k: v["summary"] for k, v in res["sets"].items()}, indent=1))
    print(json.dumps(res["legit"], indent=1))


if __name__ == "__main__":
    main()
