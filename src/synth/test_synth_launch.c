/* test_synth_launch.c — the launch variants of the grid-stride families and the layouts that
 * round 11 got wrong (issue 28; bench/results/2026-12-07-plan-round11-qwen15-h100/
 * why-reduction-histogram.md), without nvcc or a GPU:
 *
 *  - reduce_all, histogram, map and the elementwise families with a grid-stride loop: the grid
 *    min(cdiv(n,D),cap) has divisors D that are K times the loop's step per block for every
 *    K drawn (1, 2, 4, 8; histogram up to 16), so "cdiv(n,2048)" stops meaning "stride 2048";
 *    the plan's loop agrees with the task's launch: its start and step use the same per-block
 *    amount (blockDim.x or the launch's block size as a literal, times the elements per thread),
 *    a literal equals the launch's block times that count, a shared array sized per thread
 *    has the launch's block size, and D is a multiple of the step;
 *  - reduce_all max/min: every atomicMax/atomicMin goes through an integer pointer (no
 *    float overload exists), max |x| also with the plain signed atomicMax on the bits
 *    of its non-negative value (f32 and f64), and no description calls it an atomic add;
 *    detailed and card state the launch;
 *  - nbody: positions as xyz triples (layout aos3, 3*N values, stride 3, no float4) for every
 *    op, and the suite's f32 shifted LJ energy with 128-thread blocks is never drawn;
 *  - determinism: a seed gives the same task and plan twice.
 * The GPU check of the new kernels is tests/gpu/families.sh (and synth's own nvcc+ptxas
 * verification). */
#include "common/test.h"
#include "synth/family_elem.h"
#include "synth/family_internal.h"

#include <fnmatch.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NSEEDS = 400 };

static bool gen(const char *fname, uint64_t seed, int style, synth_family_sample *s) {
    memset(s, 0, sizeof *s);
    s->plan_style = style;
    return synth_fam_draw(fname, seed, s) == PG_OK && s->task_json.len && s->cu.len;
}

typedef struct { int block, div, cap; bool gs; char count[32]; } launch1;
static bool launch_of(json_t *root, launch1 *l) {
    memset(l, 0, sizeof *l);
    json_t *la = json_object_get(root, "launch");
    const char *b = json_string_value(json_array_get(json_object_get(la, "block"), 0));
    const char *g = json_string_value(json_array_get(json_object_get(la, "grid"), 0));
    if (!b || !g || json_array_size(json_object_get(la, "grid")) != 1) return false;
    l->block = atoi(b);
    l->gs = sscanf(g, "min(cdiv(%31[^,],%d),%d)", l->count, &l->div, &l->cap) == 3;
    return true;
}

/* The text after the first `key` up to (not including) any character of `stop`. */
static bool after(const char *cu, const char *key, const char *stop, char *out, size_t n) {
    const char *p = strstr(cu, key);
    if (!p) return false;
    p += strlen(key);
    size_t k = strcspn(p, stop);
    snprintf(out, n, "%.*s", (int)k, p);
    return true;
}

/* The loop's per-block step of a grid-stride plan: the text after "gridDim.x * " and
 * after "blockIdx.x * " must be the same ("blockDim.x", "blockDim.x * 4", "2048"); its
 * value, with blockDim.x = block, goes to *per_block.  false: no grid-stride loop, or
 * start and step disagree. */
static bool plan_step(const char *cu, int block, int *per_block, bool *bdx, char *why, size_t whyn) {
    char step[64], start[64];
    if (!after(cu, "gridDim.x * ", ");\n", step, sizeof step)) { snprintf(why, whyn, "no gridDim.x step"); return false; }
    if (!after(cu, "blockIdx.x * ", "+", start, sizeof start)) { snprintf(why, whyn, "no blockIdx.x start"); return false; }
    size_t sl = strlen(start);
    while (sl && start[sl - 1] == ' ') start[--sl] = 0;
    if (strcmp(step, start)) { snprintf(why, whyn, "start uses \"%s\", step \"%s\"", start, step); return false; }
    *bdx = !strncmp(step, "blockDim.x", 10);
    if (*bdx) {
        int e = 1;
        if (step[10] && sscanf(step + 10, " * %d", &e) != 1) { snprintf(why, whyn, "step \"%s\"", step); return false; }
        *per_block = block * e;
    } else *per_block = atoi(step);
    return *per_block > 0;
}

