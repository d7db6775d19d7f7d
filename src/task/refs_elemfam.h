/* refs_elemfam.h — helpers shared by the references of the elementwise
 * curriculum families (src/task/refs_elemfam*.c; internal to src/task).
 * Every helper that fails reports the cause to in->diag naming the spec. */
#ifndef PTXGEN_TASK_REFS_ELEMFAM_H
#define PTXGEN_TASK_REFS_ELEMFAM_H

#include "ptxgen/task.h"

#include <jansson.h>

/* The spec's "family_params" object; *root (the whole spec, freed by the
 * caller with json_decref) is set even on failure.  NULL when missing. */
json_t *task_ef_params(const task_inst *in, json_t **root);
const char *task_ef_str(json_t *obj, const char *k);           /* "" when absent */
int64_t task_ef_int(json_t *obj, const char *k, int64_t dflt);
bool task_ef_bool(json_t *obj, const char *k);
int task_ef_pidx(const task_spec *t, const char *name);        /* -1 when absent */

/* Element i of a buffer of any element type, as double / stored from double
 * (floats rounded to nearest; integers must already be integral and in range). */
double task_ef_get(task_dtype t, const void *p, size_t i);
void task_ef_set(task_dtype t, void *p, size_t i, double v);

typedef struct { task_dtype t; void *p; size_t n; } ef_arr;
/* Pointer parameter `name` with at least `need` elements. */
bool task_ef_buf(task_inst *in, const char *name, size_t need, ef_arr *a);
/* A scalar as the kernel sees it (f32 rounded to float, integers exact); NaN when absent. */
double task_ef_scalar(const task_inst *in, const char *name);

/* Activation `id` ("gelu_tanh", "leaky_relu", ... as in family_elem_act.c)
 * of v with scalars a, b; false when the name is unknown. */
bool task_ef_act(const char *id, double v, double a, double b, double *out);

/* x rounded to f16 (bf16 when bf) with mode 0 rn, 1 rz, 2 rm, 3 rp: the bits. */
uint16_t task_ef_round16(float x, int mode, bool bf);

#endif
