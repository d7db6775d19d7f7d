/* test_synth_expr.c — the random expression-tree family: generator
 * determinism, interpreter values, prefix round trip, numerical safety,
 * generated PTX (validator, ptxas), task.json + C reference, CUDA text (nvcc).
 *
 * EXPR_DUMP=DIR additionally writes a few generated task folders
 * (task.json, kernel.ptx, reference.cu) under DIR for a GPU check with
 * `ptxgen run --suite DIR` (EXPR_DUMP_N of them, default 8). */
#include "common/test.h"
#include "ptxgen/ptx.h"
#include "ptxgen/synth_expr.h"
#include "ptxgen/task.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 11;
}
static double urand(uint64_t *s, double lo, double hi) { return lo + (hi - lo) * ((double)lcg(s) / 9007199254740992.0); }

static void diag_print(void *user, const pg_diag *d) {
    char buf[700];
    pg_diag_format(d, buf, sizeof buf);
    fprintf(stderr, "  %s\n", buf);
}

static void keep_first(void *user, const pg_diag *d) {
    pg_diag *f = user;
    if (!f->code) *f = *d;
}

static bool write_file(const char *path, const char *data) {
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(data, 1, strlen(data), f) == strlen(data);
    return fclose(f) == 0 && ok;
}

static expr_tree *P(const char *s) {
    char err[160];
    expr_tree *e = expr_parse(s, err, sizeof err);
    if (!e) fprintf(stderr, "parse '%s': %s\n", s, err);
    return e;
}

static void test_scalar_values(void) {
    float sv[2];
    synth_expr_scalar_values(42, 2, sv);
    CHECK(sv[0] != sv[1] && sv[0] >= SYNTH_EXPR_SCALAR_MIN && sv[0] <= SYNTH_EXPR_SCALAR_MAX &&
          sv[1] >= SYNTH_EXPR_SCALAR_MIN && sv[1] <= SYNTH_EXPR_SCALAR_MAX, "scalar values %g %g", sv[0], sv[1]);
}

static bool uses(const expr_tree *e, expr_op op) {
    if (e->op == op) return true;
    for (int i = 0; i < e->nkids; i++)
        if (uses(e->kid[i], op)) return true;
    return false;
}

/* Every select condition is an input leaf, a difference of two leaves, or the
 * select is continuous (t > 0 ? t : s*t or the mirror); see the header. */
static bool sel_safe(const expr_tree *e) {
    if (e->op == EXPR_SEL) {
        const expr_tree *c = e->kid[0], *x = e->kid[1], *y = e->kid[2];
        bool leaf = c->op == EXPR_INPUT;
        bool diff = c->op == EXPR_SUB && c->kid[0]->nkids == 0 && c->kid[1]->nkids == 0;
        bool cont = false;
        for (int o = 0; o < 2 && !cont; o++) {   /* t > 0 ? t : s*t, or the mirror */
            const expr_tree *same = o ? y : x, *m = o ? x : y;
            cont = m->op == EXPR_MUL && expr_equal(same, c) && m->kid[0]->nkids == 0 && expr_equal(m->kid[1], c);
        }
        if (!leaf && !diff && !cont) {
            pg_buf t = {0};
            expr_to_prefix(e, &t);
            fprintf(stderr, "unsafe select: %s\n", t.data);
            pg_buf_free(&t);
            return false;
        }
    }
    for (int i = 0; i < e->nkids; i++)
        if (!sel_safe(e->kid[i])) return false;
    return true;
}

