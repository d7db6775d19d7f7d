/* family_internal.h — helpers shared by the family generators in
 * src/synth/family*.c (internal to the synth module; the public side is
 * include/ptxgen/synth_family.h). */
#ifndef PTXGEN_SYNTH_FAMILY_INTERNAL_H
#define PTXGEN_SYNTH_FAMILY_INTERNAL_H

#include "ptxgen/synth_family.h"

typedef struct { uint64_t s; } fam_rng;
uint64_t synth_fam_next(fam_rng *r);
int synth_fam_pick(fam_rng *r, int n);                 /* uniform in 0..n-1 */
/* Choose one of n string literals. */
const char *synth_fam_choice(fam_rng *r, const char *const *v, int n);
#define FAM_PICK(r, arr) synth_fam_choice((r), (arr), (int)(sizeof(arr) / sizeof((arr)[0])))

/* Task JSON helpers (jansson objects, written in the corpus layout). */
struct json_t;
/* f32 immediate "0f3F800000" / f64 immediate "0d3FF0000000000000". */
void synth_fam_imm(char *t, size_t n, double v, bool f64);
/* A float literal that round-trips ("2.5", "-0.375"). */
void synth_fam_lit(char *t, size_t n, double v);

/* Kernel names within PG_NAME_MAX (the constrained decoder's limit, ptxgen/common.h).
 * synth_fam_fit_name: a name that fits is left as it is; a longer one has its long words
 * shortened (residual -> res, inplace -> ip, ...); one still too long keeps its leading
 * words, up to PG_NAME_MAX - 7 bytes, and gets "_" and 6 hex digits of a hash of the
 * whole name, so distinct names stay distinct.  Call it on s->name as soon as the name is
 * complete, before anything is written with it.  synth_fam_shorten: the same down to
 * `max` bytes without the hash, for callers that append a hash of their own
 * (synth_sp_seal_name). */
void synth_fam_fit_name(char *name);
void synth_fam_shorten(char *name, size_t max);

/* PTX register allocation: each kind counts up from 1; synth_fam_decls prints the
 * `.reg` lines sized to what was used. */
typedef struct { int p, r, rd, f, fd, h; } fam_regs;
void synth_fam_decls(const fam_regs *g, pg_buf *out);

/* Literate PTX of the PTX-template families (docs/LITERATE.md): the generator
 * writes its CUDA C plan into s->cu and heads each block of its PTX with one
 * plan line as a comment.  synth_fam_plan appends a line to the plan, `indent`
 * levels of 4 spaces in; synth_fam_note appends "\t// " + the line with its
 * blanks collapsed (the form ptx_literate_from_loc gives plan lines);
 * synth_fam_linef is snprintf for the line buffers (a line longer than the
 * buffer is cut: the test of the plans would then see a comment that is no
 * plan line). */
