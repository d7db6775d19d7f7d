/* constraint.c — the incremental PTX recognizer behind constrained decoding.
 *
 * The language is the canonical text `ptxgen fmt` prints, restricted to the
 * generated subset (grammar.c): one `.visible .entry` kernel, registers
 * declared as `.reg .T %name<N>;`, `.shared`/`.local` arrays with `.align`,
 * instructions from the ISA-table trie, labels, `ret`/`exit`/`bra`.  The
 * recognizer eats one byte at a time and rejects a byte as soon as no legal
 * module can start with the text so far, so every prefix it accepts can be
 * completed ("no dead states"; dec_mask reports one with E901 if a bug ever
 * makes one).
 *
 * State = a small fixed struct `dcore` (phase, literal position, opcode-trie
 * node, candidate forms, operand sub-machine) plus the symbol table (register
 * declarations, params, variables, labels) held in fixed arrays that are only
 * appended: dcore keeps the counts, so copying a dcore is a snapshot and
 * restoring it is a rollback.  Entries past the counts are scratch (a trial
 * path in dec_mask may write there).
 *
 * Read before write (dec_opts.reads_unwritten = 0): a register operand that is read may only name
 * a register an earlier, completed instruction wrote.  The writes are an append-only log in
 * dec_state (dcore holds its length) with, per declaration and per register, the sequence number
 * of its first write; an entry is real iff its number is below the length and the log holds it
 * there, so the writes of rolled-back trial paths are ignored without being undone.
 */
#include "dec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* byte sets of next_bytes */
enum { CS_ANY, CS_ID0, CS_ID1, CS_DIGIT, CS_LOWER, CS_HEX, CS_REG, CS_N };

/* MAX_REGDECL: the named style declares each register on its own (a corpus kernel 40 at the median,
 * max 133; family samples p50 60, p90 147, p99 678): 256 fits the corpus and 96.5% of family kernels
 * (bench/results/2026-12-05-named-regs-cpu.json).  The numbered style keeps its 32 (NUMBERED_MAX).
 * REGNAME_MAX: characters after '%' of a named register. */
enum { MAX_REGDECL = 256, NUMBERED_MAX = 32, REGNAME_MAX = 31, RSET_W = MAX_REGDECL / 64 };
/* The defaults of dec_opts.max_statements and .max_regs_per_decl, sized by the literate training targets
 * (1,300 synth samples, 2026-12-06, bench/results/2026-12-06-constraint-coverage-h69-cpu.json): the longest
 * has ~1,000 statements (stencil_bc's 3-D 27-point; p99 750), the largest declaration %f<601> (p99 531); 400
 * and 512 refused 56 of them.  A sampler's token budget ends a kernel first (dec_force_end); the statement cap only makes every
 * walk end.  Both fit dcore's uint16_t nstmts and an int register index (regs_grow: 2N + 32). */
enum { DEFAULT_MAX_STATEMENTS = 2000, DEFAULT_MAX_REGS_PER_DECL = 4096 };
/* BLOCK_MAX: nested `{ }` blocks open at once (named registers only; nvcc's inline-asm blocks need one). */
enum { BLOCK_MAX = 4 };
/* MAX_SYMS: the entry, parameters, variables and labels of one kernel, each a bit of a symmask (idmask, owed,
 * casym): 256.  nvcc's 3-D 27-point stencils (stencil_bc, ~1,000 statements) have 162 labels beside 13
 * params; 64 refused them (bench/results/2026-12-06-constraint-coverage-h69-cpu.json).  nsyms is a uint8_t. */
enum { SYM_W = 4 };
typedef struct { uint64_t w[SYM_W]; } symmask;
static const symmask SM_NONE = {{0}};
static bool sm_has(const symmask *m, int i) { return m->w[i >> 6] >> (i & 63) & 1; }
static void sm_set(symmask *m, int i) { m->w[i >> 6] |= 1ull << (i & 63); }
static void sm_clear(symmask *m, int i) { m->w[i >> 6] &= ~(1ull << (i & 63)); }
static bool sm_any(const symmask *m) { return m->w[0] | m->w[1] | m->w[2] | m->w[3]; }
static bool sm_meet(const symmask *a, const symmask *b) {   /* a common bit */
    return (a->w[0] & b->w[0]) | (a->w[1] & b->w[1]) | (a->w[2] & b->w[2]) | (a->w[3] & b->w[3]);
}
static symmask sm_and(const symmask *a, const symmask *b) {
    symmask r;
    for (int k = 0; k < SYM_W; k++) r.w[k] = a->w[k] & b->w[k];
    return r;
}
/* for each bit i of m (a symmask lvalue, consumed) */
#define SM_EACH(m, i) for (int sm_k_ = 0; sm_k_ < SYM_W; sm_k_++) \
    for (uint64_t sm_l_ = (m).w[sm_k_]; sm_l_ && ((i) = 64 * sm_k_ + __builtin_ctzll(sm_l_), 1); sm_l_ &= sm_l_ - 1)
enum { MAX_SYMS = 64 * SYM_W, NAME_MAX = PG_NAME_MAX, MAX_PARAMS = 16, MAX_VARS = 8,
       SHARED_MAX = 48 * 1024, LOCAL_MAX = 16 * 1024 };

/* name with '%'; count: N of `%name<N>`, 0 for a named register `%name`; shadows: the outer block's
 * declaration of the same name this one hides until its block closes, or -1 */
typedef struct { char name[REGNAME_MAX + 2]; uint8_t len; ptx_type type; int count; int16_t shadows; } dreg;

/* A set of declarations (bit i: s->regs[i]). */
typedef struct { uint64_t w[RSET_W]; } rset;
static void rset_add(rset *r, int i) { r->w[i >> 6] |= 1ull << (i & 63); }

enum { SY_ENTRY, SY_PARAM, SY_VAR, SY_LDEF, SY_LREF };
typedef struct {
    char name[NAME_MAX + 1];
    uint8_t len, kind, space;    /* space: PTX_SS_SHARED/LOCAL for vars */
    ptx_type type;
    int64_t size;                /* vars: bytes; params: bits */
} dsym;

/* phases */
enum {
    PH_LIT,        /* matching a literal; then phase lit_next */
    PH_TOP,        /* module scope: '.visible .entry ' or a '.shared' array */
    PH_ENAME, PH_POPEN, PH_PTYPE, PH_PNAME, PH_PERF, PH_PERFNUM, PH_PERF_END,
    PH_LINE, PH_LABEL, PH_STMT, PH_DECLKW, PH_REGTYPE, PH_REGNAME, PH_REGCOUNT,
    PH_ALIGN, PH_VTYPE, PH_VNAME, PH_VCOUNT,
    PH_GUARD, PH_OPC, PH_OPND, PH_EOL, PH_DONE,
    PH_CMT1, PH_CMT,   /* after "\t/": the second '/'; then the comment's text up to '\n' (num: its bytes) */
    PH_INDENT,         /* inside a nested block: the line's tabs (ntab so far), then '}' or a statement */
};

/* operand sub-states */
enum { O_START, O_REG, O_NEG, O_INT, O_FLT, O_ADDR, O_VEC, O_IDENT, O_PAIR, O_DONE };
/* address sub-states */
enum { A_BASE, A_REG, A_SYM, A_PLUS, A_OFF, A_DONE };

/* dec_opts.plan_repeat_max counts the comments of at most this many straight plan lines (the
 * first in sorted order; the rest are not capped): 4 bits each in every dcore, 64 bytes. */
enum { PLAN_SLOTS = 128 };

/* register-name sub-machine: after '%' */
typedef struct {
    rset regs;          /* candidate declarations (by name prefix) */
    uint16_t types;     /* their types (bit i: dec_dg_regtypes[i]) */
    bool done;          /* the text typed is a register: s->regs[sel] (named), or index val of it */
    uint64_t sregs;     /* candidate special registers */
    uint8_t n;          /* chars after '%' */
    uint8_t ndig;       /* digits of the index typed */
    int16_t sel;        /* declaration once digits start, or the named one typed in full */
    int32_t val;
    bool rd;            /* a read restricted to written registers (regs holds only written declarations) */
} regm;

typedef struct {
    uint8_t ph, lit_next, sub, asub;
    uint16_t lit_pos;
    const char *lit;
    uint32_t force_pos;
    uint32_t R;                  /* resources declared so far */
    const uint8_t *alive;        /* opcode-trie liveness for R (dec_dg_alive_for), NULL until needed */
    uint32_t alive_R;
    uint16_t nregs;
    rset hidden;                 /* declarations out of scope: of a closed block, or shadowed by an inner block's */
    uint8_t depth, ntab;         /* nested blocks open; tabs typed on this line (PH_INDENT) */
    uint16_t blk0[BLOCK_MAX];    /* nregs at each open block's '{': its declarations are the ones from there on */
    uint8_t nsyms, nowed, nparams, nvars;
    symmask owed;                /* labels referenced but not defined yet (by symbol index) */
    uint32_t end_owed;           /* bytes the owed labels' definitions and the open blocks' closings take (dec_end_bytes) */
    uint16_t nstmts;
    bool last_term, pend_term, guarded, top;
    int32_t shared_bytes, local_bytes;
    /* identifier being typed */
    char id[NAME_MAX + 1];
    uint8_t idlen;
    symmask idmask;              /* symbols whose names start with the identifier typed */
    /* choice among literals */
    const char *const *alts;
    uint32_t live;
    uint8_t cpos;
    /* declarations */
    ptx_type dtype;
    uint8_t dspace, dalign;
    bool dext;                   /* the variable being declared is `.extern` (dynamic shared memory, module scope) */
    bool dextern;                /* a dynamic shared array was declared (one: every one would start at the same byte) */
    int64_t num;                 /* number being typed (counts, perf) */
    uint8_t ndig, perf_i, perf_kw;   /* perf_kw: 0 .maxntid, 1 .reqntid */
    int32_t perf_prod;
    /* instruction */
    int32_t node, leaf;
    uint8_t candmask, opi, cmask;
    regm rm;
    uint32_t nwlog;              /* writes logged (dec_state.wlog) */
    uint8_t npw;                 /* registers of operand 0 typed (pwd/pwi), logged at ';' when it is a destination */
    int16_t pwd[4];
    int32_t pwi[4];
    /* operand */
    bool neg, oneg;
    int64_t val;
    uint8_t vdig, fwidth, fdig, velem, vsep;   /* vsep (O_VEC): 0 a register element, 1 after ',', 2 an element's start,
                                                  3 an immediate element (val, vdig, neg) */
    int16_t vdecl;
    uint8_t vbits;               /* a fill {..} (dg_slot.fill): its elements' bits once a register fixed them, else 0 */
    int8_t vtype;                /* ... that register's type (dec_dg_regtypes index), -1 before one */
    bool vimm;                   /* ... an immediate element was written */
    int16_t abase_sym;           /* address: symbol index, -1 */
    uint16_t creg[DG_MAX_CANDS], careg[DG_MAX_CANDS];   /* register types the operand / its address admits */
    uint64_t csreg[DG_MAX_CANDS];
    symmask casym[DG_MAX_CANDS];
    uint16_t plo, phi;           /* plan comment: the plan lines [plo, phi) start with the text typed (dplan) */
    uint8_t pcnt[PLAN_SLOTS / 2];   /* dec_opts.plan_repeat_max: comments headed by each capped plan line
                                       (dplan.slot), 4 bits each */
    uint16_t pfull;              /* capped lines at their limit */
} dcore;

/* One logged register write: declaration, index (0 for a named register). */
typedef struct { int16_t decl; int32_t idx; } dwrite;

/* The comments a kernel that follows its plan may hold (dec_opts.plan): the plan's lines as
 * ptx_literate_plan_lines writes them, cut at comment_max, printable ASCII only, sorted and
 * unique, so the lines starting with what a comment has typed so far are one range, the line
 * equal to it first.  Shared by a state's clones (refs). */
typedef struct {
    int refs, n;
    char **line;
    uint16_t *len;
    int16_t *slot;               /* the line's counter in dcore.pcnt, -1: not capped */
    int ncapped, nfree, cap;     /* lines capped / not; dec_opts.plan_repeat_max (0: none) */
} dplan;

enum { PLAN_LINES_MAX = 4096 };

struct dec_state {
    const dec_vocab *v;
    dec_opts o;
    dg_grammar *g;
    char *force; uint32_t force_len;
    uint32_t force_gap;          /* where the forced text pauses: after the header when an entry follows it (module-scope
                                    declarations may come between, see forcing()), else force_len */
    char resv[1 + MAX_PARAMS][NAME_MAX + 1];   /* the forced entry's name and parameters: no module-scope variable may
                                                  take one, or the signature would clash when it resumes */
    uint8_t nresv;
    dcore c;
    dreg regs[MAX_REGDECL];
    dsym syms[MAX_SYMS];
    pg_buf text;
    bool ended;                  /* GEN_TOK_END committed */
    bool end_forced;             /* dec_force_end was called: module scope offers only the entry */
    /* context for the performance bias, updated at line ends by dec_advance */
    size_t line_start;
    bool in_loop;
    char loop_label[NAME_MAX + 1];
    uint64_t aligned16[MAX_REGDECL]; /* per 64-bit declaration: indices < 64 known 16-byte aligned */
    char last_insn[64];
    bool last_addr_aligned;
    /* for the mask's fast path: names the length check alone cannot settle */
    bool opcode_max;             /* an opcode is NAME_MAX bytes long */
    bool sreg_lower12;           /* a special register starts with 12 lowercase letters */
    uint64_t cs[CS_N][2];        /* byte sets (bytes < 128) for next_bytes */
    uint32_t *scratch;           /* dec_allowed's bitset [v->words], all zero between calls; owned, not copied */
    dplan *plan;                 /* dec_opts.plan's comment lines, or NULL: any text (shared by clones) */
    /* registers written (read before write, see the file comment): the log [dcore.nwlog], and per
     * declaration the number of its first write (wany) and of each index's first write (wfirst[d][idx],
     * wfcap[d] entries); wend[d]: one past the largest index ever logged (a bound for prefix searches).
     * Owned, copied by dec_clone/dec_copy.  wfail: an allocation failed, the rule is off. */
    dwrite *wlog;
    uint32_t wlog_cap;
    bool wfail;
    uint32_t wany[MAX_REGDECL];
    uint32_t *wfirst[MAX_REGDECL];
    int32_t wfcap[MAX_REGDECL], wend[MAX_REGDECL];
};

#define G(s) ((s)->g)
/* Is declaration i in scope (not of a closed block, not shadowed by an inner one)? */
static bool reg_visible(const dcore *c, int i) { return !(c->hidden.w[i >> 6] >> (i & 63) & 1); }
static void mask_init(dec_state *s);

static bool is_id0(int c) { return dv_is_id0(c); }   /* the same classes as the vocabulary's fast path */
static bool is_id1(int c) { return dv_is_id1(c); }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }

/* ---- literal choices ---------------------------------------------------------- */
static const char *const PTYPES[] = {".u64 ", ".u32 ", ".s32 ", ".f32 ", ".f64 ", ".b32 ", ".b64 ", ".s64 ", NULL};
/* "pragma": nvcc writes `.pragma "nounroll";` at the head of every loop a plan keeps rolled
 * (`#pragma unroll 1`), so the literate training targets have it; refused, the model's
 * next choice there was `popc.b32 %r10, %r10;` on its loop counter (2026-12-05, FAILURES.md) */
static const char *const DECLKW[] = {"reg .", "shared .align ", "local .align ", "pragma \"nounroll\";", NULL};
static const char *const REGTYPES[] = {"pred %", "b16 %", "b32 %", "b64 %", "u16 %", "u32 %", "u64 %", "s16 %",
                                       "s32 %", "s64 %", "f16 %", "f32 %", "f64 %", NULL};  /* order of dec_dg_regtypes */
static const char *const ALIGNS[] = {"1 ", "2 ", "4 ", "8 ", "16 ", NULL};
static const char *const VTYPES[] = {".b8 ", ".u8 ", ".s8 ", ".b16 ", ".u16 ", ".s16 ", ".b32 ", ".u32 ", ".s32 ",
                                     ".f32 ", ".b64 ", ".u64 ", ".s64 ", ".f64 ", NULL};
static const char *const PERFKW[] = {"maxntid ", "reqntid ", NULL};
/* module scope: the entry, a `.shared` array or scalar, or `.extern .shared .align A .T name[];` (dynamic shared
 * memory; ptxas takes .extern at module scope only: the hand corpus's conv1d declares its window so) */
