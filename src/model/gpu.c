/* gpu.c — the GPU engine's forward pass (gpu.h): the weights to the device, a step of n rows
 * as kernel launches and cuBLAS calls on one stream, logits kept per context.
 *
 * One layer for the step's rows (the order of the CPU engine's model.c):
 *   pg_rmsnorm     xb = RMSNorm(x) ln1                    (and xb16, cuBLAS's input)
 *   matmul         qkv = xb Wqkv^T
 *   pg_qkv_rope    + bias; RoPE on q and k; k and v into each row's own cache at its position
 *   attention      att = softmax(q k^T / sqrt(hd)) v: pg_attn_split, 32 blocks a (KV head, row) over
 *                  slices of the positions fixed by the row's position alone, then pg_attn_merge
 *                  ("attn_split", the default since 2026-12-07 where a KV head has <= 8 query heads);
 *                  or pg_attention, one block per (query head, row) ($PTXGEN_GPU_ATTN=full, or a
 *                  model of larger GQA groups)
 *   matmul         x += att Wo^T
 *   pg_rmsnorm     xb = RMSNorm(x) ln2
 *   matmul         gu = xb Wgate_up^T
 *   pg_silu_mul    h = silu(g) u
 *   matmul         x += h Wdown^T
 * then, for the rows that keep logits, xb = RMSNorm(x) norm and logits = xb head^T.
 * matmul is pg_matvec for one row and for the rows of an exact step (each row computed as a
 * one-row step computes it; a norm before it is done inside the matvec, which saves the two
 * pg_rmsnorm launches a layer), cuBLAS GemmEx (f16 x f16 -> f32) for several rows.
 * $PTXGEN_GPU_WEIGHTS=q8 (weights_env; default f16): the load also makes an int8 copy of every layer
 * matrix and of the head (model_gpu_q8_row: blocks of 32 weights, an f16 scale each; the q8 layout
 * below), and pg_matvec_q8 reads it wherever pg_matvec would run (one row, exact steps; ~1.06 bytes
 * a weight instead of 2).  The copies are extra device memory (~0.53x the f16 matrices): cuBLAS, for
 * the steps of several rows, keeps reading the f16 ones, so a prefill's layers are f16 and the
 * decode steps after it q8.  model_gpu_set "q8" switches the q8 matvec off and on again (bench_gpu
 * times both in one process).
 * A one-row step is captured once as a CUDA graph and replayed: its inputs (the token, the
 * row's cache and position) sit in device buffers the graph reads, uploaded before each
 * replay, so the ~200 launches of a decode step cost one.  $PTXGEN_GPU_GRAPH=0 turns that off.
 * model_forward_top's one-row step is a second graph, the step and pg_topk of its logits row.
 * model_gpu_set "profile" times each launch (no graphs). */
#include "gpu.h"
#include "gpu_blas.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A row's cache and position, as the kernels read it (gpu_ptx.c: 24 bytes). */
typedef struct {
    CUdeviceptr k, v;
    uint32_t pos, max;
} gpu_rowdesc;
_Static_assert(sizeof(gpu_rowdesc) == 24, "the kernels read 24-byte row descriptors");

typedef struct {
    CUdeviceptr ln1, ln2, bqkv;          /* f32; bqkv 0 when the model has no q/k/v bias */
    CUdeviceptr qkv, o, gate_up, down;   /* f16 [rows][cols] */
    CUdeviceptr qkv_q, o_q, gate_up_q, down_q;   /* $PTXGEN_GPU_WEIGHTS=q8: their int8 copies (q8 layout below), else 0 */
} gpu_layer;

/* The q8 layout of a matrix W [rows][cols] (cols % 32 == 0), one device allocation:
 *   int8 q [rows][cols]        row-major, at byte 0
 *   f16  d [rows][cols / 32]   at byte rows * cols: block b of row r is columns [32b, 32b + 32)
 * and W[r][c] ~= q[r][c] * d[r][c / 32] (model_gpu_q8_row).  pg_matvec_q8's lane l reads bytes
 * [16l, 16l + 16) of a 512-byte slice of a row (a warp: the slice, coalesced) and the slice's 16 scales. */
static size_t q8_bytes(size_t rows, size_t cols) { return rows * cols + rows * (cols / 32) * 2; }

/* pg_topk's pinned staging: the rows' device addresses going out, each row's candidates (values,
 * then ids, GPU_TOPK_NONE padding a row of fewer finite logits) coming back. */
#define GPU_TOPK_NONE 0xffffffffu
struct topk_stage {
    CUdeviceptr rows[GPU_ROWS];
    float vals[GPU_ROWS][GPU_TOPK];
    uint32_t ids[GPU_ROWS][GPU_TOPK];
};

typedef struct gpu_prof gpu_prof;

struct gpu_model {
    model_model *m;
    gpu_cuda cu;                         /* the driver (the gpu module's loader) */
    model_cublas cb;                     /* cuBLAS, when found */
    CUdevice dev;
    CUcontext cx;
    CUstream st;
    CUmodule mod;
    CUfunction k[GPU_NKERN];
    cublasHandle_t blas;
    gpu_layer *L;
    CUdeviceptr embed, head, norm;       /* head == embed when tied and no LoRA on the head */
    CUdeviceptr head_q;                  /* the head's int8 copy (q8 layout; its own even when tied), else 0 */
    bool q8;                             /* the int8 copies are loaded ($PTXGEN_GPU_WEIGHTS=q8) */
    bool q8_on;                          /* pg_matvec_q8 for the matvec rows (on at load with the copies; model_gpu_set "q8") */
    size_t qbytes;                       /* device bytes of the int8 copies */
    CUdeviceptr rope_cos, rope_sin;      /* [rope_max][hd/2] f32, the CPU engine's values */
    int rope_max;
    /* scratch for GPU_ROWS rows */
    CUdeviceptr x, xb, xb16, qkv, att, att16, gu, h, h16, logits, toks, rows;
    CUdeviceptr part;                    /* pg_attn_split's partials [GPU_ROWS][nh][ATT_SPLITS][hd + 2] f32 (0: the model's GQA groups exceed 8) */
    bool attn_split;                     /* pg_attn_split + pg_attn_merge instead of pg_attention (on at load where part; attn_env) */
    CUdeviceptr tk_rows, tk_v, tk_i;     /* pg_topk: row addresses [GPU_ROWS], out [GPU_ROWS][64] f32 and u32 */
    CUdeviceptr tk_cv, tk_ci, tk_rows2;  /* its first launch's candidates [GPU_ROWS][parts x 64], their rows' addresses */
    CUdeviceptr tk_lrows;                /* the addresses of g->logits' rows (a step's own top 64) */
    int tk_seg, tk_parts;                /* a row in parts of tk_seg entries (1 part: one launch) */
    struct topk_stage *tk_host;          /* pinned: the row addresses going out, the candidates coming back */
    void *stage;                         /* pinned: the step's row descriptors and tokens */
    CUgraphExec graph, graph_top;        /* the one-row step, once captured; the same with its top 64 */
    const char *tag;                     /* the matrix the next matmul multiplies (the profile's label) */
    long nlaunch;                        /* kernel launches and cuBLAS calls enqueued (a graph's replay: its kernels) */
    long graph_kernels[2];               /* the kernels in graph and graph_top */
    gpu_prof *prof;                      /* model_gpu_profile: NULL when off */
    bool graph_off;                      /* capture failed or $PTXGEN_GPU_GRAPH=0 */
    size_t wbytes;                       /* device bytes of the weights */
    char err[512];                       /* the first failure of a step */
    char desc[512];
    char desc0[480];                     /* desc without its closing switches */
};

/* pg_attn_split's blocks per (KV head, row): a constant, so a row's slices depend on its position alone */
#define ATT_SPLITS 32

/* model_gpu_profile: an event pair around each launch (the steps run eagerly, no graph), folded
 * into per-label totals after each step's synchronize. */
