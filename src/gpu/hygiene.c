/* hygiene.c — reward hygiene: checks that a kernel which "passes" did the
 * work, so that search and training on the harness's verdict cannot be gamed.
 *
 * The lessons are KernelBench's and Sakana's withdrawn CUDA results: a
 * kernel that copies an input, writes one constant, never runs, or is timed
 * faster than the hardware can move its bytes can look correct or fast on a
 * weak harness.  The harness already poisons outputs with NaN, guards every
 * buffer and checks inputs stay unchanged; these are the checks on top.
 * Everything here is a pure function over host buffers and the PTX text, so
 * it is tested without a GPU (src/gpu/test_hygiene.c). */
#include "ptxgen/gpu.h"
#include "ptxgen/ptx.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *gpu_hyg_name(gpu_hyg h) {
    static const char *n[GPU_HYG__COUNT] = {"none", "not-run", "copies-input", "constant", "launch", "faster-than-light"};
    return (unsigned)h < GPU_HYG__COUNT ? n[h] : "?";
}

static double elem(task_dtype t, const void *p, size_t i) {
    switch (t) {
    case TASK_T_F16: return task_f16_to_f32(((const uint16_t *)p)[i]);
    case TASK_T_BF16: return task_bf16_to_f32(((const uint16_t *)p)[i]);
    case TASK_T_F32: return ((const float *)p)[i];
    case TASK_T_F64: return ((const double *)p)[i];
    case TASK_T_S8: return ((const int8_t *)p)[i];
    case TASK_T_S16: return ((const int16_t *)p)[i];
    case TASK_T_S32: return ((const int32_t *)p)[i];
    case TASK_T_S64: return (double)((const int64_t *)p)[i];
    case TASK_T_U8: return ((const uint8_t *)p)[i];
    case TASK_T_U16: return ((const uint16_t *)p)[i];
    case TASK_T_U32: return ((const uint32_t *)p)[i];
    case TASK_T_U64: return (double)((const uint64_t *)p)[i];
    default: return 0;
    }
}

/* Is the buffer one bit pattern repeated (count >= 2)? */
static bool all_same(const task_arg *a, int es) {
    if (a->count < 2) return false;
    for (size_t i = 1; i < a->count; i++)
        if (memcmp((const char *)a->data + i * (size_t)es, a->data, (size_t)es) != 0) return false;
    return true;
}

/* Does the reference's output vary by more than rounding?  Floats: its spread
 * exceeds a tenth of the tolerance relative to its largest magnitude (a
 * constant within tolerance of it would pass the comparison, so the margin
 * must sit inside the tolerance, and above the ulp noise of a reference that
 * is constant in exact arithmetic).  Integers: any two elements differ. */
static bool ref_varies(const task_spec *t, int p, const task_arg *ref) {
    task_dtype dt = t->params[p].dtype;
    if (ref->count < 2) return false;
    if (!task_dtype_is_float(dt)) return !all_same(ref, task_dtype_size(dt));
    double lo = INFINITY, hi = -INFINITY, mag = 0;
    for (size_t i = 0; i < ref->count; i++) {
        double v = elem(dt, ref->data, i);
        if (!isfinite(v)) continue;
        if (v < lo) lo = v;
        if (v > hi) hi = v;
        if (fabs(v) > mag) mag = fabs(v);
    }
    if (!(hi > lo)) return false;
    return hi - lo > 0.1 * t->tol[dt] * (mag > 1e-30 ? mag : 1e-30);
}

/* Does the reference's output differ from `a` (the same dtype and count) by
 * more than a tenth of the tolerance (floats, relative L2) or at all (integers)? */
static bool ref_differs(const task_spec *t, int p, const task_arg *ref, const task_arg *a) {
    task_cmp c = task_compare(t, p, a, ref);   /* a as the "got" side: its distance from the reference */
    if (!task_dtype_is_float(t->params[p].dtype)) return c.mismatches > 0;
    return c.rel_l2 > 0.1 * c.tol || c.nan_count > 0;
}

bool gpu_hygiene_oracle_wrote(const task_spec *t, const task_inst *up, const task_inst *ref) {
    bool any = false;
    for (int p = 0; p < t->nparams; p++) {
        if (!t->params[p].is_pointer || t->params[p].role != TASK_ROLE_OUT || !up->args[p].bytes) continue;
        any = true;
        if (ref->args[p].bytes != up->args[p].bytes || memcmp(ref->args[p].data, up->args[p].data, up->args[p].bytes)) return true;
    }
    return !any;
}