/* The elements per thread of one step of a reduce_all plan: the inner `k < E` loop's E (1 without one). */
static int inner_e(const char *cu) {
    const char *p = strstr(cu, "for (int k = 0; k < ");
    return p ? atoi(p + strlen("for (int k = 0; k < ")) : 1;
}
/* The vector width of a plan with `nv = n / V`, else 1. */
static int vec_width(const char *cu) {
    const char *p = strstr(cu, "nv = n / ");
    return p ? atoi(p + strlen("nv = n / ")) : 1;
}

/* Every atomicMax/atomicMin of the plan goes through an integer pointer. */
static bool int_atomics(const char *cu) {
    static const char *const OK[] = {"(int*)", "(unsigned int*)", "(long long*)", "(unsigned long long*)", "addr"};
    for (const char *p = cu; (p = strstr(p, "atomicM")); p++) {
        if (strncmp(p, "atomicMax(", 10) && strncmp(p, "atomicMin(", 10)) continue;
        bool ok = false;
        for (size_t k = 0; k < sizeof OK / sizeof OK[0]; k++) ok |= !strncmp(p + 10, OK[k], strlen(OK[k]));
        if (!ok) return false;
    }
    return true;
}

static const char *desc(json_t *root, const char *style) {
    const char *d = json_string_value(json_object_get(json_object_get(root, "descriptions"), style));
    return d ? d : "";
}

