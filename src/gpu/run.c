/* run.c — the GPU harness: isolation, correctness, timing, baseline.
 *
 * Every kernel (candidate or baseline) runs in a child process (see
 * gpu_isolate, isolate.c) that creates its own CUDA context, checks the kernel on every
 * (size, distribution, seed) against the reference, times it on the timing
 * size and writes one JSON object back through a pipe.  The parent never
 * touches CUDA, so a fault or a hang cannot take it down. */
#define _GNU_SOURCE
#include "ptxgen/gpu.h"
#include "ptxgen/ptx.h"
#include "ptxgen/gpu_cuda.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmpf(const void *x, const void *y);   /* qsort comparator */

const char *gpu_status_name(gpu_status s) {
    static const char *n[] = {"ok", "wrong", "fault", "timeout", "load-error", "no-gpu", "setup-error"};
    return (unsigned)s <= GPU_SETUP_ERROR ? n[s] : "?";
}

void gpu_run_opts_default(gpu_run_opts *o) {
    memset(o, 0, sizeof *o);
    o->seeds = 5;
    o->timeout_s = 60;
    o->baseline = true;
    o->timing = true;
    o->min_trials = 100;
    o->min_ms = 50;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- the child side ------------------------------------------------------------------ */
typedef struct {
    const task_spec *t;
    const char *ptx;            /* candidate PTX text */
    const char *oracle_ptx;     /* for "cu" references: nvcc PTX of reference.cu, else NULL */
    gpu_run_opts o;
} job;

typedef struct {
    gpu_cuda api;
    CUcontext ctx;
    CUmodule mod, omod;
    CUfunction fn, ofn;
    json_t *res;
    char err[512];
    const char *phase;          /* differential test: "baseline run", "candidate timing" ... (NULL otherwise) */
} child;

#define GUARD 4096u
#define GUARD_BYTE 0xCD

static void emit(child *c, int fd) {
    char *s = json_dumps(c->res, JSON_COMPACT);
    size_t n = strlen(s), off = 0;
    while (off < n) {
        ssize_t k = write(fd, s + off, n - off);
        if (k <= 0) break;
        off += (size_t)k;
    }
    free(s);
}

static void fail(child *c, int fd, const char *status, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void fail(child *c, int fd, const char *status, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    json_object_set_new(c->res, "status", json_string(status));
    json_object_set_new(c->res, "detail", json_string(msg));
    emit(c, fd);
    _exit(0);
}

/* In the differential test a fault belongs to the kernel of the current phase. */
static const char *phase_fault(const child *c) {
    return strncmp(c->phase, "baseline", 8) ? "candidate-fault" : "baseline-fault";
}

/* Any CUDA error inside the child is a fault of this kernel run (illegal
 * address, misaligned access, launch failure...): report it and exit. */
#define CK(call, what) do { CUresult r_ = (call); if (r_ != 0) { char eb_[256]; \
        if (c->phase) fail(c, fd, phase_fault(c), "%s: %s", c->phase, gpu_cuda_err(&c->api, r_, eb_, sizeof eb_)); \
        fail(c, fd, "fault", "%s: %s", what, gpu_cuda_err(&c->api, r_, eb_, sizeof eb_)); } } while (0)

static bool load_module(child *c, const char *ptx, const char *name, CUmodule *mod, CUfunction *fn, char *log, size_t logn) {
    static char info[65536], errl[65536];
    info[0] = errl[0] = 0;
    int opts[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
    void *vals[] = {info, (void *)(uintptr_t)sizeof info, errl, (void *)(uintptr_t)sizeof errl, (void *)(uintptr_t)1};
    CUresult r = c->api.cuModuleLoadDataEx(mod, ptx, 5, opts, vals);
    snprintf(log, logn, "%s%s%s", info, errl[0] ? "\n" : "", errl);
    if (r != 0) {
        char eb[256];
        snprintf(c->err, sizeof c->err, "cuModuleLoadDataEx: %s", gpu_cuda_err(&c->api, r, eb, sizeof eb));
        return false;
    }
    r = c->api.cuModuleGetFunction(fn, *mod, name);
    if (r != 0) {
        char eb[256];
        snprintf(c->err, sizeof c->err, "no entry '%s' in the module: %s", name, gpu_cuda_err(&c->api, r, eb, sizeof eb));
        return false;
    }
    return true;
}

/* Device copies of one instance: guard-padded buffers. */
typedef struct { CUdeviceptr base[64], ptr[64]; size_t bytes[64]; } dbufs;

static void upload(child *c, int fd, const task_inst *in, dbufs *d) {
    const task_spec *t = in->spec;
    static unsigned char guard[GUARD];
    memset(guard, GUARD_BYTE, sizeof guard);
    for (int i = 0; i < t->nparams && i < 64; i++) {
        if (!t->params[i].is_pointer) continue;
        size_t bytes = in->args[i].bytes;
        if (!d->base[i] || d->bytes[i] != bytes) {
            if (d->base[i]) c->api.cuMemFree(d->base[i]);
            CK(c->api.cuMemAlloc(&d->base[i], bytes + 2 * GUARD), "cuMemAlloc");
            d->bytes[i] = bytes;
            d->ptr[i] = d->base[i] + GUARD;
        }
        CK(c->api.cuMemcpyHtoD(d->base[i], guard, GUARD), "cuMemcpyHtoD(guard)");
        CK(c->api.cuMemcpyHtoD(d->ptr[i] + bytes, guard, GUARD), "cuMemcpyHtoD(guard)");
        if (bytes) CK(c->api.cuMemcpyHtoD(d->ptr[i], in->args[i].data, bytes), "cuMemcpyHtoD");
    }
}

/* Kernel argument blobs in the parameter types of the spec. */
typedef struct { unsigned char v[64][8]; void *p[64]; } kargs;
static void make_args(const task_inst *in, const dbufs *d, kargs *a) {
    const task_spec *t = in->spec;
    for (int i = 0; i < t->nparams && i < 64; i++) {
        const task_param *p = &t->params[i];
        memset(a->v[i], 0, 8);
        if (p->is_pointer) memcpy(a->v[i], &d->ptr[i], 8);
        else {
            switch (p->dtype) {
            case TASK_T_F32: { float f = (float)in->args[i].scalar.f; memcpy(a->v[i], &f, 4); break; }
            case TASK_T_F64: memcpy(a->v[i], &in->args[i].scalar.f, 8); break;
            case TASK_T_F16: { uint16_t h = task_f32_to_f16((float)in->args[i].scalar.f); memcpy(a->v[i], &h, 2); break; }
            case TASK_T_BF16: { uint16_t h = task_f32_to_bf16((float)in->args[i].scalar.f); memcpy(a->v[i], &h, 2); break; }
            default: { int64_t v = in->args[i].scalar.i; memcpy(a->v[i], &v, (size_t)task_dtype_size(p->dtype)); break; }
            }
        }
        a->p[i] = a->v[i];
    }
}

static void launch(child *c, int fd, CUfunction fn, const task_inst *in, kargs *a) {
    if (in->smem > 48 * 1024) CK(c->api.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)in->smem), "cuFuncSetAttribute");
    if (!in->grid[0] || !in->grid[1] || !in->grid[2]) return;   /* empty problem: nothing to launch */
    CK(c->api.cuLaunchKernel(fn, in->grid[0], in->grid[1], in->grid[2], in->block[0], in->block[1], in->block[2],
                             (unsigned)in->smem, NULL, a->p, NULL), "cuLaunchKernel");
}

