/* test_gpu_ptx.c — the GPU engine without a GPU: its hand-written PTX (gpu_ptx.c) is valid
 * for libptx's validator and for ptxas -arch=sm_90 (no spills, within the register budget a
 * 256-thread block needs; pg_matvec_q8, $PTXGEN_GPU_WEIGHTS=q8's matvec, too), every kernel gpu.c
 * launches is an entry of it, and model_load
 * with device "gpu" on a machine without libcuda fails cleanly (E702 naming libcuda, no
 * model).  On a machine with a GPU tests/gpu/engine_gpu.sh checks the numbers.  Run from the
 * repository root (models/default). */
#include "common/test.h"
#include "model/gpu.h"
#include "ptxgen/gpu_cuda.h"
#include "ptxgen/model.h"
#include "ptxgen/ptx.h"

#include <unistd.h>

static void test_validator(void) {
    pg_diag_sink s = test_sink();
    ptx_module *m = NULL;
    pg_status st = ptx_parse(model_gpu_ptx, strlen(model_gpu_ptx), "gpu_ptx.c", &m, &s);
    CHECK(st == PG_OK, "the kernels parse: %s", test_diag_log());
    if (st == PG_OK) CHECK(ptx_validate(m, &s) == PG_OK && s.nerrors == 0, "the kernels validate: %s", test_diag_log());
    ptx_module_free(m);
    for (int i = 0; i < GPU_NKERN; i++) {
        char want[96];
        snprintf(want, sizeof want, ".visible .entry %s(", model_gpu_kernel_names[i]);
        CHECK(strstr(model_gpu_ptx, want) != NULL, "kernel %s is an entry of the module", model_gpu_kernel_names[i]);
    }
    /* a broken copy is refused: the check above can fail */
    char *bad = test_replace(model_gpu_ptx, "fma.rn.f32 %s0, %wa0, %xa0, %s0;", "fma.rn.f32 %s0, %wa0, %nosuch, %s0;");
    CHECK(bad != NULL, "the matvec's first FMA is where the test expects it");
    if (bad) {
        pg_diag_sink q = test_sink();
        ptx_module *mb = NULL;
        pg_status sb = ptx_parse(bad, strlen(bad), "bad.ptx", &mb, &q);
        if (sb == PG_OK) sb = ptx_validate(mb, &q);
        CHECK(sb != PG_OK || q.nerrors > 0, "an undeclared register is refused");
        ptx_module_free(mb);
        free(bad);
    }
    /* pg_matvec_q8 ($PTXGEN_GPU_WEIGHTS=q8) is checked like the others: a broken block scale is refused */
    bad = test_replace(model_gpu_ptx, "fma.rn.f32 %s0, %d, %ps, %s0;", "fma.rn.f32 %s0, %nosuch, %ps, %s0;");
    CHECK(bad != NULL && strstr(model_gpu_ptx, ".visible .entry pg_matvec_q8("), "pg_matvec_q8's block FMA is where the test expects it");
    if (bad) {
        pg_diag_sink q = test_sink();
        ptx_module *mb = NULL;
        pg_status sb = ptx_parse(bad, strlen(bad), "bad_q8.ptx", &mb, &q);
        if (sb == PG_OK) sb = ptx_validate(mb, &q);
        CHECK(sb != PG_OK || q.nerrors > 0, "pg_matvec_q8 with an undeclared register is refused");
        ptx_module_free(mb);
        free(bad);
    }
}

static void test_ptxas(void) {
    char ptxas[512];
    if (!ptx_ptxas_find(ptxas, sizeof ptxas)) {
        printf("test_gpu_ptx: no ptxas (put /usr/local/cuda/bin on PATH): the ptxas check did not run\n");
        return;
    }
    pg_diag_sink s = test_sink();
    char path[512];
    CHECK(pg_write_tmp("gpu_ptx_XXXXXX", model_gpu_ptx, strlen(model_gpu_ptx), path, sizeof path, &s) == PG_OK, "temp file");
    ptxas_report r;
    memset(&r, 0, sizeof r);
    pg_status st = ptx_ptxas_run(path, "sm_90", false, &r, &s);
    CHECK(st == PG_OK && r.ok, "ptxas -arch=sm_90 takes the kernels: %s %s", test_diag_log(), r.log ? r.log : "");
    CHECK(r.nfuncs == GPU_NKERN, "ptxas reports %d kernels (want %d)", r.nfuncs, GPU_NKERN);
    for (int i = 0; i < r.nfuncs; i++) {
        const ptxas_func_report *f = &r.funcs[i];
        CHECK(f->spill_stores == 0 && f->spill_loads == 0 && f->stack_frame == 0, "%s: no spills, no stack", f->func);
        CHECK(f->registers > 0 && f->registers <= 64, "%s: %d registers (a 256-thread block wants <= 64 for full occupancy "
              "of the matvec and the norms)", f->func, f->registers);
    }
    ptx_ptxas_report_free(&r);
    unlink(path);
}

/* Without libcuda, --device gpu is a clean error: E702 naming the driver, no model. */
static void test_no_driver(void) {
    gpu_cuda cu;
    char why[256];
    if (gpu_cuda_load(&cu, GPU_CUDA_ENGINE, why, sizeof why)) {
        gpu_cuda_unload(&cu);
        printf("test_gpu_ptx: libcuda is present: the no-driver error path is not this machine's (engine_gpu.sh runs the engine)\n");
        return;
    }
    pg_diag_sink s = test_sink();
    model_model *m = (model_model *)1;
    model_load_opts o = {NULL, 1, NULL, false, false, "gpu", false};
    pg_status st = model_load("models/default", &o, &m, &s);
    CHECK(st == PG_ERR_EXTERNAL, "no driver: PG_ERR_EXTERNAL (got %d)", (int)st);
    CHECK(m == NULL, "no model is returned");
    CHECK(strstr(test_diag_log(), "E702") && strstr(test_diag_log(), "libcuda") && strstr(test_diag_log(), "--device cpu"),
          "the diagnostic names the driver and the way out: %s", test_diag_log());
    /* a device the engine does not know */
    s = test_sink();
    o.device = "tpu";
    m = (model_model *)1;
    st = model_load("models/default", &o, &m, &s);
    CHECK(st == PG_ERR_USAGE && m == NULL && strstr(test_diag_log(), "unknown device 'tpu'"), "unknown device: %s", test_diag_log());
    /* "cpu" is the CPU engine */
    s = test_sink();
    o.device = "cpu";
    st = model_load("models/default", &o, &m, &s);
    CHECK(st == PG_OK && m && !strcmp(model_device(m), "cpu"), "device cpu loads: %s", test_diag_log());
    if (st == PG_OK) model_free(m);
}

int main(void) {
    test_validator();
    test_ptxas();
    test_no_driver();
    return TEST_DONE();
}
