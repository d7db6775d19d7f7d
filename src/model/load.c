/* load.c — building a model from its files: a Hugging Face directory (config.json, safetensors,
 * a PEFT adapter merged, weights converted to the compute dtype), a GGUF file (configuration from
 * its metadata, weights left in the mapping, an adapter as a side path), or a shipped directory
 * (base.json naming a GGUF, an adapter beside it).  The one user of the weight readers (gguf.h,
 * safetensors.h); it fills the model object of model_internal.h and calls nothing in model.c. */
#include "model_internal.h"
#include "gpu.h"
#include "gguf.h"
#include "safetensors.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static void lora_free(lora_side *ls) {
    model_wmat_free(&ls->A);
    for (int i = 0; i < ls->nmod; i++) model_wmat_free(&ls->mod[i].B);
    memset(ls, 0, sizeof *ls);
}

void model_free(model_model *m) {
    if (!m) return;
    model_gpu_set_server(m, NULL, NULL);
    model_gpu_close(m->gpu);
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
    bool pack;               /* GGUF: the CPU decode's 16-row copies (not when the GPU engine takes over) */
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
    float *a = model_alloc((size_t)r * in * sizeof *a), *b = model_alloc((size_t)out * r * sizeof *b);
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
    L->ln1 = model_alloc((size_t)H * 4);
    L->ln2 = model_alloc((size_t)H * 4);
    L->bqkv = model_alloc((size_t)(QD + 2 * KVD) * 4);
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
    /* an adapter that names its base's class ("Qwen2ForCausalLM") must be for this architecture: shapes
     * alone can agree across families, and the update would then be applied to weights it never saw */
    const char *arch = ld->m->arch[0] ? ld->m->arch : "qwen2";
    size_t al = strlen(arch);
    if (ld->lc.base_class[0] && !(strncasecmp(ld->lc.base_class, arch, al) == 0 && !strcmp(ld->lc.base_class + al, "ForCausalLM"))) {
        pg_diag_emit(ld->diag, PG_E_ADAPTER, path, 0, 0, "the adapter was trained on a %s (auto_mapping.base_model_class), "
                     "this model is %s (adapter for another base)", ld->lc.base_class, arch);
        return PG_ERR_INVALID;
    }
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
    float *buf = model_alloc((size_t)na * r * in * sizeof *buf);   /* A stacked: [na*r][in] */
    if (!buf) return false;
    for (int i = 0; i < na; i++) model_st_to_f32(A[i], buf + (size_t)i * r * in);
    bool ok = model_wmat_make(&ls->A, buf, na * r, in, WT_F32) == PG_OK;
    free(buf);
    ls->R = na * r;
    for (int i = 0; ok && i < na; i++) {
        const char *kind = kinds[idx[i]];
        linear_dims(c, kind, &out, &in);
        float *b = model_alloc((size_t)out * r * sizeof *b), *bp = model_alloc((size_t)out * r * sizeof *bp);   /* [out][r] */
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
    *dst = model_alloc((size_t)n * sizeof **dst);
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
    snprintf(m->arch, sizeof m->arch, "%s", arch);
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
                  gg_vec(ld, NAME("attn_v.bias"), KVD, &bv) && (L->bqkv = model_alloc((size_t)(QD + 2 * KVD) * 4));
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
    /* the decode kernel's 16-row copies (the layers' rows are never read one by one) */
    if (ld->pack && (!model_wmat_gg_pack(&L->qkv) || !model_wmat_gg_pack(&L->o) || !model_wmat_gg_pack(&L->gate_up) ||
                     !model_wmat_gg_pack(&L->down)))
        return false;   /* out of memory (model_alloc noted it) */
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
    model_model *m = model_calloc(1, sizeof *m);
    if (!m) return PG_ERR_NOMEM;
    m->wt = WT_GG;
    loader ld;
    memset(&ld, 0, sizeof ld);
    ld.m = m;
    ld.diag = diag;
    ld.src = path;
    ld.side = true;
    ld.exact = o->exact;
    ld.pack = !o->device || !strcmp(o->device, "cpu");
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
    m->L = model_calloc((size_t)c->num_hidden_layers, sizeof *m->L);
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

static pg_status model_load_(const char *dir, const model_load_opts *o, model_model **out, pg_diag_sink *diag) {
    *out = NULL;
    model_load_opts defaults = {NULL, 0, NULL, false, false, NULL, false};
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
    model_model *m = model_calloc(1, sizeof *m);
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
    buf = model_alloc(need * sizeof *buf);
    m->L = model_calloc((size_t)c->num_hidden_layers, sizeof *m->L);
    m->norm = model_alloc((size_t)H * 4);
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

pg_status model_load(const char *dir, const model_load_opts *o, model_model **out, pg_diag_sink *diag) {
    int e0 = diag ? diag->nerrors : 0;
    model_oom_bytes = 0;
    pg_status st = model_load_(dir, o, out, diag);
    if (st == PG_OK && o && o->device && strcmp(o->device, "cpu")) {   /* the GPU engine takes the loaded model over */
        if (strcmp(o->device, "gpu")) {
            pg_diag_emit(diag, PG_E_MODEL_CONFIG, NULL, 0, 0, "unknown device '%s' (cpu or gpu)", o->device);
            st = PG_ERR_USAGE;
        } else if (o->gpu_defer) {   /* checked now, started in the generating child (model_gpu_start) */
            st = model_gpu_check(*out, diag);
            if (st == PG_OK) {
                (*out)->gpu_deferred = true;
                snprintf((*out)->gpu_desc, sizeof (*out)->gpu_desc, "GPU engine deferred to the generating child process");
            }
        } else
            st = model_gpu_open(*out, diag);
        if (st != PG_OK) {
            model_free(*out);
            *out = NULL;
            return st;
        }
    }
    if (st != PG_OK && model_oom_bytes) {   /* an allocation inside gave up: say so, whatever the helper returned */
        pg_diag_emit(diag, PG_E_IO, dir, 0, 0, "out of memory while loading the model (a buffer of %.1f MB)", model_oom_bytes / 1048576.0);
        return PG_ERR_NOMEM;
    }
    return pg_nomem_said(st, diag, e0, dir, "loading the model");
}


