/* gen.c — one sample: prompt -> model -> constrained decoding -> PTX text; best-of-k, the k
 * candidates stepped through the model together (gen_sample_k); speculative decoding.
 *
 * Choosing a token (pick): the constraint lists the allowed tokens when there are at most
 * GEN_SUBSET_MAX (dec_allowed).  One allowed token is taken without sampling (jump-forward:
 * no random draw, no logits); a few allowed tokens get their logits computed alone
 * (model_logits_rows with ids: most of the 151,936-row output matrix is never read) and the
 * sampler draws among them; many allowed tokens: all logits, sample-then-verify (the sampled
 * token is checked with dec_accepts, and only a refused one costs the full mask and a redraw).
 * On the GPU engine each of these draws is made from the row's top 64 logits (model_topk_rows:
 * the row stays on the device) whenever they prove it the whole row's draw (top.h), else from
 * the whole row: the same tokens either way.
 * Text the constraint forces at the start (header, signature) and when the token budget
 * closes the kernel is tokenized and fed to the model as a batch, never sampled.
 *
 * Speculative decoding (o->draft_max > 0): after the token at the current position is chosen,
 * the next ones are drafted -- the constraint's only continuation where it has one (certain),
 * else a guess the constraint accepts (draft.c: a literate comment's plan line, a register
 * number's digit, the longest suffix of the tokens so far seen earlier in the prompt and output,
 * else the table of training kernels), as many as their running odds pay for -- and the chosen
 * token and the drafts run as one model_forward_exact step (rows equal a one-token step's bit
 * for bit).  Then each position's token is chosen from its row by pick, with the same sampler,
 * exactly as plain decoding would: a draft that equals it is kept, the first that differs ends
 * the step (the chosen token is kept and fed next, the cache rewound past the dropped drafts).
 * The output is therefore the plain output, byte for byte.  The rows that will want all logits
 * (the constraint walked over the drafts allows more than GEN_SUBSET_MAX there, or there is no
 * constraint) get them in one multi-row pass over the output matrix when the first is asked
 * for, not one full pass each (gen_seq.rowl; values equal, model_logits_rows).  The free turn
 * (gen_free_sample: the plan, the twin) speculates the same way without a constraint (free_spec). */
#include "ptxgen/decode.h"
#include "draft.h"
#include "top.h"

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

/* the process's CPU time, every thread's (the pool's spinning included) */
static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
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
    o->regs_grow = 1;   /* a register the model declared too few of is a fresh one, never a clobbered live one */
}

void gen_result_free(gen_result *r) {
    free(r->ptx);
    memset(r, 0, sizeof *r);
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
    int32_t digit[10];         /* the token of each decimal digit alone (-1: none), for register-number drafts */
    int32_t *prompt;           /* [nprompt] token ids of the prompt (malloc'd) */
    int nprompt;
    int max_seq;               /* each candidate's context length */
    int32_t *ref;              /* [nref] o->draft_ref's tokens (malloc'd; NULL: no reference drafts) */
    int nref;
    size_t *ref_off;           /* [nref + 1] each reference token's byte offset in o->draft_ref (register renames) */
    bool top;                  /* draw from each row's top MODEL_TOPK candidates where they decide (top.h): the
                                  GPU engine's rows stay on the device ($PTXGEN_GEN_TOPK: 0 never, 1 also on the CPU) */
    double row_fixed;          /* a verify step's fixed cost in rows (o->draft_fixed, else model_exact_fixed_rows): draft_pays */
} gen_env;

static void env_close(gen_env *e) {
    free(e->prompt);
    free(e->ref);
    free(e->ref_off);
    memset(e, 0, sizeof *e);
}

/* Draw from rows' top candidates (top.h)?  On the GPU engine, where the rows stay on the device;
 * $PTXGEN_GEN_TOPK says otherwise: 0 never, 1 also on the CPU engine (for tests). */
static bool top_on(const model_model *m) {
    const char *tk = getenv("PTXGEN_GEN_TOPK");
    return tk && *tk ? strcmp(tk, "0") != 0 : !strcmp(model_device(m), "gpu");
}

