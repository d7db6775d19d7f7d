/* model.c — the Qwen2 transformer's forward pass with a KV cache (loading is load.c).
 *
 * One layer, for n tokens at positions pos..pos+n-1 (x is the residual stream):
 *   xb  = RMSNorm(x) * ln1                       [n][H]
 *   qkv = xb @ [Wq;Wk;Wv]^T + [bq;bk;bv]         [n][QD + 2*KVD]   (one matmul)
 *   RoPE on q and k (HF rotate_half), k and v appended to the cache
 *   att = softmax(q k^T / sqrt(hd)) v per head   [n][QD]   (GQA: head h reads kv head h / (NH/NKV))
 *   x  += att @ Wo^T                             [n][H]
 *   xb  = RMSNorm(x) * ln2
 *   gu  = xb @ [Wgate;Wup]^T                     [n][2*I]  (one matmul)
 *   x  += (silu(g) * u) @ Wdown^T                [n][H]
 * then logits = RMSNorm(x) * norm @ lm_head^T (lm_head = embed_tokens when tied).
 * The weights are stored concatenated (q|k|v, gate|up) so a decode step costs
 * five pool dispatches per layer (four matmuls, attention), not eight; the
 * per-token elementwise steps run on the caller in decode and on the pool, over
 * tokens, in prefill.  Attention takes a KV head's query heads together (GQA),
 * and the rows of one context (a chunk, a verify step) in groups of up to 8, so
 * a group reads each cache entry once (run_attention); K is cached in blocks of
 * 16 positions ([hd][16]) so scores need no horizontal sums.
 * A batched step (model_forward_batch) runs the same layer code with row t of the
 * scratch being sequence t's one new token: the matmuls see nseq stacked rows (one
 * weight read for all), while RoPE, the cache write and attention use row t's own
 * context and position (row_ctx). */
#include "model_internal.h"
#include "gpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


struct model_ctx {
    model_model *m;
    int max_seq, pos;
    float *kc;            /* [L][KV heads][max_seq / 16][hd][16]: K in blocks of 16 positions */
    float *vc;            /* [L][max_seq][KVD] */
    float *rope_cos, *rope_sin;   /* [max_seq][hd/2] */
    float *x, *xb, *qkv, *att, *gu, *h, *tmp;   /* chunk scratch, [CHUNK][...] */
    float *scores;        /* [nthreads][heads per KV head][max_seq] */
    float *hrows;         /* [CHUNK][H] final-normed hidden states of the last step's rows (model_logits_rows):
                           * row 0 only after model_forward / model_forward_batch (its last token),
                           * rows 0..n-1 after model_forward_exact */
    int nhrows;           /* rows of hrows that are valid (0 before any step and after a rewind) */
    float *lt, *ly;       /* LoRA side path scratch: [CHUNK][lora_rmax], [CHUNK][lora_outmax] */
    float *lht, *lhy;     /* head side path: [lhead.R], [vocab] */
    gpu_ctx *gc;          /* the GPU engine's half (the KV cache, logits rows on the device); then nothing above is allocated */
};

const model_config *model_get_config(const model_model *m) { return &m->cfg; }

const char *const model_prof_names[PROF_N] = {"embed", "elementwise", "qkv", "attention", "o", "gate_up", "down", "head", "lora"};

void model_prof_attach(model_model *m, model_prof *p) {
    m->prof = p;
    model_pool_set_prof(m->pool, p ? &p->pool : NULL);
}

