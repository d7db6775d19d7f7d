/* devinfo.c — device name and measured ceilings (copy bandwidth, FP32/FP16
 * FMA peak), cached per device so every run can flag results beyond the
 * speed-of-light bound without re-measuring; and gpu_available, the probe
 * for a usable device.  Uses isolate.c; run.c uses this file. */
#define _GNU_SOURCE
#include "ptxgen/gpu.h"
#include "ptxgen/gpu_cuda.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Peak-rate kernels: every thread runs 8 independent FMA chains for `iters`
 * iterations; f32 does 2 flops per FMA, f16x2 does 4. */
static const char *peak_ptx =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry fma32(.param .u64 out, .param .u32 iters)\n{\n"
    "  .reg .f32 %a<8>; .reg .b32 %i<3>; .reg .pred %p; .reg .b64 %rd<3>;\n"
    "  ld.param.u32 %i1, [iters]; mov.u32 %i2, %tid.x; cvt.rn.f32.u32 %a0, %i2;\n"
    "  add.f32 %a1, %a0, 0f3F800000; add.f32 %a2, %a0, 0f40000000; add.f32 %a3, %a0, 0f40400000;\n"
    "  add.f32 %a4, %a0, 0f40800000; add.f32 %a5, %a0, 0f40A00000; add.f32 %a6, %a0, 0f40C00000; add.f32 %a7, %a0, 0f40E00000;\n"
    "LOOP:\n"
    "  fma.rn.f32 %a0, %a0, 0f3F7FFFFE, 0f3A83126F; fma.rn.f32 %a1, %a1, 0f3F7FFFFE, 0f3A83126F;\n"
    "  fma.rn.f32 %a2, %a2, 0f3F7FFFFE, 0f3A83126F; fma.rn.f32 %a3, %a3, 0f3F7FFFFE, 0f3A83126F;\n"
    "  fma.rn.f32 %a4, %a4, 0f3F7FFFFE, 0f3A83126F; fma.rn.f32 %a5, %a5, 0f3F7FFFFE, 0f3A83126F;\n"
    "  fma.rn.f32 %a6, %a6, 0f3F7FFFFE, 0f3A83126F; fma.rn.f32 %a7, %a7, 0f3F7FFFFE, 0f3A83126F;\n"
    "  sub.u32 %i1, %i1, 1; setp.ne.u32 %p, %i1, 0; @%p bra LOOP;\n"
    "  add.f32 %a0, %a0, %a1; add.f32 %a2, %a2, %a3; add.f32 %a4, %a4, %a5; add.f32 %a6, %a6, %a7;\n"
    "  add.f32 %a0, %a0, %a2; add.f32 %a4, %a4, %a6; add.f32 %a0, %a0, %a4;\n"
    "  setp.eq.f32 %p, %a0, 0f12345678; @!%p bra DONE;\n"   /* keep the result alive without storing it */
    "  ld.param.u64 %rd1, [out]; st.global.f32 [%rd1], %a0;\n"
    "DONE:\n  ret;\n}\n"
    ".visible .entry fma16(.param .u64 out, .param .u32 iters)\n{\n"
    "  .reg .b32 %h<9>; .reg .b32 %i<3>; .reg .pred %p; .reg .b64 %rd<3>;\n"
    "  ld.param.u32 %i1, [iters]; mov.u32 %i2, %tid.x; mov.b32 %h8, 0x3C003C00;\n"
    "  or.b32 %h0, %i2, 0x38003800; or.b32 %h1, %i2, 0x39003900; or.b32 %h2, %i2, 0x3A003A00; or.b32 %h3, %i2, 0x3B003B00;\n"
    "  or.b32 %h4, %i2, 0x34003400; or.b32 %h5, %i2, 0x35003500; or.b32 %h6, %i2, 0x36003600; or.b32 %h7, %i2, 0x37003700;\n"
    "LOOP:\n"
    "  fma.rn.f16x2 %h0, %h0, %h8, %h8; fma.rn.f16x2 %h1, %h1, %h8, %h8; fma.rn.f16x2 %h2, %h2, %h8, %h8; fma.rn.f16x2 %h3, %h3, %h8, %h8;\n"
    "  fma.rn.f16x2 %h4, %h4, %h8, %h8; fma.rn.f16x2 %h5, %h5, %h8, %h8; fma.rn.f16x2 %h6, %h6, %h8, %h8; fma.rn.f16x2 %h7, %h7, %h8, %h8;\n"
    "  sub.u32 %i1, %i1, 1; setp.ne.u32 %p, %i1, 0; @%p bra LOOP;\n"
    "  xor.b32 %h0, %h0, %h1; xor.b32 %h2, %h2, %h3; xor.b32 %h4, %h4, %h5; xor.b32 %h6, %h6, %h7;\n"
    "  xor.b32 %h0, %h0, %h2; xor.b32 %h4, %h4, %h6; xor.b32 %h0, %h0, %h4;\n"
    "  setp.ne.u32 %p, %h0, 0x12345678; @%p bra DONE;\n"
    "  ld.param.u64 %rd1, [out]; st.global.u32 [%rd1], %h0;\n"
    "DONE:\n  ret;\n}\n";

bool gpu_available(char *why, size_t n) {
    gpu_cuda api;
    if (!gpu_cuda_load(&api, GPU_CUDA_HARNESS, why, n)) return false;
    /* cuInit in a child: a parent that initialises CUDA cannot fork cleanly */
    pid_t pid = fork();
    if (pid == 0) {
        int count = 0;
        if (api.cuInit(0) != 0 || api.cuDeviceGetCount(&count) != 0 || count < 1) _exit(1);
        _exit(0);
    }
    int status = 0;
    bool ok = pid >= 0 && waitpid(pid, &status, 0) >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    gpu_cuda_unload(&api);
    if (!ok) snprintf(why, n, "CUDA driver found but no usable GPU (cuInit/cuDeviceGetCount failed)");
    return ok;
}

static void cache_path(const char *name, char *buf, size_t n) {
    const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
    char dev[128];
    size_t k = 0;
    for (const char *p = name; *p && k + 1 < sizeof dev; p++) dev[k++] = (char)((*p == ' ' || *p == '/') ? '_' : *p);
    dev[k] = 0;
    if (x && *x) snprintf(buf, n, "%s/ptxgen/devinfo-%s.json", x, dev);
    else snprintf(buf, n, "%s/.cache/ptxgen/devinfo-%s.json", h ? h : "/tmp", dev);
}

static void write_json(int fd, json_t *o) {
    char *s = json_dumps(o, JSON_COMPACT);
    size_t n = strlen(s), off = 0;
    while (off < n) {
        ssize_t k = write(fd, s + off, n - off);
        if (k <= 0) break;
        off += (size_t)k;
    }
    free(s);
}

typedef struct { bool measure; } dargs;

static void devinfo_child(void *arg, int fd) {
    dargs *a = arg;
    gpu_cuda api;
    char why[256];
    json_t *o = json_object();
    if (!gpu_cuda_load(&api, GPU_CUDA_HARNESS, why, sizeof why)) { json_object_set_new(o, "error", json_string(why)); write_json(fd, o); _exit(0); }
#define CKD(call) do { CUresult r_ = (call); if (r_) { char eb[256]; json_object_set_new(o, "error", json_string(gpu_cuda_err(&api, r_, eb, sizeof eb))); write_json(fd, o); _exit(0); } } while (0)
    CKD(api.cuInit(0));
    CUdevice dev;
    CKD(api.cuDeviceGet(&dev, 0));
    char name[128];
    CKD(api.cuDeviceGetName(name, sizeof name, dev));
    int maj = 0, min = 0, sms = 0, l2 = 0, clk = 0, mclk = 0, bus = 0;
    size_t mem = 0;
    api.cuDeviceGetAttribute(&maj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    api.cuDeviceGetAttribute(&min, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    api.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    api.cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
    api.cuDeviceGetAttribute(&clk, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev);
    api.cuDeviceGetAttribute(&mclk, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, dev);
    api.cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, dev);
    api.cuDeviceTotalMem(&mem, dev);
    json_object_set_new(o, "name", json_string(name));
    json_object_set_new(o, "sm", json_integer(maj * 10 + min));
    json_object_set_new(o, "sms", json_integer(sms));
    json_object_set_new(o, "l2_bytes", json_integer(l2));
    json_object_set_new(o, "mem_bytes", json_integer((json_int_t)mem));
    json_object_set_new(o, "clock_khz", json_integer(clk));
    json_object_set_new(o, "mem_clock_khz", json_integer(mclk));
    json_object_set_new(o, "bus_width_bits", json_integer(bus));
    if (a->measure) {
        CUcontext ctx;
        CKD(api.cuCtxCreate(&ctx, 0, dev));
        CUevent e0, e1;
        CKD(api.cuEventCreate(&e0, 0));
        CKD(api.cuEventCreate(&e1, 0));
        /* copy bandwidth: 2 GiB buffers (or 1/8 of memory), best of 10 */
        size_t bytes = (size_t)2 << 30;
        if (mem && bytes > mem / 8) bytes = mem / 8;
        CUdeviceptr s, d;
        CKD(api.cuMemAlloc(&s, bytes));
        CKD(api.cuMemAlloc(&d, bytes));
        CKD(api.cuMemsetD8(s, 1, bytes));
        float best = 1e30f;
        for (int i = 0; i < 12; i++) {
            CKD(api.cuEventRecord(e0, NULL));
            CKD(api.cuMemcpyDtoD(d, s, bytes));
            CKD(api.cuEventRecord(e1, NULL));
            CKD(api.cuEventSynchronize(e1));
            float ms;
            CKD(api.cuEventElapsedTime(&ms, e0, e1));
            if (i >= 2 && ms < best) best = ms;
        }
        json_object_set_new(o, "copy_gbps", json_real(2.0 * (double)bytes / (best * 1e-3) / 1e9));
        api.cuMemFree(s);
        api.cuMemFree(d);
        CUmodule mod;
        CKD(api.cuModuleLoadDataEx(&mod, peak_ptx, 0, NULL, NULL));
        CUdeviceptr out;
        CKD(api.cuMemAlloc(&out, 64));
        const char *kn[2] = {"fma32", "fma16"};
        for (int k = 0; k < 2; k++) {
            CUfunction f;
            CKD(api.cuModuleGetFunction(&f, mod, kn[k]));
            unsigned iters = 8192, blocks = (unsigned)sms * 8, threads = 256;
            void *args[2] = {&out, &iters};
            CKD(api.cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, 0, NULL, args, NULL));
            CKD(api.cuCtxSynchronize());
            float bt = 1e30f;
            for (int i = 0; i < 5; i++) {
                CKD(api.cuEventRecord(e0, NULL));
                CKD(api.cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, 0, NULL, args, NULL));
                CKD(api.cuEventRecord(e1, NULL));
                CKD(api.cuEventSynchronize(e1));
                float ms;
                CKD(api.cuEventElapsedTime(&ms, e0, e1));
                if (ms < bt) bt = ms;
            }
            double flops = (double)blocks * threads * iters * 8 * (k == 0 ? 2 : 4);
            json_object_set_new(o, k == 0 ? "fp32_tflops" : "fp16_tflops", json_real(flops / (bt * 1e-3) / 1e12));
        }
        api.cuCtxDestroy(ctx);
    }
    write_json(fd, o);
    _exit(0);
}

