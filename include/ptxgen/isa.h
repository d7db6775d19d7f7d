/* ptxgen/isa.h — the PTX instruction table: the single source of truth.
 *
 * The parser, validator, explainer, constrained decoder and GBNF export all
 * read this table; no other module keeps its own list of opcodes.  The rows
 * live in src/isa/isa.def (see the comment at its top for the pattern
 * language); isa_init() compiles them once into the structures below.
 *
 * Everything returned by this module is static and immutable after
 * isa_init(); callers never free it.  isa_init() is idempotent and
 * thread-compatible (call it once before starting threads).
 */
#ifndef PTXGEN_ISA_H
#define PTXGEN_ISA_H

#include "ptxgen/common.h"

/* ---- types ---------------------------------------------------------- */
typedef enum {
    PTX_TC_NONE, PTX_TC_BIT, PTX_TC_UINT, PTX_TC_SINT, PTX_TC_FLOAT, PTX_TC_PRED,
    PTX_TC_PACKED,   /* f16x2, bf16x2, e4m3x2 ...: bit containers of packed lanes */
    PTX_TC_OPAQUE,   /* .texref, .samplerref, .surfref */
} ptx_type_class;

typedef enum {
#define ISA_TYPE(id, name, cls, bits, isreg) id,
#include "ptxgen/isa_types.def"
#undef ISA_TYPE
    PTX_T__COUNT
} ptx_type;

typedef struct {
    const char *name;    /* ".f32" */
    ptx_type_class cls;
    int bits;            /* storage size in bits */
    bool reg_ok;         /* may be used in a .reg declaration */
} ptx_type_info;

PG_API const ptx_type_info *ptx_type_get(ptx_type t);
PG_API ptx_type ptx_type_lookup(const char *name, size_t n);   /* PTX_T_NONE if unknown */
/* Human words for a type: ".f32" -> "32-bit float". */
PG_API const char *ptx_type_words(ptx_type t);

/* ---- instruction forms ---------------------------------------------- */
typedef enum {
#define ISA_CLASS(id, name) id,
#include "ptxgen/isa_classes.def"
#undef ISA_CLASS
    ISA_C__COUNT
} isa_class;
PG_API const char *isa_class_name(isa_class c);

enum { ISA_MAX_MODSLOTS = 24, ISA_MAX_OPSLOTS = 12, ISA_MAX_ALTS = 48, ISA_NVARS = 26, ISA_MAX_IRANGES = 16 };

/* One modifier slot: a set of alternatives, optional or required, possibly
 * binding the matched modifier to a variable (A..Z).  A `fixed` slot (`^` in
 * the pattern) is part of the mnemonic as ptxas reads it (mul.lo, mad.wide,
 * shf.l.wrap): the fixed slots come first, right after the opcode and in
 * table order; the other modifiers may follow in any order.  The `ordered`
 * slots (`<`: group 1, `&`: group 2) are filled in the order their modifiers
 * are written, each group on its own (mma's `.row .col`: the first layout
 * written is A's; its `.xor .popc`: the operation before .popc). */
typedef struct {
    const char *alts[ISA_MAX_ALTS];   /* ".global", ".shared::cta", ... */
    uint16_t ids[ISA_MAX_ALTS];       /* the same, as interned modifier ids */
    int nalts;
    bool optional;
    bool fixed;
    uint8_t ordered;                  /* 0, or its order group: 1 ('<'), 2 ('&') */
    int var;                          /* -1 or 0..25 */
} isa_modslot;

typedef enum {
    ISA_OK_REG = 1 << 0,    /* a register (or vector of registers) */
    ISA_OK_IMM = 1 << 1,    /* an immediate */
    ISA_OK_ADDR = 1 << 2,   /* [address] */
    ISA_OK_LABEL = 1 << 3,  /* a label */
    ISA_OK_FUNC = 1 << 4,   /* a function name */
    ISA_OK_SYM = 1 << 5,    /* a variable name (its address) */
    ISA_OK_SINK = 1 << 6,   /* the sink `_` */
    ISA_OK_NEG = 1 << 7,    /* a predicate may be negated: !%p */
    ISA_OK_PAIR = 1 << 8,   /* a predicate pair p|q */
    ISA_OK_ANY = 1 << 9,    /* anything (opaque operand syntax: textures, lists) */
    ISA_OK_SPECIAL = 1 << 10, /* a special register such as %tid.x */
    ISA_OK_VSINK = 1 << 11, /* elements of a {vector} may be the sink `_` (ld's, mov's unpack); not the whole operand */
    ISA_OK_GADDR = 1 << 12, /* with ADDR: a variable named in the address must be .global (prefetchu) */
    ISA_OK_SADDR = 1 << 13, /* with ADDR: a variable named in the address must be .shared (mbarriers) */
    ISA_OK_TABLE = 1 << 14, /* the label of a .branchtargets table (brx.idx) */
    ISA_OK_TUPLE = 1 << 15, /* with ADDR: a tensor tuple [map, {coords}], as many 32-bit coordinates as the arity */
    ISA_OK_HANDLE = 1 << 16, /* with ADDR: [handle] or [handle, ...]: a variable of the slot's opaque type or a 64-bit register, no offset */
    ISA_OK_TEXCOORD = 1 << 17, /* with HANDLE: [tex, c], c read as the geometry bound to the arity variable says (isa_texture_geometry) */
    ISA_OK_OBJECT = 1 << 18, /* with ADDR: the address of an object (an mbarrier): no special register as its base */
    ISA_OK_INDEX = 1 << 19, /* an array's element sh[i] (ptxas: ld/ldu/st addresses, mov/cvta names) */
} isa_opkind;

