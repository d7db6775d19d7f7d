/* model_internal.h — pieces of the model module shared between its .c files
 * (safetensors reader, config parsers, compute kernels, thread pool).  Not a
 * public header: only src/model/ includes it (and the tests/fuzz target). */
#ifndef PTXGEN_MODEL_INTERNAL_H
#define PTXGEN_MODEL_INTERNAL_H

#include "ptxgen/model.h"

#include <stddef.h>
#include <stdint.h>

/* ---- safetensors ------------------------------------------------------------ */
typedef enum { ST_F32, ST_F16, ST_BF16, ST_F64, ST_I64, ST_I32, ST_I16, ST_I8, ST_U8, ST_BOOL,
               ST_F8_E4M3, ST_F8_E5M2 } st_dtype;
#define ST_MAX_DIMS 8

typedef struct {
    const char *name;          /* lives in the owning st_set's arena */
    const char *file;          /* the file it came from (for messages) */
    st_dtype dtype;
    int ndim;
    int64_t shape[ST_MAX_DIMS];
    const uint8_t *data;       /* points into the mmap */
    size_t nbytes;
} st_tensor;

typedef struct {               /* one mmapped file */
    void *map;
    size_t size;
} st_map;

/* All tensors of a model (one file or every shard). */
typedef struct {
    pg_arena arena;
    PG_VEC(st_tensor) t;
    PG_VEC(st_map) maps;
} st_set;

const char *model_st_dtype_name(st_dtype d);
/* Parse a safetensors image already in memory (header + data); appends its
 * tensors to s with data pointing into buf.  `file` names it in messages.
 * Errors are E801 (bad header, offsets past the end). */
pg_status model_st_parse(st_set *s, const uint8_t *buf, size_t size, const char *file, pg_diag_sink *diag);
/* mmap a file and model_st_parse it. */
pg_status model_st_open_file(st_set *s, const char *path, pg_diag_sink *diag);
/* Open DIR/model.safetensors or the shards of DIR/model.safetensors.index.json. */
pg_status model_st_open_model_dir(st_set *s, const char *dir, pg_diag_sink *diag);
const st_tensor *model_st_find(const st_set *s, const char *name);
void model_st_close(st_set *s);
/* Convert n elements of a F32/F16/BF16 tensor to f32 (other dtypes: false). */
bool model_st_to_f32(const st_tensor *t, float *dst);

/* ---- config ---------------------------------------------------------------- */
/* Parse config.json text; E802 on anything the engine cannot run. */
pg_status model_config_parse(const char *json, size_t len, const char *file, model_config *cfg,
                             pg_diag_sink *diag);

typedef struct {
    int r;
    double alpha, scale;       /* scale = alpha / r (or alpha / sqrt(r) with use_rslora) */
    char targets[16][32];      /* target_modules, e.g. "q_proj" */
    int ntargets;
} lora_config;
/* Parse adapter_config.json text; E805 on what we cannot merge. */
pg_status model_lora_config_parse(const char *json, size_t len, const char *file, lora_config *lc,
                            pg_diag_sink *diag);

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
    struct wseg { int r0, rows, type; size_t row_bytes; const uint8_t *data; } seg[3];
    bool exact;                /* decode with dequantized rows x f32 activations (no q8 rounding) */
} wmat;
#define WSEG_MAX 3

/* Turn an f32 matrix [rows][cols] into a compute matrix (takes nothing over; copies). */
/* Stack GGUF tensor data as a WT_GG matrix: append `rows` rows of `type` at data
 * (row-major, [rows][cols] blocks); cols is the first call's.  False (nothing
 * added) past WSEG_MAX segments or for a type quant.c cannot compute with. */
bool model_wmat_gg_add(wmat *m, int type, const void *data, int rows, int cols);
pg_status model_wmat_make(wmat *m, const float *src, int rows, int cols, wtype t);
void model_wmat_free(wmat *m);
size_t model_wmat_bytes(const wmat *m);
/* Row r as f32 (dequantized / widened) into dst[cols]. */
/* out[i] = row ids[i] of m dotted with x[cols] (one activation vector; the same
 * per-row arithmetic as matmul's decode, so the values equal matmul's for WT_GG). */
void model_wmat_rows_dot(const wmat *m, const int32_t *ids, int n, const float *x, float *out);
void model_wmat_row_f32(const wmat *m, int r, float *dst);
/* Thread pool.  model_pool_run calls fn(arg, c0, c1, ith) over chunks [0, nchunks),
 * handed out dynamically (caller included, ith = the running thread, 0 = caller,
 * < model_pool_size: index per-thread scratch with it); returns when all are done. */
typedef struct pg_pool pg_pool;
pg_pool *model_pool_new(int nthreads);
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

/* Seconds per stage of the forward steps run while a profile is attached (bench_model
 * --profile).  A stage's time includes its pool dispatch and the caller's wait for the
 * workers (pool.sync_s counts that wait across all stages). */
