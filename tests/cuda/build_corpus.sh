#!/usr/bin/env bash
# Build the PTX test corpus: compile every tests/cuda/*.cu with `nvcc -ptx` for each
# arch x flag-set, keep only the PTX that ptxas accepts.
#
#   usage: tests/cuda/build_corpus.sh OUTDIR
#
# Output: OUTDIR/<file>.<arch>.<flagname>.ptx
#   arch     in: sm_75 sm_80 sm_90 sm_90a
#   flagname in: O3 ("-O3"), O3-lineinfo ("-O3 -lineinfo"), G ("-G"), O3-rdc ("-O3 -rdc=true")
# nvcc failures are skipped with a note; PTX that ptxas rejects is deleted and listed on stderr.
# The -rdc=true variant is checked with `ptxas -c` (relocatable: .extern symbols allowed).
# Env: CUDA_HOME (fallback location of nvcc/ptxas), JOBS (parallelism, default nproc),
#      ARCHS / FLAGSETS (space-separated subsets, e.g. ARCHS="sm_80" FLAGSETS="O3").
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi

SRCDIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUTDIR="$1"

NVCC="$(command -v nvcc 2>/dev/null || true)"
if [ -z "$NVCC" ] && [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvcc" ]; then
    NVCC="$CUDA_HOME/bin/nvcc"
fi
if [ -z "$NVCC" ]; then
    echo "nvcc not found: skipping corpus build"
    exit 0
fi
PTXAS="$(dirname "$NVCC")/ptxas"
[ -x "$PTXAS" ] || PTXAS="$(command -v ptxas 2>/dev/null || true)"
if [ -z "$PTXAS" ]; then
    echo "ptxas not found next to $NVCC: skipping corpus build"
    exit 0
fi

mkdir -p "$OUTDIR"
OUTDIR="$(cd "$OUTDIR" && pwd)"
LOGDIR="$(mktemp -d "$OUTDIR/.build_logs.XXXXXX")"
trap 'rm -rf "$LOGDIR"' EXIT

ARCHS="${ARCHS:-sm_75 sm_80 sm_90 sm_90a}"
FLAGSETS="${FLAGSETS:-O3 O3-lineinfo G O3-rdc}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"

# One job per line: "<src> <arch> <flagname>"
shopt -s nullglob
srcs=("$SRCDIR"/*.cu)
if [ ${#srcs[@]} -eq 0 ]; then
    echo "no .cu files in $SRCDIR" >&2
    exit 1
fi
for src in "${srcs[@]}"; do
    for arch in $ARCHS; do
        for fl in $FLAGSETS; do
            printf '%s %s %s\n' "$src" "$arch" "$fl"
        done
    done
done > "$LOGDIR/jobs"

# Worker: prints exactly one status line: "OK <ptx>", "SKIP <why>" or "REJECT <why>".
worker() {
    local src="$1" arch="$2" fl="$3"
    local base flags ptxas_flags=()
    base="$(basename "$src" .cu)"
    case "$fl" in
        O3)          flags=(-O3) ;;
        O3-lineinfo) flags=(-O3 -lineinfo) ;;
        G)           flags=(-G) ;;
        O3-rdc)      flags=(-O3 -rdc=true); ptxas_flags=(-c) ;;
        *) echo "SKIP $base.$arch.$fl: unknown flag set"; return 0 ;;
    esac
    local out="$OUTDIR/$base.$arch.$fl.ptx"
    local log="$LOGDIR/$base.$arch.$fl.log"
    rm -f "$out"
    if ! "$NVCC" -ptx -arch="$arch" "${flags[@]}" "$src" -o "$out" >"$log" 2>&1; then
        rm -f "$out"
        echo "SKIP $base.$arch.$fl: nvcc failed: $(grep -m1 -iE 'error' "$log" | tr -s ' ' | cut -c1-200)"
        return 0
    fi
    if ! "$PTXAS" -arch="$arch" "${ptxas_flags[@]}" -o /dev/null "$out" >"$log.ptxas" 2>&1; then
        rm -f "$out"
        echo "REJECT $base.$arch.$fl: ptxas: $(grep -m1 -iE 'error|fatal' "$log.ptxas" | tr -s ' ' | cut -c1-200)"
        return 0
    fi
    echo "OK $out"
}
export -f worker
export NVCC PTXAS OUTDIR LOGDIR

njobs=$(wc -l < "$LOGDIR/jobs")
echo "building PTX corpus: ${#srcs[@]} sources x archs [$ARCHS] x flag sets [$FLAGSETS] = $njobs jobs, -P $JOBS, into $OUTDIR"
xargs -P "$JOBS" -L 1 bash -c 'worker "$@"' _ < "$LOGDIR/jobs" > "$LOGDIR/results"

ok=$(grep -c '^OK ' "$LOGDIR/results" || true)
skipped=$(grep -c '^SKIP ' "$LOGDIR/results" || true)
rejected=$(grep -c '^REJECT ' "$LOGDIR/results" || true)
grep '^SKIP ' "$LOGDIR/results" | sed 's/^SKIP /note: skipped /' | sort >&2 || true
grep '^REJECT ' "$LOGDIR/results" | sed 's/^REJECT /ptxas rejected (deleted): /' | sort >&2 || true
echo "corpus: $ok files, $((skipped + rejected)) skipped ($skipped nvcc failures, $rejected ptxas rejections)"
