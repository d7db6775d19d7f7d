/* ptxgen/synth_family.h — parametric kernel families for the synthesis
 * pipeline (see docs/DESIGN.md, "Synthesis").
 *
 * A family turns a seed into one complete task: a task.json (signature,
 * sizes that are not multiples of the tile, launch rule, distributions,
 * tolerance, cost model, descriptions in varied wording) whose C reference
 * (src/task/refs_*.c) is the one its row in the family table names
 * (src/synth/families_all.def; synth_family_reference), and the kernel's PTX:
 *
 *   family     source        parameters drawn from the seed
 *   map        ptx-template  op (scale add mul axpy axpby relu clamp absdiff),
 *                            dtype f32/f64/f16, block 128/256/512, one tile per
 *                            block or grid-stride, vector width 1/2/4, unroll 1/2/4
 *   reduce     ptx-template  op sum/max/min, f32/f64, block 128/256/512,
 *                            elements per thread 1/2/4/8, warp-shuffle or
 *                            shared-memory tree, one tile per block or
 *                            grid-stride, per-block partials or one atomic
 *                            add per block (sum)
 *   stencil1d  ptx-template  radius 1/2, coefficients as scalars or baked
 *                            immediates, boundary zero/clamp/copy, direct
 *                            loads or a shared-memory tile with halo, f32/f64
 *   stencil2d  nvcc          5-point, 9-point box or radius-2 cross; block
 *                            16x16/32x8/32x4; boundary zero/clamp/copy;
 *                            coefficients baked or as parameters; f32/f64
 *   gemv       nvcc          thread-per-row or warp-per-row, rows per
 *                            block, unroll; f32/f64
 *   gemm       nvcc          shared-memory tiles 8/16/32 with thread
 *                            coarsening 1/2/4 along rows
 *   transpose  nvcc          naive or shared-memory tile 16/32 (+1 padding)
 *                            with 4/8 rows of threads per tile; f32/f64
 *   softmax, rownorm, xent, loss, reduce_all, rowreduce, scan, compact,
 *   histogram  nvcc          the row-wise curriculum: normalization, losses,
 *                            reductions, scans, compaction, histograms (see
 *                            src/synth/family_rowwise.h)
 *
 * Every family-specific fact the reference needs (operator, radius,
 * coefficients, tile...) is in a top-level "family_params" object of the
 * task.json, which task_load() ignores and the reference re-reads (the
 * same pattern as the expression family's "expr").
 *
 * nvcc families: the kernel is CUDA C compiled with `nvcc -ptx -O3
 * -arch=<arch>`; synth_family_generate_batch() puts many instantiations in
 * one .cu file (one nvcc run) and splits nvcc's module into one module per
 * entry with libptx, so each sample is a complete module holding only its
 * kernel (plus the module-level declarations it references).  nvcc is found
 * via $NVCC, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin; without it those
 * families fail with PG_ERR_IO and a diagnostic.
 *
 * Determinism: the task and (PTX-template) kernel text are pure functions of
 * (family, seed); nvcc output additionally depends on the nvcc version.
 * Ownership: samples are filled by the callee and released with
 * synth_family_sample_free().  Nothing here prints.
 */
#ifndef PTXGEN_SYNTH_FAMILY_H
#define PTXGEN_SYNTH_FAMILY_H

#include "ptxgen/common.h"
#include "ptxgen/synth.h"   /* SYNTH_FMT_* */

typedef struct {
    char family[24];      /* "map", "reduce", ... (the task's "family") */
    char source[16];      /* "ptx-template" or "nvcc" */
    char name[96];        /* task name == kernel entry name */
    char identity[200];   /* "family:<parameter tuple>": equal for samples that
                             compute the same thing the same way (splits,
                             held-out exclusion); scalar values are not part */
    pg_buf task_json;     /* task.json text (loads with task_load) */
    pg_buf ptx;           /* a complete PTX module with one .entry `name` */
    pg_buf cu;            /* CUDA C source: what nvcc compiles (nvcc families), or the
                             plan whose lines head the PTX's blocks (PTX templates, not
                             compiled by the batch driver; docs/LITERATE.md) */
    int plan_style;       /* in: SYNTH_PLAN_FIXED or SYNTH_PLAN_VARIED, set by synth_family_generate_batch
                             from its format before the generator runs */
    char plan_variant[32];/* out: the style variant the plan was written in ("inline/int", "block/size_t",
                             "vector/uint"...; "/stride" appended, or "stride", when synth_family_generate_batch
                             named a loop's launch-derived step as a local (`unsigned int stride =
                             gridDim.x * blockDim.x;`), then "/def" or "def" when it wrote the block
                             size or tile as a #define'd name); "" for the fixed style
                             or a family without variants */
} synth_family_sample;

