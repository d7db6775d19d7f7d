/* model.c — the Qwen2 transformer: loading (config, safetensors, LoRA merge,
 * compute dtype) and the forward pass with a KV cache.
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
 * reading each cache entry once; K is cached in blocks of 16 positions
 * ([hd][16]) so scores need no horizontal sums.
 * A batched step (model_forward_batch) runs the same layer code with row t of the
 * scratch being sequence t's one new token: the matmuls see nseq stacked rows (one
 * weight read for all), while RoPE, the cache write and attention use row t's own
 * context and position (row_ctx). */
#include "model_internal.h"
#include "gguf.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 128   /* prefill runs in batches of at most this many tokens (bounds scratch memory) */

/* LoRA kept beside quantized weights (GGUF models): y += s * B (A x) for the
 * modules of one matmul (q|k|v, o, gate|up, down, the output head).  Their A
 * share the matmul's input, so they are stacked and run as one small matmul. */
typedef struct {
    int nmod, R;          /* adapted modules; their ranks summed */
    wmat A;               /* [R][in] f32: the modules' A stacked */
    struct { int t0, out0; wmat B; } mod[3];   /* B [out][r] f32, scaled by s: adds B t[t0 .. t0+r) to output rows out0.. */
} lora_side;

typedef struct {
    float *ln1, *ln2;     /* [H] */
    wmat qkv;             /* [QD + 2*KVD][H] */
    float *bqkv;          /* [QD + 2*KVD]; NULL when the model has no q/k/v biases (llama) */
    wmat o;               /* [H][QD] */
    wmat gate_up;         /* [2*I][H]: gate rows then up rows */
    wmat down;            /* [H][I] */
    lora_side lqkv, lo, lgu, ldown;
} layer;

struct model_model {
    model_config cfg;
    wtype wt;
    layer *L;
    wmat embed;           /* [V][H], compute dtype; also the lm_head when tied */
    wmat lm_head;         /* [V][H] when not tied */
    float *norm;          /* [H] */
    pg_pool *pool;
    size_t nparams;
    gguf_file *gg;        /* GGUF models: the mapping the WT_GG weights point into */
    bool rope_adjacent;   /* rotate pairs (2i, 2i+1) (ggml's llama on Q/K rows its converter permuted), else (i, i + hd/2) */
    lora_side lhead;      /* GGUF models: LoRA on the output head */
    int lora_rmax, lora_outmax;   /* largest R and B output over the layers' side paths (context scratch) */
    model_prof *prof;     /* bench_model --profile: stage times (NULL: off) */
};

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
};

const model_config *model_get_config(const model_model *m) { return &m->cfg; }

const char *const model_prof_names[PROF_N] = {"embed", "elementwise", "qkv", "attention", "o", "gate_up", "down", "head", "lora"};

void model_prof_attach(model_model *m, model_prof *p) {
    m->prof = p;
    model_pool_set_prof(m->pool, p ? &p->pool : NULL);
}

static double prof_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
/* Run `stmt` and, with a profile attached, add its time to stage `st`. */
#define PROF(m, st, stmt)                                  \
    do {                                                    \
        double prof_t0_ = (m)->prof ? prof_now() : 0;       \
        stmt;                                               \
        if ((m)->prof) (m)->prof->stage_s[st] += prof_now() - prof_t0_; \
    } while (0)
size_t model_param_count(const model_model *m) { return m->nparams; }
int model_threads(const model_model *m) { return model_pool_size(m->pool); }
const char *model_weight_dtype(const model_model *m) {
    return m->wt == WT_F32 ? "f32" : m->wt == WT_BF16 ? "bf16" : m->wt == WT_Q8 ? "q8" : "gguf";
}

static size_t lora_bytes(const lora_side *ls) {
    size_t b = model_wmat_bytes(&ls->A);
    for (int i = 0; i < ls->nmod; i++) b += model_wmat_bytes(&ls->mod[i].B);
    return b;
}