/* ---- reduce_all ---------------------------------------------------------------------------- */
static void check_reduce_all(void) {
    int kseen[9] = {0}, bdx_n = 0, lit_n = 0, bad = 0, nn32 = 0, nn64 = 0, float_atom = 0, add_said = 0, no_launch = 0, held = 0, ok_n = 0;
    for (int i = 0; i < NSEEDS; i++) {
        synth_family_sample s;
        uint64_t seed = 7919ull * (uint64_t)i + 3;
        if (!gen("reduce_all", seed, i & 1, &s)) { bad++; synth_family_sample_free(&s); continue; }
        json_t *root = json_loads(s.task_json.data, 0, NULL);
        launch1 l;
        int pb = 0;
        bool bdx = false;
        char why[160] = "";
        const char *cu = s.cu.data;
        int E = inner_e(cu), V = vec_width(cu);
        if (!root || !launch_of(root, &l) || !l.gs || !plan_step(cu, l.block, &pb, &bdx, why, sizeof why)) {
            if (bad++ == 0) fprintf(stderr, "  %s: launch/plan: %s\n", s.name, why);
        } else {
            /* a literal step is the launch's block times the elements per thread; the per-block step
             * of a vector plan counts vectors (V elements each) */
            bool agree = pb == l.block * E && l.div % (pb * V) == 0;
            int K = agree ? l.div / (pb * V) : 0;
            bool tree_ok = true;
            char red[32];
            if (after(cu, "__shared__ ", ";", red, sizeof red)) {
                const char *br = strchr(red, '[');
                int sz = br ? atoi(br + 1) : 0;
                tree_ok = sz == 32 || sz == l.block;
            }
            if (!agree || !tree_ok || K < 1 || K > 8 || (K & (K - 1))) {
                if (bad++ == 0) fprintf(stderr, "  %s: block %d, grid divisor %d, step per block %d (E %d, V %d), shared %s\n", s.name, l.block, l.div, pb, E, V, red);
            } else {
                kseen[K]++;
                ok_n++;
                if (bdx) bdx_n++;
                else lit_n++;
            }
        }
        if (!int_atomics(cu) && float_atom++ == 0) fprintf(stderr, "  %s: an atomicMax/Min on a float pointer\n", s.name);
        json_t *fp = json_object_get(root, "family_params");
        const char *op = json_string_value(json_object_get(fp, "op")), *dt = json_string_value(json_object_get(fp, "dtype"));
        bool minmax = op && (!strcmp(op, "max") || !strcmp(op, "min") || !strcmp(op, "absmax"));
        if (op && !strcmp(op, "absmax") && strstr(cu, "atomicMax((int*)") && !strstr(cu, "atomicMin(")) nn32++;
        if (op && !strcmp(op, "absmax") && strstr(cu, "atomicMax((long long*)")) nn64++;
        static const char *const ST[] = {"terse", "detailed", "card", "zh", "prose"};
        for (int k = 0; k < 5 && minmax; k++)
            if (strstr(desc(root, ST[k]), "atomic add") || strstr(desc(root, ST[k]), "原子加")) {
                if (add_said++ == 0) fprintf(stderr, "  %s: the %s description says atomic add: %s\n", s.name, ST[k], desc(root, ST[k]));
            }
        /* detailed and card always carry the launch (the grid as the task writes it) */
        const char *g = json_string_value(json_array_get(json_object_get(json_object_get(root, "launch"), "grid"), 0));
        if (g && (!strstr(desc(root, "detailed"), g) || !strstr(desc(root, "card"), g)))
            if (no_launch++ == 0) fprintf(stderr, "  %s: detailed/card without the grid %s\n", s.name, g);
        if (fnmatch("reduce_all:absmax:f32:b256*", s.identity, 0) == 0 || fnmatch("reduce_all:dot:f64:b256*", s.identity, 0) == 0) held++;
        (void)dt;
        json_decref(root);
        synth_family_sample_free(&s);
    }
    CHECK(bad == 0, "reduce_all: %d plans disagree with their launch", bad);
    CHECK(kseen[1] && kseen[2] && kseen[4] && kseen[8], "reduce_all: grid divisor = K x step for K 1/2/4/8 (%d %d %d %d)", kseen[1], kseen[2], kseen[4], kseen[8]);
    CHECK(bdx_n > NSEEDS / 4 && lit_n > NSEEDS / 4, "reduce_all: blockDim.x steps %d, literal steps %d", bdx_n, lit_n);
    CHECK(float_atom == 0, "reduce_all: %d plans call atomicMax/Min on a float", float_atom);
    CHECK(nn32 > 0 && nn64 > 0, "reduce_all: max |x| with the signed atomicMax on its bits, f32 %d, f64 %d", nn32, nn64);
    CHECK(add_said == 0, "reduce_all: %d max/min descriptions say atomic add", add_said);
    CHECK(no_launch == 0, "reduce_all: %d detailed/card descriptions lack the grid", no_launch);
    CHECK(held == 0, "reduce_all: %d held-out tasks drawn", held);
    printf("reduce_all: %d plans agree with their launch; K=1 %d, 2 %d, 4 %d, 8 %d; blockDim.x %d, literal %d; bits>=0 f32 %d f64 %d\n", ok_n,
           kseen[1], kseen[2], kseen[4], kseen[8], bdx_n, lit_n, nn32, nn64);
}