static const char *const TOPKW[] = {"visible .entry ", "shared .align ", "extern .shared .align ", NULL};
enum { ENTRY_KW_LEN = 16 };   /* strlen(".visible .entry ") */

static ptx_type type_of_alt(const char *a) {
    size_t n = 0;
    while (a[n] && a[n] != ' ') n++;
    if (a[0] != '.') {   /* "pred %" */
        char t[16];
        t[0] = '.';
        memcpy(t + 1, a, n);
        return ptx_type_lookup(t, n + 1);
    }
    return ptx_type_lookup(a, n);
}

static void choice_start(dcore *c, const char *const *alts, uint32_t live) {
    c->alts = alts;
    c->live = live;
    c->cpos = 0;
}

/* Feed a char to the choice: -2 dead, -1 still open, else the completed alternative. */
static int choice_feed(dcore *c, unsigned char ch) {
    uint32_t live = 0;
    for (int i = 0; c->alts[i]; i++)
        if ((c->live >> i & 1) && (unsigned char)c->alts[i][c->cpos] == ch) live |= 1u << i;
    if (!live) return -2;
    c->live = live;
    c->cpos++;
    for (int i = 0; c->alts[i]; i++)
        if ((live >> i & 1) && c->alts[i][c->cpos] == 0) return i;
    return -1;
}

static void lit(dcore *c, const char *s, int next) {
    c->ph = PH_LIT;
    c->lit = s;
    c->lit_pos = 0;
    c->lit_next = (uint8_t)next;
}

/* ---- identifiers ---------------------------------------------------------------- */
static symmask all_syms(const dcore *c) {
    symmask m = SM_NONE;
    for (int k = 0; k < SYM_W; k++) {
        int b = c->nsyms - 64 * k;
        m.w[k] = b >= 64 ? ~0ull : b <= 0 ? 0 : (1ull << b) - 1;
    }
    return m;
}

static void id_start(const dec_state *s, dcore *c, symmask mask) {
    (void)s;
    c->idlen = 0;
    c->idmask = mask;
}

static bool id_feed(const dec_state *s, dcore *c, unsigned char ch) {
    if (c->idlen >= NAME_MAX) return false;
    if (c->idlen == 0 ? !is_id0(ch) : !is_id1(ch)) return false;
    symmask m = SM_NONE, all = all_syms(c), left = sm_and(&c->idmask, &all);
    int i;
    SM_EACH(left, i)
        if (s->syms[i].len > c->idlen && (unsigned char)s->syms[i].name[c->idlen] == ch) sm_set(&m, i);
    c->idmask = m;
    c->id[c->idlen++] = (char)ch;
    c->id[c->idlen] = 0;
    return true;
}

/* The symbol whose name equals the identifier typed (among `mask`), or -1. */
static int id_exact(const dec_state *s, const dcore *c, symmask mask) {
    for (int i = 0; i < c->nsyms; i++)
        if (sm_has(&c->idmask, i) && sm_has(&mask, i) && s->syms[i].len == c->idlen) return i;
    return -1;
}


/* Is the identifier typed one of the forced signature's names (dec_state.resv), still to come? */
static bool id_reserved(const dec_state *s, const dcore *c) {
    if (c->force_pos != s->force_gap) return false;
    for (int i = 0; i < s->nresv; i++)
        if (!strcmp(s->resv[i], c->id)) return true;
    return false;
}

/* A fresh name: no symbol of any kind has it, and it is not an opcode.  var: the name of a
 * .shared/.local variable, which may be an opcode's (ptxas 13.0 takes `.shared .b8 red[16];` and
 * `[red+4]`; the row-reduction plans name their buffer `red`, so their literate targets declare it);
 * a label, the entry and a parameter may not. */
static bool id_fresh(const dec_state *s, const dcore *c, bool var) {
    if (!c->idlen) return false;
    if ((c->id[0] == '_' || c->id[0] == '$') && c->idlen < 2) return false;   /* "_" is the sink; "$" alone is no name */
    if (id_exact(s, c, all_syms(c)) >= 0 || id_reserved(s, c)) return false;
    if ((!var && dec_dg_is_opcode(c->id, c->idlen)) || !strcmp(c->id, "WARP_SZ")) return false;
    return true;
}

/* Room for `extra` more symbols (an owed label's definition takes none: PH_LABEL pays it in place). */
static bool sym_room(const dcore *c, int extra) { return c->nsyms + extra < MAX_SYMS; }

/* id_feed for a name that must be fresh (var: as id_fresh): at full length it must already be. */
static bool id_feed_fresh(const dec_state *s, dcore *c, unsigned char ch, bool var) {
    return id_feed(s, c, ch) && (c->idlen < NAME_MAX || id_fresh(s, c, var));
}

static void add_sym(dec_state *s, dcore *c, int kind, ptx_type t, int64_t size, int space) {
    dsym *y = &s->syms[c->nsyms++];
    memcpy(y->name, c->id, c->idlen + 1u);
    y->len = c->idlen;
    y->kind = (uint8_t)kind;
    y->type = t;
    y->size = size;
    y->space = (uint8_t)space;
}

static bool ending(const dec_state *s, const dcore *c) { return c->nstmts >= s->o.max_statements; }

/* Is the next byte forced?  Not at force_gap: after the header, module-scope declarations (the hand corpus's
 * `.shared .align 4 .f32 ln_part_a[8];`) may come before the forced `.visible .entry`, which resumes the
 * forcing once PH_TOP has taken its keyword (feed_header). */
static bool forcing(const dec_state *s, const dcore *c) {
    return c->force_pos < s->force_len && c->force_pos != s->force_gap;
}

/* Labels referenced but not defined yet: kept in c->owed as references are
 * made (opnd_end) and paid (PH_LABEL), because the mask asks at every byte. */
static symmask owed_mask(const dec_state *s, const dcore *c) {
    (void)s;
    return c->owed;
}

/* ---- operands ---------------------------------------------------------------------- */
static const dg_cand *cand(const dec_state *s, const dcore *c, int k) {
    return &G(s)->cands.v[G(s)->leaves.v[c->leaf].cand0 + k];
}

static const dg_slot *cslot(const dec_state *s, const dcore *c, int k) { return &cand(s, c, k)->slot[c->opi]; }

/* Register types declared so far (c->R's low bits, see set_R_reg). */
static uint16_t declared_types(const dcore *c) { return (uint16_t)(c->R & ((1u << RS_NREGT) - 1)); }
static uint16_t type_bit(ptx_type t) {
    int i = dec_dg_regtype_index(t);
    return i >= 0 ? (uint16_t)(1u << i) : 0;
}

/* The declared register types a slot takes. */
static uint16_t regs_where(const dec_state *s, const dcore *c, const dg_slot *sl) {
    (void)s;
    uint16_t m = 0;
    for (int i = 0; i < RS_NREGT; i++)
        if (dec_dg_slot_reg_ok(sl, dec_dg_regtypes[i])) m |= (uint16_t)(1u << i);
    return m & declared_types(c);
}

static uint16_t addr_regs(const dec_state *s, const dcore *c, int space) {
    (void)s;
    return (uint16_t)(dec_dg_addr_regs((ptx_space)space) & declared_types(c));
}

/* Prepare the per-candidate masks for operand c->opi. */
static void opnd_start(const dec_state *s, dcore *c) {
    c->sub = O_START;
    c->cmask = c->candmask;
    for (int k = 0; k < DG_MAX_CANDS; k++) {
        c->creg[k] = c->csreg[k] = c->careg[k] = 0;
        c->casym[k] = SM_NONE;
        if (!(c->candmask >> k & 1)) continue;
        const dg_cand *cd = cand(s, c, k);
        const dg_slot *sl = &cd->slot[c->opi];
        if (sl->kinds & (SK_REG | SK_NEG)) c->creg[k] = regs_where(s, c, sl);
        if (sl->kinds & SK_SREG)
            for (int q = 0; q < G(s)->nsregs; q++)
                if (dec_dg_sreg_ok(sl, G(s)->sregs[q])) c->csreg[k] |= 1ull << q;
        if (sl->kinds & SK_ADDR) {
            if (cd->space != PTX_SS_PARAM) c->careg[k] = addr_regs(s, c, cd->space);
            for (int i = 0; i < c->nsyms; i++) {
                const dsym *y = &s->syms[i];
                if (cd->space == PTX_SS_PARAM ? (y->kind == SY_PARAM && y->size == cd->param_bits)
                                             : (y->kind == SY_VAR && y->space == cd->space && cd->space != PTX_SS_NONE))
                    sm_set(&c->casym[k], i);
            }
        }
        if (sl->kinds & SK_SYM)
            for (int i = 0; i < c->nsyms; i++)
                if (s->syms[i].kind == SY_VAR) sm_set(&c->casym[k], i);
    }
}

/* ---- registers written (read before write, see the file comment) ------------------------- */
static bool reg_written(const dec_state *s, const dcore *c, int d, int64_t idx) {
    if (idx < 0 || idx >= s->wfcap[d]) return false;
    uint32_t q = s->wfirst[d][idx];
    return q < c->nwlog && s->wlog[q].decl == d && s->wlog[q].idx == idx;
}
static bool decl_written(const dec_state *s, const dcore *c, int d) {
    uint32_t q = s->wany[d];
    return q < c->nwlog && s->wlog[q].decl == d;
}
/* Is some written index of numbered declaration d spelled with the digits of v first? */
static bool idx_prefix_written(const dec_state *s, const dcore *c, int d, int64_t v) {
    if (v == 0) return reg_written(s, c, d, 0);   /* no leading zeros: "0" is only itself */
    for (int64_t lo = v, n = 1; lo < s->wend[d]; lo *= 10, n *= 10)
        for (int64_t i = lo; i < lo + n && i < s->wend[d]; i++)
            if (reg_written(s, c, d, i)) return true;
    return false;
}
/* Log a write of register (d, idx) unless it is written already.  Only the first write of each is
 * logged, so a real entry's wfirst is never overwritten. */
static void log_write(dec_state *s, dcore *c, int d, int32_t idx) {
    if (s->wfail || d < 0 || idx < 0 || reg_written(s, c, d, idx)) return;
    if (c->nwlog >= s->wlog_cap) {
        uint32_t cap = s->wlog_cap ? 2 * s->wlog_cap : 256;
        dwrite *w = realloc(s->wlog, cap * sizeof *w);
        if (!w) { s->wfail = true; return; }
        s->wlog = w, s->wlog_cap = cap;
    }
    if (idx >= s->wfcap[d]) {
        int32_t cap = s->wfcap[d] ? 2 * s->wfcap[d] : 16;
        if (cap <= idx) cap = idx + 1;
        uint32_t *f = realloc(s->wfirst[d], (size_t)cap * sizeof *f);
        if (!f) { s->wfail = true; return; }
        memset(f + s->wfcap[d], 0xff, (size_t)(cap - s->wfcap[d]) * sizeof *f);
        s->wfirst[d] = f, s->wfcap[d] = cap;
    }
    uint32_t q = c->nwlog;
    bool any = decl_written(s, c, d);
    s->wlog[q] = (dwrite){(int16_t)d, idx};
    s->wfirst[d][idx] = q;
    if (!any) s->wany[d] = q;
    if (idx >= s->wend[d]) s->wend[d] = idx + 1;
    c->nwlog = q + 1;
}
/* A register of operand 0 typed in full: logged at ';' if the instruction writes it. */
static void note_dest(dcore *c) {
    if (c->opi == 0 && c->rm.done && c->rm.sel >= 0 && c->npw < 4) {
        c->pwd[c->npw] = c->rm.sel;
        c->pwi[c->npw] = c->rm.ndig ? c->rm.val : 0;
        c->npw++;
    }
}
/* Does the operand being typed read its registers?  All but operand 0 of an instruction whose
 * candidates all write it (a store's address, bar.sync's barrier: dg_cand.op0_def). */
static bool opnd_reads(const dec_state *s, const dcore *c) {
    if (c->opi > 0) return true;
    for (int k = 0; k < DG_MAX_CANDS; k++)
        if ((c->cmask >> k & 1) && cand(s, c, k)->op0_def) return false;
    return true;
}
static uint16_t creg_union(const dcore *c) {
    uint16_t m = 0;
    for (int k = 0; k < DG_MAX_CANDS; k++)
        if (c->cmask >> k & 1) m |= c->creg[k];
    return m;
}

/* Start a register name: the declarations of the types in `types` (only declaration `only` when >= 0).
 * rdtypes: a read, of a register of these types (the slot's), else 0: then only the written
 * declarations are candidates, unless none of rdtypes is written (no dead state: any declared one). */
static void rm_start(const dec_state *s, dcore *c, uint16_t types, int only, uint64_t sregs, uint16_t rdtypes) {
    regm *r = &c->rm;
    memset(&r->regs, 0, sizeof r->regs);
    r->types = 0;
    rset w = {{0}};
    uint16_t wt = 0;
    bool rd = rdtypes && !s->o.reads_unwritten && !s->wfail;
    for (int i = 0; i < c->nregs; i++) {
        uint16_t b = type_bit(s->regs[i].type);
        if ((b & types) && (only < 0 || i == only) && reg_visible(c, i)) {
            rset_add(&r->regs, i);
            r->types |= b;
            if (rd && (b & rdtypes) && decl_written(s, c, i)) { rset_add(&w, i); wt |= b; }
        }
    }
    r->rd = wt != 0;
    if (r->rd) r->regs = w, r->types = wt;
    r->sregs = sregs;
    r->done = false;
    r->n = 0;
    r->ndig = 0;
    r->sel = -1;
    r->val = 0;
}

/* How many indices a numbered declaration admits: its count, or with dec_opts.regs_grow room past
 * it (the declaration is raised afterwards, ptx_regs_tighten_text). */
static int64_t reg_limit(const dec_state *s, const dreg *d) {
    return s->o.regs_grow && d->count ? 2 * (int64_t)d->count + 32 : d->count;
}

/* Feed the register-name machine (after '%'). */
static bool rm_feed(const dec_state *s, dcore *c, unsigned char ch) {
    regm *r = &c->rm;
    uint64_t sregs = 0;
    int pos = r->n + 1;   /* index into names, which start with '%' */
    if (r->sregs && pos < 39)
        for (int q = 0; q < G(s)->nsregs; q++)
            if ((r->sregs >> q & 1) && (unsigned char)G(s)->sreg_names[q][pos] == ch) sregs |= 1ull << q;
    rset regs = {{0}};
    uint16_t types = 0;
    bool done = false;
    if (r->ndig) {   /* the index of a numbered register */
        if (is_digit(ch) && r->val != 0) {
            int64_t v = (int64_t)r->val * 10 + (ch - '0');
            if (v < reg_limit(s, &s->regs[r->sel]) && (!r->rd || idx_prefix_written(s, c, r->sel, v))) {
                regs = r->regs; types = r->types; r->val = (int32_t)v; r->ndig++;
                done = !r->rd || reg_written(s, c, r->sel, v);
            }
        }
    } else {
        /* names match byte by byte; a digit right after a numbered prefix starts its index (no named
         * register starts with a numbered prefix and a digit: name_ok, so then it is the only match) */
        int sel = -1;
        for (int w = 0; w < RSET_W; w++)
            for (uint64_t left = r->regs.w[w]; left; left &= left - 1) {
                int i = 64 * w + __builtin_ctzll(left);
                const dreg *d = &s->regs[i];
                if (d->len > pos && (unsigned char)d->name[pos] == ch) {
                    rset_add(&regs, i);
                    types |= type_bit(d->type);
                    if (!d->count && d->len == pos + 1) { sel = i; done = true; }
                } else if (d->count && d->len == pos && is_digit(ch) && ch - '0' < reg_limit(s, d) &&
                           (!r->rd || idx_prefix_written(s, c, i, ch - '0'))) {
                    memset(&regs, 0, sizeof regs);
                    rset_add(&regs, i);
                    types = type_bit(d->type);
                    sel = i;
                    done = !r->rd || reg_written(s, c, i, ch - '0');
                    r->val = ch - '0';
                    r->ndig = 1;
                    w = RSET_W;
                    break;
                }
            }
        r->sel = (int16_t)sel;
    }
    if (!types && !sregs) return false;
    r->regs = regs;
    r->types = types;
    r->done = done;
    r->sregs = sregs;
    r->n++;
    return true;
}

