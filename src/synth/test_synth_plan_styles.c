/* test_synth_plan_styles.c — plan style variants of the elementwise families
 * (family_elem.c) and the row-wise ones (family_rowwise.c: names and `a = a + b`;
 * docs/LITERATE.md "Plan styles"):
 *
 *   - fixed style: every family's CUDA C and task.json are the ones of the code
 *     before the variants existed, pinned per seed in
 *     tests/golden/synth/elem_fixed.pins (FNV-1a 64 of cu and of task.json; the
 *     pins were written by the library at f2675eb); plan_variant stays "";
 *   - varied style: the task.json is the pinned one (the style comes from a
 *     stream of its own), the plan is a pure function of the seed, every shape
 *     (fixed, return, block, inline, vector) and index type (uint, int,
 *     const_int, size_t) appears, and each family that uses the builder draws
 *     several variants;
 *   - the builder on hand-made kernels: the exact text of the inlined one-line
 *     guard (f16 loads, s8 and raw f16 stores), the fallbacks (two statements,
 *     an input read too often), natural names that avoid the kernel's names,
 *     and no const loop variable;
 *   - with nvcc: the varied plans of a batch compile (literate), and every plan
 *     comment of each sample's PTX is a line of its own plan (samples with an
 *     equal name and another plan are compiled apart).  Without nvcc, SKIPPED.
 *
 * SYNTH_PIN_UPDATE=1 rewrites the pins after a deliberate change of a family;
 * SYNTH_STYLE_NVCC=0 skips the compilations.  Run from the repository root. */
#include "common/test.h"
#include "synth/test_plan_util.h"
#include "synth/family_elem.h"
#include "synth/family_rowwise.h"
#include "ptxgen/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <ctype.h>

#define PINS "tests/golden/synth/plan_fixed.pins"
enum { NSEED = 200 };

static const struct { const char *name; fam_gen_fn fn; bool rowwise; } FAMS[] = {
#define SYNTH_FAMILY(name, fn, ref, nvcc) {name, fn, false},
#include "synth/families_elementwise.def"
#undef SYNTH_FAMILY
#define SYNTH_FAMILY(name, fn, ref, nvcc) {name, fn, true},
#include "synth/families_rowwise.def"
#undef SYNTH_FAMILY
};
enum { NFAM = (int)(sizeof FAMS / sizeof FAMS[0]) };

static uint64_t seed_of(int i) { return 1000003ull * (uint64_t)i + 17; }

static uint64_t h64(const pg_buf *b) { return pg_hash64_add(PG_HASH64_INIT_SHORT, b->data ? b->data : "", b->len); }

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    pg_buf b = {0};
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) pg_buf_putn(&b, tmp, n);
    fclose(f);
    return b.data;
}

/* ---- the builder on hand-made kernels ------------------------------------------------ */
static void emit(const fe_kernel *k, int shape, int index, int names, pg_buf *cu, char *variant) {
    fe_style st = {shape, index, names};
    pg_buf_free(cu);
    synth_fe_emit_styled(k, &st, cu, variant, 32);
}