#define PROF_EV 2048
#define PROF_LABELS 64
struct gpu_prof {
    CUevent ev[PROF_EV];
    const char *lab[PROF_EV / 2];
    char labbuf[PROF_EV / 2][40];
    int nrec;
    struct { char name[40]; double ms; long calls; } b[PROF_LABELS];
    int nb;
    long steps, launches;
};

struct gpu_ctx {
    gpu_model *g;
    int max_seq;
    CUdeviceptr k, v;                    /* f32 [layers][KV heads][max_seq][hd] */
    CUdeviceptr lg;                      /* f32 [lcap][vocab]: the kept logits rows */
    int lcap, nl, fill;
    float *hrow;                         /* pinned [vocab]: a row on its way to an id gather */
};

static bool prof_fold(gpu_model *g);

/* ---- errors ----------------------------------------------------------------------------- */
/* Record the first failure of a CUDA call (g->err); false when r is an error. */
static bool ok_(gpu_model *g, CUresult r, const char *what) {
    if (r == 0) return true;
    if (!g->err[0]) {
        char b[256];
        snprintf(g->err, sizeof g->err, "%s: %s", what, gpu_cuda_err(&g->cu, r, b, sizeof b));
    }
    return false;
}
#define OK(g, call) ok_(g, (call), #call)

static pg_status said(gpu_model *g, pg_diag_sink *diag, pg_status st) {
    pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "the GPU engine failed: %s", g->err[0] ? g->err : "unknown error");
    g->err[0] = 0;
    return st;
}

static bool dalloc(gpu_model *g, CUdeviceptr *p, size_t bytes, const char *what) {
    *p = 0;
    CUresult r = g->cu.cuMemAlloc(p, bytes ? bytes : 4);
    if (r == 0) return true;
    if (!g->err[0]) {
        char b[256];
        snprintf(g->err, sizeof g->err, "cannot allocate %.1f MB of device memory for %s: %s", bytes / 1048576.0, what,
                 gpu_cuda_err(&g->cu, r, b, sizeof b));
    }
    return false;
}

static void dfree(gpu_model *g, CUdeviceptr *p) {
    if (*p) g->cu.cuMemFree(*p);
    *p = 0;
}

/* ---- weights ---------------------------------------------------------------------------- */
/* f32 -> f16, round to nearest even (overflow to infinity, subnormals kept). */
static uint16_t f16_of(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, m = x & 0x7fffff;
    int E = (int)((x >> 23) & 0xff), e = E - 127 + 15;
    if (E == 0xff) return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
    if (e >= 31) return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10) return (uint16_t)sign;
        uint32_t mm = m | 0x800000, shift = (uint32_t)(14 - e);
        uint32_t v = mm >> shift, rem = mm & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (v & 1))) v++;
        return (uint16_t)(sign | v);
    }
    uint32_t v = ((uint32_t)e << 10) | (m >> 13), rem = m & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (v & 1))) v++;   /* a carry into the exponent is right */
    return (uint16_t)(sign | v);
}

/* gpu.h: one row's Q8 blocks.  A block's scale is max|w| / 127 rounded up to an f16 (so no
 * |w| / d exceeds 127: q never clips), q = round(w / d) to nearest, ties away from zero. */
bool model_gpu_q8_row(const float *w, int cols, int8_t *q, uint16_t *d) {
    if (cols % 32) return false;
    for (int b = 0; b < cols / 32; b++) {
        const float *x = w + 32 * b;
        float amax = 0;
        for (int i = 0; i < 32; i++) {
            if (!isfinite(x[i])) return false;
            if (fabsf(x[i]) > amax) amax = fabsf(x[i]);
        }
        float want = amax / 127.0f;
        uint16_t h = f16_of(want);
        if (model_f16_to_f32(h) < want) h++;   /* positive: the next f16 up (0x7bff + 1 is infinity) */
        if ((h & 0x7c00) == 0x7c00) return false;   /* beyond f16's range */
        d[b] = h;
        float s = model_f16_to_f32(h);
        for (int i = 0; i < 32; i++) {
            float v = s > 0 ? roundf(x[i] / s) : 0.0f;
            q[32 * b + i] = (int8_t)(v > 127.0f ? 127 : v < -127.0f ? -127 : v);
        }
    }
    return true;
}

/* One matrix to f16 rows on the pool: row r dequantized (model_wmat_row_f32), the LoRA side
 * path merged (row += sum_k B[r][k] A[k], f32), rounded; with q: its Q8 blocks too, from the
 * f32 row (not the f16 one). */
typedef struct {
    const wmat *w;
    const lora_side *ls;
    const float *A;       /* ls->A as f32 rows [R][cols] */
    uint16_t *dst;        /* [rows][cols] */
    int8_t *q;            /* NULL, or the q8 layout's q [rows][cols] */
    uint16_t *qd;         /* and its d [rows][cols / 32] */
    atomic_int bad;       /* 1 + a row model_gpu_q8_row refused, else 0 */
    pg_pool *pool;
} up_job;

static void up_rows(void *arg, int r0, int r1, int ith) {
    const up_job *J = arg;
    const wmat *w = J->w;
    int cols = w->cols, rmax = J->ls ? J->ls->R : 0;
    float *row = model_pool_scratch(J->pool, ith, ((size_t)cols + (size_t)rmax + 1) * sizeof(float));
    if (!row) pg_oom();
    float *b = row + cols;
    for (int r = r0; r < r1; r++) {
        model_wmat_row_f32(w, r, row);
        for (int i = 0; J->ls && i < J->ls->nmod; i++) {
            const wmat *B = &J->ls->mod[i].B;
            int out0 = J->ls->mod[i].out0;
            if (r < out0 || r >= out0 + B->rows) continue;
            model_wmat_row_f32(B, r - out0, b);   /* [rank], already scaled by s */
            for (int k = 0; k < B->cols; k++) {
                const float *a = J->A + (size_t)(J->ls->mod[i].t0 + k) * cols;
                for (int c = 0; c < cols; c++) row[c] += b[k] * a[c];
            }
        }
        uint16_t *d = J->dst + (size_t)r * cols;
        for (int c = 0; c < cols; c++) d[c] = f16_of(row[c]);
        if (J->q && !model_gpu_q8_row(row, cols, J->q + (size_t)r * cols, J->qd + (size_t)r * (cols / 32)))
            atomic_store(&((up_job *)arg)->bad, r + 1);
    }
}

/* Upload w (+ its LoRA side path ls, may be NULL or empty) as f16 [rows][cols]; out NULL: not
 * that; qout not NULL: its int8 copy too (the q8 layout). */
static bool up_mat(gpu_model *g, const wmat *w, const lora_side *ls, CUdeviceptr *out, CUdeviceptr *qout, const char *what) {
    size_t n = (size_t)w->rows * w->cols, nq = qout ? q8_bytes((size_t)w->rows, (size_t)w->cols) : 0;
    uint16_t *host = malloc(n * 2);
    int8_t *qh = qout ? malloc(nq) : NULL;
    float *A = NULL;
    if (ls && ls->nmod) {
        A = malloc((size_t)ls->R * w->cols * sizeof *A);
        if (A)
            for (int k = 0; k < ls->R; k++) model_wmat_row_f32(&ls->A, k, A + (size_t)k * w->cols);
    }
    if (!host || (ls && ls->nmod && !A) || (qout && !qh)) {
        free(host);
        free(A);
        free(qh);
        snprintf(g->err, sizeof g->err, "out of host memory converting %s (%.1f MB)", what, (n * 2 + nq) / 1048576.0);
        return false;
    }
    up_job J = {w, ls && ls->nmod ? ls : NULL, A, host, qh, qh ? (uint16_t *)(void *)(qh + n) : NULL, 0, g->m->pool};
    model_pool_run(g->m->pool, up_rows, &J, w->rows);
    int bad = atomic_load(&J.bad);
    bool ok = true;
    if (bad) {
        snprintf(g->err, sizeof g->err, "PTXGEN_GPU_WEIGHTS=q8: %s row %d has a weight that is not finite or a block beyond f16's range",
                 what, bad - 1);
        ok = false;
    }
    if (ok && out) {
        ok = dalloc(g, out, n * 2, what) && OK(g, g->cu.cuMemcpyHtoD(*out, host, n * 2));
        g->wbytes += n * 2;
    }
    if (ok && qout) {
        ok = dalloc(g, qout, nq, what) && OK(g, g->cu.cuMemcpyHtoD(*qout, qh, nq));
        g->qbytes += nq;
    }
    free(host);
    free(A);
    free(qh);
    return ok;
}