/* Download every buffer back into `out` (a clone of the instance) and check guards. */
static bool download(child *c, int fd, const dbufs *d, task_inst *out, char *why, size_t whyn) {
    const task_spec *t = out->spec;
    static unsigned char g[GUARD];
    for (int i = 0; i < t->nparams && i < 64; i++) {
        if (!t->params[i].is_pointer) continue;
        if (out->args[i].bytes) CK(c->api.cuMemcpyDtoH(out->args[i].data, d->ptr[i], out->args[i].bytes), "cuMemcpyDtoH");
        for (int side = 0; side < 2; side++) {
            CK(c->api.cuMemcpyDtoH(g, side ? d->ptr[i] + d->bytes[i] : d->base[i], GUARD), "cuMemcpyDtoH(guard)");
            for (unsigned k = 0; k < GUARD; k++)
                if (g[k] != GUARD_BYTE) {
                    snprintf(why, whyn, "out-of-bounds write %s buffer '%s' (byte %u of the guard zone)",
                             side ? "past the end of" : "before the start of", t->params[i].name, side ? k : GUARD - k);
                    return false;
                }
        }
    }
    return true;
}

/* One input set: build it (and run the C reference) on a worker thread; input
 * generation of a 100M-element problem is as costly as the reference. */
typedef struct {
    const task_spec *t; int size, dist; uint64_t seed; bool with_ref; task_inst *in; task_inst ref; pg_status st;
    char why[600];   /* the first diagnostic of a failed build or reference, for the setup-error */
} ref_job;
static void keep_first(void *user, const pg_diag *d) {
    char *why = user;
    if (!why[0] && d->sev == PG_SEV_ERROR) pg_diag_format(d, why, 600);
}
static void *ref_thread(void *arg) {
    ref_job *j = arg;
    pg_diag_sink q = {keep_first, j->why, 0, 0, 0};
    j->st = task_inst_make(j->t, j->size, j->dist, j->seed, j->in, &q);
    if (j->st == PG_OK && j->with_ref) j->st = task_reference_run(j->in, &j->ref, &q);
    return NULL;
}

static void describe(const task_inst *in, char *buf, size_t n) {
    size_t off = 0;
    for (int i = 0; i < in->env.n && off < n; i++)
        off += (size_t)snprintf(buf + off, n - off, "%s%s=%lld", i ? "," : "", in->env.name[i], (long long)in->env.val[i]);
}

