/* test_gen_batch.c — best-of-k drawn together (gen_sample_k) against the sequential
 * attempt loop (gen_sample with seeds seed, seed + 1, ...): the same candidates, in
 * order.  The model is tests/gen/tiny (random weights, the project tokenizer) at
 * temperature 1 without top-k, so every token is a real draw and a wrong seed, a
 * crossed logit row or a skipped step shows up as a different module.  Covered:
 * constrained with the bias, constrained with a forced signature, the raw model
 * (--no-constraint), k = 1, k below the engine's decode/prefill switch (3), and
 * k past GEN_BATCH_MAX (two groups), candidates ending at different steps (some at
 * the token limit); and errors (k = 0, a prompt over the context) with zeroed results.
 * Run from the repository root. */
#include "common/test.h"
#include "ptxgen/decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static model_model *m;
static tok_tokenizer *t;
static dec_vocab *v;

/* gen_sample_k(k) against k gen_sample calls with the sequential loop's seeds. */
static void same_as_sequential(const char *desc, const gen_opts *o, int k, const char *label) {
    gen_result *batch = calloc((size_t)k, sizeof *batch);
    pg_diag_sink d = test_sink();
    pg_status st = gen_sample_k(m, t, v, desc, o, k, batch, &d);
    CHECK(st == PG_OK, "%s: gen_sample_k: %s", label, test_diag_log());
    int differ = 0, finished = 0, tokens_min = 1 << 30, tokens_max = 0;
    for (int i = 0; i < k && st == PG_OK; i++) {
        gen_opts oi = *o;
        oi.sampler.seed = o->sampler.seed + (uint64_t)i;   /* what pipe_select's attempt i + 1 uses */
        gen_result r;
        d = test_sink();
        CHECK(gen_sample(m, t, v, desc, &oi, &r, &d) == PG_OK, "%s: gen_sample %d: %s", label, i, test_diag_log());
        bool same = r.ptx && batch[i].ptx && !strcmp(r.ptx, batch[i].ptx) && r.gen_tokens == batch[i].gen_tokens &&
                    r.forced_tokens == batch[i].forced_tokens && r.finished == batch[i].finished &&
                    r.prompt_tokens == batch[i].prompt_tokens && r.mask_calls == batch[i].mask_calls;
        CHECK(same, "%s: candidate %d (seed %llu) differs: %d vs %d tokens, finished %d vs %d\n--- sequential\n%.400s\n--- batched\n%.400s",
              label, i, (unsigned long long)oi.sampler.seed, r.gen_tokens, batch[i].gen_tokens, r.finished, batch[i].finished,
              r.ptx ? r.ptx : "(none)", batch[i].ptx ? batch[i].ptx : "(none)");
        differ += i > 0 && batch[i].ptx && batch[0].ptx && strcmp(batch[i].ptx, batch[0].ptx) != 0;
        finished += batch[i].finished;
        if (batch[i].gen_tokens < tokens_min) tokens_min = batch[i].gen_tokens;
        if (batch[i].gen_tokens > tokens_max) tokens_max = batch[i].gen_tokens;
        gen_result_free(&r);
    }
    /* distinct seeds give distinct candidates (else the comparison above proves little) */
    if (k > 1) CHECK(differ == k - 1, "%s: only %d of %d candidates differ from the first", label, differ, k - 1);
    printf("%-34s k=%-2d  %d finished, %d..%d sampled tokens per candidate\n", label, k, finished, tokens_min, tokens_max);
    for (int i = 0; i < k; i++) gen_result_free(&batch[i]);
    free(batch);
}

/* The same draws from each row's top 64 candidates (the GPU engine's path, forced here on the
 * CPU engine with $PTXGEN_GEN_TOPK=1) as from whole rows ($PTXGEN_GEN_TOPK=0): gen_sample_k,
 * gen_sample (plain and speculative) and gen_free_sample (k = 0) give the same text, and the
 * candidates decided draws. */
static void top_same_as_rows(const char *desc, const gen_opts *o, int k, const char *label) {
    gen_result rows[8], top[8];
    int decided = 0, full = 0, ignored = 0;
    bool free_turn = k == 0;   /* gen_free_sample: desc is the whole prompt */
    if (free_turn) k = 1;
    for (int way = 0; way < 2; way++) {
        setenv("PTXGEN_GEN_TOPK", way ? "1" : "0", 1);
        gen_result *r = way ? top : rows;
        pg_diag_sink d = test_sink();
        pg_status st = free_turn ? gen_free_sample(m, t, desc, o, r, &d) : k > 1 ? gen_sample_k(m, t, v, desc, o, k, r, &d)
                                                                                  : gen_sample(m, t, v, desc, o, r, &d);
        CHECK(st == PG_OK, "%s (%s): %s", label, way ? "top" : "rows", test_diag_log());
        if (st != PG_OK) { unsetenv("PTXGEN_GEN_TOPK"); return; }
    }
    unsetenv("PTXGEN_GEN_TOPK");
    for (int i = 0; i < k; i++) {
        bool same = rows[i].ptx && top[i].ptx && !strcmp(rows[i].ptx, top[i].ptx) && rows[i].gen_tokens == top[i].gen_tokens &&
                    rows[i].mask_calls == top[i].mask_calls && rows[i].accepted == top[i].accepted;
        CHECK(same, "%s: candidate %d differs\n--- whole rows\n%.300s\n--- top candidates\n%.300s", label, i,
              rows[i].ptx ? rows[i].ptx : "(none)", top[i].ptx ? top[i].ptx : "(none)");
        decided += top[i].top_decided;
        full += top[i].top_full;
        ignored += rows[i].top_decided + rows[i].top_full;
        gen_result_free(&rows[i]);
        gen_result_free(&top[i]);
    }
    CHECK(decided > 0 && ignored == 0, "%s: %d draws from the candidates (%d needed the row); %d with them off", label, decided, full, ignored);
    printf("%-34s k=%-2d  top candidates decided %d draws, the whole row %d\n", label, k, decided, full);
}