static bool up_f32(gpu_model *g, const float *src, size_t n, CUdeviceptr *out, const char *what) {
    g->wbytes += n * 4;
    return dalloc(g, out, n * 4, what) && OK(g, g->cu.cuMemcpyHtoD(*out, src, n * 4));
}

static void drop_graphs(gpu_model *g) {
    if (g->graph) g->cu.cuGraphExecDestroy(g->graph);
    if (g->graph_top) g->cu.cuGraphExecDestroy(g->graph_top);
    g->graph = g->graph_top = NULL;
}

static void profile_free(gpu_model *g) {
    if (!g->prof) return;
    for (int i = 0; i < PROF_EV; i++)
        if (g->prof->ev[i]) g->cu.cuEventDestroy(g->prof->ev[i]);
    free(g->prof);
    g->prof = NULL;
}

/* RoPE tables for positions [0, npos), as model.c computes them (float, powf/cosf/sinf). */
static bool rope_tables(gpu_model *g, int npos) {
    const model_config *c = &g->m->cfg;
    int h2 = c->head_dim / 2;
    size_t n = (size_t)npos * h2;
    float *cs = malloc(n * 4), *sn = malloc(n * 4);
    bool ok = cs && sn;
    if (!ok) snprintf(g->err, sizeof g->err, "out of host memory for the RoPE tables of %d positions", npos);
    for (int i = 0; ok && i < h2; i++) {
        float inv = 1.0f / powf((float)c->rope_theta, (float)(2 * i) / (float)c->head_dim);
        for (int p = 0; p < npos; p++) {
            float a = (float)p * inv;
            cs[(size_t)p * h2 + i] = cosf(a);
            sn[(size_t)p * h2 + i] = sinf(a);
        }
    }
    if (ok) {
        dfree(g, &g->rope_cos);
        dfree(g, &g->rope_sin);
        ok = dalloc(g, &g->rope_cos, n * 4, "the RoPE tables") && dalloc(g, &g->rope_sin, n * 4, "the RoPE tables") &&
             OK(g, g->cu.cuMemcpyHtoD(g->rope_cos, cs, n * 4)) && OK(g, g->cu.cuMemcpyHtoD(g->rope_sin, sn, n * 4));
        if (ok) g->rope_max = npos;
    }
    free(cs);
    free(sn);
    drop_graphs(g);   /* the graphs read the old tables */
    return ok;
}

/* desc0 and the attention the steps run (bench_gpu reads it back) */
static void desc_set(gpu_model *g) {
    snprintf(g->desc, sizeof g->desc, "%s; %s%s)", g->desc0, g->q8_on ? "pg_matvec_q8; " : "", g->attn_split ? "pg_attn_split" : "pg_attention");
}

/* $PTXGEN_GPU_ATTN, the attention a load starts with: unset, empty or "split" the split-KV attention
 * where the model admits it (the default since 2026-12-07: +27% tok/s one sequence, +23% at k = 32 for
 * the 1.5B on an H100, same logits; DESIGN.md), "full" pg_attention.  1, 0; -1 and PG_ERR_USAGE said
 * for anything else, at load (a misspelt "full" would time the default unnoticed). */
static int attn_env(pg_diag_sink *diag) {
    const char *e = getenv("PTXGEN_GPU_ATTN");
    if (!e || !*e || !strcmp(e, "split")) return 1;
    if (!strcmp(e, "full")) return 0;
    pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0,
                 "PTXGEN_GPU_ATTN=\"%.64s\": full (pg_attention) or split (pg_attn_split + pg_attn_merge, the default)", e);
    return -1;
}

/* $PTXGEN_GPU_WEIGHTS, the weights the matvec rows read: unset, empty or "f16" the f16 copies
 * (the default until q8 is measured on a GPU), "q8" also an int8 copy of every layer matrix and the
 * head (Q8_0-style blocks of 32, an f16 scale each; ~0.53x the f16 bytes) that pg_matvec_q8 reads
 * for one-row steps and exact steps (cuBLAS keeps the f16 ones: both copies are on the device).
 * 1, 0; -1 and PG_ERR_USAGE said for anything else, at load. */
static int weights_env(pg_diag_sink *diag) {
    const char *e = getenv("PTXGEN_GPU_WEIGHTS");
    if (!e || !*e || !strcmp(e, "f16")) return 0;
    if (!strcmp(e, "q8")) return 1;
    pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0,
                 "PTXGEN_GPU_WEIGHTS=\"%.64s\": f16 (the default) or q8 (an int8 copy of the matrices for the one-row matvec, "
                 "pg_matvec_q8)", e);
    return -1;
}

/* ---- open / close --------------------------------------------------------------------- */
const char *model_gpu_describe(const gpu_model *g) { return g->desc; }

void model_gpu_close(gpu_model *g) {
    if (!g) return;
    if (g->cu.lib && g->cx) {
        g->cu.cuCtxSetCurrent(g->cx);
        if (g->st) g->cu.cuStreamSynchronize(g->st);
        drop_graphs(g);
        profile_free(g);
        const model_config *c = &g->m->cfg;
        for (int l = 0; g->L && l < c->num_hidden_layers; l++) {
            gpu_layer *L = &g->L[l];
            dfree(g, &L->ln1); dfree(g, &L->ln2); dfree(g, &L->bqkv);
            dfree(g, &L->qkv); dfree(g, &L->o); dfree(g, &L->gate_up); dfree(g, &L->down);
            dfree(g, &L->qkv_q); dfree(g, &L->o_q); dfree(g, &L->gate_up_q); dfree(g, &L->down_q);
        }
        dfree(g, &g->head_q);
        if (g->head != g->embed) dfree(g, &g->head);
        dfree(g, &g->embed); dfree(g, &g->norm); dfree(g, &g->rope_cos); dfree(g, &g->rope_sin);
        CUdeviceptr *s[] = {&g->part, &g->x, &g->xb, &g->xb16, &g->qkv, &g->att, &g->att16, &g->gu, &g->h, &g->h16, &g->logits, &g->toks, &g->rows,
                             &g->tk_rows, &g->tk_v, &g->tk_i, &g->tk_cv, &g->tk_ci, &g->tk_rows2, &g->tk_lrows};
        for (size_t i = 0; i < sizeof s / sizeof *s; i++) dfree(g, s[i]);
        if (g->stage) g->cu.cuMemFreeHost(g->stage);
        if (g->tk_host) g->cu.cuMemFreeHost(g->tk_host);
        if (g->blas) g->cb.cublasDestroy(g->blas);
        if (g->mod) g->cu.cuModuleUnload(g->mod);
        if (g->st) g->cu.cuStreamDestroy(g->st);
        g->cu.cuDevicePrimaryCtxRelease(g->dev);
    }
    free(g->L);
    model_cublas_unload(&g->cb);
    gpu_cuda_unload(&g->cu);
    free(g);
}

/* Shapes the kernels take: head dims of 32..128 in steps of 32 (attention's lanes), rows of
 * whole 8-element chunks (the matvec's 16-byte loads). */