PG_API void synth_family_sample_free(synth_family_sample *s);

PG_API int synth_family_count(void);
PG_API const char *synth_family_name(int family);        /* NULL when out of range */
PG_API int synth_family_find(const char *name);           /* -1 when unknown */
PG_API bool synth_family_uses_nvcc(int family);
/* The name of the family's C reference in the task registry (task_ref_lookup:
 * "fam_map"), which its task.json names; NULL when out of range. */
PG_API const char *synth_family_reference(int family);

/* One sample of `family` for `seed`.  arch ("sm_90") is the nvcc target of
 * nvcc families (ignored by PTX templates, which target sm_80 and run on
 * anything newer).  On failure *out is empty, a diagnostic names the cause:
 * PG_ERR_USAGE (bad family/arch), PG_ERR_IO (nvcc missing or failed). */
/* format: SYNTH_FMT_PLAIN (nvcc's PTX without comments, as before literate PTX) or
 * SYNTH_FMT_LITERATE (docs/LITERATE.md: nvcc families are compiled with -lineinfo
 * from their plan, loops the plan does not ask to unroll kept as loops, and each
 * block of the PTX carries the plan line it implements).  PTX-template families
 * write the same kernel in both (their comments are their own). */
/* SYNTH_FMT_PLAN_VARIED or'd into format: families with plan style variants draw one per sample
 * (synth.h, SYNTH_PLAN_VARIED); without it every plan is in the fixed style. */
PG_API pg_status synth_family_generate(int family, uint64_t seed, const char *arch, int format, synth_family_sample *out,
                                pg_diag_sink *diag);

/* n samples of one family (seeds[i] -> out[i]); for nvcc families one nvcc
 * run compiles all of them (call with up to ~64 seeds; a batch that nvcc
 * rejects is retried one by one, so one bad instantiation cannot sink the
 * others: its slot comes back empty — out[i].ptx.len == 0 — and the status
 * is still PG_OK unless every slot failed).  out[] must be zeroed. */
PG_API pg_status synth_family_generate_batch(int family, const uint64_t *seeds, int n, const char *arch, int format,
                                      synth_family_sample *out, pg_diag_sink *diag);

/* The nvcc driver on its own: n CUDA C kernels (cu[i] defines extern "C" entry
 * names[i]) compiled in one nvcc run (retried one by one when the batch fails),
 * ptx[i] (zeroed by the caller) filled with a module holding kernel i alone, in
 * `format` (see above).  task_json (may be NULL, or hold NULLs): kernel i's task,
 * whose parameter names replace nvcc's <entry>_param_<k>, as for the families.  A kernel nvcc rejects leaves its ptx[i] empty with a
 * diagnostic; PG_ERR_IO when none compiled or nvcc is missing. */
PG_API pg_status synth_cuda_ptx_batch(const char *const *cu, const char *const *names, const char *const *task_json, int n,
                                      const char *arch, int format, pg_buf *ptx, pg_diag_sink *diag);
/* One CUDA C kernel (cu defines extern "C" entry `name`) as literate PTX, made exactly as the
 * literate training targets are (SYNTH_FMT_LITERATE above: prepared, nvcc -ptx -O3 -lineinfo, plan
 * comments from the line table), the GENERATED_BY line first; params[0..nparams) (may be 0) name
 * the parameters instead of nvcc's <name>_param_<i>.  Replaces out's text (the caller frees it).
 * False when nvcc is missing, rejects the kernel or its PTX does not parse: why says which (out
 * then empty).  Used by the two-stage pipeline for its PTX turn's reference drafts. */
PG_API bool synth_cuda_literate_ptx(const char *cu, const char *name, const char *const *params, int nparams, const char *arch,
                                    pg_buf *out, char *why, size_t whyn);
/* The plan as nvcc compiles it for literate PTX: `#pragma unroll 1` before each
 * loop that has no pragma and no constant trip count (docs/LITERATE.md). */
PG_API void synth_literate_prepare(const char *cu, pg_buf *out);

#endif
