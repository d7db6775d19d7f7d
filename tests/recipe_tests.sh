#!/usr/bin/env bash
# recipe_tests.sh — the model recipe (train/recipe.sh) and the device scripts it calls, without a GPU:
# their syntax, their usage, which script each step runs (`--print`), that every step the recipe
# runs itself is known to `--print`, the packaging step (`unpack`) on made-up returned files, and
# that nothing still names a device script by a path it left (bench/device_*.sh, bench/pieces.sh).
# The steps themselves run only on the GPU machine (docs/MODELS.md "Rebuilding the shipped models").
set -u
cd "$(dirname "$0")/.."
. tests/testlib.sh
R=train/recipe.sh

# syntax of every script of the recipe, the GPU checks and the benchmarks
for f in "$R" train/pieces.sh train/steps/*.sh tests/gpu/*.sh bench/*.sh; do
    expect_rc 0 "bash -n $f" bash -n "$f"
done

# usage: the header for no step (exit 0), the header and exit 2 for an unknown one
out=$(bash "$R" 2>&1); rc=$?
[ "$rc" -eq 0 ] && grep -q '^#   default-train ' <<<"$out" && grep -q '^#   start N ' <<<"$out" && ok || bad "recipe usage: exit $rc"
expect_rc 2 "recipe usage for an unknown step" env OUT="$tmp/dev" bash "$R" no-such-step
expect_rc 2 "recipe --print of an unknown step" bash "$R" --print no-such-step
expect_rc 2 "base.sh usage" env OUT="$tmp/dev" bash train/steps/base.sh no-such-stage
expect_rc 2 "expert.sh usage" env OUT="$tmp/dev" bash train/steps/expert.sh no-such-stage
# through the recipe: the same script and the same exit status
expect_rc 2 "recipe base with an unknown stage" env OUT="$tmp/dev" bash "$R" base no-such-stage
expect_rc 2 "recipe expert with an unknown stage" env OUT="$tmp/dev" bash "$R" expert no-such-stage

# which script each step runs, with its arguments passed on unchanged
want() { # want STEP... -- EXPECTED
    local args=() a
    while [ "$1" != -- ]; do args+=("$1"); shift; done
    shift
    a=$(bash "$R" --print "${args[@]}" 2>&1)
    [ "$a" = "$1" ] && ok || bad "--print ${args[*]}: '$a', want '$1'"
}
want default-train -- "bash train/steps/default.sh"
want default-eval -- "bash train/steps/eval.sh"
want default-ship -- "bash train/steps/ship_checks.sh"
want superopt -- "bash train/steps/superopt.sh"
want base long-a 1000 -- "bash train/steps/base.sh long-a 1000"
want expert round 2 "a b" -- "bash train/steps/expert.sh round 2 a\\ b"
for s in default-train default-eval default-ship superopt base expert; do
    f=$(bash "$R" --print "$s" | awk '{print $2}')
    [ -f "$f" ] && ok || bad "step $s runs $f, which is not there"
done
# every step the recipe runs itself (a label of its case) is known to --print, and runs nothing
for s in $(sed -n '/^case "\$stage" in/,/^esac/p' "$R" | grep -oE '^[a-z][a-z-]*\)' | tr -d ')'); do
    a=$(bash "$R" --print "$s" 2>&1) && grep -q "runs in train/recipe.sh itself" <<<"$a" && ok || bad "--print $s: $a"
done

# unpack: default-train's returned files -> the shipped files of a model folder
F=$tmp/files
mkdir -p "$F/model" "$tmp/rest/adapter" "$tmp/dest"
printf 'w1' > "$F/model/model-00001-of-00002.safetensors"
printf 'w2' > "$F/model/model-00002-of-00002.safetensors"
echo '{"event": "start"}' > "$F/train_log.jsonl"
for f in config.json generation_config.json model.safetensors.index.json tokenizer.json tokenizer_config.json \
         synth_stats.json check_hf.json README.md adapter/adapter_config.json; do echo "{\"f\": \"$f\"}" > "$tmp/rest/$f"; done
tar czf "$F/model_rest.tar.gz" -C "$tmp/rest" .
echo "the card" > "$tmp/dest/README.md"
printf 'stale' > "$tmp/dest/model-00001-of-00003.safetensors"
bash "$R" unpack "$F" "$tmp/dest" train_log_round9.jsonl > "$tmp/unpack.out" 2>&1 && ok || bad "unpack default: $(cat "$tmp/unpack.out")"
got=$(cd "$tmp/dest" && ls | tr '\n' ' ')
[ "$got" = "README.md config.json generation_config.json model-00001-of-00002.safetensors model-00002-of-00002.safetensors model.safetensors.index.json tokenizer.json tokenizer_config.json train_log_round9.jsonl " ] &&
    ok || bad "unpack default left: $got"
[ "$(cat "$tmp/dest/README.md")" = "the card" ] && [ "$(cat "$tmp/dest/model-00002-of-00002.safetensors")" = w2 ] &&
    cmp -s "$tmp/dest/train_log_round9.jsonl" "$F/train_log.jsonl" && ok || bad "unpack default: wrong contents"
# unpack: wait's adapter archive -> the adapter's shipped files
mkdir -p "$tmp/arm/arm-plan" "$tmp/adest"
for f in adapter_config.json adapter_model.safetensors base.json train_log.jsonl trained_ids.txt README.md; do
    echo "$f" > "$tmp/arm/arm-plan/$f"; done
tar czf "$tmp/adapter-plan.tgz" -C "$tmp/arm" arm-plan
echo "the card" > "$tmp/adest/README.md"
bash "$R" unpack "$tmp/adapter-plan.tgz" "$tmp/adest" > "$tmp/unpack.out" 2>&1 && ok || bad "unpack adapter: $(cat "$tmp/unpack.out")"
got=$(cd "$tmp/adest" && ls | tr '\n' ' ')
[ "$got" = "README.md adapter_config.json adapter_model.safetensors base.json train_log.jsonl " ] &&
    [ "$(cat "$tmp/adest/README.md")" = "the card" ] && ok || bad "unpack adapter left: $got"
# unpack: what it refuses
expect_rc 2 "unpack without DEST" bash "$R" unpack "$F"
mkdir -p "$tmp/empty"
expect_rc 3 "unpack of a folder that is not default-train's" bash "$R" unpack "$tmp/empty" "$tmp/d2"
echo "not a tar" > "$tmp/bad.tgz"
expect_rc 3 "unpack of a file that is not an archive" bash "$R" unpack "$tmp/bad.tgz" "$tmp/d3"
tar czf "$tmp/noarm.tgz" -C "$tmp/rest" config.json
expect_rc 3 "unpack of an archive without an adapter" bash "$R" unpack "$tmp/noarm.tgz" "$tmp/d4"
[ ! -e "$tmp/d2" ] && [ ! -e "$tmp/d4" ] && ok || bad "a refused unpack made its DEST"

# hold/unhold, in a made-up checkout: HOLD's paths leave the tree for ../.recipe-hold and come back, nothing else moves
H=$tmp/holdtest; mkdir -p "$H/repo/train" "$H/repo/models/default" "$H/repo/bench/results" "$H/repo/tests" "$H/repo/src"
cp "$R" "$H/repo/train/recipe.sh"
for f in models/default/w bench/results/r tests/t src/s; do echo "$f" > "$H/repo/$f"; done
(cd "$H/repo" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm t) || bad "hold: git init"
HOLD="models/default tests" bash "$H/repo/train/recipe.sh" hold > "$tmp/hold.out" 2>&1 &&
    [ ! -e "$H/repo/models/default" ] && [ ! -e "$H/repo/tests" ] && [ -e "$H/repo/bench/results/r" ] && [ -e "$H/repo/src/s" ] &&
    [ "$(cat "$H/.recipe-hold/tests/t")" = tests/t ] && ok || bad "hold moved the wrong paths: $(cat "$tmp/hold.out")"
bash "$H/repo/train/recipe.sh" hold > /dev/null 2>&1 && [ ! -e "$H/repo/bench/results" ] && ok || bad "hold without HOLD: bench/results stayed"
bash "$H/repo/train/recipe.sh" unhold > "$tmp/hold.out" 2>&1 &&
    [ -z "$(cd "$H/repo" && git status --porcelain)" ] && [ ! -e "$H/.recipe-hold/LIST" ] && ok || bad "unhold left: $(cd "$H/repo" && git status --porcelain)"

# hold/unhold never nest a folder in one already there nor overwrite one: a made-up checkout each
holdrepo() { # holdrepo DIR: a committed checkout at DIR/repo with models/default, tests (and tests/model), src
    rm -rf "$1"; mkdir -p "$1/repo/train" "$1/repo/models/default" "$1/repo/tests/model" "$1/repo/src"
    cp "$R" "$1/repo/train/recipe.sh"
    for f in models/default/w tests/t tests/model/m src/s; do echo "$f" > "$1/repo/$f"; done
    (cd "$1/repo" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm t) || bad "holdrepo: git init"
}
clean() { [ -z "$(cd "$1/repo" && git status --porcelain)" ]; }
# an earlier hold of tests/model left ../.recipe-hold/tests (empty folders): it goes, tests does not nest in it
holdrepo "$tmp/h1"; mkdir -p "$tmp/h1/.recipe-hold/tests/model"
HOLD=tests bash "$tmp/h1/repo/train/recipe.sh" hold > "$tmp/hold.out" 2>&1 && [ ! -e "$tmp/h1/repo/tests" ] &&
    [ "$(cat "$tmp/h1/.recipe-hold/tests/t" 2>/dev/null)" = tests/t ] && [ ! -e "$tmp/h1/.recipe-hold/tests/tests" ] && ok ||
    bad "hold over an empty leftover folder: $(cat "$tmp/hold.out"; cd "$tmp/h1" && find .recipe-hold)"
bash "$tmp/h1/repo/train/recipe.sh" unhold > "$tmp/hold.out" 2>&1 && clean "$tmp/h1" && [ ! -e "$tmp/h1/repo/tests/tests" ] &&
    [ ! -e "$tmp/h1/.recipe-hold" ] && ok || bad "unhold after a leftover: $(cat "$tmp/hold.out"; cd "$tmp/h1" && find .recipe-hold repo/tests)"
# unhold leaves no empty folders behind: the hold of a subfolder, then of its parent, round trip
HOLD=tests/model bash "$tmp/h1/repo/train/recipe.sh" hold > /dev/null 2>&1 && bash "$tmp/h1/repo/train/recipe.sh" unhold > /dev/null 2>&1 &&
    [ ! -e "$tmp/h1/.recipe-hold" ] && clean "$tmp/h1" && ok || bad "unhold of tests/model left: $(cd "$tmp/h1" && find .recipe-hold)"
HOLD=tests bash "$tmp/h1/repo/train/recipe.sh" hold > /dev/null 2>&1 && bash "$tmp/h1/repo/train/recipe.sh" unhold > /dev/null 2>&1 &&
    clean "$tmp/h1" && [ ! -e "$tmp/h1/repo/tests/tests" ] && ok || bad "hold tests after tests/model: $(cd "$tmp/h1/repo" && git status --porcelain)"
# a destination that holds files: refused with its path and cause, and nothing moved (not even the paths before it)
holdrepo "$tmp/h2"; mkdir -p "$tmp/h2/.recipe-hold/tests"; echo old > "$tmp/h2/.recipe-hold/tests/old"
out=$(HOLD="models/default tests" bash "$tmp/h2/repo/train/recipe.sh" hold 2>&1); rc=$?
[ "$rc" = 3 ] && grep -q "\.\./\.recipe-hold/tests already exists and is not an empty folder" <<<"$out" && grep -q "nothing moved" <<<"$out" &&
    clean "$tmp/h2" && [ ! -e "$tmp/h2/.recipe-hold/models" ] && [ ! -e "$tmp/h2/.recipe-hold/LIST" ] && ok ||
    bad "hold onto a held folder: exit $rc: $out"
# HOLD naming a folder and one inside it: refused, nothing moved
out=$(HOLD="tests tests/model" bash "$tmp/h2/repo/train/recipe.sh" hold 2>&1); rc=$?
[ "$rc" = 3 ] && grep -q "HOLD names tests/model inside tests" <<<"$out" && clean "$tmp/h2" && ok || bad "hold of nested paths: exit $rc: $out"
# unhold never overwrites a path that is in the tree again; an empty folder there gives way
holdrepo "$tmp/h3"
HOLD=tests bash "$tmp/h3/repo/train/recipe.sh" hold > /dev/null 2>&1 && mkdir -p "$tmp/h3/repo/tests" && echo new > "$tmp/h3/repo/tests/new" || bad "unhold setup"
out=$(bash "$tmp/h3/repo/train/recipe.sh" unhold 2>&1); rc=$?
[ "$rc" = 3 ] && grep -q "tests is in the tree again" <<<"$out" && [ "$(cat "$tmp/h3/repo/tests/new")" = new ] &&
    [ -e "$tmp/h3/.recipe-hold/tests/t" ] && [ -e "$tmp/h3/.recipe-hold/LIST" ] && ok || bad "unhold over a tree path: exit $rc: $out"
rm -r "$tmp/h3/repo/tests"; mkdir -p "$tmp/h3/repo/tests/model"
bash "$tmp/h3/repo/train/recipe.sh" unhold > "$tmp/hold.out" 2>&1 && clean "$tmp/h3" && [ ! -e "$tmp/h3/.recipe-hold" ] && ok ||
    bad "unhold over an empty folder: $(cat "$tmp/hold.out")"

# BASE=qwen15 (the 1.5B base): an unknown base is refused before anything runs
expect_rc 2 "pack with an unknown BASE" env BASE=qwen7 bash "$R" pack
# the pieces' round trip, as the device does it: pieces.sh (a smaller first piece), one `put` per call
# from .carry-pieces/, base.sh's `assemble`; the GGUF comes back byte for byte under its base's name
RT=$tmp/rt; mkdir -p "$RT/repo/train/steps" "$RT/src/tok"
cp "$R" train/pieces.sh "$RT/repo/train/" && cp train/steps/base.sh "$RT/repo/train/steps/"
head -c 5000000 /dev/urandom > "$RT/src/m.gguf"; echo '{"model": {}}' > "$RT/src/tok/tokenizer.json"; echo whl > "$RT/src/x-1-py3-none-any.whl"
NAME=qwen15 FIRST_MB=1 PIECE_MB=2 bash train/pieces.sh "$RT/pieces" "$RT/src/m.gguf" - "$RT/src/tok" - "$RT/src/x-1-py3-none-any.whl" > /dev/null 2>&1 &&
    [ "$(ls "$RT/pieces" | tr '\n' ' ')" = "MANIFEST piece.00 piece.01 piece.02 " ] && [ "$(stat -c %s "$RT/pieces/piece.00")" = 1048576 ] &&
    [ "$(stat -c %s "$RT/pieces/piece.01")" = 2097152 ] && ok || bad "pieces.sh FIRST_MB: $(ls -l "$RT/pieces" 2>&1)"
for f in "$RT"/pieces/piece.*; do
    rm -rf "$RT/repo/.carry-pieces" && mkdir -p "$RT/repo/.carry-pieces" && cp "$RT/pieces/MANIFEST" "$f" "$RT/repo/.carry-pieces/"
    PG_DIR="$RT/pg" bash "$RT/repo/train/recipe.sh" put > "$tmp/put.out" 2>&1 || bad "put $(basename "$f"): $(cat "$tmp/put.out")"
done
grep -q "pieces here: 3 of 3" "$tmp/put.out" && ok || bad "put: $(cat "$tmp/put.out")"
PG_DIR="$RT/pg" OUT="$RT/out" bash "$RT/repo/train/steps/base.sh" assemble > "$tmp/asm.out" 2>&1 &&
    cmp -s "$RT/pg/up/qwen15.gguf" "$RT/src/m.gguf" && [ -f "$RT/pg/up/qwen15-tok/tokenizer.json" ] && ok ||
    bad "assemble: the GGUF did not come back: $(cat "$tmp/asm.out")"
# a corrupted piece is refused at put
rm -rf "$RT/repo/.carry-pieces" && mkdir -p "$RT/repo/.carry-pieces" && cp "$RT/pieces/MANIFEST" "$RT/pieces/piece.01" "$RT/repo/.carry-pieces/"
printf 'x' | dd of="$RT/repo/.carry-pieces/piece.01" bs=1 seek=100 conv=notrunc 2>/dev/null
expect_rc 3 "put of a corrupted piece" env PG_DIR="$RT/pg2" bash "$RT/repo/train/recipe.sh" put
# train finds the base the bundle holds and refuses an adapter of another base before any training
mkdir -p "$RT/repo/.carry/bin" "$RT/init"; printf '#!/bin/sh\n' > "$RT/repo/.carry/bin/ptxgen"; chmod +x "$RT/repo/.carry/bin/ptxgen"
echo '{}' > "$RT/init/adapter_config.json"; echo '{"gguf": "../base/qwen2.5-coder-0.5b-instruct.gguf"}' > "$RT/init/base.json"
out=$(cd "$RT/repo" && PG_DIR="$RT/pg" OUT="$RT/out" INIT_PLAN="$RT/init" bash train/recipe.sh train 10 plan 2>&1); rc=$?
[ "$rc" = 3 ] && grep -q "does not name ../base/qwen2.5-coder-1.5b-instruct.gguf, the base assembled here (qwen15)" <<<"$out" &&
    [ "$(cat "$RT/pg/base" 2>/dev/null)" = "" ] && ok || bad "train with a 0.5B adapter on the 1.5B: exit $rc: $out"
# adopt (a committed adapter measured as it is) refuses one of another base the same way, and adopts nothing
out=$(cd "$RT/repo" && PG_DIR="$RT/pg" OUT="$RT/out" bash train/recipe.sh adopt "$RT/init" 2>&1); rc=$?
[ "$rc" = 3 ] && grep -q "does not name ../base/qwen2.5-coder-1.5b-instruct.gguf" <<<"$out" && [ ! -e "$RT/pg/arms" ] &&
    [ ! -e "$RT/pg/arm-plan" ] && ok || bad "adopt of a 0.5B adapter on the 1.5B: exit $rc: $out"
expect_rc 2 "adopt without a folder" env PG_DIR="$RT/pg" bash "$R" adopt
out=$(cd "$RT/repo" && PG_DIR="$RT/pg" OUT="$RT/out" BASE=qwen bash train/recipe.sh train 10 plan 2>&1); rc=$?
[ "$rc" = 3 ] && grep -q "MISSING $RT/pg/up/qwen.gguf" <<<"$out" && ok || bad "train BASE=qwen on a 1.5B bundle: exit $rc: $out"
# hold says what each call carries and refuses a call over 64 MiB
(cd "$RT/repo" && git init -q && printf "/.carry/\n/.carry-pieces/\n" >> .git/info/exclude && git add train && git -c user.name=t -c user.email=t@t commit -qm t) || bad "round trip: git init"
cp "$RT/pieces/MANIFEST" "$RT/pieces/piece.00" "$RT/repo/.carry-pieces/"
out=$(cd "$RT/repo" && HOLD=none bash train/recipe.sh hold 2>&1) && grep -q "^calls: the first .* of 64; 2 pieces" <<<"$out" && ok ||
    bad "hold's call sizes: $out"
truncate -s 65M "$RT/repo/.carry-pieces/piece.01"
out=$(cd "$RT/repo" && HOLD=none bash train/recipe.sh hold 2>&1); rc=$?
[ "$rc" = 3 ] && grep -q "over the 64 MiB" <<<"$out" && ok || bad "hold with a 65 MiB piece: exit $rc: $out"

# verify gives each report shards in proportion to its kernels of that suite (ROWS_PER_SHARD, 40), so the
# 230-row end-to-end report is not the one the budget cuts (round 4 reached 37 of its 46 tasks with two
# shards a report); SHARDS=N overrides; VERIFY_DRY=1 prints the plan and runs nothing
V=$tmp/pgv; mkdir -p "$V/gen-plan/e2e" "$V/gen-plan/plan" "$V/gen-plan/trans" "$V/heldin/t1"
echo plan > "$V/arms"
n=0
for t in bench/suite/*/; do   # 45 suite kernels: 9 tasks x 5 styles; one prose task's kernel in the same folder
    t=$(basename "$t"); n=$((n + 1)); [ "$n" -le 9 ] || break
    for st in terse detailed card zh prose; do : > "$V/gen-plan/e2e/$t.$st.no_bias.0.ptx"; : > "$V/gen-plan/plan/$t.$st.no_bias.0.cu"; done
