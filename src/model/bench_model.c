/* bench_model.c — time the C engine on one model: load, prefill (ppN), decode
 * (tgN from an empty context, like llama-bench), time to first token, peak RSS.
 * Prints one JSON object.  bench/bench_model.sh runs it per dtype and thread
 * count (one process each, so peak RSS is per configuration).
 * Decode reads every weight once per token, so it is bound by how fast the
 * cores can stream weight_bytes: the run ends with that probe (the same number
 * of threads summing a buffer of weight_bytes, best of 5) and reports decode's
 * weight traffic as a share of it.
 *
 * --batch K1,K2,..: instead, batched decode (model_forward_batch, what `gen --samples k`
 * uses for best-of-k) against the same k sequences stepped one at a time: k contexts
 * with different 16-token prompts, then --tg steps of one token each; one JSON line
 * per k with both speeds in tokens/s summed over the k sequences (median of --reps).
 *
 * --exact with --profile: each stage's time per exact step, with --threads 1 in the thread's CPU time
 * (stage_clock), steady while other programs share the machine.
 *
 * --profile: after the timed runs, one more decode run of --tg steps with the engine's
 * stage clocks on (model_prof): per stage ms per token, its share, the weight bytes it
 * reads and the GB/s that makes; the caller's wait for pool workers (threading/sync)
 * and the int8 quantization of activations; then the read-bandwidth probe.  Decode's
 * share of the read bandwidth counts the bytes a step streams (model_decode_bytes:
 * every matrix but the embedding table, of which one row).  With --constraint F.ptx
 * also the constraint's cost per token, replaying F (canonical PTX, as gen writes it)
 * token by token: dec_accepts, dec_allowed (up to 1024 ids) and dec_advance.
 *
 *   build/bench_model MODEL_DIR [--dtype f32|bf16|q8] [--threads N] [--pp 64] [--tg 256] [--reps 3] [--batch 1,4,8]
 *                     [--profile] [--constraint KERNEL.ptx] [--exact 1,2,4,8 [--ctx 64]] */
#include "model/model_internal.h"
#include "ptxgen/decode.h"
#include "ptxgen/model.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void diag_print(void *user, const pg_diag *d) {
    (void)user;
    char buf[800];
    pg_diag_format(d, buf, sizeof buf);
    fprintf(stderr, "%s\n", buf);
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- the read-bandwidth probe ---- */
typedef float v16 __attribute__((vector_size(64), aligned(64)));
typedef struct {
    const v16 *p;
    size_t n;        /* vectors in this thread's slice */
    int passes;
    pthread_barrier_t *bar;
    float sink;
    double t0, t1;   /* timed in the workers: the waiting main thread may not get a core */
} bw_job;

#if defined(__x86_64__)
__attribute__((target("avx512f")))
#endif
static float sum_slice(const v16 *p, size_t n) {
    v16 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
    size_t i = 0;
    for (; i + 4 <= n; i += 4) { a0 += p[i]; a1 += p[i + 1]; a2 += p[i + 2]; a3 += p[i + 3]; }
    for (; i < n; i++) a0 += p[i];
    v16 a = a0 + a1 + a2 + a3;
    float s = 0;
    for (int k = 0; k < 16; k++) s += a[k];
    return s;
}

static void *bw_worker(void *arg) {
    bw_job *j = arg;
    pthread_barrier_wait(j->bar);
    j->t0 = now();
    for (int r = 0; r < j->passes; r++) {
        j->sink += sum_slice(j->p, j->n);
        __asm__ volatile("" ::: "memory");   /* sum_slice is pure: without this the passes fold into one */
    }
    j->t1 = now();
    return NULL;
}