static bool rm_done_reg(const dcore *c) { return c->rm.done; }
/* The type bit of the register typed in full (rm_done_reg). */
static uint16_t rm_done_type(const dec_state *s, const dcore *c) { return type_bit(s->regs[c->rm.sel].type); }
static int rm_done_sreg(const dec_state *s, const dcore *c) {
    for (int q = 0; q < G(s)->nsregs; q++)
        if ((c->rm.sregs >> q & 1) && G(s)->sreg_names[q][c->rm.n + 1] == 0) return q;
    return -1;
}

/* Can the decimal magnitude prefix (v, ndig digits, sign) reach [lo, hi]? */
static bool int_reachable(int64_t v, int ndig, bool neg, int64_t lo, int64_t hi, bool complete) {
    if (ndig == 0) return neg ? lo < 0 : hi >= 0;
    uint64_t p = 1;
    for (int k = 0; k <= 19 - ndig; k++) {
        uint64_t lm = (uint64_t)v * p, hm = lm + p - 1;
        if (lm > (uint64_t)INT64_MAX) break;
        if (hm > (uint64_t)INT64_MAX) hm = (uint64_t)INT64_MAX;
        int64_t a = neg ? -(int64_t)hm : (int64_t)lm, b = neg ? -(int64_t)lm : (int64_t)hm;
        if (a <= hi && b >= lo) return true;
        if (complete || v == 0) break;
        if (p > (uint64_t)INT64_MAX / 10) break;
        p *= 10;
    }
    return false;
}

static bool hexu(int ch) { return is_digit(ch) || (ch >= 'A' && ch <= 'F'); }

/* ---- fill vectors: mov pack/unpack (dg_slot.fill) ------------------------------------
 * {e1, e2} or {e1, e2, e3, e4} whose elements fill the instruction's type exactly: registers of one
 * type (c->vtype, c->vbits from the first), and in a source integer immediates too, never beside a
 * float register (ptxas: "Vector with elements of different types are not allowed in mov"). */
static int fill_width(const dg_slot *sl) { return ptx_type_get(sl->want)->bits; }
/* The most elements the {..} may have: its count once a register fixed their size, else that of 16-bit ones. */
static int fill_max(const dcore *c, const dg_slot *sl) { return fill_width(sl) / (c->vbits ? c->vbits : 16); }
static bool fill_count_ok(const dcore *c, const dg_slot *sl, int n) {
    if (c->vbits) return n * c->vbits == fill_width(sl);
    return (n == 2 || n == 4) && fill_width(sl) / n >= 16;
}
static bool vtype_float(const dcore *c) { return c->vtype >= 0 && ptx_type_get(dec_dg_regtypes[c->vtype])->cls == PTX_TC_FLOAT; }
/* The register types candidate k's next element may have (declared, of an element's size, with room). */
static uint16_t fill_types(const dec_state *s, const dcore *c, int k) {
    const dg_slot *sl = cslot(s, c, k);
    if (c->vtype >= 0) return c->creg[k] & (uint16_t)(1u << c->vtype);
    uint16_t r = 0;
    for (int i = 0; i < RS_NREGT; i++) {
        const ptx_type_info *ti = ptx_type_get(dec_dg_regtypes[i]);
        if ((c->creg[k] >> i & 1) && !(c->vimm && ti->cls == PTX_TC_FLOAT) && fill_width(sl) / ti->bits > c->velem)
            r |= (uint16_t)(1u << i);
    }
    return r;
}
/* May candidate k's next element be an immediate? */
static bool fill_imm_ok(const dec_state *s, const dcore *c, int k) {
    const dg_slot *sl = cslot(s, c, k);
    return (sl->kinds & SK_VIMM) && !vtype_float(c) && c->velem < fill_max(c, sl);
}

/* Is the operand typed so far still viable for candidate k?  `complete`: the
 * operand ends here. */
static bool opnd_viable(const dec_state *s, const dcore *c, int k, bool complete) {
    const dg_slot *sl = cslot(s, c, k);
    switch (c->sub) {
    case O_START:
        return !complete;
    case O_REG:
    case O_NEG:
        if (sl->arity != 1) return false;
        if (c->sub == O_NEG && !(sl->kinds & SK_NEG)) return false;
        if (c->sub == O_NEG && c->rm.n == 0xff) return !complete && c->creg[k] != 0;
        if (!complete) {
            if (c->rm.n == 0) return c->creg[k] || c->csreg[k];
            return (c->rm.types & c->creg[k]) || (c->rm.sregs & c->csreg[k]);
        }
        if (rm_done_reg(c) && (rm_done_type(s, c) & c->creg[k])) return true;
        {
            int q = rm_done_sreg(s, c);
            return q >= 0 && (c->csreg[k] >> q & 1) && c->sub == O_REG;
        }
    case O_PAIR:   /* %r1|%p2: the second half, a .pred register */
        if (!(sl->kinds & SK_PAIR)) return false;
        if (c->rm.n == 0xff) return !complete;
        return complete ? rm_done_reg(c) : c->rm.types != 0;
    case O_INT:
        if (!(sl->kinds & SK_IMM)) {
            /* "0" may still become 0f.../0d... */
            return !complete && c->vdig == 1 && c->val == 0 && !c->neg && (sl->kinds & SK_FLT);
        }
        if (int_reachable(c->val, c->vdig, c->neg, sl->lo, sl->hi, complete)) return !complete || c->vdig > 0;
        return !complete && c->vdig == 1 && c->val == 0 && !c->neg && (sl->kinds & SK_FLT);
    case O_FLT:
        if (!(sl->kinds & SK_FLT) || sl->fbits != (c->fwidth == 8 ? 32 : 64)) return false;
        return !complete || c->fdig == c->fwidth;
    case O_ADDR:
        if (!(sl->kinds & SK_ADDR)) return false;
        switch (c->asub) {
        case A_BASE: return !complete && (c->careg[k] || sm_any(&c->casym[k]));
        case A_REG: return !complete && (c->rm.types & c->careg[k]);
        case A_SYM: return !complete && sm_meet(&c->idmask, &c->casym[k]);
        case A_PLUS:
        case A_OFF: {
            if (complete) return false;
            int64_t lo = 1, hi = INT32_MAX;
            if (c->abase_sym >= 0) {
                const dsym *y = &s->syms[c->abase_sym];
                if (y->kind == SY_PARAM || c->neg) return false;
                hi = y->size - 1;
            } else if (c->neg) {
                hi = (int64_t)INT32_MAX + 1;
            }
            if (c->asub == A_PLUS) return hi >= lo;
            return int_reachable(c->val, c->vdig, false, lo, hi, false);
        }
        case A_DONE:
            return true;
        }
        return false;
    case O_VEC:
        if (sl->fill) {
            if (complete) return false;
            if (c->vsep == 1) return true;
            if (c->vsep == 3) return fill_imm_ok(s, c, k) && int_reachable(c->val, c->vdig, c->neg, sl->lo, sl->hi, false);
            if (c->vsep == 2) return fill_types(s, c, k) || fill_imm_ok(s, c, k);
            return (c->rm.types & fill_types(s, c, k)) != 0;
        }
        if (sl->arity < 2 || !(sl->kinds & SK_REG)) return false;
        if (c->velem >= sl->arity) return false;
        if (complete) return false;
        if (c->vsep == 1) return true;
        if (c->vsep == 2) return c->vdecl >= 0 ? (c->creg[k] & type_bit(s->regs[c->vdecl].type)) != 0 : c->creg[k] != 0;
        return (c->rm.types & c->creg[k]) != 0;
    case O_IDENT:
        if (sl->kinds & SK_LABEL) {
            symmask labels = SM_NONE;
            for (int i = 0; i < c->nsyms; i++)
                if (s->syms[i].kind == SY_LDEF || s->syms[i].kind == SY_LREF) sm_set(&labels, i);
            if (!complete && c->idlen < NAME_MAX) return sm_meet(&c->idmask, &labels) || sym_room(c, 1);
            if (id_exact(s, c, labels) >= 0) return true;
            return sym_room(c, 1) && id_fresh(s, c, false);
        }
        if (sl->kinds & SK_SYM) {
            if (!complete) return sm_meet(&c->idmask, &c->casym[k]);
            return id_exact(s, c, c->casym[k]) >= 0;
        }
        return false;
    case O_DONE:
        return complete;
    }
    return false;
}

/* Filter the candidates for the operand typed so far; false if none remain. */
static bool opnd_filter(const dec_state *s, dcore *c, bool complete) {
    uint8_t m = 0;
    for (int k = 0; k < DG_MAX_CANDS; k++)
        if ((c->cmask >> k & 1) && opnd_viable(s, c, k, complete)) m |= (uint8_t)(1u << k);
    if (!m) return false;
    c->cmask = m;
    return true;
}

/* A fill {..}'s element ends with ',' (room for another) or '}' (the count fills the type). */
static bool fill_next(const dec_state *s, dcore *c, unsigned char ch) {
    c->velem++;
    uint8_t m = 0;
    for (int k = 0; k < DG_MAX_CANDS; k++) {
        if (!(c->cmask >> k & 1)) continue;
        const dg_slot *sl = cslot(s, c, k);
        if (ch == ',' ? c->velem < fill_max(c, sl) : fill_count_ok(c, sl, c->velem)) m |= (uint8_t)(1u << k);
    }
    if (!m) return false;
    c->cmask = m;
    if (ch == ',') c->vsep = 1;
    else c->sub = O_DONE;
    return true;
}

/* Feed one char of an operand.  Delimiters (',' ';') are handled by the caller. */
static bool opnd_feed(const dec_state *s, dcore *c, unsigned char ch) {
    switch (c->sub) {
    case O_START:
        if (ch == '%') { c->sub = O_REG; rm_start(s, c, 0xffff, -1, ~0ull, opnd_reads(s, c) ? creg_union(c) : 0); }
        else if (ch == '!') { c->sub = O_NEG; c->rm.n = 0xff; c->rm.types = 0; }
        else if (ch == '-' || is_digit(ch)) { c->sub = O_INT; c->neg = ch == '-'; c->val = ch == '-' ? 0 : ch - '0'; c->vdig = ch != '-'; }
        else if (ch == '[') { c->sub = O_ADDR; c->asub = A_BASE; c->neg = false; c->abase_sym = -1; }
        else if (ch == '{') { c->sub = O_VEC; c->velem = 0; c->vsep = 2; c->vdecl = -1; c->vbits = 0; c->vtype = -1; c->vimm = false; }
        else if (is_id0(ch)) { c->sub = O_IDENT; id_start(s, c, all_syms(c)); return id_feed(s, c, ch) && opnd_filter(s, c, false); }
        else return false;
        if (c->sub == O_NEG) return opnd_filter(s, c, false);
        if (c->sub == O_VEC) return opnd_filter(s, c, false);
        return opnd_filter(s, c, false);
    case O_NEG:
        if (c->rm.n == 0xff) {
            if (ch != '%') return false;
            /* only .pred registers after '!' (a source) */
            rm_start(s, c, type_bit(PTX_T_PRED), -1, 0, type_bit(PTX_T_PRED));
            return opnd_filter(s, c, false);
        }
        return rm_feed(s, c, ch) && opnd_filter(s, c, false);
    case O_REG:
        if (ch == '|' && rm_done_reg(c)) {
            uint8_t m = 0;
            for (int k = 0; k < DG_MAX_CANDS; k++)
                if ((c->cmask >> k & 1) && opnd_viable(s, c, k, true) && (cslot(s, c, k)->kinds & SK_PAIR)) m |= (uint8_t)(1u << k);
            if (!m) return false;
            if (!(declared_types(c) & type_bit(PTX_T_PRED))) return false;
            note_dest(c);
            c->cmask = m;
            c->sub = O_PAIR;
            c->rm.n = 0xff;
            c->rm.types = type_bit(PTX_T_PRED);
            return true;
        }
        return rm_feed(s, c, ch) && opnd_filter(s, c, false);
    case O_PAIR:
        if (c->rm.n == 0xff) {
            if (ch != '%') return false;
            rm_start(s, c, type_bit(PTX_T_PRED), -1, 0, opnd_reads(s, c) ? type_bit(PTX_T_PRED) : 0);
            return true;
        }
        return rm_feed(s, c, ch) && opnd_filter(s, c, false);
    case O_INT:
        if ((ch == 'f' || ch == 'd') && c->vdig == 1 && c->val == 0 && !c->neg) {
            c->sub = O_FLT;
            c->fwidth = ch == 'f' ? 8 : 16;
            c->fdig = 0;
            return opnd_filter(s, c, false);
        }
        if (!is_digit(ch) || c->vdig >= 19 || c->val > (INT64_MAX - 9) / 10) return false;
        if (c->vdig == 1 && c->val == 0) return false;          /* no leading zeros */
        if (c->vdig == 0 && ch == '0' && c->neg) return false;  /* no -0 */
        c->val = c->val * 10 + (ch - '0');
        c->vdig++;
        return opnd_filter(s, c, false);
    case O_FLT:
        if (!hexu(ch) || c->fdig >= c->fwidth) return false;
        c->fdig++;
        return opnd_filter(s, c, false);
    case O_ADDR:
        switch (c->asub) {
        case A_BASE:
            if (ch == '%') {
                uint16_t at = 0;
                for (int k = 0; k < DG_MAX_CANDS; k++)
                    if (c->cmask >> k & 1) at |= c->careg[k];
                c->asub = A_REG;
                rm_start(s, c, 0xffff, -1, 0, at);   /* an address's register is always read */
                return opnd_filter(s, c, false);
            }
            if (is_id0(ch)) { c->asub = A_SYM; id_start(s, c, all_syms(c)); return id_feed(s, c, ch) && opnd_filter(s, c, false); }
            return false;
        case A_REG:
            if ((ch == '+' || ch == ']') && rm_done_reg(c)) {
                c->asub = ch == '+' ? A_PLUS : A_DONE;
                if (ch == '+') { c->val = 0; c->vdig = 0; c->neg = false; }
                return opnd_filter(s, c, false);
            }
            return rm_feed(s, c, ch) && opnd_filter(s, c, false);
        case A_SYM:
            if (ch == '+' || ch == ']') {
                int y = id_exact(s, c, all_syms(c));
                if (y < 0) return false;
                c->abase_sym = (int16_t)y;
                uint8_t m = 0;
                for (int k = 0; k < DG_MAX_CANDS; k++)
                    if ((c->cmask >> k & 1) && sm_has(&c->casym[k], y)) m |= (uint8_t)(1u << k);
                if (!m) return false;
                c->cmask = m;
                c->asub = ch == '+' ? A_PLUS : A_DONE;
                if (ch == '+') { c->val = 0; c->vdig = 0; c->neg = false; }
                return opnd_filter(s, c, false);
            }
            return id_feed(s, c, ch) && opnd_filter(s, c, false);
        case A_PLUS:
            if (ch == '-' && c->abase_sym < 0 && !c->neg) { c->neg = true; return opnd_filter(s, c, false); }
            if (ch < '1' || ch > '9') return false;
            c->asub = A_OFF;
            c->val = ch - '0';
            c->vdig = 1;
            return opnd_filter(s, c, false);
        case A_OFF:
            if (ch == ']') {
                int64_t hi = c->abase_sym >= 0 ? s->syms[c->abase_sym].size - 1 : (c->neg ? (int64_t)INT32_MAX + 1 : INT32_MAX);
                if (c->val > hi) return false;
                c->asub = A_DONE;
                return opnd_filter(s, c, false);
            }
            if (!is_digit(ch) || c->vdig >= 12) return false;
            c->val = c->val * 10 + (ch - '0');
            c->vdig++;
            return opnd_filter(s, c, false);
        default:
            return false;
        }
    case O_VEC: {
        bool fill = cslot(s, c, __builtin_ctz(c->cmask))->fill;   /* at '{' the candidates left are all fill or none */
        if (c->vsep == 1) { if (ch != ' ') return false; c->vsep = 2; return true; }
        if (c->vsep == 2 && fill && (ch == '-' || is_digit(ch))) {   /* an immediate element (mov pack) */
            c->vsep = 3;
            c->neg = ch == '-';
            c->val = c->neg ? 0 : ch - '0';
            c->vdig = !c->neg;
            return opnd_filter(s, c, false);
        }
        if (c->vsep == 3) {
            if (ch == ',' || ch == '}') {
                uint8_t m = 0;
                for (int k = 0; k < DG_MAX_CANDS; k++)
                    if ((c->cmask >> k & 1) && c->vdig && fill_imm_ok(s, c, k) &&
                        int_reachable(c->val, c->vdig, c->neg, cslot(s, c, k)->lo, cslot(s, c, k)->hi, true))
                        m |= (uint8_t)(1u << k);
                if (!m) return false;
                c->cmask = m;
                c->vimm = true;
                return fill_next(s, c, ch);
            }
            if (!is_digit(ch) || c->vdig >= 6) return false;
            if (c->vdig == 1 && c->val == 0) return false;          /* no leading zeros */
            if (c->vdig == 0 && ch == '0' && c->neg) return false;  /* no -0 */
            c->val = c->val * 10 + (ch - '0');
            c->vdig++;
            return opnd_filter(s, c, false);
        }
        if (c->vsep == 2) {   /* element start */
            if (ch != '%') return false;
            c->vsep = 0;
            /* the elements come from one numbered declaration, or are named registers of one type; a fill
             * vector's are any registers of one type (fill_types) */
            uint16_t rt = 0;
            if (opnd_reads(s, c))
                for (int k = 0; k < DG_MAX_CANDS; k++)
                    if (c->cmask >> k & 1) rt |= fill ? fill_types(s, c, k) : c->creg[k];
            if (c->vdecl < 0 || fill) rm_start(s, c, 0xffff, -1, 0, rt);
            else if (s->regs[c->vdecl].count) rm_start(s, c, 0xffff, c->vdecl, 0, rt);
            else rm_start(s, c, type_bit(s->regs[c->vdecl].type), -1, 0, rt);
            return opnd_filter(s, c, false);
        }
        if ((ch == ',' || ch == '}') && rm_done_reg(c) && fill) {
            uint8_t m = 0;
            for (int k = 0; k < DG_MAX_CANDS; k++)
                if ((c->cmask >> k & 1) && (rm_done_type(s, c) & fill_types(s, c, k))) m |= (uint8_t)(1u << k);
            if (!m) return false;
            c->cmask = m;
            note_dest(c);
            ptx_type t = s->regs[c->rm.sel].type;
            c->vtype = (int8_t)dec_dg_regtype_index(t);
            c->vbits = (uint8_t)ptx_type_get(t)->bits;
            return fill_next(s, c, ch);
        }
        if ((ch == ',' || ch == '}') && rm_done_reg(c)) {
            note_dest(c);
            c->vdecl = c->rm.sel;
            c->velem++;
            uint8_t m = 0;
            for (int k = 0; k < DG_MAX_CANDS; k++) {
                if (!(c->cmask >> k & 1)) continue;
                int ar = cslot(s, c, k)->arity;
                if (ch == ',' ? c->velem < ar : c->velem == ar) m |= (uint8_t)(1u << k);
            }
            if (!m) return false;
            c->cmask = m;
            if (ch == ',') c->vsep = 1;
            else c->sub = O_DONE;
            return true;
        }
        return rm_feed(s, c, ch) && opnd_filter(s, c, false);
    }
    case O_IDENT:
        return id_feed(s, c, ch) && opnd_filter(s, c, false);
    default:
        return false;
    }
}