/* Check the model against the tokenizer and encode the prompt. */
static pg_status env_open(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const char *description,
                          const gen_opts *o, gen_env *e, pg_diag_sink *diag) {
    memset(e, 0, sizeof *e);
    const model_config *cfg = model_get_config(m);
    *e = (gen_env){m, t, v, o, description, cfg->vocab_size, -1, -1, {0}, NULL, 0, 0, NULL, 0, NULL, false,
                   o->draft_fixed > 0 ? o->draft_fixed : model_exact_fixed_rows(m)};
    e->top = top_on(m);
    for (int i = 0; i < 10; i++) {   /* a digit that is one token of its own (Qwen's digits are) */
        char c = (char)('0' + i);
        int32_t *d = NULL;
        size_t nd = 0;
        e->digit[i] = tok_encode(t, &c, 1, &d, &nd) == PG_OK && nd == 1 ? d[0] : -1;
        free(d);
    }
    if (o->draft_ref && o->draft_max > 0) {   /* tokenized once for every candidate; a failure only loses its drafts */
        size_t nr = 0;
        if (tok_encode(t, o->draft_ref, strlen(o->draft_ref), &e->ref, &nr) != PG_OK || nr > (size_t)INT32_MAX) {
            free(e->ref);
            e->ref = NULL;
            nr = 0;
        }
        e->nref = (int)nr;
        /* the byte offsets of the tokens (their bytes are the text's, in order) for register renames; without
         * them (no memory, or the bytes do not add up) the reference drafts as before */
        if (nr && (e->ref_off = malloc(sizeof(size_t) * (nr + 1)))) {
            size_t off = 0;
            for (size_t i = 0; i < nr; i++) {
                size_t bl = 0;
                tok_token_bytes(t, e->ref[i], &bl);
                e->ref_off[i] = off;
                off += bl;
            }
            e->ref_off[nr] = off;
            if (off != strlen(o->draft_ref)) { free(e->ref_off); e->ref_off = NULL; }
        }
    }
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

#define ROWS_MAX 32   /* rows of an exact step whose full logits gen_seq keeps (a bit each in have) */

/* Kinds of draft, each with its own running odds (gen_seq.reached / kept): the constraint's only
 * continuation, a history match of 2..8 tokens, the table, a register number (destination: the
 * next unused number; source: the last destination of its class), a plan line, the reference's
 * register renamed (gen_regmap), a token two kinds of guess both name (a register digit nvcc's
 * rule and the renamed reference agree on is kept far more often than either alone), a reference
 * match of 2..8 tokens. */
enum { DK_FORCED, DK_HIST = 1, DK_TABLE = DK_HIST + 7, DK_REGDST, DK_REGSRC, DK_PLAN, DK_REGMAP, DK_AGREE, DK_REF, DK_N = DK_REF + 7 };
/* ... and by where the drafted token stands: first of a line (after a newline or tab: an
 * instruction's opcode, which the model picks its own way more often than it copies), a lone
 * letter or digit (register numbers, hex constants: one token a character), or elsewhere.  A
 * reference match of 8 tokens is kept 86% of the time overall, but far less at these spots, and
 * every draft after a miss is a wasted row (bench/results/2026-12-05-gen-speculation-h64-cpu.json). */
enum { DC_LINE, DC_CHAR, DC_OTHER, DC_N };
#define ODX(kind, cls) ((kind) * DC_N + (cls))   /* the odds' index of a kind at a spot */
#define PLAN_Q_MAX 64   /* tokens of a plan line queued as drafts */
typedef struct { int reached[DK_N * DC_N], kept[DK_N * DC_N]; } draft_odds;   /* per kind and spot (ODX), this run:
                                                                                   drafts reached (all before them
                                                                                   kept) and kept */

/* One candidate in flight: what the sampling loop keeps between tokens. */
typedef struct {
    const gen_env *e;
    gen_result *out;
    model_ctx *ctx;            /* its own KV cache */
    dec_state *dec;            /* the constraint (NULL with constrained off) */
    dec_state *draft_dec;      /* speculative decoding: the constraint walked over the drafts */
    model_sampler smp;         /* its own seed */
    float *logits;             /* [vocab] all logits of the position being chosen (when computed) */
    float *masked;             /* [vocab] logits after bias / mask; the bias's scratch for a subset */
    uint32_t *bits;            /* [(vocab + 31) / 32] the constraint's mask */
    int32_t *ids;              /* [GEN_SUBSET_MAX] allowed ids */
    float *sub;                /* [GEN_SUBSET_MAX] their logits */
    dec_bias_adds adds;        /* the bias's adds at this position (drawing from top candidates) */
    float top_v[MODEL_TOPK];   /* the top candidates of the row being chosen from (lsrc.top) */
    int32_t top_i[MODEL_TOPK];
    gen_top top;
    PG_VEC(int32_t) hist;      /* every token of the context in order: prompt, output, the chosen one not yet fed */
    pg_buf text, forced;       /* text so far; forced text being fed */
    bool ending_forced;        /* the constraint closes the kernel (token budget nearly spent) */
    bool over;                 /* no more tokens (seq_finish done) */
    /* Speculative decoding: all logits of rows of the last exact step, computed together.  The
     * output matrix is the largest one and a row alone streams all of it; the rows the drafts
     * say will want all logits (no constraint, or more allowed than GEN_SUBSET_MAX) are computed
     * in one multi-row pass when the first of them is asked for.  Each row's values equal a
     * one-row call's bit for bit (model_logits_rows), so this changes no output. */
    float *rowl;               /* [rowcap][vocab], or NULL (plain decoding) */
    int rowcap;                /* draft_max + 1, at most ROWS_MAX: steps of more rows go row by row */
    int nrows;                 /* rows of the last exact step; 0: the context's last step was another */
    uint32_t have;             /* bit r: rowl[r] holds row r */
    bool want_full[MODEL_EXACT_MAX];   /* row r will want all logits (the drafts' constraint says so) */
    uint8_t draft_src[MODEL_EXACT_MAX];   /* gen_draft_src of draft j (row j + 1's token) */
    uint8_t draft_kind[MODEL_EXACT_MAX];  /* its kind and spot (ODX), for the odds */
    draft_odds odds;
    pg_buf dtext;              /* drafting: the body so far with the drafts after it */
    int32_t plan_q[PLAN_Q_MAX];/* drafting: the tokens of the plan line a comment just begun should copy */
    int plan_qn, plan_qi;
    int ref_from;              /* drafting: where in e->ref the last reference guess left off (ties prefer after it) */
    gen_regmap *rmap;          /* drafting: nvcc's register numbers -> the model's (NULL: no reference offsets) */
    int rmap_from;             /* where in e->ref the last rename was learned (ties prefer after it) */
} gen_seq;

/* Where the logits of the position being chosen come from: a row of the candidate's last
 * model step (computed on demand: a few ids, or all), or a full row already computed (the
 * batched step of gen_sample_k). */
typedef struct {
    int row;                   /* row of the context's last step */
    const float *full;         /* all logits of that row, or NULL */
    const gen_top *top;        /* that row's top candidates (gen_env.top), or NULL: then pick asks for them if
                                  the row is the step's last and gen_env.top says so */
} lsrc;

static void seq_close(gen_seq *g) {
    free(g->logits); free(g->masked); free(g->bits); free(g->ids); free(g->sub); free(g->rowl); free(g->rmap);
    dec_bias_adds_free(&g->adds);
    pg_vec_free(g->hist);
    pg_buf_free(&g->text); pg_buf_free(&g->forced); pg_buf_free(&g->dtext);
    model_ctx_free(g->ctx);
    dec_free(g->dec);
    dec_free(g->draft_dec);
    memset(g, 0, sizeof *g);
}

/* Feed text to the model (as tokens, no logits) and, when constrained, to the recognizer. */
static pg_status feed_text(gen_seq *g, const char *s, size_t n, int *count, pg_diag_sink *diag) {
    int32_t *ids = NULL;
    size_t nid = 0;
    pg_status st = tok_encode(g->e->t, s, n, &ids, &nid);
    if (st != PG_OK) { pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "cannot tokenize forced text"); return st; }
    if (nid) st = model_forward_hidden(g->ctx, ids, (int)nid, diag);
    g->nrows = 0;   /* the rows of an exact step are gone */
    for (size_t i = 0; st == PG_OK && i < nid; i++) pg_vec_push(g->hist, ids[i]);
    free(ids);
    if (st != PG_OK) return st;
    g->out->forwards += nid > 0;
    if (g->dec) {
        st = dec_advance_text(g->dec, s, n, diag);
        if (st != PG_OK) return st;
    }
    pg_buf_putn(&g->text, s, n);
    *count += (int)nid;
    return PG_OK;
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
    g->ids = malloc(sizeof(int32_t) * GEN_SUBSET_MAX);
    g->sub = malloc(sizeof(float) * GEN_SUBSET_MAX);
    if (!g->logits || !g->masked || !g->bits || !g->ids || !g->sub) return PG_ERR_NOMEM;
    if (e->ref_off && o->constrained && !(g->rmap = calloc(1, sizeof *g->rmap))) return PG_ERR_NOMEM;
    memset(g->masked, 0, sizeof(float) * (size_t)e->vocab);
    for (int i = 0; i < e->nprompt; i++) pg_vec_push(g->hist, e->prompt[i]);
    pg_status st = model_ctx_new(e->m, e->max_seq, &g->ctx, diag);
    if (st == PG_OK) st = model_forward_hidden(g->ctx, e->prompt, e->nprompt, diag);
    if (st != PG_OK) return st;
    if (o->constrained) {
        dec_opts dopt = {o->arch, o->signature, 0, 0, {o->block[0], o->block[1], o->block[2]}, o->entry_name, o->comment_max, o->regs_named, o->plan, o->plan_repeat_max, o->regs_grow, o->reads_unwritten};
        if ((st = dec_new(e->v, &dopt, &g->dec, diag)) != PG_OK) return st;
    } else {
        /* the header and the given signature are forced in both modes: the raw
         * model is measured on the body, and the ABI always matches the caller */
        gen_header_text(o->arch, &g->forced);
        if (o->signature && *o->signature) pg_buf_printf(&g->forced, "%s\n", o->signature);
        else if (o->entry_name && *o->entry_name) pg_buf_printf(&g->forced, ".visible .entry %s(\n", o->entry_name);
        st = feed_text(g, g->forced.data, g->forced.len, &out->forced_tokens, diag);
        if (st != PG_OK) return st;
    }
    model_sampler_opts so = o->sampler;
    so.seed = seed;
    model_sampler_init(&g->smp, &so);
    return PG_OK;
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* All logits of src's position into g->logits (computed from the context's row if need be). */
static pg_status full_logits(gen_seq *g, const lsrc *src, pg_diag_sink *diag) {
    size_t V = (size_t)g->e->vocab;
    if (src->full) {
        if (src->full != g->logits) memcpy(g->logits, src->full, sizeof(float) * V);
        return PG_OK;
    }
    int r = src->row;
    /* (a row the drafts did not foresee after a pass: alone, the pass's rows stay where they are) */
    if (!g->rowl || r >= g->nrows || g->nrows > g->rowcap || (g->have && !(g->have >> r & 1))) return model_logits_rows(g->ctx, &r, 1, NULL, 0, g->logits, diag);
    if (!g->have) {   /* this row and the later ones that will want all logits, in one pass */
        int rows[MODEL_EXACT_MAX], n = 0;
        for (int i = r; i < g->nrows; i++)
            if (i == r || (g->want_full[i] && !(g->have >> i & 1))) rows[n++] = i;
        float *tmp = g->rowl + (size_t)(g->rowcap - n) * V;   /* the top n slots, then each row down to its own */
        pg_status st = model_logits_rows(g->ctx, rows, n, NULL, 0, tmp, diag);
        if (st != PG_OK) return st;
        for (int i = 0; i < n; i++) {   /* ascending rows into ascending slots from the top: no overlap ahead */
            if (tmp + (size_t)i * V != g->rowl + (size_t)rows[i] * V) memmove(g->rowl + (size_t)rows[i] * V, tmp + (size_t)i * V, sizeof(float) * V);
            g->have |= 1u << rows[i];
        }
    }
    memcpy(g->logits, g->rowl + (size_t)r * V, sizeof(float) * V);
    return PG_OK;
}

