/* refs.c — the registry of C reference functions.  Each group of tasks keeps
 * its functions in refs_<group>.c and lists them in refs_<group>.def as
 * TASK_REF(name); this file only collects the lists. */
#include "ptxgen/task.h"

#include <string.h>

#define TASK_REF(name) pg_status task_ref_##name(task_inst *in);
#include "refs_all.def"
#undef TASK_REF

static const struct { const char *name; task_ref_fn fn; } registry[] = {
#define TASK_REF(name) {#name, task_ref_##name},
#include "refs_all.def"
#undef TASK_REF
    {NULL, NULL}};

task_ref_fn task_ref_lookup(const char *name) {
    for (int i = 0; registry[i].name; i++)
        if (!strcmp(registry[i].name, name)) return registry[i].fn;
    return NULL;
}
int task_ref_count(void) { return (int)(sizeof registry / sizeof registry[0]) - 1; }
const char *task_ref_name(int i) { return i >= 0 && i < task_ref_count() ? registry[i].name : NULL; }
