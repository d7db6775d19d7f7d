/* test_ptx.c — lexer, parser, printer and validator unit tests. */
#include "common/test.h"
#include "ptxgen/ptx.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct { pg_diag d[64]; int n; } diag_log;
static void collect(void *u, const pg_diag *d) {
    diag_log *l = u;
    if (l->n < 64) l->d[l->n++] = *d;
}

#define HDR ".version 8.0\n.target sm_80\n.address_size 64\n"

/* Parse + validate; returns the module (caller frees) and fills the log. */
static ptx_module *run(const char *src, diag_log *log, pg_status *pst, pg_status *vst) {
    memset(log, 0, sizeof *log);
    pg_diag_sink s = {collect, log, 0, 0, 0};
    ptx_module *m = NULL;
    *pst = ptx_parse(src, strlen(src), "t.ptx", &m, &s);
    *vst = PG_OK;
    if (*pst == PG_OK) *vst = ptx_validate(m, &s);
    return m;
}

static bool has_code(const diag_log *l, const char *code, int line) {
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->d[i].code, code) && (line <= 0 || l->d[i].line == line)) return true;
    return false;
}

static void dump(const diag_log *l) {
    for (int i = 0; i < l->n; i++) {
        char b[700];
        pg_diag_format(&l->d[i], b, sizeof b);
        fprintf(stderr, "    %s\n", b);
    }
}

static void test_valid_handwritten(void) {
    const char *src = HDR
        "/* block comment\n spanning lines */\n"
        ".global .align 4 .u32 tab[4] = {1, 0x10, 017, -2};\n"
        ".extern .shared .align 16 .b8 dyn[];\n"
        ".visible .entry k(.param .u64 p, .param .u32 n) .maxntid 128, 1, 1 .minnctapersm 2\n"
        "{ .reg .pred %p<3>; .reg .b32 %r<8>; .reg .f32 %f<4>; .reg .f64 %fd<2>; .reg .b64 %rd<4>;\n"
        "  ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n]; // two statements on a line\n"
        "L0: mov.u32 %r2, %tid.x; setp.lt.u32 %p1|%p2, %r2, %r1;\n"
        "  @!%p1 bra DONE;\n"
        "  mov.f32 %f1, 0f3F800000; mov.f64 %fd1, 0d3FF0000000000000; mov.f32 %f2, 1.5;\n"
        "  add.s32 %r3, %r2, -7; add.u32 %r4, %r2, 0xFFU;\n"
        "  ld.global.v2.f32 {%f1, _}, [%rd1+8];\n"
        "  mov.u32 %r5, dyn; st.shared.f32 [%r5+-4], %f1;\n"
        "  { .reg .b32 %inner; mov.b32 %inner, %r2; }\n"
        "DONE: ret;\n"
        "}\n";
    diag_log l;
    pg_status ps, vs;
    ptx_module *m = run(src, &l, &ps, &vs);
    CHECK(ps == PG_OK && vs == PG_OK, "hand-written module should be valid");
    if (ps != PG_OK || vs != PG_OK) dump(&l);
    CHECK(m->nfuncs == 1 && m->funcs[0].nperf == 2, "perf directives parsed");
    CHECK(m->ptx_version == 80 && m->sm == 80 && m->address_size == 64, "header parsed");
    /* round trip */
    pg_buf b = {0};
    ptx_print(m, &b);
    ptx_module *m2 = NULL;
    pg_diag_sink s = {collect, &l, 0, 0, 0};
    CHECK(ptx_parse(b.data, b.len, "printed.ptx", &m2, &s) == PG_OK, "printed module parses");
    char why[256] = "";
    CHECK(ptx_module_equal(m, m2, why, sizeof why), "round trip: %s", why);
    pg_buf b2 = {0};
    ptx_print(m2, &b2);
    CHECK(b.len == b2.len && !memcmp(b.data, b2.data, b.len), "printer is a fixpoint");
    pg_buf_free(&b);
    pg_buf_free(&b2);
    ptx_module_free(m2);
    ptx_module_free(m);
}

/* One case per diagnostic code: the snippet, the code, the line it must point at. */
typedef struct { const char *name, *src, *code; int line; } bad_case;

#define FN(body) HDR ".visible .entry k(.param .u64 p)\n{\n.reg .pred %p<2>; .reg .b32 %r<4>; .reg .f32 %f<4>; .reg .b64 %rd<4>; .reg .b16 %h<2>;\n" body "ret;\n}\n"
/* line numbers: 1-3 header, 4 entry, 5 '{', 6 decls, 7 = first body line */

