#!/usr/bin/env bash
# train/recipe.sh — the one way to build the shipped models from the repository: data, training,
# evaluation and packaging, on the H200 in steps of at most ten minutes (one device call each; the
# machine keeps /tmp between calls made back to back). docs/MODELS.md "Rebuilding the shipped models"
# gives each model's command sequence and how long it takes on one H200.
#   bash train/recipe.sh --print STEP [ARGS]   what STEP would run, without running it
#
# The default model (models/default, 15M parameters from scratch; carry build/ptxgen):
#   default-train    on the device: synth, pairs, train/train.py, the model into $OUT (train/steps/default.sh;
#                    SYNTH_SEED, SYNTH_COUNT, SYNTH_MAX_S, TRAIN_ARGS choose the phase)
#   default-eval     on the device: ptxgen eval of models/default on bench/suite, sharded, then the timing
#                    pass (train/steps/eval.sh; RESUME_FROM=DIR continues a cut run)
#   default-ship     on the device: the checks that go with a new models/default and the super-optimization
#                    adapter retrained on it, in $OUT/model_checks.tgz (train/steps/ship_checks.sh)
#   unpack SRC DEST [LOG]  here: the files a call returned into a model folder (the shipped files only;
#                    the model card DEST/README.md is written by hand): SRC is default-train's $OUT (model/*
#                    + model_rest.tar.gz; its train_log.jsonl becomes DEST/LOG, default train_log.jsonl) or
#                    wait's adapter-ARM.tgz
# Other device work, one stage per call (the script's header lists its stages):
#   base STAGE ...   train/steps/base.sh: the pretrained bases' runs (bake-off, long run, A/Bs, expert-ready)
#   expert STAGE ... train/steps/expert.sh: expert iteration (docs/LEARNING.md)
#   superopt         train/steps/superopt.sh: the super-optimization adapter alone
#
# The two-stage model (models/qwen-plan; docs/LITERATE.md). Here (the build machine), once:
#   bash train/recipe.sh pack            build, then cut the base (GGUF + tokenizer + the gguf wheel) into
#                                        pieces under .carry-pieces/ (train/pieces.sh) and the binaries into
#                                        .carry/bin; hold/unhold move the big tracked files out of the tree
#                                        for the calls (each call carries the whole tree, 64 MiB with a piece)
#   bash train/recipe.sh hold | unhold     (hold also prints what each call will carry, and fails over 64 MiB; both
#                                        check every path first and move nothing when one is already on the other side)
# BASE=qwen15 (issue 28 item 7): the same steps on Qwen2.5-Coder-1.5B-Instruct Q4_K_M (models/fetch_base.sh
#   --qwen15) instead of the 0.5B: `BASE=qwen15 bash train/recipe.sh pack` cuts it into 20 pieces (piece.00 of
#   FIRST_MB 50 beside the binaries, then 55 MiB), `put` them, and `train` finds the 1.5B in the assembled
#   bundle by itself (it says which base it trains; BASE on the device only to insist); train converts it to
#   $P/qwen15-hf, trains LoRA r 8 (alpha 16: the adapter is 17.6 MiB, a committed adapter must be <= 20
#   MiB) at BATCH_TOKENS 12288, and gen uses the base train used (GEN_BATCH 256 rows: its KV cache is 2.3x
#   the 0.5B's a token).  docs/MODELS.md "The 1.5B base".
# On the device, one call each (carry [".carry"]; the first carries .carry/bin and piece 00):
#   (each call carries [".carry-pieces/MANIFEST", ".carry-pieces/piece.NN"]; the first also ".carry" with the binaries)
#   start N          the synth of N literate samples starts in the background (both suites excluded,
#                    FAMILY_PCT, FAMILY_WEIGHT, SEED, ARCH: the target, default sm_80 as gen's and eval's; an adapter
#                    trained on sm_90 data, rounds 1-5, is measured as trained with ARCH=sm_90 on gen), and a grow loop turns its whole lines into the
#                    pairs of both arms every 30 s: $P/pairs-plan.jsonl (prompts --stage both: plan and
#                    PTX turns; PLAN_REGS=canonical: registers renumbered in first-use order, prompts --regs canonical) and $P/pairs-single.jsonl (prompts --plain: the same kernels, one turn,
#                    no plan), and $P/pairs-named.jsonl (the plan arm's pairs with registers named after the
#                    plan, declared at first use: prompts --regs named); then `put` of the carried piece
#   put              one more piece
#                    With RETRIEVE=1 the grow loop also builds the retrieval library once LIB_MIN (3000)
#                    samples are there ($P/retrieval.jsonl: `ptxgen retrieve build`, LIB_PER_FAMILY 24 a
#                    family, both suites excluded) and writes $P/pairs-rag.jsonl: the plan arm's pairs with
#                    the nearest kernels in both prompts (`prompts --retrieve`, a sample never sees its own)
#   train TS ARMS    assemble, convert the GGUF (train/steps/base.sh), then one LoRA per arm side by side
#                    for TS seconds each (ARMS: plan, rag, named, single, or several: "plan named"; INIT_PLAN=DIR
#                    continues the two-stage arms from an adapter, e.g. the committed models/qwen-plan),
#                    reading its pairs file as it grows; returns at CALL_S (570) s
#   adopt DIR [ARM]  instead of train and wait: the committed adapter DIR, measured as it is, becomes arm ARM (plan)
#                    for gen and verify (HELDIN_DIR=an earlier round's heldin/ gives gen that round's held-in tasks)
#   wait             until the runs end; adapters (the rag arm's with its library: retrieval.jsonl and
#                    base.json "retrieval"; the named arm's base.json "regs": "named"), logs and the synth's stats into $OUT
#   gen S            generation (GEN_BATCH rows a batch, default 512, 256 on the 1.5B; TRANS_PER_TASK translation rows a task,
#                    default every style): plan, rag and named arms with train/generate2.py (plan, e2e, trans, heldin; rag
#                    with --retrieve; named with --regs-named: its PTX turn runs under the constraint with
#                    named registers, dec_opts.regs_named; PLAN_REPEAT_MAX=N caps how often a straight plan line heads
#                    a comment, dec_opts.plan_repeat_max; TRANS_CAP=N also writes the translations under cap N into
#                    transcap/, TRANS_GREEDY=1 writes them at temperature 0 into transgreedy/, TRANS_STRICT=1 with
#                    register indices held below the declared counts (dec_opts.regs_grow 0) into transstrict/
#                    (REGS_STRICT=1: every row so); verify measures them
#                    beside trans/; GEN_STAGES, e.g. trans, the stages generate2 runs; PLAN_TRIES (4, as gen's default
#                    --samples): a plan nvcc rejects is drawn again up to that many draws in all; rounds 1-4 were
#                    measured with 1), single arm
#                    with train/generate.py; both suites; the held-in suite from the synth (train/heldin.py; drawn again only
#                    by a gen whose GEN_STAGES has heldin, so a translation-only gen can run beside a verify)
#   verify           ptxgen eval --kernels per stage and suite, every report at once, each in shards that run for
#                    VERIFY_BUDGET s: one shard per ROWS_PER_SHARD (40) kernels of the report, so the 230 end-to-end
#                    suite rows get six shards and a 40-row report one (SHARDS=N: N shards for every report instead;
#                    VERIFY_SKIP, a regex of report names to leave out, e.g. '-plan-suite$'; VERIFY_DRY=1 only prints
#                    each report's shards); $OUT gets evals.tgz (every
#                    report), summary.md and gen.tgz (plans, kernels, held-in tasks, training logs)
set -uo pipefail
cd "$(dirname "$0")/.."
PRINT=0; [ "${1:-}" = --print ] && { PRINT=1; shift; }
stage=${1:-}; shift || true
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d'; }
# the steps whose work is a script of train/steps/ (the rest run below, in this file)
step_script() {
    case "$1" in
    default-train) echo train/steps/default.sh ;;
    default-eval) echo train/steps/eval.sh ;;
    default-ship) echo train/steps/ship_checks.sh ;;
    base) echo train/steps/base.sh ;;
    expert) echo train/steps/expert.sh ;;
    superopt) echo train/steps/superopt.sh ;;
    esac
}
script=$(step_script "$stage")
if [ "$PRINT" = 1 ]; then
    if [ -n "$script" ]; then echo "bash $script$([ $# -eq 0 ] || printf ' %q' "$@")"; exit 0; fi
    case "$stage" in
    pack|hold|unhold|start|grow-loop|put|train|adopt|wait|gen|verify|unpack) echo "train/recipe.sh $stage: runs in train/recipe.sh itself"; exit 0 ;;
    *) usage; exit 2 ;;
    esac
