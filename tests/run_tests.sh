#!/usr/bin/env bash
# run_tests.sh — the project's test driver (`make test`).
# Runs the unit-test binaries given as arguments, then the corpus, mutation,
# CLI/golden and fuzz-smoke suites.  Every suite prints "N passed, N failed";
# this script sums them and ends with the same line.
set -u
cd "$(dirname "$0")/.."
PTXGEN=${PTXGEN:-build/san/ptxgen}
BUILD=${PTXGEN_BUILD:-build}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# gen and eval without --model take the 15M models/default in every suite, also where
# models/base is fetched (the search would then take models/qwen-plan: minutes a kernel on
# 2 cores); the tests of the search itself unset it (cli_tests.sh, first_hour.sh, lib_surface.sh)
export PTXGEN_MODEL=$PWD/models/default
total_pass=0
total_fail=0
q=$(mktemp -d)
trap 'rm -rf "$q"' EXIT
log=$q/serial.log

# Suites run side by side, $PTXGEN_TEST_JOBS at a time (default: the machine's cores; most suites
# are one process on one core, and CI stops at 90 minutes).  Each writes to its own log; the logs
# are printed, and their "N passed, N failed" lines counted, in the order the suites were started.
# PTXGEN_TEST_JOBS=1 runs them one after another.
JOBS=${PTXGEN_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
started=0    # suites started; suite i writes $q/i.log, then $q/i.done ("EXIT_STATUS SECONDS")
reported=0   # suites printed and counted, in order
declare -a names

# run_suite NAME CMD... : start CMD once a lane is free; report what has finished
run_suite() {
    local name=$1; shift
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n 2>/dev/null; report_finished; done
    local i=$started
    names[$i]=$name
    (
        t0=$(date +%s)
        "$@" >"$q/$i.log" 2>&1 </dev/null
        echo "$? $(( $(date +%s) - t0 ))" >"$q/$i.tmp" && mv "$q/$i.tmp" "$q/$i.done"
    ) &
    started=$((started + 1))
    report_finished
}

# report_finished: print and count the finished suites that are next in order
report_finished() {
    while [ "$reported" -lt "$started" ] && [ -f "$q/$reported.done" ]; do
        tally "$reported"
        reported=$((reported + 1))
    done
}

# finish_all: wait for every started suite and report it
finish_all() {
    wait
    report_finished
}

# tally I : echo suite I's output and its wall time, add its "N passed, N failed" line
tally() {
    local i=$1 name=${names[$1]} rc secs
    read -r rc secs <"$q/$i.done"
    echo "== $name"
    cat "$q/$i.log"
    # the wall time of each suite, so a slow one shows in CI's log
    echo "   ($name: $secs s)"
    local line
    line=$(grep -E '^([A-Za-z_-]+: )?[0-9]+ passed, [0-9]+ failed' "$q/$i.log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "   $name: no result line (exit $rc) -> counted as 1 failure"
        total_fail=$((total_fail + 1))
        return
    fi
    local p f
    p=$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
    f=$(echo "$line" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "   $name: exited $rc with no failed checks -> counted as 1 failure"
        f=1
    fi
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
}

# PTXGEN_QUICK=1 (`make check`): the unit tests and the CLI/golden tests only, without the
# nvcc corpus, the ptxas/nvcc-heavy unit tests, the fuzz smoke and the Python/GPU/wrapper suites.
QUICK=${PTXGEN_QUICK:-0}
for t in "$@"; do
    case "$t" in
        */test_roundtrip|*/test_mutants) continue ;;   # corpus suites below
        */test_synth_template_plans)   # nvcc on ~800 plans: make check runs the rest
            if [ "$QUICK" = 1 ]; then run_suite "$(basename "$t") (plans not compiled in make check)" env SYNTH_TEMPLATE_NVCC=0 "$t"; continue; fi ;;
        */test_synth_plan_defines)   # nvcc on ~54 rewritten plans twice: make check runs the rest
            if [ "$QUICK" = 1 ]; then run_suite "$(basename "$t") (plans not compiled in make check)" env SYNTH_STYLE_NVCC=0 "$t"; continue; fi ;;
        */test_synth_plan_styles)   # nvcc on 144 varied plans: make check runs the rest
            if [ "$QUICK" = 1 ]; then run_suite "$(basename "$t") (plans not compiled in make check)" env SYNTH_STYLE_NVCC=0 "$t"; continue; fi ;;
        */test_gen|*/test_synth_expr|*/test_synth_dataset)   # minutes of constrained decoding, ptxas and nvcc
            if [ "$QUICK" = 1 ]; then echo "== $(basename "$t"): SKIPPED in make check (make test runs it)"; continue; fi ;;
    esac
    run_suite "$(basename "$t")" "$t"
