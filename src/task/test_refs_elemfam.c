/* test_refs_elemfam.c — the references of the elementwise curriculum
 * families (src/task/refs_elemfam*.c) against values worked out by hand on
 * tiny specs with constant inputs, and the rounding helpers on the cases
 * that tell the modes apart (ties, directed rounding, overflow, subnormals).
 * The generic family test (src/synth/test_synth_family.c) covers the
 * generators; this one checks that the references compute the right thing. */
#include "common/test.h"
#include "task/refs_elemfam.h"

#include <math.h>
#include <unistd.h>

/* A spec with the given params / family_params / sizes; the reference run on
 * size 0, distribution 0.  Returns false (and frees) on any failure. */
typedef struct { task_spec *t; task_inst in, ref; } run_t;

static bool run(const char *ref, const char *fparams, const char *params, const char *sizes, run_t *r) {
    char path[] = "/tmp/ptxgen-refs-elemfam-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return false;
    FILE *f = fdopen(fd, "w");
    fprintf(f,
            "{\"name\": \"t\", \"kernel\": \"t\", \"descriptions\": {\"terse\": \"t\", \"detailed\": \"t\", \"card\": \"t\", \"zh\": \"t\"},\n"
            " \"family_params\": %s,\n \"params\": %s,\n \"sizes\": %s,\n \"launch\": {\"block\": [\"32\"], \"grid\": [\"1\"]},\n"
            " \"distributions\": [\"uniform(-1,1)\", \"normal(0,1)\"],\n \"reference\": {\"kind\": \"c\", \"name\": \"%s\"}}\n",
            fparams, params, sizes, ref);
    fclose(f);
    memset(r, 0, sizeof *r);
    pg_diag_sink q = {0};
    bool ok = task_load(path, &r->t, &q) == PG_OK && task_inst_make(r->t, 0, 0, 1, &r->in, &q) == PG_OK &&
              task_reference_run(&r->in, &r->ref, &q) == PG_OK;
    unlink(path);
    if (!ok) {
        fprintf(stderr, "  spec for %s failed to run (%d errors)\n", ref, q.nerrors);
        task_inst_free(&r->in);
        task_inst_free(&r->ref);
        task_free(r->t);
        r->t = NULL;
    }
    return ok;
}
static void done(run_t *r) {
    task_inst_free(&r->in);
    task_inst_free(&r->ref);
    task_free(r->t);
}
static double out(run_t *r, const char *name, size_t i) {
    int p = task_ef_pidx(r->t, name);
    return p < 0 ? NAN : task_ef_get(r->t->params[p].dtype, r->ref.args[p].data, i);
}
static bool near(double a, double b, double tol) { return fabs(a - b) <= tol * (fabs(b) + 1e-30); }

static void test_round16(void) {
    float half_way = 1.0f + 0x1p-11f;   /* between f16 1.0 (0x3c00) and 1+2^-10 (0x3c01) */
    CHECK(task_ef_round16(half_way, 0, false) == 0x3c00, "rn ties to even");
    CHECK(task_ef_round16(half_way, 1, false) == 0x3c00, "rz");
    CHECK(task_ef_round16(half_way, 2, false) == 0x3c00, "rm");
    CHECK(task_ef_round16(half_way, 3, false) == 0x3c01, "rp");
    CHECK(task_ef_round16(-half_way, 2, false) == 0xbc01 && task_ef_round16(-half_way, 3, false) == 0xbc00, "rm/rp negative");
    float above = 1.0f + 0x1p-11f + 0x1p-20f;   /* just above the tie */
    CHECK(task_ef_round16(above, 0, false) == 0x3c01 && task_ef_round16(above, 1, false) == 0x3c00, "rn up, rz down");
    CHECK(task_ef_round16(70000.0f, 0, false) == 0x7c00 && task_ef_round16(70000.0f, 1, false) == 0x7bff, "overflow: rn inf, rz max finite");
    CHECK(task_ef_round16(70000.0f, 2, false) == 0x7bff && task_ef_round16(70000.0f, 3, false) == 0x7c00, "overflow: rm max, rp inf");
    CHECK(task_ef_round16(-70000.0f, 2, false) == 0xfc00 && task_ef_round16(-70000.0f, 3, false) == 0xfbff, "negative overflow");
    CHECK(task_ef_round16(-1e-9f, 0, false) == 0x8000 && task_ef_round16(-1e-9f, 2, false) == 0x8001 && task_ef_round16(-1e-9f, 3, false) == 0x8000,
          "below the smallest subnormal");
    CHECK(task_ef_round16(1e-9f, 3, false) == 0x0001 && task_ef_round16(1e-9f, 1, false) == 0x0000, "tiny positive: rp smallest subnormal");
    float bt = 1.0f + 0x1p-8f;   /* between bf16 1.0 (0x3f80) and 1+2^-7 (0x3f81) */
    CHECK(task_ef_round16(bt, 0, true) == 0x3f80 && task_ef_round16(bt, 3, true) == 0x3f81 && task_ef_round16(-bt, 2, true) == 0xbf81, "bf16 modes");
}

