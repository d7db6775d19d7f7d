/* test_literate.c — kept comments (parser, printer, equality, strip) and the
 * literate pass from nvcc's line table (ptx_literate_from_loc), against the
 * golden files in tests/golden/literate/ (UPDATE_GOLDEN=1 rewrites the
 * outputs).  Run from the repository root. */
#include "ptx/test_util.h"
#include <dirent.h>
#include "ptxgen/ptx.h"

/* `got` equals the golden file at `path` (or rewrites it under UPDATE_GOLDEN=1). */
/* ptxas refuses any byte outside ASCII, in comments too ("Unexpected non-ASCII character"),
 * so a plan comment must be ASCII: the parser says E005 at the byte. */
static void test_comment_non_ascii(void) {
    const char *src = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t// caf\xc3\xa9\n\tret;\n}\n";
    ptx_module *m = NULL;
    pg_diag_sink q = test_sink();
    ptx_parse(src, strlen(src), "na.ptx", &m, &q);
    CHECK(q.nerrors >= 1 && strstr(test_diag_log(), "E005") && strstr(test_diag_log(), "na.ptx:6:"),
          "a non-ASCII byte in a comment is E005 at its line: %s", test_diag_log());
    ptx_module_free(m);
}

static void test_comments_kept(void) {
    char *src = test_slurp("tests/golden/literate/comments.ptx");
    CHECK(src != NULL, "comments.ptx readable");
    if (!src) return;
    ptx_module *m = test_ptx_parse(src, "comments.ptx");
    pg_diag_sink q = {0};
    CHECK(ptx_validate(m, &q) == PG_OK, "comments do not change validity");
    const ptx_func *f = &m->funcs[0];
    CHECK(f->body[0].comment && !strcmp(f->body[0].comment, " declarations first */ not a block end"),
          "a comment before the first declaration is kept (CR dropped, `*/` is text): '%s'", f->body[0].comment);
    CHECK(f->body[1].comment == NULL, "the second declaration has none");
    const ptx_stmt *ld = &f->body[2];
    CHECK(ld->comment && !strcmp(ld->comment, " two lines\n   before the load"),
          "two lines are joined, leading text kept, trailing blanks dropped: '%s'", ld->comment);
    CHECK(f->body[3].comment && strstr(f->body[3].comment, "~^"), "a comment's bytes are kept");
    CHECK(f->body[4].kind == PTX_ST_LABEL && f->body[4].comment == NULL, "the trailing comment is not kept");
    CHECK(f->body[5].comment == NULL, "block comments are not kept");
    CHECK(f->end_comment && !strcmp(f->end_comment, " before the brace"), "the comment before '}' is kept");
    char *out = test_ptx_printed(m);
    test_golden_file("tests/golden/literate/comments.fmt.ptx", out);
    /* round trip with comments */
    ptx_module *m2 = test_ptx_parse(out, "printed");
    char why[256] = "";
    CHECK(ptx_module_equal(m, m2, why, sizeof why), "parse(print(parse(x))) == parse(x) with comments: %s", why);
    /* a changed comment is a difference */
    char *other = test_replace(out, "before the end", "before the END");
    ptx_module *m3 = test_ptx_parse(other, "other");
    CHECK(!ptx_module_equal(m, m3, why, sizeof why) && strstr(why, "comment"), "a different comment differs: %s", why);
    /* strip */
    ptx_comments_strip(m2);
    char *bare = test_ptx_printed(m2);
    CHECK(!strstr(bare, "//"), "ptx_comments_strip leaves no comment:\n%s", bare);
    ptx_module_free(m);
    ptx_module_free(m2);
    ptx_module_free(m3);
    free(src);
    free(out);
    free(other);
    free(bare);
}