static double prof_now(const model_prof *p) {
    struct timespec ts;
    clock_gettime(p->thread_cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
/* Run `stmt` and, with a profile attached, add its time to stage `st`. */
#define PROF(m, st, stmt)                                  \
    do {                                                    \
        double prof_t0_ = (m)->prof ? prof_now((m)->prof) : 0; \
        stmt;                                               \
        if ((m)->prof) (m)->prof->stage_s[st] += prof_now((m)->prof) - prof_t0_; \
    } while (0)
size_t model_param_count(const model_model *m) { return m->nparams; }
int model_threads(const model_model *m) { return model_pool_size(m->pool); }
const char *model_device(const model_model *m) { return m->gpu || m->gpu_deferred ? "gpu" : "cpu"; }
const char *model_device_desc(const model_model *m) {
    return m->gpu ? model_gpu_describe(m->gpu) : m->gpu_deferred ? m->gpu_desc : model_kernels_isa();
}
double model_exact_fixed_rows(const model_model *m) {
    /* measured with bench_model --exact --ctx 1500: bench/results/2026-12-06-gen-speculation-h68-cpu.json (AVX-512),
     * bench/results/2026-12-06-gen-speculation-h81-cpu.json (AVX2); the GPU engine as it was.  AVX2 with h90's
     * verify tiles: 3 and 4 (gen --draft-fixed) took fewer steps but no less decode CPU than 2,
     * bench/results/2026-12-07-gen-speculation-h91-cpu.json */
    if (model_device(m)[0] == 'g' || !strcmp(model_kernels_isa(), "avx512")) return 8.0;
    return 2.0;
}
bool model_gpu_deferred(const model_model *m) { return m->gpu_deferred && !m->gpu; }
void model_gpu_set_desc(model_model *m, const char *desc) { snprintf(m->gpu_desc, sizeof m->gpu_desc, "%s", desc); }
void model_gpu_set_server(model_model *m, void *server, void (*close_fn)(void *)) {
    if (m->gpu_server && m->gpu_server_close) m->gpu_server_close(m->gpu_server);
    m->gpu_server = server;
    m->gpu_server_close = close_fn;
}
void *model_gpu_server(const model_model *m) { return m->gpu_server; }
pg_status model_gpu_start(model_model *m, pg_diag_sink *diag) {
    if (!model_gpu_deferred(m)) return PG_OK;
    pg_pool *p = model_pool_new(model_pool_size(m->pool));   /* the parent's workers are not in this process */
    if (!p) return PG_ERR_NOMEM;
    m->pool = p;
    pg_status st = model_gpu_open(m, diag);
    if (st == PG_OK) m->gpu_deferred = false;
    return st;
}
const char *model_weight_dtype(const model_model *m) {
    return m->wt == WT_F32 ? "f32" : m->wt == WT_BF16 ? "bf16" : m->wt == WT_Q8 ? "q8" : "gguf";
}

static size_t lora_bytes(const lora_side *ls) {
    size_t b = model_wmat_bytes(&ls->A);
    for (int i = 0; i < ls->nmod; i++) b += model_wmat_bytes(&ls->mod[i].B);
    return b;
}

size_t model_weight_bytes(const model_model *m) {
    const model_config *c = &m->cfg;
    size_t b = model_wmat_bytes(&m->embed) + model_wmat_bytes(&m->lm_head) + (size_t)c->hidden_size * 4 + lora_bytes(&m->lhead);
    for (int l = 0; l < c->num_hidden_layers; l++) {
        const layer *L = &m->L[l];
        b += model_wmat_bytes(&L->qkv) + model_wmat_bytes(&L->o) + model_wmat_bytes(&L->gate_up) + model_wmat_bytes(&L->down);
        b += (size_t)(2 * c->hidden_size + (L->bqkv ? L->qkv.rows : 0)) * 4;
        b += lora_bytes(&L->lqkv) + lora_bytes(&L->lo) + lora_bytes(&L->lgu) + lora_bytes(&L->ldown);
    }
    return b;
}

size_t model_stage_bytes(const model_model *m, int st) {
    const model_config *c = &m->cfg;
    size_t b = 0;
    for (int l = 0; l < c->num_hidden_layers; l++) {
        const layer *L = &m->L[l];
        switch (st) {
        case PROF_QKV: b += model_wmat_bytes(&L->qkv); break;
        case PROF_O: b += model_wmat_bytes(&L->o); break;
        case PROF_GATE_UP: b += model_wmat_bytes(&L->gate_up); break;
        case PROF_DOWN: b += model_wmat_bytes(&L->down); break;
        case PROF_LORA: b += lora_bytes(&L->lqkv) + lora_bytes(&L->lo) + lora_bytes(&L->lgu) + lora_bytes(&L->ldown); break;
        case PROF_EW: b += (size_t)(2 * c->hidden_size + (L->bqkv ? L->qkv.rows : 0)) * 4; break;
        default: break;
        }
    }
    const wmat *head = c->tie_word_embeddings ? &m->embed : &m->lm_head;
    if (st == PROF_HEAD) b += model_wmat_bytes(head);
    if (st == PROF_LORA) b += lora_bytes(&m->lhead);
    if (st == PROF_EW) b += (size_t)c->hidden_size * 4;
    if (st == PROF_EMBED && m->embed.rows) b += model_wmat_bytes(&m->embed) / (size_t)m->embed.rows;
    return b;
}

size_t model_decode_bytes(const model_model *m) {
    size_t b = 0;
    for (int st = 0; st < PROF_N; st++) b += model_stage_bytes(m, st);
    return b;
}

/* ---- contexts -------------------------------------------------------------------------- */
static pg_status model_ctx_new_(model_model *m, int max_seq, model_ctx **out, pg_diag_sink *diag) {
    *out = NULL;
    const model_config *c = &m->cfg;
    if (max_seq <= 0) max_seq = c->max_position_embeddings;
    if (max_seq > (1 << 22)) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0, "context of %d positions is over the 4M limit", max_seq);
        return PG_ERR_LIMIT;
    }
    if (model_gpu_deferred(m)) {   /* never the CPU engine in its place: the caller asked for the GPU */
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "the GPU engine was deferred at load (gpu_defer): model_gpu_start it first");
        return PG_ERR_USAGE;
    }
    model_ctx *x = model_calloc(1, sizeof *x);
    if (!x) return PG_ERR_NOMEM;
    x->m = m;
    x->max_seq = max_seq;
    if (m->gpu) {   /* the cache lives on the device */
        pg_status st = model_gpu_ctx_new(m->gpu, max_seq, &x->gc, diag);
        if (st != PG_OK) {
            free(x);
            return st;
        }
        *out = x;
        return PG_OK;
    }
    int H = c->hidden_size, I = c->intermediate_size, hd = c->head_dim;
    int QD = c->num_attention_heads * hd, KVD = c->num_key_value_heads * hd;
    size_t kv = (size_t)c->num_hidden_layers * max_seq * KVD;
    x->kc = model_alloc((size_t)c->num_hidden_layers * c->num_key_value_heads * (((size_t)max_seq + 15) / 16 * 16) * hd * 4);
    x->vc = model_alloc(kv * 4);
    x->rope_cos = model_alloc((size_t)max_seq * (hd / 2) * 4);
    x->rope_sin = model_alloc((size_t)max_seq * (hd / 2) * 4);
    x->x = model_alloc((size_t)CHUNK * H * 4);
    x->xb = model_alloc((size_t)CHUNK * H * 4);
    x->tmp = model_alloc((size_t)CHUNK * H * 4);
    x->qkv = model_alloc((size_t)CHUNK * (QD + 2 * KVD) * 4);
    x->att = model_alloc((size_t)CHUNK * QD * 4);
    x->gu = model_alloc((size_t)CHUNK * 2 * I * 4);
    x->h = model_alloc((size_t)CHUNK * I * 4);
    x->scores = model_alloc((size_t)model_pool_size(m->pool) * (c->num_attention_heads / c->num_key_value_heads) * max_seq * 4);
    x->hrows = model_alloc((size_t)CHUNK * H * 4);
    bool lora_ok = true;
    if (m->lora_rmax) {
        x->lt = model_alloc((size_t)CHUNK * m->lora_rmax * 4);
        x->ly = model_alloc((size_t)CHUNK * m->lora_outmax * 4);
        lora_ok = x->lt && x->ly;
    }
    if (m->lhead.nmod) {
        x->lht = model_alloc((size_t)m->lhead.R * 4);
        x->lhy = model_alloc((size_t)c->vocab_size * 4);
        lora_ok = lora_ok && x->lht && x->lhy;
    }
    if (!x->kc || !x->vc || !x->rope_cos || !x->rope_sin || !x->x || !x->xb || !x->tmp || !x->qkv || !x->att || !x->gu ||
        !x->h || !x->scores || !x->hrows || !lora_ok) {
        model_ctx_free(x);
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0, "out of memory for a %d-position context", max_seq);
        return PG_ERR_NOMEM;
    }
    /* RoPE angles as HF computes them, in float: inv_freq[i] = 1 / theta^(2i/hd), angle = pos * inv_freq */
    for (int i = 0; i < hd / 2; i++) {
        float inv = 1.0f / powf((float)c->rope_theta, (float)(2 * i) / (float)hd);
        for (int p = 0; p < max_seq; p++) {
            float a = (float)p * inv;
            x->rope_cos[(size_t)p * (hd / 2) + i] = cosf(a);
            x->rope_sin[(size_t)p * (hd / 2) + i] = sinf(a);
        }
    }
    *out = x;
    return PG_OK;
}

