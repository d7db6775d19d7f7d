/* test_synth_sparse.c — the sparse group's families (src/synth/family_sparse*.c)
 * beyond the generic test_synth_family: for many seeds each sample's task
 * loads, its reference runs on every size small enough for the CPU with
 * finite outputs and inputs left alone, its PTX validates and passes ptxas;
 * and each reference (src/task/refs_sparse*.c) matches hand-computed values
 * on tiny problems, with the spec's sizes replaced by the tiny one; csrrow and
 * automaton also draw every operation / rule / axis in seeds 1..2000 (counts
 * printed).
 *
 * SPARSE_N=K seeds per family (default 24); SPARSE_DUMP=DIR also writes each
 * sample's task folder (task.json, kernel.ptx, reference.cu) under DIR, the
 * input of tests/gpu/families.sh. */
#include "ptx/test_util.h"
#include "ptxgen/ptx.h"
#include "synth/family_internal.h"   /* the per-family generators */
#include "ptxgen/task.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the group's rows: name and generator (the generator alone makes the task
 * without nvcc, which is all a hand case needs) */
static const struct { const char *name; pg_status (*gen)(uint64_t, synth_family_sample *); } FAMS[] = {
#define SYNTH_FAMILY(name, fn, ref, nvcc) {name, fn},
#include "synth/families_sparse.def"
#undef SYNTH_FAMILY
};
enum { NFAMS = (int)(sizeof FAMS / sizeof FAMS[0]) };

static void diag_print(void *user, const pg_diag *d) {
    (void)user;
    char buf[700];
    pg_diag_format(d, buf, sizeof buf);
    fprintf(stderr, "  %s\n", buf);
}

static bool write_text(const char *path, const char *data) {
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(data, 1, strlen(data), f) == strlen(data);
    return fclose(f) == 0 && ok;
}

static bool have_ptxas;
/* ptxas -arch=sm_90 takes the text; its log on stderr when it does not */
static bool ptxas_ok(const char *ptx) {
    char log[601];
    bool ok = test_ptxas_text(ptx, strlen(ptx), "sm_90", false, log, sizeof log) == 1;
    if (!ok) fprintf(stderr, "%s\n", log);
    return ok;
}

static double elem(const task_param *p, const task_arg *a, size_t i) {
    switch (p->dtype) {
    case TASK_T_F32: return ((const float *)a->data)[i];
    case TASK_T_F64: return ((const double *)a->data)[i];
    case TASK_T_S32: return ((const int32_t *)a->data)[i];
    case TASK_T_U32: return ((const uint32_t *)a->data)[i];
    case TASK_T_U8: return ((const uint8_t *)a->data)[i];
    default: return 0;
    }
}
static void set_elem(const task_param *p, task_arg *a, size_t i, double v) {
    switch (p->dtype) {
    case TASK_T_F32: ((float *)a->data)[i] = (float)v; break;
    case TASK_T_F64: ((double *)a->data)[i] = v; break;
    case TASK_T_S32: ((int32_t *)a->data)[i] = (int32_t)v; break;
    case TASK_T_U32: ((uint32_t *)a->data)[i] = (uint32_t)v; break;
    case TASK_T_U8: ((uint8_t *)a->data)[i] = (uint8_t)v; break;
    default: break;
    }
}

/* The reference on every size whose flops are below a CPU budget, both
 * distributions: outputs finite, inputs unchanged. */
static void check_reference(const char *path, const char *name) {
    task_spec *t = NULL;
    pg_diag_sink q = {0};
    q.fn = diag_print;
    if (task_load(path, &t, &q) != PG_OK) { CHECK(false, "%s: task_load", name); return; }
    for (int si = 0; si < t->nsizes; si++) {
        int64_t fl = 0;
        expr_size_eval(t->cost_flops, &t->sizes[si].env, &fl, NULL, 0);
        if (t->sizes[si].time_it || fl > 30000000) continue;   /* the GPU harness runs those; the CPU test keeps to small ones */
        for (int di = 0; di < 2; di++) {
            task_inst in, ref;
            memset(&ref, 0, sizeof ref);
            if (task_inst_make(t, si, di, 11, &in, &q) != PG_OK) { CHECK(false, "%s: inst size %d", name, si); continue; }
            pg_status st = task_reference_run(&in, &ref, &q);
            CHECK(st == PG_OK, "%s: reference failed (size %d dist %d)", name, si, di);
            if (st == PG_OK) {
                int bad = -1;
                CHECK(task_inputs_unchanged(t, &in, &ref, &bad), "%s: reference wrote input %d", name, bad);
                for (int p = 0; p < t->nparams; p++) {
                    if (!t->params[p].is_pointer || t->params[p].role == TASK_ROLE_IN) continue;
                    size_t nonfinite = 0;
                    for (size_t i = 0; i < ref.args[p].count; i++) nonfinite += !isfinite(elem(&t->params[p], &ref.args[p], i));
                    CHECK(nonfinite == 0 || !task_dtype_is_float(t->params[p].dtype), "%s: %zu non-finite outputs in %s (size %d dist %d)", name,
                          nonfinite, t->params[p].name, si, di);
                }
            }
            task_inst_free(&in);
            task_inst_free(&ref);
        }
    }
    task_free(t);
}

/* ---- hand cases ----------------------------------------------------------------------- */
/* The first sample of `fam` (seeds 1..4000) whose family_params match every
 * "key=value" of want (a NULL-terminated list; values compare as text). */
static json_t *find_sample(const char *fam, const char *const *want) {
    int f = -1;
    for (int k = 0; k < NFAMS; k++)
        if (!strcmp(FAMS[k].name, fam)) f = k;
    if (f < 0) return NULL;
    for (uint64_t seed = 1; seed < 4000; seed++) {
        synth_family_sample s;
        memset(&s, 0, sizeof s);
        if (FAMS[f].gen(seed, &s) != PG_OK) { synth_family_sample_free(&s); continue; }
        json_t *root = json_loads(s.task_json.data ? s.task_json.data : "", 0, NULL);
        synth_family_sample_free(&s);
        json_t *fp = json_object_get(root, "family_params");
        bool ok = fp != NULL;
        for (int i = 0; ok && want[i]; i++) {
            const char *eq = strchr(want[i], '=');
            char key[64];
            snprintf(key, sizeof key, "%.*s", (int)(eq - want[i]), want[i]);
            json_t *v = json_object_get(fp, key);
            char txt[64] = "";
            if (json_is_string(v)) snprintf(txt, sizeof txt, "%s", json_string_value(v));
            else if (json_is_integer(v)) snprintf(txt, sizeof txt, "%lld", (long long)json_integer_value(v));
            else if (json_is_boolean(v)) snprintf(txt, sizeof txt, "%s", json_is_true(v) ? "true" : "false");
            ok = !strcmp(txt, eq + 1);
        }
        if (ok) return root;
        json_decref(root);
    }
    return NULL;
}

