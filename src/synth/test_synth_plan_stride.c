/* test_synth_plan_stride.c — the "stride variable" plan style (plan_stride.c; docs/LITERATE.md "Plan styles"):
 *
 *   - hand-made plans: the suite's form exactly (`unsigned int stride = gridDim.x * blockDim.x;` on
 *     the line before the loop, `i += stride`), `size_t` for a `(size_t)` step, one name for two
 *     block-stride loops of one block, the declaration above a loop's comment and pragma lines, first
 *     in the body when the loop is the body of an `if`, a taken name skipped; left alone: a step
 *     with a variable (`gridDim.x * cols`, `stride`), a literal step, an `l` literal, a loop in a
 *     __device__ helper;
 *   - every nvcc family, 120 seeds each: the rewritten plan with each declaration inlined back into
 *     its steps (by this test's own code) is the plan before, byte for byte; each declared type is
 *     the step's own (`size_t` exactly when it has a `(size_t)` cast); synth_literate_prepare writes
 *     as many `#pragma unroll 1`; the rewrite is a function of the seed; the families with
 *     grid-stride loops get it, and between 15% and 35% of the plans that have the form do;
 *   - with nvcc: at least 50 rewritten plans (72, one per kernel name) compile (literate); at least
 *     9 in 10 make the instructions of the plan before (comments stripped, registers and labels
 *     renumbered), in the same order or another, or differing only in how often a launch register
 *     (%ntid, %nctaid) is read and in `mul.wide.u32 a, b` for `cvt.u64.u32` of a and b and
 *     `mul.lo.s64` (the value of `(size_t)gridDim.x * blockDim.x` either way); the others are
 *     printed (nvcc may lay a loop out otherwise once its step is a variable: histogram's
 *     `b += blockDim.x` over 16 bins; that the plans compute the same is the inline-back check);
 *     their comments are lines of their plan and some carry the declaration; a varied batch through synth_family_generate_batch records "stride" in
 *     plan_variant and quotes its own plans.  Without nvcc (or SYNTH_STYLE_NVCC=0), SKIPPED.
 *   Run from the repository root. */
#include "common/test.h"
#include "synth/test_plan_util.h"
#include "synth/family_internal.h"
#include "ptxgen/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool idc(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* The first seed whose rewrite picks name `want`; out: that rewrite. */
static int rewrite_as(const char *cu, const char *want, pg_buf *out) {
    for (uint64_t seed = 1; seed < 20000; seed++) {
        pg_buf_free(out);
        pg_buf_puts(out, cu);
        char nm[40];
        int n = synth_plan_stride(seed, out, nm, sizeof nm);
        if (n && (!want || !strcmp(nm, want))) return n;
    }
    return 0;
}

static const char *HEAD = "extern \"C\" __global__ void k(const double* __restrict__ x, double* __restrict__ y, double a, unsigned int n, unsigned int cols)\n{\n";

static char *plan(const char *body) {
    pg_buf b = {0};
    pg_buf_puts(&b, HEAD);
    pg_buf_puts(&b, body);
    pg_buf_puts(&b, "}\n");
    return b.data;
}