pg_status model_ctx_new(model_model *m, int max_seq, model_ctx **out, pg_diag_sink *diag) {
    int e0 = diag ? diag->nerrors : 0;
    model_oom_bytes = 0;
    pg_status st = model_ctx_new_(m, max_seq, out, diag);
    if (st != PG_OK && model_oom_bytes && diag && diag->nerrors == e0) {
        pg_diag_emit(diag, PG_E_IO, "ptxgen", 0, 0, "out of memory for the inference context of %d positions (a buffer of %.1f MB)",
                     max_seq, model_oom_bytes / 1048576.0);
        return PG_ERR_NOMEM;
    }
    return pg_nomem_said(st, diag, e0, "ptxgen", "allocating the inference context");
}


void model_ctx_free(model_ctx *c) {
    if (!c) return;
    model_gpu_ctx_free(c->gc);
    free(c->kc); free(c->vc); free(c->rope_cos); free(c->rope_sin);
    free(c->x); free(c->xb); free(c->tmp); free(c->qkv); free(c->att); free(c->gu); free(c->h); free(c->scores);
    free(c->hrows); free(c->lt); free(c->ly); free(c->lht); free(c->lhy);
    free(c);
}

int model_ctx_pos(const model_ctx *c) { return c->pos; }

void model_ctx_rewind(model_ctx *c, int pos) {
    if (pos < 0) pos = 0;
    if (pos < c->pos) {
        c->pos = pos;   /* entries >= pos are simply overwritten later */
        c->nhrows = 0;
    }
}

/* ---- forward ----------------------------------------------------------------------------- */
/* HF rotate_half: pairs (i, i + hd/2) rotated by the position's angle (ggml's NEOX
 * rope); adjacent: pairs (2i, 2i+1) (ggml's "normal" rope, for llama GGUFs whose Q/K
 * rows llama.cpp's converter permuted to match it; the scores come out the same). */
static void rope(float *v, const float *cs, const float *sn, int hd, bool adjacent) {
    int h2 = hd / 2;
    if (adjacent) {
        for (int i = 0; i < h2; i++) {
            float a = v[2 * i], b = v[2 * i + 1];
            v[2 * i] = a * cs[i] - b * sn[i];
            v[2 * i + 1] = b * cs[i] + a * sn[i];
        }
        return;
    }
    for (int i = 0; i < h2; i++) {
        float a = v[i], b = v[i + h2];
        v[i] = a * cs[i] - b * sn[i];
        v[i + h2] = b * cs[i] + a * sn[i];
    }
}

/* The K cache of layer l, KV head h: [ceil(max_seq / 16)][hd][16] (positions in blocks of 16). */
static float *kcache(model_ctx *c, int l, int h) {
    const model_config *cf = &c->m->cfg;
    size_t per = (size_t)(c->max_seq + 15) / 16 * 16 * cf->head_dim;   /* floats per (layer, KV head) */
    return c->kc + ((size_t)l * cf->num_key_value_heads + h) * per;
}

/* Whose cache and position scratch row t of a forward step is: one context's chunk
 * (seq NULL: row t is c's token at c->pos + t), or a batched step (model_forward_batch:
 * row t is sequence seq[t]'s one new token, at seq[t]->pos).  The scratch rows (x, xb,
 * qkv, att, ...) are c's either way. */
static model_ctx *row_ctx(model_ctx *c, model_ctx *const *seq, int t, int *pos) {
    if (seq) {
        *pos = seq[t]->pos;
        return seq[t];
    }
    *pos = c->pos + t;
    return c;
}

typedef struct {
    model_ctx *c;         /* scratch rows */
    model_ctx *const *seq;/* batched step: row t's context (NULL: every row is c's) */
    int l, n;             /* layer, rows in the step */
    int g;                /* rows per work item: rows of one context (seq NULL) go in groups of g, which read
                           * the cache once for the group (model_kern_attn_rows); a batched step's rows one by one */
    int nch;              /* pool chunks the work items (KV head, group of rows) are split into */
} att_job;

/* Attention for the work items of pool chunks [c0, c1): (group of rows, KV head), causal, row t
 * over its context's cache positions 0..p (p: the row's own position, row_ctx). */
