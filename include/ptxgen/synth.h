/* ptxgen/synth.h — the synthesis pipeline: families, mutations, descriptions,
 * dataset writing (see docs/DESIGN.md, "Synthesis").
 *
 * Conventions (as everywhere in ptxgen, see common.h):
 *  - Functions return pg_status; details go to a pg_diag_sink, never to
 *    stdout/stderr.
 *  - Everything is deterministic for a seed: the same input, kind and seed give
 *    byte-identical output on every machine (the PRNG is splitmix64; nothing
 *    depends on addresses, hash-table order or the clock).
 *  - Output buffers (pg_buf) belong to the caller: results are appended, and
 *    nothing is appended when a function fails.
 */
#ifndef PTXGEN_SYNTH_H
#define PTXGEN_SYNTH_H

#include "ptxgen/common.h"

/* ==== Semantics-preserving mutations (src/synth/mutate.c) ==================
 *
 * Each mutation rewrites a valid PTX module into another valid PTX module
 * that computes exactly the same thing:
 *
 *  SYNTH_MUT_RENAME_REGS  For every function, each `.reg` declaration whose
 *      name starts with '%' (parameterized `%r<N>` and single `%SP` alike, in
 *      the body and in nested { } scopes) gets a fresh name; the members of a
 *      parameterized declaration are also permuted (a random bijection of
 *      0..N-1, so the declared count still covers every index).  Every
 *      reference (operands, vector elements, address bases, pairs, call
 *      lists, guards) is rewritten through the scope that declares it.  New
 *      names end in a letter and collide with no declared name, parameter,
 *      label, module-level symbol or special register (%pm0, %envreg3 ...).
 *      Function parameters and `%`-less register names are left alone.
 *      *changes = renamed declarations + rewritten references.
 *  SYNTH_MUT_REORDER  Inside every basic block (ptx_cfg_build), each maximal
 *      run of consecutive instructions (not interrupted by a label, directive,
 *      declaration or { }) is emitted in a random topological order of the
 *      block's dependence DAG (ptx_dag_build: registers, carry flag, memory per
 *      state space, barriers, predicates).  The block's terminator (bra, brx,
 *      ret, exit, trap) never moves.  *changes = instructions whose position
 *      changed (0 when every run has a single valid order).
 *  SYNTH_MUT_PREDICATE_BRANCH  A random non-empty subset of the unguarded
 *      `bra` instructions of each function becomes `setp.{eq,ne}.T P, 0, 0;
 *      @P bra L;` (or `@!P` for ne) — a predicate that is always true, so the
 *      branch is always taken.  P is a fresh `.reg .pred P<1>;` declared as
 *      the first statement of the function body.  *changes = branches
 *      predicated (0: the module has no unguarded bra).
 *  SYNTH_MUT_RENAME_LABELS  Every label of a function (plain labels and the
 *      labels of .branchtargets / .calltargets / .callprototype directives)
 *      gets a fresh name in one of a few styles ($Lm_<tag>_<k>, $L__BB<tag>_<k>,
 *      BB<tag>_<k>); definitions, bra/brx targets, .branchtargets lists and
 *      call prototype/target operands are rewritten consistently.
 *      *changes = renamed definitions + rewritten references.
 *
 * Functions without a body are left unchanged by every kind.
 */
typedef enum {
    SYNTH_MUT_RENAME_REGS,
    SYNTH_MUT_REORDER,
    SYNTH_MUT_PREDICATE_BRANCH,
    SYNTH_MUT_RENAME_LABELS,
    SYNTH_MUT__COUNT
} synth_mut_kind;

/* "rename-regs", "reorder", "predicate-branch", "rename-labels"; NULL when
 * k is out of range. */
PG_API const char *synth_mut_name(synth_mut_kind k);

