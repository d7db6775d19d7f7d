/* ptxgen/ptx.h — libptx: parse, print, validate, analyse and explain PTX.
 *
 * Ownership: ptx_parse() returns a ptx_module that owns every string and node
 * reachable from it (one arena); free it with ptx_module_free().  Analyses
 * (ptx_cfg, ptx_dag) are separate objects freed with their own *_free().
 * Errors: functions return pg_status and report details to a pg_diag_sink as
 * "file:line:col: error[CODE]: message"; nothing here prints.
 */
#ifndef PTXGEN_PTX_H
#define PTXGEN_PTX_H

#include "ptxgen/common.h"
#include "ptxgen/isa.h"

/* Hard limits that keep hostile input from exhausting memory or stack. */
enum {
    PTX_MAX_FILE_BYTES = 64 << 20,
    PTX_MAX_TOKEN = 4096,      /* bytes in one identifier/number/string */
    PTX_MAX_NEST = 64,         /* nested { } scopes */
    PTX_MAX_OPERANDS = 64,     /* operands of one instruction (incl. vector elements) */
    PTX_MAX_MODS = 24,         /* modifiers on one opcode */
};

typedef struct { int line, col; } ptx_loc;

/* ---- operands ---------------------------------------------------------- */
typedef enum {
    PTX_OP_REG,      /* %r1, %f2, also parameterized names and special regs (sreg != NULL) */
    PTX_OP_IMM_INT,  /* 42, 0x1F, -3, 017, 7U */
    PTX_OP_IMM_FLT,  /* 0f3F800000, 0d..., 1.5 */
    PTX_OP_SYM,      /* a variable, param, function or label name */
    PTX_OP_ADDR,     /* [base], [base+off], [imm] */
    PTX_OP_VEC,      /* {a, b, c, d} */
    PTX_OP_SINK,     /* _ */
    PTX_OP_PAIR,     /* p|q */
    PTX_OP_LIST,     /* (a, b, c): call argument / return lists */
    PTX_OP_INDEX,    /* sh[2], sh[%r1], sh[%r1+4]: an array's element (name; ival; elems[0] the index register) */
} ptx_op_kind;

typedef struct ptx_operand ptx_operand;
struct ptx_operand {   /* 72 bytes: the scalars first, no padding between pointers */
    ptx_op_kind kind;
    ptx_loc loc;
    int fbits;              /* IMM_FLT: 32 for 0f, 64 for 0d and decimal */
    int nelems;
    bool neg;               /* !%p (logical not) or -x on a register */
    bool addr_base_is_reg;  /* ADDR: base is a register */
    bool addr_has_base;
    const char *text;       /* the operand as written, canonical spacing */
    const char *name;       /* REG/SYM: the name; ADDR: the base name or NULL */
    const isa_sreg *sreg;   /* REG: special register, or NULL */
    int64_t ival;           /* IMM_INT value; ADDR offset */
    double fval;            /* IMM_FLT value */
    ptx_operand *elems;     /* VEC / PAIR / LIST / ADDR-with-vector elements */
};

/* ---- statements ------------------------------------------------------- */
typedef enum {
    PTX_ST_INSN,
    PTX_ST_LABEL,       /* name: */
    PTX_ST_DECL,        /* .reg/.local/.shared/.param/.const/.global variable declaration */
    PTX_ST_DIRECTIVE,   /* .loc, .pragma, .branchtargets, .calltargets, .callprototype, others kept as text */
    PTX_ST_BLOCK_BEGIN, /* { */
    PTX_ST_BLOCK_END,   /* } */
} ptx_stmt_kind;

typedef enum {
    PTX_SS_NONE, PTX_SS_REG, PTX_SS_SREG, PTX_SS_CONST, PTX_SS_GLOBAL, PTX_SS_LOCAL,
    PTX_SS_PARAM, PTX_SS_SHARED, PTX_SS_TEX, PTX_SS__COUNT
} ptx_space;
PG_API const char *ptx_space_name(ptx_space s);   /* ".global" */