static bool shapes_ok(const model_config *c, char *why, size_t n) {
    int hd = c->head_dim, H = c->hidden_size, I = c->intermediate_size;
    if (hd % 32 || hd > 128 || hd < 32) snprintf(why, n, "a head dimension of %d (the attention kernel takes 32, 64, 96 or 128)", hd);
    else if (H % 8 || I % 8) snprintf(why, n, "hidden size %d / intermediate size %d not multiples of 8", H, I);
    else if (c->num_attention_heads % c->num_key_value_heads) snprintf(why, n, "%d query heads over %d KV heads", c->num_attention_heads, c->num_key_value_heads);
    else if (c->vocab_size > 65535 * 8) snprintf(why, n, "a vocabulary of %d (the matvec's grid takes 524,280 rows)", c->vocab_size);
    else return true;
    return false;
}

/* pg_matvec_q8's blocks of 32 columns: the matrices' columns H, nh hd and I */
static bool q8_shapes_ok(const model_config *c, char *why, size_t n) {
    if (c->hidden_size % 32 == 0 && c->intermediate_size % 32 == 0 && (c->num_attention_heads * c->head_dim) % 32 == 0) return true;
    snprintf(why, n, "hidden size %d / intermediate size %d not multiples of 32 (the int8 copy's blocks)", c->hidden_size,
             c->intermediate_size);
    return false;
}

/* The deferred engine's check at load (gpu.h): what model_gpu_open would refuse first, said the
 * same way, without initialising CUDA here: cuInit and the device count run in a forked child. */
pg_status model_gpu_check(const model_model *m, pg_diag_sink *diag) {
    char why[512];
    if (!shapes_ok(&m->cfg, why, sizeof why)) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "the GPU engine cannot run this model: %s", why);
        return PG_ERR_INVALID;
    }
    if (attn_env(diag) < 0) return PG_ERR_USAGE;
    int q8 = weights_env(diag);
    if (q8 < 0) return PG_ERR_USAGE;
    if (q8 && !q8_shapes_ok(&m->cfg, why, sizeof why)) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "PTXGEN_GPU_WEIGHTS=q8 cannot run this model: %s", why);
        return PG_ERR_INVALID;
    }
    gpu_cuda cu;
    if (!gpu_cuda_load(&cu, GPU_CUDA_ENGINE, why, sizeof why)) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "--device gpu needs the NVIDIA driver's libcuda: %s (use --device cpu)", why);
        return PG_ERR_EXTERNAL;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        int ndev = 0;
        _exit(cu.cuInit(0) != 0 ? 2 : cu.cuDeviceGetCount(&ndev) != 0 || ndev < 1 ? 3 : 0);
    }
    int status = 0;
    bool ok = pid >= 0 && waitpid(pid, &status, 0) >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    gpu_cuda_unload(&cu);
    if (!ok) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "--device gpu: no CUDA device (%s; use --device cpu)",
                     pid < 0 ? "cannot fork the probe" : WIFEXITED(status) && WEXITSTATUS(status) == 2 ? "cuInit failed" : "the driver sees none");
        return PG_ERR_EXTERNAL;
    }
    return PG_OK;
}

pg_status model_gpu_open(model_model *m, pg_diag_sink *diag) {
    const model_config *c = &m->cfg;
    char why[512];
    if (!shapes_ok(c, why, sizeof why)) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "the GPU engine cannot run this model: %s", why);
        return PG_ERR_INVALID;
    }
    int split = attn_env(diag);
    if (split < 0) return PG_ERR_USAGE;
    int q8 = weights_env(diag);
    if (q8 < 0) return PG_ERR_USAGE;
    if (q8 && !q8_shapes_ok(c, why, sizeof why)) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "PTXGEN_GPU_WEIGHTS=q8 cannot run this model: %s", why);
        return PG_ERR_INVALID;
    }
    gpu_model *g = calloc(1, sizeof *g);
    if (!g) return PG_ERR_NOMEM;
    g->m = m;
    if (!gpu_cuda_load(&g->cu, GPU_CUDA_ENGINE, why, sizeof why)) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "--device gpu needs the NVIDIA driver's libcuda: %s (use --device cpu)", why);
        free(g);
        return PG_ERR_EXTERNAL;
    }
    model_cublas_load(&g->cb);   /* optional: cuBLAS for the matmuls of several rows (prefill, batched decode) */
    const gpu_cuda *a = &g->cu;
    int ndev = 0;
    CUresult r = a->cuInit(0);
    if (r == 0) r = a->cuDeviceGetCount(&ndev);
    if (r != 0 || ndev == 0) {
        char b[256];
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "--device gpu: no CUDA device (%s; use --device cpu)",
                     r ? gpu_cuda_err(a, r, b, sizeof b) : "the driver sees none");
        model_gpu_close(g);
        return PG_ERR_EXTERNAL;
    }
    char name[128] = "GPU";
    int H = c->hidden_size, I = c->intermediate_size, hd = c->head_dim, V = c->vocab_size;
    int QD = c->num_attention_heads * hd, W = QD + 2 * c->num_key_value_heads * hd, R = GPU_ROWS;
    bool ok = OK(g, a->cuDeviceGet(&g->dev, 0)) && OK(g, a->cuDeviceGetName(name, sizeof name, g->dev)) &&
              OK(g, a->cuDevicePrimaryCtxRetain(&g->cx, g->dev)) && OK(g, a->cuCtxSetCurrent(g->cx)) &&
              OK(g, a->cuStreamCreate(&g->st, CU_STREAM_NON_BLOCKING));
    if (ok) {   /* the kernels: the driver JIT-compiles the PTX for this GPU */
        char log[4096] = "";
        int opt[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
        void *val[] = {log, (void *)(uintptr_t)sizeof log};
        r = a->cuModuleLoadDataEx(&g->mod, model_gpu_ptx, 2, opt, val);
        if (r) {
            char b[256];
            snprintf(g->err, sizeof g->err, "the driver refused the kernels' PTX: %s %.200s", gpu_cuda_err(a, r, b, sizeof b), log);
            ok = false;
        }
        for (int i = 0; ok && i < GPU_NKERN; i++) ok = OK(g, a->cuModuleGetFunction(&g->k[i], g->mod, model_gpu_kernel_names[i]));
    }
    if (ok && g->cb.lib) {   /* cuBLAS on our stream; without it every matmul is a matvec (slow prefill) */
        if (g->cb.cublasCreate(&g->blas) != 0) g->blas = NULL;
        else if (g->cb.cublasSetStream(g->blas, g->st) != 0) {
            g->cb.cublasDestroy(g->blas);
            g->blas = NULL;
        }
    }
    /* the weights, layer by layer */
    g->L = calloc((size_t)c->num_hidden_layers, sizeof *g->L);
    ok = ok && g->L;
    for (int l = 0; ok && l < c->num_hidden_layers; l++) {
        const layer *L = &m->L[l];
        gpu_layer *D = &g->L[l];
        ok = up_f32(g, L->ln1, (size_t)H, &D->ln1, "a norm") && up_f32(g, L->ln2, (size_t)H, &D->ln2, "a norm") &&
             (!L->bqkv || up_f32(g, L->bqkv, (size_t)W, &D->bqkv, "a bias")) &&
             up_mat(g, &L->qkv, &L->lqkv, &D->qkv, q8 ? &D->qkv_q : NULL, "q|k|v") &&
             up_mat(g, &L->o, &L->lo, &D->o, q8 ? &D->o_q : NULL, "o") &&
             up_mat(g, &L->gate_up, &L->lgu, &D->gate_up, q8 ? &D->gate_up_q : NULL, "gate|up") &&
             up_mat(g, &L->down, &L->ldown, &D->down, q8 ? &D->down_q : NULL, "down");
    }
    bool tied = c->tie_word_embeddings && !m->lhead.nmod;
    ok = ok && up_mat(g, &m->embed, NULL, &g->embed, q8 && tied ? &g->head_q : NULL, "the embedding") &&
         up_f32(g, m->norm, (size_t)H, &g->norm, "the final norm");
    if (ok) {   /* the output head: the embedding when tied, unless LoRA changes the head alone */
        const wmat *hw = c->tie_word_embeddings ? &m->embed : &m->lm_head;
        if (tied) g->head = g->embed;
        else ok = up_mat(g, hw, &m->lhead, &g->head, q8 ? &g->head_q : NULL, "the output head");
    }
    g->q8 = g->q8_on = ok && q8;
    int npos = c->max_position_embeddings > 0 ? c->max_position_embeddings : 4096;
    ok = ok && rope_tables(g, npos);
    /* scratch for GPU_ROWS rows */
    ok = ok && dalloc(g, &g->x, (size_t)R * H * 4, "scratch") && dalloc(g, &g->xb, (size_t)R * H * 4, "scratch") &&
         dalloc(g, &g->xb16, (size_t)R * H * 2, "scratch") && dalloc(g, &g->qkv, (size_t)R * W * 4, "scratch") &&
         dalloc(g, &g->att, (size_t)R * QD * 4, "scratch") && dalloc(g, &g->att16, (size_t)R * QD * 2, "scratch") &&
         dalloc(g, &g->gu, (size_t)R * 2 * I * 4, "scratch") && dalloc(g, &g->h, (size_t)R * I * 4, "scratch") &&
         dalloc(g, &g->h16, (size_t)R * I * 2, "scratch") && dalloc(g, &g->logits, (size_t)R * V * 4, "the logits") &&
         dalloc(g, &g->toks, (size_t)R * 4, "scratch") && dalloc(g, &g->rows, (size_t)R * sizeof(gpu_rowdesc), "scratch") &&
         OK(g, a->cuMemAllocHost(&g->stage, (size_t)R * (sizeof(gpu_rowdesc) + 4))) &&
         dalloc(g, &g->tk_rows, (size_t)R * 8, "scratch") && dalloc(g, &g->tk_v, (size_t)R * GPU_TOPK * 4, "scratch") &&
         dalloc(g, &g->tk_i, (size_t)R * GPU_TOPK * 4, "scratch") &&
         OK(g, a->cuMemAllocHost((void **)&g->tk_host, sizeof *g->tk_host));
    /* pg_topk in parts of tk_seg entries (a multiple of 256, at most 64 parts), so a row is read by
     * many blocks at once; the parts' 64 candidates each then by one block */
    g->tk_seg = ((V + 63) / 64 + 255) / 256 * 256;
    g->tk_parts = (V + g->tk_seg - 1) / g->tk_seg;
    size_t ncand = (size_t)R * g->tk_parts * GPU_TOPK;
    ok = ok && dalloc(g, &g->tk_cv, ncand * 4, "scratch") && dalloc(g, &g->tk_ci, ncand * 4, "scratch") &&
         dalloc(g, &g->tk_rows2, (size_t)R * 8, "scratch") && dalloc(g, &g->tk_lrows, (size_t)R * 8, "scratch");
    /* pg_attn_split: a warp per query head of a KV head's group, 8 warps a block */
    int ng = c->num_attention_heads / c->num_key_value_heads;
    ok = ok && (ng > 8 || dalloc(g, &g->part, (size_t)R * c->num_attention_heads * ATT_SPLITS * (hd + 2) * 4, "the split attention's partials"));
    if (ok) {   /* fixed addresses: each candidates row, each logits row */
        CUdeviceptr *h = g->tk_host->rows;
        for (int i = 0; i < R; i++) h[i] = g->tk_cv + (CUdeviceptr)((size_t)i * g->tk_parts * GPU_TOPK * 4);
        ok = OK(g, a->cuMemcpyHtoD(g->tk_rows2, h, (size_t)R * 8));
        for (int i = 0; ok && i < R; i++) h[i] = g->logits + (CUdeviceptr)((size_t)i * V * 4);
        ok = ok && OK(g, a->cuMemcpyHtoD(g->tk_lrows, h, (size_t)R * 8));
    }
    if (!ok) {
        pg_status st = said(g, diag, PG_ERR_EXTERNAL);
        model_gpu_close(g);
        return st;
    }
    const char *env = getenv("PTXGEN_GPU_GRAPH");
    g->graph_off = !a->cuStreamBeginCapture || (env && !strcmp(env, "0"));
    g->attn_split = g->part && split;   /* a model of GQA groups over 8: pg_attention, whatever the variable says */
    char wq[96] = "";
    if (g->q8) snprintf(wq, sizeof wq, " + int8 copies %.0f MB", g->qbytes / 1048576.0);
    snprintf(g->desc0, sizeof g->desc0, "%.100s (f16 weights, %.0f MB%s; %s%.160s; %s", name, g->wbytes / 1048576.0, wq,
             g->blas ? "cuBLAS " : "no cuBLAS: ", g->blas ? g->cb.name : g->cb.why[0] ? g->cb.why : "not found",
             g->graph_off ? "no graphs" : "graphs");
    desc_set(g);
    m->gpu = g;
    return PG_OK;
}

