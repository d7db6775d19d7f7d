import dev, run1, json, collections, os, re, difflib, sys
R = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "2026-12-07-plan-round12-qwen15-h100") + "/"
SETS = [("suite", "eval-plan-e2e-suite.json", "e2e", "plan", "failures-e2e-suite.json", "eval-plan-plan-suite.json"),
        ("prose", "eval-plan-e2e-suite-prose.json", "e2e", "plan", "failures-e2e-suite-prose.json", "eval-plan-plan-suite-prose.json"),
        ("heldin", "eval-plan-heldin.json", "heldin", "heldin-plan", "failures-heldin.json", "eval-plan-heldinplan.json")]
out = []
for name, ev, kd, pd, ff, pe in SETS:
    fails = {r["case"]: r for r in json.load(open(R + ff))}
    pv = {}
    for r in json.load(open(pe))["rows"]:
        pv[f"{r['task']}.{r['description']}.{r['config']}.{r['sample']}"] = "correct" if r.get("correct") is True else ("unverified" if r.get("last_stage") in (None, "skipped", "generation") else "wrong")
    for r, key, lp, kp in run1.rows(ev, kd, pd):
        if r.get("last_stage") == "generation":
            continue
        f = fails.get(key)
        row = dict(set=name, case=key, task=r["task"], style=r["description"], family=r.get("family", ""),
                   stage=r["last_stage"], cause=(f or {}).get("cause", "correct" if r["last_stage"] == "correct" else "?"),
                   plan_run=pv.get(key, "unverified"), tokens=json.load(open(kp[:-4] + ".json")).get("gen_tokens", 0) if os.path.exists(kp[:-4] + ".json") else 0)
        plan = open(f"gen-plan/{pd}/{key}.cu", errors="replace").read()
        body = plan[plan.find("{"):]
        row["plan_lines"] = sum(1 for ln in body.splitlines() if ln.strip() and not ln.strip().startswith("//") and ln.strip() not in ("{", "}"))
        row["idioms"] = [k for k, pat in [("reinterpret_cast", r"reinterpret_cast"), ("vec-type", r"\b(float|double|int|uint|half)[24]\b|__half2|__nv_bfloat162"),
                                           ("shfl", r"__shfl"), ("syncthreads", r"__syncthreads"), ("atomic", r"atomic\w+\("),
                                           ("shared", r"__shared__"), ("pragma-unroll", r"#pragma unroll"), ("math", dev.MATH.pattern),
                                           ("ternary", r"\?[^:]+:"), ("half/bf16", r"__half|__nv_bfloat16|__float2half|__float2bfloat16"),
                                           ("while", r"\bwhile\b"), ("grid-stride", r"gridDim\.x")] if re.search(pat, plan)]
        if lp:
            ref, gen, rec, s = run1.compare(lp, kp)
            row.update(recall=round(rec, 3), sinks=s, undef=len(gen.undef_reads), target_stmts=len([p for p in ref.instrs if p["op"] != "label"]),
                       gen_stmts=len([p for p in gen.instrs if p["op"] != "label"]))
            a = [p.get("nop", "label") for p in ref.instrs]; b = [p.get("nop", "label") for p in gen.instrs]
            row["op_ratio"] = round(difflib.SequenceMatcher(None, a, b, autojunk=False).ratio(), 3)
            # plan-line order: the sequence of plan comments
            la = [x for i, x in enumerate(p["line"] for p in ref.instrs) if i == 0 or x != ref.instrs[i - 1]["line"]]
            lb = [x for i, x in enumerate(p["line"] for p in gen.instrs) if i == 0 or x != gen.instrs[i - 1]["line"]]
            row["line_ratio"] = round(difflib.SequenceMatcher(None, la, lb, autojunk=False).ratio(), 3)
            row["roots"] = dev.diagnose(ref, gen)
            row["extras"] = dev.extras(ref, gen)
            # registers defined more than once in gen vs ref
            row["multidef"] = (sum(1 for v in gen.defs.values() if v > 1), sum(1 for v in ref.defs.values() if v > 1))
        out.append(row)
json.dump(out, open("agg.json", "w"), indent=1)
print(len(out))
