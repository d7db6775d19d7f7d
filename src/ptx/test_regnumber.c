/* test_regnumber.c — the canonical register style (ptx_regs_renumber): a golden file
 * (tests/golden/regs/, UPDATE_GOLDEN=1 rewrites the output), idempotence, the same
 * instructions up to renaming, guards / vectors / addresses rewritten, named and
 * special registers untouched, ambiguous functions left as written, and every corpus
 * kernel still valid and, where ptxas is found, assembling to the same register count.
 * Run from the repository root. */
#include "ptx/test_util.h"
#include <dirent.h>
#include <unistd.h>
#include "ptxgen/ptx.h"

/* Renumber `src`; checks it validates, equals src up to renaming both ways, and that renumbering
 * the printed result again changes nothing.  Returns the printed result (caller frees). */
static char *renumbered(const char *src, const char *what, bool validated) {
    ptx_module *m = test_ptx_parse(src, what);
    pg_diag_sink q = {0};
    if (validated) CHECK(ptx_validate(m, &q) == PG_OK && q.nerrors == 0, "%s: valid before", what);
    CHECK(ptx_regs_renumber(m) == PG_OK, "%s: renumbered", what);
    char *out = test_ptx_printed(m);
    ptx_module *m2 = test_ptx_parse(out, what), *orig = test_ptx_parse(src, what);
    char why[256] = "";
    CHECK(ptx_module_equal(m, m2, why, sizeof why), "%s: parse(print(renumbered)) == renumbered: %s", what, why);
    pg_diag_sink q2 = {0};
    CHECK(ptx_validate(m2, &q2) == PG_OK && q2.nerrors == 0 && q2.nwarnings == q.nwarnings, "%s: valid after (%d errors, %d warnings)",
          what, q2.nerrors, q2.nwarnings);
    CHECK(ptx_equal_renamed(orig, m2, why, sizeof why), "%s: the same up to renaming: %s", what, why);
    CHECK(ptx_equal_renamed(m2, orig, why, sizeof why), "%s: and back: %s", what, why);
    CHECK(ptx_regs_renumber(m2) == PG_OK, "%s: renumbered again", what);
    char *again = test_ptx_printed(m2);
    CHECK(again && out && !strcmp(again, out), "%s: renumber(renumber(x)) == renumber(x)", what);
    free(again);
    ptx_module_free(m);
    ptx_module_free(m2);
    ptx_module_free(orig);
    return out;
}

static void test_renumber_golden(void) {
    char *src = test_slurp("tests/golden/regs/renumber.in.ptx");
    CHECK(src != NULL, "renumber.in.ptx readable");
    if (!src) return;
    char *out = renumbered(src, "renumber.in.ptx", true);
    if (!out) { free(src); return; }
    test_golden_file("tests/golden/regs/renumber.out.ptx", out);
    /* what the golden file says, spelled out */
    CHECK(strstr(out, ".reg .pred %p<3>;") && strstr(out, ".reg .b32 %r<6>;") && strstr(out, ".reg .f32 %f<6>;") &&
          strstr(out, ".reg .b64 %rd<5>;"), "counts tightened to the numbers used + 1:\n%s", out);
    CHECK(strstr(out, "ld.param.u64 %rd1, [k_param_0];") && strstr(out, "cvta.to.global.u64 %rd2, %rd1;"),
          "first seen is 1, the next new one 2");
    CHECK(strstr(out, "@%p1 bra DONE;") && strstr(out, "@!%p2 bra DONE;"), "guards (negated too) rewritten");
    CHECK(strstr(out, "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd4+16];"), "vector elements and address bases rewritten");
    CHECK(strstr(out, "st.global.v2.f32 [%rd4], {%f5, %f1};"), "a store's address and vector rewritten");
    CHECK(strstr(out, "add.f32 %acc, %acc, %f3;") && strstr(out, ".reg .f32 %acc;"), "a named register untouched");
    CHECK(strstr(out, "mov.u32 %r2, %ctaid.x;") && strstr(out, "%tid.x"), "special registers untouched");
    CHECK(strstr(out, "// a hand-written module") == NULL, "the module's leading comment is not a body comment (dropped by fmt)");
    CHECK(strstr(out, "\t// load the parameters\n\tld.param.u64 %rd1") && strstr(out, "\t// v = x[i]\n\tmul.wide.s32 %rd3, %r5, 16;"),
          "comments stay on their statements");
    free(out);
    free(src);
}