static void attention(void *arg, int c0, int c1, int ith) {
    const att_job *J = arg;
    model_ctx *c = J->c;
    const model_config *cf = &c->m->cfg;
    int hd = cf->head_dim, nh = cf->num_attention_heads, nkv = cf->num_key_value_heads, ng = nh / nkv;
    int QD = nh * hd, KVD = nkv * hd, W = QD + 2 * KVD;
    float scale = 1.0f / sqrtf((float)hd);
    int ngr = (J->n + J->g - 1) / J->g;
    int total = ngr * nkv;   /* a KV head's query heads read its cache rows once */
    for (int w = (int)((long)total * c0 / J->nch); w < (int)((long)total * c1 / J->nch); w++) {
        int t = w / nkv * J->g, kvh = w % nkv, pos;
        int nr = J->n - t < J->g ? J->n - t : J->g;
        model_ctx *rc = row_ctx(c, J->seq, t, &pos);   /* the cache row t reads: positions 0..pos (row t + i: pos + i) */
        float *sc = rc->scores + (size_t)ith * ng * rc->max_seq;                  /* [ng][max_seq]: one row */
        if (nr > 1) {   /* [nr][ng][pos + nr]: the thread's pool scratch */
            sc = model_pool_scratch(c->m->pool, ith, (size_t)nr * ng * (size_t)(pos + nr) * sizeof *sc);
            if (!sc) pg_oom();
        }
        const float *vbase = rc->vc + (size_t)J->l * rc->max_seq * KVD;          /* [max_seq][KVD] */
        const float *q = c->qkv + (size_t)t * W + (size_t)kvh * ng * hd;          /* [ng][hd] per row, rows W apart */
        model_kern_attn_rows(q, (size_t)W, nr, ng, kcache(rc, J->l, kvh), vbase + (size_t)kvh * hd, (size_t)KVD, pos + 1, hd, scale, sc,
                             c->att + (size_t)t * QD + (size_t)kvh * ng * hd, (size_t)QD);
    }
}

/* Attention of a step's rows on the pool.  Rows of one context go in groups of at most 8
 * (sized evenly: 9 rows are 5 + 4), so a group reads each cache block once; the work items
 * are (group, KV head). */
static void run_attention(model_ctx *c, model_ctx *const *seq, int l, int n) {
    int nkv = c->m->cfg.num_key_value_heads, most = 8 * model_pool_size(c->m->pool);
    att_job aj = {c, seq, l, n, 1, 0};
    if (!seq && n > 1) {
        int groups = (n + 7) / 8;
        aj.g = (n + groups - 1) / groups;
    }
    int items = (n + aj.g - 1) / aj.g * nkv;
    aj.nch = items < most ? items : most;
    model_pool_run(c->m->pool, attention, &aj, aj.nch);
}

/* Per-token elementwise steps between the matmuls, over token ranges: on the
 * pool for a prefill chunk, on the caller for a decode step (no dispatch). */
enum { EW_RMS1, EW_ADD_RMS1, EW_QKV, EW_ADD_RMS2, EW_SILU };
typedef struct {
    model_ctx *c;         /* scratch rows */
    model_ctx *const *seq;/* batched step: row t's context (see row_ctx) */
    const layer *L;
    int l, n, stage;
} ew_job;

static void ew_rows(void *arg, int t0, int t1, int ith) {
    const ew_job *J = arg;
    model_ctx *c = J->c;
    const model_config *cf = &c->m->cfg;
    const layer *L = J->L;
    int H = cf->hidden_size, I = cf->intermediate_size, hd = cf->head_dim, h2 = hd / 2;
    int nh = cf->num_attention_heads, nkv = cf->num_key_value_heads;
    int QD = nh * hd, KVD = nkv * hd, W = QD + 2 * KVD;
    float eps = (float)cf->rms_norm_eps;
    for (int t = t0; t < t1; t++) {
        float *x = c->x + (size_t)t * H, *xb = c->xb + (size_t)t * H;
        switch (J->stage) {
        case EW_ADD_RMS1:
        case EW_ADD_RMS2: {
            const float *d = c->tmp + (size_t)t * H;
            for (int i = 0; i < H; i++) x[i] += d[i];
            model_kern_rmsnorm(xb, x, J->stage == EW_ADD_RMS1 ? L->ln1 : L->ln2, H, eps);
            break;
        }
        case EW_RMS1: model_kern_rmsnorm(xb, x, L->ln1, H, eps); break;
        case EW_QKV: {
            float *r = c->qkv + (size_t)t * W;   /* [W]: q | k | v of row t */
            int p;
            model_ctx *rc = row_ctx(c, J->seq, t, &p);   /* RoPE at p, K/V into rc's cache */
            if (L->bqkv)
                for (int i = 0; i < W; i++) r[i] += L->bqkv[i];
            const float *cs = rc->rope_cos + (size_t)p * h2, *sn = rc->rope_sin + (size_t)p * h2;
            bool adj = c->m->rope_adjacent;
            for (int h = 0; h < nh; h++) rope(r + h * hd, cs, sn, hd, adj);
            for (int h = 0; h < nkv; h++) rope(r + QD + h * hd, cs, sn, hd, adj);
            size_t at = ((size_t)J->l * rc->max_seq + p) * KVD;
            for (int h = 0; h < nkv; h++) {   /* K: blocks of 16 positions, [hd][16] each */
                float *kb = kcache(rc, J->l, h) + (size_t)(p / 16) * 16 * hd + p % 16;
                for (int d = 0; d < hd; d++) kb[d * 16] = r[QD + h * hd + d];
            }
            memcpy(rc->vc + at, r + QD + KVD, (size_t)KVD * 4);
            break;
        }
        default: {
            const float *g = c->gu + (size_t)t * 2 * I;
            model_kern_silu_mul(c->h + (size_t)t * I, g, g + I, I);
            break;
        }
        }
    }
}

