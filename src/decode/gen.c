/* gen.c — one sample: prompt -> model -> constrained decoding -> PTX text; and
 * best-of-k, the k candidates stepped through the model together (gen_sample_k).
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

/* What every candidate of one prompt shares: the model, the options, the end tokens and
 * the encoded prompt. */
typedef struct {
    model_model *m;
    const tok_tokenizer *t;
    const dec_vocab *v;
    const gen_opts *o;
    const char *description;   /* the request: parameter names the model may keep (gen_params_plain) */
    int vocab;
    int32_t end_id, eot_id;    /* the format's end token; <|endoftext|> (-1 when absent) */
    int32_t *prompt;           /* [nprompt] token ids of the prompt (malloc'd) */
    int nprompt;
    int max_seq;               /* each candidate's context length */
} gen_env;

static void env_close(gen_env *e) {
    free(e->prompt);
    memset(e, 0, sizeof *e);
}

/* Check the model against the tokenizer and encode the prompt. */
static pg_status env_open(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const char *description,
                          const gen_opts *o, gen_env *e, pg_diag_sink *diag) {
    memset(e, 0, sizeof *e);
    const model_config *cfg = model_get_config(m);
    *e = (gen_env){m, t, v, o, description, cfg->vocab_size, -1, -1, NULL, 0, 0};
    if (o->constrained && dec_vocab_size(v) > e->vocab) {
        pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "tokenizer has %d tokens but the model only %d", dec_vocab_size(v), e->vocab);
        return PG_ERR_INVALID;
    }
    const char *end_tok = gen_end_token(o->format);
    e->end_id = tok_special_id(t, end_tok);
    e->eot_id = tok_special_id(t, GEN_TOK_EOT);
    if (e->end_id < 0) { pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "tokenizer lacks the %s token", end_tok); return PG_ERR_INVALID; }
    pg_buf prompt = {0};
    if (o->prompt) pg_buf_puts(&prompt, o->prompt);   /* the caller's (the two-stage model's PTX turn) */
    else if (o->baseline_ptx) gen_prompt_build_superopt_fmt(o->format, o->baseline_ptx, o->arch, o->signature, &prompt);
    else gen_prompt_build_fmt(o->format, description, o->arch, o->signature, &prompt);
    size_t nid = 0;
    pg_status st = tok_encode(t, prompt.data, prompt.len, &e->prompt, &nid);
    pg_buf_free(&prompt);
    if (st != PG_OK) return st;
    e->nprompt = (int)nid;
    e->max_seq = (int)nid + o->max_tokens + 256;
    if (e->max_seq > cfg->max_position_embeddings) e->max_seq = cfg->max_position_embeddings;
    if ((int)nid >= e->max_seq) {
        pg_diag_emit(diag, PG_E_PROMPT, NULL, 0, 0, "prompt is %zu tokens; the model's context is %d", nid, e->max_seq);
        return PG_ERR_LIMIT;
    }
    return PG_OK;
}

/* One candidate in flight: what the sampling loop keeps between tokens. */
typedef struct {
    const gen_env *e;
    gen_result *out;
    model_ctx *ctx;            /* its own KV cache */
    dec_state *dec;            /* the constraint (NULL with constrained off) */
    model_sampler smp;         /* its own seed */
    float *logits;             /* [vocab] next-token logits of the last step */
    float *masked;             /* [vocab] logits after bias / mask */
    uint32_t *bits;            /* [(vocab + 31) / 32] the constraint's mask */
    pg_buf text, forced;       /* text so far; forced text being fed */
    bool ending_forced;        /* the constraint closes the kernel (token budget nearly spent) */
    bool over;                 /* no more tokens (seq_finish done) */
} gen_seq;

static void seq_close(gen_seq *g) {
    free(g->logits); free(g->masked); free(g->bits);
    pg_buf_free(&g->text); pg_buf_free(&g->forced);
    model_ctx_free(g->ctx);
    dec_free(g->dec);
    memset(g, 0, sizeof *g);
}

/* Start a candidate: a context with the prompt run through it, the constraint (or, with
 * it off, the header and signature fed as forced text) and the sampler at `seed`. */