fi
# (before the settings below: a script of train/steps/ runs as it would on its own)
[ -n "$script" ] && exec bash "$script" "$@"
P=${PG_DIR:-/tmp/pg}   # the device's work folder (PG_DIR: elsewhere, as tests/recipe_tests.sh runs put and assemble here)
OUT=${OUT:-/tmp/pg-out}
BIN=$P/bin
export PATH="$PATH:/usr/local/cuda/bin" PYTHONUNBUFFERED=1
[ -d "$P/site" ] && export PYTHONPATH="$P/site"
# only_empty_dirs PATH: PATH is a folder with no file anywhere below it (what hold and unhold may replace)
only_empty_dirs() { [ -d "$1" ] && [ ! -L "$1" ] && [ -z "$(find "$1" -mindepth 1 ! -type d -print -quit)" ]; }
need() { [ -e "$1" ] || { echo "MISSING $1: the machine was replaced or an earlier step did not run" >&2; exit 3; }; }
bins() { if [ -d .carry/bin ]; then mkdir -p "$BIN"; cp .carry/bin/* "$BIN/"; fi; need "$BIN/ptxgen"; }
# The bases this recipe trains on: BASE's GGUF under models/base/ (base.json names it so), fetch_base.sh's flag,
# the pieces' sizes in MiB (first, then the rest: the first call also carries the 4 MiB of binaries), the LoRA
# (rank, alpha; a committed adapter must be <= 20 MiB: r 16 on every linear layer is 17.6 MB on the 0.5B,
# r 8 is 18.5 MB on the 1.5B), the training batch in tokens (the 1.5B keeps 3.6 MB a token for backward: 12288 is 44 GB)
# and gen's batches of rows for generate2.py and generate.py (the 1.5B's KV cache is 28 KB a token, the 0.5B's 12)
base_spec() {   # base_spec NAME -> "file fetch_flag first_mb piece_mb lora_r lora_alpha batch_tokens gen2_rows gen1_rows"
    case "$1" in
    qwen) echo "qwen2.5-coder-0.5b-instruct.gguf - 48 48 16 32 32768 512 640" ;;
    qwen15) echo "qwen2.5-coder-1.5b-instruct.gguf --qwen15 50 55 8 16 12288 256 320" ;;
    *) echo "train/recipe.sh: BASE '$1' is not qwen (Qwen2.5-Coder-0.5B) or qwen15 (Qwen2.5-Coder-1.5B)" >&2; return 2 ;;
    esac
}
# the base the assembled bundle holds ($P/up/NAME.gguf), or BASE when it is set and there
up_base() {
    local b=${BASE:-}
    if [ -z "$b" ]; then
        for c in qwen15 qwen; do [ -e "$P/up/$c.gguf" ] && { b=$c; break; }; done
    fi
    [ -n "$b" ] && [ -e "$P/up/$b.gguf" ] || { echo "MISSING $P/up/${b:-<base>}.gguf: the assembled bundle holds $(ls "$P/up" 2>/dev/null | tr '\n' ' ')" >&2; return 3; }
    echo "$b"
}

case "$stage" in
pack)
    B=${BASE:-qwen}
    spec=$(base_spec "$B") || exit 2
    read -r gf flag first piece _ <<<"$spec"
    make -j"$(nproc)" all >/dev/null || exit 2
    if [ ! -e "models/base/$gf" ]; then
        if [ "$flag" = - ]; then bash models/fetch_base.sh || exit 2; else bash models/fetch_base.sh "$flag" || exit 2; fi
    fi
    tokdir=$(mktemp -d)
    python3 - "$tokdir" "$gf" <<'PY' || exit 2
import sys
from transformers import AutoTokenizer
AutoTokenizer.from_pretrained("models/base", gguf_file=sys.argv[2]).save_pretrained(sys.argv[1])
PY
    whl=$(mktemp -d)
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 -d "$whl" gguf==0.19.0 || exit 2
    rm -rf .carry-pieces && NAME=$B FIRST_MB=${FIRST_MB:-$first} PIECE_MB=${PIECE_MB:-$piece} bash train/pieces.sh .carry-pieces \
        "models/base/$gf" - "$tokdir" - "$whl"/*.whl
    rm -rf .carry && mkdir -p .carry/bin && cp build/ptxgen build/libptxgen.so .carry/bin/ && strip --strip-debug .carry/bin/*
    # (the exclude file through git: in a worktree .git is a file, not a folder)
    ex=$(git rev-parse --git-path info/exclude) && mkdir -p "$(dirname "$ex")" || exit 2
    grep -qx "/.carry/" "$ex" || echo '/.carry/' >> "$ex"
    grep -qx '/.carry-pieces/' "$ex" || echo '/.carry-pieces/' >> "$ex"
    ls .carry-pieces
    ;;
hold)      # the tracked files the device does not need leave the tree for the calls (unhold brings them back);
           # HOLD names them (default: models/default bench/results; a call that carries a piece and the
           # binaries while models/qwen-plan is tracked needs HOLD="models/default bench/results tests models/qwen-plan models/qwen15-plan")
    # Every path is checked before any moves: a destination already in ../.recipe-hold would make mv put
    # the folder inside it (tests -> ../.recipe-hold/tests/tests), so it must be absent or a leftover of
    # empty folders (an earlier hold of tests/model leaves ../.recipe-hold/tests), which goes first.
    H=../.recipe-hold
    read -ra hold <<<"${HOLD:-models/default bench/results}"
    for d in "${hold[@]}"; do
        for o in "${hold[@]}"; do
            case "${d%/}" in "${o%/}"/*) echo "train/recipe.sh hold: HOLD names $d inside $o; nothing moved" >&2; exit 3 ;; esac
        done
    done
    moves=()
    for d in "${hold[@]}"; do
        d=${d%/}
        [ -e "$d" ] && [[ " ${moves[*]} " != *" $d "* ]] || continue
        if [ -e "$H/$d" ] && ! only_empty_dirs "$H/$d"; then
            echo "train/recipe.sh hold: $H/$d already exists and is not an empty folder (held before and not unheld?);" \
                 "mv would nest $d inside it; nothing moved" >&2; exit 3
        fi
        p=$(dirname "$d")
        while [ "$p" != . ] && [ "$p" != / ]; do
            [ -e "$H/$p" ] && [ ! -d "$H/$p" ] && { echo "train/recipe.sh hold: $H/$p is a file, so $d cannot be held under it; nothing moved" >&2; exit 3; }
            p=$(dirname "$p")
        done
        moves+=("$d")
    done
    for d in "${moves[@]}"; do
        [ -e "$H/$d" ] && rm -r "$H/$d"   # empty folders only (checked above)
        mkdir -p "$H/$(dirname "$d")" && mv "$d" "$H/$d" && echo "$d" >> "$H/LIST" ||
            { echo "train/recipe.sh hold: could not move $d to $H/$d ($H/LIST names what did move; unhold brings it back)" >&2; exit 3; }
    done
    # the tracked files still here, in KiB (du complains about the held ones: those are gone on purpose)
    { git ls-files -z | xargs -0 du -ck 2>/dev/null; true; } | tail -1
    # what each call will carry: the tree (tracked and untracked files that are not ignored) plus its piece,
    # the first call the binaries too; the device tool refuses a call over 64 MiB
    tree=$({ git ls-files -z --cached --others --exclude-standard | xargs -0 stat -c %s 2>/dev/null; true; } | awk '{s += $1} END {print s + 0}')
    if ls .carry-pieces/piece.* > /dev/null 2>&1; then
        man=$(stat -c %s .carry-pieces/MANIFEST)
        p0=$(stat -c %s .carry-pieces/piece.00)
        pmax=$(ls .carry-pieces/piece.* | xargs stat -c %s | sort -n | tail -n 1)
        bin=$({ du -sb .carry 2>/dev/null || echo 0; } | cut -f1)
        c1=$((tree + man + p0 + bin)) cn=$((tree + man + pmax)) lim=$((64 * 1048576))
        echo "calls: the first (tree + binaries + piece.00) $((c1 / 1048576)) MiB, each put (tree + largest piece)" \
             "$((cn / 1048576)) MiB, of 64; $(ls .carry-pieces/piece.* | wc -l) pieces"
        [ "$c1" -le "$lim" ] && [ "$cn" -le "$lim" ] ||
            { echo "over the 64 MiB a call may carry: hold more (HOLD=...) or pack smaller pieces (PIECE_MB, FIRST_MB)" >&2; exit 3; }
    else
        echo "tree $((tree / 1048576)) MiB (no .carry-pieces: pack first to see each call's size)"
    fi
    ;;
unhold)    # everything hold moved out, and nothing else
    # An existing path of the tree is never overwritten (only a leftover of empty folders gives way); every
    # path is checked before any moves. The empty folders a move leaves in ../.recipe-hold go with it, so a
    # later hold of the parent does not find them in its way.
    H=../.recipe-hold
    back=()
    [ -e "$H/LIST" ] && mapfile -t back < <(sort -u "$H/LIST")
    for d in "${back[@]}"; do
        if [ -e "$H/$d" ] && [ -e "$d" ] && ! only_empty_dirs "$d"; then
            echo "train/recipe.sh unhold: $d is in the tree again and $H/$d holds the held one; move one of them away" \
                 "first (nothing moved)" >&2; exit 3
        fi
    done
    for d in "${back[@]}"; do
        [ -e "$H/$d" ] || continue
        [ -e "$d" ] && rm -r "$d"   # empty folders only (checked above)
        mkdir -p "$(dirname "$d")" && mv "$H/$d" "$d" || { echo "train/recipe.sh unhold: could not move $H/$d back to $d" >&2; exit 3; }
        p=$(dirname "$d")
        while [ "$p" != . ] && rmdir "$H/$p" 2>/dev/null; do p=$(dirname "$p"); done
    done
    rm -f "$H/LIST"
    [ -d "$H" ] && rmdir "$H" 2>/dev/null
    git status --short | head
    ;;
start)
    N=${1:-40000}
    bins
    mkdir -p "$P"
    excl=(--exclude bench/suite --exclude bench/suite-prose)
    rm -f "$P/synth.done" "$P"/pairs-*.jsonl "$P/synth.jsonl" "$P/synth.jsonl.partial"*
    # two cores stay free for the training loops that start later
    # --arch: the target the evaluation gives (generate2.py, gen and eval default to sm_80); synth's own default, sm_90,
    # put "Target: sm_90" into every training prompt of rounds 1-5 while every evaluation prompt said sm_80 (FAILURES.md)
    setsid nohup bash -c "'$BIN/ptxgen' synth --count $N --seed ${SEED:-7} --arch ${ARCH:-sm_80} --jobs $(( $(nproc) - 2 )) ${excl[*]} --format literate \
        --family-pct ${FAMILY_PCT:-75} ${FAMILY_WEIGHT:+--family-weight '$FAMILY_WEIGHT'} --no-progress \
        --out '$P/synth.jsonl' > '$P/synth.log' 2>&1; touch '$P/synth.done'" > /dev/null 2>&1 < /dev/null &
    echo $! > "$P/synth.pid"
    rm -f "$P/retrieval.jsonl" "$P/pairs-rag.jsonl"
    # PLAN_REGS=canonical: the plan arm's PTX targets with registers renumbered in first-use order (prompts --regs
    # canonical, docs/LITERATE.md); kept in $P so that wait can write it into the adapter's base.json
    case "${PLAN_REGS:-numbered}" in numbered|canonical) echo "${PLAN_REGS:-numbered}" > "$P/plan-regs" ;;
        *) echo "train/recipe.sh: PLAN_REGS '$PLAN_REGS' is not numbered or canonical" >&2; exit 2 ;; esac
    setsid nohup env RETRIEVE="${RETRIEVE:-0}" bash "$0" grow-loop > "$P/grow.log" 2>&1 < /dev/null &
    echo "synth of $N started"
    bash "$0" put
    ;;
grow-loop)
    done_n=0
    while :; do
        fin=0; f=$P/synth.jsonl.partial
        [ -e "$P/synth.done" ] && { fin=1; f=$P/synth.jsonl; }
        n=$(wc -l < "$f" 2>/dev/null || echo 0)
        if [ "$n" -gt "$done_n" ]; then
            sed -n "$((done_n + 1)),${n}p" "$f" > "$P/chunk.jsonl"
            if "$BIN/ptxgen" prompts --format chatml --stage both --regs "$(cat "$P/plan-regs" 2>/dev/null || echo numbered)" \
                   --in "$P/chunk.jsonl" --out "$P/chunk-plan.jsonl" 2>> "$P/grow.err" &&
               "$BIN/ptxgen" prompts --format chatml --plain --in "$P/chunk.jsonl" --out "$P/chunk-single.jsonl" 2>> "$P/grow.err" &&
               "$BIN/ptxgen" prompts --format chatml --stage both --regs named --in "$P/chunk.jsonl" --out "$P/chunk-named.jsonl" 2>> "$P/grow.err"; then
                cat "$P/chunk.jsonl" >> "$P/synth-seen.jsonl"
                cat "$P/chunk-plan.jsonl" >> "$P/pairs-plan.jsonl"
                cat "$P/chunk-named.jsonl" >> "$P/pairs-named.jsonl"
                cat "$P/chunk-single.jsonl" >> "$P/pairs-single.jsonl"
                done_n=$n
                echo "$(date +%s) samples $n plan-pairs $(wc -l < "$P/pairs-plan.jsonl") single-pairs $(wc -l < "$P/pairs-single.jsonl")"
            fi
            # the retrieval arm: the library once there are enough samples, then the pairs of every sample so far
            if [ "${RETRIEVE:-0}" = 1 ]; then
                if [ ! -e "$P/retrieval.jsonl" ] && { [ "$done_n" -ge "${LIB_MIN:-3000}" ] || [ "$fin" = 1 ]; }; then
                    "$BIN/ptxgen" retrieve build --in "$P/synth-seen.jsonl" --per-family "${LIB_PER_FAMILY:-24}" \
                        --exclude bench/suite,bench/suite-prose --out "$P/retrieval.jsonl" 2>> "$P/grow.log" && rag_n=0
                fi
                if [ -e "$P/retrieval.jsonl" ] && [ "$done_n" -gt "${rag_n:-0}" ]; then
                    sed -n "$((${rag_n:-0} + 1)),${done_n}p" "$P/synth-seen.jsonl" > "$P/chunk-r.jsonl"
                    "$BIN/ptxgen" prompts --format chatml --stage both --retrieve "$P/retrieval.jsonl" --in "$P/chunk-r.jsonl" \
                        --out "$P/chunk-rag.jsonl" 2>> "$P/grow.err" && cat "$P/chunk-rag.jsonl" >> "$P/pairs-rag.jsonl" && rag_n=$done_n &&
                        echo "$(date +%s) rag-pairs $(wc -l < "$P/pairs-rag.jsonl")"
                fi
            fi
        fi
        [ "$fin" = 1 ] && break
        sleep 30
    done
    echo "grow-loop done"
    ;;
put)   # the pieces carried this call (carry [".carry-pieces/MANIFEST", ".carry-pieces/piece.NN"]), checked against the manifest
    mkdir -p "$P/pieces"
    ls .carry-pieces/piece.* > /dev/null 2>&1 || { echo "no piece carried" >&2; exit 2; }
    cp .carry-pieces/MANIFEST "$P/MANIFEST"
    for f in .carry-pieces/piece.*; do
        b=$(basename "$f")
        grep " $b\$" .carry-pieces/MANIFEST | (cd .carry-pieces && sha256sum --quiet -c -) || { echo "$b: sha256 differs from the manifest" >&2; exit 3; }
        cp "$f" "$P/pieces/"
    done
    echo "pieces here: $(ls "$P/pieces" | wc -l) of $(grep -c ' piece\.' "$P/MANIFEST"); $(tail -n 1 "$P/grow.log" 2>/dev/null)"
    ;;
train)
    TS=${1:-600}; ARMS=${2:-plan}
    t0=$(date +%s)
    [ -z "${INIT_PLAN:-}" ] || need "$INIT_PLAN/adapter_config.json"   # before minutes of assembling
    bins
    [ -e "$P/up/SHA256SUMS" ] || bash train/steps/base.sh assemble > "$P/assemble.log" 2>&1 || { cat "$P/assemble.log"; exit 3; }
    B=$(up_base) || exit 3
    spec=$(base_spec "$B") || exit 2
    read -r gf _ _ _ lora_r lora_alpha batch _ <<<"$spec"
    # an adapter continues only on the base it was trained on (the 0.5B's shapes are not the 1.5B's)
    if [ -n "${INIT_PLAN:-}" ] && ! grep -q "\"\.\./base/$gf\"" "$INIT_PLAN/base.json" 2>/dev/null; then
        echo "INIT_PLAN=$INIT_PLAN: its base.json does not name ../base/$gf, the base assembled here ($B)" >&2; exit 3
    fi
    echo "$B" > "$P/base"
    python3 -m pip install -q --no-index --no-deps --upgrade --target "$P/site" "$P"/up/*.whl > /dev/null && export PYTHONPATH="$P/site"
    [ -e "$P/$B-hf/config.json" ] || python3 train/gguf_to_hf.py "$P/up/$B.gguf" "$P/$B-hf" --tokenizer-from "$P/up/$B-tok" \
        > "$P/convert.log" 2>&1 || { tail "$P/convert.log"; exit 3; }
    echo "base $B ($gf) ready at $(( $(date +%s) - t0 )) s; $(tail -n 1 "$P/grow.log")"
    # the synth goes on for more data, behind the training loops (each needs a core to feed its GPU work)
    [ -e "$P/synth.pid" ] && renice -n 19 -g "$(cat "$P/synth.pid")" > /dev/null 2>&1
    for arm in $ARMS; do
        init=; [ "$arm" != single ] && [ -n "${INIT_PLAN:-}" ] && init="--init-adapter $INIT_PLAN"
        need "$P/pairs-$arm.jsonl"
        rm -rf "$P/arm-$arm" "$P/train-$arm.done"
        # both arms read their own pairs file of the same samples as it grows; half the batch each keeps two in memory
        setsid nohup bash -c "python3 train/lora_base.py --base '$P/$B-hf' --base-gguf '$P/up/$B.gguf' \
            --base-name ../base/$gf --pairs '$P/pairs-$arm.jsonl' --grow 45 \
            --grow-pairs '$P/pairs-$arm.jsonl' --out '$P/arm-$arm' --time-budget $TS --lr ${LR:-4e-4} \
            --lora-r ${LORA_R:-$lora_r} --lora-alpha ${LORA_ALPHA:-$lora_alpha} \
            --batch-tokens ${BATCH_TOKENS:-$batch} --max-len ${MAX_LEN:-8192} --pipeline $([ "$arm" = single ] && echo single || echo plan-literate) \
            $init ${TRAIN_ARGS:-} > '$P/train-$arm.log' 2>&1; echo \$? > '$P/train-$arm.done'" > /dev/null 2>&1 < /dev/null &
    done
    echo "$ARMS" > "$P/arms"
    while [ $(( $(date +%s) - t0 )) -lt "${CALL_S:-570}" ]; do
        left=0; for arm in $ARMS; do [ -e "$P/train-$arm.done" ] || left=1; done
        [ "$left" = 0 ] && break
        sleep 10
    done
    for arm in $ARMS; do echo "== $arm"; grep -E '"event": "(data|done)"' "$P/arm-$arm/train_log.jsonl" 2>/dev/null | tail -n 2 | cut -c1-400
        grep '"event": "step"' "$P/arm-$arm/train_log.jsonl" 2>/dev/null | tail -n 1; tail -n 2 "$P/train-$arm.log"; done
    tail -n 1 "$P/grow.log"; tail -n 1 "$P/synth.log"
    ;;
adopt)     # a committed adapter measured as it is, no training: assemble and convert the base as train does, then
           # DIR becomes arm ARM (default plan) for gen and verify (carry DIR if it is held out of the tree)
    dir=${1:-}; arm=${2:-plan}
    [ -n "$dir" ] || { echo "usage: train/recipe.sh adopt DIR [ARM]" >&2; exit 2; }
    need "$dir/adapter_config.json"
    bins
    [ -e "$P/up/SHA256SUMS" ] || bash train/steps/base.sh assemble > "$P/assemble.log" 2>&1 || { cat "$P/assemble.log"; exit 3; }
    B=$(up_base) || exit 3
    spec=$(base_spec "$B") || exit 2
    read -r gf _ <<<"$spec"
    grep -q "\"\.\./base/$gf\"" "$dir/base.json" 2>/dev/null || { echo "$dir: its base.json does not name ../base/$gf" >&2; exit 3; }
    echo "$B" > "$P/base"
    python3 -m pip install -q --no-index --no-deps --upgrade --target "$P/site" "$P"/up/*.whl > /dev/null && export PYTHONPATH="$P/site"
    [ -e "$P/$B-hf/config.json" ] || python3 train/gguf_to_hf.py "$P/up/$B.gguf" "$P/$B-hf" --tokenizer-from "$P/up/$B-tok" \
        > "$P/convert.log" 2>&1 || { tail "$P/convert.log"; exit 3; }
    rm -rf "$P/arm-$arm" && cp -r "$dir" "$P/arm-$arm" && echo "$arm" > "$P/arms"
    echo "adopted $dir as arm $arm on base $B"
    ;;
wait)
    t0=$(date +%s)
    ARMS=$(cat "$P/arms")
    while [ $(( $(date +%s) - t0 )) -lt "${CALL_S:-570}" ]; do
        left=0; for arm in $ARMS; do [ -e "$P/train-$arm.done" ] || left=1; done
        [ "$left" = 0 ] && break
        sleep 10
    done
    mkdir -p "$OUT"
    kept=
    for arm in $ARMS; do
        [ -e "$P/train-$arm.done" ] || { echo "$arm still training: call wait again"; exit 4; }
        echo "== $arm exit $(cat "$P/train-$arm.done")"
        # a run that failed (out of memory beside the others, say) leaves gen and verify: its log says why
        if [ "$(cat "$P/train-$arm.done")" != 0 ] || [ ! -e "$P/arm-$arm/adapter_model.safetensors" ]; then
            echo "$arm failed: left out of gen and verify"; tail -n 3 "$P/train-$arm.log" | cut -c1-300
            cp "$P/train-$arm.log" "$OUT/train-$arm-failed.log" 2>/dev/null; continue
        fi
        kept="$kept $arm"
        grep -E '"event": "done"' "$P/arm-$arm/train_log.jsonl" | cut -c1-600
        if [ "$arm" = rag ]; then   # the adapter ships with the library its prompts were built from
            cp "$P/retrieval.jsonl" "$P/arm-rag/retrieval.jsonl" &&
                python3 -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['retrieval']='retrieval.jsonl'; json.dump(d, open(p,'w'), indent=1)" \
                    "$P/arm-rag/base.json"
        fi
        if [ "$arm" = plan ] && [ "$(cat "$P/plan-regs" 2>/dev/null)" = canonical ]; then   # what its targets were: a record, gen needs nothing
            python3 -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['regs']='canonical'; json.dump(d, open(p,'w'), indent=1)" \
                "$P/arm-plan/base.json"
        fi
        if [ "$arm" = named ]; then   # its PTX turn declares named registers: ptxgen gen admits them (base.json "regs")
            python3 -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['regs']='named'; json.dump(d, open(p,'w'), indent=1)" \
                "$P/arm-named/base.json"
        fi
        tar czf "$OUT/adapter-$arm.tgz" -C "$P" "arm-$arm"
        sha256sum "$P/arm-$arm/adapter_model.safetensors"
    done
    echo "${kept# }" > "$P/arms"
    "$BIN/ptxgen" synth --stats "$P/synth-seen.jsonl" > "$OUT/synth-stats.json" 2>&1
    cp "$P/grow.log" "$P/synth.log" "$OUT/" 2>/dev/null
    ls -la "$OUT"
    ;;
gen)
    GS=${1:-540}
    t0=$(date +%s)
    bins
    [ -e "$P/synth.pid" ] && kill -- -"$(cat "$P/synth.pid")" 2>/dev/null   # its cores go to nvcc and ptxas now
    ARMS=$(cat "$P/arms")
    B=$(cat "$P/base" 2>/dev/null || echo qwen)   # the base train converted and trained on
    need "$P/$B-hf/config.json"
    spec=$(base_spec "$B") || exit 2
    read -r _ _ _ _ _ _ _ gen2_rows gen1_rows <<<"$spec"
    first=$(for a in $ARMS; do [ "$a" != single ] && echo "$a" && break; done)
    # HELDIN_DIR: an earlier round's held-in tasks (its gen.tgz's heldin/), so that an adopted adapter meets its own again.
    # A gen without the held-in stage keeps the tasks an earlier gen drew: a verify of them may be running beside it
    # (the translation gen beside the first verify, docs/MODELS.md "Device time of a 1.5B run")
    stages=${GEN_STAGES:-plan,e2e,trans,heldin}
    if [[ ",$stages," != *,heldin,* ]] && [ -d "$P/heldin" ]; then :
    elif [ -n "${HELDIN_DIR:-}" ]; then rm -rf "$P/heldin" && cp -r "$HELDIN_DIR" "$P/heldin"
    else rm -rf "$P/heldin" && python3 train/heldin.py --synth "$P/synth-seen.jsonl" --trained "$P/arm-${first:-plan}/trained_ids.txt" \
        --n "${HELDIN:-100}" --out "$P/heldin"; fi
    pids=()
    for arm in $ARMS; do
        if [ "$arm" != single ]; then
            extra=(); [ "$arm" = rag ] && extra=(--retrieve "$P/retrieval.jsonl")
            [ "$arm" = named ] && extra=(--regs-named)   # its PTX turn declares `.reg .T %name;` (dec_opts.regs_named)
            python3 train/generate2.py --base "$P/$B-hf" --adapter "$P/arm-$arm" --lib "$BIN/libptxgen.so" --suite bench/suite \
                --suite bench/suite-prose --heldin "$P/heldin" --out "$P/gen-$arm" --model-name "qwen-$arm" --deadline "$GS" --arch "${ARCH:-sm_80}" \
                --max-new "${MAX_NEW:-6144}" --batch "${GEN_BATCH:-$gen2_rows}" --jobs "$(nproc)" --trans-per-task "${TRANS_PER_TASK:-0}" \
                --plan-repeat-max "${PLAN_REPEAT_MAX:-0}" --plan-tries "${PLAN_TRIES:-4}" --trans-cap "${TRANS_CAP:-0}" ${TRANS_GREEDY:+--trans-greedy} \
                ${TRANS_STRICT:+--trans-strict} ${REGS_STRICT:+--regs-strict} \
                --stages "$stages" "${extra[@]}" > "$P/gen-$arm.log" 2>&1 &
        else
            python3 train/generate.py --base "$P/$B-hf" --adapter "$P/arm-$arm" --lib "$BIN/libptxgen.so" --suite bench/suite \
                --suite bench/suite-prose --out "$P/gen-$arm" --model-name "qwen-$arm" --deadline "$GS" --max-new "${MAX_NEW:-6144}" \
                --batch "${GEN_BATCH:-$gen1_rows}" ${REGS_STRICT:+--regs-strict} > "$P/gen-$arm.log" 2>&1 &
        fi
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || echo "a generation failed (rc $?)"; done
    for arm in $ARMS; do echo "== $arm"; tail -n 2 "$P/gen-$arm.log" | cut -c1-600; done
    echo "generated in $(( $(date +%s) - t0 )) s"
    ;;
verify)
    # VERIFY_DRY=1: only say which reports would run and in how many shards (nothing runs, nothing is written)
    [ -n "${VERIFY_DRY:-}" ] || bins
    [ -n "${VERIFY_DRY:-}" ] || mkdir -p "$OUT"
    ARMS=$(cat "$P/arms")
    # (suite, kernels dir, report name) per stage
    jobs=()
    for arm in $ARMS; do
        if [ "$arm" != single ]; then
            for s in suite suite-prose; do
                jobs+=("bench/$s $P/gen-$arm/plan $arm-plan-$s" "bench/$s $P/gen-$arm/e2e $arm-e2e-$s" "bench/$s $P/gen-$arm/trans $arm-trans-$s"
                       "bench/$s $P/gen-$arm/transcap $arm-transcap-$s" "bench/$s $P/gen-$arm/transgreedy $arm-transgreedy-$s"
                       "bench/$s $P/gen-$arm/transstrict $arm-transstrict-$s")
                # transcap, transgreedy, transstrict: only with TRANS_CAP, TRANS_GREEDY, TRANS_STRICT
            done
            jobs+=("$P/heldin $P/gen-$arm/heldin-plan $arm-heldinplan" "$P/heldin $P/gen-$arm/heldin $arm-heldin")
        else
            for s in suite suite-prose; do jobs+=("bench/$s $P/gen-$arm $arm-e2e-$s"); done
        fi
    done
    # every report compiles the same tasks' reference.cu: once for all of them
    export PTXGEN_NVCC_CACHE=$P/nvcc-cache && mkdir -p "$PTXGEN_NVCC_CACHE"
    for j in "${jobs[@]}"; do
        read -r suite kd name <<<"$j"
        [ -d "$kd" ] || { echo "no $kd"; continue; }
        [ -n "${VERIFY_SKIP:-}" ] && [[ $name =~ $VERIFY_SKIP ]] && { echo "skipped: $name"; continue; }
        # a report's shards in proportion to its kernels (of this suite's tasks: both suites share a folder;
        # a plan is a .cu, a kernel a .ptx), so that every shard has about as much to do and the big
        # end-to-end report is not the one the budget cuts
        SH=${SHARDS:-}
        if [ -z "$SH" ]; then
            ext=ptx; [[ $name == *-plan-* || $name == *-heldinplan ]] && ext=cu
            n=0
            for t in "$suite"/*/; do
                t=$(basename "$t")
                n=$(( n + $(find "$kd" -maxdepth 1 -name "$t.*.$ext" | wc -l) ))
            done
            rps=${ROWS_PER_SHARD:-40}
            SH=$(( (n + rps - 1) / rps )); [ "$SH" -ge 1 ] || SH=1
        fi
        echo "$name: $SH shard(s)"
        # a translation report covers the styles gen translated (TRANS_PER_TASK=1: each task's first style), not
        # rows of styles it never drew, which `eval` would print as 0% valid (round 14's summary.md did)
        sty=()
        if [[ $name == *-trans* ]]; then
            st=$(for t in "$suite"/*/; do t=$(basename "$t"); find "$kd" -maxdepth 1 -name "$t.*.ptx" -printf '%f\n'; done |
                 sed -n 's/^[^.]*\.\([a-z]*\)\..*$/\1/p' | sort -u | paste -sd, -)
            [ -n "$st" ] && { sty=(--styles "$st"); echo "$name: styles $st"; }
        fi
        [ -n "${VERIFY_DRY:-}" ] && continue
        for ((i = 0; i < SH; i++)); do
            # a plan folder's <case>.cu is the source of the PTX beside it, not a twin to run against it (--no-twins)
            notw=(); [[ $name == *-plan-* || $name == *-heldinplan ]] && notw=(--no-twins)
            timeout "${VERIFY_BUDGET:-400}" "$BIN/ptxgen" eval --suite "$suite" --kernels "$kd" --model-name "$name" --no-bias --samples 1 \
                --no-timing "${notw[@]}" "${sty[@]}" --shard "$i/$SH" --no-progress --out "$P/ev-$name-$i.json" > /dev/null 2> "$P/ev-$name-$i.err" &
        done
    done
    [ -n "${VERIFY_DRY:-}" ] && exit 0
    wait
    # at most 8 files come back from a call: the reports go into one archive, and a summary beside it
    R=$P/reports; rm -rf "$R"; mkdir -p "$R"
    for j in "${jobs[@]}"; do
        read -r suite kd name <<<"$j"
        "$BIN/ptxgen" eval --merge "$P"/ev-"$name"-[0-9]*.json --out "$R/eval-$name.json" 2>/dev/null &&
            "$BIN/ptxgen" eval --report "$R/eval-$name.json" > "$R/eval-$name.md"
        { echo "== $name"; sed -n '/description style/,/^$/p' "$R/eval-$name.md" | head -12; } | tee -a "$OUT/summary.md"
    done
    tar czf "$OUT/evals.tgz" -C "$R" .
    tar czf "$OUT/gen.tgz" -C "$P" $(for a in $ARMS; do echo "gen-$a gen-$a.log"; done) heldin $(for a in $ARMS; do echo "arm-$a/train_log.jsonl"; done) 2>/dev/null
    ls -la "$OUT"
    ;;
unpack)   # here: what a call returned -> a model folder, the files that ship and nothing else
    src=${1:-}; dest=${2:-}; log=${3:-train_log.jsonl}
    [ -n "$src" ] && [ -n "$dest" ] || { echo "usage: train/recipe.sh unpack SRC DEST [LOG]" >&2; exit 2; }
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    if [ -f "$src" ]; then   # wait's adapter-ARM.tgz: arm-ARM/ inside
        tar xzf "$src" -C "$tmp" || { echo "$src: not a tar.gz" >&2; exit 3; }
        a=$(ls -d "$tmp"/arm-*/ 2>/dev/null | head -n 1)
        [ -n "$a" ] && [ -f "$a/adapter_model.safetensors" ] || { echo "$src: no arm-*/adapter_model.safetensors inside" >&2; exit 3; }
        mkdir -p "$dest" || exit 3
        for f in adapter_config.json adapter_model.safetensors base.json train_log.jsonl retrieval.jsonl; do
            [ -f "$a/$f" ] && { cp "$a/$f" "$dest/$f" || exit 3; }
        done
    else   # default-train's $OUT: model/*.safetensors and model_rest.tar.gz (train/steps/default.sh's header)
        ls "$src"/model/*.safetensors > /dev/null 2>&1 && [ -f "$src/model_rest.tar.gz" ] ||
            { echo "$src: no model/*.safetensors and model_rest.tar.gz (what default-train returns)" >&2; exit 3; }
        tar xzf "$src/model_rest.tar.gz" -C "$tmp" || { echo "$src/model_rest.tar.gz: not a tar.gz" >&2; exit 3; }
        [ -f "$tmp/config.json" ] || { echo "$src/model_rest.tar.gz: no config.json" >&2; exit 3; }
        mkdir -p "$dest" && rm -f "$dest"/model.safetensors "$dest"/model-*-of-*.safetensors && cp "$src"/model/*.safetensors "$dest/" || exit 3
        for f in config.json generation_config.json model.safetensors.index.json tokenizer.json tokenizer_config.json; do
            [ -f "$tmp/$f" ] && { cp "$tmp/$f" "$dest/$f" || exit 3; }
        done
        [ -f "$src/train_log.jsonl" ] && { cp "$src/train_log.jsonl" "$dest/$log" || exit 3; }
    fi
    ls "$dest"
    ;;
*)
    usage
    [ -z "$stage" ] || exit 2
    ;;
esac