enum { PROF_EMBED, PROF_EW, PROF_QKV, PROF_ATTN, PROF_O, PROF_GATE_UP, PROF_DOWN, PROF_HEAD, PROF_LORA, PROF_N };
typedef struct {
    double stage_s[PROF_N];
    pool_prof pool;
    long rows;            /* token rows run (a decode step is one) */
} model_prof;
extern const char *const model_prof_names[PROF_N];
void model_prof_attach(model_model *m, model_prof *p);   /* NULL detaches */
/* Weight bytes a one-token decode step reads for stage st (PROF_QKV .. PROF_HEAD, LoRA
 * side paths under PROF_LORA, norms and biases under PROF_EW, one embedding row under
 * PROF_EMBED); 0 for the others.  Their sum is model_decode_bytes. */
size_t model_stage_bytes(const model_model *m, int st);
/* Bytes of weights one decode step streams: every matrix but the embedding table, of
 * which it reads one row (model_weight_bytes counts the whole table; with tied
 * embeddings the table is the head and is streamed whole). */
size_t model_decode_bytes(const model_model *m);

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
/* The CPU features the kernels picked: "avx512", "avx2" or "scalar". */
const char *model_kernels_isa(void);
/* Whether bf16-weight prefill uses AMX tiles (activations rounded to bf16 there). */
bool model_kernels_amx(void);
/* Whether q8-weight prefill uses AMX int8 tiles (x quantized per 32 as in decode). */
bool model_kernels_amx_q8(void);
/* Force a kernel family (tests): "avx512", "avx2", "scalar", or "avx512-noamx" (AMX off,
 * as PTXGEN_NO_AMX=1); false if the CPU cannot. */
bool model_kernels_force(const char *isa);

/* y[0:k] (+)= the same on the caller's thread only (no pool dispatch): small matrices
 * (LoRA A and B) in decode. */
void model_matmul_local(float *out, int ldo, const float *x, int ldx, int n, const wmat *m);

/* ---- GGUF blocks (quant.c) ------------------------------------------------------------------
 * Activations quantized for the integer dot products: int8 per block with one
 * scale d = amax/127 (round to nearest), plus the block's code sums. */
typedef struct { float d, ds; int8_t qs[32]; } qa32;                  /* ds = d * sum(qs) */
typedef struct { float d; int16_t bsums[16]; int8_t qs[256]; } qa256;  /* bsums: sums of 16 */
enum { QACT_F32, QACT_32, QACT_256 };   /* what model_quant_dot_rows wants as x for a type */
bool model_quant_supported(int type);         /* F32 F16 BF16 Q4_0 Q4_1 Q5_0 Q8_0 Q4_K Q6_K */
int model_quant_act_kind(int type);
size_t model_quant_row_bytes(int type, int64_t n);   /* bytes of a row of n elements (n whole blocks) */
void model_quant_act32(const float *x, int n, qa32 *q);      /* x[n] -> q[n/32] */
void model_quant_act256(const float *x, int n, qa256 *q);    /* x[n] -> q[n/256] */
/* out[r] = row r . x for nrows rows of n elements at rows + r*row_bytes; x is
 * float[n], qa32[n/32] or qa256[n/256] as model_quant_act_kind(type) says. */
void model_quant_dot_rows(int type, const void *rows, size_t row_bytes, int nrows, const void *xq, int n, float *out);
/* The same for nx activations at once (out[j * ldo + r] = row r . x_j): each block of weights is
 * read and decoded once for all of them; x_j's results equal model_quant_dot_rows(.., xq[j], ..)'s
 * bit for bit, whatever nx (the verify step of speculative decoding relies on it). */
#define QUANT_NX_MAX 16
void model_quant_dot_rows_nx(int type, const void *rows, size_t row_bytes, int nrows, const void *const *xq, int nx, int n,
                             float *out, size_t ldo);
/* Row to f32: the scalar reference, and the same values through AVX2 where there is one. */
void model_quant_dequant_row(int type, const void *data, float *y, int64_t n);
void model_quant_dequant_fast(int type, const void *data, float *y, int64_t n);
float model_quant_dot_f32(const float *a, const float *b, int n);

/* SHA-256 of n bytes as 64 lowercase hex digits (sha256.c). */
void model_sha256_buf(const void *data, size_t n, char hex[65]);
bool model_sha256_file(const char *path, char hex[65]);   /* false when the file cannot be read */

/* bf16 helpers */
static inline float bf16_to_f32(uint16_t h) {
    union { uint32_t u; float f; } v = {(uint32_t)h << 16};
    return v.f;
}
static inline uint16_t f32_to_bf16(float f) {   /* round to nearest even; NaN stays NaN */
    union { float f; uint32_t u; } v = {f};
    if ((v.u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((v.u >> 16) | 0x40);
    return (uint16_t)((v.u + 0x7fffu + ((v.u >> 16) & 1)) >> 16);
}
float model_f16_to_f32(uint16_t h);

#endif
