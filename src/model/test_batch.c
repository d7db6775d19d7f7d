/* test_batch.c — model_forward_batch (one decode step for several sequences) against
 * the same steps taken one sequence at a time with model_forward.  Run from the
 * repository root.
 *
 * Each case loads a tiny model (tests/model: safetensors, computed as f32, bf16 and
 * q8, LoRA merged; tests/model/gguf_engine: a GGUF with every stored weight type,
 * with and without a LoRA side path, exact and fast decode), prefills prompts of
 * different lengths into two sets of contexts (different max_seq too), then takes
 * the same decode steps batched and one by one and compares every logit row.
 * Bounds: nseq < 4 runs the decode kernels for each row, so equality is bit for bit;
 * nseq >= 4 runs the prefill kernels over the stacked rows, held to the bounds the
 * engine's prefill path already holds against its decode path:
 *  - f32 1e-4 (test_model.c's exactness bound), bf16 2e-2, q8 1e-1 (5e-2 each way
 *    against torch; with AMX int8 tiles far closer), test_model.c;
 *  - GGUF exact 1e-4, GGUF fast decode 5e-2 (test_gguf_model.c's EXACT_TOL, FAST_TOL:
 *    prefill runs the exact path, the fast decode rounds activations to int8).
 * Metric: max |batch - single| / max |single| over a row's logits. */
#include "common/test.h"
#include "model/model_internal.h"
#include "ptxgen/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* A token id for sequence s at position p (any fixed spread over the vocabulary). */
static int32_t tok_at(int s, int p, int vocab) { return (int32_t)(((unsigned)s * 131u + (unsigned)p * 29u + 7u) % (unsigned)vocab); }

#define MAXSEQ 130   /* more than the engine's 128 rows per step: the batch runs in two groups */
#define GROUP 128    /* the engine's rows per batched step (model.c's CHUNK) */

/* Rows of the group sequence i is stepped in (model_forward_batch splits nseq into
 * groups of GROUP; a group of fewer than 4 rows runs the decode kernels). */
static int group_rows(int i, int nseq) {
    int g0 = i / GROUP * GROUP;
    return nseq - g0 < GROUP ? nseq - g0 : GROUP;
}

/* nseq sequences with prompts of 4 + (3s mod 11) tokens and cache sizes that differ,
 * `steps` decode steps taken batched and one sequence at a time.  *single: the worst
 * row difference batched vs single steps; *prefill: batched vs one model_forward of
 * each whole sequence (prompt and steps; the prefill kernels, as the batch's step and
 * prompt prefill use) for rows of groups of 4 or more.  Rows of smaller groups (and
 * every row when nseq < 4) must equal the single steps bit for bit. */
