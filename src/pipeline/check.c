/* check.c — what `ptxgen run --dry-run` checks without a GPU (pipe_static_check), and the
 * task list of a suite folder (pipe_task_list): ptxgen/pipeline.h.  Nothing here prints. */
#define _GNU_SOURCE
#include "ptxgen/pipeline.h"
#include "ptxgen/gpu.h"
#include "ptxgen/ptx.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

pg_status pipe_static_check(const task_spec *t, const char *ptx, pipe_static_result *res, pg_diag_sink *sink) {
    memset(res, 0, sizeof *res);
    int bad = 0;
    char ptxas_path[512];
    eval_funnel_opts fo = {.ptxas = ptx_ptxas_find(ptxas_path, sizeof ptxas_path), .keep_going = true, .diag = sink};
    eval_funnel_result fr;
    memset(&fr, 0, sizeof fr);
    char *text = NULL;
    size_t len = 0;
    bool no_kernel = access(ptx, F_OK) != 0;
    if (no_kernel) {
        /* the caller says so, with what to do about it */
    } else if (pg_read_file(ptx, PTX_MAX_FILE_BYTES, &text, &len, sink) == PG_OK) {
        eval_funnel_in fi = {text, NULL, ptx, NULL};
        eval_funnel(&fi, t, &fo, &fr);
        if (!fr.check) bad++;
        if (fr.ptxas.ran && !fr.ptxas.ok && fr.ptxas.exit_code != 127) bad++;   /* ptxas ran and rejected it */
    } else {
        bad++;
    }
    free(text);
    int regs = fr.ptxas.nfuncs ? fr.ptxas.funcs[0].registers : 0;
    eval_funnel_result_free(&fr);
    /* reference.cu: compiles, and its signature matches the spec too */
    char *base = NULL;
    bool nvcc_ok = false;
    if (system("command -v nvcc >/dev/null 2>&1") == 0) {
        if (gpu_nvcc_ptx(t, "sm_80", &base, sink) == PG_OK) {
            const char *name = "reference.cu (nvcc -ptx)";
            ptx_module *bm = NULL;
            if (ptx_parse(base, strlen(base), name, &bm, sink) != PG_OK || task_check_signature(t, bm, name, sink) != PG_OK)
                bad++;
            ptx_module_free(bm);
            nvcc_ok = true;
        } else bad++;
        free(base);
    }
    /* the C reference on the smallest size */
    int small = 0;
    double best = 1e300;
    for (int s = 0; s < t->nsizes; s++) {
        double prod = 1;
        for (int i = 0; i < t->sizes[s].env.n; i++) prod *= (double)(t->sizes[s].env.val[i] + 1);
        if (prod < best) { best = prod; small = s; }
    }
    bool ref_ok = true;
    if (t->ref.kind && !strcmp(t->ref.kind, "c")) {
        for (int d = 0; d < t->ndists; d++) {
            task_inst in, ref;
            if (task_inst_make(t, small, d, 1, &in, sink) != PG_OK) { ref_ok = false; break; }
            pg_status rs = task_reference_run(&in, &ref, sink);
            if (rs != PG_OK) ref_ok = false;
            for (int p = 0; rs == PG_OK && p < t->nparams; p++) {
                if (!t->params[p].is_pointer || t->params[p].role == TASK_ROLE_IN) continue;
                /* a reference must write every output element (no poison left) */
                task_cmp c = task_compare(t, p, &ref.args[p], &ref.args[p]);
                if (c.nan_count) { ref_ok = false; pg_diag_emit(sink, PG_E_TASK, t->path, 0, 0, "the C reference leaves %zu NaN in '%s'", c.nan_count, t->params[p].name); }
            }
            task_inst_free(&in);
            if (ref.args) task_inst_free(&ref);
        }
    }
    if (!ref_ok) bad++;
    res->failed = bad;
    res->no_kernel = no_kernel;
    res->registers = regs;
    res->reference_cu_compiles = nvcc_ok;
    return PG_OK;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

pg_status pipe_task_list(const char *suite, const char *kernel_name, char ***tasks, char ***kernels, int *n) {
    *tasks = *kernels = NULL;
    *n = 0;
    DIR *d = opendir(suite);
    if (!d) return PG_ERR_IO;
    struct dirent *e;
    char **names = NULL;
    int nn = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s/task.json", suite, e->d_name);
        if (access(p, R_OK) != 0) continue;
        names = pg_xrealloc(names, sizeof(char *) * (size_t)(nn + 1));
        names[nn++] = pg_xstrdup(e->d_name);
    }
    closedir(d);
    if (nn > 1) qsort(names, (size_t)nn, sizeof(char *), cmp_str);   /* names is NULL when empty */
    *tasks = pg_xcalloc((size_t)nn + 1, sizeof(char *));
    *kernels = pg_xcalloc((size_t)nn + 1, sizeof(char *));
    for (int i = 0; i < nn; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s/task.json", suite, names[i]);
        (*tasks)[i] = pg_xstrdup(p);
        snprintf(p, sizeof p, "%s/%s/%s", suite, names[i], kernel_name);
        (*kernels)[i] = pg_xstrdup(p);
        free(names[i]);
    }
    free(names);
    *n = nn;
    return PG_OK;
}
