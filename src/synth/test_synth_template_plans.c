/* test_synth_template_plans.c — the PTX-template families (map, reduce,
 * stencil1d) write literate PTX (docs/LITERATE.md) over a CUDA C plan:
 *
 *   - the instructions are the ones the templates wrote before they had plans:
 *     the canonical print without comments of every seed is pinned in
 *     tests/golden/synth/template_plain.pins (FNV-1a 64 of the text);
 *     SYNTH_PIN_UPDATE=1 rewrites the file after a deliberate change of a
 *     template;
 *   - s->cu holds the plan: extern "C", the sample's entry name, the task's
 *     parameters in order with the task's names, const exactly on the inputs
 *     (twin_parse);
 *   - every comment in the kernel body is one line of the plan with its blanks
 *     collapsed (at most PTX_LITERATE_LINE_MAX bytes), one line per block, none
 *     before the closing brace, no trailing comments in the text, and at least
 *     one per 15 instructions;
 *   - nvcc compiles every distinct plan (-ptx and -cubin for sm_80, many plans
 *     in one file) and each plan's entry matches its task
 *     (task_check_signature).  Without nvcc that step is SKIPPED, said so.
 *
 * SYNTH_TEMPLATE_N=K seeds per family (default 300); SYNTH_TEMPLATE_NVCC=0
 * skips the compilations (make check: the rest takes seconds).  Run from the
 * repository root (reads and writes tests/golden/synth/). */
#include "common/test.h"
#include "family_internal.h"
#include "ptxgen/ptx.h"
#include "ptxgen/task.h"
#include "ptxgen/twin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PINS "tests/golden/synth/template_plain.pins"

static const struct { const char *name; fam_gen_fn fn; } FAMS[] = {
    {"map", synth_fam_gen_map},
    {"reduce", synth_fam_gen_reduce},
    {"stencil1d", synth_fam_gen_stencil1d},
};
enum { NFAM = (int)(sizeof FAMS / sizeof FAMS[0]) };

/* The canonical print of ptx without its comments (NULL when it does not parse). */
static char *plain_print(const char *ptx, size_t len) {
    ptx_module *m = NULL;
    pg_diag_sink q = {0};
    if (ptx_parse(ptx, len, "t", &m, &q) != PG_OK) { ptx_module_free(m); return NULL; }
    ptx_comments_strip(m);
    pg_buf b = {0};
    ptx_print(m, &b);
    ptx_module_free(m);
    return b.data;
}

/* The plan's lines as comments would hold them: " " + the line with its
 * blanks collapsed and trimmed (literate.c's rule); lines holding only braces
 * and semicolons and the __global__ line are not comment lines.  One string of
 * '\n'-terminated lines. */
static void plan_lines(const char *cu, pg_buf *out) {
    for (const char *p = cu; p && *p;) {
        const char *e = strchr(p, '\n');
        if (!e) e = p + strlen(p);
        pg_buf l = {0};
        pg_buf_putc(&l, ' ');
        bool space = true, code = false;
        for (const char *q = p; q < e; q++) {
            unsigned char c = (unsigned char)*q;
            if (c <= ' ') {
                if (!space) pg_buf_putc(&l, ' ');
                space = true;
                continue;
            }
            if (c != '{' && c != '}' && c != ';') code = true;
            pg_buf_putc(&l, (char)c);
            space = false;
        }
        while (l.len > 1 && l.data[l.len - 1] == ' ') l.data[--l.len] = 0;
        if (code && !strstr(l.data, "__global__")) {
            pg_buf_putn(out, l.data, l.len);
            pg_buf_putc(out, '\n');
        }
        pg_buf_free(&l);
        p = *e ? e + 1 : e;
    }
}

static bool is_plan_line(const char *lines, const char *c) {
    size_t n = strlen(c);
    for (const char *p = lines; p && (p = strstr(p, c)); p++)
        if ((p == lines || p[-1] == '\n') && p[n] == '\n') return true;
    return false;
}

