/* test_synth_plan_defines.c — the "#define" plan style (plan_defines.c; docs/LITERATE.md "Plan styles"):
 *
 *   - hand-made plans: the exact rewrite of each context (`blockIdx.x * 256`, a loop's step and
 *     bound, a __shared__ extent, `lane < 8 ?`, the padded tile `[33]`), and the literals left
 *     alone (`256u`, an array index outside a __shared__ declaration, the bound of a loop with a
 *     literal start, comments, a 1-D block of one warp); a plan whose every candidate name is taken
 *     and one whose only candidates are __shared__ extents stay as they are;
 *   - every nvcc family, 120 seeds each: a rewritten plan expands (the macro replaced by its value)
 *     to the plan before the rewrite, byte for byte; its one #define stands before the kernel;
 *     synth_literate_prepare inserts as many `#pragma unroll 1` before and after; the rewrite is a
 *     function of the seed; the families people write block-size constants in (softmax, rownorm,
 *     xent, rowreduce, reduce_all, histogram, nbody, transpose) get it, and between 15% and 45%
 *     of the plans that have the forms do;
 *   - with nvcc: each rewritten plan's literate PTX, comments stripped, is the PTX of the plan
 *     before the rewrite; its comments are lines of the rewritten plan and some carry the name;
 *     a varied batch through synth_family_generate_batch (several plans defining names in one
 *     .cu) compiles, records "def" in plan_variant and quotes its own plans.  Without nvcc,
 *     SKIPPED.  Run from the repository root. */
#include "common/test.h"
#include "synth/test_plan_util.h"
#include "synth/family_internal.h"
#include "ptxgen/ptx.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *T256 = "{\"launch\": {\"block\": [\"256\"], \"grid\": [\"cdiv(n,256)\"], \"smem\": \"0\"}}";
static const char *T32x8 = "{\"launch\": {\"block\": [\"32\", \"8\"], \"grid\": [\"1\", \"1\"], \"smem\": \"0\"}}";
static const char *T32 = "{\"launch\": {\"block\": [\"32\"], \"grid\": [\"rows\"], \"smem\": \"0\"}}";

/* The first seed whose rewrite picks macro `want` (rewrites draw the name from the seed). */
static int rewrite_as(const char *cu, const char *task, const char *want, pg_buf *out) {
    for (uint64_t seed = 1; seed < 4000; seed++) {
        pg_buf_free(out);
        pg_buf_puts(out, cu);
        char nm[16];
        int n = synth_plan_defines(seed, task, out, nm, sizeof nm);
        if (n && !strcmp(nm, want)) return n;
    }
    return 0;
}

