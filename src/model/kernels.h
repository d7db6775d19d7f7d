/* kernels.h — compute weights (wmat: f32 / bf16 / q8 panels, or GGUF blocks in the file
 * mapping), the matmul and elementwise kernels (kernels.c) and the thread pool (pool.c),
 * internal to src/model.  Below the model and the loader: includes quant.h and cpu.h, nothing
 * of the readers or the model. */
#ifndef PTXGEN_MODEL_KERNELS_H
#define PTXGEN_MODEL_KERNELS_H

#include "ptxgen/common.h"
#include "cpu.h"
#include "quant.h"

#include <stddef.h>
#include <stdint.h>

/* ---- compute weights and kernels ------------------------------------------------ */
typedef enum { WT_F32, WT_BF16, WT_Q8, WT_GG } wtype;   /* WT_GG: GGUF blocks in the file mapping (quant.c) */
#define Q8_GROUP 32            /* int8 weights with one f32 scale per 32 inputs (like Q8_0) */

/* A linear layer's weight in its compute dtype: y[rows] = W[rows][cols] x[cols].
 * Stored panel-packed: output rows in panels of WPANEL, each panel k-major, so
 * one vector load gives the same input column for 16 output rows.  Decode then
 * needs no horizontal sums and prefill runs an outer-product register tile.
 * Rows are padded with zero rows to a multiple of 2*WPANEL (kernels take panel pairs). */
#define WPANEL 16
typedef struct {
    int rows, cols;
    int prows;                 /* rows rounded up to 2*WPANEL */
    wtype type;
    void *w;                   /* f32   [prows/16][cols][16]
                                * bf16  [prows/16][cols/2][16][2] (uint16; a 32-bit word = columns 2i, 2i+1 of one row)
                                * q8    [prows/16][cols/32][8][16][4] (int8; 4 consecutive columns of one row per word) */
    float *scale;              /* q8 only: [prows/16][cols/32][16] */
    /* WT_GG only: the rows are up to WSEG_MAX GGUF tensors stacked (q|k|v, gate|up),
     * each [seg.rows][cols] in its own type, row-major blocks pointing into the
     * file mapping (not owned; the model keeps the gguf_file open). */
    int nseg;
    struct wseg {
        int r0, rows, type;
        size_t row_bytes;
        const uint8_t *data;
        uint8_t *p16;          /* NULL, or the rows packed 16 at a time for decode (model_wmat_gg_pack; owned) */
    } seg[3];
    bool exact;                /* decode with dequantized rows x f32 activations (no q8 rounding) */
} wmat;
#define WSEG_MAX 3

/* Turn an f32 matrix [rows][cols] into a compute matrix (takes nothing over; copies). */
/* Stack GGUF tensor data as a WT_GG matrix: append `rows` rows of `type` at data
 * (row-major, [rows][cols] blocks); cols is the first call's.  False (nothing
 * added) past WSEG_MAX segments or for a type quant.c cannot compute with. */
bool model_wmat_gg_add(wmat *m, int type, const void *data, int rows, int cols);
/* Give a WT_GG matrix's Q5_0, Q4_K and Q6_K segments their 16-row copy (p16 / k16, quant.h) where
 * the kernel family in force profits and the rows come in whole groups of 16; decode then reads
 * the copy (Q5_0: other values than the row-major kernels', the same whatever the row count;
 * Q4_K / Q6_K: the row-major kernels' values), prefill and single rows (model_wmat_rows_dot) the
 * file.  Not for a matrix whose rows are also read one by one where their values must equal
 * the matmul's.  False: out of memory (the matrix unchanged). */
bool model_wmat_gg_pack(wmat *m);
pg_status model_wmat_make(wmat *m, const float *src, int rows, int cols, wtype t);
void model_wmat_free(wmat *m);
size_t model_wmat_bytes(const wmat *m);
/* Row r as f32 (dequantized / widened) into dst[cols]. */
/* out[i] = row ids[i] of m dotted with x[cols] (one activation vector; the same
 * per-row arithmetic as matmul's decode, so the values equal matmul's for WT_GG). */
void model_wmat_rows_dot(const wmat *m, const int32_t *ids, int n, const float *x, float *out);
void model_wmat_row_f32(const wmat *m, int r, float *dst);
/* The loaders' buffers: malloc/calloc that remember the size of a failed allocation
 * (model_oom_bytes), so model_load and model_ctx_new can say "out of memory" when a
 * bool helper deep inside gave up (the helpers' other failures emit their own diagnostic). */
extern _Thread_local size_t model_oom_bytes;
void *model_alloc(size_t n);
void *model_calloc(size_t n, size_t size);
void model_oom_note(size_t n);

/* Thread pool.  model_pool_run calls fn(arg, c0, c1, ith) over chunks [0, nchunks),
 * handed out dynamically (caller included, ith = the running thread, 0 = caller,
 * < model_pool_size: index per-thread scratch with it); returns when all are done. */