static void test_random(void) {
    int det_bad = 0, rt_bad = 0, bad_inputs = 0, nonfinite = 0, batch_bad = 0, bad_scalars = 0, unsafe_sel = 0;
    int total_nodes = 0, ntrees = 0, max_nodes = 0, with_scalar = 0, with_sel = 0, two_scalars = 0, heldout = 0;
    int op_seen[EXPR__COUNT] = {0};
    uint64_t rs = 12345;
    for (int k = 0; k < 400; k++) {
        int nin = 1 + k % 4, depth = 2 + k % 4;
        expr_tree *e = synth_expr_random(1000 + k, nin, depth, NULL);
        expr_tree *e2 = synth_expr_random(1000 + k, nin, depth, NULL);
        if (!e || !e2) { det_bad++; expr_free(e); expr_free(e2); continue; }
        if (!expr_equal(e, e2)) det_bad++;
        if (expr_inputs_used(e) != (1u << nin) - 1) bad_inputs++;
        unsigned su = expr_scalars_used(e);
        if (su != 0 && su != 1 && su != 3) bad_scalars++;   /* alpha, or alpha and beta */
        with_scalar += su != 0;
        two_scalars += su == 3;
        with_sel += uses(e, EXPR_SEL);
        if (!sel_safe(e)) unsafe_sel++;
        if (e->op == EXPR_SEL && e->kid[0]->op == EXPR_INPUT && e->kid[1]->op == EXPR_INPUT &&
            e->kid[2]->op == EXPR_MUL) {
            const expr_tree *m = e->kid[2];
            int x = e->kid[0]->input;
            if (e->kid[1]->input == x && ((m->kid[0]->op == EXPR_SCALAR && m->kid[1]->op == EXPR_INPUT &&
                                           m->kid[1]->input == x) ||
                                          (m->kid[1]->op == EXPR_SCALAR && m->kid[0]->op == EXPR_INPUT &&
                                           m->kid[0]->input == x)))
                heldout++;
        }
        int nn = expr_count_nodes(e);
        total_nodes += nn;
        if (nn > max_nodes) max_nodes = nn;
        ntrees++;
        /* prefix round trip */
        pg_buf p = {0};
        expr_to_prefix(e, &p);
        expr_tree *r = P(p.data);
        if (!r || !expr_equal(e, r)) { rt_bad++; fprintf(stderr, "round trip: %s\n", p.data); }
        /* no inf/NaN on 10k inputs in [-10,10]; the chunked evaluator matches */
        enum { N = 10000 };
        static float fin[4][N];
        static float fout[N];
        for (int i = 0; i < N; i++)
            for (int j = 0; j < 4; j++) fin[j][i] = (float)urand(&rs, -10, 10);
        if (k % 7 == 0) { fin[0][0] = -10; fin[0][1] = 10; fin[0][2] = 0; }
        const float *ins[4] = {fin[0], fin[1], fin[2], fin[3]};
        /* scalars anywhere in the stated range, the ends included */
        double sc[2] = {k % 5 == 0 ? SYNTH_EXPR_SCALAR_MIN : (float)urand(&rs, -4, 4),
                        k % 5 == 1 ? SYNTH_EXPR_SCALAR_MAX : (float)urand(&rs, -4, 4)};
        expr_eval_f32(e, ins, sc, fout, N);
        bool reported = false;
        for (int i = 0; i < N; i++) {
            double x[4] = {fin[0][i], fin[1][i], fin[2][i], fin[3][i]};
            double v = expr_eval(e, x, sc);
            double v2 = r ? expr_eval(r, x, sc) : NAN;
            if (!isfinite(v) || !isfinite((float)v)) {
                nonfinite++;
                if (!reported) fprintf(stderr, "non-finite %g: %s\n", v, p.data);
                reported = true;
            }
            if (memcmp(&v, &v2, sizeof v)) rt_bad++;
            float fv = (float)v;
            if (memcmp(&fv, &fout[i], sizeof fv)) batch_bad++;
        }
        expr_free(r);
        pg_buf_free(&p);
        /* collect which operators appear */
        expr_tree *stack[512];
        int sp = 0;
        stack[sp++] = e;
        while (sp) {
            expr_tree *x = stack[--sp];
            op_seen[x->op]++;
            for (int i = 0; i < x->nkids && sp < 512; i++) stack[sp++] = x->kid[i];
        }
        expr_free(e);
        expr_free(e2);
    }
    CHECK(det_bad == 0, "%d trees differ for the same seed", det_bad);
    CHECK(bad_inputs == 0, "%d trees do not use every input exactly", bad_inputs);
    CHECK(rt_bad == 0, "%d prefix round trips differ", rt_bad);
    CHECK(nonfinite == 0, "%d non-finite values", nonfinite);
    CHECK(batch_bad == 0, "%d chunked-evaluator values differ from the interpreter", batch_bad);
    CHECK(bad_scalars == 0, "%d trees use beta without alpha", bad_scalars);
    CHECK(unsafe_sel == 0, "%d trees have a select whose condition is not sign-exact", unsafe_sel);
    CHECK(heldout == 0, "%d trees are the held-out leaky_relu", heldout);
    for (int op = EXPR_INPUT; op < EXPR__COUNT; op++)
        CHECK(op_seen[op] > 0, "operator %s never generated", expr_op_name((expr_op)op));
    /* the mix: about a third of the trees take scalars, a quarter select */
    double fs = ntrees ? (double)with_scalar / ntrees : 0, fsel = ntrees ? (double)with_sel / ntrees : 0;
    CHECK(fs >= 0.28 && fs <= 0.45, "%.0f%% of the trees have scalars (want 30-40%%)", 100 * fs);
    CHECK(fsel >= 0.17 && fsel <= 0.35, "%.0f%% of the trees have a select (want 20-30%%)", 100 * fsel);
    CHECK(two_scalars > 0 && two_scalars < with_scalar, "%d of %d scalar trees have two", two_scalars, with_scalar);
    printf("random trees: %d, mean %.1f nodes, max %d; %.0f%% with scalars (%d with two), %.0f%% with a select\n",
           ntrees, ntrees ? (double)total_nodes / ntrees : 0.0, max_nodes, 100 * fs, two_scalars, 100 * fsel);
    /* a different seed gives a different tree (almost always) */
    int same = 0;
    for (int k = 0; k < 20; k++) {
        expr_tree *x = synth_expr_random(k, 2, 4, NULL), *y = synth_expr_random(k + 100, 2, 4, NULL);
        same += expr_equal(x, y);
        expr_free(x);
        expr_free(y);
    }
    CHECK(same < 3, "%d of 20 seed pairs gave equal trees", same);
    CHECK(synth_expr_random(1, 0, 3, NULL) == NULL && synth_expr_random(1, 5, 3, NULL) == NULL, "bad ninputs refused");
    /* custom weights: only add and mul */
    synth_expr_opts o;
    memset(&o, 0, sizeof o);
    o.op_weight[EXPR_ADD] = 1;
    o.op_weight[EXPR_MUL] = 1;
    expr_tree *w = synth_expr_random(7, 3, 4, &o);
    pg_buf pw = {0};
    expr_to_prefix(w, &pw);
    CHECK(!strstr(pw.data, "exp") && !strstr(pw.data, "max") && !strstr(pw.data, "sub"), "weights: %s", pw.data);
    pg_buf_free(&pw);
    expr_free(w);
    /* scalar_prob < 0: never scalars; 1: always, max_scalars 1: alpha only */
    int nsc = 0, nalpha = 0;
    for (int k = 0; k < 40; k++) {
        memset(&o, 0, sizeof o);
        o.scalar_prob = -1;
        w = synth_expr_random(300 + (uint64_t)k, 1 + k % 4, 2 + k % 4, &o);
        nsc += expr_scalars_used(w) != 0;
        expr_free(w);
        o.scalar_prob = 1;
        o.max_scalars = 1;
        w = synth_expr_random(300 + (uint64_t)k, 1 + k % 4, 2 + k % 4, &o);
        nalpha += expr_scalars_used(w) == 1;
        expr_free(w);
    }
    CHECK(nsc == 0 && nalpha == 40, "scalar options: %d trees with scalars when off, %d of 40 alpha-only when forced", nsc,
          nalpha);
}

