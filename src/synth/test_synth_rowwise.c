/* test_synth_rowwise.c — the row-wise curriculum families
 * (src/synth/family_rowwise*.c) without nvcc or a GPU:
 *
 *  - generators: for 200 seeds each, a kernel name always stands for the
 *    same CUDA text up to parameter names (the nvcc batch compiles one
 *    kernel per name; PTX names parameters by position), no task is a
 *    held-out one (a bench/suite or bench/suite-prose name, or a known
 *    computation + signature + launch), the task.json loads, every description
 *    style is present and the parameter space is wide (distinct identities);
 *    the matrix families gemv, gemm and transpose too;
 *  - references (src/task/refs_rowwise*.c) against hand-computed values on
 *    tiny specs written here.
 * The generic family test (test_synth_family) compiles and checks the PTX.
 * Run from the repository root (bench/suite is read when present). */
#include "common/test.h"
#include "synth/family_internal.h"   /* the per-family generators */
#include "ptxgen/task.h"

#include <dirent.h>
#include <fnmatch.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void diag_print(void *user, const pg_diag *d) {
    (void)user;
    char buf[700];
    pg_diag_format(d, buf, sizeof buf);
    fprintf(stderr, "  %s\n", buf);
}

/* ---- generators -------------------------------------------------------------------- */
static const char *const FAMS[] = {"softmax", "rownorm", "xent", "loss", "reduce_all", "rowreduce", "scan", "compact", "histogram"};
/* The matrix families (src/synth/family_cuda.c) get the same checks: until 2026-12-06 they had 24
 * (gemv), 18 (gemm) and 16 (transpose) tasks, one of them the suite's transpose_f64_tiled. */
static const struct { const char *name; int min_distinct; } MATRIX_FAMS[] = {{"gemv", 80}, {"gemm", 60}, {"transpose", 50}};
enum { NSEEDS = 200 };

static char suite_names[256][260];
static int nsuite;
static void read_suite(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) { printf("SKIPPED: %s not found (run from the repository root)\n", dir); return; }
    for (struct dirent *e; (e = readdir(d)) && nsuite < 256;)
        if (e->d_name[0] != '.') snprintf(suite_names[nsuite++], sizeof suite_names[0], "%s", e->d_name);
    closedir(d);
}

/* Identities (fnmatch patterns) of held-out tasks: the same computation,
 * signature and launch as a bench/suite or bench/suite-prose task, whatever
 * the reduction technique inside (plus a few close variants the generators
 * avoid on purpose).  No seed may draw them. */
static const char *const HELD_OUT[] = {
    "softmax:softmax:f32:b128:*:out:-", "softmax:softmax:f32:b128t:*:out:-", "softmax:log_softmax:f32:b256:*:out:-",
    "softmax:log_softmax:f32:b256t:*:out:-", "softmax:masked_softmax:f32:b256:*:out:keep", "softmax:masked_softmax:f32:b256t:*:out:keep",
    "rownorm:l2norm:f32:w8:-:w:out", "xent:ce:f32:b256:none:3pass", "xent:ce:f32:b256:none:online", "xent:ce:f32:b256t:none:3pass",
    "loss:bce_logits:none:f32:b256:-", "loss:huber:sum:f32:*:-", "reduce_all:absmax:f32:b256*", "reduce_all:dot:f64:b256*",
    "rowreduce:sum:f32:cols_*", "scan:exclusive:s32:block1024_*", "scan:exclusive:s32:blelloch1024*", "histogram:256:u8:*",
    "histogram:64:s32:mask:*",
    "transpose:f64:smem:32:8"};

static bool held_out_id(const char *id) {
    for (size_t k = 0; k < sizeof HELD_OUT / sizeof HELD_OUT[0]; k++)
        if (fnmatch(HELD_OUT[k], id, 0) == 0) return true;
    return false;
}

static bool write_file(const char *path, const char *data) {
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(data, 1, strlen(data), f) == strlen(data);
    return fclose(f) == 0 && ok;
}