typedef struct {   /* 72 bytes */
    ptx_space space;
    ptx_type type;
    int vec;                  /* 0, or 2/4/8 for .v2/.v4/.v8 */
    int align;                /* 0 = natural */
    int count;                /* %r<10>: 10 registers %r0..%r9; 0 when not parameterized */
    int ndims;
    const char *name;
    int64_t *dims;            /* array dimensions; -1 = unsized [] */
    const char *init;         /* initializer text after '=' (canonical), or NULL */
    const char *attrs;        /* other qualifiers as text (.ptr.global.align 8, .attribute(...)) or NULL */
    ptx_loc loc;
    bool is_extern, is_visible, is_weak, is_common;
} ptx_decl;

/* Statements are read by every pass (validation, CFG, W505, liveness): an instruction is
 * 72 bytes and a statement 96, so a function's body takes few cache lines. */
typedef struct {
    const char *opcode;          /* "ld" */
    const char **mods;           /* ".global", ".v4", ".f32" (nmods entries, in the arena; the parser's
                                  * instructions of one head share them: replace the array, never
                                  * write into it) */
    uint16_t *mod_ids;           /* the same as isa_modifier_id()s; 0 = not in the ISA table (shared too) */
    int nmods;
    int nops;
    const char *guard;           /* predicate register or NULL */
    ptx_operand *ops;
    const isa_form *form;        /* matched form, set by ptx_validate (or NULL) */
    /* modifier bindings for `form`, set with it by ptx_validate (NULL when form is): in
     * the module's arena, shared by the instructions that bind alike (read-only) */
    const isa_match *match;
    bool guard_neg;
} ptx_insn;

typedef struct {
    ptx_stmt_kind kind;
    ptx_loc loc;
    int depth;                /* nesting depth inside the function body (1 = top) */
    /* The full-line `//` comments written before the statement: the text after
     * each `//` (trailing blanks and CR removed), lines joined by '\n'; NULL when
     * none.  Trailing comments (after code on the same line) and block comments
     * are not kept.  Literate PTX (docs/LITERATE.md) puts its plan lines here. */
    const char *comment;
    union {
        ptx_insn insn;
        const char *label;
        ptx_decl decl;
        struct {
            const char *name;  /* ".loc", ".pragma", ".branchtargets" ... */
            const char *label; /* label written before it (tables: "$T: .branchtargets"), or NULL */
            const char *text;  /* arguments as text, canonical spacing */
            const char **args; /* split arguments (labels of .branchtargets, ...) */
            int nargs;
        } dir;
    } u;
} ptx_stmt;

/* ---- functions and the module ------------------------------------------- */
typedef struct {
    const char *name;     /* ".maxntid" */
    int64_t vals[3];
    int nvals;
    ptx_loc loc;          /* the directive's name */
} ptx_perf;

typedef struct {
    bool is_entry;
    bool is_visible, is_extern, is_weak;
    const char *name;
    ptx_loc loc;
    ptx_decl *params; int nparams;
    ptx_decl *rets; int nrets;
    ptx_perf *perf; int nperf;
    const char *attrs;         /* .noreturn, .attribute(...) as text, or NULL */
    bool has_body;             /* false for prototypes ending in ';' */
    ptx_stmt *body; int nbody; /* flat; nested scopes are BLOCK_BEGIN/END pairs */
    ptx_loc end_loc;           /* the closing brace */
    const char *end_comment;   /* full-line comments before the closing brace (as ptx_stmt.comment) */
} ptx_func;

typedef enum { PTX_TOP_FUNC, PTX_TOP_DECL, PTX_TOP_DIRECTIVE } ptx_top_kind;
typedef struct {
    ptx_top_kind kind;
    ptx_loc loc;
    union {
        int func;          /* index into funcs */
        ptx_decl decl;
        struct { const char *name, *text; } dir; /* .file, .section (text = raw body), .alias, .pragma, .extern proto ... */
    } u;
} ptx_top;

