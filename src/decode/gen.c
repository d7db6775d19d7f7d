/* gen.c — one sample: prompt -> model -> constrained decoding -> PTX text.
 *
 * Sample-then-verify: the sampler draws from the model's top-k; the
 * constraint checks that one token (dec_accepts, a few byte steps) and only
 * when it is rejected computes the full mask and redraws from the allowed
 * tokens.  Text the constraint forces (header, signature, the only legal
 * continuation) is tokenized and fed to the model as a batch, never sampled. */
#include "ptxgen/decode.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void gen_opts_default(gen_opts *o) {
    memset(o, 0, sizeof *o);
    o->arch = "sm_80";
    o->constrained = true;
    o->sampler.temperature = 0.3f;   /* the article's settings */
    o->sampler.top_k = 5;
    o->sampler.top_p = 1.0f;
    o->sampler.seed = 1;
    o->max_tokens = 2048;
}

void gen_result_free(gen_result *r) {
    free(r->ptx);
    memset(r, 0, sizeof *r);
}

/* Feed text to the model (as tokens) and, when constrained, to the recognizer. */
static pg_status feed_text(model_ctx *ctx, const tok_tokenizer *t, dec_state *dec, const char *s, size_t n,
                           float *logits, pg_buf *text, int *count, pg_diag_sink *diag) {
    int32_t *ids = NULL;
    size_t nid = 0;
    pg_status st = tok_encode(t, s, n, &ids, &nid);
    if (st != PG_OK) { pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "cannot tokenize forced text"); return st; }
    if (nid) st = model_forward(ctx, ids, (int)nid, logits, NULL, diag);
    free(ids);
    if (st != PG_OK) return st;
    if (dec) {
        st = dec_advance_text(dec, s, n, diag);
        if (st != PG_OK) return st;
    }
    pg_buf_putn(text, s, n);
    *count += (int)nid;
    return PG_OK;
}