static bool word_char(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_'; }

/* The CUDA text with the kernel's parameter names replaced by P0, P1, ...:
 * nvcc names PTX parameters by position, so kernels that differ only in
 * parameter names compile to the same PTX (the batch may share it).
 * Comments are dropped. */
static char *canon(const char *cu) {
    pg_buf out = {0};
    const char *sig = strstr(cu, "__global__ void ");
    const char *open = sig ? strchr(sig, '(') : NULL, *close = open ? strchr(open, ')') : NULL;
    char names[16][48];
    int nn = 0;
    for (const char *p = open; p && p < close && nn < 16;) {
        const char *e = memchr(p + 1, ',', (size_t)(close - p - 1));
        if (!e) e = close;
        const char *q = e;
        while (q > p && !word_char(q[-1])) q--;
        const char *b = q;
        while (b > p && word_char(b[-1])) b--;
        snprintf(names[nn++], sizeof names[0], "%.*s", (int)(q - b), b);
        p = e;
        if (e == close) break;
    }
    for (const char *p = cu; *p;) {
        if (p[0] == '/' && p[1] == '/') {   /* comments may use a parameter name as a word */
            while (*p && *p != '\n') p++;
            continue;
        }
        if (word_char(*p) && (p == cu || !word_char(p[-1]))) {
            const char *e = p;
            while (word_char(*e)) e++;
            int hit = -1;
            for (int k = 0; k < nn && hit < 0 && (p == cu || p[-1] != '.'); k++)   /* not members (threadIdx.x) */
                if ((size_t)(e - p) == strlen(names[k]) && !strncmp(p, names[k], (size_t)(e - p))) hit = k;
            if (hit >= 0) pg_buf_printf(&out, "P%d", hit);
            else pg_buf_putn(&out, p, (size_t)(e - p));
            p = e;
        } else pg_buf_putc(&out, *p++);
    }
    return out.data ? out.data : strdup("");
}

static void check_family(const char *fname, int min_distinct) {
    int f = synth_family_find(fname);
    CHECK(f >= 0, "family %s registered", fname);
    if (f < 0) return;
    typedef struct { char name[96], id[200]; char *cu; } seen_t;
    seen_t *seen = calloc(NSEEDS, sizeof *seen);
    int distinct = 0, clash = 0, leak = 0, bad_load = 0, bad_desc = 0;
    char path[64];
    snprintf(path, sizeof path, "/tmp/ptxgen-rwtest-%d.json", (int)getpid());
    for (int i = 0; i < NSEEDS; i++) {
        synth_family_sample s;
        memset(&s, 0, sizeof s);
        synth_fam_draw(fname, 1000003ull * (uint64_t)i + 17, &s);   /* the generator alone (no nvcc) */
        CHECK(s.task_json.len && s.cu.len, "%s seed %d: generated", fname, i);
        bool dup_id = false;
        char *cn = canon(s.cu.data ? s.cu.data : "");
        for (int k = 0; k < i; k++) {
            if (!strcmp(seen[k].id, s.identity)) dup_id = true;
            if (!strcmp(seen[k].name, s.name) && strcmp(seen[k].cu, cn) && clash++ == 0) fprintf(stderr, "  name clash: %s\n", s.name);
        }
        free(cn);
        distinct += !dup_id;
        for (int k = 0; k < nsuite; k++) leak += !strcmp(suite_names[k], s.name);
        if (held_out_id(s.identity)) {
            if (!leak) fprintf(stderr, "  held-out task drawn: %s (%s)\n", s.name, s.identity);
            leak++;
        }
        snprintf(seen[i].name, sizeof seen[i].name, "%s", s.name);
        snprintf(seen[i].id, sizeof seen[i].id, "%s", s.identity);
        seen[i].cu = canon(s.cu.data ? s.cu.data : "");
        /* the task loads and carries all five description styles */
        task_spec *t = NULL;
        pg_diag_sink q = {0};
        q.fn = diag_print;
        if (!write_file(path, s.task_json.data ? s.task_json.data : "") || task_load(path, &t, &q) != PG_OK) bad_load++;
        else {
            if (!t->desc[TASK_STYLE_PROSE] || strlen(t->desc[TASK_STYLE_PROSE]) < 20 || !t->desc[TASK_STYLE_TERSE] || strlen(t->desc[TASK_STYLE_TERSE]) < 5 || !t->desc[TASK_STYLE_ZH] || strlen(t->desc[TASK_STYLE_ZH]) < 10 ||
                !t->desc[TASK_STYLE_CARD] || !strstr(t->desc[TASK_STYLE_CARD], s.name) || !t->desc[TASK_STYLE_DETAILED] || strlen(t->desc[TASK_STYLE_DETAILED]) < 40)
                bad_desc++;
            if (strcmp(t->name, s.name) || strcmp(t->kernel, s.name) || !strstr(s.cu.data, s.name)) bad_load++;
        }
        task_free(t);
        synth_family_sample_free(&s);
    }
    unlink(path);
    CHECK(clash == 0, "%s: %d kernel names stand for different CUDA texts (up to parameter names)", fname, clash);
    CHECK(leak == 0, "%s: %d tasks are held-out suite tasks (name or computation)", fname, leak);
    CHECK(bad_load == 0, "%s: %d task.json files do not load", fname, bad_load);
    CHECK(bad_desc == 0, "%s: %d tasks lack a description style", fname, bad_desc);
    CHECK(distinct >= min_distinct, "%s: %d distinct identities in %d seeds (want >= %d)", fname, distinct, NSEEDS, min_distinct);
    printf("family %-10s %3d distinct identities in %d seeds\n", fname, distinct, NSEEDS);
    for (int i = 0; i < NSEEDS; i++) free(seen[i].cu);
    free(seen);
}

/* ---- references on hand-written specs ------------------------------------------------- */
typedef struct {
    task_spec *t;
    task_inst in, out;
    char path[64];
} refcase;

/* A spec with the given params, family_params and one size; the instance of
 * that size (inputs to be overwritten by the caller). */
static bool rc_make(refcase *c, const char *ref, const char *params, const char *fparams, const char *size) {
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "/tmp/ptxgen-rwref-%d.json", (int)getpid());
    char *js = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&js, &n);
    fprintf(m, "{\"name\": \"t\", \"kernel\": \"t\", \"descriptions\": {\"terse\": \"t\", \"detailed\": \"t\", \"card\": \"t\", \"zh\": \"t\"},\n"
               "\"family_params\": %s,\n\"params\": %s,\n\"sizes\": [%s, %s],\n"
               "\"launch\": {\"block\": [\"32\"], \"grid\": [\"1\"]}, \"distributions\": [\"uniform(-1,1)\", \"normal(0,1)\"],\n"
               "\"tolerance\": {\"f32\": 1e-5}, \"reference\": {\"kind\": \"c\", \"name\": \"%s\"}, \"cost\": {\"bytes\": \"1\", \"flops\": \"1\"}}\n",
            fparams, params, size, size, ref);
    fclose(m);
    bool ok = write_file(c->path, js);
    free(js);
    pg_diag_sink q = {0};
    q.fn = diag_print;
    ok = ok && task_load(c->path, &c->t, &q) == PG_OK && task_inst_make(c->t, 0, 0, 1, &c->in, &q) == PG_OK;
    CHECK(ok, "spec for %s loads", ref);
    return ok;
}
static bool rc_run(refcase *c) {
    pg_diag_sink q = {0};
    q.fn = diag_print;
    bool ok = task_reference_run(&c->in, &c->out, &q) == PG_OK;
    CHECK(ok, "reference %s runs", c->t->ref.name);
    return ok;
}
static void rc_free(refcase *c) {
    task_inst_free(&c->in);
    task_inst_free(&c->out);
    task_free(c->t);
    unlink(c->path);
}
static void setf(refcase *c, const char *p, const double *v, int n) {
    float *d = task_buf(&c->in, p);
    for (int i = 0; i < n; i++) d[i] = (float)v[i];
}
/* out buffer p (f32) equals want within tol */
static void expect(refcase *c, const char *p, const double *want, int n, double tol, const char *what) {
    int i = -1;
    for (int k = 0; k < c->t->nparams; k++)
        if (!strcmp(c->t->params[k].name, p)) i = k;
    CHECK(i >= 0, "%s: param %s", what, p);
    if (i < 0) return;
    const float *got = c->out.args[i].data;
    int bad = -1;
    for (int k = 0; k < n && bad < 0; k++)
        if (!(fabs(got[k] - want[k]) <= tol * (1 + fabs(want[k])))) bad = k;
    CHECK(bad < 0, "%s: %s[%d] = %.7g, want %.7g", what, p, bad, bad >= 0 ? got[bad] : 0.0, bad >= 0 ? want[bad] : 0.0);
}