/* The literate checks of one sample; returns the number of comments. */
static int check_literate(const char *fam, const synth_family_sample *s) {
    pg_buf lines = {0};
    plan_lines(s->cu.data, &lines);
    ptx_module *m = NULL;
    pg_diag_sink q = {0};
    int ncom = 0, ninsn = 0, bad = 0;
    if (ptx_parse(s->ptx.data, s->ptx.len, s->name, &m, &q) == PG_OK && ptx_validate(m, &q) == PG_OK && q.nwarnings == 0) {
        const ptx_func *f = &m->funcs[0];
        for (int k = 0; k < f->nbody; k++) {
            const ptx_stmt *st = &f->body[k];
            ninsn += st->kind == PTX_ST_INSN;
            if (!st->comment) continue;
            ncom++;
            bool one = !strchr(st->comment, '\n') && strlen(st->comment) <= PTX_LITERATE_LINE_MAX + 1;
            if (!one || !is_plan_line(lines.data, st->comment)) {
                if (bad++ < 2) CHECK(false, "%s %s: comment '//%s' is not one line of the plan", fam, s->name, st->comment);
            }
        }
        CHECK(!f->end_comment, "%s %s: a comment before the closing brace heads no block", fam, s->name);
    } else CHECK(false, "%s %s: the PTX does not parse and validate", fam, s->name);
    ptx_module_free(m);
    CHECK(ncom > 0 && ncom * 15 >= ninsn, "%s %s: %d plan comments for %d instructions (want >= 1 per 15)", fam, s->name, ncom, ninsn);
    /* the text: inside the body, a // starts its line (no trailing comments) */
    const char *b = strstr(s->ptx.data, "\n{\n"), *end = b ? strstr(b, "\n}\n") : NULL;
    for (const char *p = b ? b + 3 : NULL; p && p < end;) {
        const char *e = strchr(p, '\n');
        const char *c = strstr(p, "//");
        if (c && c < e) {
            const char *t = p;
            while (*t == ' ' || *t == '\t') t++;
            CHECK(t == c, "%s %s: trailing comment '%.*s'", fam, s->name, (int)(e - p), p);
            if (t != c) break;
        }
        p = e + 1;
    }
    /* the plan's signature is the task's */
    task_spec *t = NULL;
    twin_kernel k;
    memset(&k, 0, sizeof k);
    char tp[] = "/tmp/ptxgen-tplan-XXXXXX";
    int fd = mkstemp(tp);
    bool w = fd >= 0 && write(fd, s->task_json.data, s->task_json.len) == (ssize_t)s->task_json.len;
    if (fd >= 0) close(fd);
    pg_diag_sink tq = {0};
    if (w && task_load(tp, &t, &tq) == PG_OK && twin_parse(s->cu.data, "plan.cu", s->name, &k, &tq) == PG_OK) {
        bool same = k.nparams == t->nparams;
        for (int i = 0; same && i < k.nparams; i++)
            same = !strcmp(k.params[i].name, t->params[i].name) && k.params[i].is_pointer == t->params[i].is_pointer &&
                   k.params[i].is_const == (t->params[i].is_pointer && t->params[i].role == TASK_ROLE_IN) &&
                   (k.params[i].dtype == t->params[i].dtype || (t->params[i].dtype == TASK_T_F16 && k.params[i].dtype == TASK_T_NONE));
        CHECK(same, "%s %s: the plan's parameters are not the task's (names, order, const on the inputs, types)", fam, s->name);
    } else CHECK(false, "%s %s: task or plan does not load (%d diagnostics)", fam, s->name, tq.nerrors);
    twin_kernel_free(&k);
    task_free(t);
    unlink(tp);
    pg_buf_free(&lines);
    return ncom;
}

/* nvcc on plans (as many per file as have distinct entry names), and each
 * entry against its task.  Returns the number of plans compiled, -1 without nvcc. */
static int compile_plans(const char *fam, synth_family_sample *ss, int n) {
    bool *done = calloc((size_t)n, sizeof *done);
    int compiled = 0;
    for (int i = 0; i < n; i++) {   /* identical plans compile once; a sample without a plan failed above */
        done[i] = !ss[i].cu.len;
        for (int j = 0; j < i && !done[i]; j++)
            if (!done[j] && !strcmp(ss[j].name, ss[i].name) && !strcmp(ss[j].cu.data, ss[i].cu.data)) done[i] = true;
    }
    for (;;) {
        int *batch = calloc((size_t)n, sizeof *batch), k = 0;
        pg_buf src = {0};
        for (int i = 0; i < n; i++) {
            if (done[i]) continue;
            bool clash = false;
            for (int j = 0; j < k && !clash; j++) clash = !strcmp(ss[batch[j]].name, ss[i].name);
            if (clash) continue;
            batch[k++] = i;
            done[i] = true;
            pg_buf_puts(&src, ss[i].cu.data);
            pg_buf_putc(&src, '\n');
        }
        if (!k) { free(batch); pg_buf_free(&src); break; }
        char dir[] = "/tmp/ptxgen-tplans-XXXXXX", cu[64];
        bool w = mkdtemp(dir) != NULL;
        snprintf(cu, sizeof cu, "%s/plans.cu", dir);
        FILE *fo = w ? fopen(cu, "wb") : NULL;
        w = fo && fwrite(src.data, 1, src.len, fo) == src.len;
        w = fo && fclose(fo) == 0 && w;
        twin_build tb;
        pg_diag_sink q = {0};
        CHECK(w && twin_compile(cu, "sm_80", &tb, &q) == PG_OK, "%s: cannot compile the plans", fam);
        if (tb.status == TWIN_BUILD_NO_NVCC) {
            twin_build_free(&tb);
            unlink(cu);
            rmdir(dir);
            free(batch);
            pg_buf_free(&src);
            free(done);
            return -1;
        }
        char first[300] = "";
        twin_log_first_error(tb.log ? tb.log : "", first, sizeof first);
        CHECK(tb.status == TWIN_BUILD_OK, "%s: nvcc rejects a batch of %d plans: %s", fam, k, first);
        ptx_module *m = NULL;
        if (tb.status == TWIN_BUILD_OK && ptx_parse(tb.ptx, strlen(tb.ptx), "plans.ptx", &m, &q) == PG_OK) {
            for (int b = 0; b < k; b++) {
                const synth_family_sample *s = &ss[batch[b]];
                task_spec *t = NULL;
                char tp[] = "/tmp/ptxgen-tplan-XXXXXX";
                int tf = mkstemp(tp);
                bool tw = tf >= 0 && write(tf, s->task_json.data, s->task_json.len) == (ssize_t)s->task_json.len;
                if (tf >= 0) close(tf);
                pg_diag_sink sq = {0};
                CHECK(tw && task_load(tp, &t, &sq) == PG_OK && task_check_signature(t, m, "plans.ptx", &sq) == PG_OK,
                      "%s %s: nvcc's entry of the plan does not match the task (%d diagnostics)", fam, s->name, sq.nerrors);
                task_free(t);
                unlink(tp);
                compiled++;
            }
        } else CHECK(tb.status != TWIN_BUILD_OK, "%s: nvcc's PTX of the plans does not parse", fam);
        ptx_module_free(m);
        twin_build_free(&tb);
        unlink(cu);
        rmdir(dir);
        free(batch);
        pg_buf_free(&src);
    }
    free(done);
    return compiled;
}

