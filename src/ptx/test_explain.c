/* test_explain.c — explainer tests: template coverage of every ISA row,
 * golden sentences for common instructions, summaries and the listing. */
#include "common/test.h"
#include "ptxgen/ptx.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define HDR ".version 8.0\n.target sm_90\n.address_size 64\n"

/* ---------------------------------------------------------------- coverage */
/* Problems of one row's template (0 = renderable); the first goes to why. */
static int template_problems(const isa_form *f, char *why, size_t whyn) {
    const char *t = f->explain;
    int bad = 0;
    why[0] = 0;
#define BAD(...) do { if (!bad++) snprintf(why, whyn, __VA_ARGS__); } while (0)
    if (!t || !t[0]) { BAD("empty explanation"); return bad; }
    /* at least one word of 3+ letters: a real sentence, not just "{0}" */
    int letters = 0, best = 0;
    for (const char *p = t; *p; p++) {
        if (*p == '{') { const char *e = strchr(p, '}'); if (e) p = e; letters = 0; continue; }
        letters = isalpha((unsigned char)*p) ? letters + 1 : 0;
        if (letters > best) best = letters;
    }
    if (best < 3) BAD("explanation '%s' has no words", t);
    for (const char *p = t; *p; p++) {
        if (*p == '}') { BAD("stray '}' in '%s'", t); break; }
        if (*p != '{') continue;
        const char *e = strchr(p + 1, '}');
        const char *nb = strchr(p + 1, '{');
        if (!e || (nb && nb < e)) { BAD("unbalanced '{' in '%s'", t); break; }
        const char *b = p + 1;
        size_t len = (size_t)(e - b);
        bool good = false;
        if (len && isdigit((unsigned char)b[0])) {
            bool digits = true;
            for (size_t q = 0; q < len; q++) digits = digits && isdigit((unsigned char)b[q]);
            good = digits && (f->call_syntax || atoi(b) < f->nops);
        } else if (len == 4 && !strncmp(b, "mods", 4)) {
            good = true;
        } else if (f->call_syntax && ((len == 1 && b[0] == 'f') || (len == 4 && (!strncmp(b, "args", 4) || !strncmp(b, "rets", 4))))) {
            good = true;
        } else if (len >= 1 && b[0] >= 'A' && b[0] <= 'Z' && (len == 1 || b[1] == '?')) {
            for (int s = 0; s < f->nmods; s++)
                if (f->mods[s].var == b[0] - 'A') good = true;
        }
        if (!good) BAD("placeholder '{%.*s}' in '%s' cannot be rendered", (int)len, b, t);
        p = e;
    }
#undef BAD
    return bad;
}

/* Every row of the ISA table has a non-empty template whose placeholders can
 * all be rendered, so a row added without a proper sentence fails here. */