static void lora_free(lora_side *ls) {
    model_wmat_free(&ls->A);
    for (int i = 0; i < ls->nmod; i++) model_wmat_free(&ls->mod[i].B);
    memset(ls, 0, sizeof *ls);
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

void model_free(model_model *m) {
    if (!m) return;
    for (int l = 0; m->L && l < m->cfg.num_hidden_layers; l++) {
        layer *L = &m->L[l];
        free(L->ln1); free(L->ln2); free(L->bqkv);
        model_wmat_free(&L->qkv); model_wmat_free(&L->o); model_wmat_free(&L->gate_up); model_wmat_free(&L->down);
        lora_free(&L->lqkv); lora_free(&L->lo); lora_free(&L->lgu); lora_free(&L->ldown);
    }
    free(m->L);
    model_wmat_free(&m->embed);
    model_wmat_free(&m->lm_head);
    lora_free(&m->lhead);
    free(m->norm);
    model_pool_free(m->pool);
    if (m->gg) model_gguf_close(m->gg);
    free(m);
}

/* ---- loading ------------------------------------------------------------------------ */
typedef struct {
    const char *dir, *src;   /* src: the file named in "missing tensor" messages */
    st_set st;
    /* LoRA */
    bool have_lora;
    lora_config lc;
    st_set ad;
    char ad_file[4200];
    bool side;               /* GGUF base: LoRA as a side path (lm_head allowed), never merged */
    bool exact;              /* GGUF: decode with dequantized rows x f32 activations */
    model_model *m;
    pg_diag_sink *diag;
} loader;

static void shape_str(const int64_t *s, int nd, char *buf, size_t n) {
    size_t o = 0;
    o += (size_t)snprintf(buf + o, n - o, "[");
    for (int i = 0; i < nd && o < n; i++) o += (size_t)snprintf(buf + o, n - o, "%s%lld", i ? ", " : "", (long long)s[i]);
    if (o < n) snprintf(buf + o, n - o, "]");
}

/* The tensor `name` as f32 into dst, checked against the wanted shape [d0] or [d0, d1]. */
static bool load_f32(loader *ld, const char *name, int d0, int d1, float *dst) {
    const st_tensor *t = model_st_find(&ld->st, name);
    if (!t) {
        pg_diag_emit(ld->diag, PG_E_MODEL_TENSOR, ld->src, 0, 0, "tensor '%s' is missing", name);
        return false;
    }
    if (t->dtype != ST_F32 && t->dtype != ST_BF16 && t->dtype != ST_F16) {
        pg_diag_emit(ld->diag, PG_E_MODEL_TENSOR, t->file, 0, 0, "tensor '%s': dtype %s is not supported (F32, BF16, F16)",
                     name, model_st_dtype_name(t->dtype));
        return false;
    }
    int64_t want[2] = {d0, d1};
    int nd = d1 > 0 ? 2 : 1;
    bool ok = t->ndim == nd && t->shape[0] == d0 && (nd == 1 || t->shape[1] == d1);
    if (!ok) {
        char got[128], exp[64];
        shape_str(t->shape, t->ndim, got, sizeof got);
        shape_str(want, nd, exp, sizeof exp);
        pg_diag_emit(ld->diag, PG_E_MODEL_TENSOR, t->file, 0, 0, "tensor '%s': shape %s, config wants %s", name, got, exp);
        return false;
    }
    return model_st_to_f32(t, dst);
}

/* Which layer linear does an adapter module path name?  "model.layers.3.self_attn.q_proj"
 * -> layer 3, "q_proj".  False for anything else. */
static bool lora_module(const char *mod, int *layer_idx, char *kind, size_t kn) {
    const char *p = mod;
    if (strncmp(p, "model.layers.", 13)) return false;
    p += 13;
    char *end;
    long l = strtol(p, &end, 10);
    if (end == p || *end != '.' || l < 0 || l > 100000) return false;
    p = end + 1;
    static const char *mods[] = {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
                                 "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"};
    for (size_t i = 0; i < sizeof mods / sizeof *mods; i++)
        if (!strcmp(p, mods[i])) {
            *layer_idx = (int)l;
            snprintf(kind, kn, "%s", strchr(mods[i], '.') + 1);
            return true;
        }
    return false;
}

/* in/out features of a layer linear */
static void linear_dims(const model_config *c, const char *kind, int *out, int *in) {
    int H = c->hidden_size, QD = c->num_attention_heads * c->head_dim, KVD = c->num_key_value_heads * c->head_dim;
    int I = c->intermediate_size;
    if (!strcmp(kind, "q_proj")) { *out = QD; *in = H; }
    else if (!strcmp(kind, "k_proj") || !strcmp(kind, "v_proj")) { *out = KVD; *in = H; }
    else if (!strcmp(kind, "o_proj")) { *out = H; *in = QD; }
    else if (!strcmp(kind, "down_proj")) { *out = H; *in = I; }
    else if (!strcmp(kind, "lm_head")) { *out = c->vocab_size; *in = H; }
    else { *out = I; *in = H; }
}

/* Check every adapter tensor names a module of this model with matching shapes. */
static bool lora_check(loader *ld) {
    const model_config *c = &ld->m->cfg;
    for (int i = 0; i < ld->ad.t.n; i++) {
        const st_tensor *t = &ld->ad.t.v[i];
        const char *pre = "base_model.model.";
        size_t n = strlen(t->name), np = strlen(pre);
        bool is_a = n > np + 14 && !strcmp(t->name + n - 14, ".lora_A.weight");
        bool is_b = n > np + 14 && !strcmp(t->name + n - 14, ".lora_B.weight");
        char mod[256], kind[32];
        int l = -1;
        if (strncmp(t->name, pre, np) || (!is_a && !is_b) || n - 14 - np >= sizeof mod) {
            pg_diag_emit(ld->diag, PG_E_ADAPTER, t->file, 0, 0,
                         "tensor '%s' is not a LoRA weight (want base_model.model.<module>.lora_{A,B}.weight)", t->name);
            return false;
        }
        memcpy(mod, t->name + np, n - 14 - np);
        mod[n - 14 - np] = 0;
        if (ld->side && !strcmp(mod, "lm_head")) {   /* the output head: only as a side path */
            snprintf(kind, sizeof kind, "lm_head");
            l = 0;
        } else if (!lora_module(mod, &l, kind, sizeof kind) || l >= c->num_hidden_layers) {
            pg_diag_emit(ld->diag, PG_E_ADAPTER, t->file, 0, 0,
                         "tensor '%s' targets module '%s', which this %d-layer model does not have (adapter for another base?)",
                         t->name, mod, c->num_hidden_layers);
            return false;
        }
        int out, in;
        linear_dims(c, kind, &out, &in);
        int64_t want[2] = {is_a ? ld->lc.r : out, is_a ? in : ld->lc.r};
        if (t->ndim != 2 || t->shape[0] != want[0] || t->shape[1] != want[1] ||
            (t->dtype != ST_F32 && t->dtype != ST_BF16 && t->dtype != ST_F16)) {
            char got[128], exp[64];
            shape_str(t->shape, t->ndim, got, sizeof got);
            shape_str(want, 2, exp, sizeof exp);
            pg_diag_emit(ld->diag, PG_E_ADAPTER, t->file, 0, 0,
                         "tensor '%s': %s %s, but r=%d and this model's %s want %s F32/BF16/F16 (adapter for another base?)",
                         t->name, model_st_dtype_name(t->dtype), got, ld->lc.r, kind, exp);
            return false;
        }
        /* every A needs its B */
        char other[300];
        snprintf(other, sizeof other, "%s%s.lora_%c.weight", pre, mod, is_a ? 'B' : 'A');
        if (!model_st_find(&ld->ad, other)) {
            pg_diag_emit(ld->diag, PG_E_ADAPTER, t->file, 0, 0, "tensor '%s' has no partner '%s'", t->name, other);
            return false;
        }
    }
    return true;
}

/* W[out][in] += scale * B[out][r] @ A[r][in] for the adapter's update of one module. */
static bool lora_merge(loader *ld, int l, const char *kind, float *W, int out, int in) {
    if (!ld->have_lora) return true;
    const char *sub = !strcmp(kind, "gate_proj") || !strcmp(kind, "up_proj") || !strcmp(kind, "down_proj") ? "mlp" : "self_attn";
    char na[300], nb[300];
    snprintf(na, sizeof na, "base_model.model.model.layers.%d.%s.%s.lora_A.weight", l, sub, kind);
    snprintf(nb, sizeof nb, "base_model.model.model.layers.%d.%s.%s.lora_B.weight", l, sub, kind);
    const st_tensor *A = model_st_find(&ld->ad, na), *B = model_st_find(&ld->ad, nb);
    if (!A || !B) return true;   /* not adapted (lora_check made sure they come in pairs) */
    int r = ld->lc.r;
    float *a = malloc((size_t)r * in * sizeof *a), *b = malloc((size_t)out * r * sizeof *b);
    if (!a || !b) { free(a); free(b); return false; }
    model_st_to_f32(A, a);
    model_st_to_f32(B, b);
    float s = (float)ld->lc.scale;
    for (int o = 0; o < out; o++)
        for (int k = 0; k < r; k++) {
            float bk = s * b[(size_t)o * r + k];
            const float *ak = a + (size_t)k * in;
            float *w = W + (size_t)o * in;
            for (int i = 0; i < in; i++) w[i] += bk * ak[i];
        }
    free(a);
    free(b);
    return true;
}

static bool load_layer(loader *ld, int l, float *buf) {
    model_model *m = ld->m;
    const model_config *c = &m->cfg;
    layer *L = &m->L[l];
    int H = c->hidden_size, QD = c->num_attention_heads * c->head_dim, KVD = c->num_key_value_heads * c->head_dim;
    int I = c->intermediate_size;
    char n[256];
#define NAME(fmt) (snprintf(n, sizeof n, "model.layers.%d." fmt, l), n)
    L->ln1 = malloc((size_t)H * 4);
    L->ln2 = malloc((size_t)H * 4);
    L->bqkv = malloc((size_t)(QD + 2 * KVD) * 4);
    if (!L->ln1 || !L->ln2 || !L->bqkv) return false;
    if (!load_f32(ld, NAME("input_layernorm.weight"), H, 0, L->ln1) ||
        !load_f32(ld, NAME("post_attention_layernorm.weight"), H, 0, L->ln2) ||
        !load_f32(ld, NAME("self_attn.q_proj.bias"), QD, 0, L->bqkv) ||
        !load_f32(ld, NAME("self_attn.k_proj.bias"), KVD, 0, L->bqkv + QD) ||
        !load_f32(ld, NAME("self_attn.v_proj.bias"), KVD, 0, L->bqkv + QD + KVD))
        return false;
    /* q|k|v stacked: buf [QD + 2*KVD][H] */
    float *wq = buf, *wk = buf + (size_t)QD * H, *wv = wk + (size_t)KVD * H;
    if (!load_f32(ld, NAME("self_attn.q_proj.weight"), QD, H, wq) || !load_f32(ld, NAME("self_attn.k_proj.weight"), KVD, H, wk) ||
        !load_f32(ld, NAME("self_attn.v_proj.weight"), KVD, H, wv) || !lora_merge(ld, l, "q_proj", wq, QD, H) ||
        !lora_merge(ld, l, "k_proj", wk, KVD, H) || !lora_merge(ld, l, "v_proj", wv, KVD, H) ||
        model_wmat_make(&L->qkv, buf, QD + 2 * KVD, H, m->wt) != PG_OK)
        return false;
    if (!load_f32(ld, NAME("self_attn.o_proj.weight"), H, QD, buf) || !lora_merge(ld, l, "o_proj", buf, H, QD) ||
        model_wmat_make(&L->o, buf, H, QD, m->wt) != PG_OK)
        return false;
    float *wg = buf, *wu = buf + (size_t)I * H;   /* gate|up stacked: [2*I][H] */
    if (!load_f32(ld, NAME("mlp.gate_proj.weight"), I, H, wg) || !load_f32(ld, NAME("mlp.up_proj.weight"), I, H, wu) ||
        !lora_merge(ld, l, "gate_proj", wg, I, H) || !lora_merge(ld, l, "up_proj", wu, I, H) ||
        model_wmat_make(&L->gate_up, buf, 2 * I, H, m->wt) != PG_OK)
        return false;
    if (!load_f32(ld, NAME("mlp.down_proj.weight"), H, I, buf) || !lora_merge(ld, l, "down_proj", buf, H, I) ||
        model_wmat_make(&L->down, buf, H, I, m->wt) != PG_OK)
        return false;
#undef NAME
    m->nparams += (size_t)(QD + 2 * KVD) * H + (size_t)(QD + 2 * KVD) + (size_t)H * QD + 3 * (size_t)I * H + 2 * (size_t)H;
    return true;
}

static pg_status load_adapter(loader *ld, const char *adir) {
    char path[4200];
    snprintf(path, sizeof path, "%s/adapter_config.json", adir);
    char *text = NULL;
    size_t len = 0;
    pg_diag_sink quiet = {0};
    if (pg_read_file(path, 1u << 20, &text, &len, &quiet) != PG_OK) {
        pg_diag_emit(ld->diag, PG_E_ADAPTER, path, 0, 0, "cannot read the adapter config");
        return PG_ERR_IO;
    }
    pg_status st = model_lora_config_parse(text, len, path, &ld->lc, ld->diag);
    free(text);
    if (st != PG_OK) return st;
    snprintf(ld->ad_file, sizeof ld->ad_file, "%s/adapter_model.safetensors", adir);
    if ((st = model_st_open_file(&ld->ad, ld->ad_file, ld->diag)) != PG_OK) {   /* E801 says what is wrong */
        pg_diag_emit(ld->diag, PG_E_ADAPTER, ld->ad_file, 0, 0, "cannot use the adapter weights");
        return st;
    }
    ld->have_lora = true;
    return lora_check(ld) ? PG_OK : PG_ERR_INVALID;
}


/* ---- GGUF models ----------------------------------------------------------------------------
 * A .gguf file (llama.cpp's format) read with gguf.c: the architecture from the
 * metadata (qwen2 or llama), the weights left in the mapping in their stored
 * types (WT_GG: quant.c computes straight from the blocks), norms and biases
 * copied to f32.  A PEFT adapter runs as a side path (lora_side), never merged:
 * merging into 4/5-bit blocks would round the update away. */

/* PEFT module name of a layer linear -> the sub-module path ("self_attn" / "mlp"). */
static const char *lora_sub(const char *kind) {
    return !strcmp(kind, "gate_proj") || !strcmp(kind, "up_proj") || !strcmp(kind, "down_proj") ? "mlp" : "self_attn";
}

/* The side path of one matmul: modules kinds[i] (NULL-terminated list, in the
 * matmul's output order, starting at output rows out0s[i]) of layer l (l < 0: the head).
 * adjacent: B's rows for q/k permuted as llama.cpp's converter permuted the GGUF's
 * Q/K rows (heads nh of hd: HF row h*hd + a*hd/2 + j is GGUF row h*hd + 2j + a). */
static bool lora_side_load(loader *ld, int l, const char *const *kinds, const int *out0s, lora_side *ls) {
    model_model *m = ld->m;
    const model_config *c = &m->cfg;
    const st_tensor *A[3] = {0}, *B[3] = {0};
    int idx[3], na = 0, in = 0, r = ld->lc.r;
    for (int i = 0; kinds[i]; i++) {
        char na_[300], nb_[300];
        if (l < 0) {
            snprintf(na_, sizeof na_, "base_model.model.lm_head.lora_A.weight");
            snprintf(nb_, sizeof nb_, "base_model.model.lm_head.lora_B.weight");
        } else {
            snprintf(na_, sizeof na_, "base_model.model.model.layers.%d.%s.%s.lora_A.weight", l, lora_sub(kinds[i]), kinds[i]);
            snprintf(nb_, sizeof nb_, "base_model.model.model.layers.%d.%s.%s.lora_B.weight", l, lora_sub(kinds[i]), kinds[i]);
        }
        const st_tensor *a = model_st_find(&ld->ad, na_), *b = model_st_find(&ld->ad, nb_);
        if (!a || !b) continue;   /* not adapted (lora_check made sure they come in pairs) */
        A[na] = a;
        B[na] = b;
        idx[na++] = i;
    }
    if (!na) return true;
    int out;
    linear_dims(c, kinds[idx[0]], &out, &in);
    float *buf = malloc((size_t)na * r * in * sizeof *buf);   /* A stacked: [na*r][in] */
    if (!buf) return false;
    for (int i = 0; i < na; i++) model_st_to_f32(A[i], buf + (size_t)i * r * in);
    bool ok = model_wmat_make(&ls->A, buf, na * r, in, WT_F32) == PG_OK;
    free(buf);
    ls->R = na * r;
    for (int i = 0; ok && i < na; i++) {
        const char *kind = kinds[idx[i]];
        linear_dims(c, kind, &out, &in);
        float *b = malloc((size_t)out * r * sizeof *b), *bp = malloc((size_t)out * r * sizeof *bp);   /* [out][r] */
        ok = b && bp;
        if (ok) {
            model_st_to_f32(B[i], b);
            bool perm = m->rope_adjacent && (!strcmp(kind, "q_proj") || !strcmp(kind, "k_proj"));
            int hd = c->head_dim;
            for (int row = 0; row < out; row++) {
                int src = row;
                if (perm) {   /* GGUF row h*hd + 2j + a <- HF row h*hd + a*hd/2 + j */
                    int h = row / hd, w = row % hd;
                    src = h * hd + (w % 2) * (hd / 2) + w / 2;
                }
                for (int k = 0; k < r; k++) bp[(size_t)row * r + k] = (float)ld->lc.scale * b[(size_t)src * r + k];
            }
            ok = model_wmat_make(&ls->mod[i].B, bp, out, r, WT_F32) == PG_OK;
            ls->mod[i].t0 = i * r;
            ls->mod[i].out0 = out0s[idx[i]];
            ls->nmod = i + 1;
            if (l >= 0 && out > m->lora_outmax) m->lora_outmax = out;
        }
        free(b);
        free(bp);
    }
    if (l >= 0 && ls->R > m->lora_rmax) m->lora_rmax = ls->R;
    return ok;
}

/* The GGUF tensor `name`, checked: present, a type quant.c computes with, dims [ne0] or
 * [ne0, ne1] (GGML order: ne0 is the row length).  NULL after an E803. */
static const gguf_tensor *gg_tensor(loader *ld, const char *name, int64_t ne0, int64_t ne1) {
    const gguf_tensor *t = model_gguf_tensor_find(ld->m->gg, name);
    if (!t) {
        pg_diag_emit(ld->diag, PG_E_MODEL_TENSOR, ld->src, 0, 0, "tensor '%s' is missing", name);
        return NULL;
    }
    int nd = ne1 > 0 ? 2 : 1;
    bool ok = t->n_dims == nd && t->ne[0] == ne0 && (nd == 1 || t->ne[1] == ne1);
    if (!ok) {
        char got[128], exp[64];
        int64_t want[2] = {ne0, ne1};
        shape_str(t->ne, t->n_dims, got, sizeof got);
        shape_str(want, nd, exp, sizeof exp);
        pg_diag_emit(ld->diag, PG_E_MODEL_TENSOR, ld->src, 0, 0, "tensor '%s': shape %s (GGML order), the metadata wants %s",
                     name, got, exp);
        return NULL;
    }
    if (!model_quant_supported(t->type) || (nd == 1 && model_quant_act_kind(t->type) != QACT_F32)) {
        pg_diag_emit(ld->diag, PG_E_MODEL_TENSOR, ld->src, 0, 0,
                     "tensor '%s': type %s is not supported (F32, F16, BF16%s)", name, model_gguf_type_name(t->type),
                     nd == 2 ? ", Q4_0, Q4_1, Q5_0, Q8_0, Q4_K, Q6_K" : " for a vector");
        return NULL;
    }
    return t;
}

/* A vector tensor [n] as f32 (malloc'd into *dst). */
static bool gg_vec(loader *ld, const char *name, int64_t n, float **dst) {
    const gguf_tensor *t = gg_tensor(ld, name, n, 0);
    if (!t) return false;
    *dst = malloc((size_t)n * sizeof **dst);
    if (!*dst) return false;
    model_quant_dequant_row(t->type, t->data, *dst, n);
    return true;
}

/* Append tensor `name` ([rows][cols] as PyTorch sees it) to a WT_GG matrix. */
static bool gg_mat(loader *ld, const char *name, int rows, int cols, wmat *w) {
    const gguf_tensor *t = gg_tensor(ld, name, cols, rows);
    if (!t) return false;
    if (!model_wmat_gg_add(w, t->type, t->data, rows, cols)) {
        pg_diag_emit(ld->diag, PG_E_MODEL_TENSOR, ld->src, 0, 0, "tensor '%s': cannot stack it (internal limit)", name);
        return false;
    }
    w->exact = ld->exact;
    return true;
}

static bool gg_int(loader *ld, const char *arch, const char *key, bool need, int64_t lo, int64_t hi, int64_t *v) {
    char k[160];
    snprintf(k, sizeof k, "%s.%s", arch, key);
    if (!model_gguf_get_int(ld->m->gg, k, v)) {
        if (!need) return true;
        pg_diag_emit(ld->diag, PG_E_MODEL_CONFIG, ld->src, 0, 0, "metadata key '%s' is missing or not an integer", k);
        return false;
    }
    if (*v < lo || *v > hi) {
        pg_diag_emit(ld->diag, PG_E_MODEL_CONFIG, ld->src, 0, 0, "metadata '%s' = %lld is outside [%lld, %lld]", k,
                     (long long)*v, (long long)lo, (long long)hi);
        return false;
    }
    return true;
}

/* model_config from the metadata.  The eos id in the file is kept as written; it is not
 * reliable (chat models end turns with <|im_end|>): callers take end tokens from the tokenizer. */
static bool gg_config(loader *ld) {
    model_model *m = ld->m;
    model_config *c = &m->cfg;
    gguf_file *g = m->gg;
    gguf_str a;
    char arch[32];
    if (!model_gguf_get_str(g, "general.architecture", &a) || a.len >= sizeof arch) {
        pg_diag_emit(ld->diag, PG_E_MODEL_CONFIG, ld->src, 0, 0, "metadata 'general.architecture' is missing");
        return false;
    }
    snprintf(arch, sizeof arch, "%.*s", (int)a.len, a.s);
    if (strcmp(arch, "qwen2") && strcmp(arch, "llama")) {
        pg_diag_emit(ld->diag, PG_E_MODEL_CONFIG, ld->src, 0, 0, "architecture '%s' is not supported (qwen2, llama)", arch);
        return false;
    }
    m->rope_adjacent = !strcmp(arch, "llama");   /* ggml: LLAMA rope "normal", QWEN2 rope NEOX */
    int64_t L = 0, H = 0, I = 0, NH = 0, NKV = -1, ctx = 4096, hd = -1, rd = -1;
    if (!gg_int(ld, arch, "block_count", true, 1, 1024, &L) || !gg_int(ld, arch, "embedding_length", true, 1, 1 << 16, &H) ||
        !gg_int(ld, arch, "feed_forward_length", true, 1, 1 << 18, &I) ||
        !gg_int(ld, arch, "attention.head_count", true, 1, 1024, &NH) ||
        !gg_int(ld, arch, "attention.head_count_kv", false, 1, 1024, &NKV) ||
        !gg_int(ld, arch, "context_length", false, 1, 1 << 24, &ctx) ||
        !gg_int(ld, arch, "attention.key_length", false, 2, 1024, &hd) ||
        !gg_int(ld, arch, "rope.dimension_count", false, 2, 1024, &rd))
        return false;
    if (NKV < 0) NKV = NH;
    if (hd < 0) hd = H / NH;
    if (rd < 0) rd = hd;
    if (NH % NKV || hd % 2 || rd != hd || NH / NKV > 64) {
        pg_diag_emit(ld->diag, PG_E_MODEL_CONFIG, ld->src, 0, 0,
                     "heads %lld / kv heads %lld, head dim %lld, rope dims %lld: the engine needs heads %% kv heads == 0, "
                     "an even head dim and rope over the whole head", (long long)NH, (long long)NKV, (long long)hd, (long long)rd);
        return false;
    }
    char k[160];
    double v;
    c->rope_theta = 10000.0;
    snprintf(k, sizeof k, "%s.rope.freq_base", arch);
    if (model_gguf_get_float(g, k, &v)) c->rope_theta = v;
    c->rms_norm_eps = 1e-5;
    snprintf(k, sizeof k, "%s.attention.layer_norm_rms_epsilon", arch);
    if (model_gguf_get_float(g, k, &v)) c->rms_norm_eps = v;
    if (!(c->rope_theta > 0) || !(c->rms_norm_eps > 0)) {
        pg_diag_emit(ld->diag, PG_E_MODEL_CONFIG, ld->src, 0, 0, "rope base %g / rms eps %g must be positive", c->rope_theta,
                     c->rms_norm_eps);
        return false;
    }
    const gguf_tensor *emb = model_gguf_tensor_find(g, "token_embd.weight");
    if (!emb || emb->n_dims != 2 || emb->ne[1] < 1 || emb->ne[1] > (1 << 24)) {
        pg_diag_emit(ld->diag, PG_E_MODEL_TENSOR, ld->src, 0, 0, "tensor 'token_embd.weight' is missing or not 2-D");
        return false;
    }
    c->vocab_size = (int)emb->ne[1];
    c->hidden_size = (int)H;
    c->intermediate_size = (int)I;
    c->num_hidden_layers = (int)L;
    c->num_attention_heads = (int)NH;
    c->num_key_value_heads = (int)NKV;
    c->head_dim = (int)hd;
    c->max_position_embeddings = (int)ctx;
    c->tie_word_embeddings = model_gguf_tensor_find(g, "output.weight") == NULL;
    int64_t id;
    c->bos_token_id = model_gguf_get_int(g, "tokenizer.ggml.bos_token_id", &id) ? (int)id : -1;
    c->eos_token_id = model_gguf_get_int(g, "tokenizer.ggml.eos_token_id", &id) ? (int)id : -1;
    c->n_eos_token_ids = c->eos_token_id >= 0;
    c->eos_token_ids[0] = c->eos_token_id;
    snprintf(c->dtype, sizeof c->dtype, "gguf");
    gguf_str name;
    if (model_gguf_get_str(g, "general.name", &name) && name.len)
        snprintf(c->model_id, sizeof c->model_id, "%.*s", (int)(name.len < 127 ? name.len : 127), name.s);
    return true;
}

static bool gg_layer(loader *ld, int l) {
    model_model *m = ld->m;
    const model_config *c = &m->cfg;
    layer *L = &m->L[l];
    int H = c->hidden_size, QD = c->num_attention_heads * c->head_dim, KVD = c->num_key_value_heads * c->head_dim;
    int I = c->intermediate_size;
    char n[128];
#define NAME(fmt) (snprintf(n, sizeof n, "blk.%d." fmt, l), n)
    if (!gg_vec(ld, NAME("attn_norm.weight"), H, &L->ln1) || !gg_vec(ld, NAME("ffn_norm.weight"), H, &L->ln2)) return false;
    if (model_gguf_tensor_find(m->gg, NAME("attn_q.bias"))) {   /* qwen2: q/k/v biases */
        float *bq = NULL, *bk = NULL, *bv = NULL;
        bool ok = gg_vec(ld, NAME("attn_q.bias"), QD, &bq) && gg_vec(ld, NAME("attn_k.bias"), KVD, &bk) &&
                  gg_vec(ld, NAME("attn_v.bias"), KVD, &bv) && (L->bqkv = malloc((size_t)(QD + 2 * KVD) * 4));
        if (ok) {
            memcpy(L->bqkv, bq, (size_t)QD * 4);
            memcpy(L->bqkv + QD, bk, (size_t)KVD * 4);
            memcpy(L->bqkv + QD + KVD, bv, (size_t)KVD * 4);
        }
        free(bq); free(bk); free(bv);
        if (!ok) return false;
    }
    if (!gg_mat(ld, NAME("attn_q.weight"), QD, H, &L->qkv) || !gg_mat(ld, NAME("attn_k.weight"), KVD, H, &L->qkv) ||
        !gg_mat(ld, NAME("attn_v.weight"), KVD, H, &L->qkv) || !gg_mat(ld, NAME("attn_output.weight"), H, QD, &L->o) ||
        !gg_mat(ld, NAME("ffn_gate.weight"), I, H, &L->gate_up) || !gg_mat(ld, NAME("ffn_up.weight"), I, H, &L->gate_up) ||
        !gg_mat(ld, NAME("ffn_down.weight"), H, I, &L->down))
        return false;
#undef NAME
    m->nparams += (size_t)(QD + 2 * KVD) * H + (L->bqkv ? (size_t)(QD + 2 * KVD) : 0) + (size_t)H * QD + 3 * (size_t)I * H +
                  2 * (size_t)H;
    if (!ld->have_lora) return true;
    static const char *const qkv[] = {"q_proj", "k_proj", "v_proj", NULL}, *const o[] = {"o_proj", NULL},
                             *const gu[] = {"gate_proj", "up_proj", NULL}, *const dn[] = {"down_proj", NULL};
    const int oqkv[] = {0, QD, QD + KVD}, o0[] = {0}, ogu[] = {0, I};
    return lora_side_load(ld, l, qkv, oqkv, &L->lqkv) && lora_side_load(ld, l, o, o0, &L->lo) &&
           lora_side_load(ld, l, gu, ogu, &L->lgu) && lora_side_load(ld, l, dn, o0, &L->ldown);
}

/* Every target_modules entry must be one the side path knows (a typo would silently adapt nothing). */
static bool gg_lora_targets(loader *ld) {
    static const char *known[] = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj", "lm_head"};
    for (int i = 0; i < ld->lc.ntargets; i++) {
        bool ok = false;
        for (size_t k = 0; k < sizeof known / sizeof *known; k++) ok |= !strcmp(ld->lc.targets[i], known[k]);
        if (!ok) {
            char p[4300];
            snprintf(p, sizeof p, "%.4200s", ld->ad_file);
            char *slash = strrchr(p, '/');
            snprintf(slash ? slash + 1 : p, sizeof p - (size_t)(slash ? slash + 1 - p : 0), "adapter_config.json");
            pg_diag_emit(ld->diag, PG_E_ADAPTER, p, 0, 0,
                         "target module '%s' is not one of q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, lm_head",
                         ld->lc.targets[i]);
            return false;
        }
    }
    return true;
}

static pg_status load_gguf(const char *path, const char *adapter_dir, const model_load_opts *o, model_model **out,
                           pg_diag_sink *diag) {
    if (o->weight_dtype && strcmp(o->weight_dtype, "f32") && strcmp(o->weight_dtype, "gguf")) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, path, 0, 0,
                     "weight dtype '%s': a GGUF model computes from its stored types (give \"gguf\" or nothing)", o->weight_dtype);
        return PG_ERR_USAGE;
    }
    model_model *m = calloc(1, sizeof *m);
    if (!m) return PG_ERR_NOMEM;
    m->wt = WT_GG;
    loader ld;
    memset(&ld, 0, sizeof ld);
    ld.m = m;
    ld.diag = diag;
    ld.src = path;
    ld.side = true;
    ld.exact = o->exact;
    pg_status st = model_gguf_open(path, &m->gg, diag);
    if (st != PG_OK) { free(m); return st; }
    st = PG_ERR_INVALID;
    if (!gg_config(&ld)) goto fail;
    model_config *c = &m->cfg;
    if (!c->model_id[0]) {
        const char *b = strrchr(path, '/');
        snprintf(c->model_id, sizeof c->model_id, "%s", b ? b + 1 : path);
    }
    if (adapter_dir) {
        if ((st = load_adapter(&ld, adapter_dir)) != PG_OK) goto fail;
        st = PG_ERR_INVALID;
        if (!gg_lora_targets(&ld)) goto fail;
    }
    int H = c->hidden_size, V = c->vocab_size;
    m->L = calloc((size_t)c->num_hidden_layers, sizeof *m->L);
    if (!m->L) { st = PG_ERR_NOMEM; goto fail; }
    if (!gg_mat(&ld, "token_embd.weight", V, H, &m->embed) || !gg_vec(&ld, "output_norm.weight", H, &m->norm)) goto fail;
    m->nparams = (size_t)V * H + H;
    for (int l = 0; l < c->num_hidden_layers; l++)
        if (!gg_layer(&ld, l)) goto fail;
    if (!c->tie_word_embeddings) {
        if (!gg_mat(&ld, "output.weight", V, H, &m->lm_head)) goto fail;
        m->nparams += (size_t)V * H;
    }
    if (ld.have_lora) {
        static const char *const head[] = {"lm_head", NULL};
        const int o0[] = {0};
        if (!lora_side_load(&ld, -1, head, o0, &m->lhead)) goto fail;
    }
    int nth = o->threads > 0 ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    m->pool = model_pool_new(nth < 1 ? 1 : nth > 256 ? 256 : nth);
    if (!m->pool) { st = PG_ERR_NOMEM; goto fail; }
    model_st_close(&ld.ad);
    *out = m;
    return PG_OK;