typedef struct {
    const char *filename;
    int ptx_version;          /* x10: 9.0 -> 90; 0 = missing */
    const char *version_text; /* "9.0" */
    const char **targets; int ntargets;   /* "sm_90a", "debug", "texmode_independent" */
    int sm;                   /* numeric target (0 when missing/unknown) */
    bool arch_specific;
    int address_size;         /* 32, 64; 0 = missing */
    ptx_loc version_loc, target_loc, address_loc;
    ptx_top *tops; int ntops;
    ptx_func *funcs; int nfuncs;
    pg_arena arena;
} ptx_module;

/* Parse `src` (len bytes, need not be NUL-terminated).  On syntax errors the
 * module is still returned with everything that parsed; the status says
 * whether it is complete.  *out is always set (free it). */
PG_API pg_status ptx_parse(const char *src, size_t len, const char *filename, ptx_module **out,
                    pg_diag_sink *diag);
PG_API pg_status ptx_parse_file(const char *path, ptx_module **out, pg_diag_sink *diag);
PG_API void ptx_module_free(ptx_module *m);

/* Validate: resolves instruction forms (fills ptx_insn.form/match) and checks
 * every rule with a stable code (see ptxgen/diag_codes.def).  Returns
 * PG_OK or PG_ERR_INVALID. */
PG_API pg_status ptx_validate(ptx_module *m, pg_diag_sink *diag);
/* May a register of type `reg` fill an operand slot of type `want`?  (PTX ISA
 * "operand type checking"; `relaxed` = the ld/st/cvt rule allowing wider
 * registers.)  The validator's rule, shared with the constrained decoder. */
PG_API bool ptx_type_compat(ptx_type want, ptx_type reg, bool relaxed);

/* Canonical pretty-print.  parse(print(parse(x))) == parse(x), comments
 * included: each line of a statement's comment is printed as "//" + the line
 * on its own line, at the statement's indent, before it. */
PG_API void ptx_print(const ptx_module *m, pg_buf *out);
/* The same printer with annotation hooks (any may be NULL), used by the
 * explainer: after_insn appends whole lines after an instruction's line;
 * decl_comment appends the text of a trailing "  // ..." comment of a
 * declaration (nothing appended = no comment); after_func appends lines after
 * a function's closing brace.  `indent` is the statement's tab depth. */
typedef struct {
    void (*after_insn)(void *user, const ptx_module *m, const ptx_func *f, const ptx_insn *in, int indent, pg_buf *out);
    void (*decl_comment)(void *user, const ptx_decl *d, bool in_body, pg_buf *out);
    void (*after_func)(void *user, const ptx_module *m, const ptx_func *f, pg_buf *out);
    void *user;
} ptx_print_hooks;
PG_API void ptx_print_annotated(const ptx_module *m, const ptx_print_hooks *h, pg_buf *out);
PG_API void ptx_print_insn(const ptx_insn *in, pg_buf *out);
PG_API void ptx_print_operand(const ptx_operand *op, pg_buf *out);
/* Drop every kept comment (the plain format: `fmt --strip-comments`, synth
 * --format plain). */
PG_API void ptx_comments_strip(ptx_module *m);
/* Literate PTX from nvcc's line table (docs/LITERATE.md): `m` is nvcc's PTX of
 * `src` (the CUDA C plan, len bytes) compiled with -lineinfo.  Every function's
 * `.loc` directives are removed; the statement where the plan line they point at
 * changes gets that line's text, trimmed (and cut at PTX_LITERATE_LINE_MAX bytes),
 * as its comment, so each block of instructions starts with the plan statement
 * it implements.  Lines of inlined header code count as the line they were
 * inlined at; line 0, other files and lines holding only braces start no
 * comment.  Earlier comments are replaced, and the module-level .file and
 * .section (debug) directives are dropped.  The plan is file `file_id` of the
 * .loc table (nvcc numbers the compiled file 1).  When the module validates,
 * each run of adjacent instructions of a basic block is first put in plan order
 * as far as its dependence DAG allows (docs/LITERATE.md "Plan order"): the same
 * program, with fewer returns to a plan line.  Returns the number of comments
 * written. */
