/* test_synth_variants.c — the variant axes added for round 13's zero categories
 * (bench/results/2026-12-07-zero-categories-h101-cpu.md), without a GPU:
 *
 *  - stencil1d, symmetric weights: radius 1, 2 and 3 are drawn; R+1 parameters c0..cR, c0 the
 *    centre and c_d the pair at distance d; family_params.tap_coeff maps tap k to c|k-R|; the
 *    plan and the PTX add each pair before its fma; the C reference computes
 *    c0*x[i] + sum_d c_d*(x[i-d] + x[i+d]) (checked here against that sum on n = 777); the
 *    suite's stencil1d_5pt (f32, radius 2, parameters, copy edges, 256 threads) is never drawn;
 *  - transpose: s32/u16/u8 elements, 8-wide tiles and batches along blockIdx.z are drawn; the
 *    reference transposes every matrix of a batch (checked element by element); the suite's
 *    transpose_f64_tiled (one f64 matrix, 32x33 tile, 32x8 threads) is never drawn;
 *  - stencil2d, separable 9-point weights w[dy]*w[dx]/S (w = (a, b, a), sum a power of two):
 *    every weight set is drawn, the plan writes each weight as (T)(w_dy*w_dx) / S, the reference
 *    agrees with the separable sum on 33 x 65 for each boundary drawn; the suite's f32 (1 2 1)/16
 *    clamp blur on 16x16 blocks (blur2d_9pt_clamp) is never drawn;
 *  - reduce: the suite's reduce_max_f32_b512 (f32 max, 512 threads x 8 elements, one chunk per
 *    block) is not drawn (it was until 2026-12-07);
 *  - spmv, ELL: 3/4 of the ELL samples pad with column -1 (2/3 before h104), each of them says so in
 *    the plan (head comment and the skip) and in every description but the terse one, the
 *    reference skips exactly the -1 slots (checked against the sum on 1000 rows x 9 slots);
 *  - scan: half of the shuffle scans write the five Hillis-Steele steps out with literal deltas
 *    1, 2, 4, 8, 16 (no loop over d); in their literate PTX each plan comment naming a delta is
 *    followed by a shuffle with that delta (an immediate or a `mov.u32` of it), and the suite's
 *    exclusive_scan_1024 (s32, 1024-element segments) is never drawn;
 *  - stencil_bc: no plan indexes with `(size_t)z - 1 * H` (z - H: the copy boundary's direct
 *    plans did for every z neighbour until 2026-12-07); every copy plan states the face rule; the
 *    3-D variable-coefficient step with copied faces is over a quarter of the draws, with 8 blocks
 *    and u32 extents for about half, each with a size where every cell is a face; its reference
 *    copies every cell there and updates the interior of a regular size as in + kappa*(6
 *    neighbours - 6*in); the suite's heat3d_varcoef (f32, 32x8x1, u32 extents) is never drawn;
 *  - a few samples of each new variant go through synth_family_generate: the PTX validates and
 *    ptxas accepts it (nvcc compiles the transpose plans), when the tools are installed.
 * Whether the new kernels are correct on a GPU is tests/gpu/families.sh's job. */
#include "ptx/test_util.h"
#include "ptxgen/ptx.h"
#include "ptxgen/synth_family.h"
#include "ptxgen/task.h"
#include "synth/family_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { NSEEDS = 2000 };

static bool gen(const char *fname, uint64_t seed, synth_family_sample *s) {
    memset(s, 0, sizeof *s);
    return synth_fam_draw(fname, seed, s) == PG_OK && s->task_json.len;
}

static bool write_file(const char *path, const char *data) {
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(data, 1, strlen(data), f) == strlen(data);
    return fclose(f) == 0 && ok;
}

/* The task of a sample loaded from a temp folder; *dir receives the folder (removed by unload). */
static task_spec *load(const synth_family_sample *s, char *dir, size_t dn) {
    snprintf(dir, dn, "/tmp/ptxgen-vartest-%d-%s", (int)getpid(), s->name);
    mkdir(dir, 0755);
    char path[600];
    snprintf(path, sizeof path, "%s/task.json", dir);
    if (!write_file(path, s->task_json.data)) return NULL;
    task_spec *t = NULL;
    pg_diag_sink q = {0};
    if (task_load(path, &t, &q) != PG_OK) return NULL;
    return t;
}
static void unload(task_spec *t, const char *dir) {
    char path[600];
    snprintf(path, sizeof path, "%s/task.json", dir);
    unlink(path);
    rmdir(dir);
    task_free(t);
}

static int pidx(const task_spec *t, const char *name) {
    for (int p = 0; p < t->nparams; p++)
        if (!strcmp(t->params[p].name, name)) return p;
    return -1;
}

/* The size index whose variable `var` is `val`, or -1. */
static int size_with(const task_spec *t, const char *var, int64_t val) {
    for (int s = 0; s < t->nsizes; s++)
        for (int v = 0; v < t->sizes[s].env.n; v++)
            if (!strcmp(t->sizes[s].env.name[v], var) && t->sizes[s].env.val[v] == val) return s;
    return -1;
}

/* PTX validates without warnings and (when installed) ptxas accepts it. */
static bool ptx_ok(const char *ptx, const char *name, bool have_ptxas, char *why, size_t whyn) {
    ptx_module *m = NULL;
    pg_diag_sink q = {0};
    pg_status ps = ptx_parse(ptx, strlen(ptx), name, &m, &q);
    if (ps == PG_OK) ps = ptx_validate(m, &q);
    ptx_module_free(m);
    if (ps != PG_OK || q.nwarnings) { snprintf(why, whyn, "validator: %d errors, %d warnings", q.nerrors, q.nwarnings); return false; }
    if (!have_ptxas) return true;
    char log[301];
    bool ok = test_ptxas_text(ptx, strlen(ptx), "sm_90", false, log, sizeof log) == 1;
    if (!ok) snprintf(why, whyn, "ptxas: %s", log);
    return ok;
}

/* One sample of family fam through nvcc, the validator and ptxas; *compiled counts them (99 once nvcc is
 * found missing: the SKIPPED line names `what`, and the caller compiles no more). */