pg_status gen_sample(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const char *description,
                     const gen_opts *o, gen_result *out, pg_diag_sink *diag) {
    memset(out, 0, sizeof *out);
    double t0 = now_s();
    const model_config *cfg = model_get_config(m);
    int vocab = cfg->vocab_size;
    if (o->constrained && dec_vocab_size(v) > vocab) {
        pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "tokenizer has %d tokens but the model only %d", dec_vocab_size(v), vocab);
        return PG_ERR_INVALID;
    }
    const char *end_tok = gen_end_token(o->format);
    int32_t end_id = tok_special_id(t, end_tok);
    int32_t eot_id = tok_special_id(t, GEN_TOK_EOT);
    if (end_id < 0) { pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "tokenizer lacks the %s token", end_tok); return PG_ERR_INVALID; }

    pg_buf prompt = {0}, text = {0}, forced = {0};
    if (o->baseline_ptx) gen_prompt_build_superopt_fmt(o->format, o->baseline_ptx, o->arch, o->signature, &prompt);
    else gen_prompt_build_fmt(o->format, description, o->arch, o->signature, &prompt);
    int32_t *ids = NULL;
    size_t nid = 0;
    float *logits = malloc(sizeof(float) * (size_t)vocab);       /* [vocab] */
    float *masked = malloc(sizeof(float) * (size_t)vocab);       /* [vocab] */
    uint32_t *bits = malloc(sizeof(uint32_t) * (size_t)((vocab + 31) / 32));
    model_ctx *ctx = NULL;
    dec_state *dec = NULL;
    pg_status st = tok_encode(t, prompt.data, prompt.len, &ids, &nid);
    if (st != PG_OK) goto done;
    out->prompt_tokens = (int)nid;
    int max_seq = (int)nid + o->max_tokens + 256;
    if (max_seq > cfg->max_position_embeddings) max_seq = cfg->max_position_embeddings;
    if ((int)nid >= max_seq) {
        pg_diag_emit(diag, PG_E_PROMPT, NULL, 0, 0, "prompt is %zu tokens; the model's context is %d", nid, max_seq);
        st = PG_ERR_LIMIT;
        goto done;
    }
    if ((st = model_ctx_new(m, max_seq, &ctx, diag)) != PG_OK) goto done;
    if ((st = model_forward(ctx, ids, (int)nid, logits, NULL, diag)) != PG_OK) goto done;

    if (o->constrained) {
        dec_opts dopt = {o->arch, o->signature, 0, 0, {o->block[0], o->block[1], o->block[2]}, o->entry_name};
        if ((st = dec_new(v, &dopt, &dec, diag)) != PG_OK) goto done;
    } else {
        /* the header and the given signature are forced in both modes: the raw
         * model is measured on the body, and the ABI always matches the caller */
        gen_header_text(o->arch, &forced);
        if (o->signature && *o->signature) pg_buf_printf(&forced, "%s\n", o->signature);
        else if (o->entry_name && *o->entry_name) pg_buf_printf(&forced, ".visible .entry %s(\n", o->entry_name);
        if ((st = feed_text(ctx, t, NULL, forced.data, forced.len, logits, &text, &out->forced_tokens, diag)) != PG_OK)
            goto done;
    }
    model_sampler smp;
    model_sampler_init(&smp, &o->sampler);
    bool ending_forced = false;
    while (out->gen_tokens + out->forced_tokens < o->max_tokens && model_ctx_pos(ctx) < max_seq - 1) {
        if (dec) {
            forced.len = 0;
            if (forced.data) forced.data[0] = 0;
            /* Only the opening text (header, given signature) is fed as forced
             * tokens.  Later single continuations (" " after .maxntid, "\n"
             * after ';') are left to the sampler under the mask: tokenized on
             * their own they split differently from the training text (" 256"
             * would become " " + "256") and throw the model off.  Once the
             * token budget forces the end, forced text is fed again: the
             * shortest end then costs no sampling at all. */
            if ((out->gen_tokens == 0 || ending_forced) && dec_forced_text(dec, &forced) > 0) {
                if ((st = feed_text(ctx, t, dec, forced.data, forced.len, logits, &text, &out->forced_tokens, diag)) != PG_OK)
                    goto done;
                continue;
            }
            if (dec_done(dec)) { out->finished = true; break; }
        }
        /* keep enough tokens to finish the statement and close the kernel */
        if (dec && !ending_forced && o->max_tokens - (out->gen_tokens + out->forced_tokens) < 128) {
            dec_force_end(dec);
            ending_forced = true;
        }
        const float *lg = logits;
        if (dec && o->bias) {
            memcpy(masked, logits, sizeof(float) * (size_t)vocab);
            dec_bias_apply(o->bias, dec, masked);
            lg = masked;
        }
        int32_t tok = model_sample(&smp, lg, vocab);
        if (dec) {
            double m0 = now_s();
            bool ok = tok >= 0 && tok < dec_vocab_size(v) && dec_accepts(dec, tok);
            if (!ok) {
                int allowed = dec_mask(dec, bits);
                out->mask_calls++;
                if (allowed == 0) {
                    pg_diag_emit(diag, PG_E_DEAD_STATE, NULL, 0, 0,
                                 "the constraint allows no token after %zu bytes of output (a constraint bug; text so far ends with '%.40s')",
                                 text.len, text.len > 40 ? text.data + text.len - 40 : text.data ? text.data : "");
                    st = PG_ERR_INVALID;
                    goto done;
                }
                if (lg != masked) memcpy(masked, logits, sizeof(float) * (size_t)vocab);
                int nv = dec_vocab_size(v);
                for (int i = 0; i < vocab; i++)
                    if (i >= nv || !(bits[i >> 5] >> (i & 31) & 1)) masked[i] = -INFINITY;
                tok = model_sample(&smp, masked, vocab);
                if (tok < 0) {
                    /* every allowed token has -inf logit: take the first allowed one */
                    for (int i = 0; i < nv && i < vocab && tok < 0; i++)
                        if (bits[i >> 5] >> (i & 31) & 1) tok = i;
                }
            }
            out->mask_seconds += now_s() - m0;
            if (tok == end_id) { out->finished = true; break; }
            if ((st = dec_advance(dec, tok, diag)) != PG_OK) goto done;
        } else if (tok == end_id || tok == eot_id || tok < 0) {
            out->finished = tok >= 0;
            break;
        }
        size_t bl = 0;
        const char *b = tok_token_bytes(t, tok, &bl);
        if (!dec && memchr(b, 0, bl)) {   /* the raw model: a NUL byte cannot be in PTX text; say so, never truncate */
            pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "the model emitted a NUL byte (token %d) after %zu bytes; stopped", (int)tok, text.len);
            break;
        }
        if (!dec || !tok_is_special(t, tok)) pg_buf_putn(&text, b, bl);
        out->gen_tokens++;
        if ((st = model_forward(ctx, &tok, 1, logits, NULL, diag)) != PG_OK) goto done;
    }
    if (!out->finished && dec && !dec_done(dec))
        pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "stopped at the token limit (%d) before the kernel was complete", o->max_tokens);
    {
        pg_buf res = {0};
        pg_buf_printf(&res, "// GENERATED_BY: ptxgen %s\n", cfg->model_id);
        if (dec) {
            size_t n = 0;
            const char *s = dec_text(dec, &n);
            pg_buf_putn(&res, s, n);
        } else if (text.data) {
            pg_buf_puts(&res, text.data);
        }
        /* declared register counts as the body uses them: a model trained on widened
         * declarations (prompts --widen-regs) writes %f<512>; nothing else changes */
        pg_buf tight = {0};
        if (res.data && ptx_regs_tighten_text(res.data, res.len, &tight)) {
            pg_buf_free(&res);
            res = tight;
        } else {
            pg_buf_free(&tight);
        }
        out->ptx = res.data;
    }
    st = PG_OK;