fail:
    model_st_close(&ld.ad);
    model_free(m);
    return st == PG_OK ? PG_ERR_INVALID : st;
}

/* GGUF.sha256 beside a base file, written by models/fetch_base.sh after it hashed
 * the file: "<hex> <size> <mtime>".  When size and mtime still match, the file is
 * the one that was hashed, and a 491 MB re-hash (over a second) is skipped. */
static bool sha_stamp_ok(const char *gpath, const char *want) {
    char sp[8500];
    snprintf(sp, sizeof sp, "%s.sha256", gpath);
    FILE *f = fopen(sp, "r");
    if (!f) return false;
    char hex[80] = "";
    long long size = -1, mtime = -1;
    int n = fscanf(f, "%79s %lld %lld", hex, &size, &mtime);
    fclose(f);
    struct stat sb;
    return n == 3 && stat(gpath, &sb) == 0 && (long long)sb.st_size == size && (long long)sb.st_mtime == mtime &&
           !strcasecmp(hex, want);
}

/* A shipped-model directory: base.json {"gguf": "<path relative to the directory>",
 * "sha256": "<hex>"} and a PEFT adapter beside it. */
static pg_status load_shipped(const char *dir, const model_load_opts *o, model_model **out, pg_diag_sink *diag) {
    char path[4200];
    snprintf(path, sizeof path, "%s/base.json", dir);
    char *text = NULL;
    size_t len = 0;
    pg_status st = pg_read_file(path, 1u << 16, &text, &len, diag);
    if (st != PG_OK) return st;
    json_error_t e;
    json_t *root = json_loadb(text, len, 0, &e);
    free(text);
    const char *rel = root ? json_string_value(json_object_get(root, "gguf")) : NULL;
    const char *sha = root ? json_string_value(json_object_get(root, "sha256")) : NULL;
    st = PG_ERR_INVALID;
    if (!rel || !*rel) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, path, 0, 0, "want {\"gguf\": \"<file>\", \"sha256\": \"<64 hex digits>\"}%s%s",
                     root ? "" : ": ", root ? "" : e.text);
        goto done;
    }
    /* relative to the model directory: the shipped default names ../base/<file>, which
     * models/fetch_base.sh fetches and verifies; an absolute path would tie the model
     * to one machine */
    if (rel[0] == '/') {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, path, 0, 0, "\"gguf\": '%s' must be relative to the model directory", rel);
        goto done;
    }
    if (o->verify_base && (!sha || strlen(sha) != 64)) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, path, 0, 0, "\"sha256\" must be 64 hex digits to verify the base");
        goto done;
    }
    char gpath[8400];
    snprintf(gpath, sizeof gpath, "%s/%s", dir, rel);
    if (o->verify_base && !sha_stamp_ok(gpath, sha)) {
        char hex[65];
        if (!model_sha256_file(gpath, hex)) {
            pg_diag_emit(diag, PG_E_MODEL_FILE, gpath, 0, 0, "cannot read the base model");
            st = PG_ERR_IO;
            goto done;
        }
        if (strcasecmp(hex, sha)) {
            pg_diag_emit(diag, PG_E_MODEL_FILE, gpath, 0, 0, "sha256 %s, base.json wants %s (a different base file)", hex, sha);
            goto done;
        }
    }
    char ac[4300];
    snprintf(ac, sizeof ac, "%s/adapter_config.json", dir);
    const char *adir = o->adapter_dir ? o->adapter_dir : access(ac, F_OK) == 0 ? dir : NULL;
    st = load_gguf(gpath, adir, o, out, diag);