/* ---- contexts -------------------------------------------------------------------------- */
pg_status model_gpu_ctx_new(gpu_model *g, int max_seq, gpu_ctx **out, pg_diag_sink *diag) {
    *out = NULL;
    const model_config *c = &g->m->cfg;
    if (!OK(g, g->cu.cuCtxSetCurrent(g->cx))) return said(g, diag, PG_ERR_EXTERNAL);
    if (max_seq > g->rope_max && !rope_tables(g, max_seq)) return said(g, diag, PG_ERR_NOMEM);
    gpu_ctx *x = calloc(1, sizeof *x);
    if (!x) return PG_ERR_NOMEM;
    x->g = g;
    x->max_seq = max_seq;
    size_t kv = (size_t)c->num_hidden_layers * c->num_key_value_heads * (size_t)max_seq * c->head_dim * 4;
    bool ok = dalloc(g, &x->k, kv, "the K cache") && dalloc(g, &x->v, kv, "the V cache") &&
              dalloc(g, &x->lg, (size_t)c->vocab_size * 4, "a context's logits") &&
              OK(g, g->cu.cuMemAllocHost((void **)&x->hrow, (size_t)c->vocab_size * 4));
    x->lcap = 1;
    if (!ok) {
        model_gpu_ctx_free(x);
        return said(g, diag, PG_ERR_NOMEM);
    }
    *out = x;
    return PG_OK;
}

void model_gpu_ctx_free(gpu_ctx *x) {
    if (!x) return;
    gpu_model *g = x->g;
    g->cu.cuCtxSetCurrent(g->cx);
    g->cu.cuStreamSynchronize(g->st);
    dfree(g, &x->k);
    dfree(g, &x->v);
    dfree(g, &x->lg);
    if (x->hrow) g->cu.cuMemFreeHost(x->hrow);
    free(x);
}

/* ---- the profile ---------------------------------------------------------------------------- */
/* Before a launch (the label's event), after it (prof_after): only while profiling. */
static bool prof_before(gpu_model *g, const char *kern) {
    gpu_prof *P = g->prof;
    g->nlaunch++;
    if (!P) return true;
    if (P->nrec == PROF_EV / 2 && !prof_fold(g)) return false;
    char *l = P->labbuf[P->nrec];
    if (g->tag) snprintf(l, sizeof P->labbuf[0], "%s %s", kern, g->tag);
    else snprintf(l, sizeof P->labbuf[0], "%s", kern);
    P->lab[P->nrec] = l;
    P->launches++;
    return OK(g, g->cu.cuEventRecord(P->ev[2 * P->nrec], g->st));
}
static bool prof_after(gpu_model *g) {
    gpu_prof *P = g->prof;
    if (!P) return true;
    return OK(g, g->cu.cuEventRecord(P->ev[2 * P->nrec++ + 1], g->st));
}