enum { PTX_LITERATE_LINE_MAX = 160 };
PG_API int ptx_literate_from_loc(ptx_module *m, const char *src, size_t len, int file_id);
/* Every comment a literate kernel of the plan `src` (len bytes) can hold: the
 * text after `//` (" " + the line, as ptx_literate_from_loc writes it) of each
 * plan line that is not only braces or the `__global__` line, in plan order,
 * duplicates kept.  *out gets a malloc'd array of n malloc'd strings (NULL when
 * n is 0); free it with ptx_literate_plan_lines_free.  Returns n. */
PG_API int ptx_literate_plan_lines(const char *src, size_t len, char ***out);
/* The same lines, and with straight != NULL a malloc'd array of n flags (NULL when n is 0; the
 * caller frees it): the line runs straight, in a `__global__` body outside every loop, so a
 * literate kernel heads few runs with it (see dec_opts.plan_repeat_max). */
PG_API int ptx_literate_plan_lines_ex(const char *src, size_t len, char ***out, bool **straight);
PG_API void ptx_literate_plan_lines_free(char **lines, int n);

/* The "named" register style (docs/LITERATE.md): every register of each
 * function's top scope is renamed after the plan where the plan says which
 * variable it holds (`T v = ...;` -> %v, a loop's induction register, `ld.param`
 * of p -> %p, %tid.x -> %tx ...; else %r1, %rd1, %f1, %p1 ... by type, in order of
 * appearance) and declared `.reg .T %name;` just before the statement where it
 * first appears (the top-level `{` around it when that is nested).  Names are
 * unique per function and never a special register's or an opcode.  `plan`
 * (plan_len bytes, may be NULL) is the CUDA C the kernel came from: its
 * `__global__` parameter names name nvcc's `k_param_N`.  Registers declared in
 * nested scopes are kept as written.  Only names and declarations change
 * (ptx_equal_renamed(before, after) holds).  Returns PG_OK, PG_ERR_USAGE for a
 * NULL module. */
PG_API pg_status ptx_regs_name(ptx_module *m, const char *plan, size_t plan_len, pg_diag_sink *diag);
/* Are a and b the same kernels up to register names: the same statements but for
 * register declarations, operands equal except registers, which map one-to-one
 * (per function) between registers of the same type, and the same comments in
 * order?  On difference, writes where into why (if non-NULL). */
PG_API bool ptx_equal_renamed(const ptx_module *a, const ptx_module *b, char *why, size_t whyn);

/* Structural equality of two modules (ignores locations); on difference,
 * writes a description into why (if non-NULL). */
PG_API bool ptx_module_equal(const ptx_module *a, const ptx_module *b, char *why, size_t whyn);

/* ---- analyses ------------------------------------------------------------ */
typedef struct {
    int first, last;          /* statement index range [first, last] in f->body */
    int *succ; int nsucc;     /* successor block ids */
    int *pred; int npred;
} ptx_block;

typedef struct {
    const ptx_func *func;
    ptx_block *blocks; int nblocks;
    int *block_of;            /* statement index -> block id (-1 for non-instructions outside blocks) */
    bool falls_off_end;       /* some path reaches the closing brace without ret/exit */
} ptx_cfg;

PG_API pg_status ptx_cfg_build(const ptx_module *m, const ptx_func *f, ptx_cfg **out, pg_diag_sink *diag);
PG_API void ptx_cfg_free(ptx_cfg *c);