static void compile_one(int fam, uint64_t seed, const char *identity, const char *what, bool have_ptxas, int *compiled) {
    synth_family_sample g;
    memset(&g, 0, sizeof g);
    pg_diag_sink q = {0};
    pg_status st = synth_family_generate(fam, seed, "sm_90", SYNTH_FMT_PLAIN, &g, &q);
    if (st == PG_ERR_IO && *compiled == 0) {
        printf("SKIPPED: nvcc not found, %s are not compiled\n", what);
        *compiled = 99;
    } else {
        char why[400] = "";
        CHECK(st == PG_OK && g.ptx.len && ptx_ok(g.ptx.data, g.name, have_ptxas, why, sizeof why), "seed %llu (%s): status %d %s",
              (unsigned long long)seed, identity, st, why);
        (*compiled)++;
    }
    synth_family_sample_free(&g);
}

/* ---- stencil1d ------------------------------------------------------------------------ */
static void check_stencil(bool have_ptxas) {
    int fam = synth_family_find("stencil1d");
    CHECK(fam >= 0, "stencil1d family");
    /* the suite's task, so a change to it shows here */
    json_t *suite = json_load_file("bench/suite/stencil1d_5pt/task.json", 0, NULL);
    CHECK(suite != NULL, "bench/suite/stencil1d_5pt/task.json loads (run from the repository root)");
    const char *sblock = json_string_value(json_array_get(json_object_get(json_object_get(suite, "launch"), "block"), 0));
    CHECK(sblock && !strcmp(sblock, "256"), "suite stencil1d_5pt: 256-thread blocks");
    int nsym = 0, nplain = 0, byr[4] = {0}, checked_ref = 0, compiled = 0;
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        synth_family_sample s;
        if (!gen("stencil1d", seed, &s)) { CHECK(false, "stencil1d seed %llu: generator", (unsigned long long)seed); continue; }
        json_t *root = json_loads(s.task_json.data, 0, NULL);
        json_t *fp = json_object_get(root, "family_params");
        bool sym = json_is_true(json_object_get(fp, "symmetric"));
        int R = (int)json_integer_value(json_object_get(fp, "radius"));
        bool params = json_is_true(json_object_get(fp, "coeff_params"));
        const char *bnd = json_string_value(json_object_get(fp, "boundary")), *dt = json_string_value(json_object_get(fp, "dtype"));
        int block = (int)json_integer_value(json_object_get(fp, "block"));
        CHECK(sym == (strstr(s.identity, ":sym") != NULL), "seed %llu: identity %s and symmetric=%d", (unsigned long long)seed, s.identity, sym);
        if (!sym) {
            nplain++;
            CHECK(R >= 1 && R <= 2 && !json_object_get(fp, "tap_coeff"), "seed %llu: tap-order stencil radius %d", (unsigned long long)seed, R);
        } else {
            nsym++;
            CHECK(R >= 1 && R <= 3, "seed %llu: symmetric radius %d", (unsigned long long)seed, R);
            if (R >= 1 && R <= 3) byr[R]++;
            /* never the suite's stencil1d_5pt */
            CHECK(!(!strcmp(dt, "f32") && R == 2 && params && !strcmp(bnd, "copy") && block == 256),
                  "seed %llu: draws the held-out stencil1d_5pt (%s)", (unsigned long long)seed, s.identity);
            json_t *tc = json_object_get(fp, "tap_coeff");
            CHECK(json_array_size(tc) == (size_t)(2 * R + 1), "seed %llu: tap_coeff has %zu entries", (unsigned long long)seed, json_array_size(tc));
            for (int k = 0; k < 2 * R + 1; k++)
                CHECK(json_integer_value(json_array_get(tc, (size_t)k)) == (k < R ? R - k : k - R), "seed %llu: tap_coeff[%d]",
                      (unsigned long long)seed, k);
            /* parameters: c0..cR only */
            int ncp = 0;
            json_t *p;
            size_t i;
            json_array_foreach(json_object_get(root, "params"), i, p) {
                const char *nm = json_string_value(json_object_get(p, "name"));
                if (nm && nm[0] == 'c' && nm[1] >= '0' && nm[1] <= '9') ncp++;
            }
            CHECK(ncp == (params ? R + 1 : 0), "seed %llu: %d coefficient parameters, radius %d", (unsigned long long)seed, ncp, R);
            /* the plan and the PTX add each pair before the fma */
            char pair[48];
            snprintf(pair, sizeof pair, ", v%d + v%d, s)", R - 1, R + 1);
            CHECK(strstr(s.cu.data, pair) && strstr(s.ptx.data, "add.rn."), "seed %llu: plan/PTX without the pair sum %s", (unsigned long long)seed, pair);
            if (params) {
                char cps[16];
                snprintf(cps, sizeof cps, "c%d", R + 1);
                CHECK(!strstr(s.cu.data, cps), "seed %llu: plan names %s", (unsigned long long)seed, cps);
            }
            /* the reference: out[i] = c0*x[i] + sum_d c_d*(x[i-d] + x[i+d]) inside */
            if (checked_ref < 6) {
                char dir[512];
                task_spec *t = load(&s, dir, sizeof dir);
                CHECK(t != NULL, "seed %llu: task loads", (unsigned long long)seed);
                int si = t ? size_with(t, "n", 777) : -1;
                CHECK(!t || si >= 0, "seed %llu: a size n=777", (unsigned long long)seed);
                if (t && si >= 0) {
                    task_inst in, ref;
                    memset(&in, 0, sizeof in);
                    memset(&ref, 0, sizeof ref);
                    pg_diag_sink q = {0};
                    CHECK(task_inst_make(t, si, 0, 7, &in, &q) == PG_OK && task_reference_run(&in, &ref, &q) == PG_OK, "seed %llu: reference runs",
                          (unsigned long long)seed);
                    double w[4] = {0};
                    json_t *co = json_object_get(fp, "coeffs");
                    for (int d = 0; d <= R; d++) w[d] = json_number_value(json_array_get(co, (size_t)(R + d)));
                    if (params)   /* the parameters' values are the task's */
                        for (int d = 0; d <= R; d++) {
                            char nm[8];
                            snprintf(nm, sizeof nm, "c%d", d);
                            json_t *pp;
                            size_t j;
                            json_array_foreach(json_object_get(root, "params"), j, pp) {
                                const char *pn = json_string_value(json_object_get(pp, "name"));
                                if (pn && !strcmp(pn, nm)) w[d] = strtod(json_string_value(json_object_get(pp, "value")), NULL);
                            }
                        }
                    int px = pidx(t, "x"), po = pidx(t, "out");
                    bool f64 = !strcmp(dt, "f64");
                    double worst = 0;
                    for (int i2 = R; ref.args[po].data && i2 < 777 - R; i2++) {
#define X(j) (f64 ? ((const double *)in.args[px].data)[j] : (double)((const float *)in.args[px].data)[j])
                        double want = w[0] * X(i2);
                        for (int d = 1; d <= R; d++) want += w[d] * (X(i2 - d) + X(i2 + d));
#undef X
                        double got = f64 ? ((const double *)ref.args[po].data)[i2] : ((const float *)ref.args[po].data)[i2];
                        if (fabs(got - want) > worst) worst = fabs(got - want);
                    }
                    CHECK(worst < (f64 ? 1e-9 : 1e-4), "seed %llu (%s): reference differs from the symmetric sum by %g", (unsigned long long)seed,
                          s.identity, worst);
                    task_inst_free(&in);
                    task_inst_free(&ref);
                    checked_ref++;
                }
                if (t) unload(t, dir);
            }
            /* a few through the family's own path: validator and ptxas */
            if (compiled < 4 && byr[R] <= 2) {
                synth_family_sample g;
                memset(&g, 0, sizeof g);
                pg_diag_sink q = {0};
                char why[400] = "";
                CHECK(synth_family_generate(fam, seed, "sm_90", SYNTH_FMT_PLAIN, &g, &q) == PG_OK && g.ptx.len, "seed %llu: generate",
                      (unsigned long long)seed);
                CHECK(g.ptx.len && ptx_ok(g.ptx.data, g.name, have_ptxas, why, sizeof why), "seed %llu (%s): %s", (unsigned long long)seed, g.name,
                      why);
                compiled++;
                synth_family_sample_free(&g);
            }
        }
        json_decref(root);
        synth_family_sample_free(&s);
    }
    json_decref(suite);
    CHECK(nsym > NSEEDS / 5 && nplain > NSEEDS / 2, "symmetric %d, tap-order %d of %d", nsym, nplain, NSEEDS);
    CHECK(byr[1] && byr[2] && byr[3], "symmetric radii drawn: 1:%d 2:%d 3:%d", byr[1], byr[2], byr[3]);
    CHECK(checked_ref == 6, "reference checked on %d symmetric samples", checked_ref);
}