gpu_hyg gpu_hygiene_outputs(const task_spec *t, const task_inst *before, const task_inst *got, const task_inst *ref,
                            char *why, size_t n) {
    if (why && n) why[0] = 0;
    /* 1. not run: every output is byte for byte what was uploaded, while the reference wrote one of them */
    int nout = 0, untouched = 0, ref_wrote = -1;
    for (int p = 0; p < t->nparams; p++) {
        if (!t->params[p].is_pointer || t->params[p].role == TASK_ROLE_IN) continue;
        nout++;
        size_t b = before->args[p].bytes;
        if (got->args[p].bytes == b && !memcmp(got->args[p].data, before->args[p].data, b)) untouched++;
        if (ref_wrote < 0 && ref->args[p].bytes == b && b && memcmp(ref->args[p].data, before->args[p].data, b) != 0)
            ref_wrote = p;
    }
    if (nout && untouched == nout && ref_wrote >= 0) {
        if (why) snprintf(why, n, "did not run or write: every output is exactly as uploaded (poison%s), while the reference writes '%s'",
                          nout > 1 || t->params[ref_wrote].role == TASK_ROLE_INOUT ? " or the in/out input" : "",
                          t->params[ref_wrote].name);
        return GPU_HYG_NOT_RUN;
    }
    /* 2. an output that is a copy of an input buffer (for in/out: of its own input) */
    for (int p = 0; p < t->nparams; p++) {
        if (!t->params[p].is_pointer || t->params[p].role == TASK_ROLE_IN) continue;
        const task_arg *g = &got->args[p];
        for (int q = 0; q < t->nparams; q++) {
            if (!t->params[q].is_pointer || t->params[q].role == TASK_ROLE_OUT) continue;
            if (t->params[q].dtype != t->params[p].dtype) continue;
            const task_arg *in = &before->args[q];   /* q's value as uploaded (an in/out's input) */
            if (in->bytes != g->bytes || g->count < 2 || memcmp(in->data, g->data, g->bytes) != 0) continue;
            if (!ref_differs(t, p, &ref->args[p], in)) continue;
            if (why) {
                if (q == p) snprintf(why, n, "output '%s' is left equal to its input byte for byte, the reference's is not (not computed)",
                                     t->params[p].name);
                else snprintf(why, n, "output '%s' equals input '%s' byte for byte, the reference's does not (a copy, not a computation)",
                              t->params[p].name, t->params[q].name);
            }
            return GPU_HYG_COPIES_INPUT;
        }
    }
    /* 3. one constant everywhere where the reference varies */
    for (int p = 0; p < t->nparams; p++) {
        if (!t->params[p].is_pointer || t->params[p].role == TASK_ROLE_IN) continue;
        const task_arg *g = &got->args[p];
        if (!all_same(g, task_dtype_size(t->params[p].dtype)) || !ref_varies(t, p, &ref->args[p])) continue;
        if (why) snprintf(why, n, "output '%s' holds one value (%g) in all %zu elements, the reference's varies", t->params[p].name,
                          elem(t->params[p].dtype, g->data, 0), g->count);
        return GPU_HYG_CONSTANT;
    }
    return GPU_HYG_NONE;
}

gpu_hyg gpu_hygiene_launch(const task_spec *t, const char *ptx, char *why, size_t n) {
    if (why && n) why[0] = 0;
    ptx_module *m = NULL;
    pg_diag_sink quiet = {0};
    if (ptx_parse(ptx, strlen(ptx), "kernel.ptx", &m, &quiet) != PG_OK) {
        ptx_module_free(m);
        return GPU_HYG_NONE;   /* not this check's verdict: the load fails and says why */
    }
    const ptx_func *f = NULL;
    for (int i = 0; i < m->nfuncs && !f; i++)
        if (m->funcs[i].is_entry && !strcmp(m->funcs[i].name, t->kernel)) f = &m->funcs[i];
    gpu_hyg h = GPU_HYG_NONE;
    for (int k = 0; f && k < f->nperf && h == GPU_HYG_NONE; k++) {
        const ptx_perf *pf = &f->perf[k];
        bool req = !strcmp(pf->name, ".reqntid"), max = !strcmp(pf->name, ".maxntid");
        if (!req && !max) continue;
        int64_t decl[3] = {1, 1, 1}, decl_threads = 1;
        for (int d = 0; d < pf->nvals && d < 3; d++) decl[d] = pf->vals[d];
        for (int d = 0; d < 3; d++) decl_threads *= decl[d];
        for (int s = 0; s < t->nsizes && h == GPU_HYG_NONE; s++) {
            int64_t b[3] = {1, 1, 1};
            for (int d = 0; d < 3; d++)
                if (t->block[d] && !expr_size_eval(t->block[d], &t->sizes[s].env, &b[d], NULL, 0)) b[d] = 1;
            bool ok = req ? decl[0] == b[0] && decl[1] == b[1] && decl[2] == b[2] : decl_threads >= b[0] * b[1] * b[2];
            if (!ok) {
                h = GPU_HYG_LAUNCH;
                if (why) snprintf(why, n, "the kernel declares %s %lld, %lld, %lld but the task launches blocks of %lld x %lld x %lld (size %d): "
                                  "it cannot run as specified", pf->name, (long long)decl[0], (long long)decl[1], (long long)decl[2],
                                  (long long)b[0], (long long)b[1], (long long)b[2], s);
            }
        }
    }
    ptx_module_free(m);
    return h;
}

double gpu_sol_seconds(double bytes, double flops, const gpu_devinfo *dev) {
    if (!dev || dev->copy_gbps <= 0) return 0;
    double t_mem = bytes / (dev->copy_gbps * 1e9);
    double t_fp = dev->fp32_tflops > 0 ? flops / (dev->fp32_tflops * 1e12) : 0;
    return t_mem > t_fp ? t_mem : t_fp;
}

bool gpu_beyond_sol(double seconds, double bound_s) {
    /* 10% margin: the copy measurement is itself a little below peak */
    return bound_s > 0 && seconds > 0 && seconds < 0.9 * bound_s;
}
