/* gpu_blas.c — find cuBLAS and resolve the entry points the GPU engine uses (gpu_blas.h),
 * through the gpu module's dlopen/dlsym helper (ptxgen/gpu_cuda.h). */
#include "gpu_blas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *open_blas(model_cublas *b) {
    const char *env = getenv("PTXGEN_CUBLAS");
    if (env && *env) {
        void *h = gpu_dl_open(env, b->why, sizeof b->why);
        if (h) snprintf(b->name, sizeof b->name, "%s", env);
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
            void *h = gpu_dl_open(path, b->why, sizeof b->why);   /* keeps the first failure's message */
            if (h) {
                snprintf(b->name, sizeof b->name, "%s", names[i]);
                return h;
            }
        }
    }
    return NULL;
}

#define S(field, name) {name, offsetof(model_cublas, field), 1}
static const gpu_dl_sym blas_syms[] = {
    S(cublasCreate, "cublasCreate_v2"),
    S(cublasDestroy, "cublasDestroy_v2"),
    S(cublasSetStream, "cublasSetStream_v2"),
    S(cublasGemmEx, "cublasGemmEx"),
};
#undef S

bool model_cublas_load(model_cublas *b) {
    memset(b, 0, sizeof *b);
    b->lib = open_blas(b);
    if (!b->lib) return false;
    b->why[0] = '\0';   /* the names tried before the one that loaded */
    const char *missing = NULL;
    if (!gpu_dl_syms(b->lib, blas_syms, sizeof blas_syms / sizeof *blas_syms, b, 1, &missing)) {
        char name[sizeof b->name];
        snprintf(name, sizeof name, "%s", b->name);
        model_cublas_unload(b);
        snprintf(b->why, sizeof b->why, "%s lacks %s", name, missing);
        return false;
    }
    return true;
}

void model_cublas_unload(model_cublas *b) {
    gpu_dl_close(b->lib);
    memset(b, 0, sizeof *b);
}
