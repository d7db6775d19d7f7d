/* cuda.c — the one loader of libcuda (ptxgen/gpu_cuda.h): a table of the driver's entry
 * points with who needs each, resolved through the dlopen/dlsym helper below it.  The _v2
 * names are the ones the CUDA headers map the plain names to. */
#define _GNU_SOURCE
#include "ptxgen/gpu_cuda.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

void *gpu_dl_open(const char *path, char *why, size_t n) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h && why && n && !why[0]) {
        const char *e = dlerror();
        snprintf(why, n, "%s", e ? e : path);
    }
    return h;
}

void gpu_dl_close(void *lib) {
    if (lib) dlclose(lib);
}

bool gpu_dl_syms(void *lib, const gpu_dl_sym *syms, size_t count, void *table, unsigned want, const char **missing) {
    for (size_t i = 0; i < count; i++) {
        void *p = dlsym(lib, syms[i].name);
        memcpy((char *)table + syms[i].offset, &p, sizeof p);   /* POSIX: a function's address as a void * */
        if (!p && (syms[i].uses & want)) {
            if (missing) *missing = syms[i].name;
            return false;
        }
    }
    return true;
}

enum { B = GPU_CUDA_HARNESS | GPU_CUDA_ENGINE, H = GPU_CUDA_HARNESS, E = GPU_CUDA_ENGINE, G = GPU_CUDA_GRAPHS };
#define S(field, name, uses) {name, offsetof(gpu_cuda, field), uses}
static const gpu_dl_sym cuda_syms[] = {
    S(cuInit, "cuInit", B),
    S(cuDeviceGetCount, "cuDeviceGetCount", B),
    S(cuDeviceGet, "cuDeviceGet", B),
    S(cuDeviceGetName, "cuDeviceGetName", B),
    S(cuModuleLoadDataEx, "cuModuleLoadDataEx", B),
    S(cuModuleGetFunction, "cuModuleGetFunction", B),
    S(cuModuleUnload, "cuModuleUnload", B),
    S(cuMemAlloc, "cuMemAlloc_v2", B),
    S(cuMemFree, "cuMemFree_v2", B),
    S(cuMemcpyHtoD, "cuMemcpyHtoD_v2", B),
    S(cuLaunchKernel, "cuLaunchKernel", B),
    S(cuGetErrorName, "cuGetErrorName", B),
    S(cuGetErrorString, "cuGetErrorString", B),
    S(cuDeviceGetAttribute, "cuDeviceGetAttribute", H),
    S(cuDeviceTotalMem, "cuDeviceTotalMem_v2", H),
    S(cuCtxCreate, "cuCtxCreate_v2", H),
    S(cuCtxDestroy, "cuCtxDestroy_v2", H),
    S(cuCtxSynchronize, "cuCtxSynchronize", H),
    S(cuFuncGetAttribute, "cuFuncGetAttribute", H),
    S(cuFuncSetAttribute, "cuFuncSetAttribute", H),
    S(cuMemcpyDtoH, "cuMemcpyDtoH_v2", H),
    S(cuMemcpyDtoD, "cuMemcpyDtoD_v2", H),
    S(cuMemsetD8, "cuMemsetD8_v2", H),
    S(cuMemsetD32, "cuMemsetD32_v2", H),
    S(cuEventCreate, "cuEventCreate", H),
    S(cuEventDestroy, "cuEventDestroy_v2", H),
    S(cuEventRecord, "cuEventRecord", H),
    S(cuEventSynchronize, "cuEventSynchronize", H),
    S(cuEventElapsedTime, "cuEventElapsedTime", H),
    S(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", E),
    S(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", E),
    S(cuCtxSetCurrent, "cuCtxSetCurrent", E),
    S(cuMemGetInfo, "cuMemGetInfo_v2", E),
    S(cuMemAllocHost, "cuMemAllocHost_v2", E),
    S(cuMemFreeHost, "cuMemFreeHost", E),
    S(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", E),
    S(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", E),
    S(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", E),
    S(cuStreamCreate, "cuStreamCreate", E),
    S(cuStreamDestroy, "cuStreamDestroy_v2", E),
    S(cuStreamSynchronize, "cuStreamSynchronize", E),
    S(cuStreamBeginCapture, "cuStreamBeginCapture_v2", G),
    S(cuStreamEndCapture, "cuStreamEndCapture", G),
    S(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", G),
    S(cuGraphLaunch, "cuGraphLaunch", G),
    S(cuGraphExecDestroy, "cuGraphExecDestroy", G),
    S(cuGraphDestroy, "cuGraphDestroy", G),
};
#undef S
#define NSYMS (sizeof cuda_syms / sizeof *cuda_syms)

bool gpu_cuda_load(gpu_cuda *cu, unsigned want, char *why, size_t n) {
    memset(cu, 0, sizeof *cu);
    if (n) why[0] = '\0';
    char first[256] = "";   /* the first loader message names the versioned file the driver installs */
    cu->lib = gpu_dl_open("libcuda.so.1", first, sizeof first);
    if (!cu->lib) cu->lib = gpu_dl_open("libcuda.so", first, sizeof first);
    if (!cu->lib) {
        snprintf(why, n, "no CUDA driver: %s", first);
        return false;
    }
    const char *missing = NULL;
    if (!gpu_dl_syms(cu->lib, cuda_syms, NSYMS, cu, want, &missing)) {
        snprintf(why, n, "the CUDA driver lacks %s (too old a driver?)", missing);
        gpu_cuda_unload(cu);
        return false;
    }
    /* graphs: all or none (without them the engine launches kernel by kernel) */
    bool graphs = true;
    for (size_t i = 0; i < NSYMS; i++) {
        void *p;
        memcpy(&p, (char *)cu + cuda_syms[i].offset, sizeof p);
        if (cuda_syms[i].uses == G && !p) graphs = false;
    }
    for (size_t i = 0; i < NSYMS && !graphs; i++)
        if (cuda_syms[i].uses == G) memset((char *)cu + cuda_syms[i].offset, 0, sizeof(void *));
    return true;
}

void gpu_cuda_unload(gpu_cuda *cu) {
    gpu_dl_close(cu->lib);
    memset(cu, 0, sizeof *cu);
}

const char *gpu_cuda_err(const gpu_cuda *cu, CUresult r, char *buf, size_t n) {
    const char *name = NULL, *str = NULL;
    if (cu->cuGetErrorName) cu->cuGetErrorName(r, &name);
    if (cu->cuGetErrorString) cu->cuGetErrorString(r, &str);
    snprintf(buf, n, "%s (%d): %s", name ? name : "CUDA error", r, str ? str : "unknown");
    return buf;
}
