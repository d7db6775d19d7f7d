/* test_cuda_load.c — the gpu module's run-time loader (ptxgen/gpu_cuda.h) without a GPU: the
 * dlopen helper keeps the first loader message, the symbol table fills what it finds and fails
 * only for what the caller needs, and libcuda's loader says why it did not load (or, where a
 * driver is installed, fills every entry point the caller asked for).  tests/gpu_engine_fake.sh
 * loads it against the stand-in driver. */
#include "common/test.h"
#include "ptxgen/gpu_cuda.h"

#include <stddef.h>
#include <string.h>

typedef struct {
    double (*cos_)(double);
    void *absent;
} libm_table;

static void test_dl(void) {
    char why[256] = "";
    CHECK(gpu_dl_open("/nonexistent/libpg_none.so", why, sizeof why) == NULL, "a missing library does not load");
    CHECK(strstr(why, "/nonexistent/libpg_none.so") != NULL, "the loader's message names it: %s", why);
    CHECK(gpu_dl_open("libpg_none2.so", why, sizeof why) == NULL && !strstr(why, "libpg_none2"),
          "a later failure keeps the first message: %s", why);
    CHECK(gpu_dl_open("libpg_none3.so", NULL, 0) == NULL, "why may be NULL");

    why[0] = '\0';
    void *m = gpu_dl_open("libm.so.6", why, sizeof why);
    CHECK(m != NULL && why[0] == '\0', "libm loads (%s)", why);
    if (!m) return;
    const gpu_dl_sym syms[] = {{"cos", offsetof(libm_table, cos_), 1}, {"pg_no_such_symbol", offsetof(libm_table, absent), 2}};
    libm_table t;
    memset(&t, 0xff, sizeof t);
    const char *missing = NULL;
    CHECK(gpu_dl_syms(m, syms, 2, &t, 1, &missing) && missing == NULL, "what the caller does not need may be missing");
    CHECK(t.cos_ && t.cos_(0.0) == 1.0, "the symbol's pointer lands at its offset");
    CHECK(t.absent == NULL, "an absent symbol it does not need is NULL");
    CHECK(!gpu_dl_syms(m, syms, 2, &t, 2, &missing) && missing && !strcmp(missing, "pg_no_such_symbol"),
          "an absent symbol it needs fails the load and is named (%s)", missing ? missing : "(none)");
    gpu_dl_close(m);
    gpu_dl_close(NULL);
}

static void test_cuda(void) {
    static const unsigned wants[] = {GPU_CUDA_HARNESS, GPU_CUDA_ENGINE};
    for (int w = 0; w < 2; w++) {
        gpu_cuda cu;
        char why[256];
        if (gpu_cuda_load(&cu, wants[w], why, sizeof why)) {
            CHECK(cu.lib && cu.cuInit && cu.cuLaunchKernel && cu.cuGetErrorString, "the entry points both use");
            if (wants[w] == GPU_CUDA_HARNESS) CHECK(cu.cuCtxCreate && cu.cuEventElapsedTime && cu.cuMemsetD32, "the harness's");
            else CHECK(cu.cuDevicePrimaryCtxRetain && cu.cuStreamCreate && cu.cuMemcpyDtoHAsync, "the engine's");
            CHECK(!cu.cuStreamBeginCapture == !cu.cuGraphDestroy, "graphs: all or none");
            char b[128];
            CHECK(strstr(gpu_cuda_err(&cu, 2, b, sizeof b), "(2)") != NULL, "an error names its number: %s", b);
            gpu_cuda_unload(&cu);
            CHECK(cu.lib == NULL && cu.cuInit == NULL, "unload clears the table");
        } else {
            CHECK(!strncmp(why, "no CUDA driver: ", 16) || strstr(why, "the CUDA driver lacks "), "why it did not load: %s", why);
            CHECK(cu.lib == NULL && cu.cuInit == NULL, "a failed load leaves nothing");
            if (w == 0) printf("test_cuda_load: %s\n", why);
        }
    }
    gpu_cuda none;
    memset(&none, 0, sizeof none);
    char b[128];
    CHECK(!strcmp(gpu_cuda_err(&none, 700, b, sizeof b), "CUDA error (700): unknown"), "no driver names: %s", b);
    gpu_cuda_unload(&none);
}

int main(void) {
    test_dl();
    test_cuda();
    return TEST_DONE();
}