static void test_template_coverage(void) {
    CHECK(isa_init(NULL) == PG_OK, "isa_init failed");
    int n = isa_form_count(), bad = 0;
    CHECK(n > 100, "only %d forms", n);
    for (int i = 0; i < n; i++) {
        const isa_form *f = isa_form_get(i);
        char why[512];
        int k = template_problems(f, why, sizeof why);
        if (k) {
            CHECK(k == 0, "row %d (%s %s | %s): %s", i, f->opcode, f->mod_pattern ? f->mod_pattern : "",
                  f->op_pattern ? f->op_pattern : "", why);
            bad++;
        }
    }
    CHECK(bad == 0, "%d row(s) with template problems", bad);

    /* the checker itself catches bad rows */
    isa_form fake;
    memset(&fake, 0, sizeof fake);
    fake.opcode = "fake";
    fake.nops = 2;
    fake.nmods = 1;
    fake.mods[0].var = 'T' - 'A';
    char why[512];
    static const struct { const char *tpl; bool ok; } cases[] = {
        {"copy {1} into {0} as {T}", true}, {"", false}, {NULL, false}, {"{0}", false},
        {"copy {2} into {0}", false}, {"copy {1} as {Q}", false}, {"copy {1} {T?plain} {mods}", true},
        {"copy {1 into {0}", false}, {"copy {1}} into", false}, {"call {f}", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fake.explain = cases[i].tpl;
        bool ok = template_problems(&fake, why, sizeof why) == 0;
        CHECK(ok == cases[i].ok, "checker on '%s': %s", cases[i].tpl ? cases[i].tpl : "(null)", why);
    }
    fake.call_syntax = true;
    fake.explain = "call the function {f}{args}{rets}";
    CHECK(template_problems(&fake, why, sizeof why) == 0, "call syntax: %s", why);
}

/* ------------------------------------------------------------ golden */
static ptx_module *load(const char *src) {
    pg_diag_sink s = {NULL, NULL, 0, 0, 0};
    ptx_module *m = NULL;
    pg_status ps = ptx_parse(src, strlen(src), "t.ptx", &m, &s);
    pg_status vs = ps == PG_OK ? ptx_validate(m, &s) : ps;
    CHECK(ps == PG_OK && vs == PG_OK, "test source does not validate (%d errors):\n%s", s.nerrors, src);
    return m;
}

/* Explanation of the n-th instruction (0-based) of the first function with a body. */
static char *explain_nth(ptx_module *m, int n) {
    for (int fi = 0; fi < m->nfuncs; fi++) {
        const ptx_func *f = &m->funcs[fi];
        if (!f->has_body) continue;
        int k = 0;
        for (int i = 0; i < f->nbody; i++) {
            if (f->body[i].kind != PTX_ST_INSN) continue;
            if (k++ == n) {
                pg_buf b = {0};
                ptx_explain_insn(m, f, &f->body[i].u.insn, &b);
                return b.data ? b.data : calloc(1, 1);
            }
        }
    }
    return calloc(1, 1);
}

#define KERNEL_OPEN HDR                                                             \
    ".global .align 4 .f32 gvar[16];\n"                                             \
    ".extern .func (.param .b32 rv) helper (.param .b32 a0, .param .b64 a1);\n"     \
    ".visible .entry k(.param .u64 k_p0, .param .u32 k_n)\n{\n"                     \
    ".reg .pred %p<4>; .reg .b32 %r<16>; .reg .f32 %f<16>; .reg .b64 %rd<16>;\n"   \
    ".shared .align 16 .b8 sbuf[256];\n"

typedef struct { const char *insn, *want; } golden;

static void test_golden(void) {
    static const golden g[] = {
        {"ld.global.f32 %f1, [%rd8];", "Load a 32-bit float from global memory at the address in %rd8 into %f1."},
        {"ld.global.f32 %f1, [%rd8+16];", "Load a 32-bit float from global memory at the address in %rd8 plus 16 bytes into %f1."},
        {"ld.param.u64 %rd1, [k_p0];", "Load a 64-bit unsigned integer from parameter memory at parameter k_p0 into %rd1."},
        {"ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd2];",
         "Load a 4-element vector of 32-bit floats from global memory at the address in %rd2 into %f1, %f2, %f3, %f4."},
        {"st.shared.v4.f32 [%r1], {%f1, %f2, %f3, %f4};",
         "Store the 4-element vector of 32-bit floats %f1, %f2, %f3, %f4 to shared memory at the address in %r1."},
        {"st.shared.f32 [sbuf+8], %f1;", "Store the 32-bit float %f1 to shared memory at variable sbuf plus 8 bytes."},
        {"mad.lo.s32 %r2, %r5, %r4, %r1;",
         "Multiply %r5 by %r4 as 32-bit signed integers, add %r1, and write the low half of the result to %r2."},
        {"@%p1 setp.lt.s32 %p2, %r2, %r3;",
         "If %p1 is true, set the predicate %p2 to whether %r2 is less than %r3 as 32-bit signed integers."},
        {"@!%p1 bra $L1;", "If %p1 is false, branch to $L1."},
        {"bra.uni $L1;", "Branch to $L1."},
        {"bar.sync 0;", "Wait at CTA barrier 0 until all threads arrive."},
        {"atom.global.add.f32 %f2, [%rd3], %f1;",
         "Atomically add %f1 into the 32-bit float at the address in %rd3 in global memory and return the old value in %f2."},
        {"shfl.sync.bfly.b32 %r1|%p1, %r2, 16, 31, -1;",
         "Read %r2 from the butterfly (XOR) lane (lane operand 16, clamp 31, mask -1) into %r1 and %p1."},
        {"cvt.rn.f32.s32 %f1, %r1;",
         "Convert the 32-bit signed integer %r1 to 32-bit float rounding to nearest even into %f1."},
        {"fma.rn.f32 %f3, %f1, 0f3F800000, %f2;",
         "Compute the fused multiply-add %f1 * 1.0 (0f3F800000) + %f2 as 32-bit floats with one rounding into %f3."},
        {"mov.f32 %f1, 0f3DCCCCCD;", "Copy 0.1 (0f3DCCCCCD) into the 32-bit float register %f1."},
        {"mov.u32 %r1, %tid.x;", "Copy %tid.x (thread index within the CTA, x) into the 32-bit unsigned integer register %r1."},
        {"mov.u32 %r1, %laneid;", "Copy %laneid (lane index within the warp) into the 32-bit unsigned integer register %r1."},
        {"mov.u64 %rd1, gvar;", "Copy the address of variable gvar into the 64-bit unsigned integer register %rd1."},
        {"cvta.to.global.u64 %rd1, %rd2;",
         "Convert the generic address %rd2 to a global address in %rd1."},
        {"add.s64 %rd1, %rd2, -8;", "Add %rd2 and -8 as 64-bit signed integers and write the sum to %rd1."},
        {"mul.wide.s32 %rd1, %r1, 4;", "Multiply %r1 by 4 as 32-bit signed integers and write the widening product to %rd1."},
        {"setp.lo.u32 %p1, %r1, %r2;", "Set the predicate %p1 to whether %r1 is unsigned lower than %r2 as 32-bit unsigned integers."},
        {"ld.global.nc.f32 %f1, [%rd1];",
         "Load a 32-bit float from global memory at the address in %rd1 through the read-only cache into %f1."},
        {"ld.global.u8 %r1, [%rd1];", "Load an 8-bit unsigned integer from global memory at the address in %rd1 into %r1."},
        {"ret;", "Return from the function."},
    };
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
        char src[4096];
        snprintf(src, sizeof src, "%s%s\n$L1:\nret;\n}\n", KERNEL_OPEN, g[i].insn);
        ptx_module *m = load(src);
        char *got = explain_nth(m, 0);
        CHECK(!strcmp(got, g[i].want), "%s\n    got:  %s\n    want: %s", g[i].insn, got, g[i].want);
        free(got);
        ptx_module_free(m);
    }
}

