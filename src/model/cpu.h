/* cpu.h — which kernel family this CPU runs (a leaf of the model module): AVX-512 (F, BW, VL,
 * DQ, VNNI), AVX2 + FMA, or scalar C, detected once; tests force a lesser one.  kernels.c
 * (the matmul, attention) and quant.c (the GGUF block kernels) both follow it, so neither
 * asks the other. */
#ifndef PTXGEN_MODEL_CPU_H
#define PTXGEN_MODEL_CPU_H

#include <stdbool.h>

typedef enum { CPU_SCALAR, CPU_AVX2, CPU_AVX512 } cpu_family;
/* The family in force (detected on first use; thread-safe). */
cpu_family model_cpu_family(void);
const char *model_cpu_family_name(cpu_family f);   /* "scalar", "avx2", "avx512" */
/* Switch to family f, only downgrades (the detected family and those below it are safe on this
 * CPU): false otherwise. */
bool model_cpu_force(cpu_family f);

#endif