/* Parse `ptx` (len bytes), require it to parse and validate cleanly, apply
 * mutation `kind` deterministically for `seed`, and append the result (printed
 * with ptx_print) to `out`.  *changes (may be NULL) gets the number of edits;
 * 0 means the mutation found nothing to do and the output is the canonical
 * print of the input.
 *
 * The mutant is parsed and validated again before anything is written; a
 * mutant that fails is a bug in this module: its diagnostics go to `diag`
 * under the file name "<mutant KIND seed N>", nothing is appended and
 * PG_ERR_INVALID is returned.
 *
 * Errors: PG_ERR_USAGE (bad kind, NULL ptx/out), PG_ERR_PARSE / PG_ERR_INVALID
 * (the input does not parse / validate; diagnostics under "<input>"),
 * PG_ERR_INVALID (the mutant does not validate, see above). */
PG_API pg_status synth_mutate(const char *ptx, size_t len, synth_mut_kind kind, uint64_t seed, pg_buf *out,
                       int *changes, pg_diag_sink *diag);

/* ==== Kernel families (templates -> PTX) ======================================
 * (reserved: declarations are added with src/synth/families.c) */

/* ==== Descriptions and paraphrases ===========================================
 * (reserved: declarations are added with src/synth/describe.c) */

/* ==== Dataset writer and splits ===============================================
 * (reserved) */


/* ==== The dataset writer: `ptxgen synth` (src/synth/dataset.c) ==============
 *
 * Candidate i is a pure function of (seed, i): a hand-written corpus kernel
 * (every 8th), a random expression-tree kernel (synth_expr.h), or a mutant of
 * either.  Each is verified (ptx_validate with no errors or warnings, ptxas
 * for the arch) — failures are counted by family, never written — then
 * de-duplicated by synth_normalized_hash and written as one JSONL line with
 * id, family, source, arch, task, description (+ style), instruction_level_desc,
 * ptx_code, performance_note, ptxas, split (+ mutation).  Output goes to
 * OUT.partial with OUT.partial.state; an interrupted run resumes from there
 * and OUT appears by rename when complete.  Byte-identical for the same
 * arguments, whatever `jobs` is.
 *
 * Held-out exclusion (exclude_dir, one folder or a comma-separated list of
 * folders such as "bench/suite,bench/suite-prose"): every folder of each with a task.json
 * contributes its task identity: "hand:<name>" and, when the spec has an
 * "expr" field, the expression's canonical key (prefix text with the operands
 * of add/mul/min/max sorted, so a+b and b+a count as the same task).  A
 * candidate whose identity matches is skipped before verification and counted
 * in rep->excluded.  An unreadable exclude folder (or an empty list entry) is PG_ERR_IO and a malformed
 * task.json or "expr" in it PG_ERR_INVALID, so a typo cannot silently leak the
 * suite into the training data.  Without exclude_dir the output is
 * byte-identical to a build without the option. */
/* SYNTH_SRC_FAMILY: the parametric families of synth_family.h (map, reduce, stencils, gemv, gemm, transpose). */
/* Sample formats (synth_opts.format, synth_family_generate): plain PTX, or
 * literate PTX with the CUDA C plan's lines as comments (docs/LITERATE.md). */
enum { SYNTH_FMT_PLAIN = 0, SYNTH_FMT_LITERATE = 1 };
/* Plan styles (synth_opts.plan_style): fixed writes each family's plan in its one house style (the
 * output of every run before the option existed); varied lets the families that have style variants
 * (elementwise: one-line guards with the loads inlined, guarded blocks with natural local names,
 * int / const int / size_t indices; row-wise: loop and accumulator names, `a = a + b`, the
 * shuffle reductions as __device__ helpers; every
 * nvcc family: the block size or tile as a `#define`d name, `#define NT 256` ... `j += NT`;
 * docs/LITERATE.md "Plan styles") draw one per sample from a stream of its
 * seed that no task choice uses, so the task is the same in both.  synth_family_generate(_batch) take
 * it as the flag SYNTH_FMT_PLAN_VARIED or'd into their format. */
