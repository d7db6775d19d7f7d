/* family_rowwise.h — helpers shared by the row-wise curriculum families
 * (internal to src/synth/family_rowwise*.c):
 *
 *   softmax    family_rowwise.c         softmax / log-softmax / scaled / masked / causal
 *   rownorm    family_rowwise.c         layernorm / rmsnorm / l2-normalize rows
 *   xent       family_rowwise_loss.c    cross-entropy per row (none / sum / mean)
 *   loss       family_rowwise_loss.c    MSE / L1 / Huber / smooth-L1 / BCE-with-logits
 *   reduce_all family_rowwise_reduce.c  sum/max/min/absmax/sumsq/dot into one value
 *   rowreduce  family_rowwise_reduce.c  per-row sum/mean/max/min/norm, argmax/argmin
 *   scan       family_rowwise_scan.c    inclusive/exclusive prefix sums, segmented
 *   compact    family_rowwise_scan.c    per-block stream compaction
 *   histogram  family_rowwise_scan.c    privatized histograms
 *
 * All are CUDA-C (nvcc) families: the generator writes the kernel's CUDA C
 * (extern "C", entry name = task name) and a task.json whose C reference
 * lives in src/task/refs_rowwise*.c and re-reads "family_params".  The
 * kernels' storage conversions go through per-kernel LD()/ST() macros that
 * are #undef'd after the kernel, so many instantiations share one .cu file.
 * Nothing here prints. */
#ifndef PTXGEN_SYNTH_FAMILY_ROWWISE_H
#define PTXGEN_SYNTH_FAMILY_ROWWISE_H

#include "describe.h"
#include "ptxgen/synth.h"
#include "family_internal.h"

#include <jansson.h>

/* Floating element types: storage type in memory, math type in registers
 * (f16/bf16 are stored as 16 bits and computed in f32). */
enum { RW_F32, RW_F64, RW_F16, RW_BF16 };
typedef struct {
    int kind;          /* RW_F32 ... */
    const char *T;     /* task type: "f32" */
    const char *st;    /* CUDA storage type: "float", "double", "__half", "__nv_bfloat16" */
    const char *mt;    /* CUDA math type: "float" or "double" */
    const char *nm;    /* what people call it: "float", "double", "half", "bf16" */
    const char *zh;    /* "单精度" ... */
    bool f64;          /* math in double */
} rw_dt;
rw_dt synth_fam_rw_dtype(int kind);
/* f32 50%, f16 and bf16 ~15% each, f64 ~20% (no half types when !halves). */
int synth_fam_rw_pick_dtype(fam_rng *r, bool halves);
/* Task tolerance for the output type (relative L2). */
double synth_fam_rw_tol(const rw_dt *d);

/* Preamble of one kernel: the fp16/bf16 headers when needed and the LD/ST
 * macros (LD(p) loads to the math type, ST(v) converts to storage). */
void synth_fam_rw_macros(pg_buf *c, const rw_dt *d);
/* After the kernel: #undef LD / ST. */
void synth_fam_rw_macros_end(pg_buf *c);

/* Reductions emitted as CUDA C.  `v` is a variable of the math type; the
 * code reduces it across the warp (every lane gets the result) or the block
 * (every thread gets it).  Block reductions need `lane`, `wid` (warp index)
 * and `tid`, and a `__shared__ MT red[32]` (shuffle style) or red[block]
 * (tree style) declared by the kernel; they end with a barrier so red can be
 * reused.  MIN/MAX use fminf/fmaxf (fmin/fmax for double). */
enum { RW_SUM, RW_MAX, RW_MIN };
void synth_fam_rw_block_reduce(pg_buf *c, const char *ind, const char *v, int op, bool f64, int block, bool tree);
/* Warp-level inclusive Hillis-Steele scan emitted as CUDA C (family_rowwise_scan.c): after it
 * every lane's variable `v` (of CUDA type ct) holds the sum over lanes 0..lane; the code needs
 * `lane` (threadIdx.x & 31).  f (a head-flag variable, or NULL) restarts the sum after a set
 * flag; un (a name prefix, or NULL) writes the five steps out with literal shuffle deltas
 * instead of the loop over d.  Also used by the sparse csrrow family (counts to offsets). */
void synth_fam_rw_warp_scan(pg_buf *c, const char *ind, const char *ct, const char *v, const char *f, const char *un);
/* "-INFINITY", "0", "INFINITY" */
const char *synth_fam_rw_ident(int op);