static void test_handmade(void) {
    const char *cu =
        "// k: a row kernel\n"
        "extern \"C\" __global__ void k(const float* __restrict__ x, float* __restrict__ y, unsigned int rows, unsigned int cols)\n"
        "{\n"
        "    __shared__ float s[256 + 4], red[32];\n"
        "    unsigned int lane = threadIdx.x & 31, i = blockIdx.x * 256 + threadIdx.x;   // 256 threads\n"
        "    float m = 0.0f;\n"
        "    for (unsigned int j = threadIdx.x; j < cols; j += 256) m += x[j];\n"
        "    for (int k = 0; k < 256; k++) m += x[256];\n"
        "    for (unsigned int t = threadIdx.x; t < 256; t += 8u) s[t] = 0.0f;\n"
        "    m = lane < 8 ? red[lane] : 0.0f;\n"
        "    if (i < 256u) y[i] = m + 256.0f;\n"
        "}\n";
    pg_buf o = {0};
    int n = rewrite_as(cu, T256, "NT", &o);
    CHECK(n == 5, "NT: %d literals replaced:\n%s", n, o.data);
    const char *want =
        "// k: a row kernel\n"
        "#define NT 256\n"
        "extern \"C\" __global__ void k(const float* __restrict__ x, float* __restrict__ y, unsigned int rows, unsigned int cols)\n"
        "{\n"
        "    __shared__ float s[NT + 4], red[32];\n"
        "    unsigned int lane = threadIdx.x & 31, i = blockIdx.x * NT + threadIdx.x;   // 256 threads\n"
        "    float m = 0.0f;\n"
        "    for (unsigned int j = threadIdx.x; j < cols; j += NT) m += x[j];\n"
        "    for (int k = 0; k < 256; k++) m += x[256];\n"
        "    for (unsigned int t = threadIdx.x; t < NT; t += 8u) s[t] = 0.0f;\n"
        "    m = lane < NT / 32 ? red[lane] : 0.0f;\n"
        "    if (i < 256u) y[i] = m + 256.0f;\n"
        "}\n";
    CHECK(o.data && !strcmp(o.data, want), "the rewrite:\n%s", o.data);

    /* a 2-D tile: TILE, TILE + 1 for the padded row, the y block's 8 stays */
    const char *tr =
        "#include <cuda_fp16.h>\n"
        "extern \"C\" __global__ void t(const double* __restrict__ in, double* __restrict__ out, unsigned int rows, unsigned int cols)\n"
        "{\n"
        "    __shared__ double tile[32][33];\n"
        "    unsigned int c0 = blockIdx.x * 32, r0 = blockIdx.y * 32;\n"
        "    for (unsigned int k = threadIdx.y; k < 32; k += 8) tile[k][threadIdx.x] = in[(size_t)(r0 + k) * cols + c0 + threadIdx.x];\n"
        "}\n";
    n = rewrite_as(tr, T32x8, "TILE", &o);
    CHECK(n == 5, "TILE: %d literals replaced:\n%s", n, o.data);
    CHECK(o.data && strstr(o.data, "#include <cuda_fp16.h>\n#define TILE 32\nextern") && strstr(o.data, "tile[TILE][TILE + 1];") &&
              strstr(o.data, "blockIdx.x * TILE, r0 = blockIdx.y * TILE;") && strstr(o.data, "k < TILE; k += 8)"),
          "the tile:\n%s", o.data);

    /* never: a block of one warp; only __shared__ extents; every name taken; no launch */
    int rewritten = 0;
    const char *only_shared = "extern \"C\" __global__ void k(float* y)\n{\n    __shared__ float s[256];\n    s[threadIdx.x] = 0;\n}\n";
    const char *taken =
        "// NT BLOCK THREADS BLOCK_SIZE NTHREADS BS TPB\n"
        "extern \"C\" __global__ void k(float* y)\n{\n    y[blockIdx.x * 256 + threadIdx.x] = 0;\n}\n";
    for (uint64_t seed = 1; seed <= 300; seed++) {
        const char *c[3] = {cu, only_shared, taken};
        const char *tj[3] = {T32, T256, T256};
        for (int i = 0; i < 3; i++) {
            pg_buf b = {0};
            pg_buf_puts(&b, c[i]);
            char nm[16];
            rewritten += synth_plan_defines(seed, tj[i], &b, nm, sizeof nm) != 0;
            CHECK(!strcmp(b.data, c[i]), "case %d seed %llu: changed", i, (unsigned long long)seed);
            pg_buf_free(&b);
        }
        pg_buf b = {0};
        pg_buf_puts(&b, cu);
        rewritten += synth_plan_defines(seed, "{}", &b, NULL, 0) != 0;
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
enum { NFAM = (int)(sizeof FAMS / sizeof FAMS[0]), NSEED = 120 };


/* The plan with its macro expanded: the #define line dropped, NAME / 32, NAME + 1 and NAME
 * replaced by their values (the values of the launch's block.x). */
static char *expand(const char *cu, const char *nm, long v) {
    char def[64], w[32], v1[32], vs[32];
    snprintf(def, sizeof def, "#define %s %ld\n", nm, v);
    snprintf(w, sizeof w, "%ld", v / 32);
    snprintf(v1, sizeof v1, "%ld", v + 1);
    snprintf(vs, sizeof vs, "%ld", v);
    pg_buf o = {0};
    size_t m = strlen(nm), dn = strlen(def);
    for (const char *p = cu; *p;) {
        if (!strncmp(p, def, dn) && (p == cu || p[-1] == '\n')) { p += dn; continue; }
        bool start = p == cu || !((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9') || p[-1] == '_');
        char e = p[m];
        bool end = !((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9') || e == '_');
        if (start && !strncmp(p, nm, m) && end) {
            if (!strncmp(p + m, " / 32", 5)) { pg_buf_puts(&o, w); p += m + 5; }
            else if (!strncmp(p + m, " + 1]", 5)) { pg_buf_puts(&o, v1); p += m + 4; }
            else { pg_buf_puts(&o, vs); p += m; }
            continue;
        }
        pg_buf_putc(&o, *p++);
    }
    return o.data ? o.data : strdup("");
}

static long block_x(const char *task_json) {
    json_error_t e;
    json_t *root = json_loads(task_json, 0, &e);
    json_t *v = root ? json_array_get(json_object_get(json_object_get(root, "launch"), "block"), 0) : NULL;
    long x = json_is_string(v) ? strtol(json_string_value(v), NULL, 10) : 0;
    json_decref(root);
    return x;
}

typedef struct { char *before, *after, *name, nm[16]; } pair;
static pair pairs[64];
static int npairs;

static void test_families(void) {
    int fams_with = 0, rewritten_total = 0, candidates = 0;
    int per[NFAM];
    memset(per, 0, sizeof per);
    for (int f = 0; f < NFAM; f++) {
        if (!FAMS[f].nvcc) continue;
        for (int i = 0; i < NSEED; i++) {
            synth_family_sample s;
            memset(&s, 0, sizeof s);
            s.plan_style = SYNTH_PLAN_VARIED;
            if (synth_fam_draw(FAMS[f].name, test_seed_of(i), &s) != PG_OK || !s.cu.len) { synth_family_sample_free(&s); continue; }
            pg_buf a = {0}, b = {0};
            pg_buf_putn(&a, s.cu.data, s.cu.len);
            pg_buf_putn(&b, s.cu.data, s.cu.len);
            char nm[16], nm2[16];
            int n = synth_plan_defines(test_seed_of(i), s.task_json.data, &a, nm, sizeof nm);
            int n2 = synth_plan_defines(test_seed_of(i), s.task_json.data, &b, nm2, sizeof nm2);
            CHECK(n == n2 && !strcmp(a.data, b.data) && !strcmp(nm, nm2), "%s seed #%d: not a function of the seed", FAMS[f].name, i);
            /* would the other two seeds in five have rewritten it? the forms are there when some seed does */
            bool has_forms = n > 0;
            for (uint64_t k = 1; k < 40 && !has_forms; k++) {
                pg_buf c = {0};
                pg_buf_putn(&c, s.cu.data, s.cu.len);
                has_forms = synth_plan_defines(test_seed_of(i) + 1000003ull * k, s.task_json.data, &c, NULL, 0) > 0;
                pg_buf_free(&c);
            }
            candidates += has_forms;
            if (n) {
                per[f]++;
                rewritten_total++;
                long v = block_x(s.task_json.data);
                char *x = expand(a.data, nm, v);
                CHECK(!strcmp(x, s.cu.data), "%s seed #%d (%s = %ld): the expanded plan is not the plan:\n%s\n---- before\n%s", FAMS[f].name, i, nm, v,
                      x, s.cu.data);
                free(x);
                char def[64];
                snprintf(def, sizeof def, "#define %s ", nm);
                const char *d = strstr(a.data, def), *k = strstr(a.data, "extern \"C\"");
                CHECK(test_count(a.data, def) == 1 && d && k && d < k, "%s seed #%d: the #define is not once before the kernel:\n%s", FAMS[f].name, i, a.data);
                pg_buf pa = {0}, pb = {0};
                synth_literate_prepare(s.cu.data, &pb);
                synth_literate_prepare(a.data, &pa);
                CHECK(test_count(pa.data, "#pragma unroll 1\n") == test_count(pb.data, "#pragma unroll 1\n"), "%s seed #%d: other loops stay rolled", FAMS[f].name, i);
                pg_buf_free(&pa);
                pg_buf_free(&pb);
                if (npairs < (int)(sizeof pairs / sizeof pairs[0]) && per[f] <= 3) {   /* a few of each family for nvcc */
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
    static const char *const MUST[] = {"softmax", "rownorm", "xent", "rowreduce", "reduce_all", "histogram", "nbody", "transpose"};
    for (size_t m = 0; m < sizeof MUST / sizeof MUST[0]; m++) {
        int f = 0;
        while (f < NFAM && strcmp(FAMS[f].name, MUST[m])) f++;
        CHECK(f < NFAM && per[f] > 0, "family %s: no plan with a #define in %d seeds", MUST[m], NSEED);
    }
    double share = candidates ? (double)rewritten_total / candidates : 0;
    CHECK(share > 0.15 && share < 0.45, "%d of %d plans with the forms rewritten (%.1f%%): want about 2 in 5", rewritten_total, candidates, 100 * share);
    printf("families: %d nvcc families with #define plans; %d of %d plans with the forms rewritten (%.1f%%)\n", fams_with, rewritten_total,
           candidates, 100 * share);
    for (int f = 0; f < NFAM; f++)
        if (per[f]) printf("  %s %d", FAMS[f].name, per[f]);
    printf("\n");
}

/* ---- nvcc ---------------------------------------------------------------------------------- */

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

static void test_nvcc(void) {
    int same = 0, comments = 0, named = 0;
    for (int i = 0; i < npairs; i++) {
        const char *cu[2] = {pairs[i].before, pairs[i].after}, *names[2] = {pairs[i].name, pairs[i].name};
        pg_buf ptx[2] = {{0}, {0}};
        pg_diag_sink q = {0};
        pg_status st0 = synth_cuda_ptx_batch(&cu[0], &names[0], NULL, 1, "sm_80", SYNTH_FMT_LITERATE, &ptx[0], &q);
        if (st0 == PG_ERR_IO && !same && !ptx[0].len) {
            printf("SKIPPED: nvcc not found, the rewritten plans were not compiled\n");
            return;
        }
        pg_status st1 = synth_cuda_ptx_batch(&cu[1], &names[1], NULL, 1, "sm_80", SYNTH_FMT_LITERATE, &ptx[1], &q);
        CHECK(st0 == PG_OK && st1 == PG_OK, "%s (%s): nvcc %d / %d", pairs[i].name, pairs[i].nm, st0, st1);
        if (st0 == PG_OK && st1 == PG_OK) {
            char *a = stripped(ptx[0].data), *b = stripped(ptx[1].data);
            CHECK(a && b && !strcmp(a, b), "%s (%s): other instructions after the rewrite", pairs[i].name, pairs[i].nm);
            same += a && b && !strcmp(a, b);
            free(a);
            free(b);
            bool has = false;
            for (const char *p = strstr(ptx[1].data, ".entry"); p && (p = strstr(p, "\t// ")) != NULL;) {
                const char *e = strchr(p, '\n');
                size_t n = e ? (size_t)(e - p - 4) : strlen(p + 4);
                comments++;
                CHECK(test_in_plan(pairs[i].after, p + 4, n), "%s: the comment '%.*s' is no line of its plan", pairs[i].name, (int)n, p + 4);
                char line[400];
                snprintf(line, sizeof line, "%.*s", (int)(n < 399 ? n : 399), p + 4);
                size_t m = strlen(pairs[i].nm);
                for (const char *t = line; (t = strstr(t, pairs[i].nm)) != NULL; t += m)
                    if ((t == line || !(t[-1] == '_' || (t[-1] >= 'A' && t[-1] <= 'Z'))) && !(t[m] == '_' || (t[m] >= 'A' && t[m] <= 'Z'))) has = true;
                p += 4 + n;
            }
            CHECK(has, "%s: no plan comment carries %s", pairs[i].name, pairs[i].nm);
            named += has;
        }
        pg_buf_free(&ptx[0]);
        pg_buf_free(&ptx[1]);
    }
    /* the hook: a varied batch, several plans defining names in one .cu */
    int f = synth_family_find("softmax"), withdef = 0, compiled = 0;
    enum { N = 16 };
    uint64_t seeds[N];
    for (int i = 0; i < N; i++) seeds[i] = test_seed_of(i);
    synth_family_sample ss[N];
    memset(ss, 0, sizeof ss);
    pg_diag_sink q = {0};
    CHECK(synth_family_generate_batch(f, seeds, N, "sm_80", SYNTH_FMT_LITERATE | SYNTH_FMT_PLAN_VARIED, ss, &q) == PG_OK, "softmax batch");
    for (int i = 0; i < N; i++) {
        CHECK(ss[i].ptx.len > 0, "softmax #%d (%s): no PTX", i, ss[i].plan_variant);
        if (!ss[i].ptx.len) continue;
        compiled++;
        bool def = strstr(ss[i].plan_variant, "def") != NULL;
        if (def) {
            withdef++;
            CHECK(strstr(ss[i].cu.data, "#define ") != NULL, "softmax #%d: variant %s without a #define", i, ss[i].plan_variant);
        }
        for (const char *p = strstr(ss[i].ptx.data, ".entry"); p && (p = strstr(p, "\t// ")) != NULL;) {
            const char *e = strchr(p, '\n');
            size_t n = e ? (size_t)(e - p - 4) : strlen(p + 4);
            CHECK(test_in_plan(ss[i].cu.data, p + 4, n), "softmax #%d: the comment '%.*s' is no line of its plan", i, (int)n, p + 4);
            p += 4 + n;
        }
        synth_family_sample_free(&ss[i]);
    }
    CHECK(withdef >= 2 && withdef < compiled, "softmax batch: %d of %d with a #define", withdef, compiled);
    printf("nvcc: %d rewritten plans make their plan's instructions, %d with the name in a comment (%d comments); "
           "a softmax batch of %d with %d #define plans\n", same, named, comments, compiled, withdef);
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
