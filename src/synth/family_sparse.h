/* family_sparse.h — helpers shared by the sparse group's CUDA-C families
 * (src/synth/family_sparse*.c; internal to src/synth).
 *
 * A generator fills a sp_task: the task.json members (params, sizes,
 * launch, family_params) as jansson objects, and a desc_facts built from
 * sp_list string lists (owned, NULL-terminated, so they plug straight into
 * desc_facts).  synth_sp_finish() renders the five descriptions from the facts
 * (describe.h), writes the task.json into s->task_json and frees what the
 * task owned.  The CUDA C goes into s->cu directly (nvcc families).
 *
 * Nothing here prints; allocation failure aborts (as pg_buf does). */
#ifndef PTXGEN_SYNTH_FAMILY_SPARSE_H
#define PTXGEN_SYNTH_FAMILY_SPARSE_H

#include "describe.h"
#include "family_internal.h"

#include <jansson.h>

/* A NULL-terminated list of owned strings (at most SP_LIST_MAX). */
enum { SP_LIST_MAX = 15 };
typedef struct { char *v[SP_LIST_MAX + 1]; int n; } sp_list;
void synth_sp_add(sp_list *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define SP_L(l) ((const char *const *)(l).v)

/* Owned description facts: the lists plus formula/shape/notes buffers. */
typedef struct {
    sp_list name_en, name_zh, explain_en, explain_zh, how_en, how_zh;
    pg_buf formula, shape_en, shape_zh, notes_en, notes_zh;
    int elems_per_thread, vec_width;   /* desc_facts' hint facts (0: unknown, nothing claimed) */
    unsigned hints;                    /* DESC_HINT_* bits true of the kernel */
    int data;                          /* DESC_DATA_* */
} sp_facts;
void synth_sp_facts_free(sp_facts *f);

typedef struct {
    synth_family_sample *s;
    json_t *root, *params;
} sp_task;

/* Start a task: family/source "nvcc" in s, name/kernel from s->name (set it first). */
void synth_sp_begin(sp_task *t, synth_family_sample *s, const char *family);
/* A pointer parameter; dist0/dist1 (either may be NULL) override the
 * default generators for distribution 0 and 1. */
void synth_sp_ptr(sp_task *t, const char *name, const char *type, const char *role, const char *len, const char *dist0, const char *dist1);
void synth_sp_scal(sp_task *t, const char *name, const char *type, const char *value);
/* sizes: a JSON array text ("[{\"n\": 5}, ...]"); a malformed text aborts
 * (the texts are the generators' own literals). */
void synth_sp_sizes(sp_task *t, const char *json_text);
/* launch: up to 3 block and grid expressions (NULL ends), smem bytes. */
void synth_sp_launch(sp_task *t, const char *b0, const char *b1, const char *b2, const char *g0, const char *g1, const char *g2,
               const char *smem);
/* family_params object (stolen reference). */
void synth_sp_fparams(sp_task *t, json_t *fp);
/* Finish: descriptions from f (rendered with seed), distributions d0/d1,
 * tolerance tol for element type T, reference `ref`, cost.  Writes
 * s->task_json and frees the task's JSON (not f). */
void synth_sp_finish(sp_task *t, const sp_facts *f, uint64_t seed, const char *d0, const char *d1, const char *T, double tol,
               const char *ref, const char *bytes, const char *flops);

/* Make the kernel name a function of the kernel's code: append "_" and 6 hex
 * digits of a hash of s->cu and rename the kernel inside s->cu.  The nvcc
 * batch compiles one kernel per distinct name (family.c), and the parameter
 * names these families draw change the code without changing the rest of
 * the name.  The name before the hash is shortened to PG_NAME_MAX - 7 bytes
 * (synth_fam_shorten), so the result is within PG_NAME_MAX.  Call after the
 * CUDA C is complete, before synth_sp_begin(). */
void synth_sp_seal_name(synth_family_sample *s);


#endif
