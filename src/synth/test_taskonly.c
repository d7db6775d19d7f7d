/* test_taskonly.c — task-only training tasks: every generated spec loads, its
 * C reference runs on every size and distribution, generation is deterministic;
 * the row-reduce reference against hand-computed rows; bad specs are errors;
 * the row tasks' descriptions use both notations of f (synth_expr_notation). */
#define _GNU_SOURCE
#include "common/test.h"
#include "ptxgen/synth.h"
#include "ptxgen/task.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/ptxgen-taskonly-XXXXXX";

static char *slurp(const char *path) {
    char *s = NULL;
    size_t n = 0;
    pg_diag_sink q = {0};
    return pg_read_file(path, 1 << 20, &s, &n, &q) == PG_OK ? s : NULL;
}

static void test_pool(void) {
    char dir[600];
    snprintf(dir, sizeof dir, "%s/pool", tmpdir);
    int n = 0;
    pg_diag_sink q = {0};
    CHECK(synth_taskonly_write(dir, 12, 7, NULL, &n, &q) == PG_OK && n == 12, "12 tasks written (%d)", n);
    int maps = 0, rows = 0, rowops = 0;
    for (int i = 0; i < 12; i++) {
        pg_buf j = {0};
        char name[64];
        CHECK(synth_taskonly_task(7, i, &j, name, sizeof name, &q) == PG_OK, "task %d", i);
        char p[800];
        snprintf(p, sizeof p, "%s/%s/task.json", dir, name);
        char *disk = slurp(p);
        CHECK(disk && !strcmp(disk, j.data), "task %d on disk is what synth_taskonly_task makes (deterministic)", i);
        free(disk);
        pg_buf_free(&j);
        task_spec *t = NULL;
        if (task_load(p, &t, &q) != PG_OK) { CHECK(false, "%s loads", p); continue; }
        maps += !strcmp(t->family, "taskonly-map");
        rows += !strcmp(t->family, "taskonly-rowreduce");
        rowops += !strcmp(t->family, "taskonly-rowop");
        CHECK(t->desc[TASK_STYLE_PROSE] && t->desc[TASK_STYLE_ZH] && t->desc[TASK_STYLE_CARD] && strlen(t->desc[TASK_STYLE_TERSE]) > 10, "%s: five descriptions", name);
        /* the reference on every small size and distribution: finite outputs, written everywhere */
        bool ok = true;
        for (int s = 1; s < t->nsizes; s++)
            for (int d = 0; d < t->ndists; d++) {
                task_inst in, ref;
                memset(&ref, 0, sizeof ref);
                if (task_inst_make(t, s, d, 1, &in, &q) != PG_OK) { ok = false; continue; }
                if (task_reference_run(&in, &ref, &q) != PG_OK) {
                    ok = false;
                    if (ref.args) task_inst_free(&ref);
                    task_inst_free(&in);
                    continue;
                }
                for (int pi = 0; pi < t->nparams; pi++)
                    if (t->params[pi].is_pointer && t->params[pi].role == TASK_ROLE_OUT)
                        for (size_t e = 0; e < ref.args[pi].count; e++) ok &= isfinite(((float *)ref.args[pi].data)[e]) != 0;
                task_inst_free(&in);
                task_inst_free(&ref);
            }
        CHECK(ok, "%s: the reference runs and writes finite values", name);
        task_free(t);
    }
    CHECK(maps == 4 && rows == 4 && rowops == 4, "the three compositions (%d maps, %d row reductions, %d row ops)", maps, rows, rowops);
    /* held-out exclusion: a suite task with task 0's expression (operands swapped where they commute) */
    pg_buf j0 = {0};
    char n0[64];
    synth_taskonly_task(7, 0, &j0, n0, sizeof n0, &q);
    char sd[700], sp[800];
    snprintf(sd, sizeof sd, "%s/suite", tmpdir);
    snprintf(sp, sizeof sp, "%s/suite/held", tmpdir);
    mkdir(sd, 0755);
    mkdir(sp, 0755);
    strcat(sp, "/task.json");
    FILE *f = fopen(sp, "w");
    if (f) { fputs(j0.data, f); fclose(f); }
    pg_buf_free(&j0);
    char dir2[700], p0[800];
    snprintf(dir2, sizeof dir2, "%s/pool2", tmpdir);
    CHECK(synth_taskonly_write(dir2, 12, 7, sd, &n, &q) == PG_OK && n == 12, "12 tasks with the exclusion (%d)", n);
    snprintf(p0, sizeof p0, "%s/%s", dir2, n0);
    CHECK(access(p0, F_OK) != 0, "the held-out task %s is not in the pool", n0);
    CHECK(synth_taskonly_write(dir2, 2, 7, "/nonexistent/suite", &n, &q) == PG_ERR_IO, "a missing --exclude folder is an error");
    pg_buf a = {0}, b = {0};
    char na[64], nb[64];
    synth_taskonly_task(7, 3, &a, na, sizeof na, &q);
    synth_taskonly_task(8, 3, &b, nb, sizeof nb, &q);
    CHECK(strcmp(na, nb) != 0, "another seed, another task (%s, %s)", na, nb);
    pg_buf_free(&a);
    pg_buf_free(&b);
}

