/* test_synth_plan_forms.c — the row-pointer, rolled-run and size_t-index plan styles (plan_forms.c;
 * docs/LITERATE.md "Plan styles"):
 *
 *   - hand-made plans: each style's exact rewrite, and the plans each leaves alone (a run of two,
 *     a run of declarations or with comments, an index used as `i * 2`, an index never divided, a
 *     row offset used in two blocks or with its row reassigned between uses);
 *   - every nvcc family, 120 seeds each, after synth_plan_defines as in the synth: each rewrite is
 *     a function of the seed and undone by this test's own inverse (the loop expanded back, the
 *     row pointer substituted back, the index declaration restored) gives the plan before, byte
 *     for byte; each style reaches the families it is for (rolled runs: poly; size_t index:
 *     bias_act or quantize; row pointers: 3 families or more) and a share of the plans with its
 *     form within bounds;
 *   - with nvcc, 60 pairs or more (before, after): both compile; rolled runs make the instructions
 *     of the plan before (comments stripped); the size_t index makes 64-bit division or remainder;
 *     row pointers are counted same / other; every comment of the styled plan's literate PTX is a
 *     line of the styled plan; and synth_family_generate_batch's varied samples that carry "ur",
 *     "64" or "rp" have the form in their plan and their PTX quotes that plan (the target is the
 *     styled plan's PTX).  Without nvcc, SKIPPED.  Run from the repository root. */
#include "common/test.h"
#include "synth/test_plan_util.h"
#include "synth/family_internal.h"
#include "ptxgen/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *name; bool nvcc; } FAMS[] = {
#define SYNTH_FAMILY(name, fn, ref, nvcc) {name, nvcc},
#include "synth/families_all.def"
#undef SYNTH_FAMILY
};
enum { NFAM = (int)(sizeof FAMS / sizeof FAMS[0]), NSEED = 120 };


typedef int (*style_fn)(uint64_t, pg_buf *);

/* The rewrite of cu by the first seed where fn applies (0: none in 200 seeds). */
static int apply_some(style_fn fn, const char *cu, pg_buf *out) {
    for (uint64_t seed = 1; seed < 200; seed++) {
        pg_buf_free(out);
        pg_buf_puts(out, cu);
        int n = fn(seed, out);
        if (n) return n;
    }
    return 0;
}
/* fn leaves cu alone for every seed */
static bool never(style_fn fn, const char *cu) {
    pg_buf o = {0};
    int n = apply_some(fn, cu, &o);
    bool same = !n && o.data && !strcmp(o.data, cu);
    pg_buf_free(&o);
    return same;
}

#define HEAD "extern \"C\" __global__ void kern(const float* __restrict__ x, const float* __restrict__ c, float* __restrict__ y, unsigned int n, unsigned int cols)\n{\n"