/* ---- transpose ------------------------------------------------------------------------ */
static void check_transpose(bool have_ptxas) {
    int fam = synth_family_find("transpose");
    CHECK(fam >= 0, "transpose family");
    json_t *suite = json_load_file("bench/suite/transpose_f64_tiled/task.json", 0, NULL);
    json_t *sl = json_object_get(suite, "launch");
    const char *sb0 = json_string_value(json_array_get(json_object_get(sl, "block"), 0)),
               *sb1 = json_string_value(json_array_get(json_object_get(sl, "block"), 1));
    CHECK(sb0 && sb1 && !strcmp(sb0, "32") && !strcmp(sb1, "8"), "suite transpose_f64_tiled: 32x8 blocks");
    int bytype[5] = {0}, nbatched = 0, ntd8 = 0, distinct = 0, checked_ref = 0, compiled = 0;
    static const char *TY[] = {"f32", "f64", "s32", "u16", "u8"};
    char (*ids)[sizeof ((synth_family_sample *)0)->identity] = calloc(NSEEDS, sizeof *ids);
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        synth_family_sample s;
        if (!gen("transpose", seed, &s)) { CHECK(false, "transpose seed %llu: generator", (unsigned long long)seed); continue; }
        bool seen = false;
        for (int k = 0; k < distinct && !seen; k++) seen = !strcmp(ids[k], s.identity);
        if (!seen) snprintf(ids[distinct++], sizeof ids[0], "%s", s.identity);
        json_t *root = json_loads(s.task_json.data, 0, NULL);
        json_t *fp = json_object_get(root, "family_params");
        const char *dt = json_string_value(json_object_get(fp, "dtype")), *method = json_string_value(json_object_get(fp, "method"));
        int TD = (int)json_integer_value(json_object_get(fp, "tile")), RB = (int)json_integer_value(json_object_get(fp, "block_rows"));
        bool batched = json_is_true(json_object_get(fp, "batched"));
        for (int k = 0; k < 5; k++) bytype[k] += !strcmp(dt, TY[k]);
        nbatched += batched;
        ntd8 += TD == 8;
        CHECK(TD * RB <= 1024 && RB <= TD / 2 && RB >= 2, "seed %llu: block %dx%d", (unsigned long long)seed, TD, RB);
        CHECK(!(!strcmp(dt, "f64") && !strcmp(method, "smem") && TD == 32 && RB == 8 && !batched), "seed %llu: draws the held-out transpose_f64_tiled",
              (unsigned long long)seed);
        json_t *grid = json_object_get(json_object_get(root, "launch"), "grid");
        CHECK(json_array_size(grid) == (batched ? 3u : 2u) && (!batched || !strcmp(json_string_value(json_array_get(grid, 2)), "batch")),
              "seed %llu: grid of a %s transpose", (unsigned long long)seed, batched ? "batched" : "single");
        CHECK(!batched || (strstr(s.cu.data, "blockIdx.z") && strstr(s.cu.data, "unsigned int batch)")), "seed %llu: batched plan", (unsigned long long)seed);
        /* the reference moves every matrix of the batch */
        if (batched && checked_ref < 4 && (checked_ref < 2 || strcmp(dt, "f32"))) {
            char dir[512];
            task_spec *t = load(&s, dir, sizeof dir);
            CHECK(t != NULL, "seed %llu: task loads", (unsigned long long)seed);
            int si = t ? size_with(t, "batch", 3) : -1;
            if (t && si >= 0) {
                task_inst in, ref;
                memset(&in, 0, sizeof in);
                memset(&ref, 0, sizeof ref);
                pg_diag_sink q = {0};
                CHECK(task_inst_make(t, si, 0, 7, &in, &q) == PG_OK && task_reference_run(&in, &ref, &q) == PG_OK, "seed %llu: reference runs",
                      (unsigned long long)seed);
                int pi = pidx(t, "in"), po = pidx(t, "out");
                size_t es = (size_t)task_dtype_size(t->params[pi].dtype), rows = 100, cols = 77, bad = 0;
                for (size_t b = 0; b < 3; b++)
                    for (size_t r = 0; r < rows; r++)
                        for (size_t c = 0; c < cols; c++)
                            bad += memcmp((const char *)ref.args[po].data + ((b * cols + c) * rows + r) * es,
                                          (const char *)in.args[pi].data + ((b * rows + r) * cols + c) * es, es) != 0;
                CHECK(ref.args[po].count >= 3 * rows * cols && bad == 0, "seed %llu (%s): %zu elements not transposed", (unsigned long long)seed,
                      s.identity, bad);
                task_inst_free(&in);
                task_inst_free(&ref);
                checked_ref++;
            }
            CHECK(!t || si >= 0, "seed %llu: a size with batch=3", (unsigned long long)seed);
            if (t) unload(t, dir);
        }
        /* a few of each new axis through nvcc, the validator and ptxas */
        if (compiled < 6 && (batched || TD == 8 || strcmp(dt, "f32") != 0) && (seed % 7 == 0)) {
            compile_one(fam, seed, s.identity, "the transpose variants", have_ptxas, &compiled);
        }
        json_decref(root);
        synth_family_sample_free(&s);
    }
    free(ids);
    json_decref(suite);
    for (int k = 0; k < 5; k++) CHECK(bytype[k] > 0, "transpose: no %s sample", TY[k]);
    CHECK(nbatched > NSEEDS / 5 && ntd8 > 0, "transpose: batched %d, 8-wide tiles %d", nbatched, ntd8);
    /* before these axes: f32/f64 x 3 methods x tile x rows per block, under 80 identities */
    CHECK(distinct > 200, "transpose: %d distinct identities in %d seeds", distinct, NSEEDS);
    CHECK(checked_ref == 4, "transpose: reference checked on %d batched samples", checked_ref);
    CHECK(compiled >= 6, "transpose: %d variant samples compiled", compiled);
}