static void child_main(void *arg, int fd) {
    job *j = arg;
    const task_spec *t = j->t;
    child cc, *c = &cc;
    memset(c, 0, sizeof *c);
    c->res = json_object();
    double t_start = now_s();
    char why[512];
    if (!gpu_cuda_load(&c->api, GPU_CUDA_HARNESS, why, sizeof why)) fail(c, fd, "no-gpu", "%s", why);
    CK(c->api.cuInit(0), "cuInit");
    CUdevice dev;
    CK(c->api.cuDeviceGet(&dev, 0), "cuDeviceGet");
    CK(c->api.cuCtxCreate(&c->ctx, 0, dev), "cuCtxCreate");
    static char log[131072];
    if (!load_module(c, j->ptx, t->kernel, &c->mod, &c->fn, log, sizeof log)) {
        json_object_set_new(c->res, "jit_log", json_string(log));
        fail(c, fd, "load-error", "%s", c->err);
    }
    json_object_set_new(c->res, "jit_log", json_string(log));
    int regs = 0, smem = 0, local = 0;
    c->api.cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, c->fn);
    c->api.cuFuncGetAttribute(&smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, c->fn);
    c->api.cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, c->fn);
    json_object_set_new(c->res, "regs", json_integer(regs));
    json_object_set_new(c->res, "smem_static", json_integer(smem));
    json_object_set_new(c->res, "local_bytes", json_integer(local));
    bool use_oracle = j->oracle_ptx != NULL;
    if (use_oracle && !load_module(c, j->oracle_ptx, t->kernel, &c->omod, &c->ofn, log, sizeof log))
        fail(c, fd, "setup-error", "the reference.cu oracle does not load: %s", c->err);
    /* ---- correctness ---- */
    double t_sets = now_s();
    json_object_set_new(c->res, "setup_s", json_real(t_sets - t_start));
    int checks = 0, passed = 0;
    double worst = 0;
    char first_fail[1024] = "";
    dbufs d;
    memset(&d, 0, sizeof d);
    int nd = t->ndists, ns = j->o.seeds > 0 ? j->o.seeds : 5;
    int nsets = t->nsizes * nd * ns;
    /* Smallest problems first: a wrong kernel is caught on a cheap input set,
     * before the 100M-element ones are even built. */
    int nord = t->nsizes, *order = calloc((size_t)nord + 1, sizeof *order);
    double *cost = calloc((size_t)nord + 1, sizeof *cost);
    if (!order || !cost) fail(c, fd, "setup-error", "out of memory");
    for (int s = 0; s < nord; s++) {
        order[s] = s;
        cost[s] = 1;
        for (int v = 0; v < t->sizes[s].env.n; v++)
            cost[s] *= t->sizes[s].env.val[v] > 1 ? (double)t->sizes[s].env.val[v] : 1.0;
    }
    for (int a = 1; a < nord; a++)      /* insertion sort: stable, a handful of sizes */
        for (int b = a; b > 0 && cost[order[b]] < cost[order[b - 1]]; b--) {
            int tmp = order[b]; order[b] = order[b - 1]; order[b - 1] = tmp;
        }
    bool stop = false;
    for (int oi = 0; oi < nord && !stop; oi++) {
        int s = order[oi];
        int ninst = nd * ns;
        task_inst *ins = calloc((size_t)ninst, sizeof(task_inst));
        ref_job *rj = calloc((size_t)ninst, sizeof(ref_job));
        for (int k = 0; k < ninst; k++) {
            rj[k] = (ref_job){t, s, k / ns, (uint64_t)(k % ns) + 1, !use_oracle, &ins[k], {0}, PG_OK, ""};
        }
        {   /* inputs and C references, in parallel */
            long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
            if (ncpu < 1) ncpu = 1;
            if (ncpu > 32) ncpu = 32;
            for (int k0 = 0; k0 < ninst; k0 += (int)ncpu) {
                pthread_t th[32];
                int nth = 0;
                for (int k = k0; k < ninst && k < k0 + ncpu; k++)
                    if (pthread_create(&th[nth], NULL, ref_thread, &rj[k]) == 0) nth++;
                    else ref_thread(&rj[k]);
                for (int k = 0; k < nth; k++) pthread_join(th[k], NULL);
            }
            for (int k = 0; k < ninst; k++)
                if (rj[k].st != PG_OK)
                    fail(c, fd, "setup-error", "size %d: %s%s%s", s, ins[k].args ? "the C reference failed" : "cannot build the inputs",
                         rj[k].why[0] ? ": " : "", rj[k].why);
        }
        for (int k = 0; k < ninst; k++) {
            task_inst *in = &ins[k];
            kargs a;
            if (use_oracle) {
                if (task_inst_clone(in, &rj[k].ref) != PG_OK) fail(c, fd, "setup-error", "out of memory");
                upload(c, fd, in, &d);
                make_args(in, &d, &a);
                launch(c, fd, c->ofn, in, &a);
                CK(c->api.cuCtxSynchronize(), "reference.cu oracle");
                if (!download(c, fd, &d, &rj[k].ref, why, sizeof why)) fail(c, fd, "setup-error", "reference.cu oracle: %s", why);
                if (t->ref.must_write && !gpu_hygiene_oracle_wrote(t, in, &rj[k].ref)) {
                    char sz[160];
                    describe(in, sz, sizeof sz);
                    fail(c, fd, "setup-error", "reference.cu oracle: writes none of its outputs on size %s (nothing to compare with)", sz);
                }
            }
            task_inst got;
            if (task_inst_clone(in, &got) != PG_OK) fail(c, fd, "setup-error", "out of memory");
            upload(c, fd, in, &d);
            make_args(in, &d, &a);
            launch(c, fd, c->fn, in, &a);
            CK(c->api.cuCtxSynchronize(), "kernel execution");
            checks++;
            char sizes[160];
            describe(in, sizes, sizeof sizes);
            bool ok = download(c, fd, &d, &got, why, sizeof why);
            int badp = -1;
            if (ok && !task_inputs_unchanged(t, in, &got, &badp)) {
                ok = false;
                snprintf(why, sizeof why, "input buffer '%s' was modified", t->params[badp].name);
            }
            bool mem_ok = ok;   /* guards and inputs intact: only then is the output worth judging further */
            for (int p = 0; ok && p < t->nparams; p++) {
                if (!t->params[p].is_pointer || t->params[p].role == TASK_ROLE_IN) continue;
                task_cmp cmp = task_compare(t, p, &got.args[p], &rj[k].ref.args[p]);
                if (cmp.rel_l2 > worst && isfinite(cmp.rel_l2)) worst = cmp.rel_l2;
                if (!cmp.ok) {
                    ok = false;
                    snprintf(why, sizeof why, "output '%s': rel L2 %.3g (tol %.1g), max abs %.3g, %zu NaN%s, first bad element %zu",
                             cmp.param, cmp.rel_l2, cmp.tol, cmp.max_abs, cmp.nan_count, cmp.nan_count == 1 ? "" : "s",
                             cmp.first_bad == SIZE_MAX ? 0 : cmp.first_bad);
                }
            }
            if (mem_ok) {   /* reward hygiene: a pass must be real work; a failure that never ran says so */
                char hw[400];
                gpu_hyg h = gpu_hygiene_outputs(t, in, &got, &rj[k].ref, hw, sizeof hw);
                if (h == GPU_HYG_NOT_RUN || (ok && h != GPU_HYG_NONE)) {
                    ok = false;
                    snprintf(why, sizeof why, "%s", hw);
                    if (!first_fail[0]) json_object_set_new(c->res, "hygiene", json_string(gpu_hyg_name(h)));
                }
            }
            if (ok) passed++;
            else if (!first_fail[0])
                snprintf(first_fail, sizeof first_fail, "size %s, distribution %s, seed %llu: %s", sizes,
                         t->dists[in->dist_index], (unsigned long long)in->seed, why);
            task_inst_free(&got);
            if (!ok && !j->o.all_sets) {
                stop = true;
                break;
            }
        }
        for (int k = 0; k < ninst; k++) {
            task_inst_free(&ins[k]);
            if (rj[k].ref.args) task_inst_free(&rj[k].ref);
        }
        free(ins);
        free(rj);
    }
    json_object_set_new(c->res, "checks", json_integer(checks));
    json_object_set_new(c->res, "checks_passed", json_integer(passed));
    json_object_set_new(c->res, "checks_total", json_integer(nsets));
    free(order);
    free(cost);
    json_object_set_new(c->res, "worst_rel_l2", json_real(worst));
    json_object_set_new(c->res, "sets_s", json_real(now_s() - t_sets));
    if (stop)
        fail(c, fd, "wrong", "input set %d of %d wrong (checking stops at the first wrong set; --all-sets runs them all): %s",
             checks, nsets, first_fail);
    if (passed != checks) fail(c, fd, "wrong", "%d of %d input sets wrong; first: %s", checks - passed, checks, first_fail);
    /* ---- timing ---- */
    if (j->o.timing) {
        double t_timing = now_s();
        int ts = 0;
        for (int s = 0; s < t->nsizes; s++)
            if (t->sizes[s].time_it) ts = s;
        task_inst in;
        if (task_inst_make(t, ts, 0, 1, &in, NULL) != PG_OK) fail(c, fd, "setup-error", "cannot build the timing inputs");
        upload(c, fd, &in, &d);
        kargs a;
        make_args(&in, &d, &a);
        int l2 = 0;
        c->api.cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
        size_t flush_bytes = (size_t)(l2 > 0 ? l2 : 50 << 20) * 2;
        CUdeviceptr flush;
        CK(c->api.cuMemAlloc(&flush, flush_bytes), "cuMemAlloc(L2 flush)");
        CUevent e0, e1;
        CK(c->api.cuEventCreate(&e0, 0), "cuEventCreate");
        CK(c->api.cuEventCreate(&e1, 0), "cuEventCreate");
        for (int w = 0; w < 3; w++) launch(c, fd, c->fn, &in, &a);
        CK(c->api.cuCtxSynchronize(), "warm-up");
        int cap = 20000, n = 0;
        float *ms = malloc(sizeof(float) * (size_t)cap);
        double total = 0, t0 = now_s();
        int min_trials = j->o.min_trials > 0 ? j->o.min_trials : 100;
        double min_ms = j->o.min_ms > 0 ? j->o.min_ms : 50;
        while (n < cap && (n < min_trials || total < min_ms) && now_s() - t0 < 20.0) {
            CK(c->api.cuMemsetD32(flush, (unsigned)n, flush_bytes / 4), "L2 flush");
            CK(c->api.cuEventRecord(e0, NULL), "cuEventRecord");
            launch(c, fd, c->fn, &in, &a);
            CK(c->api.cuEventRecord(e1, NULL), "cuEventRecord");
            CK(c->api.cuEventSynchronize(e1), "timed launch");
            float v = 0;
            CK(c->api.cuEventElapsedTime(&v, e0, e1), "cuEventElapsedTime");
            ms[n++] = v;
            total += v;
        }
        qsort(ms, (size_t)n, sizeof(float), cmpf);
        json_object_set_new(c->res, "trials", json_integer(n));
        json_object_set_new(c->res, "ms_median", json_real(n ? (n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2])) : 0));
        json_object_set_new(c->res, "ms_min", json_real(n ? ms[0] : 0));
        json_object_set_new(c->res, "ms_max", json_real(n ? ms[n - 1] : 0));
        free(ms);
        task_inst_free(&in);
        json_object_set_new(c->res, "timing_s", json_real(now_s() - t_timing));
    }
    json_object_set_new(c->res, "status", json_string("ok"));
    emit(c, fd);
    _exit(0);
}