static void test_builder(void) {
    pg_buf cu = {0};
    char v[32];
    /* f16 -> s8: the load converted, the store narrowed */
    fe_kernel k = {.name = "q", .comment = "c", .sig = "const __half* __restrict__ x, signed char* __restrict__ y, unsigned int n",
                   .n = "n", .body = "y_e = (int)rintf(x_e);\n", .V = 1};
    k.arr[k.narr++] = (fe_arr){"x", "f16", FE_IN, false};
    k.arr[k.narr++] = (fe_arr){"y", "s8", FE_OUT, false};
    emit(&k, FE_SHAPE_INLINE, FE_IDX_INT, 1, &cu, v);
    CHECK(strstr(cu.data, "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = (signed char)((int)rintf(__half2float(x[i])));\n}\n") != NULL,
          "f16 -> s8 inline:\n%s", cu.data);
    CHECK(!strcmp(v, "inline/int"), "variant %s", v);
    /* the same body as a block with natural names: v for the input, r declared at its assignment */
    emit(&k, FE_SHAPE_BLOCK, FE_IDX_SIZE, 1, &cu, v);
    CHECK(strstr(cu.data, "    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) {\n        float v = __half2float(x[i]);\n"
                          "        int r = (int)rintf(v);\n        y[i] = (signed char)(r);\n    }\n}\n") != NULL,
          "block:\n%s", cu.data);
    CHECK(!strcmp(v, "block/size_t"), "variant %s", v);
    /* a raw f16 store of __half_as_ushort(h): the half itself, no outer parentheses */
    fe_kernel r = {.name = "c", .comment = "c", .sig = "const float* __restrict__ a, __half* __restrict__ b, unsigned int n", .n = "n",
                   .body = "b_e = __half_as_ushort(__float2half_rz(a_e));   // round to zero\n", .V = 1};
    r.arr[r.narr++] = (fe_arr){"a", "f32", FE_IN, false};
    r.arr[r.narr++] = (fe_arr){"b", "f16", FE_OUT, true};
    emit(&r, FE_SHAPE_INLINE, FE_IDX_UINT, 2, &cu, v);
    CHECK(strstr(cu.data, "    if (i < n) b[i] = __float2half_rz(a[i]);   // round to zero\n") != NULL, "raw f16 inline:\n%s", cu.data);
    /* outer parentheses of the expression are dropped, inner ones kept */
    fe_kernel p = {.name = "p", .comment = "c", .sig = "const float* __restrict__ x, float* __restrict__ y, unsigned int n", .n = "n",
                   .body = "y_e = (x_e / (1.0f + expf(-x_e)));\n", .V = 1};
    p.arr[p.narr++] = (fe_arr){"x", "f32", FE_IN, false};
    p.arr[p.narr++] = (fe_arr){"y", "f32", FE_OUT, false};
    emit(&p, FE_SHAPE_INLINE, FE_IDX_CINT, 1, &cu, v);
    CHECK(strstr(cu.data, "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = x[i] / (1.0f + expf(-x[i]));\n") != NULL,
          "parentheses:\n%s", cu.data);
    /* five reads of x: not inlined, the early-return shape with natural names instead */
    p.body = "y_e = x_e * x_e * x_e * x_e * x_e;\n";
    emit(&p, FE_SHAPE_INLINE, FE_IDX_UINT, 2, &cu, v);
    CHECK(!strcmp(v, "return/uint") && strstr(cu.data, "    if (i >= n) return;\n    float xi = x[i];\n    float yi = xi * xi * xi * xi * xi;\n    y[i] = yi;\n"),
          "five reads (%s):\n%s", v, cu.data);
    /* three reads of a plain load are inlined, three of a converting one are not */
    p.body = "y_e = x_e * x_e * x_e;\n";
    emit(&p, FE_SHAPE_INLINE, FE_IDX_UINT, 2, &cu, v);
    CHECK(!strcmp(v, "inline/uint") && strstr(cu.data, "    if (i < n) y[i] = x[i] * x[i] * x[i];\n"), "three plain reads (%s):\n%s", v, cu.data);
    k.body = "y_e = (int)(x_e * x_e * x_e);\n";
    emit(&k, FE_SHAPE_INLINE, FE_IDX_UINT, 2, &cu, v);
    CHECK(!strcmp(v, "return/uint"), "three converting reads (%s):\n%s", v, cu.data);
    /* two statements: not inlined either */
    p.body = "float t = x_e + 1.0f;\ny_e = t * t;\n";
    emit(&p, FE_SHAPE_INLINE, FE_IDX_UINT, 1, &cu, v);
    CHECK(!strcmp(v, "return/uint") && strstr(cu.data, "    float v = x[i];\n    float t = v + 1.0f;\n    float r = t * t;\n    y[i] = r;\n"),
          "two statements (%s):\n%s", v, cu.data);
    /* natural names avoid the kernel's own: a scalar v and a local r push them to xi, yi */
    fe_kernel c = {.name = "s", .comment = "c", .sig = "const float* __restrict__ x, float* __restrict__ y, float v, unsigned int n",
                   .n = "n", .body = "float r = x_e * v;\ny_e = r + 1.0f;\n", .V = 1};
    c.arr[c.narr++] = (fe_arr){"x", "f32", FE_IN, false};
    c.arr[c.narr++] = (fe_arr){"y", "f32", FE_OUT, false};
    emit(&c, FE_SHAPE_BLOCK, FE_IDX_UINT, 1, &cu, v);
    CHECK(strstr(cu.data, "float xi = x[i];\n        float r = xi * v;\n        float yi = r + 1.0f;\n        y[i] = yi;\n") != NULL,
          "collisions:\n%s", cu.data);
    /* grid-stride: the loop variable is never const; an early return becomes the loop body */
    c.grid_stride = true;
    emit(&c, FE_SHAPE_FIXED, FE_IDX_CINT, 3, &cu, v);
    CHECK(!strcmp(v, "block/int") && strstr(cu.data, "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {\n"),
          "grid-stride const (%s):\n%s", v, cu.data);
    /* vector kernels keep their layout, with the index type */
    c.grid_stride = false;
    c.V = 4;
    emit(&c, FE_SHAPE_INLINE, FE_IDX_SIZE, 1, &cu, v);
    CHECK(!strcmp(v, "vector/size_t") && strstr(cu.data, "    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n    if (t * 4 < n) {\n") &&
              strstr(cu.data, "                size_t i = i0 + l;\n") && strstr(cu.data, "            for (size_t i = i0; i < n; i++) {\n"),
          "vector (%s):\n%s", v, cu.data);
    /* no style: the house style, no variant */
    c.V = 1;
    pg_buf_free(&cu);
    synth_fe_emit_styled(&c, NULL, &cu, v, sizeof v);
    CHECK(v[0] == 0 && strstr(cu.data, "    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i >= n) return;\n    float x_e = x[i];\n    float y_e;\n"),
          "fixed:\n%s", cu.data);
    pg_buf_free(&cu);
}