/* A row of model_topk_rows (vals, ids [MODEL_TOPK]) as g's candidates (their count: up to the padding). */
static const gen_top *keep_top(gen_seq *g, const float *vals, const int32_t *ids) {
    if (vals != g->top_v) memcpy(g->top_v, vals, sizeof g->top_v);
    if (ids != g->top_i) memcpy(g->top_i, ids, sizeof g->top_i);
    int n = 0;
    while (n < MODEL_TOPK && g->top_i[n] >= 0) n++;
    g->top = (gen_top){g->top_v, g->top_i, n};
    return &g->top;
}

/* src's top candidates when gen_env.top draws from them: given (a batched step's), or asked
 * for here when src is its step's last row (model_topk_rows reads a context's last row). */
static const gen_top *top_of(gen_seq *g, const lsrc *src, pg_diag_sink *diag) {
    if (src->top || src->full || !g->e->top) return src->top;
    if (src->row != (g->nrows > 0 ? g->nrows - 1 : 0)) return NULL;
    if (model_topk_rows(&g->ctx, 1, g->top_v, g->top_i, diag) != PG_OK) return NULL;   /* (said; the row decides) */
    return keep_top(g, g->top_v, g->top_i);
}

/* The token at src's position, by the rule of gen_sample's header comment.  Where the row's top
 * candidates decide a draw (top.h), they make it; the draws are the same either way. */
