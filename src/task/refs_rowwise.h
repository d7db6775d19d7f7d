/* refs_rowwise.h — helpers of the row-wise curriculum references
 * (src/task/refs_rowwise*.c; families in src/synth/family_rowwise*.c).
 *
 * Each reference re-reads the spec's "family_params" (like refs_family.c)
 * for the operator and the parameter names the generator drew, reads inputs
 * through the loaded instance, computes in double (long double for long
 * sums) and rounds once to the output element type.  A spec a reference
 * cannot run is reported to in->diag naming the spec and the cause. */
#ifndef PTXGEN_TASK_REFS_ROWWISE_H
#define PTXGEN_TASK_REFS_ROWWISE_H

#include "ptxgen/task.h"

#include <jansson.h>

/* The spec's family_params object (*root owns it: json_decref(*root) when
 * done, also on failure); NULL with a diagnostic when missing. */
json_t *task_ref_rw_fparams(task_inst *in, json_t **root);
/* family_params string / bool / integer (dflt when absent). */
const char *task_ref_rw_str(json_t *fp, const char *key, const char *dflt);
bool task_ref_rw_bool(json_t *fp, const char *key);
int64_t task_ref_rw_int(json_t *fp, const char *key, int64_t dflt);

/* Index of a parameter, -1 when absent. */
int task_ref_rw_pidx(const task_spec *t, const char *name);
/* A pointer parameter's buffer, its type and count; NULL with a diagnostic
 * when missing or (want_float) not a float buffer. */
void *task_ref_rw_buf(task_inst *in, const char *name, bool want_float, task_dtype *t, size_t *count);
/* Element i of a buffer of type t as double (floats) or integer. */
double task_ref_rw_getf(task_dtype t, const void *p, size_t i);
void task_ref_rw_setf(task_dtype t, void *p, size_t i, double v);
int64_t task_ref_rw_geti(task_dtype t, const void *p, size_t i);
void task_ref_rw_seti(task_dtype t, void *p, size_t i, int64_t v);
/* A float scalar as the kernel receives it (f32 scalars rounded to float);
 * dflt when the spec has no such parameter. */
double task_ref_rw_fscalar(const task_inst *in, const char *name, double dflt);
/* A size scalar (rows, cols, n), negative values as 0. */
size_t task_ref_rw_size(const task_inst *in, const char *name);
/* Report a problem with the spec (E7xx through in->diag); returns PG_ERR_INVALID. */
pg_status task_ref_rw_bad(task_inst *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