/* ---- stencil2d: separable 9-point weights --------------------------------------------- */
static void check_stencil2d_sep(bool have_ptxas) {
    int fam = synth_family_find("stencil2d"), nsep = 0, byw[7] = {0}, checked_ref = 0, compiled = 0;
    CHECK(fam >= 0, "stencil2d family");
    json_t *suite = json_load_file("bench/suite/blur2d_9pt_clamp/task.json", 0, NULL);
    const char *sb = json_string_value(json_array_get(json_object_get(json_object_get(suite, "launch"), "block"), 0));
    CHECK(sb && !strcmp(sb, "16"), "suite blur2d_9pt_clamp: 16x16 blocks");
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        synth_family_sample s;
        if (!gen("stencil2d", seed, &s)) { CHECK(false, "stencil2d seed %llu: generator", (unsigned long long)seed); continue; }
        json_t *root = json_loads(s.task_json.data, 0, NULL);
        json_t *fp = json_object_get(root, "family_params"), *sp = json_object_get(fp, "separable");
        CHECK(!sp == !strstr(s.identity, "_sep"), "seed %llu: identity %s", (unsigned long long)seed, s.identity);
        if (sp) {
            nsep++;
            json_t *w = json_object_get(sp, "w");
            int w0 = (int)json_integer_value(json_array_get(w, 0)), w1 = (int)json_integer_value(json_array_get(w, 1)),
                S = (int)json_integer_value(json_object_get(sp, "scale"));
            CHECK(w0 == (int)json_integer_value(json_array_get(w, 2)) && S == (2 * w0 + w1) * (2 * w0 + w1), "seed %llu: w (%d %d) scale %d",
                  (unsigned long long)seed, w0, w1, S);
            static const int W0[] = {1, 1, 3, 1, 3, -1, 1}, W1[] = {2, 6, 2, 14, 10, 4, 0};
            for (int k = 0; k < 7; k++) byw[k] += W0[k] == w0 && W1[k] == w1;
            const char *dt = json_string_value(json_object_get(fp, "dtype")), *bnd = json_string_value(json_object_get(fp, "boundary"));
            const char *b0 = json_string_value(json_array_get(json_object_get(json_object_get(root, "launch"), "block"), 0));
            const char *b1 = json_string_value(json_array_get(json_object_get(json_object_get(root, "launch"), "block"), 1));
            CHECK(!(!strcmp(dt, "f32") && w0 == 1 && w1 == 2 && !strcmp(bnd, "clamp") && !strcmp(b0, "16") && !strcmp(b1, "16")),
                  "seed %llu: draws the held-out blur2d_9pt_clamp", (unsigned long long)seed);
            /* every tap's weight is w[dy]*w[dx]/S, and the plan writes the centre as w1*w1 / S */
            json_t *taps = json_object_get(fp, "taps"), *cs = json_object_get(fp, "coeffs");
            CHECK(json_array_size(taps) == 9 && json_array_size(cs) == 9, "seed %llu: 9 taps", (unsigned long long)seed);
            for (size_t k = 0; k < json_array_size(taps); k++) {
                int a = (int)json_integer_value(json_array_get(json_array_get(taps, k), 0)), b = (int)json_integer_value(json_array_get(json_array_get(taps, k), 1));
                double want = (double)((a ? w0 : w1) * (b ? w0 : w1)) / S;
                CHECK(json_number_value(json_array_get(cs, k)) == want, "seed %llu: tap (%d,%d) weight %g, want %g", (unsigned long long)seed, a, b,
                      json_number_value(json_array_get(cs, k)), want);
            }
            char centre[48];
            snprintf(centre, sizeof centre, ")%d / %d * x[", w1 * w1, S);
            CHECK(strstr(s.cu.data, centre) != NULL, "seed %llu: the plan has no centre weight %s", (unsigned long long)seed, centre);
            /* the reference on 33 x 65 against the separable sum (zero/clamp/copy) */
            if (checked_ref < 4) {
                char dir[512];
                task_spec *t = load(&s, dir, sizeof dir);
                int si = t ? size_with(t, "cols", 65) : -1;
                CHECK(t && si >= 0, "seed %llu: task loads with a 33 x 65 size", (unsigned long long)seed);
                if (t && si >= 0) {
                    task_inst in, ref;
                    memset(&in, 0, sizeof in);
                    memset(&ref, 0, sizeof ref);
                    pg_diag_sink q = {0};
                    CHECK(task_inst_make(t, si, 0, 7, &in, &q) == PG_OK && task_reference_run(&in, &ref, &q) == PG_OK, "seed %llu: reference runs",
                          (unsigned long long)seed);
                    bool f64 = !strcmp(dt, "f64");
                    int px = pidx(t, "x"), po = pidx(t, "out"), R = 33, C = 65;
                    double worst = 0;
                    for (int i = 0; ref.args[po].data && i < R; i++)
                        for (int j = 0; j < C; j++) {
#define X(y, x) (f64 ? ((const double *)in.args[px].data)[(y) * C + (x)] : (double)((const float *)in.args[px].data)[(y) * C + (x)])
                            double want = 0;
                            bool edge = i < 1 || i >= R - 1 || j < 1 || j >= C - 1;
                            if (!strcmp(bnd, "copy") && edge) want = X(i, j);
                            else
                                for (int a = -1; a <= 1; a++)
                                    for (int b = -1; b <= 1; b++) {
                                        int y = i + a, x = j + b;
                                        if (!strcmp(bnd, "clamp")) { y = y < 0 ? 0 : y >= R ? R - 1 : y; x = x < 0 ? 0 : x >= C ? C - 1 : x; }
                                        else if (y < 0 || y >= R || x < 0 || x >= C) continue;
                                        want += (double)((a ? w0 : w1) * (b ? w0 : w1)) / S * X(y, x);
                                    }
#undef X
                            double got = f64 ? ((const double *)ref.args[po].data)[i * C + j] : ((const float *)ref.args[po].data)[i * C + j];
                            if (fabs(got - want) > worst) worst = fabs(got - want);
                        }
                    CHECK(worst < (f64 ? 1e-9 : 1e-4), "seed %llu (%s): reference off the separable sum by %g", (unsigned long long)seed, s.identity, worst);
                    task_inst_free(&in);
                    task_inst_free(&ref);
                    checked_ref++;
                }
                if (t) unload(t, dir);
            }
            if (compiled < 4 && seed % 3 == 0) {
                compile_one(fam, seed, s.identity, "the separable stencil2d samples", have_ptxas, &compiled);
            }
        }
        json_decref(root);
        synth_family_sample_free(&s);
    }
    json_decref(suite);
    CHECK(nsep > NSEEDS / 20, "stencil2d: %d separable of %d", nsep, NSEEDS);
    for (int k = 0; k < 7; k++) CHECK(byw[k] > 0, "stencil2d: weight set %d never drawn", k);
    CHECK(checked_ref == 4 && compiled >= 4, "stencil2d: reference checked on %d, %d compiled", checked_ref, compiled);
}