static void test_literate_golden(void) {
    char *ptx = test_slurp("tests/golden/literate/rowmax.lineinfo.ptx"), *cu = test_slurp("tests/golden/literate/rowmax.cu");
    CHECK(ptx && cu, "golden inputs readable");
    if (!ptx || !cu) { free(ptx); free(cu); return; }
    ptx_module *m = test_ptx_parse(ptx, "rowmax.lineinfo.ptx");
    int n = ptx_literate_from_loc(m, cu, strlen(cu), 1);
    CHECK(n == 12, "12 plan comments (got %d)", n);
    char *out = test_ptx_printed(m);
    test_golden_file("tests/golden/literate/rowmax.lit.ptx", out);
    CHECK(!strstr(out, ".loc") && !strstr(out, ".file") && !strstr(out, ".section"), "no line table left");
    CHECK(!strstr(out, "__global__"), "the kernel's header line is not a plan comment");
    CHECK(strstr(out, "\t// if (row >= rows) return;\n\tsetp.ge.u32") != NULL, "a plan line heads its instructions");
    CHECK(strstr(out, "// for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));\n\tmov.b32")
          != NULL, "inlined header code counts as the line it was inlined at");
    /* the literate kernel is still the same program */
    ptx_module *lit = test_ptx_parse(out, "literate");
    pg_diag_sink q = {0};
    CHECK(ptx_validate(lit, &q) == PG_OK && q.nwarnings == 0, "literate output validates");
    ptx_module *plain = test_ptx_parse(ptx, "plain");
    ptx_comments_strip(lit);
    /* the plain module still has its .loc statements: count instructions instead */
    int a = 0, b = 0;
    for (int i = 0; i < lit->funcs[0].nbody; i++) a += lit->funcs[0].body[i].kind == PTX_ST_INSN;
    for (int i = 0; i < plain->funcs[0].nbody; i++) b += plain->funcs[0].body[i].kind == PTX_ST_INSN;
    CHECK(a == b && a > 50, "every instruction kept (%d vs %d)", a, b);
    /* a plan line longer than the cap is cut; another file id finds no plan lines */
    ptx_module *none = test_ptx_parse(ptx, "other-file");
    CHECK(ptx_literate_from_loc(none, cu, strlen(cu), 3) == 0, "file 3 is not in the table: no comments");
    ptx_module_free(none);
    ptx_module_free(m);
    ptx_module_free(lit);
    ptx_module_free(plain);
    free(out);
    free(ptx);
    free(cu);
}

/* The literate pass over ptx with the plan cu: its output holds `want`, with `ncomments` comments. */
static void check_literate(const char *what, const char *cu, const char *ptx, const char *want, int ncomments) {
    ptx_module *m = test_ptx_parse(ptx, what);
    int n = ptx_literate_from_loc(m, cu, strlen(cu), 1);
    char *out = test_ptx_printed(m);
    CHECK(out && strstr(out, want), "%s; got:\n%s", what, out ? out : "");
    CHECK(n == ncomments, "%s: %d comments (got %d)", what, ncomments, n);
    free(out);
    ptx_module_free(m);
}

/* Plan order: instructions of two interleaved plan lines are grouped by line inside a block, as far
 * as their dependences allow (registers, and memory: a store and a later load of the same space keep
 * their order); labels start no comment; the instruction count and the terminator stay. */
static void test_literate_plan_order(void) {
    const char *cu = "// k\nextern \"C\" __global__ void k(float* p)\n{\n    int a = threadIdx.x;\n    int b = blockIdx.x;\n"
                     "    p[0] = 1.0f;\n    float c = p[0];\n}\n";
    const char *ptx =
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
        "\t.reg .b32 %r<8>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [p];\n"
        "\t.loc 1 4 1\n\tmov.u32 %r1, %tid.x;\n"
        "\t.loc 1 5 1\n\tmov.u32 %r2, %ctaid.x;\n"
        "\t.loc 1 4 1\n\tadd.s32 %r3, %r1, 1;\n"
        "\t.loc 1 5 1\n\tadd.s32 %r4, %r2, %r3;\n"
        "\t.loc 1 7 1\n\tld.global.f32 %f1, [%rd1+4];\n"
        "\t.loc 1 6 1\n\tst.global.f32 [%rd1], %f2;\n"
        "\t.loc 1 7 1\n\tld.global.f32 %f3, [%rd1];\n"
        "$L_end:\n\t.loc 1 4 1\n\tret;\n}\n";
    /* line 4's two instructions together, then line 5's; the load of line 7 stays before the store
     * of line 6 (a store and a load of .global keep their order), the last load after it */
    const char *want =
        "\t// int a = threadIdx.x;\n\tmov.u32 %r1, %tid.x;\n\tadd.s32 %r3, %r1, 1;\n"
        "\t// int b = blockIdx.x;\n\tmov.u32 %r2, %ctaid.x;\n\tadd.s32 %r4, %r2, %r3;\n"
        "\t// float c = p[0];\n\tld.global.f32 %f1, [%rd1+4];\n"
        "\t// p[0] = 1.0f;\n\tst.global.f32 [%rd1], %f2;\n"
        "\t// float c = p[0];\n\tld.global.f32 %f3, [%rd1];\n$L_end:\n\t// int a = threadIdx.x;\n\tret;\n";
    check_literate("grouped by plan line where dependences allow", cu, ptx, want, 6);
}