static int cmpf(const void *x, const void *y) {
    float a = *(const float *)x, b = *(const float *)y;
    return a < b ? -1 : a > b;
}

/* ---- the parent side ------------------------------------------------------------------ */
static char *read_text(const char *path) {
    char *s;
    size_t n;
    pg_diag_sink quiet = {0};
    return pg_read_file(path, 64u << 20, &s, &n, &quiet) == PG_OK ? s : NULL;
}

static void parse_child(const char *out, int rc, int exit_code, double timeout, gpu_kernel_result *k) {
    memset(k, 0, sizeof *k);
    if (rc == 1) {
        k->status = GPU_TIMEOUT;
        snprintf(k->detail, sizeof k->detail, "killed by the watchdog after %.0f s (a hang or an endless loop)", timeout);
        return;
    }
    json_error_t e;
    json_t *j = out && *out ? json_loads(out, 0, &e) : NULL;
    if (!j) {
        k->status = GPU_FAULT;
        snprintf(k->detail, sizeof k->detail, "the kernel process died (exit %d) without a result", exit_code);
        return;
    }
    const char *st = json_string_value(json_object_get(j, "status"));
    static const char *names[] = {"ok", "wrong", "fault", "timeout", "load-error", "no-gpu", "setup-error"};
    k->status = GPU_FAULT;
    for (int i = 0; st && i < 7; i++)
        if (!strcmp(st, names[i])) k->status = (gpu_status)i;
    const char *d = json_string_value(json_object_get(j, "detail"));
    if (d) snprintf(k->detail, sizeof k->detail, "%s", d);
    k->checks = (int)json_integer_value(json_object_get(j, "checks"));
    k->checks_passed = (int)json_integer_value(json_object_get(j, "checks_passed"));
    k->checks_total = (int)json_integer_value(json_object_get(j, "checks_total"));
    k->worst_rel_l2 = json_number_value(json_object_get(j, "worst_rel_l2"));
    k->ms_median = json_number_value(json_object_get(j, "ms_median"));
    k->ms_min = json_number_value(json_object_get(j, "ms_min"));
    k->ms_max = json_number_value(json_object_get(j, "ms_max"));
    k->trials = (int)json_integer_value(json_object_get(j, "trials"));
    k->setup_s = json_number_value(json_object_get(j, "setup_s"));
    k->sets_s = json_number_value(json_object_get(j, "sets_s"));
    k->timing_s = json_number_value(json_object_get(j, "timing_s"));
    const char *hy = json_string_value(json_object_get(j, "hygiene"));
    for (int h = 1; hy && h < GPU_HYG__COUNT; h++)
        if (!strcmp(hy, gpu_hyg_name((gpu_hyg)h))) k->hygiene = h;
    k->regs = (int)json_integer_value(json_object_get(j, "regs"));
    k->smem_static = (int)json_integer_value(json_object_get(j, "smem_static"));
    k->spill_bytes = (int)json_integer_value(json_object_get(j, "local_bytes"));
    const char *log = json_string_value(json_object_get(j, "jit_log"));
    if (log) k->jit_log = strdup(log);
    json_decref(j);
}

