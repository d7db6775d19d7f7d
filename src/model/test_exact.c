/* test_exact.c — model_forward_exact (speculative decoding's verify step) and
 * model_logits_rows against one-token model_forward steps.  Run from the repository root.
 *
 * The claim (model.h): row i of an exact step of n tokens has, bit for bit, the logits of
 * model_forward(c, &toks[i], 1) after toks[0..i) -- whatever n, in every weight format,
 * with a LoRA side path, on 1 and 2 threads -- and model_logits_rows with ids gives the same
 * values for those ids.  After a rewind to keep the first k rows, the next steps equal the
 * steps of a context that only ever saw those k tokens.  Every comparison is memcmp. */
#include "common/test.h"
#include "model/model_internal.h"
#include "ptxgen/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int32_t tok_at(int p, int vocab) { return (int32_t)(((unsigned)p * 131u + 7u) % (unsigned)vocab); }

#define NP 6        /* prompt tokens */
#define NMAX 19     /* tokens in the longest exact step */

static void run_model(const char *path, const model_load_opts *o, const char *label) {
    model_model *m = NULL;
    pg_diag_sink d = test_sink();
    if (model_load(path, o, &m, &d) != PG_OK) { CHECK(0, "%s: load %s: %s", label, path, test_diag_log()); return; }
    const int V = model_get_config(m)->vocab_size;
    int32_t toks[NP + NMAX + 4];
    for (int i = 0; i < NP + NMAX + 4; i++) toks[i] = tok_at(i, V);
    /* the reference: one token at a time, every row's full logits */
    model_ctx *s = NULL, *x = NULL;
    float *ref = malloc((size_t)(NMAX + 4) * V * sizeof *ref), *got = malloc((size_t)NMAX * V * sizeof *got);
    bool ok = ref && got && model_ctx_new(m, NP + NMAX + 8, &s, &d) == PG_OK && model_ctx_new(m, NP + NMAX + 8, &x, &d) == PG_OK &&
              model_forward(s, toks, NP, NULL, NULL, &d) == PG_OK;
    for (int i = 0; ok && i < NMAX + 4; i++) ok = model_forward(s, &toks[NP + i], 1, ref + (size_t)i * V, NULL, &d) == PG_OK;
    CHECK(ok, "%s: reference steps: %s", label, test_diag_log());
    static const int ns[] = {1, 2, 3, 4, 5, 9, NMAX};
    for (size_t k = 0; ok && k < sizeof ns / sizeof *ns; k++) {
        int n = ns[k];
        model_ctx_rewind(x, 0);
        ok = model_forward(x, toks, NP, NULL, NULL, &d) == PG_OK && model_forward_exact(x, toks + NP, n, &d) == PG_OK;
        CHECK(ok && model_ctx_pos(x) == NP + n, "%s n=%d: exact step: %s", label, n, test_diag_log());
        /* all rows at once (one head matmul), then two rows by id */
        int rows[NMAX];
        for (int r = 0; r < n; r++) rows[r] = n - 1 - r;   /* any order */
        ok = ok && model_logits_rows(x, rows, n, NULL, 0, got, &d) == PG_OK;
        bool same = ok;
        for (int r = 0; same && r < n; r++) same = !memcmp(got + (size_t)r * V, ref + (size_t)rows[r] * V, (size_t)V * 4);
        CHECK(same, "%s n=%d: every row's logits equal the one-token steps' bit for bit", label, n);
        int32_t ids[4] = {0, V - 1, V / 2, 3};
        float sub[2][4];
        int two[2] = {0, n - 1};
        ok = ok && model_logits_rows(x, two, 2, ids, 4, &sub[0][0], &d) == PG_OK;
        same = ok;
        for (int r = 0; same && r < 2; r++)
            for (int i = 0; i < 4; i++) same = same && sub[r][i] == ref[(size_t)two[r] * V + ids[i]];
        CHECK(same, "%s n=%d: logits by id equal the steps' too", label, n);
        /* keep the first half, step on one token at a time: the reference's steps */
        int keep = (n + 1) / 2;
        model_ctx_rewind(x, NP + keep);
        if (keep < n) CHECK(model_logits_rows(x, two, 1, NULL, 0, got, &d) == PG_ERR_USAGE, "%s n=%d: no rows after a rewind", label, n);
        for (int i = keep; ok && i < keep + 3; i++) {
            ok = model_forward(x, &toks[NP + i], 1, got, NULL, &d) == PG_OK;
            CHECK(ok && !memcmp(got, ref + (size_t)i * V, (size_t)V * 4), "%s n=%d: step %d after rewinding to %d rows", label, n, i, keep);
        }
    }
    /* refused calls */
    d = test_sink();
    CHECK(model_forward_exact(x, toks, 0, &d) == PG_ERR_USAGE && strstr(test_diag_log(), "1 to"), "%s: n 0 refused", label);
    int32_t bad = V;
    d = test_sink();
    CHECK(model_forward_exact(x, &bad, 1, &d) == PG_ERR_USAGE && strstr(test_diag_log(), "outside the vocabulary"), "%s: bad id", label);
    int row = 5;
    d = test_sink();
    CHECK(model_logits_rows(x, &row, 1, NULL, 0, got, &d) == PG_ERR_USAGE && strstr(test_diag_log(), "not a row"), "%s: bad row", label);
    model_ctx_free(s);
    model_ctx_free(x);
    free(ref);
    free(got);
    model_free(m);
}