static void test_handmade(void) {
    pg_buf o = {0};
    /* unroll: a descending run of one-line blocks, an ascending run of assignments */
    const char *u = HEAD
        "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i >= n) return;\n"
        "    float xt = x[i], b1 = 0.0f, b2 = 0.0f, s = 0.0f;\n"
        "    { float b0 = c[3] + 2.0f * xt * b1 - b2; b2 = b1; b1 = b0; }\n"
        "    { float b0 = c[2] + 2.0f * xt * b1 - b2; b2 = b1; b1 = b0; }\n"
        "    { float b0 = c[1] + 2.0f * xt * b1 - b2; b2 = b1; b1 = b0; }\n"
        "    s = s + c[4] * xt;\n"
        "    s = s + c[5] * xt;\n"
        "    s = s + c[6] * xt;\n"
        "    s = s + c[7] * xt;\n"
        "    y[i] = c[0] + xt * b1 - b2 + s;\n"
        "}\n";
    CHECK(apply_some(synth_plan_unroll, u, &o) == 2, "unroll: two runs");
    CHECK(o.data && !strcmp(o.data, HEAD
                                "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                "    if (i >= n) return;\n"
                                "    float xt = x[i], b1 = 0.0f, b2 = 0.0f, s = 0.0f;\n"
                                "    #pragma unroll\n"
                                "    for (int k = 3; k >= 1; k--) { float b0 = c[k] + 2.0f * xt * b1 - b2; b2 = b1; b1 = b0; }\n"
                                "    #pragma unroll\n"
                                "    for (int k = 4; k < 8; k++) s = s + c[k] * xt;\n"
                                "    y[i] = c[0] + xt * b1 - b2 + s;\n"
                                "}\n"),
          "unroll: the rewrite:\n%s", o.data ? o.data : "");
    /* the loop variable: k taken, so q */
    const char *uk = HEAD "    float s = 0.0f; int k = 1;\n    s += c[1];\n    s += c[2];\n    s += c[3];\n    y[k] = s;\n}\n";
    CHECK(apply_some(synth_plan_unroll, uk, &o) == 1 && strstr(o.data, "for (int q = 1; q < 4; q++) s += c[q];\n"), "unroll: k taken:\n%s",
          o.data ? o.data : "");
    /* left alone: a run of two; declarations; a comment; two literals varying; a step of 2 */
    CHECK(never(synth_plan_unroll, HEAD "    float s = 0.0f;\n    s += c[1];\n    s += c[2];\n    y[0] = s;\n}\n"), "unroll: a run of two");
    CHECK(never(synth_plan_unroll, HEAD "    float a1 = c[1];\n    float a2 = c[2];\n    float a3 = c[3];\n    y[0] = a1;\n}\n"), "unroll: declarations");
    CHECK(never(synth_plan_unroll, HEAD "    float s = 0.0f;\n    s += c[1];   // one\n    s += c[2];\n    s += c[3];\n    y[0] = s;\n}\n"),
          "unroll: a comment");
    CHECK(never(synth_plan_unroll, HEAD "    float s = 0.0f;\n    s += c[1] * x[1];\n    s += c[2] * x[3];\n    s += c[3] * x[5];\n    y[0] = s;\n}\n"),
          "unroll: two literals vary");
    CHECK(never(synth_plan_unroll, HEAD "    float s = 0.0f;\n    s += c[1];\n    s += c[3];\n    s += c[5];\n    y[0] = s;\n}\n"), "unroll: step 2");
    CHECK(never(synth_plan_unroll, HEAD "    float s = 0.0f;\n    if (n > 4)\n    s += c[1];\n    s += c[2];\n    s += c[3];\n    y[0] = s;\n}\n"),
          "unroll: the first statement the body of an if");

    /* wide */
    const char *w = HEAD
        "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i >= n) return;\n"
        "    y[i] = x[i] + c[i % cols];\n"
        "}\n";
    CHECK(apply_some(synth_plan_wide, w, &o) == 1 &&
              !strcmp(o.data, HEAD
                      "    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "    if (i >= n) return;\n"
                      "    y[i] = x[i] + c[i % cols];\n"
                      "}\n"),
          "wide: the rewrite:\n%s", o.data ? o.data : "");
    CHECK(never(synth_plan_wide, HEAD "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i >= n) return;\n    y[i] = x[i];\n}\n"),
          "wide: never divided");
    CHECK(never(synth_plan_wide, HEAD "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i >= n) return;\n"
                                      "    y[i] = x[i * 2] + c[i % cols];\n}\n"),
          "wide: i * 2");
    CHECK(apply_some(synth_plan_wide, HEAD "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i >= n) return;\n    y[i] = c[i / cols];\n}\n", &o) == 1 &&
              strstr(o.data, "\n    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n    if (i >= n) return;\n"),
          "wide: an int index:\n%s", o.data ? o.data : "");
    const char *gs = HEAD
        "    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {\n"
        "        y[i] = x[i] * c[i % cols];\n"
        "    }\n"
        "}\n";
    CHECK(apply_some(synth_plan_wide, gs, &o) == 1 &&
              strstr(o.data, "\n    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {\n"
                             "        y[i] = x[i] * c[i % cols];\n"),
          "wide: a grid-stride loop:\n%s", o.data ? o.data : "");
    CHECK(never(synth_plan_wide, HEAD "    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += 256) {\n        y[i] = c[i % cols];\n    }\n}\n"),
          "wide: a loop whose step is no grid's");

    /* rowptr */
    const char *r = HEAD
        "    unsigned int row = blockIdx.x;\n"
        "    float s = 0.0f;\n"
        "    for (unsigned int j = threadIdx.x; j < cols; j += 32) s += x[(size_t)row * cols + j];\n"
        "    for (unsigned int j = threadIdx.x; j < cols; j += 32) y[(size_t)row * cols + j] = x[(size_t)row * cols + j] / s;\n"
        "}\n";
    CHECK(apply_some(synth_plan_rowptr, r, &o) == 2 &&
              !strcmp(o.data, HEAD
                      "    unsigned int row = blockIdx.x;\n"
                      "    float s = 0.0f;\n"
                      "    const float* xr = x + (size_t)row * cols;\n"
                      "    for (unsigned int j = threadIdx.x; j < cols; j += 32) s += xr[j];\n"
                      "    for (unsigned int j = threadIdx.x; j < cols; j += 32) y[(size_t)row * cols + j] = xr[j] / s;\n"
                      "}\n"),
          "rowptr: the rewrite:\n%s", o.data ? o.data : "");
    CHECK(never(synth_plan_rowptr, HEAD "    unsigned int row = blockIdx.x;\n    if (row < n) {\n        float v = x[(size_t)row * cols + n];\n        y[0] = v;\n    }\n"
                                        "    y[1] = x[(size_t)row * cols + n];\n}\n"),
          "rowptr: a use after the block closes");
    CHECK(never(synth_plan_rowptr, HEAD "    unsigned int row = blockIdx.x;\n    float s = x[(size_t)row * cols + n];\n    row += 1;\n"
                                        "    y[0] = s + x[(size_t)row * cols + n];\n}\n"),
          "rowptr: row reassigned between uses");
    CHECK(never(synth_plan_rowptr, HEAD "    unsigned int row = blockIdx.x;\n    if (row < n)\n        y[0] = x[(size_t)row * cols + n];\n}\n"),
          "rowptr: the body of an if without braces");
    CHECK(never(synth_plan_rowptr, HEAD "    unsigned int row = blockIdx.x;\n    if (row >= n) {\n        return;\n    }\n"
                                        "    else y[0] = x[(size_t)row * cols + n];\n}\n"),
          "rowptr: an else line");
    pg_buf_free(&o);
}

