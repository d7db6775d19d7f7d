/* refs.c — the registry of C reference functions.  Each group of tasks keeps
 * its functions in refs_<group>.c and lists them in refs_<group>.def as
 * TASK_REF(name); this file only collects the lists.  A synthesis family's
 * reference is the third column of its SYNTH_FAMILY(name, generator,
 * reference, uses_nvcc) row (src/synth/families_all.def, the one table of
 * families): the row is the only place it is registered.  Only the table's
 * reference column is read here; task does not use the synth module. */
#include "ptxgen/task.h"

#include <string.h>

#define TASK_REF(name) pg_status task_ref_##name(task_inst *in);
#define SYNTH_FAMILY(fname, gen, ref, nvcc) TASK_REF(ref)
#include "refs_all.def"
#include "../synth/families_all.def"
#undef SYNTH_FAMILY
#undef TASK_REF

static const struct { const char *name; task_ref_fn fn; } registry[] = {
#define TASK_REF(name) {#name, task_ref_##name},
#define SYNTH_FAMILY(fname, gen, ref, nvcc) TASK_REF(ref)
#include "refs_all.def"
#include "../synth/families_all.def"
#undef SYNTH_FAMILY
#undef TASK_REF
    {NULL, NULL}};

task_ref_fn task_ref_lookup(const char *name) {
    for (int i = 0; registry[i].name; i++)
        if (!strcmp(registry[i].name, name)) return registry[i].fn;
    return NULL;
}
int task_ref_count(void) { return (int)(sizeof registry / sizeof registry[0]) - 1; }
const char *task_ref_name(int i) { return i >= 0 && i < task_ref_count() ? registry[i].name : NULL; }