/* Register counts of `.reg .T %x<N>;` in function bodies.  ptx_regs_widen(m, n): every count
 * below n becomes n (training data without a length plan in the declarations).
 * ptx_regs_tighten(m): every count becomes the largest index the body uses + 1 (1 when
 * unused), indices past the old count included (a decoder with dec_opts.regs_grow writes
 * them).  Both keep a valid module valid; print it with ptx_print. */
PG_API void ptx_regs_widen(ptx_module *m, int n);
PG_API void ptx_regs_tighten(ptx_module *m);
/* The same on text, changing nothing else (layout, comments): appends `src` to `out` with each
 * declaration's count tightened; returns whether any changed.  Text that does not parse, or
 * does not validate once tightened, is copied unchanged (false). */
PG_API bool ptx_regs_tighten_text(const char *src, size_t len, pg_buf *out);

/* The "canonical" register style (docs/LITERATE.md): in each function, every numbered register
 * class of the top scope (each `.reg .T %x<K>;`: %r, %rd, %f, %p, %rs, a hand-written %acc ...)
 * is renumbered in order of first appearance in the body -- statements in order; in one, the
 * guard, then the operands left to right, the registers of vectors, addresses and call lists
 * in the order they are written -- from 1, as nvcc numbers (index 0 stays unused), so the
 * number of a register not yet used is its class's next one.  Every use is rewritten and each
 * count becomes the largest number + 1 (1 for a class the body never uses).  Named registers,
 * special registers, nested scopes' own registers, statements and comments are untouched
 * (ptx_equal_renamed(before, after) holds); renumbering twice gives what renumbering once
 * does.  A function where a class's name could also mean something else (a named register,
 * label or symbol spelled like %r7, a nested `.reg %r<4>`, a leading zero as in %r05) is
 * left as written.  Works on a parsed or a validated module; a valid module stays valid.
 * Returns PG_OK, PG_ERR_USAGE for a NULL module. */
PG_API pg_status ptx_regs_renumber(ptx_module *m);

/* Registers an instruction defines/uses (names interned in the module arena). */
PG_API int ptx_insn_defs(const ptx_insn *in, const char **out, int max);
PG_API int ptx_insn_uses(const ptx_insn *in, const char **out, int max);
/* Is the first operand of `opcode` with modifiers `mods` (".red", each with its '.') an input when
 * it is a register (st's address, bar.sync's barrier, brx's index)?  The rule ptx_insn_defs/uses and the
 * constrained decoder share. */
PG_API bool ptx_op0_is_input(const char *opcode, const char *const *mods, int nmods);

/* Liveness: max simultaneously live registers per declared type class. */
typedef struct {
    int max_live_total;
    int max_live[PTX_T__COUNT];   /* indexed by declared register type */
    int max_live_32bit_units;     /* weighted: 64-bit = 2, 128-bit = 4, pred = 0 */
} ptx_liveness;
PG_API pg_status ptx_liveness_compute(const ptx_module *m, const ptx_func *f, const ptx_cfg *cfg,
                               ptx_liveness *out);
/* Registers that some path from f's entry reads before any instruction writes them (a
 * predicated write counts as a write): the value read is whatever the register happened to
 * hold.  nvcc never emits such a read; a model that forgets a load does (`fma %f3, %f1, %f2,
 * %f3` with y never loaded).  Fills out[0..max) with names interned in the module arena, in
 * the order the function first mentions them; returns how many there are (may exceed max; 0
 * when out of memory).  cfg: f's CFG.  Not part of ptx_validate (ptxas accepts such code):
 * `gen` refuses a candidate that has one (pipe_verify). */
PG_API int ptx_unwritten_reads(const ptx_module *m, const ptx_func *f, const ptx_cfg *cfg, const char **out, int max);

/* Dependence DAG of one basic block: edge i -> j (i < j) means instruction j
 * must stay after instruction i. */