int main(void) {
    int nseeds = getenv("SYNTH_TEMPLATE_N") ? atoi(getenv("SYNTH_TEMPLATE_N")) : 300;
    if (nseeds < 1 || nseeds > 100000) nseeds = 300;
    bool update = getenv("SYNTH_PIN_UPDATE") && !strcmp(getenv("SYNTH_PIN_UPDATE"), "1");
    size_t pn = 0;
    char *pins = NULL;
    pg_diag_sink pq = {0};
    if (!update) CHECK(pg_read_file(PINS, 16 << 20, &pins, &pn, &pq) == PG_OK, "cannot read %s (run from the repository root)", PINS);
    pg_buf fresh = {0};
    bool have_nvcc = true, use_nvcc = !(getenv("SYNTH_TEMPLATE_NVCC") && !strcmp(getenv("SYNTH_TEMPLATE_NVCC"), "0"));
    for (int f = 0; f < NFAM; f++) {
        synth_family_sample *ss = calloc((size_t)nseeds, sizeof *ss);
        int pinned = 0, ncom = 0;
        for (int i = 0; i < nseeds; i++) {
            synth_family_sample *s = &ss[i];
            uint64_t seed = 1000003ull * (uint64_t)i + 17;
            CHECK(FAMS[f].fn(seed, s) == PG_OK && s->ptx.len, "%s seed %d: generator failed", FAMS[f].name, i);
            char *plain = plain_print(s->ptx.data, s->ptx.len);
            CHECK(plain != NULL, "%s seed %d: the PTX does not parse", FAMS[f].name, i);
            char line[96];
            snprintf(line, sizeof line, "%s %d %016llx\n", FAMS[f].name, i,
                     (unsigned long long)(plain ? pg_hash64_add(PG_HASH64_INIT_SHORT, plain, strlen(plain)) : 0));
            free(plain);
            if (update) pg_buf_puts(&fresh, line);
            else if (pins && strstr(pins, line)) pinned++;
            else if (pinned + 3 > i) CHECK(false, "%s seed %d (%s): the PTX without comments is not the pinned one", FAMS[f].name, i, s->name);
            if (update) continue;
            CHECK(s->cu.len > 0, "%s seed %d (%s): no CUDA C plan", FAMS[f].name, i, s->name);
            if (s->cu.len) ncom += check_literate(FAMS[f].name, s);
        }
        if (!update) {
            CHECK(pinned == nseeds, "%s: %d of %d seeds have the pinned instructions", FAMS[f].name, pinned, nseeds);
            int c = use_nvcc ? compile_plans(FAMS[f].name, ss, nseeds) : 0;
            if (c < 0) have_nvcc = false;
            printf("%s: %d seeds, instructions pinned for %d, %d plan comments, %d distinct plans compiled by nvcc\n", FAMS[f].name, nseeds,
                   pinned, ncom, c < 0 ? 0 : c);
        }
        for (int i = 0; i < nseeds; i++) synth_family_sample_free(&ss[i]);
        free(ss);
    }
    if (update) {
        mkdir("tests/golden/synth", 0755);
        FILE *o = fopen(PINS ".tmp", "wb");
        bool ok = o && fwrite(fresh.data, 1, fresh.len, o) == fresh.len;
        ok = o && fclose(o) == 0 && ok;
        CHECK(ok && rename(PINS ".tmp", PINS) == 0, "cannot write %s", PINS);
        printf("wrote %s (%d seeds per family)\n", PINS, nseeds);
    }
    if (!have_nvcc) printf("SKIPPED: nvcc not found, the plans were not compiled\n");
    if (!use_nvcc) printf("SKIPPED: the plans were not compiled (SYNTH_TEMPLATE_NVCC=0)\n");
    pg_buf_free(&fresh);
    free(pins);
    return TEST_DONE();
}