static pg_status seq_open(gen_seq *g, const gen_env *e, uint64_t seed, gen_result *out, pg_diag_sink *diag) {
    const gen_opts *o = e->o;
    memset(g, 0, sizeof *g);
    g->e = e;
    g->out = out;
    out->prompt_tokens = e->nprompt;
    g->logits = malloc(sizeof(float) * (size_t)e->vocab);
    g->masked = malloc(sizeof(float) * (size_t)e->vocab);
    g->bits = malloc(sizeof(uint32_t) * (size_t)((e->vocab + 31) / 32));
    if (!g->logits || !g->masked || !g->bits) return PG_ERR_NOMEM;
    pg_status st = model_ctx_new(e->m, e->max_seq, &g->ctx, diag);
    if (st == PG_OK) st = model_forward(g->ctx, e->prompt, e->nprompt, g->logits, NULL, diag);
    if (st != PG_OK) return st;
    if (o->constrained) {
        dec_opts dopt = {o->arch, o->signature, 0, 0, {o->block[0], o->block[1], o->block[2]}, o->entry_name, o->comment_max};
        if ((st = dec_new(e->v, &dopt, &g->dec, diag)) != PG_OK) return st;
    } else {
        /* the header and the given signature are forced in both modes: the raw
         * model is measured on the body, and the ABI always matches the caller */
        gen_header_text(o->arch, &g->forced);
        if (o->signature && *o->signature) pg_buf_printf(&g->forced, "%s\n", o->signature);
        else if (o->entry_name && *o->entry_name) pg_buf_printf(&g->forced, ".visible .entry %s(\n", o->entry_name);
        st = feed_text(g->ctx, e->t, NULL, g->forced.data, g->forced.len, g->logits, &g->text, &out->forced_tokens, diag);
        if (st != PG_OK) return st;
    }
    model_sampler_opts so = o->sampler;
    so.seed = seed;
    model_sampler_init(&g->smp, &so);
    return PG_OK;
}

/* Choose the candidate's next token from g->logits: forced text is fed on the spot (its
 * own multi-token forward), a sampled token is checked by the constraint (the full mask
 * only when rejected) and appended to the text.  *next = the token the model must run
 * next (the caller's forward step refreshes g->logits), or -1 when the candidate is over
 * (finished, the token limit, a NUL byte from the raw model). */
static pg_status seq_next(gen_seq *g, int32_t *next, pg_diag_sink *diag) {
    const gen_env *e = g->e;
    const gen_opts *o = e->o;
    gen_result *out = g->out;
    const tok_tokenizer *t = e->t;
    dec_state *dec = g->dec;
    int vocab = e->vocab;
    pg_status st;
    *next = -1;
    while (out->gen_tokens + out->forced_tokens < o->max_tokens && model_ctx_pos(g->ctx) < e->max_seq - 1) {
        if (dec) {
            g->forced.len = 0;
            if (g->forced.data) g->forced.data[0] = 0;
            /* Only the opening text (header, given signature) is fed as forced
             * tokens.  Later single continuations (" " after .maxntid, "\n"
             * after ';') are left to the sampler under the mask: tokenized on
             * their own they split differently from the training text (" 256"
             * would become " " + "256") and throw the model off.  Once the
             * token budget forces the end, forced text is fed again: the
             * shortest end then costs no sampling at all. */
            if ((out->gen_tokens == 0 || g->ending_forced) && dec_forced_text(dec, &g->forced) > 0) {
                st = feed_text(g->ctx, t, dec, g->forced.data, g->forced.len, g->logits, &g->text, &out->forced_tokens, diag);
                if (st != PG_OK) return st;
                continue;
            }
            if (dec_done(dec)) { out->finished = true; return PG_OK; }
        }
        /* keep enough tokens to finish the statement and close the kernel */
        if (dec && !g->ending_forced && o->max_tokens - (out->gen_tokens + out->forced_tokens) < 128) {
            dec_force_end(dec);
            g->ending_forced = true;
        }
        const float *lg = g->logits;
        if (dec && o->bias) {
            memcpy(g->masked, g->logits, sizeof(float) * (size_t)vocab);
            dec_bias_apply(o->bias, dec, g->masked);
            lg = g->masked;
        }
        int32_t tok = model_sample(&g->smp, lg, vocab);
        if (dec) {
            double m0 = now_s();
            bool ok = tok >= 0 && tok < dec_vocab_size(e->v) && dec_accepts(dec, tok);
            if (!ok) {
                int allowed = dec_mask(dec, g->bits);
                out->mask_calls++;
                if (allowed == 0) {
                    pg_diag_emit(diag, PG_E_DEAD_STATE, NULL, 0, 0,
                                 "the constraint allows no token after %zu bytes of output (a constraint bug; text so far ends with '%.40s')",
                                 g->text.len, g->text.len > 40 ? g->text.data + g->text.len - 40 : g->text.data ? g->text.data : "");
                    return PG_ERR_INVALID;
                }
                if (lg != g->masked) memcpy(g->masked, g->logits, sizeof(float) * (size_t)vocab);
                int nv = dec_vocab_size(e->v);
                for (int i = 0; i < vocab; i++)
                    if (i >= nv || !(g->bits[i >> 5] >> (i & 31) & 1)) g->masked[i] = -INFINITY;
                tok = model_sample(&g->smp, g->masked, vocab);
                if (tok < 0) {
                    /* every allowed token has -inf logit: take the first allowed one */
                    for (int i = 0; i < nv && i < vocab && tok < 0; i++)
                        if (g->bits[i >> 5] >> (i & 31) & 1) tok = i;
                }
            }
            out->mask_seconds += now_s() - m0;
            if (tok == e->end_id) { out->finished = true; return PG_OK; }
            if ((st = dec_advance(dec, tok, diag)) != PG_OK) return st;
        } else if (tok == e->end_id || tok == e->eot_id || tok < 0) {
            out->finished = tok >= 0;
            return PG_OK;
        }
        size_t bl = 0;
        const char *b = tok_token_bytes(t, tok, &bl);
        if (!dec && memchr(b, 0, bl)) {   /* the raw model: a NUL byte cannot be in PTX text; say so, never truncate */
            pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "the model emitted a NUL byte (token %d) after %zu bytes; stopped", (int)tok, g->text.len);
            return PG_OK;
        }
        if (!dec || !tok_is_special(t, tok)) pg_buf_putn(&g->text, b, bl);
        out->gen_tokens++;
        *next = tok;
        return PG_OK;
    }
    return PG_OK;
}

