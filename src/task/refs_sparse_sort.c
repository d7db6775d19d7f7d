/* refs_sparse_sort.c — reference of the "sortnet" family
 * (src/synth/family_sparse_sort.c): the bitonic stage, the per-segment sort
 * and the odd-even phase, on u32/s32/f32 keys with optional u32 values.
 * Keys compare as doubles (exact for these types); elements move as raw
 * bytes, so nothing is rounded. */
#include "refs_sparse.h"

#include <stdlib.h>
#include <string.h>

/* swap elements i and l of a buffer of element size es */
static void swap_el(void *p, size_t es, size_t i, size_t l) {
    unsigned char t[8], *b = p;
    memcpy(t, b + i * es, es);
    memcpy(b + i * es, b + l * es, es);
    memcpy(b + l * es, t, es);
}

/* compare-exchange (i, l), i < l, so that the pair ends up ascending (up) or descending */
static void cmpx(rsp_arr_t *k, rsp_arr_t *v, size_t i, size_t l, bool up) {
    double a = task_rsp_get(k, i), b = task_rsp_get(k, l);
    if (up ? a > b : a < b) {
        swap_el(k->p, (size_t)task_dtype_size(k->t), i, l);
        if (v) swap_el(v->p, (size_t)task_dtype_size(v->t), i, l);
    }
}

typedef struct { double key; size_t pos; } kp;
static int kp_asc(const void *x, const void *y) {
    const kp *a = x, *b = y;
    return a->key < b->key ? -1 : a->key > b->key ? 1 : (a->pos > b->pos) - (a->pos < b->pos);
}
static int kp_desc(const void *x, const void *y) {
    const kp *a = x, *b = y;
    return a->key > b->key ? -1 : a->key < b->key ? 1 : (a->pos > b->pos) - (a->pos < b->pos);
}

pg_status task_ref_fam_sortnet(task_inst *in) {
    json_t *root = NULL, *fp = task_rsp_fparams(in, &root);
    pg_status st = PG_ERR_INVALID;
    kp *tmp = NULL;
    unsigned char *scratch = NULL;
    if (!fp) goto out;
    const char *op = task_rsp_str(fp, "op");
    bool kv = json_is_true(json_object_get(fp, "kv")), desc = json_is_true(json_object_get(fp, "descending"));
    bool inplace = json_is_true(json_object_get(fp, "inplace"));
    size_t n = (size_t)task_var(in, "n");
    rsp_arr_t keys, vals, ko, vo;
    /* keys and values are read from the inputs and written where the kernel writes */
    task_dtype kt;
    {
        int i = -1;
        for (int p = 0; p < in->spec->nparams; p++)
            if (!strcmp(in->spec->params[p].name, task_rsp_str(fp, "keys"))) i = p;
        if (!task_rsp_need(in, i >= 0 && in->spec->params[i].is_pointer, "sortnet: keys parameter missing")) goto out;
        kt = in->spec->params[i].dtype;
    }
    bool kf = task_dtype_is_float(kt);
    if (!task_rsp_arr(in, task_rsp_str(fp, "keys"), kf, &keys)) goto out;
    if (kv && !task_rsp_arr(in, task_rsp_str(fp, "vals"), false, &vals)) goto out;
    ko = keys;
    vo = vals;
    if (!inplace) {
        if (!task_rsp_arr(in, task_rsp_str(fp, "out"), kf, &ko)) goto out;
        if (kv && !task_rsp_arr(in, task_rsp_str(fp, "vals_out"), false, &vo)) goto out;
    }
    if (!task_rsp_need(in, keys.n >= n && ko.n >= n && (!kv || (vals.n >= n && vo.n >= n)), "sortnet: arrays shorter than n")) goto out;
    size_t ks = (size_t)task_dtype_size(kt);
    if (!strcmp(op, "bitonic_step")) {
        size_t j = (size_t)task_var(in, task_rsp_str(fp, "j")), k = (size_t)task_var(in, task_rsp_str(fp, "k"));
        for (size_t i = 0; i < n; i++) {
            size_t l = i ^ j;
            if (l > i && l < n) cmpx(&keys, kv ? &vals : NULL, i, l, ((i & k) == 0) != desc);
        }
    } else if (!strcmp(op, "oddeven_step")) {
        size_t phase = (size_t)task_var(in, "phase");
        for (size_t i = phase; i + 1 < n; i += 2) cmpx(&keys, kv ? &vals : NULL, i, i + 1, !desc);
    } else if (!strcmp(op, "block_sort")) {
        size_t B = (size_t)task_rsp_int(fp, "block", 0);
        if (!task_rsp_need(in, B >= 1, "sortnet: block_sort needs family_params.block")) goto out;
        tmp = malloc(sizeof *tmp * (B + 1));
        scratch = malloc((ks > 4 ? ks : 4) * (B + 1));
        if (!tmp || !scratch) { st = PG_ERR_NOMEM; goto out; }
        for (size_t s0 = 0; s0 < n; s0 += B) {
            size_t cnt = n - s0 < B ? n - s0 : B;
            for (size_t q = 0; q < cnt; q++) { tmp[q].key = task_rsp_get(&keys, s0 + q); tmp[q].pos = s0 + q; }
            qsort(tmp, cnt, sizeof *tmp, desc ? kp_desc : kp_asc);
            /* gather through scratch so in-place segments are not overwritten early */
            for (size_t q = 0; q < cnt; q++) memcpy(scratch + q * ks, (unsigned char *)keys.p + tmp[q].pos * ks, ks);
            memcpy((unsigned char *)ko.p + s0 * ks, scratch, cnt * ks);
            if (kv) {
                for (size_t q = 0; q < cnt; q++) memcpy(scratch + q * 4, (unsigned char *)vals.p + tmp[q].pos * 4, 4);
                memcpy((unsigned char *)vo.p + s0 * 4, scratch, cnt * 4);
            }
        }
    } else {
        pg_diag_emit(in->diag, PG_E_TASK, in->spec->path, 0, 0, "$.family_params.op: unknown '%s' (bitonic_step, block_sort, oddeven_step)", op);
        goto out;
    }
    st = PG_OK;
out:
    free(tmp);
    free(scratch);
    json_decref(root);
    return st;
}