/* The operand ends (',' or ';'): keep the candidates it is complete for. */
static bool opnd_end(dec_state *s, dcore *c, bool last) {
    uint8_t m = 0;
    for (int k = 0; k < DG_MAX_CANDS; k++) {
        if (!(c->cmask >> k & 1) || !opnd_viable(s, c, k, true)) continue;
        int n = cand(s, c, k)->nops;
        if (last ? n == c->opi + 1 : n > c->opi + 1) m |= (uint8_t)(1u << k);
    }
    if (!m) return false;
    c->candmask = m;
    if (c->sub == O_REG || c->sub == O_PAIR) note_dest(c);
    if (c->sub == O_IDENT) {
        /* a label: record a new reference as owed */
        symmask labels = SM_NONE;
        for (int i = 0; i < c->nsyms; i++)
            if (s->syms[i].kind == SY_LDEF || s->syms[i].kind == SY_LREF) sm_set(&labels, i);
        bool is_label = cslot(s, c, __builtin_ctz(m))->kinds & SK_LABEL;
        if (is_label && id_exact(s, c, labels) < 0) {
            add_sym(s, c, SY_LREF, PTX_T_NONE, 0, 0);
            sm_set(&c->owed, c->nsyms - 1);
            c->nowed++;
            c->end_owed += s->syms[c->nsyms - 1].len + 2u;   /* "NAME:\n" */
        }
    }
    return true;
}

/* ---- statements -------------------------------------------------------------------- */
static void set_R_reg(dcore *c, ptx_type t) {
    int i = dec_dg_regtype_index(t);
    if (i >= 0) c->R |= 1u << i;
}

/* The first declaration of the innermost open block (0: the function's scope). */
static int block_first(const dcore *c) { return c->depth ? c->blk0[c->depth - 1] : 0; }

/* May the name be declared?  No declaration in scope has it, but (may_shadow, a named register) one
 * of an outer block's named registers, which the new one shadows. */
static bool reg_name_ok_in(const dec_state *s, const dcore *c, const char *name, size_t n, bool may_shadow) {
    for (int i = 0; i < c->nregs; i++)
        if (reg_visible(c, i) && s->regs[i].len == n && !memcmp(s->regs[i].name, name, n) &&
            !(may_shadow && !s->regs[i].count && i < block_first(c)))
            return false;
    /* %clock + 64 would read as the special register %clock64 */
    for (int q = 0; q < isa_sreg_count(); q++) {
        const char *sn = isa_sreg_get(q)->name;
        if (strncmp(sn, name, n)) continue;
        const char *rest = sn + n;
        while (is_digit(*rest)) rest++;
        if (!*rest) return false;
    }
    return true;
}
static bool reg_name_ok(const dec_state *s, const dcore *c, const char *name, size_t n) { return reg_name_ok_in(s, c, name, n, false); }

/* ---- named registers (dec_opts.regs_named) ---------------------------------------- */
/* Are named registers declared here?  With dec_opts.regs_named everywhere; numbered, inside a nested
 * block, whose registers are its own: nvcc's fp16/bf16 helpers write `{ .reg .b32 %temp; mov.b64 {%r7,
 * %temp}, %fd50; }` (the numbered style's masks outside blocks stay those of before). */
static bool named_here(const dec_state *s, const dcore *c) { return s->o.regs_named || c->depth; }
static bool is_name1(int c) { return dv_is_id1(c) && c != '$'; }   /* [A-Za-z0-9_] */
static bool is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* Does the name (without '%') start with a numbered declaration's prefix and a digit?  Such a
 * name would read as one of its registers (%r1 against %r<N>), so neither may be declared with
 * the other. */
static bool numbered_clash(const dec_state *s, const dcore *c, const char *name, size_t n) {
    for (int i = 0; i < c->nregs; i++) {
        const dreg *d = &s->regs[i];
        size_t pl = d->len - 1u;
        if (reg_visible(c, i) && d->count && n > pl && is_digit(name[pl]) && !memcmp(d->name + 1, name, pl)) return true;
    }
    return false;
}

/* May `.reg .T %name;` be declared (name without '%', n bytes)?  Fresh, not a special register (%tid
 * of %tid.x, %pm of %pm0: reg_name_ok), not an opcode, no clash with a numbered declaration. */
static bool named_ok(const dec_state *s, const dcore *c, const char *name, size_t n) {
    if (n < 1 || n > REGNAME_MAX || !is_alpha(name[0])) return false;
    char nm[REGNAME_MAX + 2];
    nm[0] = '%';
    memcpy(nm + 1, name, n);
    nm[n + 1] = 0;
    if (!reg_name_ok_in(s, c, nm, n + 1, true)) return false;
    for (int q = 0; q < isa_sreg_count(); q++) {
        const char *sn = isa_sreg_get(q)->name;
        if (!strncmp(sn, nm, n + 1) && sn[n + 1] == '.') return false;
    }
    if (dec_dg_is_opcode(name, n)) return false;
    return !numbered_clash(s, c, name, n);
}

/* May `.reg .T %name<N>;` be declared?  [a-z]{1,12}, fresh, and (with named registers) no named
 * register is this name and a digit. */
static bool numbered_ok(const dec_state *s, const dcore *c, const char *name, size_t n) {
    if (n < 1 || n > 12) return false;
    for (size_t i = 0; i < n; i++)
        if (name[i] < 'a' || name[i] > 'z') return false;
    char nm[24];
    nm[0] = '%';
    memcpy(nm + 1, name, n);
    if (!reg_name_ok(s, c, nm, n + 1)) return false;
    for (int i = 0; i < c->nregs; i++) {
        const dreg *d = &s->regs[i];
        if (reg_visible(c, i) && !d->count && d->len > n + 1 && is_digit(d->name[n + 1]) && !memcmp(d->name + 1, name, n)) return false;
    }
    return true;
}

/* With named registers: can the name typed so far (c->id) still become a declaration?  Up to
 * REGNAME_MAX - 2 bytes it always can (it has 63 * 63 two-byte extensions and more; at most
 * MAX_REGDECL names, the special registers and the opcodes are taken); at REGNAME_MAX - 1 and
 * REGNAME_MAX the few completions are checked one by one, so no name typed is a dead end. */
static bool named_prefix_ok(const dec_state *s, const dcore *c) {
    size_t n = c->idlen;
    if (n + 2 <= REGNAME_MAX) return true;
    if (named_ok(s, c, c->id, n) || numbered_ok(s, c, c->id, n)) return true;
    if (n == REGNAME_MAX) return false;
    char nm[REGNAME_MAX + 1];
    memcpy(nm, c->id, n);
    for (int x = '0'; x <= 'z'; x++) {
        if (!is_name1(x)) continue;
        nm[n] = (char)x;
        if (named_ok(s, c, nm, n + 1)) return true;
    }
    return false;
}

/* The register types R offers are those of the registers in scope (a block's '}' or a shadowing
 * declaration may take the last one of a type away). */
static void scope_types(const dec_state *s, dcore *c) {
    c->R &= ~((1u << RS_NREGT) - 1);
    for (int i = 0; i < c->nregs; i++)
        if (reg_visible(c, i)) set_R_reg(c, s->regs[i].type);
}

static void add_reg(dec_state *s, dcore *c, int count) {
    int k = c->nregs++;
    dreg *r = &s->regs[k];
    r->name[0] = '%';
    memcpy(r->name + 1, c->id, c->idlen + 1u);
    r->len = (uint8_t)(c->idlen + 1);
    r->type = c->dtype;
    r->count = count;
    r->shadows = -1;
    for (int i = 0; i < k; i++)   /* an outer block's register of this name: hidden until this block closes */
        if (reg_visible(c, i) && s->regs[i].len == r->len && !memcmp(s->regs[i].name, r->name, r->len)) {
            r->shadows = (int16_t)i;
            rset_add(&c->hidden, i);
        }
    if (r->shadows >= 0) scope_types(s, c);
    set_R_reg(c, c->dtype);
    c->pend_term = false;
}

/* `{`: a nested block opens (named registers only).  `}`: its declarations go out of scope and the
 * ones they shadowed come back. */
static void block_open(dcore *c) {
    c->blk0[c->depth++] = c->nregs;
    c->end_owed += c->depth + 2u;   /* depth tabs, "}\n" */
}
static void block_close(const dec_state *s, dcore *c) {
    c->end_owed -= c->depth + 2u;
    int first = c->blk0[--c->depth];
    for (int i = c->nregs - 1; i >= first; i--) {
        if (!reg_visible(c, i)) continue;
        rset_add(&c->hidden, i);
        int sh = s->regs[i].shadows;
        if (sh >= 0) c->hidden.w[sh >> 6] &= ~(1ull << (sh & 63));
    }
    scope_types(s, c);
}

static void line_start(dcore *c) { c->ph = PH_LINE; }

/* ---- .maxntid / .reqntid against the launch's block ------------------------------ */
/* Threads the launch needs in dimensions [from, to): the task's block (1 when unknown). */
static int64_t perf_need(const dec_state *s, int from, int to) {
    int64_t p = 1;
    for (int i = from; i < to; i++) p *= s->o.block[i] > 0 ? s->o.block[i] : 1;
    return p;
}
/* The values dimension c->perf_i may take: .reqntid must equal a known block,
 * .maxntid must be at least it (a kernel declared for fewer threads than the
 * launch cannot start), and the product stays <= 1024 with room for the
 * dimensions still to come. */
static void perf_range(const dec_state *s, const dcore *c, int64_t *lo, int64_t *hi) {
    int i = c->perf_i;
    *lo = s->o.block[i] > 0 ? s->o.block[i] : 1;
    *hi = 1024 / ((int64_t)c->perf_prod * perf_need(s, i + 1, 3));
    if (c->perf_kw == 1 && s->o.block[0] > 0) *hi = *lo;
}
/* Can a number of at most 4 digits that starts with the `nd` digits of p lie in [lo, hi]? */
static bool perf_prefix_ok(int64_t p, int nd, int64_t lo, int64_t hi) {
    for (int64_t k = 1; nd <= 4; k *= 10, nd++)
        if (p * k <= hi && (p + 1) * k - 1 >= lo) return true;
    return false;
}

/* The core transition: feed one byte.  May append to s->regs/s->syms past
 * the counts in c (see the file comment), never changes anything else in s. */
/* feed() in the module header and the entry's signature: top-level directives, the
 * entry name, its parameters and the performance directives after them (forced: ch is a byte of the forced text). */
static bool feed_header(dec_state *s, dcore *c, unsigned char ch, bool forced) {
    switch (c->ph) {
    case PH_TOP:
        if (c->cpos == 0 && c->live == 0) {
            if (ch != '.') return false;
            uint32_t live = 1;
            if (s->end_forced) { choice_start(c, TOPKW, live); return true; }   /* the shortest end: the entry */
            if (c->nvars < MAX_VARS && sym_room(c, 1) && SHARED_MAX - c->shared_bytes >= 32) live |= 2;
            if (c->nvars < MAX_VARS && sym_room(c, 1) && !c->dextern) live |= 4;   /* one dynamic array */
            choice_start(c, TOPKW, live);
            return true;
        }
        {
            int r = choice_feed(c, ch);
            if (r == -2) return false;
            if (r == 0) {
                c->ph = PH_ENAME;
                c->top = false;
                id_start(s, c, all_syms(c));
                if (c->force_pos == s->force_gap && s->force_gap < s->force_len) c->force_pos += ENTRY_KW_LEN;
            }
            if (r == 1 || r == 2) {
                c->ph = PH_ALIGN;
                c->dspace = PTX_SS_SHARED;
                c->dext = r == 2;
                choice_start(c, ALIGNS, 31);
            }
            return true;
        }
    case PH_ENAME:
    case PH_PNAME:
        if ((ch == '(' && c->ph == PH_ENAME) || (c->ph == PH_PNAME && (ch == ',' || ch == '\n'))) {
            if (!id_fresh(s, c, false) || !sym_room(c, 1)) return false;
            if (c->ph == PH_ENAME) {
                add_sym(s, c, SY_ENTRY, PTX_T_NONE, 0, 0);
                c->ph = PH_POPEN;
                return true;
            }
            if (ch == ',' && (c->nparams + 1 >= MAX_PARAMS || (s->end_forced && !forced))) return false;   /* ending: the last */
            int b = ptx_type_get(c->dtype)->bits;
            add_sym(s, c, SY_PARAM, c->dtype, b, PTX_SS_PARAM);
            c->nparams++;
            c->R |= 1u << (b == 64 ? RS_PARAM64 : RS_PARAM32);
            if (ch == ',') lit(c, "\n\t.param ", PH_PTYPE);
            else lit(c, ")\n", PH_PERF);
            return true;
        }
        return id_feed_fresh(s, c, ch, false);
    case PH_POPEN:
        if (ch == ')') { lit(c, "\n", PH_PERF); return true; }
        if (ch == '\n' && (!s->end_forced || forced)) { lit(c, "\t.param ", PH_PTYPE); return true; }
        return false;
    case PH_PTYPE: {
        int r = choice_feed(c, ch);
        if (r == -2) return false;
        if (r >= 0) {
            c->dtype = type_of_alt(PTYPES[r]);
            c->ph = PH_PNAME;
            id_start(s, c, all_syms(c));
        }
        return true;
    }
    case PH_PERF:
        if (ch == '{') { lit(c, "\n", PH_LINE); return true; }
        if (ch == '.' && perf_need(s, 0, 3) <= 1024 && !s->end_forced) {   /* the shortest end has no directive */ c->ph = PH_PERFNUM; choice_start(c, PERFKW, 3); c->perf_i = 0xff; return true; }
        return false;
    case PH_PERFNUM: {
        if (c->perf_i == 0xff) {
            int r = choice_feed(c, ch);
            if (r == -2) return false;
            if (r >= 0) { c->perf_i = 0; c->perf_prod = 1; c->num = 0; c->ndig = 0; c->perf_kw = (uint8_t)r; }
            return true;
        }
        int64_t lo, hi;
        perf_range(s, c, &lo, &hi);
        if (c->ndig > 0 && ((ch == ',' && c->perf_i < 2) || (ch == '\n' && c->perf_i == 2))) {
            if (c->num < lo || c->num > hi) return false;
            c->perf_prod *= (int32_t)c->num;
            c->perf_i++;
            c->num = 0;
            c->ndig = 0;
            if (ch == ',') lit(c, " ", PH_PERFNUM);
            else c->ph = PH_PERF_END;
            return true;
        }
        if (!is_digit(ch) || (c->ndig == 0 && ch == '0') || c->ndig >= 4) return false;
        if (!perf_prefix_ok(c->num * 10 + (ch - '0'), c->ndig + 1, lo, hi)) return false;
        c->num = c->num * 10 + (ch - '0');
        c->ndig++;
        return true;
    }
    case PH_PERF_END:
        if (ch != '{') return false;
        lit(c, "\n", PH_LINE);
        return true;
    default:
        return false;
    }
}

