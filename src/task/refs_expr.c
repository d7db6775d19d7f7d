/* refs_expr.c — the C reference of the random expression-tree family
 * (src/synth/expr.c, family "expr").
 *
 * The task.json carries the tree in prefix notation in a top-level "expr"
 * field, which task_load() does not keep; the reference re-reads the spec at
 * in->spec->path for it.  The file is read on every call (specs are small and
 * a path may be rewritten with another tree); parsed trees are cached by their
 * text in a small table behind a mutex, since references run on several
 * threads.  Inputs are the f32 buffers a, b, c, d (those present) and the f32
 * scalars alpha, beta (those the tree uses; read as the f32 value the kernel
 * gets), the output is "out"; values are computed in double by the
 * interpreter and rounded once to f32. */
#include "ptxgen/expr.h"
#include "ptxgen/task.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CACHE_SLOTS = 64 };
static struct { char *text; expr_tree *e; } cache[CACHE_SLOTS];
static int cache_n;
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;

/* The parsed tree of `text`; *owned says whether the caller must free it
 * (the cache is full).  NULL on a parse error (reported to diag). */
static const expr_tree *tree_for(const char *text, const char *path, bool *owned, pg_diag_sink *diag) {
    *owned = false;
    pthread_mutex_lock(&cache_mu);
    for (int i = 0; i < cache_n; i++)
        if (!strcmp(cache[i].text, text)) {
            const expr_tree *e = cache[i].e;
            pthread_mutex_unlock(&cache_mu);
            return e;
        }
    pthread_mutex_unlock(&cache_mu);
    char err[160];
    expr_tree *e = expr_parse(text, err, sizeof err);
    if (!e) {
        pg_diag_emit(diag, PG_E_TASK, path, 0, 0, "$.expr: %s", err);
        return NULL;
    }
    pthread_mutex_lock(&cache_mu);
    for (int i = 0; i < cache_n; i++)   /* another thread may have added it meanwhile */
        if (!strcmp(cache[i].text, text)) {
            expr_free(e);
            e = cache[i].e;
            pthread_mutex_unlock(&cache_mu);
            return e;
        }
    if (cache_n < CACHE_SLOTS) {
        char *t = strdup(text);
        if (t) {
            cache[cache_n].text = t;
            cache[cache_n].e = e;
            cache_n++;
            pthread_mutex_unlock(&cache_mu);
            return e;
        }
    }
    pthread_mutex_unlock(&cache_mu);
    *owned = true;
    return e;
}

static int param_index(const task_spec *t, const char *name) {
    for (int i = 0; i < t->nparams; i++)
        if (!strcmp(t->params[i].name, name)) return i;
    return -1;
}

pg_status task_ref_expr_eval(task_inst *in) {
    const task_spec *t = in->spec;
    json_error_t jerr;
    json_t *root = json_load_file(t->path, 0, &jerr);
    if (!root) {
        pg_diag_emit(in->diag, PG_E_TASK, t->path, 0, 0, "%s", jerr.text);
        return PG_ERR_IO;
    }
    json_t *jx = json_object_get(root, "expr");
    if (!json_is_string(jx)) {
        pg_diag_emit(in->diag, PG_E_TASK, t->path, 0, 0, "$.expr: missing string (prefix expression of the expr family)");
        json_decref(root);
        return PG_ERR_INVALID;
    }
    bool owned;
    const expr_tree *e = tree_for(json_string_value(jx), t->path, &owned, in->diag);
    json_decref(root);
    if (!e) return PG_ERR_INVALID;

    pg_status st = PG_OK;
    const float *ins[EXPR_MAX_INPUTS] = {0};
    int po = param_index(t, "out");
    if (po < 0 || t->params[po].dtype != TASK_T_F32 || !t->params[po].is_pointer) {
        pg_diag_emit(in->diag, PG_E_TASK, t->path, 0, 0, "expr_eval needs an f32* parameter 'out'");
        st = PG_ERR_INVALID;
        goto done;
    }
    size_t n = in->args[po].count;
    unsigned used = expr_inputs_used(e);
    for (int k = 0; k < EXPR_MAX_INPUTS; k++) {
        char nm[2] = {(char)('a' + k), 0};
        int pi = param_index(t, nm);
        if (pi >= 0 && t->params[pi].is_pointer && t->params[pi].dtype == TASK_T_F32 && in->args[pi].count >= n)
            ins[k] = in->args[pi].data;
        else if (used & (1u << k)) {
            pg_diag_emit(in->diag, PG_E_TASK, t->path, 0, 0,
                         "the expression uses '%s' but there is no f32* input '%s' of >= n elements", nm, nm);
            st = PG_ERR_INVALID;
            goto done;
        }
    }
    double sc[EXPR_MAX_SCALARS] = {0};
    unsigned sused = expr_scalars_used(e);
    for (int k = 0; k < EXPR_MAX_SCALARS; k++) {
        if (!(sused & (1u << k))) continue;
        const char *nm = expr_scalar_name(k);
        int pi = param_index(t, nm);
        if (pi < 0 || t->params[pi].is_pointer || t->params[pi].dtype != TASK_T_F32) {
            pg_diag_emit(in->diag, PG_E_TASK, t->path, 0, 0,
                         "the expression uses '%s' but there is no f32 scalar parameter '%s'", nm, nm);
            st = PG_ERR_INVALID;
            goto done;
        }
        sc[k] = (double)(float)in->args[pi].scalar.f;
    }
    expr_eval_f32(e, ins, sc, in->args[po].data, n);
done:
    if (owned) expr_free((expr_tree *)e);
    return st;
}
