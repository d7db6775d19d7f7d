/* describe.h — descriptions as people write them: one phrase grammar shared
 * by every synthesis family (internal to src/synth).
 *
 * A family states facts about its kernel (what the operation is called, its
 * exact semantics, a plain-words explanation, the technique); the grammar
 * renders them in the five styles `ptxgen eval` measures:
 *
 *   terse     the operation's name, sometimes with the element type or a
 *             short user-voice frame ("row softmax, fp32", "I need a kernel
 *             for leaky ReLU on a float array")
 *   detailed  the exact formula, the data layout, the launch rule
 *   card      a Markdown kernel card (## name, - Input, - Output, - Goal ...)
 *   zh        Chinese, with the formula or the plain-words explanation
 *   prose     plain English as a GPU programmer types it, semantics in words
 *
 * Every style draws a frame, synonyms and the order of its sentences from
 * the seed, and terse/prose/zh sometimes state the formula too, so the
 * exact semantics are never confined to `detailed` and `card`.
 *
 * Strings in desc_facts use the task's own parameter names; a family builds
 * them with snprintf after it has drawn the names.  Their grammatical form
 * matters, because frames put them into sentences:
 *   name_en     a noun phrase in lower case unless it is a proper name or an
 *               acronym ("row-wise softmax", "AXPY"): "I need a {name} kernel"
 *   explain_en  an imperative clause starting with a lower-case verb, no
 *               final period ("multiply every element of x by a and write the
 *               products to out"): "Can you write PTX to {what}?", "{What}."
 *   explain_zh  a Chinese clause without the final 。 ("把 x 的每个元素乘以 a，
 *               结果写入 out")
 *   how_en      a noun phrase ("one warp per row with shuffle reductions"):
 *               "Technique: {how}.", "Ideally {how}."
 *   shape/notes one or more sentences without the final period.
 * Fill desc_facts with designated initializers ({.name_en = ..., ...}):
 * fields may be added.  Facts that a family does not have stay NULL/0; frames that need them are
 * skipped.  Every style has >= 20 English and >= 10 Chinese (or mixed)
 * frames (zh: >= 20 Chinese ones); src/synth/test_describe.c checks that
 * they are all reachable and well-formed.  Lists are NULL-terminated
 * (an absent list is NULL).  Rendering is a pure function of (facts, task,
 * style, seed).  Ownership: outputs are appended to / returned to the
 * caller; nothing is kept.  Nothing here prints. */
#ifndef PTXGEN_SYNTH_DESCRIBE_H
#define PTXGEN_SYNTH_DESCRIBE_H

#include "ptxgen/common.h"
#include "ptxgen/task.h"

#include <jansson.h>

typedef struct {
    const char *const *name_en;     /* names of the operation: "row-wise softmax", "softmax over each row" (>= 1) */
    const char *const *name_zh;     /* "按行 softmax", "逐行 softmax 归一化" (>= 1) */
    const char *formula;            /* exact semantics in ASCII math with the task's names, e.g.
                                       "y[r][c] = exp(x[r][c] - max_c x[r][c]) / sum_c exp(x[r][c] - max_c x[r][c])" */
    const char *const *explain_en;  /* exact semantics in plain words, no symbols (>= 1) */
    const char *const *explain_zh;  /* the same in Chinese (>= 1) */
    const char *const *how_en;      /* technique hints, optional: "one warp per row with shuffle reductions" */
    const char *const *how_zh;
    const char *shape_en;           /* layout, optional: "x and y are rows x cols, row-major" */
    const char *shape_zh;
    const char *notes_en;           /* exact constants and edge rules, optional: "eps is 1e-5" */
    const char *notes_zh;
    /* Facts behind the performance and launch hints ("each thread handles 4
     * elements", "use shared memory"): a hint is said only when its fact is
     * set, so 0 means "unknown" and nothing is claimed. */
    int elems_per_thread;           /* 1: one element (output) per thread; k > 1: every thread handles k */
    int vec_width;                  /* elements per vector load/store (2, 4, 8) when the kernel uses them */
    unsigned hints;                 /* DESC_HINT_* bits that are true of the kernel */
    int data;                       /* DESC_DATA_*: what the arrays are; 0 infers it from the size names */
    bool nameless;                  /* the explanation refers to the arrays by role or position, not by name:
                                       frames that list the parameters' names ({ins}, {outs}, {io}, {sig},
                                       the card's lists) are skipped */
} desc_facts;

/* desc_facts.hints */
enum {
    DESC_HINT_COALESCED = 1 << 0,   /* consecutive threads touch consecutive elements */
    DESC_HINT_SMEM = 1 << 1,        /* stages data in shared memory */
    DESC_HINT_GRID_STRIDE = 1 << 2, /* grid-stride loop (the grid is capped) */
    DESC_HINT_INPLACE = 1 << 3,     /* updates an inout array in place */
    DESC_HINT_MEMBOUND = 1 << 4,    /* memory-bound: a few flops per byte */
    DESC_HINT_SHUFFLE = 1 << 5,     /* warp shuffles (shfl.sync) */
    DESC_HINT_ATOMIC = 1 << 6,      /* atomic adds combine the blocks' results */
    DESC_HINT_ATOMIC_MAX = 1 << 7,  /* an atomic max (on the float's bits, or a CAS loop) combines the blocks' maxima */
    DESC_HINT_ATOMIC_MIN = 1 << 8,  /* the same for minima */
};
/* desc_facts.data */
enum { DESC_DATA_INFER, DESC_DATA_VECTOR, DESC_DATA_MATRIX, DESC_DATA_GRID };

/* styles are task.h's TASK_STYLE_* (named by task_styles[]) */

/* One description of `style` for a task.json object (its "name", "params" and
 * "launch" are read for signatures, element types and launch hints). */
void synth_desc_render(const desc_facts *f, const json_t *task, int style, uint64_t seed, pg_buf *out);

/* Parameter names people use, drawn from the seed, so the model meets
 * x/y/out/dst/src/a/b/in/input/output... and not one convention.  Fills
 * in[0..n_in-1] (inputs, n_in <= 4) and out[0..n_out-1] (outputs, n_out <= 2)
 * with distinct static strings; a family that needs a fixed name (a matrix
 * A, a count n) simply does not ask for it. */
void synth_desc_param_names(uint64_t seed, int n_in, const char **in, int n_out, const char **out);

/* synth_desc_render, also naming the frame (template) it used, e.g. "terse.en07" or
 * "prose.zh03" (en: an English frame; zh: a Chinese or mixed one), into
 * frame[0..frame_n-1] (frame may be NULL). */
void synth_desc_render_framed(const desc_facts *f, const json_t *task, int style, uint64_t seed, pg_buf *out, char *frame,
                        size_t frame_n);

/* How many frames `style` has in English (zh false) or Chinese/mixed (zh true). */
int synth_desc_frame_count(int style, bool zh);

/* All five as a new JSON object {"terse": ..., ..., "prose": ..., "frames":
 * {"terse": "terse.en07", ...}}; "frames" records which template rendered
 * each style (`ptxgen synth --stats` counts them; task_load ignores it). */
json_t *synth_desc_render_all(const desc_facts *f, const json_t *task, uint64_t seed);

#endif