typedef struct {
    unsigned kinds;         /* isa_opkind bits */
    bool optional;
    int arity;              /* 1 = scalar; N = {a,..} with N elements; 0 = any; -1 = a vector of any length */
    bool arity_pow2;        /* with arity 0: the element count must be a power of two (PTX vectors) */
    bool vec1;              /* with arity 1 ("/1"): a {vector} of one element, never a scalar (wmma fragments) */
    int arity_var;          /* -1, or variable holding .v2/.v4/.v8 */
    ptx_type type;          /* concrete type, or PTX_T_NONE */
    int type_var;           /* -1, or variable holding the type (e.g. T) */
    bool type_wide;         /* T2: twice the width of the bound type (mul.wide) */
    bool relaxed;           /* ld/st/cvt rule: register may be wider than the type */
    bool packed_ok;         /* `+` after the type: a packed register of its size too (video ops take %h2 .f16x2) */
    bool any_type;          /* no type check at all */
    /* Immediates the slot takes (`{0..15}`, `{4|8|16}`, `{0..1024%32}` after the
     * type): an immediate must lie in one of the nranges [lo, hi] (on its step
     * from lo); 0 ranges = any value. */
    int nranges;
    /* Float immediates the slot takes (`{(0..1]}` after the type: an interval, each end
     * open '(' ')' or closed '[' ']'); fint false = any value.  NaN is in no interval. */
    bool fint, flo_open, fhi_open;
    double flo, fhi;
    /* last: the validator reads the fields above for every operand it checks, these only
     * for an immediate in a slot with ranges */
    int64_t rlo[ISA_MAX_IRANGES], rhi[ISA_MAX_IRANGES], rstep[ISA_MAX_IRANGES];   /* step 1, or lo..hi%step */
} isa_opslot;

typedef struct {
    int index;              /* position in the table */
    const char *opcode;     /* "ld" */
    isa_class cls;
    int ptx_min;            /* PTX ISA version * 10, e.g. 78 = 7.8 */
    int sm_min;             /* e.g. 80 */
    bool arch_specific;     /* needs an 'a' target such as sm_90a */
    /* flag "rP:S": withdrawn from PTX ISA P (x10) on targets sm_S and newer
     * (shfl without .sync: r64:70); 0 = never */
    int removed_ptx, removed_sm;
    /* flag "w": vectors up to 256 bits (ld.global.L2::evict_last.v8.b32); other
     * rows with a .vN modifier move at most 128 bits ("Vector type too large") */
    bool wide_vectors;
    /* flag "o": the row's own ptx_min covers its modifiers, ISA_REQUIRE's PTX version does not
     * apply (cp.async takes .shared::cta from PTX ISA 7.0; ld needs 7.8) */
    bool own_version;
    /* flag "i": an ISA_IGNORED modifier that a row of the opcode lists is read here, not skipped
     * (multimem.ld_reduce's .acc::f32: ptxas "requires PTX ISA 8.2", "Illegal modifier '.acc::f32'
     * ... with type '.f32'") */
    bool reads_ignored;
    bool call_syntax;       /* call: (rets), func, (args) [, proto] */
    int nmods;
    int nops, nops_min;
    const char *mod_pattern, *op_pattern;   /* source text of the row */
    const char *explain;    /* explanation template; see isa.def */
    /* The two arrays last, operands first: a form is 17 KB, and the validator reads the
     * scalars above and the first few operand slots of every form it probes; kept
     * together they share a page or two instead of touching five. */
    isa_opslot ops[ISA_MAX_OPSLOTS];
    isa_modslot mods[ISA_MAX_MODSLOTS];
} isa_form;

/* Compile the table.  Returns PG_OK, or PG_ERR_INVALID with diagnostics if a
 * row of isa.def is malformed (a test keeps that from ever shipping). */
PG_API pg_status isa_init(pg_diag_sink *diag);

/* May form f be written in a module with PTX ISA version `ptx` (x10) for
 * target sm (arch_specific: an 'a' target)?  0 for ptx or sm = unknown (not
 * checked).  On false, *why gets a short reason when why is not NULL:
 * 'p' PTX too old, 's' target too old, 'a' needs an arch-specific target,
 * 'r' withdrawn for this version and target. */
PG_API bool isa_form_available(const isa_form *f, int ptx, int sm, bool arch_specific, char *why);
/* Does immediate value v fit slot s's value constraint ({..} in the pattern)? */
PG_API bool isa_imm_allowed(const isa_opslot *s, int64_t v);
/* Is the float immediate v one the slot takes (its `{(lo..hi]}` interval)? */
PG_API bool isa_flt_allowed(const isa_opslot *s, double v);