static void batch_vs_single(model_model *m, int nseq, int steps, const char *label, double *single, double *prefill) {
    const int V = model_get_config(m)->vocab_size;
    model_ctx *b[MAXSEQ] = {0}, *s[MAXSEQ] = {0};
    int np[MAXSEQ];
    int32_t seqtoks[MAXSEQ][32];   /* [nseq][prompt + steps] every token each sequence took */
    pg_diag_sink d = test_sink();
    float *blog = malloc((size_t)steps * nseq * V * sizeof *blog);   /* [steps][nseq][V] batched */
    float *slog = malloc((size_t)V * sizeof *slog);                  /* [V] one sequence, one step */
    float *all = malloc((size_t)32 * V * sizeof *all);               /* [prompt + steps][V] whole-sequence prefill */
    *single = *prefill = INFINITY;
    bool ok = blog && slog && all && steps <= 16;
    for (int i = 0; i < nseq && ok; i++) {
        np[i] = 4 + (3 * i) % 11;
        int max_seq = np[i] + steps + 1 + i % 5;   /* different lengths and cache sizes */
        for (int t = 0; t < np[i]; t++) seqtoks[i][t] = tok_at(i, t, V);
        ok = model_ctx_new(m, max_seq, &b[i], &d) == PG_OK && model_ctx_new(m, max_seq, &s[i], &d) == PG_OK &&
             model_forward(b[i], seqtoks[i], np[i], NULL, NULL, &d) == PG_OK &&
             model_forward(s[i], seqtoks[i], np[i], NULL, NULL, &d) == PG_OK;
    }
    CHECK(ok, "%s: contexts and prompts: %s", label, test_diag_log());
    double ws = 0, wp = 0;
    for (int k = 0; k < steps && ok; k++) {
        int32_t toks[MAXSEQ];
        for (int i = 0; i < nseq; i++) seqtoks[i][np[i] + k] = toks[i] = tok_at(i + 17, k + 40, V);
        float *bk = blog + (size_t)k * nseq * V;
        ok = model_forward_batch(b, nseq, toks, bk, &d) == PG_OK;
        CHECK(ok, "%s: step %d: model_forward_batch: %s", label, k, test_diag_log());
        for (int i = 0; i < nseq && ok; i++) {
            ok = model_forward(s[i], &toks[i], 1, slog, NULL, &d) == PG_OK;
            double e = test_rel_err(bk + (size_t)i * V, slog, V);
            ws = fmax(ws, e);
            if (group_rows(i, nseq) < 4)   /* the decode kernels row by row: the very same arithmetic */
                CHECK(!memcmp(bk + (size_t)i * V, slog, (size_t)V * sizeof *slog), "%s: step %d row %d: not bit-equal (%.3g)",
                      label, k, i, e);
            CHECK(model_ctx_pos(b[i]) == model_ctx_pos(s[i]), "%s: row %d: position %d vs %d", label, i, model_ctx_pos(b[i]),
                  model_ctx_pos(s[i]));
        }
    }
    /* What the prefill kernels give for the same tokens, one sequence at a time; and the
     * state a batched step leaves for model_logits_subset, against that whole-sequence
     * prefill's (rows of small groups: against the single steps'), bit for bit. */
    for (int i = 0; i < nseq && ok; i++) {
        int32_t ids[3] = {0, (int32_t)(i % V), V - 1};
        float sb[3], ref[3];
        ok = model_logits_subset(b[i], ids, 3, sb, &d) == PG_OK;
        CHECK(ok, "%s: subset after a batched step: %s", label, test_diag_log());
        if (group_rows(i, nseq) < 4) {
            ok = ok && model_logits_subset(s[i], ids, 3, ref, &d) == PG_OK;
        } else {
            model_ctx *c = NULL;
            ok = ok && model_ctx_new(m, np[i] + steps, &c, &d) == PG_OK &&
                 model_forward(c, seqtoks[i], np[i] + steps, NULL, all, &d) == PG_OK && model_logits_subset(c, ids, 3, ref, &d) == PG_OK;
            CHECK(ok, "%s: whole-sequence prefill %d: %s", label, i, test_diag_log());
            for (int k = 0; k < steps && ok; k++)   /* step k's logits: the row after token np + k */
                wp = fmax(wp, test_rel_err(blog + ((size_t)k * nseq + i) * V, all + (size_t)(np[i] + k) * V, V));
            model_ctx_free(c);
        }
        CHECK(ok && !memcmp(sb, ref, sizeof sb), "%s: row %d: model_logits_subset after the batched step %g %g %g, reference %g %g %g",
              label, i, sb[0], sb[1], sb[2], ref[0], ref[1], ref[2]);
    }
    for (int i = 0; i < nseq; i++) {
        model_ctx_free(b[i]);
        model_ctx_free(s[i]);
    }
    free(blog);
    free(slog);
    free(all);
    if (ok) {
        *single = ws;
        *prefill = wp;
    }
}

/* Load, then batches of 1, 3 (decode kernels), 6 and MAXSEQ (prefill kernels, then a
 * group of 2).  tol_single: the bound batched vs single steps, or < 0 for the lossy
 * decode paths (q8 without AMX int8, GGUF fast), whose single steps round activations
 * to int8 where the batch's prefill kernels do not: their difference is printed, and
 * the batch is held to the whole-sequence prefill (1e-4) instead. */
static void run_model(const char *path, const model_load_opts *o, double tol_single, const char *label) {
    model_model *m = NULL;
    pg_diag_sink d = test_sink();
    if (model_load(path, o, &m, &d) != PG_OK) { CHECK(0, "%s: load %s: %s", label, path, test_diag_log()); return; }
    static const int sizes[] = {1, 3, 6, MAXSEQ};
    printf("%-26s vs single steps / vs whole-sequence prefill:", label);
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        char lab[128];
        snprintf(lab, sizeof lab, "%s nseq=%d", label, sizes[i]);
        double es, ep;
        batch_vs_single(m, sizes[i], sizes[i] == MAXSEQ ? 2 : 5, lab, &es, &ep);
        if (tol_single >= 0) CHECK(es <= tol_single, "%s: batched vs single steps %.3g > %.3g", lab, es, tol_single);
        CHECK(ep <= 1e-4, "%s: batched vs whole-sequence prefill %.3g > 1e-4", lab, ep);
        printf("  %d: %.1e / %.1e", sizes[i], es, ep);
    }
    if (tol_single >= 0) printf("  (bound %.0e / 1e-4)\n", tol_single);
    else printf("  (single steps round activations to int8; bound - / 1e-4)\n");
    model_free(m);
}

