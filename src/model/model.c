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
 * ([hd][16]) so scores need no horizontal sums. */
#include "model_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK 128   /* prefill runs in batches of at most this many tokens (bounds scratch memory) */

typedef struct {
    float *ln1, *ln2;     /* [H] */
    wmat qkv;             /* [QD + 2*KVD][H] */
    float *bqkv;          /* [QD + 2*KVD] */
    wmat o;               /* [H][QD] */
    wmat gate_up;         /* [2*I][H]: gate rows then up rows */
    wmat down;            /* [H][I] */
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
};

struct model_ctx {
    model_model *m;
    int max_seq, pos;
    float *kc;            /* [L][KV heads][max_seq / 16][hd][16]: K in blocks of 16 positions */
    float *vc;            /* [L][max_seq][KVD] */
    float *rope_cos, *rope_sin;   /* [max_seq][hd/2] */
    float *x, *xb, *qkv, *att, *gu, *h, *tmp;   /* chunk scratch, [CHUNK][...] */
    float *scores;        /* [nthreads][heads per KV head][max_seq] */
};

const model_config *model_get_config(const model_model *m) { return &m->cfg; }
size_t model_param_count(const model_model *m) { return m->nparams; }
int model_threads(const model_model *m) { return pool_size(m->pool); }
const char *model_weight_dtype(const model_model *m) { return m->wt == WT_F32 ? "f32" : m->wt == WT_BF16 ? "bf16" : "q8"; }

size_t model_weight_bytes(const model_model *m) {
    const model_config *c = &m->cfg;
    size_t b = wmat_bytes(&m->embed) + wmat_bytes(&m->lm_head) + (size_t)c->hidden_size * 4;
    for (int l = 0; l < c->num_hidden_layers; l++) {
        const layer *L = &m->L[l];
        b += wmat_bytes(&L->qkv) + wmat_bytes(&L->o) + wmat_bytes(&L->gate_up) + wmat_bytes(&L->down);
        b += (size_t)(2 * c->hidden_size + L->qkv.rows) * 4;
    }
    return b;
}

