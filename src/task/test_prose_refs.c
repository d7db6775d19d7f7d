/* test_prose_refs.c — the hand-written held-out suite (bench/suite-prose/):
 * every task spec loads; it carries exactly one request, "prose" (English)
 * or "zh" (Chinese), and no generated style; names, kernels, references and
 * the suite group follow the suite's conventions and collide with no task of
 * bench/suite or corpus/; every (size, distribution) instance builds; the C
 * reference runs on the smallest size of every distribution, writes only
 * finite values and writes every output element (two different poison
 * patterns give the same result); the suite covers the categories it promises
 * with about a quarter of the requests in Chinese; and every reference is
 * compared with values computed by hand.  Run from the repository root
 * (PROSE_DIR overrides bench/suite-prose). */
#include "common/test.h"
#include "ptxgen/task.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_TASKS = 256 };
static const size_t BUILD_CAP = 48u << 20;   /* bytes of buffers per instance built in full */

static const char *prose_dir(void) {
    const char *d = getenv("PROSE_DIR");
    return d && *d ? d : "bench/suite-prose";
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorted names of the task folders of dir (folders holding a task.json). */
static int list_tasks(const char *dir, char **names, int max) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        if (e->d_name[0] == '.') continue;
        char p[600];
        snprintf(p, sizeof p, "%s/%s/task.json", dir, e->d_name);
        FILE *f = fopen(p, "r");
        if (!f) continue;
        fclose(f);
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof(char *), cmp_str);
    return n;
}

static bool has_cjk(const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p >= 0xE4 && *p <= 0xE9) return true;   /* lead byte of U+4000..U+9FFF */
    return false;
}

/* ---- the spec's own fields (read with jansson: task_load ignores them) ------------ */
static int nzh, nprose;
static char families[MAX_TASKS][32];
static int nfamilies;

static void check_json(const char *dir, const char *name) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s/task.json", dir, name);
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
    CHECK(root != NULL, "%s parses", path);
    if (!root) return;
    json_t *d = json_object_get(root, "descriptions");
    CHECK(json_is_object(d) && json_object_size(d) == 1, "%s: exactly one request", path);
    const char *prose = json_string_value(json_object_get(d, "prose")), *zh = json_string_value(json_object_get(d, "zh"));
    CHECK((prose != NULL) != (zh != NULL), "%s: the request is \"prose\" or \"zh\"", path);
    if (prose) { nprose++; CHECK(!has_cjk(prose) && strlen(prose) >= 20, "%s: prose is English, >= 20 bytes", path); }
    if (zh) { nzh++; CHECK(has_cjk(zh), "%s: zh is Chinese", path); }
    json_t *suite = json_object_get(root, "suite");
    CHECK(!strcmp(json_string_value(json_object_get(suite, "group")) ? json_string_value(json_object_get(suite, "group")) : "", "prose"),
          "%s: suite.group is prose", path);
    const char *fam = json_string_value(json_object_get(root, "family"));
    CHECK(fam != NULL, "%s: family", path);
    if (fam) {
        bool seen = false;
        for (int i = 0; i < nfamilies; i++) seen |= !strcmp(families[i], fam);
        if (!seen && nfamilies < MAX_TASKS) snprintf(families[nfamilies++], sizeof families[0], "%s", fam);
    }
    json_decref(root);
}

/* ---- instances and references ------------------------------------------------------- */
static size_t inst_bytes(const task_spec *t, int s) {
    size_t total = 0;
    for (int p = 0; p < t->nparams; p++) {
        if (!t->params[p].is_pointer) continue;
        int64_t n = 0;
        if (!expr_size_eval(t->params[p].len, &t->sizes[s].env, &n, NULL, 0)) return SIZE_MAX;
        total += (size_t)n * (size_t)task_dtype_size(t->params[p].dtype);
    }
    return total;
}

static int smallest_size(const task_spec *t) {
    int small = 0;
    double best = 1e300;
    for (int s = 0; s < t->nsizes; s++) {
        double prod = 1;
        for (int i = 0; i < t->sizes[s].env.n; i++) prod *= (double)(t->sizes[s].env.val[i] + 1);
        if (prod < best) { best = prod; small = s; }
    }
    return small;
}

static size_t count_nonfinite(task_dtype dt, const void *data, size_t n) {
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        double v;
        switch (dt) {
        case TASK_T_F32: v = ((const float *)data)[i]; break;
        case TASK_T_F64: v = ((const double *)data)[i]; break;
        case TASK_T_F16: v = task_f16_to_f32(((const uint16_t *)data)[i]); break;
        case TASK_T_BF16: v = task_bf16_to_f32(((const uint16_t *)data)[i]); break;
        default: return 0;
        }
        bad += !isfinite(v);
    }
    return bad;
}

