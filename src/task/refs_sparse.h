/* refs_sparse.h — helpers shared by the sparse group's references
 * (src/task/refs_sparse*.c; internal to src/task).
 *
 * A reference re-reads its spec's "family_params" with task_rsp_fparams() (the
 * caller owns *root and json_decref()s it), looks its buffers up by the
 * names the generator drew (task_rsp_arr), and reads/writes elements as doubles
 * whatever their element type.  Failures go to in->diag with the spec path
 * and return false / NULL; nothing prints. */
#ifndef PTXGEN_TASK_REFS_SPARSE_H
#define PTXGEN_TASK_REFS_SPARSE_H

#include "ptxgen/task.h"

#include <jansson.h>

json_t *task_rsp_fparams(const task_inst *in, json_t **root);
const char *task_rsp_str(json_t *fp, const char *k);               /* "" when absent */
const char *task_rsp_stri(json_t *fp, const char *k, size_t i);    /* element i of a string array, "" when absent */
int64_t task_rsp_int(json_t *fp, const char *k, int64_t dflt);

/* A pointer parameter seen as an array of doubles. */
typedef struct { task_dtype t; size_t n; void *p; } rsp_arr_t;
bool task_rsp_arr(task_inst *in, const char *name, bool want_float, rsp_arr_t *a);
double task_rsp_get(const rsp_arr_t *a, size_t i);
void task_rsp_set(rsp_arr_t *a, size_t i, double v);
/* A float scalar as the kernel sees it (f32 scalars rounded to float). */
double task_rsp_fscalar(const task_inst *in, const char *name);
/* ok, or a diagnostic `what` and false. */
bool task_rsp_need(task_inst *in, bool ok, const char *what);

#endif
