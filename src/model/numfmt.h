/* numfmt.h — number formats, a leaf of the model module: f16 and bf16 to and from f32, and the
 * ggml tensor type ids (the block formats GGUF files store; quant.c computes with them).  The
 * readers (gguf.c, safetensors.c), the kernels (quant.c, kernels.c) and the model all use it;
 * it includes nothing of theirs. */
#ifndef PTXGEN_MODEL_NUMFMT_H
#define PTXGEN_MODEL_NUMFMT_H

#include <stdint.h>

/* ggml tensor types (values as in the file). */
typedef enum {
    GGUF_T_F32 = 0, GGUF_T_F16 = 1, GGUF_T_Q4_0 = 2, GGUF_T_Q4_1 = 3, GGUF_T_Q5_0 = 6, GGUF_T_Q5_1 = 7,
    GGUF_T_Q8_0 = 8, GGUF_T_Q8_1 = 9, GGUF_T_Q2_K = 10, GGUF_T_Q3_K = 11, GGUF_T_Q4_K = 12, GGUF_T_Q5_K = 13,
    GGUF_T_Q6_K = 14, GGUF_T_Q8_K = 15, GGUF_T_BF16 = 30,
} gguf_type;

/* IEEE half to float, exactly (subnormals, inf and NaN kept). */
static inline float model_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, u;
    if (exp == 0) {
        if (man == 0) u = sign;
        else {                 /* subnormal: normalize */
            exp = 113;
            while (!(man & 0x400)) { man <<= 1; exp--; }
            u = sign | exp << 23 | (man & 0x3ff) << 13;
        }
    } else if (exp == 31) u = sign | 0x7f800000u | man << 13;
    else u = sign | (exp + 112) << 23 | man << 13;
    union { uint32_t u; float f; } v = {u};
    return v.f;
}

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

#endif