/* PTXGEN_NVCC_CACHE=DIR keeps nvcc's PTX of each reference under DIR, named by a hash of
 * what decides it (the nvcc path, the flags, the arch and the source text), so the many
 * `eval` processes of one verification (a report and a shard each, every sample of a
 * task) compile a task's reference once.  A source that includes a local header ("...")
 * is never cached: the header is not in the key.  Unset: no cache (the default). */

/* The key of a compile: a hash of the nvcc path, the flags, the arch and the source text; false for a
 * source that cannot be read or includes a local header (not in the key). */
static bool nvcc_key(const char *nvcc, const char *arch, const char *cu, uint64_t *key) {
    char *src = read_text(cu);
    if (!src) return false;
    bool local_include = strstr(src, "#include \"") != NULL;
    uint64_t h = PG_HASH64_INIT_SHORT;   /* the cache's file names: never change the seed */
    const char *parts[] = {nvcc, "\n-ptx -O3\n", arch, "\n"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) h = pg_hash64_add(h, parts[i], strlen(parts[i]));
    h = pg_hash64_add(h, src, strlen(src));
    free(src);
    *key = h;
    return !local_include;
}

/* Without PTXGEN_NVCC_CACHE, the last few compiles stay in memory for the life of the process:
 * gen's best-of-k verifies every candidate of one task, and each compiled the reference again
 * (H100, 2026-12-06: 9 attempts of `gen --verify gpu --samples 16` in 128 s, one nvcc each).
 * The texts are kept until exit (reachable, not leaked). */
#define NVCC_MEMO 4
static struct { uint64_t key; char *ptx; } nvcc_memo[NVCC_MEMO];
static unsigned nvcc_memo_next;
static pthread_mutex_t nvcc_memo_mu = PTHREAD_MUTEX_INITIALIZER;

static char *nvcc_memo_get(uint64_t key) {
    char *ptx = NULL;
    pthread_mutex_lock(&nvcc_memo_mu);
    for (int i = 0; i < NVCC_MEMO && !ptx; i++)
        if (nvcc_memo[i].ptx && nvcc_memo[i].key == key) ptx = strdup(nvcc_memo[i].ptx);
    pthread_mutex_unlock(&nvcc_memo_mu);
    return ptx;
}

static void nvcc_memo_put(uint64_t key, const char *ptx) {
    char *copy = strdup(ptx);
    if (!copy) return;   /* only a later compile lost */
    pthread_mutex_lock(&nvcc_memo_mu);
    unsigned i = nvcc_memo_next++ % NVCC_MEMO;
    free(nvcc_memo[i].ptx);
    nvcc_memo[i].key = key;
    nvcc_memo[i].ptx = copy;
    pthread_mutex_unlock(&nvcc_memo_mu);
}

pg_status gpu_nvcc_ptx(const task_spec *t, const char *arch, char **ptx_out, pg_diag_sink *diag) {
    *ptx_out = NULL;
    char cu[1024], out[600];
    pg_tmp_path(out, sizeof out, "ptxgen-nvcc-XXXXXX");
    snprintf(cu, sizeof cu, "%s/%s", t->dir, t->ref.file ? t->ref.file : "reference.cu");
    if (access(cu, R_OK) != 0) {
        pg_diag_emit(diag, PG_E_TASK, t->path, 0, 0, "no %s to build the nvcc baseline from", cu);
        return PG_ERR_IO;
    }
    char nvcc[1024];
    if (!ptx_cuda_tool_find("nvcc", "NVCC", nvcc, sizeof nvcc)) snprintf(nvcc, sizeof nvcc, "nvcc");
    /* one key for both stores: the disk cache when PTXGEN_NVCC_CACHE names one, else the memo */
    const char *dir = getenv("PTXGEN_NVCC_CACHE");
    uint64_t key = 0;
    bool keyed = nvcc_key(nvcc, arch, cu, &key);
    char cached[1200];
    bool use_cache = keyed && dir && *dir &&
                     snprintf(cached, sizeof cached, "%s/%016llx.ptx", dir, (unsigned long long)key) < (int)sizeof cached;
    bool use_memo = keyed && !(dir && *dir);
    if (use_cache && (*ptx_out = read_text(cached)) != NULL) return PG_OK;
    if (use_memo && (*ptx_out = nvcc_memo_get(key)) != NULL) return PG_OK;
    int fd = mkstemp(out);
    if (fd < 0) return PG_ERR_IO;
    close(fd);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s -ptx -O3 -arch=%s -o '%s' '%s' 2>&1", nvcc, arch, out, cu);
    FILE *p = popen(cmd, "r");
    if (!p) { unlink(out); return PG_ERR_EXTERNAL; }
    pg_buf log = {0};
    char line[512];
    while (fgets(line, sizeof line, p)) pg_buf_puts(&log, line);
    int rc = pclose(p);
    if (rc != 0) {
        pg_diag_emit(diag, PG_E_GPU, cu, 0, 0, "nvcc failed (%d): %s", rc, log.data ? log.data : "");
        pg_buf_free(&log);
        unlink(out);
        return PG_ERR_EXTERNAL;
    }
    pg_buf_free(&log);
    *ptx_out = read_text(out);
    unlink(out);
    if (!*ptx_out) return PG_ERR_IO;
    if (use_memo) nvcc_memo_put(key, *ptx_out);
    /* a failed cache write only costs the next process a compile: say so, go on */
    if (use_cache && pg_write_file(cached, *ptx_out, strlen(*ptx_out), 0, NULL) != PG_OK)
        pg_diag_emit(diag, PG_W_IGNORED, cached, 0, 0, "cannot write this PTXGEN_NVCC_CACHE entry (%s): the reference was compiled, not cached",
                     strerror(errno));
    return PG_OK;
}