static const bad_case bad[] = {
    {"unknown opcode", FN("addd.s32 %r1, %r2, %r3;\n"), "E201", 7},
    {"illegal modifier", FN("ld.global.rz.f32 %f1, [%rd1];\n"), "E202", 7},
    {"bad type", FN("add.f33 %f1, %f2, %f3;\n"), "E202", 7},
    {"missing type", FN("add %r1, %r2, %r3;\n"), "E203", 7},
    {"operand count", FN("add.s32 %r1, %r2;\n"), "E204", 7},
    {"mov.u32 with f32", FN("mov.u32 %r1, %f1;\n"), "E206", 7},
    {"pred as data", FN("add.s32 %r1, %p1, %r2;\n"), "E206", 7},
    {"f16 in f32 slot", FN("add.f32 %f1, %h1, %f2;\n"), "E206", 7},
    {"int literal in float", FN("mov.f32 %f1, 0;\n"), "E206", 7},
    {"float literal in int", FN("add.u32 %r1, %r1, 0f3F800000;\n"), "E206", 7},
    {"vector arity", FN("ld.global.v4.f32 {%f0, %f1, %f2}, [%rd1];\n"), "E207", 7},
    {"undeclared reg", FN("mov.u32 %q1, %r1;\n"), "E301", 7},
    {"reg out of range", FN("mov.u32 %r7, %r1;\n"), "E302", 7},
    {"duplicate decl", FN(".reg .b32 %r<4>;\n"), "E303", 7},
    {"undefined label", FN("bra NOWHERE;\n"), "E304", 7},
    {"duplicate label", FN("L1:\nL1:\n"), "E305", 8},
    {"undefined param", FN("ld.param.u64 %rd1, [q];\n"), "E306", 7},
    {"undefined call target", FN("call.uni nothere, ();\n"), "E306", 7},
    {"special reg in add", FN("add.u32 %r1, %tid.x, 1;\n"), "E205", 7},
    {"bad guard", FN("@%r1 bra L;\nL:\n"), "E211", 7},
    {"needs newer target", FN("redux.sync.add.u32 %r1, %r2, -1;\n"), NULL, 0}, /* sm_80: valid */
    {"needs newer target 2", HDR ".visible .entry k()\n{\n.reg .b32 %r<4>;\nmapa.u32 %r1, %r2, %r3;\nret;\n}\n", "E210", 7},
    {"needs newer ptx", ".version 6.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\nredux.sync.add.u32 %r1, %r2, -1;\nret;\n}\n", "E209", 7},
    {"falls off end", HDR ".visible .entry k()\n{\n.reg .b32 %r<4>;\nmov.u32 %r1, 1;\n}\n", "E401", 8},
    {"missing version", ".target sm_80\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n", "E101", 1},
    {"missing target", ".version 8.0\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n", "E102", 1},
    {"missing address_size", ".version 8.0\n.target sm_80\n.visible .entry k()\n{\nret;\n}\n", "E103", 1},
    {"unknown target", ".version 8.0\n.target sm_81\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n", "E105", 2},
    {"linkage after the state space", FN(".reg .f32.common %f9;\n"), "E307", 7},   /* fuzz: printed in front, read back as another statement */
    {"linkage after the state space (module)", HDR ".global .f32 .visible g;\n", "E307", 4},
    {"syntax", FN("add.s32 %r1, , %r2;\n"), "E001", 7},
    {"unterminated comment", FN("/* oops\n"), "E002", 7},
    {"bad number", FN("add.s32 %r1, %r2, 12ab;\n"), "E004", 7},
    {"call arity", HDR ".func (.param .b32 r) f(.param .b32 a)\n{\nret;\n}\n.visible .entry k()\n{\n.reg .b32 %r<2>;\n{\n.param .b32 a0;\ncall.uni f, (a0);\n}\nret;\n}\n", "E308", 13},
};

static void test_bad_cases(void) {
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        diag_log l;
        pg_status ps, vs;
        ptx_module *m = run(bad[i].src, &l, &ps, &vs);
        if (!bad[i].code) {
            CHECK(ps == PG_OK && vs == PG_OK, "%s: should be valid", bad[i].name);
            if (ps != PG_OK || vs != PG_OK) dump(&l);
        } else {
            bool ok = has_code(&l, bad[i].code, bad[i].line);
            CHECK(ps != PG_OK || vs != PG_OK, "%s: should be rejected", bad[i].name);
            CHECK(ok, "%s: expected %s at line %d", bad[i].name, bad[i].code, bad[i].line);
            if (!ok) dump(&l);
        }
        ptx_module_free(m);
    }
}

/* A missing ';' is reported where the instruction ends (line and column just
 * after its last character), not at the next statement; parsing goes on. */
