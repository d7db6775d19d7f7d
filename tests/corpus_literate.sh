#!/usr/bin/env bash
# corpus_literate.sh — the 50 corpus kernels are literate PTX (docs/LITERATE.md) over a CUDA C plan.
# For every corpus task:
#   - plan.cu exists and nvcc compiles it (-ptx, the kernel's .target);
#   - the plan's entry matches the spec and reference.cu (`ptxgen run --dry-run --kernel plan.ptx`
#     on a temporary suite of the plans' PTX);
#   - every `//` line in the kernel body is a line of plan.cu with its blanks collapsed (at most
#     160 bytes), one line per block (no runs), no trailing or block comments in the body;
#   - at least one plan comment per 15 instructions;
#   - the instructions are the ones pinned in tests/golden/corpus/plain.sha256 (sha256 of
#     `ptxgen fmt` without its comment lines: the comments changed nothing else);
#   - the kernel passes `ptxgen check --ptxas`.
# Without nvcc the plan compilations are SKIPPED (said so); the rest still runs.
# UPDATE_GOLDEN=1 rewrites plain.sha256 (after a deliberate change of a kernel's instructions).
# Usage: corpus_literate.sh [TASK...]  (default: every folder of corpus/)
set -u
cd "$(dirname "$0")/.."
P=${PTXGEN:-build/ptxgen}
PINS=tests/golden/corpus/plain.sha256
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ $# -gt 0 ]; then tasks=("$@"); else
    tasks=(); for d in corpus/*/; do [ -f "$d/task.json" ] && tasks+=("$(basename "$d")"); done
fi
NVCC=${NVCC:-}
[ -z "$NVCC" ] && NVCC=$(command -v nvcc 2>/dev/null || true)
[ -z "$NVCC" ] && [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] && NVCC=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
[ "${UPDATE_GOLDEN:-0}" = 1 ] && : >"$tmp/pins"

# norm_plan FILE: the plan's lines as comments: blanks (and control bytes) collapsed, trimmed;
# lines holding only braces and semicolons and the __global__ line are not comment lines
norm_plan() {
    LC_ALL=C awk '{ gsub(/[\001-\040]+/, " "); sub(/^ /, ""); sub(/ $/, "");
                    if ($0 ~ /[^{};]/ && index($0, "__global__") == 0) print }' "$1" | sort -u
}

mkdir -p "$tmp/suite"
nplans=0
for t in "${tasks[@]}"; do
    d=corpus/$t
    k=$d/kernel.ptx
    [ -f "$k" ] || { bad "$t: no kernel.ptx"; continue; }
    [ -f "$d/plan.cu" ] || { bad "$t: no plan.cu"; continue; }

    # comments: only full lines inside the body, each a plan line
    body=$(awk '/\.entry/ { e = 1 } e && /^[[:blank:]]*\{[[:blank:]]*$/ && !b { b = 1; next } b' "$k")
    tr=$(printf '%s\n' "$body" | grep -nE '^[[:blank:]]*[^[:blank:]/].*//|/\*' | head -3)
    [ -z "$tr" ] && ok || bad "$t: trailing or block comment in the body: $tr"
    "$P" fmt "$k" >"$tmp/fmt.ptx" 2>"$tmp/fmt.err" || { bad "$t: fmt failed: $(head -c 300 "$tmp/fmt.err")"; continue; }
    norm_plan "$d/plan.cu" >"$tmp/plan.lines"
    grep -E '^[[:space:]]*//' "$tmp/fmt.ptx" | sed -E 's/^[[:space:]]*\/\/ ?//' >"$tmp/comments"
    ncom=$(wc -l <"$tmp/comments")
    missing=$(LC_ALL=C awk 'NR == FNR { have[$0] = 1; next } !($0 in have) || length($0) > 160' "$tmp/plan.lines" "$tmp/comments" | head -3)
    [ -z "$missing" ] && ok || bad "$t: comment(s) not a line of plan.cu: $missing"
    runs=$(awk '/^[[:space:]]*\/\// { if (prev) n++; prev = 1; next } { prev = 0 } END { print n + 0 }' "$tmp/fmt.ptx")
    [ "$runs" -eq 0 ] && ok || bad "$t: $runs comment line(s) right after another (one plan line per block)"
    # instructions: body lines ending in ';' that are not declarations
    ninsn=$(awk '/^\{/ { b = 1; next } /^\}/ { b = 0 } b && /;$/ && !/^[[:space:]]*(\/\/|\.)/' "$tmp/fmt.ptx" | wc -l)
    [ "$ncom" -gt 0 ] && [ $((ncom * 15)) -ge "$ninsn" ] && ok \
        || bad "$t: $ncom plan comments for $ninsn instructions (want >= 1 per 15)"

    # the instructions did not change
    h=$(grep -vE '^[[:space:]]*//' "$tmp/fmt.ptx" | sha256sum | cut -d' ' -f1)
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then echo "$h  $t" >>"$tmp/pins"; ok
    else
        want=$(awk -v t="$t" '$2 == t { print $1 }' "$PINS")
        [ -n "$want" ] && [ "$h" = "$want" ] && ok || bad "$t: instructions differ from $PINS (fmt without comments)"
    fi
    "$P" check --ptxas "$k" >"$tmp/check.out" 2>&1 && ok || bad "$t: check --ptxas: $(head -c 300 "$tmp/check.out")"

    # the plan compiles; its PTX goes into the temporary suite
    if [ -n "$NVCC" ]; then
        arch=$(awk '$1 == ".target" { sub(/,.*/, "", $2); print $2; exit }' "$k")
        mkdir -p "$tmp/suite/$t"
        cp "$d"/task.json "$d"/plan.cu "$tmp/suite/$t/"
        [ -f "$d/reference.cu" ] && cp "$d/reference.cu" "$tmp/suite/$t/"
        if "$NVCC" -ptx -arch="$arch" -o "$tmp/suite/$t/plan.ptx" "$d/plan.cu" >"$tmp/nvcc.log" 2>&1; then
            ok; nplans=$((nplans + 1))
        else
            bad "$t: nvcc -ptx -arch=$arch plan.cu: $(grep -m1 error "$tmp/nvcc.log")"; rm -rf "${tmp:?}/suite/$t"
        fi
    fi
    echo "$t: $ncom plan comments, $ninsn instructions"
done

if [ -z "$NVCC" ]; then
    echo "SKIPPED: plan.cu compilation and signatures (nvcc not found)"
elif [ "$nplans" -gt 0 ]; then
    # the plans' entries against the spec and reference.cu
    PATH="$PATH:$(dirname "$NVCC")" "$P" run --dry-run --suite "$tmp/suite" --kernel plan.ptx >"$tmp/dry.out" 2>&1
    good=$(grep -c "static ok" "$tmp/dry.out")
    [ "$good" -eq "$nplans" ] && ok || { bad "plans: $good of $nplans pass run --dry-run:"; grep -v "static ok" "$tmp/dry.out" | head -20; }
    echo "plans: $good of $nplans statically ok (signature, check, ptxas, reference.cu)"
fi
if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then   # the tasks checked get new pins, the others keep theirs
    mkdir -p "$(dirname "$PINS")"
    { awk 'NR == FNR { $0 = $2; mine[$0] = 1; next } !($2 in mine)' "$tmp/pins" "$PINS" 2>/dev/null; cat "$tmp/pins"; } \
        | sort -k2 >"$tmp/pins.new" && mv "$tmp/pins.new" "$PINS"
fi
echo "corpus_literate: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