/* The candidate is over: its PTX (GENERATED_BY line, then the text) into out. */
static void seq_finish(gen_seq *g, pg_diag_sink *diag) {
    gen_result *out = g->out;
    if (!out->finished && g->dec && !dec_done(g->dec))
        pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "stopped at the token limit (%d) before the kernel was complete", g->e->o->max_tokens);
    /* a kernel the budget closed is a stub, whatever the checks say of its syntax */
    out->cut = g->ending_forced || !out->finished;
    if (out->cut) out->finished = false;
    pg_buf res = {0};
    pg_buf_printf(&res, "// GENERATED_BY: ptxgen %s\n", model_get_config(g->e->m)->model_id);
    if (g->dec) {
        size_t n = 0;
        const char *s = dec_text(g->dec, &n);
        pg_buf_putn(&res, s, n);
    } else if (g->text.data) {
        pg_buf_puts(&res, g->text.data);
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
    /* the model wrote the signature: names from the request or plain a<k>, never sampled junk */
    const gen_opts *o = g->e->o;
    if ((!o->signature || !*o->signature) && !o->baseline_ptx && res.data) {
        pg_buf plain = {0};
        out->params_renamed = gen_params_plain(res.data, g->e->description, &plain);
        pg_buf_free(&res);
        res = plain;
    }
    out->ptx = res.data;
    g->over = true;
}

pg_status gen_sample(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const char *description,
                     const gen_opts *o, gen_result *out, pg_diag_sink *diag) {
    memset(out, 0, sizeof *out);
    double t0 = now_s();
    gen_env e;
    gen_seq g = {0};
    pg_status st = env_open(m, t, v, description, o, &e, diag);
    if (st == PG_OK) st = seq_open(&g, &e, o->sampler.seed, out, diag);
    while (st == PG_OK) {
        int32_t tok;
        if ((st = seq_next(&g, &tok, diag)) != PG_OK || tok < 0) break;
        st = model_forward(g.ctx, &tok, 1, g.logits, NULL, diag);
    }
    if (st == PG_OK) seq_finish(&g, diag);
    out->seconds = now_s() - t0;
    seq_close(&g);
    env_close(&e);
    return st;
}

/* Candidates [first, first + n) of gen_sample_k (n <= GEN_BATCH_MAX) stepped together:
 * each chooses its next token (seq_next, forced text on its own), then one batched
 * forward runs every candidate still going. */
