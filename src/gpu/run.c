/* run.c — the GPU harness: isolation, correctness, timing, baseline.
 *
 * Every kernel (candidate or baseline) runs in a child process that creates a CUDA
 * context, checks the kernel on every (size, distribution, seed) against the reference,
 * times it on the timing size and writes one JSON object back.  Without a gpu_memo the
 * child serves one kernel (gpu_isolate, isolate.c); with one, a worker child serves all
 * the memo's kernels of one task, keeping its context and input sets, and is replaced
 * after a kernel that faults, hangs or writes outside its outputs.  gen starts the memo's
 * preparation (gpu_memo_prepare) when it knows the task: another child, CPU only, that builds
 * the input sets and C references ahead into the region the workers share.  The parent never
 * touches CUDA, so a fault or a hang cannot take it down. */
#define _GNU_SOURCE
#include "ptxgen/gpu.h"
#include "ptxgen/ptx.h"
#include "ptxgen/gpu_cuda.h"
#include "gpu_internal.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
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
    bool framed;                /* a worker: each answer goes out as its length (8 bytes) and the JSON */
    /* What this kernel's check asked of the device (reset per kernel, in every answer, faults included):
     * bytes copied host to device, device to host and device to device, cuMemAlloc calls, waits for the
     * device (cuCtxSynchronize, cuEventSynchronize), and resident input sets found altered and re-uploaded; and the
     * seconds it waited for input sets gen's preparation was still building (gpu_memo_prepare) */
    struct { unsigned long long htod, dtoh, dtod; long long allocs, syncs, refreshed; double prep_wait_s; bool on; } n;
} child;

#define GUARD 4096u
#define GUARD_BYTE 0xCD

static void put_counts(child *c) {
    if (!c->n.on || !c->res) return;
    json_object_set_new(c->res, "htod_bytes", json_integer((json_int_t)c->n.htod));
    json_object_set_new(c->res, "dtoh_bytes", json_integer((json_int_t)c->n.dtoh));
    json_object_set_new(c->res, "dtod_bytes", json_integer((json_int_t)c->n.dtod));
    json_object_set_new(c->res, "allocs", json_integer(c->n.allocs));
    json_object_set_new(c->res, "syncs", json_integer(c->n.syncs));
    json_object_set_new(c->res, "resident_refreshed", json_integer(c->n.refreshed));
    json_object_set_new(c->res, "prep_wait_s", json_real(c->n.prep_wait_s));
}

static void emit(child *c, int fd) {
    put_counts(c);
    char *s = json_dumps(c->res, JSON_COMPACT);
    if (!s) return;   /* out of memory: the parent sees no answer (a fault) */
    size_t n = strlen(s), off = 0;
    uint64_t len = n;
    if (c->framed && write(fd, &len, sizeof len) != (ssize_t)sizeof len) n = 0;
    while (off < n) {
        ssize_t k = write(fd, s + off, n - off);
        if (k <= 0) break;
        off += (size_t)k;
    }
    free(s);
}

static void (*exit_hook)(void);   /* a worker's publish_sets: run before it exits on a failure */
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
    if (exit_hook) exit_hook();   /* after the answer: the parent waits for the exit, not the copy */
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

/* The working buffers sized for `in` (reallocated only when a size changes) and their guard zones
 * set, on the device (a memset, not an upload of a guard pattern). */
static void fit(child *c, int fd, const task_inst *in, dbufs *d) {
    const task_spec *t = in->spec;
    for (int i = 0; i < t->nparams && i < 64; i++) {
        if (!t->params[i].is_pointer) continue;
        size_t bytes = in->args[i].bytes;
        if (!d->base[i] || d->bytes[i] != bytes) {
            if (d->base[i]) c->api.cuMemFree(d->base[i]);
            CK(c->api.cuMemAlloc(&d->base[i], bytes + 2 * GUARD), "cuMemAlloc");
            c->n.allocs++;
            d->bytes[i] = bytes;
            d->ptr[i] = d->base[i] + GUARD;
        }
        CK(c->api.cuMemsetD8(d->base[i], GUARD_BYTE, GUARD), "cuMemsetD8(guard)");
        CK(c->api.cuMemsetD8(d->ptr[i] + bytes, GUARD_BYTE, GUARD), "cuMemsetD8(guard)");
    }
}

static void htod(child *c, int fd, CUdeviceptr dst, const void *src, size_t n) {
    if (!n) return;
    CK(c->api.cuMemcpyHtoD(dst, src, n), "cuMemcpyHtoD");
    c->n.htod += n;
}