static void test_missing_semicolon(void) {
    struct { const char *name, *body; int line, col, nerr; } cases[] = {
        /* line 7 = the case's first line (line 9 of the module) */
        {"operands, then a comment", "\tmov.u32 %r1, 1 // one\n\tadd.s32 %r2, %r1, %r1;\n\tret;\n}\n", 7, 16, 1},
        {"no operands", "\tmov.u32 %r1, 1;\n\tret\n}\n", 8, 5, 1},
        {"before a label", "\tmov.u32 %r1, 1\nL1:\n\tret;\n}\n", 7, 16, 1},
        {"before a directive", "\tmov.u32 %r1, 1\n\t.reg .b32 %q<2>;\n\tret;\n}\n", 7, 16, 1},
        {"before a guard", "\tmov.u32 %r1, 1\n\t@%p1 ret;\n\tret;\n}\n", 7, 16, 1},
        {"block comment between", "\tmov.u32 %r1, 1 /* a\n b */\n\tret;\n}\n", 7, 16, 1},
        {"two of them", "\tmov.u32 %r1, 1\n\tmov.u32 %r2, 2\n\tret;\n}\n", 7, 16, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char src[1024];
        snprintf(src, sizeof src, HDR "\n.visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %%r<3>;\n\t.reg .pred %%p<2>;\n%s", cases[i].body);

        diag_log l;
        pg_status ps, vs;
        ptx_module *m = run(src, &l, &ps, &vs);
        int want_line = cases[i].line + 2;   /* the body starts at line 9: two .reg lines precede the cases' bodies */
        bool at = false;
        int nsemi = 0;
        for (int k = 0; k < l.n; k++)
            if (strstr(l.d[k].msg, "expected ';' after this instruction")) {
                nsemi++;
                if (l.d[k].line == want_line && l.d[k].col == cases[i].col) at = true;
            }
        CHECK(ps != PG_OK && at && nsemi == cases[i].nerr && l.n == cases[i].nerr,
              "missing ';' (%s): want line %d col %d, %d error(s)", cases[i].name, want_line, cases[i].col, cases[i].nerr);
        if (!at || l.n != cases[i].nerr) dump(&l);
        ptx_module_free(m);
    }
    /* operands continued on the next line after a ',' are not a missing ';' */
    diag_log l;
    pg_status ps, vs;
    ptx_module *m = run(HDR "\n.visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %r<3>;\n\tadd.s32 %r1,\n\t\t%r2,\n\t\t%r2;\n\tret;\n}\n",
                        &l, &ps, &vs);
    CHECK(ps == PG_OK && vs == PG_OK, "operands over several lines stay valid");
    ptx_module_free(m);
    /* bar.sync needs its barrier operand; cluster directives need sm_90 (both rejected by ptxas) */
    m = run(HDR "\n.visible .entry k()\n{\n\tbar.sync;\n\tret;\n}\n", &l, &ps, &vs);
    CHECK(vs != PG_OK && has_code(&l, "E204", 7), "bar.sync without a barrier is rejected at its line");
    ptx_module_free(m);
    m = run(HDR "\n.visible .entry k()\n.maxclusterrank 4\n{\n\tret;\n}\n", &l, &ps, &vs);
    CHECK(vs != PG_OK && has_code(&l, "E210", 6), ".maxclusterrank on sm_80 is rejected at its line");
    if (!has_code(&l, "E210", 6)) dump(&l);
    ptx_module_free(m);
}

static void test_diag_format(void) {
    pg_diag d = {PG_SEV_ERROR, PG_E_UNDECL_REG, "E301", "undeclared-register", "x.ptx", 3, 7, "register %r9 is not declared"};
    char b[256];
    pg_diag_format(&d, b, sizeof b);
    CHECK(!strcmp(b, "x.ptx:3:7: error[E301]: register %r9 is not declared"), "format: %s", b);
    CHECK(!strcmp(pg_diag_code(PG_E_FALLS_OFF), "E401"), "stable code");
}

static void test_limits(void) {
    /* deep nesting */
    pg_buf b = {0};
    pg_buf_puts(&b, HDR ".visible .entry k()\n{\n");
    for (int i = 0; i < 200; i++) pg_buf_puts(&b, "{\n");
    for (int i = 0; i < 200; i++) pg_buf_puts(&b, "}\n");
    pg_buf_puts(&b, "ret;\n}\n");
    diag_log l;
    pg_status ps, vs;
    ptx_module *m = run(b.data, &l, &ps, &vs);
    CHECK(ps != PG_OK && has_code(&l, "E003", 0), "deep nesting is a limit error");
    ptx_module_free(m);
    pg_buf_free(&b);
    /* huge identifier */
    pg_buf_puts(&b, HDR ".visible .entry k()\n{\nmov.u32 %r");
    for (int i = 0; i < 10000; i++) pg_buf_putc(&b, 'a');
    pg_buf_puts(&b, ", 1;\nret;\n}\n");
    m = run(b.data, &l, &ps, &vs);
    CHECK(ps != PG_OK && has_code(&l, "E003", 0), "long token is a limit error");
    ptx_module_free(m);
    pg_buf_free(&b);
    /* NUL byte */
    const char nul[] = ".version 8.0\n\0garbage";
    memset(&l, 0, sizeof l);
    pg_diag_sink s = {collect, &l, 0, 0, 0};
    CHECK(ptx_parse(nul, sizeof nul - 1, "n.ptx", &m, &s) != PG_OK && has_code(&l, "E005", 2), "NUL byte rejected");
    ptx_module_free(m);
    /* empty input: parses, fails validation */
    m = run("", &l, &ps, &vs);
    CHECK(ps == PG_OK && vs != PG_OK && has_code(&l, "E101", 0), "empty module lacks .version");
    ptx_module_free(m);
}

/* The operand limit (parse_insn's in-place array: PTX_MAX_OPERANDS fit, one more is an error)
 * and the integer literal forms parse_int_text reads in place. */
static void test_operands_and_ints(void) {
    for (int extra = 0; extra <= 1; extra++) {
        pg_buf b = {0};
        pg_buf_puts(&b, HDR ".visible .entry k()\n{\n.reg .b32 %r<4>;\nadd.s32 %r1");
        for (int i = 1; i < PTX_MAX_OPERANDS + extra; i++) pg_buf_puts(&b, ", %r2");
        pg_buf_puts(&b, ";\nret;\n}\n");
        diag_log l;
        pg_status ps, vs;
        ptx_module *m = run(b.data, &l, &ps, &vs);
        bool limit = false;
        for (int i = 0; i < l.n; i++) limit |= strstr(l.d[i].msg, "too many operands") != NULL;
        if (extra) CHECK(ps != PG_OK && limit && has_code(&l, "E001", 7), "%d operands: too many", PTX_MAX_OPERANDS + 1);
        else CHECK(ps == PG_OK && !limit && m->funcs[0].body[1].u.insn.nops == PTX_MAX_OPERANDS, "%d operands parse", PTX_MAX_OPERANDS);
        ptx_module_free(m);
        pg_buf_free(&b);
    }
    static const struct { const char *lit; bool ok; int64_t v; } ints[] = {
        {"0x1F", true, 31}, {"0b101", true, 5}, {"017", true, 15}, {"5U", true, 5}, {"0U", true, 0}, {"00", true, 0},
        {"0", true, 0}, {"0xFFFFFFFFU", true, 0xFFFFFFFF}, {"18446744073709551615", true, -1},
        {"18446744073709551616", false, 0}, {"09", false, 0},
        /* 79 characters still fit the limit, 80 do not */
        {"0000000000000000000000000000000000000000000000000000000000000000000000000000007", true, 7},
        {"00000000000000000000000000000000000000000000000000000000000000000000000000000007", false, 0},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        char src[512];
        snprintf(src, sizeof src, HDR ".visible .entry k()\n{\n.reg .b64 %%rd<2>;\nmov.b64 %%rd1, %s;\nret;\n}\n", ints[i].lit);
        diag_log l;
        pg_status ps, vs;
        ptx_module *m = run(src, &l, &ps, &vs);
        if (ints[i].ok)
            CHECK(ps == PG_OK && m->funcs[0].body[1].u.insn.ops[1].kind == PTX_OP_IMM_INT && m->funcs[0].body[1].u.insn.ops[1].ival == ints[i].v,
                  "integer literal %s reads as %lld", ints[i].lit, (long long)ints[i].v);
        else
            CHECK(ps != PG_OK && has_code(&l, "E004", 7), "integer literal %s is rejected (E004)", ints[i].lit);
        ptx_module_free(m);
    }
}

/* Inputs users bring (issue 32): literate comments holding comment markers, CR-LF line ends,
 * bytes that are not ASCII (ptxas rejects them even in comments), CR-only line ends. */
static void test_new_inputs(void) {
    static const char body[] = ".visible .entry k(.param .u64 p)\n{\n"
                               "    // a literate note: x */ y /* z, and // again\n"
                               "    .reg .b64 %rd<2>;   // the address */\n"
                               "    ld.param.u64 %rd1, [p];\n"
                               "    ret;   /* a block comment // holding a line marker */\n}\n";
    pg_buf b = {0};
    pg_buf_puts(&b, HDR);
    pg_buf_puts(&b, body);
    diag_log l;
    pg_status ps, vs;
    ptx_module *m = run(b.data, &l, &ps, &vs);
    CHECK(ps == PG_OK && vs == PG_OK, "`//` comments holding */ and /* are comments");
    if (l.n) dump(&l);
    pg_buf lf = {0}, crlf_print = {0};
    if (m) ptx_print(m, &lf);
    int line_lf = m && m->nfuncs == 1 && m->funcs[0].nbody > 0 ? m->funcs[0].body[m->funcs[0].nbody - 1].loc.line : -1;
    ptx_module_free(m);
    /* the same text with CR-LF line ends: valid, and the same module */
    pg_buf crlf = {0};
    for (size_t i = 0; i < b.len; i++) {
        if (b.data[i] == '\n') pg_buf_putc(&crlf, '\r');
        pg_buf_putc(&crlf, b.data[i]);
    }
    m = run(crlf.data, &l, &ps, &vs);
    CHECK(ps == PG_OK && vs == PG_OK, "CR-LF line ends");
    if (m) ptx_print(m, &crlf_print);
    CHECK(lf.data && crlf_print.data && !strcmp(lf.data, crlf_print.data), "CR-LF parses to the module LF gives");
    CHECK(line_lf == 9 && m && m->nfuncs == 1 && m->funcs[0].nbody > 0 && m->funcs[0].body[m->funcs[0].nbody - 1].loc.line == line_lf,
          "CR-LF: line numbers count CR-LF once (%d)", line_lf);
    ptx_module_free(m);
    /* CR alone: one long line to PTX; said so */
    pg_buf cr = {0};
    for (size_t i = 0; i < b.len; i++) pg_buf_putc(&cr, b.data[i] == '\n' ? '\r' : b.data[i]);
    m = run(cr.data, &l, &ps, &vs);
    bool said = false;
    for (int i = 0; i < l.n; i++) said |= !strcmp(l.d[i].code, "E005") && strstr(l.d[i].msg, "CR alone");
    CHECK(ps != PG_OK && said, "CR-only line ends are an error that names them");
    ptx_module_free(m);
    /* bytes that are not ASCII: valid UTF-8 in a comment, Latin-1 in a comment, one in a name */
    const char *nonascii[] = {"// caf\xc3\xa9 \xe9\x80\x90\n", "// caf\xe9 \xff\xfe\n", NULL};
    for (int k = 0; nonascii[k]; k++) {
        pg_buf t = {0};
        pg_buf_puts(&t, nonascii[k]);
        pg_buf_puts(&t, b.data);
        m = run(t.data, &l, &ps, &vs);
        CHECK(ps != PG_OK && has_code(&l, "E005", 1) && strstr(l.d[0].msg, "ASCII only"), "non-ASCII comment %d: ptxas rejects it", k);
        ptx_module_free(m);
        pg_buf_free(&t);
    }
    char *named = test_replace(b.data, "entry k(", "entry k\xe9(");
    m = named ? run(named, &l, &ps, &vs) : NULL;
    bool escaped = false;
    for (int i = 0; i < l.n; i++) escaped |= strstr(l.d[i].msg, "\\xE9") != NULL;
    CHECK(named && ps != PG_OK && escaped, "a byte that is not UTF-8 is quoted as \\xE9 in the message (JSON and terminals take it)");
    for (int i = 0; i < l.n; i++)
        for (const unsigned char *q = (const unsigned char *)l.d[i].msg; *q; q++) CHECK(*q < 0x80, "message %d is ASCII", i);
    ptx_module_free(m);
    free(named);
    pg_buf_free(&b); pg_buf_free(&crlf); pg_buf_free(&cr); pg_buf_free(&lf); pg_buf_free(&crlf_print);
}

static void test_isa_table(void) {
    pg_diag_sink s = {0};
    CHECK(isa_init(&s) == PG_OK && s.nerrors == 0, "ISA table compiles");
    CHECK(isa_form_count() > 100, "ISA table has %d forms", isa_form_count());
    int n;
    isa_forms_for("ld", 2, &n);
    CHECK(n >= 1, "ld has forms");
    const char *mods[] = {".global", ".v4", ".f32"};
    const isa_form *const *fs = isa_forms_for("ld", 2, &n);
    isa_match mt;
    CHECK(isa_match_form(fs[0], mods, 3, &mt) && isa_bound_type(&mt, 'T' - 'A') == PTX_T_F32, "ld.global.v4.f32 matches with T=.f32");
    /* ptxas accepts modifiers out of the manual's order (ld.f32.global), so do we */
    const char *any_order[] = {".f32", ".global"};
    CHECK(isa_match_form(fs[0], any_order, 2, &mt) && isa_bound_type(&mt, 'T' - 'A') == PTX_T_F32, "modifier order is free");
    const char *twice[] = {".global", ".global", ".f32"};
    CHECK(!isa_match_form(fs[0], twice, 3, &mt), "a repeated modifier does not match");
    const char *cvt_mods[] = {".rn", ".f16", ".f32"};   /* cvt.rn.f32.f16 is refused: widening takes no rounding */
    const isa_form *const *cv = isa_forms_for("cvt", 3, &n);
    int cvk = 0;   /* cvt's rows go pair by pair (issue 30): the one that takes .rn.f16.f32 */
    while (cvk < n && !isa_match_form(cv[cvk], cvt_mods, 3, &mt)) cvk++;
    CHECK(cvk < n && isa_bound_type(&mt, 'T' - 'A') == PTX_T_F16 && isa_bound_type(&mt, 'U' - 'A') == PTX_T_F32,
          "cvt binds destination then source type");
    CHECK(isa_sreg_lookup("%tid.x", 6) && !isa_sreg_lookup("%tid", 4) && isa_sreg_lookup("%laneid", 7), "special registers");
    int sm;
    bool as, fam;
    CHECK(isa_parse_target("sm_90a", &sm, &as, &fam) && sm == 90 && as, "sm_90a parses");
    CHECK(!isa_parse_target("sm_91", &sm, &as, &fam), "sm_91 is unknown");
}

/* A ptxas that hangs is stopped at the deadline, reported, and leaves no
 * temp file (the cubin goes to /dev/null).  A fake ptxas script stands in. */
static void test_ptxas_timeout(void) {
    char dir[] = "/tmp/ptxgen-test-ptxas-XXXXXX";
    if (!mkdtemp(dir)) { CHECK(false, "mkdtemp"); return; }
    char fake[256], ptx[256], cmd[600];
    snprintf(fake, sizeof fake, "%s/ptxas", dir);
    snprintf(ptx, sizeof ptx, "%s/k.ptx", dir);
    FILE *f = fopen(fake, "w");
    fputs("#!/bin/sh\nexec sleep 30\n", f);
    fclose(f);
    chmod(fake, 0755);
    f = fopen(ptx, "w");
    fputs(HDR ".visible .entry k()\n{\n\tret;\n}\n", f);
    fclose(f);
    const char *old_ptxas = getenv("PTXAS");
    char *saved = old_ptxas ? strdup(old_ptxas) : NULL;
    setenv("PTXAS", fake, 1);
    setenv("PTXGEN_PTXAS_TIMEOUT", "0.3", 1);
    CHECK(ptx_ptxas_timeout_seconds() == 0.3, "the timeout comes from $PTXGEN_PTXAS_TIMEOUT");
    diag_log l = {0};
    pg_diag_sink s = {collect, &l, 0, 0, 0};
    ptxas_report r;
    pg_status st = ptx_ptxas_run(ptx, "sm_80", false, &r, &s);
    CHECK(st == PG_OK && r.ran && r.timed_out && !r.ok && r.seconds < 10, "a hanging ptxas is stopped (%.1f s)", r.seconds);
    CHECK(l.n == 1 && strstr(l.d[0].msg, "did not finish within 0.3 s"), "the timeout is reported: %s", l.n ? l.d[0].msg : "");
    ptx_ptxas_report_free(&r);
    setenv("PTXGEN_PTXAS_TIMEOUT", "abc", 1);
    CHECK(ptx_ptxas_timeout_seconds() == 120.0, "a bad $PTXGEN_PTXAS_TIMEOUT falls back to 120 s");
    unsetenv("PTXGEN_PTXAS_TIMEOUT");
    if (saved) setenv("PTXAS", saved, 1);
    else unsetenv("PTXAS");
    free(saved);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "cleanup");
}