static void test_errors(void) {
    gen_opts o;
    gen_opts_default(&o);
    gen_result rs[2];
    memset(rs, 0xab, sizeof rs);
    pg_diag_sink d = test_sink();
    CHECK(gen_sample_k(m, t, v, "x", &o, 0, rs, &d) == PG_ERR_USAGE && strstr(test_diag_log(), "at least one candidate"), "k = 0: %s",
          test_diag_log());
    /* a prompt longer than the model's context: refused before anything is drawn */
    size_t n = 40000;
    char *big = malloc(n + 1);
    for (size_t i = 0; i < n; i++) big[i] = "abc def "[i % 8];
    big[n] = 0;
    d = test_sink();
    memset(rs, 0xab, sizeof rs);
    CHECK(gen_sample_k(m, t, v, big, &o, 2, rs, &d) == PG_ERR_LIMIT && strstr(test_diag_log(), "prompt is"), "long prompt: %s", test_diag_log());
    CHECK(rs[0].ptx == NULL && rs[1].ptx == NULL && rs[1].gen_tokens == 0, "results zeroed after an error");
    free(big);
}

int main(void) {
    pg_diag_sink d = test_sink();
    model_load_opts lo = {NULL, 2, NULL, false, false, NULL, false};
    CHECK(tok_load("tests/gen/tiny/tokenizer.json", &t, &d) == PG_OK, "tokenizer: %s", test_diag_log());
    CHECK(model_load("tests/gen/tiny", &lo, &m, &d) == PG_OK, "tiny model: %s", test_diag_log());
    CHECK(t && dec_vocab_new(t, &v, &d) == PG_OK, "vocabulary trie");
    dec_bias *bias = NULL;
    CHECK(v && dec_bias_default(v, &bias, &d) == PG_OK, "default bias: %s", test_diag_log());
    if (!t || !m || !v || !bias) return TEST_DONE();

    gen_opts o;
    gen_opts_default(&o);
    o.sampler.temperature = 1.0f;
    o.sampler.top_k = 0;
    o.sampler.seed = 4242;
    o.max_tokens = 160;   /* some candidates end at the limit (dec_force_end), some before */
    o.format = gen_prompt_fmt_of(t);
    o.bias = bias;
    same_as_sequential("vector add: c[i] = a[i] + b[i] for i < n", &o, 6, "constrained + bias");
    same_as_sequential("relu of a float array", &o, 1, "constrained, k = 1");
    same_as_sequential("scale by two", &o, 3, "constrained, k = 3 (decode kernels)");
    o.bias = NULL;
    o.signature = ".visible .entry vec_add(\n\t.param .u64 a,\n\t.param .u64 b,\n\t.param .u64 c,\n\t.param .u32 n\n)";
    o.sampler.seed = 7;
    o.max_tokens = 96;
    same_as_sequential("vector add", &o, 10, "signature, k = 10 (two groups)");
    o.signature = NULL;
    o.constrained = false;
    o.max_tokens = 64;
    same_as_sequential("sum reduction", &o, 5, "raw model (no constraint)");
    test_errors();

    gen_opts_default(&o);   /* the recipe's sampler (top-k 5 at 0.3), the bias, the constraint */
    o.format = gen_prompt_fmt_of(t);
    o.bias = bias;
    o.max_tokens = 120;
    o.sampler.seed = 31;
    top_same_as_rows("vector add: c[i] = a[i] + b[i] for i < n", &o, 6, "top 64: best-of-6, top-k 5");
    top_same_as_rows("relu of a float array", &o, 1, "top 64: one sample");
    o.draft_max = 4;
    top_same_as_rows("relu of a float array", &o, 1, "top 64: one sample, draft 4");
    o.draft_max = 0;
    o.sampler.temperature = 0;
    top_same_as_rows("scale by two", &o, 3, "top 64: greedy, k = 3");
    o.sampler.temperature = 1.0f;
    o.constrained = false;
    o.bias = NULL;
    top_same_as_rows("sum reduction", &o, 4, "top 64: raw model, T 1");
    o.sampler.top_k = 5;
    top_same_as_rows("<|task|>a plan for relu\n", &o, 0, "top 64: the free turn, top-k 5");
    dec_bias_free(bias);
    dec_vocab_free(v);
    tok_free(t);
    model_free(m);
    return TEST_DONE();
}
