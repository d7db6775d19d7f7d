/* diff.h — the differential fuzzer of libptx against ptxas (tests/diff_ptxas/).
 *
 * A program is one kernel: its own module-scope lines (if any) and one
 * `.visible .entry`, written against a shared preamble (module-scope
 * variables, texture references, two callable functions).  Programs are made
 * from the ISA table (gen.c), checked by libptx in-process and by ptxas in
 * batches of many kernels per module (oracle.c), and every disagreement is
 * delta-debugged to its fewest lines (reduce.c).  main.c runs campaigns,
 * regression cases and constrained-decoder walks; README.md says how. */
#ifndef DIFF_PTXAS_H
#define DIFF_PTXAS_H

#include "ptxgen/ptx.h"

#include <stdio.h>

/* ---- random numbers (splitmix64: a program is a pure function of its seed) ---- */
typedef struct { uint64_t s; } dp_rng;
uint64_t dp_next(dp_rng *r);
int dp_below(dp_rng *r, int n);              /* uniform in [0, n) */
bool dp_chance(dp_rng *r, double p);
dp_rng dp_rng_of(uint64_t seed, uint64_t stream);

/* ---- targets ---- */
typedef struct {
    const char *name;     /* the module's .target: "sm_70" */
    const char *arch;     /* what ptxas is run with: CUDA 13's ptxas has no sm_70, so sm_75 stands in
                             (ptxas checks features against the module's .target, not -arch) */
    int sm;
    const int *versions;  /* PTX ISA versions x10 this target is tried with (0-terminated) */
} dp_target;
const dp_target *dp_target_find(const char *name);

/* ---- programs ---- */
typedef enum {
    DP_FORM,      /* one instruction of a table form, modifiers and operands as the table admits */
    DP_MODMUT,    /* the same with its modifiers mutated (dropped, repeated, reordered, foreign) */
    DP_OPMUT,     /* the same with one operand mutated (type, kind, arity, range, name) */
    DP_SEQ,       /* several well-typed instructions, branches and labels */
    DP_DECL,      /* declarations: registers, variables, parameters, directives, names */
    DP_TOKEN,     /* a program ptxas accepted, one token changed */
    DP_WALK,      /* a random constrained walk of the decoder (soundness, not disagreement) */
    DP__NCAT
} dp_cat;
extern const char *const dp_cat_names[DP__NCAT];

typedef struct {
    char *text;          /* module-scope lines + the entry, '\n'-terminated lines (malloc'd) */
    char name[24];       /* the entry's name, unique in a campaign: "k123" */
    dp_cat cat;
    char what[64];       /* the opcode or the declaration kind: the row of the category table */
} dp_prog;
void dp_prog_free(dp_prog *p);

/* The module-scope preamble every program may use (valid on every target). */
const char *dp_preamble(void);
/* The header for a target and PTX version: ".version 8.0\n.target sm_80\n.address_size 64\n". */
void dp_header(const dp_target *t, int ptx, pg_buf *out);

/* Restrict generation to the forms of some opcodes or to one category
 * (comma list); false when a name is neither. */
bool dp_gen_set_only(const char *list);
/* The form index program `index` is about (DP_FORM/MODMUT/OPMUT). */
int dp_gen_form_of(uint64_t index);
/* Seeds from this one write constant expressions (sh[2*3], [%rd1+(4*2)], (1<<3)-1) in
 * operands and initializers; earlier seeds make the programs they always made. */
enum { DP_CX_SEED = 8 };
/* Seeds from this one also write float constant expressions in initializers (1.0+2.0,
 * (0f3F800000)*2.0, 1.0<2.0 in a .u32, and the forms ptxas refuses); seeds 1 to 8 are unchanged. */
enum { DP_FX_SEED = 9 };

/* Make program number `index` of a campaign with `seed` (category by index). */
void dp_gen_program(uint64_t seed, uint64_t index, dp_prog *out);
/* A one-token mutant of `parent` (a program ptxas accepted), named `name`. */
bool dp_gen_token_mutant(uint64_t seed, uint64_t index, const dp_prog *parent, const char *name, dp_prog *out);

/* ---- verdicts ---- */
typedef struct {
    bool ok;             /* accepted */
    bool timeout;        /* ptxas did not finish: no verdict */
    int line;            /* first error: line in the checked text (1-based; 0 = none) */
    char code[8];        /* libptx: the first error's code ("E203"); ptxas: "" */
    char msg[240];       /* the first error's message */
} dp_verdict;

/* libptx on a whole module text (ptx_parse + ptx_validate; warnings do not count). */
void dp_libptx_check(const char *text, size_t len, dp_verdict *out);

typedef struct {
    char ptxas[512];     /* path */
    char tmpdir[256];    /* private temp folder (removed by dp_oracle_close) */
    double timeout;      /* seconds per ptxas run */
    long runs;           /* ptxas runs so far */
    double seconds;      /* their wall time */
    int seq;
} dp_oracle;
/* Find ptxas ($PTXAS, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin); false when absent. */
bool dp_oracle_open(dp_oracle *o);
void dp_oracle_close(dp_oracle *o);
/* ptxas on one whole module text. */
void dp_ptxas_check(dp_oracle *o, const dp_target *t, const char *text, size_t len, dp_verdict *out);
/* ptxas on n programs at once: one module (header + preamble + every program),
 * errors attributed to programs by line (or by the entry's name in the
 * message); a fatal parse error stops ptxas, so the programs after it and the
 * ones before it without errors go round again without the rejected ones; a
 * failure nobody can be blamed for is bisected.  out[i].line is relative to
 * the program's own text. */
void dp_ptxas_batch(dp_oracle *o, const dp_target *t, int ptx, dp_prog *const *progs, int n, dp_verdict *out);

/* Normalized form of a message for grouping: digits, quoted names and
 * register names replaced ("Arguments mismatch for instruction 'add'" stays). */
void dp_normalize(const char *msg, char *out, size_t n);

/* ---- deliberate differences (tests/diff_ptxas/known.txt) ---- */
typedef struct dp_known dp_known;
dp_known *dp_known_load(const char *path, char *err, size_t errn);
/* The id of the entry that explains a disagreement, or NULL.  libptx_key is
 * "CODE message" of libptx's first error; opcode the first word of the line
 * ptxas's first error names (NULL if none). */
const char *dp_known_match(const dp_known *k, bool libptx_ok, const char *ptxas_msg, const char *libptx_key, const char *opcode);
void dp_known_free(dp_known *k);

/* ---- delta debugging ---- */
/* Reduce `text` (header + preamble + program) to the fewest lines for which
 * libptx and ptxas still give the verdicts `lib` and `px` (and the same
 * normalized first error on the rejecting side).  Returns the reduced module
 * (malloc'd); *tests gets the number of ptxas runs spent. */
char *dp_reduce(dp_oracle *o, const dp_target *t, const char *text, const dp_verdict *lib, const dp_verdict *px, int *tests);

#endif