/* Back runs: a run of a line already written that only computes registers joins the next line's
 * run (its comment goes, the next one heads it), also two such runs in a row; a back run that stores,
 * or one followed by a label, keeps its comment.  No instruction moves. */
static void test_literate_back_runs(void) {
    /* each back run reads memory after a store or a register the run before it writes, so plan order
     * keeps nvcc's order here and only the comments can change */
    const char *cu = "// k\nextern \"C\" __global__ void k(int* p)\n{\n    int a = p[threadIdx.x];\n    p[a] = 1;\n"
                     "    p[a + 1] = 2;\n    p[a + 2] = 3;\n}\n";
    const char *ptx =
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
        "\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\tld.param.u64 %rd1, [p];\n"
        "\t.loc 1 4 1\n\tcvta.to.global.u64 %rd2, %rd1;\n\tld.global.u32 %r1, [%rd2];\n"
        "\t.loc 1 5 1\n\tmul.wide.s32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n\tst.global.u32 [%rd4], 1;\n"
        "\t.loc 1 4 1\n\tld.global.u32 %r2, [%rd2+4];\n"   /* back, no effect: joins line 6 */
        "\t.loc 1 5 1\n\tmul.wide.s32 %rd5, %r2, 4;\n"     /* back, no effect, a chain: joins line 6 too */
        "\t.loc 1 6 1\n\tadd.s64 %rd6, %rd2, %rd5;\n\tst.global.u32 [%rd6], 2;\n"
        "\t.loc 1 5 1\n\tst.global.u32 [%rd4], 1;\n"       /* back with a store: stays */
        "\t.loc 1 7 1\n\tst.global.u32 [%rd4+8], 3;\n"
        "\t.loc 1 4 1\n\tld.global.u32 %r3, [%rd2+8];\n"   /* back, no effect, then a label: stays */
        "$L_end:\n\t.loc 1 7 1\n\tret;\n}\n";
    const char *want =
        "\t// int a = p[threadIdx.x];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tld.global.u32 %r1, [%rd2];\n"
        "\t// p[a] = 1;\n\tmul.wide.s32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n\tst.global.u32 [%rd4], 1;\n"
        "\t// p[a + 1] = 2;\n\tld.global.u32 %r2, [%rd2+4];\n\tmul.wide.s32 %rd5, %r2, 4;\n\tadd.s64 %rd6, %rd2, %rd5;\n"
        "\tst.global.u32 [%rd6], 2;\n"
        "\t// p[a] = 1;\n\tst.global.u32 [%rd4], 1;\n"
        "\t// p[a + 2] = 3;\n\tst.global.u32 [%rd4+8], 3;\n"
        "\t// int a = p[threadIdx.x];\n\tld.global.u32 %r3, [%rd2+8];\n$L_end:\n\t// p[a + 2] = 3;\n\tret;\n";
    check_literate("back runs that only compute join the next line", cu, ptx, want, 7);
}

/* ptx_literate_plan_lines: every comment the literate pass wrote for rowmax is one of the lines, and
 * the lines are the plan's code lines in order (no brace-only line, no __global__ line). */
