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

const char *st_dtype_name(st_dtype d);
/* Parse a safetensors image already in memory (header + data); appends its
 * tensors to s with data pointing into buf.  `file` names it in messages.
 * Errors are E801 (bad header, offsets past the end). */
pg_status st_parse(st_set *s, const uint8_t *buf, size_t size, const char *file, pg_diag_sink *diag);
/* mmap a file and st_parse it. */
pg_status st_open_file(st_set *s, const char *path, pg_diag_sink *diag);
/* Open DIR/model.safetensors or the shards of DIR/model.safetensors.index.json. */
pg_status st_open_model_dir(st_set *s, const char *dir, pg_diag_sink *diag);
const st_tensor *st_find(const st_set *s, const char *name);
void st_close(st_set *s);
/* Convert n elements of a F32/F16/BF16 tensor to f32 (other dtypes: false). */
bool st_to_f32(const st_tensor *t, float *dst);

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
pg_status lora_config_parse(const char *json, size_t len, const char *file, lora_config *lc,
                            pg_diag_sink *diag);

/* ---- compute weights and kernels ------------------------------------------------ */
typedef enum { WT_F32, WT_BF16, WT_Q8 } wtype;
#define Q8_GROUP 32            /* int8 weights with one f32 scale per 32 inputs (like Q8_0) */

/* A linear layer's weight in its compute dtype: y[rows] = W[rows][cols] x[cols]. */
typedef struct {
    int rows, cols;
    wtype type;
    void *w;                   /* f32 [rows][cols] | uint16 bf16 [rows][cols] | int8 [rows][cols] */
    float *scale;              /* q8 only: [rows][cols / Q8_GROUP] */
} wmat;

/* Turn an f32 matrix [rows][cols] into a compute matrix (takes nothing over; copies). */
pg_status wmat_make(wmat *m, const float *src, int rows, int cols, wtype t);
void wmat_free(wmat *m);
size_t wmat_bytes(const wmat *m);
/* Row r as f32 (dequantized / widened) into dst[cols]. */
void wmat_row_f32(const wmat *m, int r, float *dst);

/* Thread pool: run fn(arg, ithread, nthreads) on every thread, caller included. */
typedef struct pg_pool pg_pool;
pg_pool *pool_new(int nthreads);
void pool_free(pg_pool *p);
int pool_size(const pg_pool *p);
void pool_run(pg_pool *p, void (*fn)(void *arg, int ith, int nth), void *arg);

/* out[n][m->rows] (row stride ldo) = x[n][m->cols] (row stride ldx) @ W^T, on the pool.
 * n >= 4 (prefill): cache-blocked f32 tiles, non-f32 weights widened 4 rows at a
 * time; n < 4 (decode): dot products straight from the stored dtype. */
void matmul(pg_pool *p, float *out, int ldo, const float *x, int ldx, int n, const wmat *m);
/* Attention helpers: out[r] = rows[r*stride : +k] . x for r < nrows; y += a * x. */
void kern_dots(const float *rows, size_t stride, int nrows, const float *x, int k, float *out);
void kern_axpy(float *y, float a, const float *x, int k);
/* The CPU features the kernels picked: "avx512", "avx2" or "scalar". */
const char *kernels_isa(void);
/* Force a kernel family (tests): "avx512", "avx2", "scalar"; false if the CPU cannot. */
bool kernels_force(const char *isa);

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
float f16_to_f32(uint16_t h);

#endif
