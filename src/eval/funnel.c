/* funnel.c — the verification funnel: the one path that checks a kernel.
 *
 *   validator (+ the task's or a baseline's signature) -> ptxas -> GPU: loads,
 *   correct on every input set -> timed against nvcc
 *
 * `eval`, `gen --verify`, `run --dry-run` and the nvcc wrapper all call
 * eval_funnel; they differ only in options (which stages, where diagnostics
 * go, whether to go on after a failure).  The module is parsed once and kept
 * in the result, with ptxas's report, for callers that want more figures. */
#include "ptxgen/eval.h"
#include "ptxgen/gpu.h"
#include "ptxgen/ptx.h"
#include "ptxgen/task.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Keep the first error for the one-line detail, and pass everything on to the
 * caller's sink with that sink's own counting and limit. */
typedef struct {
    pg_diag *first;
    pg_diag_sink *out;
} tee_sink;

static void tee_diag(void *user, const pg_diag *d) {
    tee_sink *t = user;
    if (d->sev == PG_SEV_ERROR && !t->first->code) *t->first = *d;
    pg_diag_sink *s = t->out;
    if (!s) return;
    if (d->sev == PG_SEV_ERROR) {
        s->nerrors++;
        if (s->max_errors && s->nerrors > s->max_errors) return;
    } else if (d->sev == PG_SEV_WARNING) {
        s->nwarnings++;
    }
    if (s->fn) s->fn(s->user, d);
}

static const ptx_func *defined_entry(const ptx_module *m, const char *name) {
    for (int i = 0; m && i < m->nfuncs; i++)
        if (m->funcs[i].is_entry && m->funcs[i].has_body && !strcmp(m->funcs[i].name, name)) return &m->funcs[i];
    return NULL;
}

/* Same parameters as the baseline's entry: type, and array length for arrays
 * (callers pass the same arguments to both). */
static bool same_params(const ptx_func *a, const ptx_func *b) {
    if (a->nparams != b->nparams) return false;
    for (int i = 0; i < a->nparams; i++)
        if (a->params[i].type != b->params[i].type || a->params[i].ndims != b->params[i].ndims ||
            (a->params[i].ndims && a->params[i].dims[0] != b->params[i].dims[0]))
            return false;
    return true;
}

/* ptxas's target when none is given: the module's last sm_ target (what
 * ptx_ptxas_run would read from the file), else sm_75. */
static const char *module_arch(const ptx_module *m, char *buf, size_t n) {
    buf[0] = 0;
    for (int i = 0; i < m->ntargets; i++)
        if (!strncmp(m->targets[i], "sm_", 3)) snprintf(buf, n, "%s", m->targets[i]);
    return buf[0] ? buf : "sm_75";
}

/* A file for ptxas and the GPU harness when the caller has none: the text, or
 * the printed module, in a temp file (unlinked by the caller). */
static bool temp_copy(const eval_funnel_in *in, const ptx_module *m, char *path, size_t n) {
    pg_buf printed = {0};
    const char *text = in->text;
    if (!text && m) {
        ptx_print(m, &printed);
        text = printed.data ? printed.data : "";
    }
    /* counted by pg_io_failures when it cannot be written: a ptxas verdict on a missing file is no verdict */
    bool ok = text && pg_write_tmp("ptxgen-funnel-XXXXXX", text, strlen(text), path, n, NULL) == PG_OK;
    pg_buf_free(&printed);
    return ok;
}

static void gpu_stage(const char *path, const task_spec *t, const eval_funnel_opts *o, eval_funnel_result *r) {
    gpu_run_opts go;
    gpu_run_opts_default(&go);
    go.timing = go.baseline = o->time_it;
    go.arch = NULL;
    go.memo = o->gpu_memo;
    gpu_task_result gr;
    memset(&gr, 0, sizeof gr);
    pg_diag_sink qg = {0};
    pg_status gs = gpu_run_task(t, path, &go, &gr, &qg);
    r->gpu_ran = true;
    r->gpu_status = gpu_status_name(gr.kernel.status);
    r->gpu_sets = gr.kernel.checks_passed;
    r->gpu_probe_s = gr.probe_s;
    r->gpu_nvcc_s = gr.nvcc_s;
    r->gpu_kernel_s = gr.kernel_s;
    r->gpu_baseline_s = gr.baseline_s;
    r->gpu_setup_s = gr.kernel.setup_s;
    r->gpu_sets_s = gr.kernel.sets_s;
    r->gpu_timing_s = gr.kernel.timing_s;
    r->gpu_cuda_starts = gr.cuda_starts;
    r->gpu_refs = gr.refs_built;
    r->gpu_baseline_runs = gr.baseline_ran;
    r->gpu_htod_bytes = gr.htod_bytes;
    r->gpu_dtoh_bytes = gr.dtoh_bytes;
    r->gpu_dtod_bytes = gr.dtod_bytes;
    r->gpu_allocs = gr.allocs;
    r->gpu_syncs = gr.syncs;
    r->gpu_resident_refreshed = gr.resident_refreshed;
    r->gpu_prep_wait_s = gr.prep_wait_s;
    r->loads = gs == PG_OK && gr.kernel.status != GPU_LOAD_ERROR && gr.kernel.status != GPU_SETUP_ERROR &&
               gr.kernel.status != GPU_NO_GPU;
    r->correct = gs == PG_OK && gr.kernel.status == GPU_OK;
    if (gr.kernel.hygiene > 0 && gr.kernel.hygiene < GPU_HYG__COUNT) r->hygiene = gpu_hyg_name((gpu_hyg)gr.kernel.hygiene);
    if (!r->loads) {
        r->stage = "load";
        snprintf(r->detail, sizeof r->detail, "%.600s", gr.kernel.detail);
    } else if (!r->correct) {   /* the first failing stage: wrong results, a fault or a hang */
        r->stage = gr.kernel.status == GPU_FAULT ? "fault" : gr.kernel.status == GPU_TIMEOUT ? "timeout" : "wrong";
        snprintf(r->detail, sizeof r->detail, "%.600s", gr.kernel.detail);
    } else {
        r->stage = "correct";
        r->worst_rel_l2 = gr.kernel.worst_rel_l2;
        if (o->time_it && gr.have_baseline && gr.speedup > 0) {
            r->stage = "timed";
            r->speedup = gr.speedup;
            r->ms = gr.kernel.ms_median;
            r->baseline_ms = gr.baseline.ms_median;
            r->pct_of_ceiling = gr.kernel.pct_of_ceiling;
            r->faster_than_light = gr.kernel.faster_than_light;
            r->memory_bound = gr.kernel.gbps > 0 && o->ridge > 0 && gr.kernel.tflops * 1e3 / gr.kernel.gbps < o->ridge;
        } else if (o->time_it) {
            snprintf(r->detail, sizeof r->detail, "not timed: %.600s",
                     gr.baseline.detail[0] ? gr.baseline.detail : "no nvcc baseline");
        }
    }
    gpu_result_free(&gr);
}