static void test_act(void) {
    double v;
    CHECK(task_ef_act("gelu_tanh", 1, 0, 0, &v) && near(v, 0.8411919906082768, 1e-12), "gelu_tanh(1) = %.17g", v);
    CHECK(task_ef_act("gelu_erf", 1, 0, 0, &v) && near(v, 0.8413447460685429, 1e-12), "gelu_erf(1) = %.17g", v);
    /* far in the negative tail the textbook forms cancel (1 + erf, 1 + tanh); the reference keeps full relative accuracy */
    CHECK(task_ef_act("gelu_erf", -5, 0, 0, &v) && near(v, -1.4332578593959731e-06, 1e-12), "gelu_erf(-5) = %.17g", v);
    CHECK(task_ef_act("gelu_tanh", -5, 0, 0, &v) && near(v, -2.291796196629504e-07, 1e-12), "gelu_tanh(-5) = %.17g", v);
    CHECK(task_ef_act("silu", 1, 0, 0, &v) && near(v, 0.7310585786300049, 1e-12), "silu(1)");
    CHECK(task_ef_act("mish", 1, 0, 0, &v) && near(v, 0.8650983882673103, 1e-12), "mish(1) = %.17g", v);
    CHECK(task_ef_act("selu", -1, 0, 0, &v) && near(v, -1.1113307378125625, 1e-12), "selu(-1) = %.17g", v);
    CHECK(task_ef_act("hardswish", 1, 0, 0, &v) && near(v, 4.0 / 6.0, 1e-15), "hardswish(1)");
    CHECK(task_ef_act("softplus", 30, 1, 20, &v) && v == 30, "softplus above the threshold is the identity");
    CHECK(task_ef_act("leaky_relu", -2, 0.1, 0, &v) && near(v, -0.2, 1e-15), "leaky");
    CHECK(!task_ef_act("nope", 1, 0, 0, &v), "unknown activation");
}