static void test_plan_lines(void) {
    char *cu = test_slurp("tests/golden/literate/rowmax.cu"), *lit = test_slurp("tests/golden/literate/rowmax.lit.ptx");
    CHECK(cu && lit, "golden inputs readable");
    if (!cu || !lit) { free(cu); free(lit); return; }
    char **lines = NULL;
    int n = ptx_literate_plan_lines(cu, strlen(cu), &lines), found = 0, comments = 0;
    CHECK(n > 5 && lines, "plan lines (%d)", n);
    for (int i = 0; i < n; i++) {
        CHECK(lines[i][0] == ' ' && !strstr(lines[i], "__global__") && strspn(lines[i], " {};") < strlen(lines[i]),
              "line %d is a code line: '%s'", i, lines[i]);
        CHECK(!strstr(lines[i], "  ") && strlen(lines[i]) <= PTX_LITERATE_LINE_MAX + 1, "line %d collapsed and cut", i);
    }
    for (const char *p = strstr(lit, "\t// "); p; p = strstr(p + 1, "\t// ")) {
        const char *t = p + 3, *e = strchr(t, '\n');
        comments++;
        for (int i = 0; i < n; i++)
            if (e && strlen(lines[i]) == (size_t)(e - t) && !strncmp(lines[i], t, (size_t)(e - t))) { found++; break; }
    }
    CHECK(comments > 5 && found == comments, "every comment of rowmax.lit.ptx is a plan line (%d/%d)", found, comments);
    ptx_literate_plan_lines_free(lines, n);
    char **none = NULL;
    CHECK(ptx_literate_plan_lines("{\n}\n", 4, &none) == 0 && !none, "no code line, no lines");
    free(cu);
    free(lit);
}

/* ptx_literate_plan_lines_ex: which lines run straight.  A __device__ function, a loop with braces
 * (its header too), a brace on the line after the header, a loop without braces (its one
 * statement), a do-while and an if are told apart; a brace in a `//` comment is not code. */
static void test_plan_lines_straight(void) {
    const char *cu = "__device__ float f(float x)\n{\n    return x * 2.0f;\n}\n"
                     "extern \"C\" __global__ void k(float* a, unsigned n)\n{\n"
                     "    unsigned i = blockIdx.x;   // { not a brace\n"
                     "    for (unsigned j = 0; j < n; j++) {\n        a[j] += 1.0f;\n    }\n"
                     "    while (i < n)\n    {\n        i += 2;\n    }\n"
                     "    for (unsigned j = 0; j < 4; j++)\n        a[j] -= 1.0f;\n"
                     "    do {\n        i--;\n    } while (i > 8);\n"
                     "    if (i < n) {\n        a[i] = f(a[i]);\n    }\n"
                     "    a[0] = 0.0f;\n}\n";
    const char *want[][2] = {{" __device__ float f(float x)", "0"}, {" return x * 2.0f;", "0"}, {" unsigned i = blockIdx.x; // { not a brace", "1"},
                             {" for (unsigned j = 0; j < n; j++) {", "0"}, {" a[j] += 1.0f;", "0"},
                             {" while (i < n)", "0"}, {" i += 2;", "0"}, {" for (unsigned j = 0; j < 4; j++)", "0"},
                             {" a[j] -= 1.0f;", "0"}, {" do {", "0"}, {" i--;", "0"}, {" } while (i > 8);", "0"},
                             {" if (i < n) {", "1"}, {" a[i] = f(a[i]);", "1"}, {" a[0] = 0.0f;", "1"}};
    int nw = (int)(sizeof want / sizeof want[0]);
    char **lines = NULL;
    bool *st = NULL;
    int n = ptx_literate_plan_lines_ex(cu, strlen(cu), &lines, &st);
    CHECK(n == nw, "%d lines (want %d)", n, nw);
    for (int i = 0; i < n && i < nw; i++)
        CHECK(!strcmp(lines[i], want[i][0]) && st[i] == (want[i][1][0] == '1'), "line %d '%s': straight %d (want '%s' %s)", i,
              lines[i], st[i], want[i][0], want[i][1]);
    char **same = NULL;
    int m = ptx_literate_plan_lines(cu, strlen(cu), &same);
    CHECK(m == n, "the same lines without the flags");
    for (int i = 0; i < m && i < n; i++) CHECK(!strcmp(same[i], lines[i]), "line %d the same", i);
    ptx_literate_plan_lines_free(same, m);
    ptx_literate_plan_lines_free(lines, n);
    free(st);
}