/* GB/s at which `threads` threads read a buffer of `bytes` (best of 5 timings of 8 passes). */
static double read_bandwidth(size_t bytes, int threads) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f")) return 0;   /* the probe is written for AVX-512 machines */
#endif
    size_t nv = bytes / sizeof(v16);
    v16 *buf = aligned_alloc(64, nv * sizeof(v16));
    if (!buf || threads < 1) { free(buf); return 0; }
    for (size_t i = 0; i < nv; i++) for (int k = 0; k < 16; k++) buf[i][k] = (float)((i + k) & 7);
    pthread_barrier_t bar;
    bw_job *jobs = calloc((size_t)threads, sizeof *jobs);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    double best = 0;
    for (int rep = 0; rep < 6; rep++) {   /* the first round only warms up */
        pthread_barrier_init(&bar, NULL, (unsigned)threads);
        for (int t = 0; t < threads; t++) {
            size_t a = nv * (size_t)t / (size_t)threads, b = nv * (size_t)(t + 1) / (size_t)threads;
            jobs[t] = (bw_job){buf + a, b - a, 8, &bar, 0, 0, 0};
            pthread_create(&tid[t], NULL, bw_worker, &jobs[t]);
        }
        double t0 = 1e300, t1 = 0;
        for (int t = 0; t < threads; t++) {
            pthread_join(tid[t], NULL);
            t0 = jobs[t].t0 < t0 ? jobs[t].t0 : t0;
            t1 = jobs[t].t1 > t1 ? jobs[t].t1 : t1;
        }
        pthread_barrier_destroy(&bar);
        double dt = t1 - t0;
        double gbs = (double)nv * sizeof(v16) * 8 / dt / 1e9;
        if (rep > 0 && gbs > best) best = gbs;
    }
    free(jobs);
    free(tid);
    free(buf);
    return best;
}

/* Batched decode vs sequential for k sequences: median seconds of `tg` steps each way
 * (both from the same prompts, rewound between rounds). */
static int bench_batch(model_model *m, const char *dir, int k, int tg, int reps, pg_diag_sink *sink) {
    const model_config *c = model_get_config(m);
    enum { PROMPT = 16 };
    model_ctx **ctx = calloc((size_t)k, sizeof *ctx);
    int32_t *toks = malloc((size_t)k * sizeof *toks);                              /* [k] this step's tokens */
    float *logits = malloc((size_t)k * c->vocab_size * sizeof *logits);            /* [k][vocab] */
    double *t_seq = calloc((size_t)reps, sizeof *t_seq), *t_bat = calloc((size_t)reps, sizeof *t_bat);
    int rc = !ctx || !toks || !logits || !t_seq || !t_bat;
    for (int i = 0; i < k && !rc; i++) {
        int32_t p[PROMPT];
        for (int t = 0; t < PROMPT; t++) p[t] = 3 + (int32_t)(((unsigned)i * 131u + (unsigned)t * 29u) % (unsigned)(c->vocab_size - 3));
        rc = model_ctx_new(m, PROMPT + tg + 1, &ctx[i], sink) != PG_OK || model_forward(ctx[i], p, PROMPT, NULL, NULL, sink) != PG_OK;
    }
    for (int r = -1; r < reps && !rc; r++) {   /* one untimed round warms caches and the pool */
        for (int way = 0; way < 2; way++) {
            for (int i = 0; i < k; i++) model_ctx_rewind(ctx[i], PROMPT);
            double a = now();
            for (int step = 0; step < tg && !rc; step++) {
                for (int i = 0; i < k; i++) toks[i] = 3 + (int32_t)(((unsigned)step * 31u + (unsigned)i * 17u) % (unsigned)(c->vocab_size - 3));
                if (way == 0)
                    for (int i = 0; i < k && !rc; i++) rc = model_forward(ctx[i], &toks[i], 1, logits + (size_t)i * c->vocab_size, NULL, sink) != PG_OK;
                else
                    rc = model_forward_batch(ctx, k, toks, logits, sink) != PG_OK;
            }
            if (r >= 0) (way ? t_bat : t_seq)[r] = now() - a;
        }
    }
    if (!rc) {
        qsort(t_seq, (size_t)reps, sizeof *t_seq, cmp_d);
        qsort(t_bat, (size_t)reps, sizeof *t_bat, cmp_d);
        double seq = (double)k * tg / t_seq[reps / 2], bat = (double)k * tg / t_bat[reps / 2];
        printf("{\"engine\": \"ptxgen\", \"bench\": \"batched-decode\", \"model\": \"%s\", \"dtype\": \"%s\", \"threads\": %d, "
               "\"kernels\": \"%s\", \"k\": %d, \"steps\": %d, \"prompt\": %d, \"reps\": %d, \"sequential_tok_s\": %.1f, "
               "\"batched_tok_s\": %.1f, \"speedup\": %.2f}\n",
               dir, model_weight_dtype(m), model_threads(m), model_kernels_isa(), k, tg, PROMPT, reps, seq, bat, bat / seq);
    }
    for (int i = 0; ctx && i < k; i++) model_ctx_free(ctx[i]);
    free(ctx);
    free(toks);
    free(logits);
    free(t_seq);
    free(t_bat);
    return rc;
}