/* Wait for the recorded launches and add each one's time to its label's total. */
static bool prof_fold(gpu_model *g) {
    gpu_prof *P = g->prof;
    if (!P || !P->nrec) return true;
    if (!OK(g, g->cu.cuEventSynchronize(P->ev[2 * P->nrec - 1]))) return false;
    for (int i = 0; i < P->nrec; i++) {
        float ms = 0;
        if (!OK(g, g->cu.cuEventElapsedTime(&ms, P->ev[2 * i], P->ev[2 * i + 1]))) return false;
        int b = 0;
        while (b < P->nb && strcmp(P->b[b].name, P->lab[i])) b++;
        if (b == P->nb) {
            if (P->nb == PROF_LABELS) b = PROF_LABELS - 1;   /* more labels than slots: the last takes the rest */
            else snprintf(P->b[P->nb++].name, sizeof P->b[0].name, "%s", P->lab[i]);
        }
        P->b[b].ms += ms;
        P->b[b].calls++;
    }
    P->nrec = 0;
    return true;
}

/* ---- the step ------------------------------------------------------------------------------ */
static bool launch(gpu_model *g, int k, unsigned gx, unsigned gy, void **args) {
    unsigned block = k == GPU_K_ATTENTION ? 512 : 256;   /* attention: 16 warps over the positions */
    const char *tag = g->tag;
    if (k != GPU_K_MATVEC && k != GPU_K_MATVEC_Q8) g->tag = NULL;   /* only the matmuls name their matrix */
    bool ok = prof_before(g, model_gpu_kernel_names[k]) &&
              ok_(g, g->cu.cuLaunchKernel(g->k[k], gx, gy, 1, block, 1, 1, 0, g->st, args, NULL), model_gpu_kernel_names[k]) &&
              prof_after(g);
    g->tag = tag;
    return ok;
}

/* wq: W's int8 copy (q8 layout), pg_matvec_q8 reads it while q8_on; else pg_matvec the f16 w */
static bool matvec(gpu_model *g, CUdeviceptr y, CUdeviceptr w, CUdeviceptr wq, CUdeviceptr x, CUdeviceptr nw, int rows, int cols, int n,
                   bool acc) {
    uint32_t r = (uint32_t)rows, c = (uint32_t)cols, ac = acc, ldx = (uint32_t)cols, ldy = (uint32_t)rows;
    float eps = (float)g->m->cfg.rms_norm_eps;
    unsigned gy = (unsigned)(rows + 7) / 8;   /* activation rows the fast dimension */
    if (g->q8_on && wq) {
        CUdeviceptr d = wq + (CUdeviceptr)rows * (CUdeviceptr)cols;
        void *qa[] = {&y, &wq, &d, &x, &r, &c, &ac, &ldx, &ldy, &nw, &eps};
        return launch(g, GPU_K_MATVEC_Q8, (unsigned)n, gy, qa);
    }
    void *args[] = {&y, &w, &x, &r, &c, &ac, &ldx, &ldy, &nw, &eps};
    return launch(g, GPU_K_MATVEC, (unsigned)n, gy, args);
}

/* y[n][rows] (+)= x[n][cols] W^T: pg_matvec (or pg_matvec_q8) from the f32 x, else cuBLAS from x16. */
static bool matmul(gpu_model *g, CUdeviceptr y, CUdeviceptr w, CUdeviceptr wq, CUdeviceptr x, CUdeviceptr x16, int rows, int cols, int n,
                   bool acc, bool vec) {
    if (vec || !g->blas) return matvec(g, y, w, wq, x, 0, rows, cols, n, acc);
    /* column-major view: y^T [rows][n] = W [cols][rows]^T . x^T [cols][n] */
    float alpha = 1.0f, beta = acc ? 1.0f : 0.0f;
    if (!prof_before(g, "cublasGemmEx")) return false;
    int s = g->cb.cublasGemmEx(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, rows, n, cols, &alpha, (const void *)(uintptr_t)w, CUDA_R_16F, cols,
                                (const void *)(uintptr_t)x16, CUDA_R_16F, cols, &beta, (void *)(uintptr_t)y, CUDA_R_32F, rows,
                                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (s && !g->err[0]) snprintf(g->err, sizeof g->err, "cublasGemmEx (%d x %d x %d) returned status %d", rows, n, cols, s);
    return s == 0 && prof_after(g);
}

static bool rmsnorm(gpu_model *g, CUdeviceptr out, CUdeviceptr out16, CUdeviceptr x, CUdeviceptr w, int n) {
    uint32_t H = (uint32_t)g->m->cfg.hidden_size;
    float eps = (float)g->m->cfg.rms_norm_eps;
    void *args[] = {&out, &out16, &x, &w, &H, &eps};
    return launch(g, GPU_K_RMSNORM, (unsigned)n, 1, args);
}

/* y[n][rows] = RMSNorm(x[n][H]) nw @ W^T: pg_matvec normalizes its input itself,
 * else pg_rmsnorm into xb (and xb16) and a matmul from there. */
static bool normed_matmul(gpu_model *g, CUdeviceptr y, CUdeviceptr w, CUdeviceptr wq, CUdeviceptr x, CUdeviceptr nw, int rows, int n,
                          bool vec) {
    int H = g->m->cfg.hidden_size;
    if (vec || !g->blas) return matvec(g, y, w, wq, x, nw, rows, H, n, false);
    return rmsnorm(g, g->xb, g->xb16, x, nw, n) && matmul(g, y, w, 0, g->xb, g->xb16, rows, H, n, false, false);
}

/* Enqueue the step's kernels for n rows whose tokens and descriptors are on the device;
 * rows [keep0, n) end as logits [n - keep0][vocab] in g->logits.  vec: matvec only (the
 * norms inside it: seven launches a layer). */
static bool run_rows(gpu_model *g, int n, int keep0, bool vec) {
    const model_config *c = &g->m->cfg;
    int H = c->hidden_size, I = c->intermediate_size, hd = c->head_dim, nh = c->num_attention_heads;
    int nkv = c->num_key_value_heads, QD = nh * hd, W = QD + 2 * nkv * hd, V = c->vocab_size;
    bool half = !vec && g->blas;   /* cuBLAS reads the f16 copies */
    CUdeviceptr att16 = half ? g->att16 : 0, h16 = half ? g->h16 : 0;
    uint32_t uH = (uint32_t)H, uI = (uint32_t)I, unh = (uint32_t)nh, unkv = (uint32_t)nkv, uhd = (uint32_t)hd;
    uint32_t adj = g->m->rope_adjacent;
    float scale = 1.0f / sqrtf((float)hd);
    void *ea[] = {&g->x, &g->embed, &g->toks, &uH};
    g->tag = NULL;
    if (!launch(g, GPU_K_EMBED, (unsigned)n, 1, ea)) return false;
    bool ok = true;
    for (int l = 0; ok && l < c->num_hidden_layers; l++) {
        gpu_layer *L = &g->L[l];
        uint32_t ul = (uint32_t)l;
        void *qa[] = {&g->qkv, &L->bqkv, &g->rows, &g->rope_cos, &g->rope_sin, &ul, &unh, &unkv, &uhd, &adj};
        void *aa[] = {&g->att, &att16, &g->qkv, &g->rows, &ul, &unh, &unkv, &uhd, &scale};
        void *sp[] = {&g->part, &g->qkv, &g->rows, &ul, &unh, &unkv, &uhd, &scale};
        void *mg[] = {&g->att, &att16, &g->part, &g->rows, &unh, &uhd};
        void *sa[] = {&g->h, &h16, &g->gu, &uI};
        g->tag = "qkv";
        ok = normed_matmul(g, g->qkv, L->qkv, L->qkv_q, g->x, L->ln1, W, n, vec) && launch(g, GPU_K_QKV_ROPE, (unsigned)n, 1, qa);
        if (g->attn_split)
            ok = ok && launch(g, GPU_K_ATTN_SPLIT, (unsigned)(ATT_SPLITS * nkv), (unsigned)n, sp) &&
                 launch(g, GPU_K_ATTN_MERGE, (unsigned)nh, (unsigned)n, mg);
        else ok = ok && launch(g, GPU_K_ATTENTION, (unsigned)nh, (unsigned)n, aa);
        g->tag = "o";
        ok = ok && matmul(g, g->x, L->o, L->o_q, g->att, att16, H, QD, n, true, vec);
        g->tag = "gate_up";
        ok = ok && normed_matmul(g, g->gu, L->gate_up, L->gate_up_q, g->x, L->ln2, 2 * I, n, vec);
        g->tag = "down";
        ok = ok && launch(g, GPU_K_SILU_MUL, (unsigned)(I + 255) / 256, (unsigned)n, sa) &&
             matmul(g, g->x, L->down, L->down_q, g->h, h16, H, I, n, true, vec);
    }
    g->tag = "head";
    int nk = n - keep0;
    /* one kept row: the matvec, as a one-row step computes it */
    CUdeviceptr x0 = g->x + (CUdeviceptr)keep0 * H * 4;
    ok = ok && (nk <= 0 || normed_matmul(g, g->logits, g->head, g->head_q, x0, g->norm, V, nk, vec || nk == 1));
    g->tag = NULL;
    return ok;
}

/* pg_topk of n rows whose addresses are at rows (device): in parts, then over the parts'
 * candidates, when a row has several; the top 64 end in tk_v / tk_i [n][64]. */
static bool topk_launch(gpu_model *g, CUdeviceptr rows, int n) {
    uint32_t uV = (uint32_t)g->m->cfg.vocab_size, seg = (uint32_t)g->tk_seg, zero = 0;
    CUdeviceptr none = 0;
    if (g->tk_parts <= 1) {
        void *args[] = {&g->tk_v, &g->tk_i, &rows, &uV, &zero, &none};
        return launch(g, GPU_K_TOPK, 1, (unsigned)n, args);
    }
    uint32_t nc = (uint32_t)g->tk_parts * GPU_TOPK;
    void *a1[] = {&g->tk_cv, &g->tk_ci, &rows, &uV, &seg, &none};
    void *a2[] = {&g->tk_v, &g->tk_i, &g->tk_rows2, &nc, &zero, &g->tk_ci};
    return launch(g, GPU_K_TOPK, (unsigned)g->tk_parts, (unsigned)n, a1) && launch(g, GPU_K_TOPK, 1, (unsigned)n, a2);
}

/* The one-row step as a graph (top: and its logits row's top 64): captured on first use, then
 * replayed.  False (and graphs off for good) when capture fails; the caller then launches directly. */
static bool graph_ready(gpu_model *g, bool top) {
    CUgraphExec *ge = top ? &g->graph_top : &g->graph;
    if (g->prof) return false;   /* profiling: launch by launch, even with the graphs captured */
    if (*ge) return true;
    if (g->graph_off) return false;
    const gpu_cuda *a = &g->cu;
    CUgraph gr = NULL;
    if (a->cuStreamBeginCapture(g->st, 2 /* CU_STREAM_CAPTURE_MODE_RELAXED */) != 0) {
        g->graph_off = true;
        return false;
    }
    long n0 = g->nlaunch;
    bool ok = run_rows(g, 1, 0, true) && (!top || topk_launch(g, g->tk_lrows, 1));
    g->graph_kernels[top] = g->nlaunch - n0;   /* counted when replayed */
    g->nlaunch = n0;
    CUresult r = a->cuStreamEndCapture(g->st, &gr);
    if (ok && r == 0 && gr && a->cuGraphInstantiateWithFlags(ge, gr, 0) == 0) {
        a->cuGraphDestroy(gr);
        return true;
    }
    if (gr) a->cuGraphDestroy(gr);
    *ge = NULL;
    g->graph_off = true;
    g->err[0] = 0;   /* a failed capture is not a failed step: launch directly */
    return false;
}

/* The pinned candidates of n rows to vals / ids (GPU_TOPK_NONE as -1). */
static void topk_out(const gpu_model *g, int n, float *vals, int32_t *ids) {
    const struct topk_stage *h = g->tk_host;
    memcpy(vals, h->vals, (size_t)n * GPU_TOPK * 4);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < GPU_TOPK; i++) ids[r * GPU_TOPK + i] = h->ids[r][i] == GPU_TOPK_NONE ? -1 : (int32_t)h->ids[r][i];
}