static void test_handmade(void) {
    pg_buf o = {0};
    /* the suite's form */
    char *cu = plan("    double s = 0.0;\n"
                    "    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s = fma(x[i], x[i], s);\n"
                    "    y[blockIdx.x] = s;\n");
    char *want = plan("    double s = 0.0;\n"
                      "    unsigned int stride = gridDim.x * blockDim.x;\n"
                      "    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) s = fma(x[i], x[i], s);\n"
                      "    y[blockIdx.x] = s;\n");
    bool found = false;
    for (uint64_t seed = 1; seed < 20000 && !found; seed++) {   /* some seed writes exactly the suite's line */
        pg_buf_free(&o);
        pg_buf_puts(&o, cu);
        found = synth_plan_stride(seed, &o, NULL, 0) == 1 && !strcmp(o.data, want);
    }
    CHECK(found, "no seed writes the suite's form; the last:\n%s", o.data);
    free(cu);
    free(want);

    /* (size_t): size_t; the other placement: first in the body */
    cu = plan("    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * 256) y[i] = a * x[i];\n");
    int n = rewrite_as(cu, "gstride", &o);
    CHECK(n == 1 && strstr(o.data, "size_t gstride = (size_t)gridDim.x * 256;\n    for (size_t i") && strstr(o.data, "i += gstride)") &&
              !strstr(o.data, "unsigned int gstride"),
          "size_t step:\n%s", o.data);
    free(cu);

    /* two block-stride loops of one block, one name; comment and pragma lines stay over their loop */
    cu = plan("    __shared__ double sm[512];\n"
              "    for (unsigned int e = threadIdx.x; e < cols; e += blockDim.x) sm[e] = x[e];\n"
              "    __syncthreads();\n"
              "    // the second pass\n"
              "#pragma unroll 4\n"
              "    for (unsigned int e = threadIdx.x; e < cols; e += blockDim.x) y[e] = sm[e];\n");
    n = rewrite_as(cu, "nt", &o);
    CHECK(n == 2, "block stride: %d steps:\n%s", n, o.data);
    CHECK(o.data && strstr(o.data, "unsigned int nt = blockDim.x;\n") && strstr(o.data, "e < cols; e += nt) sm[e] = x[e];\n") &&
              strstr(o.data, "__syncthreads();\n    // the second pass\n#pragma unroll 4\n    for (unsigned int e = threadIdx.x; e < cols; e += nt) y[e]"),
          "block stride:\n%s", o.data);
    free(cu);
    cu = plan("    for (unsigned int e = threadIdx.x; e < cols; e += 8) y[e] = 0.0;\n"
              "    // the pass\n"
              "    for (unsigned int e = threadIdx.x; e < cols; e += blockDim.x) y[e] = x[e];\n");
    bool above = false;
    for (uint64_t seed = 1; seed < 20000 && !above; seed++) {
        pg_buf_free(&o);
        pg_buf_puts(&o, cu);
        above = synth_plan_stride(seed, &o, NULL, 0) == 1 && strstr(o.data, "y[e] = 0.0;\n    unsigned int ") && strstr(o.data, " = blockDim.x;\n    // the pass\n    for");
    }
    CHECK(above, "no seed puts the declaration above the loop's comment:\n%s", o.data);
    free(cu);

    /* a loop that is an if's body: only first in the body */
    cu = plan("    if (n > 0)\n"
              "        for (unsigned int r = blockIdx.x; r < n; r += gridDim.x) y[r] = x[r];\n");
    int first = 0, all = 0;
    for (uint64_t seed = 1; seed < 400; seed++) {
        pg_buf_free(&o);
        pg_buf_puts(&o, cu);
        char nm[40];
        if (!synth_plan_stride(seed, &o, nm, sizeof nm)) continue;
        all++;
        char d[120];
        snprintf(d, sizeof d, "{\n    unsigned int %s = gridDim.x;\n    if (n > 0)\n", nm);
        char dc[120];
        snprintf(dc, sizeof dc, "{\n    const unsigned int %s = gridDim.x;\n    if (n > 0)\n", nm);
        first += strstr(o.data, d) || strstr(o.data, dc);
    }
    CHECK(all > 50 && first == all, "if's body: %d of %d first in the body:\n%s", first, all, o.data);
    free(cu);

    /* a taken name is skipped */
    cu = plan("    unsigned int stride = 3, gstride = 5, grid_stride = 7, step = 9, nthreads = 11;\n"
              "    for (unsigned int i = threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = stride + gstride + grid_stride + step + nthreads;\n");
    n = rewrite_as(cu, NULL, &o);
    CHECK(n == 1 && strstr(o.data, "unsigned int total_threads = gridDim.x * blockDim.x;") && strstr(o.data, "i += total_threads)"), "taken names:\n%s",
          o.data);
    free(cu);

    /* never: a variable in the step, a literal step, an l literal, a helper's loop, no loop */
    const char *never[] = {
        "    for (unsigned int i = threadIdx.x; i < n; i += gridDim.x * cols) y[i] = 0.0;\n",
        "    unsigned int stride = gridDim.x * blockDim.x;\n    for (unsigned int i = threadIdx.x; i < n; i += stride) y[i] = 0.0;\n",
        "    for (unsigned int i = threadIdx.x; i < n; i += 256) y[i] = 0.0;\n",
        "    for (size_t i = threadIdx.x; i < n; i += gridDim.x * 256ul) y[i] = 0.0;\n",
        "    for (unsigned int i = threadIdx.x; i < n; i++) y[i] = 0.0;\n",
        "    y[blockIdx.x * blockDim.x + threadIdx.x] = gridDim.x * blockDim.x;\n",
    };
    int rewritten = 0;
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++) {
        cu = plan(never[i]);
        for (uint64_t seed = 1; seed <= 200; seed++) {
            pg_buf b = {0};
            pg_buf_puts(&b, cu);
            rewritten += synth_plan_stride(seed, &b, NULL, 0) != 0;
            CHECK(!strcmp(b.data, cu), "case %zu seed %llu: changed", i, (unsigned long long)seed);
            pg_buf_free(&b);
        }
        free(cu);
    }
    const char *helper =
        "__device__ __forceinline__ void fill(double* y, unsigned int n)\n{\n"
        "    for (unsigned int i = threadIdx.x; i < n; i += blockDim.x) y[i] = 0.0;\n}\n"
        "extern \"C\" __global__ void k(double* y, unsigned int n)\n{\n    fill(y, n);\n}\n";
    for (uint64_t seed = 1; seed <= 200; seed++) {
        pg_buf b = {0};
        pg_buf_puts(&b, helper);
        rewritten += synth_plan_stride(seed, &b, NULL, 0) != 0;
        pg_buf_free(&b);
    }
    CHECK(rewritten == 0, "%d rewrites where none may be", rewritten);
    pg_buf_free(&o);
}