/* A .shared/.local variable of `bytes` named c->id is declared. */
static void add_var(dec_state *s, dcore *c, int64_t bytes) {
    add_sym(s, c, SY_VAR, c->dtype, bytes, c->dspace);
    c->nvars++;
    if (c->dspace == PTX_SS_SHARED) { c->shared_bytes += (int32_t)((bytes + 15) & ~15); c->R |= 1u << RS_SHARED; }
    else { c->local_bytes += (int32_t)((bytes + 15) & ~15); c->R |= 1u << RS_LOCAL; }
    c->pend_term = false;
}

/* feed() in a declaration inside the body: .reg (type, name, <count>) and
 * .shared/.local variables (alignment, type, name, [count]). */
static bool feed_decl(dec_state *s, dcore *c, unsigned char ch) {
    switch (c->ph) {
    case PH_DECLKW: {
        int r = choice_feed(c, ch);
        if (r == -2) return false;
        if (r == 0) { c->ph = PH_REGTYPE; choice_start(c, REGTYPES, (1u << 13) - 1); }
        if (r == 1 || r == 2) { c->ph = PH_ALIGN; c->dspace = r == 1 ? PTX_SS_SHARED : PTX_SS_LOCAL; c->dext = false; choice_start(c, ALIGNS, 31); }
        if (r == 3) c->ph = PH_EOL;
        return true;
    }
    case PH_REGTYPE: {
        int r = choice_feed(c, ch);
        if (r == -2) return false;
        if (r >= 0) { c->dtype = dec_dg_regtypes[r]; c->ph = PH_REGNAME; c->idlen = 0; }
        return true;
    }
    case PH_REGNAME:
        if (named_here(s, c)) {   /* named or numbered, the name's bytes checked by named_prefix_ok */
            if (ch == ';') {
                if (!named_ok(s, c, c->id, c->idlen)) return false;
                add_reg(s, c, 0);
                c->ph = PH_EOL;
                return true;
            }
            if (ch == '<') {
                if (!numbered_ok(s, c, c->id, c->idlen)) return false;
                c->ph = PH_REGCOUNT;
                c->num = 0;
                c->ndig = 0;
                return true;
            }
            if (c->idlen >= REGNAME_MAX || !(c->idlen ? is_name1(ch) : is_alpha(ch))) return false;
            c->id[c->idlen] = (char)ch;
            if (is_digit(ch) && numbered_clash(s, c, c->id, c->idlen + 1u)) return false;   /* %r1 against %r<N> */
            c->idlen++;
            c->id[c->idlen] = 0;
            return named_prefix_ok(s, c);
        }
        if (c->idlen ? c->id[0] == 'S' : ch == 'S') {   /* nvcc's local-depot pointers, `.reg .b64 %SP;` / `%SPL;` */
            if (c->dtype != PTX_T_B64) return false;
            if (ch == ';') {
                if ((strcmp(c->id, "SP") && strcmp(c->id, "SPL")) || !named_ok(s, c, c->id, c->idlen)) return false;
                add_reg(s, c, 0);
                c->ph = PH_EOL;
                return true;
            }
            if (c->idlen >= 3 || ch != "SPL"[c->idlen]) return false;
            c->id[c->idlen++] = (char)ch;
            c->id[c->idlen] = 0;
            return named_ok(s, c, "SPL", 3) || (c->idlen <= 2 && named_ok(s, c, "SP", 2));   /* one is still free */
        }
        if (ch == '<') {
            char nm[24];
            nm[0] = '%';
            memcpy(nm + 1, c->id, c->idlen);
            if (!c->idlen || !reg_name_ok(s, c, nm, c->idlen + 1u)) return false;
            c->ph = PH_REGCOUNT;
            c->num = 0;
            c->ndig = 0;
            return true;
        }
        if (ch < 'a' || ch > 'z' || c->idlen >= 12) return false;
        c->id[c->idlen++] = (char)ch;
        c->id[c->idlen] = 0;
        if (c->idlen == 12) {
            char nm[24];
            nm[0] = '%';
            memcpy(nm + 1, c->id, c->idlen);
            return reg_name_ok(s, c, nm, c->idlen + 1u);
        }
        if (c->idlen == 11) {
            /* the only prefix the declarations can exhaust (at most MAX_REGDECL of them; a shorter one has
             * 703 or more completions): the name itself or one of its 26 extensions must still be free, or
             * the state would be dead (every name it can become already declared) */
            char nm[24];
            nm[0] = '%';
            memcpy(nm + 1, c->id, 11);
            if (reg_name_ok(s, c, nm, 12)) return true;
            for (char x = 'a'; x <= 'z'; x++) {
                nm[12] = x;
                if (reg_name_ok(s, c, nm, 13)) return true;
            }
            return false;
        }
        return true;
    case PH_REGCOUNT:
        if (ch == '>' && c->ndig) {
            add_reg(s, c, (int)c->num);
            lit(c, ";", PH_EOL);
            return true;
        }
        if (!is_digit(ch) || (c->ndig == 0 && ch == '0')) return false;
        if (c->num * 10 + (ch - '0') > s->o.max_regs_per_decl) return false;
        c->num = c->num * 10 + (ch - '0');
        c->ndig++;
        return true;
    case PH_ALIGN: {
        int r = choice_feed(c, ch);
        if (r == -2) return false;
        if (r >= 0) {
            c->dalign = (uint8_t)(1u << r);
            uint32_t live = 0;
            for (int i = 0; VTYPES[i]; i++)
                if (ptx_type_get(type_of_alt(VTYPES[i]))->bits / 8 <= c->dalign) live |= 1u << i;
            c->ph = PH_VTYPE;
            choice_start(c, VTYPES, live);
        }
        return true;
    }
    case PH_VTYPE: {
        int r = choice_feed(c, ch);
        if (r == -2) return false;
        if (r >= 0) {
            c->dtype = type_of_alt(VTYPES[r]);
            int left = (c->dspace == PTX_SS_SHARED ? SHARED_MAX - c->shared_bytes : LOCAL_MAX - c->local_bytes);
            if (ptx_type_get(c->dtype)->bits / 8 > left) return false;
            c->ph = PH_VNAME;
            id_start(s, c, all_syms(c));
        }
        return true;
    }
    case PH_VNAME:
        if (ch == '[' || ch == ';') {
            if (!id_fresh(s, c, true) || !sym_room(c, 1)) return false;
            if (c->dext) {   /* `name[];`: its size is the launch's; offsets up to what a launch gets without opting in */
                if (ch != '[') return false;
                add_sym(s, c, SY_VAR, c->dtype, SHARED_MAX, PTX_SS_SHARED);
                c->nvars++;
                c->dextern = true;
                c->R |= 1u << RS_SHARED;
                c->pend_term = false;
                lit(c, "];", PH_EOL);
                return true;
            }
            if (ch == ';') {   /* a scalar (nvcc's `.shared .align 4 .f32 carry_s;` of a __shared__ float) */
                int64_t bytes = ptx_type_get(c->dtype)->bits / 8;
                add_var(s, c, bytes);
                c->ph = PH_EOL;
                return true;
            }
            c->ph = PH_VCOUNT;
            c->num = 0;
            c->ndig = 0;
            return true;
        }
        return id_feed_fresh(s, c, ch, true);
    case PH_VCOUNT: {
        int eb = ptx_type_get(c->dtype)->bits / 8;
        int left = (c->dspace == PTX_SS_SHARED ? SHARED_MAX - c->shared_bytes : LOCAL_MAX - c->local_bytes);
        if (ch == ']' && c->ndig) {
            add_var(s, c, c->num * eb);
            lit(c, ";", PH_EOL);
            return true;
        }
        if (!is_digit(ch) || (c->ndig == 0 && ch == '0')) return false;
        if ((c->num * 10 + (ch - '0')) * eb + 15 > left) return false;
        c->num = c->num * 10 + (ch - '0');
        c->ndig++;
        return true;
    }
    default:
        return false;
    }
}

/* A comment's next byte under dec_opts.plan: the lines of [plo, phi) share the c->num bytes typed,
 * so those going on with ch are one range; '\n' ends the comment when the text is a whole line
 * (then the first of the range).  The caller does the rest of PH_CMT. */
static int plan_count(const dcore *c, int slot) { return c->pcnt[slot >> 1] >> (slot & 1) * 4 & 15; }

/* May plan line i head one more comment (dec_opts.plan_repeat_max)? */
static bool plan_avail(const dplan *p, const dcore *c, int i) { return p->slot[i] < 0 || plan_count(c, p->slot[i]) < p->cap; }

/* May a comment start: is some plan line still available? */
static bool plan_any(const dplan *p, const dcore *c) { return p->n && (p->nfree || c->pfull < p->ncapped); }

static bool plan_feed(const dplan *p, dcore *c, unsigned char ch) {
    int lo = c->plo, hi = c->phi, k = (int)c->num;
    if (ch == '\n') {
        if (!(lo < hi && p->len[lo] == k && plan_avail(p, c, lo))) return false;
        int sl = p->slot[lo];
        if (sl >= 0) {
            c->pcnt[sl >> 1] = (uint8_t)(c->pcnt[sl >> 1] + (1 << (sl & 1) * 4));
            if (plan_count(c, sl) == p->cap) c->pfull++;
        }
        return true;
    }
    while (lo < hi && (p->len[lo] <= k || (unsigned char)p->line[lo][k] < ch)) lo++;
    int e = lo;
    bool avail = false;   /* a line of the range can still be written in full */
    for (; e < hi && p->len[e] > k && (unsigned char)p->line[e][k] == ch; e++) avail = avail || plan_avail(p, c, e);
    if (!avail) return false;
    c->plo = (uint16_t)lo, c->phi = (uint16_t)e;
    return true;
}

static void plan_release(dplan *p) {
    if (!p || --p->refs > 0) return;
    for (int i = 0; i < p->n; i++) free(p->line[i]);
    free(p->line);
    free(p->len);
    free(p->slot);
    free(p);
}

typedef struct { char *line; bool straight; } plan_line;
static int plan_line_cmp(const void *a, const void *b) { return strcmp(((const plan_line *)a)->line, ((const plan_line *)b)->line); }

/* dec_opts.plan's comment lines (see dplan); NULL when it is out of memory. */
static dplan *plan_build(const char *plan, int comment_max, int repeat_max) {
    dplan *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->refs = 1;
    p->cap = repeat_max;
    bool *straight = NULL;
    int n = ptx_literate_plan_lines_ex(plan, strlen(plan), &p->line, &straight);
    p->len = malloc(sizeof *p->len * (size_t)(n ? n : 1));
    p->slot = malloc(sizeof *p->slot * (size_t)(n ? n : 1));
    plan_line *pl = malloc(sizeof *pl * (size_t)(n ? n : 1));
    if (!p->len || !p->slot || !pl) {
        ptx_literate_plan_lines_free(p->line, n);
        free(straight), free(pl), free(p->len), free(p->slot), free(p);
        return NULL;
    }
    int o = 0;
    for (int i = 0; i < n; i++) {
        char *l = p->line[i];
        size_t k = strlen(l);
        if (k > (size_t)comment_max) k = (size_t)comment_max, l[k] = 0;
        bool ok = o < PLAN_LINES_MAX;
        for (size_t j = 0; j < k && ok; j++) ok = l[j] >= 32 && l[j] <= 126;
        if (ok) pl[o++] = (plan_line){l, straight[i]};
        else free(l);
    }
    free(straight);
    if (o > 1) qsort(pl, (size_t)o, sizeof *pl, plan_line_cmp);
    p->n = 0;
    for (int i = 0; i < o; i++) {
        if (p->n && !strcmp(p->line[p->n - 1], pl[i].line)) {   /* a line written twice is capped only if both run straight */
            if (!pl[i].straight) p->slot[p->n - 1] = -1;
            free(pl[i].line);
            continue;
        }
        p->line[p->n] = pl[i].line;
        p->slot[p->n] = (int16_t)(pl[i].straight && repeat_max > 0 ? 0 : -1);
        p->len[p->n++] = (uint16_t)strlen(pl[i].line);
    }
    free(pl);
    for (int i = 0; i < p->n; i++) {   /* the capped lines' counters, in sorted order, PLAN_SLOTS at most */
        if (p->slot[i] >= 0 && p->ncapped < PLAN_SLOTS) p->slot[i] = (int16_t)p->ncapped++;
        else p->slot[i] = -1;
        if (p->slot[i] < 0) p->nfree++;
    }
    return p;
}