/* ---- the inverses ---------------------------------------------------------------------------- */

static bool has_line(const char *cu, const char *line, size_t n) {
    for (const char *p = cu; *p;) {
        const char *e = strchr(p, '\n');
        size_t m = e ? (size_t)(e - p) : strlen(p);
        if (m == n && !strncmp(p, line, n)) return true;
        p = e ? e + 1 : p + m;
    }
    return false;
}

/* after with each new `#pragma unroll` + `for (int K = A; K </>= B; K++/--) BODY` line (a line
 * before does not have) expanded back into its statements */
static char *unroll_inverse(const char *before, const char *after) {
    pg_buf o = {0};
    for (const char *p = after; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *t = p;
        while (*t == ' ') t++;
        const char *nx = e ? e + 1 : p + n;
        const char *ne = strchr(nx, '\n');
        size_t nn = ne ? (size_t)(ne - nx) : strlen(nx);
        if (!strncmp(t, "#pragma unroll", 14) && (size_t)(t - p) + 14 == n && *nx && !has_line(before, nx, nn)) {
            char var[16], cmp[3], inc[3];
            long a = 0, b = 0;
            int used = 0;
            const char *f = nx;
            while (*f == ' ') f++;
            if (sscanf(f, "for (int %15[a-z] = %ld; %*[a-z] %2[<>=] %ld; %*[a-z]%2[-+]) %n", var, &a, cmp, &b, inc, &used) == 5 && used) {
                const char *body = f + used;
                size_t bl = (size_t)(nx + nn - body), vl = strlen(var);
                for (long v = a; inc[0] == '+' ? v < b : v >= b; v += inc[0] == '+' ? 1 : -1) {
                    pg_buf_putn(&o, nx, (size_t)(f - nx));
                    for (size_t k = 0; k < bl;) {
                        bool id = !strncmp(body + k, var, vl) && (k == 0 || !(body[k - 1] == '_' || (body[k - 1] >= 'a' && body[k - 1] <= 'z'))) &&
                                  !(body[k + vl] == '_' || (body[k + vl] >= 'a' && body[k + vl] <= 'z') || (body[k + vl] >= '0' && body[k + vl] <= '9'));
                        if (id) { pg_buf_printf(&o, "%ld", v); k += vl; }
                        else pg_buf_putc(&o, body[k++]);
                    }
                    pg_buf_putc(&o, '\n');
                }
                p = ne ? ne + 1 : nx + nn;
                continue;
            }
        }
        pg_buf_putn(&o, p, n);
        if (e) pg_buf_putc(&o, '\n');
        p = e ? e + 1 : p + n;
    }
    return o.data ? o.data : strdup("");
}