/* Replace the sizes by one tiny size (JSON object text), write, load. */
static task_spec *tiny_spec(json_t *root, const char *size_json, char *path, size_t pathn) {
    json_t *sz = json_loads(size_json, 0, NULL);
    json_t *arr = json_array();
    json_array_append(arr, sz);
    json_array_append_new(arr, sz);   /* task_load wants two sizes */
    json_object_set_new(root, "sizes", arr);
    snprintf(path, pathn, "/tmp/ptxgen-sptest-%d.json", (int)getpid());
    char *text = json_dumps(root, 0);
    write_text(path, text);
    free(text);
    task_spec *t = NULL;
    pg_diag_sink q = {0};
    q.fn = diag_print;
    if (task_load(path, &t, &q) != PG_OK) return NULL;
    return t;
}

static int param_of(const task_spec *t, const char *name) {
    for (int i = 0; i < t->nparams; i++)
        if (!strcmp(t->params[i].name, name)) return i;
    return -1;
}

/* Fill parameter `name` (by fparams key or literal name) with v[0..n). */
static void fill(const task_spec *t, task_inst *in, const char *name, const double *v, size_t n) {
    int p = param_of(t, name);
    CHECK(p >= 0 && in->args[p].count >= n, "fill %s", name);
    if (p < 0) return;
    for (size_t i = 0; i < n && i < in->args[p].count; i++) set_elem(&t->params[p], &in->args[p], i, v[i]);
}

/* Run the reference and compare output `name` to want[0..n). */
static void expect(const char *label, const task_spec *t, task_inst *in, const char *name, const double *want, size_t n, double tol) {
    task_inst ref;
    memset(&ref, 0, sizeof ref);
    pg_diag_sink q = {0};
    q.fn = diag_print;
    pg_status st = task_reference_run(in, &ref, &q);
    CHECK(st == PG_OK, "%s: reference status %d", label, st);
    int p = param_of(t, name);
    if (st == PG_OK && p >= 0) {
        for (size_t i = 0; i < n; i++) {
            double g = elem(&t->params[p], &ref.args[p], i);
            CHECK(fabs(g - want[i]) <= tol * (1 + fabs(want[i])), "%s: %s[%zu] = %.9g, want %.9g", label, name, i, g, want[i]);
        }
    }
    task_inst_free(&ref);
}

static const char *fpname(json_t *root, const char *key, int i) {
    json_t *v = json_object_get(json_object_get(root, "family_params"), key);
    return i < 0 ? json_string_value(v) : json_string_value(json_array_get(v, (size_t)i));
}

/* Start a hand case: the first sample matching want, with sizes replaced by `size`. */
typedef struct { json_t *root; task_spec *t; task_inst in; char path[128]; } hcase;
static bool hc_begin(hcase *h, const char *fam, const char *const *want, const char *size) {
    memset(h, 0, sizeof *h);
    h->root = find_sample(fam, want);
    CHECK(h->root != NULL, "%s: no sample with %s...", fam, want[0]);
    if (!h->root) return false;
    h->t = tiny_spec(h->root, size, h->path, sizeof h->path);
    CHECK(h->t != NULL, "%s: tiny spec loads", fam);
    if (!h->t) return false;
    pg_diag_sink q = {0};
    q.fn = diag_print;
    bool ok = task_inst_make(h->t, 0, 0, 1, &h->in, &q) == PG_OK;
    CHECK(ok, "%s: tiny instance", fam);
    return ok;
}
static void hc_end(hcase *h) {
    if (h->t) task_inst_free(&h->in);
    task_free(h->t);
    json_decref(h->root);
    if (h->path[0]) unlink(h->path);
}