void model_free(model_model *m) {
    if (!m) return;
    for (int l = 0; m->L && l < m->cfg.num_hidden_layers; l++) {
        layer *L = &m->L[l];
        free(L->ln1); free(L->ln2); free(L->bqkv);
        wmat_free(&L->qkv); wmat_free(&L->o); wmat_free(&L->gate_up); wmat_free(&L->down);
    }
    free(m->L);
    wmat_free(&m->embed);
    wmat_free(&m->lm_head);
    free(m->norm);
    pool_free(m->pool);
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
    const st_tensor *t = st_find(&ld->st, name);
    if (!t) {
        pg_diag_emit(ld->diag, PG_E_MODEL_TENSOR, ld->src, 0, 0, "tensor '%s' is missing", name);
        return false;
    }
    if (t->dtype != ST_F32 && t->dtype != ST_BF16 && t->dtype != ST_F16) {
        pg_diag_emit(ld->diag, PG_E_MODEL_TENSOR, t->file, 0, 0, "tensor '%s': dtype %s is not supported (F32, BF16, F16)",
                     name, st_dtype_name(t->dtype));
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
    return st_to_f32(t, dst);
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
        if (!lora_module(mod, &l, kind, sizeof kind) || l >= c->num_hidden_layers) {
            pg_diag_emit(ld->diag, PG_E_ADAPTER, t->file, 0, 0,
                         "tensor '%s' targets module '%s', which this %d-layer Qwen2 model does not have (adapter for another base?)",
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
                         t->name, st_dtype_name(t->dtype), got, ld->lc.r, kind, exp);
            return false;
        }
        /* every A needs its B */
        char other[300];
        snprintf(other, sizeof other, "%s%s.lora_%c.weight", pre, mod, is_a ? 'B' : 'A');
        if (!st_find(&ld->ad, other)) {
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
    const st_tensor *A = st_find(&ld->ad, na), *B = st_find(&ld->ad, nb);
    if (!A || !B) return true;   /* not adapted (lora_check made sure they come in pairs) */
    int r = ld->lc.r;
    float *a = malloc((size_t)r * in * sizeof *a), *b = malloc((size_t)out * r * sizeof *b);
    if (!a || !b) { free(a); free(b); return false; }
    st_to_f32(A, a);
    st_to_f32(B, b);
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
        wmat_make(&L->qkv, buf, QD + 2 * KVD, H, m->wt) != PG_OK)
        return false;
    if (!load_f32(ld, NAME("self_attn.o_proj.weight"), H, QD, buf) || !lora_merge(ld, l, "o_proj", buf, H, QD) ||
        wmat_make(&L->o, buf, H, QD, m->wt) != PG_OK)
        return false;
    float *wg = buf, *wu = buf + (size_t)I * H;   /* gate|up stacked: [2*I][H] */
    if (!load_f32(ld, NAME("mlp.gate_proj.weight"), I, H, wg) || !load_f32(ld, NAME("mlp.up_proj.weight"), I, H, wu) ||
        !lora_merge(ld, l, "gate_proj", wg, I, H) || !lora_merge(ld, l, "up_proj", wu, I, H) ||
        wmat_make(&L->gate_up, buf, 2 * I, H, m->wt) != PG_OK)
        return false;
    if (!load_f32(ld, NAME("mlp.down_proj.weight"), H, I, buf) || !lora_merge(ld, l, "down_proj", buf, H, I) ||
        wmat_make(&L->down, buf, H, I, m->wt) != PG_OK)
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
    pg_status st = lora_config_parse(text, len, path, &ld->lc, ld->diag);
    free(text);
    if (st != PG_OK) return st;
    snprintf(ld->ad_file, sizeof ld->ad_file, "%s/adapter_model.safetensors", adir);
    if ((st = st_open_file(&ld->ad, ld->ad_file, ld->diag)) != PG_OK) {   /* E801 says what is wrong */
        pg_diag_emit(ld->diag, PG_E_ADAPTER, ld->ad_file, 0, 0, "cannot use the adapter weights");
        return st;
    }
    ld->have_lora = true;
    return lora_check(ld) ? PG_OK : PG_ERR_INVALID;
}

pg_status model_load(const char *dir, const model_load_opts *o, model_model **out, pg_diag_sink *diag) {
    *out = NULL;
    model_load_opts defaults = {NULL, 0, NULL};
    if (!o) o = &defaults;
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
    if ((st = st_open_model_dir(&ld.st, dir, diag)) != PG_OK) goto fail;
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
    if (!load_f32(&ld, "model.embed_tokens.weight", V, H, buf) || wmat_make(&m->embed, buf, V, H, wt) != PG_OK) goto fail;
    if (!load_f32(&ld, "model.norm.weight", H, 0, m->norm)) goto fail;
    m->nparams = (size_t)V * H + H;
    for (int l = 0; l < c->num_hidden_layers; l++)
        if (!load_layer(&ld, l, buf)) goto fail;
    if (!c->tie_word_embeddings) {
        if (!load_f32(&ld, "lm_head.weight", V, H, buf) || wmat_make(&m->lm_head, buf, V, H, wt) != PG_OK) goto fail;
        m->nparams += (size_t)V * H;
    }
    int nth = o->threads > 0 ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    m->pool = pool_new(nth < 1 ? 1 : nth > 256 ? 256 : nth);
    if (!m->pool) { st = PG_ERR_NOMEM; goto fail; }
    free(buf);
    st_close(&ld.st);
    st_close(&ld.ad);
    *out = m;
    return PG_OK;
fail:
    free(buf);
    st_close(&ld.st);
    st_close(&ld.ad);
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
    x->scores = malloc((size_t)pool_size(m->pool) * (c->num_attention_heads / c->num_key_value_heads) * max_seq * 4);
    if (!x->kc || !x->vc || !x->rope_cos || !x->rope_sin || !x->x || !x->xb || !x->tmp || !x->qkv || !x->att || !x->gu ||
        !x->h || !x->scores) {
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
    free(c);
}

int model_ctx_pos(const model_ctx *c) { return c->pos; }

void model_ctx_rewind(model_ctx *c, int pos) {
    if (pos < 0) pos = 0;
    if (pos < c->pos) c->pos = pos;   /* entries >= pos are simply overwritten later */
}

/* ---- forward ----------------------------------------------------------------------------- */
/* HF rotate_half: pairs (i, i + hd/2) rotated by the position's angle. */
static void rope(float *v, const float *cs, const float *sn, int hd) {
    int h2 = hd / 2;
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

typedef struct {
    model_ctx *c;
    int l, n, pos0;       /* layer, tokens in the chunk, position of the first */
    int nch;              /* pool chunks the n * heads (token, head) pairs are split into */
} att_job;

/* Attention for the (token, head) pairs of pool chunks [c0, c1): causal, over cache 0..pos0+t. */
static void attention(void *arg, int c0, int c1, int ith) {
    const att_job *J = arg;
    model_ctx *c = J->c;
    const model_config *cf = &c->m->cfg;
    int hd = cf->head_dim, nh = cf->num_attention_heads, nkv = cf->num_key_value_heads, ng = nh / nkv;
    int QD = nh * hd, KVD = nkv * hd, W = QD + 2 * KVD;
    float scale = 1.0f / sqrtf((float)hd);
    float *sc = c->scores + (size_t)ith * ng * c->max_seq;
    const float *vbase = c->vc + (size_t)J->l * c->max_seq * KVD;
    int total = J->n * nkv;   /* (token, KV head) pairs: a KV head's query heads read its cache rows once */
    for (int w = (int)((long)total * c0 / J->nch); w < (int)((long)total * c1 / J->nch); w++) {
        int t = w / nkv, kvh = w % nkv, T = J->pos0 + t + 1;
        const float *q = c->qkv + (size_t)t * W + (size_t)kvh * ng * hd;
        kern_attn_group(q, ng, kcache(c, J->l, kvh), vbase + (size_t)kvh * hd, (size_t)KVD, T, hd, scale, sc,
                        c->att + (size_t)t * QD + (size_t)kvh * ng * hd);
    }
}

/* Per-token elementwise steps between the matmuls, over token ranges: on the
 * pool for a prefill chunk, on the caller for a decode step (no dispatch). */
enum { EW_RMS1, EW_ADD_RMS1, EW_QKV, EW_ADD_RMS2, EW_SILU };
typedef struct {
    model_ctx *c;
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
            kern_rmsnorm(xb, x, J->stage == EW_ADD_RMS1 ? L->ln1 : L->ln2, H, eps);
            break;
        }
        case EW_RMS1: kern_rmsnorm(xb, x, L->ln1, H, eps); break;
        case EW_QKV: {
            float *r = c->qkv + (size_t)t * W;
            int p = c->pos + t;
            for (int i = 0; i < W; i++) r[i] += L->bqkv[i];
            const float *cs = c->rope_cos + (size_t)p * h2, *sn = c->rope_sin + (size_t)p * h2;
            for (int h = 0; h < nh; h++) rope(r + h * hd, cs, sn, hd);
            for (int h = 0; h < nkv; h++) rope(r + QD + h * hd, cs, sn, hd);
            size_t at = ((size_t)J->l * c->max_seq + p) * KVD;
            for (int h = 0; h < nkv; h++) {   /* K: blocks of 16 positions, [hd][16] each */
                float *kb = kcache(c, J->l, h) + (size_t)(p / 16) * 16 * hd + p % 16;
                for (int d = 0; d < hd; d++) kb[d * 16] = r[QD + h * hd + d];
            }
            memcpy(c->vc + at, r + QD + KVD, (size_t)KVD * 4);
            break;
        }
        default: {
            const float *g = c->gu + (size_t)t * 2 * I;
            kern_silu_mul(c->h + (size_t)t * I, g, g + I, I);
            break;
        }
        }
    }
}