done
if [ "$QUICK" = 1 ]; then
    run_suite "cli+golden" env PTXGEN="$PTXGEN" PTXGEN_QUICK=1 bash tests/cli_tests.sh
    run_suite "model recipe (train/recipe.sh: steps, --print, unpack; no GPU)" bash tests/recipe_tests.sh
    run_suite "bench programs (bench_model builds and replays a literate kernel through the constraint)" env PTXGEN_BUILD="$BUILD" bash tests/bench_smoke.sh
    run_suite "GPU engine, host half (a stand-in libcuda: bench_gpu's checks, gen --device gpu)" env PTXGEN_BUILD="$BUILD" bash tests/gpu_engine_fake.sh
    run_suite "README and docs examples (fresh clone)" env PTXGEN_BUILD="$BUILD" bash tests/readme_examples.sh
    run_suite "io (output names, write failures, stdout, --json, new inputs)" env PTXGEN="$PTXGEN" bash tests/io_tests.sh
    run_suite "ci deps (.ci/run installs what the tests import)" bash tests/ci_deps.sh
    finish_all
    echo
    echo "(make check: no nvcc corpus, mutants, corpus/suite checks, GPU, nvcc wrapper, Python or fuzz suites; make test runs everything)"
    echo "$total_pass passed, $total_fail failed"
    [ "$total_fail" -eq 0 ]
    exit
fi

# Corpus of nvcc-generated PTX (sm_75/80/90/90a x -O3/-lineinfo/-G/-rdc) + hand-written PTX.
CORPUS=$BUILD/testcorpus
if command -v nvcc >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; then
    if [ ! -f "$CORPUS/.complete" ] || [ tests/cuda -nt "$CORPUS/.complete" ]; then
        rm -rf "$CORPUS"
        # (in the foreground: the unit tests started above go on in their lanes meanwhile)
        bash tests/cuda/build_corpus.sh "$CORPUS" >"$log" 2>&1 && touch "$CORPUS/.complete"
        echo "== corpus (nvcc): $(tail -n 1 "$log")"
    fi
else
    echo "== corpus: SKIPPED (nvcc not found; the nvcc-generated corpus cannot be built here)"