static void run_ew(ew_job *J) {
    /* up to a verify step's rows on the caller: microseconds of work, less than a pool dispatch
     * costs when the other thread is descheduled (per row the same code, so the same values) */
    if (J->n <= 16) ew_rows(J, 0, J->n, 0);
    else model_pool_run(J->c->m->pool, ew_rows, J, J->n);
}

/* out[n][.] (row stride ldo) += the side path of ls on x[n][in] (stride ldx): t = A x, then
 * B_i t_i into the module's output rows.  Decode (and an exact step) stays on the caller (the
 * matrices are small; a pool dispatch would cost more than the work: on the pool, gate|up's B
 * (9728 x 16) and a verify step's rows of each A made the LoRA stage 1.6-4x slower at 2 threads
 * on the shared VM, bench/results/2026-12-06-gen-speculation-h72-cpu.json); prefill runs on the pool. */
static void lora_apply(model_ctx *c, const lora_side *ls, const float *x, int ldx, int n, float *out, int ldo, bool exact) {
    if (!ls->nmod) return;
    pg_pool *p = c->m->pool;
    bool local = n < 4 || exact;   /* exact: the decode kernels, as a one-token step runs them */
    if (local) model_matmul_local(c->lt, ls->R, x, ldx, n, &ls->A);
    else model_matmul(p, c->lt, ls->R, x, ldx, n, &ls->A);
    for (int i = 0; i < ls->nmod; i++) {
        const wmat *B = &ls->mod[i].B;
        if (local) model_matmul_local(c->ly, B->rows, c->lt + ls->mod[i].t0, ls->R, n, B);
        else model_matmul(p, c->ly, B->rows, c->lt + ls->mod[i].t0, ls->R, n, B);
        for (int t = 0; t < n; t++) {
            float *o = out + (size_t)t * ldo + ls->mod[i].out0;
            const float *y = c->ly + (size_t)t * B->rows;
            for (int r = 0; r < B->rows; r++) o[r] += y[r];
        }
    }
}

/* logits[V] (+)= the head's side path for one final-normed hidden row h[H]. */
static void lora_head(model_ctx *c, const float *h, float *logits) {
    const lora_side *ls = &c->m->lhead;
    if (!ls->nmod) return;
    model_matmul_local(c->lht, ls->R, h, 0, 1, &ls->A);
    const wmat *B = &ls->mod[0].B;
    model_matmul(c->m->pool, c->lhy, B->rows, c->lht, ls->R, 1, B);   /* [V][r]: big enough for the pool */
    for (int v = 0; v < B->rows; v++) logits[v] += c->lhy[v];
}

/* One step over n scratch rows of c (n <= CHUNK): a chunk of c's tokens (seq NULL) or
 * one new token for each of the n contexts seq[0..n) (model_forward_batch; c = seq[0]).
 * exact: every matmul runs the decode kernels whatever n, so each row's arithmetic is that
 * of a one-token step (model_forward_exact); every row's final-normed state is kept.
 * all_logits [n][vocab] receives every row's logits, last_logits [vocab] the last
 * row's (either may be NULL); each row's context advances by its tokens.
 * c's scratch, row t per token: x, xb, tmp [n][H]; qkv [n][QD + 2*KVD]; att [n][QD];
 * gu [n][2*I]; h [n][I]. */