static const char *SM_PARAMS = "[{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"rows*cols\"},"
                               " {\"name\": \"y\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"rows*cols\"},"
                               " {\"name\": \"mask\", \"type\": \"u8*\", \"role\": \"in\", \"len\": \"rows*cols\"},"
                               " {\"name\": \"rows\", \"type\": \"u32\", \"value\": \"rows\"}, {\"name\": \"cols\", \"type\": \"u32\", \"value\": \"cols\"}]";

static void test_softmax_refs(void) {
    double x[6] = {1, 2, 3, -1, 0, 5};
    double e1 = exp(1), e2 = exp(2), e3 = exp(3), s = e1 + e2 + e3;
    refcase c;
    if (rc_make(&c, "fam_softmax", SM_PARAMS, "{\"x\": \"x\", \"y\": \"y\", \"mask\": \"none\"}", "{\"rows\": 2, \"cols\": 3}")) {
        setf(&c, "x", x, 6);
        double s2 = exp(-1) + 1 + exp(5);
        double want[6] = {e1 / s, e2 / s, e3 / s, exp(-1) / s2, 1 / s2, exp(5) / s2};
        if (rc_run(&c)) expect(&c, "y", want, 6, 1e-6, "softmax");
    }
    rc_free(&c);
    if (rc_make(&c, "fam_softmax", SM_PARAMS, "{\"x\": \"x\", \"y\": \"y\", \"mask\": \"none\", \"log\": true}", "{\"rows\": 1, \"cols\": 3}")) {
        setf(&c, "x", x, 3);
        double want[3] = {1 - log(s), 2 - log(s), 3 - log(s)};
        if (rc_run(&c)) expect(&c, "y", want, 3, 1e-6, "log-softmax");
    }
    rc_free(&c);
    /* keep-mask: row 0 keeps columns 0 and 2, row 1 keeps nothing (all zeros) */
    if (rc_make(&c, "fam_softmax", SM_PARAMS, "{\"x\": \"x\", \"y\": \"y\", \"mask\": \"keep\"}", "{\"rows\": 2, \"cols\": 3}")) {
        setf(&c, "x", x, 6);
        unsigned char *mk = task_buf(&c.in, "mask");
        unsigned char mv[6] = {1, 0, 7, 0, 0, 0};
        memcpy(mk, mv, 6);
        double want[6] = {e1 / (e1 + e3), 0, e3 / (e1 + e3), 0, 0, 0};
        if (rc_run(&c)) expect(&c, "y", want, 6, 1e-6, "masked softmax (keep)");
    }
    rc_free(&c);
    /* drop-mask: nonzero masks out */
    if (rc_make(&c, "fam_softmax", SM_PARAMS, "{\"x\": \"x\", \"y\": \"y\", \"mask\": \"drop\"}", "{\"rows\": 1, \"cols\": 3}")) {
        setf(&c, "x", x, 3);
        unsigned char *mk = task_buf(&c.in, "mask");
        mk[0] = 0; mk[1] = 1; mk[2] = 0;
        double want[3] = {e1 / (e1 + e3), 0, e3 / (e1 + e3)};
        if (rc_run(&c)) expect(&c, "y", want, 3, 1e-6, "masked softmax (drop)");
    }
    rc_free(&c);
    /* causal: row 0 keeps column 0 only, row 1 columns 0..1 */
    if (rc_make(&c, "fam_softmax", SM_PARAMS, "{\"x\": \"x\", \"y\": \"y\", \"mask\": \"causal\"}", "{\"rows\": 2, \"cols\": 3}")) {
        setf(&c, "x", x, 6);
        double want[6] = {1, 0, 0, exp(-1) / (exp(-1) + 1), 1 / (exp(-1) + 1), 0};
        if (rc_run(&c)) expect(&c, "y", want, 6, 1e-6, "causal softmax");
    }
    rc_free(&c);
}