static void finish_metrics(const task_spec *t, gpu_kernel_result *k, const gpu_devinfo *dev, bool have_dev) {
    if (k->status != GPU_OK || k->ms_median <= 0) return;
    int ts = 0;
    for (int s = 0; s < t->nsizes; s++)
        if (t->sizes[s].time_it) ts = s;
    task_inst in;
    if (task_inst_make(t, ts, 0, 1, &in, NULL) != PG_OK) return;
    double sec = k->ms_median * 1e-3;
    k->gbps = in.bytes / sec / 1e9;
    k->tflops = in.flops / sec / 1e12;
    if (have_dev && dev->copy_gbps > 0) {
        double bound = gpu_sol_seconds(in.bytes, in.flops, dev);
        k->pct_of_ceiling = bound > 0 ? 100.0 * bound / sec : 0;
        k->faster_than_light = gpu_beyond_sol(sec, bound);
        if (k->faster_than_light && !k->hygiene) k->hygiene = GPU_HYG_FASTER_THAN_LIGHT;
    }
    task_inst_free(&in);
}

static void run_one(const task_spec *t, const char *ptx, const char *oracle, const gpu_run_opts *o, gpu_kernel_result *k) {
    job j = {t, ptx, oracle, *o};
    char *out = NULL;
    int exit_code = 0;
    int rc = gpu_isolate(child_main, &j, o->timeout_s, &out, &exit_code);
    parse_child(out, rc, exit_code, o->timeout_s, k);
    free(out);
}

static void sanitize(const task_spec *t, const char *ptx_path, gpu_kernel_result *k) {
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = 0;
    pg_buf all = {0};
    const char *tools[] = {"memcheck", "racecheck"};
    for (int i = 0; i < 2; i++) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "compute-sanitizer --tool %s --target-processes all --error-exitcode 99 '%s' run --seeds 1 "
                 "--no-baseline --no-timing '%s' '%s' 2>&1 | tail -n 20", tools[i], exe, t->path, ptx_path);
        FILE *p = popen(cmd, "r");
        if (!p) continue;
        pg_buf_printf(&all, "== compute-sanitizer %s\n", tools[i]);
        char line[512];
        while (fgets(line, sizeof line, p)) pg_buf_puts(&all, line);
        pclose(p);
    }
    k->sanitizer_log = all.data;
}

/* ---- answers shared by one process's calls (gpu_memo) ---------------------------------- */
struct gpu_memo {
    bool probed, available;
    char why[256];
    bool dev_asked, have_dev;
    gpu_devinfo dev;
    /* nvcc's baseline for one task: its PTX, the options it ran with, its result (status ok) */
    char *task_path, *base_ptx;
    gpu_run_opts base_opts;
    gpu_kernel_result baseline;
};

gpu_memo *gpu_memo_new(void) { return calloc(1, sizeof(gpu_memo)); }

void gpu_memo_free(gpu_memo *m) {
    if (!m) return;
    free(m->task_path);
    free(m->base_ptx);
    free(m->baseline.jit_log);
    free(m);
}

bool gpu_memo_available(gpu_memo *m, char *why, size_t n) {
    if (!m) return gpu_available(why, n);
    if (!m->probed) {
        m->available = gpu_available(m->why, sizeof m->why);
        m->probed = true;
    }
    if (!m->available) snprintf(why, n, "%s", m->why);
    return m->available;
}

static bool memo_devinfo(gpu_memo *m, gpu_devinfo *dev) {
    if (!m) return gpu_devinfo_get(false, dev, NULL) == PG_OK;
    if (!m->dev_asked) {
        m->have_dev = gpu_devinfo_get(false, &m->dev, NULL) == PG_OK;
        m->dev_asked = true;
    }
    *dev = m->dev;
    return m->have_dev;
}

/* The options a baseline's result depends on: the same input sets and the same timing rule. */
static bool same_run(const gpu_run_opts *a, const gpu_run_opts *b) {
    return a->seeds == b->seeds && a->all_sets == b->all_sets && a->timing == b->timing && a->min_trials == b->min_trials &&
           a->min_ms == b->min_ms && a->timeout_s == b->timeout_s;
}

static bool memo_baseline_get(const gpu_memo *m, const task_spec *t, const char *base_ptx, const gpu_run_opts *o,
                              gpu_kernel_result *k) {
    if (!m || !m->base_ptx || strcmp(m->task_path, t->path ? t->path : "") || strcmp(m->base_ptx, base_ptx) || !same_run(&m->base_opts, o))
        return false;
    *k = m->baseline;
    k->jit_log = m->baseline.jit_log ? strdup(m->baseline.jit_log) : NULL;   /* the caller frees its copy */
    return true;
}

/* Kept only when it ran clean: a failed baseline (a timeout, say) is run again next time, as before. */
static void memo_baseline_put(gpu_memo *m, const task_spec *t, const char *base_ptx, const gpu_run_opts *o,
                              const gpu_kernel_result *k) {
    if (!m || k->status != GPU_OK || k->sanitizer_log) return;
    char *tp = strdup(t->path ? t->path : ""), *bp = strdup(base_ptx), *log = k->jit_log ? strdup(k->jit_log) : NULL;
    if (!tp || !bp || (k->jit_log && !log)) { free(tp); free(bp); free(log); return; }   /* only a later rerun */
    free(m->task_path);
    free(m->base_ptx);
    free(m->baseline.jit_log);
    m->task_path = tp;
    m->base_ptx = bp;
    m->base_opts = *o;
    m->baseline = *k;
    m->baseline.jit_log = log;
}