enum { SYNTH_PLAN_FIXED = 0, SYNTH_PLAN_VARIED = 1 };
enum { SYNTH_FMT_MASK = 0xff, SYNTH_FMT_PLAN_VARIED = 0x100 };
/* Register styles of the samples (synth_opts.regs): numbered and declared at the top as nvcc
 * writes them, named after the plan and declared at first use (literate only: ptx_regs_name,
 * docs/LITERATE.md), or canonical: numbered in order of first appearance from 1 (any format:
 * ptx_regs_renumber). */
enum { SYNTH_REGS_NUMBERED = 0, SYNTH_REGS_NAMED = 1, SYNTH_REGS_CANONICAL = 2 };
enum { SYNTH_SRC_HAND = 1, SYNTH_SRC_EXPR = 2, SYNTH_SRC_MUTANT = 4, SYNTH_SRC_FAMILY = 8, SYNTH_MAX_FAMILIES = 96 };

typedef struct {
    int count;               /* samples to write */
    uint64_t seed;
    const char *out;         /* FILE.jsonl */
    const char *corpus_dir;  /* hand-written tasks (corpus/) */
    const char *results;     /* optional device results JSON for measured performance notes */
    const char *arch;        /* ptxas target, e.g. "sm_90" */
    unsigned sources;        /* SYNTH_SRC_* bits */
    int jobs;                /* worker processes */
    bool progress;           /* progress bar on stderr */
    int family_pct;          /* share of the non-hand candidates drawn from the parametric families,
                                in percent (0 = the default, 37.5%); the curriculum runs use more */
    const char *exclude_dir; /* optional held-out suites (bench/suite, or a comma list): candidates whose task identity
                                matches one of its tasks are skipped (see synth_dataset_write) */
    const int *family_weight; /* optional curriculum weights over the parametric families, NULL = all equal (the
                                default draw).  Indexed like synth_family_name(), synth_family_count() entries, each
                                0..SYNTH_FAMILY_WEIGHT_MAX and at least one > 0: a family candidate draws family f
                                with probability w[f] / sum(w), 0 never.  It changes which family, not how many
                                candidates are family ones (family_pct).  All ones draw exactly what NULL draws.
                                Borrowed: the caller owns the array and keeps it alive through synth_dataset_write;
                                synth_family_weights_parse fills one from "NAME=W,...".  Out of range or all 0:
                                PG_ERR_USAGE before any work. */
    int format;              /* SYNTH_FMT_PLAIN (0, nvcc's and the generators' PTX as it always was) or
                                SYNTH_FMT_LITERATE (synth_family.h, docs/LITERATE.md: every sample with a CUDA C plan
                                carries it as cuda_c and its PTX the plan's lines as comments; expression kernels are
                                compiled by nvcc from their plan; each line gets "format": "literate").  A resume
                                with another format is refused like any other changed argument. */
    int regs;                /* SYNTH_REGS_NUMBERED (0) or SYNTH_REGS_NAMED (literate only: every sample's PTX goes
                                through ptx_regs_name with its plan before the validator and ptxas see it; each line
                                gets "regs": "named"), or SYNTH_REGS_CANONICAL (any format: every sample's PTX,
                                parsed and validated, goes through ptx_regs_renumber before the validator and ptxas
                                see it; each line gets "regs": "canonical").  A resume with another style is refused. */
    int plan_style;          /* SYNTH_PLAN_FIXED (0: byte-identical to runs before the option) or SYNTH_PLAN_VARIED
                                (the CLI's default): see above; a sample drawn in a style variant gets "plan_style"
                                (e.g. "inline/int").  A resume with another plan style is refused. */
} synth_opts;

enum { SYNTH_FAMILY_WEIGHT_MAX = 100 };

