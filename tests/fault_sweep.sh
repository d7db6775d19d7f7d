#!/usr/bin/env bash
# fault_sweep.sh — fault injection over ptxgen's commands, SQLite-style (issue 32).
#
# Every case runs once cleanly, then again with tests/fault/faultshim.c
# (LD_PRELOAD) making the Nth write / fsync / rename / malloc fail, for
# N = 1, 2, 3 ... until a run is untouched (the Nth call never came).  Each
# faulted run must end one of two ways:
#   - the exit status of the clean run, with every output byte-identical to
#     the clean run's (the fault was absorbed, e.g. by a retry), or
#   - a non-zero exit with a diagnostic on stderr, and every output file either
#     absent or byte-identical to the clean run's (nothing half-written or wrong
#     under an output's name); a resumable job (synth, eval) is then resumed
#     without faults and must end byte-identical to the clean run;
# and never a crash (a signal, a sanitizer report), never a temporary file left
# (*.tmp.* beside the outputs, anything in the run's private $TMPDIR).
# Wall-clock fields ("seconds", "*_seconds", "*_s" such as gen's per-stage "draw_s", dates) are masked
# before comparing; nothing else is.
#
# usage: bash tests/fault_sweep.sh [--max-n N] [--max-malloc N] [--stride-after N] [--kinds K,K...] [--only CASE,...]
#                                  [--report FILE] [--list]
#   --max-n N   stop each write/fsync/rename sweep at N (make test: a bounded sweep); default: until untouched
#   --max-malloc N   the same for malloc
#   --stride-after N  malloc: every N up to this, then steps of ~3% to the total (default 200)
#   --kinds     write (the Nth write fails once), write:all (it and every later one: a full
#               disk), fsync, rename, malloc (only the cases marked for it: the loaders)
#   --report F  also write the summary table to F
# Prints "fault: N passed, N failed": one check per (case, kind, N).
set -u
cd "$(dirname "$0")/.."
R=$PWD
P=${PTXGEN_FAULT_BIN:-$R/build/ptxgen}   # the release build: ASan's allocator and a preloaded malloc do not mix
case "$P" in /*) ;; *) P=$R/$P ;; esac
SHIM=$R/build/fault/faultshim.so
ARGS="$*"
MAX_N=0
MAX_MALLOC=0
STRIDE_AFTER=200
KINDS=write,write:all,fsync,rename,malloc
ONLY=""
REPORT=""
LIST=0
while [ $# -gt 0 ]; do
    case $1 in
        --max-n) MAX_N=$2; shift 2 ;;
        --max-malloc) MAX_MALLOC=$2; shift 2 ;;
        --stride-after) STRIDE_AFTER=$2; shift 2 ;;
        --kinds) KINDS=$2; shift 2 ;;
        --only) ONLY=$2; shift 2 ;;
        --report) REPORT=$2; shift 2 ;;
        --list) LIST=1; shift ;;
        *) echo "usage: $0 [--max-n N] [--kinds K,...] [--only CASE,...] [--report FILE] [--list]" >&2; exit 2 ;;
    esac
done
if [ ! -x "$P" ] || [ ! -f "$SHIM" ]; then
    echo "fault: needs $P and $SHIM (make all build/fault/faultshim.so)"
    echo "fault: 0 passed, 1 failed"
    exit 1
fi
CUDA_BIN=${CUDA_HOME:-/usr/local/cuda}/bin
export PATH="$PATH:$CUDA_BIN"
HAVE_PTXAS=0; command -v ptxas >/dev/null 2>&1 && HAVE_PTXAS=1
HAVE_NVCC=0; command -v nvcc >/dev/null 2>&1 && HAVE_NVCC=1
W=$(mktemp -d "${TMPDIR:-/tmp}/ptxgen-fault-XXXXXX")
trap 'rm -rf "$W"' EXIT
pass=0 fail=0
summary=()
T=$R/tests/gen/tiny

# ---- the cases ------------------------------------------------------------------------------
# case NAME KINDS OUTPUTS RESUME -- CMD...
#   KINDS    "io" (write, write:all, fsync, rename) or "io+malloc"
#   OUTPUTS  space-separated files in the run folder the command writes ("-" = its stdout); a name
#            ending in "~" is a report about the run (synth's meta.json: candidates, resumed_from),
#            which a resumed run writes about itself: after a resume it must exist, not match
#   RESUME   "yes": a failed run is resumed (the same command, no fault) and must then match
# A case's fixture folder (F_<name>, made by fixture_<name> when defined) is copied into each run folder.
CASES=()
declare -A C_KINDS C_OUT C_RESUME C_CMD C_NEEDS
defcase() {
    local name=$1 kinds=$2 outs=$3 resume=$4 needs=$5; shift 5
    [ "$1" = "--" ] && shift
    CASES+=("$name")
    C_KINDS[$name]=$kinds C_OUT[$name]=$outs C_RESUME[$name]=$resume C_NEEDS[$name]=$needs
    C_CMD[$name]=$(printf '%q ' "$@")
}
defcase fmt          io        "-"                       no ""      -- "$P" fmt "$R/examples/vecadd.ptx"
defcase explain      io        "-"                       no ""      -- "$P" explain "$R/examples/vecadd.ptx"
defcase explain_json io        "-"                       no ""      -- "$P" explain --json "$R/examples/vecadd.ptx"
defcase isa          io        "-"                       no ""      -- "$P" isa
defcase check_json   io        "-"                       no ""      -- "$P" check --json "$R/tests/golden/bad_vecadd.ptx"
defcase stats        io        "-"                       no ""      -- "$P" stats "$R/examples/vecadd.ptx"
defcase grammar      io        "g.gbnf"                  no ""      -- "$P" grammar --gbnf -o g.gbnf
defcase gate         io        "g.json g.md -"           no ""      -- "$P" gate --no-ptxas --baseline "$R/tests/gate/base.ptx" \
    --candidate "$R/tests/gate/cand_improved.ptx" --json g.json --markdown g.md
defcase gate_ptxas   io        "g.json -"                no "ptxas" -- "$P" gate --baseline "$R/tests/gate/base.ptx" \
    --candidate "$R/tests/gate/cand_improved.ptx" --json g.json --quiet
defcase gate_stdout  io        "-"                       no ""      -- "$P" gate --no-ptxas --baseline "$R/tests/gate/base.ptx" \
    --candidate "$R/tests/gate/cand_improved.ptx" --json -
defcase gen          io+malloc "out.ptx"                 no ""      -- "$P" gen --model "$T" --samples 1 --max-tokens 120 -o out.ptx "vector add"
defcase gen_json     io        "vecadd.ptx -"            no ""      -- "$P" gen --model "$T" --samples 2 --max-tokens 120 --json --name vecadd "vector add"
defcase gen_stdout   io        "-"                       no ""      -- "$P" gen --model "$T" --samples 1 --max-tokens 120 -o - "vector add"
defcase gen_twin     io        "k.ptx k.cu k.task.json -" no ""     -- env NVCC=/nonexistent/nvcc "$P" gen --model "$T" --samples 1 --max-tokens 120 \
    --json --twin-file "$R/tests/twin/saxpy.cu" -o k.ptx "y = a*x + y"
defcase twin         io        "k.cu k.task.json -"      no ""      -- env NVCC=/nonexistent/nvcc "$P" twin --json --no-gpu k.ptx "$R/tests/twin/saxpy.cu"
fixture_twin() { cp "$R/tests/twin/saxpy_good.ptx" "$1/k.ptx"; }
defcase synth        io        "s.jsonl s.jsonl.meta.json~" yes "ptxas" -- "$P" synth --count 3 --seed 1 --sources hand --jobs 1 \
    --corpus "$R/corpus" --no-progress --out s.jsonl
defcase synth_tasks  io        "pool"                    no ""      -- "$P" synth --tasks-only pool --count 2 --seed 5
defcase prompts      io        "p.jsonl"                 no ""      -- "$P" prompts --in in.jsonl --out p.jsonl
fixture_prompts() { cp "$W/prompts_in.jsonl" "$1/in.jsonl"; }
defcase eval         io        "e.json -"                yes "ptxas" -- "$P" eval --suite "$R/bench/suite" --only relu6 --model "$T" --no-gpu \
    --no-progress --no-ablations --styles terse,zh --max-tokens 64 --out e.json --resume
defcase eval_kernels io        "e.json -"                yes "ptxas" -- "$P" eval --suite "$R/bench/suite" --only relu6 --kernels "$R/tests/twin/eval_kernels" \
    --no-gpu --no-progress --no-ablations --out e.json --resume
defcase eval_merge   io        "m.json"                  no ""      -- "$P" eval --merge a.json b.json --out m.json
fixture_eval_merge() { cp "$W/eval_a.json" "$1/a.json"; cp "$W/eval_b.json" "$1/b.json"; }
defcase eval_report  io        "-"                       no ""      -- "$P" eval --report a.json
fixture_eval_report() { cp "$W/eval_a.json" "$1/a.json"; }
defcase run_out      io        "r.json -"                no "nvcc"  -- "$P" run --dry-run --json --out r.json "$R/corpus/saxpy/task.json" "$R/corpus/saxpy/kernel.ptx"
defcase nvcc         io        "saxpy_baseline.ptx saxpy_superopt.ptx ptxgen_report.json ptxgen_report.md" no "nvcc" -- \
    env PTXGEN_BIN="$R/tests/nvcc/fake_gen.sh" "$P" nvcc -arch=sm_80 -c "$R/tests/nvcc/saxpy.cu" -o app.o
defcase logits       io+malloc "-"                       no ""      -- "$P" logits --model "$T" --ids 1,2,3 --steps 1 --top 3
defcase logits_gguf  io+malloc "-"                       no ""      -- "$P" logits --model "$R/tests/model/gguf_engine/tiny_qwen2.gguf" \
    --adapter "$R/tests/model/gguf_engine/tiny_qwen2_lora" --ids 1,5,17 --steps 1 --top 3
defcase logits_text  io+malloc "-"                       no ""      -- "$P" logits --model "$T" --text "add two float arrays" \
    --tokenizer "$T/tokenizer.json" --steps 1 --top 3
defcase logits_lora  io+malloc "-"                       no ""      -- "$P" logits --model "$R/tests/model/tied" --adapter "$R/tests/model/lora" \
    --ids 1,2 --steps 1 --top 3

if [ "$LIST" = 1 ]; then printf '%s\n' "${CASES[@]}"; exit 0; fi

# ---- running one --------------------------------------------------------------------------
mask() {   # wall-clock fields, dates and the wrapper report's seconds -> fixed text
    sed -E -e 's/("([a-z_]*seconds|seconds|[a-z_]+_s|samples_per_second|date)"): *("[^"]*"|-?[0-9.eE+-]+)/\1: "T"/g' \
           -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z/DATE/g' \
           -e 's/added [0-9.]+ s to the build for ([0-9]+) kernels? \([0-9.]+ s per kernel\)/added T s to the build for \1 kernels (T s per kernel)/' \
           -e 's/\| [0-9]+\.[0-9]+ \|$/| T |/' "$1"   # the nvcc wrapper's Markdown report: seconds it added
}
# run DIR CASE [FAULT]: a fresh run folder with the fixture, the command in it; sets RC
run() {
    local d=$1 name=$2 fault=${3:-}
    rm -rf "$d"
    mkdir -p "$d/.tmp"
    if [ -d "$W/fix-$name" ]; then cp -a "$W/fix-$name/." "$d/"; fi
    rerun "$d" "$name" "$fault"
}
# rerun DIR CASE [FAULT]: the command again in the same folder (a resume)
rerun() {
    local d=$1 name=$2 fault=${3:-}
    rm -f "$d/.fault.log"
    local cmd=${C_CMD[$name]}
    cmd=${cmd#env }   # a case's own variables join this env: an exec'd `env` would run without the shim
    if [ -n "$fault" ]; then
        (cd "$d" && eval "env TMPDIR=$d/.tmp LD_PRELOAD=$SHIM PTXGEN_FAULT=$fault PTXGEN_FAULT_LOG=$d/.fault.log $cmd" \
            >"$d/.stdout" 2>"$d/.stderr")
    else
        (cd "$d" && eval "env TMPDIR=$d/.tmp $cmd" >"$d/.stdout" 2>"$d/.stderr")
    fi
    RC=$?
}
# same CLEAN RUN CASE [resumed]: every output of RUN equals CLEAN's (masked); "-" is stdout
same_outputs() {
    local c=$1 r=$2 name=$3 resumed=${4:-} o
    for o in ${C_OUT[$name]}; do
        [ "$o" = "-" ] && o=.stdout
        if [ "${o%\~}" != "$o" ]; then
            o=${o%\~}
            if [ -n "$resumed" ]; then [ -e "$r/$o" ] || return 1; continue; fi
        fi
        if [ -d "$c/$o" ]; then diff -r "$c/$o" "$r/$o" >/dev/null 2>&1 || return 1; continue; fi
        [ -e "$r/$o" ] || return 1
        cmp -s <(mask "$c/$o") <(mask "$r/$o") || return 1
    done
    return 0
}
# Files under RUN that look like output but are not the clean run's: half-written, or wrong.
wrong_outputs() {
    local c=$1 r=$2 name=$3 o bad=""
    for o in ${C_OUT[$name]}; do
        [ "$o" = "-" ] && continue
        o=${o%\~}
        if [ -d "$r/$o" ]; then   # a folder of outputs: each file in it complete or absent
            local f
            while IFS= read -r f; do
                cmp -s <(mask "$c/$o/$f") <(mask "$r/$o/$f") || bad="$bad $o/$f"
            done < <(cd "$r/$o" && find . -type f ! -name '*.tmp.*' | sed 's|^\./||')
            continue
        fi
        [ -e "$r/$o" ] || continue
        cmp -s <(mask "$c/$o") <(mask "$r/$o") || bad="$bad $o"
    done
    echo "$bad"
}
leaks() {   # temporary files left behind
    local r=$1
    { find "$r" -name '*.tmp.*' -not -path "$r/.tmp/*"; find "$r/.tmp" -mindepth 1 -maxdepth 1; } 2>/dev/null | sed "s|^$r/||" | tr '\n' ' '
}

# ---- fixtures made by ptxgen itself (from clean runs) ---------------------------------------
prepare() {
    mkdir -p "$W/fix-twin" "$W/fix-prompts" "$W/fix-eval_merge" "$W/fix-eval_report"
    fixture_twin "$W/fix-twin"
    if [ "$HAVE_PTXAS" = 1 ]; then
        (cd "$W" && "$P" synth --count 4 --seed 2 --sources hand --jobs 1 --corpus "$R/corpus" --no-progress \
            --out prompts_in.jsonl >/dev/null 2>&1)
        for s in terse zh; do
            (cd "$W" && "$P" eval --suite "$R/bench/suite" --only relu6 --kernels "$R/tests/twin/eval_kernels" --no-gpu --no-progress \
                --no-ablations --styles $s --out "eval_$s.json" >/dev/null 2>&1)
        done
        mv "$W/eval_terse.json" "$W/eval_a.json" 2>/dev/null
        mv "$W/eval_zh.json" "$W/eval_b.json" 2>/dev/null
    fi
    [ -f "$W/prompts_in.jsonl" ] && fixture_prompts "$W/fix-prompts"
    [ -f "$W/eval_a.json" ] && fixture_eval_merge "$W/fix-eval_merge" && fixture_eval_report "$W/fix-eval_report"
}
prepare

# ---- the sweep ----------------------------------------------------------------------------
for name in "${CASES[@]}"; do
    if [ -n "$ONLY" ] && [[ ",$ONLY," != *",$name,"* ]]; then continue; fi
    case ${C_NEEDS[$name]} in
        ptxas) [ "$HAVE_PTXAS" = 1 ] || { echo "SKIPPED $name (ptxas not found)"; continue; } ;;
        nvcc) [ "$HAVE_NVCC" = 1 ] || { echo "SKIPPED $name (nvcc not found)"; continue; } ;;
    esac
    if [ "$name" = prompts ] && [ ! -f "$W/fix-prompts/in.jsonl" ]; then echo "SKIPPED prompts (no input: synth needs ptxas)"; continue; fi
    if [[ "$name" == eval_merge || "$name" == eval_report ]] && [ ! -f "$W/eval_a.json" ]; then echo "SKIPPED $name (no eval input)"; continue; fi
    clean=$W/clean-$name
    run "$clean" "$name"
    crc=$RC
    run "$W/again" "$name"
    if [ "$RC" != "$crc" ] || ! same_outputs "$clean" "$W/again" "$name"; then
        fail=$((fail + 1)); echo "FAIL $name: two clean runs differ (exit $crc vs $RC): not deterministic, cannot be swept"
        continue
    fi
    if [ "$crc" -ge 128 ]; then fail=$((fail + 1)); echo "FAIL $name: the clean run crashed (exit $crc)"; continue; fi
    for kind in ${KINDS//,/ }; do
        [ "$kind" = malloc ] && [[ "${C_KINDS[$name]}" != *malloc* ]] && continue
        k=${kind%%:*} mode=${kind#*:}
        [ "$mode" = "$kind" ] && mode=""
        n=1 runs=0 injected=0 absorbed=0 failed_clean=0 resumed=0 bad=0 untouched=0
        total=""
        if [ "$k" = malloc ]; then   # how many allocations: the sweep strides past the first 200
            run "$W/count" "$name" "malloc:999999999"
            total=$(sed -n 's/^total malloc \([0-9]*\) .*/\1/p' "$W/count/.fault.log" | head -1)
        fi
        limit=$MAX_N
        [ "$k" = malloc ] && limit=$MAX_MALLOC
        while :; do
            if [ "$limit" -gt 0 ] && [ "$n" -gt "$limit" ]; then break; fi
            d=$W/run
            run "$d" "$name" "$k:$n${mode:+:$mode}"
            runs=$((runs + 1))
            why=""
            if ! grep -q "^$k " "$d/.fault.log" 2>/dev/null; then
                # the Nth call never came: the run is the clean run
                untouched=1
                if [ "$RC" != "$crc" ] || ! same_outputs "$clean" "$d" "$name"; then why="untouched run differs from the clean run (exit $RC)"; fi
            else
                injected=$((injected + 1))
                leaked=$(leaks "$d")
                if [ "$RC" -ge 128 ] || grep -qE 'AddressSanitizer|runtime error:|Segmentation fault' "$d/.stderr"; then
                    why="crash (exit $RC): $(grep -m1 -E 'Sanitizer|runtime error|Segmentation' "$d/.stderr")"
                elif [ -n "$leaked" ]; then
                    why="temporary files left: $leaked"
                elif [ "$RC" = "$crc" ] && same_outputs "$clean" "$d" "$name"; then
                    absorbed=$((absorbed + 1))
                elif [ "$RC" = 0 ] || [ "$RC" = "$crc" ]; then
                    why="exit $RC (the clean run's) with outputs that differ: $(wrong_outputs "$clean" "$d" "$name")"
                    [ -z "$(wrong_outputs "$clean" "$d" "$name")" ] && why="exit $RC (the clean run's) with an output missing"
                elif ! grep -qiE 'error|out of memory|failed|cannot' "$d/.stderr"; then
                    why="exit $RC without a diagnostic"
                else
                    wrong=$(wrong_outputs "$clean" "$d" "$name")
                    if [ "${C_RESUME[$name]}" = yes ]; then
                        rerun "$d" "$name"
                        if [ "$RC" = "$crc" ] && same_outputs "$clean" "$d" "$name" resumed && [ -z "$(leaks "$d")" ]; then resumed=$((resumed + 1)); failed_clean=$((failed_clean + 1))
                        else why="resumed after the fault: exit $RC, outputs $(wrong_outputs "$clean" "$d" "$name") differ $(leaks "$d")"; fi
                    elif [ -n "$wrong" ]; then
                        why="failed (exit $RC) but left outputs that are not the clean run's:$wrong"
                    else
                        failed_clean=$((failed_clean + 1))
                    fi
                fi
            fi
            if [ -n "$why" ]; then
                bad=$((bad + 1)); fail=$((fail + 1))
                echo "FAIL $name $kind N=$n: $why"
                echo "     stderr: $(tail -c 300 "$d/.stderr" | tr '\n' ' ')"
            else
                pass=$((pass + 1))
            fi
            [ "$untouched" = 1 ] && break
            # malloc: every N up to STRIDE_AFTER, then steps of ~3% up to the total (then the untouched run)
            if [ "$k" = malloc ] && [ "$n" -ge "$STRIDE_AFTER" ] && [ -n "$total" ]; then
                step=$((n / 32)); n=$((n + (step > 1 ? step : 1)))
                [ "$n" -gt "$total" ] && n=$((total + 1))
            else
                n=$((n + 1))
            fi
        done
        status=$([ "$untouched" = 1 ] && echo "N=1..$((n))" || echo "N=1..$limit (bounded)")
        [ "$k" = malloc ] && [ -n "$total" ] && [ "$total" -gt "$STRIDE_AFTER" ] &&
            status="$status of $total allocations (every N to $STRIDE_AFTER, then ~3% steps)"
        line=$(printf '%-13s %-9s %5d runs %4d injected %4d absorbed %4d failed-cleanly %3d resumed %3d violations  %s' \
            "$name" "$kind" "$runs" "$injected" "$absorbed" "$failed_clean" "$resumed" "$bad" "$status")
        echo "$line"
        summary+=("$line")
    done
done
if [ -n "$REPORT" ]; then
    {
        echo "# fault injection sweep (tests/fault_sweep.sh $ARGS)"
        echo "# $(date -u +%Y-%m-%d) on $(uname -m), $(nproc) cores; ptxgen $("$P" --version 2>/dev/null), commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (with local changes)')"
        echo "# violation = a crash, a temp file left, exit 0 with a missing/different output, or a failure without a"
        echo "# diagnostic or with a half-written output; 'failed-cleanly' = non-zero exit, diagnostic, nothing wrong left"
        printf '%s\n' "${summary[@]}"
        echo "fault: $pass passed, $fail failed"
    } >"$REPORT"
fi
echo "fault: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