/* The constraint's cost per token: F's text (canonical PTX with gen's header) tokenized with
 * the model's tokenizer and replayed through a fresh dec_state, timing dec_accepts, dec_allowed
 * (at most 1024 ids) and dec_advance for each token.  Appends a "constraint" object to js. */
static int bench_constraint(const char *model_dir, const char *file, pg_buf *js, pg_diag_sink *sink) {
    char tp[4096];
    tok_tokenizer *t = NULL;
    dec_vocab *v = NULL;
    dec_state *d = NULL;
    char *text = NULL;
    size_t len = 0, n = 0;
    int32_t *ids = NULL, *allowed = malloc(1024 * sizeof *allowed);
    int rc = 1;
    if (model_tokenizer_path(model_dir, tp, sizeof tp, sink) != PG_OK || tok_load(tp, &t, sink) != PG_OK ||
        dec_vocab_new(t, &v, sink) != PG_OK || pg_read_file(file, 16u << 20, &text, &len, sink) != PG_OK ||
        tok_encode(t, text, len, &ids, &n) != PG_OK || !allowed)
        goto done;
    /* the corpus kernels are literate (docs/LITERATE.md): their plan lines are allowed, as gen allows them */
    dec_opts o = {.arch = "sm_80", .comment_max = PTX_LITERATE_LINE_MAX};
    if (dec_new(v, &o, &d, sink) != PG_OK) goto done;
    double ta = 0, tl = 0, tv = 0;
    long small = 0, one = 0, done_n = 0;
    for (size_t i = 0; i < n; i++) {
        double a = now();
        bool ok = dec_accepts(d, ids[i]);
        double b = now();
        int k = dec_allowed(d, allowed, 1024);
        double c = now();
        if (!ok || dec_advance(d, ids[i], sink) != PG_OK) {
            fprintf(stderr, "bench_model: %s: the constraint refuses token %zu of %zu (write the file as gen does: canonical PTX, gen's header)\n", file, i, n);
            goto done;
        }
        double e = now();
        ta += b - a;
        tl += c - b;
        tv += e - c;
        small += k > 0;
        one += k == 1;
        done_n++;
    }
    pg_buf_printf(js, ", \"constraint\": {\"file\": \"%s\", \"tokens\": %ld, \"accepts_us\": %.2f, \"allowed_us\": %.2f, "
                  "\"advance_us\": %.2f, \"small_mask_pct\": %.1f, \"one_token_pct\": %.1f}",
                  file, done_n, ta / done_n * 1e6, tl / done_n * 1e6, tv / done_n * 1e6, 100.0 * small / done_n, 100.0 * one / done_n);
    rc = 0;
done:
    dec_free(d);
    dec_vocab_free(v);
    tok_free(t);
    free(text);
    free(ids);
    free(allowed);
    return rc;
}

/* --exact N1,N2,..: the cost of a speculative verify step: model_forward_exact of n tokens
 * (each row as a one-token step) after a prompt of --ctx tokens (default 64; gen's verify
 * steps run at a few hundred to a few thousand positions, where attention weighs more), median
 * of --reps, wall and process CPU seconds, against n one-token steps.  One JSON line per n. */
