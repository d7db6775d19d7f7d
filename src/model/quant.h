/* quant.h — dot products and dequantization straight from GGUF blocks (quant.c), internal to
 * src/model.  Below the matmul (kernels.c) and the loader; it includes only numfmt.h and cpu.h
 * (the kernel family, which it follows) and calls nothing above it. */
#ifndef PTXGEN_MODEL_QUANT_H
#define PTXGEN_MODEL_QUANT_H

#include "numfmt.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
/* xz: NULL, or for QACT_32 types each activation's pair form (model_quant_act32_pairs of xq[j]),
 * which the AVX-512 kernels take: built once per matmul, a block pair then costs an activation
 * one load, a dpbusd and two f32 operations (same values as without, bit for bit).
 * qa64: blocks 2i and 2i+1 of a qa32 activation, codes + 128 as unsigned bytes (against the
 * weights as signed values) and the two scales over the vector's halves. */
typedef struct { uint8_t qu[64]; float d[16]; } qa64;
bool model_quant_pairs_wanted(void);                          /* the kernels in force take xz */
void model_quant_act32_pairs(const qa32 *q, int n, qa64 *z);  /* q[n/32] -> z[n/64] */
void model_quant_dot_rows_nx(int type, const void *rows, size_t row_bytes, int nrows, const void *const *xq,
                             const qa64 *const *xz, int nx, int n, float *out, size_t ldo);
/* Rows packed 16 at a time (quant.c "Q5_0 rows packed 16 at a time", p16, and "Q4_K / Q6_K
 * rows packed 16 at a time", k16): the decode kernel for several activations (a verify step)
 * and one.  A group is 16 rows of n elements in model_quant_p16_bytes(type, n) bytes (the
 * file's bytes rearranged, Q4_K's 3% more; 0: the type or width is not packed).  The values
 * are the same whatever nx and kernel family; p16's are not the row-major kernels' (another
 * f32 summation order, the same error bound), k16's are the vector row-major kernels' (dot256_z,
 * dot256_avx2) bit for bit. */
bool model_quant_p16_wanted(void);                 /* the family in force profits (AVX-512 VNNI) */
bool model_quant_p16_ok(int type, int n);          /* Q5_0, n a multiple of 64; Q4_K / Q6_K, of 256 */
size_t model_quant_p16_bytes(int type, int n);
/* rows: 16 rows of row_bytes each, row-major blocks as in the file -> dst[model_quant_p16_bytes] */
void model_quant_p16_pack(int type, const void *rows, size_t row_bytes, int n, void *dst);
void model_quant_p16_sums(const qa32 *q, int n, int32_t *c);   /* Q5_0: c[n/32] = -16 x each block's int8 sum */
/* out[j * ldo + i] = row i of the group . x_j, i < 16, for nx activations: Q5_0, qa32 x[j][n/32]
 * and its sums c[j]; Q4_K / Q6_K, qa256 x[j][n/256] (c unused).  _ref: the scalar kernels (the
 * same values bit for bit). */
void model_quant_p16_dot(int type, const void *group, int n, const void *const *x, const int32_t *const *c, int nx, float *out, size_t ldo);
void model_quant_p16_dot_ref(int type, const void *group, int n, const void *const *x, const int32_t *const *c, int nx, float *out, size_t ldo);
/* Row to f32: the scalar reference, and the same values through AVX2 where there is one. */
void model_quant_dequant_row(int type, const void *data, float *y, int64_t n);
void model_quant_dequant_fast(int type, const void *data, float *y, int64_t n);
float model_quant_dot_f32(const float *a, const float *b, int n);

#endif