fi
files=$(ls "$CORPUS"/*.ptx tests/ptx/valid/*.ptx examples/*.ptx 2>/dev/null)
if [ -x "$BUILD/san/tests/ptx/test_roundtrip" ]; then
    # every file: no false positives + structural round trip
    # shellcheck disable=SC2086
    run_suite "roundtrip+no-false-positives" "$BUILD/san/tests/ptx/test_roundtrip" $files
    # ptxas on the printed files (same registers and shared memory): the -O3 and hand-written ones,
    # which cover every construct; running ptxas twice on all ~600 files would take most of CI's time
    ptxfiles=$(ls "$CORPUS"/*.O3.ptx "$CORPUS"/*.O3-rdc.ptx tests/ptx/valid/*.ptx examples/*.ptx 2>/dev/null)
    # shellcheck disable=SC2086
    run_suite "roundtrip under ptxas (registers, smem)" "$BUILD/san/tests/ptx/test_roundtrip" --ptxas $ptxfiles
fi
if [ -x "$BUILD/san/tests/ptx/test_mutants" ] && [ -f tests/mutants.sh ]; then
    run_suite "mutants (validator detection vs ptxas)" bash tests/mutants.sh "$CORPUS" "$BUILD/san/tests/ptx/test_mutants"
fi
run_suite "cli+golden" env PTXGEN="$PTXGEN" bash tests/cli_tests.sh
run_suite "model recipe (train/recipe.sh: steps, --print, unpack; no GPU)" bash tests/recipe_tests.sh
run_suite "bench programs (bench_model builds and replays a literate kernel through the constraint)" env PTXGEN_BUILD="$BUILD" bash tests/bench_smoke.sh
run_suite "GPU engine, host half (a stand-in libcuda: bench_gpu's checks, gen --device gpu)" env PTXGEN_BUILD="$BUILD" bash tests/gpu_engine_fake.sh
run_suite "diff_ptxas (libptx vs ptxas: regression cases, fixed-seed fuzz run)" env PTXGEN_BUILD="$BUILD" bash tests/diff_ptxas/smoke.sh
run_suite "literate+two-stage" env PTXGEN="$PTXGEN" PTXGEN_RELEASE="$BUILD/ptxgen" bash tests/literate_tests.sh
run_suite "README and docs examples (fresh clone)" env PTXGEN_BUILD="$BUILD" bash tests/readme_examples.sh
run_suite "the first hour of a new user (issue 33, the shipped model)" env PTXGEN_BUILD="$BUILD" bash tests/first_hour.sh
run_suite "io (output names, write failures, stdout, --json, new inputs)" env PTXGEN="$PTXGEN" bash tests/io_tests.sh
run_suite "ci deps (.ci/run installs what the tests import)" bash tests/ci_deps.sh
# fault injection (the Nth write/fsync/rename/malloc fails) over every command, bounded here: the
# release binary (ASan's allocator and a preloaded malloc do not mix); the full sweep's counts are in
# bench/results (tests/fault_sweep.sh with no bounds)
run_suite "fault injection (bounded sweep)" env PTXGEN_FAULT_BIN="$BUILD/ptxgen" bash tests/fault_sweep.sh --max-n 3 --max-malloc 30
run_suite "crash consistency (SIGKILL, resume; 3 kill points per job)" env PTXGEN_BIN="$BUILD/ptxgen" bash tests/crash_resume.sh --kills 3
run_suite "corpus tasks (static: spec, check, ptxas, signatures, C reference)" env PTXGEN="$PTXGEN" bash tests/corpus_static.sh
run_suite "corpus literate (plan.cu compiles and matches the spec, comments are plan lines, instructions pinned)" env PTXGEN="$PTXGEN" bash tests/corpus_literate.sh
run_suite "held-out suite (no leak into synth, static checks)" env PTXGEN="$PTXGEN" bash tests/suite_heldout.sh
run_suite "gpu harness (adversarial kernels)" env PTXGEN="$PTXGEN" bash tests/gpu_tests.sh
run_suite "nvcc wrapper" env PTXGEN="$PTXGEN" bash tests/nvcc_wrapper.sh
run_suite "python (jupyter magic, glue)" bash tests/python_tests.sh
run_suite "train (python: model, LoRA/PEFT, HF export, tiny training run)" bash tests/train_tests.sh
run_suite "train (python: pretrained-base LoRA, constrained GPU-path generation, GGUF -> HF)" env PTXGEN_LIB="$BUILD/libptxgen.so" bash tests/train_tests.sh train/test_base.py
run_suite "train (python: expert iteration's data path, LoRA from an adapter)" env PTXGEN="$PTXGEN" bash tests/train_tests.sh train/test_expert.py
run_suite "train (python: generate.py --twin, the CUDA C twin turn)" env PTXGEN_LIB="$BUILD/libptxgen.so" PTXGEN="$PTXGEN" bash tests/train_tests.sh train/test_twin.py
run_suite "train (python: failures.py, the failure table of a two-stage eval)" env PTXGEN_LIB="$BUILD/libptxgen.so" bash tests/train_tests.sh train/test_failures.py
run_suite "train (python: plan_loop.py, the plan turn's loop stop, against gen_text_loops)" env PTXGEN_LIB="$BUILD/libptxgen.so" bash tests/train_tests.sh train/test_plan_loop.py
run_suite "library surface (headers alone, exports, make install + pkg-config)" env PTXGEN_BUILD="$BUILD" bash tests/lib_surface.sh
if [ -f tests/fuzz.sh ]; then
    run_suite "fuzz smoke" bash tests/fuzz.sh "${FUZZ_SMOKE_SECONDS:-60}"
fi

finish_all
echo
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