typedef enum {
    PTX_DEP_RAW = 1, PTX_DEP_WAR = 2, PTX_DEP_WAW = 4, PTX_DEP_MEM = 8,
    PTX_DEP_BARRIER = 16, PTX_DEP_PRED = 32, PTX_DEP_CONTROL = 64,
} ptx_dep_kind;
typedef struct { int from, to; unsigned kinds; } ptx_dep;
typedef struct {
    int *insns; int ninsns;       /* statement indices of the block's instructions, in order */
    ptx_dep *deps; int ndeps;
} ptx_dag;
/* bra, brx, ret, exit, trap: the instructions after which a block's code does not go on */
PG_API bool ptx_insn_ends_block(const ptx_insn *in);
/* Does the instruction do more than compute its destination registers: write memory (st, atom, red,
 * cp...), synchronise (bar, membar, fence, mbarrier, atomics), call, or end the block? */
PG_API bool ptx_insn_has_effect(const ptx_insn *in);
PG_API pg_status ptx_dag_build(const ptx_module *m, const ptx_func *f, const ptx_block *b, ptx_dag **out);
PG_API void ptx_dag_free(ptx_dag *d);
PG_API bool ptx_dag_depends(const ptx_dag *d, int i, int j);   /* positions within the block */
/* A list schedule of the positions p..q of the block (a run of adjacent instructions) that keeps
 * every edge of d among them: order[k] (k = 0..q-p) gets the position, relative to p, that goes k-th.
 * `choose` picks the next instruction among the ready ones (positions relative to p, in no
 * particular order) and returns its index in that array; the same choices give the same order.
 * Returns whether every position was ordered (always, for a DAG from ptx_dag_build). */
typedef int (*ptx_dag_choose_fn)(void *ctx, const int *ready, int nready);
PG_API bool ptx_dag_order(const ptx_dag *d, int p, int q, ptx_dag_choose_fn choose, void *ctx, int *order);

/* Alignment of memory accesses (W505 misaligned-access).  Per function, a forward
 * dataflow over the CFG (meets at joins) gives each register the largest power of two
 * (at most 256) that provably divides its value, or "unknown" (provenance not
 * understood: nothing is reported through it); 64-bit kernel parameters count as
 * cudaMalloc pointers (256-aligned), scalar parameters as well aligned (a kernel may
 * check n % 4 == 0 before vector loads), so only thread/block indices and constants
 * can make an address provably misaligned.  Every ld/ldu/st/atom/red on global, shared,
 * local or generic memory whose address [reg+imm] / [var+imm] is known to be less
 * aligned than the bytes it moves gets a W505 warning in `diag` (may be NULL).
 * Needs the forms filled in by ptx_validate(), which calls it for every function
 * that validated.  cfg: f's CFG, or NULL to build one.  Allocates nothing that
 * outlives the call; returns the number of warnings. */
PG_API int ptx_align_check(const ptx_module *m, const ptx_func *f, const ptx_cfg *cfg, pg_diag_sink *diag);

/* ---- statistics ------------------------------------------------------------ */
typedef struct {
    int total;
    int by_class[ISA_C__COUNT];
    int mem_by_space[PTX_SS__COUNT];
    int arith_int, arith_float;
    int regs_by_type[PTX_T__COUNT];
    int64_t shared_bytes, local_bytes, const_bytes;
    ptx_liveness live;
    bool dynamic_shared;          /* references an unsized extern .shared array (counted as 0 bytes) */
} ptx_func_stats;
PG_API pg_status ptx_func_stats_compute(const ptx_module *m, const ptx_func *f, ptx_func_stats *out);
/* The same for every function: out[m->nfuncs], status[m->nfuncs] (may be NULL)
 * each function's result; returns the first failure (the others are still
 * computed).  Linear in the module, where one ptx_func_stats_compute per
 * function would scan the module's variables each time. */
PG_API pg_status ptx_module_stats_compute(const ptx_module *m, ptx_func_stats *out, pg_status *status);