/* after with its new `T* NM = Q + OFF;` line dropped and each NM[J] written Q[OFF + J] */
static char *rowptr_inverse(const char *before, const char *after) {
    char nm[96] = "", q[96] = "", off[200] = "";
    for (const char *p = after; *p && !nm[0];) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (!has_line(before, p, n)) {
            const char *star = memchr(p, '*', n);
            if (star && sscanf(star, "* %95[A-Za-z0-9_] = %95[A-Za-z0-9_] + %199[^;];", nm, q, off) != 3) nm[0] = 0;
        }
        p = e ? e + 1 : p + n;
    }
    if (!nm[0]) return strdup(after);
    pg_buf o = {0};
    size_t m = strlen(nm);
    for (const char *p = after; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *star = memchr(p, '*', n);
        char a[96], b[96];
        if (!has_line(before, p, n) && star && sscanf(star, "* %95[A-Za-z0-9_] = %95[A-Za-z0-9_] +", a, b) == 2 && !strcmp(a, nm)) {
            p = e ? e + 1 : p + n;
            continue;
        }
        for (size_t k = 0; k < n;) {
            if (!strncmp(p + k, nm, m) && p[k + m] == '[' && (k == 0 || !(p[k - 1] == '_' || (p[k - 1] >= 'a' && p[k - 1] <= 'z') ||
                                                                          (p[k - 1] >= 'A' && p[k - 1] <= 'Z') || (p[k - 1] >= '0' && p[k - 1] <= '9')))) {
                pg_buf_printf(&o, "%s[%s + ", q, off);
                k += m + 1;
                continue;
            }
            pg_buf_putc(&o, p[k++]);
        }
        if (e) pg_buf_putc(&o, '\n');
        p = e ? e + 1 : p + n;
    }
    return o.data ? o.data : strdup("");
}

/* after with `size_t V = (size_t)blockIdx.x` written back `TYPE V = blockIdx.x` */
static char *wide_inverse_as(const char *after, const char *type) {
    static const char *W = " = (size_t)blockIdx.x * blockDim.x + threadIdx.x";
    size_t wn = strlen(W);
    pg_buf o = {0};
    for (const char *p = after; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *s = strstr(p, "size_t ");
        const char *c = s && s < p + n ? strstr(s, W) : NULL;
        if (c && c < p + n) {
            pg_buf_putn(&o, p, (size_t)(s - p));
            pg_buf_printf(&o, "%s ", type);
            pg_buf_putn(&o, s + 7, (size_t)(c - s - 7));
            pg_buf_puts(&o, " = blockIdx.x * blockDim.x + threadIdx.x");
            pg_buf_putn(&o, c + wn, (size_t)(p + n - c - wn));
        } else {
            pg_buf_putn(&o, p, n);
        }
        if (e) pg_buf_putc(&o, '\n');
        p = e ? e + 1 : p + n;
    }
    return o.data ? o.data : strdup("");
}
static char *wide_inverse(const char *before, const char *after) {
    static const char *const T[] = {"unsigned int", "unsigned", "int"};
    char *x = NULL;
    for (size_t k = 0; k < 3; k++) {
        free(x);
        x = wide_inverse_as(after, T[k]);
        if (!strcmp(x, before)) break;
    }
    return x;
}

/* ---- the families ------------------------------------------------------------------------------ */

enum { ST_RP, ST_UR, ST_64, NST };
static const char *const ST_NAME[NST] = {"rowptr", "unroll", "wide"};
static const style_fn ST_FN[NST] = {synth_plan_rowptr, synth_plan_unroll, synth_plan_wide};

typedef struct { char *before, *after, *name; int style; } pair;
enum { MAXPAIRS = 96 };
static pair pairs[MAXPAIRS];
static int npairs;