/* Task JSON pieces (corpus layout through synth_task_json_write). */
json_t *synth_fam_rw_ptr(const char *name, const char *type, const char *role, const char *len);
json_t *synth_fam_rw_ptr_dist(const char *name, const char *type, const char *role, const char *len, const char *d0, const char *d1);
json_t *synth_fam_rw_scal(const char *name, const char *type, const char *value);
/* name/family/kernel fields. */
void synth_fam_rw_head(json_t *root, const synth_family_sample *s);
/* Sizes from pairs {var, value, ...}: sz is [nsizes][nvars] values, the
 * first size is the timed one. */
json_t *synth_fam_rw_sizes(const char *const *vars, int nvars, const int64_t *sz, int nsizes);
/* distributions, tolerance ({T: tol} plus an optional second type), the C
 * reference, cost; descriptions from facts; writes the JSON and frees root. */
/* Plan style variants (called by synth_fam_rw_finish when s->plan_style is SYNTH_PLAN_VARIED):
 * loop, index and accumulator names (o, col, row, stride, tid, acc, wid) renamed to others people
 * use where the new name is free and the old one is no parameter, and `a += b;` written
 * `a = a + b;` where that is the same computation; drawn from a stream of the seed no family
 * uses; the variant goes to s->plan_variant ("names2/a=a+b"). */
void synth_fam_rw_plan_style(uint64_t seed, synth_family_sample *s);
/* The plan's shuffle reductions as __device__ helpers (one plan in three of the varied style, drawn
 * first from a stream of its own, before the renames; variant "/fn"): every
 * `for (int o = 16; o > 0; o >>= 1) v = f(v, __shfl_xor_sync(...));` becomes `v = warp_OP(v);` and
 * every block reduction synth_fam_rw_block_reduce writes (non-tree) becomes `v = block_OP(v, red);`,
 * OP sum / max / min; the helpers (`__device__ __forceinline__`, lane and wid their own, the block one
 * ending with the barrier that frees red) go before `extern "C"`, and the kernel's `lane = tid & 31,
 * wid = tid >> 5` goes when nothing else uses them.  The same operations on the same values (nvcc
 * inlines the helpers; it may place the lane and warp arithmetic elsewhere).  False, cu unchanged,
 * when the plan has no such reduction, a reduced value's type is not found or differs from red[]'s,
 * two block reductions of one operation differ in width, or a helper's name is taken. */
bool synth_fam_rw_helpers(pg_buf *cu);
void synth_fam_rw_finish(json_t *root, const desc_facts *facts, uint64_t seed, const char *d0, const char *d1, const char *tT,
                   double tol, const char *tT2, double tol2, const char *ref, const char *bytes, const char *flops,
                   synth_family_sample *s);

/* The row mapping of the row-wise families: warp (one warp per row, rpb
 * rows per block) or block (one block per row; shuffle or shared-memory-tree
 * reductions); gs: a grid-stride loop over rows under a capped grid (else
 * the grid covers the rows and surplus warps return). */
typedef struct {
    bool warp, tree, gs;
    int rpb, block, cap;
    char grid[48], blk[8];
} rw_map;
void synth_fam_rw_map_pick(fam_rng *r, rw_map *m, bool allow_tree);
void synth_fam_rw_map_tag(const rw_map *m, char *t, size_t n);   /* "w4", "b256t_gs" */
unsigned synth_fam_rw_map_hints(const rw_map *m);                 /* the DESC_HINT_* bits that are true of the mapping */
/* Kernel prologue: tid/lane/wid, red[] (need_red), then `row` set (returning
 * when out of range) or a grid-stride `for (row ...) {` closed by map_close. */
void synth_fam_rw_map_open(pg_buf *c, const rw_map *m, const char *mt, bool need_red);
void synth_fam_rw_map_close(pg_buf *c, const rw_map *m);
const char *synth_fam_rw_map_c0(const rw_map *m);   /* the thread's first column: "lane" or "tid" */
void synth_fam_rw_map_reduce(pg_buf *c, const rw_map *m, const char *ind, const char *v, int op, bool f64);
/* rows x cols sizes (timed first, then 1000x777-like, long rows, small, 1x1). */
json_t *synth_fam_rw_row_sizes(fam_rng *r);

/* Small string pool for descriptions: synth_fam_rw_str(&p, fmt, ...) returns a
 * string that lives until synth_fam_rw_pool_free. */
typedef struct { char *s[96]; int n; } rw_pool;
const char *synth_fam_rw_str(rw_pool *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void synth_fam_rw_pool_free(rw_pool *p);

#endif