static void check_task(const char *dir, const char *name) {
    char path[600], cu[600];
    snprintf(path, sizeof path, "%s/%s/task.json", dir, name);
    snprintf(cu, sizeof cu, "%s/%s/reference.cu", dir, name);
    pg_diag_sink q = {0};
    task_spec *t = NULL;
    CHECK(task_load(path, &t, &q) == PG_OK, "%s loads (%d errors)", path, q.nerrors);
    if (!t) return;
    char want_ref[128];
    snprintf(want_ref, sizeof want_ref, "prose_%s", name);
    CHECK(!strcmp(t->name, name) && !strcmp(t->kernel, name), "%s: name and kernel are the folder name", path);
    CHECK(t->ref.kind && !strcmp(t->ref.kind, "c") && t->ref.name && !strcmp(t->ref.name, want_ref), "%s: reference is C '%s'", path, want_ref);
    CHECK(!t->desc[TASK_STYLE_TERSE] && !t->desc[TASK_STYLE_DETAILED] && !t->desc[TASK_STYLE_CARD], "%s: no generated description styles", path);
    CHECK(t->ndists >= 2 && t->nsizes >= 2, "%s: >= 2 distributions and sizes", path);
    CHECK(t->cost_bytes[0] && t->cost_flops[0], "%s: cost model", path);
    bool odd = false, below_block = false;   /* a size that is not a multiple of 32; one below 256 */
    for (int s = 0; s < t->nsizes; s++)
        for (int i = 0; i < t->sizes[s].env.n; i++) {
            odd |= t->sizes[s].env.val[i] % 32 != 0;
            below_block |= t->sizes[s].env.val[i] < 256;
        }
    CHECK(odd && below_block, "%s: sizes include a non-multiple of 32 and one below a block", path);
    /* reference.cu defines the kernel with the C name nvcc keeps */
    FILE *f = fopen(cu, "r");
    char text[8192] = "", decl[200];
    size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[got] = 0;
    if (f) fclose(f);
    snprintf(decl, sizeof decl, "extern \"C\" __global__ void %s(", name);
    CHECK(strstr(text, decl) != NULL, "%s defines %s", cu, decl);

    for (int s = 0; s < t->nsizes; s++) {
        if (inst_bytes(t, s) > BUILD_CAP) {   /* too large here: lengths and launch must still evaluate */
            int64_t v;
            for (int p = 0; p < t->nparams; p++)
                if (t->params[p].is_pointer) CHECK(expr_size_eval(t->params[p].len, &t->sizes[s].env, &v, NULL, 0), "%s: len of size %d", path, s);
            for (int k = 0; k < 3; k++)
                CHECK(expr_size_eval(t->grid[k], &t->sizes[s].env, &v, NULL, 0) && v >= 1, "%s: grid of size %d", path, s);
            continue;
        }
        for (int d = 0; d < t->ndists; d++) {
            task_inst in;
            pg_status st = task_inst_make(t, s, d, 7, &in, &q);
            CHECK(st == PG_OK, "%s: instance size %d dist %d", path, s, d);
            if (st == PG_OK) task_inst_free(&in);
        }
    }
    int small = smallest_size(t);
    for (int d = 0; d < t->ndists; d++) {
        task_inst in, in2, ref, ref2;
        if (task_inst_make(t, small, d, 3, &in, &q) != PG_OK) { CHECK(false, "%s: smallest instance", path); continue; }
        /* the same inputs with outputs poisoned differently: a reference that skips an element shows */
        task_inst_clone(&in, &in2);
        for (int p = 0; p < t->nparams; p++)
            if (t->params[p].is_pointer && t->params[p].role == TASK_ROLE_OUT) memset(in2.args[p].data, 0x5A, in2.args[p].bytes);
        pg_status st = task_reference_run(&in, &ref, &q), st2 = task_reference_run(&in2, &ref2, &q);
        CHECK(st == PG_OK && st2 == PG_OK, "%s: C reference runs (dist %d)", path, d);
        for (int p = 0; st == PG_OK && st2 == PG_OK && p < t->nparams; p++) {
            if (!t->params[p].is_pointer || t->params[p].role == TASK_ROLE_IN) continue;
            size_t bad = count_nonfinite(t->params[p].dtype, ref.args[p].data, ref.args[p].count);
            CHECK(bad == 0, "%s: '%s' has %zu non-finite values (dist %d)", path, t->params[p].name, bad, d);
            CHECK(!memcmp(ref.args[p].data, ref2.args[p].data, ref.args[p].bytes), "%s: '%s' depends on the poison (an element is not written)",
                  path, t->params[p].name);
        }
        task_inst_free(&in);
        task_inst_free(&in2);
        if (ref.args) task_inst_free(&ref);
        if (ref2.args) task_inst_free(&ref2);
    }
    task_free(t);
}

/* ---- hand-computed values --------------------------------------------------------------- */
typedef struct { task_spec *t; task_inst in, ref; bool ok; } hand_case;

/* Load task `name`, build the instance of the size whose variable `var`
 * equals `val` (distribution dist); the caller overwrites inputs, then runs. */
static bool hand_open(hand_case *h, const char *name, const char *var, int64_t val, int dist) {
    memset(h, 0, sizeof *h);
    char path[512];
    snprintf(path, sizeof path, "%s/%s/task.json", prose_dir(), name);
    pg_diag_sink q = {0};
    if (task_load(path, &h->t, &q) != PG_OK) { CHECK(false, "load %s", path); return false; }
    for (int s = 0; s < h->t->nsizes; s++)
        for (int i = 0; i < h->t->sizes[s].env.n; i++)
            if (!strcmp(h->t->sizes[s].env.name[i], var) && h->t->sizes[s].env.val[i] == val)
                return task_inst_make(h->t, s, dist, 1, &h->in, &q) == PG_OK;
    CHECK(false, "%s has no size with %s = %lld", name, var, (long long)val);
    return false;
}
static void *hin(hand_case *h, const char *p) { return task_buf(&h->in, p); }
static bool hand_run(hand_case *h) {
    pg_diag_sink q = {0};
    h->ok = task_reference_run(&h->in, &h->ref, &q) == PG_OK;
    CHECK(h->ok, "%s: reference runs", h->t->name);
    return h->ok;
}
/* The reference must refuse the (broken) inputs and say why. */
static void hand_refuses(hand_case *h, const char *why) {
    pg_diag_sink q = {0};
    pg_status st = task_reference_run(&h->in, &h->ref, &q);
    CHECK(st == PG_ERR_INVALID && q.nerrors == 1, "%s: %s is refused with a diagnostic", h->t->name, why);
}
static void *hout(hand_case *h, const char *p) { return task_buf(&h->ref, p); }
static void hand_close(hand_case *h) {
    if (h->in.args) task_inst_free(&h->in);
    if (h->ref.args) task_inst_free(&h->ref);
    task_free(h->t);
}
static bool near(double got, double want, double rel) { return fabs(got - want) <= rel * fmax(fabs(want), 1e-30); }
#define F(h, p) ((float *)hout(h, p))