static const char *RN_PARAMS = "[{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"rows*cols\"},"
                               " {\"name\": \"g\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"cols\"},"
                               " {\"name\": \"b\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"cols\"},"
                               " {\"name\": \"y\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"rows*cols\"},"
                               " {\"name\": \"mu\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"rows\"},"
                               " {\"name\": \"rs\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"rows\"},"
                               " {\"name\": \"eps\", \"type\": \"f32\", \"value\": \"0.25\"},"
                               " {\"name\": \"rows\", \"type\": \"u32\", \"value\": \"rows\"}, {\"name\": \"cols\", \"type\": \"u32\", \"value\": \"cols\"}]";

static void test_rownorm_refs(void) {
    double x[4] = {1, 3, 3, 4}, g[2] = {2, -1}, b[2] = {0.5, 1};
    refcase c;
    /* layernorm row [1,3]: mean 2, var 1, rstd 1/sqrt(1.25); * g + b; row [3,4]: mean 3.5, var 0.25 */
    if (rc_make(&c, "fam_rownorm", RN_PARAMS,
                "{\"op\": \"layernorm\", \"x\": \"x\", \"y\": \"y\", \"eps\": \"eps\", \"affine\": 2, \"weight\": \"g\", \"bias\": \"b\", \"mean\": \"mu\", \"rstd\": \"rs\"}",
                "{\"rows\": 2, \"cols\": 2}")) {
        setf(&c, "x", x, 4);
        setf(&c, "g", g, 2);
        setf(&c, "b", b, 2);
        double r0 = 1 / sqrt(1.25), r1 = 1 / sqrt(0.5);
        double want[4] = {-r0 * 2 + 0.5, r0 * -1 + 1, -0.5 * r1 * 2 + 0.5, 0.5 * r1 * -1 + 1}, mu[2] = {2, 3.5}, rs[2] = {r0, r1};
        if (rc_run(&c)) {
            expect(&c, "y", want, 4, 1e-6, "layernorm affine");
            expect(&c, "mu", mu, 2, 1e-6, "layernorm mean");
            expect(&c, "rs", rs, 2, 1e-6, "layernorm rstd");
        }
    }
    rc_free(&c);
    /* rmsnorm (1 + w): row [1,3]: mean square 5, + 0.25 -> 1/sqrt(5.25) */
    if (rc_make(&c, "fam_rownorm", RN_PARAMS, "{\"op\": \"rmsnorm\", \"x\": \"x\", \"y\": \"y\", \"eps\": \"eps\", \"affine\": 2, \"weight\": \"g\"}",
                "{\"rows\": 1, \"cols\": 2}")) {
        setf(&c, "x", x, 2);
        setf(&c, "g", g, 2);
        double r = 1 / sqrt(5.25), want[2] = {1 * r * 3, 3 * r * 0};
        if (rc_run(&c)) expect(&c, "y", want, 2, 1e-6, "rmsnorm (1 + w)");
    }
    rc_free(&c);
    /* l2: row [3,4] -> [0.6, 0.8]; row [0.1, 0] with eps 0.25 -> divided by 0.25 (the clamp) */
    if (rc_make(&c, "fam_rownorm", RN_PARAMS, "{\"op\": \"l2norm\", \"x\": \"x\", \"y\": \"y\", \"eps\": \"eps\"}", "{\"rows\": 2, \"cols\": 2}")) {
        double xv[4] = {3, 4, 0.1, 0};
        setf(&c, "x", xv, 4);
        double want[4] = {0.6, 0.8, 0.4, 0};
        if (rc_run(&c)) expect(&c, "y", want, 4, 1e-6, "l2 normalize (clamped eps)");
    }
    rc_free(&c);
    if (rc_make(&c, "fam_rownorm", RN_PARAMS, "{\"op\": \"l2norm\", \"x\": \"x\", \"y\": \"y\", \"eps\": \"eps\", \"l2add\": true}", "{\"rows\": 1, \"cols\": 2}")) {
        double xv[2] = {3, 4};
        setf(&c, "x", xv, 2);
        double want[2] = {3 / sqrt(25.25), 4 / sqrt(25.25)};
        if (rc_run(&c)) expect(&c, "y", want, 2, 1e-6, "l2 normalize (eps added)");
    }
    rc_free(&c);
    /* a bad spec is refused with a diagnostic, not a crash */
    if (rc_make(&c, "fam_rownorm", RN_PARAMS, "{\"op\": \"batchnorm\", \"x\": \"x\", \"y\": \"y\"}", "{\"rows\": 1, \"cols\": 2}")) {
        pg_diag_sink q = {0};
        CHECK(task_reference_run(&c.in, &c.out, &q) != PG_OK && q.nerrors >= 1, "unknown rownorm op is refused");
    }
    rc_free(&c);
}