static void test_refs(void) {
    run_t r;
    /* Adam, PyTorch form: g = 0.5, m = 0.1, v = 0.04, b1 = 0.9, b2 = 0.999, step 2, lr 0.01, eps 1e-8 */
    if (run("fam_elem_optim",
            "{\"op\": \"adam\", \"clip\": \"value\", \"decay\": false, \"bias\": \"torch\", \"arrays\": {\"w\": \"w\", \"g\": \"g\", \"s1\": \"m\", \"s2\": \"v\"},"
            " \"scalars\": {\"lr\": \"lr\", \"beta1\": \"b1\", \"beta2\": \"b2\", \"eps\": \"eps\", \"step\": \"t\", \"clip\": \"c\"}}",
            "[{\"name\": \"w\", \"type\": \"f64*\", \"role\": \"inout\", \"len\": \"n\", \"dist\": [\"const(1)\"]},"
            " {\"name\": \"g\", \"type\": \"f64*\", \"role\": \"in\", \"len\": \"n\", \"dist\": [\"const(2)\"]},"
            " {\"name\": \"m\", \"type\": \"f64*\", \"role\": \"inout\", \"len\": \"n\", \"dist\": [\"const(0.1)\"]},"
            " {\"name\": \"v\", \"type\": \"f64*\", \"role\": \"inout\", \"len\": \"n\", \"dist\": [\"const(0.04)\"]},"
            " {\"name\": \"lr\", \"type\": \"f64\", \"value\": \"0.01\"}, {\"name\": \"b1\", \"type\": \"f64\", \"value\": \"0.9\"},"
            " {\"name\": \"b2\", \"type\": \"f64\", \"value\": \"0.999\"}, {\"name\": \"eps\", \"type\": \"f64\", \"value\": \"1e-8\"},"
            " {\"name\": \"c\", \"type\": \"f64\", \"value\": \"0.5\"}, {\"name\": \"t\", \"type\": \"u32\", \"value\": \"2\"}, {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]",
            "[{\"n\": 3}, {\"n\": 1}]", &r)) {
        double m = 0.9 * 0.1 + 0.1 * 0.5, v = 0.999 * 0.04 + 0.001 * 0.25;   /* the gradient 2 clipped to 0.5 */
        double w = 1 - (0.01 / (1 - 0.81)) * m / (sqrt(v) / sqrt(1 - 0.999 * 0.999) + 1e-8);
        CHECK(near(out(&r, "m", 2), m, 1e-14) && near(out(&r, "v", 2), v, 1e-14), "adam moments %g %g", out(&r, "m", 2), out(&r, "v", 2));
        CHECK(near(out(&r, "w", 2), w, 1e-14), "adam torch weight %.17g want %.17g", out(&r, "w", 2), w);
        done(&r);
    } else CHECK(0, "adam spec");
    /* Nesterov with coupled decay: g = 1, w = 2, buf = 0.5, mu 0.9, wd 0.1, lr 0.1 */
    if (run("fam_elem_optim",
            "{\"op\": \"nesterov\", \"clip\": \"none\", \"decay\": true, \"bias\": \"none\", \"arrays\": {\"w\": \"p\", \"g\": \"g\", \"s1\": \"buf\"},"
            " \"scalars\": {\"lr\": \"lr\", \"mu\": \"mu\", \"wd\": \"wd\"}}",
            "[{\"name\": \"p\", \"type\": \"f32*\", \"role\": \"inout\", \"len\": \"n\", \"dist\": [\"const(2)\"]},"
            " {\"name\": \"g\", \"type\": \"f16*\", \"role\": \"in\", \"len\": \"n\", \"dist\": [\"const(1)\"]},"
            " {\"name\": \"buf\", \"type\": \"f32*\", \"role\": \"inout\", \"len\": \"n\", \"dist\": [\"const(0.5)\"]},"
            " {\"name\": \"lr\", \"type\": \"f32\", \"value\": \"0.125\"}, {\"name\": \"mu\", \"type\": \"f32\", \"value\": \"0.5\"},"
            " {\"name\": \"wd\", \"type\": \"f32\", \"value\": \"0.25\"}, {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]",
            "[{\"n\": 2}, {\"n\": 1}]", &r)) {
        /* gc = 1 + 0.25*2 = 1.5; buf = 0.5*0.5 + 1.5 = 1.75; p = 2 - 0.125*(1.5 + 0.5*1.75) = 1.703125 */
        CHECK(out(&r, "buf", 1) == 1.75 && out(&r, "p", 1) == 1.703125, "nesterov %g %g", out(&r, "buf", 1), out(&r, "p", 1));
        done(&r);
    } else CHECK(0, "nesterov spec");
    /* bias_act, bias per row (iota), hardtanh to [-1, 1.5], scale 2, f16 residual 0.25 */
    if (run("fam_elem_bias_act", "{\"act\": \"hardtanh\", \"bias_per\": \"row\", \"x\": \"x\", \"bias\": \"b\", \"res\": \"r\", \"scale\": \"s\", \"y\": \"y\", \"scalars\": {\"a\": \"lo\", \"b\": \"hi\"}}",
            "[{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"rows*cols\", \"dist\": [\"const(1)\"]},"
            " {\"name\": \"b\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"rows\", \"dist\": [\"iota\"]},"
            " {\"name\": \"r\", \"type\": \"f16*\", \"role\": \"in\", \"len\": \"rows*cols\", \"dist\": [\"const(0.25)\"]},"
            " {\"name\": \"y\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"rows*cols\"},"
            " {\"name\": \"lo\", \"type\": \"f32\", \"value\": \"-1\"}, {\"name\": \"hi\", \"type\": \"f32\", \"value\": \"1.5\"}, {\"name\": \"s\", \"type\": \"f32\", \"value\": \"2\"},"
            " {\"name\": \"rows\", \"type\": \"u32\", \"value\": \"rows\"}, {\"name\": \"cols\", \"type\": \"u32\", \"value\": \"cols\"}]",
            "[{\"rows\": 3, \"cols\": 2}, {\"rows\": 1, \"cols\": 1}]", &r)) {
        /* row r: clamp(1 + r, -1, 1.5) * 2 + 0.25 -> row 0: 2.25, rows 1, 2: 3.25 */
        CHECK(out(&r, "y", 1) == 2.25 && out(&r, "y", 2) == 3.25 && out(&r, "y", 5) == 3.25, "bias_act %g %g %g", out(&r, "y", 1), out(&r, "y", 2), out(&r, "y", 5));
        done(&r);
    } else CHECK(0, "bias_act spec");
    /* glu fused, gate first: row = [gate..., value...] with iota: row 0 of H = 2: gates 0, 1, values 2, 3 -> relu(g) * v */
    if (run("fam_elem_glu", "{\"act\": \"relu\", \"layout\": \"fused\", \"gate_first\": true, \"in\": \"in\", \"out\": \"out\"}",
            "[{\"name\": \"in\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"rows*2*H\", \"dist\": [\"iota\"]},"
            " {\"name\": \"out\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"rows*H\"},"
            " {\"name\": \"rows\", \"type\": \"u32\", \"value\": \"rows\"}, {\"name\": \"H\", \"type\": \"u32\", \"value\": \"H\"}]",
            "[{\"rows\": 2, \"H\": 2}, {\"rows\": 1, \"H\": 1}]", &r)) {
        /* row 1: gates 4, 5, values 6, 7 */
        CHECK(out(&r, "out", 0) == 0 && out(&r, "out", 1) == 3 && out(&r, "out", 2) == 24 && out(&r, "out", 3) == 35, "glu %g %g %g %g", out(&r, "out", 0),
              out(&r, "out", 1), out(&r, "out", 2), out(&r, "out", 3));
        done(&r);
    } else CHECK(0, "glu spec");
    /* quantize: x = iota * 0.5 via scale 0.5 (mult): 0, 0.5, 1, 1.5, 2, 2.5 -> even ties 0 0 1 2 2 2, plus zp 3, clamp hi 4 */
    const char *qp = "[{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\", \"dist\": [\"iota\"]},"
                     " {\"name\": \"q\", \"type\": \"s8*\", \"role\": \"out\", \"len\": \"n\"},"
                     " {\"name\": \"s\", \"type\": \"f32\", \"value\": \"0.5\"}, {\"name\": \"z\", \"type\": \"s32\", \"value\": \"3\"}, {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]";
    if (run("fam_elem_quant", "{\"dequant\": false, \"per_row\": false, \"mult\": true, \"away\": false, \"lo\": -127, \"hi\": 5, \"x\": \"x\", \"q\": \"q\", \"scale\": \"s\", \"zp\": \"z\"}", qp,
            "[{\"n\": 6}, {\"n\": 1}]", &r)) {
        int want[] = {3, 3, 4, 5, 5, 5};
        int bad = 0;
        for (int i = 0; i < 6; i++) bad += out(&r, "q", (size_t)i) != want[i];
        CHECK(!bad, "quant ties to even + zp + clamp: %g %g %g %g", out(&r, "q", 1), out(&r, "q", 2), out(&r, "q", 3), out(&r, "q", 5));
        done(&r);
    } else CHECK(0, "quant spec");
    if (run("fam_elem_quant", "{\"dequant\": false, \"per_row\": false, \"mult\": true, \"away\": true, \"lo\": -127, \"hi\": 127, \"x\": \"x\", \"q\": \"q\", \"scale\": \"s\", \"zp\": \"z\"}", qp,
            "[{\"n\": 6}, {\"n\": 1}]", &r)) {
        CHECK(out(&r, "q", 1) == 4 && out(&r, "q", 3) == 5 && out(&r, "q", 5) == 6, "quant ties away: %g %g %g", out(&r, "q", 1), out(&r, "q", 3), out(&r, "q", 5));
        done(&r);
    } else CHECK(0, "quant away spec");
    /* convert f32 -> s32, rp, scaled by 0.5: 0, 0.5, 1, 1.5 -> ceil 0 1 1 2 */
    if (run("fam_elem_convert", "{\"op\": \"f32_s32\", \"mode\": \"rp\", \"x\": \"x\", \"y\": \"y\", \"scale\": \"s\", \"packed\": \"f16\"}",
            "[{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\", \"dist\": [\"iota\"]}, {\"name\": \"y\", \"type\": \"s32*\", \"role\": \"out\", \"len\": \"n\"},"
            " {\"name\": \"s\", \"type\": \"f32\", \"value\": \"0.5\"}, {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]",
            "[{\"n\": 4}, {\"n\": 1}]", &r)) {
        CHECK(out(&r, "y", 1) == 1 && out(&r, "y", 2) == 1 && out(&r, "y", 3) == 2, "f32->s32 rp scaled");
        done(&r);
    } else CHECK(0, "convert spec");
    /* pack pairs: (0, 1) -> 0x3c000000, (2, 3) -> 0x42004000 */
    if (run("fam_elem_convert", "{\"op\": \"pack_pairs\", \"mode\": \"rn\", \"x\": \"x\", \"y\": \"y\", \"packed\": \"f16\"}",
            "[{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"2*n\", \"dist\": [\"iota\"]}, {\"name\": \"y\", \"type\": \"u32*\", \"role\": \"out\", \"len\": \"n\"},"
            " {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]",
            "[{\"n\": 2}, {\"n\": 1}]", &r)) {
        CHECK(out(&r, "y", 0) == (double)0x3c000000u && out(&r, "y", 1) == (double)0x42004000u, "pack f16x2: %x %x", (unsigned)out(&r, "y", 0), (unsigned)out(&r, "y", 1));
        done(&r);
    } else CHECK(0, "pack spec");
    /* complex, split storage: a = iota -> (re, im) = (k, k); b = const(2): a * conj(b) = (k + ik)(2 - 2i) = (4k, 0) */
    if (run("fam_elem_complex", "{\"op\": \"conjmul\", \"split\": true, \"a\": \"a\", \"b\": \"b\", \"c\": \"c\"}",
            "[{\"name\": \"a_re\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\", \"dist\": [\"iota\"]}, {\"name\": \"a_im\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\", \"dist\": [\"iota\"]},"
            " {\"name\": \"b_re\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\", \"dist\": [\"const(2)\"]}, {\"name\": \"b_im\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\", \"dist\": [\"const(2)\"]},"
            " {\"name\": \"c_re\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"n\"}, {\"name\": \"c_im\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"n\"},"
            " {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]",
            "[{\"n\": 3}, {\"n\": 1}]", &r)) {
        CHECK(out(&r, "c_re", 2) == 8 && out(&r, "c_im", 2) == 0, "conjmul (%g, %g)", out(&r, "c_re", 2), out(&r, "c_im", 2));
        done(&r);
    } else CHECK(0, "complex spec");
    /* complex interleaved abs: x = iota pairs (2k, 2k+1): |(2, 3)| = sqrt(13) */
    if (run("fam_elem_complex", "{\"op\": \"abs\", \"split\": false, \"a\": \"x\", \"c\": \"m\"}",
            "[{\"name\": \"x\", \"type\": \"f64*\", \"role\": \"in\", \"len\": \"2*n\", \"dist\": [\"iota\"]}, {\"name\": \"m\", \"type\": \"f64*\", \"role\": \"out\", \"len\": \"n\"},"
            " {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]",
            "[{\"n\": 2}, {\"n\": 1}]", &r)) {
        CHECK(near(out(&r, "m", 1), sqrt(13.0), 1e-15), "cabs");
        done(&r);
    } else CHECK(0, "cabs spec");
    /* Chebyshev degree 3, coefficients 1, 2, 3, 4, x = iota on [lo, hi] = [0, 2] mapped to t in [-1, 1]:
       x = 0 -> t = -1: 1 - 2 + 3 - 4 = -2; x = 1 -> t = 0 (T = 1, 0, -1, 0): 1 - 3 = -2; x = 2 -> t = 1: 10 */
    if (run("fam_elem_poly", "{\"kind\": \"chebyshev\", \"degree\": 3, \"x\": \"x\", \"y\": \"y\", \"mapped\": true}",
            "[{\"name\": \"x\", \"type\": \"f64*\", \"role\": \"in\", \"len\": \"n\", \"dist\": [\"iota\"]}, {\"name\": \"y\", \"type\": \"f64*\", \"role\": \"out\", \"len\": \"n\"},"
            " {\"name\": \"c0\", \"type\": \"f64\", \"value\": \"1\"}, {\"name\": \"c1\", \"type\": \"f64\", \"value\": \"2\"}, {\"name\": \"c2\", \"type\": \"f64\", \"value\": \"3\"},"
            " {\"name\": \"c3\", \"type\": \"f64\", \"value\": \"4\"}, {\"name\": \"lo\", \"type\": \"f64\", \"value\": \"0\"}, {\"name\": \"hi\", \"type\": \"f64\", \"value\": \"2\"},"
            " {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]",
            "[{\"n\": 3}, {\"n\": 1}]", &r)) {
        CHECK(near(out(&r, "y", 0), -2, 1e-15) && near(out(&r, "y", 1), -2, 1e-15) && near(out(&r, "y", 2), 10, 1e-15), "chebyshev %g %g %g", out(&r, "y", 0), out(&r, "y", 1), out(&r, "y", 2));
        done(&r);
    } else CHECK(0, "poly spec");
    /* Horner with derivative, coefficient array iota (0, 1, 2, 3): p(2) = 2 + 8 + 24 = 34, p'(2) = 1 + 8 + 36 = 45 */
    if (run("fam_elem_poly", "{\"kind\": \"horner\", \"degree\": 3, \"x\": \"x\", \"y\": \"y\", \"dy\": \"dy\", \"coef\": \"c\", \"mapped\": false}",
            "[{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\", \"dist\": [\"iota\"]}, {\"name\": \"c\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"4\", \"dist\": [\"iota\"]},"
            " {\"name\": \"y\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"n\"}, {\"name\": \"dy\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"n\"},"
            " {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]",
            "[{\"n\": 3}, {\"n\": 1}]", &r)) {
        CHECK(out(&r, "y", 2) == 34 && out(&r, "dy", 2) == 45, "horner %g %g", out(&r, "y", 2), out(&r, "dy", 2));
        done(&r);
    } else CHECK(0, "horner spec");
    /* gather with the fill rule: idx = iota over n = 4 into m = 2 -> src[0], src[1], fill, fill */
    if (run("fam_elem_gather", "{\"kind\": \"gather\", \"bounds\": \"fill\", \"src\": \"s\", \"idx\": \"i\", \"out\": \"o\", \"fill\": \"f\"}",
            "[{\"name\": \"s\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"m\", \"dist\": [\"const(5)\"]}, {\"name\": \"i\", \"type\": \"s32*\", \"role\": \"in\", \"len\": \"n\", \"dist\": [\"iota\"]},"
            " {\"name\": \"o\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"n\"}, {\"name\": \"f\", \"type\": \"f32\", \"value\": \"-1\"},"
            " {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}, {\"name\": \"m\", \"type\": \"u32\", \"value\": \"m\"}]",
            "[{\"n\": 4, \"m\": 2}, {\"n\": 1, \"m\": 1}]", &r)) {
        CHECK(out(&r, "o", 1) == 5 && out(&r, "o", 2) == -1 && out(&r, "o", 3) == -1, "gather fill");
        done(&r);
    } else CHECK(0, "gather spec");
    /* scatter-add with alpha: idx = const(1) n = 3 times x = iota (0, 1, 2), alpha 0.5, out = const(1) over m = 2 -> out[1] = 1 + 1.5 */
    if (run("fam_elem_scatter", "{\"kind\": \"scatter_add\", \"op\": \"add\", \"x\": \"x\", \"idx\": \"i\", \"out\": \"o\", \"alpha\": \"a\", \"skip\": false}",
            "[{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\", \"dist\": [\"iota\"]}, {\"name\": \"i\", \"type\": \"u32*\", \"role\": \"in\", \"len\": \"n\", \"dist\": [\"const(1)\"]},"
            " {\"name\": \"o\", \"type\": \"f32*\", \"role\": \"inout\", \"len\": \"m\", \"dist\": [\"const(1)\"]}, {\"name\": \"a\", \"type\": \"f32\", \"value\": \"0.5\"},"
            " {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}, {\"name\": \"m\", \"type\": \"u32\", \"value\": \"m\"}]",
            "[{\"n\": 3, \"m\": 2}, {\"n\": 1, \"m\": 1}]", &r)) {
        CHECK(out(&r, "o", 0) == 1 && out(&r, "o", 1) == 2.5, "scatter-add %g %g", out(&r, "o", 0), out(&r, "o", 1));
        done(&r);
    } else CHECK(0, "scatter spec");
    /* a scatter whose index leaves the output without the skip rule is refused */
    CHECK(!run("fam_elem_scatter", "{\"kind\": \"scatter_add\", \"op\": \"add\", \"x\": \"x\", \"idx\": \"i\", \"out\": \"o\", \"skip\": false}",
               "[{\"name\": \"x\", \"type\": \"s32*\", \"role\": \"in\", \"len\": \"n\"}, {\"name\": \"i\", \"type\": \"s32*\", \"role\": \"in\", \"len\": \"n\", \"dist\": [\"const(9)\"]},"
               " {\"name\": \"o\", \"type\": \"s32*\", \"role\": \"inout\", \"len\": \"m\"}, {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}, {\"name\": \"m\", \"type\": \"u32\", \"value\": \"m\"}]",
               "[{\"n\": 3, \"m\": 2}, {\"n\": 1, \"m\": 1}]", &r),
          "out-of-range scatter refused");
    /* a spec naming an unknown operator is refused with a diagnostic */
    CHECK(!run("fam_elem_act", "{\"act\": \"swoosh\", \"x\": \"x\", \"y\": \"y\"}",
               "[{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\"}, {\"name\": \"y\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"n\"},"
               " {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]",
               "[{\"n\": 2}, {\"n\": 1}]", &r),
          "unknown activation refused");
}

int main(void) {
    test_round16();
    test_act();
    test_refs();
    return TEST_DONE();
}
