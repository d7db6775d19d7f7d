#!/usr/bin/env bash
# campaign.sh — the long differential campaign of libptx against ptxas (issue 30),
# in one run: generated programs over sm_70/sm_80/sm_90, constrained random walks
# checked by ptxas, and the validator's throughput against ptxas on the dense
# nvcc -O3 files.  Results: OUT (JSON), and OUT.d/ (each shard's JSON, the cases).
#
#   tests/diff_ptxas/campaign.sh OUT [PROGRAMS] [WALKS]
#
# PROGRAMS is the count from FIRST; WALKS=0 skips the walks.
#
# Environment: SEED (1), FIRST (0: the first program number; a later run continues
# an earlier one's range with FIRST=<its end>), SHARDS (2: processes over disjoint program ranges),
# BUDGET_S (0: none; else each shard stops taking new chunks after that many
# seconds, and the programs actually checked are what the JSON records),
# CHUNK (5000 programs a diff_ptxas run), NICE (10), PTXGEN_BUILD (build), COMMIT (recorded;
# default git rev-parse HEAD: set it when running from an exported copy of the tree).
set -u
cd "$(dirname "$0")/../.."
OUT=${1:?usage: campaign.sh OUT [PROGRAMS] [WALKS]}
PROGRAMS=${2:-200000}
WALKS=${3:-10000}
SEED=${SEED:-1}
FIRST=${FIRST:-0}
SHARDS=${SHARDS:-2}
BUDGET_S=${BUDGET_S:-0}
CHUNK=${CHUNK:-5000}
NICE=${NICE:-10}
BUILD=${PTXGEN_BUILD:-build}
DP=$BUILD/diff_ptxas
PTXAS=${PTXAS:-$(command -v ptxas || echo "${CUDA_HOME:-/usr/local/cuda}/bin/ptxas")}
[ -x "$DP" ] || { echo "campaign.sh: $DP missing (make $DP)"; exit 2; }
[ -x "$PTXAS" ] || { echo "SKIPPED: ptxas not found"; exit 0; }
D=$OUT.d
rm -rf "$D"; mkdir -p "$D"
start=$(date +%s)

# 1. generated programs: SHARDS processes, each over chunks i, i+SHARDS, ...
nchunks=$(( (PROGRAMS + CHUNK - 1) / CHUNK ))
shard() {
    local s=$1 c
    for ((c = s; c < nchunks; c += SHARDS)); do
        if [ "$BUDGET_S" -gt 0 ] && [ $(( $(date +%s) - start )) -ge "$BUDGET_S" ]; then break; fi
        local first=$((FIRST + c * CHUNK)) n=$CHUNK
        [ $((c * CHUNK + n)) -gt "$PROGRAMS" ] && n=$((PROGRAMS - c * CHUNK))
        nice -n "$NICE" "$DP" --seed "$SEED" --first "$first" --programs "$n" --known tests/diff_ptxas/known.txt \
            --cases "$D/cases" --max-cases 40 --json "$D/chunk$c.json" --quiet >"$D/chunk$c.log" 2>&1
    done
}
for ((s = 0; s < SHARDS; s++)); do shard "$s" & done
wait
gen_end=$(date +%s)

# 2. constrained random walks, checked by ptxas
[ "$WALKS" -gt 0 ] && nice -n "$NICE" "$DP" --walks "$WALKS" --tokenizer models/default/tokenizer.json --seed "$SEED" \
    --cases "$D/walk_cases" --json "$D/walks.json" --quiet >"$D/walks.log" 2>&1
walk_end=$(date +%s)

# 3. validator throughput vs ptxas on the dense nvcc -O3 files (the same run)
CORPUS=$BUILD/testcorpus
if [ ! -f "$CORPUS/.complete" ]; then bash tests/cuda/build_corpus.sh "$CORPUS" >/dev/null 2>&1 && touch "$CORPUS/.complete"; fi
# shellcheck disable=SC2046
"$BUILD/bench_ptx" --ptxas --min-seconds 5 $(ls "$CORPUS"/*.O3.ptx) >"$D/bench.json" 2>"$D/bench.log" || echo '{}' >"$D/bench.json"
end=$(date +%s)

python3 - "$OUT" "$D" "$start" "$gen_end" "$walk_end" "$end" "$PROGRAMS" "$SEED" "$PTXAS" <<'PY'
import glob, json, os, subprocess, sys, platform, datetime
out, d, t0, tg, tw, te, asked, seed, ptxas = sys.argv[1:]
t0, tg, tw, te = map(int, (t0, tg, tw, te))
tot = {}; targets = {}; kinds = {}; doc = {}; chunks = []
for f in sorted(glob.glob(os.path.join(d, "chunk*.json"))):
    j = json.load(open(f)); chunks.append([j["first_program"], j["programs"]])
    for k, v in j["total"].items(): tot[k] = tot.get(k, 0) + v
    for t in j["targets"]:
        a = targets.setdefault(t["target"], {"ptxas_arch": t["ptxas_arch"]})
        for k, v in t.items():
            if isinstance(v, int): a[k] = a.get(k, 0) + v
    for k, v in j.get("documented_by_entry", {}).items(): doc[k] = doc.get(k, 0) + v
    for s in j["disagreements"]:
        e = kinds.setdefault(s["key"], {"direction": s["direction"], "count": 0, "category": s["category"], "what": s["what"],
                                        "target": s["target"], "libptx": s["libptx"], "ptxas": s["ptxas"], "example": s.get("example", "")})
        e["count"] += s["count"]
        if s.get("case"): e["case"] = s["case"]
w = json.load(open(os.path.join(d, "walks.json"))) if os.path.exists(os.path.join(d, "walks.json")) else {}
try: b = json.load(open(os.path.join(d, "bench.json")))
except Exception: b = {}
def sh(c):
    try: return subprocess.run(c, shell=True, capture_output=True, text=True).stdout.strip()
    except Exception: return ""
cpu = sh("grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'")
res = {
    "benchmark": "diff_ptxas campaign: libptx against ptxas (issue 30)",
    "date": datetime.datetime.utcnow().strftime("%Y-%m-%d"),
    "commit": os.environ.get("COMMIT") or (sh("git rev-parse HEAD") + (" (+uncommitted)" if sh("git status --porcelain --untracked-files=no") else "")),
    "device": "CPU VM: %s x %d cores (shared with other jobs), no GPU" % (cpu, os.cpu_count()),
    "ptxas": sh(ptxas + " --version | tail -n1"),
    "seed": int(seed), "first_program": int(os.environ.get("FIRST", "0")), "programs_asked": int(asked), "programs_checked": tot.get("programs", 0),
    "program_chunks": sorted(chunks),
    "seconds": {"programs": tg - t0, "walks": tw - tg, "bench": te - tw},
    "total": tot, "targets": targets, "documented_by_entry": doc,
    "disagreement_kinds": len(kinds),
    "disagreements": sorted(kinds.values(), key=lambda e: -e["count"]),
    "walks": w, "validator_bench": b,
}
json.dump(res, open(out + ".tmp", "w"), indent=2, sort_keys=True); os.replace(out + ".tmp", out)
dis = tot.get("false_accept", 0) + tot.get("false_reject", 0)
print("campaign: %d programs, %d checks: %d disagreements (%d kinds), %d documented; walks %s/%s accepted; validator %s MB/s, x%s ptxas"
      % (tot.get("programs", 0), tot.get("checks", 0), dis, len(kinds), tot.get("documented", 0), w.get("accepted_by_both"), w.get("walks"),
         b.get("mb_per_s", b.get("parse_validate_mb_per_s")), b.get("speedup_vs_ptxas")))
PY