static void test_literate_long_line(void) {
    const char *ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.loc 1 2 1\n\tret;\n}\n";
    pg_buf cu = {0};
    pg_buf_puts(&cu, "// plan\n\tint\t\tx =   ");
    for (int i = 0; i < 300; i++) pg_buf_putc(&cu, 'a');
    pg_buf_puts(&cu, "\xe4\xb8\xad;\n");
    ptx_module *m = test_ptx_parse(ptx, "long");
    CHECK(ptx_literate_from_loc(m, cu.data, cu.len, 1) == 1, "one comment");
    const char *c = m->funcs[0].body[0].comment;
    CHECK(c && strlen(c) <= PTX_LITERATE_LINE_MAX + 1 && !strncmp(c, " int x = aaa", 12), "blanks collapsed, cut at the cap: '%s'", c);
    ptx_module_free(m);
    pg_buf_free(&cu);
}

/* The named register style (ptx_regs_name): golden file, round trip, the same instructions up to
 * renaming (ptx_equal_renamed), every name declared once before it appears. */
static ptx_module *named_of(const char *src, const char *plan, const char *what) {
    ptx_module *m = test_ptx_parse(src, what);
    pg_diag_sink q = {0};
    CHECK(ptx_regs_name(m, plan, plan ? strlen(plan) : 0, &q) == PG_OK && q.nerrors == 0, "%s: named", what);
    return m;
}

/* The named kernel `out` (printed from m) round-trips, validates, and equals the numbered `ptx` up to
 * a renaming both ways; *printed_m and *numbered get the parsed modules (the caller frees them). */
static void check_named_equiv(const ptx_module *m, const char *out, const char *ptx, const char *label, ptx_module **printed_m,
                              ptx_module **numbered) {
    ptx_module *m2 = test_ptx_parse(out, label);
    char why[256] = "";
    CHECK(ptx_module_equal(m, m2, why, sizeof why), "%s: parse(print(named)) == named: %s", label, why);
    pg_diag_sink q = {0};
    CHECK(ptx_validate(m2, &q) == PG_OK && q.nwarnings == 0, "%s: the named kernel validates (%d errors, %d warnings)", label,
          q.nerrors, q.nwarnings);
    ptx_module *orig = test_ptx_parse(ptx, label);
    CHECK(ptx_equal_renamed(orig, m2, why, sizeof why), "%s: numbered == named up to renaming: %s", label, why);
    CHECK(ptx_equal_renamed(m2, orig, why, sizeof why), "%s: and back: %s", label, why);
    *printed_m = m2;
    *numbered = orig;
}

static void test_named_golden(void) {
    char *ptx = test_slurp("tests/golden/literate/rowmax.lit.ptx"), *cu = test_slurp("tests/golden/literate/rowmax.cu");
    CHECK(ptx && cu, "golden inputs readable");
    if (!ptx || !cu) { free(ptx); free(cu); return; }
    ptx_module *m = named_of(ptx, cu, "rowmax.lit.ptx");
    char *out = test_ptx_printed(m);
    test_golden_file("tests/golden/literate/rowmax.named.ptx", out);
    /* names from the plan: parameters (nvcc's rowmax_param_N), a variable, a loop's induction, %tid.x */
    CHECK(strstr(out, "\t.reg .b64 %x;\n\tld.param.u64 %x, [rowmax_param_0];") != NULL, "ld.param of parameter 0 is %%x");
    CHECK(strstr(out, "\t// unsigned int row = blockIdx.x;\n\t.reg .b32 %row;\n\tmov.u32 %row, %ctaid.x;") != NULL,
          "the plan line heads the declaration, the variable names the register");
    CHECK(strstr(out, "add.s32 %j, %j, %ntx;") != NULL, "the loop's induction register is %%j");
    CHECK(strstr(out, "max.f32 %m, %m, %f1;") != NULL, "the accumulator is %%m");
    CHECK(!strstr(out, "%r<") && !strstr(out, "%f<"), "no counted declaration left");
    /* round trip, validity, and the same program up to renaming */
    ptx_module *m2, *orig;
    check_named_equiv(m, out, ptx, "rowmax", &m2, &orig);
    char why[256] = "";
    /* the checker can fail: two registers swapped in one instruction, an operand changed */
    char *swapped = test_replace(out, "max.f32 %m, %m, %f1;", "max.f32 %m, %f1, %m;");
    ptx_module *m3 = test_ptx_parse(swapped, "swapped");
    CHECK(!ptx_equal_renamed(orig, m3, why, sizeof why) && strstr(why, "one-to-one"), "a swap is not a renaming: %s", why);
    char *retyped = test_replace(out, "\t.reg .f32 %m;\n", "\t.reg .b32 %m;\n");
    ptx_module *m4 = test_ptx_parse(retyped, "retyped");
    CHECK(!ptx_equal_renamed(orig, m4, why, sizeof why) && strstr(why, "type"), "a changed type is caught: %s", why);
    ptx_module_free(m);
    ptx_module_free(m2);
    ptx_module_free(m3);
    ptx_module_free(m4);
    ptx_module_free(orig);
    free(swapped);
    free(retyped);
    free(out);
    free(ptx);
    free(cu);
}

