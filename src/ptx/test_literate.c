/* test_literate.c — kept comments (parser, printer, equality, strip) and the
 * literate pass from nvcc's line table (ptx_literate_from_loc), against the
 * golden files in tests/golden/literate/ (UPDATE_GOLDEN=1 rewrites the
 * outputs).  Run from the repository root. */
#include "common/test.h"
#include "ptxgen/ptx.h"

static ptx_module *parse_text(const char *text, const char *name) {
    ptx_module *m = NULL;
    pg_diag_sink q = {0};
    pg_status st = ptx_parse(text, strlen(text), name, &m, &q);
    CHECK(st == PG_OK && q.nerrors == 0, "%s parses (%d errors)", name, q.nerrors);
    return m;
}

static char *printed(const ptx_module *m) {
    pg_buf b = {0};
    ptx_print(m, &b);
    return b.data;   /* malloc'd by pg_buf */
}

/* `got` equals the golden file at `path` (or rewrites it under UPDATE_GOLDEN=1). */
static void golden(const char *path, const char *got) {
    if (getenv("UPDATE_GOLDEN")) {
        FILE *f = fopen(path, "wb");
        CHECK(f && fputs(got, f) >= 0 && fclose(f) == 0, "rewrite %s", path);
        return;
    }
    char *want = test_slurp(path);
    CHECK(want && !strcmp(want, got), "%s matches (UPDATE_GOLDEN=1 rewrites it); got:\n%s", path, got);
    free(want);
}

static void test_comments_kept(void) {
    char *src = test_slurp("tests/golden/literate/comments.ptx");
    CHECK(src != NULL, "comments.ptx readable");
    if (!src) return;
    ptx_module *m = parse_text(src, "comments.ptx");
    pg_diag_sink q = {0};
    CHECK(ptx_validate(m, &q) == PG_OK, "comments do not change validity");
    const ptx_func *f = &m->funcs[0];
    CHECK(f->body[0].comment && !strcmp(f->body[0].comment, " declarations first */ not a block end"),
          "a comment before the first declaration is kept (CR dropped, `*/` is text): '%s'", f->body[0].comment);
    CHECK(f->body[1].comment == NULL, "the second declaration has none");
    const ptx_stmt *ld = &f->body[2];
    CHECK(ld->comment && !strcmp(ld->comment, " two lines\n   before the load"),
          "two lines are joined, leading text kept, trailing blanks dropped: '%s'", ld->comment);
    CHECK(f->body[3].comment && strstr(f->body[3].comment, "\xff\xfe"), "bytes that are not UTF-8 are kept");
    CHECK(f->body[4].kind == PTX_ST_LABEL && f->body[4].comment == NULL, "the trailing comment is not kept");
    CHECK(f->body[5].comment == NULL, "block comments are not kept");
    CHECK(f->end_comment && !strcmp(f->end_comment, " before the brace"), "the comment before '}' is kept");
    char *out = printed(m);
    golden("tests/golden/literate/comments.fmt.ptx", out);
    /* round trip with comments */
    ptx_module *m2 = parse_text(out, "printed");
    char why[256] = "";
    CHECK(ptx_module_equal(m, m2, why, sizeof why), "parse(print(parse(x))) == parse(x) with comments: %s", why);
    /* a changed comment is a difference */
    char *other = test_replace(out, "before the end", "before the END");
    ptx_module *m3 = parse_text(other, "other");
    CHECK(!ptx_module_equal(m, m3, why, sizeof why) && strstr(why, "comment"), "a different comment differs: %s", why);
    /* strip */
    ptx_comments_strip(m2);
    char *bare = printed(m2);
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
    ptx_module *m = parse_text(ptx, "rowmax.lineinfo.ptx");
    int n = ptx_literate_from_loc(m, cu, strlen(cu), 1);
    CHECK(n == 14, "14 plan comments (got %d)", n);
    char *out = printed(m);
    golden("tests/golden/literate/rowmax.lit.ptx", out);
    CHECK(!strstr(out, ".loc") && !strstr(out, ".file") && !strstr(out, ".section"), "no line table left");
    CHECK(!strstr(out, "__global__"), "the kernel's header line is not a plan comment");
    CHECK(strstr(out, "\t// if (row >= rows) return;\n\tsetp.ge.u32") != NULL, "a plan line heads its instructions");
    CHECK(strstr(out, "// for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));\n\tmov.b32")
          != NULL, "inlined header code counts as the line it was inlined at");
    /* the literate kernel is still the same program */
    ptx_module *lit = parse_text(out, "literate");
    pg_diag_sink q = {0};
    CHECK(ptx_validate(lit, &q) == PG_OK && q.nwarnings == 0, "literate output validates");
    ptx_module *plain = parse_text(ptx, "plain");
    ptx_comments_strip(lit);
    /* the plain module still has its .loc statements: count instructions instead */
    int a = 0, b = 0;
    for (int i = 0; i < lit->funcs[0].nbody; i++) a += lit->funcs[0].body[i].kind == PTX_ST_INSN;
    for (int i = 0; i < plain->funcs[0].nbody; i++) b += plain->funcs[0].body[i].kind == PTX_ST_INSN;
    CHECK(a == b && a > 50, "every instruction kept (%d vs %d)", a, b);
    /* a plan line longer than the cap is cut; another file id finds no plan lines */
    ptx_module *none = parse_text(ptx, "other-file");
    CHECK(ptx_literate_from_loc(none, cu, strlen(cu), 3) == 0, "file 3 is not in the table: no comments");
    ptx_module_free(none);
    ptx_module_free(m);
    ptx_module_free(lit);
    ptx_module_free(plain);
    free(out);
    free(ptx);
    free(cu);
}

static void test_literate_long_line(void) {
    const char *ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.loc 1 2 1\n\tret;\n}\n";
    pg_buf cu = {0};
    pg_buf_puts(&cu, "// plan\n\tint\t\tx =   ");
    for (int i = 0; i < 300; i++) pg_buf_putc(&cu, 'a');
    pg_buf_puts(&cu, "\xe4\xb8\xad;\n");
    ptx_module *m = parse_text(ptx, "long");
    CHECK(ptx_literate_from_loc(m, cu.data, cu.len, 1) == 1, "one comment");
    const char *c = m->funcs[0].body[0].comment;
    CHECK(c && strlen(c) <= PTX_LITERATE_LINE_MAX + 1 && !strncmp(c, " int x = aaa", 12), "blanks collapsed, cut at the cap: '%s'", c);
    ptx_module_free(m);
    pg_buf_free(&cu);
}

int main(void) {
    test_comments_kept();
    test_literate_golden();
    test_literate_long_line();
    printf("%d passed, %d failed\n", t_pass, t_fail);
    return t_fail != 0;
}