static pg_status pick(gen_seq *g, const lsrc *src, int32_t *tok, pg_diag_sink *diag) {
    const gen_env *e = g->e;
    const gen_opts *o = e->o;
    gen_result *out = g->out;
    dec_state *dec = g->dec;
    int vocab = e->vocab;
    pg_status st;
    bool need_full = true;
    double m0 = now_s();
    const gen_top *top = NULL;
    const dec_bias_adds *adds = NULL;
    if (dec) {
        int k = dec_allowed(dec, g->ids, GEN_SUBSET_MAX);
        if (k == 0) goto dead;
        if (k == 1) {   /* the only legal continuation */
            *tok = g->ids[0];
            out->jumped++;
            out->mask_seconds += now_s() - m0;
            return PG_OK;
        }
        if ((top = top_of(g, src, diag)) && o->bias) {
            dec_bias_collect(o->bias, dec, &g->adds);
            adds = &g->adds;
        }
        if (k > 1) {   /* few: their logits alone, sampled as the masked full logits would be */
            qsort(g->ids, (size_t)k, sizeof *g->ids, cmp_i32);   /* ascending: the sampler breaks ties by position */
            if (top) {
                int32_t t = gen_top_sample(&g->smp, top, adds, &(gen_allow){NULL, 0, g->ids, k}, &need_full);
                out->top_decided += !need_full;
                out->top_full += need_full;
                if (!need_full) {
                    *tok = t;
                    out->mask_seconds += now_s() - m0;
                    return PG_OK;
                }
            }
            if (src->full)
                for (int i = 0; i < k; i++) g->sub[i] = src->full[g->ids[i]];
            else if ((st = model_logits_rows(g->ctx, &src->row, 1, g->ids, k, g->sub, diag)) != PG_OK)
                return st;
            if (o->bias) {   /* the bias adds to logits by id: through the full-size scratch */
                for (int i = 0; i < k; i++) g->masked[g->ids[i]] = g->sub[i];
                dec_bias_apply(o->bias, dec, g->masked);
                for (int i = 0; i < k; i++) g->sub[i] = g->masked[g->ids[i]];
            }
            int32_t t = model_sample(&g->smp, g->sub, k);
            *tok = g->ids[t >= 0 ? t : 0];   /* every allowed logit -inf: the first allowed id */
            out->mask_seconds += now_s() - m0;
            return PG_OK;
        }
    } else {
        top = top_of(g, src, diag);
    }
    /* many allowed: sample-then-verify, from the candidates if they decide, else the whole row */
    int32_t t = top ? gen_top_sample(&g->smp, top, adds, NULL, &need_full) : -1;
    if (top) out->top_decided += !need_full, out->top_full += need_full;
    bool have_full = false;   /* g->logits holds the row, and g->masked the biased row when dec && bias */
    out->mask_seconds += now_s() - m0;
    if (need_full) {
        if ((st = full_logits(g, src, diag)) != PG_OK) return st;
        have_full = true;
        const float *lg = g->logits;
        if (dec && o->bias) {
            memcpy(g->masked, g->logits, sizeof(float) * (size_t)vocab);
            dec_bias_apply(o->bias, dec, g->masked);
            lg = g->masked;
        }
        t = model_sample(&g->smp, lg, vocab);
    }
    m0 = now_s();
    if (dec) {
        bool ok = t >= 0 && t < dec_vocab_size(e->v) && dec_accepts(dec, t);
        if (!ok) {   /* refused: redraw from the masked row */
            int allowed = dec_mask(dec, g->bits);
            out->mask_calls++;
            if (allowed == 0) goto dead;
            int nv = dec_vocab_size(e->v);
            need_full = true;
            if (top) {
                t = gen_top_sample(&g->smp, top, adds, &(gen_allow){g->bits, nv < vocab ? nv : vocab, NULL, 0}, &need_full);
                out->top_decided += !need_full;
                out->top_full += need_full;
            }
            if (need_full) {
                if (!have_full) {
                    out->mask_seconds += now_s() - m0;
                    if ((st = full_logits(g, src, diag)) != PG_OK) return st;
                    m0 = now_s();
                }
                if (!have_full || !o->bias) memcpy(g->masked, g->logits, sizeof(float) * (size_t)vocab);
                if (!have_full && o->bias) dec_bias_apply(o->bias, dec, g->masked);
                for (int i = 0; i < vocab; i++)
                    if (i >= nv || !(g->bits[i >> 5] >> (i & 31) & 1)) g->masked[i] = -INFINITY;
                t = model_sample(&g->smp, g->masked, vocab);
                if (t < 0) {
                    /* every allowed token has -inf logit: take the first allowed one */
                    for (int i = 0; i < nv && i < vocab && t < 0; i++)
                        if (g->bits[i >> 5] >> (i & 31) & 1) t = i;
                }
                memset(g->masked, 0, sizeof(float) * (size_t)vocab);   /* back to finite values for the subset path */
            }
        }
        out->mask_seconds += now_s() - m0;
    }
    *tok = t;
    return PG_OK;
dead:
    pg_diag_emit(diag, PG_E_DEAD_STATE, NULL, 0, 0,
                 "the constraint allows no token after %zu bytes of output (a constraint bug; text so far ends with '%.40s')",
                 g->text.len, g->text.len > 40 ? g->text.data + g->text.len - 40 : g->text.data ? g->text.data : "");
    return PG_ERR_INVALID;
}

/* Choose the candidate's next token, the one after the first *pos tokens of its context (the
 * model's last step has their logits at src).  Forced text is fed on the spot (its own
 * forward; the context is first cut back to *pos, dropping unverified drafts), after which
 * src and *pos name the new state and *refed is set.  The chosen token goes into the text
 * and the constraint; *next = it (the model must run it next), or -1 when the candidate is
 * over (finished, the token limit, a NUL byte from the raw model). */
static bool is_digit_id(const gen_env *e, int32_t t) {
    for (int d = 0; d < 10; d++)
        if (e->digit[d] == t) return true;
    return false;
}