/* Nested `{ }` blocks (nvcc's inline asm): a block's own registers are named too (`low` -> %low2,
 * %low being the plan's variable), declared before their first use inside the block; sibling
 * blocks share a name, a block inside a block never shadows its parent's (t -> %t2); the checker
 * resolves names by scope, so pointing a use at the parent's register is caught. */
static void test_named_blocks(void) {
    char *ptx = test_slurp("tests/golden/literate/blocks.lit.ptx"), *cu = test_slurp("tests/golden/literate/blocks.cu");
    CHECK(ptx && cu, "golden inputs readable");
    if (!ptx || !cu) { free(ptx); free(cu); return; }
    ptx_module *m = named_of(ptx, cu, "blocks.lit.ptx");
    char *out = test_ptx_printed(m);
    test_golden_file("tests/golden/literate/blocks.named.ptx", out);
    CHECK(strstr(out, "\t// float low = __low2float(h);\n\t.reg .f32 %low;\n\t{\n\t\t.reg .f16 %low2;\n\t\t.reg .f16 %high;\n"
                      "\t\tmov.b32 {%low2, %high}, %h;\n\t\tcvt.f32.f16 %low, %low2;\n\t}\n") != NULL,
          "a block's registers: named, '%%' added, not the plan's %%low:\n%s", out);
    CHECK(strstr(out, "\t{\n\t\t.reg .f16 %low2;\n\t\t.reg .f16 %high;\n\t\tmov.b32 {%low2, %high}, %h;\n\t\tcvt.f32.f16 %f1, %high;\n") != NULL,
          "the sibling block uses the same names");
    CHECK(strstr(out, "\t\t{\n\t\t\t.reg .b32 %t2;\n\t\t\tmov.b32 %t2, -2147483648;\n\t\t\t@%p xor.b32 %r1, %r1, %t2;\n\t\t}\n"
                      "\t\t.reg .b32 %t;\n\t\tmov.b32 %t, %r1;\n") != NULL,
          "the inner block's t is %%t2, the outer's %%t declared at its first use after it, %%p a block's guard");
    CHECK(strstr(out, "\t\t.reg .b32 %unused;\n") != NULL, "an unused register keeps its place, renamed");
    ptx_module *m2, *orig;
    check_named_equiv(m, out, ptx, "blocks", &m2, &orig);
    char why[256] = "";
    /* by scope: the inner block's use pointed at the outer block's register (declared there) */
    char *wrong = test_replace(out, "\t\t\t@%p xor.b32 %r1, %r1, %t2;\n\t\t}\n\t\t.reg .b32 %t;\n",
                               "\t\t\t@%p xor.b32 %r1, %r1, %t;\n\t\t}\n\t\t.reg .b32 %t;\n");
    char *wrong2 = test_replace(wrong, "\t\t.reg .b32 %unused;\n", "\t\t.reg .b32 %unused;\n\t\t.reg .b32 %t;\n");
    char *wrong3 = test_replace(wrong2, "\t\t}\n\t\t.reg .b32 %t;\n\t\tmov.b32 %t, %r1;", "\t\t}\n\t\tmov.b32 %t, %r1;");
    ptx_module *m3 = test_ptx_parse(wrong3, "blocks-wrong");
    pg_diag_sink q3 = {0};
    CHECK(ptx_validate(m3, &q3) == PG_OK, "the wrong one is valid PTX (%d errors)", q3.nerrors);
    CHECK(!ptx_equal_renamed(orig, m3, why, sizeof why) && strstr(why, "one-to-one"), "another block's register is caught: %s", why);
    ptx_module_free(m);
    ptx_module_free(m2);
    ptx_module_free(m3);
    ptx_module_free(orig);
    free(wrong);
    free(wrong2);
    free(wrong3);
    free(out);
    free(ptx);
    free(cu);
}