/* ---- histogram ----------------------------------------------------------------------------- */
static void check_histogram(void) {
    int mseen[33] = {0}, bad = 0, bdx_n = 0, lit_n = 0, held = 0, bin_loops = 0, no_launch = 0;
    for (int i = 0; i < NSEEDS; i++) {
        synth_family_sample s;
        uint64_t seed = 104729ull * (uint64_t)i + 11;
        if (!gen("histogram", seed, i & 1, &s)) { bad++; synth_family_sample_free(&s); continue; }
        json_t *root = json_loads(s.task_json.data, 0, NULL);
        launch1 l;
        int pb = 0;
        bool bdx = false;
        char why[160] = "";
        const char *cu = s.cu.data;
        int V = vec_width(cu);
        if (!root || !launch_of(root, &l) || !l.gs || !plan_step(cu, l.block, &pb, &bdx, why, sizeof why) || pb != l.block || l.div % l.block) {
            if (bad++ == 0) fprintf(stderr, "  %s: launch/plan: %s (block %d, step per block %d, divisor %d)\n", s.name, why, l.block, pb, l.div);
        } else {
            int M = l.div / l.block;
            if (M <= 32) mseen[M]++;
            if (bdx) bdx_n++;
            else lit_n++;
            /* the per-thread loops over the bins step by the same block */
            char want[48];
            snprintf(want, sizeof want, "; b += %s)", bdx ? "blockDim.x" : json_string_value(json_array_get(json_object_get(json_object_get(root, "launch"), "block"), 0)));
            if (strstr(cu, "; b += ") && !strstr(cu, want)) {
                if (bin_loops++ == 0) fprintf(stderr, "  %s: bin loops do not step by %s\n", s.name, want);
            }
            (void)V;
        }
        const char *g = json_string_value(json_array_get(json_object_get(json_object_get(root, "launch"), "grid"), 0));
        if (g && (!strstr(desc(root, "detailed"), g) || !strstr(desc(root, "card"), g)))
            if (no_launch++ == 0) fprintf(stderr, "  %s: detailed/card without the grid %s\n", s.name, g);
        if (fnmatch("histogram:64:s32:mask:*", s.identity, 0) == 0 || fnmatch("histogram:256:u8:*", s.identity, 0) == 0) held++;
        json_decref(root);
        synth_family_sample_free(&s);
    }
    CHECK(bad == 0, "histogram: %d plans disagree with their launch", bad);
    CHECK(bin_loops == 0, "histogram: %d plans step their bin loops by another block", bin_loops);
    CHECK(mseen[1] && mseen[2] && mseen[4] && mseen[8] && mseen[16], "histogram: grid divisor = M x block for M 1/2/4/8/16 (%d %d %d %d %d)", mseen[1], mseen[2], mseen[4],
          mseen[8], mseen[16]);
    CHECK(bdx_n > NSEEDS / 4 && lit_n > NSEEDS / 4, "histogram: blockDim.x steps %d, literal steps %d", bdx_n, lit_n);
    CHECK(held == 0, "histogram: %d held-out tasks drawn", held);
    CHECK(no_launch == 0, "histogram: %d detailed/card descriptions lack the grid", no_launch);
    printf("histogram: M=1 %d, 2 %d, 4 %d, 8 %d, 16 %d, 32 %d; blockDim.x %d, literal %d\n", mseen[1], mseen[2], mseen[4], mseen[8], mseen[16], mseen[32], bdx_n, lit_n);
}

