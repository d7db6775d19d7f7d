/* bench_gpu.c — the GPU engine against the CPU engine, and its speed (tests/gpu/engine_gpu.sh
 * runs it on the GPU machine).
 *
 *   build/bench_gpu MODEL [--adapter DIR] [--steps 64] [--tg 256] [--k 32] [--ksteps 64]
 *                         [--tol 0.02] [--threads N] [--prompt N] [--profile 32] [--qsteps 512] [--out FILE.json]
 *
 * Checks (each prints one line "check NAME: pass|FAIL ..." and goes into the JSON):
 *   prefill   the last prompt position's logits: max |gpu - cpu| / max |cpu| <= tol, same top token
 *   all       every prompt row's logits (model_forward's all_logits, the first 32 rows), same bound
 *   greedy    --steps greedy tokens, each engine fed its own choice: identical tokens, and the
 *             logits within tol at every step
 *   exact     a verify step of 4 tokens (model_forward_exact + model_logits_rows) equals 4 one-token
 *             steps bit for bit, and model_logits_rows with ids picks the same values
 *   batch     model_forward_batch of 4 contexts at different positions against one-token steps, within tol
 *   top1      one sequence's --tg greedy tokens the same with the logits row copied to the host (argmax
 *             there) and with the token chosen on the device (model_forward_top: the step and its top 64
 *             in one submission)
 *   topk      the --k speed run's greedy tokens the same with the rows copied back (argmax on the host)
 *             and with each row's top 64 selected on the device (pg_topk, model_topk_rows + model_sample_top)
 *   attn_split  the split-KV attention (model_gpu_option "attn_split"): one row after the prompt
 *             (prefilled through it) against the CPU engine within tol with the same top token, a
 *             batched step of 4 rows against pg_attention's within tol, and its exact step of 4 tokens
 *             equal to 4 of its one-token steps bit for bit
 *   q8        with $PTXGEN_GPU_WEIGHTS=q8 (the engine's int8 copies, pg_matvec_q8; the checks above then run
 *             the f16 weights, model_gpu_option "q8" 0): --qsteps (512) steps teacher-forced by the CPU
 *             engine's greedy tokens, q8's and f16's max rel err and top-token agreement, q8's exact step
 *             of 4 bit for bit, and one sequence's decode tok/s f16 and q8 alternating ("q8" in the JSON,
 *             "weights": "f16" or "q8"); fails only on a gross error (rel err > 0.1, another top token on
 *             the prompt's last row) or the exact step (q8_section)
 * The other checks run the attention the engine loaded with: the split-KV attention by default,
 * pg_attention with $PTXGEN_GPU_ATTN=full ("attention" in the JSON: "split" or "full").
 * The CPU engine runs GGUF models in exact mode (dequantized rows x f32 activations), the
 * arithmetic the GPU engine's f16 weights are closest to.
 * Speed (with the load's attention): decode tok/s of one sequence (model_forward of one token with its logits copied to
 * the host, the way gen reads them), prefill tok/s of the prompt, and aggregate tok/s of
 * --k sequences stepped together by model_forward_batch (with the [k][vocab] logits copied
 * back, with only each row's top 64 copied back, and without logits); (--profile N, 0 = none) N
 * one-token steps and N / 4 steps of --k sequences batched, launched one by one with an event pair
 * around each launch: milliseconds and launches per step, per kernel and matrix ("profile_matvec",
 * "profile_k", and the same with the split attention: "profile_split", "profile_k_split" in the
 * JSON); then one sequence and --k batched with pg_attention and with the split attention,
 * alternating ("attn_split" in the JSON).  Exit 0 when every check passed, 1 when one failed, 2 when the engines
 * did not start. */
#include "ptxgen/model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void print_diag(void *u, const pg_diag *d) {
    (void)u;
    char b[1024];
    pg_diag_format(d, b, sizeof b);
    fprintf(stderr, "%s\n", b);
}

static int argmax(const float *x, int n) {
    int b = 0;
    for (int i = 1; i < n; i++)
        if (x[i] > x[b]) b = i;
    return b;
}

/* max |a - b| / max |b| */
static double rel_err(const float *a, const float *b, int n) {
    double md = 0, mb = 0;
    for (int i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        if (!(d <= md)) md = d;   /* NaN counts as the largest error */
        if (fabs((double)b[i]) > mb) mb = fabs((double)b[i]);
    }
    return mb > 0 ? md / mb : md;
}

static FILE *js;   /* the JSON report, written as we go */

/* s with the characters a JSON string cannot hold bare made blanks (a loader message in the device line) */
static const char *jclean(const char *s) {
    static char b[2][600];
    static int k;
    char *o = b[k ^= 1];
    size_t i = 0;
    for (; s[i] && i < sizeof b[0] - 1; i++) o[i] = s[i] == '"' || s[i] == '\\' || (unsigned char)s[i] < 0x20 ? ' ' : s[i];
    o[i] = 0;
    return o;
}
static int nfail;