static void hand_spmv(void) {
    /* A = [[1 0 2], [0 3 0]] (rows 2, cols 3), x = [1 10 100]: A x = [201 30] */
    const double x[] = {1, 10, 100};
    {
        hcase h;
        if (hc_begin(&h, "spmv", (const char *[]){"format=csr", "op=plain", NULL}, "{\"rows\": 2, \"cols\": 3, \"nnz\": 3}")) {
            const double rp[] = {0, 2, 3}, ci[] = {0, 2, 1}, va[] = {1, 2, 3}, want[] = {201, 30};
            fill(h.t, &h.in, fpname(h.root, "names", 0), rp, 3);
            fill(h.t, &h.in, fpname(h.root, "names", 1), ci, 3);
            fill(h.t, &h.in, fpname(h.root, "names", 2), va, 3);
            fill(h.t, &h.in, fpname(h.root, "x", -1), x, 3);
            expect("spmv csr", h.t, &h.in, fpname(h.root, "y", -1), want, 2, 1e-12);
        }
        hc_end(&h);
    }
    {   /* y = alpha*A x + beta*y with y = [1 2] */
        hcase h;
        if (hc_begin(&h, "spmv", (const char *[]){"format=csr", "op=axpby", NULL}, "{\"rows\": 2, \"cols\": 3, \"nnz\": 3}")) {
            const double rp[] = {0, 2, 3}, ci[] = {0, 2, 1}, va[] = {1, 2, 3}, y0[] = {1, 2};
            fill(h.t, &h.in, fpname(h.root, "names", 0), rp, 3);
            fill(h.t, &h.in, fpname(h.root, "names", 1), ci, 3);
            fill(h.t, &h.in, fpname(h.root, "names", 2), va, 3);
            fill(h.t, &h.in, fpname(h.root, "x", -1), x, 3);
            fill(h.t, &h.in, fpname(h.root, "y", -1), y0, 2);
            double a = task_scalar_f(&h.in, "alpha"), b = task_scalar_f(&h.in, "beta");
            const double want[] = {a * 201 + b * 1, a * 30 + b * 2};
            expect("spmv csr axpby", h.t, &h.in, fpname(h.root, "y", -1), want, 2, 1e-6);
        }
        hc_end(&h);
    }
    /* ELL, width 2: row 0 = {(0,1), (2,2)}, row 1 = {(1,3), padding} */
    for (int slot = 0; slot < 2; slot++)
        for (int neg = 0; neg < 2; neg++) {
            hcase h;
            const char *want_fp[] = {"format=ell", "op=plain", slot ? "layout=slot-major" : "layout=row-major", neg ? "padding=neg1" : "padding=zero", NULL};
            if (!hc_begin(&h, "spmv", want_fp, "{\"rows\": 2, \"cols\": 3, \"K\": 2, \"width\": 2, \"slots\": 2, \"max_nnz\": 2}")) { hc_end(&h); continue; }
            /* entry (row r, slot k) */
            double va[4], ci[4];
            const double rv[2][2] = {{1, 2}, {3, 0}}, rc[2][2] = {{0, 2}, {1, neg ? -1 : 2}};
            for (int rr = 0; rr < 2; rr++)
                for (int k = 0; k < 2; k++) {
                    int e = slot ? k * 2 + rr : rr * 2 + k;
                    va[e] = rv[rr][k];
                    ci[e] = rc[rr][k];
                }
            if (neg) va[slot ? 3 : 3] = 1e30;   /* a padding slot's value must be ignored */
            fill(h.t, &h.in, fpname(h.root, "names", 0), va, 4);
            fill(h.t, &h.in, fpname(h.root, "names", 1), ci, 4);
            fill(h.t, &h.in, fpname(h.root, "x", -1), x, 3);
            const double want[] = {201, 30};
            expect(slot ? "spmv ell slot-major" : "spmv ell row-major", h.t, &h.in, fpname(h.root, "y", -1), want, 2, 1e-12);
            hc_end(&h);
        }
    {   /* COO y += A x, entries unordered with a repeated row; y = [1 2] */
        hcase h;
        if (hc_begin(&h, "spmv", (const char *[]){"format=coo", "op=plain", NULL}, "{\"rows\": 2, \"cols\": 3, \"nnz\": 3}")) {
            const double ri[] = {1, 0, 0}, ci[] = {1, 2, 0}, va[] = {3, 2, 1}, y0[] = {1, 2}, want[] = {202, 32};
            fill(h.t, &h.in, fpname(h.root, "names", 0), ri, 3);
            fill(h.t, &h.in, fpname(h.root, "names", 1), ci, 3);
            fill(h.t, &h.in, fpname(h.root, "names", 2), va, 3);
            fill(h.t, &h.in, fpname(h.root, "x", -1), x, 3);
            fill(h.t, &h.in, fpname(h.root, "y", -1), y0, 2);
            expect("spmv coo", h.t, &h.in, fpname(h.root, "y", -1), want, 2, 1e-12);
        }
        hc_end(&h);
    }
    {   /* a column index out of range is reported, not followed */
        hcase h;
        if (hc_begin(&h, "spmv", (const char *[]){"format=csr", NULL}, "{\"rows\": 2, \"cols\": 3, \"nnz\": 3}")) {
            const double rp[] = {0, 2, 3}, ci[] = {0, 7, 1};
            fill(h.t, &h.in, fpname(h.root, "names", 0), rp, 3);
            fill(h.t, &h.in, fpname(h.root, "names", 1), ci, 3);
            task_inst ref;
            memset(&ref, 0, sizeof ref);
            pg_diag_sink q = {0};
            CHECK(task_reference_run(&h.in, &ref, &q) == PG_ERR_INVALID && q.nerrors == 1, "spmv: bad column rejected");
            task_inst_free(&ref);
        }
        hc_end(&h);
    }
}

/* nbody: positions [n][4] (x, y, z, weight) into any layout (aos4, aos3 + weights, soa) */
static void nb_fill(hcase *h, const double (*pw)[4], size_t n) {
    json_t *fp = json_object_get(h->root, "family_params");
    const char *lay = json_string_value(json_object_get(fp, "layout"));
    if (!strcmp(lay, "aos4") || !strcmp(lay, "aos3")) {
        size_t w = !strcmp(lay, "aos4") ? 4 : 3;
        double v[16];
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < w; k++) v[w * i + k] = pw[i][k];
        fill(h->t, &h->in, fpname(h->root, "pos", -1), v, w * n);
        if (w == 3 && fpname(h->root, "weight", -1)) {
            double wt[4];
            for (size_t i = 0; i < n; i++) wt[i] = pw[i][3];
            fill(h->t, &h->in, fpname(h->root, "weight", -1), wt, n);
        }
        return;
    }
    for (int k = 0; k < 4; k++) {
        double v[4];
        for (size_t i = 0; i < n; i++) v[i] = pw[i][k];
        const char *nm = k < 3 ? fpname(h->root, "pos", k) : fpname(h->root, "weight", -1);
        if (nm) fill(h->t, &h->in, nm, v, n);
    }
}
/* output component k (0..2) of particle i, or the scalar output */
static const char *nb_out(hcase *h, int k, size_t *stride, size_t *off) {
    json_t *o = json_object_get(json_object_get(h->root, "family_params"), "out");
    bool vec = !strcmp(json_string_value(json_object_get(json_object_get(h->root, "family_params"), "op")), "grav_accel") ||
               strstr(json_string_value(json_object_get(json_object_get(h->root, "family_params"), "op")), "force");
    *stride = 1;
    *off = 0;
    if (json_is_array(o)) return json_string_value(json_array_get(o, (size_t)k));
    if (vec) { *stride = 3; *off = (size_t)k; }
    return json_string_value(o);
}
static void nb_expect(const char *label, hcase *h, const double (*want)[3], size_t n, int ncomp) {
    for (int k = 0; k < ncomp; k++) {
        size_t stride, off;
        const char *nm = nb_out(h, k, &stride, &off);
        double w[12] = {0};
        size_t len = stride == 3 ? 3 * n : n;
        /* compare the whole output buffer: with stride 3, all components at once (k = 0 only) */
        if (stride == 3 && k > 0) continue;
        for (size_t i = 0; i < n; i++) {
            if (stride == 3)
                for (int c = 0; c < 3; c++) w[3 * i + (size_t)c] = want[i][c];
            else w[i] = want[i][k];
        }
        expect(label, h->t, &h->in, nm, w, len, 1e-6);
    }
}

/* two particles on the x axis, 1.2 apart; weights 1 and 2 (mass or charge) */
static const double NB_PW[2][4] = {{0, 0, 0, 1}, {1.2, 0, 0, 2}};
#define NB_SIZE "{\"N\": 2, \"L\": 2}"

