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

# the device scripts left bench/ on 2026-12-05: nothing outside the dated results and the log names the old paths
if git rev-parse --git-dir > /dev/null 2>&1; then
    left=$(git grep -l -E 'bench/(device_[a-z_]+|pieces)\.sh' -- . ':!bench/results' ':!bench/NOTES.md' ':!tests/recipe_tests.sh' 2>/dev/null)
    [ -z "$left" ] && ok || bad "still naming bench/device_*.sh or bench/pieces.sh: $left"
fi

echo "recipe: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