/* ---- elementwise grid-stride families ------------------------------------------------------ */
static void check_elementwise(void) {
    static const char *const FE[] = {"optimizer", "activation", "bias_act", "glu", "convert", "quantize", "complex", "poly", "gather", "scatter", "bits"};
    for (size_t f = 0; f < sizeof FE / sizeof FE[0]; f++) {
        int gs = 0, over = 0, bad = 0;
        for (int i = 0; i < 160; i++) {
            synth_family_sample s;
            if (!gen(FE[f], 15485863ull * (uint64_t)i + 5, i & 1, &s)) { bad++; synth_family_sample_free(&s); continue; }
            json_t *root = json_loads(s.task_json.data, 0, NULL);
            launch1 l;
            if (root && launch_of(root, &l) && l.gs) {
                gs++;
                int pb = 0;
                bool bdx = false;
                char why[160] = "";
                int per = l.div / (l.block ? l.block : 1);
                /* the loop steps by all the grid's threads; the divisor is block x (V elements x mult) */
                if (!plan_step(s.cu.data, l.block, &pb, &bdx, why, sizeof why) || !bdx || pb != l.block || l.div % l.block || per < 1 || per > 32 || (per & (per - 1))) {
                    if (bad++ == 0) fprintf(stderr, "  %s: %s (block %d, divisor %d)\n", s.name, why, l.block, l.div);
                }
                int V = 1;
                const char *p = strstr(s.cu.data, "if (t * ");
                if (!p) p = strstr(s.cu.data, "; t * ");
                if (p) V = atoi(strstr(p, "t * ") + 4);
                over += per > V;
            }
            json_decref(root);
            synth_family_sample_free(&s);
        }
        CHECK(bad == 0, "%s: %d grid-stride plans disagree with their launch", FE[f], bad);
        CHECK(gs == 0 || over > 0, "%s: no grid-stride grid whose divisor exceeds the step (%d grid-stride)", FE[f], gs);
        printf("%-10s %3d grid-stride of 160, %3d with divisor > block x V\n", FE[f], gs, over);
    }
    int seen[9] = {0};
    for (uint64_t sd = 0; sd < 400; sd++) {
        int m = synth_fe_grid_mult(sd);
        CHECK(m == synth_fe_grid_mult(sd), "synth_fe_grid_mult is a function of the seed");
        if (m >= 1 && m <= 8) seen[m]++;
    }
    CHECK(seen[1] && seen[2] && seen[4] && seen[8] && seen[1] + seen[2] + seen[4] + seen[8] == 400, "synth_fe_grid_mult draws 1/2/4/8 (%d %d %d %d)", seen[1], seen[2], seen[4],
          seen[8]);
}

/* ---- map (PTX template: the plan loops over tiles of B*U*V elements) ------------------------ */
static void check_map(void) {
    int mseen[9] = {0}, bad = 0;
    for (int i = 0; i < NSEEDS; i++) {
        synth_family_sample s;
        if (!gen("map", 2147483647ull * (uint64_t)i + 9, 0, &s)) { bad++; synth_family_sample_free(&s); continue; }
        json_t *root = json_loads(s.task_json.data, 0, NULL);
        json_t *fp = json_object_get(root, "family_params");
        launch1 l;
        if (root && launch_of(root, &l) && l.gs) {
            int tile = (int)(json_integer_value(json_object_get(fp, "block")) * json_integer_value(json_object_get(fp, "vec")) *
                             json_integer_value(json_object_get(fp, "unroll")));
            const char *a = strstr(s.cu.data, "tile = blockIdx.x * "), *b = strstr(s.cu.data, "stride = gridDim.x * ");
            int ta = a ? atoi(a + strlen("tile = blockIdx.x * ")) : -1, tb = b ? atoi(b + strlen("stride = gridDim.x * ")) : -2;
            int M = tile > 0 && l.div % tile == 0 ? l.div / tile : 0;
            if (ta != tile || tb != tile || l.block != json_integer_value(json_object_get(fp, "block")) || M < 1 || M > 8 || (M & (M - 1))) {
                if (bad++ == 0) fprintf(stderr, "  %s: tile %d, plan start %d step %d, grid divisor %d\n", s.name, tile, ta, tb, l.div);
            } else mseen[M]++;
        }
        json_decref(root);
        synth_family_sample_free(&s);
    }
    CHECK(bad == 0, "map: %d grid-stride plans disagree with their launch", bad);
    CHECK(mseen[1] && mseen[2] && mseen[4] && mseen[8], "map: grid divisor = M tiles for M 1/2/4/8 (%d %d %d %d)", mseen[1], mseen[2], mseen[4], mseen[8]);
    printf("map: grid-stride tiles per block before the cap: 1 %d, 2 %d, 4 %d, 8 %d\n", mseen[1], mseen[2], mseen[4], mseen[8]);
}