typedef struct pg_pool pg_pool;
pg_pool *model_pool_new(int nthreads);   /* NULL when out of memory */
void model_pool_free(pg_pool *p);
int model_pool_size(const pg_pool *p);
/* A buffer of at least `bytes` for thread ith of the pool (kept between jobs, freed
 * with the pool); only thread ith may call it for ith.  NULL when out of memory. */
void *model_pool_scratch(pg_pool *p, int ith, size_t bytes);
/* Buffers `which` < POOL_SHARED kept the same way, for the caller of model_pool_run
 * to fill before a job (the job's threads may read them). */
#define POOL_SHARED 2
void *model_pool_shared(pg_pool *p, int which, size_t bytes);
void model_pool_run(pg_pool *p, void (*fn)(void *arg, int c0, int c1, int ith), void *arg, int nchunks);
/* Profile counters of a pool (bench_model --profile): the caller's time waiting in
 * model_pool_run for workers still inside a job after its own chunks (imbalance, a
 * descheduled worker), and the activations' int8 quantization before a GGUF decode
 * matmul (kernels.c; the caller's thread alone).  NULL (the default): not measured. */
typedef struct {
    double sync_s, actq_s;
    long dispatches;
} pool_prof;
void model_pool_set_prof(pg_pool *p, pool_prof *pp);
pool_prof *model_pool_get_prof(const pg_pool *p);


/* out[n][m->rows] (row stride ldo) = x[n][m->cols] (row stride ldx) @ W^T, on the pool.
 * n >= 4 (prefill): a panel pair (32 rows) widened to f32 once, then TX x 32
 * register tiles over all n rows (x packed per tile, k blocked for L1), or with
 * AMX, bf16 / q8 weights straight into tiles (x in bf16 / int8 per 32); n < 4
 * (decode): straight from the stored dtype. */
void model_matmul(pg_pool *p, float *out, int ldo, const float *x, int ldx, int n, const wmat *m);
/* The same with the decode kernels whatever n: row j's arithmetic is exactly that of a
 * one-row model_matmul of x[j] (model_forward_exact's rows), and the weights are still
 * read once for all n rows (each block of rows stays in cache while the n rows pass). */
void model_matmul_dec(pg_pool *p, float *out, int ldo, const float *x, int ldx, int n, const wmat *m);
/* out[i] = w[i] * (x[i] / sqrt(mean(x^2) + eps)) (RMSNorm), i < n. */
void model_kern_rmsnorm(float *out, const float *x, const float *w, int n, float eps);
/* h[i] = silu(g[i]) * u[i] for i < n. */
void model_kern_silu_mul(float *h, const float *g, const float *u, int n);
/* Causal attention for ng query heads (q, out: [ng][hd] consecutive) sharing one
 * KV head (GQA) over T cache positions: K in blocks of 16 positions, kt
 * [ceil(T/16)][hd][16]; V rows [T][hd] at vstride.  sc: [T] scratch per head ([ng][T]). */
void model_kern_attn_group(const float *q, int ng, const float *kt, const float *v, size_t vstride, int T, int hd, float scale,
                     float *sc, float *out);
/* The same for n query rows of one context (a prefill chunk, a verify step): row t (q + t*qs
 * and out + t*os, [ng][hd] each) sees the first T0 + t cache positions.  Each row's values
 * equal model_kern_attn_group's for that row alone, bit for bit (the same operations in the
 * same order); the AVX-512 kernel for 5..8 query heads per KV head reads each block of K and
 * V once for all n rows (with 1..4 heads, and on AVX2 / scalar, the rows run one by one).
 * sc: scratch of n * ng * (T0 + n - 1) floats. */
void model_kern_attn_rows(const float *q, size_t qs, int n, int ng, const float *kt, const float *v, size_t vstride, int T0, int hd,
                          float scale, float *sc, float *out, size_t os);
/* The CPU features the kernels picked: "avx512", "avx2" or "scalar". */
const char *model_kernels_isa(void);
/* Whether bf16-weight prefill uses AMX tiles (activations rounded to bf16 there). */
bool model_kernels_amx(void);
/* Whether the AVX-512 attention's softmax computes expf 16 at a time (a vector form of glibc's
 * expf, taken when it equals this C library's expf on a probe set; else expf one by one). */
bool model_kernels_vexp(void);
/* Whether that vector expf equals the C library's on every step-th float of [-88, -0] (tests);
 * false without AVX-512. */
bool model_kernels_vexp_check(unsigned step);
/* Whether q8-weight prefill uses AMX int8 tiles (x quantized per 32 as in decode). */
bool model_kernels_amx_q8(void);
/* Force a kernel family (tests): "avx512", "avx2", "scalar", or "avx512-noamx" (AMX off,
 * as PTXGEN_NO_AMX=1); false if the CPU cannot. */
bool model_kernels_force(const char *isa);

/* y[0:k] (+)= the same on the caller's thread only (no pool dispatch): small matrices
 * (LoRA A and B) in decode. */
void model_matmul_local(float *out, int ldo, const float *x, int ldx, int n, const wmat *m);

#endif
