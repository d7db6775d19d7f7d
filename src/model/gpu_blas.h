/* gpu_blas.h — the slice of cuBLAS that the GPU engine (gpu.c) uses, loaded at run time with
 * the gpu module's dlopen helper (gpu_blas.c): nothing links against libcublas, and a machine
 * without it runs every matmul as a matvec.  The driver itself comes from the gpu module's
 * one libcuda loader (ptxgen/gpu_cuda.h).  Internal to src/model. */
#ifndef PTXGEN_MODEL_GPU_BLAS_H
#define PTXGEN_MODEL_GPU_BLAS_H

#include "ptxgen/gpu_cuda.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct cublasContext *cublasHandle_t;

enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };                 /* cublasOperation_t */
enum { CUDA_R_32F = 0, CUDA_R_16F = 2 };                    /* cudaDataType_t */
enum { CUBLAS_COMPUTE_32F = 68 };                           /* cublasComputeType_t */
enum { CUBLAS_GEMM_DEFAULT = -1 };                          /* cublasGemmAlgo_t */

typedef struct {
    void *lib;          /* dlopen handle; NULL when no usable cuBLAS was found (matvec kernels only) */
    char name[64];      /* the cuBLAS file that was loaded */
    char why[160];      /* why none was: the loader's first message, or the entry point it lacks */
    /* status 0 = success */
    int (*cublasCreate)(cublasHandle_t *);
    int (*cublasDestroy)(cublasHandle_t);
    int (*cublasSetStream)(cublasHandle_t, CUstream);
    int (*cublasGemmEx)(cublasHandle_t, int transa, int transb, int m, int n, int k, const void *alpha, const void *A,
                        int Atype, int lda, const void *B, int Btype, int ldb, const void *beta, void *C, int Ctype, int ldc,
                        int computeType, int algo);
} model_cublas;

/* Load cuBLAS ($PTXGEN_CUBLAS when set, else libcublas.so.13/.12/.11/.so by the loader's
 * search path, $CUDA_HOME/lib64, /usr/local/cuda/lib64) and its four entry points.  false
 * (lib NULL, the reason in b->why) when there is none: not an error for the engine. */
bool model_cublas_load(model_cublas *b);
void model_cublas_unload(model_cublas *b);

#endif