/* `in` into the working buffers from the host: every pointer buffer, guards around each. */
static void upload(child *c, int fd, const task_inst *in, dbufs *d) {
    const task_spec *t = in->spec;
    fit(c, fd, in, d);
    for (int i = 0; i < t->nparams && i < 64; i++)
        if (t->params[i].is_pointer) htod(c, fd, d->ptr[i], in->args[i].data, in->args[i].bytes);
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

/* fn(arg, k) for every k < n on up to nthreads threads (the caller's among them, at most 32), each
 * taking the next k: input sets are built in parallel, and copied into the shared region so. */
typedef struct {
    void (*fn)(void *, int);
    void *arg;
    int n, next;
} par_job;
static void *par_thread(void *a) {
    par_job *p = a;
    for (int k; (k = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->n;) p->fn(p->arg, k);
    return NULL;
}
static void par_for(int n, int nthreads, void (*fn)(void *, int), void *arg) {
    par_job p = {fn, arg, n, 0};
    pthread_t th[32];
    int nth = 0;
    if (nthreads > n) nthreads = n;
    if (nthreads > 32) nthreads = 32;
    for (int i = 1; i < nthreads; i++)
        if (pthread_create(&th[nth], NULL, par_thread, &p) == 0) nth++;
    par_thread(&p);   /* with no thread started, the caller does them all */
    for (int i = 0; i < nth; i++) pthread_join(th[i], NULL);
}

static int ncpus(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 32 ? 32 : (int)n;
}

/* check_kernel's download, split so the outputs can be judged while the inputs come back: the data of the
 * output buffers (outputs) or of the input buffers (!outputs) into `out`. */
static void download_data(child *c, int fd, const dbufs *d, task_inst *out, bool outputs) {
    const task_spec *t = out->spec;
    for (int i = 0; i < t->nparams && i < 64; i++) {
        if (!t->params[i].is_pointer || (t->params[i].role != TASK_ROLE_IN) != outputs) continue;
        if (out->args[i].bytes) CK(c->api.cuMemcpyDtoH(out->args[i].data, d->ptr[i], out->args[i].bytes), "cuMemcpyDtoH");
        c->n.dtoh += out->args[i].bytes;
    }
}

/* The guard zones of every buffer, in parameter order (download's check): false with the first bad one in why. */
static bool guards_intact(child *c, int fd, const dbufs *d, const task_spec *t, char *why, size_t whyn) {
    static unsigned char g[GUARD];
    for (int i = 0; i < t->nparams && i < 64; i++) {
        if (!t->params[i].is_pointer) continue;
        for (int side = 0; side < 2; side++) {
            CK(c->api.cuMemcpyDtoH(g, side ? d->ptr[i] + d->bytes[i] : d->base[i], GUARD), "cuMemcpyDtoH(guard)");
            c->n.dtoh += GUARD;
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

/* Download every buffer back into `out` (a clone of the instance) and check guards (the first bad one, in
 * parameter order, in why). */
static bool download(child *c, int fd, const dbufs *d, task_inst *out, char *why, size_t whyn) {
    download_data(c, fd, d, out, true);
    download_data(c, fd, d, out, false);
    return guards_intact(c, fd, d, out->spec, why, whyn);
}

/* Every output of a set compared with its reference (task_compare: no side effects, so it may run on a helper
 * thread while the main thread downloads the inputs and guard zones; judged afterwards in download's order). */
typedef struct {
    const task_spec *t;
    const task_inst *got, *ref;
    task_cmp *cmp;              /* [nparams], filled for the outputs */
} cmp_job;
static void *compare_outputs(void *arg) {
    cmp_job *j = arg;
    for (int p = 0; p < j->t->nparams && p < 64; p++)
        if (j->t->params[p].is_pointer && j->t->params[p].role != TASK_ROLE_IN)
            j->cmp[p] = task_compare(j->t, p, &j->got->args[p], &j->ref->args[p]);
    return NULL;
}

/* One input set: build it (and run the C reference) on a thread of par_for; input generation of a
 * 100M-element problem is as costly as the reference. */
typedef struct {
    const task_spec *t; int size, dist; uint64_t seed; bool with_ref; task_inst *in; task_inst ref; pg_status st;
    char why[600];   /* the first diagnostic of a failed build or reference, for the setup-error */
} ref_job;
static void keep_first(void *user, const pg_diag *d) {
    char *why = user;
    if (!why[0] && d->sev == PG_SEV_ERROR) pg_diag_format(d, why, 600);
}
static void ref_one(void *arg, int k) {
    ref_job *j = &((ref_job *)arg)[k];
    pg_diag_sink q = {keep_first, j->why, 0, 0, 0};
    j->st = task_inst_make(j->t, j->size, j->dist, j->seed, j->in, &q);
    if (j->st == PG_OK && j->with_ref) j->st = task_reference_run(j->in, &j->ref, &q);
}

/* Size s's ninst input sets (distribution k / seeds, seed k % seeds + 1) into ins[] and, with_ref, their
 * C references into ref[] on up to nthreads threads; false with the first failure in why (ins and ref then
 * hold what was built: free_sets frees them).  The one way both the worker and the preparation build them,
 * so both build the same sets. */
static bool build_sets(const task_spec *t, int s, int ninst, int seeds, bool with_ref, int nthreads,
                       task_inst *ins, task_inst *ref, char *why, size_t whyn) {
    ref_job *rj = calloc((size_t)ninst, sizeof(ref_job));
    if (!rj) {
        snprintf(why, whyn, "out of memory");
        return false;
    }
    for (int k = 0; k < ninst; k++) rj[k] = (ref_job){t, s, k / seeds, (uint64_t)(k % seeds) + 1, with_ref, &ins[k], {0}, PG_OK, ""};
    par_for(ninst, nthreads, ref_one, rj);
    bool ok = true;
    for (int k = 0; k < ninst; k++) {
        ref[k] = rj[k].ref;   /* "cu" references: empty here, run on the GPU when first needed */
        if (ok && rj[k].st != PG_OK) {
            ok = false;
            snprintf(why, whyn, "size %d: %s%s%s", s, ins[k].args ? "the C reference failed" : "cannot build the inputs",
                     rj[k].why[0] ? ": " : "", rj[k].why);
        }
    }
    free(rj);
    return ok;
}

static void describe(const task_inst *in, char *buf, size_t n) {
    size_t off = 0;
    for (int i = 0; i < in->env.n && off < n; i++)
        off += (size_t)snprintf(buf + off, n - off, "%s%s=%lld", i ? "," : "", in->env.name[i], (long long)in->env.val[i]);
}

/* The input sets of one task (inputs and references), per size: a worker process keeps them for
 * every kernel it checks, so a gen's candidates build them once (budget > 0); a one-shot child
 * builds each size as it reaches it and frees it after (budget 0). */
typedef struct {
    int nsizes, ninst;          /* ninst: distributions x seeds of one size */
    task_inst **ins, **ref;     /* per size: ninst instances and their references (NULL: not kept) */
    size_t bytes, budget;       /* bytes kept, the most to keep */
    int built;                  /* sets built with their reference during the current kernel's check */
    struct shared_sets *shared; /* a worker's: the sets of the workers before it (NULL: none) */
    bool oracle;                /* a "cu" task: references made on the GPU, never shared */
} set_cache;

/* The input sets a memo's workers share: a MAP_SHARED anonymous region the parent maps before its
 * first worker (or its preparation, below) and keeps until the memo is freed.  Two writers fill it:
 *  - gen's preparation (gpu_memo_prepare): a child process of the parent (CPU only) builds every size's
 *    sets and C references while the model still writes the candidates, and publishes each size as it
 *    is done; a worker that reaches a size the preparation has not published yet waits for it
 *    (prep_word says whether it will come) instead of building it a second time;
 *  - a worker about to exit (publish_sets) copies in the sizes it built itself, so the one started
 *    after a fault takes them instead of building them again (the usual gen, with no fault, pays
 *    nothing for it).
 * The region is at the same address in the parent and every worker (each is a fork of the parent),
 * so the instances in it hold plain pointers: the structs, their argument arrays and the buffers are
 * copied in, then the size is published (off[s], written last: a writer stopped while copying leaves
 * it unpublished, and the next builds it again).  Space is reserved for a whole size in one atomic
 * step (shared_take), so the writers never share a byte; a size nobody published is never written
 * by two (a worker builds only the sizes the preparation will not publish).  Only C references: a
 * "cu" task's oracle answers are made in the worker's context and stay in its own cache. */
struct shared_sets {
    uint64_t cap, used;         /* bytes of the region, bytes taken (this header included) */
    int nsizes, ninst;
    /* the preparation's report (written by its process, read by gen's; see gpu_memo_prepare): its state (PS_*,
     * written last, with release), the sets it published, the threads for its next size (raised by gen when the
     * checks begin), its end (CLOCK_MONOTONIC seconds) and, failed, the first failure */
    int prep_state, prep_sets, prep_threads;
    double prep_end;
    char prep_why[700];
    uint64_t off[];             /* [nsizes]: where size s's ninst instances and ninst references start (0: none);
                                 * then [nsizes] more: the preparation's word on size s (PREP_*) */
};
enum { PREP_NONE = 0, PREP_PENDING = 1 };   /* prep_word: nobody will publish it unasked / the preparation will (or gives up: NONE) */
enum { PS_OFF, PS_RUNNING, PS_DONE, PS_FAILED, PS_FULL, PS_STOPPED };   /* the preparation's state (prep_state) */
static uint64_t *prep_word(struct shared_sets *sh, int s) { return &sh->off[sh->nsizes + s]; }

static size_t align64(size_t n) { return (n + 63) & ~(size_t)63; }

/* n bytes of the region, 64-aligned; NULL when it is full.  Safe from any thread of any process. */
static void *shared_take(struct shared_sets *sh, size_t n) {
    uint64_t used = __atomic_load_n(&sh->used, __ATOMIC_RELAXED), at;
    do {
        at = align64(used);
        if (at > sh->cap || n > sh->cap - at) return NULL;
    } while (!__atomic_compare_exchange_n(&sh->used, &used, at + n, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return (char *)sh + at;
}

/* Does pointer buffer i of ref share its bytes with `same` (its instance's inputs, byte for byte: a third of
 * what is copied for bias_gelu_residual)?  Nothing writes a kept instance's inputs. */
static bool shares_input(const task_inst *in, const task_inst *same, int i) {
    const task_arg *sa = same ? &same->args[i] : NULL;
    return sa && in->spec->params[i].is_pointer && in->spec->params[i].role == TASK_ROLE_IN && in->args[i].data && sa->data &&
           sa->bytes == in->args[i].bytes && !memcmp(sa->data, in->args[i].data, sa->bytes);
}

/* What a copy of `in` takes in the region (its argument array and the buffers it does not share with
 * `same`, which may be NULL); share[i] records which it shares. */
static size_t copy_size(const task_inst *in, const task_inst *same, bool share[64]) {
    int np = in->spec->nparams;
    size_t n = align64(sizeof(task_arg) * (size_t)(np > 0 ? np : 1));
    for (int i = 0; i < np; i++) {   /* (past 64 parameters nothing is shared) */
        bool shared = i < 64 && (share[i] = shares_input(in, same, i));
        if (!shared && in->args[i].data && in->args[i].bytes) n += align64(in->args[i].bytes);
    }
    return n;
}

/* A copy of in in the region at `at` (copy_size bytes); buffers share[i] point at dst_same's. */
static void copy_into(const task_inst *in, const task_inst *dst_same, const bool share[64], task_inst *dst, char *at) {
    int np = in->spec->nparams;
    *dst = *in;
    dst->diag = NULL;
    dst->args = (task_arg *)at;
    at += align64(sizeof(task_arg) * (size_t)(np > 0 ? np : 1));
    for (int i = 0; i < np; i++) {
        dst->args[i] = in->args[i];
        if (i < 64 && share[i]) {
            dst->args[i].data = dst_same->args[i].data;
            continue;
        }
        if (in->args[i].data && in->args[i].bytes) {
            dst->args[i].data = at;
            memcpy(at, in->args[i].data, in->args[i].bytes);
            at += align64(in->args[i].bytes);
        }
    }
}

/* Size s's sets (ins[n], ref[n]) measured (sz[k], sz[n + k]: what each copy takes; the references' input
 * buffers compared with their instance's) and then copied into the region at at[k] (instance k) and
 * at[n + k] (its reference), both spread over threads (par_for). */
typedef struct {
    const task_inst *ins, *ref;
    task_inst *di;
    char **at;
    size_t *sz;
    bool (*share)[2][64];
    int n;
} put_job;
static void size_one(void *arg, int k) {
    put_job *p = arg;
    p->sz[k] = copy_size(&p->ins[k], NULL, p->share[k][0]);
    p->sz[p->n + k] = copy_size(&p->ref[k], &p->ins[k], p->share[k][1]);
}
static void put_one(void *arg, int k) {
    put_job *p = arg;
    copy_into(&p->ins[k], NULL, p->share[k][0], &p->di[k], p->at[k]);
    copy_into(&p->ref[k], &p->di[k], p->share[k][1], &p->di[p->n + k], p->at[p->n + k]);
}
static void par_for(int n, int nthreads, void (*fn)(void *, int), void *arg);

/* Publish size s's sets in the region: every byte of it reserved at once, then copied, then off[s] set.
 * False (nothing taken) when it does not fit or a reference is missing. */
static bool shared_put(struct shared_sets *sh, int s, const task_inst *ins, const task_inst *ref, int nthreads) {
    int n = sh->ninst;
    put_job pj = {ins, ref, NULL, calloc(2 * (size_t)n, sizeof(char *)), calloc(2 * (size_t)n, sizeof(size_t)),
                  calloc((size_t)n, sizeof(bool[2][64])), n};
    bool ok = pj.at && pj.sz && pj.share;
    for (int k = 0; ok && k < n; k++) ok = ins[k].args && ref[k].args;
    size_t head = align64(sizeof(task_inst) * 2 * (size_t)n), total = head;
    if (ok) par_for(n, nthreads, size_one, &pj);
    for (int k = 0; ok && k < 2 * n; k++) total += pj.sz[k];
    char *base = ok ? shared_take(sh, total) : NULL;
    if (base) {
        char *p = base + head;
        for (int k = 0; k < 2 * n; k++) {
            pj.at[k] = p;
            p += pj.sz[k];
        }
        pj.di = (task_inst *)base;
        par_for(n, nthreads, put_one, &pj);
        __atomic_store_n(&sh->off[s], (uint64_t)(base - (char *)sh), __ATOMIC_RELEASE);
    }
    free(pj.at);
    free(pj.sz);
    free(pj.share);
    return base != NULL;
}

/* A worker that is about to exit (a fault, a kernel that wrote outside its outputs) leaves the sets it
 * built to the next worker.  Its host memory is intact: a kernel reaches only device memory.  Sizes that
 * came from the region (the preparation's, an earlier worker's) are there already: nothing to copy. */
static set_cache *exiting_cache;
static void publish_sets(void) {
    set_cache *sc = exiting_cache;
    exiting_cache = NULL;
    for (int s = 0; sc && sc->ins && sc->shared && !sc->oracle && s < sc->nsizes; s++)
        if (sc->ins[s] && !__atomic_load_n(&sc->shared->off[s], __ATOMIC_ACQUIRE)) shared_put(sc->shared, s, sc->ins[s], sc->ref[s], 1);
}

/* The state of one harness process: its context, device buffers, timing tools and input sets,
 * kept from one kernel to the next in a worker (gpu_memo) and used once in a one-shot child. */
typedef struct {
    child c;
    bool open, oracle_loaded, timing_ready;
    CUdevice dev;
    dbufs d;
    CUdeviceptr flush;
    size_t flush_bytes;
    CUevent e0, e1;
    set_cache cache;
    task_inst *got, got1;       /* per size: what a kernel wrote, reused from set to set (got1: no table) */
    /* A worker's device copies of its kept input sets as uploaded (inputs and poisoned outputs), per size
     * and instance one allocation with every pointer buffer (0: not resident): a kernel's working buffers
     * are filled from it device to device, so each set crosses the bus once per worker, not once per
     * kernel.  NULL in a one-shot child (each set is used once there). */
    CUdeviceptr **resident;
    size_t resident_bytes, resident_budget;
} harness;

/* Where pointer buffer i of `in` sits in its resident copy; the copy's size with i = nparams. */
static size_t resident_off(const task_inst *in, int upto) {
    size_t off = 0;
    for (int i = 0; i < upto && i < 64; i++)
        if (in->spec->params[i].is_pointer) off += (in->args[i].bytes + 255) & ~(size_t)255;
    return off;
}

/* Input set k of size s (`in`) into the working buffers as uploaded: guards set on the device, and the
 * buffers copied device to device from the set's resident copy, made from the host on first use while
 * the budget allows; past it (or in a one-shot child) from the host every time.  Returns whether the
 * data came from a resident copy. */
static bool stage(harness *h, int fd, int s, int k, const task_inst *in) {
    child *c = &h->c;
    const task_spec *t = in->spec;
    dbufs *d = &h->d;
    CUdeviceptr *r = NULL;
    if (h->resident && s >= 0 && s < h->cache.nsizes && k >= 0 && k < h->cache.ninst) {
        if (!h->resident[s]) h->resident[s] = calloc((size_t)h->cache.ninst, sizeof(CUdeviceptr));
        if (h->resident[s]) r = &h->resident[s][k];
    }
    size_t total = resident_off(in, t->nparams);
    if (r && !*r && total && h->resident_bytes + total <= h->resident_budget) {
        if (c->api.cuMemAlloc(r, total) == 0) {   /* device memory short: the host path, as before */
            c->n.allocs++;
            h->resident_bytes += total;
            for (int i = 0; i < t->nparams && i < 64; i++)
                if (t->params[i].is_pointer) htod(c, fd, *r + resident_off(in, i), in->args[i].data, in->args[i].bytes);
        } else *r = 0;
    }
    if (!r || !*r) {
        upload(c, fd, in, d);
        return false;
    }
    fit(c, fd, in, d);
    for (int i = 0; i < t->nparams && i < 64; i++) {
        if (!t->params[i].is_pointer || !in->args[i].bytes) continue;
        CK(c->api.cuMemcpyDtoD(d->ptr[i], *r + resident_off(in, i), in->args[i].bytes), "cuMemcpyDtoD");
        c->n.dtod += in->args[i].bytes;
    }
    return true;
}

/* After a failed set that came from a resident copy: is that copy still what the host holds?  A kernel
 * that wrote far outside its buffers (past the guard zones) may have altered another set's copy without
 * a fault; then the failure is not the current kernel's: the copy is uploaded again (true returned
 * only when it was intact), and the caller runs the set again from it. */
static bool resident_intact(harness *h, int fd, int s, int k, const task_inst *in) {
    child *c = &h->c;
    const task_spec *t = in->spec;
    CUdeviceptr r = h->resident[s][k];
    bool same = true;
    for (int i = 0; i < t->nparams && i < 64 && same; i++) {
        size_t b = in->args[i].bytes;
        if (!t->params[i].is_pointer || !b) continue;
        unsigned char *tmp = malloc(b);
        if (!tmp) fail(c, fd, "setup-error", "out of memory");
        CK(c->api.cuMemcpyDtoH(tmp, r + resident_off(in, i), b), "cuMemcpyDtoH(resident check)");
        c->n.dtoh += b;
        same = !memcmp(tmp, in->args[i].data, b);
        free(tmp);
    }
    if (same) return true;
    for (int i = 0; i < t->nparams && i < 64; i++)
        if (t->params[i].is_pointer) htod(c, fd, r + resident_off(in, i), in->args[i].data, in->args[i].bytes);
    c->n.refreshed++;
    return false;
}

/* got (a clone of an earlier instance of the same size) made ready for `in`: its scalars, launch and
 * sizes from in, its buffers kept, as the download overwrites every pointer buffer; false when a
 * buffer's size differs (then clone again).  A clone per input set was 400 MB of fresh pages for
 * each 8192 x 3072 set of bias_gelu_residual. */
static bool got_reuse(task_inst *got, const task_inst *in) {
    const task_spec *t = in->spec;
    if (!got->args || got->spec != t) return false;
    for (int i = 0; i < t->nparams; i++)
        if (!got->args[i].data != !in->args[i].data || got->args[i].bytes != in->args[i].bytes) return false;
    task_arg *keep = got->args;
    *got = *in;
    got->args = keep;
    for (int i = 0; i < t->nparams; i++) {
        void *dst = keep[i].data;
        keep[i] = in->args[i];
        keep[i].data = dst;
        if (dst && !t->params[i].is_pointer) memcpy(dst, in->args[i].data, in->args[i].bytes);   /* not downloaded */
    }
    return true;
}

static void harness_open(harness *h, int fd) {
    child *c = &h->c;
    char why[512];
    if (!gpu_cuda_load(&c->api, GPU_CUDA_HARNESS, why, sizeof why)) fail(c, fd, "no-gpu", "%s", why);
    CK(c->api.cuInit(0), "cuInit");
    CK(c->api.cuDeviceGet(&h->dev, 0), "cuDeviceGet");
    CK(c->api.cuCtxCreate(&c->ctx, 0, h->dev), "cuCtxCreate");
    h->open = true;
    /* resident sets: $PTXGEN_GPU_RESIDENT_MB, else half the device's memory (80 GB on an H100; the
     * 40 sets of bias_gelu_residual take 4 GB) */
    const char *e = getenv("PTXGEN_GPU_RESIDENT_MB");
    size_t total = 0;
    if (e && *e) h->resident_budget = (size_t)strtoull(e, NULL, 10) << 20;
    else if (c->api.cuDeviceTotalMem(&total, h->dev) == 0) h->resident_budget = total / 2;
}

static size_t inst_bytes(const task_inst *in) {
    size_t b = 0;
    for (int i = 0; in->args && i < in->spec->nparams; i++) b += in->args[i].bytes;
    return b;
}

/* Size s's instances and references: the kept ones, the shared region's (gen's preparation, an earlier
 * worker), or built now (inputs and C references in parallel: input generation of a 100M-element problem
 * is as costly as the reference).  A size the preparation has still to publish is waited for, not built a
 * second time (c->n.prep_wait_s counts the wait).  *owned: the caller frees them after use (they did not
 * fit the budget). */
static void size_sets(child *c, int fd, const job *j, set_cache *sc, int s, bool use_oracle, task_inst **ins_out,
                      task_inst **ref_out, bool *owned) {
    const task_spec *t = j->t;
    struct shared_sets *sh = use_oracle ? NULL : sc->shared;
    uint64_t soff = sh ? __atomic_load_n(&sh->off[s], __ATOMIC_ACQUIRE) : 0;
    if (sh && sc->ins && !sc->ins[s] && !soff && __atomic_load_n(prep_word(sh, s), __ATOMIC_ACQUIRE) == PREP_PENDING) {
        double t0 = now_s();
        struct timespec ms = {0, 1000 * 1000};
        while (!(soff = __atomic_load_n(&sh->off[s], __ATOMIC_ACQUIRE)) && __atomic_load_n(prep_word(sh, s), __ATOMIC_ACQUIRE) == PREP_PENDING)
            nanosleep(&ms, NULL);
        c->n.prep_wait_s += now_s() - t0;
    }
    if (sc->ins && !sc->ins[s] && soff) {   /* prepared, or built by a worker before this one */
        sc->ins[s] = (task_inst *)((char *)sh + soff);
        sc->ref[s] = sc->ins[s] + sc->ninst;
    }
    if (sc->ins && sc->ins[s]) {
        *ins_out = sc->ins[s];
        *ref_out = sc->ref[s];
        *owned = false;
        return;
    }
    int ninst = sc->ninst, ns = j->o.seeds > 0 ? j->o.seeds : 5;
    task_inst *ins = calloc((size_t)ninst, sizeof(task_inst)), *ref = calloc((size_t)ninst, sizeof(task_inst));
    if (!ins || !ref) fail(c, fd, "setup-error", "out of memory");
    char why[700];
    if (!build_sets(t, s, ninst, ns, !use_oracle, ncpus(), ins, ref, why, sizeof why)) fail(c, fd, "setup-error", "%s", why);
    size_t bytes = 0;
    for (int k = 0; k < ninst; k++) bytes += inst_bytes(&ins[k]) * 2;   /* the reference's copy of every buffer, also when made later */
    if (!use_oracle) sc->built += ninst;
    *ins_out = ins;
    *ref_out = ref;
    *owned = !(sc->ins && sc->bytes + bytes <= sc->budget);
    if (!*owned) {
        sc->ins[s] = ins;
        sc->ref[s] = ref;
        sc->bytes += bytes;
    }
}

static void free_sets(task_inst *ins, task_inst *ref, int n) {
    for (int k = 0; k < n; k++) {
        task_inst_free(&ins[k]);
        if (ref[k].args) task_inst_free(&ref[k]);
    }
    free(ins);
    free(ref);
}

/* The sizes smallest first (the product of each size's variables; a stable order): the order the checks
 * run them in, and the order gen's preparation builds them in.  malloc'd; NULL when out of memory. */
static int *size_order(const task_spec *t) {
    int n = t->nsizes, *order = calloc((size_t)n + 1, sizeof *order);
    double *cost = calloc((size_t)n + 1, sizeof *cost);
    if (!order || !cost) {
        free(order);
        free(cost);
        return NULL;
    }
    for (int s = 0; s < n; s++) {
        order[s] = s;
        cost[s] = 1;
        for (int v = 0; v < t->sizes[s].env.n; v++)
            cost[s] *= t->sizes[s].env.val[v] > 1 ? (double)t->sizes[s].env.val[v] : 1.0;
    }
    for (int a = 1; a < n; a++)      /* insertion sort: stable, a handful of sizes */
        for (int b = a; b > 0 && cost[order[b]] < cost[order[b - 1]]; b--) {
            int tmp = order[b]; order[b] = order[b - 1]; order[b - 1] = tmp;
        }
    free(cost);
    return order;
}

/* Check (and time) j->ptx in h's context; the verdict goes into h->c.res ("status", "detail",
 * the counts).  A CUDA error ends the process (fail: the context is poisoned).  Returns whether
 * the process may check another kernel: false after a kernel that wrote outside its outputs
 * (a guard zone, an input buffer), which may have hit other allocations of the context. */
static bool check_kernel(harness *h, int fd, const job *j) {
    const task_spec *t = j->t;
    child *c = &h->c;
    double t_start = now_s();
    char why[512];
    h->cache.built = 0;
    memset(&c->n, 0, sizeof c->n);
    c->n.on = true;
    static char log[131072];
    c->mod = NULL;
    if (!load_module(c, j->ptx, t->kernel, &c->mod, &c->fn, log, sizeof log)) {
        json_object_set_new(c->res, "jit_log", json_string(log));
        json_object_set_new(c->res, "status", json_string("load-error"));
        json_object_set_new(c->res, "detail", json_string(c->err));
        return true;
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
    if (use_oracle && !h->oracle_loaded) {
        if (!load_module(c, j->oracle_ptx, t->kernel, &c->omod, &c->ofn, log, sizeof log))
            fail(c, fd, "setup-error", "the reference.cu oracle does not load: %s", c->err);
        h->oracle_loaded = true;
    }
    /* ---- correctness ---- */
    double t_sets = now_s();
    json_object_set_new(c->res, "setup_s", json_real(t_sets - t_start));
    int checks = 0, passed = 0;
    double worst = 0;
    char first_fail[1024] = "";
    bool clean = true;   /* no write outside the outputs */
    dbufs *d = &h->d;
    int nd = t->ndists, ns = j->o.seeds > 0 ? j->o.seeds : 5;
    int nsets = t->nsizes * nd * ns;
    /* Smallest problems first: a wrong kernel is caught on a cheap input set,
     * before the 100M-element ones are even built. */
    int nord = t->nsizes, *order = size_order(t);
    if (!order) fail(c, fd, "setup-error", "out of memory");
    bool stop = false;
    for (int oi = 0; oi < nord && !stop; oi++) {
        int s = order[oi];
        int ninst = nd * ns;
        task_inst *ins, *refs;
        bool owned;
        size_sets(c, fd, j, &h->cache, s, use_oracle, &ins, &refs, &owned);
        json_object_set_new(c->res, "refs_built", json_integer(h->cache.built));   /* also in a fault's answer */
        for (int k = 0; k < ninst; k++) {
            task_inst *in = &ins[k];
            kargs a;
            if (use_oracle && !refs[k].args) {   /* the oracle's answer, once per set while it is kept */
                if (task_inst_clone(in, &refs[k]) != PG_OK) fail(c, fd, "setup-error", "out of memory");
                upload(c, fd, in, d);
                make_args(in, d, &a);
                launch(c, fd, c->ofn, in, &a);
                CK(c->api.cuCtxSynchronize(), "reference.cu oracle");
                c->n.syncs++;
                if (!download(c, fd, d, &refs[k], why, sizeof why)) fail(c, fd, "setup-error", "reference.cu oracle: %s", why);
                if (t->ref.must_write && !gpu_hygiene_oracle_wrote(t, in, &refs[k])) {
                    char sz[160];
                    describe(in, sz, sizeof sz);
                    fail(c, fd, "setup-error", "reference.cu oracle: writes none of its outputs on size %s (nothing to compare with)", sz);
                }
                h->cache.built++;
                json_object_set_new(c->res, "refs_built", json_integer(h->cache.built));
            }
            task_inst *got = h->got ? &h->got[s] : &h->got1;
            if (!got_reuse(got, in)) {
                task_inst_free(got);
                if (task_inst_clone(in, got) != PG_OK) fail(c, fd, "setup-error", "out of memory");
            }
            bool may_redo = true, ok, mem_ok;
            double set_worst;
            gpu_hyg set_hy;
        run_set:
            ok = true;
            set_worst = 0;
            set_hy = GPU_HYG_NONE;
            bool from_resident = stage(h, fd, owned ? -1 : s, k, in);   /* a set built per kernel: not kept on the device either */
            make_args(in, d, &a);
            launch(c, fd, c->fn, in, &a);
            CK(c->api.cuCtxSynchronize(), "kernel execution");
            c->n.syncs++;
            char sizes[160];
            describe(in, sizes, sizeof sizes);
            /* the outputs come back first and, on a large set, are compared with the reference on a helper
             * thread while the inputs and guard zones come back and the inputs are compared with the host's
             * copy (bias_gelu_residual's 8192 x 3072 sets: ~0.2 s of compare, 0.2 GB of inputs); judged
             * as one after another: guard zones, then inputs, then the outputs */
            task_cmp cmps[64];
            cmp_job cj = {t, got, &refs[k], cmps};
            size_t out_bytes = 0;
            for (int p = 0; p < t->nparams && p < 64; p++)
                if (t->params[p].is_pointer && t->params[p].role != TASK_ROLE_IN) out_bytes += got->args[p].bytes;
            download_data(c, fd, d, got, true);
            pthread_t cth;
            bool threaded = out_bytes >= ((size_t)64 << 10) && pthread_create(&cth, NULL, compare_outputs, &cj) == 0;
            download_data(c, fd, d, got, false);
            ok = guards_intact(c, fd, d, t, why, sizeof why);
            int badp = -1;
            if (ok && !task_inputs_unchanged(t, in, got, &badp)) {
                ok = false;
                snprintf(why, sizeof why, "input buffer '%s' was modified", t->params[badp].name);
            }
            if (threaded) pthread_join(cth, NULL);
            else if (ok) compare_outputs(&cj);
            mem_ok = ok;   /* guards and inputs intact: only then is the output worth judging further */
            for (int p = 0; ok && p < t->nparams; p++) {
                if (!t->params[p].is_pointer || t->params[p].role == TASK_ROLE_IN) continue;
                task_cmp cmp = p < 64 ? cmps[p] : task_compare(t, p, &got->args[p], &refs[k].args[p]);
                if (cmp.rel_l2 > set_worst && isfinite(cmp.rel_l2)) set_worst = cmp.rel_l2;
                if (!cmp.ok) {
                    ok = false;
                    snprintf(why, sizeof why, "output '%s': rel L2 %.3g (tol %.1g), max abs %.3g, %zu NaN%s, first bad element %zu",
                             cmp.param, cmp.rel_l2, cmp.tol, cmp.max_abs, cmp.nan_count, cmp.nan_count == 1 ? "" : "s",
                             cmp.first_bad == SIZE_MAX ? 0 : cmp.first_bad);
                }
            }
            if (mem_ok) {   /* reward hygiene: a pass must be real work; a failure that never ran says so */
                char hw[400];
                gpu_hyg hy = gpu_hygiene_outputs(t, in, got, &refs[k], hw, sizeof hw);
                if (hy == GPU_HYG_NOT_RUN || (ok && hy != GPU_HYG_NONE)) {
                    ok = false;
                    snprintf(why, sizeof why, "%s", hw);
                    set_hy = hy;
                }
            }
            /* a failure on a resident copy counts only when that copy was what the host holds (else an
             * earlier kernel's stray write altered it: refreshed, the set runs again, once) */
            if (!ok && from_resident && may_redo && !resident_intact(h, fd, s, k, in)) {
                may_redo = false;
                goto run_set;
            }
            checks++;
            clean = clean && mem_ok;
            if (set_worst > worst) worst = set_worst;
            if (set_hy != GPU_HYG_NONE && !first_fail[0]) json_object_set_new(c->res, "hygiene", json_string(gpu_hyg_name(set_hy)));
            if (ok) passed++;
            else if (!first_fail[0])
                snprintf(first_fail, sizeof first_fail, "size %s, distribution %s, seed %llu: %s", sizes,
                         t->dists[in->dist_index], (unsigned long long)in->seed, why);
            if (!ok && !j->o.all_sets) {
                stop = true;
                break;
            }
        }
        if (owned) free_sets(ins, refs, ninst);
    }
    json_object_set_new(c->res, "checks", json_integer(checks));
    json_object_set_new(c->res, "checks_passed", json_integer(passed));
    json_object_set_new(c->res, "checks_total", json_integer(nsets));
    json_object_set_new(c->res, "refs_built", json_integer(h->cache.built));
    free(order);
    json_object_set_new(c->res, "worst_rel_l2", json_real(worst));
    json_object_set_new(c->res, "sets_s", json_real(now_s() - t_sets));
    char msg[1400];
    if (stop || passed != checks) {
        if (stop)
            snprintf(msg, sizeof msg, "input set %d of %d wrong (checking stops at the first wrong set; --all-sets runs them all): %s",
                     checks, nsets, first_fail);
        else snprintf(msg, sizeof msg, "%d of %d input sets wrong; first: %s", checks - passed, checks, first_fail);
        json_object_set_new(c->res, "status", json_string("wrong"));
        json_object_set_new(c->res, "detail", json_string(msg));
        return clean;
    }
    /* ---- timing ---- */
    if (j->o.timing) {
        double t_timing = now_s();
        int ts = 0;
        for (int s = 0; s < t->nsizes; s++)
            if (t->sizes[s].time_it) ts = s;
        task_inst own, *in = &own;   /* the timing inputs are input set (ts, distribution 0, seed 1): kept, or built */
        bool kept = h->cache.ins && h->cache.ins[ts];
        if (kept) in = &h->cache.ins[ts][0];
        else if (task_inst_make(t, ts, 0, 1, &own, NULL) != PG_OK) fail(c, fd, "setup-error", "cannot build the timing inputs");
        if (kept) stage(h, fd, ts, 0, in);   /* input set (ts, 0, 1) is instance 0 of its size */
        else upload(c, fd, in, d);
        kargs a;
        make_args(in, d, &a);
        if (!h->timing_ready) {
            int l2 = 0;
            c->api.cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, h->dev);
            h->flush_bytes = (size_t)(l2 > 0 ? l2 : 50 << 20) * 2;
            CK(c->api.cuMemAlloc(&h->flush, h->flush_bytes), "cuMemAlloc(L2 flush)");
            c->n.allocs++;
            CK(c->api.cuEventCreate(&h->e0, 0), "cuEventCreate");
            CK(c->api.cuEventCreate(&h->e1, 0), "cuEventCreate");
            h->timing_ready = true;
        }
        for (int w = 0; w < 3; w++) launch(c, fd, c->fn, in, &a);
        CK(c->api.cuCtxSynchronize(), "warm-up");
        c->n.syncs++;
        int cap = 20000, n = 0;
        float *ms = malloc(sizeof(float) * (size_t)cap);
        if (!ms) fail(c, fd, "setup-error", "out of memory");
        double total = 0, t0 = now_s();
        int min_trials = j->o.min_trials > 0 ? j->o.min_trials : 100;
        double min_ms = j->o.min_ms > 0 ? j->o.min_ms : 50;
        while (n < cap && (n < min_trials || total < min_ms) && now_s() - t0 < 20.0) {
            CK(c->api.cuMemsetD32(h->flush, (unsigned)n, h->flush_bytes / 4), "L2 flush");
            CK(c->api.cuEventRecord(h->e0, NULL), "cuEventRecord");
            launch(c, fd, c->fn, in, &a);
            CK(c->api.cuEventRecord(h->e1, NULL), "cuEventRecord");
            CK(c->api.cuEventSynchronize(h->e1), "timed launch");
            c->n.syncs++;
            float v = 0;
            CK(c->api.cuEventElapsedTime(&v, h->e0, h->e1), "cuEventElapsedTime");
            ms[n++] = v;
            total += v;
        }
        qsort(ms, (size_t)n, sizeof(float), cmpf);
        json_object_set_new(c->res, "trials", json_integer(n));
        json_object_set_new(c->res, "ms_median", json_real(n ? (n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2])) : 0));
        json_object_set_new(c->res, "ms_min", json_real(n ? ms[0] : 0));
        json_object_set_new(c->res, "ms_max", json_real(n ? ms[n - 1] : 0));
        free(ms);
        if (!kept) task_inst_free(&own);
        json_object_set_new(c->res, "timing_s", json_real(now_s() - t_timing));
    }
    json_object_set_new(c->res, "status", json_string("ok"));
    return true;
}

/* A one-shot child: one kernel in a fresh context (gpu_run_opts.memo NULL, or PTXGEN_GPU_WORKER=0). */
static void child_main(void *arg, int fd) {
    job *j = arg;
    harness hh, *h = &hh;
    memset(h, 0, sizeof *h);
    h->got = calloc((size_t)j->t->nsizes + 1, sizeof *h->got);   /* NULL: one got for all sizes */
    h->cache.nsizes = j->t->nsizes;   /* nothing kept (no ins table): each size built as reached, then freed */
    h->cache.ninst = j->t->ndists * (j->o.seeds > 0 ? j->o.seeds : 5);
    h->c.res = json_object();
    harness_open(h, fd);
    check_kernel(h, fd, j);
    emit(&h->c, fd);
    _exit(0);
}

/* ---- the worker: one long-lived harness process per gen (gpu_memo) ------------------------ */
/* A request: the options of one check and the kernel's text (ptx_len bytes after it). */
typedef struct {
    uint32_t magic;
    int32_t timing, all_sets, min_trials;
    double min_ms;
    uint64_t ptx_len;
} worker_req;
#define WORKER_MAGIC 0x70786731u

/* Budget for the kept input sets: $PTXGEN_GPU_CACHE_MB, else half the memory up to 32 GiB. */
static size_t cache_budget(void) {
    const char *e = getenv("PTXGEN_GPU_CACHE_MB");
    if (e && *e) return (size_t)strtoull(e, NULL, 10) << 20;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    size_t half = pages > 0 && psz > 0 ? (size_t)pages * (size_t)psz / 2 : (size_t)4 << 30;
    return half < ((size_t)32 << 30) ? half : (size_t)32 << 30;
}

/* Answers requests on `sock` until the parent closes it.  The task, the oracle and the seeds are
 * fixed for its life (the parent starts another worker for others).  A CUDA error, a setup error
 * or a kernel that wrote outside its outputs ends it after its answer ("retire"). */
static void worker_main(const job *base, struct shared_sets *shared, int sock) {
    harness hh, *h = &hh;
    memset(h, 0, sizeof *h);
    h->c.framed = true;
    h->cache.shared = shared;
    h->got = calloc((size_t)base->t->nsizes + 1, sizeof *h->got);
    h->cache.oracle = base->oracle_ptx != NULL;
    exiting_cache = &h->cache;
    exit_hook = publish_sets;
    h->cache.nsizes = base->t->nsizes;
    h->cache.ninst = base->t->ndists * (base->o.seeds > 0 ? base->o.seeds : 5);
    h->cache.budget = cache_budget();
    h->cache.ins = calloc((size_t)h->cache.nsizes + 1, sizeof *h->cache.ins);
    h->cache.ref = calloc((size_t)h->cache.nsizes + 1, sizeof *h->cache.ref);
    if (!h->cache.ins || !h->cache.ref) { free(h->cache.ins); free(h->cache.ref); h->cache.ins = h->cache.ref = NULL; }
    if (h->cache.ins) h->resident = calloc((size_t)h->cache.nsizes + 1, sizeof *h->resident);   /* NULL: from the host each time */
    for (;;) {
        worker_req q;
        if (!pg_read_full(sock, &q, sizeof q) || q.magic != WORKER_MAGIC || q.ptx_len > (64u << 20)) _exit(0);
        char *ptx = malloc(q.ptx_len + 1);
        if (!ptx || !pg_read_full(sock, ptx, q.ptx_len)) _exit(0);
        ptx[q.ptx_len] = 0;
        job j = *base;
        j.ptx = ptx;
        j.o.timing = q.timing;
        j.o.all_sets = q.all_sets;
        j.o.min_trials = q.min_trials;
        j.o.min_ms = q.min_ms;
        h->c.res = json_object();
        if (!h->open) harness_open(h, sock);
        bool keep = check_kernel(h, sock, &j);
        if (!keep) json_object_set_new(h->c.res, "retire", json_true());
        emit(&h->c, sock);
        if (!keep) {
            publish_sets();
            _exit(0);
        }
        if (h->c.mod) h->c.api.cuModuleUnload(h->c.mod);
        h->c.mod = NULL;
        json_decref(h->c.res);
        free(ptx);
    }
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
    k->refs_built = (int)json_integer_value(json_object_get(j, "refs_built"));
    k->htod_bytes = json_integer_value(json_object_get(j, "htod_bytes"));
    k->dtoh_bytes = json_integer_value(json_object_get(j, "dtoh_bytes"));
    k->dtod_bytes = json_integer_value(json_object_get(j, "dtod_bytes"));
    k->allocs = json_integer_value(json_object_get(j, "allocs"));
    k->syncs = json_integer_value(json_object_get(j, "syncs"));
    k->resident_refreshed = json_integer_value(json_object_get(j, "resident_refreshed"));
    k->prep_wait_s = json_number_value(json_object_get(j, "prep_wait_s"));
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

/* ---- the worker's parent side ---------------------------------------------------------------
 * One harness process serves the kernels of one gen (gpu_memo): CUDA is initialised, the input
 * sets and their references are built, and nvcc's baseline runs once per worker, not per kernel.
 * Isolation stays: a kernel that faults (a CUDA error poisons the context), hangs, kills the
 * process or writes outside its outputs ends that worker; the next kernel gets a fresh one. */
/* gen's preparation of a task's sets (gpu_memo_prepare): a child process that publishes into the workers'
 * shared region, where it also reports (struct shared_sets prep_*); gen keeps its pid and start. */
struct gpu_prep {
    pid_t pid;                  /* 0: none started, or reaped */
    double t0;                  /* its start */
    int total;                  /* the task's sets */
};
struct gpu_worker {
    pid_t pid;                  /* 0: none running */
    int sock;
    const task_spec *t;         /* what it was started for: another task, oracle or seeds start another */
    char *task_path, *oracle;
    int seeds;
    struct shared_sets *shared; /* the sets its workers share, kept across a fault (NULL: none) */
    size_t shared_len;
    struct gpu_prep prep;       /* the preparation of those sets (state PS_OFF: none) */
};

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
    struct gpu_worker worker;   /* the harness process of its kernels (pid 0: none yet) */
};

static bool worker_enabled(void) {
    const char *e = getenv("PTXGEN_GPU_WORKER");
    return !(e && !strcmp(e, "0"));
}

static void worker_stop(struct gpu_worker *w, bool kill_now) {
    if (w->pid > 0) {
        if (w->sock >= 0) close(w->sock);   /* EOF: an idle worker exits */
        w->sock = -1;
        if (kill_now) kill(w->pid, SIGKILL);
        int status;
        for (int i = 0; i < 500; i++) {   /* up to 5 s to exit (it frees its context), then killed */
            pid_t r = waitpid(w->pid, &status, WNOHANG);
            if (r == w->pid || (r < 0 && errno != EINTR)) { w->pid = 0; break; }
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        if (w->pid > 0) {
            kill(w->pid, SIGKILL);
            while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {}
        }
    }
    if (w->sock >= 0) close(w->sock);
    w->sock = -1;
    w->pid = 0;
}

/* The preparation's process reaped when it has ended (PREP_POLL), or waited for (PREP_WAIT), or killed and
 * waited for (PREP_KILL).  One that ended before its report (a signal, out of memory) is "failed", one we
 * killed "stopped"; either way its unfinished sizes are left to the workers, so none waits on. */
enum { PREP_POLL, PREP_WAIT, PREP_KILL };
static void prep_reap(struct gpu_worker *w, int how) {
    struct gpu_prep *p = &w->prep;
    if (p->pid <= 0) return;
    if (how == PREP_KILL) kill(p->pid, SIGKILL);
    int status = 0;
    pid_t r;
    while ((r = waitpid(p->pid, &status, how == PREP_POLL ? WNOHANG : 0)) < 0 && errno == EINTR) {}
    if (r == 0) return;   /* still running */
    p->pid = 0;
    struct shared_sets *sh = w->shared;
    if (!sh || __atomic_load_n(&sh->prep_state, __ATOMIC_ACQUIRE) != PS_RUNNING) return;
    if (how != PREP_KILL && r > 0 && WIFSIGNALED(status))
        snprintf(sh->prep_why, sizeof sh->prep_why, "the preparation's process was killed by signal %d", WTERMSIG(status));
    else if (how != PREP_KILL)
        snprintf(sh->prep_why, sizeof sh->prep_why, "the preparation's process ended without its report (exit %d)",
                 r > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    for (int s = 0; s < sh->nsizes; s++) __atomic_store_n(prep_word(sh, s), PREP_NONE, __ATOMIC_RELEASE);
    sh->prep_end = now_s();
    __atomic_store_n(&sh->prep_state, how == PREP_KILL ? PS_STOPPED : PS_FAILED, __ATOMIC_RELEASE);
}

/* The worker stopped, and what it was for forgotten: its task, the preparation and the shared sets. */
static void worker_forget(struct gpu_worker *w) {
    prep_reap(w, PREP_KILL);   /* first: it writes into the region, and a worker may be waiting for it */
    worker_stop(w, false);
    if (w->shared) munmap(w->shared, w->shared_len);
    free(w->task_path);
    free(w->oracle);
    memset(w, 0, sizeof *w);
    w->sock = -1;
}

/* The region for one task's sets: reserved, not committed (pages are taken as sets are copied in). */
static void shared_map(struct gpu_worker *w, const job *base) {
    const task_spec *t = base->t;
    size_t len = cache_budget(), head = sizeof(struct shared_sets) + sizeof(uint64_t) * 2 * (size_t)t->nsizes;
    if (len < head + 4096) return;   /* PTXGEN_GPU_CACHE_MB=0: nothing kept */
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return;   /* each worker then builds its own */
    struct shared_sets *sh = p;
    sh->cap = len;
    sh->used = head;
    sh->nsizes = t->nsizes;
    sh->ninst = t->ndists * (base->o.seeds > 0 ? base->o.seeds : 5);
    w->shared = sh;
    w->shared_len = len;
}

static bool same_str(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

/* What the workers are for, until another task comes (worker_forget): the task, its oracle and seeds,
 * and the region of their shared sets.  False when out of memory. */
static bool worker_bind(struct gpu_worker *w, const job *base) {
    if (w->t) return true;
    w->task_path = strdup(base->t->path ? base->t->path : "");
    w->oracle = base->oracle_ptx ? strdup(base->oracle_ptx) : NULL;
    if (!w->task_path || (base->oracle_ptx && !w->oracle)) {
        worker_forget(w);
        return false;
    }
    w->t = base->t;
    w->seeds = base->o.seeds;
    shared_map(w, base);
    return true;
}

static bool worker_start(struct gpu_worker *w, const job *base) {
    int sv[2];
    if (!worker_bind(w, base)) return false;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return false;
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return false;
    }
    if (pid == 0) {
        /* gen killed (a timeout, ^C): no parent's watchdog is left, so a kernel that hangs here
         * must not keep the GPU; the worker goes with its parent */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(0);
        /* only the socket and stdio: an inherited end of another pipe (the GPU engine's child, say)
         * held open here would hide that pipe's EOF from its reader */
        long maxfd = sysconf(_SC_OPEN_MAX);
        if (maxfd < 0 || maxfd > 65536) maxfd = 65536;
        for (int fd = 3; fd < maxfd; fd++)
            if (fd != sv[1]) close(fd);
        worker_main(base, w->shared, sv[1]);
        _exit(0);
    }
    close(sv[1]);
    w->pid = pid;
    w->sock = sv[0];
    return true;
}

/* ---- gen's preparation of the input sets (gpu_memo_prepare) ---------------------------------- */
/* Is the preparation still at work?  (Reaps its process when it has ended.) */
static bool prep_running(struct gpu_worker *w) {
    if (w->prep.pid <= 0 || !w->shared) return false;
    prep_reap(w, PREP_POLL);
    return __atomic_load_n(&w->shared->prep_state, __ATOMIC_ACQUIRE) == PS_RUNNING;
}

/* The preparation's process: the sizes smallest first, as the checks reach them, each built (build_sets, the
 * workers' own call), published, its copy freed.  A size that fails, does not fit or is stopped ends it: the
 * sizes after it are left to the workers (prep_word NONE), which build them as without a preparation. */
static void prep_main(const task_spec *t, struct shared_sets *sh, int seeds) {
    int n = sh->ninst, end = PS_DONE, *order = size_order(t);
    if (!order) {
        end = PS_FAILED;
        snprintf(sh->prep_why, sizeof sh->prep_why, "out of memory");
    }
    for (int oi = 0; order && oi < t->nsizes && end == PS_DONE; oi++) {
        int s = order[oi];
        task_inst *ins = calloc((size_t)n, sizeof(task_inst)), *ref = calloc((size_t)n, sizeof(task_inst));
        char why[700] = "out of memory";
        if (!ins || !ref || !build_sets(t, s, n, seeds, true, __atomic_load_n(&sh->prep_threads, __ATOMIC_RELAXED), ins, ref, why, sizeof why)) {
            end = PS_FAILED;
            snprintf(sh->prep_why, sizeof sh->prep_why, "%s", why);
        } else if (!shared_put(sh, s, ins, ref, __atomic_load_n(&sh->prep_threads, __ATOMIC_RELAXED))) end = PS_FULL;
        else __atomic_add_fetch(&sh->prep_sets, n, __ATOMIC_RELAXED);
        if (ins && ref) free_sets(ins, ref, n);
        else {
            free(ins);
            free(ref);
        }
        __atomic_store_n(prep_word(sh, s), PREP_NONE, __ATOMIC_RELEASE);   /* published (off[s]) or never will be */
    }
    for (int s = 0; s < t->nsizes; s++) __atomic_store_n(prep_word(sh, s), PREP_NONE, __ATOMIC_RELEASE);
    free(order);
    sh->prep_end = now_s();
    __atomic_store_n(&sh->prep_state, end, __ATOMIC_RELEASE);
}

void gpu_memo_prepare(gpu_memo *m, const task_spec *t, const gpu_run_opts *o, int threads) {
    const char *e = getenv("PTXGEN_GPU_PREPARE");
    if (!m || !t || t->nsizes < 1 || !t->ref.kind || strcmp(t->ref.kind, "c") || !worker_enabled() || (e && !strcmp(e, "0")))
        return;
    struct gpu_worker *w = &m->worker;
    if (w->t) return;   /* bound to a task already (a check ran): its workers build their own sets */
    job base = {t, NULL, NULL, *o};
    if (!worker_bind(w, &base) || !w->shared) return;   /* no region (PTXGEN_GPU_CACHE_MB=0): nowhere to publish */
    struct shared_sets *sh = w->shared;
    int seeds = o->seeds > 0 ? o->seeds : 5;   /* as the workers count them (set_cache.ninst, size_sets) */
    sh->prep_threads = threads > 0 ? threads : ncpus() > 3 ? ncpus() - 2 : 1;
    for (int s = 0; s < t->nsizes; s++) __atomic_store_n(prep_word(sh, s), PREP_PENDING, __ATOMIC_RELEASE);
    __atomic_store_n(&sh->prep_state, PS_RUNNING, __ATOMIC_RELEASE);
    w->prep.t0 = now_s();
    w->prep.total = t->nsizes * sh->ninst;
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* gen gone (killed, ^C): nothing left to prepare for */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(0);
        /* no inherited descriptor (the GPU engine's pipes, a worker's socket) held open here */
        long maxfd = sysconf(_SC_OPEN_MAX);
        if (maxfd < 0 || maxfd > 65536) maxfd = 65536;
        for (int fd = 3; fd < maxfd; fd++) close(fd);
        prep_main(t, sh, seeds);
        _exit(0);
    }
    if (pid < 0) {   /* no process: the workers build the sets, as without a preparation */
        for (int s = 0; s < t->nsizes; s++) __atomic_store_n(prep_word(sh, s), PREP_NONE, __ATOMIC_RELEASE);
        __atomic_store_n(&sh->prep_state, PS_OFF, __ATOMIC_RELEASE);
        return;
    }
    w->prep.pid = pid;
}

void gpu_memo_prepare_threads(gpu_memo *m, int threads) {
    struct gpu_worker *w = m ? &m->worker : NULL;
    if (!w || !prep_running(w)) return;
    __atomic_store_n(&w->shared->prep_threads, threads > 0 ? threads : ncpus() > 3 ? ncpus() - 2 : 1, __ATOMIC_RELAXED);
}

void gpu_memo_prep_stats(gpu_memo *m, bool wait, gpu_prep_stats *out) {
    static const char *names[] = {"off", "running", "done", "failed", "full", "stopped"};
    memset(out, 0, sizeof *out);
    out->state = names[PS_OFF];
    struct gpu_worker *w = m ? &m->worker : NULL;
    struct shared_sets *sh = w ? w->shared : NULL;
    if (!sh) return;
    prep_reap(w, wait ? PREP_WAIT : PREP_POLL);
    int st = __atomic_load_n(&sh->prep_state, __ATOMIC_ACQUIRE);
    out->state = names[st >= PS_OFF && st <= PS_STOPPED ? st : PS_OFF];
    out->sets = __atomic_load_n(&sh->prep_sets, __ATOMIC_RELAXED);
    out->total = st == PS_OFF ? 0 : w->prep.total;
    out->seconds = st == PS_OFF ? 0 : (st == PS_RUNNING ? now_s() : sh->prep_end) - w->prep.t0;
    if (st == PS_FAILED) snprintf(out->why, sizeof out->why, "%s", sh->prep_why);
}

/* Reads one answer (length, then JSON; *out malloc'd) within the deadline.  0: read; 1: timeout;
 * 2: EOF or an error. */
static int recv_answer(int fd, double deadline, char **out, struct gpu_worker *prep) {
    uint64_t len = 0;
    size_t got = 0, want = sizeof len;
    unsigned char *dst = (unsigned char *)&len;
    double paused_at = 0;
    *out = NULL;
    for (;;) {
        /* while gen's preparation still builds the sets the worker may be waiting for, the watchdog's
         * clock stands still: the wait is the sets', not the kernel's */
        double now = now_s();
        if (paused_at > 0) deadline += now - paused_at;
        paused_at = prep_running(prep) ? now : 0;
        double left = deadline - now;
        if (left <= 0) return 1;
        struct pollfd p = {fd, POLLIN, 0};
        int wait_ms = (int)(left * 1000) + 1;
        if (paused_at > 0 && wait_ms > 100) wait_ms = 100;
        int pr = poll(&p, 1, wait_ms);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) continue;
        ssize_t k = want > got ? read(fd, dst + got, want - got) : 0;
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0 && want > got) return 2;
        got += (size_t)(k > 0 ? k : 0);
        if (got < want) continue;
        if (*out) return 0;
        if (len > (64u << 20) || !(*out = malloc((size_t)len + 1))) return 2;
        (*out)[len] = 0;
        dst = (unsigned char *)*out;
        got = 0;
        want = (size_t)len;
        if (!want) return 0;
    }
}

/* One kernel through the memo's worker, started when there is none (or it was for another task). */
static void run_in_worker(struct gpu_worker *w, const job *j, gpu_kernel_result *k) {
    if (w->t && (w->t != j->t || !same_str(w->task_path, j->t->path ? j->t->path : "") || !same_str(w->oracle, j->oracle_ptx) ||
                 w->seeds != j->o.seeds))   /* another task: another worker, other sets */
        worker_forget(w);
    bool started = false;
    worker_req q = {WORKER_MAGIC, j->o.timing, j->o.all_sets, j->o.min_trials, j->o.min_ms, strlen(j->ptx)};
    /* the checks have begun (the draw is over): the preparation's next sizes get every core, as a worker's own build */
    if (prep_running(w)) __atomic_store_n(&w->shared->prep_threads, ncpus(), __ATOMIC_RELAXED);
    for (int attempt = 0; attempt < 2; attempt++) {   /* a worker found dead between kernels is replaced once */
        if (w->pid <= 0) {
            if (!worker_start(w, j)) {
                memset(k, 0, sizeof *k);
                k->status = GPU_SETUP_ERROR;
                snprintf(k->detail, sizeof k->detail, "cannot start the harness process: %s", strerror(errno));
                return;
            }
            started = true;
        }
        if (pg_send_full(w->sock, &q, sizeof q) && pg_send_full(w->sock, j->ptx, q.ptx_len)) break;
        worker_stop(w, true);
        if (attempt) {
            memset(k, 0, sizeof *k);
            k->status = GPU_FAULT;
            snprintf(k->detail, sizeof k->detail, "the harness process took no request");
            return;
        }
    }
    char *ans = NULL;
    int rc = recv_answer(w->sock, now_s() + j->o.timeout_s, &ans, w);
    int exit_code = -1;
    bool retire = rc != 0;
    if (rc == 0) {
        json_t *a = json_loads(ans, 0, NULL);
        const char *st = json_string_value(json_object_get(a, "status"));
        retire = !st || json_is_true(json_object_get(a, "retire")) ||
                 (strcmp(st, "ok") && strcmp(st, "wrong") && strcmp(st, "load-error"));   /* it exits after these */
        json_decref(a);
    }
    if (retire) {   /* it exits after its answer, or died, or hangs (killed): the next kernel gets another */
        pid_t pid = w->pid;
        int status = 0;
        close(w->sock);
        w->sock = -1;
        if (rc == 1) kill(pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        w->pid = 0;
    }
    parse_child(rc == 0 ? ans : NULL, rc == 1 ? 1 : rc == 0 ? 0 : 2, exit_code, j->o.timeout_s, k);
    k->started = started;
    free(ans);
}

static void run_one(gpu_memo *m, const task_spec *t, const char *ptx, const char *oracle, const gpu_run_opts *o, gpu_kernel_result *k) {
    job j = {t, ptx, oracle, *o};
    if (m && worker_enabled()) {
        run_in_worker(&m->worker, &j, k);
        return;
    }
    char *out = NULL;
    int exit_code = 0;
    int rc = gpu_isolate(child_main, &j, o->timeout_s, &out, &exit_code);
    parse_child(out, rc, exit_code, o->timeout_s, k);
    k->started = true;
    free(out);
}

gpu_memo *gpu_memo_new(void) {
    const char *e = getenv("PTXGEN_GPU_MEMO");   /* the switch of every caller: gpu.h */
    if (e && !strcmp(e, "0")) return NULL;
    gpu_memo *m = calloc(1, sizeof(gpu_memo));
    if (m) m->worker.sock = -1;
    return m;
}

void gpu_memo_free(gpu_memo *m) {
    if (!m) return;
    worker_forget(&m->worker);
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

static void add_counts(gpu_task_result *r, const gpu_kernel_result *k) {
    r->htod_bytes += k->htod_bytes;
    r->dtoh_bytes += k->dtoh_bytes;
    r->dtod_bytes += k->dtod_bytes;
    r->allocs += k->allocs;
    r->syncs += k->syncs;
    r->resident_refreshed += k->resident_refreshed;
    r->prep_wait_s += k->prep_wait_s;
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
    run_one(o->memo, t, ptx, is_cu ? base_ptx : NULL, o, &r->kernel);
    r->kernel_s = now_s() - t1;
    r->cuda_starts += r->kernel.started;
    r->refs_built += r->kernel.refs_built;
    add_counts(r, &r->kernel);
    finish_metrics(t, &r->kernel, &dev, have_dev);
    if (o->sanitize && r->kernel.status == GPU_OK && !getenv("PTXGEN_NO_SANITIZE") && system("command -v compute-sanitizer >/dev/null 2>&1") == 0)
        sanitize(t, ptx_path, &r->kernel);
    /* the baseline is for a speedup, which only a correct kernel has; run once per memo */
    if (o->baseline && base_ptx && r->kernel.status == GPU_OK) {
        double t2 = now_s();
        if (!memo_baseline_get(o->memo, t, base_ptx, o, &r->baseline)) {
            run_one(o->memo, t, base_ptx, is_cu ? base_ptx : NULL, o, &r->baseline);
            r->baseline_ran = true;
            r->cuda_starts += r->baseline.started;
            r->refs_built += r->baseline.refs_built;
            add_counts(r, &r->baseline);
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

/* ---- for the tests (gpu_internal.h) ---------------------------------------------------------- */
bool gpu_memo_shared_sets(gpu_memo *m, int s, const task_inst **ins, const task_inst **ref, int *n) {
    struct shared_sets *sh = m ? m->worker.shared : NULL;
    uint64_t off = sh && s >= 0 && s < sh->nsizes ? __atomic_load_n(&sh->off[s], __ATOMIC_ACQUIRE) : 0;
    if (!off) return false;
    *ins = (const task_inst *)((const char *)sh + off);
    *ref = *ins + sh->ninst;
    *n = sh->ninst;
    return true;
}
