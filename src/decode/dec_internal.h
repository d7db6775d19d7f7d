/* dec_internal.h — shared between the decode files (grammar.c, constraint.c,
 * vocab.c, bias.c); not a public header.
 *
 * The grammar (grammar.c) is everything about the generated PTX subset that
 * does not depend on the text written so far: the header for the target, and
 * a character trie of every legal "opcode.mod.mod" string of the subset with,
 * at each end, the ISA forms it selects (isa_match bindings, operand count,
 * state space) and per operand slot the resources it needs (a register of a
 * compatible type, a shared variable, a 64-bit param...).  Which trie nodes
 * are alive depends only on the set of declared resources R (a bitmask that
 * only grows), so it is computed once per R and cached.
 */
#ifndef PTXGEN_DEC_INTERNAL_H
#define PTXGEN_DEC_INTERNAL_H

#include "ptxgen/decode.h"
#include "ptxgen/isa.h"
#include "ptxgen/ptx.h"

/* ---- resources: bit i of R set when the module declares it ---------------- */
enum {
    RS_NREGT = 13,          /* register types of the subset, indices into dec_dg_regtypes[] */
    RS_SHARED = 13,         /* a .shared array exists */
    RS_LOCAL = 14,          /* a .local array exists */
    RS_PARAM32 = 15,        /* a 32-bit param exists */
    RS_PARAM64 = 16,        /* a 64-bit param exists */
    RS_ALWAYS = 31,         /* always set: an immediate, label or special register fits */
};
extern const ptx_type dec_dg_regtypes[RS_NREGT];   /* .pred .b16 .b32 .b64 .u16 ... .f64 */
int dec_dg_regtype_index(ptx_type t);              /* -1 if not a subset register type */

/* ---- operand semantics of one slot of a selected form ------------------------ */
enum {
    SK_REG = 1, SK_IMM = 2, SK_FLT = 4, SK_ADDR = 8, SK_LABEL = 16, SK_SYM = 32, SK_SREG = 64, SK_NEG = 128,
    SK_PAIR = 256,         /* %r|%p (setp, shfl) */
    SK_VIMM = 512,         /* integer immediates as elements of a fill {..} (mov pack: {0, %rs1}) */
};
typedef struct {
    unsigned kinds;        /* SK_* */
    ptx_type want;         /* register / immediate type */
    bool relaxed;          /* ld/st/cvt: register may be wider */
    int arity;             /* 1, or 2/4 for {..}; 0 with fill */
    bool fill;             /* mov pack/unpack (isa.def arity `+`): a {..} of 2 or 4 elements of one register type
                              that fill `want` exactly (dec_dg_slot_reg_ok: the element types) */
    int64_t lo, hi;        /* integer immediate range */
    int fbits;             /* float immediate width (32: 0f, 64: 0d), 0 = none */
    bool intreg;           /* lane/mask/barrier operands: no float registers (ptxas) */
} dg_slot;

enum { DG_MAX_OPS = 6, DG_MAX_CANDS = 4 };
typedef struct {
    int form;              /* index into isa_form_get */
    isa_match mt;
    uint8_t nops;          /* exact operand count in the subset */
    uint8_t space;         /* ptx_space of the address operand(s) */
    uint8_t param_bits;    /* ld.param: bits of the loaded type */
    bool terminator;       /* ret/exit/bra (ends a path; the closing brace may follow if unguarded) */
    bool is_bra;
    bool op0_def;          /* operand 0 is a destination whose registers the instruction writes (not st's address,
                              bar.sync's barrier: ptx_op0_is_input) */
    dg_slot slot[DG_MAX_OPS];
    uint32_t need[DG_MAX_OPS];   /* resources any one of which satisfies the slot */
} dg_cand;

typedef struct {
    int cand0, ncand;
} dg_leaf;

typedef struct {
    int first_child, next_sibling, parent;
    int leaf;              /* index into leaves, or -1 */
    char c;
} dg_node;

typedef struct { uint32_t R; uint8_t *alive; } dg_alive;

typedef struct dg_grammar {
    int refs;
    int sm, ptx;           /* target and PTX version (x10) */
    bool arch_specific;
    char target[24];
    char *header;          /* ".version 8.0\n.target sm_80\n.address_size 64\n\n" */
    PG_VEC(dg_node) nodes; /* node 0 = root */
    PG_VEC(dg_leaf) leaves;
    PG_VEC(dg_cand) cands;
    PG_VEC(dg_alive) alive_cache;
    const isa_sreg *sregs[64]; char sreg_names[64][40]; int nsregs;   /* usable special registers, with .x/.y/.z expanded */
    uint32_t sreg_types;   /* unused padding for alignment */
} dg_grammar;

pg_status dec_dg_build(const char *arch, dg_grammar **out, pg_diag_sink *diag);
void dec_dg_release(dg_grammar *g);
/* Alive flags of the opcode trie for resources R (cached). */
const uint8_t *dec_dg_alive_for(dg_grammar *g, uint32_t R);
bool dec_dg_cand_ok(const dg_cand *c, uint32_t R);
int dec_dg_child(const dg_grammar *g, int node, char c);
bool dec_dg_sreg_ok(const dg_slot *s, const isa_sreg *sr);
bool dec_dg_slot_reg_ok(const dg_slot *s, ptx_type reg);   /* a register declared `reg` fits the slot */
bool dec_dg_is_opcode(const char *s, size_t n);
uint32_t dec_dg_addr_regs(ptx_space sp);   /* resource bits of the registers an address in `sp` may use */