/* ---- the families: pins, determinism, coverage ------------------------------------- */
static void test_families(bool update) {
    char *pins = update ? NULL : slurp(PINS);
    CHECK(update || pins, "cannot read %s (run from the repository root)", PINS);
    pg_buf fresh = {0};
    static const char *const SHAPES[] = {"fixed/", "return/", "block/", "inline/", "vector/"};
    static const char *const IDX[] = {"/uint", "/int", "/const_int", "/size_t"};
    int shape_n[5] = {0}, idx_n[4] = {0}, rw_renamed = 0, rw_expanded = 0;
    for (int f = 0; f < NFAM; f++) {
        int pinned = 0, task_same = 0, det = 0, nvar = 0;
        char seen[16][32];
        int nseen = 0;
        for (int i = 0; i < NSEED; i++) {
            synth_family_sample a, b, c;
            memset(&a, 0, sizeof a);
            memset(&b, 0, sizeof b);
            memset(&c, 0, sizeof c);
            b.plan_style = c.plan_style = SYNTH_PLAN_VARIED;
            bool ok = FAMS[f].fn(seed_of(i), &a) == PG_OK && FAMS[f].fn(seed_of(i), &b) == PG_OK && FAMS[f].fn(seed_of(i), &c) == PG_OK;
            CHECK(ok, "%s seed %d: generator failed", FAMS[f].name, i);
            char line[128], task_part[40];
            snprintf(line, sizeof line, "%s %d %016llx %016llx\n", FAMS[f].name, i, (unsigned long long)h64(&a.cu),
                     (unsigned long long)h64(&a.task_json));
            snprintf(task_part, sizeof task_part, " %016llx\n", (unsigned long long)h64(&b.task_json));
            if (update) pg_buf_puts(&fresh, line);
            else if (pins) {
                if (strstr(pins, line)) pinned++;
                else if (pinned + 3 > i) CHECK(false, "%s seed %d (%s): the fixed style is not the pinned output", FAMS[f].name, i, a.name);
                /* the varied sample's task is the pinned task of the seed */
                char head[48];
                snprintf(head, sizeof head, "%s %d ", FAMS[f].name, i);
                const char *at = strstr(pins, head);
                while (at && at != pins && at[-1] != '\n') at = strstr(at + 1, head);
                const char *eol = at ? strchr(at, '\n') : NULL;
                if (at && eol && eol - at > 17 && !strncmp(eol - 17, task_part, 18)) task_same++;
            }
            CHECK(a.plan_variant[0] == 0, "%s seed %d: fixed style with variant %s", FAMS[f].name, i, a.plan_variant);
            if (b.cu.len && b.cu.len == c.cu.len && !memcmp(b.cu.data, c.cu.data, b.cu.len) && !strcmp(b.plan_variant, c.plan_variant)) det++;
            if (b.plan_variant[0] && FAMS[f].rowwise) {
                nvar++;
                rw_renamed += strncmp(b.plan_variant, "names0/", 7) != 0;
                rw_expanded += strstr(b.plan_variant, "a=a+b") != NULL;
                /* a renamed or expanded plan differs from the fixed one, an untouched one does not */
                bool same = a.cu.len == b.cu.len && !memcmp(a.cu.data, b.cu.data, a.cu.len);
                CHECK(same == !strcmp(b.plan_variant, "names0/a+=b"), "%s seed %d: variant %s but the plan is %s", FAMS[f].name, i,
                      b.plan_variant, same ? "the fixed one" : "changed");
            } else if (b.plan_variant[0]) {
                nvar++;
                for (int s = 0; s < 5; s++) shape_n[s] += !strncmp(b.plan_variant, SHAPES[s], strlen(SHAPES[s]));
                for (int s = 0; s < 4; s++) {
                    size_t L = strlen(b.plan_variant), l = strlen(IDX[s]);
                    idx_n[s] += L >= l && !strcmp(b.plan_variant + L - l, IDX[s]);
                }
            }
            if (b.plan_variant[0]) {
                int k = 0;
                while (k < nseen && strcmp(seen[k], b.plan_variant)) k++;
                if (k == nseen && nseen < 16) snprintf(seen[nseen++], sizeof seen[0], "%s", b.plan_variant);
            }
            synth_family_sample_free(&a);
            synth_family_sample_free(&b);
            synth_family_sample_free(&c);
        }
        if (update) continue;
        CHECK(pinned == NSEED, "%s: %d of %d seeds give the pinned fixed-style output", FAMS[f].name, pinned, NSEED);
        CHECK(task_same == NSEED, "%s: %d of %d varied samples have the pinned task", FAMS[f].name, task_same, NSEED);
        CHECK(det == NSEED, "%s: %d of %d varied plans are deterministic", FAMS[f].name, det, NSEED);
        /* complex writes its kernels without the builder: no variants */
        if (FAMS[f].rowwise) CHECK(nvar == NSEED && nseen >= 2, "%s: %d varied plans, %d distinct variants", FAMS[f].name, nvar, nseen);
        else if (strcmp(FAMS[f].name, "complex")) CHECK(nseen >= 4, "%s: only %d distinct variants in %d seeds", FAMS[f].name, nseen, NSEED);
        printf("%s: %d seeds pinned, %d with a style variant, %d distinct variants\n", FAMS[f].name, pinned, nvar, nseen);
    }
    for (int s = 0; !update && s < 5; s++) CHECK(shape_n[s] > 0, "shape %s never drawn", SHAPES[s]);
    for (int s = 0; !update && s < 4; s++) CHECK(idx_n[s] > 0, "index %s never drawn", IDX[s]);
    CHECK(update || (rw_renamed > 0 && rw_expanded > 0), "row-wise: %d plans renamed, %d with a = a + b", rw_renamed, rw_expanded);
    if (update) {
        mkdir("tests/golden/synth", 0755);
        FILE *o = fopen(PINS ".tmp", "wb");
        bool ok = o && fwrite(fresh.data, 1, fresh.len, o) == fresh.len;
        ok = o && fclose(o) == 0 && ok;
        CHECK(ok && rename(PINS ".tmp", PINS) == 0, "cannot write %s", PINS);
        printf("wrote %s\n", PINS);
    }
    pg_buf_free(&fresh);
    free(pins);
}