/* Gravitational acceleration of the two particles, drawn with `want` (the layout among them). */
static void nb_grav(const char *const *want, const char *label) {
    hcase h;
    if (hc_begin(&h, "nbody", want, NB_SIZE)) {
        nb_fill(&h, NB_PW, 2);
        json_t *fp = json_object_get(h.root, "family_params");
        const char *soft = json_string_value(json_object_get(fp, "softening"));
        double sv = (float)task_scalar_f(&h.in, soft), s2 = !strcmp(soft, "eps") ? sv * sv : sv;
        double d3 = pow(1.44 + s2, 1.5);
        const double want_acc[2][3] = {{2 * 1.2 / d3, 0, 0}, {-1 * 1.2 / d3, 0, 0}};
        nb_expect(label, &h, want_acc, 2, 3);
    }
    hc_end(&h);
}

/* LJ energy, unshifted: 4 eps ((s/r)^12 - (s/r)^6) for both atoms (1.2 < every cutoff drawn). */
static void nb_lj_energy(const char *const *want, const char *label) {
    hcase h;
    if (hc_begin(&h, "nbody", want, NB_SIZE)) {
        nb_fill(&h, NB_PW, 2);
        double eps = (float)task_scalar_f(&h.in, "lj_eps"), sg = (float)task_scalar_f(&h.in, "sigma");
        double sr6 = pow(sg * sg / 1.44, 3), e = 4 * eps * (sr6 * sr6 - sr6);
        const double want_e[2][3] = {{e, 0, 0}, {e, 0, 0}};
        nb_expect(label, &h, want_e, 2, 1);
    }
    hc_end(&h);
}

static void hand_nbody(void) {
    const double (*pw)[4] = NB_PW;
    const char *size = NB_SIZE;
    nb_grav((const char *[]){"op=grav_accel", NULL}, "nbody grav_accel");
    {
        hcase h;
        if (hc_begin(&h, "nbody", (const char *[]){"op=coulomb_energy", "cutoff=false", NULL}, size)) {
            nb_fill(&h, pw, 2);
            json_t *fp = json_object_get(h.root, "family_params");
            const char *soft = json_string_value(json_object_get(fp, "softening"));
            double sv = (float)task_scalar_f(&h.in, soft), s2 = !strcmp(soft, "eps") ? sv * sv : sv, ke = (float)task_scalar_f(&h.in, "ke");
            double e = ke * 2 / sqrt(1.44 + s2);   /* q0 q1 / r, the same for both */
            const double want[2][3] = {{e, 0, 0}, {e, 0, 0}};
            nb_expect("nbody coulomb_energy", &h, want, 2, 1);
        }
        hc_end(&h);
    }
    nb_lj_energy((const char *[]){"op=lj_energy", "shifted=false", NULL}, "nbody lj_energy");
    /* xyz triples (stride 3, weights in an array of their own): the same values as above */
    nb_grav((const char *[]){"op=grav_accel", "layout=aos3", NULL}, "nbody grav_accel aos3");
    nb_lj_energy((const char *[]){"op=lj_energy", "layout=aos3", "shifted=false", NULL}, "nbody lj_energy aos3");
    {   /* LJ force: F_0 = 24 eps (2 sr6^2 - sr6) / r^2 * (p_0 - p_1), F_1 = -F_0 */
        hcase h;
        if (hc_begin(&h, "nbody", (const char *[]){"op=lj_force", NULL}, size)) {
            nb_fill(&h, pw, 2);
            double eps = (float)task_scalar_f(&h.in, "lj_eps"), sg = (float)task_scalar_f(&h.in, "sigma");
            double sr6 = pow(sg * sg / 1.44, 3), f0 = 24 * eps * (2 * sr6 * sr6 - sr6) / 1.44 * -1.2;
            const double want[2][3] = {{f0, 0, 0}, {-f0, 0, 0}};
            nb_expect("nbody lj_force", &h, want, 2, 3);
        }
        hc_end(&h);
    }
}

/* Run a hand case: the first sample matching want, sizes replaced by size,
 * inputs filled by (name, values) pairs; the output compared to expect_v. */
typedef struct { const char *name; const double *v; size_t n; } hin;
static void hand_run(const char *label, const char *fam, const char *const *want, const char *size, const hin *ins, int nins, const char *outname,
                     const double *expect_v, size_t nexp, double tol) {
    hcase h;
    if (hc_begin(&h, fam, want, size)) {
        for (int i = 0; i < nins; i++) {
            const char *nm = ins[i].name;
            /* "@key" / "@key.i": the name recorded in family_params */
            char key[64];
            int idx = -1;
            if (nm[0] == '@') {
                snprintf(key, sizeof key, "%s", nm + 1);
                char *dot = strchr(key, '.');
                if (dot) { *dot = 0; idx = atoi(dot + 1); }
                nm = fpname(h.root, key, idx);
            }
            CHECK(nm != NULL, "%s: input %s", label, ins[i].name);
            if (nm) fill(h.t, &h.in, nm, ins[i].v, ins[i].n);
        }
        const char *on = outname;
        char key[64];
        if (on[0] == '@') {
            int idx = -1;
            snprintf(key, sizeof key, "%s", on + 1);
            char *dot = strchr(key, '.');
            if (dot) { *dot = 0; idx = atoi(dot + 1); }
            on = fpname(h.root, key, idx);
        }
        CHECK(on != NULL, "%s: output name", label);
        if (on) expect(label, h.t, &h.in, on, expect_v, nexp, tol);
    }
    hc_end(&h);
}
#define W(...) ((const char *[]){__VA_ARGS__, NULL})
#define V(...) ((const double[]){__VA_ARGS__}), (sizeof((const double[]){__VA_ARGS__}) / sizeof(double))