done
p1=$(basename "$(ls -d bench/suite-prose/*/ | head -n 1)"); : > "$V/gen-plan/e2e/$p1.prose.no_bias.0.ptx"
out=$(PG_DIR="$V" VERIFY_DRY=1 bash "$R" verify 2>&1); rc=$?
[ "$rc" = 0 ] && grep -qx "plan-e2e-suite: 2 shard(s)" <<<"$out" && grep -qx "plan-e2e-suite-prose: 1 shard(s)" <<<"$out" &&
    grep -qx "plan-plan-suite: 2 shard(s)" <<<"$out" && grep -qx "plan-trans-suite: 1 shard(s)" <<<"$out" && ok ||
    bad "verify's shards: exit $rc: $out"
# a translation report covers the styles gen translated in that suite (TRANS_PER_TASK=1: terse on the suite)
: > "$V/gen-plan/trans/$(basename "$(ls -d bench/suite/*/ | head -n 1)").terse.no_bias.0.ptx"
: > "$V/gen-plan/trans/$p1.prose.no_bias.0.ptx"
out=$(PG_DIR="$V" VERIFY_DRY=1 bash "$R" verify 2>&1)
grep -qx "plan-trans-suite: styles terse" <<<"$out" && grep -qx "plan-trans-suite-prose: styles prose" <<<"$out" &&
    ! grep -q "plan-e2e-suite: styles" <<<"$out" && ok || bad "verify's translation styles: $out"
out=$(PG_DIR="$V" VERIFY_DRY=1 ROWS_PER_SHARD=10 bash "$R" verify 2>&1)
grep -qx "plan-e2e-suite: 5 shard(s)" <<<"$out" && ok || bad "verify's shards, 10 rows a shard: $out"
out=$(PG_DIR="$V" VERIFY_DRY=1 SHARDS=3 bash "$R" verify 2>&1)
grep -qx "plan-e2e-suite: 3 shard(s)" <<<"$out" && grep -qx "plan-e2e-suite-prose: 3 shard(s)" <<<"$out" && ok ||
    bad "verify's shards, SHARDS=3: $out"
[ ! -e "$V/ev-plan-e2e-suite-0.json" ] && [ ! -d "$V/reports" ] && ok || bad "verify with VERIFY_DRY=1 ran something"

# gen redraws the held-in tasks only when it runs the held-in stage: a translation-only gen keeps them, so
# a verify of the held-in kernels can run beside it (python3 is a stand-in that logs its arguments)
G=$tmp/pgg; mkdir -p "$G/bin" "$G/qwen-hf" "$G/heldin/t1" "$tmp/fakepy"
echo plan > "$G/arms"; echo qwen > "$G/base"; echo '{}' > "$G/qwen-hf/config.json"
printf '#!/bin/sh\n' > "$G/bin/ptxgen"; chmod +x "$G/bin/ptxgen"
printf '#!/bin/sh\necho "$*" >> "%s/py.log"\n' "$G" > "$tmp/fakepy/python3"; chmod +x "$tmp/fakepy/python3"
out=$(PATH="$tmp/fakepy:$PATH" PG_DIR="$G" GEN_STAGES=trans bash "$R" gen 5 2>&1); rc=$?
[ "$rc" = 0 ] && [ -d "$G/heldin/t1" ] && ! grep -q heldin.py "$G/py.log" && grep -q -- "generate2.py .*--stages trans" "$G/py.log" && ok ||
    bad "gen GEN_STAGES=trans: exit $rc, the held-in tasks $([ -d "$G/heldin/t1" ] && echo kept || echo gone): $(cat "$G/py.log" 2>/dev/null) $out"
: > "$G/py.log"
out=$(PATH="$tmp/fakepy:$PATH" PG_DIR="$G" GEN_STAGES=plan,e2e,heldin bash "$R" gen 5 2>&1); rc=$?
[ "$rc" = 0 ] && [ ! -d "$G/heldin/t1" ] && grep -q "heldin.py .*--out $G/heldin" "$G/py.log" && grep -q -- "--stages plan,e2e,heldin" "$G/py.log" && ok ||
    bad "gen GEN_STAGES=plan,e2e,heldin: exit $rc: $(cat "$G/py.log" 2>/dev/null) $out"

# base_spec's fields are read by position: every `read ... <<<"$spec"` names all of them or ends in `_`
# (on 2026-12-05 `read -r gf _ _ _ lora_r lora_alpha batch` took "24576 512 640" as the batch once base_spec
# had grown two fields, and lora_base.py refused it on the device)
nf=$(sed -n 's/^ *qwen) echo "\(.*\)" ;;$/\1/p' "$R" | wc -w)
[ "$nf" -ge 9 ] && ok || bad "base_spec's qwen line: $nf fields"
while IFS= read -r line; do
    vars=$(sed -n 's/.*read -r \(.*\) <<<"\$spec".*/\1/p' <<<"$line")
    nv=$(wc -w <<<"$vars"); last=${vars##* }
    { [ "$nv" = "$nf" ] || [ "$last" = _ ]; } && ok || bad "reads $nv of base_spec's $nf fields into '$vars' (the last one gets the rest)"
done < <(grep '<<<"\$spec"' "$R")

# the device scripts left bench/ on 2026-12-05: nothing outside the dated results and the log names the old paths
if git rev-parse --git-dir > /dev/null 2>&1; then
    left=$(git grep -l -E 'bench/(device_[a-z_]+|pieces)\.sh' -- . ':!bench/results' ':!bench/NOTES.md' ':!tests/recipe_tests.sh' 2>/dev/null)
    [ -z "$left" ] && ok || bad "still naming bench/device_*.sh or bench/pieces.sh: $left"
fi

echo "recipe: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
