/* test_suite_refs.c — the held-out evaluation suite (bench/suite/): every
 * task spec loads; its descriptions are complete (terse, detailed, card in
 * the kernel-card layout, zh in Chinese, and a "prose" text free of template
 * keywords); every (size, distribution) instance builds (buffers allocated up
 * to a cap, larger sizes have their lengths and launch evaluated); the C
 * reference runs on the smallest size of every distribution and writes only
 * finite values; and a few references are compared with hand-computed
 * values.  Run from the repository root (SUITE_DIR overrides bench/suite). */
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

static const char *suite_dir(void) {
    const char *d = getenv("SUITE_DIR");
    return d && *d ? d : "bench/suite";
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* ---- descriptions --------------------------------------------------------------- */
static bool has_cjk(const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p >= 0xE4 && *p <= 0xE9) return true;   /* lead byte of U+4000..U+9FFF */
    return false;
}

static bool contains_ci(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++) {
        size_t i = 0;
        while (i < n && p[i] && (p[i] | 32) == (needle[i] | 32)) i++;
        if (i == n) return true;
    }
    return false;
}

static void check_descriptions(const char *path) {
    json_t *root = json_load_file(path, 0, NULL);
    json_t *d = json_object_get(root, "descriptions");
    const char *keys[5] = {"terse", "detailed", "card", "zh", "prose"};
    for (int k = 0; k < 5; k++) {
        const char *s = json_string_value(json_object_get(d, keys[k]));
        CHECK(s && strlen(s) >= 20, "%s: descriptions.%s present", path, keys[k]);
    }
    const char *card = json_string_value(json_object_get(d, "card"));
    if (card)
        CHECK(!strncmp(card, "## ", 3) && strstr(card, "\n- Input") && (strstr(card, "\n- Output") || strstr(card, "\n- In/out")) &&
                  strstr(card, "\n- Goal:") && strstr(card, "\n- Constraint:"),
              "%s: the card has ## name, - Input, - Output (or - In/out), - Goal, - Constraint", path);
    const char *zh = json_string_value(json_object_get(d, "zh"));
    if (zh) CHECK(has_cjk(zh), "%s: zh is Chinese", path);
    /* prose is how a user talks: no template or jargon keywords */
    static const char *banned[] = {"elementwise", "element-wise", "saxpy", "axpy", "reduction", "reduce", "stencil",
                                   "gemv", "gemm", "softmax", "kernel", "expr", "histogram", "transpose", "spmv",
                                   "ellpack", "glu", "gelu", "relu", "cdiv"};
    const char *prose = json_string_value(json_object_get(d, "prose"));
    for (size_t b = 0; prose && b < sizeof banned / sizeof banned[0]; b++)
        CHECK(!contains_ci(prose, banned[b]), "%s: prose names the template keyword '%s'", path, banned[b]);
    json_decref(root);
}

/* ---- instances and references ---------------------------------------------------- */
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