static void test_families(void) {
    int per[NST][NFAM], got[NST] = {0}, cand[NST] = {0}, plans = 0, npairs_st[NST] = {0};
    memset(per, 0, sizeof per);
    for (int f = 0; f < NFAM; f++) {
        if (!FAMS[f].nvcc) continue;
        for (int i = 0; i < NSEED; i++) {
            synth_family_sample s;
            memset(&s, 0, sizeof s);
            s.plan_style = SYNTH_PLAN_VARIED;
            if (synth_fam_draw(FAMS[f].name, test_seed_of(i), &s) != PG_OK || !s.cu.len) { synth_family_sample_free(&s); continue; }
            synth_plan_defines(test_seed_of(i), s.task_json.data, &s.cu, NULL, 0);   /* as synth_family_generate_batch */
            plans++;
            for (int st = 0; st < NST; st++) {
                pg_buf a = {0}, b = {0};
                pg_buf_puts(&a, s.cu.data);
                pg_buf_puts(&b, s.cu.data);
                int n = ST_FN[st](test_seed_of(i), &a), n2 = ST_FN[st](test_seed_of(i), &b);
                CHECK(n == n2 && !strcmp(a.data, b.data), "%s %s seed #%d: not a function of the seed", ST_NAME[st], FAMS[f].name, i);
                bool has = n > 0;
                for (uint64_t k = 1; k < 24 && !has; k++) {
                    pg_buf c = {0};
                    pg_buf_puts(&c, s.cu.data);
                    has = ST_FN[st](test_seed_of(i) + 1000003ull * k, &c) > 0;
                    pg_buf_free(&c);
                }
                cand[st] += has;
                if (n) {
                    got[st]++;
                    per[st][f]++;
                    char *inv = st == ST_UR ? unroll_inverse(s.cu.data, a.data) : st == ST_RP ? rowptr_inverse(s.cu.data, a.data) : wide_inverse(s.cu.data, a.data);
                    CHECK(!strcmp(inv, s.cu.data), "%s %s seed #%d: undone, not the plan:\n%s\n---- before\n%s", ST_NAME[st], FAMS[f].name, i, inv,
                          s.cu.data);
                    free(inv);
                    if (npairs < MAXPAIRS && npairs_st[st] < 30 && per[st][f] <= (st == ST_RP ? 4 : 30)) {
                        pairs[npairs] = (pair){strdup(s.cu.data), strdup(a.data), strdup(s.name), st};
                        npairs++;
                        npairs_st[st]++;
                    }
                } else {
                    CHECK(!strcmp(a.data, s.cu.data), "%s %s seed #%d: no rewrite but the plan changed", ST_NAME[st], FAMS[f].name, i);
                }
                pg_buf_free(&a);
                pg_buf_free(&b);
            }
            synth_family_sample_free(&s);
        }
    }
    int nf[NST] = {0};
    for (int st = 0; st < NST; st++) {
        printf("%s: %d of %d plans (%d with the form, %.1f%%):", ST_NAME[st], got[st], plans, cand[st], cand[st] ? 100.0 * got[st] / cand[st] : 0.0);
        for (int f = 0; f < NFAM; f++)
            if (per[st][f]) { printf(" %s %d", FAMS[f].name, per[st][f]); nf[st]++; }
        printf("\n");
    }
    int poly = synth_family_find("poly"), bias = synth_family_find("bias_act"), quant = synth_family_find("quantize");
    CHECK(poly >= 0 && per[ST_UR][poly] > 0, "unroll: no poly plan rolled");
    CHECK((bias >= 0 && per[ST_64][bias] > 0) || (quant >= 0 && per[ST_64][quant] > 0), "wide: no bias_act or quantize plan widened");
    CHECK(nf[ST_RP] >= 3, "rowptr: %d families", nf[ST_RP]);
    double sh[NST];
    for (int st = 0; st < NST; st++) sh[st] = cand[st] ? (double)got[st] / cand[st] : 0;
    CHECK(sh[ST_RP] > 0.12 && sh[ST_RP] < 0.40, "rowptr: %.1f%% of plans with the form: want about 1 in 4", 100 * sh[ST_RP]);
    CHECK(sh[ST_UR] > 0.45 && sh[ST_UR] < 0.85, "unroll: %.1f%%: want about 2 in 3", 100 * sh[ST_UR]);
    CHECK(sh[ST_64] > 0.45 && sh[ST_64] < 0.85, "wide: %.1f%%: want about 2 in 3", 100 * sh[ST_64]);
}