static void run_ew(ew_job *J) {
    if (J->n < 4) ew_rows(J, 0, J->n, 0);
    else pool_run(J->c->m->pool, ew_rows, J, J->n);
}

static void forward_chunk(model_ctx *c, const int32_t *toks, int n, float *all_logits, float *last_logits) {
    model_model *m = c->m;
    const model_config *cf = &m->cfg;
    int H = cf->hidden_size, I = cf->intermediate_size, hd = cf->head_dim;
    int nh = cf->num_attention_heads, nkv = cf->num_key_value_heads;
    int QD = nh * hd, KVD = nkv * hd, W = QD + 2 * KVD;
    float eps = (float)cf->rms_norm_eps;
    for (int t = 0; t < n; t++) wmat_row_f32(&m->embed, toks[t], c->x + (size_t)t * H);
    for (int l = 0; l < cf->num_hidden_layers; l++) {
        const layer *L = &m->L[l];
        ew_job ej = {c, L, l, n, l > 0 ? EW_ADD_RMS1 : EW_RMS1};
        run_ew(&ej);   /* (x += down output of the layer before;) xb = rmsnorm(x) */
        matmul(m->pool, c->qkv, W, c->xb, H, n, &L->qkv);
        ej.stage = EW_QKV;
        run_ew(&ej);   /* bias, RoPE, K/V into the cache */
        att_job aj = {c, l, n, c->pos, n * nkv < 8 * pool_size(m->pool) ? n * nkv : 8 * pool_size(m->pool)};
        pool_run(m->pool, attention, &aj, aj.nch);
        matmul(m->pool, c->tmp, H, c->att, QD, n, &L->o);
        ej.stage = EW_ADD_RMS2;
        run_ew(&ej);   /* x += o output; xb = rmsnorm(x) */
        matmul(m->pool, c->gu, 2 * I, c->xb, H, n, &L->gate_up);
        ej.stage = EW_SILU;
        run_ew(&ej);
        matmul(m->pool, c->tmp, H, c->h, I, n, &L->down);
    }
    /* the last layer's down output: added only to the rows the final norm reads */
    for (int t = all_logits ? 0 : n - 1; t < n; t++)
        for (int i = 0; i < H; i++) c->x[(size_t)t * H + i] += c->tmp[(size_t)t * H + i];
    const wmat *head = cf->tie_word_embeddings ? &m->embed : &m->lm_head;
    if (all_logits) {
        for (int t = 0; t < n; t++) kern_rmsnorm(c->xb + (size_t)t * H, c->x + (size_t)t * H, m->norm, H, eps);
        matmul(m->pool, all_logits, cf->vocab_size, c->xb, H, n, head);
        if (last_logits) memcpy(last_logits, all_logits + (size_t)(n - 1) * cf->vocab_size, (size_t)cf->vocab_size * 4);
    } else if (last_logits) {   /* only the last position's logits are wanted: one row, not n */
        kern_rmsnorm(c->xb, c->x + (size_t)(n - 1) * H, m->norm, H, eps);
        matmul(m->pool, last_logits, cf->vocab_size, c->xb, H, 1, head);
    }
    c->pos += n;
}

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
        forward_chunk(c, toks + s, nb, all_logits ? all_logits + (size_t)s * cf->vocab_size : NULL, last ? logits : NULL);
    }
    return PG_OK;
}