/* Constant expressions where ptxas folds them (array indices, address offsets, sym+N): the value
 * of each against C's, and what ptxas 13.0 refuses.  tests/ptx/valid/diff_index_const_expr.ptx
 * is the same against ptxas. */
static void test_const_expr(void) {
    static const struct { const char *op; int64_t v; } ok[] = {
        {"sh[2*3]", 6}, {"sh[(2)]", 2}, {"sh[2+3*2]", 8}, {"sh[(2+3)*2]", 10}, {"sh[6/2]", 3},
        {"sh[-7/2]", -3}, {"sh[-7 % 2]", -1}, {"sh[7 % 2]", 1}, {"sh[1<<2]", 4}, {"sh[-16>>2]", -4},
        {"sh[0xFFFFFFFFFFFFFFF0>>60]", 15}, {"sh[(.u64)-16>>60]", 15}, {"sh[(.s64)0xFFFFFFFFFFFFFFF0>>2]", -4},
        {"sh[2-1]", 1}, {"sh[1--1]", 2}, {"sh[~0]", -1}, {"sh[!0]", 1}, {"sh[!5]", 0},
        {"sh[2<3]", 1}, {"sh[-1<0]", 1}, {"sh[-1U<0]", 0}, {"sh[-1<0U]", 0}, {"sh[2<=2]", 1}, {"sh[2>=3]", 0},
        {"sh[2==2]", 1}, {"sh[2!=2]", 0}, {"sh[6&3]", 2}, {"sh[6^3]", 5}, {"sh[6|3]", 7},
        {"sh[2&&0]", 0}, {"sh[0||3]", 1}, {"sh[1?2:3]", 2}, {"sh[0?2:1?4:5]", 4}, {"sh[1+2==3?7:9]", 7},
        {"sh[(-9223372036854775807-1)/-1]", INT64_MIN}, {"sh[0x8000000000000000/-1]", 0}, {"sh[1<<64]", 0}, {"sh[%r1+2*3]", 6}, {"sh[%r1+2-1]", 1},
        {"sh[%r1+-2*2]", -4}, {"[sh+4*2]", 8}, {"[sh+(8)]", 8}, {"[%rd1+8-4]", 4}, {"[%rd1+ -(1<<3)]", -8},
        {"[sh+2*3+2]", 8},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char src[512];
        snprintf(src, sizeof src, HDR ".visible .entry k()\n{ .reg .u32 %%r<4>; .reg .u64 %%rd<4>; .shared .align 16 .u32 sh[16];\n"
                 "  ld.shared.u32 %%r2, %s;\n  ret;\n}\n", ok[i].op);
        diag_log l;
        pg_status ps, vs;
        ptx_module *m = run(src, &l, &ps, &vs);
        CHECK(ps == PG_OK, "%s: should parse", ok[i].op);
        if (ps != PG_OK) { dump(&l); ptx_module_free(m); continue; }
        const ptx_stmt *st = NULL;
        for (int k = 0; k < m->funcs[0].nbody; k++)
            if (m->funcs[0].body[k].kind == PTX_ST_INSN) { st = &m->funcs[0].body[k]; break; }
        CHECK(st && st->u.insn.nops == 2 && st->u.insn.ops[1].ival == ok[i].v, "%s: folds to %lld, not %lld", ok[i].op,
              (long long)ok[i].v, st ? (long long)st->u.insn.ops[1].ival : 0LL);
        ptx_module_free(m);
    }
    /* ptxas: division by zero, Unsupported cast operation, Parsing error near '>' / '%2' / '%r1' / ']' / '-' */
    static const char *const refused[] = {"sh[1/0]", "sh[1 % (2-2)]", "[sh+1/0]", "sh[(.u32)2]", "sh[8> >1]", "sh[3%2]",
                                      "sh[2*%r1]", "sh[2+%r1]", "sh[(%r1)]", "sh[1?2]", "sh[2*]", "sh[()]", "sh[2=2]",
                                      "sh[%r1*2]", "sh[%r1-1]", "[sh-4]", "[4+sh]", "sh[2.0]", "sh[(((1)]",
                                      "sh[1!2]"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char src[512];
        snprintf(src, sizeof src, HDR ".visible .entry k()\n{ .reg .u32 %%r<4>; .shared .u32 sh[16];\n"
                 "  ld.shared.u32 %%r2, %s;\n  ret;\n}\n", refused[i]);
        diag_log l;
        pg_status ps, vs;
        ptx_module *m = run(src, &l, &ps, &vs);
        CHECK(ps != PG_OK && has_code(&l, "E001", 6), "%s: should be a syntax error on line 6", refused[i]);
        ptx_module_free(m);
    }
    /* immediates: an integer literal followed by an operator, a parenthesized or cast number */
    static const struct { const char *op; int64_t v; } imm[] = {
        {"2*3", 6}, {"4-1", 3}, {"-4+1", -3}, {"(4)", 4}, {"((4))", 4}, {"(4)+1", 5}, {"(2*3)", 6},
        {"-(4)", -4}, {"-(4)*2", -8}, {"~(4)", -5}, {"!(4)", 0}, {"~0+1", 0}, {"~-1*2", 0}, {"!0+1", 2},
        {"1<<32", 4294967296}, {"1 ? 2 : 3", 2}, {"(.u64)3", 3}, {"-((.u64)4)", -4}, {"0x7FFFFFFF*2", 4294967294},
    };
    for (size_t i = 0; i < sizeof imm / sizeof imm[0]; i++) {
        char src[512];
        snprintf(src, sizeof src, HDR ".visible .entry k()\n{ .reg .u32 %%r<4>;\n  add.s32 %%r1, %%r2, %s;\n  ret;\n}\n", imm[i].op);
        diag_log l;
        pg_status ps, vs;
        ptx_module *m = run(src, &l, &ps, &vs);
        CHECK(ps == PG_OK, "%s: should parse", imm[i].op);
        if (ps != PG_OK) { dump(&l); ptx_module_free(m); continue; }
        const ptx_stmt *st = NULL;
        for (int k = 0; k < m->funcs[0].nbody; k++)
            if (m->funcs[0].body[k].kind == PTX_ST_INSN) { st = &m->funcs[0].body[k]; break; }
        CHECK(st && st->u.insn.nops == 3 && st->u.insn.ops[2].kind == PTX_OP_IMM_INT && st->u.insn.ops[2].ival == imm[i].v,
              "%s: an immediate %lld", imm[i].op, (long long)imm[i].v);
        ptx_module_free(m);
    }
    /* a call's (4) stays an argument list */
    {
        const char *src = HDR ".func f(.param .u32 a) { ret; }\n.visible .entry k()\n{\n  call f, (4);\n  ret;\n}\n";
        diag_log l;
        pg_status ps, vs;
        ptx_module *m = run(src, &l, &ps, &vs);
        CHECK(ps == PG_OK && vs == PG_OK, "call f, (4): valid");
        const ptx_stmt *st = NULL;
        for (int k = 0; m && k < m->funcs[1].nbody; k++)
            if (m->funcs[1].body[k].kind == PTX_ST_INSN) { st = &m->funcs[1].body[k]; break; }
        CHECK(st && st->u.insn.nops == 2 && st->u.insn.ops[1].kind == PTX_OP_LIST, "call f, (4): a list");
        ptx_module_free(m);
    }
    /* deep nesting is a limit, not a stack overflow */
    char deep[4096];
    int n = snprintf(deep, sizeof deep, HDR ".visible .entry k()\n{ .reg .u32 %%r<4>; .shared .u32 sh[16];\n  ld.shared.u32 %%r2, sh[");
    for (int i = 0; i < 1000; i++) deep[n++] = i % 2 ? '(' : '-';
    snprintf(deep + n, sizeof deep - (size_t)n, "1]; ret; }\n");
    diag_log l;
    pg_status ps, vs;
    ptx_module *m = run(deep, &l, &ps, &vs);
    CHECK(ps != PG_OK && has_code(&l, "E003", 0), "deep constant expression: a limit error");
    if (!has_code(&l, "E003", 0)) dump(&l);
    ptx_module_free(m);
}