/* ---- nvcc ---------------------------------------------------------------------------------------- */

static char *stripped(const char *ptx) {
    ptx_module *m = NULL;
    pg_diag_sink q = {0};
    if (ptx_parse(ptx, strlen(ptx), "t", &m, &q) != PG_OK) return NULL;
    ptx_comments_strip(m);
    pg_buf o = {0};
    ptx_print(m, &o);
    ptx_module_free(m);
    return o.data;
}

/* The opcodes of a PTX text's instructions (first word of each instruction line), sorted: the
 * same operations in any order compare equal. */
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
static char *opcodes(const char *ptx) {
    char **v = NULL;
    size_t n = 0, cap = 0;
    for (const char *p = ptx; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t m = e ? (size_t)(e - p) : strlen(p);
        const char *t = p;
        while (t < p + m && (*t == ' ' || *t == '\t')) t++;
        if (t < p + m && *t != '.' && *t != '/' && *t != '{' && *t != '}' && *t != '$' && !memchr(t, ':', (size_t)(p + m - t))) {
            const char *z = t;
            if (*z == '@') { while (z < p + m && *z != ' ' && *z != '\t') z++; while (z < p + m && (*z == ' ' || *z == '\t')) z++; }
            const char *w = z;
            while (w < p + m && *w != ' ' && *w != '\t' && *w != ';') w++;
            if (n == cap) v = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof *v);
            v[n++] = strndup(z, (size_t)(w - z));
        }
        p = e ? e + 1 : p + m;
    }
    qsort(v, n, sizeof *v, cmp_str);
    pg_buf o = {0};
    for (size_t i = 0; i < n; i++) {
        pg_buf_printf(&o, "%s\n", v[i]);
        free(v[i]);
    }
    free(v);
    return o.data ? o.data : strdup("");
}

static bool comments_in_plan(const char *ptx, const char *cu, const char *what) {
    bool ok = true;
    for (const char *p = strstr(ptx, ".entry"); p && (p = strstr(p, "\t// ")) != NULL;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p - 4) : strlen(p + 4);
        if (!test_in_plan(cu, p + 4, n)) {
            CHECK(false, "%s: the comment '%.*s' is no line of its plan", what, (int)n, p + 4);
            ok = false;
        }
        p += 4 + n;
    }
    return ok;
}

/* Is tag one of the '/'-separated parts of variant v? */
static bool has_tag(const char *v, const char *tag) {
    size_t m = strlen(tag);
    for (const char *p = v; (p = strstr(p, tag)) != NULL; p++)
        if ((p == v || p[-1] == '/') && (p[m] == 0 || p[m] == '/')) return true;
    return false;
}