/* Names that would read as special registers or opcodes are changed; a second register of one
 * variable gets a suffix; a register first used inside a nested block is declared before the
 * block; nested blocks keep their own declarations; a name used by a nested block is not reused. */
static void test_named_rules(void) {
    const char *src =
        ".version 8.0\n.target sm_80\n.address_size 64\n"
        ".visible .entry k(\n\t.param .u32 k_param_0,\n\t.param .u32 k_param_1\n)\n{\n"
        "\t.reg .b32 %r<8>;\n\t.reg .pred %p<2>;\n"
        "\tld.param.u32 %r1, [k_param_0];\n"
        "\tld.param.u32 %r2, [k_param_1];\n"
        "\t// int laneid = tid & 31;\n"
        "\tand.b32 %r3, %r1, 31;\n"
        "\t// int add = laneid + 1;\n"
        "\tadd.s32 %r4, %r3, 1;\n"
        "\t// laneid = add * 2;\n"
        "\tshl.b32 %r5, %r4, 1;\n"
        "\t// int out = laneid + n;\n"
        "\t{\n\t.reg .b32 %t1;\n\tmov.b32 %t1, %r5;\n\tadd.s32 %r6, %t1, %r2;\n\t}\n"
        "\t// int a = 1, b = out;\n"
        "\tmov.u32 %r7, 1;\n"
        "\tsetp.eq.s32 %p1, %r6, %r7;\n"
        "\t@%p1 bra L;\nL:\n\tret;\n}\n";
    const char *plan = "extern \"C\" __global__ void k(int tid, unsigned int n) { }\n";
    ptx_module *m = named_of(src, plan, "rules");
    char *out = test_ptx_printed(m);
    CHECK(strstr(out, "ld.param.u32 %tid_, [k_param_0];") != NULL, "parameter tid is %%tid_ (%%tid is a special register):\n%s", out);
    CHECK(strstr(out, "ld.param.u32 %n, [k_param_1];") != NULL, "parameter 1 is %%n");
    CHECK(strstr(out, "and.b32 %laneid_, %tid_, 31;") != NULL, "a variable named laneid is %%laneid_");
    CHECK(strstr(out, "add.s32 %add_, %laneid_, 1;") != NULL, "a variable named after an opcode gets '_'");
    CHECK(strstr(out, "shl.b32 %laneid_2, %add_, 1;") != NULL, "the second register of one variable gets a suffix");
    CHECK(strstr(out, "\t// int out = laneid + n;\n\t.reg .b32 %out;\n\t{\n\t\t.reg .b32 %t1;\n\t\tmov.b32 %t1, %laneid_2;\n"
                      "\t\tadd.s32 %out, %t1, %n;\n\t}") != NULL,
          "a register first written inside a nested block is declared before it; the block's %%t1 keeps its name:\n%s", out);
    CHECK(strstr(out, "\t// int a = 1, b = out;\n\t.reg .b32 %r1;\n\tmov.u32 %r1, 1;\n") != NULL,
          "a line declaring two variables names neither (by type instead)");
    ptx_module *m2 = test_ptx_parse(out, "rules-printed");
    pg_diag_sink q = {0};
    CHECK(ptx_validate(m2, &q) == PG_OK, "valid (%d errors)", q.nerrors);
    ptx_module *orig = test_ptx_parse(src, "rules-orig");
    char why[256] = "";
    CHECK(ptx_equal_renamed(orig, m2, why, sizeof why), "the same program: %s", why);
    CHECK(ptx_regs_name(NULL, NULL, 0, &q) == PG_ERR_USAGE, "NULL module: PG_ERR_USAGE");
    ptx_module_free(m);
    ptx_module_free(m2);
    ptx_module_free(orig);
    free(out);
}