/* ---- nbody --------------------------------------------------------------------------------- */
static void check_nbody(void) {
    int aos3_by_op[6] = {0}, bad = 0, held = 0, n = 0;
    static const char *const OPS[6] = {"grav_accel", "grav_potential", "coulomb_force", "coulomb_energy", "lj_force", "lj_energy"};
    for (int i = 0; i < NSEEDS; i++) {
        synth_family_sample s;
        if (!gen("nbody", 6700417ull * (uint64_t)i + 1, i & 1, &s)) { bad++; synth_family_sample_free(&s); continue; }
        json_t *root = json_loads(s.task_json.data, 0, NULL);
        json_t *fp = json_object_get(root, "family_params");
        const char *lay = json_string_value(json_object_get(fp, "layout")), *op = json_string_value(json_object_get(fp, "op"));
        if (lay && !strcmp(lay, "aos3")) {
            n++;
            for (int k = 0; k < 6; k++) aos3_by_op[k] += op && !strcmp(op, OPS[k]);
            const char *pos = json_string_value(json_object_get(fp, "pos"));
            const char *len = NULL;
            json_t *ps = json_object_get(root, "params");
            for (size_t k = 0; k < json_array_size(ps); k++)
                if (pos && !strcmp(json_string_value(json_object_get(json_array_get(ps, k), "name")), pos)) len = json_string_value(json_object_get(json_array_get(ps, k), "len"));
            char idx[64];
            snprintf(idx, sizeof idx, "%s[3 * (size_t)i]", pos ? pos : "?");
            if (!len || strcmp(len, "3*N") || !strstr(s.cu.data, idx) || strstr(s.cu.data, "float4") || strstr(s.cu.data, "double4") || strstr(s.cu.data, "[4 *")) {
                if (bad++ == 0) fprintf(stderr, "  %s: xyz triples not read with stride 3 (len %s)\n%s\n", s.name, len ? len : "-", s.cu.data);
            }
        }
        if (fnmatch("nbody:lj_energy:f32:aos3:*:scalar:128:cut:shift:*", s.identity, 0) == 0) held++;
        json_decref(root);
        synth_family_sample_free(&s);
    }
    CHECK(bad == 0, "nbody: %d xyz-triple samples are wrong", bad);
    CHECK(held == 0, "nbody: %d samples are the suite's lj_shifted_aos", held);
    for (int k = 0; k < 6; k++) CHECK(aos3_by_op[k] > 0, "nbody: xyz triples for %s", OPS[k]);
    CHECK(n > NSEEDS / 5, "nbody: %d of %d samples with xyz triples", n, NSEEDS);
    printf("nbody: %d of %d samples with xyz-triple positions\n", n, NSEEDS);
}

/* ---- determinism --------------------------------------------------------------------------- */
static void check_determinism(void) {
    static const char *const F[] = {"reduce_all", "histogram", "nbody", "map", "activation", "optimizer", "gather"};
    for (size_t f = 0; f < sizeof F / sizeof F[0]; f++)
        for (uint64_t sd = 1; sd < 40; sd++) {
            synth_family_sample a, b;
            memset(&a, 0, sizeof a);
            memset(&b, 0, sizeof b);
            bool ok = gen(F[f], sd * 977, (int)(sd & 1), &a) && gen(F[f], sd * 977, (int)(sd & 1), &b);
            CHECK(ok && !strcmp(a.task_json.data, b.task_json.data) && !strcmp(a.cu.data, b.cu.data) && !strcmp(a.identity, b.identity),
                  "%s seed %llu: the same sample twice", F[f], (unsigned long long)(sd * 977));
            synth_family_sample_free(&a);
            synth_family_sample_free(&b);
        }
}

int main(void) {
    check_reduce_all();
    check_histogram();
    check_elementwise();
    check_map();
    check_nbody();
    check_determinism();
    return TEST_DONE();
}