static void test_nvcc(void) {
    int compiled[NST] = {0}, same[NST] = {0}, sameset[NST] = {0};
    for (int i = 0; i < npairs; i++) {
        pair *pp = &pairs[i];
        const char *cu[2] = {pp->before, pp->after}, *names[2] = {pp->name, pp->name};
        pg_buf ptx[2] = {{0}, {0}};
        pg_diag_sink q = {0};
        pg_status st0 = synth_cuda_ptx_batch(&cu[0], &names[0], NULL, 1, "sm_80", SYNTH_FMT_LITERATE, &ptx[0], &q);
        if (st0 == PG_ERR_IO && i == 0 && !ptx[0].len) {
            printf("SKIPPED: nvcc not found, the styled plans were not compiled\n");
            return;
        }
        pg_status st1 = synth_cuda_ptx_batch(&cu[1], &names[1], NULL, 1, "sm_80", SYNTH_FMT_LITERATE, &ptx[1], &q);
        CHECK(st0 == PG_OK && st1 == PG_OK, "%s %s: nvcc %d / %d:\n%s", ST_NAME[pp->style], pp->name, st0, st1, pp->after);
        if (st0 == PG_OK && st1 == PG_OK) {
            compiled[pp->style]++;
            char *a = stripped(ptx[0].data), *b = stripped(ptx[1].data);
            bool eq = a && b && !strcmp(a, b);
            char *oa = a ? opcodes(a) : NULL, *ob = b ? opcodes(b) : NULL;
            bool eqset = oa && ob && !strcmp(oa, ob);
            free(oa);
            free(ob);
            same[pp->style] += eq;
            sameset[pp->style] += eqset;
            if (pp->style == ST_UR) CHECK(eqset, "unroll %s: other instructions after the rewrite:\n%s", pp->name, pp->after);
            if (pp->style == ST_64)
                CHECK(b && (strstr(b, "div.u64") || strstr(b, "rem.u64")) && a && !strstr(a, "div.u64") && !strstr(a, "rem.u64"),
                      "wide %s: no 64-bit division in the styled plan's PTX", pp->name);
            free(a);
            free(b);
            comments_in_plan(ptx[1].data, pp->after, pp->name);
        }
        pg_buf_free(&ptx[0]);
        pg_buf_free(&ptx[1]);
    }
    int total = 0;
    for (int st = 0; st < NST; st++) {
        total += compiled[st];
        printf("nvcc %s: %d pairs compiled, %d with the same PTX (comments stripped), %d with the same instructions in some order\n", ST_NAME[st],
               compiled[st], same[st], sameset[st]);
        CHECK(compiled[st] >= 8, "%s: %d pairs compiled", ST_NAME[st], compiled[st]);
    }
    CHECK(total >= 50, "%d pairs compiled: want 50", total);

    /* the pipeline: varied batches; the tagged samples carry the form and quote their own plan */
    static const char *const FB[] = {"poly", "bias_act", "quantize", "gemvt", "stencil2d", "transpose"};
    int tagged[NST] = {0};
    for (size_t fb = 0; fb < sizeof FB / sizeof *FB; fb++) {
        int f = synth_family_find(FB[fb]);
        enum { N = 12 };
        uint64_t seeds[N];
        for (int i = 0; i < N; i++) seeds[i] = test_seed_of(i) + 17;
        synth_family_sample ss[N];
        memset(ss, 0, sizeof ss);
        pg_diag_sink q = {0};
        CHECK(f >= 0 && synth_family_generate_batch(f, seeds, N, "sm_80", SYNTH_FMT_LITERATE | SYNTH_FMT_PLAN_VARIED, ss, &q) == PG_OK, "%s batch", FB[fb]);
        for (int i = 0; i < N; i++) {
            if (!ss[i].ptx.len) { synth_family_sample_free(&ss[i]); continue; }
            const char *v = ss[i].plan_variant;
            char what[96];
            snprintf(what, sizeof what, "%s #%d (%s)", FB[fb], i, v);
            if (has_tag(v, "ur")) {
                tagged[ST_UR]++;
                CHECK(strstr(ss[i].cu.data, "#pragma unroll\n") != NULL, "%s: no #pragma unroll", what);
            }
            if (has_tag(v, "64")) {
                tagged[ST_64]++;
                CHECK(strstr(ss[i].cu.data, "= (size_t)blockIdx.x * blockDim.x + threadIdx.x;") != NULL, "%s: no size_t index", what);
                CHECK(strstr(ss[i].ptx.data, "div.u64") || strstr(ss[i].ptx.data, "rem.u64"), "%s: no 64-bit division in the target", what);
            }
            if (has_tag(v, "rp")) tagged[ST_RP]++;
            comments_in_plan(ss[i].ptx.data, ss[i].cu.data, what);
            synth_family_sample_free(&ss[i]);
        }
    }
    printf("batches: %d ur, %d 64, %d rp samples\n", tagged[ST_UR], tagged[ST_64], tagged[ST_RP]);
    CHECK(tagged[ST_UR] > 0 && tagged[ST_64] > 0 && tagged[ST_RP] > 0, "a style missing from the varied batches");
}

int main(void) {
    test_handmade();
    test_families();
    if (getenv("SYNTH_STYLE_NVCC") && !strcmp(getenv("SYNTH_STYLE_NVCC"), "0")) printf("SKIPPED: SYNTH_STYLE_NVCC=0\n");
    else test_nvcc();
    for (int i = 0; i < npairs; i++) {
        free(pairs[i].before);
        free(pairs[i].after);
        free(pairs[i].name);
    }
    return TEST_DONE();
}
