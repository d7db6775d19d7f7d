#!/usr/bin/env bash
# lib_surface.sh — the library as an outside program sees it:
#  1. every public header compiles on its own (make headers);
#  2. libptxgen.so exports only prefixed public API (nm -D), including every
#     function the Python sides load with ctypes (train/generate.py, python/);
#     libptxgen.a's external symbols (internal ones included: a program linking
#     the archive sees them all) carry a module prefix too;
#  3. make install PREFIX=<tmp> installs lib, headers and ptxgen.pc, and a tiny
#     program compiles and links against it via pkg-config (shared and static)
#     and runs; it installs the model and the corpus too, and the installed ptxgen
#     finds them (gen, synth) from any folder.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
BUILD=${PTXGEN_BUILD:-build}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. headers alone
for h in include/ptxgen/*.h; do
    if ${CC:-cc} -std=c11 -Wall -Wextra -Werror -Wpedantic -Iinclude -x c -fsyntax-only "$h" 2>"$tmp/h.err"; then ok
    else bad "$h does not compile alone: $(head -n 3 "$tmp/h.err")"; fi
done
if grep -n '#include *"\.\./' include/ptxgen/*.h include/ptxgen/*.def; then bad "a public header reaches outside include/"; else ok; fi

# 2. exports
make -s BUILD="$BUILD" "$BUILD/libptxgen.so" >/dev/null || bad "libptxgen.so does not build"
nm -D --defined-only "$BUILD/libptxgen.so" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort >"$tmp/exports"
n=$(wc -l <"$tmp/exports")
PREFIXES='^(pg|ptx|isa|task|expr|synth|gen|pipe|dec|model|tok|eval|gpu|twin)_'   # one per module
unprefixed=$(grep -vE "$PREFIXES" "$tmp/exports" | grep -vE '^(_init|_fini|_edata|_end|__bss_start)$')
if [ -z "$unprefixed" ]; then ok; else bad "unprefixed exports: $(echo $unprefixed | head -c 400)"; fi
# every exported name is declared PG_API in a public header (nothing exported by accident)
for s in $(cat "$tmp/exports"); do
    grep -qE "PG_API[^;]*[^a-z0-9_]$s *\(|PG_API[^;]*[^a-z0-9_]$s *\[" include/ptxgen/*.h || echo "$s"
done >"$tmp/undeclared"
if [ ! -s "$tmp/undeclared" ]; then ok; else bad "exported but not declared PG_API: $(head -c 300 "$tmp/undeclared")"; fi
# and the other way round: a library function a public header declares is exported (a
# declaration without PG_API would be hidden, and programs using it would not link)
make -s BUILD="$BUILD" "$BUILD/libptxgen.a" >/dev/null
nm --defined-only "$BUILD/libptxgen.a" 2>/dev/null | awk '$2 ~ /^[TDR]$/ {print $3}' | sort -u >"$tmp/defined"
cat include/ptxgen/*.h | grep -oE '[A-Za-z_][A-Za-z0-9_]* *\(' | tr -d ' (' | sort -u >"$tmp/declared"
comm -12 "$tmp/defined" "$tmp/declared" | comm -23 - "$tmp/exports" >"$tmp/hidden"
if [ ! -s "$tmp/hidden" ]; then ok; else bad "declared in include/ptxgen but not exported (PG_API missing?): $(tr '\n' ' ' <"$tmp/hidden" | head -c 300)"; fi
[ "$n" -gt 100 ] && ok || bad "only $n exports"
# the static library: every external (non-static) symbol, internal helpers included, has its
# module's prefix, so a program that links libptxgen.a cannot collide with a short name.
# Helpers used by one file are static instead.
nm --defined-only "$BUILD/libptxgen.a" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDRBCGSVW]$/ {print $3}' | sort -u >"$tmp/archive"
[ "$(wc -l <"$tmp/archive")" -gt "$n" ] && ok || bad "libptxgen.a: only $(wc -l <"$tmp/archive") external symbols (nm failed?)"
unprefixed_a=$(grep -vE "$PREFIXES" "$tmp/archive")
if [ -z "$unprefixed_a" ]; then ok; else bad "libptxgen.a: unprefixed external symbols (prefix them or make them static): $(echo $unprefixed_a | head -c 400)"; fi
# what the ctypes users call must stay exported
need=$( (grep -oE '\bL\.[a-z_0-9]+' train/generate.py | sed 's/^L\.//'; grep -ohE '\blib\.(pg|gen|dec|task|ptx)_[a-z_0-9]+' python/tests/*.py python/ptxgen/*.py | sed 's/^lib\.//') | sort -u)
[ -n "$need" ] && ok || bad "found no ctypes users to check"
for s in $need; do
    if grep -qx "$s" "$tmp/exports"; then ok; else bad "ctypes needs $s, not exported"; fi
done

# 3. install + pkg-config
if make -s BUILD="$BUILD" install PREFIX="$tmp/p" >"$tmp/install.log" 2>&1; then ok; else bad "make install: $(tail -n 3 "$tmp/install.log")"; fi
for f in bin/ptxgen lib/libptxgen.so lib/libptxgen.a lib/pkgconfig/ptxgen.pc include/ptxgen/common.h include/ptxgen/diag_codes.def; do
    [ -e "$tmp/p/$f" ] && ok || bad "install lacks $f"
done
# the installed headers, each alone, from the installed tree only
for h in "$tmp"/p/include/ptxgen/*.h; do
    if ${CC:-cc} -std=c11 -Wall -Wextra -Werror -I"$tmp/p/include" -x c -fsyntax-only "$h" 2>"$tmp/h.err"; then ok
    else bad "installed $(basename "$h") does not compile alone: $(head -n 3 "$tmp/h.err")"; fi
done
cat >"$tmp/hello.c" <<'C'
#include <ptxgen/ptx.h>
#include <ptxgen/expr.h>
#include <stdio.h>
#include <string.h>
int main(void) {
    const char *src = ".version 7.0\n.target sm_80\n.address_size 64\n"
                      ".visible .entry k(.param .u64 p)\n{\n  ret;\n}\n";
    pg_diag_sink q = {0};
    ptx_module *m = NULL;
    if (ptx_parse(src, strlen(src), "hello.ptx", &m, &q) != PG_OK) return 1;
    pg_status st = ptx_validate(m, &q);
    ptx_module_free(m);
    expr_env env = {{"n"}, {1000}, 1};
    int64_t v = 0;
    if (!expr_size_eval("cdiv(n,256)", &env, &v, NULL, 0)) return 2;
    printf("%s %lld %s\n", pg_status_str(st), (long long)v, pg_diag_code(PG_E_SYNTAX));
    return 0;
}
C
export PKG_CONFIG_PATH="$tmp/p/lib/pkgconfig"
if cc -std=c11 -o "$tmp/hello" "$tmp/hello.c" $(pkg-config --cflags --libs ptxgen) 2>"$tmp/cc.err"; then ok
else bad "compile against the installed library: $(head -n 5 "$tmp/cc.err")"; fi
out=$(LD_LIBRARY_PATH="$tmp/p/lib" "$tmp/hello" 2>&1)
[ "$out" = "ok 4 E001" ] && ok || bad "shared: program printed '$out'"
if cc -std=c11 -o "$tmp/hello_static" "$tmp/hello.c" $(pkg-config --cflags ptxgen) "$tmp/p/lib/libptxgen.a" \
       $(pkg-config --static --libs-only-l ptxgen | sed 's/-lptxgen//') 2>"$tmp/cc2.err"; then ok
else bad "static link: $(head -n 5 "$tmp/cc2.err")"; fi
out=$("$tmp/hello_static" 2>&1)
[ "$out" = "ok 4 E001" ] && ok || bad "static: program printed '$out'"

# the model and the corpus beside the installed binary: gen and synth find them from anywhere
for f in share/ptxgen/models/default/config.json share/ptxgen/models/default/tokenizer.json \
         share/ptxgen/models/superopt/adapter_config.json share/ptxgen/corpus/saxpy/task.json share/ptxgen/corpus/saxpy/kernel.ptx; do
    [ -e "$tmp/p/$f" ] && ok || bad "install lacks $f"
done
mkdir -p "$tmp/elsewhere"
model=$(cd "$tmp/elsewhere" && env -u PTXGEN_MODEL "$tmp/p/bin/ptxgen" gen --samples 1 --max-tokens 64 --json -o k.ptx \
    "$(cat "$OLDPWD/examples/saxpy.card.md")" 2>"$tmp/igen.err" | python3 -c "import json,sys; print(json.load(sys.stdin)['model_dir'])" 2>/dev/null)
[ "$model" = "$tmp/p/bin/../share/ptxgen/models/default" ] && ok ||
    bad "the installed gen does not find the installed model (model_dir '$model'): $(tail -n 2 "$tmp/igen.err")"
if (cd "$tmp/elsewhere" && "$tmp/p/bin/ptxgen" synth --count 2 --seed 1 --sources hand --out s.jsonl >/dev/null 2>"$tmp/isyn.err"); then ok
else bad "the installed synth does not find the installed corpus: $(tail -n 2 "$tmp/isyn.err")"; fi

echo "lib surface: $n exported symbols"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