/* ---- generated kernels ------------------------------------------------------------------ */
static char g_tmp[256];
static bool g_have_ptxas, g_have_nvcc;
static double t_gen, t_val, t_ptxas;
static int n_kernels, n_ptxas;

static void test_kernel(const expr_tree *e, int id, int nin, int per_thread, bool nvcc_it) {
    char name[64], dir[400], path[512];
    snprintf(name, sizeof name, "expr_t%d_%d_%d", id, nin, per_thread);
    snprintf(dir, sizeof dir, "%s/%s", g_tmp, name);
    mkdir(dir, 0755);
    pg_buf ptx = {0}, cu = {0}, js = {0};
    pg_diag_sink ds = {diag_print, NULL, 0, 0, 0};
    int nsc = expr_nscalars(e);
    float sv[EXPR_MAX_SCALARS];
    synth_expr_scalar_values((uint64_t)id, nsc, sv);
    double sc[EXPR_MAX_SCALARS] = {nsc > 0 ? sv[0] : 0, nsc > 1 ? sv[1] : 0};
    double t0 = now();
    pg_status st = synth_expr_kernel(e, name, nin, sv, 256, per_thread, &ptx, &cu, &js, &ds);
    double t1 = now();
    CHECK(st == PG_OK, "%s: synth_expr_kernel %s", name, pg_status_str(st));
    if (st != PG_OK) return;
    ptx_module *m = NULL;
    pg_diag_sink vs = {diag_print, NULL, 0, 0, 0};
    pg_status ps = ptx_parse(ptx.data, ptx.len, name, &m, &vs);
    pg_status vst = ps == PG_OK ? ptx_validate(m, &vs) : ps;
    double t2 = now();
    t_gen += t1 - t0;
    t_val += t2 - t1;
    n_kernels++;
    CHECK(vst == PG_OK && vs.nerrors == 0 && vs.nwarnings == 0, "%s: validator %s, %d errors, %d warnings", name,
          pg_status_str(vst), vs.nerrors, vs.nwarnings);
    if (vst != PG_OK || vs.nwarnings) fprintf(stderr, "%s\n", ptx.data);
    ptx_module_free(m);
    /* scalars by value (.param .f32), selects as setp.gt.f32 + selp.f32 */
    for (int k = 0; k < nsc; k++) {
        char want[64];
        snprintf(want, sizeof want, ".param .f32 %s,", expr_scalar_name(k));
        CHECK(strstr(ptx.data, want) != NULL, "%s: no '%s' in the PTX", name, want);
        snprintf(want, sizeof want, "float %s, ", expr_scalar_name(k));
        CHECK(strstr(cu.data, want) != NULL, "%s: no '%s' in the CUDA text", name, want);
        snprintf(want, sizeof want, "\"name\": \"%s\", \"type\": \"f32\", \"value\": ", expr_scalar_name(k));
        CHECK(strstr(js.data, want) != NULL, "%s: no scalar param %s in the task.json", name, expr_scalar_name(k));
    }
    bool has_sel = strstr(js.data, "\"expr\": \"") && strstr(strstr(js.data, "\"expr\": \""), "(sel ");
    if (has_sel) {
        CHECK(strstr(ptx.data, "setp.gt.f32") && strstr(ptx.data, "selp.f32"), "%s: select without setp/selp", name);
        CHECK(strstr(js.data, " where ") && strstr(js.data, "otherwise") && strstr(js.data, "否则"),
              "%s: the descriptions do not put the select in words", name);
    }
    if (nsc) CHECK(strstr(js.data, "scalar alpha") || strstr(js.data, "标量参数 alpha"), "%s: the descriptions name no scalar", name);

    snprintf(path, sizeof path, "%s/kernel.ptx", dir);
    CHECK(write_file(path, ptx.data), "write %s", path);
    if (g_have_ptxas) {
        ptxas_report rep;
        pg_diag_sink as = {diag_print, NULL, 0, 0, 0};
        double t3 = now();
        pg_status pst = ptx_ptxas_run(path, "sm_90", false, &rep, &as);
        t_ptxas += now() - t3;
        n_ptxas++;
        CHECK(pst == PG_OK && rep.ok, "%s: ptxas %s", name, rep.log ? rep.log : "");
        ptx_ptxas_report_free(&rep);
    }
    snprintf(path, sizeof path, "%s/reference.cu", dir);
    CHECK(write_file(path, cu.data), "write %s", path);
    if (nvcc_it && g_have_nvcc) {
        char cmd[1400];
        snprintf(cmd, sizeof cmd, "nvcc -ptx -arch=sm_80 -o %s/ref.ptx %s > %s/nvcc.log 2>&1", dir, path, dir);
        int rc = system(cmd);
        CHECK(rc == 0, "%s: nvcc -ptx failed (see %s/nvcc.log):\n%s", name, dir, cu.data);
    }

    snprintf(path, sizeof path, "%s/task.json", dir);
    CHECK(write_file(path, js.data), "write %s", path);
    task_spec *t = NULL;
    pg_diag_sink ts = {diag_print, NULL, 0, 0, 0};
    pg_status lst = task_load(path, &t, &ts);
    CHECK(lst == PG_OK, "%s: task_load %s\n%s", name, pg_status_str(lst), js.data);
    if (t) {
        CHECK(t->nsizes >= 3 && !strcmp(t->family, "expr") && t->ndists == 2, "%s: spec fields", name);
        bool non_multiple = false;
        for (int s = 0; s < t->nsizes; s++)
            if (t->sizes[s].env.val[0] % (256 * per_thread)) non_multiple = true;
        CHECK(non_multiple, "%s: a size that is not a multiple of the tile", name);
        /* the reference against expr_eval on the small sizes (777, 33: not multiples of the tile),
         * on the 1M one for every 32nd kernel; the 16M timing size would cost minutes under ASan */
        for (int si = 0; si < t->nsizes; si++) {
            int64_t sz = t->sizes[si].env.val[0];
            if (sz > 1000003 || (sz > 4099 && id % 32)) continue;
            task_inst in, ref;
            memset(&ref, 0, sizeof ref);
            pg_status ist = task_inst_make(t, si, id % 2, 7 + (uint64_t)id, &in, &ts);
            CHECK(ist == PG_OK, "%s: task_inst_make", name);
            if (ist != PG_OK) continue;
            pg_status rst = task_reference_run(&in, &ref, &ts);
            CHECK(rst == PG_OK, "%s: reference %s", name, pg_status_str(rst));
            if (rst == PG_OK) {
                CHECK(in.grid[0] == (unsigned)((in.env.val[0] + 256 * per_thread - 1) / (256 * per_thread)) &&
                      in.block[0] == 256, "%s: launch rule", name);
                const float *out = ref.args[nin].data;
                size_t n = ref.args[nin].count, bad = 0;
                for (size_t i = 0; i < n; i++) {
                    double x[4] = {0};
                    for (int j = 0; j < nin; j++) x[j] = ((const float *)ref.args[j].data)[i];
                    float want = (float)expr_eval(e, x, sc);
                    if (memcmp(&want, &out[i], sizeof want) || !isfinite(out[i])) bad++;
                }
                CHECK(bad == 0 && n > 0, "%s: %zu of %zu reference values differ from expr_eval", name, bad, n);
                CHECK(task_inputs_unchanged(t, &in, &ref, NULL), "%s: reference changed inputs", name);
            }
            task_inst_free(&in);
            task_inst_free(&ref);
        }
        /* the reference re-reads the spec: a broken "expr" is reported to the caller's sink */
        char *bad = test_replace(js.data, "\"expr\": \"", "\"expr\": \")");
        if (!bad) bad = test_replace(js.data, "\"expr\":\"", "\"expr\":\")");
        CHECK(bad != NULL, "%s: no \"expr\" in the spec", name);
        task_inst in, ref;
        memset(&ref, 0, sizeof ref);
        int small = 0;   /* the smallest size: making the 16M one costs seconds under ASan */
        for (int si = 1; si < t->nsizes; si++)
            if (t->sizes[si].env.val[0] < t->sizes[small].env.val[0]) small = si;
        if (bad && write_file(path, bad) && task_inst_make(t, small, 0, 1, &in, &ts) == PG_OK) {
            pg_diag first = {0};
            pg_diag_sink ks = {keep_first, &first, 0, 0, 0};
            CHECK(task_reference_run(&in, &ref, &ks) != PG_OK && ks.nerrors == 1 && first.id == PG_E_TASK &&
                  strstr(first.msg, "$.expr"), "%s: broken expr: %d errors, '%s'", name, ks.nerrors, first.msg);
            task_inst_free(&in);
            task_inst_free(&ref);
        }
        free(bad);
        task_free(t);
    }
    pg_buf_free(&ptx);
    pg_buf_free(&cu);
    pg_buf_free(&js);
}