/* ---- nvcc: varied plans compile, each PTX carries its own plan's lines ---------------- */

static void test_nvcc(void) {
    const char *only[] = {"convert", "activation", "optimizer", "softmax", "rownorm", "scan"};
    int compiled = 0, comments = 0, apart = 0;
    for (size_t o = 0; o < sizeof only / sizeof only[0]; o++) {
        int f = synth_family_find(only[o]);
        CHECK(f >= 0, "family %s", only[o]);
        if (f < 0) continue;
        enum { N = 24 };
        uint64_t seeds[N];
        for (int i = 0; i < N; i++) seeds[i] = seed_of(i % 11);   /* seeds twice: equal names, equal plans */
        /* activation: these two seeds name their kernels alike (act_gelu_tanh_f16_x1) with other plans */
        seeds[N - 2] = 4 * 7919;
        seeds[N - 1] = 199 * 7919;
        synth_family_sample ss[N];
        memset(ss, 0, sizeof ss);
        pg_diag_sink q = {0};
        pg_status st = synth_family_generate_batch(f, seeds, N, "sm_80", SYNTH_FMT_LITERATE | SYNTH_FMT_PLAN_VARIED, ss, &q);
        if (st == PG_ERR_IO && q.nerrors && !compiled) {
            printf("SKIPPED: nvcc not found, the varied plans were not compiled\n");
            return;
        }
        for (int i = 0; i < N; i++) {
            CHECK(ss[i].ptx.len > 0, "%s seed #%d (%s %s): no PTX", only[o], i, ss[i].name, ss[i].plan_variant);
            if (!ss[i].ptx.len) continue;
            compiled++;
            CHECK(ss[i].plan_variant[0] != 0 || !strstr(ss[i].cu.data, "_e = ") || o >= 3, "%s #%d: no variant recorded", only[o], i);
            const char *body = strstr(ss[i].ptx.data, ".entry");
            for (const char *p = body; p && (p = strstr(p, "\t// ")) != NULL;) {
                const char *e = strchr(p, '\n');
                size_t n = e ? (size_t)(e - p - 4) : strlen(p + 4);
                comments++;
                CHECK(test_in_plan(ss[i].cu.data, p + 4, n), "%s #%d (%s %s): the comment '%.*s' is no line of its plan", only[o], i, ss[i].name,
                      ss[i].plan_variant, (int)n, p + 4);
                p += 4 + n;
            }
        }
        for (int i = 0; i < N; i++)
            for (int j = 0; j < i; j++)
                if (ss[i].ptx.len && ss[j].ptx.len && !strcmp(ss[i].name, ss[j].name) && strcmp(ss[i].cu.data, ss[j].cu.data)) {
                    apart++;   /* an equal name with another plan: compiled on its own */
                    break;
                }
        for (int i = 0; i < N; i++) synth_family_sample_free(&ss[i]);
    }
    CHECK(apart > 0, "no two samples of a batch shared a name with other plans: the case is not tested");
    printf("nvcc: %d varied samples compiled (%d named like another with another plan), %d plan comments, each a line of its own plan\n",
           compiled, apart, comments);
}