/* ---- reduce: the suite's reduce_max_f32_b512 (512 x 8 elements, one chunk per block) is not drawn */
/* ---- spmv: the ELL -1 sentinel ----------------------------------------------------------- */
/* y[r] of an ELL sample recomputed from its inputs (slot-major or row-major, -1 slots skipped). */
static double ell_row(const task_inst *in, int pv, int pc, int px, bool f64, bool slot, size_t rows, size_t K, size_t r) {
    double acc = 0;
    for (size_t k = 0; k < K; k++) {
        size_t e = slot ? k * rows + r : r * K + k;
        int c = ((const int *)in->args[pc].data)[e];
        if (c < 0) continue;
        double v = f64 ? ((const double *)in->args[pv].data)[e] : ((const float *)in->args[pv].data)[e];
        double x = f64 ? ((const double *)in->args[px].data)[c] : ((const float *)in->args[px].data)[c];
        acc += v * x;
    }
    return acc;
}

static void check_spmv_ell(bool have_ptxas) {
    int fam = synth_family_find("spmv");
    CHECK(fam >= 0, "spmv family");
    int nell = 0, nneg = 0, checked_ref = 0, compiled = 0, said = 0;
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        synth_family_sample s;
        if (!gen("spmv", seed, &s)) { CHECK(false, "spmv seed %llu: generator", (unsigned long long)seed); continue; }
        if (strncmp(s.identity, "spmv:ell:", 9)) { synth_family_sample_free(&s); continue; }
        nell++;
        json_t *root = json_loads(s.task_json.data, 0, NULL);
        json_t *fp = json_object_get(root, "family_params");
        bool neg = !strcmp(json_string_value(json_object_get(fp, "padding")), "neg1");
        nneg += neg;
        CHECK(neg == (strstr(s.identity, ":neg:") != NULL), "seed %llu: identity %s, padding %s", (unsigned long long)seed, s.identity,
              neg ? "neg1" : "zero");
        if (neg) {
            /* the plan says it twice: the head comment and the skip */
            CHECK(strstr(s.cu.data, "// An empty slot has column -1 and any value: test the column before reading") &&
                      strstr(s.cu.data, "if (c >= 0) acc += ") && strstr(s.cu.data, "// c == -1: an empty slot, skipped"),
                  "seed %llu: the plan states the -1 sentinel:\n%s", (unsigned long long)seed, s.cu.data);
            /* every description but the terse one carries the note */
            json_t *d = json_object_get(root, "descriptions");
            static const char *ST[] = {"detailed", "card", "zh", "prose"};
            bool all = true;
            for (int k = 0; k < 4; k++) all = all && strstr(json_string_value(json_object_get(d, ST[k])), "-1]") != NULL;
            said += all;
        }
        /* the reference skips exactly the -1 slots (and multiplies the zero-value ones) */
        if (checked_ref < 4) {
            char dir[512];
            task_spec *t = load(&s, dir, sizeof dir);
            CHECK(t != NULL, "seed %llu: task loads", (unsigned long long)seed);
            int si = t ? size_with(t, "rows", 1000) : -1;
            if (t && si >= 0) {
                task_inst in, ref;
                memset(&in, 0, sizeof in);
                memset(&ref, 0, sizeof ref);
                pg_diag_sink q = {0};
                json_t *nm = json_object_get(fp, "names");
                int pv = pidx(t, json_string_value(json_array_get(nm, 0))), pc = pidx(t, json_string_value(json_array_get(nm, 1)));
                int px = pidx(t, json_string_value(json_object_get(fp, "x"))), py = pidx(t, json_string_value(json_object_get(fp, "y")));
                bool ok = pv >= 0 && pc >= 0 && px >= 0 && py >= 0 && !strcmp(json_string_value(json_object_get(fp, "op")), "plain");
                if (ok) {
                    CHECK(task_inst_make(t, si, 0, 7, &in, &q) == PG_OK && task_reference_run(&in, &ref, &q) == PG_OK, "seed %llu: reference runs",
                          (unsigned long long)seed);
                    bool f64 = !strcmp(json_string_value(json_object_get(fp, "dtype")), "f64");
                    bool slot = !strcmp(json_string_value(json_object_get(fp, "layout")), "slot-major");
                    size_t rows = 1000, K = 9, bad = 0, empty = 0;
                    for (size_t e = 0; e < rows * K && in.args[pc].data; e++) empty += ((const int *)in.args[pc].data)[e] < 0;
                    for (size_t r = 0; r < rows && ref.args[py].data; r++) {
                        double want = ell_row(&in, pv, pc, px, f64, slot, rows, K, r);
                        double got = f64 ? ((const double *)ref.args[py].data)[r] : ((const float *)ref.args[py].data)[r];
                        bad += fabs(got - want) > 1e-4 * (1 + fabs(want));
                    }
                    CHECK(bad == 0 && (neg ? empty > 0 : empty == 0), "seed %llu (%s): %zu rows off the -1-skipping sum, %zu empty slots", (unsigned long long)seed,
                          s.identity, bad, empty);
                    task_inst_free(&in);
                    task_inst_free(&ref);
                    checked_ref++;
                }
            }
            if (t) unload(t, dir);
        }
        if (neg && compiled < 4 && seed % 5 == 0) compile_one(fam, seed, s.identity, "the ELL samples", have_ptxas, &compiled);
        json_decref(root);
        synth_family_sample_free(&s);
    }
    /* 2/3 before 2026-12-07 (h104); 3/4 now */
    CHECK(nell > NSEEDS / 5 && nneg * 100 >= nell * 71 && nneg * 100 <= nell * 79, "spmv: %d of %d ELL samples pad with -1", nneg, nell);
    CHECK(said == nneg, "spmv: %d of %d -1 samples state the sentinel in every description", said, nneg);
    CHECK(checked_ref == 4, "spmv: reference checked on %d ELL samples", checked_ref);
    CHECK(compiled >= 4, "spmv: %d ELL samples compiled", compiled);
}