/* ---- the families ------------------------------------------------------------------------ */
static const struct { const char *name; bool nvcc; } FAMS[] = {
#define SYNTH_FAMILY(name, fn, ref, nvcc) {name, nvcc},
#include "synth/families_all.def"
#undef SYNTH_FAMILY
};
enum { NFAM = (int)(sizeof FAMS / sizeof FAMS[0]), NSEED = 120, NPAIR = 72 };

/* seed i of family f: other families, other draws of the style, so the share counts ~1,000 draws */
static uint64_t fseed(int f, int i) { return test_seed_of(i) + 104729ull * (uint64_t)f; }

static bool has_tok(const char *t, const char *w, size_t m) {
    char one[64];
    snprintf(one, sizeof one, "%.*s", (int)m, w);
    for (const char *p = t; (p = strstr(p, one)) != NULL; p++)
        if ((p == t || !idc(p[-1])) && !idc(p[m])) return true;
    return false;
}

/* The plan with every declaration the rewrite added inlined back: a line `<blanks>[const ](unsigned
 * int|size_t) NAME = E;` whose NAME is no token of the plan before is dropped, and `+= NAME)` becomes
 * `+= E)`.  Counts the declarations; bad gets the declarations whose type is not E's own. */
static char *inline_back(const char *after, const char *before, int *ndecl, int *bad) {
    char names[8][40], exprs[8][160];
    int nd = 0;
    pg_buf o = {0};
    *ndecl = *bad = 0;
    for (const char *p = after; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
        const char *t = p;
        while (*t == ' ' || *t == '\t') t++;
        const char *u = !strncmp(t, "const ", 6) ? t + 6 : t;
        bool sz = !strncmp(u, "size_t ", 7), ui = !strncmp(u, "unsigned int ", 13);
        const char *nm = sz ? u + 7 : ui ? u + 13 : NULL, *ne = nm;
        while (ne && idc(*ne)) ne++;
        const char *eq = ne && !strncmp(ne, " = ", 3) ? ne + 3 : NULL, *semi = eq ? strchr(eq, ';') : NULL;
        if (eq && semi && semi < p + len && semi[1] == '\n' && nd < 8 && (size_t)(ne - nm) < 40 && (size_t)(semi - eq) < 160 &&
            (strstr(eq, "gridDim.") || strstr(eq, "blockDim.")) && memchr(eq, ',', (size_t)(semi - eq)) == NULL &&
            !has_tok(before, nm, (size_t)(ne - nm))) {
            snprintf(names[nd], sizeof names[nd], "%.*s", (int)(ne - nm), nm);
            snprintf(exprs[nd], sizeof exprs[nd], "%.*s", (int)(semi - eq), eq);
            if (sz != (strstr(exprs[nd], "(size_t)") != NULL)) ++*bad;
            nd++;
            p += len;
            continue;
        }
        pg_buf_putn(&o, p, len);
        p += len;
    }
    *ndecl = nd;
    pg_buf r = {0};
    const char *s = o.data ? o.data : "";
    while (*s) {
        bool done = false;
        for (int d = 0; d < nd && !done; d++) {
            size_t m = strlen(names[d]);
            if (!strncmp(s, "+= ", 3) && !strncmp(s + 3, names[d], m) && s[3 + m] == ')') {
                pg_buf_printf(&r, "+= %s)", exprs[d]);
                s += 4 + m;
                done = true;
            }
        }
        if (!done) pg_buf_putc(&r, *s++);
    }
    pg_buf_free(&o);
    return r.data ? r.data : strdup("");
}