static bool feed(dec_state *s, dcore *c, unsigned char ch) {
    /* canonical PTX has no control bytes but tab and newline; a NUL would also
     * match the end of the C strings that literals and names are compared with */
    if (ch < 32 && ch != '\t' && ch != '\n') return false;
    /* this byte is part of the forced text (the caller's header and signature): the rules below that
     * shorten an ending kernel leave it alone, the last forced byte included */
    bool forced = forcing(s, c);
    if (forced) {
        if ((unsigned char)s->force[c->force_pos] != ch) return false;
        c->force_pos++;
    }
    switch (c->ph) {
    case PH_LIT:
        if ((unsigned char)c->lit[c->lit_pos] != ch) return false;
        if (c->lit[++c->lit_pos] == 0) {
            c->ph = c->lit_next;
            if (c->ph == PH_ENAME) id_start(s, c, all_syms(c));
            if (c->ph == PH_TOP) { c->live = 0; c->cpos = 0; c->top = true; }
            if (c->ph == PH_PTYPE) choice_start(c, PTYPES, 0xff);
            if (c->ph == PH_OPND) opnd_start(s, c);
        }
        return true;
    case PH_TOP: case PH_ENAME: case PH_PNAME: case PH_POPEN: case PH_PTYPE: case PH_PERF: case PH_PERFNUM: case PH_PERF_END:
        return feed_header(s, c, ch, forced);
    case PH_LINE:
        if (ending(s, c) && c->depth) {   /* close the open blocks first (no labels inside them) */
            if (ch != '\t') return false;
            c->ph = PH_INDENT;
            c->ntab = 1;
            return true;
        }
        if (ending(s, c)) {
            if (c->nowed) {
                if (!is_id0(ch)) return false;
                c->ph = PH_LABEL;
                id_start(s, c, owed_mask(s, c));
                return id_feed(s, c, ch) && sm_any(&c->idmask);
            }
            if (!c->last_term) {
                if (ch != '\t') return false;
                lit(c, "ret", PH_OPC);
                c->node = -1;
                c->guarded = false;
                return true;
            }
            if (ch != '}') return false;
            lit(c, "\n", PH_DONE);
            return true;
        }
        if (c->depth) {   /* a nested block: a statement at depth + 1 tabs, its '}' at depth; no labels */
            if (ch != '\t') return false;
            c->ph = PH_INDENT;
            c->ntab = 1;
            return true;
        }
        if (ch == '\t') { c->ph = PH_STMT; return true; }
        if (ch == '}') {
            if (c->nowed || !c->last_term) return false;
            lit(c, "\n", PH_DONE);
            return true;
        }
        if (is_id0(ch) && (sym_room(c, 1) || c->nowed)) {
            c->ph = PH_LABEL;
            id_start(s, c, all_syms(c));
            if (!id_feed(s, c, ch)) return false;
            return sym_room(c, 1) || sm_meet(&c->idmask, &c->owed);
        }
        return false;
    case PH_LABEL: {
        /* a fresh name (room permitting, not in ending mode) or an owed reference */
        bool fresh_ok = !ending(s, c) && sym_room(c, 1);
        if (ch == ':') {
            symmask owed = owed_mask(s, c);
            int y = id_exact(s, c, owed);
            if (y < 0 && !(fresh_ok && id_fresh(s, c, false))) return false;
            /* an owed label is paid in place: its reference's entry is the label (owed tells the two apart) */
            if (y >= 0) { c->nowed--; sm_clear(&c->owed, y); c->end_owed -= s->syms[y].len + 2u; }
            else add_sym(s, c, SY_LDEF, PTX_T_NONE, 0, 0);
            c->pend_term = false;
            c->ph = PH_EOL;
            return true;
        }
        if (!id_feed(s, c, ch)) return false;
        if (!fresh_ok) return sm_meet(&c->idmask, &c->owed);
        if (c->idlen == NAME_MAX) return id_fresh(s, c, false) || id_exact(s, c, owed_mask(s, c)) >= 0;
        return true;
    }
    case PH_INDENT:
        if (c->ntab < c->depth) {
            if (ch != '\t') return false;
            c->ntab++;
            return true;
        }
        if (ch == '}') {
            block_close(s, c);
            c->pend_term = false;
            c->ph = PH_EOL;
            return true;
        }
        if (ch != '\t' || ending(s, c)) return false;
        c->ph = PH_STMT;
        return true;
    case PH_STMT:
        c->guarded = false;
        if (ch == '{') {   /* a nested block: its declarations are its own (docs/LITERATE.md); numbered, nvcc's
                              `{ cvt.f32.bf16 %f1, %rs1; }` of the fp16/bf16 helpers, which declare nothing */
            if (ending(s, c) || c->depth >= BLOCK_MAX) return false;
            block_open(c);
            c->pend_term = false;
            c->ph = PH_EOL;
            return true;
        }
        if (ch == '/') {
            if (s->o.comment_max <= 0 || ending(s, c) || (s->plan && !plan_any(s->plan, c))) return false;
            c->ph = PH_CMT1;
            return true;
        }
        if (ch == '.') {
            uint32_t live = 0;
            if (c->nregs < (named_here(s, c) ? MAX_REGDECL : NUMBERED_MAX)) live |= 1;
            if (c->nvars < MAX_VARS && sym_room(c, 1) && SHARED_MAX - c->shared_bytes >= 32) live |= 2;
            if (c->nvars < MAX_VARS && sym_room(c, 1) && LOCAL_MAX - c->local_bytes >= 32) live |= 4;
            /* a nested block declares registers only (a variable there would be its own too) */
            if (c->depth) live &= 1;
            else if (!ending(s, c)) live |= 8;   /* `.pragma "nounroll";`, not while closing the kernel */
            if (!live) return false;
            c->ph = PH_DECLKW;
            choice_start(c, DECLKW, live);
            return true;
        }
        if (ch == '@') {
            if (!(c->R & 1)) return false;
            c->ph = PH_GUARD;
            c->guarded = true;
            c->sub = 0;
            return true;
        }
        c->ph = PH_OPC;
        c->node = 0;
        /* fallthrough */
    case PH_OPC: {
        if (c->node < 0) c->node = dec_dg_child(G(s), 0, 'r'), c->node = dec_dg_child(G(s), c->node, 'e'),
                         c->node = dec_dg_child(G(s), c->node, 't');   /* forced "ret" in ending mode */
        if (!c->alive || c->alive_R != c->R) { c->alive = dec_dg_alive_for(G(s), c->R); c->alive_R = c->R; }
        const uint8_t *alive = c->alive;
        if (ch == ' ' || ch == ';') {
            if (!(alive[c->node] & 2)) return false;
            if (ending(s, c) && ch != ';') return false;
            const dg_leaf *lf = &G(s)->leaves.v[G(s)->nodes.v[c->node].leaf];
            uint8_t m = 0;
            for (int k = 0; k < lf->ncand; k++) {
                const dg_cand *cd = &G(s)->cands.v[lf->cand0 + k];
                if (dec_dg_cand_ok(cd, c->R) && ((cd->nops > 0) == (ch == ' '))) m |= (uint8_t)(1u << k);
            }
            if (!m) return false;
            c->leaf = G(s)->nodes.v[c->node].leaf;
            c->candmask = m;
            c->opi = 0;
            c->npw = 0;
            if (ch == ';') {
                const dg_cand *cd = cand(s, c, __builtin_ctz(m));
                c->pend_term = cd->terminator && !c->guarded;
                c->ph = PH_EOL;
            } else {
                c->ph = PH_OPND;
                opnd_start(s, c);
            }
            return true;
        }
        if (ending(s, c)) return false;
        int k = dec_dg_child(G(s), c->node, (char)ch);
        if (k < 0 || !(alive[k] & 1)) return false;
        c->node = k;
        return true;
    }
    case PH_GUARD:
        if (c->sub == 0) {   /* '!' or '%' */
            if (ch == '!') { c->sub = 1; return true; }
            if (ch != '%') return false;
        }
        if (c->sub <= 1) {
            if (ch != '%') return false;
            rm_start(s, c, type_bit(PTX_T_PRED), -1, 0, type_bit(PTX_T_PRED));   /* a guard reads its predicate */
            c->sub = 2;
            return true;
        }
        if (ch == ' ') {
            if (!rm_done_reg(c)) return false;
            c->ph = PH_OPC;
            c->node = 0;
            return true;
        }
        return rm_feed(s, c, ch);
    case PH_OPND:
        if ((ch == ',' || ch == ';') && c->sub != O_VEC) {
            if (!opnd_end(s, c, ch == ';')) return false;
            if (ch == ';') {
                const dg_cand *cd = cand(s, c, __builtin_ctz(c->candmask));
                if (cd->op0_def)   /* the instruction completes: its destination's registers are written */
                    for (int j = 0; j < c->npw; j++) log_write(s, c, c->pwd[j], c->pwi[j]);
                c->pend_term = cd->terminator && !c->guarded;
                c->ph = PH_EOL;
                return true;
            }
            c->opi++;
            lit(c, " ", PH_OPND);
            return true;
        }
        return opnd_feed(s, c, ch);
    case PH_CMT1:
        if (ch != '/') return false;
        c->ph = PH_CMT;
        c->num = 0;
        if (s->plan) c->plo = 0, c->phi = (uint16_t)s->plan->n;
        return true;
    case PH_CMT:
        if (s->plan && !plan_feed(s->plan, c, ch)) return false;
        if (ch == '\n') {
            if (!c->num) return false;
            c->nstmts++;   /* a comment is a statement for max_statements: every walk still ends */
            line_start(c);
            return true;
        }
        if (ch < 32 || ch > 126 || c->num >= s->o.comment_max) return false;
        c->num++;
        return true;
    case PH_EOL:
        if (ch != '\n') return false;
        if (c->top) { lit(c, "\n", PH_TOP); return true; }
        c->nstmts++;
        c->last_term = c->pend_term;
        c->pend_term = false;
        c->guarded = false;
        line_start(c);
        return true;
    case PH_DECLKW: case PH_REGTYPE: case PH_REGNAME: case PH_REGCOUNT: case PH_ALIGN: case PH_VTYPE: case PH_VNAME: case PH_VCOUNT:
        return feed_decl(s, c, ch);
    case PH_DONE:
    default:
        return false;
    }
}

/* ---- public API -------------------------------------------------------------------- */
static bool feed_bytes(dec_state *s, dcore *c, const char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!feed(s, c, (unsigned char)p[i])) return false;
    return true;
}

pg_status dec_new(const dec_vocab *v, const dec_opts *o, dec_state **out, pg_diag_sink *diag) {
    *out = NULL;
    dec_state *s = calloc(1, sizeof *s);
    if (!s) return PG_ERR_NOMEM;
    s->v = v;
    if (o) s->o = *o;
    if (s->o.max_statements <= 0) s->o.max_statements = DEFAULT_MAX_STATEMENTS;
    if (s->o.max_regs_per_decl <= 0) s->o.max_regs_per_decl = DEFAULT_MAX_REGS_PER_DECL;
    if (s->o.plan_repeat_max < 0 || s->o.plan_repeat_max > 15) {   /* 4-bit counters (dcore.pcnt) */
        pg_diag_emit(diag, PG_E_GEN, NULL, 0, 0, "dec_opts.plan_repeat_max %d is outside 0..15", s->o.plan_repeat_max);
        free(s);
        return PG_ERR_USAGE;
    }
    pg_status st = dec_dg_build(s->o.arch, &s->g, diag);
    if (st != PG_OK) { free(s); return st; }
    pg_buf f = {0};
    const char *h = s->g->header;
    if (s->o.signature && *s->o.signature) {
        pg_buf_puts(&f, h);
        pg_buf_puts(&f, s->o.signature);
        pg_buf_putc(&f, '\n');
    } else if (s->o.entry_name && *s->o.entry_name) {   /* the name only: the model writes the parameters */
        pg_buf_printf(&f, "%s.visible .entry %s(\n", h, s->o.entry_name);   /* "(\n": a kernel has parameters */
    } else {
        pg_buf_puts(&f, h);
    }
    s->force = f.data;
    s->force_len = (uint32_t)f.len;
    /* an entry forced after the header: the forcing pauses there for module-scope declarations (forcing()) */
    size_t hl = strlen(h);
    s->force_gap = f.len > hl && !strncmp(f.data + hl, ".visible .entry ", ENTRY_KW_LEN) ? (uint32_t)hl : s->force_len;
    /* its names: the entry's (after ".entry ") and each parameter's (after ".param .T ") */
    for (const char *p = s->force + s->force_gap; s->force_gap < s->force_len && *p && s->nresv < 1 + MAX_PARAMS;) {
        const char *e = strstr(p, ".entry "), *q = strstr(p, ".param .");
        const char *at = e && (!q || e < q) ? e + 7 : q ? strchr(q + 8, ' ') : NULL;
        if (!at) break;
        if (*at == ' ') at++;
        size_t k = 0;
        while (k < NAME_MAX && (is_id1((unsigned char)at[k]) || at[k] == '$')) k++;
        memcpy(s->resv[s->nresv], at, k);
        s->resv[s->nresv++][k] = 0;
        p = at + k;
    }
    if (s->o.plan && *s->o.plan && s->o.comment_max > 0 && !(s->plan = plan_build(s->o.plan, s->o.comment_max, s->o.plan_repeat_max))) {
        dec_dg_release(s->g);
        free(s->force);
        free(s);
        return PG_ERR_NOMEM;
    }
    s->o.arch = NULL;   /* not owned */
    s->o.signature = NULL;
    s->o.entry_name = NULL;
    s->o.plan = NULL;
    lit(&s->c, h, PH_TOP);
    s->loop_label[0] = 0;
    mask_init(s);
    /* the forced text must be acceptable (a signature outside the subset is a usage error) */
    dcore c = s->c;
    if (!feed_bytes(s, &c, s->force, s->force_len)) {
        /* the likeliest cause first: a name longer than the constraint's NAME_MAX */
        for (uint32_t i = 0, j; i < s->force_len; i = j + 1) {
            for (j = i; j < s->force_len && (is_id1((unsigned char)s->force[j]) || s->force[j] == '$'); j++) {}
            if (j - i > NAME_MAX) {
                pg_diag_emit(diag, PG_E_DEAD_STATE, NULL, 0, 0,
                             "the name '%.*s' in the signature is %u bytes; the constraint takes names of at most %d "
                             "(rename the kernel or the parameter)", (int)(j - i), s->force + i, j - i, (int)NAME_MAX);
                dec_free(s);
                return PG_ERR_USAGE;
            }
        }
        pg_diag_emit(diag, PG_E_DEAD_STATE, NULL, 0, 0,
                     "the entry signature or name is not in the canonical form the constraint accepts: %s", s->force);
        dec_free(s);
        return PG_ERR_USAGE;
    }
    *out = s;
    return PG_OK;
}

static void wlog_free(dec_state *s) {
    free(s->wlog);
    for (int d = 0; d < MAX_REGDECL; d++) free(s->wfirst[d]);
}

/* Give dst, a byte copy of src whose write log and tables are dst's own buffers (wlog/wlog_cap,
 * wfirst/wfcap), src's content, growing them where src's are larger; dst's entries past src's are
 * stale but harmless (every entry is validated against the log).  On a failed allocation the rule
 * is off in dst (wfail). */
static void wlog_fit(dec_state *dst, const dec_state *src) {
    if (dst->wfail) return;
    if (dst->wlog_cap < src->c.nwlog) {
        dwrite *w = realloc(dst->wlog, src->wlog_cap * sizeof *w);
        if (!w) { dst->wfail = true; return; }
        dst->wlog = w, dst->wlog_cap = src->wlog_cap;
    }
    if (src->c.nwlog) memcpy(dst->wlog, src->wlog, src->c.nwlog * sizeof *dst->wlog);   /* past the length: scratch */
    for (int d = 0; d < MAX_REGDECL; d++) {
        if (!src->wfcap[d]) continue;
        if (dst->wfcap[d] < src->wfcap[d]) {
            uint32_t *f = realloc(dst->wfirst[d], (size_t)src->wfcap[d] * sizeof *f);
            if (!f) { dst->wfail = true; return; }
            dst->wfirst[d] = f, dst->wfcap[d] = src->wfcap[d];
        }
        memcpy(dst->wfirst[d], src->wfirst[d], (size_t)src->wfcap[d] * sizeof **dst->wfirst);
    }
}

void dec_free(dec_state *s) {
    if (!s) return;
    wlog_free(s);
    dec_dg_release(s->g);
    plan_release(s->plan);
    free(s->force);
    free(s->scratch);
    pg_buf_free(&s->text);
    free(s);
}

pg_status dec_clone(const dec_state *s, dec_state **out) {
    dec_state *d = calloc(1, sizeof *d);
    if (!d) return PG_ERR_NOMEM;
    *d = *s;
    d->g->refs++;
    if (d->plan) d->plan->refs++;
    d->force = malloc(s->force_len + 1u);
    memcpy(d->force, s->force, s->force_len + 1u);
    d->text = (pg_buf){0};
    d->scratch = NULL;
    d->wlog = NULL;
    d->wlog_cap = 0;
    memset(d->wfirst, 0, sizeof d->wfirst);
    memset(d->wfcap, 0, sizeof d->wfcap);
    wlog_fit(d, s);
    pg_buf_putn(&d->text, s->text.data ? s->text.data : "", s->text.len);
    *out = d;
    return PG_OK;
}

void dec_copy(dec_state *dst, const dec_state *src) {
    /* same constraint (vocabulary, options, forced text): copy the state */
    if (dst == src) return;
    pg_buf text = dst->text;
    if (dst->g != src->g) {
        dec_dg_release(dst->g);
        src->g->refs++;
    }
    if (dst->plan != src->plan) {
        plan_release(dst->plan);
        if (src->plan) src->plan->refs++;
    }
    if (dst->force_len < src->force_len || !dst->force) {
        free(dst->force);
        dst->force = malloc(src->force_len + 1u);
    }
    char *force = dst->force;
    uint32_t *scratch = dst->v == src->v ? dst->scratch : NULL;
    if (!scratch) free(dst->scratch);
    memcpy(force, src->force, src->force_len + 1u);
    /* dst keeps its write-log buffers (the drafts copy the state every token) */
    dwrite *wl = dst->wlog;
    uint32_t wlc = dst->wlog_cap;
    uint32_t *wf[MAX_REGDECL];
    int32_t wfc[MAX_REGDECL];
    memcpy(wf, dst->wfirst, sizeof wf);
    memcpy(wfc, dst->wfcap, sizeof wfc);
    memcpy(dst, src, sizeof *dst);
    dst->wlog = wl;
    dst->wlog_cap = wlc;
    memcpy(dst->wfirst, wf, sizeof wf);
    memcpy(dst->wfcap, wfc, sizeof wfc);
    wlog_fit(dst, src);
    dst->force = force;
    dst->scratch = scratch;
    text.len = 0;
    if (text.data) text.data[0] = 0;
    pg_buf_putn(&text, src->text.data ? src->text.data : "", src->text.len);
    dst->text = text;
}

bool dec_done(const dec_state *s) { return s->c.ph == PH_DONE; }