static void test_loss_refs(void) {
    refcase c;
    /* cross-entropy, mean with label smoothing 0.1: row [1,2,3] label 2, row [0,0,0] label 0 */
    const char *xp = "[{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"rows*cols\"},"
                     " {\"name\": \"lab\", \"type\": \"s32*\", \"role\": \"in\", \"len\": \"rows\"},"
                     " {\"name\": \"loss\", \"type\": \"f32*\", \"role\": \"inout\", \"len\": \"1\"},"
                     " {\"name\": \"ls\", \"type\": \"f32\", \"value\": \"0.125\"},"
                     " {\"name\": \"rows\", \"type\": \"u32\", \"value\": \"rows\"}, {\"name\": \"cols\", \"type\": \"u32\", \"value\": \"cols\"}]";
    if (rc_make(&c, "fam_xent", xp, "{\"op\": \"ce\", \"x\": \"x\", \"labels\": \"lab\", \"loss\": \"loss\", \"reduction\": \"mean\", \"smoothing\": \"ls\"}",
                "{\"rows\": 2, \"cols\": 3}")) {
        double x[6] = {1, 2, 3, 0, 0, 0}, l0 = 0.5;
        setf(&c, "x", x, 6);
        setf(&c, "loss", &l0, 1);
        int *lab = task_buf(&c.in, "lab");
        lab[0] = 2;
        lab[1] = 0;
        double lse0 = log(exp(1) + exp(2) + exp(3)), lse1 = log(3.0);
        double r0 = lse0 - 0.875 * 3 - 0.125 / 3 * 6, r1 = lse1;
        double want = 0.5 + (r0 + r1) / 2;
        if (rc_run(&c)) expect(&c, "loss", &want, 1, 1e-6, "cross-entropy mean with smoothing");
    }
    rc_free(&c);
    /* nll, none, ignored row */
    const char *np = "[{\"name\": \"lp\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"rows*cols\"},"
                     " {\"name\": \"lab\", \"type\": \"s32*\", \"role\": \"in\", \"len\": \"rows\"},"
                     " {\"name\": \"loss\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"rows\"},"
                     " {\"name\": \"rows\", \"type\": \"u32\", \"value\": \"rows\"}, {\"name\": \"cols\", \"type\": \"u32\", \"value\": \"cols\"}]";
    if (rc_make(&c, "fam_xent", np, "{\"op\": \"nll\", \"x\": \"lp\", \"labels\": \"lab\", \"loss\": \"loss\", \"reduction\": \"none\", \"ignore_negative\": true}",
                "{\"rows\": 2, \"cols\": 2}")) {
        double x[4] = {-0.5, -2, -1, -3};
        setf(&c, "lp", x, 4);
        int *lab = task_buf(&c.in, "lab");
        lab[0] = 1;
        lab[1] = -1;
        double want[2] = {2, 0};
        if (rc_run(&c)) expect(&c, "loss", want, 2, 1e-6, "nll with an ignored row");
    }
    rc_free(&c);
    /* elementwise losses: Huber (delta 1) sum and BCE-with-logits none */
    const char *lp = "[{\"name\": \"p\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\"}, {\"name\": \"t\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\"},"
                     " {\"name\": \"w\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\"}, {\"name\": \"o\", \"type\": \"f32*\", \"role\": \"inout\", \"len\": \"n\"},"
                     " {\"name\": \"delta\", \"type\": \"f32\", \"value\": \"1.0\"}, {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]";
    if (rc_make(&c, "fam_loss", lp, "{\"op\": \"huber\", \"reduction\": \"sum\", \"pred\": \"p\", \"target\": \"t\", \"out\": \"o\", \"weight\": \"w\", \"scalar\": \"delta\"}",
                "{\"n\": 3}")) {
        double p[3] = {0.5, 3, -1}, t[3] = {0, 0, -1}, w[3] = {2, 1, 1}, o[3] = {1, 0, 0};
        setf(&c, "p", p, 3);
        setf(&c, "t", t, 3);
        setf(&c, "w", w, 3);
        setf(&c, "o", o, 3);
        double want = 1 + 2 * 0.125 + (3 - 0.5);
        if (rc_run(&c)) expect(&c, "o", &want, 1, 1e-6, "weighted Huber sum");
    }
    rc_free(&c);
    if (rc_make(&c, "fam_loss", lp, "{\"op\": \"bce_logits\", \"reduction\": \"none\", \"pred\": \"p\", \"target\": \"t\", \"out\": \"o\", \"weight\": \"\", \"scalar\": \"\"}",
                "{\"n\": 2}")) {
        double p[2] = {0, -2}, t[2] = {1, 0.25};
        setf(&c, "p", p, 2);
        setf(&c, "t", t, 2);
        double want[2] = {log(2.0), 0 + 0.5 + log1p(exp(-2.0))};
        if (rc_run(&c)) expect(&c, "o", want, 2, 1e-6, "BCE with logits");
    }
    rc_free(&c);
}