typedef struct { char *before, *after, *name, nm[40]; } pair;
static pair pairs[NPAIR];
static int npairs;

static void test_families(void) {
    int fams_with = 0, rewritten_total = 0, candidates = 0, decls = 0;
    int per[NFAM];
    memset(per, 0, sizeof per);
    for (int f = 0; f < NFAM; f++) {
        if (!FAMS[f].nvcc) continue;
        for (int i = 0; i < NSEED; i++) {
            synth_family_sample s;
            memset(&s, 0, sizeof s);
            s.plan_style = SYNTH_PLAN_VARIED;
            if (synth_fam_draw(FAMS[f].name, fseed(f, i), &s) != PG_OK || !s.cu.len) { synth_family_sample_free(&s); continue; }
            pg_buf a = {0}, b = {0};
            pg_buf_putn(&a, s.cu.data, s.cu.len);
            pg_buf_putn(&b, s.cu.data, s.cu.len);
            char nm[40], nm2[40];
            int n = synth_plan_stride(fseed(f, i), &a, nm, sizeof nm);
            int n2 = synth_plan_stride(fseed(f, i), &b, nm2, sizeof nm2);
            CHECK(n == n2 && !strcmp(a.data, b.data) && !strcmp(nm, nm2), "%s seed #%d: not a function of the seed", FAMS[f].name, i);
            bool has_form = n > 0;   /* would another seed rewrite it? */
            for (uint64_t k = 1; k < 40 && !has_form; k++) {
                pg_buf c = {0};
                pg_buf_putn(&c, s.cu.data, s.cu.len);
                has_form = synth_plan_stride(fseed(f, i) + 1000003ull * k, &c, NULL, 0) > 0;
                pg_buf_free(&c);
            }
            candidates += has_form;
            if (n) {
                per[f]++;
                rewritten_total++;
                int nd, bad;
                char *x = inline_back(a.data, s.cu.data, &nd, &bad);
                CHECK(!strcmp(x, s.cu.data), "%s seed #%d (%s): the plan with its declarations inlined is not the plan:\n%s\n---- before\n%s",
                      FAMS[f].name, i, nm, x, s.cu.data);
                CHECK(nd >= 1 && nd <= n && bad == 0, "%s seed #%d: %d declarations for %d steps, %d of another type:\n%s", FAMS[f].name, i, nd, n, bad,
                      a.data);
                decls += nd;
                free(x);
                pg_buf pa = {0}, pb = {0};
                synth_literate_prepare(s.cu.data, &pb);
                synth_literate_prepare(a.data, &pa);
                CHECK(test_count(pa.data, "#pragma unroll 1\n") == test_count(pb.data, "#pragma unroll 1\n"), "%s seed #%d: other loops stay rolled", FAMS[f].name, i);
                pg_buf_free(&pa);
                pg_buf_free(&pb);
                bool dup = false;
                for (int j = 0; j < npairs && !dup; j++) dup = !strcmp(pairs[j].name, s.name);
                if (npairs < NPAIR && per[f] <= 4 && !dup) {   /* a few of each family for nvcc, one per kernel name */
                    pairs[npairs].before = strdup(s.cu.data);
                    pairs[npairs].after = strdup(a.data);
                    pairs[npairs].name = strdup(s.name);
                    snprintf(pairs[npairs].nm, sizeof pairs[npairs].nm, "%s", nm);
                    npairs++;
                }
            } else {
                CHECK(!strcmp(a.data, s.cu.data) && nm[0] == 0, "%s seed #%d: no rewrite but the plan changed", FAMS[f].name, i);
            }
            pg_buf_free(&a);
            pg_buf_free(&b);
            synth_family_sample_free(&s);
        }
        if (per[f]) fams_with++;
    }
    static const char *const MUST[] = {"activation", "optimizer", "quantize", "convert", "gather", "batched", "histogram", "reduce_all", "softmax"};
    for (size_t m = 0; m < sizeof MUST / sizeof MUST[0]; m++) {
        int f = 0;
        while (f < NFAM && strcmp(FAMS[f].name, MUST[m])) f++;
        CHECK(f < NFAM && per[f] > 0, "family %s: no plan with a stride variable in %d seeds", MUST[m], NSEED);
    }
    double share = candidates ? (double)rewritten_total / candidates : 0;
    CHECK(share > 0.15 && share < 0.35, "%d of %d plans with the form rewritten (%.1f%%): want about 1 in 4", rewritten_total, candidates, 100 * share);
    printf("families: %d nvcc families with stride plans; %d of %d plans with the form rewritten (%.1f%%), %d declarations\n", fams_with, rewritten_total,
           candidates, 100 * share, decls);
    for (int f = 0; f < NFAM; f++)
        if (per[f]) printf("  %s %d", FAMS[f].name, per[f]);
    printf("\n");
}