pg_status gpu_run_task(const task_spec *t, const char *ptx_path, const gpu_run_opts *o, gpu_task_result *r, pg_diag_sink *diag) {
    memset(r, 0, sizeof *r);
    double t0 = now_s();
    snprintf(r->task, sizeof r->task, "%s", t->name);
    for (int s = 0; s < t->nsizes; s++)
        if (t->sizes[s].time_it) {
            size_t off = 0;
            for (int i = 0; i < t->sizes[s].env.n; i++)
                off += (size_t)snprintf(r->timing_size + off, sizeof r->timing_size - off, "%s%s=%lld", i ? "," : "",
                                        t->sizes[s].env.name[i], (long long)t->sizes[s].env.val[i]);
        }
    char why[256];
    if (!gpu_memo_available(o->memo, why, sizeof why)) {
        r->kernel.status = GPU_NO_GPU;
        snprintf(r->kernel.detail, sizeof r->kernel.detail, "%s", why);
        return PG_ERR_EXTERNAL;
    }
    char *ptx = read_text(ptx_path);
    if (!ptx) {
        pg_diag_emit(diag, PG_E_IO, ptx_path, 0, 0, "cannot read the kernel");
        return PG_ERR_IO;
    }
    gpu_devinfo dev;
    bool have_dev = memo_devinfo(o->memo, &dev);
    char arch[16];
    snprintf(arch, sizeof arch, "%s", o->arch ? o->arch : "");
    if (!arch[0]) snprintf(arch, sizeof arch, "sm_%d", have_dev && dev.sm ? dev.sm : 80);
    bool is_cu = t->ref.kind && !strcmp(t->ref.kind, "cu");
    char *base_ptx = NULL;
    double tn = now_s();
    r->probe_s = tn - t0;
    if (o->baseline || is_cu) {
        bool compiled = gpu_nvcc_ptx(t, arch, &base_ptx, diag) == PG_OK;
        r->nvcc_s = now_s() - tn;
        if (!compiled && is_cu) {
            r->kernel.status = GPU_SETUP_ERROR;
            snprintf(r->kernel.detail, sizeof r->kernel.detail, "the task's reference.cu could not be compiled (needed as the oracle)");
            free(ptx);
            return PG_ERR_EXTERNAL;
        }
    }
    char lw[400];
    if (gpu_hygiene_launch(t, ptx, lw, sizeof lw) != GPU_HYG_NONE) {
        /* refused before the launch: a kernel that cannot run as specified is not timed or trusted */
        r->kernel.status = GPU_WRONG;
        r->kernel.hygiene = GPU_HYG_LAUNCH;
        snprintf(r->kernel.detail, sizeof r->kernel.detail, "%s", lw);
        free(base_ptx);
        free(ptx);
        return PG_OK;
    }
    double t1 = now_s();
    run_one(t, ptx, is_cu ? base_ptx : NULL, o, &r->kernel);
    r->kernel_s = now_s() - t1;
    finish_metrics(t, &r->kernel, &dev, have_dev);
    if (o->sanitize && r->kernel.status == GPU_OK && !getenv("PTXGEN_NO_SANITIZE") && system("command -v compute-sanitizer >/dev/null 2>&1") == 0)
        sanitize(t, ptx_path, &r->kernel);
    /* the baseline is for a speedup, which only a correct kernel has; run once per memo */
    if (o->baseline && base_ptx && r->kernel.status == GPU_OK) {
        double t2 = now_s();
        if (!memo_baseline_get(o->memo, t, base_ptx, o, &r->baseline)) {
            run_one(t, base_ptx, is_cu ? base_ptx : NULL, o, &r->baseline);
            finish_metrics(t, &r->baseline, &dev, have_dev);
            memo_baseline_put(o->memo, t, base_ptx, o, &r->baseline);
        }
        r->baseline_s = now_s() - t2;
        r->have_baseline = true;
        if (r->kernel.status == GPU_OK && r->baseline.status == GPU_OK && r->kernel.ms_median > 0)
            r->speedup = r->baseline.ms_median / r->kernel.ms_median;
    }
    free(base_ptx);
    free(ptx);
    return PG_OK;
}

void gpu_result_free(gpu_task_result *r) {
    free(r->kernel.jit_log);
    free(r->kernel.sanitizer_log);
    free(r->baseline.jit_log);
    free(r->baseline.sanitizer_log);
    r->kernel.jit_log = r->kernel.sanitizer_log = r->baseline.jit_log = r->baseline.sanitizer_log = NULL;
}

/* ---- the differential test: a candidate against a baseline, no reference --------------- */
typedef struct {
    const task_spec *t;
    const char *base_ptx, *cand_ptx;
    int seeds;
} diff_job;

/* Median of 50 launches, L2 cold for each (the buffers are uploaded and the arguments made). */
static double diff_time(child *c, int fd, CUfunction fn, const task_inst *in, kargs *a, CUdeviceptr flush,
                        size_t flush_bytes) {
    CUevent e0, e1;
    CK(c->api.cuEventCreate(&e0, 0), "cuEventCreate");
    CK(c->api.cuEventCreate(&e1, 0), "cuEventCreate");
    for (int w = 0; w < 3; w++) {
        launch(c, fd, fn, in, a);
        CK(c->api.cuCtxSynchronize(), "warm-up");
    }
    float ms[50];
    int n = 0;
    for (; n < 50; n++) {
        CK(c->api.cuMemsetD32(flush, (unsigned)n, flush_bytes / 4), "L2 flush");
        CK(c->api.cuEventRecord(e0, NULL), "cuEventRecord");
        launch(c, fd, fn, in, a);
        CK(c->api.cuCtxSynchronize(), "timed launch");
        CK(c->api.cuEventRecord(e1, NULL), "cuEventRecord");
        CK(c->api.cuEventSynchronize(e1), "timed launch");
        CK(c->api.cuEventElapsedTime(&ms[n], e0, e1), "cuEventElapsedTime");
    }
    for (int i = 1; i < n; i++)   /* insertion sort for the median */
        for (int k = i; k > 0 && ms[k] < ms[k - 1]; k--) { float x = ms[k]; ms[k] = ms[k - 1]; ms[k - 1] = x; }
    c->api.cuEventDestroy(e0);
    c->api.cuEventDestroy(e1);
    return 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
}

/* One kernel on one instance through the harness: upload, launch, wait, download
 * (guard zones checked). */
static void diff_run(child *c, int fd, CUfunction fn, const task_inst *in, dbufs *d, task_inst *out) {
    kargs a;
    char why[512];
    upload(c, fd, in, d);
    make_args(in, d, &a);
    launch(c, fd, fn, in, &a);
    CK(c->api.cuCtxSynchronize(), "kernel execution");
    if (!download(c, fd, d, out, why, sizeof why)) fail(c, fd, phase_fault(c), "%s: %s", c->phase, why);
}

