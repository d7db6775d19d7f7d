/* bench_model.c — time the C engine on one model: load, prefill (ppN), decode
 * (tgN from an empty context, like llama-bench), time to first token, peak RSS.
 * Prints one JSON object.  bench/bench_model.sh runs it per dtype and thread
 * count (one process each, so peak RSS is per configuration).
 *
 *   build/bench_model MODEL_DIR [--dtype f32|bf16|q8] [--threads N] [--pp 64] [--tg 256] [--reps 3] */
#include "model/model_internal.h"
#include "ptxgen/model.h"

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

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_model MODEL_DIR [--dtype f32|bf16|q8] [--threads N] [--pp 64] [--tg 256] [--reps 3]\n");
        return 2;
    }
    const char *dir = argv[1], *dtype = "f32";
    int threads = 0, pp = 64, tg = 256, reps = 3;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--dtype")) dtype = argv[i + 1];
        else if (!strcmp(argv[i], "--threads")) threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--pp")) pp = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--tg")) tg = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else { fprintf(stderr, "bench_model: unknown option %s\n", argv[i]); return 2; }
    }
    if (pp < 1 || tg < 1 || reps < 1) { fprintf(stderr, "bench_model: --pp, --tg, --reps must be >= 1\n"); return 2; }
    pg_diag_sink sink = {diag_print, NULL, 0, 0, 10};
    model_load_opts o = {NULL, threads, dtype};
    model_model *m = NULL;
    double t0 = now();
    if (model_load(dir, &o, &m, &sink) != PG_OK) return 1;
    double t_load = now() - t0;
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
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double med_pp = t_pp[reps / 2], med_tg = t_tg[reps / 2];
    printf("{\"engine\": \"ptxgen\", \"dtype\": \"%s\", \"threads\": %d, \"kernels\": \"%s\", \"params\": %zu, "
           "\"weight_bytes\": %zu, \"load_s\": %.3f, \"pp%d_tok_s\": %.1f, \"pp_best_tok_s\": %.1f, \"tg%d_tok_s\": %.1f, "
           "\"tg_best_tok_s\": %.1f, \"ttft_ms\": %.3f, \"peak_rss_mb\": %.1f, \"reps\": %d}\n",
           model_weight_dtype(m), model_threads(m), kernels_isa(), model_param_count(m), model_weight_bytes(m), t_load, pp,
           pp / med_pp, pp / t_pp[0], tg, tg / med_tg, tg / t_tg[0], med_pp * 1e3, ru.ru_maxrss / 1024.0, reps);
    free(prompt);
    free(logits);
    free(t_pp);
    free(t_tg);
    model_ctx_free(ctx);
    model_free(m);
    return 0;
}