/* ---- nvcc ---------------------------------------------------------------------------------- */

/* The instructions of a PTX module, comments stripped, one string per line with register numbers
 * and label numbers dropped (`%rd`, `$L`), `.reg` declarations left out; sorted when `sort`. */
typedef struct { char **v; int n; } lines;
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
static lines instrs(const char *ptx, bool sort) {
    lines L = {0};
    ptx_module *m = NULL;
    pg_diag_sink q = {0};
    if (ptx_parse(ptx, strlen(ptx), "t", &m, &q) != PG_OK) return L;
    ptx_comments_strip(m);
    pg_buf o = {0};
    ptx_print(m, &o);
    ptx_module_free(m);
    int cap = 0;
    for (const char *p = o.data; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const char *t = p;
        while (t < p + len && (*t == ' ' || *t == '\t')) t++;
        if (t < p + len && strncmp(t, ".reg", 4)) {
            pg_buf l = {0};
            for (const char *z = t; z < p + len;) {
                if ((*z == '%' || *z == '$') && z + 1 < p + len && idc(z[1])) {   /* %rd12 -> %rd, $L__BB0_3 -> $L__BB */
                    const char *w = z + 1;
                    while (w < p + len && idc(*w) && !(*w >= '0' && *w <= '9')) w++;
                    pg_buf_putn(&l, z, (size_t)(w - z));
                    while (w < p + len && (idc(*w))) w++;
                    z = w;
                    continue;
                }
                if (*z == ' ' || *z == '\t') {   /* blanks collapsed */
                    if (l.len && l.data[l.len - 1] != ' ') pg_buf_putc(&l, ' ');
                } else {
                    pg_buf_putc(&l, *z);
                }
                z++;
            }
            if (L.n == cap) L.v = realloc(L.v, (size_t)(cap = cap ? 2 * cap : 256) * sizeof *L.v);
            L.v[L.n++] = l.data ? l.data : strdup("");
        }
        p = nl ? nl + 1 : p + len;
    }
    pg_buf_free(&o);
    if (sort) qsort(L.v, (size_t)L.n, sizeof *L.v, cmp_str);
    return L;
}
static void lines_free(lines *L) {
    for (int i = 0; i < L->n; i++) free(L->v[i]);
    free(L->v);
    memset(L, 0, sizeof *L);
}
static bool lines_eq(const lines *a, const lines *b) {
    if (a->n != b->n) return false;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->v[i], b->v[i])) return false;
    return true;
}
/* The equivalences of the file comment: reads of %ntid/%nctaid dropped, `mul.wide.u32 %rd, %r, %r;`
 * counted as two `cvt.u64.u32 %rd, %r;` and a `mul.lo.s64 %rd, %rd, %rd;`; sorted. */