static void check(const char *name, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void check(const char *name, bool ok, const char *fmt, ...) {
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    printf("check %-8s %s  %s\n", name, ok ? "pass" : "FAIL", detail);
    fflush(stdout);
    fprintf(js, "  \"check_%s\": {\"pass\": %s, \"detail\": \"%s\"},\n", name, ok ? "true" : "false", detail);
    fflush(js);
    if (!ok) nfail++;
}

#define PROMPT_TEXT                                                                                         \
    "<|im_start|>user\nWrite a PTX kernel: y[i] = a * x[i] + y[i] for i < n, one element per thread.\n"      \
    "<|im_end|>\n<|im_start|>assistant\n.version 8.0\n.target sm_80\n.address_size 64\n\n"                   \
    ".visible .entry saxpy(\n\t.param .u64 x,\n\t.param .u64 y,\n\t.param .f32 a,\n\t.param .u32 n\n)\n{\n"  \
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<6>;\n\t.reg .f32 %f<5>;\n\t.reg .b64 %rd<8>;\n\n"                  \
    "\tld.param.u64 %rd1, [x];\n\tld.param.u64 %rd2, [y];\n\tld.param.f32 %f1, [a];\n"

/* $PTXGEN_GPU_WEIGHTS=q8 (the engine loaded with int8 copies; model_gpu_option "q8" switches pg_matvec_q8
 * on and off): (1) decode speed of one sequence, f16 and q8 alternating, two rounds each, the better
 * kept: model_forward with the logits row copied to the host (as decode_tok_s) and model_forward_top
 * (token on the device, as decode_tok_s_top); (2) the logits against the CPU engine: the prompt, then
 * nq tokens the CPU engine chooses greedily, fed to all three (teacher forcing): each step's max rel
 * err and whether the top token agrees, for q8 and f16 (q8's first disagreement is where its own
 * greedy run would leave the CPU's); (3) q8's exact step of 4 equals 4 of its one-token steps bit for
 * bit; (4) with --profile N, N one-token steps with q8 kernel by kernel.  q8 is not bit-exact: "check q8" fails only on a gross error (the prompt's last row with another
 * top token than the CPU's, a step's rel err > 0.1) or on the exact step.  Ends with q8 off. */
static void q8_section(model_model *cpu, model_model *gpu, const int32_t *ids, int P, int nq, int tg, int nprof, double tol, pg_diag_sink *sink) {
    int V = model_get_config(cpu)->vocab_size;
    float *lc = malloc((size_t)V * 4), *lq = malloc((size_t)V * 4), *lf = malloc((size_t)V * 4), tv[MODEL_TOPK];
    float *ex4 = malloc((size_t)4 * V * 4), *one4 = malloc((size_t)4 * V * 4);
    int32_t *toks = calloc((size_t)(nq + tg + 8), 4), ti[MODEL_TOPK];   /* zeros: valid ids for the exact step when tg < 4 */
    bool ok = lc && lq && lf && ex4 && one4 && toks;
    /* (1) speed */
    double dec[2] = {0, 0}, top[2] = {0, 0};
    for (int round = 0; ok && round < 2; round++)
        for (int md = 0; ok && md < 2; md++) {
            model_ctx *s1 = NULL;
            ok = model_gpu_option(gpu, "q8", md, sink) == PG_OK && model_ctx_new(gpu, P + tg + 4, &s1, sink) == PG_OK &&
                 model_forward(s1, ids, P, lq, NULL, sink) == PG_OK;
            double t3 = now();
            for (int d = 0; ok && d < tg; d++) {
                toks[d] = argmax(lq, V);
                ok = model_forward(s1, &toks[d], 1, lq, NULL, sink) == PG_OK;
            }
            double r = tg / (now() - t3);
            if (r > dec[md]) dec[md] = r;
            model_ctx_free(s1);
            s1 = NULL;
            ok = ok && model_ctx_new(gpu, P + tg + 4, &s1, sink) == PG_OK && model_forward_top(s1, ids, P, tv, ti, sink) == PG_OK;
            t3 = now();
            for (int d = 0; ok && d < tg; d++) {
                int32_t t1 = ti[0];
                ok = model_forward_top(s1, &t1, 1, tv, ti, sink) == PG_OK;
            }
            r = tg / (now() - t3);
            if (r > top[md]) top[md] = r;
            model_ctx_free(s1);
        }
    /* (2) against the CPU engine, teacher-forced by its greedy tokens */
    model_ctx *cc = NULL, *cq = NULL, *cf = NULL;
    ok = ok && model_ctx_new(cpu, P + nq + 4, &cc, sink) == PG_OK && model_ctx_new(gpu, P + nq + 4, &cq, sink) == PG_OK &&
         model_ctx_new(gpu, P + nq + 4, &cf, sink) == PG_OK && model_forward(cc, ids, P, lc, NULL, sink) == PG_OK &&
         model_gpu_option(gpu, "q8", 1, sink) == PG_OK && model_forward(cq, ids, P, lq, NULL, sink) == PG_OK &&
         model_gpu_option(gpu, "q8", 0, sink) == PG_OK && model_forward(cf, ids, P, lf, NULL, sink) == PG_OK;
    double e0q = ok ? rel_err(lq, lc, V) : 1e30, e0f = ok ? rel_err(lf, lc, V) : 1e30, eq = 0, ef = 0, sq = 0;
    int top0q = ok ? argmax(lq, V) : -1, top0c = ok ? argmax(lc, V) : -2, agq = 0, agf = 0, firstq = -1, done = 0;
    for (int s = 0; ok && s < nq; s++) {
        int32_t tc = argmax(lc, V);
        int aq = argmax(lq, V) == tc, af = argmax(lf, V) == tc;
        agq += aq;
        agf += af;
        if (!aq && firstq < 0) firstq = s;
        ok = model_forward(cc, &tc, 1, lc, NULL, sink) == PG_OK && model_gpu_option(gpu, "q8", 1, sink) == PG_OK &&
             model_forward(cq, &tc, 1, lq, NULL, sink) == PG_OK && model_gpu_option(gpu, "q8", 0, sink) == PG_OK &&
             model_forward(cf, &tc, 1, lf, NULL, sink) == PG_OK;
        if (!ok) break;
        double a = rel_err(lq, lc, V), b = rel_err(lf, lc, V);
        if (a > eq || a != a) eq = a;
        if (b > ef || b != b) ef = b;
        sq += a;
        done++;
    }
    model_ctx_free(cc);
    model_ctx_free(cq);
    model_ctx_free(cf);
    /* (3) q8's exact step of 4 against 4 of its one-token steps */
    bool bits = false;
    if (ok) {
        model_ctx *x1 = NULL, *x2 = NULL;
        int r4[4] = {0, 1, 2, 3};
        ok = model_gpu_option(gpu, "q8", 1, sink) == PG_OK && model_ctx_new(gpu, P + 8, &x1, sink) == PG_OK &&
             model_ctx_new(gpu, P + 8, &x2, sink) == PG_OK && model_forward_hidden(x1, ids, P, sink) == PG_OK &&
             model_forward_hidden(x2, ids, P, sink) == PG_OK && model_forward_exact(x1, toks, 4, sink) == PG_OK &&
             model_logits_rows(x1, r4, 4, NULL, 0, ex4, sink) == PG_OK;
        for (int s = 0; ok && s < 4; s++) ok = model_forward(x2, &toks[s], 1, one4 + (size_t)s * V, NULL, sink) == PG_OK;
        bits = ok && !memcmp(ex4, one4, (size_t)4 * V * 4);
        model_ctx_free(x1);
        model_ctx_free(x2);
    }
    /* (4) --profile: nprof one-token steps with q8, launch by launch ("profile_q8", as "profile_split") */
    char *pj = nprof > 0 ? malloc(1 << 16) : NULL;
    if (ok && pj) {
        model_ctx *s1 = NULL;
        bool pok = model_ctx_new(gpu, P + nprof + 4, &s1, sink) == PG_OK && model_forward_top(s1, ids, P, tv, ti, sink) == PG_OK &&
                   model_gpu_option(gpu, "profile", 1, sink) == PG_OK;
        double t3 = now();
        for (int d = 0; pok && d < nprof; d++) {
            int32_t t1 = ti[0];
            pok = model_forward_top(s1, &t1, 1, tv, ti, sink) == PG_OK;
        }
        double wall = (now() - t3) * 1e3 / nprof;
        pok = pok && model_gpu_profile(gpu, pj, 1 << 16, sink) == PG_OK;
        model_gpu_option(gpu, "profile", 0, sink);
        if (pok) {
            printf("profile q8: %.3f ms a step launched eagerly; %s\n", wall, pj);
            fprintf(js, "  \"profile_q8\": {\"step_ms_eager\": %.4f, \"profile\": %s},\n", wall, pj);
        } else
            check("profile", false, "the q8 profile failed (see the diagnostic)");
        model_ctx_free(s1);
    }
    free(pj);
    model_gpu_option(gpu, "q8", 0, sink);
    check("q8", ok && top0q == top0c && e0q <= 0.1 && eq <= 0.1 && bits,
          "pg_matvec_q8 against the CPU engine: prompt's last row rel err %.3g (f16 %.3g), top %d / %d; %d teacher-forced steps: max rel "
          "err %.3g (f16 %.3g), mean %.3g, top token agrees in %d (f16 %d), first disagreement at step %d; exact step of 4 == 4 "
          "one-token steps bit for bit: %s (gross error only fails: tol %g is f16's)",
          e0q, e0f, top0q, top0c, done, eq, ef, done ? sq / done : 0.0, agq, agf, firstq, bits ? "yes" : "no", tol);
    printf("speed: weights, one sequence: %.0f tok/s f16, %.0f tok/s q8 (logits row to the host); %.0f tok/s f16, %.0f tok/s q8 "
           "(token on the device)\n", dec[0], dec[1], top[0], top[1]);
    fprintf(js, "  \"q8\": {\"decode_tok_s\": {\"f16\": %.1f, \"q8\": %.1f}, \"decode_tok_s_top\": {\"f16\": %.1f, \"q8\": %.1f}, "
                "\"prefill_rel_err\": {\"f16\": %.4g, \"q8\": %.4g}, \"prefill_top\": {\"q8\": %d, \"cpu\": %d}, \"steps\": %d, "
                "\"max_rel_err\": {\"f16\": %.4g, \"q8\": %.4g}, \"mean_rel_err_q8\": %.4g, \"top_agree\": {\"f16\": %d, \"q8\": %d}, "
                "\"first_disagreement_q8\": %d, \"exact_bits_q8\": %s},\n",
            dec[0], dec[1], top[0], top[1], e0f, e0q, top0q, top0c, done, ef, eq, done ? sq / done : 0.0, agf, agq, firstq,
            bits ? "true" : "false");
    fflush(js);
    free(lc);
    free(lq);
    free(lf);
    free(ex4);
    free(one4);
    free(toks);
}

int main(int argc, char **argv) {
    if (argc < 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: bench_gpu MODEL [--adapter DIR] [--steps 64] [--tg 256] [--k 32] [--ksteps 64] [--tol 0.02] "
                        "[--threads N] [--prompt N] [--profile 32] [--qsteps 512] [--out FILE.json]\n");
        return 2;
    }
    const char *dir = argv[1], *adapter = NULL, *outp = "/dev/stdout";
    int steps = 64, tg = 256, K = 32, ksteps = 64, threads = 0, prompt_max = 0, nprof = 32, qsteps = 512;
    double tol = 0.02;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--adapter")) adapter = argv[i + 1];
        else if (!strcmp(argv[i], "--steps")) steps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--tg")) tg = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--k")) K = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--ksteps")) ksteps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--tol")) tol = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads")) threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--out")) outp = argv[i + 1];
        else if (!strcmp(argv[i], "--prompt")) prompt_max = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--profile")) nprof = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--qsteps")) qsteps = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "bench_gpu: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (steps < 8 || tg < 1 || K < 1 || ksteps < 1) {
        fprintf(stderr, "bench_gpu: --steps wants >= 8, --tg, --k and --ksteps >= 1\n");
        return 2;
    }
    js = fopen(outp, "w");
    if (!js) {
        perror(outp);
        return 2;
    }
    pg_diag_sink sink = {print_diag, NULL, 0, 0, 20};
    fprintf(js, "{\n  \"bench\": \"gpu-engine\", \"model\": \"%s\", \"adapter\": \"%s\",\n", dir, adapter ? adapter : "");

    /* the prompt: the model's tokenizer on a PTX request, else plain ids */
    int32_t *ids = NULL;
    size_t np = 0;
    char tp[4200];
    tok_tokenizer *tk = NULL;
    if (model_tokenizer_path(dir, tp, sizeof tp, &sink) == PG_OK && tok_load(tp, &tk, &sink) == PG_OK)
        tok_encode(tk, PROMPT_TEXT, strlen(PROMPT_TEXT), &ids, &np);
    tok_free(tk);

    double t0 = now();
    model_model *cpu = NULL, *gpu = NULL;
    model_load_opts oc = {adapter, threads, NULL, false, true, "cpu", false}, og = {adapter, threads, NULL, false, false, "gpu", false};
    if (model_load(dir, &oc, &cpu, &sink) != PG_OK) {
        fprintf(stderr, "bench_gpu: the CPU engine did not load %s\n", dir);
        fprintf(js, "  \"error\": \"cpu load failed\"\n}\n");
        fclose(js);
        return 2;
    }
    double tcpu = now() - t0;
    t0 = now();
    if (model_load(dir, &og, &gpu, &sink) != PG_OK) {
        fprintf(stderr, "bench_gpu: the GPU engine did not start (the diagnostic above says why)\n");
        fprintf(js, "  \"error\": \"gpu load failed\"\n}\n");
        fclose(js);
        model_free(cpu);
        return 2;
    }
    double tgpu = now() - t0;
    const model_config *c = model_get_config(cpu);
    int V = c->vocab_size;
    if (!ids || np < 8) {   /* no tokenizer: a fixed id pattern */
        free(ids);
        np = 96;
        ids = malloc(np * sizeof *ids);
        for (size_t i = 0; i < np; i++) ids[i] = (int32_t)((i * 7919 + 13) % (size_t)(V < 5000 ? V : 5000));
    }
    int P = (int)np;
    if (prompt_max >= 8 && P > prompt_max) P = prompt_max;   /* --prompt N: its first N tokens */
    printf("gpu engine: %s; load %.2f s (cpu engine %.2f s, %s); vocab %d, prompt %d tokens\n", model_device_desc(gpu), tgpu, tcpu,
           model_device_desc(cpu), V, P);
    /* the attention the engine loaded with, as its description names it (gpu.c: the model and $PTXGEN_GPU_ATTN decide) */
    int split0 = strstr(model_device_desc(gpu), "; pg_attn_split)") != NULL;
    fprintf(js, "  \"device\": \"%s\", \"cpu_engine\": \"%s\", \"load_s\": %.3f, \"vocab\": %d, \"prompt_tokens\": %d, \"tol\": %g,\n",
            jclean(model_device_desc(gpu)), jclean(model_device_desc(cpu)), tgpu, V, P, tol);
    fprintf(js, "  \"attention\": \"%s\",\n", split0 ? "split" : "full");
    /* $PTXGEN_GPU_WEIGHTS=q8: the engine loaded int8 copies and runs pg_matvec_q8; every check below runs
     * the f16 weights (q8 switched off), the q8 section at the end compares the two */
    int q80 = strstr(model_device_desc(gpu), "pg_matvec_q8") != NULL;
    fprintf(js, "  \"weights\": \"%s\",\n", q80 ? "q8" : "f16");
    if (q80 && model_gpu_option(gpu, "q8", 0, &sink) != PG_OK) {
        fprintf(stderr, "bench_gpu: model_gpu_option \"q8\" 0 failed\n");
        return 2;
    }
    fflush(js);

    int maxs = P + steps + tg + 16;
    float *lc = malloc((size_t)V * 4), *lg = malloc((size_t)V * 4);
    int nall = P < 32 ? P : 32;
    float *ac = malloc((size_t)nall * V * 4), *ag = malloc((size_t)nall * V * 4);
    model_ctx *cc = NULL, *cg = NULL;
    if (!lc || !lg || !ac || !ag || model_ctx_new(cpu, maxs, &cc, &sink) != PG_OK || model_ctx_new(gpu, maxs, &cg, &sink) != PG_OK) {
        fprintf(stderr, "bench_gpu: contexts\n");
        return 2;
    }

    /* all: the first rows' logits */
    {
        model_ctx *c1 = NULL, *g1 = NULL;
        bool ok = model_ctx_new(cpu, nall + 1, &c1, &sink) == PG_OK && model_ctx_new(gpu, nall + 1, &g1, &sink) == PG_OK &&
                  model_forward(c1, ids, nall, NULL, ac, &sink) == PG_OK && model_forward(g1, ids, nall, NULL, ag, &sink) == PG_OK;
        double e = 0;
        int same = 0;
        for (int r = 0; ok && r < nall; r++) {
            double er = rel_err(ag + (size_t)r * V, ac + (size_t)r * V, V);
            if (er > e || er != er) e = er;
            same += argmax(ag + (size_t)r * V, V) == argmax(ac + (size_t)r * V, V);
        }
        check("all", ok && e <= tol, "%d rows of all_logits: max rel err %.3g, same top token in %d", nall, e, same);
        model_ctx_free(c1);
        model_ctx_free(g1);
    }

    /* prefill */
    double tp0 = now();
    bool ok = model_forward(cg, ids, P, lg, NULL, &sink) == PG_OK;
    double tpre = now() - tp0;
    ok = ok && model_forward(cc, ids, P, lc, NULL, &sink) == PG_OK;
    double e = ok ? rel_err(lg, lc, V) : 1e30;
    check("prefill", ok && e <= tol && argmax(lg, V) == argmax(lc, V), "last row: max rel err %.3g, top %d (gpu) / %d (cpu)", e,
          argmax(lg, V), argmax(lc, V));

    /* greedy: each engine fed its own choice */
    int32_t *gt = malloc((size_t)steps * 4), *ct = malloc((size_t)steps * 4);
    int same = 0;
    double emax = e, tcpu_dec = 0;
    bool diverged = false;
    for (int s = 0; ok && s < steps; s++) {
        gt[s] = argmax(lg, V);
        ct[s] = argmax(lc, V);
        if (gt[s] != ct[s] && !diverged) {
            diverged = true;
            float top = lc[ct[s]], mine = lc[gt[s]];
            printf("greedy: first difference at step %d: gpu %d, cpu %d (cpu logits %.5f vs %.5f)\n", s, gt[s], ct[s], top, mine);
        }
        if (!diverged) same++;
        double tc = now();
        ok = model_forward(cg, &gt[s], 1, lg, NULL, &sink) == PG_OK && model_forward(cc, &ct[s], 1, lc, NULL, &sink) == PG_OK;
        tcpu_dec += now() - tc;
        if (ok && !diverged) {
            double es = rel_err(lg, lc, V);
            if (es > emax || es != es) emax = es;
        }
    }
    check("greedy", ok && same == steps && emax <= tol, "%d of %d greedy tokens identical; max rel err %.3g while equal", same, steps, emax);

    /* exact: a 4-token verify step against 4 one-token steps, bit for bit */
    {
        model_ctx *x1 = NULL, *x2 = NULL;
        float *rows = malloc((size_t)4 * V * 4), *one = malloc((size_t)4 * V * 4), sub[3], full3[3];
        int r4[4] = {0, 1, 2, 3};
        bool ok2 = rows && one && model_ctx_new(gpu, P + 8, &x1, &sink) == PG_OK && model_ctx_new(gpu, P + 8, &x2, &sink) == PG_OK &&
                   model_forward_hidden(x1, ids, P, &sink) == PG_OK && model_forward_hidden(x2, ids, P, &sink) == PG_OK &&
                   model_forward_exact(x1, gt, 4, &sink) == PG_OK && model_logits_rows(x1, r4, 4, NULL, 0, rows, &sink) == PG_OK;
        for (int s = 0; ok2 && s < 4; s++) ok2 = model_forward(x2, &gt[s], 1, one + (size_t)s * V, NULL, &sink) == PG_OK;
        bool bits = ok2 && !memcmp(rows, one, (size_t)4 * V * 4);
        int32_t pick[3] = {0, V - 1, gt[4]};
        int r2 = 2;
        ok2 = ok2 && model_logits_rows(x1, &r2, 1, pick, 3, sub, &sink) == PG_OK;
        for (int i = 0; i < 3; i++) full3[i] = rows[(size_t)2 * V + pick[i]];
        bool subok = ok2 && !memcmp(sub, full3, sizeof sub);
        check("exact", ok2 && bits && subok, "verify step of 4 == 4 one-token steps bit for bit: %s; logits by id: %s",
              bits ? "yes" : "no", subok ? "yes" : "no");
        model_ctx_free(x1);
        model_ctx_free(x2);
        free(rows);
        free(one);
    }

    /* batch: 4 contexts at different positions, one batched step against one-token steps */
    {
        enum { NB = 4 };
        model_ctx *bx[NB] = {0}, *sx[NB] = {0};
        float *bl = malloc((size_t)NB * V * 4), *sl = malloc((size_t)NB * V * 4), *rl = malloc((size_t)V * 4);
        int32_t tk4[NB];
        bool ok3 = bl && sl && rl;
        for (int i = 0; ok3 && i < NB; i++) {
            int len = P - 3 * i;
            tk4[i] = gt[i];
            ok3 = model_ctx_new(gpu, P + 4, &bx[i], &sink) == PG_OK && model_ctx_new(gpu, P + 4, &sx[i], &sink) == PG_OK &&
                  model_forward_hidden(bx[i], ids, len, &sink) == PG_OK && model_forward_hidden(sx[i], ids, len, &sink) == PG_OK;
        }
        ok3 = ok3 && model_forward_batch(bx, NB, tk4, bl, &sink) == PG_OK;
        double eb = 0;
        bool rowsok = true;
        for (int i = 0; ok3 && i < NB; i++) {
            ok3 = model_forward(sx[i], &tk4[i], 1, sl + (size_t)i * V, NULL, &sink) == PG_OK;
            double ei = ok3 ? rel_err(bl + (size_t)i * V, sl + (size_t)i * V, V) : 1e30;
            if (ei > eb || ei != ei) eb = ei;
            int r0 = 0;   /* the batch's rows are kept in each context, too */
            ok3 = ok3 && model_logits_rows(bx[i], &r0, 1, NULL, 0, rl, &sink) == PG_OK;
            rowsok = rowsok && ok3 && !memcmp(rl, bl + (size_t)i * V, (size_t)V * 4);
        }
        check("batch", ok3 && eb <= tol && rowsok, "batched step of %d vs one-token steps: max rel err %.3g; rows kept per context: %s", NB,
              eb, rowsok ? "yes" : "no");
        for (int i = 0; i < NB; i++) {
            model_ctx_free(bx[i]);
            model_ctx_free(sx[i]);
        }
        free(bl);
        free(sl);
        free(rl);
    }

    /* speed, one sequence: decode tg tokens after the prompt (logits to the host each step) */
    int32_t tok = gt[steps - 1];
    int done = 0;
    model_ctx *sp = NULL;
    ok = model_ctx_new(gpu, P + tg + 4, &sp, &sink) == PG_OK && model_forward(sp, ids, P, lg, NULL, &sink) == PG_OK;
    double ts0 = now();
    for (; ok && done < tg; done++) {
        tok = argmax(lg, V);
        ok = model_forward(sp, &tok, 1, lg, NULL, &sink) == PG_OK;
    }
    double tdec = now() - ts0;
    double single = done / tdec;
    /* the same decode with the token chosen on the device (model_forward_top: the step and its top 64
     * in one submission, ids[0] the greedy token): the same tokens, no logits row to the host */
    int32_t *hostt = malloc((size_t)tg * 4), *devt = malloc((size_t)tg * 4);
    float tv1[MODEL_TOPK];
    int32_t ti1[MODEL_TOPK];
    int done3 = 0, same3 = 0;
    double top1 = 0;
    {
        model_ctx *s1 = NULL, *s2 = NULL;
        bool ok4 = hostt && devt && model_ctx_new(gpu, P + tg + 4, &s1, &sink) == PG_OK && model_ctx_new(gpu, P + tg + 4, &s2, &sink) == PG_OK &&
                   model_forward(s1, ids, P, lg, NULL, &sink) == PG_OK;
        for (int d = 0; ok4 && d < tg; d++) {   /* the host path's tokens, untimed (timed above) */
            hostt[d] = argmax(lg, V);
            ok4 = model_forward(s1, &hostt[d], 1, lg, NULL, &sink) == PG_OK;
        }
        ok4 = ok4 && model_forward_top(s2, ids, P, tv1, ti1, &sink) == PG_OK;
        long l0 = model_gpu_kernel_launches(gpu);
        double t3 = now();
        for (; ok4 && done3 < tg; done3++) {
            devt[done3] = ti1[0];
            ok4 = model_forward_top(s2, &devt[done3], 1, tv1, ti1, &sink) == PG_OK;
        }
        top1 = done3 / (now() - t3);
        for (int d = 0; d < done3 && d < tg && devt[d] == hostt[d]; d++) same3++;
        check("top1", ok4 && same3 == tg, "one sequence, %d greedy tokens chosen on the device (model_forward_top) and on the host: %d the same; "
              "%.1f kernels a token", tg, same3, done3 ? (double)(model_gpu_kernel_launches(gpu) - l0) / done3 : 0);
        model_ctx_free(s1);
        model_ctx_free(s2);
    }
    /* the engine alone: the same steps without reading logits back (the host's argmax and the copy left out) */
    int done2 = 0;
    model_ctx_rewind(sp, P);
    ts0 = now();
    for (; ok && done2 < tg; done2++) ok = model_forward(sp, &gt[done2 % steps], 1, NULL, NULL, &sink) == PG_OK;
    double engine = done2 / (now() - ts0);
    printf("speed: single-sequence decode %.0f tok/s (%d tokens after a %d-token prompt; logits copied to the host and argmax each step), "
           "%.0f tok/s with the token chosen on the device (model_forward_top), %.0f tok/s engine alone; prefill %.0f tok/s "
           "(greedy check, both engines: %.2f s)\n", single, done, P, top1, engine, P / tpre, tcpu_dec);
    fprintf(js, "  \"decode_tok_s\": %.1f, \"decode_tok_s_top\": %.1f, \"decode_tok_s_engine\": %.1f, \"decode_tokens\": %d, "
                "\"prefill_tok_s\": %.1f, \"greedy_steps_both_engines_s\": %.3f,\n", single, top1, engine, done, P / tpre, tcpu_dec);
    fflush(js);
    model_ctx_free(sp);

    /* speed, K sequences stepped together */
    model_ctx **kc = calloc((size_t)K, sizeof *kc);
    int32_t *kt = malloc((size_t)K * 4);
    float *kl = malloc((size_t)K * V * 4);
    ok = kc && kt && kl;
    for (int i = 0; ok && i < K; i++) ok = model_ctx_new(gpu, P + 2 * ksteps + 4, &kc[i], &sink) == PG_OK && model_forward(kc[i], ids, P, lg, NULL, &sink) == PG_OK;
    for (int i = 0; ok && i < K; i++) kt[i] = (int32_t)((argmax(lg, V) + i) % V);
    double kb = 0, kn = 0, ktk = 0;
    /* the same steps twice from the same state: the whole rows copied back and argmax on the host,
     * then each row's top 64 selected on the device (pg_topk) and the greedy pick made from them
     * (model_sample_top, as the decoder would); both must pick the same tokens */
    int32_t *tka = malloc((size_t)K * ksteps * 4), *tkb = malloc((size_t)K * ksteps * 4), *kt0 = malloc((size_t)K * 4);
    float *tv = malloc((size_t)K * MODEL_TOPK * 4);
    int32_t *ti = malloc((size_t)K * MODEL_TOPK * 4);
    int fallbacks = 0;
    ok = ok && tka && tkb && kt0 && tv && ti;
    if (ok) memcpy(kt0, kt, (size_t)K * 4);
    if (ok) {
        double k0 = now();
        for (int s = 0; ok && s < ksteps; s++) {
            ok = model_forward_batch(kc, K, kt, kl, &sink) == PG_OK;
            for (int i = 0; ok && i < K; i++) tka[(size_t)s * K + i] = kt[i] = argmax(kl + (size_t)i * V, V);
        }
        kb = K * ksteps / (now() - k0);
        for (int i = 0; i < K; i++) model_ctx_rewind(kc[i], P);
        memcpy(kt, kt0, (size_t)K * 4);
        model_sampler greedy;
        model_sampler_init(&greedy, &(model_sampler_opts){0, 0, 1, 0});
        k0 = now();
        for (int s = 0; ok && s < ksteps; s++) {
            ok = model_forward_batch(kc, K, kt, NULL, &sink) == PG_OK && model_topk_rows(kc, K, tv, ti, &sink) == PG_OK;
            for (int i = 0; ok && i < K; i++) {
                bool full;
                int nc = 0;
                while (nc < MODEL_TOPK && ti[(size_t)i * MODEL_TOPK + nc] >= 0) nc++;
                kt[i] = model_sample_top(&greedy, tv + (size_t)i * MODEL_TOPK, ti + (size_t)i * MODEL_TOPK, nc, NULL, &full);
                if (full) {   /* cannot happen unmasked with a finite logit; the full row then */
                    fallbacks++;
                    int last = 0;
                    ok = model_logits_rows(kc[i], &last, 1, NULL, 0, kl, &sink) == PG_OK;
                    kt[i] = argmax(kl, V);
                }
                tkb[(size_t)s * K + i] = kt[i];
            }
        }
        ktk = K * ksteps / (now() - k0);
        int agree = 0;
        for (size_t j = 0; ok && j < (size_t)K * ksteps; j++) agree += tka[j] == tkb[j];
        check("topk", ok && agree == K * ksteps, "k = %d, %d steps: %d of %d tokens the same with the rows copied and with the device's top %d "
              "(%d full-row fallbacks)", K, ksteps, agree, K * ksteps, MODEL_TOPK, fallbacks);
        k0 = now();
        for (int s = 0; ok && s < ksteps; s++) ok = model_forward_batch(kc, K, kt, NULL, &sink) == PG_OK;
        kn = K * ksteps / (now() - k0);
    }
    printf("speed: k = %d sequences, %d batched steps: %.0f tok/s aggregate with the logits copied back (argmax on the host), %.0f "
           "tok/s with the top %d selected on the device (pg_topk) and copied back, %.0f tok/s without logits\n",
           K, ksteps, kb, ktk, MODEL_TOPK, kn);
    fprintf(js, "  \"k\": %d, \"k_steps\": %d, \"k_tok_s\": %.1f, \"k_tok_s_topk\": %.1f, \"k_tok_s_no_logits\": %.1f,\n", K, ksteps,
            kb, ktk, kn);
    free(tka);
    free(tkb);
    free(kt0);
    free(tv);
    free(ti);
    for (int i = 0; kc && i < K; i++) model_ctx_free(kc[i]);
    free(kc);
    free(kt);
    free(kl);
    if (!ok) check("speed", false, "a timed step failed (see the diagnostic)");

    /* per-kernel profiles (K batched steps and one-token steps, with pg_attention and with the split
     * attention), then the two attention paths side by side, alternating: pg_attention ($PTXGEN_GPU_ATTN=full)
     * against pg_attn_split + pg_attn_merge (model_gpu_option "attn_split", the default since 2026-12-07);
     * pg_attention first each time, as before the default changed (the JSON's order); then the engine
     * goes back to the attention it loaded with (split0) */
    const char *kname[2] = {"profile_k", "profile_k_split"}, *mname[2] = {"matvec", "split"};
    char *pj = malloc(1 << 16);
    /* K sequences' batched steps (cuBLAS), each with its rows' top 64 */
    int kp = nprof / 4 > 2 ? nprof / 4 : 2;
    for (int md = 0; pj && nprof > 0 && md < 2; md++) {
        model_ctx **pc = calloc((size_t)K, sizeof *pc);
        float *pv = malloc((size_t)K * MODEL_TOPK * 4);
        int32_t *pi = malloc((size_t)K * MODEL_TOPK * 4), *ptk = malloc((size_t)K * 4);
        bool kok = pc && pv && pi && ptk && model_gpu_option(gpu, "attn_split", md, &sink) == PG_OK;
        for (int i = 0; kok && i < K; i++) {
            ptk[i] = gt[i % steps];
            kok = model_ctx_new(gpu, P + kp + 4, &pc[i], &sink) == PG_OK && model_forward_hidden(pc[i], ids, P, &sink) == PG_OK;
        }
        if (kok) {
            kok = model_gpu_option(gpu, "profile", 1, &sink) == PG_OK;
            double t3 = now();
            for (int d = 0; kok && d < kp; d++) {
                kok = model_forward_batch(pc, K, ptk, NULL, &sink) == PG_OK && model_topk_rows(pc, K, pv, pi, &sink) == PG_OK;
                for (int i = 0; kok && i < K; i++) ptk[i] = pi[(size_t)i * MODEL_TOPK];
            }
            double wall = (now() - t3) * 1e3 / kp;
            kok = kok && model_gpu_profile(gpu, pj, 1 << 16, &sink) == PG_OK;
            model_gpu_option(gpu, "profile", 0, &sink);
            if (kok) {
                printf("%s k = %d: %.3f ms a batched step (and its top 64) launched eagerly; %s\n", kname[md], K, wall, pj);
                fprintf(js, "  \"%s\": {\"k\": %d, \"step_ms_eager\": %.4f, \"profile\": %s},\n", kname[md], K, wall, pj);
            }
        }
        if (!kok) check("profile", false, "the %s profile failed (see the diagnostic)", kname[md]);
        for (int i = 0; pc && i < K; i++) model_ctx_free(pc[i]);
        free(pc);
        free(pv);
        free(pi);
        free(ptk);
    }
    /* the profile: nprof one-token steps (token on the device) after the prompt, launch by launch */
    for (int md = 0; pj && nprof > 0 && md < 2; md++) {
        model_ctx *s1 = NULL;
        bool pok = model_gpu_option(gpu, "attn_split", md, &sink) == PG_OK && model_ctx_new(gpu, P + nprof + 4, &s1, &sink) == PG_OK &&
                   model_forward_top(s1, ids, P, tv1, ti1, &sink) == PG_OK && model_gpu_option(gpu, "profile", 1, &sink) == PG_OK;
        double t3 = now();
        for (int d = 0; pok && d < nprof; d++) {
            int32_t t1 = ti1[0];
            pok = model_forward_top(s1, &t1, 1, tv1, ti1, &sink) == PG_OK;
        }
        double wall = (now() - t3) * 1e3 / nprof;
        pok = pok && model_gpu_profile(gpu, pj, 1 << 16, &sink) == PG_OK;
        model_gpu_option(gpu, "profile", 0, &sink);
        if (pok) {
            printf("profile %s: %.3f ms a step launched eagerly; %s\n", mname[md], wall, pj);
            fprintf(js, "  \"profile_%s\": {\"step_ms_eager\": %.4f, \"profile\": %s},\n", mname[md], wall, pj);
        } else
            check("profile", false, "the %s profile failed (see the diagnostic)", mname[md]);
        model_ctx_free(s1);
    }
    /* speed, alternating: one sequence (token on the device) and K sequences batched (no logits) */
    double dec[2] = {0, 0}, kk[2] = {0, 0};
    int32_t *mt[2] = {malloc((size_t)tg * 4), malloc((size_t)tg * 4)}, *kt2 = malloc((size_t)K * 4);
    model_ctx **bk = calloc((size_t)K, sizeof *bk);
    bool gok = mt[0] && mt[1] && kt2 && bk;
    for (int round = 0; gok && round < 2; round++)
        for (int md = 0; gok && md < 2; md++) {
            gok = model_gpu_option(gpu, "attn_split", md, &sink) == PG_OK;
            model_ctx *s1 = NULL;
            gok = gok && model_ctx_new(gpu, P + tg + 4, &s1, &sink) == PG_OK && model_forward_top(s1, ids, P, tv1, ti1, &sink) == PG_OK;
            double t3 = now();
            for (int d = 0; gok && d < tg; d++) {
                mt[md][d] = ti1[0];
                gok = model_forward_top(s1, &mt[md][d], 1, tv1, ti1, &sink) == PG_OK;
            }
            double r = tg / (now() - t3);
            if (r > dec[md]) dec[md] = r;   /* the better of two rounds (the first captures the graphs) */
            for (int i = 0; gok && i < K; i++) {
                kt2[i] = gt[i % steps];
                gok = model_ctx_new(gpu, P + ksteps + 4, &bk[i], &sink) == PG_OK && model_forward_hidden(bk[i], ids, P - i % 4, &sink) == PG_OK;
            }
            t3 = now();
            for (int st = 0; gok && st < ksteps; st++) gok = model_forward_batch(bk, K, kt2, NULL, &sink) == PG_OK;
            r = K * ksteps / (now() - t3);
            if (r > kk[md]) kk[md] = r;
            model_ctx_free(s1);
            for (int i = 0; i < K; i++) {
                model_ctx_free(bk[i]);
                bk[i] = NULL;
            }
        }
    /* logits with the split attention against the CPU engine: the prompt (prefill chunks through it),
     * then one token; a batch of 4 at different positions against pg_attention's; its exact step of 4
     * tokens against 4 of its one-token steps, bit for bit */
    enum { NB4 = 4 };
    float *lsp = malloc((size_t)V * 4), *lcp = malloc((size_t)V * 4), *ba[2] = {malloc((size_t)NB4 * V * 4), malloc((size_t)NB4 * V * 4)};
    float *ex4 = malloc((size_t)4 * V * 4), *one4 = malloc((size_t)4 * V * 4);
    gok = gok && lsp && lcp && ba[0] && ba[1] && ex4 && one4;
    bool gbits = false;
    model_ctx *c1 = NULL;
    gok = gok && model_ctx_new(cpu, P + 4, &c1, &sink) == PG_OK && model_forward_hidden(c1, ids, P, &sink) == PG_OK &&
          model_forward(c1, &gt[0], 1, lcp, NULL, &sink) == PG_OK;
    model_ctx_free(c1);
    for (int md = 0; gok && md < 2; md++) {
        gok = model_gpu_option(gpu, "attn_split", md, &sink) == PG_OK;
        model_ctx *s1 = NULL, *b4[NB4] = {0};
        if (md == 1)
            gok = gok && model_ctx_new(gpu, P + 4, &s1, &sink) == PG_OK && model_forward_hidden(s1, ids, P, &sink) == PG_OK &&
                  model_forward(s1, &gt[0], 1, lsp, NULL, &sink) == PG_OK;
        for (int i = 0; gok && i < NB4; i++)
            gok = model_ctx_new(gpu, P + 4, &b4[i], &sink) == PG_OK && model_forward_hidden(b4[i], ids, P - 3 * i, &sink) == PG_OK;
        gok = gok && model_forward_batch(b4, NB4, gt, ba[md], &sink) == PG_OK;
        model_ctx_free(s1);
        for (int i = 0; i < NB4; i++) model_ctx_free(b4[i]);
        if (md == 1 && gok) {
            model_ctx *x1 = NULL, *x2 = NULL;
            int r4[4] = {0, 1, 2, 3};
            gok = model_ctx_new(gpu, P + 8, &x1, &sink) == PG_OK && model_ctx_new(gpu, P + 8, &x2, &sink) == PG_OK &&
                  model_forward_hidden(x1, ids, P, &sink) == PG_OK && model_forward_hidden(x2, ids, P, &sink) == PG_OK &&
                  model_forward_exact(x1, gt, 4, &sink) == PG_OK && model_logits_rows(x1, r4, 4, NULL, 0, ex4, &sink) == PG_OK;
            for (int st4 = 0; gok && st4 < 4; st4++) gok = model_forward(x2, &gt[st4], 1, one4 + (size_t)st4 * V, NULL, &sink) == PG_OK;
            gbits = gok && !memcmp(ex4, one4, (size_t)4 * V * 4);
            model_ctx_free(x1);
            model_ctx_free(x2);
        }
    }
    double e1 = gok ? rel_err(lsp, lcp, V) : 1e30, e4 = gok ? rel_err(ba[1], ba[0], (int)(NB4 * V)) : 1e30;
    int msame = 0;
    while (gok && msame < tg && mt[0][msame] == mt[1][msame]) msame++;
    check("attn_split", gok && e1 <= tol && e4 <= tol && argmax(lsp, V) == argmax(lcp, V) && gbits,
          "pg_attn_split against the CPU engine: one row after the prompt max rel err %.3g (top %d / %d); a batch of 4 against "
          "pg_attention %.3g; its exact step of 4 == 4 one-token steps bit for bit: %s; greedy tokens the same as pg_attention's for "
          "%d of %d", e1, gok ? argmax(lsp, V) : -1, gok ? argmax(lcp, V) : -1, e4, gbits ? "yes" : "no", msame, tg);
    printf("speed: attention, one sequence (token on the device): %.0f tok/s pg_attention, %.0f tok/s pg_attn_split; %d sequences "
           "batched (no logits): %.0f tok/s pg_attention, %.0f tok/s pg_attn_split (this load's: %s)\n", dec[0], dec[1], K, kk[0], kk[1],
           split0 ? "pg_attn_split, the default" : "pg_attention");
    fprintf(js, "  \"attn_split\": {\"decode_tok_s\": {\"attention\": %.1f, \"split\": %.1f}, \"k\": %d, \"k_tok_s\": {\"attention\": %.1f, "
                "\"split\": %.1f}, \"rel_err_cpu\": %.4g, \"rel_err_batch4\": %.4g, \"exact_bits\": %s, \"greedy_same\": %d, \"greedy_of\": %d},\n",
            dec[0], dec[1], K, kk[0], kk[1], e1, e4, gbits ? "true" : "false", msame, tg);
    free(pj);
    model_gpu_option(gpu, "attn_split", split0, &sink);
    for (int md = 0; md < 2; md++) {
        free(mt[md]);
        free(ba[md]);
    }
    free(kt2);
    free(bk);
    free(lsp);
    free(lcp);
    free(ex4);
    free(one4);
    free(hostt);
    free(devt);

    if (q80 && qsteps > 0) q8_section(cpu, gpu, ids, P, qsteps, tg, nprof, tol, &sink);

    fprintf(js, "  \"failed_checks\": %d\n}\n", nfail);
    fclose(js);
    model_ctx_free(cc);
    model_ctx_free(cg);
    model_free(cpu);
    model_free(gpu);
    free(ids);
    free(lc);
    free(lg);
    free(ac);
    free(ag);
    free(gt);
    free(ct);
    printf("%s: %d check(s) failed\n", nfail ? "FAIL" : "ok", nfail);
    return nfail ? 1 : 0;
}