static void hand_linalg(void) {
    /* pairdist: X = (0,0), (3,4); Y = (1,1) */
    const double X[] = {0, 0, 3, 4}, Xc[] = {0, 3, 0, 4}, Y[] = {1, 1};
    const char *sz = "{\"n\": 2, \"m\": 1, \"d\": 2}";
    hand_run("pairdist sq", "pairdist", W("metric=sqeuclid", "self=false", "dim=2", "layout=point-major"), sz,
             (hin[]){{"@x", X, 4}, {"@y", Y, 2}}, 2, "@out", V(2, 13), 1e-12);
    hand_run("pairdist euclid coord-major", "pairdist", W("metric=euclid", "self=false", "layout=coord-major", "dim=2"), sz,
             (hin[]){{"@x", Xc, 4}, {"@y", Y, 2}}, 2, "@out", V(sqrt(2.0), sqrt(13.0)), 1e-6);
    hand_run("pairdist l1 runtime d", "pairdist", W("metric=l1", "self=false", "dim=0", "layout=point-major"), sz,
             (hin[]){{"@x", X, 4}, {"@y", Y, 2}}, 2, "@out", V(2, 5), 1e-12);
    hand_run("pairdist self", "pairdist", W("metric=sqeuclid", "self=true", "dim=2", "layout=point-major"), "{\"n\": 2, \"d\": 2}",
             (hin[]){{"@x", X, 4}}, 1, "@out", V(0, 25, 25, 0), 1e-12);

    /* rowpair: a = [1 2; 3 4], b = [5 6; 7 8] */
    const double a[] = {1, 2, 3, 4}, b[] = {5, 6, 7, 8};
    const char *rs = "{\"rows\": 2, \"cols\": 2}";
    hin ab[] = {{"@a", a, 4}, {"@b", b, 4}};
    hand_run("rowpair dot", "rowpair", W("op=dot"), rs, ab, 2, "@out", V(17, 53), 1e-12);
    hand_run("rowpair sqdist", "rowpair", W("op=sqdist"), rs, ab, 2, "@out", V(32, 32), 1e-12);
    hand_run("rowpair l2dist", "rowpair", W("op=l2dist"), rs, ab, 2, "@out", V(sqrt(32.0), sqrt(32.0)), 1e-6);
    hand_run("rowpair cosine", "rowpair", W("op=cosine", "eps_rule=max"), rs, ab, 2, "@out", V(17 / (sqrt(5.0) * sqrt(61.0)), 53 / (5 * sqrt(113.0))), 1e-6);
    {   /* eps clamps a zero-length row: 0 / max(0, eps) = 0 */
        const double z[] = {0, 0, 3, 4};
        hand_run("rowpair cosine zero row", "rowpair", W("op=cosine", "eps_rule=max"), rs, (hin[]){{"@a", z, 4}, {"@b", b, 4}}, 2, "@out",
                 V(0, 53 / (5 * sqrt(113.0))), 1e-6);
    }

    /* gemvt: A = [1 2 3; 4 5 6], x = [1 10], y = [1 2 3] */
    const double A[] = {1, 2, 3, 4, 5, 6}, x[] = {1, 10}, y3[] = {1, 2, 3};
    const char *gs = "{\"rows\": 2, \"cols\": 3}";
    hand_run("gemvt A^T x", "gemvt", W("op=gemv_t", "scaled=false"), gs, (hin[]){{"@A", A, 6}, {"@x", x, 2}}, 2, "@y", V(41, 52, 63), 1e-12);
    hand_run("gemvt outer", "gemvt", W("op=outer", "scaled=false"), gs, (hin[]){{"@x", x, 2}, {"@y", y3, 3}}, 2, "@A", V(1, 2, 3, 10, 20, 30), 1e-12);
    {   /* scaled: alpha read from the spec */
        hcase h;
        if (hc_begin(&h, "gemvt", W("op=ger"), gs)) {
            fill(h.t, &h.in, fpname(h.root, "A", -1), A, 6);
            fill(h.t, &h.in, fpname(h.root, "x", -1), x, 2);
            fill(h.t, &h.in, fpname(h.root, "y", -1), y3, 3);
            double al = task_scalar_f(&h.in, "alpha");
            const double want[] = {1 + al, 2 + 2 * al, 3 + 3 * al, 4 + 10 * al, 5 + 20 * al, 6 + 30 * al};
            expect("gemvt ger", h.t, &h.in, fpname(h.root, "A", -1), want, 6, 1e-7);
        }
        hc_end(&h);
        if (hc_begin(&h, "gemvt", W("op=gemv_t", "scaled=true"), gs)) {
            const double y0[] = {1, 1, 1};
            fill(h.t, &h.in, fpname(h.root, "A", -1), A, 6);
            fill(h.t, &h.in, fpname(h.root, "x", -1), x, 2);
            fill(h.t, &h.in, fpname(h.root, "y", -1), y0, 3);
            double al = task_scalar_f(&h.in, "alpha"), be = task_scalar_f(&h.in, "beta");
            const double want[] = {41 * al + be, 52 * al + be, 63 * al + be};
            expect("gemvt axpby", h.t, &h.in, fpname(h.root, "y", -1), want, 3, 1e-7);
        }
        hc_end(&h);
    }

    /* batched: A_0 = [1 2; 3 4], A_1 = [5 6; 7 8]; x_0 = [1 1], x_1 = [1 -1] */
    const double BA[] = {1, 2, 3, 4, 5, 6, 7, 8}, Bx[] = {1, 1, 1, -1};
    const char *bs = "{\"batch\": 2, \"nb\": 2, \"M\": 2, \"K\": 2, \"N\": 1}";
    hand_run("batched mv", "batched", W("op=mv"), bs, (hin[]){{"@a", BA, 8}, {"@x", Bx, 4}}, 2, "@y", V(3, 7, -1, -1), 1e-12);
    hand_run("batched mvt", "batched", W("op=mvt"), bs, (hin[]){{"@a", BA, 8}, {"@x", Bx, 4}}, 2, "@y", V(4, 6, -2, -2), 1e-12);
    hand_run("batched mm", "batched", W("op=mm"), "{\"batch\": 1, \"nb\": 1, \"M\": 2, \"K\": 2, \"N\": 1}", (hin[]){{"@a", BA, 4}, {"@x", Bx, 2}}, 2,
             "@y", V(3, 7), 1e-12);

    /* smallmat */
    const char *ms = "{\"batch\": 1}";
    hand_run("smallmat det2", "smallmat", W("op=det", "n=2"), ms, (hin[]){{"@names.0", V(1, 2, 3, 4)}}, 1, "@names.1", V(-2), 1e-12);
    hand_run("smallmat det3", "smallmat", W("op=det", "n=3"), ms, (hin[]){{"@names.0", V(2, 0, 0, 0, 3, 0, 0, 0, 4)}}, 1, "@names.1", V(24), 1e-12);
    hand_run("smallmat det4 pivot", "smallmat", W("op=det", "n=4"), ms, (hin[]){{"@names.0", V(0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3)}}, 1,
             "@names.1", V(-6), 1e-12);
    /* lambda = 3 for n = 2: [0 1; 1 0] + 3I = [3 1; 1 3], inverse [3 -1; -1 3]/8 */
    hand_run("smallmat inverse2", "smallmat", W("op=inverse", "n=2"), ms, (hin[]){{"@names.0", V(0, 1, 1, 0)}}, 1, "@names.1",
             V(3.0 / 8, -1.0 / 8, -1.0 / 8, 3.0 / 8), 1e-12);
    hand_run("smallmat solve2", "smallmat", W("op=solve", "n=2"), ms, (hin[]){{"@names.0", V(0, 1, 1, 0)}, {"@names.2", V(4, 4)}}, 2, "@names.1",
             V(1, 1), 1e-12);
    /* tridiagonal [4 1 0; 1 4 1; 0 1 4] x = [5 6 5]: x = [1 1 1] */
    hand_run("smallmat tridiag", "smallmat", W("op=tridiag"), "{\"batch\": 1, \"n\": 3}",
             (hin[]){{"@names.0", V(0, 1, 1)}, {"@names.1", V(4, 4, 4)}, {"@names.2", V(1, 1, 0)}, {"@names.3", V(5, 6, 5)}}, 4, "@names.4", V(1, 1, 1), 1e-12);
}