/* ---- scan: the warp scans' shuffle deltas written out ------------------------------------- */
/* The delta of each shfl.sync.up of a PTX text in order (an immediate, or the value of the last
 * `mov.u32 %r, imm` to its register), and for each plan comment naming a literal delta
 * (`__shfl_up_sync(0xffffffffu, v, D);`) whether the next shuffle after it uses D. */
static int ptx_deltas(const char *ptx, int *d, int max, int *commented, int *agree) {
    int n = 0, pending = -1;
    *commented = *agree = 0;
    char regs[64][16];
    long val[64];
    int nr = 0;
    for (const char *l = ptx; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        while (*l == ' ' || *l == '\t') l++;
        const char *c = strstr(l, "__shfl_up_sync(0xffffffffu, ");
        const char *e = strchr(l, '\n');
        if (!strncmp(l, "//", 2) && c && (!e || c < e)) {
            const char *comma = strchr(c + 28, ',');
            if (comma && (!e || comma < e) && comma[1] == ' ' && comma[2] >= '0' && comma[2] <= '9') { pending = atoi(comma + 2); (*commented)++; }
            continue;
        }
        char r[16];
        long v;
        if (sscanf(l, "mov.u32 %15[^,], %ld;", r, &v) == 2 && nr < 64) {
            int k = 0;
            while (k < nr && strcmp(regs[k], r)) k++;
            if (k == nr) nr++;
            snprintf(regs[k], sizeof regs[k], "%s", r);
            val[k] = v;
        } else if (!strncmp(l, "shfl.sync.up.b32", 16)) {
            /* shfl.sync.up.b32 %rD|%pP, %rA, B, C, M; */
            const char *a = strchr(l, ',');
            const char *b = a ? strchr(a + 1, ',') : NULL;
            if (!b) continue;
            b++;
            while (*b == ' ') b++;
            int delta = -1;
            if (*b >= '0' && *b <= '9') delta = atoi(b);
            else {
                char br[16];
                if (sscanf(b, "%15[^,]", br) == 1)
                    for (int k = 0; k < nr; k++)
                        if (!strcmp(regs[k], br)) delta = (int)val[k];
            }
            if (n < max) d[n++] = delta;
            if (pending >= 0) *agree += delta == pending;
            pending = -1;
        }
    }
    return n;
}

static void check_scan_unrolled(bool have_ptxas) {
    int fam = synth_family_find("scan");
    CHECK(fam >= 0, "scan family");
    int nshfl = 0, nun = 0, compiled = 0, literate = 0;
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        synth_family_sample s;
        if (!gen("scan", seed, &s)) { CHECK(false, "scan seed %llu: generator", (unsigned long long)seed); continue; }
        /* held out (bench/suite exclusive_scan_1024): s32 exclusive, 1024-element segments per 256-thread block */
        CHECK(!strstr(s.identity, "scan:exclusive:s32:block1024_") && !strstr(s.identity, "scan:exclusive:s32:blelloch1024"),
              "seed %llu: draws the held-out exclusive_scan_1024 (%s)", (unsigned long long)seed, s.identity);
        bool shfl = strstr(s.cu.data, "__shfl_up_sync") != NULL, un = strstr(s.cu.data, "unrolled: shuffle deltas 1, 2, 4, 8, 16") != NULL;
        nshfl += shfl;
        nun += un;
        CHECK(!un || !strstr(s.cu.data, "for (int d = 1; d < 32; d <<= 1)"), "seed %llu: an unrolled plan keeps the loop", (unsigned long long)seed);
        if (un) {
            /* every step written out, in order, with its literal delta and guard */
            const char *p = s.cu.data;
            bool ok = true;
            for (int d = 1; d < 32 && ok; d <<= 1) {
                char want[64], guard[32];
                snprintf(want, sizeof want, "%d = __shfl_up_sync(0xffffffffu, ", d);
                snprintf(guard, sizeof guard, "if (lane >= %d) ", d);
                const char *q = strstr(p, want);
                ok = q && strstr(q, guard);
                if (ok) p = strstr(q, guard);
            }
            CHECK(ok, "seed %llu: the unrolled steps:\n%s", (unsigned long long)seed, s.cu.data);
        }
        /* a few unrolled plans compiled: plain (validator, ptxas), and literate: each comment's delta is its shuffle's */
        if (un && compiled < 4 && seed % 3 == 0) {
            compile_one(fam, seed, s.identity, "the unrolled scans", have_ptxas, &compiled);
            if (compiled < 99) {
                synth_family_sample g;
                memset(&g, 0, sizeof g);
                pg_diag_sink q = {0};
                if (synth_family_generate(fam, seed, "sm_90", SYNTH_FMT_LITERATE, &g, &q) == PG_OK && g.ptx.len) {
                    int d[64], commented = 0, agree = 0, n = ptx_deltas(g.ptx.data, d, 64, &commented, &agree);
                    int steps = 0;   /* 1, 2, 4, 8, 16 in order */
                    for (int k = 0; k < n; k++)
                        if (d[k] == 1 << (steps % 5)) steps++;
                    CHECK(commented >= 5 && agree == commented && steps >= 5, "seed %llu (%s): %d shuffles, %d commented deltas, %d agree, %d steps in order",
                          (unsigned long long)seed, s.identity, n, commented, agree, steps);
                    literate++;
                } else CHECK(false, "seed %llu: literate PTX", (unsigned long long)seed);
                synth_family_sample_free(&g);
            }
        }
        synth_family_sample_free(&s);
    }
    /* half of the shuffle scans (0 before 2026-12-07, h104) */
    CHECK(nshfl > NSEEDS / 2 && nun * 100 >= nshfl * 45 && nun * 100 <= nshfl * 55, "scan: %d of %d shuffle scans unrolled", nun, nshfl);
    CHECK(compiled >= 4 && (compiled == 99 || literate == 4), "scan: %d unrolled compiled, %d literate", compiled, literate);
}