done:
    json_decref(root);
    return st;
}

pg_status model_tokenizer_path(const char *path, char *out, size_t n, pg_diag_sink *diag) {
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {   /* a .gguf file carries its tokenizer */
        snprintf(out, n, "%s", path);
        return PG_OK;
    }
    snprintf(out, n, "%s/tokenizer.json", path);
    if (access(out, R_OK) == 0) return PG_OK;
    char bj[4200];
    snprintf(bj, sizeof bj, "%s/base.json", path);
    if (access(bj, F_OK) != 0) {
        pg_diag_emit(diag, PG_E_MODEL_FILE, path, 0, 0, "no tokenizer: neither tokenizer.json nor base.json (a GGUF base) here");
        return PG_ERR_IO;
    }
    char *text = NULL;
    size_t len = 0;
    pg_status st = pg_read_file(bj, 1u << 16, &text, &len, diag);
    if (st != PG_OK) return st;
    json_t *root = json_loadb(text, len, 0, NULL);
    free(text);
    const char *rel = root ? json_string_value(json_object_get(root, "gguf")) : NULL;
    st = PG_OK;
    if (!rel || !*rel || rel[0] == '/') {   /* load_shipped says the same when it loads */
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, bj, 0, 0, "want {\"gguf\": \"<file relative to the directory>\", \"sha256\": ...}");
        st = PG_ERR_INVALID;
    } else if ((size_t)snprintf(out, n, "%s/%s", path, rel) >= n) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, bj, 0, 0, "the base's path is too long");
        st = PG_ERR_LIMIT;
    }
    json_decref(root);
    return st;
}