PG_API int isa_form_count(void);
PG_API const isa_form *isa_form_get(int i);
/* All forms of one opcode, in table order; *n gets the count (0 = unknown). */
PG_API const isa_form *const *isa_forms_for(const char *opcode, size_t len, int *n);
/* Every distinct opcode, in table order (for the decoder and grammar export). */
PG_API int isa_opcode_count(void);
PG_API const char *isa_opcode_get(int i);

/* Every modifier the table mentions has a small integer id (1..n); 0 means
 * "not a modifier of anything".  Matching works on ids, which is what makes
 * validation fast. */
PG_API uint16_t isa_modifier_id(const char *mod, size_t len);
PG_API const char *isa_modifier_text(uint16_t id);
PG_API ptx_type isa_modifier_type(uint16_t id);   /* the type the modifier names (.f32), else PTX_T_NONE */

/* Result of matching the modifiers of one instruction against a form. */
enum { ISA_SLOT_IGNORED = 255 };
typedef struct {
    uint16_t bind_id[ISA_NVARS];  /* matched modifier id per variable (0 = unbound); text: isa_bound_text */
    uint8_t slot_of[ISA_MAX_MODSLOTS]; /* for each given modifier, the slot it filled (ISA_SLOT_IGNORED:
                                          one ptxas ignores, ISA_IGNORED in isa.def) */
} isa_match;

/* Try to match `mods` (each starting with '.') against form f. */
PG_API bool isa_match_form(const isa_form *f, const char *const *mods, int nmods, isa_match *m);
/* The same with interned ids (isa_modifier_id); an id of 0 never matches. */
PG_API bool isa_match_form_ids(const isa_form *f, const uint16_t *ids, int nmods, isa_match *m);

/* Is `mod` an alternative of any slot of any form of this opcode? */
PG_API bool isa_modifier_known(const char *opcode, const char *mod);

/* A modifier that needs a newer target/PTX version whatever the opcode. */
typedef struct { const char *mod; int ptx_min, sm_min; } isa_require;
PG_API const isa_require *isa_modifier_requirement(const char *mod);   /* NULL if none */

/* A texture geometry (ISA_TEXGEOM in isa.def): how tex and tld4 read their
 * coordinates [tex, c] and derivatives.  c is a {vector} of a power of two
 * elements from min_vector to 4 (or a scalar register where scalar_ok); its
 * first `index` elements are integer array/sample indices, the others one
 * kind of coordinate.  deriv: the elements of each .grad derivative vector
 * (0: no .level or .grad); offset: the fewest elements of the offset vector
 * (0: none).  coord_type: ".f32"/".s32" required, or NULL.  depth: takes a
 * depth-compare value after the coordinates (not .3d). */
typedef struct {
    const char *mod;          /* ".a2d" */
    int index, min_vector;
    bool scalar_ok;
    int deriv, offset;
    const char *coord_type;
    bool multisample;
    bool depth;
} isa_texgeom;
PG_API const isa_texgeom *isa_texture_geometry(const char *mod);   /* NULL if `mod` is none */

/* Human words for a modifier: ".global" -> "global"; NULL if none recorded. */
PG_API const char *isa_modifier_words(const char *mod);

/* Type of a matched variable (PTX_T_NONE if the modifier is not a type, or m is NULL). */
PG_API ptx_type isa_bound_type(const isa_match *m, int var);
/* The modifier bound to a variable (".f32"), or NULL when unbound (or m is NULL). */
PG_API const char *isa_bound_text(const isa_match *m, int var);

/* ---- special registers ---------------------------------------------- */
enum { ISA_W16 = 1, ISA_W32 = 2, ISA_W64 = 4 };
typedef struct {
    const char *name;     /* "%tid" */
    ptx_type type;
    bool vector;          /* has .x/.y/.z components */
    unsigned widths;      /* ISA_W16|ISA_W32|ISA_W64: the integer sizes it may be read as; 0 = its type's */
    int ptx_min;          /* PTX ISA version x10 that introduced it */
    int sm_min;
    const char *words;    /* "thread index within the CTA" */
} isa_sreg;
/* May special register s be read as an operand of type t (its own type, or
 * an integer type of one of its widths)? */
PG_API bool isa_sreg_fits(const isa_sreg *s, ptx_type t);
PG_API const isa_sreg *isa_sreg_lookup(const char *name, size_t n);  /* "%tid.x" or "%laneid" */
PG_API int isa_sreg_count(void);
PG_API const isa_sreg *isa_sreg_get(int i);

/* ---- targets ---------------------------------------------------------- */
/* Parse "sm_90a" -> sm 90, arch_specific true.  False for unknown names. */
PG_API bool isa_parse_target(const char *name, int *sm, bool *arch_specific, bool *family);
/* Lowest PTX ISA version (x10) that knows target sm. */
PG_API int isa_target_min_ptx(int sm);

#endif