static void test_call(void) {
    const char *src = KERNEL_OPEN
        "{\n.param .b32 p0; .param .b64 p1; .param .b32 r0;\n"
        "st.param.b32 [p0], %r1;\nst.param.b64 [p1], %rd1;\n"
        "call.uni (r0), helper, (p0, p1);\n"
        "ld.param.b32 %r2, [r0];\n}\nret;\n}\n";
    ptx_module *m = load(src);
    char *got = explain_nth(m, 2);
    const char *want = "Call the function helper with arguments p0 and p1, receiving the result in r0.";
    CHECK(!strcmp(got, want), "call\n    got:  %s\n    want: %s", got, want);
    free(got);
    got = explain_nth(m, 0);
    want = "Store the 32-bit value %r1 to parameter memory at parameter p0.";
    CHECK(!strcmp(got, want), "st.param\n    got:  %s\n    want: %s", got, want);
    free(got);
    ptx_module_free(m);
}

static void test_unrecognised(void) {
    ptx_insn in;
    memset(&in, 0, sizeof in);
    in.opcode = "frobnicate";
    pg_buf b = {0};
    ptx_explain_insn(NULL, NULL, &in, &b);
    CHECK(b.data && !strcmp(b.data, "Unrecognised instruction frobnicate."), "got '%s'", b.data ? b.data : "");
    pg_buf_free(&b);
}

/* Every sentence over every form: starts upper-case, ends with one '.', no
 * double spaces, no " ," and no unrendered braces. */
static void check_sentence_shape(const char *s, const char *ctx) {
    size_t n = strlen(s);
    CHECK(n > 3 && isupper((unsigned char)s[0]) && s[n - 1] == '.' && (n < 2 || s[n - 2] != '.'), "%s: '%s'", ctx, s);
    CHECK(!strstr(s, "  ") && !strstr(s, " ,") && !strstr(s, " .") && !strchr(s, '{') && !strstr(s, "()"),
          "%s: untidy '%s'", ctx, s);
}