/* Initializers as ptxas 13.0 reads them: integer values fold as constant expressions, an address is
 * name or generic(name) then + a constant expression.  tests/ptx/{valid,invalid}/diff_init_*.ptx and
 * diff_div_zero.ptx are the same against ptxas. */
static void test_init_const_expr(void) {
    static const char *const ok[] = {"(.u64)7", "(.s64)-1", "7 % 2", "1?2:3?4:5", "((1))", "2 & 3 | 4 ^ 1", "- -3",
                                     "1<<64", "gb+2*4", "generic(gb)+(1<<3)", "gb+-4", "gb+1?2:3", "generic( gb ) + (4)", "gb"};
    static const struct { const char *init, *code; } refused[] = {
        {"8/0", "E001"}, {"8 % 0", "E001"}, {"0?8/0:1", "E001"}, {"gb+8/0", "E001"}, {"1 +", "E001"}, {"()", "E001"},
        {"(.u32)2", "E001"}, {"2+gb", "E001"}, {"gb*2", "E001"}, {"gb-4", "E001"}, {"(gb)+4", "E001"}, {"-gb", "E001"},
        {"gb % 2", "E001"}, {"(.u64)gb", "E001"}, {"generic(4)", "E001"}, {"gb?1:2", "E001"}, {"fn+8", "E307"},
        {"7 %2", "E307"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0] + sizeof refused / sizeof refused[0]; i++) {
        bool good = i < sizeof ok / sizeof ok[0];
        const char *init = good ? ok[i] : refused[i - sizeof ok / sizeof ok[0]].init;
        char src[512];
        snprintf(src, sizeof src, HDR ".global .align 8 .b8 gb[64];\n.func fn() { ret; }\n.const .align 8 .u64 c = %s;\n"
                 ".visible .entry k() { ret; }\n", init);
        diag_log l;
        pg_status ps, vs;
        ptx_module *m = run(src, &l, &ps, &vs);
        if (good) {
            CHECK(ps == PG_OK && vs == PG_OK, "= %s: valid", init);
            if (ps != PG_OK || vs != PG_OK) dump(&l);
        } else {
            CHECK((ps != PG_OK || vs != PG_OK) && has_code(&l, refused[i - sizeof ok / sizeof ok[0]].code, 0), "= %s: %s", init,
                  refused[i - sizeof ok / sizeof ok[0]].code);
        }
        ptx_module_free(m);
    }
}