int main(void) {
    printf("kernels: %s\n", model_kernels_isa());
    const char *GE = "tests/model/gguf_engine";
    char qwen[256], qlora[256], llama[256];
    snprintf(qwen, sizeof qwen, "%s/tiny_qwen2.gguf", GE);
    snprintf(qlora, sizeof qlora, "%s/tiny_qwen2_lora", GE);
    snprintf(llama, sizeof llama, "%s/tiny_llama.gguf", GE);
    model_load_opts f32 = {NULL, 2, "f32", false, false, NULL, false}, bf16 = {NULL, 1, "bf16", false, false, NULL, false}, q8 = {NULL, 2, "q8", false, false, NULL, false};
    model_load_opts f32lora = {"tests/model/lora", 2, "f32", false, false, NULL, false};
    model_load_opts gexact = {NULL, 2, NULL, false, true, NULL, false}, gfast = {NULL, 2, NULL, false, false, NULL, false}, gfast1 = {NULL, 1, NULL, false, false, NULL, false};
    model_load_opts glora = {qlora, 2, NULL, false, false, NULL, false};
    run_model("tests/model/tied", &f32, "tied f32 2T");
    run_model("tests/model/tied", &f32lora, "tied+lora f32 2T");
    run_model("tests/model/untied_sharded", &f32, "untied sharded f32 2T");
    run_model("tests/model/tied", &bf16, "tied bf16 1T");
    run_model("tests/model/tied", &q8, "tied q8 2T");
    run_model(qwen, &gexact, "tiny_qwen2 gguf exact 2T");
    run_model(qwen, &gfast, "tiny_qwen2 gguf fast 2T");
    run_model(qwen, &gfast1, "tiny_qwen2 gguf fast 1T");
    run_model(qwen, &glora, "tiny_qwen2 lora fast 2T");
    run_model(llama, &gfast, "tiny_llama gguf fast 2T");
    /* the Qwen base when it is there (bash models/fetch_base.sh): 7 query heads per KV head, so the
     * AVX-512 attention of several rows at once (model_kern_attn_rows), and Q4_K/Q6_K ffn_down */
    const char *qb = getenv("PTXGEN_QWEN_GGUF") && *getenv("PTXGEN_QWEN_GGUF") ? getenv("PTXGEN_QWEN_GGUF")
                                                                                 : "models/base/qwen2.5-coder-0.5b-instruct.gguf";
    FILE *qf = fopen(qb, "rb");
    if (qf) {
        fclose(qf);
        run_model(qb, &gfast, "qwen2.5-coder-0.5b gguf fast 2T");
    } else
        printf("qwen2.5-coder-0.5b: SKIPPED (%s absent)\n", qb);
    /* the 1.5B base when it is there (bash models/fetch_base.sh --qwen15): 6 query heads per KV
     * head, 28 layers, Q4_K/Q6_K everywhere */
    const char *qb15 = getenv("PTXGEN_QWEN15_GGUF") && *getenv("PTXGEN_QWEN15_GGUF") ? getenv("PTXGEN_QWEN15_GGUF")
                                                                                     : "models/base/qwen2.5-coder-1.5b-instruct.gguf";
    FILE *qf15 = fopen(qb15, "rb");
    if (qf15) {
        fclose(qf15);
        run_model(qb15, &gfast, "qwen2.5-coder-1.5b gguf fast 2T");
    } else
        printf("qwen2.5-coder-1.5b: SKIPPED (%s absent)\n", qb15);
    return TEST_DONE();
}