static const char *spec(const char *name, const char *expr, const char *reduce, const char *sizes) {
    static char path[600];
    snprintf(path, sizeof path, "%s/%s.json", tmpdir, name);
    FILE *f = fopen(path, "w");
    fprintf(f, "{\"name\": \"%s\", \"kernel\": \"k\", \"expr\": \"%s\", \"reduce\": \"%s\","
               "\"descriptions\": {\"terse\": \"t\", \"detailed\": \"d\", \"card\": \"## c\", \"zh\": \"z\"},"
               "\"params\": [{\"name\": \"a\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"rows*cols\"},"
               "{\"name\": \"out\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"rows\"},"
               "{\"name\": \"rows\", \"type\": \"u32\", \"value\": \"rows\"}, {\"name\": \"cols\", \"type\": \"u32\", \"value\": \"cols\"}],"
               "\"sizes\": [%s], \"launch\": {\"block\": [\"256\"], \"grid\": [\"rows\"]},"
               "\"distributions\": [\"uniform(-1,1)\", \"normal(0,1)\"], \"reference\": {\"kind\": \"c\", \"name\": \"expr_rowreduce\"}}",
            name, expr, reduce, sizes);
    fclose(f);
    return path;
}

static void collect(void *u, const pg_diag *d) {
    char *m = u;
    if (!m[0]) snprintf(m, 600, "%s", d->msg);
}

