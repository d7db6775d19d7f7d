/* test_roundtrip.c — corpus properties of the parser, printer and validator.
 *
 * usage: test_roundtrip [--ptxas] FILE.ptx...
 * For every file (each is PTX that ptxas accepts):
 *   1. ptxgen's validator accepts it (no false positives);
 *   2. parse(print(parse(x))) equals parse(x) structurally;
 *   3. with --ptxas: ptxas gives the printed file the same registers and
 *      shared memory per function as the original. */
#include "common/test.h"
#include "ptxgen/ptx.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void print_diag(void *u, const pg_diag *d) {
    (void)u;
    char b[700];
    pg_diag_format(d, b, sizeof b);
    fprintf(stderr, "    %s\n", b);
}

/* Does the installed ptxas know this target?  Asked once per target name (a ptxas run each), not
 * once per file. */
static bool ptxas_knows(const char *target) {
    static char names[32][32];
    static bool known[32];
    static int n;
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], target)) return known[i];
    char why[256];
    bool k = ptx_ptxas_target_check(target, 0, why, sizeof why) != 0;
    if (n < 32 && strlen(target) < sizeof names[0]) {
        snprintf(names[n], sizeof names[n], "%s", target);
        known[n++] = k;
    }
    return k;
}

int main(int argc, char **argv) {
    bool use_ptxas = false;
    int nptxas = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ptxas")) { use_ptxas = true; continue; }
        const char *path = argv[i];
        pg_diag_sink sink = {print_diag, NULL, 0, 0, 20};
        ptx_module *m = NULL;
        pg_status ps = ptx_parse_file(path, &m, &sink);
        pg_status vs = ps == PG_OK ? ptx_validate(m, &sink) : ps;
        CHECK(ps == PG_OK && vs == PG_OK, "%s: ptxas accepts it, so check must too", path);
        if (ps != PG_OK) { ptx_module_free(m); continue; }
        pg_buf b = {0};
        ptx_print(m, &b);
        ptx_module *m2 = NULL;
        pg_diag_sink sink2 = {print_diag, NULL, 0, 0, 20};
        pg_status ps2 = ptx_parse(b.data, b.len, "printed", &m2, &sink2);
        char why[512] = "";
        CHECK(ps2 == PG_OK && ptx_module_equal(m, m2, why, sizeof why), "%s: round trip differs: %s", path, why);
        if (use_ptxas && ps2 == PG_OK) {
            char tmp[] = "/tmp/ptxgen-rt-XXXXXX";
            int fd = mkstemp(tmp);
            bool wrote = fd >= 0 && write(fd, b.data, b.len) == (ssize_t)b.len;
            if (fd >= 0) close(fd);
            ptxas_report r1, r2;
            bool rel = ptx_needs_relocatable(m);
            /* the file's target, unless the installed ptxas no longer knows it (13.0 dropped sm_70): then
             * sm_75, which assembles PTX written for an older target, as tests/diff_ptxas does */
            const char *arch = NULL;
            for (int t = 0; t < m->ntargets; t++)
                if (!strncmp(m->targets[t], "sm_", 3) && !ptxas_knows(m->targets[t])) arch = "sm_75";
            pg_status s1 = ptx_ptxas_run(path, arch, rel, &r1, NULL);
            pg_status s2 = wrote ? ptx_ptxas_run(tmp, arch, rel, &r2, NULL) : PG_ERR_IO;
            if (s1 == PG_ERR_EXTERNAL && !r1.ran) {
                fprintf(stderr, "test_roundtrip: ptxas not found; skipping the ptxas comparison\n");
                use_ptxas = false;
            } else {
                nptxas++;
                CHECK(r1.ok && s2 == PG_OK && r2.ok, "%s: ptxas must accept the original and the printed file", path);
                if (r2.ran && !r2.ok) fprintf(stderr, "%s\n", r2.log);
                CHECK(r1.nfuncs == r2.nfuncs, "%s: ptxas reports %d vs %d functions", path, r1.nfuncs, r2.nfuncs);
                for (int k = 0; k < r1.nfuncs && k < r2.nfuncs; k++) {
                    CHECK(r1.funcs[k].registers == r2.funcs[k].registers && r1.funcs[k].smem == r2.funcs[k].smem,
                          "%s: %s: registers %d vs %d, smem %lld vs %lld", path, r1.funcs[k].func, r1.funcs[k].registers,
                          r2.funcs[k].registers, (long long)r1.funcs[k].smem, (long long)r2.funcs[k].smem);
                }
            }
            ptx_ptxas_report_free(&r1);
            if (s2 != PG_ERR_IO) ptx_ptxas_report_free(&r2);
            unlink(tmp);
        }
        pg_buf_free(&b);
        ptx_module_free(m2);
        ptx_module_free(m);
    }
    if (use_ptxas) fprintf(stderr, "test_roundtrip: compared ptxas resources for %d files\n", nptxas);
    return TEST_DONE();
}