static void forward_rows(model_ctx *c, model_ctx *const *seq, const int32_t *toks, int n, float *all_logits,
                         float *last_logits, bool exact) {
    model_model *m = c->m;
    const model_config *cf = &m->cfg;
    int H = cf->hidden_size, I = cf->intermediate_size, hd = cf->head_dim;
    int nh = cf->num_attention_heads, nkv = cf->num_key_value_heads;
    int QD = nh * hd, KVD = nkv * hd, W = QD + 2 * KVD;
    float eps = (float)cf->rms_norm_eps;
#define MM(out, ldo, x, ldx, n_, w) (exact ? model_matmul_dec : model_matmul)(m->pool, out, ldo, x, ldx, n_, w)
    if (m->prof) m->prof->rows += n;
    PROF(m, PROF_EMBED, for (int t = 0; t < n; t++) model_wmat_row_f32(&m->embed, toks[t], c->x + (size_t)t * H));
    for (int l = 0; l < cf->num_hidden_layers; l++) {
        const layer *L = &m->L[l];
        ew_job ej = {c, seq, L, l, n, l > 0 ? EW_ADD_RMS1 : EW_RMS1};
        PROF(m, PROF_EW, run_ew(&ej));   /* (x += down output of the layer before;) xb = rmsnorm(x) */
        PROF(m, PROF_QKV, MM(c->qkv, W, c->xb, H, n, &L->qkv));
        PROF(m, PROF_LORA, lora_apply(c, &L->lqkv, c->xb, H, n, c->qkv, W, exact));
        ej.stage = EW_QKV;
        PROF(m, PROF_EW, run_ew(&ej));   /* bias, RoPE, K/V into the cache */
        PROF(m, PROF_ATTN, run_attention(c, seq, l, n));
        PROF(m, PROF_O, MM(c->tmp, H, c->att, QD, n, &L->o));
        PROF(m, PROF_LORA, lora_apply(c, &L->lo, c->att, QD, n, c->tmp, H, exact));
        ej.stage = EW_ADD_RMS2;
        PROF(m, PROF_EW, run_ew(&ej));   /* x += o output; xb = rmsnorm(x) */
        PROF(m, PROF_GATE_UP, MM(c->gu, 2 * I, c->xb, H, n, &L->gate_up));
        PROF(m, PROF_LORA, lora_apply(c, &L->lgu, c->xb, H, n, c->gu, 2 * I, exact));
        ej.stage = EW_SILU;
        PROF(m, PROF_EW, run_ew(&ej));
        PROF(m, PROF_DOWN, MM(c->tmp, H, c->h, I, n, &L->down));
        PROF(m, PROF_LORA, lora_apply(c, &L->ldown, c->h, I, n, c->tmp, H, exact));
    }
    /* the last layer's down output: added only to the rows the final norm reads */
    for (int t = all_logits || seq || exact ? 0 : n - 1; t < n; t++)
        for (int i = 0; i < H; i++) c->x[(size_t)t * H + i] += c->tmp[(size_t)t * H + i];
    const wmat *head = cf->tie_word_embeddings ? &m->embed : &m->lm_head;
    if (all_logits) {
        for (int t = 0; t < n; t++) model_kern_rmsnorm(c->xb + (size_t)t * H, c->x + (size_t)t * H, m->norm, H, eps);
        PROF(m, PROF_HEAD, model_matmul(m->pool, all_logits, cf->vocab_size, c->xb, H, n, head));
        PROF(m, PROF_LORA, for (int t = 0; t < n; t++) lora_head(c, c->xb + (size_t)t * H, all_logits + (size_t)t * cf->vocab_size));
        if (last_logits) memcpy(last_logits, all_logits + (size_t)(n - 1) * cf->vocab_size, (size_t)cf->vocab_size * 4);
    } else if (last_logits) {   /* only the last position's logits are wanted: one row, not n */
        model_kern_rmsnorm(c->xb, c->x + (size_t)(n - 1) * H, m->norm, H, eps);
        PROF(m, PROF_HEAD, model_matmul(m->pool, last_logits, cf->vocab_size, c->xb, H, 1, head));
        PROF(m, PROF_LORA, lora_head(c, c->xb, last_logits));
    }
    /* the final-normed states for model_logits_rows: the last token's, or every row's (exact) */
    if (seq) {   /* a batched step: every row is the last token of its own sequence */
        for (int t = 0; t < n; t++) {
            model_kern_rmsnorm(seq[t]->hrows, c->x + (size_t)t * H, m->norm, H, eps);
            seq[t]->nhrows = 1;
            seq[t]->pos++;
        }
        return;
    }
    if (exact) {
        for (int t = 0; t < n; t++) model_kern_rmsnorm(c->hrows + (size_t)t * H, c->x + (size_t)t * H, m->norm, H, eps);
        c->nhrows = n;
    } else {
        model_kern_rmsnorm(c->hrows, c->x + (size_t)(n - 1) * H, m->norm, H, eps);
        c->nhrows = 1;
    }
    c->pos += n;
}
#undef MM

/* model_forward and model_forward_exact on the GPU engine: chunks of GPU_ROWS rows; the rows
 * that keep logits are the last token's (every row's for all_logits or exact). */
static pg_status gpu_forward(model_ctx *c, const int32_t *toks, int n, float *logits, float *all_logits, bool exact,
                             float *tvals, int32_t *tids, pg_diag_sink *diag) {
    int V = c->m->cfg.vocab_size, nb = 0;
    gpu_ctx *gcs[GPU_ROWS];
    int pos[GPU_ROWS];
    c->nhrows = 0;
    for (int s = 0; s < n; s += nb) {
        nb = n - s < GPU_ROWS ? n - s : GPU_ROWS;
        for (int t = 0; t < nb; t++) {
            gcs[t] = c->gc;
            pos[t] = c->pos + t;
        }
        int keep0 = all_logits || exact ? 0 : s + nb == n ? nb - 1 : nb;
        bool last = s + nb == n;   /* its last row is the last token's: its top 64 when asked */
        pg_status st = model_gpu_step(c->m->gpu, gcs, pos, toks + s, nb, keep0, exact, all_logits ? all_logits + (size_t)s * V : NULL,
                                      last ? tvals : NULL, last ? tids : NULL, diag);
        if (st != PG_OK) return st;
        c->pos += nb;
    }
    if (exact) {
        c->nhrows = n;
        return PG_OK;
    }
    pg_status st = all_logits ? model_gpu_keep_row(c->gc, nb - 1, diag) : PG_OK;
    if (st != PG_OK) return st;
    c->nhrows = 1;
    if (logits && all_logits) memcpy(logits, all_logits + (size_t)(n - 1) * V, (size_t)V * sizeof *logits);
    else if (logits) return model_gpu_logits(c->gc, 0, NULL, 0, logits, diag);
    return PG_OK;
}

/* model_forward's argument checks: PG_OK, or the status of the diagnostic emitted */
static pg_status forward_args(const model_ctx *c, const int32_t *toks, int n, pg_diag_sink *diag) {
    const model_config *cf = &c->m->cfg;
    if (n < 1) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0, "model_forward needs at least one token");
        return PG_ERR_USAGE;
    }
    if (n > c->max_seq - c->pos) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0, "%d tokens at position %d exceed the context of %d", n, c->pos,
                     c->max_seq);
        return PG_ERR_LIMIT;
    }
    for (int i = 0; i < n; i++)
        if (toks[i] < 0 || toks[i] >= cf->vocab_size) {
            pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0, "token id %d (input %d) is outside the vocabulary [0, %d)",
                         (int)toks[i], i, cf->vocab_size);
            return PG_ERR_USAGE;
        }
    return PG_OK;
}