static void hand_elementwise(void) {
    hand_case h;
    if (hand_open(&h, "clamp_count", "n", 100, 1)) {   /* [lo, hi] = [-0.5, 2]; dist 1: clipped starts at 41 */
        float *x = hin(&h, "x");
        for (int i = 0; i < 100; i++) x[i] = 0;
        x[0] = -1; x[1] = -0.5f; x[2] = 2; x[3] = 2.5f; x[4] = 1e30f;
        if (hand_run(&h)) {
            float *y = F(&h, "x");
            uint32_t c = ((uint32_t *)hout(&h, "clipped"))[0];
            CHECK(y[0] == -0.5f && y[1] == -0.5f && y[2] == 2 && y[3] == 2 && y[4] == 2 && y[5] == 0 && c == 41 + 3,
                  "clamp_count: %g %g %g %g %g, clipped %u", y[0], y[1], y[2], y[3], y[4], c);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "hamming_u32", "n", 777, 0)) {
        uint32_t *a = hin(&h, "a"), *b = hin(&h, "b");
        a[0] = 0xffffffffu; b[0] = 0; a[1] = 5; b[1] = 3; a[2] = 0x80000001u; b[2] = 0x80000001u;
        if (hand_run(&h)) {
            uint8_t *d = hout(&h, "dist");
            CHECK(d[0] == 32 && d[1] == 2 && d[2] == 0, "hamming_u32: %d %d %d", d[0], d[1], d[2]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "rgb_to_gray", "npix", 333, 0)) {
        uint8_t *p = hin(&h, "rgb");
        uint8_t px[15] = {255, 255, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255};
        memcpy(p, px, sizeof px);
        if (hand_run(&h)) {   /* (77*255 + 128) >> 8 = 77, (150*255 + 128) >> 8 = 149, (29*255 + 128) >> 8 = 29 */
            uint8_t *g = hout(&h, "gray");
            CHECK(g[0] == 255 && g[1] == 0 && g[2] == 77 && g[3] == 149 && g[4] == 29, "rgb_to_gray: %d %d %d %d %d", g[0], g[1], g[2], g[3], g[4]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "ascii_upper", "nbytes", 100, 0)) {
        uint8_t *s = hin(&h, "src");
        memcpy(s, "aZ{`z0\xe1 m", 9);
        if (hand_run(&h)) CHECK(!memcmp(hout(&h, "dst"), "AZ{`Z0\xe1 M", 9), "ascii_upper: only a..z change");
    }
    hand_close(&h);
    /* pcg_hash(12345) = 4099845390 and pcg_hash(0) = 129708002 (computed with Python's integers) */
    if (hand_open(&h, "pcg_hash", "seed", 12345, 0)) {
        if (hand_run(&h)) CHECK(((uint32_t *)hout(&h, "out"))[0] == 4099845390u, "pcg_hash(12345) = %u", ((uint32_t *)hout(&h, "out"))[0]);
    }
    hand_close(&h);
    if (hand_open(&h, "pcg_hash", "seed", 4294967000, 0)) {   /* i + seed wraps to 0 at i = 296 */
        if (hand_run(&h)) CHECK(((uint32_t *)hout(&h, "out"))[296] == 129708002u, "pcg_hash wraps: out[296] = %u", ((uint32_t *)hout(&h, "out"))[296]);
    }
    hand_close(&h);
    if (hand_open(&h, "xorshift_steps", "steps", 1, 0)) {   /* Marsaglia's xorshift32 from 1: 270369 */
        uint32_t *s = hin(&h, "state");
        s[0] = 1; s[1] = 0;
        if (hand_run(&h)) {
            uint32_t *o = hout(&h, "state");
            CHECK(o[0] == 270369u && o[1] == 0, "xorshift_steps: %u %u", o[0], o[1]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "xorshift_steps", "steps", 1000, 0)) {   /* 1000 steps from 1 (Python) */
        ((uint32_t *)hin(&h, "state"))[0] = 1;
        if (hand_run(&h)) CHECK(((uint32_t *)hout(&h, "state"))[0] == 269958183u, "xorshift_steps x1000: %u", ((uint32_t *)hout(&h, "state"))[0]);
    }
    hand_close(&h);
    if (hand_open(&h, "diff_flags", "n", 777, 0)) {   /* tol 0.5, strictly greater */
        float *a = hin(&h, "a"), *b = hin(&h, "b");
        a[0] = 1; b[0] = 0.4f; a[1] = 0.5f; b[1] = 0; a[2] = -0.25f; b[2] = 0.25f; a[3] = -1; b[3] = 1;
        if (hand_run(&h)) {
            uint8_t *f = hout(&h, "flags");
            CHECK(f[0] == 1 && f[1] == 0 && f[2] == 0 && f[3] == 1, "diff_flags: %d %d %d %d", f[0], f[1], f[2], f[3]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "hardswish_f16", "n", 777, 0)) {
        uint16_t *x = hin(&h, "x");
        x[0] = task_f32_to_f16(1); x[1] = task_f32_to_f16(-4); x[2] = task_f32_to_f16(4); x[3] = task_f32_to_f16(-1.5f);
        if (hand_run(&h)) {
            uint16_t *y = hout(&h, "y");
            CHECK(y[0] == task_f32_to_f16(4.0f / 6) && task_f16_to_f32(y[1]) == 0 && task_f16_to_f32(y[2]) == 4 &&
                      y[3] == task_f32_to_f16(-1.5f * 1.5f / 6),
                  "hardswish_f16: %g %g %g %g", task_f16_to_f32(y[0]), task_f16_to_f32(y[1]), task_f16_to_f32(y[2]), task_f16_to_f32(y[3]));
        }
    }
    hand_close(&h);
    if (hand_open(&h, "softplus_beta", "n", 777, 0)) {   /* beta 2, threshold 20 */
        float *x = hin(&h, "x");
        x[0] = 0; x[1] = 11; x[2] = -1; x[3] = 10;
        if (hand_run(&h)) {
            float *y = F(&h, "y");
            CHECK(near(y[0], log(2.0) / 2, 1e-7) && y[1] == 11 && near(y[2], log1p(exp(-2.0)) / 2, 1e-7) && near(y[3], log1p(exp(20.0)) / 2, 1e-7),
                  "softplus_beta: %g %g %g %g", y[0], y[1], y[2], y[3]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "f32_to_bf16", "n", 777, 0)) {
        float *x = hin(&h, "x");
        x[0] = 1; x[1] = 1 + 0x1p-8f; x[2] = 1 + 3 * 0x1p-8f; x[3] = -2; x[4] = 1 + 0x1p-8f + 0x1p-20f;
        if (hand_run(&h)) {   /* ties go to the even neighbour; just above a tie goes up */
            uint16_t *y = hout(&h, "y");
            CHECK(y[0] == 0x3F80 && y[1] == 0x3F80 && y[2] == 0x3F82 && y[3] == 0xC000 && y[4] == 0x3F81,
                  "f32_to_bf16: %04x %04x %04x %04x %04x", y[0], y[1], y[2], y[3], y[4]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "dequant_int4", "ngroups", 1, 0)) {
        uint8_t *p = hin(&h, "packed");
        float *s = hin(&h, "scales");
        p[0] = 0x9F; p[15] = 0x08; s[0] = 0.5f;
        if (hand_run(&h)) {   /* low nibble first: 15-8, 9-8; 8-8, 0-8 */
            float *o = F(&h, "out");
            CHECK(o[0] == 3.5f && o[1] == 0.5f && o[30] == 0 && o[31] == -4, "dequant_int4: %g %g %g %g", o[0], o[1], o[30], o[31]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "complex_polar", "n", 1, 0)) {
        ((float *)hin(&h, "re"))[0] = -1;
        ((float *)hin(&h, "im"))[0] = 0;
        if (hand_run(&h)) CHECK(F(&h, "mag")[0] == 1 && near(F(&h, "phase")[0], 3.14159265358979323846, 1e-7), "complex_polar: -1 -> 1, pi");
    }
    hand_close(&h);
    if (hand_open(&h, "complex_polar", "n", 777, 0)) {
        ((float *)hin(&h, "re"))[0] = 3;
        ((float *)hin(&h, "im"))[0] = -4;
        if (hand_run(&h)) CHECK(F(&h, "mag")[0] == 5 && near(F(&h, "phase")[0], -0.92729521800161219, 1e-7), "complex_polar: 3-4i -> 5, %g", F(&h, "phase")[0]);
    }
    hand_close(&h);
    if (hand_open(&h, "chebyshev_eval", "K", 8, 0)) {   /* T3(0.5) = 4/8 - 3/2 = -1 */
        float *x = hin(&h, "x"), *c = hin(&h, "c");
        for (int k = 0; k < 8; k++) c[k] = k == 3;
        x[0] = 0.5f; x[1] = 1; x[2] = -1;
        if (hand_run(&h)) CHECK(near(F(&h, "y")[0], -1, 1e-7) && near(F(&h, "y")[1], 1, 1e-7) && near(F(&h, "y")[2], -1, 1e-7),
                                "chebyshev_eval: T3 = %g %g %g", F(&h, "y")[0], F(&h, "y")[1], F(&h, "y")[2]);
    }
    hand_close(&h);
    if (hand_open(&h, "chebyshev_eval", "K", 1, 0)) {
        ((float *)hin(&h, "c"))[0] = 2.5f;
        if (hand_run(&h)) CHECK(F(&h, "y")[0] == 2.5f, "chebyshev_eval: K = 1 gives c[0]");
    }
    hand_close(&h);
}

static void hand_optim_loss(void) {
    hand_case h;
    if (hand_open(&h, "lion_step", "n", 777, 0)) {   /* lr 1e-3, beta1 0.9, beta2 0.99, wd 0.01 */
        float *w = hin(&h, "w"), *m = hin(&h, "m"), *g = hin(&h, "g");
        w[0] = 1; m[0] = 0; g[0] = 1;
        w[1] = 2; m[1] = 0; g[1] = 0;   /* c = 0: sign 0, only the decay */
        w[2] = 1; m[2] = 1; g[2] = -2;  /* c = 0.9 - 0.2 > 0 */
        if (hand_run(&h)) {
            float *wo = F(&h, "w"), *mo = F(&h, "m");
            CHECK(near(wo[0], 1 - 0.001 * 1.01, 1e-7) && near(mo[0], 0.01, 1e-5) && near(wo[1], 2 - 0.001 * 0.02, 1e-7) &&
                      near(wo[2], 1 - 0.001 * 1.01, 1e-7) && near(mo[2], 0.99 - 0.02, 1e-6),
                  "lion_step: %g %g %g | %g %g", wo[0], wo[1], wo[2], mo[0], mo[2]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "adagrad_step", "n", 1, 0)) {   /* lr 0.01, eps 1e-8 */
        ((float *)hin(&h, "w"))[0] = 1;
        ((float *)hin(&h, "h"))[0] = 0;
        ((float *)hin(&h, "g"))[0] = 2;
        if (hand_run(&h)) CHECK(F(&h, "h")[0] == 4 && near(F(&h, "w")[0], 0.99, 1e-7), "adagrad_step: h %g w %g", F(&h, "h")[0], F(&h, "w")[0]);
    }
    hand_close(&h);
    if (hand_open(&h, "huber_loss_sum", "n", 1, 1)) {   /* delta 1; dist 1: loss starts at 2.5 */
        ((float *)hin(&h, "pred"))[0] = 3;
        ((float *)hin(&h, "target"))[0] = 0.5f;
        if (hand_run(&h)) CHECK(F(&h, "loss")[0] == 4.5f, "huber_loss_sum: 2.5 + (2.5 - 0.5) = %g", F(&h, "loss")[0]);
    }
    hand_close(&h);
    if (hand_open(&h, "huber_loss_sum", "n", 777, 0)) {
        float *p = hin(&h, "pred"), *t = hin(&h, "target");
        for (int i = 0; i < 777; i++) { p[i] = (float)i; t[i] = (float)i + 0.5f; }
        if (hand_run(&h)) CHECK(near(F(&h, "loss")[0], 777 * 0.125, 1e-7), "huber_loss_sum: 777 * 0.5 * 0.25 = %g", F(&h, "loss")[0]);
    }
    hand_close(&h);
    if (hand_open(&h, "bce_with_logits", "n", 777, 0)) {
        float *z = hin(&h, "logits"), *y = hin(&h, "labels");
        z[0] = 0; y[0] = 1; z[1] = 100; y[1] = 0; z[2] = -100; y[2] = 0; z[3] = 2; y[3] = 0.5f;
        if (hand_run(&h)) {
            float *l = F(&h, "loss");   /* log 2; 100; ~0; 0.5*(-log s(2)) + 0.5*(-log(1 - s(2))) = 1 + log(1 + e^-2) */
            CHECK(near(l[0], log(2.0), 1e-7) && near(l[1], 100, 1e-7) && l[2] >= 0 && l[2] < 1e-43 &&
                      near(l[3], 1 + log1p(exp(-2.0)), 1e-7),
                  "bce_with_logits: %g %g %g %g", l[0], l[1], l[2], l[3]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "dropout_residual", "n", 777, 0)) {   /* p 0.1 */
        float *x = hin(&h, "x"), *r = hin(&h, "res");
        uint8_t *m = hin(&h, "mask");
        x[0] = 2; m[0] = 1; r[0] = 1; x[1] = 2; m[1] = 0; r[1] = 1;
        if (hand_run(&h)) CHECK(near(F(&h, "out")[0], 1 + 2 / 0.9, 1e-6) && F(&h, "out")[1] == 1, "dropout_residual: %g %g", F(&h, "out")[0], F(&h, "out")[1]);
    }
    hand_close(&h);
    if (hand_open(&h, "int8_matmul_epilogue", "M", 1, 0)) {
        ((int32_t *)hin(&h, "acc"))[0] = 100;
        ((float *)hin(&h, "a_scale"))[0] = 0.1f;
        ((float *)hin(&h, "w_scale"))[0] = 0.1f;
        ((float *)hin(&h, "bias"))[0] = 0;
        if (hand_run(&h)) CHECK(near(F(&h, "out")[0], 1 / (1 + exp(-1.0)), 1e-6), "int8_matmul_epilogue: silu(1) = %g", F(&h, "out")[0]);
    }
    hand_close(&h);
}

static void hand_rows_scans(void) {
    hand_case h;
    if (hand_open(&h, "moving_avg", "n", 5, 0)) {   /* r = 7 covers the whole array */
        float *x = hin(&h, "x");
        for (int i = 0; i < 5; i++) x[i] = (float)(i + 1);
        if (hand_run(&h)) {
            float *y = F(&h, "y");
            CHECK(y[0] == 3 && y[2] == 3 && y[4] == 3, "moving_avg: %g %g %g", y[0], y[2], y[4]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "moving_avg", "n", 1000003, 0)) {   /* r = 3: the window shrinks at the ends */
        float *x = hin(&h, "x");
        for (int i = 0; i < 8; i++) x[i] = (float)i;
        if (hand_run(&h)) {
            float *y = F(&h, "y");   /* y0 = mean(0..3) = 1.5, y1 = mean(0..4) = 2, y3 = mean(0..6) = 3 */
            CHECK(y[0] == 1.5f && y[1] == 2 && y[3] == 3, "moving_avg: %g %g %g", y[0], y[1], y[3]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "running_max_rows", "rows", 7, 0)) {   /* 7 x 300 */
        float *x = hin(&h, "x");
        float r0[5] = {1, 0, 3, 2, 5};
        memcpy(x, r0, sizeof r0);
        x[300] = -7;   /* row 1 starts over */
        if (hand_run(&h)) {
            float *o = F(&h, "out");
            CHECK(o[0] == 1 && o[1] == 1 && o[2] == 3 && o[3] == 3 && o[4] == 5 && o[300] == -7, "running_max_rows: %g %g %g %g %g | %g",
                  o[0], o[1], o[2], o[3], o[4], o[300]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "csr_offsets", "n", 1000, 0)) {
        uint32_t *c = hin(&h, "counts");
        for (int i = 0; i < 1000; i++) c[i] = 1;
        c[999] = 5;
        if (hand_run(&h)) {
            uint32_t *o = hout(&h, "offsets");
            CHECK(o[0] == 0 && o[1] == 1 && o[999] == 999 && o[1000] == 1004, "csr_offsets: %u %u %u %u", o[0], o[1], o[999], o[1000]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "column_sums", "rows", 1000, 0)) {   /* 1000 x 777 */
        float *A = hin(&h, "A");
        for (int i = 0; i < 1000 * 777; i++) A[i] = (float)(i % 777);
        if (hand_run(&h)) CHECK(F(&h, "out")[0] == 0 && F(&h, "out")[5] == 5000 && F(&h, "out")[776] == 776000, "column_sums: %g %g %g",
                                F(&h, "out")[0], F(&h, "out")[5], F(&h, "out")[776]);
    }
    hand_close(&h);
    if (hand_open(&h, "mean_var", "n", 777, 0)) {   /* 0..776: mean 388, variance (777^2 - 1) / 12 */
        float *x = hin(&h, "x");
        for (int i = 0; i < 777; i++) x[i] = (float)i;
        if (hand_run(&h)) CHECK(F(&h, "stats")[0] == 388 && near(F(&h, "stats")[1], (777.0 * 777 - 1) / 12, 1e-7), "mean_var: %g %g",
                                F(&h, "stats")[0], F(&h, "stats")[1]);
    }
    hand_close(&h);
    if (hand_open(&h, "mean_var", "n", 1, 0)) {
        ((float *)hin(&h, "x"))[0] = 3;
        if (hand_run(&h)) CHECK(F(&h, "stats")[0] == 3 && F(&h, "stats")[1] == 0, "mean_var: one element");
    }
    hand_close(&h);
    if (hand_open(&h, "minmax_rows", "rows", 7, 0)) {   /* 7 x 3 */
        float *x = hin(&h, "x");
        float v[6] = {1, 2, 3, 5, 5, 5};
        memcpy(x, v, sizeof v);
        if (hand_run(&h)) {
            float *y = F(&h, "y");
            CHECK(y[0] == 0 && y[1] == 0.5f && y[2] == 1 && y[3] == 0 && y[4] == 0 && y[5] == 0, "minmax_rows: %g %g %g | %g %g %g",
                  y[0], y[1], y[2], y[3], y[4], y[5]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "batchnorm_infer", "C", 3, 0)) {   /* N 1, C 3, HW 1; eps 1e-5 */
        float xv[3] = {1, 2, 3}, var[3] = {1, 4, 0.25f};
        memcpy(hin(&h, "x"), xv, sizeof xv);
        memcpy(hin(&h, "var"), var, sizeof var);
        for (int c = 0; c < 3; c++) {
            ((float *)hin(&h, "mean"))[c] = 1;
            ((float *)hin(&h, "gamma"))[c] = 2;
            ((float *)hin(&h, "beta"))[c] = 0.5f;
        }
        if (hand_run(&h)) {
            float *y = F(&h, "y");   /* 0*2 + 0.5, (1/2)*2 + 0.5, (2/0.5)*2 + 0.5, up to eps */
            CHECK(y[0] == 0.5f && near(y[1], 1.5, 1e-5) && near(y[2], 8.5, 1e-4), "batchnorm_infer: %g %g %g", y[0], y[1], y[2]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "sort_groups32", "n", 777, 0)) {
        uint32_t *k = hin(&h, "keys");
        for (int i = 0; i < 777; i++) k[i] = (uint32_t)(776 - i);
        if (hand_run(&h)) {   /* group 0 holds 776..745 -> 745..776; the last group (768..776) holds 8..0 */
            uint32_t *o = hout(&h, "keys");
            CHECK(o[0] == 745 && o[31] == 776 && o[32] == 713 && o[768] == 0 && o[776] == 8, "sort_groups32: %u %u %u %u %u", o[0], o[31], o[32],
                  o[768], o[776]);
        }
    }
    hand_close(&h);
}

static void hand_index_sparse(void) {
    hand_case h;
    if (hand_open(&h, "byte_histogram", "n", 777, 1)) {   /* dist 1: bins start at 3 */
        uint8_t *d = hin(&h, "data");
        for (int i = 0; i < 777; i++) d[i] = (uint8_t)(i & 255);
        if (hand_run(&h)) {   /* 777 = 3*256 + 9: bins 0..8 get 4, the rest 3 */
            uint32_t *b = hout(&h, "bins");
            CHECK(b[0] == 7 && b[8] == 7 && b[9] == 6 && b[255] == 6, "byte_histogram: %u %u %u %u", b[0], b[8], b[9], b[255]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "embedding_lookup", "ntok", 33, 0)) {   /* vocab 7, dim 3 */
        float *tab = hin(&h, "table");
        int32_t *ids = hin(&h, "ids");
        for (int r = 0; r < 7; r++)
            for (int d = 0; d < 3; d++) tab[r * 3 + d] = (float)(r * 10 + d);
        for (int t = 0; t < 33; t++) ids[t] = t % 7;
        if (hand_run(&h)) {
            float *o = F(&h, "out");
            CHECK(o[0] == 0 && o[3 * 8 + 2] == 12 && o[3 * 32 + 1] == 41, "embedding_lookup: %g %g %g", o[0], o[26], o[97]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "embedding_lookup", "ntok", 33, 0)) {
        ((int32_t *)hin(&h, "ids"))[5] = 7;
        hand_refuses(&h, "an id past the vocabulary");
    }
    hand_close(&h);
    if (hand_open(&h, "inverse_perm", "n", 777, 0)) {
        int32_t *p = hin(&h, "perm");
        for (int i = 0; i < 777; i++) p[i] = (i + 5) % 777;
        if (hand_run(&h)) {
            int32_t *v = hout(&h, "inv");
            CHECK(v[5] == 0 && v[0] == 772 && v[4] == 776, "inverse_perm: %d %d %d", v[5], v[0], v[4]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "inverse_perm", "n", 777, 0)) {
        int32_t *p = hin(&h, "perm");
        p[1] = p[0];
        hand_refuses(&h, "a repeated index");
    }
    hand_close(&h);
    if (hand_open(&h, "coo_spmv_add", "rows", 5, 0)) {   /* 5 x 3, 100 entries, all at (0, 0), duplicates add up */
        int32_t *r = hin(&h, "row"), *c = hin(&h, "col");
        float *v = hin(&h, "val"), *x = hin(&h, "x"), *y = hin(&h, "y");
        for (int k = 0; k < 100; k++) { r[k] = 0; c[k] = 0; v[k] = 1; }
        r[99] = 4; c[99] = 2;
        x[0] = 2; x[2] = -1;
        for (int i = 0; i < 5; i++) y[i] = (float)i;
        if (hand_run(&h)) {
            float *o = F(&h, "y");
            CHECK(o[0] == 198 && o[1] == 1 && o[4] == 3, "coo_spmv_add: %g %g %g", o[0], o[1], o[4]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "coo_spmv_add", "rows", 5, 0)) {
        ((int32_t *)hin(&h, "col"))[7] = 3;
        hand_refuses(&h, "a column index past cols");
    }
    hand_close(&h);
    if (hand_open(&h, "csr_row_l1_normalize", "rows", 7, 0)) {   /* 7 rows, nnz 3 */
        int32_t rp[8] = {0, 0, 2, 2, 3, 3, 3, 3};
        float v[3] = {1, -3, 0};
        memcpy(hin(&h, "rowptr"), rp, sizeof rp);
        memcpy(hin(&h, "val"), v, sizeof v);
        if (hand_run(&h)) {   /* row 1: 1/4, -3/4; row 3 sums to 0 -> 0 */
            float *o = F(&h, "out");
            CHECK(o[0] == 0.25f && o[1] == -0.75f && o[2] == 0, "csr_row_l1_normalize: %g %g %g", o[0], o[1], o[2]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "csr_row_l1_normalize", "rows", 7, 0)) {
        int32_t rp[8] = {0, 2, 1, 2, 3, 3, 3, 3};
        memcpy(hin(&h, "rowptr"), rp, sizeof rp);
        hand_refuses(&h, "a decreasing rowptr");
    }
    hand_close(&h);
}

static void hand_linalg_stencil(void) {
    hand_case h;
    if (hand_open(&h, "swap_rows", "rows", 2, 0)) {   /* 2 x 1, r0 0, r1 1 */
        float *A = hin(&h, "A");
        A[0] = 1; A[1] = 2;
        if (hand_run(&h)) CHECK(F(&h, "A")[0] == 2 && F(&h, "A")[1] == 1, "swap_rows: %g %g", F(&h, "A")[0], F(&h, "A")[1]);
    }
    hand_close(&h);
    if (hand_open(&h, "swap_rows", "rows", 3, 0)) {   /* r0 == r1 == 1: nothing changes */
        if (hand_run(&h)) CHECK(!memcmp(hin(&h, "A"), hout(&h, "A"), 15 * sizeof(float)), "swap_rows: r0 == r1 leaves A alone");
    }
    hand_close(&h);
    if (hand_open(&h, "transform_points", "n", 1, 0)) {
        float M[16] = {1, 0, 0, 5, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 1}, p[4] = {1, 1, 1, 1};
        memcpy(hin(&h, "M"), M, sizeof M);
        memcpy(hin(&h, "pts"), p, sizeof p);
        if (hand_run(&h)) {
            float *o = F(&h, "out");
            CHECK(o[0] == 6 && o[1] == 2 && o[2] == 3 && o[3] == 1, "transform_points: %g %g %g %g", o[0], o[1], o[2], o[3]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "rank1_update", "rows", 1, 0)) {   /* 1 x 33, alpha 0.5 */
        float *A = hin(&h, "A"), *y = hin(&h, "y");
        ((float *)hin(&h, "x"))[0] = 2;
        for (int j = 0; j < 33; j++) { A[j] = 1; y[j] = (float)j; }
        if (hand_run(&h)) CHECK(F(&h, "A")[0] == 1 && F(&h, "A")[32] == 33, "rank1_update: %g %g", F(&h, "A")[0], F(&h, "A")[32]);
    }
    hand_close(&h);
    if (hand_open(&h, "symmetrize", "n", 33, 0)) {
        float *A = hin(&h, "A");
        for (int i = 0; i < 33 * 33; i++) A[i] = (float)i;
        if (hand_run(&h)) {   /* (33i + j + 33j + i) / 2 = 17 (i + j) */
            float *o = F(&h, "out");
            CHECK(o[0] == 0 && o[1] == 17 && o[33] == 17 && o[2 * 33 + 5] == 119, "symmetrize: %g %g %g %g", o[0], o[1], o[33], o[71]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "sobel_magnitude", "H", 3, 0)) {   /* 3 x 3 */
        float img[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
        memcpy(hin(&h, "img"), img, sizeof img);
        if (hand_run(&h)) {   /* gx = 0, gy = 2 + 4 + 2 */
            float *o = F(&h, "out");
            CHECK(o[4] == 8 && o[0] == 0 && o[3] == 0 && o[8] == 0, "sobel_magnitude: centre %g", o[4]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "sobel_magnitude", "H", 1, 0)) {   /* 1 x 5: all border */
        if (hand_run(&h)) CHECK(F(&h, "out")[0] == 0 && F(&h, "out")[2] == 0 && F(&h, "out")[4] == 0, "sobel_magnitude: 1-row image is 0");
    }
    hand_close(&h);
    if (hand_open(&h, "life_step", "H", 1000, 0)) {   /* 1000 x 777: a vertical blinker becomes horizontal */
        uint8_t *g = hin(&h, "grid");
        memset(g, 0, 1000 * 777);
        g[10 * 777 + 20] = g[11 * 777 + 20] = g[12 * 777 + 20] = 1;
        if (hand_run(&h)) {
            uint8_t *n = hout(&h, "next");
            int alive = 0;
            for (int i = 0; i < 1000 * 777; i++) alive += n[i];
            CHECK(alive == 3 && n[11 * 777 + 19] && n[11 * 777 + 20] && n[11 * 777 + 21], "life_step: blinker (%d alive)", alive);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "life_step", "H", 5, 0)) {   /* 5 x 3 torus: a vertical blinker in column 0 wraps across the edge */
        uint8_t *g = hin(&h, "grid");
        memset(g, 0, 15);
        g[1 * 3 + 0] = g[2 * 3 + 0] = g[3 * 3 + 0] = 1;
        if (hand_run(&h)) {   /* row 2 becomes alive in columns 2, 0, 1 (column -1 is column 2) */
            uint8_t *n = hout(&h, "next");
            int alive = 0;
            for (int i = 0; i < 15; i++) alive += n[i];
            CHECK(alive == 3 && n[6] && n[7] && n[8], "life_step: the blinker wraps (%d alive)", alive);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "pairwise_dist", "m", 7, 0)) {   /* 7 x 33, d 64 */
        float *a = hin(&h, "a"), *b = hin(&h, "b");
        for (int k = 0; k < 64; k++) { a[k] = 1; b[k] = 0; }
        b[64] = 3; b[65] = 4;   /* b_1 = (3, 4, 0...), a_0 = all ones */
        for (int k = 2; k < 64; k++) b[64 + k] = 1;
        if (hand_run(&h)) CHECK(F(&h, "dist")[0] == 8 && near(F(&h, "dist")[1], sqrt(4.0 + 9.0), 1e-7), "pairwise_dist: %g %g",
                                F(&h, "dist")[0], F(&h, "dist")[1]);
    }
    hand_close(&h);
    if (hand_open(&h, "grav_potential", "n", 33, 0)) {   /* soft 0.01 */
        float *p = hin(&h, "pos"), *m = hin(&h, "mass");
        for (int i = 0; i < 33; i++) { m[i] = 0; p[3 * i] = (float)i; p[3 * i + 1] = p[3 * i + 2] = 0; }
        m[3] = 2;   /* only body 3 has mass; body 0 is 3 away, body 3 itself feels nothing */
        if (hand_run(&h)) CHECK(near(F(&h, "phi")[0], -2 / sqrt(9 + 1e-4), 1e-6) && F(&h, "phi")[3] == 0, "grav_potential: %g %g",
                                F(&h, "phi")[0], F(&h, "phi")[3]);
    }
    hand_close(&h);
    if (hand_open(&h, "grav_potential", "n", 1, 0)) {
        if (hand_run(&h)) CHECK(F(&h, "phi")[0] == 0, "grav_potential: a lone body has phi 0");
    }
    hand_close(&h);
}

int main(void) {
    char *names[MAX_TASKS], *other[MAX_TASKS];
    int n = list_tasks(prose_dir(), names, MAX_TASKS);
    CHECK(n >= 30, "the prose suite has >= 30 tasks (%d)", n);
    for (int i = 0; i < n; i++) {
        check_json(prose_dir(), names[i]);
        check_task(prose_dir(), names[i]);
    }
    /* about a quarter of the requests in Chinese */
    CHECK(n > 0 && nzh * 5 >= n && nzh * 5 <= n * 2, "%d of %d requests in Chinese (want 20%%..40%%)", nzh, n);
    CHECK(nzh + nprose == n, "every task has its request");
    /* the categories of bench/suite, plus some outside them */
    static const char *want[] = {"elementwise", "activation", "normalization", "reduction", "scan", "histogram", "gather", "scatter",
                                 "sparse", "conversion", "optimizer", "loss", "linalg", "stencil", "pairwise", "nbody", "epilogue",
                                 "complex", "polynomial", "sort", "bitwise", "image", "rng", "string"};
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        bool seen = false;
        for (int i = 0; i < nfamilies; i++) seen |= !strcmp(families[i], want[w]);
        CHECK(seen, "a task of family '%s'", want[w]);
    }
    /* no name shared with the other held-out suite or the corpus (names are synth identities) */
    const char *others[2] = {"bench/suite", "corpus"};
    for (int k = 0; k < 2; k++) {
        int m = list_tasks(others[k], other, MAX_TASKS);
        CHECK(m > 0, "read %s", others[k]);
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) CHECK(strcmp(other[i], names[j]) != 0, "%s is also a task of %s", names[j], others[k]);
            free(other[i]);
        }
    }
    for (int i = 0; i < n; i++) free(names[i]);
    hand_elementwise();
    hand_optim_loss();
    hand_rows_scans();
    hand_index_sparse();
    hand_linalg_stencil();
    return TEST_DONE();
}