/* ---- explainer -------------------------------------------------------------- */
/* One plain-English sentence for an instruction (validated module). */
PG_API void ptx_explain_insn(const ptx_module *m, const ptx_func *f, const ptx_insn *in, pg_buf *out);
/* A 3-5 sentence summary of a function. */
PG_API void ptx_explain_summary(const ptx_module *m, const ptx_func *f, pg_buf *out);
/* The whole listing: each instruction followed by "// sentence", then summaries. */
PG_API void ptx_explain_module(const ptx_module *m, pg_buf *out);

/* ---- ptxas driver ------------------------------------------------------------ */
typedef struct { char unit[40]; char name[40]; double value; } ptxas_field;
typedef struct {
    char func[256];
    int registers, barriers, stack_frame, spill_stores, spill_loads;
    int64_t smem, cmem[8];
    ptxas_field extra[16]; int nextra;  /* pairs not recognised above */
} ptxas_func_report;
typedef struct {
    bool ran;                /* ptxas was found and ran */
    bool ok;                 /* exit status 0 */
    int exit_code;
    double seconds;          /* wall time of the ptxas run */
    char ptxas_path[512];
    char arch[32];
    ptxas_func_report *funcs; int nfuncs;
    char **unknown_lines; int nunknown;   /* lines the parser did not understand */
    char *log;               /* full stderr+stdout */
    bool timed_out;          /* stopped after ptx_ptxas_timeout_seconds() (then ok is false) */
} ptxas_report;

/* Locate ptxas via $PTXAS, PATH, then $CUDA_HOME/bin, /usr/local/cuda/bin.
 * Returns false if not found. */
PG_API bool ptx_ptxas_find(char *path, size_t n);
/* Locate a CUDA tool ("nvcc", "ptxas") the same way: $ENVVAR (when set, only
 * there; NULL = no variable), PATH, $CUDA_HOME/bin, $CUDA_PATH/bin,
 * /usr/local/cuda/bin.  false if not found. */
PG_API bool ptx_cuda_tool_find(const char *tool, const char *envvar, char *path, size_t n);
/* $PTXGEN_PTXAS_TIMEOUT when it is a positive number of seconds, else 120. */
PG_API double ptx_ptxas_timeout_seconds(void);
/* Does the module need a relocatable ptxas compile (-c): it declares .extern
 * or .weak symbols other than the driver-provided vprintf/malloc/free/__assertfail? */
PG_API bool ptx_needs_relocatable(const ptx_module *m);
/* Run `ptxas -v -arch=ARCH` (arch NULL = the module's target) on a file and
 * parse its report; ptxas errors become diagnostics with the file's line.
 * The cubin goes to /dev/null (no temp file).  A ptxas that runs longer than
 * ptx_ptxas_timeout_seconds() is killed: timed_out and an E601 diagnostic, ok false. */
PG_API pg_status ptx_ptxas_run(const char *ptx_path, const char *arch, bool relocatable, ptxas_report *out,
                    pg_diag_sink *diag);
/* Does the installed ptxas know this target?  Compiles an empty module
 * (".version V / .target ARCH / .address_size 64", V = ptx_version / 10 . ptx_version % 10,
 * 0 = the target's first PTX version) so a caller can refuse an architecture up
 * front instead of after every sample failed.  Returns 1 when ptxas accepted it, 0
 * when it rejected it (why = ptxas's first message, e.g. "Value 'sm_70' is not
 * defined for option 'gpu-name'"), -1 when there is no ptxas or it could not run
 * (why says so; nothing to refuse).  A temp file, removed before returning. */
PG_API int ptx_ptxas_target_check(const char *arch, int ptx_version, char *why, size_t whyn);
/* Parse a -v report (exposed for tests). */
PG_API void ptx_ptxas_parse_report(const char *log, ptxas_report *out);
PG_API void ptx_ptxas_report_free(ptxas_report *r);

#endif