static void test_kernels(void) {
    char ppath[512];
    g_have_ptxas = ptx_ptxas_find(ppath, sizeof ppath);
    g_have_nvcc = system("command -v nvcc > /dev/null 2>&1") == 0;
    if (!g_have_ptxas) printf("SKIPPED: ptxas not found\n");
    if (!g_have_nvcc) printf("SKIPPED: nvcc not found (CUDA text not compiled)\n");
    snprintf(g_tmp, sizeof g_tmp, "/tmp/test_synth_expr.XXXXXX");
    CHECK(mkdtemp(g_tmp) != NULL, "mkdtemp");
    int id = 0, nsc = 0, nsel = 0, nsc_cu = 0, nsel_cu = 0;
    for (int k = 0; k < 30; k++)
        for (int nin = 1; nin <= 4; nin++) {
            expr_tree *e = synth_expr_random(5000 + 17 * (uint64_t)k + (uint64_t)nin, nin, 2 + k % 4, NULL);
            bool sc = expr_nscalars(e) > 0, sel = uses(e, EXPR_SEL);
            /* nvcc: the first trees, and the first few with scalars or a select */
            bool cu_it = (k < 2 && nin % 2 == 1) || (sc && nsc_cu < 3) || (sel && nsel_cu < 3);
            nsc += sc;
            nsel += sel;
            nsc_cu += sc && cu_it;
            nsel_cu += sel && cu_it;
            for (int pt = 1; pt <= 4; pt += 3) test_kernel(e, id++, nin, pt, cu_it && pt == (nin % 2 ? 1 : 4));
            expr_free(e);
        }
    CHECK(nsc >= 20 && nsel >= 15, "random kernels: %d of 120 with scalars, %d with a select", nsc, nsel);
    printf("random kernels: %d of 120 with scalars, %d with a select\n", nsc, nsel);
    /* hand-written trees: every operator in one kernel, and all-constant operands */
    const char *hand[] = {
        "(max (add (mul a b) 1.5) 0)",
        "(fma (tanh a) (sigmoid b) (div (sqrt (add (abs c) 1)) (add (abs d) 1)))",
        "(sub (rsqrt (add (abs a) 0.5)) (min (log (add (abs b) 1)) (exp (min (relu c) 10))))",
        "(add a (mul 2 3))",
        "(max 1.5 (abs (mul -0.25 4)))",
        /* scalars and selects: leaky-style (continuous), comparisons, nested, constants in both branches */
        "(sel a a (mul alpha a))",
        "(sel (fma a b c) (mul (fma a b c) beta) (fma a b c))",
        "(add (sel (sub a b) (mul alpha a) (sub b beta)) (sel c 1 -1))",
        "(sel (sub a alpha) (sel (sub b 0.5) a b) (tanh (mul beta c)))",
        "(sel d (exp (min (mul alpha a) 10)) (log (add (abs b) 1)))",
        "(sel (sub alpha beta) 2 3)",
        "(sel (sub (add a b) c) (sub (add a b) c) (mul beta (sub (add a b) c)))",
        "(sel (sub 0.5 a) a (sel (sub b a) 1 -1))",
        NULL};
    for (int i = 0; hand[i]; i++) {
        expr_tree *e = P(hand[i]);
        int nin = 0;
        for (unsigned u = expr_inputs_used(e); u; u >>= 1) nin++;
        if (nin == 0) nin = 1;
        test_kernel(e, id++, nin, 1, i == 1 || i >= 5);
        test_kernel(e, id++, nin, 4, i == 1 || i >= 5);
        expr_free(e);
    }
    /* leaky-style select: t computed once, then mul, setp, selp */
    {
        expr_tree *e = P("(sel (fma a b c) (fma a b c) (mul alpha (fma a b c)))");
        pg_buf b = {0};
        float v = 0.01f;
        CHECK(synth_expr_kernel(e, "leaky_fma", 3, &v, 128, 1, &b, NULL, NULL, NULL) == PG_OK, "leaky_fma");
        const char *f = strstr(b.data ? b.data : "", "fma.rn.f32");
        CHECK(f && !strstr(f + 1, "fma.rn.f32"), "the select's shared subtree is computed once:\n%s", b.data);
        CHECK(strstr(b.data, "ld.param.f32 %f1, [alpha];") && strstr(b.data, "setp.gt.f32 %p2, %f5, 0f00000000;") &&
              strstr(b.data, "selp.f32 %f7, %f5, %f6, %p2;") && strstr(b.data, ".reg .pred %p<3>;"),
              "leaky PTX:\n%s", b.data);
        pg_buf_free(&b);
        pg_buf js = {0};
        v = 9.0f;
        pg_diag_sink q = {NULL, NULL, 0, 0, 0};
        CHECK(synth_expr_kernel(e, "k", 3, &v, 128, 1, NULL, NULL, &js, &q) == PG_ERR_USAGE, "scalar value 9 refused");
        v = 0.01f;
        CHECK(synth_expr_kernel(e, "k", 3, &v, 128, 1, NULL, NULL, &js, &q) == PG_OK && strstr(js.data, "\"value\": \"0.01\""),
              "the scalar value prints short:\n%s", js.data);
        pg_buf_free(&js);
        expr_free(e);
    }
    /* usage errors */
    expr_tree *e = P("(add a d)");
    pg_buf b = {0};
    pg_diag_sink ds = {NULL, NULL, 0, 0, 0};
    CHECK(synth_expr_kernel(e, "k", 2, NULL, 256, 1, &b, NULL, NULL, &ds) == PG_ERR_USAGE && ds.nerrors == 1,
          "input beyond ninputs refused");
    CHECK(synth_expr_kernel(e, "k", 4, NULL, 256, 2, &b, NULL, NULL, &ds) == PG_ERR_USAGE, "per_thread 2 refused");
    CHECK(synth_expr_kernel(e, "1k", 4, NULL, 256, 1, &b, NULL, NULL, &ds) == PG_ERR_USAGE, "bad name refused");
    expr_free(e);
    pg_buf_free(&b);
    if (n_kernels)
        printf("per kernel: generate %.3f ms, parse+validate %.3f ms%s", 1e3 * t_gen / n_kernels,
               1e3 * t_val / n_kernels, n_ptxas ? "" : "\n");
    if (n_ptxas) printf(", ptxas %.1f ms (%d runs)\n", 1e3 * t_ptxas / n_ptxas, n_ptxas);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_tmp);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_tmp);
}

