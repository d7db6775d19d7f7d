/* gpu.h — the GPU engine (gpu.c): the model's forward pass on an NVIDIA GPU, behind the same
 * public API as the CPU engine (model.c dispatches to it when the model was loaded with
 * model_load_opts.device "gpu").  Internal to src/model.
 *
 * Weights are dequantized (GGUF blocks, bf16, q8 panels: whatever the CPU engine holds) to f16
 * at load, LoRA merged in (W += s B A in f32, then rounded), and uploaded once; activations
 * and the KV cache are f32.  A step runs n rows (tokens): row t is token toks[t] of context
 * cs[t] at position pos[t] (a prefill chunk or a verify step: one context, consecutive
 * positions; a batched decode step: n distinct contexts).  The matmuls of one row, and of
 * every row of an exact step, run the PTX matvec kernel (gpu_ptx.c), which computes each row
 * the same way whatever n; several rows otherwise go through cuBLAS (f16 x f16, f32
 * accumulate); with $PTXGEN_GPU_WEIGHTS=q8 the matvec rows read an int8 copy of the matrices
 * (pg_matvec_q8, gpu.c's header) made at load beside the f16 ones.  Logits stay on the device, in the contexts' own buffers, until asked for.
 * Layers: over model_internal.h and kernels.h (model_wmat_row_f32, the pool), gpu_cuda.h. */
#ifndef PTXGEN_MODEL_GPU_H
#define PTXGEN_MODEL_GPU_H

#include "model_internal.h"

/* The kernels of gpu_ptx.c: the module's text and the entry names, in this order. */
enum { GPU_K_EMBED, GPU_K_RMSNORM, GPU_K_MATVEC, GPU_K_QKV_ROPE, GPU_K_ATTENTION, GPU_K_SILU_MUL, GPU_K_TOPK, GPU_K_ATTN_SPLIT, GPU_K_ATTN_MERGE, GPU_K_MATVEC_Q8, GPU_NKERN };
extern const char model_gpu_ptx[];
extern const char *const model_gpu_kernel_names[GPU_NKERN];

/* $PTXGEN_GPU_WEIGHTS=q8's int8 copy of a matrix row, on the host (gpu.c's q8 layout): w[cols]
 * (cols % 32 == 0) to q[cols] and d[cols / 32] (f16 bits), Q8_0 style: block b (columns 32b..32b+31)
 * has the scale d[b] = max|w| / 127 rounded up to an f16 and q = round(w / d[b]) (ties away from 0),
 * so |w - q d[b]| <= d[b] / 2 and |q| <= 127; a block of zeros: d 0, q 0.  False (q and d partly
 * written) when cols % 32 != 0, a weight is not finite or a scale is beyond f16's range. */
bool model_gpu_q8_row(const float *w, int cols, int8_t *q, uint16_t *d);

/* Rows one step takes at most (model.c splits longer prefills and batches). */
#define GPU_ROWS CHUNK

typedef struct gpu_model gpu_model;
typedef struct gpu_ctx gpu_ctx;

/* Start the GPU engine for m (libcuda and cuBLAS through dlopen, the PTX module, the weights
 * uploaded): sets m->gpu.  Errors (E702 "gpu", naming the cause: no driver, no device, out
 * of device memory, a shape the kernels do not take) leave m->gpu NULL. */
pg_status model_gpu_open(model_model *m, pg_diag_sink *diag);
void model_gpu_close(gpu_model *g);
/* model_load_opts.gpu_defer: refuse at load what model_gpu_open would (the shapes, no libcuda,
 * no device), with CUDA initialised only in a forked probe, never in this process. */
pg_status model_gpu_check(const model_model *m, pg_diag_sink *diag);
/* "NVIDIA H200 (f16 weights, 988 MB; cuBLAS libcublas.so.12; graphs; pg_attn_split)"; with q8:
 * "... (f16 weights, 988 MB + int8 copies 520 MB; ...; graphs; pg_matvec_q8; pg_attn_split)" */
const char *model_gpu_describe(const gpu_model *g);

/* A context's device half: its K and V caches for max_seq positions, its logits rows. */
pg_status model_gpu_ctx_new(gpu_model *g, int max_seq, gpu_ctx **out, pg_diag_sink *diag);
void model_gpu_ctx_free(gpu_ctx *c);

/* One forward step of n rows (1..GPU_ROWS; see above; the caller checked tokens and room).
 * Rows [keep0, n) keep their logits: a context's kept rows become its logits rows 0, 1, ...
 * in row order (replacing what it kept before; a context with no kept row keeps its old
 * ones); out, when not NULL, receives them too, [n - keep0][vocab].  exact: every matmul
 * through the matvec kernel (each row bit for bit a one-row step's).  tvals, tids, when not NULL
 * (rows kept): the last kept row's top GPU_TOPK as model_gpu_topk gives them, selected in the
 * step's own submission (a one-row step: its graph), so no logits row crosses to the host. */
pg_status model_gpu_step(gpu_model *g, gpu_ctx *const *cs, const int *pos, const int32_t *toks, int n, int keep0, bool exact,
                         float *out, float *tvals, int32_t *tids, pg_diag_sink *diag);
/* Logits row `row` (< the rows it kept) of c: ids NULL: out[vocab]; else out[i] = logit of ids[i]. */
pg_status model_gpu_logits(gpu_ctx *c, int row, const int32_t *ids, int nids, float *out, pg_diag_sink *diag);
/* pg_topk: the GPU_TOPK (model.h's MODEL_TOPK) largest logits of logits row rows[r] of cs[r], r < n
 * (1..GPU_ROWS), computed on the device so n x 64 (logit, id) pairs come back instead of n x vocab
 * floats: vals[n][64], ids[n][64] in model_topk_ref's order and padding (-inf, -1). */
#define GPU_TOPK 64
pg_status model_gpu_topk(gpu_model *g, gpu_ctx *const *cs, const int *rows, int n, float *vals, int32_t *ids, pg_diag_sink *diag);
/* Make logits row `row` of c its row 0 and the only one (model_forward with all_logits keeps
 * every row of the last chunk, then only the last token's). */
pg_status model_gpu_keep_row(gpu_ctx *c, int row, pg_diag_sink *diag);

/* model.h's model_gpu_set, model_gpu_profile_json, model_gpu_launches for this engine. */
pg_status model_gpu_set(gpu_model *g, const char *key, int value, pg_diag_sink *diag);
pg_status model_gpu_profile_json(const gpu_model *g, char *buf, size_t n, pg_diag_sink *diag);
long model_gpu_launches(const gpu_model *g);

#endif