/* Refused calls: a status, a diagnostic, and no context changed. */
static void test_errors(void) {
    model_model *m = NULL, *m2 = NULL;
    pg_diag_sink d = test_sink();
    model_load_opts o = {NULL, 2, NULL, false, false, NULL, false};
    if (model_load("tests/model/tied", &o, &m, &d) != PG_OK || model_load("tests/model/tied", &o, &m2, &d) != PG_OK) {
        CHECK(0, "errors: load: %s", test_diag_log());
        model_free(m);
        return;
    }
    const int V = model_get_config(m)->vocab_size;
    model_ctx *a = NULL, *b = NULL, *full = NULL, *other = NULL;
    CHECK(model_ctx_new(m, 8, &a, &d) == PG_OK && model_ctx_new(m, 8, &b, &d) == PG_OK && model_ctx_new(m, 2, &full, &d) == PG_OK &&
              model_ctx_new(m2, 8, &other, &d) == PG_OK,
          "errors: contexts: %s", test_diag_log());
    if (!a || !b || !full || !other) goto out;
    int32_t two[2] = {3, 4};
    CHECK(model_forward(full, two, 2, NULL, NULL, &d) == PG_OK, "errors: fill the small context");
    float *lg = malloc((size_t)3 * V * sizeof *lg);
    int32_t toks[3] = {1, 2, 3};

    d = test_sink();
    CHECK(model_forward_batch((model_ctx *[]){a, b}, 0, toks, lg, &d) == PG_ERR_USAGE && strstr(test_diag_log(), "E802") &&
              strstr(test_diag_log(), "at least one sequence"),
          "nseq 0: %s", test_diag_log());
    d = test_sink();
    CHECK(model_forward_batch((model_ctx *[]){a, other, b}, 3, toks, lg, &d) == PG_ERR_USAGE && strstr(test_diag_log(), "another model"),
          "contexts of two models: %s", test_diag_log());
    d = test_sink();
    CHECK(model_forward_batch((model_ctx *[]){a, b, a}, 3, toks, lg, &d) == PG_ERR_USAGE && strstr(test_diag_log(), "share one context"),
          "a context twice: %s", test_diag_log());
    d = test_sink();
    CHECK(model_forward_batch((model_ctx *[]){a, b, full}, 3, toks, lg, &d) == PG_ERR_LIMIT && strstr(test_diag_log(), "sequence 2 is full"),
          "full cache: %s", test_diag_log());
    int32_t bad[3] = {1, V, 3};
    d = test_sink();
    CHECK(model_forward_batch((model_ctx *[]){a, b}, 2, bad, lg, &d) == PG_ERR_USAGE && strstr(test_diag_log(), "outside the vocabulary"),
          "token outside the vocabulary: %s", test_diag_log());
    CHECK(model_ctx_pos(a) == 0 && model_ctx_pos(b) == 0 && model_ctx_pos(full) == 2 && model_ctx_pos(other) == 0,
          "refused calls change no context");
    /* logits may be NULL: the step still runs (model_logits_subset reads it) */
    d = test_sink();
    float one;
    int32_t id = 5;
    CHECK(model_forward_batch((model_ctx *[]){a, b}, 2, toks, NULL, &d) == PG_OK && model_ctx_pos(a) == 1 &&
              model_logits_subset(b, &id, 1, &one, &d) == PG_OK,
          "NULL logits: %s", test_diag_log());
    free(lg);
out:
    model_ctx_free(a);
    model_ctx_free(b);
    model_ctx_free(full);
    model_ctx_free(other);
    model_free(m);
    model_free(m2);
}

int main(void) {
    printf("kernels: %s (AMX bf16 %s, AMX int8 %s)\n", model_kernels_isa(), model_kernels_amx() ? "yes" : "no",
           model_kernels_amx_q8() ? "yes" : "no");
    const char *GE = "tests/model/gguf_engine";
    char qwen[256], qlora[256];
    snprintf(qwen, sizeof qwen, "%s/tiny_qwen2.gguf", GE);
    snprintf(qlora, sizeof qlora, "%s/tiny_qwen2_lora", GE);
    model_load_opts f32 = {NULL, 2, "f32", false, false, NULL, false}, bf16 = {NULL, 2, "bf16", false, false, NULL, false}, q8 = {NULL, 2, "q8", false, false, NULL, false};
    model_load_opts f32lora = {"tests/model/lora", 1, "f32", false, false, NULL, false};
    model_load_opts gexact = {NULL, 2, NULL, false, true, NULL, false}, gfast = {NULL, 2, NULL, false, false, NULL, false};
    model_load_opts glora = {qlora, 2, NULL, false, false, NULL, false}, glora_exact = {qlora, 1, NULL, false, true, NULL, false};
    run_model("tests/model/tied", &f32, 1e-4, "tied f32 2T");
    run_model("tests/model/tied", &f32lora, 1e-4, "tied+lora f32 1T");
    run_model("tests/model/untied_sharded", &f32, 1e-4, "untied sharded f32 2T");
    run_model("tests/model/tied", &bf16, 2e-2, "tied bf16 2T");
    run_model("tests/model/tied", &q8, model_kernels_amx_q8() ? 1e-4 : -1, "tied q8 2T");
    run_model(qwen, &gexact, 1e-4, "tiny_qwen2 gguf exact 2T");
    run_model(qwen, &gfast, -1, "tiny_qwen2 gguf fast 2T");
    run_model(qwen, &glora_exact, 1e-4, "tiny_qwen2 lora exact 1T");
    run_model(qwen, &glora, -1, "tiny_qwen2 lora fast 2T");
    run_model("tests/model/gguf_engine/tiny_llama.gguf", &gexact, 1e-4, "tiny_llama gguf exact 2T");
    if (model_kernels_force("scalar")) {
        run_model("tests/model/tied", &f32, 1e-4, "scalar kernels: tied f32 2T");
        run_model("tests/model/tied", &q8, -1, "scalar kernels: tied q8 2T");
    }
    test_errors();
    return TEST_DONE();
}
