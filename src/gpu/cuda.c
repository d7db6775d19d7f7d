/* cuda.c — dlopen the CUDA driver and resolve the entry points we use. */
#define _GNU_SOURCE
#include <stdbool.h>
#include "cuda.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

bool gpu_cuda_load(cuda_api *a, char *why, size_t n) {
    memset(a, 0, sizeof *a);
    a->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!a->lib) a->lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (!a->lib) {
        snprintf(why, n, "no CUDA driver: libcuda.so.1 not found (%s)", dlerror());
        return false;
    }
#define SYM(field, name) do { *(void **)&a->field = dlsym(a->lib, name); \
        if (!a->field) { snprintf(why, n, "CUDA driver lacks %s", name); dlclose(a->lib); a->lib = NULL; return false; } } while (0)
    SYM(cuInit, "cuInit");
    SYM(cuDeviceGetCount, "cuDeviceGetCount");
    SYM(cuDeviceGet, "cuDeviceGet");
    SYM(cuDeviceGetName, "cuDeviceGetName");
    SYM(cuDeviceGetAttribute, "cuDeviceGetAttribute");
    SYM(cuDeviceTotalMem, "cuDeviceTotalMem_v2");
    SYM(cuCtxCreate, "cuCtxCreate_v2");
    SYM(cuCtxDestroy, "cuCtxDestroy_v2");
    SYM(cuCtxSynchronize, "cuCtxSynchronize");
    SYM(cuModuleLoadDataEx, "cuModuleLoadDataEx");
    SYM(cuModuleGetFunction, "cuModuleGetFunction");
    SYM(cuModuleUnload, "cuModuleUnload");
    SYM(cuFuncGetAttribute, "cuFuncGetAttribute");
    SYM(cuFuncSetAttribute, "cuFuncSetAttribute");
    SYM(cuMemAlloc, "cuMemAlloc_v2");
    SYM(cuMemFree, "cuMemFree_v2");
    SYM(cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    SYM(cuMemcpyDtoH, "cuMemcpyDtoH_v2");
    SYM(cuMemcpyDtoD, "cuMemcpyDtoD_v2");
    SYM(cuMemsetD8, "cuMemsetD8_v2");
    SYM(cuMemsetD32, "cuMemsetD32_v2");
    SYM(cuLaunchKernel, "cuLaunchKernel");
    SYM(cuEventCreate, "cuEventCreate");
    SYM(cuEventDestroy, "cuEventDestroy_v2");
    SYM(cuEventRecord, "cuEventRecord");
    SYM(cuEventSynchronize, "cuEventSynchronize");
    SYM(cuEventElapsedTime, "cuEventElapsedTime");
    SYM(cuGetErrorString, "cuGetErrorString");
    SYM(cuGetErrorName, "cuGetErrorName");
#undef SYM
    return true;
}

const char *gpu_cuda_err(const cuda_api *a, CUresult r, char *buf, size_t n) {
    const char *name = NULL, *str = NULL;
    if (a->cuGetErrorName) a->cuGetErrorName(r, &name);
    if (a->cuGetErrorString) a->cuGetErrorString(r, &str);
    snprintf(buf, n, "%s (%d): %s", name ? name : "CUDA error", r, str ? str : "unknown");
    return buf;
}