static void diff_child_main(void *arg, int fd) {
    diff_job *j = arg;
    const task_spec *t = j->t;
    child cc, *c = &cc;
    memset(c, 0, sizeof *c);
    c->res = json_object();
    c->phase = "setup";
    char why[512];
    if (!gpu_cuda_load(&c->api, GPU_CUDA_HARNESS, why, sizeof why)) fail(c, fd, "no-gpu", "%s", why);
    CUdevice dev;
    CUmodule mb, mc;
    CUfunction fb, fc;
    c->phase = "baseline setup";
    CK(c->api.cuInit(0), "cuInit");
    CK(c->api.cuDeviceGet(&dev, 0), "cuDeviceGet");
    CK(c->api.cuCtxCreate(&c->ctx, 0, dev), "cuCtxCreate");
    char name[128];
    if (c->api.cuDeviceGetName(name, sizeof name, dev) == 0) json_object_set_new(c->res, "device", json_string(name));
    c->phase = "baseline load";
    CK(c->api.cuModuleLoadDataEx(&mb, j->base_ptx, 0, NULL, NULL), "cuModuleLoadDataEx");
    CK(c->api.cuModuleGetFunction(&fb, mb, t->kernel), "cuModuleGetFunction");
    c->phase = "candidate load";
    CK(c->api.cuModuleLoadDataEx(&mc, j->cand_ptx, 0, NULL, NULL), "cuModuleLoadDataEx");
    CK(c->api.cuModuleGetFunction(&fc, mc, t->kernel), "cuModuleGetFunction");
    int rb = 0, rc = 0;
    c->api.cuFuncGetAttribute(&rb, CU_FUNC_ATTRIBUTE_NUM_REGS, fb);
    c->api.cuFuncGetAttribute(&rc, CU_FUNC_ATTRIBUTE_NUM_REGS, fc);
    json_object_set_new(c->res, "baseline_regs", json_integer(rb));
    json_object_set_new(c->res, "candidate_regs", json_integer(rc));
    dbufs db, dc;
    memset(&db, 0, sizeof db);
    memset(&dc, 0, sizeof dc);
    double worst = 0;
    for (int seed = 1; seed <= j->seeds; seed++) {
        task_inst in, want, got;
        c->phase = "setup";
        if (task_inst_make(t, 0, 0, (uint64_t)seed, &in, NULL) != PG_OK) fail(c, fd, "setup-error", "cannot build inputs");
        if (task_inst_clone(&in, &want) != PG_OK || task_inst_clone(&in, &got) != PG_OK)
            fail(c, fd, "setup-error", "out of memory");
        c->phase = "baseline run";
        diff_run(c, fd, fb, &in, &db, &want);
        c->phase = "candidate run";
        diff_run(c, fd, fc, &in, &dc, &got);
        for (int p = 0; p < t->nparams; p++) {
            if (!t->params[p].is_pointer) continue;
            task_cmp cmp = task_compare(t, p, &got.args[p], &want.args[p]);
            if (isfinite(cmp.rel_l2) && cmp.rel_l2 > worst) worst = cmp.rel_l2;
            if (!cmp.ok) {
                json_object_set_new(c->res, "seeds_passed", json_integer(seed - 1));
                fail(c, fd, "mismatch", "seed %d: buffer %d (%s) differs from the baseline: rel L2 %.3g (tol %.1g), "
                     "%zu mismatching element(s), %zu NaN(s), first at %zu", seed, p, task_dtype_name(t->params[p].dtype),
                     cmp.rel_l2, cmp.tol, cmp.mismatches, cmp.nan_count, cmp.first_bad == SIZE_MAX ? 0 : cmp.first_bad);
            }
        }
        task_inst_free(&got);
        task_inst_free(&want);
        if (seed < j->seeds) {
            task_inst_free(&in);
            continue;
        }
        /* time both on the last inputs */
        int l2 = 0;
        c->api.cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev);
        size_t flush_bytes = (size_t)(l2 > 0 ? l2 : 50 << 20) * 2;
        CUdeviceptr flush;
        c->phase = "setup";
        CK(c->api.cuMemAlloc(&flush, flush_bytes), "cuMemAlloc(L2 flush)");
        kargs a;
        c->phase = "baseline timing";
        upload(c, fd, &in, &db);
        make_args(&in, &db, &a);
        json_object_set_new(c->res, "baseline_ms", json_real(diff_time(c, fd, fb, &in, &a, flush, flush_bytes)));
        c->phase = "candidate timing";
        upload(c, fd, &in, &dc);
        make_args(&in, &dc, &a);
        json_object_set_new(c->res, "candidate_ms", json_real(diff_time(c, fd, fc, &in, &a, flush, flush_bytes)));
        task_inst_free(&in);
    }
    json_object_set_new(c->res, "seeds_passed", json_integer(j->seeds));
    json_object_set_new(c->res, "worst_rel_l2", json_real(worst));
    fail(c, fd, "pass", "%s", "");
}

json_t *gpu_run_diff(const task_spec *t, const char *base_ptx, const char *cand_ptx, int seeds, double timeout_s,
                     bool *timed_out) {
    diff_job dj = {t, base_ptx, cand_ptx, seeds};
    char *out = NULL;
    int exit_code = 0;
    int irc = gpu_isolate(diff_child_main, &dj, timeout_s, &out, &exit_code);
    json_t *r = irc != 1 && out && *out ? json_loads(out, 0, NULL) : NULL;
    free(out);
    *timed_out = irc == 1;
    if (!json_is_object(r)) {
        char why[96];
        json_decref(r);
        r = json_object();
        json_object_set_new(r, "status", json_string("candidate-fault"));
        if (irc == 1) snprintf(why, sizeof why, "killed by the watchdog after %g s", timeout_s);
        else snprintf(why, sizeof why, "the test process died without a result");
        json_object_set_new(r, "detail", json_string(why));
    }
    return r;
}