static void hand_stencil(void) {
    const char *s3 = "{\"D\": 1, \"H\": 1, \"W\": 3, \"nz\": 1, \"ny\": 1, \"nx\": 3}";
    /* 1x1x3 volume, zero boundary, variable coefficient: only the x neighbours exist */
    hand_run("stencil_bc varcoef zero", "stencil_bc", W("dims=3", "shape=varcoef", "boundary=zero"), s3,
             (hin[]){{"@in", V(1, 2, 3)}, {"@kappa", V(0.125, 0.125, 0.125)}}, 2, "@out", V(1 + 0.125 * (2 - 6), 2 + 0.125 * (4 - 12), 3 + 0.125 * (2 - 18)), 1e-12);
    /* every cell of a 1x1x3 volume lies on a face: copy */
    hand_run("stencil_bc copy", "stencil_bc", W("dims=3", "shape=varcoef", "boundary=copy"), s3, (hin[]){{"@in", V(1, 2, 3)}, {"@kappa", V(1, 1, 1)}}, 2,
             "@out", V(1, 2, 3), 1e-12);
    /* periodic wrap along x (y and z have extent 1: every y/z neighbour is the cell itself) */
    hand_run("stencil_bc periodic", "stencil_bc", W("dims=3", "shape=varcoef", "boundary=periodic"), s3,
             (hin[]){{"@in", V(1, 2, 3)}, {"@kappa", V(0.5, 0.5, 0.5)}}, 2, "@out",
             V(1 + 0.5 * (3 + 2 + 4 * 1 - 6), 2 + 0.5 * (1 + 3 + 4 * 2 - 12), 3 + 0.5 * (2 + 1 + 4 * 3 - 18)), 1e-12);
    /* 2D reflect on 1x3 (H = 1): x-1 of cell 0 is cell 1, x+1 of cell 2 is cell 1 */
    hand_run("stencil_bc reflect 2D", "stencil_bc", W("dims=2", "shape=varcoef", "boundary=reflect"), "{\"H\": 1, \"W\": 3, \"ny\": 1, \"nx\": 3}",
             (hin[]){{"@in", V(1, 2, 3)}, {"@kappa", V(0.25, 0.25, 0.25)}}, 2, "@out",
             V(1 + 0.25 * (2 + 2 + 2 * 1 - 4), 2 + 0.25 * (1 + 3 + 2 * 2 - 8), 3 + 0.25 * (2 + 2 + 2 * 3 - 12)), 1e-12);
}

static void hand_sort(void) {
    const char *st = "{\"n\": 4, \"j\": 1, \"k\": 2, \"stride\": 1, \"seq\": 2, \"partner\": 1, \"size\": 2}";
    hand_run("sortnet bitonic asc", "sortnet", W("op=bitonic_step", "kv=false", "descending=false"), st, (hin[]){{"@keys", V(4, 3, 2, 1)}}, 1, "@keys",
             V(3, 4, 2, 1), 0);
    hand_run("sortnet bitonic desc", "sortnet", W("op=bitonic_step", "kv=false", "descending=true"), st, (hin[]){{"@keys", V(4, 3, 2, 1)}}, 1, "@keys",
             V(4, 3, 1, 2), 0);
    hand_run("sortnet bitonic kv values", "sortnet", W("op=bitonic_step", "kv=true", "descending=false"), st,
             (hin[]){{"@keys", V(4, 3, 2, 1)}, {"@vals", V(0, 1, 2, 3)}}, 2, "@vals", V(1, 0, 2, 3), 0);
    hand_run("sortnet oddeven", "sortnet", W("op=oddeven_step", "descending=false", "kv=false"), "{\"n\": 5, \"phase\": 1}", (hin[]){{"@keys", V(5, 4, 3, 2, 1)}},
             1, "@keys", V(5, 3, 4, 1, 2), 0);
    hand_run("sortnet block asc", "sortnet", W("op=block_sort", "descending=false", "inplace=true", "kv=false"), "{\"n\": 5}",
             (hin[]){{"@keys", V(3, 1, 2, 5, 4)}}, 1, "@keys", V(1, 2, 3, 4, 5), 0);
    hand_run("sortnet block desc kv oop", "sortnet", W("op=block_sort", "descending=true", "inplace=false", "kv=true"), "{\"n\": 5}",
             (hin[]){{"@keys", V(3, 1, 2, 5, 4)}, {"@vals", V(0, 1, 2, 3, 4)}}, 2, "@vals_out", V(3, 4, 0, 2, 1), 0);
}

/* csrrow: every operation, mapping and output form appears in seeds 1..2000, and the
 * reference agrees with values worked out by hand on a 3-row matrix (rows 0 and 2
 * filled, row 1 empty) and with a running sum for the offsets */