static pg_status seq_next(gen_seq *g, lsrc *src, int *pos, bool *refed, int32_t *next, pg_diag_sink *diag) {
    const gen_env *e = g->e;
    const gen_opts *o = e->o;
    gen_result *out = g->out;
    const tok_tokenizer *t = e->t;
    dec_state *dec = g->dec;
    pg_status st;
    *next = -1;
    while (out->gen_tokens + out->forced_tokens < o->max_tokens && *pos < e->max_seq - 1) {
        if (dec) {
            g->forced.len = 0;
            if (g->forced.data) g->forced.data[0] = 0;
            /* Only the opening text (header, given signature) is fed as forced
             * tokens.  Later single continuations (" " after .maxntid, "\n"
             * after ';') are left to the sampler under the mask: tokenized on
             * their own they split differently from the training text (" 256"
             * would become " " + "256") and throw the model off.  A forced
             * signature is fed once the model began `.visible` after the
             * module-scope declarations it chose (dec_forcing).  Once the
             * token budget forces the end, forced text is fed again: the
             * shortest end then costs no sampling at all. */
            if ((out->gen_tokens == 0 || g->ending_forced || dec_forcing(dec)) && dec_forced_text(dec, &g->forced) > 0) {
                model_ctx_rewind(g->ctx, *pos);
                g->hist.n = *pos;
                st = feed_text(g, g->forced.data, g->forced.len, &out->forced_tokens, diag);
                if (st != PG_OK) return st;
                *src = (lsrc){0, NULL, NULL};
                *pos = model_ctx_pos(g->ctx);
                *refed = true;
                continue;
            }
            if (dec_done(dec)) { out->finished = true; return PG_OK; }
        }
        /* keep enough tokens to finish the statement and close the kernel */
        /* (+ the forced signature's bytes while module-scope declarations come first, and the shortest end's own
         * bytes, owed labels first: at most a token each) */
        if (dec && !g->ending_forced &&
            o->max_tokens - (out->gen_tokens + out->forced_tokens) < 128 + (int)dec_forced_left(dec) + (int)dec_end_bytes(dec)) {
            dec_force_end(dec);
            g->ending_forced = true;
        }
        int32_t tok;
        if ((st = pick(g, src, &tok, diag)) != PG_OK) return st;
        if (dec) {
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
        g->hist.n = *pos;
        pg_vec_push(g->hist, tok);
        if (g->rmap && !tok_is_special(t, tok))   /* a register number just ended: learn its rename from the reference */
            gen_regmap_learn(g->rmap, g->text.data, g->text.len, bl, g->hist.v, g->hist.n, e->ref, e->nref, e->ref_off, o->draft_ref, e->digit,
                             &g->rmap_from);
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
    pg_buf_puts(&res, "// GENERATED_BY: ptxgen ");
    /* ASCII only: ptxas rejects any other byte, comments included (a model folder named "modèle") */
    for (const char *p = model_get_config(g->e->m)->model_id; *p; p++) pg_buf_putc(&res, (unsigned char)*p < 0x80 ? *p : '?');
    pg_buf_putc(&res, '\n');
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

/* ---- drafts ----------------------------------------------------------------------------- */
#define TABLE_MIN_COUNT 2

/* The odds of rows against their cost: a verify step of n rows costs about A + n row-costs
 * (A = model_exact_fixed_rows, the engine's: bench_model --exact --ctx 1500, the qwen-plan 0.5B,
 * process CPU at 2 threads.  AVX-512 with the p16/k16 kernels: 1 row ~34-40 ms, each further row
 * to 8 ~4 ms, bench/results/2026-12-06-gen-speculation-h68-cpu.json, so A ~ 8.  AVX2 (AMD EPYC):
 * 1 row ~62 ms, each further ~19 ms, bench/results/2026-12-06-gen-speculation-h81-cpu.json, so
 * A ~ 2), and yields 1 + the expected kept drafts.  A draft is added while it raises
 * that yield per cost: its chance to be kept (the product of the running odds of its kind and
 * every draft before it) times (A + rows) exceeds the yield so far.  The choice of drafts moves
 * no output (each is verified), only the steps.  (Drafting on past a draft that does not pay and
 * keeping the best prefix gains nothing: each later draft's chance is at most that one's, so no
 * longer prefix beats the ratio it failed; tried 2026-12-06, the same 341 steps.) */

static double odds_of(const draft_odds *d, int kind) {
    /* an optimistic prior (3 of 4 kept): a kind must fail several times before it stops being
     * drafted, since one never drafted is never measured again */
    return kind / DC_N == DK_FORCED ? 1.0 : (d->kept[kind] + 3.0) / (d->reached[kind] + 4.0);
}

/* The spot (DC_*) of token bytes b[0..bl) drafted after the byte prev. */
static int draft_spot(char prev, const char *b, size_t bl) {
    if (prev == '\n' || prev == '\t') return DC_LINE;
    if (bl == 1 && ((b[0] >= '0' && b[0] <= '9') || (b[0] >= 'a' && b[0] <= 'z') || (b[0] >= 'A' && b[0] <= 'Z'))) return DC_CHAR;
    return DC_OTHER;
}

/* Add a draft of this kind after nd others?  *chance: the odds all drafts so far are kept (updated
 * when yes), *yield: the expected tokens of the step so far (1 + the sum of the chances). */
static bool draft_pays(const draft_odds *d, double row_fixed, int kind, int nd, double *chance, double *yield) {
    double c = *chance * odds_of(d, kind);
    if (kind / DC_N != DK_FORCED && c * (row_fixed + 1 + nd) <= *yield) return false;
    *chance = c;
    *yield += c;
    return true;
}

typedef struct { int32_t t; int kind; gen_draft_src from; int at; } guess;   /* a drafter's guess (at: its place in e->ref) */

/* Drafts after the chosen token (the last of g->hist): up to want tokens into d, each the
 * constraint's only continuation or, where it has a choice, a guess it accepts (a register
 * number, the history's, the table's), while the odds say the row pays (gen_env.row_fixed). */
static int make_drafts(gen_seq *g, int want, int32_t *d, pg_diag_sink *diag) {
    const gen_env *e = g->e;
    int nd = 0;
    if (g->dec) {
        if (!g->draft_dec && dec_clone(g->dec, &g->draft_dec) != PG_OK) return 0;
        dec_copy(g->draft_dec, g->dec);
    }
    int base = g->hist.n;
    /* the current line of text with the drafts after it, for register guesses */
    const char *tx = g->text.data ? g->text.data : "";
    size_t ls = g->text.len;
    while (ls > 0 && tx[ls - 1] != '\n') ls--;
    g->dtext.len = 0;
    pg_buf_putn(&g->dtext, "{\n", 2);   /* (reg_digit reads the body after a '{') */
    size_t body = ls;
    const char *br = memchr(tx, '{', g->text.len);
    if (br) body = (size_t)(br - tx);
    pg_buf_putn(&g->dtext, tx + body, g->text.len - body);
    double chance = 1.0, yield = 1.0;   /* chance the next draft's predecessors are all kept; expected tokens */
    g->plan_qn = g->plan_qi = 0;
    /* row j of the step chooses from the state after j drafts: does it want all logits? */
    for (int j = 0; j <= want; j++) g->want_full[j] = !g->draft_dec;
    while (nd < want) {
        int32_t t = -1;
        int kind = DK_FORCED;
        gen_draft_src from = GEN_DRAFT_FORCED;
        if (g->draft_dec) {
            if (dec_done(g->draft_dec)) break;
            int k = dec_allowed(g->draft_dec, g->ids, GEN_SUBSET_MAX);   /* (pick refills g->ids) */
            g->want_full[nd] = k < 0;
            if (k == 1) t = g->ids[0];   /* certain */
        }
        /* the guesses in order of trust (a plan line, the reference's register renamed, a register number,
         * the longer of the history's and the reference's matches, the other, the table): the first the
         * constraint accepts is drafted,
         * so that a refused guess (nvcc's register number where the model counts its own) falls back
         * to the next instead of ending the step */
        guess gs[8];
        int ng = 0;
        if (t >= 0) gs[ng++] = (guess){t, DK_FORCED, GEN_DRAFT_FORCED, -1};
        if (t < 0 && g->dec && e->o->comment_max > 0) {   /* literate PTX: a comment begun copies a plan line */
            const char *dt = g->dtext.data;
            size_t dl = g->dtext.len, b = dl;
            while (b > 0 && dt[b - 1] != '\n') b--;
            while (b < dl && (dt[b] == ' ' || dt[b] == '\t')) b++;
            if (dl == b + 2 && dt[b] == '/' && dt[b + 1] == '/') {
                pg_buf line = {0};
                int32_t *ids = NULL;
                size_t nid = 0;
                pg_buf_putc(&line, ' ');
                if (gen_draft_plan_next(e->o->prompt, dt, dl, &line) && tok_encode(e->t, line.data, line.len, &ids, &nid) == PG_OK)
                    for (size_t i = 0; i < nid && g->plan_qn < PLAN_Q_MAX; i++) g->plan_q[g->plan_qn++] = ids[i];
                free(ids);
                pg_buf_free(&line);
                g->plan_qi = 0;
            }
            if (g->plan_qi < g->plan_qn) gs[ng++] = (guess){g->plan_q[g->plan_qi], DK_PLAN, GEN_DRAFT_PLAN, -1};
        }
        if (t < 0 && g->rmap && e->nref) {   /* the reference's register renamed as the model numbers it */
            int L = 0, at = -1;
            if (gen_draft_ref_next(g->hist.v, g->hist.n, e->ref, e->nref, e->digit, g->ref_from, &L, &at) >= 0) {
                size_t skip = 0;
                int dg = gen_regmap_next(g->rmap, e->o->draft_ref, e->ref_off[e->nref], e->ref_off[at], g->dtext.data, g->dtext.len, &skip);
                if (dg >= 0 && e->digit[dg] >= 0) gs[ng++] = (guess){e->digit[dg], DK_REGMAP, GEN_DRAFT_REGISTER, -1};
                if (dg == -2) {   /* the renamed number is whole: the reference's token after its own digits */
                    int a2 = at;
                    while (a2 < e->nref && e->ref_off[a2] < e->ref_off[at] + skip && is_digit_id(e, e->ref[a2])) a2++;
                    if (a2 < e->nref && e->ref_off[a2] == e->ref_off[at] + skip) gs[ng++] = (guess){e->ref[a2], DK_REGMAP, GEN_DRAFT_REGISTER, a2};
                }
            }
        }
        if (t < 0 && g->dec) {   /* a register number (PTX only) */
            bool dst = false;
            int dg = gen_draft_reg_digit(g->dtext.data, g->dtext.len, &dst);
            if (dg >= 0 && e->digit[dg] >= 0) gs[ng++] = (guess){e->digit[dg], dst ? DK_REGDST : DK_REGSRC, GEN_DRAFT_REGISTER, -1};
        }
        if (t < 0) {   /* the history's guess and the reference's, the longer match first (ties: the reference) */
            int L = 0, rl = 0, at = -1;
            int32_t h = gen_draft_hist_next(g->hist.v, g->hist.n, &L);
            int32_t r = e->nref ? gen_draft_ref_next(g->hist.v, g->hist.n, e->ref, e->nref, e->digit, g->ref_from, &rl, &at) : -1;
            guess gh = {h, DK_HIST + (L > DRAFT_MIN_MATCH ? L - DRAFT_MIN_MATCH : 0), GEN_DRAFT_HISTORY, -1};
            guess gr = {r, DK_REF + (rl - DRAFT_MIN_MATCH), GEN_DRAFT_REF, at};
            bool ref_first = r >= 0 && (h < 0 || rl >= L);
            if (ref_first) gs[ng++] = gr;
            if (h >= 0) gs[ng++] = gh;
            if (r >= 0 && !ref_first) gs[ng++] = gr;
        }
        if (t < 0 && e->o->ngram) {
            int32_t n = gen_ngram_next(e->o->ngram, g->hist.v, g->hist.n, TABLE_MIN_COUNT);
            if (n >= 0) gs[ng++] = (guess){n, DK_TABLE, GEN_DRAFT_TABLE, -1};
        }
        int gi = 0;
        if (g->draft_dec)
            while (gi < ng && (gs[gi].t == e->end_id || gs[gi].t == e->eot_id || !dec_accepts(g->draft_dec, gs[gi].t))) gi++;
        if (gi == ng) break;
        t = gs[gi].t, kind = gs[gi].kind, from = gs[gi].from;
        if (t == e->end_id || t == e->eot_id) break;
        /* guessers of different kinds that name the same token: its own odds (a register digit that
         * the renamed reference and nvcc's numbering rule both give holds more often than either) */
        if (kind != DK_FORCED)
            for (int i = 0; i < ng; i++)
                if (i != gi && gs[i].t == t && gs[i].kind != kind) { kind = DK_AGREE; break; }
        size_t bl = 0;
        const char *b = tok_token_bytes(e->t, t, &bl);
        kind = ODX(kind, draft_spot(g->dtext.data[g->dtext.len - 1], b, bl));   /* (dtext starts "{\n") */
        if (!draft_pays(&g->odds, e->row_fixed, kind, nd, &chance, &yield)) break;   /* this row would not pay */
        if (g->draft_dec && dec_advance(g->draft_dec, t, diag) != PG_OK) break;
        g->out->draft_fallbacks += gi > 0;
        g->out->draft_renamed += gs[gi].kind == DK_REGMAP;
        if (from == GEN_DRAFT_PLAN) g->plan_qi++;
        if (gs[gi].at >= 0) g->ref_from = gs[gi].at + 1;
        g->draft_src[nd] = (uint8_t)from;
        g->draft_kind[nd] = (uint8_t)kind;
        d[nd++] = t;
        pg_vec_push(g->hist, t);   /* (taken off below: the history holds chosen tokens only) */
        pg_buf_putn(&g->dtext, b, bl);
    }
    if (nd == want && g->draft_dec && !dec_done(g->draft_dec)) g->want_full[nd] = dec_allowed(g->draft_dec, g->ids, GEN_SUBSET_MAX) < 0;
    g->hist.n = base;
    return nd;
}

/* ---- one sample ------------------------------------------------------------------------ */
/* Plain (draft_max 0): choose, run it, repeat.  Speculative: choose, run it with its drafts in
 * one exact step, then choose position by position from those rows while the drafts agree. */
static pg_status run_one(gen_seq *g, pg_diag_sink *diag) {
    const gen_env *e = g->e;
    gen_result *out = g->out;
    int dmax = e->o->draft_max;
    if (dmax > MODEL_EXACT_MAX - 1) dmax = MODEL_EXACT_MAX - 1;
    int32_t *feed = malloc(sizeof(int32_t) * (size_t)(dmax + 1));
    if (!feed) return PG_ERR_NOMEM;
    g->rowcap = dmax + 1 < ROWS_MAX ? dmax + 1 : ROWS_MAX;
    if (dmax > 0 && !g->rowl && !(g->rowl = malloc(sizeof(float) * (size_t)g->rowcap * (size_t)e->vocab))) {
        free(feed);
        return PG_ERR_NOMEM;
    }
    lsrc src = {0, NULL, NULL};
    int pos = model_ctx_pos(g->ctx);
    int32_t tok = -1;
    bool refed = false;
    pg_status st = seq_next(g, &src, &pos, &refed, &tok, diag);
    while (st == PG_OK && tok >= 0) {
        /* the chosen token and its drafts (none beyond the budgets seq_next checks) */
        feed[0] = tok;
        int room = e->max_seq - 1 - (pos + 1);
        int left = e->o->max_tokens - (out->gen_tokens + out->forced_tokens);
        int want = dmax < room ? dmax : room;
        if (want > left) want = left;
        int nd = want > 0 ? make_drafts(g, want, feed + 1, diag) : 0;
        int p0 = pos;
        if ((st = model_forward_exact(g->ctx, feed, 1 + nd, diag)) != PG_OK) break;
        g->nrows = 1 + nd;
        g->have = 0;
        out->forwards++;
        out->drafted += nd;
        for (int i = 0; i < nd; i++) out->drafted_by[g->draft_src[i]]++;
        /* position p0 + 1 + j is chosen from row j; draft j + 1 stands there */
        int j = 0;
        for (;;) {
            src = (lsrc){j, NULL, NULL};
            pos = p0 + 1 + j;
            refed = false;
            if ((st = seq_next(g, &src, &pos, &refed, &tok, diag)) != PG_OK || tok < 0 || refed) break;
            if (j < nd) g->odds.reached[g->draft_kind[j]]++;
            if (j < nd && tok == feed[1 + j]) {   /* the draft agrees: it is already in the cache */
                out->accepted++;
                out->accepted_by[g->draft_src[j]]++;
                g->odds.kept[g->draft_kind[j]]++;
                j++;
                continue;
            }
            model_ctx_rewind(g->ctx, pos);   /* drop the drafts from this position on */
            break;
        }
    }
    free(feed);
    return st;
}

pg_status gen_sample(model_model *m, const tok_tokenizer *t, const dec_vocab *v, const char *description,
                     const gen_opts *o, gen_result *out, pg_diag_sink *diag) {
    memset(out, 0, sizeof *out);
    double t0 = now_s();
    gen_env e;
    gen_seq g = {0};
    pg_status st = env_open(m, t, v, description, o, &e, diag);
    if (st == PG_OK) st = seq_open(&g, &e, o->sampler.seed, out, diag);
    double d0 = now_s(), c0 = cpu_s();   /* the prompt is in the cache: decoding alone from here */
    if (st == PG_OK) st = run_one(&g, diag);
    if (st == PG_OK) seq_finish(&g, diag);
    out->decode_seconds = now_s() - d0;
    out->decode_cpu_seconds = cpu_s() - c0;
    out->seconds = now_s() - t0;
    seq_close(&g);
    env_close(&e);
    return st;
}

/* Candidates [first, first + n) of gen_sample_k (n <= GEN_BATCH_GPU) stepped together:
 * each chooses its next token (seq_next, forced text on its own), then one batched
 * forward runs every candidate still going.  Its rows come back whole, or (gen_env.top) as
 * each row's top candidates, the whole row read only where they cannot decide a draw. */
static pg_status sample_group(const gen_env *e, int first, int n, gen_result *outs, double t0, pg_diag_sink *diag) {
    gen_seq g[GEN_BATCH_GPU];
    memset(g, 0, sizeof g);
    model_ctx *ctxs[GEN_BATCH_GPU];
    int32_t toks[GEN_BATCH_GPU];
    int who[GEN_BATCH_GPU];   /* batch row -> candidate */
    lsrc src[GEN_BATCH_GPU];
    float *logits = NULL, *tv = NULL;   /* [n][vocab], or the top candidates [n][MODEL_TOPK] */
    int32_t *ti = NULL;
    if (e->top) {
        tv = malloc(sizeof(float) * (size_t)n * MODEL_TOPK);
        ti = malloc(sizeof(int32_t) * (size_t)n * MODEL_TOPK);
    } else {
        logits = malloc(sizeof(float) * (size_t)n * (size_t)e->vocab);
    }
    pg_status st = logits || (tv && ti) ? PG_OK : PG_ERR_NOMEM;
    for (int i = 0; i < n && st == PG_OK; i++) {
        st = seq_open(&g[i], e, e->o->sampler.seed + (uint64_t)(first + i), &outs[i], diag);
        src[i] = (lsrc){0, NULL, NULL};   /* the prompt's last row, computed on demand */
    }
    while (st == PG_OK) {
        int rows = 0;
        for (int i = 0; i < n && st == PG_OK; i++) {
            if (g[i].over) continue;
            int32_t tok;
            int pos = model_ctx_pos(g[i].ctx);
            bool refed = false;
            if ((st = seq_next(&g[i], &src[i], &pos, &refed, &tok, diag)) != PG_OK) break;
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
        if (e->top && (st = model_topk_rows(ctxs, rows, tv, ti, diag)) != PG_OK) break;
        for (int r = 0; r < rows; r++) {
            gen_seq *q = &g[who[r]];
            if (e->top) {
                src[who[r]] = (lsrc){0, NULL, keep_top(q, tv + (size_t)r * MODEL_TOPK, ti + (size_t)r * MODEL_TOPK)};
            } else {
                memcpy(q->logits, logits + (size_t)r * e->vocab, sizeof(float) * (size_t)e->vocab);
                src[who[r]] = (lsrc){0, q->logits, NULL};
            }
            q->nrows = 0;   /* its context's last step is this one: one row */
            outs[who[r]].forwards++;
        }
    }
    for (int i = 0; i < n; i++) seq_close(&g[i]);
    free(logits);
    free(tv);
    free(ti);
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
    int group = strcmp(model_device(m), "gpu") ? GEN_BATCH_MAX : GEN_BATCH_GPU;   /* the CPU's batches stay as they were */
    for (int first = 0; first < k && st == PG_OK; first += group) {
        int n = k - first < group ? k - first : group;
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

/* ---- the free turn (no constraint: the plan, the twin) ---------------------------------- */
/* The sampled token tok into the text; true when the turn is over (the end token, a NUL byte). */
static bool free_take(const tok_tokenizer *t, int32_t tok, int32_t end_id, int32_t eot_id, pg_buf *text, gen_result *out,
                      pg_diag_sink *diag) {
    if (tok == end_id || tok == eot_id || tok < 0) { out->finished = tok >= 0; return true; }
    size_t bl = 0;
    const char *b = tok_token_bytes(t, tok, &bl);
    if (memchr(b, 0, bl)) {
        pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "the model emitted a NUL byte (token %d); stopped", (int)tok);
        return true;
    }
    if (!tok_is_special(t, tok)) pg_buf_putn(text, b, bl);
    out->gen_tokens++;
    return false;
}

typedef struct {
    model_ctx *ctx;
    const tok_tokenizer *t;
    const gen_opts *o;
    int32_t end_id, eot_id;
    int max_seq, vocab;
    double row_fixed;   /* o->draft_fixed, else model_exact_fixed_rows: draft_pays */
} free_turn;

/* After a token added text from byte `from` on: with o->loop_stop, does the text now loop
 * (gen_text_loops, read only when a newline came)?  Then the turn ends there, unfinished. */
static bool free_looped(const gen_opts *o, const pg_buf *text, size_t from, gen_result *out) {
    if (!o->loop_stop || text->len <= from || !memchr(text->data + from, '\n', text->len - from)) return false;
    out->looped = gen_text_loops(text->data, text->len, NULL, 0);
    return out->looped;
}

/* The plain loop of gen_free_sample, speculatively: each sampled token runs with drafts (the
 * history's and the table's guesses, no constraint to check them) in one exact step, whose
 * rows' logits (all of them, one pass over the output matrix) feed the same sampler draws the
 * plain loop makes while the drafts agree.  first = the prompt's logits; prompt = its tokens. */
static pg_status free_spec(const free_turn *f, const int32_t *prompt, int nprompt, model_sampler *smp, const float *first,
                           pg_buf *text, gen_result *out, pg_diag_sink *diag) {
    const gen_opts *o = f->o;
    size_t V = (size_t)f->vocab;
    int dmax = o->draft_max < MODEL_EXACT_MAX - 1 ? o->draft_max : MODEL_EXACT_MAX - 1;
    int32_t feed[MODEL_EXACT_MAX];
    uint8_t src[MODEL_EXACT_MAX], kind[MODEL_EXACT_MAX];
    int rows[MODEL_EXACT_MAX];
    draft_odds odds = {{0}, {0}};
    PG_VEC(int32_t) hist = {0};
    float *rowl = malloc(sizeof(float) * (size_t)(dmax + 1) * V);   /* [1 + nd][vocab]: the last step's logits */
    pg_status st = rowl ? PG_OK : PG_ERR_NOMEM;
    for (int i = 0; i < nprompt && st == PG_OK; i++) pg_vec_push(hist, prompt[i]);
    const float *lg = first;   /* logits of the position being chosen */
    int nd = 0, j = 0;         /* drafts of the last step; row j is the one being chosen from */
    while (st == PG_OK) {
        int pos = nprompt + out->gen_tokens;   /* the plain loop's context length here */
        if (!(out->gen_tokens < o->max_tokens && pos < f->max_seq - 1)) break;
        int32_t tok = model_sample(smp, lg, f->vocab);
        size_t had = text->len;
        if (free_take(f->t, tok, f->end_id, f->eot_id, text, out, diag) || free_looped(o, text, had, out)) break;
        pg_vec_push(hist, tok);
        if (j < nd) odds.reached[kind[j]]++;
        if (j < nd && tok == feed[1 + j]) {   /* the draft agrees: it is in the cache, its row is next */
            out->accepted++;
            out->accepted_by[src[j]]++;
            odds.kept[kind[j]]++;
            lg = rowl + (size_t)++j * V;
            continue;
        }
        model_ctx_rewind(f->ctx, pos);   /* drop the drafts from here on */
        /* drafts after tok: none the plain loop would not reach (token budget, context) */
        int want = dmax, room = f->max_seq - 1 - (pos + 1), left = o->max_tokens - out->gen_tokens;
        if (want > room) want = room;
        if (want > left) want = left;
        feed[0] = tok;
        nd = 0;
        int base = hist.n;
        double chance = 1.0, yield = 1.0;
        while (nd < want) {
            gen_draft_src from = GEN_DRAFT_HISTORY;
            int L, k;
            int32_t d = gen_draft_hist_next(hist.v, hist.n, &L);
            k = ODX(DK_HIST + (L > DRAFT_MIN_MATCH ? L - DRAFT_MIN_MATCH : 0), DC_OTHER);   /* (free text: one spot) */
            if (d < 0 && o->ngram) d = gen_ngram_next(o->ngram, hist.v, hist.n, TABLE_MIN_COUNT), from = GEN_DRAFT_TABLE, k = ODX(DK_TABLE, DC_OTHER);
            if (d < 0 || d == f->end_id || d == f->eot_id || !draft_pays(&odds, f->row_fixed, k, nd, &chance, &yield)) break;
            src[nd] = (uint8_t)from;
            kind[nd] = (uint8_t)k;
            feed[1 + nd++] = d;
            pg_vec_push(hist, d);
        }
        hist.n = base;
        if ((st = model_forward_exact(f->ctx, feed, 1 + nd, diag)) != PG_OK) break;
        for (int i = 0; i <= nd; i++) rows[i] = i;
        if ((st = model_logits_rows(f->ctx, rows, 1 + nd, NULL, 0, rowl, diag)) != PG_OK) break;
        out->forwards++;
        out->drafted += nd;
        for (int i = 0; i < nd; i++) out->drafted_by[src[i]]++;
        j = 0;
        lg = rowl;
    }
    pg_vec_free(hist);
    free(rowl);
    return st;
}

/* The free turn's token after ctx's last step from that row's top candidates, or (they cannot
 * decide: top_k 0, top_p) from the whole row, read into logits[vocab]: model_sample's draw. */
static pg_status free_top_pick(model_ctx *ctx, model_sampler *smp, float *logits, int vocab, int32_t *tok, gen_result *out,
                               pg_diag_sink *diag) {
    float v[MODEL_TOPK];
    int32_t id[MODEL_TOPK];
    pg_status st = model_topk_rows(&ctx, 1, v, id, diag);
    if (st != PG_OK) return st;
    int n = 0;
    while (n < MODEL_TOPK && id[n] >= 0) n++;
    bool need;
    *tok = gen_top_sample(smp, &(gen_top){v, id, n}, NULL, NULL, &need);
    out->top_decided += !need;
    out->top_full += need;
    if (!need) return PG_OK;
    int last = 0;
    if ((st = model_logits_rows(ctx, &last, 1, NULL, 0, logits, diag)) != PG_OK) return st;
    *tok = model_sample(smp, logits, vocab);
    return PG_OK;
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
    /* plain decoding on the GPU engine: each step's row stays on the device, its top 64 come back */
    bool top = o->draft_max <= 0 && top_on(m);
    if ((st = model_forward(ctx, ids, (int)nid, top ? NULL : logits, NULL, diag)) != PG_OK) goto done;
    model_sampler smp;
    model_sampler_init(&smp, &o->sampler);
    if (o->draft_max > 0) {
        free_turn ft = {ctx, t, o, end_id, eot_id, max_seq, vocab, o->draft_fixed > 0 ? o->draft_fixed : model_exact_fixed_rows(m)};
        if ((st = free_spec(&ft, ids, (int)nid, &smp, logits, &text, out, diag)) != PG_OK) goto done;
    } else {
        while (out->gen_tokens < o->max_tokens && model_ctx_pos(ctx) < max_seq - 1) {
            int32_t tok;
            if (top && (st = free_top_pick(ctx, &smp, logits, vocab, &tok, out, diag)) != PG_OK) goto done;
            if (!top) tok = model_sample(&smp, logits, vocab);
            size_t from = text.len;
            if (free_take(t, tok, end_id, eot_id, &text, out, diag) || free_looped(o, &text, from, out)) break;
            if ((st = model_forward(ctx, &tok, 1, top ? NULL : logits, NULL, diag)) != PG_OK) goto done;
            out->forwards++;
        }
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
