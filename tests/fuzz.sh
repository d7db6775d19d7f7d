#!/usr/bin/env bash
# fuzz.sh SECONDS — run the libFuzzer target for SECONDS on a seed corpus made
# of the example and test PTX files; prints "fuzz: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
secs=${1:-60}
BUILD=${PTXGEN_BUILD:-build}
if ! command -v clang >/dev/null 2>&1; then
    echo "fuzz: SKIPPED (clang not found)"; echo "fuzz: 0 passed, 0 failed"; exit 0
fi
make -s -j"$(nproc)" "$BUILD/fuzz/fuzz_ptx" "$BUILD/fuzz/afl_ptx" >/dev/null || { echo "fuzz: 0 passed, 1 failed (build)"; exit 1; }
seeds=$BUILD/fuzz/seeds
mkdir -p "$seeds" "$BUILD/fuzz/corpus"
cp examples/*.ptx tests/golden/*.ptx tests/ptx/valid/*.ptx tests/fuzz_regressions/* "$seeds"/ 2>/dev/null
ls "$BUILD"/testcorpus/*sm_80.O3.ptx 2>/dev/null | head -20 | xargs -r cp -t "$seeds"/
pass=0; fail=0
# the AFL++-compatible harness must handle every seed
for f in "$seeds"/*; do "$BUILD/fuzz/afl_ptx" "$f" || { echo "afl harness failed on $f"; fail=$((fail + 1)); }; done
[ "$fail" -eq 0 ] && pass=$((pass + 1))
# a fixed seed keeps the CI smoke reproducible; FUZZ_SEED=0 lets libFuzzer pick one (longer campaigns)
ASAN_OPTIONS=detect_leaks=1 "$BUILD/fuzz/fuzz_ptx" -seed="${FUZZ_SEED:-1}" -max_total_time="$secs" -max_len=65536 -timeout=10 \
    -dict=tests/ptx.dict "$BUILD/fuzz/corpus" "$seeds" >"$BUILD/fuzz/log.txt" 2>&1
rc=$?
tail -n 3 "$BUILD/fuzz/log.txt"
if [ "$rc" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "fuzzer found a problem: see $BUILD/fuzz/log.txt and crash-* files"; fi
# the model module's loaders: a shorter smoke each, seeded with their test files
for t in tokenizer model gguf; do
    [ -f "src/model/fuzz_$t.c" ] || continue
    make -s "$BUILD/fuzz/fuzz_$t" >/dev/null || { echo "fuzz_$t: build failed"; fail=$((fail + 1)); continue; }
    tseeds=$BUILD/fuzz/seeds_$t
    mkdir -p "$tseeds" "$BUILD/fuzz/corpus_$t"
    maxlen=65536
    if [ "$t" = gguf ]; then
        # whole GGUF files (types.gguf is ~100 KB) and past crashes
        cp tests/model/gguf/*.gguf tests/tokenizer/*.gguf tests/model/gguf/regress/* "$tseeds"/ 2>/dev/null
        maxlen=262144
    elif [ "$t" = tokenizer ]; then
        for j in tests/tokenizer/*.json; do { printf '\x00'; cat "$j"; } > "$tseeds/$(basename "$j")"; done
        printf '\x01ld.global.f32 %%f1, [%%rd2];' > "$tseeds/text1"
    else
        # the first byte picks the parser: 0 safetensors, 1 config.json, 2 adapter_config.json
        { printf '\x00'; cat tests/model/lora/adapter_model.safetensors; } > "$tseeds/st" 2>/dev/null
        { printf '\x01'; cat tests/model/tied/config.json; } > "$tseeds/cfg" 2>/dev/null
        { printf '\x02'; cat tests/model/lora/adapter_config.json; } > "$tseeds/ad" 2>/dev/null
    fi
    ASAN_OPTIONS=detect_leaks=1 "$BUILD/fuzz/fuzz_$t" -seed="${FUZZ_SEED:-1}" -max_total_time=$(( secs / 4 + 1 )) -max_len=$maxlen \
        -timeout=10 "$BUILD/fuzz/corpus_$t" "$tseeds" >"$BUILD/fuzz/log_$t.txt" 2>&1
    if [ $? -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "fuzz_$t found a problem: see $BUILD/fuzz/log_$t.txt"; fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
