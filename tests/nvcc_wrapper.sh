#!/usr/bin/env bash
# nvcc_wrapper.sh — `ptxgen nvcc` / `ptxgen-nvcc`: a drop-in nvcc that also
# writes <kernel>_baseline.ptx, asks `ptxgen gen --baseline` for
# <kernel>_superopt.ptx, verifies it and writes ptxgen_report.{md,json}.
# `gen` is played by tests/nvcc/fake_gen.sh (PTXGEN_BIN) so the wrapper's
# own logic is tested, not the model.  Needs nvcc; prints "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
PTXGEN=${PTXGEN:-build/ptxgen}
case "$PTXGEN" in /*) ;; *) PTXGEN=$ROOT/$PTXGEN ;; esac
FIX=$ROOT/tests/nvcc
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "  ok   $1"; }
bad() { fail=$((fail + 1)); echo "  FAIL $1"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }

NVCC=$(command -v nvcc || true)
[ -z "$NVCC" ] && [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] && NVCC=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
if [ -z "$NVCC" ]; then
    echo "SKIPPED: nvcc not found (the wrapper tests need the CUDA toolkit)"
    echo "0 passed, 0 failed"
    exit 0
fi
export PATH="$(dirname "$NVCC"):$PATH"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export PTXGEN_BIN=$FIX/fake_gen.sh
json() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
HAVE_GPU=0
"$PTXGEN" devinfo >/dev/null 2>&1 && HAVE_GPU=1

echo "-- pass-through"
"$NVCC" --version >"$T/v.real" 2>&1; rc_real=$?
"$PTXGEN" nvcc --version >"$T/v.wrap" 2>&1; rc_wrap=$?
check "--version: same output and exit code" test "$rc_real" = "$rc_wrap" -a "$rc_wrap" = 0
check "--version: output identical" cmp -s "$T/v.real" "$T/v.wrap"
mkdir -p "$T/bad"
( cd "$T/bad" && "$NVCC" -c "$FIX/bad.cu" -o bad.o ) >"$T/bad.real" 2>&1; rc_real=$?
( cd "$T/bad" && "$PTXGEN" nvcc -c "$FIX/bad.cu" -o bad.o ) >"$T/bad.wrap" 2>&1; rc_wrap=$?
check "syntax error: nonzero exit code forwarded ($rc_real)" test "$rc_real" -ne 0 -a "$rc_wrap" = "$rc_real"
check "syntax error: nvcc's message shown" grep -q "expected a \";\"" "$T/bad.wrap"
check "syntax error: no report after a failed build" test ! -e "$T/bad/ptxgen_report.json"
printf '#!/bin/sh\necho "fake nvcc $*"\nexit 42\n' >"$T/nvcc42"; chmod +x "$T/nvcc42"
out=$(PTXGEN_REAL_NVCC=$T/nvcc42 "$PTXGEN" nvcc -O2 --ptxgen-out "$T/x" foo.cu 2>&1); rc=$?
check "exit code 42 of PTXGEN_REAL_NVCC forwarded" test "$rc" = 42
check "arguments passed unchanged, --ptxgen-out stripped" test "$out" = "fake nvcc -O2 foo.cu"

echo "-- valid candidate (fake gen copies the baseline)"
mkdir -p "$T/ok"
( cd "$T/ok" && "$PTXGEN" nvcc -arch=sm_80 -o "$T/ok/app" "$FIX/saxpy.cu" ) >"$T/ok.log" 2>&1; rc=$?
check "build succeeds (exit 0)" test "$rc" = 0
check "the build's output exists and runs" "$T/ok/app"
check "saxpy_baseline.ptx written (next to -o)" grep -q ".entry saxpy(" "$T/ok/saxpy_baseline.ptx"
check "baseline is nvcc -ptx for the asked arch" grep -q "^.target sm_80" "$T/ok/saxpy_baseline.ptx"
check "C++ kernel gets its (mangled) name" test -f "$T/ok/_Z9scale_addPdPKddj_baseline.ptx"
check "saxpy_superopt.ptx kept" test -f "$T/ok/saxpy_superopt.ptx" -a ! -e "$T/ok/saxpy_superopt.rejected.ptx"
check "report.md and report.json written" test -s "$T/ok/ptxgen_report.md" -a -s "$T/ok/ptxgen_report.json"
R=$T/ok/ptxgen_report.json
check "report: 2 kernels" test "$(json "$R" "len(r['kernels'])")" = 2
check "report: saxpy kept, check+ptxas pass" test "$(json "$R" "[(k['status'],k['check'],k['ptxas']) for k in r['kernels'] if k['kernel']=='saxpy'][0]")" = "('kept', 'pass', 'pass')"
if [ "$HAVE_GPU" = 1 ]; then
    check "report: verified on the GPU" test "$(json "$R" "r['kernels'][0]['gpu']['status']")" = pass
else
    check "report: labelled unverified (no GPU), kept by the gate" test "$(json "$R" "r['kernels'][0]['label'].startswith('unverified (no GPU); passes the gate: neutral')")" = True
    check "report: the gate's verdict recorded" test "$(json "$R" "r['kernels'][0]['gate']['verdict']")" = neutral
fi
check "report: instruction counts and registers of both" test "$(json "$R" "all(k['baseline']['instructions']>0 and k['candidate']['registers']>0 for k in r['kernels'])")" = True
check "report: inst_count_ratio 1.0 for an identical candidate" test "$(json "$R" "r['kernels'][0]['inst_count_ratio']")" = 1.0
check "report: signature types read off the baseline" test "$(json "$R" "[k['diff_signature'] for k in r['kernels'] if k['kernel']=='saxpy'][0]")" = "['f32', 'f32*', 'f32*', 'u32']"
check "report: double kernel types" test "$(json "$R" "[k['diff_signature'] for k in r['kernels'] if k['kernel']!='saxpy'][0]")" = "['f64*', 'f64*', 'f64', 'u32']"
check "report.md has the comparison table" grep -q "| \`saxpy\` | unverified (no GPU)\|| \`saxpy\` | verified" "$T/ok/ptxgen_report.md"
check "report: the seconds the extra step added, per kernel" test "$(json "$R" "all(k['added_seconds'] > 0 for k in r['kernels'])")" = True
check "report.md states the added time" grep -q "^The extra step (baseline, generation, checks) added [0-9.]* s to the build for 2 kernels" "$T/ok/ptxgen_report.md"
check "stderr states the added time per kernel" grep -q "ptxgen-nvcc: saxpy: the extra step added [0-9.]* s to the build" "$T/ok.log"
check "kept candidate passes ptxgen check" "$PTXGEN" check "$T/ok/saxpy_superopt.ptx"

echo "-- invalid candidate"
mkdir -p "$T/inv"
( cd "$T/inv" && FAKE_GEN_MODE=invalid "$PTXGEN" nvcc -c -arch=sm_90 "$FIX/saxpy.cu" -o saxpy.o ) >"$T/inv.log" 2>&1; rc=$?
R=$T/inv/ptxgen_report.json
check "build still succeeds" test "$rc" = 0 -a -f "$T/inv/saxpy.o"
check "candidate rejected, kept as .rejected.ptx" test -f "$T/inv/saxpy_superopt.rejected.ptx" -a ! -e "$T/inv/saxpy_superopt.ptx"
check "report: status rejected, check fail" test "$(json "$R" "(r['kernels'][0]['status'], r['kernels'][0]['check'])")" = "('rejected', 'fail')"
check "report: the diagnostic with code and line" grep -q "saxpy_superopt.rejected.ptx:[0-9]*:[0-9]*: error\[E201\]: unknown instruction 'frobnicate'" "$T/inv/ptxgen_report.md"
check "stderr says rejected" grep -q "ptxgen-nvcc: saxpy (try 3/3): rejected" "$T/inv.log"
check "report: three tries listed" test "$(json "$R" "[t['seed'] for t in r['kernels'][0]['tries']]")" = "[1, 17, 33]"
echo "-- tries: a kept candidate stops them, --ptxgen-tries sets them"
mkdir -p "$T/tries"
( cd "$T/tries" && FAKE_GEN_LOG=$T/tries/log "$PTXGEN" nvcc -c -arch=sm_90 "$FIX/saxpy.cu" -o saxpy.o ) >/dev/null 2>&1
check "one gen call when the first candidate is kept" test "$(grep -c '^saxpy ' "$T/tries/log")" = 1
rm -f "$T/tries/log"
( cd "$T/tries" && FAKE_GEN_MODE=invalid FAKE_GEN_LOG=$T/tries/log "$PTXGEN" nvcc -c -arch=sm_90 "$FIX/saxpy.cu" -o saxpy.o \
    --ptxgen-tries 2 ) >/dev/null 2>&1
check "--ptxgen-tries 2: seeds 1 and 17" test "$(grep '^saxpy ' "$T/tries/log" | tr '\n' ' ')" = "saxpy 1 saxpy 17 "
"$PTXGEN" nvcc -c "$FIX/saxpy.cu" -o "$T/x.o" --ptxgen-timeout 0 >"$T/to.log" 2>&1; rc=$?
check "--ptxgen-timeout 0: exit 2 and the reason" test "$rc" = 2 -a "$(cat "$T/to.log")" = "ptxgen-nvcc: --ptxgen-timeout: '0' is not a positive integer"
# a later good build replaces the rejected file
( cd "$T/inv" && "$PTXGEN" nvcc -c -arch=sm_90 "$FIX/saxpy.cu" -o saxpy.o ) >/dev/null 2>&1
check "a later kept candidate removes the stale .rejected.ptx" test -f "$T/inv/saxpy_superopt.ptx" -a ! -e "$T/inv/saxpy_superopt.rejected.ptx"

echo "-- a valid candidate the gate fails (f32 work turned into f64): discarded without a GPU"
mkdir -p "$T/f64"
( cd "$T/f64" && FAKE_GEN_MODE=f64 "$PTXGEN" nvcc -c -arch=sm_90 "$FIX/saxpy.cu" -o s.o --ptxgen-tries 1 ) >"$T/f64.log" 2>&1; rc=$?
R=$T/f64/ptxgen_report.json
check "f64 candidate: the build succeeds" test "$rc" = 0 -a -f "$T/f64/s.o"
check "f64 candidate passes check and ptxas (it is valid PTX)" test "$(json "$R" "[(k['check'], k['ptxas']) for k in r['kernels'] if k['kernel']=='saxpy'][0]")" = "('pass', 'pass')"
if [ "$HAVE_GPU" = 0 ]; then
    check "f64 candidate: rejected by the gate, not kept" test -f "$T/f64/saxpy_superopt.rejected.ptx" -a ! -e "$T/f64/saxpy_superopt.ptx"
    check "f64 candidate: the reason is the gate's precision rule" test "$(json "$R" "[k['gate']['verdict'] == 'failed' and 'f64' in k['reason'] for k in r['kernels'] if k['kernel']=='saxpy'][0]")" = True
    check "f64 candidate: gate failure named in the Markdown" grep -q "gate against the baseline: failed" "$T/f64/ptxgen_report.md"
fi

echo "-- changed signature, no candidate"
mkdir -p "$T/sig"
( cd "$T/sig" && FAKE_GEN_MODE=signature "$PTXGEN" nvcc -c "$FIX/saxpy.cu" -o s.o ) >/dev/null 2>&1
check "signature change rejected" test "$(json "$T/sig/ptxgen_report.json" "r['kernels'][0]['reason'][:25]")" = "its signature differs fro"
mkdir -p "$T/none"
( cd "$T/none" && FAKE_GEN_MODE=none "$PTXGEN" nvcc -c "$FIX/saxpy.cu" -o s.o ) >/dev/null 2>&1; rc=$?
check "gen failing: build exit 0, status 'not generated'" test "$rc" = 0 -a "$(json "$T/none/ptxgen_report.json" "r['kernels'][0]['status']")" = "not generated"

echo "-- flags reach the baseline run; --ptxgen-out; report merging"
( cd "$T" && "$PTXGEN" nvcc -c -I "$FIX/inc" -DFACTOR=3 -std=c++17 --ptxgen-out "$T/po" "$FIX/defs.cu" -o defs.o ) >"$T/po.log" 2>&1; rc=$?
check "-I/-D build succeeds" test "$rc" = 0
check "-I/-D forwarded to nvcc -ptx (baseline exists)" grep -q "mul.f32\|cvt.rn.f32.s32\|3.0\|0f40400000" "$T/po/scale_baseline.ptx"
( cd "$T" && "$PTXGEN" nvcc -c --ptxgen-out="$T/po" "$FIX/saxpy.cu" -o s2.o ) >/dev/null 2>&1
check "report merges kernels of both sources" test "$(json "$T/po/ptxgen_report.json" "sorted(k['kernel'] for k in r['kernels'])")" = "['_Z9scale_addPdPKddj', 'saxpy', 'scale']"
mkdir -p "$T/off"
( cd "$T/off" && PTXGEN_NVCC_OFF=1 "$PTXGEN" nvcc -c "$FIX/saxpy.cu" -o s.o ) >/dev/null 2>&1; rc=$?
check "PTXGEN_NVCC_OFF=1: plain nvcc" test "$rc" = 0 -a -f "$T/off/s.o" -a ! -e "$T/off/ptxgen_report.json"
( cd "$T/off" && "$PTXGEN" nvcc -E "$FIX/saxpy.cu" -o s.i ) >/dev/null 2>&1
check "-E (preprocess only): no extra step" test ! -e "$T/off/ptxgen_report.json"

echo "-- generation in a forked child of the wrapper (no PTXGEN_BIN)"
# gen runs in-process in a fork (cmd_gen): its exit status, stderr and JSON reach the report as
# they did from a subprocess, nothing of it reaches the build's stdout/stderr, and a child
# killed mid-generation is a verdict, not a broken build.
mkdir -p "$T/inproc"
( cd "$T/inproc" && env -u PTXGEN_BIN PTXGEN_MODEL="$T/no-model" "$PTXGEN" nvcc -c -arch=sm_90 "$FIX/saxpy.cu" -o s.o \
    --ptxgen-tries 1 ) >"$T/inproc.out" 2>"$T/inproc.err"; rc=$?
R=$T/inproc/ptxgen_report.json
check "in-process gen failing: build exit 0, object written" test "$rc" = 0 -a -f "$T/inproc/s.o"
check "in-process gen failing: exit code 2 and its stderr in the report" test "$(json "$R" "(r['kernels'][0]['gen']['exit_code'], 'no-model/config.json' in r['kernels'][0]['gen']['stderr'])")" = "(2, True)"
check "in-process gen failing: the reason names gen's exit and message" test "$(json "$R" "r['kernels'][0]['reason'].startswith('ptxgen gen exited 2 without writing a candidate: ') and 'cannot open' in r['kernels'][0]['reason']")" = True
check "in-process gen: nothing of gen on the build's stdout" test ! -s "$T/inproc.out"
check "in-process gen: the build's stderr has only the wrapper's lines" test "$(grep -vc '^ptxgen-nvcc: ' "$T/inproc.err")" = 0
MODEL_DIR=$ROOT/models/default
if [ -r "$MODEL_DIR/config.json" ]; then
    mkdir -p "$T/kill"
    ( cd "$T/kill" && exec env -u PTXGEN_BIN PTXGEN_MODEL="$MODEL_DIR" "$PTXGEN" nvcc -c -arch=sm_90 "$FIX/saxpy.cu" -o s.o \
        --ptxgen-tries 1 ) >"$T/kill.log" 2>&1 &
    wpid=$!
    killed=0 exe=$(readlink -f "$PTXGEN")
    for _ in $(seq 1 1200); do   # kill every generation child as it appears (at most 60 s)
        kill -0 "$wpid" 2>/dev/null || break
        for c in $(pgrep -P "$wpid" 2>/dev/null); do
            [ "$(readlink -f /proc/$c/exe 2>/dev/null)" = "$exe" ] && kill -KILL "$c" 2>/dev/null && killed=$((killed + 1))
        done
        sleep 0.05
    done
    wait "$wpid"; rc=$?
    R=$T/kill/ptxgen_report.json
    check "generation child killed ($killed): build exit 0, object written" test "$rc" = 0 -a "$killed" -ge 1 -a -f "$T/kill/s.o"
    check "killed generation: 'not generated', exit code 137 (128+SIGKILL)" test "$(json "$R" "[(k['status'], k['gen']['exit_code']) for k in r['kernels'] if k['kernel']=='saxpy'][0]")" = "('not generated', 137)"
else
    echo "  SKIPPED killed generation child (no $MODEL_DIR)"
fi

echo "-- invoked as ptxgen-nvcc"
ln -s "$PTXGEN" "$T/ptxgen-nvcc"
mkdir -p "$T/link"
( cd "$T/link" && "$T/ptxgen-nvcc" -c "$FIX/saxpy.cu" -o s.o ) >/dev/null 2>&1; rc=$?
check "ptxgen-nvcc symlink behaves as 'ptxgen nvcc'" test "$rc" = 0 -a -f "$T/link/saxpy_baseline.ptx"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