void synth_fam_plan(pg_buf *cu, int indent, const char *line);
void synth_fam_note(pg_buf *ptx, const char *line);
void synth_fam_linef(char *dst, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The per-family generators, one SYNTH_FAMILY(name, generator, reference,
 * uses_nvcc) row each in src/synth/families*.def (collected by
 * families_all.def).  nvcc families fill everything but ptx (the CUDA C goes
 * into s->cu). */
typedef pg_status (*fam_gen_fn)(uint64_t seed, synth_family_sample *s);
#define SYNTH_FAMILY(name, fn, ref, nvcc) pg_status fn(uint64_t seed, synth_family_sample *s);
#include "families_all.def"
#undef SYNTH_FAMILY

/* The name of the C reference in the generator's row ("fam_map"), the
 * task.json's "reference" name; "" for a function that has no row. */
const char *synth_fam_ref(fam_gen_fn generator);
/* One draw of family `name` straight from its generator (no nvcc, no verification: what the
 * synth tests inspect); PG_ERR_USAGE when no row has that name.  s as the generator leaves it. */
pg_status synth_fam_draw(const char *name, uint64_t seed, synth_family_sample *s);

/* The "#define" plan style (plan_defines.c; docs/LITERATE.md "Plan styles"): for two seeds in five
 * whose plan writes the launch's block.x (1-D, 64 or more) or tile (2-D) as a literal where it
 * stands for that size (`blockIdx.x * 256`, `gridDim.x * 256`, a loop's step `j += 256)` or bound
 * `j < 32;` when the loop's start is no literal, a __shared__ extent, `lane < 8 ?` for 256/32,
 * `[33]` for the padded tile), those literals become a macro (`NT`, `BLOCK_SIZE`, `TILE` ...,
 * `NT / 32`, `TILE + 1`) and `#define NAME V` goes before the first code line.  The macro expands
 * to the token it replaced (V + 1 to the same extent), so nvcc makes the same instructions.
 * Rewrites only when some statement outside a __shared__ declaration gets the name and the name
 * is no token of the plan.  Returns the number of literals replaced (0: cu unchanged); name gets
 * the macro ("" when none).  task_json: the sample's task (its "launch" "block"). */
int synth_plan_defines(uint64_t seed, const char *task_json, pg_buf *cu, char *name, size_t namen);

/* Three more plan styles (plan_forms.c; docs/LITERATE.md "Plan styles"), each on its own stream of
 * the seed and returning 0 with cu unchanged where it does not apply:
 *   synth_plan_rowptr  one plan in four: a parameter subscripted `q[(size_t)A * B + J]` (J a name)
 *                      gets a row pointer `const T* qr = q + (size_t)A * B;` before its first such
 *                      line and `qr[J]`, where every such use lies in that line's block and A, B
 *                      keep their values; returns the uses rewritten.
 *   synth_plan_unroll  two in three: each run of 3+ consecutive statements (assignments or one-line
 *                      blocks, no comments) equal but for one integer literal stepping by +1 or -1
 *                      becomes `#pragma unroll` + one `for (int k = ...)` line over it; returns runs.
 *   synth_plan_wide    two in three: `unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;` (or
 *                      int, or a grid-stride loop's `for (...; i < E; i += gridDim.x * blockDim.x) {`)
 *                      whose i the plan divides or takes % of, every other use `[i]`, an `if`
 *                      comparison or `(void)i`, becomes `size_t i = (size_t)blockIdx.x * ...`;
 *                      returns 1.
 * synth_plan_forms runs the three; tags gets "rp", "ur", "64" joined by '/' ("" when none) and the
 * count of styles applied is returned. */
int synth_plan_rowptr(uint64_t seed, pg_buf *cu);
int synth_plan_unroll(uint64_t seed, pg_buf *cu);
int synth_plan_wide(uint64_t seed, pg_buf *cu);
int synth_plan_forms(uint64_t seed, pg_buf *cu, char *tags, size_t tagsn);
/* The "stride variable" plan style (plan_stride.c; docs/LITERATE.md "Plan styles"): for one seed in
 * four whose plan has a `for` loop in a __global__ kernel stepping by `v += E`, E made of
 * gridDim/blockDim members and integer literals only (`gridDim.x * blockDim.x`, `(size_t)gridDim.x *
 * 256`, `blockDim.x`, `gridDim.x`), each distinct E becomes a local `T NAME = E;` (T: size_t when E
 * has a (size_t) cast, else unsigned int: E's own type; `const` one time in three) declared on the
 * line before its first loop (above that loop's comment and pragma lines) or first in the kernel's
 * body, and each such step `v += NAME`.  NAME (`stride`, `gstride`, `nthreads`, `nblocks`, `nt` ...
 * by what E counts) is no token of the plan.  The loop computes what it computed.  Returns the
 * number of steps replaced (0: cu unchanged); name gets the first NAME ("" when none).  Run it
 * before synth_plan_defines, whose `gridDim.x * 256` may then be the declaration's. */
int synth_plan_stride(uint64_t seed, pg_buf *cu, char *name, size_t namen);

#endif