/* ---- row-wise reductions as __device__ helpers ("/fn") ------------------------------------ */
/* The helpers inlined back: each `IND V = warp_OP(V);` / `IND V = block_OP(V, red);` of the kernel
 * replaced by its helper's lines (v renamed V, indented IND, the block's `v = warp_OP(v);` by the
 * warp helper's loop), the helpers dropped, `tid` with lane and wid as `pro` says.  An
 * implementation of its own, to check synth_fam_rw_helpers against: the result must be the plan. */
static char *inline_helpers(const char *h, const char *pro_full) {
    const char *k = strstr(h, "extern \"C\"");
    const char *d = strstr(h, "__device__ __forceinline__ ");
    if (!k || !d || d > k) return NULL;
    pg_buf o = {0};
    pg_buf_putn(&o, h, (size_t)(d - h));
    const char *p = k;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[400];
        snprintf(line, sizeof line, "%.*s", (int)(n < 399 ? n : 399), p);
        p += n + (nl ? 1 : 0);
        size_t ind = strspn(line, " ");
        char v[64], fn[32], v2[64];
        int used = 0;
        bool blk = sscanf(line + ind, "%63s = block_%31[a-z](%63[A-Za-z0-9_], red);%n", v, fn, v2, &used) == 3 && used && !line[ind + (size_t)used];
        used = 0;
        bool wrp = !blk && sscanf(line + ind, "%63s = warp_%31[a-z](%63[A-Za-z0-9_]);%n", v, fn, v2, &used) == 3 && used && !line[ind + (size_t)used];
        if (!strcmp(line, "    unsigned int tid = threadIdx.x;") && pro_full) { pg_buf_printf(&o, "%s\n", pro_full); continue; }
        if (!blk && !wrp) { pg_buf_printf(&o, "%s%s", line, nl ? "\n" : ""); continue; }
        /* the helper's body lines */
        char head[64], whead[64];
        snprintf(head, sizeof head, "%s_%s(", blk ? "block" : "warp", fn);
        snprintf(whead, sizeof whead, "warp_%s(", fn);
        const char *hb = strstr(h, head), *wb = strstr(h, whead);
        const char *wfor = wb ? strstr(wb, "    for (") : NULL;
        const char *wend = wfor ? strchr(wfor, '\n') : NULL;
        if (!hb || !wfor || !wend) { pg_buf_free(&o); return NULL; }
        char wl[300];
        snprintf(wl, sizeof wl, "%.*s", (int)(wend - wfor - 4), wfor + 4);
        const char *b0 = blk ? strstr(hb, "    v = warp_") : NULL;
        const char *b1 = blk ? strstr(hb, "    return v;") : NULL;
        if (blk && (!b0 || !b1)) { pg_buf_free(&o); return NULL; }
        pg_buf lines = {0};
        if (!blk) pg_buf_printf(&lines, "%s\n", wl);
        else
            for (const char *q = b0; q < b1;) {
                const char *e = strchr(q, '\n');
                if (!strncmp(q, "    v = warp_", 13)) pg_buf_printf(&lines, "%s\n", wl);
                else pg_buf_printf(&lines, "%.*s\n", (int)(e - q - 4), q + 4);
                q = e + 1;
            }
        /* v -> V as a whole word, each line indented */
        for (const char *q = lines.data; q && *q;) {
            const char *e = strchr(q, '\n');
            pg_buf_printf(&o, "%*s", (int)ind, "");
            for (const char *c = q; c < e; c++) {
                bool word = *c == 'v' && (c == q || !(isalnum((unsigned char)c[-1]) || c[-1] == '_')) && !(isalnum((unsigned char)c[1]) || c[1] == '_');
                if (word) pg_buf_puts(&o, v);
                else pg_buf_putc(&o, *c);
            }
            pg_buf_putc(&o, '\n');
            q = e + 1;
        }
        pg_buf_free(&lines);
    }
    return o.data;
}

