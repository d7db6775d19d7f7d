# ptxgen — build, test, bench, fuzz.  See README.md.
CC      ?= cc
CSTD    := -std=c11
WARN    := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
CPPFLAGS+= -Iinclude -D_POSIX_C_SOURCE=200809L
CFLAGS  ?= -O2 -g
LDLIBS  := -ljansson -lpcre2-8 -ldl -lm -lpthread

BUILD   := build
ALL_SRC := $(filter-out src/cli/%, $(wildcard src/*/*.c))
# library = every module source except tests, fuzz targets and benchmarks
LIB_SRC := $(foreach f,$(ALL_SRC),$(if $(filter test_% fuzz_% bench_%,$(notdir $(f))),,$(f)))
CLI_SRC := $(wildcard src/cli/*.c)
TEST_SRC:= $(wildcard src/*/test_*.c)
DEFS    := $(wildcard src/*/*.def include/ptxgen/*.def)
HDRS    := $(wildcard include/ptxgen/*.h src/*/*.h)

# Normal build -------------------------------------------------------------
OBJ     := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
PIC_OBJ := $(LIB_SRC:%.c=$(BUILD)/pic/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)

all: $(BUILD)/ptxgen $(BUILD)/ptxgen-nvcc $(BUILD)/libptxgen.a $(BUILD)/libptxgen.so

$(BUILD)/obj/%.o: %.c $(HDRS) $(DEFS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# The shared library exports only what the public headers mark PG_API.
$(BUILD)/pic/%.o: %.c $(HDRS) $(DEFS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(CPPFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(BUILD)/libptxgen.a: $(OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libptxgen.so: $(PIC_OBJ)
	$(CC) -shared -o $@ $^ $(LDLIBS)

$(BUILD)/ptxgen: $(CLI_OBJ) $(BUILD)/libptxgen.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libptxgen.a $(LDLIBS)

$(BUILD)/ptxgen-nvcc: $(BUILD)/ptxgen
	ln -sf ptxgen $@

# Installation ----------------------------------------------------------------
# make install PREFIX=/opt/ptxgen [DESTDIR=...]: the CLI, both libraries, the
# public headers, ptxgen.pc (for pkg-config --cflags --libs ptxgen), and under
# DATADIR the default model (+ models/superopt) and the corpus.
PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
# the shipped model, its super-optimization adapter and the seed corpus; the installed
# ptxgen finds them at ../share/ptxgen from its bin/ (cli_near_exe)
DATADIR ?= $(PREFIX)/share/ptxgen
MODEL_FILES := $(wildcard models/default/*.json models/default/*.safetensors models/default/README.md)
SUPEROPT_FILES := $(wildcard models/superopt/*.json models/superopt/*.safetensors models/superopt/README.md)
PUB_HDRS:= $(wildcard include/ptxgen/*.h include/ptxgen/*.def)
VERSION := 0.1.0

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)/ptxgen
	install -m 755 $(BUILD)/ptxgen $(DESTDIR)$(PREFIX)/bin/ptxgen
	ln -sf ptxgen $(DESTDIR)$(PREFIX)/bin/ptxgen-nvcc
	install -m 644 $(BUILD)/libptxgen.a $(DESTDIR)$(LIBDIR)/libptxgen.a
	install -m 755 $(BUILD)/libptxgen.so $(DESTDIR)$(LIBDIR)/libptxgen.so
	install -m 644 $(PUB_HDRS) $(DESTDIR)$(INCDIR)/ptxgen/
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCDIR)' '' \
	  'Name: ptxgen' 'Description: PTX parser, validator, constrained decoder and GPU harness' \
	  'Version: $(VERSION)' 'Libs: -L$${libdir} -lptxgen' 'Libs.private: -ldl -lm -lpthread' \
	  'Requires.private: jansson libpcre2-8' 'Cflags: -I$${includedir}' \
	  > $(DESTDIR)$(LIBDIR)/pkgconfig/ptxgen.pc
	install -d $(DESTDIR)$(DATADIR)/models/default $(DESTDIR)$(DATADIR)/models/superopt $(DESTDIR)$(DATADIR)/corpus
	install -m 644 $(MODEL_FILES) $(DESTDIR)$(DATADIR)/models/default/
	$(if $(SUPEROPT_FILES),install -m 644 $(SUPEROPT_FILES) $(DESTDIR)$(DATADIR)/models/superopt/)
	cp -R corpus/. $(DESTDIR)$(DATADIR)/corpus/
	chmod -R u+rwX,go+rX $(DESTDIR)$(DATADIR)

# Every public header compiles on its own (no hidden include-order needs).
HDR_CHECKS := $(patsubst include/ptxgen/%.h,$(BUILD)/hdrcheck/%.o,$(wildcard include/ptxgen/*.h))
$(BUILD)/hdrcheck/%.o: include/ptxgen/%.h $(PUB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -Wpedantic -Iinclude -x c -c $< -o $@
headers: $(HDR_CHECKS)

# Sanitized build for tests -------------------------------------------------
SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
SBUILD  := $(BUILD)/san
SOBJ    := $(LIB_SRC:%.c=$(SBUILD)/%.o)
SCLI    := $(CLI_SRC:%.c=$(SBUILD)/%.o)
STESTS  := $(patsubst src/%.c,$(SBUILD)/tests/%,$(TEST_SRC))

# The CPU engine's SIMD kernels are sanitized too, at -O2: at -O1 a test that runs a real model
# (test_pipeline: a 135M base) spends minutes in them.
SOPT    := -O1
$(SBUILD)/src/model/kernels.o: SOPT := -O2

$(SBUILD)/%.o: %.c $(HDRS) $(DEFS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(CPPFLAGS) $(SOPT) -g $(SAN) -c $< -o $@

$(SBUILD)/libptxgen.a: $(SOBJ)
	@rm -f $@
	ar rcs $@ $^

$(SBUILD)/ptxgen: $(SCLI) $(SBUILD)/libptxgen.a
	$(CC) $(SAN) -o $@ $(SCLI) $(SBUILD)/libptxgen.a $(LDLIBS)

$(SBUILD)/tests/%: src/%.c $(SBUILD)/libptxgen.a $(HDRS) $(DEFS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(CPPFLAGS) -O1 -g $(SAN) -Isrc -o $@ $< $(SBUILD)/libptxgen.a $(LDLIBS)

# The fault-injection shim of tests/fault_sweep.sh (LD_PRELOAD; see tests/fault/faultshim.c).
$(BUILD)/fault/faultshim.so: tests/fault/faultshim.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -fPIC -shared -o $@ $< -ldl

# The README's test command.  Ends with "N passed, N failed".
# With clang, the fuzz targets are built here too, beside the rest under make -j.
HAVE_CLANG := $(shell command -v clang 2>/dev/null)
FUZZ_BINS := $(BUILD)/fuzz/fuzz_ptx $(BUILD)/fuzz/fuzz_tokenizer $(BUILD)/fuzz/fuzz_model $(BUILD)/fuzz/fuzz_gguf
test: $(SBUILD)/ptxgen $(STESTS) all $(BUILD)/fault/faultshim.so $(BUILD)/diff_ptxas $(BUILD)/bench_model $(BUILD)/bench_gpu \
      $(if $(HAVE_CLANG),$(FUZZ_BINS) $(BUILD)/fuzz/afl_ptx)
	@PTXGEN=$(SBUILD)/ptxgen PTXGEN_BUILD=$(BUILD) bash tests/run_tests.sh $(STESTS)

# The quick check for a working copy (a few minutes): unit tests, the CLI/golden tests and
# the README's examples (which use build/ptxgen), without the nvcc corpus, the
# ptxas/nvcc-heavy suites and the fuzz smoke.
check: $(SBUILD)/ptxgen $(STESTS) all $(BUILD)/bench_model $(BUILD)/bench_gpu
	@PTXGEN=$(SBUILD)/ptxgen PTXGEN_BUILD=$(BUILD) PTXGEN_QUICK=1 bash tests/run_tests.sh $(STESTS)

# The full fault-injection sweep and the crash-consistency run (tens of minutes; their
# counts are committed under bench/results/, machine and date in the files).
DATE    := $(shell date -u +%Y-%m-%d)
fault-sweep: all $(BUILD)/fault/faultshim.so
	nice bash tests/fault_sweep.sh --stride-after 1000 --report bench/results/$(DATE)-fault-sweep-cpu.txt
	nice bash tests/crash_resume.sh --kills 20 --report bench/results/$(DATE)-crash-resume-cpu.txt

# Benchmarks (results committed under bench/results/) ----------------------
$(BUILD)/bench_ptx: src/ptx/bench_ptx.c $(BUILD)/libptxgen.a $(HDRS) $(DEFS)
	$(CC) $(CSTD) $(WARN) $(CPPFLAGS) -O2 -g -Isrc -o $@ $< $(BUILD)/libptxgen.a $(LDLIBS)

$(BUILD)/bench_decode: src/decode/bench_decode.c $(BUILD)/libptxgen.a $(HDRS) $(DEFS)
	$(CC) $(CSTD) $(WARN) $(CPPFLAGS) -O2 -g -Isrc -o $@ $< $(BUILD)/libptxgen.a $(LDLIBS)

$(BUILD)/bench_model: src/model/bench_model.c $(BUILD)/libptxgen.a $(HDRS) $(DEFS)
	$(CC) $(CSTD) $(WARN) $(CPPFLAGS) -O2 -g -Isrc -o $@ $< $(BUILD)/libptxgen.a $(LDLIBS)

# The GPU engine against the CPU engine, and its speed (tests/gpu/engine_gpu.sh runs it on the GPU machine).
$(BUILD)/bench_gpu: src/model/bench_gpu.c $(BUILD)/libptxgen.a $(HDRS) $(DEFS)
	$(CC) $(CSTD) $(WARN) $(CPPFLAGS) -O2 -g -Isrc -o $@ $< $(BUILD)/libptxgen.a $(LDLIBS)

bench: all $(BUILD)/bench_ptx $(BUILD)/bench_decode $(BUILD)/bench_model $(BUILD)/bench_gpu
	bash bench/run_bench.sh

# The differential fuzzer of libptx against ptxas (tests/diff_ptxas/README.md) --
DIFF_SRC := $(wildcard tests/diff_ptxas/*.c)
$(BUILD)/diff_ptxas: $(DIFF_SRC) tests/diff_ptxas/diff.h $(BUILD)/libptxgen.a $(HDRS) $(DEFS)
	$(CC) $(CSTD) $(WARN) $(CPPFLAGS) -O2 -g -o $@ $(DIFF_SRC) $(BUILD)/libptxgen.a $(LDLIBS)

# the long campaign (tests/diff_ptxas/campaign.sh; PROGRAMS, WALKS, BUDGET_S, SHARDS):
# results to bench/results/<date>-diff-ptxas.json
PROGRAMS ?= 200000
WALKS ?= 10000
diff-ptxas: all $(BUILD)/diff_ptxas $(BUILD)/bench_ptx
	bash tests/diff_ptxas/campaign.sh bench/results/$$(date -u +%Y-%m-%d)-diff-ptxas.json $(PROGRAMS) $(WALKS)

$(SBUILD)/diff_ptxas: $(DIFF_SRC) tests/diff_ptxas/diff.h $(SBUILD)/libptxgen.a $(HDRS) $(DEFS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(CPPFLAGS) -O1 -g $(SAN) -o $@ $(DIFF_SRC) $(SBUILD)/libptxgen.a $(LDLIBS)

# Fuzzing (libFuzzer via clang) ---------------------------------------------
# The library is compiled once with the fuzzer's coverage and the sanitizers (one object per
# source, so make -j compiles them side by side) and every target links that archive.
FUZZ_SECONDS ?= 60
FSAN    := -fsanitize=address,undefined
FOBJ    := $(LIB_SRC:%.c=$(BUILD)/fuzzobj/%.o)

$(BUILD)/fuzzobj/%.o: %.c $(HDRS) $(DEFS)
	@mkdir -p $(dir $@)
	clang $(CSTD) $(CPPFLAGS) -O1 -g -fsanitize=fuzzer-no-link $(FSAN) -c $< -o $@

$(BUILD)/fuzzobj/libptxgen.a: $(FOBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/fuzz/fuzz_ptx: src/ptx/fuzz_ptx.c $(BUILD)/fuzzobj/libptxgen.a $(HDRS) $(DEFS)
	@mkdir -p $(dir $@)
	clang $(CSTD) $(CPPFLAGS) -O1 -g -fsanitize=fuzzer $(FSAN) -o $@ $< $(BUILD)/fuzzobj/libptxgen.a $(LDLIBS)

# the same harness with a main() that reads files (AFL++-compatible), on the release library
$(BUILD)/fuzz/afl_ptx: src/ptx/fuzz_ptx.c $(BUILD)/libptxgen.a $(HDRS) $(DEFS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(CPPFLAGS) -O1 -g -DPTXGEN_AFL_MAIN -o $@ $< $(BUILD)/libptxgen.a $(LDLIBS)

# loaders of the model module: tokenizer.json, config.json + safetensors, GGUF
$(BUILD)/fuzz/fuzz_%: src/model/fuzz_%.c $(BUILD)/fuzzobj/libptxgen.a $(HDRS) $(DEFS)
	@mkdir -p $(dir $@)
	clang $(CSTD) $(CPPFLAGS) -Isrc -O1 -g -fsanitize=fuzzer $(FSAN) -o $@ $< $(BUILD)/fuzzobj/libptxgen.a $(LDLIBS)

fuzz: $(FUZZ_BINS) $(BUILD)/fuzz/afl_ptx
	bash tests/fuzz.sh $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD)

.PHONY: all test check bench fuzz clean install headers fault-sweep diff-ptxas