static pg_status sample_group(const gen_env *e, int first, int n, gen_result *outs, double t0, pg_diag_sink *diag) {
    gen_seq g[GEN_BATCH_MAX];
    memset(g, 0, sizeof g);
    model_ctx *ctxs[GEN_BATCH_MAX];
    int32_t toks[GEN_BATCH_MAX];
    int who[GEN_BATCH_MAX];   /* batch row -> candidate */
    float *logits = malloc(sizeof(float) * (size_t)n * (size_t)e->vocab);   /* [n][vocab] */
    pg_status st = logits ? PG_OK : PG_ERR_NOMEM;
    for (int i = 0; i < n && st == PG_OK; i++) st = seq_open(&g[i], e, e->o->sampler.seed + (uint64_t)(first + i), &outs[i], diag);
    while (st == PG_OK) {
        int rows = 0;
        for (int i = 0; i < n && st == PG_OK; i++) {
            if (g[i].over) continue;
            int32_t tok;
            if ((st = seq_next(&g[i], &tok, diag)) != PG_OK) break;
            if (tok < 0) {
                seq_finish(&g[i], diag);
                outs[i].seconds = now_s() - t0;
                continue;
            }
            ctxs[rows] = g[i].ctx;
            toks[rows] = tok;
            who[rows++] = i;
        }
        if (st != PG_OK || rows == 0) break;
        if ((st = model_forward_batch(ctxs, rows, toks, logits, diag)) != PG_OK) break;
        for (int r = 0; r < rows; r++)
            memcpy(g[who[r]].logits, logits + (size_t)r * e->vocab, sizeof(float) * (size_t)e->vocab);
    }
    for (int i = 0; i < n; i++) seq_close(&g[i]);
    free(logits);
    return st;
}

pg_status gen_sample_k(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const char *description,
                       const gen_opts *o, int k, gen_result *outs, pg_diag_sink *diag) {
    for (int i = 0; i < k; i++) memset(&outs[i], 0, sizeof outs[i]);
    if (k < 1) {
        pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "gen_sample_k needs at least one candidate (got %d)", k);
        return PG_ERR_USAGE;
    }
    double t0 = now_s();
    gen_env e;
    pg_status st = env_open(m, t, v, description, o, &e, diag);
    for (int first = 0; first < k && st == PG_OK; first += GEN_BATCH_MAX) {
        int n = k - first < GEN_BATCH_MAX ? k - first : GEN_BATCH_MAX;
        st = sample_group(&e, first, n, outs + first, t0, diag);
    }
    env_close(&e);
    if (st != PG_OK)
        for (int i = 0; i < k; i++) gen_result_free(&outs[i]);
    return st;
}

pg_status gen_twin_sample(model_model *m, const tok_tokenizer *t, const char *description, const char *ptx,
                          const gen_opts *o, gen_result *out, pg_diag_sink *diag) {
    pg_buf prompt = {0};
    /* the PTX as the twin pairs show it (`prompts --twin`): without gen's provenance line */
    const char *body = ptx ? ptx : "";
    if (!strncmp(body, "// GENERATED_BY:", 16)) {
        const char *nl = strchr(body, '\n');
        body = nl ? nl + 1 : "";
    }
    gen_prompt_build_twin_fmt(o->format, description ? description : "", o->arch, o->signature, body, &prompt);
    pg_status st = gen_free_sample(m, t, prompt.data ? prompt.data : "", o, out, diag);
    pg_buf_free(&prompt);
    return st;
}

pg_status gen_free_sample(model_model *m, const tok_tokenizer *t, const char *prompt, const gen_opts *o, gen_result *out,
                          pg_diag_sink *diag) {
    memset(out, 0, sizeof *out);
    double t0 = now_s();
    const model_config *cfg = model_get_config(m);
    int vocab = cfg->vocab_size;
    const char *end_tok = gen_end_token(o->format);
    int32_t end_id = tok_special_id(t, end_tok);
    int32_t eot_id = tok_special_id(t, GEN_TOK_EOT);
    if (end_id < 0) { pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "tokenizer lacks the %s token", end_tok); return PG_ERR_INVALID; }
    pg_buf text = {0};
    int32_t *ids = NULL;
    size_t nid = 0;
    float *logits = malloc(sizeof(float) * (size_t)vocab);
    model_ctx *ctx = NULL;
    pg_status st = tok_encode(t, prompt, strlen(prompt), &ids, &nid);
    if (st != PG_OK) goto done;
    out->prompt_tokens = (int)nid;
    int max_seq = (int)nid + o->max_tokens + 8;
    if (max_seq > cfg->max_position_embeddings) max_seq = cfg->max_position_embeddings;
    if ((int)nid >= max_seq - 1) {
        pg_diag_emit(diag, PG_E_PROMPT, NULL, 0, 0, "the prompt is %zu tokens; the model's context is %d", nid,
                     cfg->max_position_embeddings);
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
            pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "the model emitted a NUL byte (token %d); stopped", (int)tok);
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
    pg_buf_free(&text);
    model_ctx_free(ctx);
    return st;
}