size_t dec_forced_left(const dec_state *s) { return s->c.force_pos < s->force_len ? s->force_len - s->c.force_pos : 0; }

/* gen asks at every token: a running count (end_owed) instead of a walk over the symbols and blocks */
size_t dec_end_bytes(const dec_state *s) { return 8u + s->c.end_owed; }   /* + "\tret;\n}\n" */

size_t dec_end_bytes_recount(const dec_state *s) {
    const dcore *c = &s->c;
    size_t n = 8;
    for (int i = 0; i < c->nsyms; i++)
        if (sm_has(&c->owed, i)) n += (size_t)s->syms[i].len + 2;   /* "NAME:\n" */
    for (int d = c->depth; d > 0; d--) n += (size_t)d + 2;           /* d tabs, "}\n" */
    return n;
}

bool dec_forcing(const dec_state *s) {
    const dcore *c = &s->c;
    if (s->ended) return false;
    if (forcing(s, c)) return true;
    /* `.v` typed at the gap: only the entry's keyword can follow, then its forced signature */
    return c->force_pos == s->force_gap && s->force_gap < s->force_len && c->ph == PH_TOP && c->cpos && c->live == 1;
}

const char *dec_text(const dec_state *s, size_t *len) {
    if (len) *len = s->text.len;
    return s->text.data ? s->text.data : "";
}

static bool accepts_bytes(const dec_state *s, const char *p, size_t n) {
    dcore c = s->c;
    return feed_bytes((dec_state *)s, &c, p, n);   /* writes only past the counts (scratch) */
}

bool dec_accepts(const dec_state *s, int32_t tok) {
    const dec_vocab *v = s->v;
    if (tok < 0 || tok >= v->n || s->ended) return false;
    if (v->special[tok]) return tok == v->end_id && dec_done(s);
    if (dec_done(s) || !v->lens[tok]) return false;
    return accepts_bytes(s, v->bytes[tok], v->lens[tok]);
}

/* Depth-first walk of the vocabulary trie with a state copy per node: the
 * reference for dec_mask (dec_mask_reference). */
static int mask_walk(dec_state *s, const dec_vocab *v, int node, const dcore *c, uint32_t *bits) {
    int n = 0;
    for (int k = v->nodes.v[node].first_child; k >= 0; k = v->nodes.v[k].next_sibling) {
        const dv_node *nd = &v->nodes.v[k];
        dcore c2 = *c;
        if (!feed(s, &c2, nd->c)) continue;
        for (int t = nd->tok; t >= 0; t = v->dup_next[t]) {
            bits[t >> 5] |= 1u << (t & 31);
            n++;
        }
        if (nd->first_child >= 0) n += mask_walk(s, v, k, &c2, bits);
    }
    return n;
}

/* Clears the mask and settles the ended and done states (the count), else -1: walk the trie. */
static int mask_settled(const dec_state *s, uint32_t *bits) {
    const dec_vocab *v = s->v;
    memset(bits, 0, sizeof(uint32_t) * (size_t)v->words);
    if (s->ended) return 0;
    if (dec_done(s)) {
        if (v->end_id < 0) return 0;
        bits[v->end_id >> 5] |= 1u << (v->end_id & 31);
        return 1;
    }
    return -1;
}

int dec_mask_reference(const dec_state *s, uint32_t *bits) {
    int n = mask_settled(s, bits);
    return n >= 0 ? n : mask_walk((dec_state *)s, s->v, 0, &s->c, bits);
}

/* ---- the mask's fast path -------------------------------------------------------------
 * Most of a plain walk's time goes to names (labels, params, variables,
 * branch targets), where thousands of tokens made only of name bytes are
 * allowed.  Inside a name the recognizer takes any run of such bytes up to a
 * length budget, so those "pure" tokens need no feeding: from the trie root
 * they are one precomputed bitset (dv_class), deeper down a walk that only
 * sets bits.  Only the nodes on the way to a mixed token whose first other
 * byte could end the name (':' after a label...) are fed, to get the state
 * there. */
typedef struct {
    int cls;          /* DV_ID, DV_LOWER or DV_NAME */
    int budget;       /* every run of 1..budget class bytes is accepted, a longer one than maxrun rejected */
    bool exact;       /* a run of budget + 1 .. maxrun bytes must be fed (a full-length name may clash); else it is accepted */
    int maxrun;       /* the longest run a name may still take: budget + 1, or more when exact (named registers) */
    bool id0;         /* the first byte must be dv_first_ok */
    uint64_t term;    /* dv_term_bit of the other bytes that may follow a class byte */
} crun;

/* A full-length name (NAME_MAX bytes) could be taken: a symbol in `mask` or an opcode is that long. */
static bool long_name(const dec_state *s, const dcore *c, symmask mask) {
    if (s->opcode_max) return true;
    if (c->force_pos == s->force_gap)   /* the forced signature's names are taken too (id_reserved) */
        for (int i = 0; i < s->nresv; i++)
            if (strlen(s->resv[i]) == NAME_MAX) return true;
    symmask all = all_syms(c), m = sm_and(&mask, &all);
    int i;
    SM_EACH(m, i)
        if (s->syms[i].len == NAME_MAX) return true;
    return false;
}

/* Does the state take a free run of name bytes (see feed for each phase)? */
static bool free_run(const dec_state *s, const dcore *c, crun *r) {
    if (forcing(s, c)) return false;
    r->cls = DV_ID;
    switch (c->ph) {
    case PH_LINE:   /* a label starts: PH_LABEL after its first byte (never inside a nested block) */
        if (ending(s, c) || !sym_room(c, 1) || c->depth) return false;
        r->budget = NAME_MAX - 1;
        r->exact = long_name(s, c, all_syms(c));
        r->maxrun = r->budget + 1;
        r->id0 = true;
        r->term = dv_term_bit(':');
        return true;
    case PH_LABEL:
        if (ending(s, c) || !sym_room(c, 1)) return false;
        r->term = dv_term_bit(':');
        break;
    case PH_ENAME: r->term = dv_term_bit('('); break;
    case PH_PNAME: r->term = dv_term_bit(',') | dv_term_bit('\n'); break;
    case PH_VNAME: r->term = dv_term_bit('[') | dv_term_bit(';'); break;
    case PH_OPND: {   /* a branch target: any fresh label fits while there is room */
        if ((c->sub != O_IDENT && c->sub != O_START) || !sym_room(c, 1)) return false;
        bool label = false;
        for (int k = 0; k < DG_MAX_CANDS; k++)
            if ((c->cmask >> k & 1) && (cslot(s, c, k)->kinds & SK_LABEL)) label = true;
        if (!label) return false;
        r->term = dv_term_bit(',') | dv_term_bit(';');
        if (c->sub == O_START) {   /* the operand has not started: a name starting with dv_is_id0 (O_IDENT after one byte) */
            r->budget = NAME_MAX - 1;
            r->exact = long_name(s, c, all_syms(c));
            r->maxrun = r->budget + 1;
            r->id0 = true;
            return true;
        }
        break;
    }
    case PH_REGNAME: {   /* [a-z]{1,12}, checked against the others at 12 and at '<' (and at 11, see feed) */
        if (named_here(s, c)) {
            /* a named register: [A-Za-z][A-Za-z0-9_]*, every prefix of up to REGNAME_MAX - 2 bytes taken
             * (named_prefix_ok), the last two lengths fed (their completions are checked one by one).  A
             * numbered declaration refuses a digit after its prefix (numbered_clash): then byte by byte. */
            if (c->idlen + 3 > REGNAME_MAX) return false;
            for (int i = 0; i < c->nregs; i++)
                if (s->regs[i].count) return false;
            r->cls = DV_NAME;
            r->budget = REGNAME_MAX - 2 - c->idlen;
            r->exact = true;
            r->maxrun = REGNAME_MAX - c->idlen;
            r->id0 = c->idlen == 0;
            r->term = dv_term_bit(';') | dv_term_bit('<');
            return true;
        }
        if (c->idlen >= 12 || (c->idlen && c->id[0] == 'S')) return false;   /* %SP/%SPL: byte by byte */
        r->cls = DV_LOWER;
        r->budget = 12 - 1 - c->idlen;
        r->exact = s->sreg_lower12;
        for (int i = 0; i < c->nregs; i++) {
            if (s->regs[i].len == 13) r->exact = true;
            if (s->regs[i].len == 12) return false;   /* an 11-letter name may exhaust its prefix (feed's rule): byte by byte */
        }
        r->maxrun = r->budget + 1;
        r->id0 = false;
        r->term = dv_term_bit('<');
        return true;
    }
    default:
        return false;
    }
    if (c->idlen >= NAME_MAX) return false;
    r->budget = NAME_MAX - 1 - c->idlen;
    r->exact = long_name(s, c, c->idmask);
    r->maxrun = r->budget + 1;
    r->id0 = c->idlen == 0;
    return true;
}

/* ---- the next byte --------------------------------------------------------------------
 * A byte set holding every byte feed() may accept next in state c (more is
 * harmless, less would be a bug the reference check finds): the walk skips
 * the other children of a node without copying the state for them.  At the
 * trie root that is most of its 256 children.  No byte >= 128 is ever
 * accepted (the language is ASCII). */
static void cs_add(uint64_t m[2], int ch) { m[ch >> 6 & 1] |= 1ull << (ch & 63); }
static void cs_or(uint64_t m[2], const uint64_t o[2]) { m[0] |= o[0]; m[1] |= o[1]; }
static void cs_str(uint64_t m[2], const char *p) {
    for (; *p; p++) cs_add(m, (unsigned char)*p & 127);
}

/* The fast paths' per-state constants (dec_new). */
static void mask_init(dec_state *s) {
    for (int i = 0; i < isa_form_count(); i++)
        if (strlen(isa_form_get(i)->opcode) == NAME_MAX) s->opcode_max = true;
    for (int q = 0; q < isa_sreg_count(); q++) {
        const char *sn = isa_sreg_get(q)->name;
        int k = 1;
        while (k <= 12 && sn[k] >= 'a' && sn[k] <= 'z') k++;
        if (k > 12) s->sreg_lower12 = true;
    }
    for (int ch = 0; ch < 128; ch++) {
        uint64_t *cs = &s->cs[0][0];
        bool in[CS_N] = {
            ch >= 32 ? ch < 127 : ch == '\t' || ch == '\n', is_id0(ch), is_id1(ch), is_digit(ch),
            ch >= 'a' && ch <= 'z', hexu(ch), is_id1(ch) && ch != '$',   /* CS_REG: named registers too */
        };
        for (int k = 0; k < CS_N; k++)
            if (in[k]) cs_add(cs + 2 * k, ch);
    }
    for (int q = 0; q < G(s)->nsregs; q++) cs_str(s->cs[CS_REG], G(s)->sreg_names[q] + 1);
}

static void cs_choice(uint64_t m[2], const dcore *c) {
    for (int i = 0; c->alts[i]; i++)
        if (c->live >> i & 1) cs_add(m, (unsigned char)c->alts[i][c->cpos] & 127);
}

static void cs_opcode(const dec_state *s, uint64_t m[2], int node) {
    for (int k = G(s)->nodes.v[node].first_child; k >= 0; k = G(s)->nodes.v[k].next_sibling)
        cs_add(m, (unsigned char)G(s)->nodes.v[k].c & 127);
    cs_str(m, " ;");
}

static void next_bytes(const dec_state *s, const dcore *c, uint64_t m[2]) {
    const uint64_t(*cs)[2] = s->cs;
    m[0] = m[1] = 0;
    if (forcing(s, c)) { cs_add(m, (unsigned char)s->force[c->force_pos] & 127); return; }
    switch (c->ph) {
    case PH_LIT: cs_add(m, (unsigned char)c->lit[c->lit_pos] & 127); return;
    case PH_EOL: cs_add(m, '\n'); return;
    case PH_DONE: return;
    case PH_TOP:
        if (c->cpos == 0 && c->live == 0) cs_add(m, '.');
        else cs_choice(m, c);
        return;
    case PH_PTYPE: case PH_DECLKW: case PH_REGTYPE: case PH_ALIGN: case PH_VTYPE:
        cs_choice(m, c);
        return;
    case PH_ENAME: cs_or(m, cs[CS_ID1]); cs_add(m, '('); return;
    case PH_PNAME: cs_or(m, cs[CS_ID1]); cs_str(m, ",\n"); return;
    case PH_VNAME: cs_or(m, cs[CS_ID1]); cs_str(m, "[;"); return;
    case PH_LABEL: cs_or(m, cs[CS_ID1]); cs_add(m, ':'); return;
    case PH_POPEN: cs_str(m, ")\n"); return;
    case PH_PERF: cs_str(m, "{."); return;
    case PH_PERF_END: cs_add(m, '{'); return;
    case PH_PERFNUM:
        if (c->perf_i == 0xff) cs_choice(m, c);
        else { cs_or(m, cs[CS_DIGIT]); cs_str(m, ",\n"); }
        return;
    case PH_LINE:
        if (ending(s, c)) break;
        cs_or(m, cs[CS_ID0]);
        cs_str(m, "\t}");
        return;
    case PH_INDENT: cs_str(m, "\t}"); return;
    case PH_STMT:
        cs_str(m, ".@{");
        if (s->o.comment_max > 0 && !ending(s, c) && !(s->plan && !plan_any(s->plan, c))) cs_add(m, '/');
        cs_opcode(s, m, 0);
        return;
    case PH_CMT1: cs_add(m, '/'); return;
    case PH_CMT:
        if (s->plan) {   /* the next byte of each plan line going on from here, '\n' after a whole one */
            for (int i = c->plo; i < c->phi; i++)
                if (!plan_avail(s->plan, c, i)) continue;
                else if (s->plan->len[i] > c->num) cs_add(m, (unsigned char)s->plan->line[i][c->num]);
                else if (c->num) cs_add(m, '\n');
            return;
        }
        if (c->num < s->o.comment_max) { cs_or(m, cs[CS_ANY]); m[0] &= ~(1ull << '\t'); m[0] &= ~(1ull << '\n'); }
        if (c->num) cs_add(m, '\n');
        return;
    case PH_OPC:
        if (c->node < 0) break;
        cs_opcode(s, m, c->node);
        return;
    case PH_GUARD:
        if (c->sub == 0) cs_str(m, "!%");
        else if (c->sub == 1) cs_add(m, '%');
        else { cs_or(m, cs[CS_REG]); cs_add(m, ' '); }
        return;
    case PH_REGNAME:
        cs_or(m, cs[named_here(s, c) ? CS_ID1 : CS_LOWER]);
        cs_str(m, named_here(s, c) ? "<;" : "<SPL;");   /* numbered: nvcc's %SP and %SPL too */
        return;
    case PH_REGCOUNT: cs_or(m, cs[CS_DIGIT]); cs_add(m, '>'); return;
    case PH_VCOUNT: cs_or(m, cs[CS_DIGIT]); cs_add(m, ']'); return;
    case PH_OPND:
        if (c->sub != O_VEC) cs_str(m, ",;");
        switch (c->sub) {
        case O_START: cs_or(m, cs[CS_DIGIT]); cs_or(m, cs[CS_ID0]); cs_str(m, "%!-[{"); return;
        case O_REG: cs_or(m, cs[CS_REG]); cs_add(m, '|'); return;
        case O_NEG:
        case O_PAIR:
            if (c->rm.n == 0xff) cs_add(m, '%');
            else cs_or(m, cs[CS_REG]);
            return;
        case O_INT: cs_or(m, cs[CS_DIGIT]); cs_str(m, "fd"); return;
        case O_FLT: cs_or(m, cs[CS_HEX]); return;
        case O_IDENT: cs_or(m, cs[CS_ID1]); return;
        case O_DONE: return;
        case O_VEC:
            if (c->vsep == 1) cs_add(m, ' ');
            else if (c->vsep == 2) { cs_str(m, "%-"); cs_or(m, cs[CS_DIGIT]); }
            else if (c->vsep == 3) { cs_or(m, cs[CS_DIGIT]); cs_str(m, ",}"); }
            else { cs_or(m, cs[CS_REG]); cs_str(m, ",}"); }
            return;
        case O_ADDR:
            switch (c->asub) {
            case A_BASE: cs_or(m, cs[CS_ID0]); cs_add(m, '%'); return;
            case A_REG: cs_or(m, cs[CS_REG]); cs_str(m, "+]"); return;
            case A_SYM: cs_or(m, cs[CS_ID1]); cs_str(m, "+]"); return;
            case A_PLUS: cs_str(m, "-123456789"); return;
            case A_OFF: cs_or(m, cs[CS_DIGIT]); cs_add(m, ']'); return;
            default: return;
            }
        }
        break;
    }
    cs_or(m, cs[CS_ANY]);
}