pg_status model_forward(model_ctx *c, const int32_t *toks, int n, float *logits, float *all_logits, pg_diag_sink *diag) {
    const model_config *cf = &c->m->cfg;
    pg_status st = forward_args(c, toks, n, diag);
    if (st != PG_OK) return st;
    if (c->gc) return gpu_forward(c, toks, n, logits, all_logits, false, NULL, NULL, diag);
    for (int s = 0; s < n; s += CHUNK) {
        int nb = n - s < CHUNK ? n - s : CHUNK;
        bool last = s + nb == n;
        forward_rows(c, NULL, toks + s, nb, all_logits ? all_logits + (size_t)s * cf->vocab_size : NULL, last ? logits : NULL, false);
    }
    return PG_OK;
}

pg_status model_forward_top(model_ctx *c, const int32_t *toks, int n, float *vals, int32_t *ids, pg_diag_sink *diag) {
    pg_status st = forward_args(c, toks, n, diag);
    if (st != PG_OK) return st;
    if (c->gc) return gpu_forward(c, toks, n, NULL, NULL, false, vals, ids, diag);   /* one submission, one synchronize */
    st = model_forward(c, toks, n, NULL, NULL, diag);
    return st == PG_OK ? model_topk_rows(&c, 1, vals, ids, diag) : st;
}

pg_status model_gpu_option(model_model *m, const char *key, int value, pg_diag_sink *diag) {
    if (!m->gpu) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "model_gpu_option \"%s\": the model does not run on the GPU engine", key);
        return PG_ERR_USAGE;
    }
    return model_gpu_set(m->gpu, key, value, diag);
}

pg_status model_gpu_profile(const model_model *m, char *json, size_t n, pg_diag_sink *diag) {
    if (!m->gpu) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "model_gpu_profile: the model does not run on the GPU engine");
        return PG_ERR_USAGE;
    }
    return model_gpu_profile_json(m->gpu, json, n, diag);
}

long model_gpu_kernel_launches(const model_model *m) { return m->gpu ? model_gpu_launches(m->gpu) : -1; }

pg_status model_forward_batch(model_ctx *const *ctxs, int nseq, const int32_t *toks, float *logits, pg_diag_sink *diag) {
    if (nseq < 1 || !ctxs || !toks) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0, "model_forward_batch needs at least one sequence (got %d)", nseq);
        return PG_ERR_USAGE;
    }
    const model_model *m = ctxs[0]->m;
    int V = m->cfg.vocab_size;
    /* every check before any context changes: a refused step leaves all of them as they were */
    for (int i = 0; i < nseq; i++) {
        const model_ctx *c = ctxs[i];
        if (c->m != m) {
            pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0,
                         "model_forward_batch: sequence %d's context belongs to another model than sequence 0's", i);
            return PG_ERR_USAGE;
        }
        for (int j = 0; j < i; j++)
            if (ctxs[j] == c) {
                pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0, "model_forward_batch: sequences %d and %d share one context", j, i);
                return PG_ERR_USAGE;
            }
        if (c->pos >= c->max_seq) {
            pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0,
                         "model_forward_batch: sequence %d is full (%d positions, the context's limit)", i, c->max_seq);
            return PG_ERR_LIMIT;
        }
        if (toks[i] < 0 || toks[i] >= V) {
            pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0,
                         "model_forward_batch: token id %d (sequence %d) is outside the vocabulary [0, %d)", (int)toks[i], i, V);
            return PG_ERR_USAGE;
        }
    }
    if (m->gpu) {   /* groups of GPU_ROWS rows, each context keeps its row's logits */
        gpu_ctx *gcs[GPU_ROWS];
        int pos[GPU_ROWS];
        for (int s = 0; s < nseq; s += GPU_ROWS) {
            int nb = nseq - s < GPU_ROWS ? nseq - s : GPU_ROWS;
            for (int t = 0; t < nb; t++) {
                gcs[t] = ctxs[s + t]->gc;
                pos[t] = ctxs[s + t]->pos;
            }
            pg_status st = model_gpu_step(m->gpu, gcs, pos, toks + s, nb, 0, false, logits ? logits + (size_t)s * V : NULL, NULL, NULL, diag);
            if (st != PG_OK) return st;
            for (int t = 0; t < nb; t++) {
                ctxs[s + t]->pos++;
                ctxs[s + t]->nhrows = 1;
            }
        }
        return PG_OK;
    }
    /* groups of at most CHUNK rows: the first context of a group lends its scratch rows;
     * logits rows [s, s + nb) of [nseq][V] */
    for (int s = 0; s < nseq; s += CHUNK) {
        int nb = nseq - s < CHUNK ? nseq - s : CHUNK;
        forward_rows(ctxs[s], ctxs + s, toks + s, nb, logits ? logits + (size_t)s * V : NULL, NULL, false);
    }
    return PG_OK;
}

pg_status model_forward_hidden(model_ctx *c, const int32_t *toks, int n, pg_diag_sink *diag) {
    return model_forward(c, toks, n, NULL, NULL, diag);
}

pg_status model_forward_exact(model_ctx *c, const int32_t *toks, int n, pg_diag_sink *diag) {
    const model_config *cf = &c->m->cfg;
    if (n < 1 || n > MODEL_EXACT_MAX) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0, "model_forward_exact takes 1 to %d tokens (got %d)", MODEL_EXACT_MAX, n);
        return PG_ERR_USAGE;
    }
    if (n > c->max_seq - c->pos) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0, "%d tokens at position %d exceed the context of %d", n, c->pos,
                     c->max_seq);
        return PG_ERR_LIMIT;
    }
    for (int i = 0; i < n; i++)
        if (toks[i] < 0 || toks[i] >= cf->vocab_size) {
            pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0, "token id %d (input %d) is outside the vocabulary [0, %d)",
                         (int)toks[i], i, cf->vocab_size);
            return PG_ERR_USAGE;
        }
    if (c->gc) return gpu_forward(c, toks, n, NULL, NULL, true, NULL, NULL, diag);
    forward_rows(c, NULL, toks, n, NULL, NULL, true);
    return PG_OK;
}