static void test_rowreduce_values(void) {
    const char *ops[] = {"sum", "mean", "max", "min"};
    for (int op = 0; op < 4; op++) {
        char nm[32];
        snprintf(nm, sizeof nm, "rr_%s", ops[op]);
        task_spec *t = NULL;
        pg_diag_sink q = {0};
        if (task_load(spec(nm, "(add (mul a 2) 1)", ops[op], "{\"rows\": 5, \"cols\": 7}, {\"rows\": 2, \"cols\": 1}"), &t, &q) != PG_OK) {
            CHECK(false, "%s loads", nm);
            continue;
        }
        task_inst in, ref;
        CHECK(task_inst_make(t, 0, 0, 3, &in, &q) == PG_OK && task_reference_run(&in, &ref, &q) == PG_OK, "%s runs", nm);
        const float *a = in.args[0].data, *o = ref.args[1].data;
        bool ok = true;
        for (int r = 0; r < 5; r++) {
            double acc = op == 2 ? -1e30 : op == 3 ? 1e30 : 0;
            for (int c = 0; c < 7; c++) {
                double f = 2.0 * a[r * 7 + c] + 1;
                acc = op <= 1 ? acc + f : op == 2 ? fmax(acc, f) : fmin(acc, f);
            }
            if (op == 1) acc /= 7;
            ok &= fabs(o[r] - (float)acc) <= 1e-6 * fabs(acc) + 1e-7;
        }
        CHECK(ok, "%s: out[r] = %s_c (2 a + 1)", nm, ops[op]);
        task_inst_free(&in);
        task_inst_free(&ref);
        task_free(t);
    }
    /* bad specs: an error naming the cause, never a crash */
    struct { const char *expr, *reduce, *sizes, *want; } bad[] = {
        {"(add a 1)", "median", "{\"rows\": 2, \"cols\": 3}, {\"rows\": 1, \"cols\": 1}", "$.reduce"},
        {"(add a", "sum", "{\"rows\": 2, \"cols\": 3}, {\"rows\": 1, \"cols\": 1}", "$.expr"},
        {"(add a b)", "sum", "{\"rows\": 2, \"cols\": 3}, {\"rows\": 1, \"cols\": 1}", "uses 'b'"},
        {"(add a 1)", "sum", "{\"n\": 2, \"cols\": 3}, {\"n\": 1, \"cols\": 1}", "rows"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        typedef struct { char msg[600]; } one;
        one m = {""};
        pg_diag_sink q = {0};
        task_spec *t = NULL;
        char nm[32];
        snprintf(nm, sizeof nm, "bad%zu", i);
        const char *p = spec(nm, bad[i].expr, bad[i].reduce, bad[i].sizes);
        if (i == 3) {   /* a spec without rows: its params must not name it either */
            char *txt = slurp(p), *fixed = test_replace(txt, "rows*cols", "n*cols");
            char *fixed2 = fixed ? test_replace(fixed, "\"len\": \"rows\"", "\"len\": \"n\"") : NULL;
            char *fixed3 = fixed2 ? test_replace(fixed2, "\"value\": \"rows\"", "\"value\": \"n\"") : NULL;
            char *fixed4 = fixed3 ? test_replace(fixed3, "\"grid\": [\"rows\"]", "\"grid\": [\"n\"]") : NULL;
            FILE *f = fopen(p, "w");
            if (f && fixed4) fputs(fixed4, f);
            if (f) fclose(f);
            free(txt); free(fixed); free(fixed2); free(fixed3); free(fixed4);
        }
        if (task_load(p, &t, &q) != PG_OK) { CHECK(false, "bad spec %zu loads as a spec", i); continue; }
        task_inst in, ref;
        memset(&ref, 0, sizeof ref);
        pg_diag_sink qs = {collect, &m, 0, 0, 0};
        pg_status st = task_inst_make(t, 0, 0, 1, &in, &q);
        if (st == PG_OK) {
            st = task_reference_run(&in, &ref, &qs);
            if (ref.args) task_inst_free(&ref);   /* the copy exists even when the reference fails */
            task_inst_free(&in);
        }
        CHECK(st != PG_OK && strstr(m.msg, bad[i].want), "bad spec %zu: %s (want '%s')", i, m.msg, bad[i].want);
        task_free(t);
    }
}

/* the fused row operations against hand-computed rows of f = 2a */
static void test_rowop_values(void) {
    const char *ops[] = {"center", "submax", "l1norm"};
    for (int op = 0; op < 3; op++) {
        char path[600];
        snprintf(path, sizeof path, "%s/rowop_%s.json", tmpdir, ops[op]);
        FILE *f = fopen(path, "w");
        fprintf(f, "{\"name\": \"ro\", \"kernel\": \"k\", \"expr\": \"(mul a 2)\", \"rowop\": \"%s\","
                   "\"descriptions\": {\"terse\": \"t\", \"detailed\": \"d\", \"card\": \"## c\", \"zh\": \"z\"},"
                   "\"params\": [{\"name\": \"a\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"rows*cols\"},"
                   "{\"name\": \"out\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"rows*cols\"},"
                   "{\"name\": \"rows\", \"type\": \"u32\", \"value\": \"rows\"}, {\"name\": \"cols\", \"type\": \"u32\", \"value\": \"cols\"}],"
                   "\"sizes\": [{\"rows\": 4, \"cols\": 6}, {\"rows\": 1, \"cols\": 1}], \"launch\": {\"block\": [\"256\"], \"grid\": [\"rows\"]},"
                   "\"distributions\": [\"uniform(-1,1)\", \"normal(0,1)\"], \"reference\": {\"kind\": \"c\", \"name\": \"expr_rowop\"}}", ops[op]);
        fclose(f);
        task_spec *t = NULL;
        pg_diag_sink q = {0};
        if (task_load(path, &t, &q) != PG_OK) { CHECK(false, "%s loads", path); continue; }
        task_inst in, ref;
        memset(&in, 0, sizeof in);
        memset(&ref, 0, sizeof ref);
        bool ran = task_inst_make(t, 0, 1, 2, &in, &q) == PG_OK && task_reference_run(&in, &ref, &q) == PG_OK;
        CHECK(ran, "rowop %s runs", ops[op]);
        if (ran) {
            const float *a = in.args[0].data, *o = ref.args[1].data;
            bool ok = true;
            for (int r = 0; r < 4; r++) {
                double st = op == 1 ? -1e30 : 0;
                for (int c = 0; c < 6; c++) {
                    double v = 2.0 * a[r * 6 + c];
                    st = op == 0 ? st + v : op == 1 ? fmax(st, v) : st + fabs(v);
                }
                if (op == 0) st /= 6;
                for (int c = 0; c < 6; c++) {
                    double v = 2.0 * a[r * 6 + c], want = op == 2 ? v / (1 + st) : v - st;
                    ok &= fabs(o[r * 6 + c] - (float)want) <= 1e-6 * fabs(want) + 1e-6;
                }
            }
            CHECK(ok, "rowop %s: every element of every row", ops[op]);
        }
        if (ref.args) task_inst_free(&ref);
        if (in.args) task_inst_free(&in);
        task_free(t);
    }
}

/* The row tasks state f in the function-call text (abs(x)) or, for about half of
 * the styles, the notation people write (|x|); never both in one description. */
static void test_row_notation(void) {
    int plain = 0, human = 0;
    pg_diag_sink q = {0};
    for (int i = 1; i < 300; i += 3) {   /* index % 3 == 1: the row reductions */
        pg_buf j = {0};
        char name[64];
        if (synth_taskonly_task(11, i, &j, name, sizeof name, &q) != PG_OK) { CHECK(false, "task %d", i); continue; }
        json_t *t = json_loads(j.data, 0, NULL), *d = json_object_get(t, "descriptions");
        const char *ex = json_string_value(json_object_get(t, "expr"));
        for (int st = 0; ex && strstr(ex, "(abs ") && st < TASK_NSTYLES; st++) {
            const char *txt = json_string_value(json_object_get(d, task_styles[st]));
            bool p = txt && strstr(txt, "abs(") != NULL, h = txt && strchr(txt, '|') != NULL;
            CHECK(!(p && h), "%s %s: one notation: %s", name, task_styles[st], txt);
            plain += p;
            human += h;
        }
        json_decref(t);
        pg_buf_free(&j);
    }
    printf("  row reductions with abs: %d descriptions with abs(x), %d with |x|\n", plain, human);
    CHECK(plain > 10 && human > 10, "both notations (%d abs(), %d |x|)", plain, human);
}

int main(void) {
    if (!mkdtemp(tmpdir)) return 2;
    test_pool();
    test_row_notation();
    test_rowreduce_values();
    test_rowop_values();
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd)) {}
    return TEST_DONE();
}
