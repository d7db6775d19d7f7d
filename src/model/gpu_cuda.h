/* gpu_cuda.h — the slice of the CUDA driver API and of cuBLAS that the GPU engine (gpu.c)
 * uses, loaded at run time with dlopen (gpu_cuda.c): nothing links against libcuda or
 * libcublas, so the library builds and runs on machines without either, and says why the GPU
 * engine cannot start there.  Internal to src/model (the harness in src/gpu has its own
 * table: the model module depends on no other module). */
#ifndef PTXGEN_MODEL_GPU_CUDA_H
#define PTXGEN_MODEL_GPU_CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int CUresult;   /* 0 = CUDA_SUCCESS */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef unsigned long long CUdeviceptr;
typedef struct cublasContext *cublasHandle_t;

enum { CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6 };
enum { CU_STREAM_NON_BLOCKING = 1 };
enum { CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1 };
enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };                 /* cublasOperation_t */
enum { CUDA_R_32F = 0, CUDA_R_16F = 2 };                    /* cudaDataType_t */
enum { CUBLAS_COMPUTE_32F = 68 };                           /* cublasComputeType_t */
enum { CUBLAS_GEMM_DEFAULT = -1 };                          /* cublasGemmAlgo_t */

typedef struct {
    void *lib, *blas;   /* dlopen handles; blas NULL when no cuBLAS was found (matvec kernels only) */
    char blas_name[64]; /* the cuBLAS file that was loaded */
    char blas_why[160]; /* why none was: the loader's first message */
    CUresult (*cuInit)(unsigned);
    CUresult (*cuDeviceGetCount)(int *);
    CUresult (*cuDeviceGet)(CUdevice *, int);
    CUresult (*cuDeviceGetName)(char *, int, CUdevice);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
    CUresult (*cuCtxSetCurrent)(CUcontext);
    CUresult (*cuMemGetInfo)(size_t *, size_t *);
    CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
    CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*cuModuleUnload)(CUmodule);
    CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
    CUresult (*cuMemFree)(CUdeviceptr);
    CUresult (*cuMemAllocHost)(void **, size_t);
    CUresult (*cuMemFreeHost)(void *);
    CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
    CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
    CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               CUstream, void **, void **);
    CUresult (*cuStreamCreate)(CUstream *, unsigned);
    CUresult (*cuStreamDestroy)(CUstream);
    CUresult (*cuStreamSynchronize)(CUstream);
    CUresult (*cuGetErrorName)(CUresult, const char **);
    CUresult (*cuGetErrorString)(CUresult, const char **);
    /* CUDA graphs (optional: NULL when the driver lacks them; decode then launches kernel by kernel) */
    CUresult (*cuStreamBeginCapture)(CUstream, int);
    CUresult (*cuStreamEndCapture)(CUstream, CUgraph *);
    CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph, unsigned long long);
    CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
    CUresult (*cuGraphExecDestroy)(CUgraphExec);
    CUresult (*cuGraphDestroy)(CUgraph);
    /* cuBLAS (status 0 = success) */
    int (*cublasCreate)(cublasHandle_t *);
    int (*cublasDestroy)(cublasHandle_t);
    int (*cublasSetStream)(cublasHandle_t, CUstream);
    int (*cublasGemmEx)(cublasHandle_t, int transa, int transb, int m, int n, int k, const void *alpha, const void *A,
                        int Atype, int lda, const void *B, int Btype, int ldb, const void *beta, void *C, int Ctype, int ldc,
                        int computeType, int algo);
} gpu_api;

/* Load libcuda (libcuda.so.1, then libcuda.so) and resolve the driver entry points, then
 * cuBLAS ($PTXGEN_CUBLAS when set, else libcublas.so.13/.12/.11/.so by the loader's search
 * path, $CUDA_HOME/lib64, /usr/local/cuda/lib64); a missing cuBLAS is not an error (blas
 * NULL).  false with the reason in why ("no CUDA driver: libcuda.so.1: cannot open shared
 * object file ..."). */
bool model_gpu_api_load(gpu_api *api, char *why, size_t n);
void model_gpu_api_unload(gpu_api *api);
/* "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory" */
const char *model_gpu_err(const gpu_api *api, CUresult r, char *buf, size_t n);

#endif