static const char *VECADD = HDR
    ".visible .entry vecadd(.param .u64 vecadd_a, .param .u64 vecadd_b, .param .u64 vecadd_c, .param .u32 vecadd_n)\n{\n"
    ".reg .pred %p<2>; .reg .b32 %r<6>; .reg .f32 %f<4>; .reg .b64 %rd<11>;\n"
    "ld.param.u64 %rd1, [vecadd_a]; ld.param.u64 %rd2, [vecadd_b]; ld.param.u64 %rd3, [vecadd_c];\n"
    "ld.param.u32 %r2, [vecadd_n];\n"
    "mov.u32 %r3, %ctaid.x; mov.u32 %r4, %ntid.x; mov.u32 %r5, %tid.x;\n"
    "mad.lo.s32 %r1, %r3, %r4, %r5;\n"
    "setp.ge.s32 %p1, %r1, %r2;\n@%p1 bra $DONE;\n"
    "cvta.to.global.u64 %rd4, %rd1; cvta.to.global.u64 %rd5, %rd2; cvta.to.global.u64 %rd6, %rd3;\n"
    "mul.wide.s32 %rd7, %r1, 4;\nadd.s64 %rd8, %rd4, %rd7; add.s64 %rd9, %rd5, %rd7; add.s64 %rd10, %rd6, %rd7;\n"
    "ld.global.f32 %f1, [%rd8]; ld.global.f32 %f2, [%rd9];\nadd.f32 %f3, %f1, %f2;\nst.global.f32 [%rd10], %f3;\n"
    "$DONE:\nret;\n}\n";

static const char *LOOP = HDR
    ".visible .entry saxpy(.param .u32 s_n, .param .f32 s_a, .param .u64 s_x, .param .u64 s_y)\n{\n"
    ".reg .pred %p<3>; .reg .f32 %f<5>; .reg .b32 %r<11>; .reg .b64 %rd<8>;\n"
    ".shared .align 4 .f32 tile[64];\n"
    "ld.param.u32 %r6, [s_n]; ld.param.f32 %f1, [s_a]; ld.param.u64 %rd3, [s_x]; ld.param.u64 %rd4, [s_y];\n"
    "mov.u32 %r1, %ntid.x; mov.u32 %r7, %ctaid.x; mov.u32 %r8, %tid.x; mad.lo.s32 %r10, %r7, %r1, %r8;\n"
    "setp.ge.s32 %p1, %r10, %r6;\n@%p1 bra $L3;\n"
    "mov.u32 %r9, %nctaid.x; mul.lo.s32 %r3, %r1, %r9;\n"
    "cvta.to.global.u64 %rd1, %rd3; cvta.to.global.u64 %rd2, %rd4;\n"
    "$L2:\nmul.wide.s32 %rd5, %r10, 4; add.s64 %rd6, %rd1, %rd5; ld.global.nc.f32 %f2, [%rd6];\n"
    "add.s64 %rd7, %rd2, %rd5; ld.global.f32 %f3, [%rd7]; fma.rn.f32 %f4, %f2, %f1, %f3; st.global.f32 [%rd7], %f4;\n"
    "bar.sync 0;\natom.shared.add.f32 %f3, [tile], %f4;\n"
    "add.s32 %r10, %r10, %r3; setp.lt.s32 %p2, %r10, %r6;\n@%p2 bra $L2;\n"
    "$L3:\nret;\n}\n";

static int count_periods(const char *s) {
    /* sentence ends: ". " or a final '.' */
    int n = 0;
    for (const char *p = s; *p; p++)
        if (*p == '.' && (p[1] == ' ' || p[1] == 0)) n++;
    return n;
}