static void check_task(const char *path, bool *is_expr) {
    pg_diag_sink q = {0};
    task_spec *t = NULL;
    CHECK(task_load(path, &t, &q) == PG_OK, "%s loads (%d errors)", path, q.nerrors);
    if (!t) return;
    *is_expr = t->ref.name && !strcmp(t->ref.name, "expr_eval");
    CHECK(t->ndists >= 2 && t->nsizes >= 2, "%s: >= 2 distributions and sizes", path);
    CHECK(t->cost_bytes[0] && t->cost_flops[0], "%s: cost model", path);
    bool odd = false;   /* some size is not a multiple of a warp / tile */
    for (int s = 0; s < t->nsizes; s++)
        for (int i = 0; i < t->sizes[s].env.n; i++) odd |= t->sizes[s].env.val[i] % 32 != 0;
    CHECK(odd, "%s: a size that is not a multiple of 32", path);
    for (int s = 0; s < t->nsizes; s++) {
        if (inst_bytes(t, s) > BUILD_CAP) {
            /* too large to build in a unit test: lengths and launch must still evaluate */
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
        task_inst in, ref;
        if (task_inst_make(t, small, d, 3, &in, &q) != PG_OK) { CHECK(false, "%s: smallest instance", path); continue; }
        pg_status st = task_reference_run(&in, &ref, &q);
        CHECK(st == PG_OK, "%s: C reference runs (dist %d)", path, d);
        for (int p = 0; st == PG_OK && p < t->nparams; p++) {
            if (!t->params[p].is_pointer || t->params[p].role == TASK_ROLE_IN) continue;
            size_t bad = count_nonfinite(t->params[p].dtype, ref.args[p].data, ref.args[p].count);
            CHECK(bad == 0, "%s: '%s' has %zu non-finite values (dist %d)", path, t->params[p].name, bad, d);
        }
        task_inst_free(&in);
        if (ref.args) task_inst_free(&ref);
    }
    task_free(t);
}

/* ---- hand-computed values ----------------------------------------------------------- */
typedef struct { task_spec *t; task_inst in, ref; bool ok; } hand_case;

/* Load task `name`, build the instance of the size whose variable `var`
 * equals `val` (distribution dist); the caller overwrites inputs, then runs. */
static bool hand_open(hand_case *h, const char *name, const char *var, int64_t val, int dist) {
    memset(h, 0, sizeof *h);
    char path[512];
    snprintf(path, sizeof path, "%s/%s/task.json", suite_dir(), name);
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
static void *hout(hand_case *h, const char *p) { return task_buf(&h->ref, p); }
static void hand_close(hand_case *h) {
    if (h->in.args) task_inst_free(&h->in);
    if (h->ref.args) task_inst_free(&h->ref);
    task_free(h->t);
}

static void hand_values(void) {
    hand_case h;
    if (hand_open(&h, "quantize_s8", "n", 777, 0)) {   /* inv_scale 12.5: ties go to even */
        float *x = hin(&h, "x");
        x[0] = 0.2f; x[1] = 0.28f; x[2] = -0.2f; x[3] = 100.0f; x[4] = -100.0f; x[5] = 0.04f;
        if (hand_run(&h)) {
            int8_t *q = hout(&h, "q");
            CHECK(q[0] == 2 && q[1] == 4 && q[2] == -2 && q[3] == 127 && q[4] == -128 && q[5] == 0,
                  "quantize_s8: %d %d %d %d %d %d", q[0], q[1], q[2], q[3], q[4], q[5]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "exclusive_scan_1024", "n", 1025, 0)) {
        int32_t *x = hin(&h, "x");
        for (int i = 0; i < 1025; i++) x[i] = 1;
        if (hand_run(&h)) {
            int32_t *y = hout(&h, "y");
            CHECK(y[0] == 0 && y[1] == 1 && y[1023] == 1023 && y[1024] == 0, "exclusive_scan_1024: %d %d %d %d", y[0], y[1], y[1023], y[1024]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "histogram64_s32", "n", 777, 1)) {   /* dist 1: bins start at 7 */
        int32_t *x = hin(&h, "x");
        for (int i = 0; i < 777; i++) x[i] = i;
        x[776] = -1;   /* bin 63 (776 & 63 = 8 loses one) */
        if (hand_run(&h)) {
            uint32_t *b = hout(&h, "bins");
            /* 0..775 -> 12 per bin plus one more for bins 0..7; -1 -> bin 63 */
            CHECK(b[0] == 7 + 13 && b[7] == 7 + 13 && b[8] == 7 + 12 && b[62] == 7 + 12 && b[63] == 7 + 13,
                  "histogram64_s32: %u %u %u %u %u", b[0], b[7], b[8], b[62], b[63]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "complex_mul", "n", 1, 0)) {
        float *a = hin(&h, "a"), *b = hin(&h, "b");
        a[0] = 1; a[1] = 2; b[0] = 3; b[1] = 4;
        if (hand_run(&h)) {
            float *c = hout(&h, "c");
            CHECK(c[0] == -5.0f && c[1] == 10.0f, "complex_mul: (1+2i)(3+4i) = %g%+gi", c[0], c[1]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "poly_horner7", "n", 1, 0)) {
        float *x = hin(&h, "x"), *c = hin(&h, "coef");
        x[0] = 2;
        for (int k = 0; k < 8; k++) c[k] = (float)(k + 1);
        if (hand_run(&h)) CHECK(((float *)hout(&h, "y"))[0] == 1793.0f, "poly_horner7: sum (k+1) 2^k = %g", ((float *)hout(&h, "y"))[0]);
    }
    hand_close(&h);
    if (hand_open(&h, "stencil1d_5pt", "n", 5, 0)) {
        float *x = hin(&h, "x");
        for (int i = 0; i < 5; i++) x[i] = (float)(i + 1);
        if (hand_run(&h)) {
            float *o = hout(&h, "out");   /* 0.375*3 + 0.25*(2+4) + 0.0625*(1+5) = 3 */
            CHECK(o[0] == 1 && o[1] == 2 && o[2] == 3.0f && o[3] == 4 && o[4] == 5, "stencil1d_5pt: %g %g %g %g %g", o[0], o[1], o[2], o[3], o[4]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "masked_softmax_row", "rows", 7, 0)) {   /* 7 x 3 */
        float *x = hin(&h, "x");
        uint8_t *m = hin(&h, "mask");
        for (int i = 0; i < 21; i++) { x[i] = 0.5f; m[i] = 1; }
        m[0] = m[1] = m[2] = 0;   /* row 0 fully masked -> zeros */
        m[4] = 0;                 /* row 1: two kept equal entries -> 0.5 each */
        if (hand_run(&h)) {
            float *y = hout(&h, "y");
            CHECK(y[0] == 0 && y[1] == 0 && y[2] == 0 && fabsf(y[3] - 0.5f) < 1e-7f && y[4] == 0 && fabsf(y[5] - 0.5f) < 1e-7f &&
                      fabsf(y[6] - 1.0f / 3) < 1e-7f,
                  "masked_softmax_row: %g %g %g | %g %g %g | %g", y[0], y[1], y[2], y[3], y[4], y[5], y[6]);
        }
    }
    hand_close(&h);
    if (hand_open(&h, "cross_entropy_row", "rows", 7, 0)) {
        float *x = hin(&h, "logits");
        int32_t *l = hin(&h, "labels");
        for (int i = 0; i < 21; i++) x[i] = 0;
        l[0] = 1;
        if (hand_run(&h)) CHECK(fabsf(((float *)hout(&h, "loss"))[0] - logf(3.0f)) < 1e-6f, "cross_entropy_row: uniform logits -> log 3");
    }
    hand_close(&h);
    if (hand_open(&h, "ew_dot2", "n", 5, 0)) {   /* the expr reference reads the spec's "expr" */
        float *a = hin(&h, "a"), *b = hin(&h, "b"), *c = hin(&h, "c"), *d = hin(&h, "d");
        a[0] = 1; b[0] = 2; c[0] = 3; d[0] = 4;
        if (hand_run(&h)) CHECK(((float *)hout(&h, "out"))[0] == 14.0f, "ew_dot2: 1*2 + 3*4 = %g", ((float *)hout(&h, "out"))[0]);
    }
    hand_close(&h);
    if (hand_open(&h, "lj_shifted_aos", "N", 3, 0)) {   /* eps 0.5, sigma 1, cutoff 2.5 */
        float *p = hin(&h, "pos");
        float pos[9] = {0, 0, 0, 1, 0, 0, 10, 10, 10};   /* a pair at r = sigma, a far atom */
        memcpy(p, pos, sizeof pos);
        if (hand_run(&h)) {
            float *e = hout(&h, "energy");
            double s6 = pow(1 / 6.25, 3), ec = 2.0 * (s6 * s6 - s6), want = 0.0 - ec;   /* 4 eps (1 - 1) - ec */
            CHECK(fabs(e[0] - want) < 1e-7 && fabs(e[1] - want) < 1e-7 && e[2] == 0, "lj_shifted_aos: %g %g %g (want %g)", e[0], e[1], e[2], want);
        }
    }
    hand_close(&h);
}

int main(void) {
    DIR *d = opendir(suite_dir());
    CHECK(d != NULL, "open %s", suite_dir());
    if (!d) return TEST_DONE();
    char *names[MAX_TASKS];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < MAX_TASKS) {
        if (e->d_name[0] == '.') continue;
        char p[600];
        snprintf(p, sizeof p, "%s/%s/task.json", suite_dir(), e->d_name);
        FILE *f = fopen(p, "r");
        if (!f) continue;
        fclose(f);
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof(char *), cmp_str);
    CHECK(n >= 44, "the suite has >= 44 tasks (%d)", n);
    int nexpr = 0;
    for (int i = 0; i < n; i++) {
        char p[600];
        snprintf(p, sizeof p, "%s/%s/task.json", suite_dir(), names[i]);
        check_descriptions(p);
        bool is_expr = false;
        check_task(p, &is_expr);
        nexpr += is_expr;
        free(names[i]);
    }
    CHECK(nexpr >= 10, "the suite has >= 10 held-out expression tasks (%d)", nexpr);
    hand_values();
    return TEST_DONE();
}
