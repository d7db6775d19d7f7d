/* ptxgen/gpu_cuda.h — the one loader of the CUDA driver (libcuda), for the GPU harness
 * (src/gpu) and the model's GPU engine (src/model/gpu.c), and the dlopen/dlsym helper it is
 * built on (the engine loads cuBLAS with it too).
 *
 * Nothing links against libcuda: it is opened at run time, so ptxgen builds and runs on a
 * machine without a GPU and says why the GPU cannot be used there.  The slice of the driver
 * API below is declared here (types, constants, entry points), so this header does not go
 * into a translation unit that also includes the CUDA toolkit's cuda.h.
 *
 * Ownership: gpu_cuda_load fills a gpu_cuda the caller owns; gpu_cuda_unload closes the
 * library.  Errors: false, and a sentence in the caller's `why` buffer. */
#ifndef PTXGEN_GPU_CUDA_H
#define PTXGEN_GPU_CUDA_H

#include "ptxgen/common.h"

#include <stdbool.h>
#include <stddef.h>

typedef int CUresult;   /* 0 = CUDA_SUCCESS */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef unsigned long long CUdeviceptr;

enum {  /* CUjit_option */
    CU_JIT_INFO_LOG_BUFFER = 3, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6, CU_JIT_LOG_VERBOSE = 12
};
enum {  /* CUdevice_attribute */
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16, CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
    CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
};
enum {  /* CUfunction_attribute */
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
};
enum { CU_STREAM_NON_BLOCKING = 1 };                 /* CUstream_flags */
enum { CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1 };    /* CUstreamCaptureMode */

/* Who needs an entry point (gpu_cuda_load's `want`): a load fails only for a missing entry
 * point its caller needs; the others are NULL when the driver lacks them. */
enum {
    GPU_CUDA_HARNESS = 1,   /* src/gpu: its own context per kernel process, events, attributes */
    GPU_CUDA_ENGINE = 2,    /* the model's GPU engine: the primary context, a stream, async copies */
    GPU_CUDA_GRAPHS = 4     /* CUDA graphs (11.4+ drivers): all six or none */
};

/* The entry points, under the names the CUDA headers give them (the driver exports several
 * as *_v2: the table in src/gpu/cuda.c says which symbol each one is). */
typedef struct {
    void *lib;   /* the dlopen handle */
    /* both */
    CUresult (*cuInit)(unsigned);
    CUresult (*cuDeviceGetCount)(int *);
    CUresult (*cuDeviceGet)(CUdevice *, int);
    CUresult (*cuDeviceGetName)(char *, int, CUdevice);
    CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
    CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*cuModuleUnload)(CUmodule);
    CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
    CUresult (*cuMemFree)(CUdeviceptr);
    CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               CUstream, void **, void **);
    CUresult (*cuGetErrorName)(CUresult, const char **);
    CUresult (*cuGetErrorString)(CUresult, const char **);
    /* the harness */
    CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*cuDeviceTotalMem)(size_t *, CUdevice);
    CUresult (*cuCtxCreate)(CUcontext *, unsigned, CUdevice);
    CUresult (*cuCtxDestroy)(CUcontext);
    CUresult (*cuCtxSynchronize)(void);
    CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
    CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
    CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
    CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
    CUresult (*cuMemsetD32)(CUdeviceptr, unsigned, size_t);
    CUresult (*cuEventCreate)(CUevent *, unsigned);
    CUresult (*cuEventDestroy)(CUevent);
    CUresult (*cuEventRecord)(CUevent, CUstream);
    CUresult (*cuEventSynchronize)(CUevent);
    CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
    /* the engine */
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
    CUresult (*cuCtxSetCurrent)(CUcontext);
    CUresult (*cuMemGetInfo)(size_t *, size_t *);
    CUresult (*cuMemAllocHost)(void **, size_t);
    CUresult (*cuMemFreeHost)(void *);
    CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
    CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
    CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
    CUresult (*cuStreamCreate)(CUstream *, unsigned);
    CUresult (*cuStreamDestroy)(CUstream);
    CUresult (*cuStreamSynchronize)(CUstream);
    /* graphs (GPU_CUDA_GRAPHS): all NULL unless the driver has all six */
    CUresult (*cuStreamBeginCapture)(CUstream, int);
    CUresult (*cuStreamEndCapture)(CUstream, CUgraph *);
    CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph, unsigned long long);
    CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
    CUresult (*cuGraphExecDestroy)(CUgraphExec);
    CUresult (*cuGraphDestroy)(CUgraph);
} gpu_cuda;

/* Open libcuda (libcuda.so.1, the file the driver installs, then libcuda.so) and resolve the
 * entry points; every one `want` (GPU_CUDA_* bits) names must be there.  false with the reason
 * in why: "no CUDA driver: libcuda.so.1: cannot open shared object file: ..." or "the CUDA
 * driver lacks cuMemAllocHost_v2 (too old a driver?)"; cu is then all NULL. */
PG_API bool gpu_cuda_load(gpu_cuda *cu, unsigned want, char *why, size_t n);
/* Close what gpu_cuda_load opened (a zeroed or failed gpu_cuda is fine); cu becomes all NULL. */
PG_API void gpu_cuda_unload(gpu_cuda *cu);
/* "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory", from the driver's own names for r. */
PG_API const char *gpu_cuda_err(const gpu_cuda *cu, CUresult r, char *buf, size_t n);

/* The helper under the loader, for any library opened at run time. */
/* dlopen(path) with RTLD_NOW | RTLD_LOCAL.  NULL when it cannot be loaded; the loader's
 * message then goes to why unless why already holds one (so after several tries it names
 * the first, usually the most telling).  why may be NULL. */
PG_API void *gpu_dl_open(const char *path, char *why, size_t n);
/* dlclose(lib); NULL is fine. */
PG_API void gpu_dl_close(void *lib);
/* One entry point of a table: its symbol, where its pointer goes (offsetof in the table's
 * struct) and who needs it (a set of bits the caller defines). */
typedef struct {
    const char *name;
    size_t offset;
    unsigned uses;
} gpu_dl_sym;
/* Resolve syms[0..count) from lib into the struct at table.  A symbol whose uses share a bit
 * with want is required: when lib lacks one, false with *missing = its name (the table's
 * pointers are then partly set: the caller clears or closes).  The others are NULL when
 * absent. */
PG_API bool gpu_dl_syms(void *lib, const gpu_dl_sym *syms, size_t count, void *table, unsigned want,
                        const char **missing);

#endif