pg_status model_load(const char *dir, const model_load_opts *o, model_model **out, pg_diag_sink *diag) {
    *out = NULL;
    model_load_opts defaults = {NULL, 0, NULL, false, false};
    if (!o) o = &defaults;
    struct stat sb;
    if (stat(dir, &sb) == 0 && S_ISREG(sb.st_mode)) return load_gguf(dir, o->adapter_dir, o, out, diag);   /* a .gguf file */
    char bj[4200];
    snprintf(bj, sizeof bj, "%s/base.json", dir);
    if (access(bj, F_OK) == 0) return load_shipped(dir, o, out, diag);
    wtype wt = WT_F32;
    if (o->weight_dtype && !strcmp(o->weight_dtype, "bf16")) wt = WT_BF16;
    else if (o->weight_dtype && !strcmp(o->weight_dtype, "q8")) wt = WT_Q8;
    else if (o->weight_dtype && strcmp(o->weight_dtype, "f32")) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, dir, 0, 0, "weight dtype '%s' is not one of f32, bf16, q8", o->weight_dtype);
        return PG_ERR_USAGE;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/config.json", dir);
    char *text = NULL;
    size_t len = 0;
    pg_status st = pg_read_file(path, 16u << 20, &text, &len, diag);
    if (st != PG_OK) return st;
    model_model *m = calloc(1, sizeof *m);
    if (!m) { free(text); return PG_ERR_NOMEM; }
    m->wt = wt;
    st = model_config_parse(text, len, path, &m->cfg, diag);
    free(text);
    if (st != PG_OK) { free(m); return st; }
    model_config *c = &m->cfg;
    if (!c->model_id[0]) {
        const char *b = dir + strlen(dir);
        while (b > dir && b[-1] == '/') b--;
        const char *e = b;
        while (b > dir && b[-1] != '/') b--;
        snprintf(c->model_id, sizeof c->model_id, "%.*s", (int)(e - b), b);
    }
    loader ld;
    memset(&ld, 0, sizeof ld);
    ld.dir = dir;
    ld.m = m;
    ld.diag = diag;
    char src[4200];
    snprintf(src, sizeof src, "%s/model.safetensors", dir);
    if (access(src, F_OK) != 0) snprintf(src, sizeof src, "%s/model.safetensors.index.json", dir);
    ld.src = src;
    float *buf = NULL;
    if ((st = model_st_open_model_dir(&ld.st, dir, diag)) != PG_OK) goto fail;
    if (o->adapter_dir && (st = load_adapter(&ld, o->adapter_dir)) != PG_OK) goto fail;
    int H = c->hidden_size, V = c->vocab_size, I = c->intermediate_size;
    int QD = c->num_attention_heads * c->head_dim, KVD = c->num_key_value_heads * c->head_dim;
    size_t need = (size_t)V * H;   /* the biggest matrix we stage in f32 */
    if ((size_t)(QD + 2 * KVD) * H > need) need = (size_t)(QD + 2 * KVD) * H;
    if ((size_t)2 * I * H > need) need = (size_t)2 * I * H;
    if ((size_t)H * QD > need) need = (size_t)H * QD;
    buf = malloc(need * sizeof *buf);
    m->L = calloc((size_t)c->num_hidden_layers, sizeof *m->L);
    m->norm = malloc((size_t)H * 4);
    st = PG_ERR_NOMEM;
    if (!buf || !m->L || !m->norm) goto fail;
    st = PG_ERR_INVALID;
    if (!load_f32(&ld, "model.embed_tokens.weight", V, H, buf) || model_wmat_make(&m->embed, buf, V, H, wt) != PG_OK) goto fail;
    if (!load_f32(&ld, "model.norm.weight", H, 0, m->norm)) goto fail;
    m->nparams = (size_t)V * H + H;
    for (int l = 0; l < c->num_hidden_layers; l++)
        if (!load_layer(&ld, l, buf)) goto fail;
    if (!c->tie_word_embeddings) {
        if (!load_f32(&ld, "lm_head.weight", V, H, buf) || model_wmat_make(&m->lm_head, buf, V, H, wt) != PG_OK) goto fail;
        m->nparams += (size_t)V * H;
    }
    int nth = o->threads > 0 ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    m->pool = model_pool_new(nth < 1 ? 1 : nth > 256 ? 256 : nth);
    if (!m->pool) { st = PG_ERR_NOMEM; goto fail; }
    free(buf);
    model_st_close(&ld.st);
    model_st_close(&ld.ad);
    *out = m;
    return PG_OK;
