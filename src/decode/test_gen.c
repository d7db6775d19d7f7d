/* test_gen.c — end to end: a randomly initialised Qwen2 (tests/gen/tiny, made
 * by tests/gen/make_tiny_model.py) with the project tokenizer, sampled at
 * temperature 1 with no top-k, so the weights decide nothing useful.  Under
 * the constraint every one of 200 generations must pass the validator and
 * ptxas; with --no-constraint (the raw model) most must fail, which shows the
 * constraint and not the weights makes the output valid. */
#include "common/test.h"
#include "ptxgen/decode.h"
#include "ptxgen/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N_GEN 200     /* constrained generations (the evidence) */
#define N_RAW 50      /* unconstrained: enough to show the raw failure rate */

static const char *descs[] = {
    "vector add: c[i] = a[i] + b[i] for i < n",
    "## relu\n- Input: `float* x` (n)\n- Output: `float* y` (n)\n- Goal: y = max(x, 0)",
    "逐元素计算 y = 2*x + 1",
    "sum reduction of a float array into one value per block",
    "",
};
static const char *sigs[] = {
    ".visible .entry vec_add(\n\t.param .u64 a,\n\t.param .u64 b,\n\t.param .u64 c,\n\t.param .u32 n\n)",
    NULL,
};

static void print_diag(void *u, const pg_diag *d) {
    (void)u;
    char b[700];
    pg_diag_format(d, b, sizeof b);
    fprintf(stderr, "  %s\n", b);
}

static bool ptxas_ok(const char *path, const char *arch, char *log, size_t n) {
    ptxas_report r;
    memset(&r, 0, sizeof r);
    pg_diag_sink q = {0};
    pg_status st = ptx_ptxas_run(path, arch, false, &r, &q);
    bool ok = st == PG_OK && r.ok;
    if (!ok) snprintf(log, n, "%.300s", r.log ? r.log : "ptxas did not run");
    ptx_ptxas_report_free(&r);
    return ok;
}

int main(void) {
    pg_diag_sink q = {0};
    tok_tokenizer *t = NULL;
    dec_vocab *v = NULL;
    model_model *m = NULL;
    model_load_opts lo = {NULL, 1, NULL, false, false, NULL, false};
    CHECK(tok_load("tests/gen/tiny/tokenizer.json", &t, &q) == PG_OK, "tokenizer loads");
    CHECK(model_load("tests/gen/tiny", &lo, &m, &q) == PG_OK, "tiny random model loads");
    CHECK(t && dec_vocab_new(t, &v, &q) == PG_OK, "vocabulary trie");
    if (!t || !m || !v) return TEST_DONE();
    char ptxas[512];
    bool have_ptxas = ptx_ptxas_find(ptxas, sizeof ptxas);
    if (!have_ptxas) printf("SKIPPED: ptxas not found; the ptxas half of the check does not run\n");
    char dir[] = "/tmp/ptxgen-test-gen-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "temp dir");

    for (int mode = 0; mode < 2; mode++) {   /* 0 constrained, 1 raw */
        int valid = 0, compiled = 0, finished = 0, mask_calls = 0;
        long tokens = 0;
        double secs = 0, mask_secs = 0;
        int n = mode == 0 ? N_GEN : N_RAW;
        for (int i = 0; i < n; i++) {
            gen_opts o;
            gen_opts_default(&o);
            o.arch = i % 3 ? "sm_80" : "sm_90";
            o.signature = sigs[i % 2];
            o.constrained = mode == 0;
            o.sampler.temperature = 1.0f;
            o.sampler.top_k = 0;
            o.sampler.seed = 1000 + (uint64_t)i;
            o.max_tokens = 320;
            gen_result r;
            pg_diag_sink gq = {mode == 0 ? print_diag : NULL, NULL, 0, 0, 0};
            pg_status st = gen_sample(m, t, v, descs[i % 5], &o, &r, &gq);
            if (mode == 0) CHECK(st == PG_OK && r.ptx, "constrained generation %d runs (status %s)", i, pg_status_str(st));
            if (st != PG_OK || !r.ptx) { gen_result_free(&r); continue; }
            /* the decoding's own clocks: after the prefill, inside the sample's; CPU time moves too */
            CHECK(r.decode_seconds > 0 && r.decode_seconds <= r.seconds && r.decode_cpu_seconds > 0,
                  "generation %d: decode_seconds %.4f within seconds %.4f, decode_cpu_seconds %.4f", i, r.decode_seconds, r.seconds,
                  r.decode_cpu_seconds);
            tokens += r.gen_tokens;
            secs += r.seconds;
            mask_secs += r.mask_seconds;
            mask_calls += r.mask_calls;
            finished += r.finished;
            ptx_module *pm = NULL;
            pg_diag_sink vq = {mode == 0 ? print_diag : NULL, NULL, 0, 0, 0};
            pg_status ps = ptx_parse(r.ptx, strlen(r.ptx), "gen", &pm, &vq);
            if (ps == PG_OK) ps = ptx_validate(pm, &vq);
            bool ok = ps == PG_OK && vq.nerrors == 0;
            ptx_module_free(pm);
            valid += ok;
            if (mode == 0) CHECK(ok, "constrained generation %d passes ptxgen check:\n%.400s", i, r.ptx);
            if (ok && have_ptxas) {
                char path[256], log[320] = "";
                snprintf(path, sizeof path, "%s/g%d_%d.ptx", dir, mode, i);
                FILE *f = fopen(path, "w");
                if (f) { fputs(r.ptx, f); fclose(f); }
                bool pok = ptxas_ok(path, o.arch, log, sizeof log);
                compiled += pok;
                if (mode == 0) CHECK(pok, "constrained generation %d passes ptxas: %s", i, log);
                unlink(path);
            }
            gen_result_free(&r);
        }
        printf("%s: %d/%d pass check, %d/%d pass ptxas%s, %d reached <|end|>; %ld tokens in %.2f s, "
               "%d full masks (%.1f us each)\n",
               mode == 0 ? "constrained" : "unconstrained (raw model)", valid, n, compiled, n,
               have_ptxas ? "" : " (not run)", finished, tokens, secs, mask_calls,
               mask_calls ? 1e6 * mask_secs / mask_calls : 0.0);
        if (mode == 0) CHECK(valid == N_GEN, "all constrained generations valid (%d/%d)", valid, N_GEN);
        /* the raw model with random weights must fail often: the check is what the constraint adds */
        if (mode == 1) CHECK(valid < n / 2, "the raw random model mostly fails (%d/%d valid)", valid, n);
    }
    rmdir(dir);
    dec_vocab_free(v);
    model_free(m);
    tok_free(t);
    return TEST_DONE();
}
