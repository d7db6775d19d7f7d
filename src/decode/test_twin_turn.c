/* test_twin_turn.c — the twin turn (gen --twin): its prompt in both formats
 * (the first turn, the PTX as its answer, the request for the twin) and
 * gen_twin_sample with the tiny random model (runs, stops at its budget,
 * deterministic for a seed, refuses a prompt beyond the context).  Run from the
 * repository root. */
#include "common/test.h"
#include "ptxgen/decode.h"

#include <stdlib.h>
#include <string.h>

static const char *ptx = ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 x\n)\n{\n\tret;\n}\n";

int main(void) {
    /* the prompt: the PTX pair's prompt, the PTX, the end token, the request */
    for (int f = 0; f < 2; f++) {
        gen_prompt_fmt fmt = f ? GEN_FMT_CHATML : GEN_FMT_PTXGEN;
        pg_buf first = {0}, twin = {0};
        gen_prompt_build_fmt(fmt, "zero x", "sm_80", "", &first);
        gen_prompt_build_twin_fmt(fmt, "zero x", "sm_80", "", ptx, &twin);
        CHECK(twin.data && !strncmp(twin.data, first.data, first.len), "%s: starts with the first turn's prompt", gen_prompt_fmt_name(fmt));
        const char *p = twin.data + first.len;
        CHECK(!strncmp(p, ptx, strlen(ptx) - 1), "%s: then the PTX", gen_prompt_fmt_name(fmt));
        p += strlen(ptx);
        CHECK(!strncmp(p, gen_end_token(fmt), strlen(gen_end_token(fmt))), "%s: then the end token: %s", gen_prompt_fmt_name(fmt), p);
        CHECK(strstr(p, GEN_TWIN_REQUEST) != NULL, "%s: then the request", gen_prompt_fmt_name(fmt));
        const char *tail = f ? GEN_TOK_IM_START "assistant\n" : GEN_TWIN_REQUEST "\n";
        CHECK(twin.len >= strlen(tail) && !strcmp(twin.data + twin.len - strlen(tail), tail), "%s: ends with '%s'",
              gen_prompt_fmt_name(fmt), tail);
        pg_buf_free(&first);
        pg_buf_free(&twin);
    }

    pg_diag_sink q = {0};
    tok_tokenizer *t = NULL;
    model_model *m = NULL;
    model_load_opts lo = {NULL, 1, NULL, false, false, NULL, false};
    CHECK(tok_load("tests/gen/tiny/tokenizer.json", &t, &q) == PG_OK, "tokenizer loads");
    CHECK(model_load("tests/gen/tiny", &lo, &m, &q) == PG_OK, "tiny random model loads");
    if (!t || !m) return TEST_DONE();
    gen_opts o;
    gen_opts_default(&o);
    o.format = gen_prompt_fmt_of(t);
    o.max_tokens = 40;
    o.sampler.seed = 7;
    gen_result a, b;
    CHECK(gen_twin_sample(m, t, "zero x", ptx, &o, &a, &q) == PG_OK && a.ptx, "the twin turn runs");
    CHECK(gen_twin_sample(m, t, "zero x", ptx, &o, &b, &q) == PG_OK && b.ptx, "again");
    CHECK(a.gen_tokens <= 40 && a.prompt_tokens > 0, "within its budget (%d tokens)", a.gen_tokens);
    CHECK(a.ptx && b.ptx && !strcmp(a.ptx, b.ptx), "deterministic for a seed");
    CHECK(a.ptx && strlen(a.ptx) == strcspn(a.ptx, ""), "no NUL inside");
    gen_result_free(&b);
    /* gen's provenance line is not part of the prompt (the twin pairs have none) */
    pg_buf marked = {0};
    pg_buf_printf(&marked, "// GENERATED_BY: ptxgen test\n%s", ptx);
    CHECK(gen_twin_sample(m, t, "zero x", marked.data, &o, &b, &q) == PG_OK && b.ptx && a.ptx && !strcmp(a.ptx, b.ptx) &&
              a.prompt_tokens == b.prompt_tokens,
          "the GENERATED_BY line changed the twin prompt (%d vs %d tokens)", a.prompt_tokens, b.prompt_tokens);
    pg_buf_free(&marked);
    gen_result_free(&a);
    gen_result_free(&b);
    /* a prompt beyond the context is an error that says so */
    size_t big = 1 << 20;
    char *huge = malloc(big + 1);
    for (size_t i = 0; i < big; i++) huge[i] = "abcdefgh \n"[i % 10];
    huge[big] = 0;
    pg_diag last = {0};
    pg_diag_sink s = {NULL, &last, 0, 0, 0};
    CHECK(gen_twin_sample(m, t, "zero x", huge, &o, &a, &s) == PG_ERR_LIMIT && s.nerrors == 1, "a prompt beyond the context");
    gen_result_free(&a);
    free(huge);
    model_free(m);
    tok_free(t);
    return TEST_DONE();
}