static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
static int bench_exact(model_model *m, const char *dir, const char *list, int reps, int prompt, bool profile, pg_diag_sink *sink) {
    const model_config *c = model_get_config(m);
    int32_t *toks = malloc((size_t)(prompt + MODEL_EXACT_MAX) * sizeof *toks);
    if (!toks) return 1;
    for (int i = 0; i < prompt + MODEL_EXACT_MAX; i++) toks[i] = 3 + (int32_t)(((unsigned)i * 131u) % (unsigned)(c->vocab_size - 3));
    model_ctx *ctx = NULL;
    if (model_ctx_new(m, prompt + MODEL_EXACT_MAX + 1, &ctx, sink) != PG_OK || model_forward(ctx, toks, prompt, NULL, NULL, sink) != PG_OK) {
        model_ctx_free(ctx);
        free(toks);
        return 1;
    }
    int rc = 0;
    for (const char *b = list; *b && !rc; b += strcspn(b, ","), b += *b == ',') {
        int n = atoi(b);
        if (n < 1 || n > MODEL_EXACT_MAX) { fprintf(stderr, "bench_model: --exact sizes 1..%d\n", MODEL_EXACT_MAX); rc = 2; break; }
        double w[2][64], u[2][64];
        int R = reps < 64 ? reps : 64;
        model_prof pr;   /* --profile: the stage clocks of the timed exact steps (way 0) */
        memset(&pr, 0, sizeof pr);
        pr.thread_cpu = model_threads(m) == 1;   /* one thread: stage CPU time, steady on a loaded machine */
        for (int r = -1; r < R && !rc; r++)
            for (int way = 0; way < 2; way++) {   /* 0: one exact step of n rows; 1: n one-token steps */
                model_ctx_rewind(ctx, prompt);
                double a = now(), ca = cpu_now();
                if (profile && way == 0 && r >= 0) model_prof_attach(m, &pr);
                if (way == 0) rc = model_forward_exact(ctx, toks + prompt, n, sink) != PG_OK;
                else
                    for (int i = 0; i < n && !rc; i++) rc = model_forward_exact(ctx, toks + prompt + i, 1, sink) != PG_OK;
                model_prof_attach(m, NULL);
                if (r >= 0) { w[way][r] = now() - a; u[way][r] = cpu_now() - ca; }
            }
        if (rc) break;
        for (int way = 0; way < 2; way++) { qsort(w[way], (size_t)R, sizeof(double), cmp_d); qsort(u[way], (size_t)R, sizeof(double), cmp_d); }
        printf("{\"engine\": \"ptxgen\", \"bench\": \"exact-step\", \"model\": \"%s\", \"threads\": %d, \"ctx\": %d, \"n\": %d, \"reps\": %d, "
               "\"exact_ms\": %.2f, \"exact_cpu_ms\": %.2f, \"steps_ms\": %.2f, \"steps_cpu_ms\": %.2f, \"ratio_wall\": %.2f",
               dir, model_threads(m), prompt, n, R, w[0][R / 2] * 1e3, u[0][R / 2] * 1e3, w[1][R / 2] * 1e3, u[1][R / 2] * 1e3,
               w[0][R / 2] / w[1][R / 2]);
        if (profile) {   /* mean ms per exact step by stage */
            printf(", \"stage_clock\": \"%s\", \"stages_ms\": {", pr.thread_cpu ? "thread_cpu" : "wall");
            for (int st = 0; st < PROF_N; st++) printf("%s\"%s\": %.2f", st ? ", " : "", model_prof_names[st], pr.stage_s[st] / R * 1e3);
            printf("}, \"sync_wait_ms\": %.2f, \"act_quant_ms\": %.2f", pr.pool.sync_s / R * 1e3, pr.pool.actq_s / R * 1e3);
        }
        printf("}\n");
    }
    model_ctx_free(ctx);
    free(toks);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_model MODEL_DIR [--dtype f32|bf16|q8] [--threads N] [--pp 64] [--tg 256] [--reps 3] [--batch 1,4,8]\n");
        return 2;
    }
    const char *dir = argv[1], *dtype = "f32";
    const char *batch = NULL;   /* --batch K1,K2,..: the batched-decode comparison instead */
    const char *cons = NULL;    /* --constraint F.ptx: the constraint's cost per token, replaying F */
    const char *exact = NULL;   /* --exact N1,N2,..: verify steps of n rows against n one-token steps */
    bool profile = false;
    int threads = 0, pp = 64, tg = 256, reps = 3, ectx = 64;
    for (int i = 2; i < argc; i += 2) {
        if (!strcmp(argv[i], "--profile")) { profile = true; i--; continue; }
        if (i + 1 >= argc) { fprintf(stderr, "bench_model: %s wants a value\n", argv[i]); return 2; }
        if (!strcmp(argv[i], "--dtype")) dtype = argv[i + 1];
        else if (!strcmp(argv[i], "--constraint")) cons = argv[i + 1];
        else if (!strcmp(argv[i], "--exact")) exact = argv[i + 1];
        else if (!strcmp(argv[i], "--threads")) threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--pp")) pp = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--tg")) tg = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--ctx")) ectx = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--batch")) batch = argv[i + 1];
        else { fprintf(stderr, "bench_model: unknown option %s\n", argv[i]); return 2; }
    }
    if (pp < 1 || tg < 1 || reps < 1 || ectx < 1) { fprintf(stderr, "bench_model: --pp, --tg, --reps, --ctx must be >= 1\n"); return 2; }
    pg_diag_sink sink = {diag_print, NULL, 0, 0, 10};
    model_load_opts o = {NULL, threads, dtype, false, false, NULL, false};
    model_model *m = NULL;
    double t0 = now();
    if (model_load(dir, &o, &m, &sink) != PG_OK) return 1;
    double t_load = now() - t0;
    if (exact) {
        int rc = bench_exact(m, dir, exact, reps, ectx, profile, &sink);
        model_free(m);
        return rc;
    }
    if (batch) {
        int rc = 0;
        for (const char *b = batch; *b && !rc; b += strcspn(b, ","), b += *b == ',') {
            int k = atoi(b);
            if (k < 1) { fprintf(stderr, "bench_model: --batch wants sizes >= 1: %s\n", batch); rc = 2; break; }
            rc = bench_batch(m, dir, k, tg, reps, &sink);
        }
        model_free(m);
        return rc;
    }
    const model_config *c = model_get_config(m);
    model_ctx *ctx = NULL;
    if (model_ctx_new(m, pp + tg + 1, &ctx, &sink) != PG_OK) return 1;
    int32_t *prompt = malloc((size_t)pp * sizeof *prompt);
    float *logits = malloc((size_t)c->vocab_size * sizeof *logits);
    uint64_t rng = 1;
    for (int i = 0; i < pp; i++) prompt[i] = 3 + (int32_t)(model_rng_next(&rng) % (uint64_t)(c->vocab_size - 3));
    double *t_pp = calloc((size_t)reps, sizeof *t_pp), *t_tg = calloc((size_t)reps, sizeof *t_tg);
    model_sampler sm;
    model_sampler_opts so = {0, 0, 1, 0};
    model_sampler_init(&sm, &so);
    /* one untimed round warms caches and the pool */
    for (int r = -1; r < reps; r++) {
        model_ctx_rewind(ctx, 0);
        double a = now();
        model_forward(ctx, prompt, pp, logits, NULL, &sink);
        int32_t first = model_sample(&sm, logits, c->vocab_size);   /* time to first token includes picking it */
        double b = now();
        (void)first;
        model_ctx_rewind(ctx, 0);
        int32_t tok = 1;
        double d0 = now();
        for (int i = 0; i < tg; i++) {
            model_forward(ctx, &tok, 1, logits, NULL, &sink);
            tok = model_sample(&sm, logits, c->vocab_size);
        }
        double d1 = now();
        if (r >= 0) { t_pp[r] = b - a; t_tg[r] = d1 - d0; }
    }
    qsort(t_pp, (size_t)reps, sizeof *t_pp, cmp_d);
    qsort(t_tg, (size_t)reps, sizeof *t_tg, cmp_d);
    pg_buf prof_json = {0};
    if (profile) {
        model_prof pr;
        memset(&pr, 0, sizeof pr);
        model_ctx_rewind(ctx, 0);
        int32_t tok = 1;
        double sample_s = 0;
        model_prof_attach(m, &pr);
        double d0 = now();
        for (int i = 0; i < tg; i++) {
            model_forward(ctx, &tok, 1, logits, NULL, &sink);
            double s0 = now();
            tok = model_sample(&sm, logits, c->vocab_size);
            sample_s += now() - s0;
        }
        double total = now() - d0;
        model_prof_attach(m, NULL);
        pg_buf_printf(&prof_json, ", \"profile\": {\"steps\": %d, \"ms_per_token\": %.3f, \"stages\": {", tg, total / tg * 1e3);
        double staged = sample_s;
        for (int st = 0; st < PROF_N; st++) {
            double sec = pr.stage_s[st];
            size_t by = model_stage_bytes(m, st);
            staged += sec;
            pg_buf_printf(&prof_json, "%s\"%s\": {\"ms\": %.3f, \"pct\": %.1f, \"mb\": %.2f, \"gb_s\": %.2f}", st ? ", " : "",
                          model_prof_names[st], sec / tg * 1e3, 100 * sec / total, by / 1e6, sec > 0 ? by * (double)tg / sec / 1e9 : 0);
        }
        pg_buf_printf(&prof_json, ", \"sample_argmax\": {\"ms\": %.3f, \"pct\": %.1f}, \"other\": {\"ms\": %.3f, \"pct\": %.1f}}, "
                      "\"sync_wait_ms\": %.3f, \"sync_wait_pct\": %.1f, \"act_quant_ms\": %.3f, \"dispatches_per_token\": %.1f}",
                      sample_s / tg * 1e3, 100 * sample_s / total, (total - staged) / tg * 1e3, 100 * (total - staged) / total,
                      pr.pool.sync_s / tg * 1e3, 100 * pr.pool.sync_s / total, pr.pool.actq_s / tg * 1e3, (double)pr.pool.dispatches / tg);
    }
    if (cons && bench_constraint(dir, cons, &prof_json, &sink) != 0) return 1;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double med_pp = t_pp[reps / 2], med_tg = t_tg[reps / 2];
    /* the engine's pool is gone before the probe runs, so nothing competes for the cores */
    size_t wbytes = model_weight_bytes(m), params = model_param_count(m), dbytes = model_decode_bytes(m);
    int nthreads = model_threads(m);
    char wdtype[16];
    snprintf(wdtype, sizeof wdtype, "%s", model_weight_dtype(m));
    model_ctx_free(ctx);
    model_free(m);
    double bw = read_bandwidth(wbytes, nthreads);
    double tg_gbs = (double)dbytes * tg / med_tg / 1e9;   /* weight bytes streamed per second in decode */
    printf("{\"engine\": \"ptxgen\", \"model\": \"%s\", \"dtype\": \"%s\", \"threads\": %d, \"kernels\": \"%s\", \"params\": %zu, "
           "\"weight_bytes\": %zu, \"load_s\": %.3f, \"pp%d_tok_s\": %.1f, \"pp_best_tok_s\": %.1f, \"tg%d_tok_s\": %.1f, "
           "\"tg_best_tok_s\": %.1f, \"ttft_ms\": %.3f, \"peak_rss_mb\": %.1f, \"reps\": %d, "
           "\"decode_bytes\": %zu, \"tg_weight_gb_s\": %.1f, \"read_bw_gb_s\": %.1f, \"tg_pct_of_read_bw\": %.0f%s}\n",
           dir, wdtype, nthreads, model_kernels_isa(), params, wbytes, t_load, pp,
           pp / med_pp, pp / t_pp[0], tg, tg / med_tg, tg / t_tg[0], med_pp * 1e3, ru.ru_maxrss / 1024.0, reps,
           dbytes, tg_gbs, bw, bw > 0 ? 100 * tg_gbs / bw : 0, prof_json.data ? prof_json.data : "");
    pg_buf_free(&prof_json);
    free(prompt);
    free(logits);
    free(t_pp);
    free(t_tg);
    return 0;
}