static void test_reduce_refs(void) {
    refcase c;
    const char *rp = "[{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\"}, {\"name\": \"y\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\"},"
                     " {\"name\": \"out\", \"type\": \"f32*\", \"role\": \"inout\", \"len\": \"1\"}, {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]";
    double x[4] = {1, -4, 2.5, 3}, y[4] = {2, 1, 0, -1};
    if (rc_make(&c, "fam_reduce_all", rp, "{\"op\": \"dot\", \"x\": \"x\", \"y\": \"y\", \"out\": \"out\"}", "{\"n\": 4}")) {
        double o = 10, want = 10 + 2 - 4 + 0 - 3;
        setf(&c, "x", x, 4);
        setf(&c, "y", y, 4);
        setf(&c, "out", &o, 1);
        if (rc_run(&c)) expect(&c, "out", &want, 1, 1e-6, "dot added to out");
    }
    rc_free(&c);
    if (rc_make(&c, "fam_reduce_all", rp, "{\"op\": \"absmax\", \"x\": \"x\", \"out\": \"out\"}", "{\"n\": 4}")) {
        double o = 3.5, want = 4;
        setf(&c, "x", x, 4);
        setf(&c, "out", &o, 1);
        if (rc_run(&c)) expect(&c, "out", &want, 1, 0, "absmax combined with out");
    }
    rc_free(&c);
    /* argmax per row with ties (first index) and per column */
    const char *ap = "[{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"rows*cols\"}, {\"name\": \"v\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"rows\"},"
                     " {\"name\": \"i\", \"type\": \"s32*\", \"role\": \"out\", \"len\": \"rows\"},"
                     " {\"name\": \"rows\", \"type\": \"u32\", \"value\": \"rows\"}, {\"name\": \"cols\", \"type\": \"u32\", \"value\": \"cols\"}]";
    double m[6] = {1, 3, 3, -2, -1, -2};
    if (rc_make(&c, "fam_rowreduce", ap, "{\"op\": \"argmax\", \"axis\": \"cols\", \"x\": \"x\", \"out\": \"v\", \"idx\": \"i\"}", "{\"rows\": 2, \"cols\": 3}")) {
        setf(&c, "x", m, 6);
        double wv[2] = {3, -1};
        if (rc_run(&c)) {
            expect(&c, "v", wv, 2, 0, "row max value");
            const int *gi = c.out.args[2].data;
            CHECK(gi[0] == 1 && gi[1] == 1, "argmax takes the first index on ties: %d %d", gi[0], gi[1]);
        }
    }
    rc_free(&c);
    const char *ap2 = "[{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"rows*cols\"},"
                      " {\"name\": \"i\", \"type\": \"s32*\", \"role\": \"out\", \"len\": \"cols\"},"
                      " {\"name\": \"rows\", \"type\": \"u32\", \"value\": \"rows\"}, {\"name\": \"cols\", \"type\": \"u32\", \"value\": \"cols\"}]";
    if (rc_make(&c, "fam_rowreduce", ap2, "{\"op\": \"argmin\", \"axis\": \"rows\", \"x\": \"x\", \"out\": \"\", \"idx\": \"i\"}", "{\"rows\": 2, \"cols\": 3}")) {
        double m2[6] = {1, 3, -2, -2, 3, -2};
        setf(&c, "x", m2, 6);
        if (rc_run(&c)) {
            const int *gi = c.out.args[1].data;
            CHECK(gi[0] == 1 && gi[1] == 0 && gi[2] == 0, "column argmin (first row on ties): %d %d %d", gi[0], gi[1], gi[2]);
        }
    }
    rc_free(&c);
    if (rc_make(&c, "fam_rowreduce", ap, "{\"op\": \"norm2\", \"axis\": \"cols\", \"x\": \"x\", \"out\": \"v\", \"idx\": \"\"}", "{\"rows\": 2, \"cols\": 3}")) {
        setf(&c, "x", m, 6);
        double wv[2] = {sqrt(19.0), 3};
        if (rc_run(&c)) expect(&c, "v", wv, 2, 1e-6, "row L2 norm");
    }
    rc_free(&c);
}