/* Over 200 seeds of each row-wise family: the plans drawn with "/fn" define their helpers before
 * the kernel and call them in it, have fewer shuffles in the kernel than the fixed plan, and the
 * helpers come up in the families whose reductions are shuffles (about one plan in three); with
 * nvcc (nvcc_on), up to 4 helper plans a family compile to the fixed plan's instructions
 * (comments stripped: the renames and the helpers change no instruction) and every comment of
 * their literate PTX is a line of the plan, some of them a helper's. */
static void test_rw_helpers(bool nvcc_on) {
    int fn_total = 0, with_shfl = 0, compiled = 0, helper_comments = 0, inverted = 0;
    bool skipped = false;
    for (int f = 0; f < NFAM; f++) {
        if (!FAMS[f].rowwise) continue;
        int fn = 0, tried = 0;
        for (int i = 0; i < NSEED; i++) {
            synth_family_sample a, b;
            memset(&a, 0, sizeof a);
            memset(&b, 0, sizeof b);
            b.plan_style = SYNTH_PLAN_VARIED;
            if (FAMS[f].fn(seed_of(i), &a) != PG_OK || FAMS[f].fn(seed_of(i), &b) != PG_OK) {
                synth_family_sample_free(&a);
                synth_family_sample_free(&b);
                continue;
            }
            with_shfl += strstr(a.cu.data, "o > 0; o >>= 1)") != NULL;
            /* the transform on the fixed plan, inlined back, is the fixed plan */
            pg_buf hp = {0};
            pg_buf_putn(&hp, a.cu.data, a.cu.len);
            if (synth_fam_rw_helpers(&hp)) {
                const char *pro = strstr(a.cu.data, "    unsigned int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;");
                char *back = inline_helpers(hp.data, pro ? "    unsigned int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;" : NULL);
                CHECK(back && !strcmp(back, a.cu.data), "%s seed %d: the helpers inlined back are not the plan:\n%s\n---- helpers\n%s", FAMS[f].name, i,
                      back ? back : "(none)", hp.data);
                inverted += back && !strcmp(back, a.cu.data);
                free(back);
            }
            pg_buf_free(&hp);
            if (strstr(b.plan_variant, "/fn")) {
                fn++;
                const char *k = strstr(b.cu.data, "extern \"C\"");
                const char *h = strstr(b.cu.data, "__device__ __forceinline__ ");
                int sa = 0, sb = 0;
                for (const char *p = strstr(a.cu.data, "extern \"C\""); p && (p = strstr(p, "__shfl_xor_sync")) != NULL; p++) sa++;
                for (const char *p = k; p && (p = strstr(p, "__shfl_xor_sync")) != NULL; p++) sb++;
                CHECK(k && h && h < k && (strstr(k, "= block_") || strstr(k, "= warp_")) && sb < sa,
                      "%s seed %d (%s): helpers not before the kernel, not called, or the kernel's shuffles stay (%d -> %d):\n%s", FAMS[f].name, i,
                      b.plan_variant, sa, sb, b.cu.data);
                if (nvcc_on && !skipped && tried < 4) {
                    tried++;
                    const char *cu[2] = {a.cu.data, b.cu.data}, *nm[2] = {a.name, b.name};
                    pg_buf ptx[2] = {{0}, {0}};
                    pg_diag_sink q = {0};
                    pg_status s0 = synth_cuda_ptx_batch(&cu[0], &nm[0], NULL, 1, "sm_80", SYNTH_FMT_LITERATE, &ptx[0], &q);
                    if (s0 == PG_ERR_IO && !compiled) {
                        skipped = true;
                    } else {
                        pg_status s1 = synth_cuda_ptx_batch(&cu[1], &nm[1], NULL, 1, "sm_80", SYNTH_FMT_LITERATE, &ptx[1], &q);
                        CHECK(s0 == PG_OK && s1 == PG_OK, "%s seed %d: nvcc %d / %d", FAMS[f].name, i, s0, s1);
                        compiled += s1 == PG_OK;
                        for (const char *p = ptx[1].data ? strstr(ptx[1].data, ".entry") : NULL; p && (p = strstr(p, "\t// ")) != NULL;) {
                            const char *e = strchr(p, '\n');
                            size_t n = e ? (size_t)(e - p - 4) : strlen(p + 4);
                            CHECK(test_in_plan(b.cu.data, p + 4, n), "%s seed %d: the comment '%.*s' is no line of its plan", FAMS[f].name, i, (int)n, p + 4);
                            char line[300];
                            snprintf(line, sizeof line, "%.*s", (int)(n < 299 ? n : 299), p + 4);
                            /* a line only a helper has: its return, or its own lane and wid */
                            helper_comments += strstr(line, "return v;") != NULL || strstr(line, "= threadIdx.x & 31") != NULL ||
                                               strstr(line, "v = warp_") != NULL;
                            p += 4 + n;
                        }
                    }
                    pg_buf_free(&ptx[0]);
                    pg_buf_free(&ptx[1]);
                }
            }
            synth_family_sample_free(&a);
            synth_family_sample_free(&b);
        }
        fn_total += fn;
        if (!strcmp(FAMS[f].name, "softmax") || !strcmp(FAMS[f].name, "rownorm") || !strcmp(FAMS[f].name, "rowreduce") ||
            !strcmp(FAMS[f].name, "reduce_all"))
            CHECK(fn > NSEED / 10, "%s: %d of %d plans with helpers", FAMS[f].name, fn, NSEED);
        printf("  %s %d", FAMS[f].name, fn);
    }
    printf("\n");
    double share = with_shfl ? (double)fn_total / with_shfl : 0;
    CHECK(share > 0.2 && share < 0.45, "%d helper plans of %d with shuffle reductions (%.1f%%): want about one in three", fn_total, with_shfl,
          100 * share);
    if (nvcc_on && !skipped) CHECK(compiled > 0 && helper_comments > 0, "%d helper plans compiled; %d helper comments", compiled, helper_comments);
    CHECK(inverted > with_shfl / 2, "only %d of %d fixed plans with shuffle reductions were rewritten and inlined back", inverted, with_shfl);
    printf("row-wise helpers: %d fixed plans rewritten and inlined back to themselves; %d varied plans of %d with shuffle reductions (%.1f%%)%s",
           inverted, fn_total, with_shfl, 100 * share,
           skipped ? "; SKIPPED: nvcc not found\n" : "");
    if (nvcc_on && !skipped) printf("; nvcc: %d compiled, %d comments from a helper's lines\n", compiled, helper_comments);
    else if (!skipped) printf("\n");
}