typedef struct {
    int written, resumed_from;
    /* failed: candidates rejected (generator, validator, ptxas, a dead worker), never written;
     * nothing_to_change: mutants identical to their base, skipped and not failures.
     * fam_failed[] sums to failed. */
    long candidates, failed, duplicates, nothing_to_change;
    long excluded;           /* candidates skipped because they are held-out suite tasks (--exclude) */
    double seconds;
    char fam[SYNTH_MAX_FAMILIES][32];
    int fam_written[SYNTH_MAX_FAMILIES], fam_failed[SYNTH_MAX_FAMILIES], nfam;
    char fail_examples[8][200];
    int nfail_examples;
} synth_report;

PG_API pg_status synth_dataset_write(const synth_opts *o, synth_report *rep, pg_diag_sink *diag);
/* Curriculum weights (`ptxgen synth --family-weight`): parse "NAME=W[,NAME=W...]"
 * into weights[0 .. synth_family_count()), which the caller allocates
 * (SYNTH_MAX_FAMILIES entries are always enough).  NAME is
 * a family as synth_family_name() and the samples' "family" field spell it, W an
 * integer 0..SYNTH_FAMILY_WEIGHT_MAX; families not named get 1.  PG_ERR_USAGE,
 * with one diagnostic (file "--family-weight") naming the bad item, for an
 * unknown name, a bad weight, a family named twice, an empty item, or all
 * weights 0; weights[] is then unspecified. */
PG_API pg_status synth_family_weights_parse(const char *spec, int *weights, pg_diag_sink *diag);
/* Which parametric family candidate idx of a run with options o draws (an index
 * for synth_family_name), or -1 when it is no family candidate (a corpus kernel
 * or an expression tree).  nhand: the number of corpus tasks the run loaded (0
 * when none).  A pure function of (seed, sources, family_pct, family_weight,
 * nhand != 0, idx); synth_dataset_write draws with it, and tests measure it.
 * Weights as synth_dataset_write accepts them (all 0 picks no family). */
PG_API int synth_family_pick(const synth_opts *o, int nhand, int64_t idx);
/* Counts per family/source/split/style, PTX length distribution (p50/p95),
 * and the run's verification rates (OUT.meta.json) as JSON into out. */
PG_API pg_status synth_dataset_stats(const char *path, pg_buf *out, pg_diag_sink *diag);
/* Hash of the PTX with register numbers, comments and whitespace removed. */
PG_API uint64_t synth_normalized_hash(const char *ptx);
/* A task spec in the corpus layout (one top-level field per line, descriptions and
 * params one entry per line), as every generator writes it. */
struct json_t;
PG_API void synth_task_json_write(struct json_t *root, pg_buf *out);
PG_API int synth_family_slot(synth_report *r, const char *family);   /* internal bookkeeping */

/* ---- task-only training tasks (src/synth/taskonly.c) ----
 * Task specs with a C reference and descriptions but no PTX solution, for
 * expert iteration's training pool: compositions of building blocks (an
 * elementwise expression tree, "taskonly-map"; a sum/mean/max/min over each row
 * of an expression, "taskonly-rowreduce").  Pure functions of (seed, index).
 * synth_taskonly_task appends task `index`'s task.json to task_json and its
 * name (a plain file name) to name; synth_taskonly_write writes `count` of them
 * as DIR/<name>/task.json (atomically each; *written counts them).  The
 * canonical key of an expression (operands of commutative operators sorted),
 * as synth's --exclude compares them: synth_expr_canonical. */
struct expr_tree;
PG_API void synth_expr_canonical(const struct expr_tree *e, pg_buf *out);
PG_API pg_status synth_taskonly_task(uint64_t seed, int index, pg_buf *task_json, char *name, size_t namen, pg_diag_sink *diag);
PG_API pg_status synth_taskonly_write(const char *dir, int count, uint64_t seed, const char *exclude, int *written, pg_diag_sink *diag);
/* exclude (NULL = none): held-out suites, one folder or a comma list; a map task
 * whose expression equals one of their "expr" fields up to operand order is
 * skipped (the next index is drawn instead), as `ptxgen synth --exclude` does. */

#endif