done:
    out->seconds = now_s() - t0;
    free(ids); free(logits); free(masked); free(bits);
    pg_buf_free(&prompt); pg_buf_free(&text); pg_buf_free(&forced);
    model_ctx_free(ctx);
    dec_free(dec);
    return st;
}

pg_status gen_twin_sample(model_model *m, const tok_tokenizer *t, const char *description, const char *ptx,
                          const gen_opts *o, gen_result *out, pg_diag_sink *diag) {
    memset(out, 0, sizeof *out);
    double t0 = now_s();
    const model_config *cfg = model_get_config(m);
    int vocab = cfg->vocab_size;
    const char *end_tok = gen_end_token(o->format);
    int32_t end_id = tok_special_id(t, end_tok);
    int32_t eot_id = tok_special_id(t, GEN_TOK_EOT);
    if (end_id < 0) { pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "tokenizer lacks the %s token", end_tok); return PG_ERR_INVALID; }
    pg_buf prompt = {0}, text = {0};
    /* the PTX as the twin pairs show it (`prompts --twin`): without gen's provenance line */
    const char *body = ptx ? ptx : "";
    if (!strncmp(body, "// GENERATED_BY:", 16)) {
        const char *nl = strchr(body, '\n');
        body = nl ? nl + 1 : "";
    }
    gen_prompt_build_twin_fmt(o->format, description ? description : "", o->arch, o->signature, body, &prompt);
    int32_t *ids = NULL;
    size_t nid = 0;
    float *logits = malloc(sizeof(float) * (size_t)vocab);
    model_ctx *ctx = NULL;
    pg_status st = tok_encode(t, prompt.data, prompt.len, &ids, &nid);
    if (st != PG_OK) goto done;
    out->prompt_tokens = (int)nid;
    int max_seq = (int)nid + o->max_tokens + 8;
    if (max_seq > cfg->max_position_embeddings) max_seq = cfg->max_position_embeddings;
    if ((int)nid >= max_seq - 1) {
        pg_diag_emit(diag, PG_E_PROMPT, NULL, 0, 0, "the twin prompt (description and PTX) is %zu tokens; the model's context is %d",
                     nid, cfg->max_position_embeddings);
        st = PG_ERR_LIMIT;
        goto done;
    }
    if ((st = model_ctx_new(m, max_seq, &ctx, diag)) != PG_OK) goto done;
    if ((st = model_forward(ctx, ids, (int)nid, logits, NULL, diag)) != PG_OK) goto done;
    model_sampler smp;
    model_sampler_init(&smp, &o->sampler);
    while (out->gen_tokens < o->max_tokens && model_ctx_pos(ctx) < max_seq - 1) {
        int32_t tok = model_sample(&smp, logits, vocab);
        if (tok == end_id || tok == eot_id || tok < 0) { out->finished = tok >= 0; break; }
        size_t bl = 0;
        const char *b = tok_token_bytes(t, tok, &bl);
        if (memchr(b, 0, bl)) {
            pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "the model emitted a NUL byte (token %d) in the twin; stopped", (int)tok);
            break;
        }
        if (!tok_is_special(t, tok)) pg_buf_putn(&text, b, bl);
        out->gen_tokens++;
        if ((st = model_forward(ctx, &tok, 1, logits, NULL, diag)) != PG_OK) goto done;
    }
    out->ptx = text.data ? text.data : strdup("");
    text.data = NULL;
    st = PG_OK;
done:
    out->seconds = now_s() - t0;
    free(ids);
    free(logits);
    pg_buf_free(&prompt);
    pg_buf_free(&text);
    model_ctx_free(ctx);
    return st;
}