/* ---- nvcc, fixed style: an equal name with another plan still quotes its own plan --------- */
/* In the fixed style two seeds can name a kernel alike and differ in the plan by their parameter
 * names.  Until 2026-12-06 they shared one compile, and the renaming to each task's names reached
 * the instructions but not the plan comments, so the second sample's comments quoted the first
 * one's plan: find such a pair and check that each comment is a line of its own plan. */
static void test_nvcc_fixed(void) {
    int f = -1;
    for (int k = 0; k < NFAM; k++)
        if (!strcmp(FAMS[k].name, "activation")) f = k;
    CHECK(f >= 0, "no activation family");
    if (f < 0) return;
    enum { M = 600 };
    static char names[M][96];
    static uint64_t cus[M];
    uint64_t pair[2] = {0, 0};
    bool found = false;
    for (int i = 0; i < M && !found; i++) {
        synth_family_sample a;
        memset(&a, 0, sizeof a);   /* plan_style 0: the fixed style */
        if (FAMS[f].fn(seed_of(i), &a) != PG_OK) { synth_family_sample_free(&a); continue; }
        snprintf(names[i], sizeof names[i], "%s", a.name);
        cus[i] = h64(&a.cu);
        for (int j = 0; j < i && !found; j++)
            if (!strcmp(names[j], names[i]) && cus[j] != cus[i]) {
                pair[0] = seed_of(j), pair[1] = seed_of(i);
                found = true;
            }
        synth_family_sample_free(&a);
    }
    CHECK(found, "no two fixed-style activation seeds of %d name a kernel alike with other plans: the case is not tested", M);
    if (!found) return;
    int f2 = synth_family_find("activation");
    synth_family_sample ss[2];
    memset(ss, 0, sizeof ss);
    pg_diag_sink q = {0};
    pg_status st = synth_family_generate_batch(f2, pair, 2, "sm_80", SYNTH_FMT_LITERATE, ss, &q);
    if (st == PG_ERR_IO && q.nerrors) {
        printf("SKIPPED: nvcc not found, the fixed-style pair was not compiled\n");
        return;
    }
    int comments = 0;
    for (int i = 0; i < 2; i++) {
        CHECK(ss[i].ptx.len > 0, "fixed pair #%d (%s): no PTX", i, ss[i].name);
        const char *body = ss[i].ptx.data ? strstr(ss[i].ptx.data, ".entry") : NULL;
        for (const char *p = body; p && (p = strstr(p, "\t// ")) != NULL;) {
            const char *e = strchr(p, '\n');
            size_t n = e ? (size_t)(e - p - 4) : strlen(p + 4);
            comments++;
            CHECK(test_in_plan(ss[i].cu.data, p + 4, n), "fixed pair #%d (%s): the comment '%.*s' is no line of its plan", i, ss[i].name,
                  (int)n, p + 4);
            p += 4 + n;
        }
    }
    CHECK(comments > 0, "the fixed pair's PTX has no plan comments");
    printf("nvcc: a fixed-style pair named %s with two plans, %d plan comments, each a line of its own plan\n", ss[0].name, comments);
    for (int i = 0; i < 2; i++) synth_family_sample_free(&ss[i]);
}

int main(void) {
    const char *up = getenv("SYNTH_PIN_UPDATE"), *nv = getenv("SYNTH_STYLE_NVCC");
    bool update = up && !strcmp(up, "1");
    if (!update) test_builder();
    test_families(update);
    if (!update) test_rw_helpers(!(nv && !strcmp(nv, "0")));
    if (!update && !(nv && !strcmp(nv, "0"))) {
        test_nvcc();
        test_nvcc_fixed();
    }
    return TEST_DONE();
}