static bool topk_copy(gpu_model *g, int n) {
    size_t nb = (size_t)n * GPU_TOPK * 4;
    return OK(g, g->cu.cuMemcpyDtoHAsync(g->tk_host->vals, g->tk_v, nb, g->st)) &&
           OK(g, g->cu.cuMemcpyDtoHAsync(g->tk_host->ids, g->tk_i, nb, g->st));
}

pg_status model_gpu_step(gpu_model *g, gpu_ctx *const *cs, const int *pos, const int32_t *toks, int n, int keep0, bool exact,
                         float *out, float *tvals, int32_t *tids, pg_diag_sink *diag) {
    const gpu_cuda *a = &g->cu;
    int V = g->m->cfg.vocab_size;
    if (n < 1 || n > GPU_ROWS || keep0 < 0 || keep0 > n || (tvals && keep0 == n)) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "model_gpu_step: %d rows (keep from %d%s), the engine takes 1 to %d", n, keep0,
                     tvals ? ", a top 64" : "", GPU_ROWS);
        return PG_ERR_USAGE;
    }
    if (!OK(g, a->cuCtxSetCurrent(g->cx))) return said(g, diag, PG_ERR_EXTERNAL);
    gpu_rowdesc *d = g->stage;
    uint32_t *tk = (uint32_t *)(d + GPU_ROWS);
    for (int t = 0; t < n; t++) {
        d[t] = (gpu_rowdesc){cs[t]->k, cs[t]->v, (uint32_t)pos[t], (uint32_t)cs[t]->max_seq};
        tk[t] = (uint32_t)toks[t];
    }
    bool top = tvals != NULL;
    bool ok = OK(g, a->cuMemcpyHtoDAsync(g->rows, d, (size_t)n * sizeof *d, g->st)) &&
              OK(g, a->cuMemcpyHtoDAsync(g->toks, tk, (size_t)n * 4, g->st));
    if (ok && n == 1 && keep0 == 0 && graph_ready(g, top)) {
        ok = OK(g, a->cuGraphLaunch(top ? g->graph_top : g->graph, g->st));
        g->nlaunch += g->graph_kernels[top];
    } else if (ok) {
        ok = run_rows(g, n, keep0, exact || n == 1);
        /* the last kept row's top 64 */
        ok = ok && (!top || topk_launch(g, g->tk_lrows + (CUdeviceptr)(n - 1 - keep0) * 8, 1));
    }
    ok = ok && (!top || topk_copy(g, 1));
    /* the kept rows into their contexts' logits rows (runs of one context in one copy) */
    for (int t = keep0; t < n; t++) cs[t]->nl = cs[t]->fill = 0;
    for (int t = keep0; t < n; t++) cs[t]->nl++;
    for (int t = keep0; ok && t < n; t++) {
        gpu_ctx *x = cs[t];
        if (x->lcap >= x->nl) continue;
        ok = OK(g, a->cuStreamSynchronize(g->st));
        dfree(g, &x->lg);
        x->lcap = 0;
        ok = ok && dalloc(g, &x->lg, (size_t)x->nl * V * 4, "a context's logits rows");
        if (ok) x->lcap = x->nl;
    }
    for (int t = keep0; ok && t < n;) {
        int t0 = t;
        while (t + 1 < n && cs[t + 1] == cs[t0]) t++;
        size_t cnt = (size_t)(t - t0 + 1), row = (size_t)V * 4;
        ok = OK(g, a->cuMemcpyDtoDAsync(cs[t0]->lg + cs[t0]->fill * row, g->logits + (size_t)(t0 - keep0) * row, cnt * row, g->st));
        cs[t0]->fill += (int)cnt;
        t++;
    }
    if (ok && out && n > keep0) ok = OK(g, a->cuMemcpyDtoHAsync(out, g->logits, (size_t)(n - keep0) * V * 4, g->st));
    ok = OK(g, a->cuStreamSynchronize(g->st)) && ok;
    ok = ok && prof_fold(g);
    if (g->prof) g->prof->steps++;
    if (!ok) {
        for (int t = keep0; t < n; t++) cs[t]->nl = 0;
        return said(g, diag, PG_ERR_EXTERNAL);
    }
    if (top) topk_out(g, 1, tvals, tids);
    return PG_OK;
}