/* Registers of a nested scope, a function where a class's name is ambiguous, an unvalidated module. */
static void test_rules(void) {
    const char *nested =
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 a)\n{\n"
        "\t.reg .b16 %rs<9>;\n\t.reg .b32 %r<9>;\n\t.reg .b64 %rd<9>;\n"
        "\tld.param.u64 %rd8, [a];\n\tmov.u32 %r5, 1;\n"
        "\t{\n\t.reg .b16 low;\n\tmov.b32 {low, %rs7}, %r5;\n\tmov.b16 %rs3, low;\n\t}\n"
        "\tst.global.u16 [%rd8], %rs3;\n\tret;\n}\n";
    char *out = renumbered(nested, "nested", true);
    CHECK(out && strstr(out, "mov.b32 {low, %rs1}, %r1;") && strstr(out, "mov.b16 %rs2, low;") && strstr(out, "st.global.u16 [%rd1], %rs2;"),
          "a nested block's own register kept, top-scope ones inside it renumbered:\n%s", out ? out : "");
    free(out);
    /* %r7 is also a named register of its own: which one %r7 means is not clear, so nothing changes */
    const char *amb =
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 a)\n{\n"
        "\t.reg .b32 %r<9>;\n\t.reg .b64 %rd<9>;\n"
        "\tld.param.u64 %rd8, [a];\n\tmov.u32 %r5, 1;\n\t{\n\t.reg .b32 %r7;\n\tmov.u32 %r7, %r5;\n\t}\n"
        "\tst.global.u32 [%rd8], %r5;\n\tret;\n}\n";
    ptx_module *m = test_ptx_parse(amb, "amb");
    char *before = test_ptx_printed(m);
    CHECK(ptx_regs_renumber(m) == PG_OK, "amb: PG_OK");
    char *after = test_ptx_printed(m);
    CHECK(before && after && !strcmp(before, after), "a function with an ambiguous name is left as written:\n%s", after ? after : "");
    free(before);
    free(after);
    ptx_module_free(m);
    /* an unused class keeps one register; a class used from index 0 starts at 1 */
    const char *zero =
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 a)\n{\n"
        "\t.reg .pred %p<4>;\n\t.reg .f32 %fa<8>;\n\t.reg .b64 %rd<3>;\n"
        "\tld.param.u64 %rd0, [a];\n\tld.global.f32 %fa0, [%rd0];\n\tadd.f32 %fa7, %fa0, %fa0;\n\tst.global.f32 [%rd0], %fa7;\n\tret;\n}\n";
    out = renumbered(zero, "zero", true);
    CHECK(out && strstr(out, ".reg .pred %p<1>;") && strstr(out, ".reg .f32 %fa<3>;") && strstr(out, "add.f32 %fa2, %fa1, %fa1;") &&
          strstr(out, "ld.param.u64 %rd1, [a];"), "unused class -> <1>, index 0 -> 1:\n%s", out ? out : "");
    free(out);
    out = renumbered(zero, "zero unvalidated", false);
    CHECK(out && strstr(out, "add.f32 %fa2, %fa1, %fa1;"), "a parsed, unvalidated module renumbers the same");
    free(out);
    CHECK(ptx_regs_renumber(NULL) == PG_ERR_USAGE, "NULL module: PG_ERR_USAGE");
}

/* Every corpus kernel: renumbered, still valid, the same up to renaming, idempotent; with ptxas,
 * it assembles and ptxas reports the same registers per function as for the kernel as written. */
static void test_corpus(void) {
    DIR *d = opendir("corpus");
    CHECK(d != NULL, "corpus/ readable");
    if (!d) return;
    char ptxas[512];
    bool have_ptxas = ptx_ptxas_find(ptxas, sizeof ptxas);
    if (!have_ptxas) printf("SKIPPED: ptxas not found: the corpus is checked without assembling it\n");
    int n = 0, assembled = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[600];
        snprintf(p, sizeof p, "corpus/%s/kernel.ptx", e->d_name);
        char *src = test_slurp(p);
        if (!src) continue;
        n++;
        char *out = renumbered(src, e->d_name, true);
        if (have_ptxas && out) {
            char a[] = "/tmp/regnum_aXXXXXX", b[] = "/tmp/regnum_bXXXXXX";
            int fa = mkstemp(a), fb = mkstemp(b);
            CHECK(fa >= 0 && fb >= 0, "temp files");
            ptx_module *m = test_ptx_parse(src, e->d_name);
            char *orig = test_ptx_printed(m);   /* the kernel as written, printed the same way */
            bool wrote = fa >= 0 && fb >= 0 && write(fa, orig, strlen(orig)) == (ssize_t)strlen(orig) &&
                         write(fb, out, strlen(out)) == (ssize_t)strlen(out);
            if (fa >= 0) close(fa);
            if (fb >= 0) close(fb);
            ptxas_report ra, rb;
            memset(&ra, 0, sizeof ra);
            memset(&rb, 0, sizeof rb);
            pg_diag_sink q = {0};
            bool reloc = ptx_needs_relocatable(m);
            if (wrote) {
                ptx_ptxas_run(a, NULL, reloc, &ra, &q);
                ptx_ptxas_run(b, NULL, reloc, &rb, &q);
            }
            bool same = wrote && ra.ok && rb.ok && ra.nfuncs == rb.nfuncs;
            for (int i = 0; same && i < ra.nfuncs; i++) same = ra.funcs[i].registers == rb.funcs[i].registers;
            CHECK(!ra.ok || same, "%s: ptxas assembles the renumbered kernel with the same registers (%d, %d)", e->d_name,
                  ra.nfuncs ? ra.funcs[0].registers : -1, rb.nfuncs ? rb.funcs[0].registers : -1);
            assembled += same;
            ptx_ptxas_report_free(&ra);
            ptx_ptxas_report_free(&rb);
            ptx_module_free(m);
            free(orig);
            unlink(a);
            unlink(b);
        }
        free(out);
        free(src);
    }
    closedir(d);
    CHECK(n >= 40, "the corpus has its kernels (%d)", n);
    if (have_ptxas) printf("corpus: %d kernels renumbered, %d assembled alike\n", n, assembled);
}

int main(void) {
    test_renumber_golden();
    test_rules();
    test_corpus();
    printf("%d passed, %d failed\n", t_pass, t_fail);
    return t_fail != 0;
}