fail:
    free(buf);
    model_st_close(&ld.st);
    model_st_close(&ld.ad);
    model_free(m);
    return st;
}

/* ---- contexts -------------------------------------------------------------------------- */
pg_status model_ctx_new(model_model *m, int max_seq, model_ctx **out, pg_diag_sink *diag) {
    *out = NULL;
    const model_config *c = &m->cfg;
    if (max_seq <= 0) max_seq = c->max_position_embeddings;
    if (max_seq > (1 << 22)) {
        pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0, "context of %d positions is over the 4M limit", max_seq);
        return PG_ERR_LIMIT;
    }
    model_ctx *x = calloc(1, sizeof *x);
    if (!x) return PG_ERR_NOMEM;
    int H = c->hidden_size, I = c->intermediate_size, hd = c->head_dim;
    int QD = c->num_attention_heads * hd, KVD = c->num_key_value_heads * hd;
    x->m = m;
    x->max_seq = max_seq;
    size_t kv = (size_t)c->num_hidden_layers * max_seq * KVD;
    x->kc = malloc((size_t)c->num_hidden_layers * c->num_key_value_heads * (((size_t)max_seq + 15) / 16 * 16) * hd * 4);
    x->vc = malloc(kv * 4);
    x->rope_cos = malloc((size_t)max_seq * (hd / 2) * 4);
    x->rope_sin = malloc((size_t)max_seq * (hd / 2) * 4);
    x->x = malloc((size_t)CHUNK * H * 4);
    x->xb = malloc((size_t)CHUNK * H * 4);
    x->tmp = malloc((size_t)CHUNK * H * 4);
    x->qkv = malloc((size_t)CHUNK * (QD + 2 * KVD) * 4);
    x->att = malloc((size_t)CHUNK * QD * 4);
    x->gu = malloc((size_t)CHUNK * 2 * I * 4);
    x->h = malloc((size_t)CHUNK * I * 4);
    x->scores = malloc((size_t)model_pool_size(m->pool) * (c->num_attention_heads / c->num_key_value_heads) * max_seq * 4);
    x->hrows = malloc((size_t)CHUNK * H * 4);
    bool lora_ok = true;
    if (m->lora_rmax) {
        x->lt = malloc((size_t)CHUNK * m->lora_rmax * 4);
        x->ly = malloc((size_t)CHUNK * m->lora_outmax * 4);
        lora_ok = x->lt && x->ly;
    }
    if (m->lhead.nmod) {
        x->lht = malloc((size_t)m->lhead.R * 4);
        x->lhy = malloc((size_t)c->vocab_size * 4);
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

void model_ctx_free(model_ctx *c) {
    if (!c) return;
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
    int nch;              /* pool chunks the n * heads (token, head) pairs are split into */
} att_job;

/* Attention for the (row, KV head) pairs of pool chunks [c0, c1): causal, row t over its
 * context's cache positions 0..p (p: the row's own position, row_ctx). */
static void attention(void *arg, int c0, int c1, int ith) {
    const att_job *J = arg;
    model_ctx *c = J->c;
    const model_config *cf = &c->m->cfg;
    int hd = cf->head_dim, nh = cf->num_attention_heads, nkv = cf->num_key_value_heads, ng = nh / nkv;
    int QD = nh * hd, KVD = nkv * hd, W = QD + 2 * KVD;
    float scale = 1.0f / sqrtf((float)hd);
    int total = J->n * nkv;   /* (token, KV head) pairs: a KV head's query heads read its cache rows once */
    for (int w = (int)((long)total * c0 / J->nch); w < (int)((long)total * c1 / J->nch); w++) {
        int t = w / nkv, kvh = w % nkv, pos;
        model_ctx *rc = row_ctx(c, J->seq, t, &pos);   /* the cache row t reads: positions 0..pos */
        float *sc = rc->scores + (size_t)ith * ng * rc->max_seq;                  /* [ng][max_seq] */
        const float *vbase = rc->vc + (size_t)J->l * rc->max_seq * KVD;          /* [max_seq][KVD] */
        const float *q = c->qkv + (size_t)t * W + (size_t)kvh * ng * hd;          /* [ng][hd] */
        model_kern_attn_group(q, ng, kcache(rc, J->l, kvh), vbase + (size_t)kvh * hd, (size_t)KVD, pos + 1, hd, scale, sc,
                        c->att + (size_t)t * QD + (size_t)kvh * ng * hd);
    }
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
    if (J->n < 4) ew_rows(J, 0, J->n, 0);
    else model_pool_run(J->c->m->pool, ew_rows, J, J->n);
}

/* out[n][.] (row stride ldo) += the side path of ls on x[n][in] (stride ldx): t = A x, then
 * B_i t_i into the module's output rows.  Decode (and an exact step) stays on the caller (the
 * matrices are small; a pool dispatch would cost more than the work); prefill runs on the pool. */
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
        att_job aj = {c, seq, l, n, n * nkv < 8 * model_pool_size(m->pool) ? n * nkv : 8 * model_pool_size(m->pool)};
        PROF(m, PROF_ATTN, model_pool_run(m->pool, attention, &aj, aj.nch));
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

pg_status model_forward(model_ctx *c, const int32_t *toks, int n, float *logits, float *all_logits, pg_diag_sink *diag) {
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
    for (int s = 0; s < n; s += CHUNK) {
        int nb = n - s < CHUNK ? n - s : CHUNK;
        bool last = s + nb == n;
        forward_rows(c, NULL, toks + s, nb, all_logits ? all_logits + (size_t)s * cf->vocab_size : NULL, last ? logits : NULL, false);
    }
    return PG_OK;
}

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