/* Every corpus kernel: named with its plan, valid, round trip, the same program up to renaming. */
static void test_named_corpus(void) {
    DIR *d = opendir("corpus");
    CHECK(d != NULL, "corpus/ readable");
    if (!d) return;
    int n = 0, ok = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[600];
        snprintf(p, sizeof p, "corpus/%s/kernel.ptx", e->d_name);
        char *src = test_slurp(p);
        if (!src) continue;
        snprintf(p, sizeof p, "corpus/%s/plan.cu", e->d_name);
        char *plan = test_slurp(p);
        n++;
        ptx_module *m = named_of(src, plan, e->d_name);
        char *out = test_ptx_printed(m);
        ptx_module *m2 = test_ptx_parse(out, e->d_name), *orig = test_ptx_parse(src, e->d_name);
        pg_diag_sink q = {0};
        char why[256] = "", why2[256] = "";
        bool good = ptx_module_equal(m, m2, why, sizeof why) && ptx_validate(m2, &q) == PG_OK && q.nwarnings == 0 &&
                    ptx_equal_renamed(orig, m2, why2, sizeof why2);
        for (int i = 0; i < m2->funcs[0].nbody; i++)   /* no counted declaration left */
            if (m2->funcs[0].body[i].kind == PTX_ST_DECL && m2->funcs[0].body[i].u.decl.count) good = false;
        CHECK(good, "%s: round trip (%s), valid (%d errors), renamed only (%s)", e->d_name, why, q.nerrors, why2);
        ok += good;
        ptx_module_free(m);
        ptx_module_free(m2);
        ptx_module_free(orig);
        free(out);
        free(src);
        free(plan);
    }
    closedir(d);
    CHECK(n >= 50 && ok == n, "%d of %d corpus kernels", ok, n);
}

/* Every valid kernel of tests/ptx/valid (registers named like special registers, declared without
 * '%', nested scopes, vectors, calls ...): still valid once named, and the same up to renaming. */
static void test_named_valid_suite(void) {
    DIR *d = opendir("tests/ptx/valid");
    CHECK(d != NULL, "tests/ptx/valid readable");
    if (!d) return;
    int n = 0, ok = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".ptx")) continue;
        char p[600];
        snprintf(p, sizeof p, "tests/ptx/valid/%s", e->d_name);
        char *src = test_slurp(p);
        if (!src) continue;
        ptx_module *orig = NULL, *m = NULL;
        pg_diag_sink q = {0};
        bool valid = ptx_parse(src, strlen(src), p, &orig, &q) == PG_OK && ptx_validate(orig, &q) == PG_OK;
        if (valid) {
            n++;
            ptx_parse(src, strlen(src), p, &m, &q);
            pg_diag_sink q2 = {0};
            bool good = ptx_regs_name(m, NULL, 0, &q2) == PG_OK;
            char *out = test_ptx_printed(m);
            ptx_module *m2 = NULL;
            char why[256] = "";
            good = good && ptx_parse(out, strlen(out), p, &m2, &q2) == PG_OK && ptx_validate(m2, &q2) == PG_OK &&
                   ptx_equal_renamed(orig, m2, why, sizeof why);
            CHECK(good, "%s: named, valid (%d errors), renamed only (%s)", e->d_name, q2.nerrors, why);
            ok += good;
            ptx_module_free(m2);
            free(out);
        }
        ptx_module_free(m);
        ptx_module_free(orig);
        free(src);
    }
    closedir(d);
    CHECK(n >= 20 && ok == n, "%d of %d valid kernels", ok, n);
}

int main(void) {
    test_literate_plan_order();
    test_literate_back_runs();
    test_plan_lines();
    test_plan_lines_straight();
    test_named_valid_suite();
    test_named_golden();
    test_named_blocks();
    test_named_rules();
    test_named_corpus();
    test_comments_kept();
    test_comment_non_ascii();
    test_literate_golden();
    test_literate_long_line();
    printf("%d passed, %d failed\n", t_pass, t_fail);
    return t_fail != 0;
}