static double wall_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void eval_funnel(const eval_funnel_in *in, const task_spec *t, const eval_funnel_opts *o, eval_funnel_result *r) {
    memset(r, 0, sizeof *r);
    double t0 = wall_s();
    r->registers = r->spill_bytes = -1;
    r->stage = "validator";
    const char *name = in->name ? in->name : in->path ? in->path : "<ptx>";
    pg_diag first = {0};
    tee_sink tee = {&first, o->diag};
    pg_diag_sink q = {tee_diag, &tee, 0, 0, 0};

    /* 1. validator, then the signature the caller needs */
    ptx_module *m = in->module;
    bool parsed = m != NULL;
    if (!m && in->text) {
        parsed = ptx_parse(in->text, strlen(in->text), name, &m, &q) == PG_OK;
        r->module = m;   /* owned by the result */
    }
    if (parsed) ptx_validate(m, &q);
    r->check = parsed && q.nerrors == 0;
    if (!r->check)
        snprintf(r->detail, sizeof r->detail, "%s %s: %s (line %d, col %d)", first.code ? first.code : "?",
                 first.name ? first.name : "", first.msg, first.line, first.col);
    if (parsed && (r->check || o->keep_going)) {
        bool sig_ok = true;
        if (t && task_check_signature(t, m, name, &q) != PG_OK) {
            sig_ok = false;
            snprintf(r->detail, sizeof r->detail, "the entry's signature does not match the task");
        }
        if (o->same_as) {
            const ptx_func *f = defined_entry(m, o->same_as->name);
            if (!f) {
                sig_ok = false;
                r->missing_entry = true;
                snprintf(r->detail, sizeof r->detail, "no .entry %.200s", o->same_as->name);
            } else if (!same_params(f, o->same_as)) {
                sig_ok = false;
                r->signature_differs = true;
                snprintf(r->detail, sizeof r->detail, "the parameters differ from the baseline's signature");
            }
        }
        if (!sig_ok) r->check = false;
    }
    r->static_s = wall_s() - t0;
    if (!r->check && !o->keep_going) return;

    /* 2. ptxas, on a file */
    r->stage = "ptxas";
    if (!o->ptxas) {
        if (r->check) snprintf(r->detail, sizeof r->detail, "ptxas not found: later stages not run");
        return;
    }
    char tmp[600] = "";
    const char *path = in->path;
    if (!path) {
        if (!temp_copy(in, m, tmp, sizeof tmp)) {
            snprintf(r->detail, sizeof r->detail, "cannot write a temporary copy for ptxas");
            return;
        }
        path = tmp;
    }
    /* a module that did not parse completely still names its target (as ptx_ptxas_run reads it) */
    char archbuf[32];
    const char *arch = o->arch ? o->arch : m ? module_arch(m, archbuf, sizeof archbuf) : NULL;
    r->ptxas_ran = true;
    double t1 = wall_s();
    r->ptxas_ok = ptx_ptxas_run(path, arch, m && ptx_needs_relocatable(m), &r->ptxas, &q) == PG_OK && r->ptxas.ok;
    if (r->ptxas.nfuncs) {
        r->registers = r->ptxas.funcs[0].registers;
        r->spill_bytes = r->ptxas.funcs[0].spill_stores + r->ptxas.funcs[0].spill_loads;
    }
    r->ptxas_s = wall_s() - t1;
    if (!r->ptxas_ok && r->check)
        snprintf(r->detail, sizeof r->detail, "ptxas: %.600s", r->ptxas.log ? r->ptxas.log : "failed");

    /* 3. the GPU, with a task */
    if (r->check && r->ptxas_ok) {
        if (!o->gpu || !t) r->stage = "gpu-not-run";
        else {
            double t2 = wall_s();
            gpu_stage(path, t, o, r);
            r->gpu_s = wall_s() - t2;
        }
    }
    if (tmp[0]) unlink(tmp);
}

void eval_funnel_result_free(eval_funnel_result *r) {
    ptx_module_free(r->module);
    ptx_ptxas_report_free(&r->ptxas);
    r->module = NULL;
}
