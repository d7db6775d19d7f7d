/* refs_params.h — private to src/task: the one loader of a generated task's
 * "family_params" object, which every family reference (refs_family.c,
 * refs_elemfam*.c, refs_rowwise*.c, refs_sparse*.c) reads its parameters from. */
#ifndef PTXGEN_REFS_PARAMS_H
#define PTXGEN_REFS_PARAMS_H

#include "ptxgen/task.h"

#include <jansson.h>

/* Loads in->spec->path and returns its "family_params" object; *root owns the
 * document (json_decref it, also on failure). NULL, with an E-diagnostic on
 * in->diag naming the file, when the file is unreadable or has no such object. */
json_t *task_ref_family_params(const task_inst *in, json_t **root);

#endif