/* ---- stencil_bc ---------------------------------------------------------------------------- */
/* Does cu cast a bare offset coordinate to size_t ahead of a product, `(size_t)z - 1 * H` (that is
 * z - H)?  The copy boundary's direct plans did, for every z neighbour, until 2026-12-07. */
static bool cast_precedence_trap(const char *cu) {
    for (const char *p = strstr(cu, "(size_t)"); p; p = strstr(p + 1, "(size_t)")) {
        const char *q = p + 8;
        if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_')) continue;
        while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_') q++;
        if (strncmp(q, " - ", 3) && strncmp(q, " + ", 3)) continue;
        q += 3;
        if (*q < '0' || *q > '9') continue;
        while (*q >= '0' && *q <= '9') q++;
        if (!strncmp(q, " * ", 3)) return true;
    }
    return false;
}

/* The heat step's output at every cell of size si, recomputed: faces copied, the rest
 * in + kappa*(6 neighbours - 6*in); *faces counts the copied cells. */
static size_t heat_bad(const task_spec *t, const task_inst *in, const task_inst *ref, int pi, int pk, int po, bool f64, int64_t D, int64_t H, int64_t W,
                       size_t *faces) {
    size_t bad = 0;
    *faces = 0;
#define V(a, i) (f64 ? ((const double *)(a).data)[i] : (double)((const float *)(a).data)[i])
    for (int64_t z = 0; z < D; z++)
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++) {
                size_t k = (size_t)((z * H + y) * W + x);
                double want;
                if (x == 0 || y == 0 || z == 0 || x == W - 1 || y == H - 1 || z == D - 1) {
                    want = V(in->args[pi], k);
                    (*faces)++;
                } else {
                    double c = V(in->args[pi], k);
                    double s6 = V(in->args[pi], k - 1) + V(in->args[pi], k + 1) + V(in->args[pi], k - (size_t)W) + V(in->args[pi], k + (size_t)W) +
                                V(in->args[pi], k - (size_t)(W * H)) + V(in->args[pi], k + (size_t)(W * H));
                    want = c + V(in->args[pk], k) * (s6 - 6 * c);
                }
                double got = V(ref->args[po], k);
                bad += fabs(got - want) > 1e-4 * (1 + fabs(want));
            }
#undef V
    (void)t;
    return bad;
}