static void test_summary(void) {
    ptx_module *m = load(VECADD);
    pg_buf b = {0};
    ptx_explain_summary(m, &m->funcs[0], &b);
    const char *s = b.data ? b.data : "";
    int np = count_periods(s);
    CHECK(np >= 3 && np <= 5, "summary has %d sentences: %s", np, s);
    CHECK(strstr(s, "Kernel vecadd takes 4 parameters (3 pointers as .u64: vecadd_a, vecadd_b and vecadd_c; vecadd_n as .u32)") != NULL,
          "params: %s", s);
    CHECK(strstr(s, "computes its global index from %ctaid.x, %ntid.x and %tid.x") != NULL, "index: %s", s);
    CHECK(strstr(s, "exits early when %p1 is true (set by setp.ge.s32 comparing %r1 with %r2)") != NULL, "exit: %s", s);
    CHECK(strstr(s, "2 global loads, 1 global store") != NULL, "memory: %s", s);
    CHECK(strstr(s, "The body has 22 instructions") != NULL, "count: %s", s);
    CHECK(strstr(s, "3 basic blocks with no loops") != NULL, "blocks: %s", s);
    CHECK(!strstr(s, "shared") && !strstr(s, "barrier") && !strstr(s, "atomic"), "no false claims: %s", s);
    pg_buf_free(&b);
    ptx_module_free(m);

    m = load(LOOP);
    memset(&b, 0, sizeof b);
    ptx_explain_summary(m, &m->funcs[0], &b);
    s = b.data ? b.data : "";
    np = count_periods(s);
    CHECK(np >= 3 && np <= 5, "summary has %d sentences: %s", np, s);
    CHECK(strstr(s, "with 1 loop (a back edge to $L2), including a grid-stride loop") != NULL, "loop: %s", s);
    CHECK(strstr(s, "256 bytes of static shared memory (tile)") != NULL, "shared: %s", s);
    CHECK(strstr(s, "synchronises at 1 barrier") != NULL, "barrier: %s", s);
    CHECK(strstr(s, "1 atomic operation (atom.shared.add.f32)") != NULL, "atomic: %s", s);
    CHECK(strstr(s, "s_x and s_y") != NULL && strstr(s, "s_n as .u32") != NULL && strstr(s, "s_a as .f32") != NULL, "params: %s", s);
    pg_buf_free(&b);
    ptx_module_free(m);
}

static void test_module_listing(void) {
    ptx_module *m = load(VECADD);
    pg_buf b = {0};
    ptx_explain_module(m, &b);
    const char *s = b.data ? b.data : "";
    CHECK(strstr(s, "\tld.global.f32 %f1, [%rd8];\n\t// Load a 32-bit float from global memory at the address in %rd8 into %f1.\n") != NULL,
          "listing:\n%s", s);
    CHECK(strstr(s, ".reg .f32 %f<4>;  // 4 32-bit float registers %f0..%f3") != NULL, "decl comment:\n%s", s);
    CHECK(strstr(s, "$DONE:\n") != NULL, "label kept");
    CHECK(strstr(s, "}\n// Summary:\n//   Kernel vecadd takes 4 parameters") != NULL, "summary comment:\n%s", s);
    /* every instruction line is followed by a comment line */
    int insns = 0, comments = 0;
    for (const char *p = s; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *q = p;
        while (q < p + n && *q == '\t') q++;
        if (q > p && q < p + n && *q != '.' && *q != '/' && *q != '{' && *q != '}') {
            insns++;
            const char *nx = e ? e + 1 : p + n;
            const char *r = nx;
            while (*r == '\t') r++;
            if (!strncmp(r, "// ", 3)) comments++;
        }
        p = e ? e + 1 : p + n;
    }
    CHECK(insns == 22 && comments == insns, "%d instruction lines, %d comments", insns, comments);
    pg_buf_free(&b);
    ptx_module_free(m);
}

/* All sentences of real-looking kernels are well-formed. */
static void test_shapes(void) {
    const char *srcs[] = {VECADD, LOOP};
    for (int k = 0; k < 2; k++) {
        ptx_module *m = load(srcs[k]);
        for (int i = 0;; i++) {
            char *s = explain_nth(m, i);
            if (!s[0]) { free(s); break; }
            char ctx[32];
            snprintf(ctx, sizeof ctx, "src %d insn %d", k, i);
            check_sentence_shape(s, ctx);
            free(s);
        }
        ptx_module_free(m);
    }
}

int main(void) {
    test_template_coverage();
    test_golden();
    test_call();
    test_unrecognised();
    test_summary();
    test_module_listing();
    test_shapes();
    return TEST_DONE();
}