/* ---- the vocabulary trie ------------------------------------------------------ */
typedef struct {
    int first_child, next_sibling;
    int tok;               /* token ending here, or -1 */
    int ntok_below;        /* tokens in this subtree (for pruning counts) */
    unsigned char c;
} dv_node;

/* Character classes for the mask's fast path.  Inside a name the recognizer
 * accepts any run of class bytes up to a length budget, so the tokens made
 * only of class bytes ("pure" tokens) are accepted together by a bitset or a
 * walk without feeding, and the walk feeds only towards the few mixed tokens
 * whose first other byte could end the name (see dec_mask in constraint.c). */
enum { DV_ID, DV_LOWER, DV_NAME, DV_NCLASS };   /* [A-Za-z0-9_$], [a-z], [A-Za-z0-9_] (a named register) */
static inline bool dv_is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static inline bool dv_is_id0(int c) { return dv_is_alpha(c) || c == '_' || c == '$'; }
static inline bool dv_is_id1(int c) { return dv_is_id0(c) || (c >= '0' && c <= '9'); }
static inline bool dv_in_class(int cls, int c) {
    return cls == DV_ID ? dv_is_id1(c) : cls == DV_LOWER ? c >= 'a' && c <= 'z' : dv_is_id1(c) && c != '$';
}
/* May a run of the class start with c when a name starts with it (the bitsets' id0 rows)?  An
 * identifier starts with [A-Za-z_$], a named register with a letter. */
static inline bool dv_first_ok(int cls, int c) { return cls == DV_NAME ? dv_is_alpha(c) : dv_is_id0(c); }
/* A byte that ends a run, as one of 64 bits (collisions only cost pruning). */
static inline uint64_t dv_term_bit(int c) { return 1ull << (c & 63); }

typedef struct {
    uint64_t *term;        /* per node: dv_term_bit of every first non-class ASCII byte below it (its children included) */
    int8_t *reach;         /* per node: longest run of class bytes below it ending at a token (0: the node's own; -1: none) */
    int maxlen;            /* longest pure run in a table (capped at DV_MAXRUN: no run budget comes near) */
    uint32_t *bits;        /* [DV_NCOVER][2][maxlen + 1][words]: tokens whose part after the cover's prefix is a pure
                            * run of length 1..L; [.][1]: only runs starting with dv_first_ok */
    int *count;            /* [DV_NCOVER][2][maxlen + 1]: tokens in each row of bits (dec_allowed gives up on a large one) */
} dv_class;

/* Trie nodes whose pure runs below are precomputed bitsets ("covers"): the
 * root, and the root's child ' ' (byte-level vocabularies hold tens of
 * thousands of " name" tokens, allowed after ".entry", ".param .u64", "bra"). */
enum { DV_COVER_ROOT, DV_COVER_SPACE, DV_NCOVER, DV_MAXRUN = 64 };

struct dec_vocab {
    int n;                 /* vocabulary size (ids 0..n-1) */
    PG_VEC(dv_node) nodes; /* node 0 = root */
    char **bytes; size_t *lens;  /* per token */
    bool *special;
    int32_t end_id;        /* GEN_TOK_END or -1 */
    int *dup_next;         /* tokens with identical bytes chained: next id or -1 */
    int words;             /* uint32_t words of a mask, (n + 31) / 32 */
    int cover_node[DV_NCOVER];   /* trie node of each cover, -1 if absent */
    dv_class cls[DV_NCLASS];
};
/* The cover whose node is `node`, or -1. */
static inline int dv_cover(const dec_vocab *v, int node) {
    for (int i = 0; i < DV_NCOVER; i++)
        if (v->cover_node[i] == node) return i;
    return -1;
}
/* The tokens of cover `cov` with a pure run of class `cls` of length <= len (first byte dv_first_ok if id0). */
static inline size_t dv_class_row(const dec_vocab *v, int cls, int cov, bool id0, int len) {
    const dv_class *k = &v->cls[cls];
    if (len > k->maxlen) len = k->maxlen;
    return ((size_t)cov * 2 + id0) * (size_t)(k->maxlen + 1) + (size_t)len;
}
static inline const uint32_t *dv_class_bits(const dec_vocab *v, int cls, int cov, bool id0, int len) {
    return v->cls[cls].bits + dv_class_row(v, cls, cov, id0, len) * (size_t)v->words;
}
static inline int dv_class_count(const dec_vocab *v, int cls, int cov, bool id0, int len) {
    return v->cls[cls].count[dv_class_row(v, cls, cov, id0, len)];
}

/* ---- recognizer state (constraint.c) -------------------------------------------- */
/* Exposed here for bias.c: read-only views of the context. */
int dec_state_phase_is_stmt_start(const dec_state *s);
bool dec_state_in_loop(const dec_state *s);
bool dec_state_reg_aligned16(const dec_state *s, const char *name, size_t n);
bool dec_state_last_addr_aligned(const dec_state *s);   /* last 64-bit integer register written is 16-byte aligned */
int dec_state_last_insn(const dec_state *s, char *buf, size_t n);   /* text of the last instruction (opcode.mods) */
/* The plain trie walk dec_mask used before its fast paths: the reference the
 * tests and `bench_decode --check` compare dec_mask with. */
int dec_mask_reference(const dec_state *s, uint32_t *bits);
/* dec_end_bytes counted afresh from the owed labels and open blocks: the tests' check of its running count. */
size_t dec_end_bytes_recount(const dec_state *s);

#endif