/* Where the walk puts allowed tokens: always a bitset; for dec_allowed also
 * the list of ids set, and the walk stops once there are more than max. */
typedef struct {
    uint32_t *bits;
    int32_t *ids;       /* NULL: dec_mask (no list, no limit) */
    int n, max;
    bool over;          /* dec_allowed: more than max allowed, stop */
} msink;

static void set_tok(const dec_vocab *v, int t, msink *k) {
    for (; t >= 0; t = v->dup_next[t]) {
        uint32_t b = 1u << (t & 31);
        if (k->ids) {
            if (k->bits[t >> 5] & b) continue;
            if (k->n == k->max) { k->over = true; return; }
            k->ids[k->n++] = t;
        }
        k->bits[t >> 5] |= b;
    }
}

static void walk(dec_state *s, const dec_vocab *v, int node, const dcore *c, msink *out);

/* Feed child k of a node in state c, the plain way. */
static void feed_node(dec_state *s, const dec_vocab *v, int k, const dcore *c, msink *out) {
    const dv_node *nd = &v->nodes.v[k];
    dcore c2 = *c;
    if (out->over || !feed(s, &c2, nd->c)) return;
    set_tok(v, nd->tok, out);
    if (nd->first_child >= 0) walk(s, v, k, &c2, out);
}

/* Node k, d class bytes into the run r.  `parent` is the state at k's parent
 * (NULL when that was not fed: then neither is k, see `fed`); `covered`: the
 * pure tokens here are in the bitset already. */
static void run_node(dec_state *s, const dec_vocab *v, int k, int d, const dcore *parent, const crun *r, bool covered,
                     msink *out) {
    if (d > r->maxrun || out->over) return;   /* the name would be too long; or dec_allowed gave up */
    const dv_class *cl = &v->cls[r->cls];
    const dv_node *nd = &v->nodes.v[k];
    /* feed k only on the way to a byte that may end the run, or to a
     * full-length name to check; if a child needs it so does k */
    bool fed = (cl->term[k] & r->term) || (r->exact && cl->reach[k] >= 0 && d + cl->reach[k] >= r->budget + 1);
    if (!fed) {
        if (covered) return;
        if (d <= r->budget || (d == r->budget + 1 && !r->exact)) set_tok(v, nd->tok, out);
        for (int j = nd->first_child; j >= 0; j = v->nodes.v[j].next_sibling)
            if (dv_in_class(r->cls, v->nodes.v[j].c)) run_node(s, v, j, d + 1, NULL, r, false, out);
        return;
    }
    dcore c2 = *parent;
    if (!feed(s, &c2, nd->c)) return;
    set_tok(v, nd->tok, out);
    for (int j = nd->first_child; j >= 0; j = v->nodes.v[j].next_sibling) {
        unsigned char ch = v->nodes.v[j].c;
        if (dv_in_class(r->cls, ch)) run_node(s, v, j, d + 1, &c2, r, covered, out);
        else if (dv_term_bit(ch) & r->term) feed_node(s, v, j, &c2, out);
    }
}

/* The children of `node`, reached in state c. */
static void walk(dec_state *s, const dec_vocab *v, int node, const dcore *c, msink *out) {
    crun r;
    bool run = free_run(s, c, &r), covered = false;
    int cov = run ? dv_cover(v, node) : -1;
    if (cov >= 0) {   /* from the root or ' ' the pure runs are a bitset */
        int len = r.exact ? r.budget : r.budget + 1;
        const uint32_t *b = dv_class_bits(v, r.cls, cov, r.id0, len);
        if (!out->ids) {
            for (int i = 0; i < v->words; i++) out->bits[i] |= b[i];
        } else if (dv_class_count(v, r.cls, cov, r.id0, len) > out->max - out->n) {
            out->over = true;
            return;
        } else {
            for (int i = 0; i < v->words; i++)
                for (uint32_t w = b[i]; w; w &= w - 1) set_tok(v, 32 * i + __builtin_ctz(w), out);
        }
        covered = true;
    }
    uint64_t m[2] = {~0ull, ~0ull};
    int k = v->nodes.v[node].first_child;
    if (v->nodes.v[k].next_sibling >= 0) next_bytes(s, c, m);   /* worth it with two children or more */
    for (; k >= 0 && !out->over; k = v->nodes.v[k].next_sibling) {
        unsigned char ch = v->nodes.v[k].c;
        if (ch >= 128 || !(m[ch >> 6] >> (ch & 63) & 1)) continue;
        if (run && dv_in_class(r.cls, ch) && (!r.id0 || dv_first_ok(r.cls, ch))) run_node(s, v, k, 1, c, &r, covered, out);
        else feed_node(s, v, k, c, out);
    }
}

int dec_mask(const dec_state *s, uint32_t *bits) {
    const dec_vocab *v = s->v;
    int settled = mask_settled(s, bits);
    if (settled >= 0) return settled;
    msink out = {bits, NULL, 0, 0, false};
    walk((dec_state *)s, v, 0, &s->c, &out);
    int n = 0;
    for (int i = 0; i < v->words; i++) {   /* popcount without needing the instruction */
        uint32_t x = bits[i];
        x = x - (x >> 1 & 0x55555555u);
        x = (x & 0x33333333u) + (x >> 2 & 0x33333333u);
        n += (int)(((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u >> 24);
    }
    return n;
}

/* The same walk listing ids, stopped at max + 1: a small mask costs no more
 * than its walk, and a large one (any state inside a name) gives up at once.
 * The bitset is the state's scratch, cleared again by the ids it holds. */
int dec_allowed(const dec_state *s, int32_t *ids, int max) {
    const dec_vocab *v = s->v;
    if (max < 0) max = 0;
    if (s->ended) return 0;
    if (dec_done(s)) {
        if (v->end_id < 0) return 0;
        if (max < 1) return -1;
        ids[0] = v->end_id;
        return 1;
    }
    dec_state *w = (dec_state *)s;
    if (!w->scratch && !(w->scratch = calloc((size_t)v->words, sizeof *w->scratch))) return -1;
    msink out = {w->scratch, ids, 0, max, false};
    walk(w, v, 0, &s->c, &out);
    for (int i = 0; i < out.n; i++) w->scratch[ids[i] >> 5] &= ~(1u << (ids[i] & 31));   /* only listed bits were set */
    return out.over ? -1 : out.n;
}

/* Bias context: look at each completed line (called from dec_advance*). */
static void track_line(dec_state *s, const char *line, size_t n);

static void after_advance(dec_state *s, size_t old_len) {
    for (size_t i = old_len; i < s->text.len; i++)
        if (s->text.data[i] == '\n') {
            track_line(s, s->text.data + s->line_start, i - s->line_start);
            s->line_start = i + 1;
        }
}

pg_status dec_advance(dec_state *s, int32_t tok, pg_diag_sink *diag) {
    if (!dec_accepts(s, tok)) {
        pg_diag_emit(diag, PG_E_DEAD_STATE, NULL, 0, 0, "token %d is not allowed after %zu bytes of PTX", (int)tok, s->text.len);
        return PG_ERR_INVALID;
    }
    if (s->v->special[tok]) { s->ended = true; return PG_OK; }
    size_t old = s->text.len;
    feed_bytes(s, &s->c, s->v->bytes[tok], s->v->lens[tok]);
    pg_buf_putn(&s->text, s->v->bytes[tok], s->v->lens[tok]);
    after_advance(s, old);
    return PG_OK;
}

pg_status dec_advance_text(dec_state *s, const char *text, size_t n, pg_diag_sink *diag) {
    dcore c = s->c;
    if (s->ended || !feed_bytes(s, &c, text, n)) {
        pg_diag_emit(diag, PG_E_DEAD_STATE, NULL, 0, 0, "text '%.*s' is not allowed after %zu bytes of PTX", (int)(n > 60 ? 60 : n),
                     text, s->text.len);
        return PG_ERR_INVALID;
    }
    s->c = c;
    size_t old = s->text.len;
    pg_buf_putn(&s->text, text, n);
    after_advance(s, old);
    return PG_OK;
}

size_t dec_forced_text(const dec_state *s, pg_buf *out) {
    size_t n0 = out->len;
    dcore c = s->c;
    if (s->ended) return 0;
    /* otherwise: follow the only continuation while there is exactly one, and the forced text at once */
    for (int step = 0; step < 256 && c.ph != PH_DONE; step++) {
        if (forcing(s, &c)) {   /* the header up to the gap, or the entry's signature to its end */
            uint32_t from = c.force_pos, to = from < s->force_gap ? s->force_gap : s->force_len;
            /* fed, not only copied: forced text the state would refuse is never offered */
            if (!feed_bytes((dec_state *)s, &c, s->force + from, to - from)) break;
            pg_buf_putn(out, s->force + from, to - from);
            if (to == s->force_len) break;
            continue;
        }
        /* at the forcing's gap the model writes the next module-scope line, `.visible` or a declaration, whole:
         * a '.' forced alone would split its token from the training text's */
        if (c.force_pos == s->force_gap && c.ph == PH_TOP && !c.live && !s->end_forced) break;
        int only = -1, count = 0;
        for (int ch = 9; ch < 127 && count < 2; ch++) {
            if (ch != '\t' && ch != '\n' && ch < 32) continue;
            dcore t = c;
            if (feed((dec_state *)s, &t, (unsigned char)ch)) { only = ch; count++; }
        }
        if (count != 1) break;
        feed((dec_state *)s, &c, (unsigned char)only);
        pg_buf_putc(out, (char)only);
    }
    return out->len - n0;
}

/* ---- context for the performance bias --------------------------------------------------- */
static int reg_decl_of(const dec_state *s, const char *name, size_t n, long *idx) {
    for (int d = 0; d < s->c.nregs; d++)   /* a named register in scope: index 0 of its own declaration */
        if (reg_visible(&s->c, d) && !s->regs[d].count && s->regs[d].len == n && !memcmp(s->regs[d].name, name, n)) { *idx = 0; return d; }
    size_t i = n;
    while (i > 0 && is_digit(name[i - 1])) i--;
    if (i == n || n - i > 6) return -1;
    *idx = strtol(name + i, NULL, 10);
    for (int d = 0; d < s->c.nregs; d++)
        if (reg_visible(&s->c, d) && s->regs[d].len == i && !memcmp(s->regs[d].name, name, i)) return d;
    return -1;
}

static void set_aligned(dec_state *s, const char *name, size_t n, bool on) {
    long idx;
    int d = reg_decl_of(s, name, n, &idx);
    if (d < 0 || idx >= 64) return;
    if (on) s->aligned16[d] |= 1ull << idx;
    else s->aligned16[d] &= ~(1ull << idx);
}

bool dec_state_reg_aligned16(const dec_state *s, const char *name, size_t n) {
    long idx;
    int d = reg_decl_of(s, name, n, &idx);
    return d >= 0 && idx < 64 && (s->aligned16[d] >> idx & 1);
}

/* Alignment of 64-bit address registers, approximated: a pointer param
 * (cudaMalloc: 256-byte aligned) loaded by ld.param.u64 is aligned; cvta/mov
 * keep it; add of a multiple of 16 (an immediate, or a register produced by
 * mul.wide by a multiple of 16 or shl by >= 4) keeps it; anything else that
 * writes the register clears it. */
static void track_line(dec_state *s, const char *line, size_t n) {
    while (n > 1 && line[0] == '\t' && line[1] == '\t') line++, n--;   /* a nested block's statement: one tab as the others */
    if (n == 0) return;
    if (n >= 3 && line[0] == '\t' && line[1] == '/' && line[2] == '/') return;   /* a plan comment says nothing to the bias */
    if (n == 2 && line[0] == '\t' && (line[1] == '{' || line[1] == '}')) return;   /* a nested block's brace */
    if (line[0] != '\t') {   /* a label */
        if (n > 1 && line[n - 1] == ':') {
            size_t ln = n - 1 < NAME_MAX ? n - 1 : NAME_MAX;
            /* a label not jumped to yet may head a loop (a backward branch) */
            char pat[NAME_MAX + 4];
            snprintf(pat, sizeof pat, " %.*s;", (int)ln, line);
            if (!strstr(s->text.data, pat)) {
                memcpy(s->loop_label, line, ln);
                s->loop_label[ln] = 0;
                s->in_loop = true;
            }
        }
        return;
    }
    char buf[256];
    size_t m = n - 1 < sizeof buf - 1 ? n - 1 : sizeof buf - 1;
    memcpy(buf, line + 1, m);
    buf[m] = 0;
    char *p = buf;
    if (*p == '@') { p = strchr(p, ' '); if (!p) return; p++; }
    if (*p == '.') return;   /* declaration */
    char *sp = strchr(p, ' ');
    size_t ol = sp ? (size_t)(sp - p) : strcspn(p, ";");
    snprintf(s->last_insn, sizeof s->last_insn, "%.*s", (int)ol, p);
    if (!strncmp(p, "bra", 3) && sp) {
        char *lab = sp + 1;
        size_t ll = strcspn(lab, ";");
        if (s->in_loop && ll == strlen(s->loop_label) && !strncmp(lab, s->loop_label, ll)) s->in_loop = false;
        return;
    }
    if (!sp) return;
    /* operands */
    char *ops[6];
    int nops = 0;
    char *q = sp + 1;
    while (nops < 6 && *q) {
        ops[nops++] = q;
        size_t k = strcspn(q, ",;");
        if (q[k] == 0) break;
        bool end = q[k] == ';';
        q[k] = 0;
        q += k + 1;
        if (end) break;
        while (*q == ' ') q++;
    }
    if (!nops || ops[0][0] != '%') return;
    const char *dst = ops[0];
    size_t dl = strlen(dst);
    bool al = false;
    if (!strncmp(p, "ld.param.u64", 12) || !strncmp(p, "ld.param.b64", 12)) al = true;
    else if ((!strncmp(p, "cvta", 4) || !strncmp(p, "mov.u64", 7) || !strncmp(p, "mov.b64", 7)) && nops >= 2)
        al = dec_state_reg_aligned16(s, ops[1], strlen(ops[1]));
    else if ((!strncmp(p, "mul.wide", 8) || !strncmp(p, "mul.lo", 6)) && nops >= 3 && ops[2][0] != '%')
        al = strtoll(ops[2], NULL, 10) % 16 == 0;
    else if (!strncmp(p, "shl.b64", 7) && nops >= 3 && ops[2][0] != '%')
        al = strtol(ops[2], NULL, 10) >= 4;
    else if ((!strncmp(p, "add.s64", 7) || !strncmp(p, "add.u64", 7)) && nops >= 3) {
        bool a1 = dec_state_reg_aligned16(s, ops[1], strlen(ops[1]));
        bool a2 = ops[2][0] == '%' ? dec_state_reg_aligned16(s, ops[2], strlen(ops[2])) : strtoll(ops[2], NULL, 10) % 16 == 0;
        al = a1 && a2;
    }
    set_aligned(s, dst, dl, al);
    long idx;
    int d = reg_decl_of(s, dst, dl, &idx);
    if (d >= 0 && ptx_type_get(s->regs[d].type)->bits == 64 && ptx_type_get(s->regs[d].type)->cls != PTX_TC_FLOAT)
        s->last_addr_aligned = al;
}

bool dec_state_last_addr_aligned(const dec_state *s) { return s->last_addr_aligned; }

bool dec_state_in_loop(const dec_state *s) { return s->in_loop; }
int dec_state_phase_is_stmt_start(const dec_state *s) {
    if (s->c.ph == PH_STMT) return 1;
    if (s->c.ph == PH_LINE) return 2;
    return 0;
}
int dec_state_last_insn(const dec_state *s, char *buf, size_t n) {
    return snprintf(buf, n, "%s", s->last_insn);
}

/* From the next statement boundary on, allow only the shortest legal end
 * (owed labels, ret, closing brace): the caller is running out of tokens. */
void dec_force_end(dec_state *s) {
    /* ending() is consulted inside statements too, so switching mid-statement
     * could strand one: let the current statement finish normally */
    if (s->o.max_statements > s->c.nstmts + 1) s->o.max_statements = s->c.nstmts + 1;
    s->end_forced = true;   /* at module scope: no more declarations, the entry next (PH_TOP) */
}
