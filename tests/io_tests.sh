#!/usr/bin/env bash
# io_tests.sh — how every command writes (issues 32 and 33): an output name means the
# same thing everywhere ("-" is stdout, a device or FIFO is written directly, a link
# is written through and stays a link), a write that fails is exit 2 with a message
# naming the output and the cause (a full disk: /dev/full), a reader that leaves
# (`| head`) is a quiet non-zero exit, --json puts JSON alone on stdout, gen without
# -o does not overwrite; and inputs users bring (CR-LF, comments holding */, bytes
# that are not ASCII or not UTF-8, a GGUF of another architecture, an adapter of
# another base or rank) get a clear error or work.  Prints "io: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
R=$PWD
P=${PTXGEN:-build/ptxgen}
case "$P" in /*) ;; *) P=$R/$P ;; esac
export PATH="$PATH:${CUDA_HOME:-/usr/local/cuda}/bin"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
TINY=$R/tests/gen/tiny
is_json() { python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$1" 2>/dev/null; }
HAVE_PTXAS=0; command -v ptxas >/dev/null 2>&1 && HAVE_PTXAS=1

# ---- every output-file flag, one table: NAME|COMMAND with @OUT where the output name goes --------
# (commands run in $T/w; each must treat @OUT the same way)
cmds=(
    "grammar|$P grammar --gbnf -o @OUT"
    "gen|$P gen --model $TINY --samples 1 --max-tokens 200 -o @OUT vecadd"
    "gate-json|$P gate --no-ptxas --baseline $R/tests/gate/base.ptx --candidate $R/tests/gate/cand_improved.ptx --quiet --json @OUT"
    "gate-md|$P gate --no-ptxas --baseline $R/tests/gate/base.ptx --candidate $R/tests/gate/cand_improved.ptx --markdown @OUT"
    "eval-merge|$P eval --merge $T/a.json --out @OUT"
    "prompts|$P prompts --in $T/in.jsonl --out @OUT"
    "synth-tasks-meta|$P synth --tasks-only $T/pool --count 1 --seed 3 --exclude $R/bench/suite"
)
if [ "$HAVE_PTXAS" = 1 ]; then
    cmds+=("synth|$P synth --count 2 --seed 1 --sources hand --jobs 1 --corpus $R/corpus --no-progress --out @OUT"
           "eval|$P eval --suite $R/bench/suite --only leaky_relu --kernels $R/tests/twin/eval_kernels --no-gpu --no-progress --no-ablations --styles terse --out @OUT")
    "$P" eval --suite "$R/bench/suite" --only relu6 --kernels "$R/tests/twin/eval_kernels" --no-gpu --no-progress --no-ablations \
        --styles terse --out "$T/a.json" >/dev/null 2>&1
fi
python3 -c "import json,sys; print(json.dumps({'id':'a','description':'c = a + b','arch':'sm_80','ptx_code':open(sys.argv[1]).read()}))" \
    "$R/examples/vecadd.ptx" >"$T/in.jsonl"
# the exit of a command whose output was written: 0, and for gen on the random tiny model 1
# (its kernel is never finished within the budget: a stub is written and gen says so, exit 1)
okrc() { [ "$1" -eq 0 ] || { [ "$name" = gen ] && [ "$1" -eq 1 ]; }; }
for entry in "${cmds[@]}"; do
    name=${entry%%|*} cmd=${entry#*|}
    [[ "$cmd" == *@OUT* ]] || continue
    [ "$name" = eval-merge ] && [ ! -f "$T/a.json" ] && continue
    rm -rf "$T/w"; mkdir -p "$T/w"
    # a regular file: the reference
    (cd "$T/w" && eval "${cmd//@OUT/ref.out}" >/dev/null 2>"$T/err")
    rc=$?
    if ! okrc "$rc" || [ ! -s "$T/w/ref.out" ]; then bad "$name: writing a file: exit $rc $(tail -c 200 "$T/err")"; continue; fi
    mask() { sed -E 's/("([a-z_]*seconds|seconds|date)"): *("[^"]*"|-?[0-9.eE+-]+)/\1: "T"/g' "$1"; }
    # "-": the same bytes on stdout
    (cd "$T/w" && eval "${cmd//@OUT/-}" >"$T/stdout" 2>"$T/err")
    rc=$?
    okrc "$rc" && cmp -s <(mask "$T/w/ref.out") <(mask "$T/stdout") && [ ! -e "$T/w/-" ] && ok \
        || bad "$name: -o - is not stdout (exit $rc, a file named '-': $([ -e "$T/w/-" ] && echo yes || echo no)) $(tail -c 200 "$T/err")"
    # /dev/stdout: stdout too, not replaced by a file
    (cd "$T/w" && eval "${cmd//@OUT//dev/stdout}" >"$T/stdout2" 2>"$T/err")
    rc=$?
    okrc "$rc" && cmp -s <(mask "$T/w/ref.out") <(mask "$T/stdout2") && [ -c /dev/null ] && ok \
        || bad "$name: /dev/stdout (exit $rc) $(tail -c 200 "$T/err")"
    # a link: written through, the link stays a link and its target gets the bytes
    ln -s target.out "$T/w/link.out"
    (cd "$T/w" && eval "${cmd//@OUT/link.out}" >/dev/null 2>"$T/err")
    rc=$?
    okrc "$rc" && [ -L "$T/w/link.out" ] && cmp -s <(mask "$T/w/ref.out") <(mask "$T/w/target.out") && ok \
        || bad "$name: a symlink is not written through (exit $rc) $(tail -c 200 "$T/err")"
    # a FIFO: written directly (a reader gets the bytes)
    mkfifo "$T/w/fifo"
    cat "$T/w/fifo" >"$T/fifo.out" &
    reader=$!
    (cd "$T/w" && eval "${cmd//@OUT/fifo}" >/dev/null 2>"$T/err")
    rc=$?
    wait "$reader"
    okrc "$rc" && [ -p "$T/w/fifo" ] && cmp -s <(mask "$T/w/ref.out") <(mask "$T/fifo.out") && ok \
        || bad "$name: a FIFO (exit $rc) $(tail -c 200 "$T/err")"
    # /dev/null: accepted; /dev/full: exit 2, the output and the cause named
    (cd "$T/w" && eval "${cmd//@OUT//dev/null}" >/dev/null 2>"$T/err")
    rc=$?
    okrc "$rc" && ok || bad "$name: /dev/null (exit $rc) $(tail -c 200 "$T/err")"
    (cd "$T/w" && eval "${cmd//@OUT//dev/full}" >/dev/null 2>"$T/err")
    rc=$?
    [ "$rc" -eq 2 ] && grep -q "/dev/full.*No space left on device" "$T/err" && ok \
        || bad "$name: /dev/full: exit $rc, $(tail -c 300 "$T/err")"
    # a missing folder: exit 2 naming it, nothing written
    (cd "$T/w" && eval "${cmd//@OUT/nope/x.out}" >/dev/null 2>"$T/err")
    rc=$?
    [ "$rc" -eq 2 ] && grep -q "nope/x.out" "$T/err" && ok || bad "$name: a missing folder: exit $rc, $(tail -c 300 "$T/err")"
    left=$(find "$T/w" -name '*.tmp.*')
    [ -z "$left" ] && ok || bad "$name: temporary files left: $left"
done

# ---- stdout: a full disk is exit 2 with a message; a reader that leaves, a quiet non-zero exit ----
for args in "fmt $R/examples/vecadd.ptx" "explain $R/examples/vecadd.ptx" "explain --json $R/examples/vecadd.ptx" "isa" \
            "check --json $R/examples/vecadd.ptx" "stats $R/examples/vecadd.ptx" "grammar --gbnf" "--help" \
            "gen --model $TINY --samples 1 --max-tokens 200 vecadd"; do
    # shellcheck disable=SC2086
    "$P" $args >/dev/full 2>"$T/err"
    rc=$?
    [ "$rc" -eq 2 ] && grep -q "<stdout>.*No space left on device" "$T/err" && ok || bad "ptxgen $args >/dev/full: exit $rc, $(tail -c 200 "$T/err")"
done
for args in "isa" "explain $R/corpus/gemm_regblock/kernel.ptx"; do   # more than a pipe holds (64 KiB)
    # shellcheck disable=SC2086
    "$P" $args 2>"$T/err" | head -c 1 >/dev/null
    rc=${PIPESTATUS[0]}
    [ "$rc" -eq 2 ] && [ ! -s "$T/err" ] && ok || bad "ptxgen $args | head -c 1: exit $rc (want a quiet 2), stderr: $(head -c 200 "$T/err")"
done

# ---- --json: stdout holds the JSON and nothing else ----------------------------------------------
json_cmds=("check --json $R/examples/vecadd.ptx" "explain --json $R/examples/vecadd.ptx" "stats $R/examples/vecadd.ptx" "isa"
           "tokenize --tokenizer $TINY/tokenizer.json --json hello"
           "gate --no-ptxas --baseline $R/tests/gate/base.ptx --candidate $R/tests/gate/cand_improved.ptx --json -"
           "logits --model $TINY --ids 1,2 --steps 1"
           "run --dry-run --json $R/corpus/saxpy/task.json $R/corpus/saxpy/kernel.ptx"
           "run --dry-run --out - $R/corpus/saxpy/task.json $R/corpus/saxpy/kernel.ptx"
           "run --dry-run --json --suite $R/corpus --kernel kernel.ptx")
[ -f "$T/a.json" ] && json_cmds+=("eval --merge $T/a.json --out -")
for args in "${json_cmds[@]}"; do
    # shellcheck disable=SC2086
    (cd "$T" && "$P" $args >"$T/j.out" 2>"$T/err")
    is_json "$T/j.out" && ok || bad "ptxgen $args: stdout is not JSON alone: $(head -c 200 "$T/j.out")"
done
mkdir -p "$T/g" && cd "$T/g" || exit 1
"$P" gen --model "$TINY" --samples 1 --max-tokens 200 --json --name k1 "vector add" >"$T/j.out" 2>"$T/err"
is_json "$T/j.out" && [ -f k1.ptx ] && ok || bad "gen --json: stdout is not JSON alone, or k1.ptx missing: $(head -c 200 "$T/j.out")"
# gen without -o never overwrites <kernel>.ptx unless --force; -o - cannot go with --json
echo "mine" >k1.ptx
"$P" gen --model "$TINY" --samples 1 --max-tokens 200 --json --name k1 "vector add" >/dev/null 2>"$T/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "k1.ptx exists" "$T/err" && grep -q -- "--force" "$T/err" && [ "$(cat k1.ptx)" = mine ] && ok \
    || bad "gen --json over an existing k1.ptx: exit $rc, $(tail -c 200 "$T/err")"
"$P" gen --model "$TINY" --samples 1 --max-tokens 200 --json --force --name k1 "vector add" >/dev/null 2>"$T/err"
rc=$?
# exit 1: the random model's kernel is unfinished (a stub, said so); the file is replaced all the same
[ "$rc" -le 1 ] && head -1 k1.ptx | grep -q GENERATED_BY && ok || bad "gen --force did not replace k1.ptx: exit $rc"
"$P" gen --model "$TINY" --samples 1 --max-tokens 200 --json -o - "vector add" >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q -- "-o -" "$T/err" && ok || bad "gen --json -o - is not refused: $(cat "$T/err")"
"$P" gen --model "$TINY" --samples 1 --max-tokens 200 -o - "vector add" >"$T/g.ptx" 2>/dev/null
head -1 "$T/g.ptx" | grep -q GENERATED_BY && [ ! -e ./- ] && ok || bad "gen -o - did not print the PTX"
cd "$R" || exit 1

# ---- inputs users bring ----------------------------------------------------------------------------
python3 - "$T" "$R" <<'PY'
import sys
t, r = sys.argv[1], sys.argv[2]
v = open(f"{r}/examples/vecadd.ptx", "rb").read()
open(f"{t}/crlf.ptx", "wb").write(v.replace(b"\n", b"\r\n"))
open(f"{t}/cmt.ptx", "wb").write(v.replace(b".version", b"// literate: a */ b /* c\n.version", 1))
open(f"{t}/latin1.ptx", "wb").write(v.replace(b".version", b"// caf\xe9\n.version", 1))
open(f"{t}/cr.ptx", "wb").write(v.replace(b"\n", b"\r"))
c = open(f"{r}/tests/twin/saxpy.cu", "rb").read().replace(b"extern", b"// note: */ /* caf\xe9\nextern", 1)
open(f"{t}/twin_crlf.cu", "wb").write(c.replace(b"\n", b"\r\n"))
j = open(f"{r}/corpus/saxpy/task.json", "rb").read()
open(f"{t}/task_latin1.json", "wb").write(j.replace(b'"saxpy"', b'"sax\xe9py"', 1))
g = open(f"{r}/tests/model/gguf_engine/tiny_qwen2.gguf", "rb").read()
open(f"{t}/phi3.gguf", "wb").write(g.replace(b"qwen2", b"phi3x"))
PY
for f in crlf cmt; do
    "$P" check "$T/$f.ptx" >/dev/null 2>&1 && [ "$("$P" fmt "$T/$f.ptx")" = "$("$P" fmt "$R/examples/vecadd.ptx")" ] && ok \
        || bad "$f.ptx: not valid, or not the module LF gives"
done
"$P" check "$T/latin1.ptx" >/dev/null 2>"$T/err"
[ $? -eq 1 ] && grep -q "latin1.ptx:2:7: error\[E005\]: non-ASCII byte 0xE9" "$T/err" && ok || bad "a Latin-1 comment: $(cat "$T/err")"
"$P" check "$T/cr.ptx" >/dev/null 2>"$T/err"
[ $? -eq 1 ] && grep -q "CR alone" "$T/err" && ok || bad "CR-only line ends: $(cat "$T/err")"
"$P" check --json "$T/latin1.ptx" >"$T/j.out" 2>/dev/null
is_json "$T/j.out" && grep -q '"message": "non-ASCII' "$T/j.out" && ok || bad "check --json drops the message of a non-ASCII input"
mkdir -p "$T/tw" && cp "$R/tests/twin/saxpy_good.ptx" "$T/tw/saxpy.ptx"
NVCC=/nonexistent "$P" twin --no-gpu --json "$T/tw/saxpy.ptx" "$T/twin_crlf.cu" >"$T/j.out" 2>"$T/err"
rc=$?
[ "$rc" -eq 0 ] && is_json "$T/j.out" && [ -f "$T/tw/saxpy.task.json" ] && ok || bad "a CR-LF twin with */ in a // comment: exit $rc $(tail -c 200 "$T/err")"
"$P" run --dry-run "$T/task_latin1.json" "$R/corpus/saxpy/kernel.ptx" >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "task_latin1.json:.*byte 0xe9" "$T/err" && ok || bad "a task.json that is not UTF-8: $(cat "$T/err")"
"$P" logits --model "$T/phi3.gguf" --ids 1,2 >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "architecture 'phi3x' is not supported (qwen2, llama)" "$T/err" && ok || bad "a GGUF of another architecture: $(cat "$T/err")"
"$P" logits --model "$R/tests/model/gguf_engine/tiny_llama.gguf" --adapter "$R/tests/model/gguf_engine/tiny_qwen2_lora" --ids 1,2 \
    >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "E805.*Qwen2ForCausalLM.*adapter for another base" "$T/err" && ok || bad "an adapter of another base: $(cat "$T/err")"
cp -r "$R/tests/model/lora" "$T/lora8" && sed -i 's/"r": 4,/"r": 8,/' "$T/lora8/adapter_config.json"
"$P" logits --model "$R/tests/model/tied" --adapter "$T/lora8" --ids 1,2 >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "E805.*r=8" "$T/err" && ok || bad "an adapter of another rank: $(cat "$T/err")"

# a model folder whose name is not ASCII: the GENERATED_BY line stays ASCII (ptxas rejects any other byte)
cp -r "$TINY" "$T/modèle"
"$P" gen --model "$T/modèle" --samples 1 --max-tokens 200 -o "$T/m.ptx" "vector add" >/dev/null 2>"$T/err"
rc=$?
[ "$rc" -le 1 ] && "$P" check "$T/m.ptx" >/dev/null 2>&1 && head -1 "$T/m.ptx" | grep -q '^// GENERATED_BY: ptxgen mod??le$' && ok \
    || bad "gen with a non-ASCII model folder: exit $rc, $(head -1 "$T/m.ptx" 2>/dev/null) $(tail -c 200 "$T/err")"

echo "io: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