static lines equiv(const lines *in) {
    lines L = {0};
    L.v = calloc((size_t)in->n * 3 + 1, sizeof *L.v);
    for (int i = 0; i < in->n; i++) {
        const char *s = in->v[i];
        if (!strncmp(s, "mov.u32 %r, %ntid.", 18) || !strncmp(s, "mov.u32 %r, %nctaid.", 20)) continue;
        if (!strcmp(s, "mul.wide.u32 %rd, %r, %r;")) {
            L.v[L.n++] = strdup("cvt.u64.u32 %rd, %r;");
            L.v[L.n++] = strdup("cvt.u64.u32 %rd, %r;");
            L.v[L.n++] = strdup("mul.lo.s64 %rd, %rd, %rd;");
            continue;
        }
        L.v[L.n++] = strdup(s);
    }
    qsort(L.v, (size_t)L.n, sizeof *L.v, cmp_str);
    return L;
}

static void test_nvcc(void) {
    if (npairs < 50) {
        CHECK(npairs >= 50, "only %d rewritten plans with distinct kernel names to compile", npairs);
        return;
    }
    const char *cb[NPAIR], *ca[NPAIR], *names[NPAIR];
    for (int i = 0; i < npairs; i++) cb[i] = pairs[i].before, ca[i] = pairs[i].after, names[i] = pairs[i].name;
    pg_buf pb[NPAIR], pa[NPAIR];
    memset(pb, 0, sizeof pb);
    memset(pa, 0, sizeof pa);
    pg_diag_sink q = {0};
    pg_status st0 = synth_cuda_ptx_batch(cb, names, NULL, npairs, "sm_80", SYNTH_FMT_LITERATE, pb, &q);
    if (st0 == PG_ERR_IO) {
        printf("SKIPPED: nvcc not found, the rewritten plans were not compiled\n");
        return;
    }
    pg_status st1 = synth_cuda_ptx_batch(ca, names, NULL, npairs, "sm_80", SYNTH_FMT_LITERATE, pa, &q);
    CHECK(st0 == PG_OK && st1 == PG_OK, "nvcc %d / %d", st0, st1);
    int same = 0, reordered = 0, equivalent = 0, other = 0, named = 0, comments = 0;
    for (int i = 0; i < npairs; i++) {
        CHECK(pb[i].len && pa[i].len, "%s (%s): no PTX before %zu / after %zu", pairs[i].name, pairs[i].nm, pb[i].len, pa[i].len);
        if (!pb[i].len || !pa[i].len) continue;
        lines b = instrs(pb[i].data, false), a = instrs(pa[i].data, false);
        CHECK(a.n > 0 && b.n > 0, "%s: PTX does not parse", pairs[i].name);
        if (lines_eq(&a, &b)) same++;
        else {
            lines bs = instrs(pb[i].data, true), as = instrs(pa[i].data, true);
            if (lines_eq(&as, &bs)) reordered++;
            else {
                lines be = equiv(&bs), ae = equiv(&as);
                bool eq = lines_eq(&ae, &be);
                equivalent += eq;
                if (!eq) {   /* nvcc laid the code out otherwise (the plans compute the same: test_families) */
                    printf("  other code: %s (%s), %d lines before, %d after\n", pairs[i].name, pairs[i].nm, b.n, a.n);
                    other++;
                }
                lines_free(&be);
                lines_free(&ae);
            }
            lines_free(&bs);
            lines_free(&as);
        }
        lines_free(&a);
        lines_free(&b);
        /* the comments: lines of the rewritten plan, one of them the declaration */
        bool has = false;
        for (const char *p = strstr(pa[i].data, ".entry"); p && (p = strstr(p, "\t// ")) != NULL;) {
            const char *e = strchr(p, '\n');
            size_t n = e ? (size_t)(e - p - 4) : strlen(p + 4);
            comments++;
            CHECK(test_in_plan(pairs[i].after, p + 4, n), "%s: the comment '%.*s' is no line of its plan", pairs[i].name, (int)n, p + 4);
            char line[400];
            snprintf(line, sizeof line, "%.*s", (int)(n < 399 ? n : 399), p + 4);
            char decl[64];
            snprintf(decl, sizeof decl, " %s = ", pairs[i].nm);
            if (strstr(line, decl) && (strstr(line, "unsigned int ") || strstr(line, "size_t "))) has = true;
            p += 4 + n;
        }
        CHECK(has, "%s: no plan comment is the declaration of %s", pairs[i].name, pairs[i].nm);
        named += has;
        pg_buf_free(&pb[i]);
        pg_buf_free(&pa[i]);
    }
    CHECK(other * 10 <= npairs, "%d of %d rewritten plans compile to other instructions", other, npairs);
    /* the hook: a varied batch through synth_family_generate_batch */
    int f = synth_family_find("activation"), with = 0, compiled = 0;
    enum { N = 24 };
    uint64_t seeds[N];
    for (int i = 0; i < N; i++) seeds[i] = test_seed_of(i);
    synth_family_sample ss[N];
    memset(ss, 0, sizeof ss);
    CHECK(synth_family_generate_batch(f, seeds, N, "sm_80", SYNTH_FMT_LITERATE | SYNTH_FMT_PLAN_VARIED, ss, &q) == PG_OK, "activation batch");
    for (int i = 0; i < N; i++) {
        CHECK(ss[i].ptx.len > 0, "activation #%d (%s): no PTX", i, ss[i].plan_variant);
        if (!ss[i].ptx.len) continue;
        compiled++;
        if (strstr(ss[i].plan_variant, "stride")) {
            with++;
            CHECK(strstr(ss[i].cu.data, "+= gridDim") == NULL, "activation #%d: variant %s with a step still inline", i, ss[i].plan_variant);
        }
        for (const char *p = strstr(ss[i].ptx.data, ".entry"); p && (p = strstr(p, "\t// ")) != NULL;) {
            const char *e = strchr(p, '\n');
            size_t n = e ? (size_t)(e - p - 4) : strlen(p + 4);
            CHECK(test_in_plan(ss[i].cu.data, p + 4, n), "activation #%d: the comment '%.*s' is no line of its plan", i, (int)n, p + 4);
            p += 4 + n;
        }
        synth_family_sample_free(&ss[i]);
    }
    CHECK(with >= 1 && with < compiled, "activation batch: %d of %d with a stride variable", with, compiled);
    printf("nvcc: %d rewritten plans: %d the same instructions in the same order, %d in another order, %d equivalent "
           "(launch-register reads, mul.wide.u32), %d other code; %d with the declaration as a comment (%d comments); an activation "
           "batch of %d with %d stride plans\n",
           npairs, same, reordered, equivalent, other, named, comments, compiled, with);
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