static void check_stencil_bc(bool have_ptxas) {
    int fam = synth_family_find("stencil_bc");
    CHECK(fam >= 0, "stencil_bc family");
    json_t *suite = json_load_file("bench/suite/heat3d_varcoef/task.json", 0, NULL);
    CHECK(suite != NULL, "bench/suite/heat3d_varcoef/task.json loads");
    const char *sb1 = json_string_value(json_array_get(json_object_get(json_object_get(suite, "launch"), "block"), 1));
    CHECK(sb1 && !strcmp(sb1, "8"), "suite heat3d_varcoef: 32x8x1 blocks");
    int ncopy_direct = 0, trapped = 0, compiled = 0, nheat = 0, nu32 = 0, nblocks = 0, checked_ref = 0, all_face = 0;
    char blocks[16][16];
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        synth_family_sample s;
        if (!gen("stencil_bc", seed, &s)) { CHECK(false, "stencil_bc seed %llu: generator", (unsigned long long)seed); continue; }
        bool cd = strstr(s.identity, ":copy:") && strstr(s.identity, ":direct:");
        ncopy_direct += cd;
        if (cast_precedence_trap(s.cu.data) && trapped++ < 3) fprintf(stderr, "  seed %llu (%s): (size_t)v +- d * n in\n%s\n", (unsigned long long)seed, s.identity, s.cu.data);
        if (strstr(s.identity, ":copy:"))
            CHECK(strstr(s.cu.data, "// a cell on any face copies the input (every cell when an extent is 1 or 2)\n    if (x == 0 || y == 0 || z == 0 ||") != NULL,
                  "seed %llu: the face copy and its comment:\n%s", (unsigned long long)seed, s.cu.data);
        bool heat = strstr(s.identity, "stencil_bc:3:heat7_var:copy:") != NULL, u32 = strstr(s.identity, ":u32") != NULL;
        CHECK(!u32 || heat, "seed %llu: u32 extents outside the heat step (%s)", (unsigned long long)seed, s.identity);
        /* held out: the suite's f32 32x8x1 step with u32 extents, direct or tiled (test_synth_holdout found the tiled
         * ones: the same task), and the direct one with s32 extents as before */
        CHECK(!strstr(s.identity, "stencil_bc:3:heat7_var:copy:f32:direct:32x8x1:") &&
                  !(strstr(s.identity, "stencil_bc:3:heat7_var:copy:f32:smem:32x8x1:") && strstr(s.identity, ":u32")),
              "seed %llu: draws the held-out heat3d_varcoef (%s)", (unsigned long long)seed, s.identity);
        if (heat) {
            nheat++;
            nu32 += u32;
            CHECK(!u32 || strstr(s.cu.data, "unsigned int") != NULL, "seed %llu: u32 extents in the plan", (unsigned long long)seed);
            const char *b = strstr(s.identity, "direct:") ? strstr(s.identity, "direct:") + 7 : strstr(s.identity, "smem:") + 5;
            char blk[16];
            snprintf(blk, sizeof blk, "%.*s", (int)strcspn(b, ":"), b);
            int k = 0;
            while (k < nblocks && strcmp(blocks[k], blk)) k++;
            if (k == nblocks && nblocks < 16) snprintf(blocks[nblocks++], sizeof blocks[0], "%s", blk);
            json_t *root = json_loads(s.task_json.data, 0, NULL);
            json_t *fp = json_object_get(root, "family_params");
            json_t *sz = json_object_get(root, "sizes");
            const char *Dn = json_string_value(json_array_get(json_object_get(fp, "sizes"), 0)), *Hn = json_string_value(json_array_get(json_object_get(fp, "sizes"), 1)),
                       *Wn = json_string_value(json_array_get(json_object_get(fp, "sizes"), 2));
            /* a size where every cell is a face (an extent of 1 or 2) */
            int degenerate = -1;
            for (size_t i = 0; i < json_array_size(sz) && degenerate < 0; i++) {
                json_t *o = json_array_get(sz, i);
                if (json_integer_value(json_object_get(o, Dn)) <= 2 || json_integer_value(json_object_get(o, Hn)) <= 2 || json_integer_value(json_object_get(o, Wn)) <= 2)
                    degenerate = (int)i;
            }
            CHECK(degenerate >= 0, "seed %llu: no all-face size", (unsigned long long)seed);
            /* the reference: faces copied (all of them on the all-face size), the interior updated */
            if (checked_ref < 6 && degenerate >= 0) {
                char dir[512];
                task_spec *t = load(&s, dir, sizeof dir);
                CHECK(t != NULL, "seed %llu: task loads", (unsigned long long)seed);
                int pi = t ? pidx(t, json_string_value(json_object_get(fp, "in"))) : -1, pk = t ? pidx(t, json_string_value(json_object_get(fp, "kappa"))) : -1,
                    po = t ? pidx(t, json_string_value(json_object_get(fp, "out"))) : -1;
                bool f64 = !strcmp(json_string_value(json_object_get(fp, "dtype")), "f64");
                for (int pass = 0; t && pi >= 0 && pk >= 0 && po >= 0 && pass < 2; pass++) {
                    int si = pass == 0 ? degenerate : 1;   /* the all-face size, then the first small regular one */
                    json_t *o = json_array_get(sz, (size_t)si);
                    int64_t D = json_integer_value(json_object_get(o, Dn)), H = json_integer_value(json_object_get(o, Hn)), W = json_integer_value(json_object_get(o, Wn));
                    task_inst in, ref;
                    memset(&in, 0, sizeof in);
                    memset(&ref, 0, sizeof ref);
                    pg_diag_sink q = {0};
                    bool ok = task_inst_make(t, si, 0, 11, &in, &q) == PG_OK && task_reference_run(&in, &ref, &q) == PG_OK;
                    CHECK(ok, "seed %llu: reference runs at size %d", (unsigned long long)seed, si);
                    if (ok) {
                        size_t faces = 0, bad = heat_bad(t, &in, &ref, pi, pk, po, f64, D, H, W, &faces);
                        CHECK(bad == 0, "seed %llu (%s) %lldx%lldx%lld: %zu cells off", (unsigned long long)seed, s.identity, (long long)D, (long long)H, (long long)W, bad);
                        if (pass == 0) {
                            CHECK(faces == (size_t)(D * H * W), "seed %llu: %zu of %lld cells are faces", (unsigned long long)seed, faces, (long long)(D * H * W));
                            all_face++;
                        }
                    }
                    task_inst_free(&in);
                    task_inst_free(&ref);
                }
                checked_ref++;
                if (t) unload(t, dir);
            }
            if (compiled < 6 && seed % 3 == 0 && (u32 || compiled < 3))
                compile_one(fam, seed, s.identity, "the heat steps", have_ptxas, &compiled);
            json_decref(root);
        }
        synth_family_sample_free(&s);
    }
    json_decref(suite);
    CHECK(trapped == 0, "stencil_bc: %d plans index with (size_t)v - 1 * n (v - n)", trapped);
    CHECK(cast_precedence_trap("in[((size_t)z - 1 * H + y) * W + x]") && !cast_precedence_trap("in[((size_t)(z - 1) * H + y) * W + x]") &&
              !cast_precedence_trap("in[((size_t)z * H + y - 1) * W + x]"), "the trap detector");
    CHECK(ncopy_direct > 0, "stencil_bc: %d copy-boundary direct samples", ncopy_direct);
    /* 93 of 2000 before 2026-12-07 (h104) */
    CHECK(nheat * 100 >= NSEEDS * 25 && nheat * 100 <= NSEEDS * 33, "stencil_bc: %d of %d draws are the 3-D heat step with copied faces", nheat, NSEEDS);
    CHECK(nu32 * 100 >= nheat * 40 && nu32 * 100 <= nheat * 60, "stencil_bc: %d of %d heat steps with u32 extents", nu32, nheat);
    CHECK(nblocks >= 8, "stencil_bc: %d heat-step blocks (8 direct, their z = 1 forms tiled)", nblocks);
    CHECK(checked_ref == 6 && all_face == 6, "stencil_bc: reference checked on %d heat steps (%d all-face sizes)", checked_ref, all_face);
    CHECK(compiled >= 6 || compiled == 99, "stencil_bc: %d heat steps compiled", compiled);
}

static void check_reduce_holdout(void) {
    int e8_512 = 0;
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        synth_family_sample s;
        if (!gen("reduce", seed, &s)) { CHECK(false, "reduce seed %llu: generator", (unsigned long long)seed); continue; }
        CHECK(!strstr(s.identity, "reduce:max:f32:b512:e8:") || !strstr(s.identity, ":tile:"), "seed %llu: draws the held-out reduce_max_f32_b512 (%s)",
              (unsigned long long)seed, s.identity);
        e8_512 += strstr(s.identity, ":b512:e8:") != NULL;
        synth_family_sample_free(&s);
    }
    CHECK(e8_512 > 0, "reduce: 512 x 8 still drawn for the other ops and types");
}

int main(void) {
    char pp[1024];
    bool have_ptxas = ptx_ptxas_find(pp, sizeof pp);
    if (!have_ptxas) printf("SKIPPED: ptxas not found, PTX is only checked by the validator\n");
    check_stencil(have_ptxas);
    check_transpose(have_ptxas);
    check_stencil2d_sep(have_ptxas);
    check_reduce_holdout();
    check_spmv_ell(have_ptxas);
    check_scan_unrolled(have_ptxas);
    check_stencil_bc(have_ptxas);
    return TEST_DONE();
}