static void from_json(json_t *j, gpu_devinfo *d) {
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", json_string_value(json_object_get(j, "name")) ? json_string_value(json_object_get(j, "name")) : "?");
    d->sm = (int)json_integer_value(json_object_get(j, "sm"));
    d->sms = (int)json_integer_value(json_object_get(j, "sms"));
    d->l2_bytes = (size_t)json_integer_value(json_object_get(j, "l2_bytes"));
    d->mem_bytes = (size_t)json_integer_value(json_object_get(j, "mem_bytes"));
    d->clock_khz = (int)json_integer_value(json_object_get(j, "clock_khz"));
    d->mem_clock_khz = (int)json_integer_value(json_object_get(j, "mem_clock_khz"));
    d->bus_width_bits = (int)json_integer_value(json_object_get(j, "bus_width_bits"));
    d->copy_gbps = json_number_value(json_object_get(j, "copy_gbps"));
    d->fp32_tflops = json_number_value(json_object_get(j, "fp32_tflops"));
    d->fp16_tflops = json_number_value(json_object_get(j, "fp16_tflops"));
    const char *at = json_string_value(json_object_get(j, "measured_at"));
    snprintf(d->measured_at, sizeof d->measured_at, "%s", at ? at : "");
}

pg_status gpu_devinfo_get(bool remeasure, gpu_devinfo *out, pg_diag_sink *diag) {
    memset(out, 0, sizeof *out);
    char why[256];
    if (!gpu_available(why, sizeof why)) {
        pg_diag_emit(diag, PG_E_GPU, NULL, 0, 0, "%s", why);
        return PG_ERR_EXTERNAL;
    }
    /* identify the device cheaply, then look for a cached measurement */
    dargs a = {false};
    char *txt = NULL;
    int ec;
    if (gpu_isolate(devinfo_child, &a, 60, &txt, &ec) != 0 || !txt) { free(txt); return PG_ERR_EXTERNAL; }
    json_t *j = json_loads(txt, 0, NULL);
    free(txt);
    if (!j || json_object_get(j, "error")) {
        pg_diag_emit(diag, PG_E_GPU, NULL, 0, 0, "device query failed: %s", j ? json_string_value(json_object_get(j, "error")) : "no answer");
        json_decref(j);
        return PG_ERR_EXTERNAL;
    }
    char path[1024];
    cache_path(json_string_value(json_object_get(j, "name")), path, sizeof path);
    json_decref(j);
    json_t *cached = remeasure ? NULL : json_load_file(path, 0, NULL);
    if (cached && json_number_value(json_object_get(cached, "copy_gbps")) > 0) {
        from_json(cached, out);
        json_decref(cached);
        return PG_OK;
    }
    json_decref(cached);
    a.measure = true;
    if (gpu_isolate(devinfo_child, &a, 120, &txt, &ec) != 0 || !txt) { free(txt); return PG_ERR_EXTERNAL; }
    j = json_loads(txt, 0, NULL);
    free(txt);
    if (!j || json_object_get(j, "error")) {
        pg_diag_emit(diag, PG_E_GPU, NULL, 0, 0, "measurement failed: %s", j ? json_string_value(json_object_get(j, "error")) : "no answer");
        json_decref(j);
        return PG_ERR_EXTERNAL;
    }
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    json_object_set_new(j, "measured_at", json_string(date));
    from_json(j, out);
    /* cache atomically (best effort) */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = 0;
        char *p2 = strrchr(dir, '/');
        if (p2) { *p2 = 0; mkdir(dir, 0755); *p2 = '/'; }
        mkdir(dir, 0755);
    }
    char *s = json_dumps(j, JSON_INDENT(2));
    pg_diag_sink quiet = {0};
    pg_write_file_atomic(path, s, strlen(s), &quiet);
    free(s);
    json_decref(j);
    return PG_OK;
}