static void hand_csrrow(void) {
    int seen[6][2][2];
    memset(seen, 0, sizeof seen);
    static const char *const OPS[] = {"sum", "maxabs", "l1norm", "l2norm", "scale", "offsets"};
    for (uint64_t seed = 1; seed <= 2000; seed++) {
        synth_family_sample s;
        memset(&s, 0, sizeof s);
        CHECK(synth_fam_gen_csrrow(seed, &s) == PG_OK, "csrrow seed %llu", (unsigned long long)seed);
        json_t *root = json_loads(s.task_json.data ? s.task_json.data : "", 0, NULL);
        json_t *fp = json_object_get(root, "family_params");
        const char *op = json_string_value(json_object_get(fp, "op"));
        for (int k = 0; k < 6; k++)
            if (op && !strcmp(op, OPS[k])) {
                const char *m = json_string_value(json_object_get(fp, k == 5 ? "scan" : "mapping"));
                seen[k][m && (!strcmp(m, "warp") || !strcmp(m, "smem"))][json_is_true(json_object_get(fp, "inplace"))]++;
            }
        json_decref(root);
        synth_family_sample_free(&s);
    }
    for (int k = 0; k < 6; k++)
        printf("csrrow %-8s (2000 seeds): %s %d (in place %d), %s %d (in place %d)\n", OPS[k], k == 5 ? "shfl" : "thread", seen[k][0][0] + seen[k][0][1],
               seen[k][0][1], k == 5 ? "smem" : "warp", seen[k][1][0] + seen[k][1][1], seen[k][1][1]);
    for (int k = 0; k < 6; k++)
        for (int m = 0; m < 2; m++) {
            CHECK(seen[k][m][0] + seen[k][m][1] > 0, "csrrow: op %s, %s never drawn", OPS[k], m ? "warp/smem" : "thread/shfl");
            if (k >= 2 && k <= 4) CHECK(seen[k][m][0] > 0 && seen[k][m][1] > 0, "csrrow: op %s needs both in-place and output draws", OPS[k]);
        }
    const char *sz = "{\"rows\": 3, \"nnz\": 5}";
    const double rp[] = {0, 2, 2, 5}, va[] = {3, -4, 1, -2, 2};
    hin m[] = {{"@row_ptr", rp, 4}, {"@vals", va, 5}};
    hand_run("csrrow sum", "csrrow", W("op=sum"), sz, m, 2, "@out", V(-1, 0, 1), 1e-12);
    hand_run("csrrow maxabs", "csrrow", W("op=maxabs"), sz, m, 2, "@out", V(4, 0, 2), 0);
    hand_run("csrrow l1norm inplace", "csrrow", W("op=l1norm", "inplace=true"), sz, m, 2, "@vals", V(3.0 / 7, -4.0 / 7, 0.2, -0.4, 0.4), 1e-6);
    hand_run("csrrow l1norm out", "csrrow", W("op=l1norm", "inplace=false"), sz, m, 2, "@out", V(3.0 / 7, -4.0 / 7, 0.2, -0.4, 0.4), 1e-6);
    hand_run("csrrow l2norm out", "csrrow", W("op=l2norm", "inplace=false"), sz, m, 2, "@out", V(0.6, -0.8, 1.0 / 3, -2.0 / 3, 2.0 / 3), 1e-6);
    hand_run("csrrow l2norm inplace", "csrrow", W("op=l2norm", "inplace=true"), sz, m, 2, "@vals", V(0.6, -0.8, 1.0 / 3, -2.0 / 3, 2.0 / 3), 1e-6);
    hand_run("csrrow scale inplace", "csrrow", W("op=scale", "inplace=true"), sz,
             (hin[]){{"@row_ptr", rp, 4}, {"@vals", va, 5}, {"@scale", V(2, 10, -0.5)}}, 3, "@vals", V(6, -8, -0.5, 1, -1), 0);
    hand_run("csrrow scale out", "csrrow", W("op=scale", "inplace=false"), sz,
             (hin[]){{"@row_ptr", rp, 4}, {"@vals", va, 5}, {"@scale", V(2, 10, -0.5)}}, 3, "@out", V(6, -8, -0.5, 1, -1), 0);
    /* a zero row (norm 0) is left alone, in place and copied to the output */
    hand_run("csrrow l2norm zero row", "csrrow", W("op=l2norm", "inplace=false"), "{\"rows\": 2, \"nnz\": 3}",
             (hin[]){{"@row_ptr", V(0, 2, 3)}, {"@vals", V(0, 0, -3)}}, 2, "@out", V(0, 0, -1), 1e-12);
    hand_run("csrrow offsets", "csrrow", W("op=offsets", "scan=shfl"), "{\"rows\": 4}", (hin[]){{"@counts", V(3, 0, 2, 5)}}, 1, "@row_ptr", V(0, 3, 3, 5, 10), 0);
    /* 37 counts: the offsets are the running sums */
    double cnt[37], want[38];
    want[0] = 0;
    for (int i = 0; i < 37; i++) {
        cnt[i] = (i * 7919) % 13;
        want[i + 1] = want[i] + cnt[i];
    }
    hand_run("csrrow offsets 37", "csrrow", W("op=offsets", "scan=smem"), "{\"rows\": 37}", (hin[]){{"@counts", cnt, 37}}, 1, "@row_ptr", want, 38, 0);
}

/* automaton: every rule, neighbourhood, boundary, cell type and rule style appears in seeds
 * 1..2000, and the reference agrees with generations worked out by hand */