pg_status model_logits_rows(model_ctx *c, const int *rows, int nrows, const int32_t *ids, int nids, float *out,
                            pg_diag_sink *diag) {
    model_model *m = c->m;
    const model_config *cf = &m->cfg;
    int H = cf->hidden_size, V = cf->vocab_size;
    if (nrows < 1 || nrows > CHUNK) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0, "model_logits_rows takes 1 to %d rows (got %d)", CHUNK, nrows);
        return PG_ERR_USAGE;
    }
    for (int i = 0; i < nrows; i++)
        if (rows[i] < 0 || rows[i] >= c->nhrows) {
            pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0,
                         c->nhrows ? "row %d is not a row of the last step (it had %d)"
                                   : "model_logits_rows before any forward step (or after a rewind): row %d (%d rows)",
                         rows[i], c->nhrows);
            return PG_ERR_USAGE;
        }
    if (ids)
        for (int i = 0; i < nids; i++)
            if (ids[i] < 0 || ids[i] >= V) {
                pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0, "token id %d (entry %d) is outside the vocabulary [0, %d)",
                             (int)ids[i], i, V);
                return PG_ERR_USAGE;
            }
    if (c->gc) {   /* the rows' logits are on the device already */
        if (ids && nids <= 0) return PG_OK;
        for (int i = 0; i < nrows; i++) {
            pg_status st = model_gpu_logits(c->gc, rows[i], ids, nids, out + (size_t)i * (ids ? (size_t)nids : (size_t)V), diag);
            if (st != PG_OK) return st;
        }
        return PG_OK;
    }
    const wmat *head = cf->tie_word_embeddings ? &m->embed : &m->lm_head;
    const lora_side *ls = &m->lhead;
    if (!ids) {   /* whole rows: one matmul over the chosen rows (decode kernels: each row as a one-token step's) */
        for (int i = 0; i < nrows; i++) memcpy(c->xb + (size_t)i * H, c->hrows + (size_t)rows[i] * H, (size_t)H * 4);
        PROF(m, PROF_HEAD, model_matmul_dec(m->pool, out, V, c->xb, H, nrows, head));
        PROF(m, PROF_LORA, for (int i = 0; i < nrows; i++) lora_head(c, c->xb + (size_t)i * H, out + (size_t)i * V));
        return PG_OK;
    }
    if (nids <= 0) return PG_OK;
    float *extra = ls->nmod ? malloc((size_t)nids * sizeof *extra) : NULL;
    if (ls->nmod && !extra) return PG_ERR_NOMEM;
    for (int i = 0; i < nrows; i++) {
        const float *h = c->hrows + (size_t)rows[i] * H;
        float *o = out + (size_t)i * nids;
        PROF(m, PROF_HEAD, model_wmat_rows_dot(head, ids, nids, h, o));
        if (ls->nmod) {
            model_matmul_local(c->lht, ls->R, h, 0, 1, &ls->A);
            model_wmat_rows_dot(&ls->mod[0].B, ids, nids, c->lht, extra);
            for (int k = 0; k < nids; k++) o[k] += extra[k];
        }
    }
    free(extra);
    return PG_OK;
}

pg_status model_logits_subset(model_ctx *c, const int32_t *ids, int n, float *out, pg_diag_sink *diag) {
    if (!c->nhrows) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0, "model_logits_subset before any forward step (or after a rewind)");
        return PG_ERR_USAGE;
    }
    int last = c->nhrows - 1;
    return model_logits_rows(c, &last, 1, ids, n, out, diag);
}

pg_status model_topk_rows(model_ctx *const *cs, int n, float *vals, int32_t *ids, pg_diag_sink *diag) {
    _Static_assert(MODEL_TOPK == GPU_TOPK, "one K for the kernel and the API");
    for (int i = 0; i < n; i++)
        if (cs[i]->nhrows < 1 || cs[i]->m != cs[0]->m || (cs[i]->gc != NULL) != (cs[0]->gc != NULL)) {
            pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0, "model_topk_rows: context %d %s", i,
                         cs[i]->nhrows < 1 ? "has no logits (no step yet, or rewound)" : "is of another model or engine");
            return PG_ERR_USAGE;
        }
    if (n > 0 && cs[0]->gc) {   /* on the device, GPU_ROWS rows a launch */
        gpu_ctx *g[GPU_ROWS];
        int rows[GPU_ROWS];
        for (int s = 0; s < n; s += GPU_ROWS) {
            int nb = n - s < GPU_ROWS ? n - s : GPU_ROWS;
            for (int r = 0; r < nb; r++) g[r] = cs[s + r]->gc, rows[r] = cs[s + r]->nhrows - 1;
            pg_status st = model_gpu_topk(cs[0]->m->gpu, g, rows, nb, vals + (size_t)s * MODEL_TOPK, ids + (size_t)s * MODEL_TOPK, diag);
            if (st != PG_OK) return st;
        }
        return PG_OK;
    }
    int V = n > 0 ? cs[0]->m->cfg.vocab_size : 0;
    float *row = malloc((size_t)V * sizeof *row + 1);
    if (!row) return PG_ERR_NOMEM;
    for (int i = 0; i < n; i++) {
        int last = cs[i]->nhrows - 1;
        pg_status st = model_logits_rows(cs[i], &last, 1, NULL, 0, row, diag);
        if (st != PG_OK) { free(row); return st; }
        float *v = vals + (size_t)i * MODEL_TOPK;
        int32_t *id = ids + (size_t)i * MODEL_TOPK;
        for (int m = model_topk_ref(row, V, MODEL_TOPK, v, id); m < MODEL_TOPK; m++) v[m] = -INFINITY, id[m] = -1;
    }
    free(row);
    return PG_OK;
}