/* Optional: write a few task folders for a GPU run. */
static void dump(const char *dir, int count) {
    mkdir(dir, 0755);
    for (int k = 0; k < count; k++) {
        int nin = 1 + k % 4, pt = k % 8 < 4 ? 1 : 4;
        expr_tree *e = synth_expr_random(900 + (uint64_t)k, nin, 3 + k % 3, NULL);
        char name[64], sub[600], path[700];
        snprintf(name, sizeof name, "expr_%d", k);
        snprintf(sub, sizeof sub, "%s/%s", dir, name);
        mkdir(sub, 0755);
        pg_buf ptx = {0}, cu = {0}, js = {0};
        float sv[EXPR_MAX_SCALARS];
        synth_expr_scalar_values((uint64_t)k, expr_nscalars(e), sv);
        synth_expr_kernel(e, name, nin, sv, 256, pt, &ptx, &cu, &js, NULL);
        snprintf(path, sizeof path, "%s/kernel.ptx", sub);
        write_file(path, ptx.data);
        snprintf(path, sizeof path, "%s/reference.cu", sub);
        write_file(path, cu.data);
        snprintf(path, sizeof path, "%s/task.json", sub);
        write_file(path, js.data);
        pg_buf_free(&ptx);
        pg_buf_free(&cu);
        pg_buf_free(&js);
        expr_free(e);
    }
    printf("wrote %d tasks under %s\n", count, dir);
}

int main(void) {
    test_scalar_values();
    test_random();
    test_kernels();
    const char *d = getenv("EXPR_DUMP");
    const char *cnt = getenv("EXPR_DUMP_N");
    if (d && *d) dump(d, cnt && atoi(cnt) > 0 ? atoi(cnt) : 8);
    return TEST_DONE();
}