/* Float constant expressions in initializers, as ptxas 13.0 folds them (probed on h80; the same cases against
 * ptxas: tests/ptx/{valid,invalid}/diff_init_float_*.ptx).  Each is "TYPE = VALUE". */
static void test_init_float_expr(void) {
    static const char *const ok[] = {
        ".f32 = 1.0 + 2.0", ".f64 = 1.0 * 2.0 - 3.0 / 4.0", ".f32 = -(1.0 + 2.0)", ".f32 = 1.0 - -2.0", ".f32 = +1.0",
        ".f32 = (0f3F800000) + 1.0", ".f32 = -(0f3F800000)", ".f32 = 0f3F800000", ".f64 = 0d3FF0000000000000 * 2.5",
        ".f32 = 1e38 * 1e38", ".f64 = 0.0 / 1.0", ".b32 = 1.0 * 2.0", ".b16 = 1.0 / 4.0", ".u32 = 1.0 < 2.0",
        ".s64 = (1.0 == 1.0) + 1", ".u32 = 1.0 + 2.0 <= 3.0", ".u32 = 1.0 != 2.0 ? 1 : 2", ".u64 = (.u64)(1.0 >= 2.0)",
        ".u32 = ~(1.0 > 2.0)", ".b32 = (1.0 < 2.0) << 1", ".f32 = 1. + .5", ".f64 = .5", ".u32 = 1.0 < 2.0 < 3",
    };
    static const struct { const char *decl, *code; } refused[] = {
        {".b32 = 1.0 + 1", "E001"}, {".f32 = 2 * 1.0", "E001"}, {".f32 = 1.0 % 2.0", "E001"}, {".f32 = 1.0 << 1", "E001"},
        {".f32 = ~1.0", "E001"}, {".f32 = !1.0", "E001"}, {".f32 = 1.0 && 1.0", "E001"}, {".b32 = 1 ? 1.0 : 2.0", "E001"},
        {".u32 = 1 ? 2 : 3.0", "E001"}, {".f32 = (.s64)1.0", "E001"}, {".f64 = 1.0 / 0.0", "E001"}, {".f32 = 1.0 / -0.0", "E001"},
        {".f32 = 1.0 / (1.0 - 1.0)", "E001"}, {".f32 = 0f3F800000 + 1.0", "E001"}, {".f32 = 1.0 + 0f3F800000", "E001"},
        {".f32 = -0f3F800000", "E001"}, {".f32 = (0f3F800000 + 1.0)", "E001"}, {".f64 = 1e-310", "E004"},
        {".f64 = 1.0 / 1e-400", "E004"}, {".f32 = 1.0 +", "E001"}, {".f32 = 1.0 < 2.0", "E307"}, {".f32 = (1.0) < (0f3F800000)", "E307"},
        {".u32 = 1.0 * 2.0", "E307"}, {".u64 = .5", "E307"}, {".f32 = 1.0 < 2.0 < 3.0", "E001"}, {".b32 = 1.0 < 2.0 << 1", "E001"},
    };
    size_t nok = sizeof ok / sizeof ok[0], n = nok + sizeof refused / sizeof refused[0];
    for (size_t i = 0; i < n; i++) {
        bool good = i < nok;
        const char *decl = good ? ok[i] : refused[i - nok].decl;
        const char *eq = strchr(decl, '=');
        char src[512];
        snprintf(src, sizeof src, HDR ".global .align 8 %.*s fv %s;\n.visible .entry k() { ret; }\n", (int)(eq - decl - 1), decl, eq);
        diag_log l;
        pg_status ps, vs;
        ptx_module *m = run(src, &l, &ps, &vs);
        if (good) {
            CHECK(ps == PG_OK && vs == PG_OK, "%s: valid", decl);
            if (ps != PG_OK || vs != PG_OK) dump(&l);
        } else {
            CHECK((ps != PG_OK || vs != PG_OK) && has_code(&l, refused[i - nok].code, 0), "%s: %s", decl, refused[i - nok].code);
            if (!has_code(&l, refused[i - nok].code, 0)) dump(&l);
        }
        ptx_module_free(m);
    }
}

int main(void) {
    test_ptxas_timeout();
    test_isa_table();
    test_valid_handwritten();
    test_bad_cases();
    test_missing_semicolon();
    test_diag_format();
    test_limits();
    test_operands_and_ints();
    test_new_inputs();
    test_const_expr();
    test_init_const_expr();
    test_init_float_expr();
    return TEST_DONE();
}