pg_status model_gpu_logits(gpu_ctx *x, int row, const int32_t *ids, int nids, float *out, pg_diag_sink *diag) {
    gpu_model *g = x->g;
    const gpu_cuda *a = &g->cu;
    size_t V = (size_t)g->m->cfg.vocab_size;
    if (row < 0 || row >= x->nl) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "logits row %d: the context keeps %d", row, x->nl);
        return PG_ERR_USAGE;
    }
    float *dst = ids ? x->hrow : out;
    bool ok = OK(g, a->cuCtxSetCurrent(g->cx)) && OK(g, a->cuMemcpyDtoHAsync(dst, x->lg + (size_t)row * V * 4, V * 4, g->st)) &&
              OK(g, a->cuStreamSynchronize(g->st));
    if (!ok) return said(g, diag, PG_ERR_EXTERNAL);
    for (int i = 0; ids && i < nids; i++) out[i] = x->hrow[ids[i]];
    return PG_OK;
}

pg_status model_gpu_keep_row(gpu_ctx *x, int row, pg_diag_sink *diag) {
    gpu_model *g = x->g;
    size_t bytes = (size_t)g->m->cfg.vocab_size * 4;
    if (row < 0 || row >= x->nl) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "logits row %d: the context keeps %d", row, x->nl);
        return PG_ERR_USAGE;
    }
    if (row > 0 && !(OK(g, g->cu.cuCtxSetCurrent(g->cx)) && OK(g, g->cu.cuMemcpyDtoDAsync(x->lg, x->lg + row * bytes, bytes, g->st)) &&
                     OK(g, g->cu.cuStreamSynchronize(g->st))))
        return said(g, diag, PG_ERR_EXTERNAL);
    x->nl = 1;
    return PG_OK;
}

pg_status model_gpu_topk(gpu_model *g, gpu_ctx *const *cs, const int *rows, int n, float *vals, int32_t *ids, pg_diag_sink *diag) {
    const gpu_cuda *a = &g->cu;
    size_t V = (size_t)g->m->cfg.vocab_size;
    if (n < 1 || n > GPU_ROWS) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "model_gpu_topk: %d rows, the engine takes 1 to %d", n, GPU_ROWS);
        return PG_ERR_USAGE;
    }
    if (!OK(g, a->cuCtxSetCurrent(g->cx))) return said(g, diag, PG_ERR_EXTERNAL);
    struct topk_stage *h = g->tk_host;
    for (int r = 0; r < n; r++) h->rows[r] = cs[r]->lg + (CUdeviceptr)((size_t)rows[r] * V * 4);
    bool ok = OK(g, a->cuMemcpyHtoDAsync(g->tk_rows, h->rows, (size_t)n * sizeof h->rows[0], g->st)) && topk_launch(g, g->tk_rows, n) &&
              topk_copy(g, n);
    ok = OK(g, a->cuStreamSynchronize(g->st)) && ok;
    ok = ok && prof_fold(g);
    if (!ok) return said(g, diag, PG_ERR_EXTERNAL);
    topk_out(g, n, vals, ids);
    return PG_OK;
}

/* ---- switches and the profile --------------------------------------------------------------- */
pg_status model_gpu_set(gpu_model *g, const char *key, int value, pg_diag_sink *diag) {
    if (!strcmp(key, "attn_split")) {
        if (value && !g->part) {
            pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "model_gpu_set \"attn_split\": the model's %d query heads a KV head exceed the kernel's 8",
                         g->m->cfg.num_attention_heads / g->m->cfg.num_key_value_heads);
            return PG_ERR_INVALID;
        }
        if (g->attn_split != (value != 0)) {
            g->attn_split = value != 0;
            drop_graphs(g);   /* they hold the other kernels */
            desc_set(g);
        }
        return PG_OK;
    }
    if (!strcmp(key, "q8")) {
        if (value && !g->q8) {
            pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "model_gpu_set \"q8\": the engine loaded no int8 copies (PTXGEN_GPU_WEIGHTS=q8 at load)");
            return PG_ERR_INVALID;
        }
        if (g->q8_on != (value != 0)) {
            g->q8_on = value != 0;
            drop_graphs(g);   /* they hold the other matvec */
            desc_set(g);
        }
        return PG_OK;
    }
    if (strcmp(key, "profile")) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "model_gpu_set: no switch \"%s\" (attn_split, q8, profile)", key);
        return PG_ERR_USAGE;
    }
    if (!value) {
        profile_free(g);
        return PG_OK;
    }
    if (!g->cu.cuEventCreate || !g->cu.cuEventRecord || !g->cu.cuEventElapsedTime || !g->cu.cuEventSynchronize) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "the GPU engine's profile needs the driver's events (cuEventCreate), which it lacks");
        return PG_ERR_EXTERNAL;
    }
    profile_free(g);
    g->prof = calloc(1, sizeof *g->prof);
    if (!g->prof) return PG_ERR_NOMEM;
    bool ok = OK(g, g->cu.cuCtxSetCurrent(g->cx));
    for (int i = 0; ok && i < PROF_EV; i++) ok = OK(g, g->cu.cuEventCreate(&g->prof->ev[i], 0));
    if (!ok) {
        profile_free(g);
        return said(g, diag, PG_ERR_EXTERNAL);
    }
    return PG_OK;
}

static int prof_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;   /* each entry starts with its ms */
    return x < y ? 1 : x > y ? -1 : 0;
}

pg_status model_gpu_profile_json(const gpu_model *g, char *buf, size_t n, pg_diag_sink *diag) {
    const gpu_prof *P = g->prof;
    if (!P) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "model_gpu_profile_json: no profile is running (model_gpu_set \"profile\" 1)");
        return PG_ERR_USAGE;
    }
    struct { double ms; long calls; const char *name; } e[PROF_LABELS];
    double tot = 0;
    for (int i = 0; i < P->nb; i++) {
        e[i].ms = P->b[i].ms, e[i].calls = P->b[i].calls, e[i].name = P->b[i].name;
        tot += e[i].ms;
    }
    qsort(e, (size_t)P->nb, sizeof e[0], prof_cmp);
    double st = P->steps ? (double)P->steps : 1;
    size_t k = 0;
    int w = snprintf(buf, n, "{\"steps\": %ld, \"launches\": %ld, \"launches_per_step\": %.1f, \"kernel_ms\": %.4f, "
                     "\"kernel_ms_per_step\": %.4f, \"kernels\": [", P->steps, P->launches, P->launches / st, tot, tot / st);
    for (int i = 0; w > 0 && i < P->nb; i++) {
        k += (size_t)w;
        if (k >= n) break;
        w = snprintf(buf + k, n - k, "%s{\"name\": \"%s\", \"calls\": %ld, \"ms\": %.4f, \"ms_per_step\": %.4f, \"share\": %.4f}",
                     i ? ", " : "", e[i].name, e[i].calls, e[i].ms, e[i].ms / st, tot > 0 ? e[i].ms / tot : 0);
    }
    if (w > 0) k += (size_t)w;
    if (k < n) w = snprintf(buf + k, n - k, "]}");
    if (w < 0 || k + (size_t)w >= n) {
        pg_diag_emit(diag, PG_E_GPU, "gpu", 0, 0, "model_gpu_profile_json: %zu bytes are too few", n);
        return PG_ERR_USAGE;
    }
    return PG_OK;
}

long model_gpu_launches(const gpu_model *g) { return g->nlaunch; }