static void hand_automaton(void) {
    static const char *const RULES[] = {"life", "highlife", "seeds", "daynight", "maze", "replicator", "vn_b2s12", "vn_b13s024", "vn_b1s1", "vn_b3s23"};
    int rule[10] = {0}, torus = 0, u8 = 0, four = 0, mask = 0, n = 0;
    for (uint64_t seed = 1; seed <= 2000; seed++) {
        synth_family_sample s;
        memset(&s, 0, sizeof s);
        CHECK(synth_fam_gen_automaton(seed, &s) == PG_OK, "automaton seed %llu", (unsigned long long)seed);
        json_t *root = json_loads(s.task_json.data ? s.task_json.data : "", 0, NULL);
        json_t *fp = json_object_get(root, "family_params");
        const char *rn = json_string_value(json_object_get(fp, "rule"));
        for (int k = 0; k < 10; k++) rule[k] += rn && !strcmp(rn, RULES[k]);
        torus += !strcmp(fpname(root, "boundary", -1) ? fpname(root, "boundary", -1) : "", "torus");
        u8 += !strcmp(fpname(root, "dtype", -1) ? fpname(root, "dtype", -1) : "", "u8");
        mask += !strcmp(fpname(root, "style", -1) ? fpname(root, "style", -1) : "", "mask");
        four += json_integer_value(json_object_get(fp, "neighbours")) == 4;
        n++;
        json_decref(root);
        synth_family_sample_free(&s);
    }
    printf("automaton (%d seeds): torus %d, u8 %d, 4-neighbour %d, mask style %d; rules", n, torus, u8, four, mask);
    for (int k = 0; k < 10; k++) printf(" %s %d", RULES[k], rule[k]);
    printf("\n");
    for (int k = 0; k < 10; k++) CHECK(rule[k] > 0, "automaton: rule %s never drawn", RULES[k]);
    CHECK(torus > 0 && torus < n && u8 > 0 && u8 < n && four > 0 && four < n && mask > 0 && mask < n, "automaton: every axis takes both values");
    const char *s33 = "{\"H\": 3, \"W\": 3, \"ny\": 3, \"nx\": 3, \"rows\": 3, \"cols\": 3, \"height\": 3, \"width\": 3}";
    const double blinker[] = {0, 1, 0, 0, 1, 0, 0, 1, 0};
    hand_run("automaton life dead blinker", "automaton", W("rule=life", "boundary=dead", "dtype=u8"), s33, (hin[]){{"@in", blinker, 9}}, 1, "@out",
             V(0, 0, 0, 1, 1, 1, 0, 0, 0), 0);
    hand_run("automaton life dead blinker s32 mask", "automaton", W("rule=life", "boundary=dead", "dtype=s32", "style=mask"), s33, (hin[]){{"@in", blinker, 9}}, 1,
             "@out", V(0, 0, 0, 1, 1, 1, 0, 0, 0), 0);
    /* on a 3x3 torus every cell's 8 neighbours are the other 8 cells: 3 alive, so live cells see
     * 2 and dead cells 3, and all 9 are alive next */
    hand_run("automaton life torus blinker", "automaton", W("rule=life", "boundary=torus"), s33, (hin[]){{"@in", blinker, 9}}, 1, "@out",
             V(1, 1, 1, 1, 1, 1, 1, 1, 1), 0);
    const char *s22 = "{\"H\": 2, \"W\": 2, \"ny\": 2, \"nx\": 2, \"rows\": 2, \"cols\": 2, \"height\": 2, \"width\": 2}";
    hand_run("automaton seeds dead", "automaton", W("rule=seeds", "boundary=dead"), s22, (hin[]){{"@in", V(1, 1, 0, 0)}}, 1, "@out", V(0, 0, 1, 1), 0);
    const char *s13 = "{\"H\": 1, \"W\": 3, \"ny\": 1, \"nx\": 3, \"rows\": 1, \"cols\": 3, \"height\": 1, \"width\": 3}";
    hand_run("automaton B1/S1 4-neighbour dead", "automaton", W("rule=vn_b1s1", "boundary=dead"), s13, (hin[]){{"@in", V(1, 0, 0)}}, 1, "@out", V(0, 1, 0), 0);
    /* 1x1 torus: the 4 neighbours are the cell itself, n = 4, in S{0,2,4} */
    const char *s11 = "{\"H\": 1, \"W\": 1, \"ny\": 1, \"nx\": 1, \"rows\": 1, \"cols\": 1, \"height\": 1, \"width\": 1}";
    hand_run("automaton B13/S024 torus 1x1", "automaton", W("rule=vn_b13s024", "boundary=torus"), s11, (hin[]){{"@in", V(1)}}, 1, "@out", V(1), 0);
}

int main(void) {
    char pp[1024];
    have_ptxas = ptx_ptxas_find(pp, sizeof pp);
    int nseeds = getenv("SPARSE_N") ? atoi(getenv("SPARSE_N")) : 24;
    if (nseeds < 1 || nseeds > 4096) nseeds = 24;
    for (int k = 0; k < NFAMS; k++) {
        int f = synth_family_find(FAMS[k].name);
        CHECK(f >= 0, "family %s registered", FAMS[k].name);
        if (f < 0) continue;
        uint64_t *seeds = calloc((size_t)nseeds, sizeof *seeds);
        synth_family_sample *ss = calloc((size_t)nseeds, sizeof *ss);
        for (int i = 0; i < nseeds; i++) seeds[i] = 7919ull * (uint64_t)i + 3;
        pg_diag_sink q = {0};
        q.fn = diag_print;
        pg_status st = synth_family_generate_batch(f, seeds, nseeds, "sm_90", SYNTH_FMT_PLAIN, ss, &q);
        if (st == PG_ERR_IO) {
            printf("SKIPPED: %s needs nvcc\n", FAMS[k].name);
        } else {
            CHECK(st == PG_OK, "%s: batch", FAMS[k].name);
            int distinct = 0;
            for (int i = 0; i < nseeds; i++) {
                synth_family_sample *s = &ss[i];
                CHECK(s->ptx.len && s->task_json.len, "%s seed %d: empty", FAMS[k].name, i);
                if (!s->ptx.len) continue;
                bool seen = false;
                for (int j = 0; j < i; j++) seen |= ss[j].ptx.len && !strcmp(ss[j].identity, s->identity);
                distinct += !seen;
                ptx_module *m = NULL;
                pg_diag_sink vq = {0};
                vq.fn = diag_print;
                pg_status ps = ptx_parse(s->ptx.data, s->ptx.len, s->name, &m, &vq);
                if (ps == PG_OK) ps = ptx_validate(m, &vq);
                CHECK(ps == PG_OK && vq.nwarnings == 0, "%s: validator", s->name);
                ptx_module_free(m);
                if (have_ptxas && !seen) CHECK(ptxas_ok(s->ptx.data), "%s: ptxas", s->name);
                char path[128];
                snprintf(path, sizeof path, "/tmp/ptxgen-sptest-%d-task.json", (int)getpid());
                CHECK(write_text(path, s->task_json.data), "write");
                check_reference(path, s->name);
                unlink(path);
                const char *dump = getenv("SPARSE_DUMP");
                if (dump && !seen) {
                    char dir[600], fpath[700];
                    mkdir(dump, 0755);
                    snprintf(dir, sizeof dir, "%s/%s", dump, s->name);
                    mkdir(dir, 0755);
                    snprintf(fpath, sizeof fpath, "%s/task.json", dir);
                    CHECK(write_text(fpath, s->task_json.data), "dump %s", fpath);
                    snprintf(fpath, sizeof fpath, "%s/kernel.ptx", dir);
                    CHECK(write_text(fpath, s->ptx.data), "dump %s", fpath);
                    snprintf(fpath, sizeof fpath, "%s/reference.cu", dir);
                    CHECK(write_text(fpath, s->cu.data), "dump %s", fpath);
                }
            }
            printf("family %-10s %d seeds, %d distinct identities\n", FAMS[k].name, nseeds, distinct);
        }
        for (int i = 0; i < nseeds; i++) synth_family_sample_free(&ss[i]);
        free(ss);
        free(seeds);
    }
    hand_spmv();
    hand_nbody();
    hand_linalg();
    hand_stencil();
    hand_sort();
    hand_csrrow();
    hand_automaton();
    return TEST_DONE();
}
