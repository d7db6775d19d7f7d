/* signature.c — does a PTX module's entry take what a task passes?  No GPU
 * is involved: this is the static part of the funnel (src/eval/funnel.c) and
 * of `ptxgen run --dry-run`, so it lives with the task, not the harness. */
#include "ptxgen/ptx.h"
#include "ptxgen/task.h"

#include <string.h>

pg_status task_check_signature(const task_spec *t, const ptx_module *m, const char *name, pg_diag_sink *diag) {
    const ptx_func *f = NULL;
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].is_entry && !strcmp(m->funcs[i].name, t->kernel)) f = &m->funcs[i];
    if (!f) {
        pg_diag_emit(diag, PG_E_TASK, name, 0, 0, "no .entry named '%s' (the task's kernel)", t->kernel);
        return PG_ERR_INVALID;
    }
    bool bad = false;
    if (f->nparams != t->nparams) {
        pg_diag_emit(diag, PG_E_TASK, name, f->loc.line, f->loc.col, "'%s' has %d parameters but the task's signature has %d",
                     t->kernel, f->nparams, t->nparams);
        bad = true;
    }
    for (int i = 0; i < f->nparams && i < t->nparams; i++) {
        const ptx_decl *d = &f->params[i];
        const task_param *p = &t->params[i];
        int want_bits = p->is_pointer ? 64 : task_dtype_size(p->dtype) * 8;
        const ptx_type_info *ti = ptx_type_get(d->type);
        /* an array parameter (.b8 x[16]) counts its whole width */
        int have_bits = ti->bits * (d->ndims && d->dims[0] > 0 ? (int)d->dims[0] : 1);
        bool float_mismatch = !p->is_pointer && task_dtype_is_float(p->dtype) && ti->cls != PTX_TC_FLOAT && ti->cls != PTX_TC_BIT;
        if (have_bits != want_bits || float_mismatch) {
            pg_diag_emit(diag, PG_E_TASK, name, d->loc.line, d->loc.col,
                         "parameter %d (%s) is %s%s but the task passes %s%s (%d bits)", i + 1, d->name, ti->name,
                         d->ndims ? "[]" : "", task_dtype_name(p->dtype), p->is_pointer ? "* (a 64-bit pointer)" : "", want_bits);
            bad = true;
        }
    }
    return bad ? PG_ERR_INVALID : PG_OK;
}