static void test_scan_refs(void) {
    refcase c;
    const char *sp = "[{\"name\": \"x\", \"type\": \"s32*\", \"role\": \"in\", \"len\": \"n\"}, {\"name\": \"y\", \"type\": \"s32*\", \"role\": \"out\", \"len\": \"n\"},"
                     " {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]";
    if (rc_make(&c, "fam_scan", sp, "{\"exclusive\": true, \"level\": \"block\", \"segment\": 3, \"x\": \"x\", \"y\": \"y\"}", "{\"n\": 5}")) {
        int *x = task_buf(&c.in, "x");
        int xv[5] = {1, 2, 3, 2147483647, 1};
        memcpy(x, xv, sizeof xv);
        if (rc_run(&c)) {
            const int *y = c.out.args[1].data;
            CHECK(y[0] == 0 && y[1] == 1 && y[2] == 3 && y[3] == 0 && y[4] == 2147483647, "exclusive scan restarting every 3: %d %d %d %d %d", y[0], y[1], y[2],
                  y[3], y[4]);
        }
    }
    rc_free(&c);
    const char *fp2 = "[{\"name\": \"x\", \"type\": \"u32*\", \"role\": \"in\", \"len\": \"rows*cols\"}, {\"name\": \"hd\", \"type\": \"u8*\", \"role\": \"in\", \"len\": \"rows*cols\"},"
                      " {\"name\": \"y\", \"type\": \"u32*\", \"role\": \"out\", \"len\": \"rows*cols\"},"
                      " {\"name\": \"rows\", \"type\": \"u32\", \"value\": \"rows\"}, {\"name\": \"cols\", \"type\": \"u32\", \"value\": \"cols\"}]";
    if (rc_make(&c, "fam_scan", fp2, "{\"exclusive\": false, \"level\": \"row\", \"x\": \"x\", \"y\": \"y\", \"flags\": \"hd\"}", "{\"rows\": 2, \"cols\": 4}")) {
        unsigned *x = task_buf(&c.in, "x");
        unsigned char *hd = task_buf(&c.in, "hd");
        for (int i = 0; i < 8; i++) { x[i] = (unsigned)i + 1; hd[i] = i == 2 || i == 7; }
        x[1] = 4294967295u;   /* wraps */
        if (rc_run(&c)) {
            const unsigned *y = c.out.args[2].data;
            unsigned want[8] = {1, 0, 3, 7, 5, 11, 18, 8};
            CHECK(!memcmp(y, want, sizeof want), "segmented row scan: %u %u %u %u | %u %u %u %u", y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7]);
        }
    }
    rc_free(&c);
    const char *cp = "[{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\"}, {\"name\": \"o\", \"type\": \"s32*\", \"role\": \"out\", \"len\": \"n\"},"
                     " {\"name\": \"cnt\", \"type\": \"u32*\", \"role\": \"out\", \"len\": \"cdiv(n,4)\"}, {\"name\": \"thr\", \"type\": \"f32\", \"value\": \"0.5\"},"
                     " {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]";
    if (rc_make(&c, "fam_compact", cp, "{\"pred\": \"absgt\", \"tile\": 4, \"x\": \"x\", \"out\": \"o\", \"counts\": \"cnt\", \"indices\": true}", "{\"n\": 6}")) {
        double x[6] = {0.1, -0.9, 0.7, 0.2, 0.3, 2};
        setf(&c, "x", x, 6);
        if (rc_run(&c)) {
            const int *o = c.out.args[1].data;
            const unsigned *cn = c.out.args[2].data;
            CHECK(o[0] == 1 && o[1] == 2 && o[2] == -1 && o[3] == -1 && o[4] == 5 && o[5] == -1 && cn[0] == 2 && cn[1] == 1, "compaction of indices per tile");
        }
    }
    rc_free(&c);
    const char *hp = "[{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\"}, {\"name\": \"h\", \"type\": \"u32*\", \"role\": \"inout\", \"len\": \"4\"},"
                     " {\"name\": \"lo\", \"type\": \"f32\", \"value\": \"-1.0\"}, {\"name\": \"hi\", \"type\": \"f32\", \"value\": \"1.0\"},"
                     " {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]";
    double hx[6] = {-1, -0.5, 0.49, 0.5, 0.999, 1};
    if (rc_make(&c, "fam_histogram", hp, "{\"bins\": 4, \"map\": \"range\", \"x\": \"x\", \"hist\": \"h\"}", "{\"n\": 6}")) {
        setf(&c, "x", hx, 6);
        unsigned *h = task_buf(&c.in, "h");
        for (int i = 0; i < 4; i++) h[i] = 7;
        if (rc_run(&c)) {
            const unsigned *g = c.out.args[1].data;
            CHECK(g[0] == 8 && g[1] == 8 && g[2] == 8 && g[3] == 9, "range histogram (1 dropped): %u %u %u %u", g[0], g[1], g[2], g[3]);
        }
    }
    rc_free(&c);
    if (rc_make(&c, "fam_histogram", hp, "{\"bins\": 4, \"map\": \"clamp\", \"x\": \"x\", \"hist\": \"h\"}", "{\"n\": 6}")) {
        double cx[6] = {-7, -0.5, 0.49, 0.5, 0.999, 1};
        setf(&c, "x", cx, 6);
        unsigned *h = task_buf(&c.in, "h");
        for (int i = 0; i < 4; i++) h[i] = 0;
        if (rc_run(&c)) {
            const unsigned *g = c.out.args[1].data;
            CHECK(g[0] == 1 && g[1] == 1 && g[2] == 1 && g[3] == 3, "clamped histogram: %u %u %u %u", g[0], g[1], g[2], g[3]);
        }
    }
    rc_free(&c);
}

int main(void) {
    read_suite("bench/suite");
    read_suite("bench/suite-prose");
    for (size_t i = 0; i < sizeof FAMS / sizeof FAMS[0]; i++) check_family(FAMS[i], 100);
    for (size_t i = 0; i < sizeof MATRIX_FAMS / sizeof MATRIX_FAMS[0]; i++) check_family(MATRIX_FAMS[i].name, MATRIX_FAMS[i].min_distinct);
    test_softmax_refs();
    test_rownorm_refs();
    test_loss_refs();
    test_reduce_refs();
    test_scan_refs();
    return TEST_DONE();
}
