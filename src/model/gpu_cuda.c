/* gpu_cuda.c — dlopen the CUDA driver and cuBLAS, resolve the entry points the GPU engine
 * uses (gpu_cuda.h).  The _v2 names are the ones the CUDA headers map the plain names to. */
#define _GNU_SOURCE
#include "gpu_cuda.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *sym(void *lib, const char *name) { return dlsym(lib, name); }

static void *open_blas(gpu_api *a) {
    const char *env = getenv("PTXGEN_CUBLAS");
    if (env && *env) {
        void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (h) snprintf(a->blas_name, sizeof a->blas_name, "%s", env);
        else snprintf(a->blas_why, sizeof a->blas_why, "%s", dlerror());
        return h;
    }
    static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"};
    const char *home = getenv("CUDA_HOME");
    const char *dirs[] = {"", home && *home ? home : NULL, "/usr/local/cuda"};
    for (int d = 0; d < 3; d++) {
        if (!dirs[d]) continue;
        for (int i = 0; i < 4; i++) {
            char path[1024];
            if (*dirs[d]) snprintf(path, sizeof path, "%s/lib64/%s", dirs[d], names[i]);
            else snprintf(path, sizeof path, "%s", names[i]);
            void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (h) {
                snprintf(a->blas_name, sizeof a->blas_name, "%s", names[i]);
                return h;
            }
            const char *e = dlerror();
            if (!a->blas_why[0] && e) snprintf(a->blas_why, sizeof a->blas_why, "%s", e);
        }
    }
    return NULL;
}

bool model_gpu_api_load(gpu_api *a, char *why, size_t n) {
    memset(a, 0, sizeof *a);
    a->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    char first[256] = "";
    if (!a->lib) {   /* the first loader message names the versioned file the driver installs */
        const char *e = dlerror();
        snprintf(first, sizeof first, "%s", e ? e : "libcuda.so.1 not found");
        a->lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    }
    if (!a->lib) {
        snprintf(why, n, "no CUDA driver: %s", first);
        return false;
    }
#define NEED(field, name)                                                                     \
    do {                                                                                      \
        *(void **)&a->field = sym(a->lib, name);                                              \
        if (!a->field) {                                                                      \
            snprintf(why, n, "the CUDA driver lacks %s (too old a driver?)", name);           \
            model_gpu_api_unload(a);                                                          \
            return false;                                                                     \
        }                                                                                     \
    } while (0)
    NEED(cuInit, "cuInit");
    NEED(cuDeviceGetCount, "cuDeviceGetCount");
    NEED(cuDeviceGet, "cuDeviceGet");
    NEED(cuDeviceGetName, "cuDeviceGetName");
    NEED(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    NEED(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
    NEED(cuCtxSetCurrent, "cuCtxSetCurrent");
    NEED(cuMemGetInfo, "cuMemGetInfo_v2");
    NEED(cuModuleLoadDataEx, "cuModuleLoadDataEx");
    NEED(cuModuleGetFunction, "cuModuleGetFunction");
    NEED(cuModuleUnload, "cuModuleUnload");
    NEED(cuMemAlloc, "cuMemAlloc_v2");
    NEED(cuMemFree, "cuMemFree_v2");
    NEED(cuMemAllocHost, "cuMemAllocHost_v2");
    NEED(cuMemFreeHost, "cuMemFreeHost");
    NEED(cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    NEED(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
    NEED(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
    NEED(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
    NEED(cuLaunchKernel, "cuLaunchKernel");
    NEED(cuStreamCreate, "cuStreamCreate");
    NEED(cuStreamDestroy, "cuStreamDestroy_v2");
    NEED(cuStreamSynchronize, "cuStreamSynchronize");
    NEED(cuGetErrorName, "cuGetErrorName");
    NEED(cuGetErrorString, "cuGetErrorString");
#undef NEED
    /* optional: graphs (CUDA 11.4+ drivers) */
    *(void **)&a->cuStreamBeginCapture = sym(a->lib, "cuStreamBeginCapture_v2");
    *(void **)&a->cuStreamEndCapture = sym(a->lib, "cuStreamEndCapture");
    *(void **)&a->cuGraphInstantiateWithFlags = sym(a->lib, "cuGraphInstantiateWithFlags");
    *(void **)&a->cuGraphLaunch = sym(a->lib, "cuGraphLaunch");
    *(void **)&a->cuGraphExecDestroy = sym(a->lib, "cuGraphExecDestroy");
    *(void **)&a->cuGraphDestroy = sym(a->lib, "cuGraphDestroy");
    if (!a->cuStreamBeginCapture || !a->cuStreamEndCapture || !a->cuGraphInstantiateWithFlags || !a->cuGraphLaunch ||
        !a->cuGraphExecDestroy || !a->cuGraphDestroy)
        a->cuStreamBeginCapture = NULL;   /* all or none */
    /* optional: cuBLAS for the matmuls of several rows (prefill, batched decode) */
    a->blas = open_blas(a);
    if (a->blas) {
        *(void **)&a->cublasCreate = sym(a->blas, "cublasCreate_v2");
        *(void **)&a->cublasDestroy = sym(a->blas, "cublasDestroy_v2");
        *(void **)&a->cublasSetStream = sym(a->blas, "cublasSetStream_v2");
        *(void **)&a->cublasGemmEx = sym(a->blas, "cublasGemmEx");
        if (!a->cublasCreate || !a->cublasDestroy || !a->cublasSetStream || !a->cublasGemmEx) {
            dlclose(a->blas);
            a->blas = NULL;
        }
    }
    return true;
}

void model_gpu_api_unload(gpu_api *a) {
    if (a->blas) dlclose(a->blas);
    if (a->lib) dlclose(a->lib);
    a->blas = a->lib = NULL;
}

const char *model_gpu_err(const gpu_api *a, CUresult r, char *buf, size_t n) {
    const char *name = NULL, *str = NULL;
    if (a->cuGetErrorName) a->cuGetErrorName(r, &name);
    if (a->cuGetErrorString) a->cuGetErrorString(r, &str);
    snprintf(buf, n, "%s (%d): %s", name ? name : "CUDA error", r, str ? str : "unknown");
    return buf;
}
