#!/usr/bin/env bash
# crash_resume.sh — crash consistency of the long jobs (issue 32): synth and eval are
# killed with SIGKILL (the whole process group, as a crash or the OOM killer would end
# them) at random points, run again with the same arguments until they finish, and
# the result must be byte-identical to an uninterrupted run (eval: with its
# wall-clock fields masked).  Expert iteration's data steps (train/expert_iter.py
# select + pairs) get the same treatment when python3 is there.
#
# usage: bash tests/crash_resume.sh [--kills N] [--seed S] [--report FILE]
#   --kills N   kill points per job (default 20); the run resumes after each
# Prints "crash: N passed, N failed": one check per finished chain of kills.
set -u
cd "$(dirname "$0")/.."
R=$PWD
P=${PTXGEN_BIN:-$R/build/ptxgen}
case "$P" in /*) ;; *) P=$R/$P ;; esac
KILLS=20
SEED=$$
REPORT=""
while [ $# -gt 0 ]; do
    case $1 in
        --kills) KILLS=$2; shift 2 ;;
        --seed) SEED=$2; shift 2 ;;
        --report) REPORT=$2; shift 2 ;;
        *) echo "usage: $0 [--kills N] [--seed S] [--report FILE]" >&2; exit 2 ;;
    esac
done
export PATH="$PATH:${CUDA_HOME:-/usr/local/cuda}/bin"
RANDOM=$SEED
W=$(mktemp -d "${TMPDIR:-/tmp}/ptxgen-crash-XXXXXX")
trap 'rm -rf "$W"' EXIT
pass=0 fail=0
lines=()
T=$R/tests/gen/tiny
mask() { sed -E 's/("([a-z_]*seconds|seconds|tokens_per_s|samples_per_second|date)"): *("[^"]*"|-?[0-9.eE+-]+)/\1: "T"/g' "$1"; }

# job NAME OUTPUTS -- CMD...: the command runs in $W/<run> (cwd); OUTPUTS are compared
declare -A J_OUT J_CMD J_FIX
JOBS=()
job() { local n=$1 o=$2; shift 3; JOBS+=("$n"); J_OUT[$n]=$o; J_CMD[$n]=$(printf '%q ' "$@"); }
if command -v ptxas >/dev/null 2>&1; then
    job synth "s.jsonl" -- "$P" synth --count 96 --seed 7 --sources hand,expr,mutant --jobs 1 --corpus "$R/corpus" --no-progress --out s.jsonl
    job eval "e.json" -- "$P" eval --suite "$R/bench/suite" --only leaky_relu,ew_silu,complex_mul --model "$T" --no-gpu --no-progress \
        --no-ablations --samples 2 --max-tokens 96 --out e.json --resume
else
    echo "SKIPPED synth and eval (ptxas not found: both verify with it)"
fi
if python3 -c "import json" 2>/dev/null && command -v ptxas >/dev/null 2>&1; then
    J_FIX[expert]=$W/fix-expert
    bash tests/crash_expert.sh --fixture "$W/fix-expert"
    job expert "round-1/kept.json round-1/kept round-1/kept-synth.jsonl round-1/pairs-own.jsonl round-1/pairs.jsonl round-1/pairs.json" -- \
        bash "$R/tests/crash_expert.sh" "$P"
fi

# start DIR CMD: the command in DIR, in its own process group (PID: its pid, = the group's)
start() { (cd "$1" && exec setsid bash -c "exec $2" >"$1/.out" 2>"$1/.err") & PID=$!; }
alive() { kill -0 "$1" 2>/dev/null; }

for name in "${JOBS[@]}"; do
    ref=$W/ref-$name
    # kill points are drawn from [0, the shorter of two uninterrupted runs] (this machine is shared)
    dur_ms=0
    for k in 1 2; do
        rm -rf "$ref"; mkdir -p "$ref"
        [ -n "${J_FIX[$name]:-}" ] && cp -a "${J_FIX[$name]}/." "$ref/"
        t0=$(date +%s%N)
        (cd "$ref" && eval "${J_CMD[$name]}" >.out 2>.err)
        rc=$?
        ms=$(( ($(date +%s%N) - t0) / 1000000 ))
        [ "$dur_ms" = 0 ] || [ "$ms" -lt "$dur_ms" ] && dur_ms=$ms
        [ "$rc" -ne 0 ] && break
    done
    if [ "$rc" -ne 0 ]; then fail=$((fail + 1)); echo "FAIL $name: the uninterrupted run failed (exit $rc): $(tail -2 "$ref/.err")"; continue; fi
    kills=0 chains=0 bad=0 runs=0
    while [ "$kills" -lt "$KILLS" ]; do
        d=$W/run-$name
        rm -rf "$d"; mkdir -p "$d"
        [ -n "${J_FIX[$name]:-}" ] && cp -a "${J_FIX[$name]}/." "$d/"
        chains=$((chains + 1))
        killed_here=0
        while :; do   # kill at a random point, resume, ... (at most 4 kills per chain), then finish
            start "$d" "${J_CMD[$name]}"
            pid=$PID
            runs=$((runs + 1))
            if [ "$killed_here" -lt 4 ] && [ "$kills" -lt "$KILLS" ]; then
                ms=$(( RANDOM % (dur_ms + 1) ))
                sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
                if alive "$pid"; then
                    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid"
                    wait "$pid" 2>/dev/null
                    kills=$((kills + 1)); killed_here=$((killed_here + 1))
                    continue
                fi
            fi
            wait "$pid"
            rc=$?
            break
        done
        why=""
        [ "$rc" -ne 0 ] && why="the resumed run failed (exit $rc): $(tail -c 300 "$d/.err")"
        for o in ${J_OUT[$name]}; do
            [ -n "$why" ] && break
            if [ -d "$ref/$o" ]; then diff -r "$ref/$o" "$d/$o" >/dev/null 2>&1 || why="$o differs"
            elif ! cmp -s <(mask "$ref/$o") <(mask "$d/$o" 2>/dev/null); then why="$o differs from the uninterrupted run"; fi
        done
        left=$(find "$d" -name '*.tmp.*' | sed "s|^$d/||" | tr '\n' ' ')
        [ -z "$why" ] && [ -n "$left" ] && why="temporary files left after the finished run: $left"
        if [ -n "$why" ]; then bad=$((bad + 1)); fail=$((fail + 1)); echo "FAIL $name (chain $chains, $killed_here kills): $why"
        else pass=$((pass + 1)); fi
    done
    line=$(printf '%-7s %3d SIGKILL points in %2d chains (%3d runs; uninterrupted run %5d ms): %d chains differ' \
        "$name" "$kills" "$chains" "$runs" "$dur_ms" "$bad")
    echo "$line"
    lines+=("$line")
done
if [ -n "$REPORT" ]; then
    {
        echo "# crash consistency (tests/crash_resume.sh --kills $KILLS --seed $SEED)"
        echo "# $(date -u +%Y-%m-%d) on $(uname -m), $(nproc) cores; ptxgen $("$P" --version 2>/dev/null), commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (with local changes)')"
        echo "# each chain: SIGKILL (process group) at up to 4 random points in [0, uninterrupted time], resumed each time,"
        echo "# then run to the end; the outputs are compared with the uninterrupted run's"
        printf '%s\n' "${lines[@]}"
        echo "crash: $pass passed, $fail failed"
    } >"$REPORT"
fi
echo "crash: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
