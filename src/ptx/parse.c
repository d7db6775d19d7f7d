/* parse.c — recursive-descent PTX parser producing the ptx_module IR.
 *
 * The grammar follows the PTX ISA 9.0 manual plus what nvcc 13 emits.  On a
 * syntax error the parser reports file:line:col, skips to the next ';' or
 * '}' and carries on, so one run shows every error. */
#define _POSIX_C_SOURCE 200809L
#include "decl.h"
#include "lex.h"
#include "ptxgen/ptx.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names are interned per module: every occurrence of "%r12" or of a
 * parameter name shares one arena string.  That saves a copy per operand,
 * and lets the validator cache lookups by pointer.  The hash slots are 8
 * bytes (full hash + entry index) so probing stays in cache; an entry also
 * caches the special-register lookup of a %-name. */
typedef struct {
    const char *s;
    int n;
    bool sreg_done;
    const isa_sreg *sreg;   /* valid when sreg_done */
    int head;               /* "opcode.mod.mod" text: index + 1 into parser.heads, 0 = not yet */
    uint32_t slot;          /* its slot in parser.names while that is the thread's table */
} intern_ent;

/* An instruction head ("ld.global.v4.f32") resolved once per module: the
 * opcode and modifier strings and ids, looked up in the ISA table.  The
 * instructions of one head share its arrays (in the arena). */
typedef struct { const char *opcode; int nmods; const char **mods; uint16_t *ids; } insn_head;
/* A slot keeps the name's first 8 bytes (zero-padded): a name of up to 8 bytes
 * ("%r12", "%rd4", "%f1": most operands) holds no NUL, so those bytes are the whole
 * name and a hit needs neither the entry nor the string (two dependent loads). */
typedef struct { uint64_t w; uint32_t h, idx; } intern_slot;   /* idx = entry + 1; 0 = empty */
typedef PG_VEC(ptx_decl) decl_vec;

typedef struct {
    lexer L;
    ptx_module *m;
    pg_diag_sink *diag;
    int nerrors;
    PG_VEC(ptx_top) tops;
    PG_VEC(ptx_func) funcs;
    pg_buf textbuf;   /* scratch for operand text */
    bool in_call;     /* the operands of a call: (4) stays a list */
    bool no_imm_expr; /* the number under a unary ! or ~: the operator binds it first */
    pg_buf capbuf;    /* scratch for captured directive text */
    token cap_dir;    /* the first directive word (.aligned) of the last capture; kind TK_EOF if none */
    PG_VEC(ptx_operand) opstack;   /* operands of the lists being parsed (nested lists stack up) */
    intern_slot *names; int names_cap, names_cap0;
    bool names_shared;       /* names is the thread's table (names_take): cleared slot by slot at the end */
    PG_VEC(intern_ent) name_ents;
    PG_VEC(ptx_stmt) body;   /* statements of the function being parsed (reused) */
    PG_VEC(insn_head) heads;
    decl_vec decls;          /* declarations of one body statement (reused) */
} parser;

/* All-zero objects to reset locals with: a struct copy is a few vector
 * moves where memset becomes `rep stos` with its start-up cost. */
static const ptx_operand zero_op;
static const ptx_stmt zero_stmt;
static const ptx_decl zero_decl;

#define ERR(P, tk, ...) do { pg_diag_emit((P)->diag, PG_E_SYNTAX, (P)->m->filename, (tk).line, (tk).col, __VA_ARGS__); (P)->nerrors++; } while (0)

/* The intern table's slots are the thread's, reused from one parse to the next (at most
 * NAMES_SHARED_MAX of them): a parse clears the slots it filled, a few hundred, where a fresh
 * table was allocated and zeroed whole, 16 bytes per 16 of input (1.3% of the instructions of
 * a pass over the nvcc files, callgrind).  A parse that outgrows it, a larger one and a nested
 * one take their own. */
enum { NAMES_SHARED_MAX = 1 << 16 };
static _Thread_local intern_slot *tl_names;
static _Thread_local int tl_names_cap;
static _Thread_local bool tl_names_busy;
static pthread_key_t names_key;
static pthread_once_t names_once = PTHREAD_ONCE_INIT;
static void names_key_init(void) { (void)pthread_key_create(&names_key, free); }

/* Start P on the thread's table if it may (names_cap0 slots of it, all empty). */
static void names_take(parser *P) {
    if (tl_names_busy || P->names_cap0 > NAMES_SHARED_MAX) return;
    if (tl_names_cap < P->names_cap0) {
        pthread_once(&names_once, names_key_init);
        intern_slot *t = calloc((size_t)P->names_cap0, sizeof *t);
        if (!t) return;
        free(tl_names);
        tl_names = t;
        tl_names_cap = P->names_cap0;
        (void)pthread_setspecific(names_key, t);   /* freed at the thread's exit */
    }
    P->names = tl_names;
    P->names_cap = P->names_cap0;
    P->names_shared = tl_names_busy = true;
}

/* Give the thread's table back empty (P's entries record their slots). */
static void names_give_back(parser *P) {
    if (!P->names_shared) return;
    for (int i = 0; i < P->name_ents.n; i++) P->names[P->name_ents.v[i].slot] = (intern_slot){0, 0, 0};
    P->names = NULL;
    P->names_shared = tl_names_busy = false;
}

static void names_grow(parser *P) {
    intern_slot *old = P->names;
    int oldcap = P->names_cap;
    P->names_cap = oldcap ? oldcap * 2 : P->names_cap0;
    P->names = calloc((size_t)P->names_cap, sizeof *P->names);
    if (!P->names) pg_oom();
    uint32_t mask = (uint32_t)P->names_cap - 1;
    for (int i = 0; i < oldcap; i++) {
        if (!old[i].idx) continue;
        uint32_t h = old[i].h & mask;
        while (P->names[h].idx) h = (h + 1) & mask;
        P->names[h] = old[i];
        if (P->names_shared) old[i] = (intern_slot){0, 0, 0};   /* the thread's table goes back empty */
    }
    if (P->names_shared) P->names_shared = tl_names_busy = false;   /* this one is P's own now */
    else free(old);
}

/* The first min(n, 8) bytes of s, zero-padded, with one load where 8 bytes of the
 * source are left (names are tokens: s points into [L.src, L.end)). */
static inline uint64_t name_word(const parser *P, const char *s, int n) {
    uint64_t w = 0;
    if (P->L.end - s >= 8) {
        memcpy(&w, s, 8);
        if (n < 8) w &= (1ull << (8 * n)) - 1;   /* n is never negative */
    } else {
        for (int k = 0; k < n && k < 8; k++) w |= (uint64_t)(unsigned char)s[k] << (8 * k);
    }
    return w;
}

static intern_ent *intern_ent_of(parser *P, const char *s, int n) {
    if ((P->name_ents.n + 1) * 2 > P->names_cap) names_grow(P);
    uint64_t w = name_word(P, s, n);
    uint32_t full, mask = (uint32_t)P->names_cap - 1;
    if (n <= 8) {   /* the word is the name: hash it alone (murmur3's fmix64) */
        uint64_t x = (w ^ (uint64_t)n) * 0x9E3779B97F4A7C15ull;
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdull;
        x ^= x >> 33;
        full = (uint32_t)x | 0x80000000u;   /* the top bit: a name of up to 8 bytes */
    } else {
        full = ptx_name_hash(s, (size_t)n) & 0x7fffffffu;
    }
    for (uint32_t h = full & mask;; h = (h + 1) & mask) {
        intern_slot *sl = &P->names[h];
        if (!sl->idx) {
            intern_ent e = {pg_arena_strndup(&P->m->arena, s, (size_t)n), n, false, NULL, 0, h};
            pg_vec_push(P->name_ents, e);
            sl->w = w;
            sl->h = full;
            sl->idx = (uint32_t)P->name_ents.n;
            return &P->name_ents.v[sl->idx - 1];
        }
        if (sl->h == full && sl->w == w) {
            intern_ent *e = &P->name_ents.v[sl->idx - 1];
            /* up to 8 bytes (h's top bit set) the word decides: a shorter name's padding is
             * NUL, never a name byte */
            if (n <= 8 || (e->n == n && ptx_name_eq(e->s + 8, s + 8, (size_t)n - 8))) return e;
        }
    }
}

static const char *tokdup(parser *P, const token *t) { return intern_ent_of(P, t->s, t->n)->s; }

/* Interned name of a %-token and its special register (NULL if none). */
static const char *tokdup_sreg(parser *P, const token *t, const isa_sreg **sreg) {
    intern_ent *e = intern_ent_of(P, t->s, t->n);
    if (!e->sreg_done) {
        e->sreg = isa_sreg_lookup(t->s, (size_t)t->n);
        e->sreg_done = true;
    }
    *sreg = e->sreg;
    return e->s;
}

static void tokdesc(const token *t, char *buf, size_t n) {
    if (t->kind == TK_EOF) snprintf(buf, n, "end of file");
    else snprintf(buf, n, "'%.*s'", t->n > 40 ? 40 : t->n, t->s);
}

static bool expect_punct(parser *P, char c) {
    token t = lex_next(&P->L);
    if (tok_punct(&t, c)) return true;
    char d[64];
    tokdesc(&t, d, sizeof d);
    ERR(P, t, "expected '%c' but found %s", c, d);
    return false;
}

/* Skip to just after the next ';' at nesting level 0 of (), [], {}; stop
 * before a '}' that would close the enclosing block. */
static void recover(parser *P) {
    int depth = 0;
    for (;;) {
        token *t = lex_peek(&P->L);
        if (t->kind == TK_EOF) return;
        if (t->kind == TK_PUNCT) {
            if (t->punct == ';' && depth == 0) { lex_next(&P->L); return; }
            if (t->punct == '(' || t->punct == '[' || t->punct == '{') depth++;
            if (t->punct == ')' || t->punct == ']' || t->punct == '}') {
                if (depth == 0) return;
                depth--;
            }
        }
        lex_next(&P->L);
    }
}

/* ---------------------------------------------------------------- numbers */
static bool parse_int_text(const char *s, int n, int64_t *out) {
    /* read in place: a copy to a NUL-terminated buffer was a `rep movsq` per literal.  The
     * text ends at n or at a NUL, as it did in that buffer (80 bytes). */
    if (n <= 0 || n >= 80) return false;
    if (s[n - 1] == 'U') n--;
    uint64_t v = 0;
    const char *p = s, *e = s + n;
    int base = 10;
    if (n >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) { base = 16; p += 2; }
    else if (n >= 2 && p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) { base = 2; p += 2; }
    else if (n >= 2 && p[0] == '0' && p[1]) { base = 8; p += 1; }
    if (p == e || !*p) return false;
    for (; p < e && *p; p++) {
        int d;
        if (*p >= '0' && *p <= '9') d = *p - '0';
        else if (*p >= 'a' && *p <= 'f') d = *p - 'a' + 10;
        else if (*p >= 'A' && *p <= 'F') d = *p - 'A' + 10;
        else return false;
        if (d >= base) return false;
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) return false;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    *out = (int64_t)v;
    return true;
}

/* a table (the digit's value + 1, 0 = no hex digit), not range tests: their branches were
 * mispredicted on most hex digits */
static const unsigned char hexvals[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
    ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};
static int hexval(char c) { return hexvals[(unsigned char)c] - 1; }

static bool parse_float_text(const char *s, int n, double *out, int *bits) {
    /* the lexer's hex floats: 0f + 8 or 0d + 16 hex digits, read without strtoul */
    if ((n == 10 || n == 18) && s[0] == '0' &&
        (n == 10 ? (s[1] == 'f' || s[1] == 'F') : (s[1] == 'd' || s[1] == 'D'))) {
        uint64_t u = 0;
        int i = 2;
        for (; i < n; i++) {
            int d = hexval(s[i]);
            if (d < 0) break;
            u = u << 4 | (uint64_t)d;
        }
        if (i == n) {
            if (n == 10) {
                uint32_t u32 = (uint32_t)u;
                float f;
                memcpy(&f, &u32, 4);
                *out = f;
                *bits = 32;
            } else {
                double d;
                memcpy(&d, &u, 8);
                *out = d;
                *bits = 64;
            }
            return true;
        }
    }
    char buf[80];
    if (n <= 0 || n >= (int)sizeof buf) return false;
    memcpy(buf, s, (size_t)n);
    buf[n] = 0;
    if (buf[0] == '0' && (buf[1] == 'f' || buf[1] == 'F')) {
        uint32_t u = (uint32_t)strtoul(buf + 2, NULL, 16);
        float f;
        memcpy(&f, &u, 4);
        *out = f;
        *bits = 32;
        return true;
    }
    if (buf[0] == '0' && (buf[1] == 'd' || buf[1] == 'D')) {
        uint64_t u = strtoull(buf + 2, NULL, 16);
        double d;
        memcpy(&d, &u, 8);
        *out = d;
        *bits = 64;
        return true;
    }
    char *end;
    *out = strtod(buf, &end);
    *bits = 64;
    return *end == 0;
}

/* ---------------------------------------------------------------- operands */
/* The common shapes, written into a fixed buffer exactly as
 * ptx_print_operand (print.c) writes them, without printf: [base],
 * [base+off], [imm], integers.  Returns the length, or -1 for the rest. */
static int small_text(const ptx_operand *op, char *buf, int cap) {
    char num[24];
    int nn = 0, k = (int)sizeof num;   /* the digits are num[k, k + nn) */
    const char *name = NULL;
    size_t nl = 0;
    bool brackets = false, plus = false;
    int64_t v = 0;
    if (op->kind == PTX_OP_IMM_INT) {
        v = op->ival;
    } else if (op->kind == PTX_OP_ADDR && !op->nelems) {
        brackets = true;
        v = op->ival;
        if (op->addr_has_base) {
            name = op->name;
            nl = strlen(name);
            plus = v != 0;
        }
    } else {
        return -1;
    }
    if (!name || plus) {   /* "%" PRId64 */
        uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
        do { num[--k] = (char)('0' + u % 10); u /= 10; } while (u);
        if (v < 0) num[--k] = '-';
        nn = (int)sizeof num - k;
    }
    size_t need = nl + (size_t)nn + 3;
    if (need >= (size_t)cap) return -1;
    int o = 0;
    if (brackets) buf[o++] = '[';
    if (name) { memcpy(buf + o, name, nl); o += (int)nl; }
    if (plus) buf[o++] = '+';
    memcpy(buf + o, num + k, (size_t)nn);
    o += nn;
    if (brackets) buf[o++] = ']';
    return o;
}

static void operand_text(parser *P, ptx_operand *op) {
    /* registers and plain names print as themselves: share the name */
    if ((op->kind == PTX_OP_REG && !op->neg) || (op->kind == PTX_OP_SYM && !op->ival)) { op->text = op->name; return; }
    char buf[256];
    int n = small_text(op, buf, (int)sizeof buf);
    if (n >= 0) { op->text = pg_arena_strndup(&P->m->arena, buf, (size_t)n); return; }
    P->textbuf.len = 0;
    ptx_print_operand(op, &P->textbuf);
    op->text = pg_arena_strndup(&P->m->arena, P->textbuf.data ? P->textbuf.data : "", P->textbuf.len);
}

/* A copy of src[0..n) in the arena.  memcpy is called through a pointer: a memcpy gcc can
 * see, of a size it knows to be a multiple of 8, becomes `rep movsq`, whose start-up cost
 * more than the library's copy of a few operands (perf). */
static void *(*volatile const copy_bytes)(void *, const void *, size_t) = memcpy;
static void *arena_copy(pg_arena *a, const void *src, size_t n) { return copy_bytes(pg_arena_alloc_raw(a, n), src, n); }

/* Move the operands pushed on P->opstack since `base` into the arena. */
static ptx_operand *pop_operands(parser *P, int base) {
    int n = P->opstack.n - base;
    ptx_operand *v = NULL;
    if (n) {
        v = pg_arena_alloc_raw(&P->m->arena, sizeof(ptx_operand) * (size_t)n);
        memcpy(v, P->opstack.v + base, sizeof(ptx_operand) * (size_t)n);
    }
    P->opstack.n = base;
    return v;
}

static bool parse_operand(parser *P, ptx_operand *op, int depth);

static bool parse_op_list(parser *P, char close, ptx_operand *parent, int depth) {
    int base = P->opstack.n;
    token *t = lex_peek(&P->L);
    if (!tok_punct(t, close)) {
        for (;;) {
            ptx_operand e;
            e = zero_op;
            if (!parse_operand(P, &e, depth + 1)) { P->opstack.n = base; return false; }
            pg_vec_push(P->opstack, e);
            if (P->opstack.n - base > PTX_MAX_OPERANDS) {
                pg_diag_emit(P->diag, PG_E_LIMIT, P->m->filename, e.loc.line, e.loc.col, "more than %d operands", PTX_MAX_OPERANDS);
                P->nerrors++;
                P->opstack.n = base;
                return false;
            }
            t = lex_peek(&P->L);
            if (tok_punct(t, ',')) { lex_next(&P->L); continue; }
            break;
        }
    }
    if (!expect_punct(P, close)) { P->opstack.n = base; return false; }
    parent->nelems = P->opstack.n - base;
    parent->elems = pop_operands(P, base);
    return true;
}

/* A float literal's value (and 32 or 64: its bits); reports a bad one and, as ptxas ("Constant
 * overflow"), a decimal literal past a normal double (1e400, 1e-320, 3e-400). */
static inline bool float_literal(parser *P, const token *t, double *d, int *bits) {
    if (!parse_float_text(t->s, t->n, d, bits)) {
        pg_diag_emit(P->diag, PG_E_BAD_NUMBER, P->m->filename, t->line, t->col, "bad float literal '%.*s'", t->n, t->s);
        P->nerrors++;
        return false;
    }
    bool hex = t->n > 1 && t->s[0] == '0' && strchr("fFdD", t->s[1]), nonzero = false;
    for (int k = 0; k < t->n && t->s[k] != 'e' && t->s[k] != 'E'; k++) nonzero |= t->s[k] >= '1' && t->s[k] <= '9';
    if (!hex && (isinf(*d) || (*d != 0 && !isnormal(*d)) || (*d == 0 && nonzero))) {
        pg_diag_emit(P->diag, PG_E_BAD_NUMBER, P->m->filename, t->line, t->col,
                     "float literal '%.*s' is beyond the normal range of a double", t->n, t->s);
        P->nerrors++;
        return false;
    }
    return true;
}

static bool parse_number(parser *P, token t, bool neg, ptx_operand *op) {
    if (t.kind == TK_INT) {
        int64_t v;
        if (!parse_int_text(t.s, t.n, &v)) {
            pg_diag_emit(P->diag, PG_E_BAD_NUMBER, P->m->filename, t.line, t.col, "bad integer literal '%.*s'", t.n, t.s);
            P->nerrors++;
            return false;
        }
        op->kind = PTX_OP_IMM_INT;
        op->ival = neg ? (int64_t)(0 - (uint64_t)v) : v;
        op->neg = neg;
        return true;
    }
    if (t.kind == TK_FLOAT) {
        double d;
        int bits;
        if (!float_literal(P, &t, &d, &bits)) return false;
        op->kind = PTX_OP_IMM_FLT;
        op->fval = neg ? -d : d;
        op->fbits = bits;
        op->neg = neg;
        /* keep hex floats bit-exact through printing */
        op->name = tokdup(P, &t);
        return true;
    }
    char d[64];
    tokdesc(&t, d, sizeof d);
    pg_diag_emit(P->diag, t.kind == TK_ERROR ? PG_E_BAD_NUMBER : PG_E_SYNTAX, P->m->filename, t.line, t.col,
                 "expected a number but found %s", d);
    P->nerrors++;
    return false;
}

/* ---- integer constant expressions (PTX ISA "Constant Expressions") ----------------
 * ptxas folds them in array indices and address offsets (sh[2*3], [sh+4*2], [%rd1+8-4],
 * sh[(.u64)1<<3]): C's operators and precedence over 64-bit values, signed unless a literal is
 * unsigned (a U suffix, or past INT64_MAX) or cast (.u64); two-character operators are written
 * without a space (ptxas: "Parsing error near '>'" on 8> >1); a '%' needs a space after it
 * (7%2 lexes as a register name, as in ptxas).  One token of lookahead: an operator whose
 * first character is read stays pending in cx until the climber takes it. */
typedef struct { uint64_t v; bool u; bool f; double d; } cval;   /* f: a float (an initializer's), value d */
enum { CX_NONE, CX_MUL, CX_DIV, CX_MOD, CX_ADD, CX_SUB, CX_SHL, CX_SHR, CX_LT, CX_GT, CX_LE, CX_GE,
       CX_EQ, CX_NE, CX_BAND, CX_XOR, CX_BOR, CX_LAND, CX_LOR, CX_COND, CX_BAD };
static const unsigned char cx_prec[] = {0, 10, 10, 10, 9, 9, 8, 8, 7, 7, 7, 7, 6, 6, 5, 4, 3, 2, 1, 0, 0};
/* floats: an initializer's value, where ptxas folds floats too (the rule below); paren: the
 * operand read next is the first thing inside a '(' */
typedef struct { parser *P; int pend, depth; token at; bool floats, paren; } cxs;

/* An initializer's float constant expressions, as ptxas 13 folds them (probed on h80: .f32 a =
 * 1.0+2.0 is taken): decimal and 0d literals are doubles; + - * / of two floats are a float,
 * a comparison of two floats an integer (.u32 a = 1.0<2.0); an integer beside a float is
 * "Constant expression type mismatch" (1.0+1); % << >> & | ^ && || ~ ! casts and ?: take
 * integers only ("Integer constant expression expected"); a float division by zero (1.0/0.0,
 * 1.0/-0.0, 1.0/(1.0-1.0)) is refused.  A 0f literal is a value alone or as (0f3F800000) only
 * ("Parsing error" for 0f3F800000+1.0, -0f3F800000).  Whether the value fits the variable's
 * type is the validator's (init_mismatch). */
static bool cx_float_only_int(cxs *c, token at, const char *op) {
    ERR(c->P, at, "'%s' takes integers, not floats (an integer constant expression)", op);
    return false;
}
static const char *const cx_name[] = {"", "*", "/", "%", "+", "-", "<<", ">>", "<", ">", "<=", ">=",
                                      "==", "!=", "&", "^", "|", "&&", "||", "?:", ""};

static int cx_op(cxs *c) {
    if (c->pend) return c->pend;
    token *t = lex_peek(&c->P->L);
    int op = CX_NONE;
    if (t->kind == TK_IDENT && t->n == 1 && t->s[0] == '%') op = CX_MOD;
    else if (t->kind == TK_PUNCT) switch (t->punct) {
        case '*': op = CX_MUL; break;  case '/': op = CX_DIV; break;
        case '+': op = CX_ADD; break;  case '-': op = CX_SUB; break;
        case '<': op = CX_LT; break;   case '>': op = CX_GT; break;
        case '&': op = CX_BAND; break; case '^': op = CX_XOR; break;
        case '|': op = CX_BOR; break;  case '?': op = CX_COND; break;
        case '=': case '!': op = CX_BAD; break;   /* only as == and != */
        default: break;
        }
    if (op == CX_NONE) return CX_NONE;
    c->at = lex_next(&c->P->L);
    token *n = lex_peek(&c->P->L);
    if (n->kind == TK_PUNCT && !n->space_before && c->at.kind == TK_PUNCT) {
        char a = c->at.punct, b = n->punct;
        int two = a == '<' && b == '<' ? CX_SHL : a == '>' && b == '>' ? CX_SHR : a == '<' && b == '=' ? CX_LE
                : a == '>' && b == '=' ? CX_GE : a == '=' && b == '=' ? CX_EQ : a == '!' && b == '=' ? CX_NE
                : a == '&' && b == '&' ? CX_LAND : a == '|' && b == '|' ? CX_LOR : CX_NONE;
        if (two != CX_NONE) { lex_next(&c->P->L); op = two; }
    }
    if (op == CX_BAD) {
        ERR(c->P, c->at, "'%c' is no operator of a constant expression", c->at.punct);
        return CX_BAD;
    }
    return c->pend = op;
}

static bool cx_cond(cxs *c, cval *out, const char *what);
static bool cx_unary(cxs *c, cval *out, const char *what);

/* After a '(': a cast, (.s64) or (.u64) (the casts ptxas has), and its operand, or (expr). */
static bool cx_paren(cxs *c, cval *out) {
    parser *P = c->P;
    token *n = lex_peek(&P->L);
    if (n->kind != TK_DIR) {
        c->paren = true;
        bool ok = cx_cond(c, out, "in a constant expression");
        c->paren = false;
        return ok && expect_punct(P, ')');
    }
    token ty = lex_next(&P->L);
    bool s64 = tok_is(&ty, ".s64");
    if (!s64 && !tok_is(&ty, ".u64")) {   /* ptxas: "Unsupported cast operation" */
        ERR(P, ty, "'%.*s': a constant expression casts only to .s64 or .u64", ty.n, ty.s);
        return false;
    }
    if (!expect_punct(P, ')') || !cx_unary(c, out, "in a constant expression")) return false;
    if (out->f) return cx_float_only_int(c, ty, s64 ? "(.s64)" : "(.u64)");   /* (.s64)1.0 */
    out->u = !s64;
    return true;
}

static bool cx_unary(cxs *c, cval *out, const char *what) {
    parser *P = c->P;
    token t = lex_next(&P->L);
    if (++c->depth > PTX_MAX_NEST) {
        pg_diag_emit(P->diag, PG_E_LIMIT, P->m->filename, t.line, t.col, "constant expression nested deeper than %d", PTX_MAX_NEST);
        P->nerrors++;
        return false;
    }
    bool ok = true, paren = c->paren;
    c->paren = false;
    out->f = false;
    out->d = 0;
    if (t.kind == TK_FLOAT && c->floats) {
        int bits;
        ok = float_literal(P, &t, &out->d, &bits);
        out->f = true;
        out->u = false;
        out->v = 0;
        if (ok && t.s[0] == '0' && (t.s[1] == 'f' || t.s[1] == 'F') && !(paren && tok_punct(lex_peek(&P->L), ')'))) {
            ERR(P, t, "a 0f literal in an initializer is a value alone or in parentheses, (%.*s), not an operand", t.n, t.s);
            ok = false;
        }
    } else if (t.kind == TK_INT) {
        int64_t v;
        if (!parse_int_text(t.s, t.n, &v)) {
            pg_diag_emit(P->diag, PG_E_BAD_NUMBER, P->m->filename, t.line, t.col, "bad integer literal '%.*s'", t.n, t.s);
            P->nerrors++;
            ok = false;
        }
        out->v = (uint64_t)v;
        out->u = t.s[t.n - 1] == 'U' || v < 0;   /* past INT64_MAX: unsigned */
    } else if (tok_punct(&t, '-') || tok_punct(&t, '+') || tok_punct(&t, '~') || tok_punct(&t, '!')) {
        ok = cx_unary(c, out, what);
        if (ok && out->f) {   /* -1.0, +1.0; not ~1.0, !1.0 */
            if (t.punct == '~' || t.punct == '!') ok = cx_float_only_int(c, t, t.punct == '~' ? "~" : "!");
            else if (t.punct == '-') out->d = -out->d;
        } else if (t.punct == '-') out->v = 0 - out->v;
        else if (t.punct == '~') out->v = ~out->v;
        else if (t.punct == '!') { out->v = !out->v; out->u = false; }
    } else if (tok_punct(&t, '(')) {
        ok = cx_paren(c, out);
    } else {
        char d[64];
        tokdesc(&t, d, sizeof d);
        ERR(P, t, "expected %s %s but found %s", c->floats ? "a number" : "an integer", what, d);
        ok = false;
    }
    c->depth--;
    return ok;
}

static bool cx_apply(cxs *c, int op, cval *l, cval r, token at) {
    if (l->f || r.f) {
        if (l->f != r.f) {   /* ptxas checks this before the operator */
            ERR(c->P, at, "'%s' between an integer and a float (a constant expression's operands have one type)", cx_name[op]);
            return false;
        }
        double a = l->d, b = r.d;
        switch (op) {
        case CX_MUL: l->d = a * b; return true;
        case CX_DIV:
            if (b == 0) { ERR(c->P, at, "constant expression has division by zero"); return false; }
            l->d = a / b;
            return true;
        case CX_ADD: l->d = a + b; return true;
        case CX_SUB: l->d = a - b; return true;
        case CX_LT: l->v = a < b; break;
        case CX_GT: l->v = a > b; break;
        case CX_LE: l->v = a <= b; break;
        case CX_GE: l->v = a >= b; break;
        case CX_EQ: l->v = a == b; break;
        case CX_NE: l->v = a != b; break;
        default: return cx_float_only_int(c, at, cx_name[op]);
        }
        l->f = false;   /* a comparison is an integer */
        l->u = false;
        return true;
    }
    bool u = l->u || r.u;
    uint64_t a = l->v, b = r.v;
    int64_t sa = (int64_t)a, sb = (int64_t)b;
    switch (op) {
    case CX_MUL: l->v = a * b; break;
    case CX_DIV: case CX_MOD:
        if (!b) { ERR(c->P, at, "constant expression has division by zero"); return false; }
        if (u) l->v = op == CX_DIV ? a / b : a % b;
        else if (sa == INT64_MIN && sb == -1) l->v = op == CX_DIV ? a : 0;   /* wraps, as the unsigned negation */
        else l->v = (uint64_t)(op == CX_DIV ? sa / sb : sa % sb);
        break;
    case CX_ADD: l->v = a + b; break;
    case CX_SUB: l->v = a - b; break;
    case CX_SHL: l->v = b >= 64 ? 0 : a << b; return true;   /* the left operand's type */
    case CX_SHR:
        if (l->u) l->v = b >= 64 ? 0 : a >> b;
        else l->v = b >= 64 ? (sa < 0 ? UINT64_MAX : 0) : (uint64_t)(sa < 0 ? ~(~sa >> b) : sa >> b);
        return true;
    case CX_LT: l->v = u ? a < b : sa < sb; u = false; break;
    case CX_GT: l->v = u ? a > b : sa > sb; u = false; break;
    case CX_LE: l->v = u ? a <= b : sa <= sb; u = false; break;
    case CX_GE: l->v = u ? a >= b : sa >= sb; u = false; break;
    case CX_EQ: l->v = a == b; u = false; break;
    case CX_NE: l->v = a != b; u = false; break;
    case CX_BAND: l->v = a & b; break;
    case CX_XOR: l->v = a ^ b; break;
    case CX_BOR: l->v = a | b; break;
    case CX_LAND: l->v = a && b; u = false; break;
    case CX_LOR: l->v = a || b; u = false; break;
    default: return false;
    }
    l->u = u;
    return true;
}

/* The binary operators of precedence minp and above after the operand *l (precedence climbing). */
static bool cx_binary(cxs *c, cval *l, int minp, const char *what) {
    for (;;) {
        int op = cx_op(c);
        if (op == CX_BAD) return false;
        if (cx_prec[op] < minp || !cx_prec[op]) return true;
        c->pend = CX_NONE;
        token at = c->at;
        cval r;
        if (!cx_unary(c, &r, "in a constant expression")) return false;
        for (;;) {
            int n = cx_op(c);
            if (n == CX_BAD) return false;
            if (cx_prec[n] <= cx_prec[op]) break;
            if (!cx_binary(c, &r, cx_prec[op] + 1, what)) return false;
        }
        if (!cx_apply(c, op, l, r, at)) return false;
    }
}

/* The rest of an expression after its first operand *v: binary operators, then ?: */
static bool cx_tail(cxs *c, cval *v) {
    const char *what = "in a constant expression";
    if (!cx_binary(c, v, 1, what)) return false;
    if (c->pend != CX_COND) return true;
    c->pend = CX_NONE;
    if (++c->depth > PTX_MAX_NEST) {
        ERR(c->P, c->at, "constant expression nested deeper than %d", PTX_MAX_NEST);
        return false;
    }
    cval a, b;
    token q = c->at;
    bool ok = cx_cond(c, &a, what) && expect_punct(c->P, ':') && cx_cond(c, &b, what);
    c->depth--;
    if (!ok) return false;
    if (v->f || a.f || b.f) return cx_float_only_int(c, q, "?:");   /* 1.0 ? 2.0 : 3.0, 1 ? 2 : 3.0 */
    bool u = a.u || b.u;
    *v = v->v ? a : b;
    v->u = u;
    return true;
}

static bool cx_cond(cxs *c, cval *out, const char *what) {
    return cx_unary(c, out, what) && cx_tail(c, out);
}

/* An integer constant expression at the next token into *out; `what` names the place in the
 * message for a missing first operand ("in an array index"). */
static bool const_expr(parser *P, int64_t *out, const char *what) {
    cxs c = {P, CX_NONE, 0, {0}, false, false};
    cval v;
    if (!cx_cond(&c, &v, what)) return false;
    *out = (int64_t)v.v;
    return true;
}

/* Whether the next token can continue a constant expression after an operand. */
static bool cx_continues(parser *P) {
    token *t = lex_peek(&P->L);
    if (t->kind == TK_IDENT) return t->n == 1 && t->s[0] == '%';
    return t->kind == TK_PUNCT && strchr("*/+-<>&^|?=!", t->punct) && t->punct;
}

/* An integer immediate op (unsigned: a U suffix or past INT64_MAX) followed by an operator: the
 * rest of the constant expression, as ptxas folds it (add.s32 %r1, %r2, 2*3; bar.sync 1*0). */
static bool imm_expr_rest(parser *P, ptx_operand *op, bool u) {
    cxs c = {P, CX_NONE, 0, {0}, false, false};
    cval v = {(uint64_t)op->ival, u, false, 0};
    if (!cx_tail(&c, &v)) return false;
    op->kind = PTX_OP_IMM_INT;
    op->ival = (int64_t)v.v;
    op->neg = false;
    op->nelems = 0;
    op->elems = NULL;
    return true;
}

/* Fold each value of an initializer as ptxas reads it: integers ({1+1, 2*3}, = 8/0, (.u64)7)
 * as a constant expression ("Constant expression has division by zero"); one with a name
 * as an address, name or generic(name) then + a constant expression (gb+2*4; not 2+gb,
 * gb*2: "Parsing error"); the validator checks the names.  Values with floats (1.0+2.0,
 * 1.0<2.0, (0f3F800000)) as a constant expression over floats too (cxs.floats); a lone literal
 * is left to the validator as before.  Reads the tokens from
 * the lexer state `at` (the initializer's start, already captured) up to `end`. */
static void fold_init_values(parser *P, lexer at, lexer end) {
    lexer saved = P->L;
    P->L = at;
    int depth = 0;
    for (;;) {
        token *t = lex_peek(&P->L);
        if (P->L.p > end.p || t->kind == TK_EOF) break;
        if (t->kind == TK_PUNCT && t->punct == ',' && depth == 0) break;   /* the next declarator */
        if (t->kind == TK_PUNCT && (t->punct == '{' || t->punct == ',')) { depth += t->punct == '{'; lex_next(&P->L); continue; }
        if (t->kind == TK_PUNCT && t->punct == '}') { if (--depth < 0) break; lex_next(&P->L); continue; }
        if (t->kind == TK_PUNCT && t->punct == ';') break;
        /* one value: up to a ',', '}' or ';' outside parentheses; integers, operators and casts only? */
        lexer look = P->L;
        bool pure = true, names = false, flt = false;
        int paren = 0, ntok = 0;
        for (;;) {
            token *u = lex_peek(&look);
            if (u->kind == TK_EOF || look.p > end.p) break;
            if (u->kind == TK_PUNCT && paren == 0 && (u->punct == ',' || u->punct == '}' || u->punct == ';')) break;
            if (u->kind == TK_PUNCT) paren += (u->punct == '(') - (u->punct == ')');
            else if (u->kind == TK_DIR) pure = pure && (tok_is(u, ".s64") || tok_is(u, ".u64"));
            else if (u->kind == TK_IDENT) { pure = pure && (u->s[0] != '%' || u->n == 1); names |= u->s[0] != '%'; }   /* 7 % 2 */
            else if (u->kind == TK_FLOAT) flt = true;
            else if (u->kind != TK_INT) pure = false;
            if (paren < 0) break;
            lex_next(&look);
            ntok++;
        }
        /* a stray ')' starts no value: step over it (the declaration's own parse reported it), or this
         * loop would read the same token forever (a fuzz timeout, 2026-12-06) */
        if (ntok == 0) { lex_next(&P->L); continue; }
        int64_t v;
        if (pure && !names && flt) {
            if (ntok > 1) {
                cxs c = {P, CX_NONE, 0, {0}, true, false};
                cval x;
                (void)cx_cond(&c, &x, "in an initializer");
            } else {   /* a lone literal: its range (1e-310: "Constant overflow"); its type is the validator's */
                token lit = lex_next(&P->L);
                double d;
                int bits;
                (void)float_literal(P, &lit, &d, &bits);
            }
        } else if (pure && !names) {
            (void)const_expr(P, &v, "in an initializer");
        } else if (pure) {   /* an address: name or generic(name), then + a constant expression (gb+2*4) */
            token n = lex_next(&P->L);
            bool ok = n.kind == TK_IDENT;
            if (ok && tok_is(&n, "generic") && tok_punct(lex_peek(&P->L), '(')) {
                lex_next(&P->L);
                token x = lex_next(&P->L);
                ok = x.kind == TK_IDENT && x.s[0] != '%' && tok_punct(lex_peek(&P->L), ')');
                if (ok) lex_next(&P->L);
            }
            if (ok && tok_punct(lex_peek(&P->L), '+')) {
                lex_next(&P->L);
                ok = const_expr(P, &v, "in an initializer's address offset");
                if (!ok) { P->L = look; continue; }   /* reported */
            }
            token *e = lex_peek(&P->L);
            if (!ok || !(e->kind == TK_PUNCT && (e->punct == ',' || e->punct == '}' || e->punct == ';'))) {
                /* ptxas: "Parsing error near 'gb'" for 2+gb, (gb)+4, -gb; near '*' for gb*2 */
                ERR(P, n, "a name in an initializer is an address: name or generic(name), then + a constant expression");
            }
        }
        P->L = look;
    }
    P->L = saved;
}

static bool parse_address(parser *P, ptx_operand *op, int depth) {
    op->kind = PTX_OP_ADDR;
    token *f = lex_peek(&P->L);
    if (f->kind == TK_INT || tok_punct(f, '(') || tok_punct(f, '+') || tok_punct(f, '-') || tok_punct(f, '~') ||
        tok_punct(f, '!'))   /* [16], [-16], [16+4], [2*4]: an immediate address, folded */
        return const_expr(P, &op->ival, "in address") && expect_punct(P, ']');
    token t = lex_next(&P->L);
    if (t.kind == TK_IDENT) {
        op->addr_has_base = true;
        op->name = tokdup(P, &t);
        op->addr_base_is_reg = t.s[0] == '%';
        token *n = lex_peek(&P->L);
        if (tok_punct(n, ',')) {   /* texture/surface: [tex, coords] */
            lex_next(&P->L);
            ptx_operand tmp;
            int base = P->opstack.n;
            for (;;) {
                tmp = zero_op;
                if (!parse_operand(P, &tmp, depth + 1)) { P->opstack.n = base; return false; }
                pg_vec_push(P->opstack, tmp);
                if (P->opstack.n - base > PTX_MAX_OPERANDS) { P->opstack.n = base; ERR(P, t, "address list too long"); return false; }
                if (tok_punct(lex_peek(&P->L), ',')) { lex_next(&P->L); continue; }
                break;
            }
            op->nelems = P->opstack.n - base;
            op->elems = pop_operands(P, base);
            return expect_punct(P, ']');
        }
        if (tok_punct(n, '-')) {   /* ptxas: "Parsing error near '-'" */
            ERR(P, *n, "a negative address offset is written [base+-N], not [base-N]");
            return false;
        }
        if (tok_punct(n, '+')) {   /* [a+8], [a+-8], [a+4*2]: a constant expression ptxas folds */
            lex_next(&P->L);
            if (!const_expr(P, &op->ival, "offset in address")) return false;
        }
        return expect_punct(P, ']');
    }
    char d[64];
    tokdesc(&t, d, sizeof d);
    ERR(P, t, "expected a register, variable or integer in address but found %s", d);
    return false;
}

/* An array's element, op's name then [N], [reg] or [reg+N], N a constant expression (the PTX
 * ISA's array indexing; sh[2*3], sh[%r1+2-1] as ptxas folds them; ptxas: "Parsing error near
 * '-'" for [reg-N], as in an address).  The validator says where. */
static bool parse_index(parser *P, ptx_operand *op) {
    lex_next(&P->L);   /* '[' */
    op->kind = PTX_OP_INDEX;
    op->sreg = NULL;
    if (lex_peek(&P->L)->kind != TK_IDENT)   /* a number, or an expression of numbers */
        return const_expr(P, &op->ival, "or a register as an array index") && expect_punct(P, ']');
    token t = lex_next(&P->L);
    if (tok_is(&t, "_")) {
        ERR(P, t, "expected an integer or a register as an array index but found '_'");
        return false;
    }
    if (memchr(t.s, '.', (size_t)t.n)) {   /* ptxas: "Parsing error near '.x'" for sh[%tid.x] */
        ERR(P, t, "'%.*s': a special register's component is no array index", t.n, t.s);
        return false;
    }
    ptx_operand r = zero_op;
    r.kind = PTX_OP_REG;
    r.loc.line = t.line;
    r.loc.col = t.col;
    r.name = tokdup_sreg(P, &t, &r.sreg);
    r.text = r.name;
    if (tok_punct(lex_peek(&P->L), '+')) {
        lex_next(&P->L);
        if (!const_expr(P, &op->ival, "offset in an array index")) return false;
    }
    op->elems = pg_arena_alloc(&P->m->arena, sizeof(ptx_operand));
    op->elems[0] = r;
    op->nelems = 1;
    return expect_punct(P, ']');
}

static bool parse_operand(parser *P, ptx_operand *op, int depth) {
    if (depth > PTX_MAX_NEST) {
        token *t = lex_peek(&P->L);
        pg_diag_emit(P->diag, PG_E_LIMIT, P->m->filename, t->line, t->col, "operand nesting deeper than %d", PTX_MAX_NEST);
        P->nerrors++;
        return false;
    }
    token t = lex_next(&P->L);
    op->loc.line = t.line;
    op->loc.col = t.col;
    bool ok = true, imm_u = false;
    if (tok_punct(&t, '[')) {
        ok = parse_address(P, op, depth);
    } else if (tok_punct(&t, '{')) {
        op->kind = PTX_OP_VEC;
        ok = parse_op_list(P, '}', op, depth);
    } else if (tok_punct(&t, '(') && lex_peek(&P->L)->kind == TK_DIR) {   /* (.u64)3: a cast, an immediate */
        cxs c = {P, CX_NONE, 0, {0}, false, false};
        cval v;
        memset(&v, 0, sizeof v);   /* read below even when the expression failed */
        ok = cx_paren(&c, &v) && cx_tail(&c, &v);
        op->kind = PTX_OP_IMM_INT;
        op->ival = (int64_t)v.v;
        imm_u = v.u;
    } else if (tok_punct(&t, '(')) {
        op->kind = PTX_OP_LIST;
        bool nested = P->no_imm_expr;
        P->no_imm_expr = false;
        ok = parse_op_list(P, ')', op, depth);
        P->no_imm_expr = nested;
        if (ok && !P->in_call && op->nelems == 1 && op->elems[0].kind == PTX_OP_IMM_INT) {   /* (4), (2*3): a number */
            op->kind = PTX_OP_IMM_INT;
            op->ival = op->elems[0].ival;
            op->nelems = 0;
            op->elems = NULL;
        }
    } else if ((tok_punct(&t, '!') || tok_punct(&t, '~')) &&
               (lex_peek(&P->L)->kind == TK_INT || tok_punct(lex_peek(&P->L), '-') || tok_punct(lex_peek(&P->L), '+') ||
                tok_punct(lex_peek(&P->L), '('))) {
        /* !N and ~N: constant expressions ptxas folds (add.s32 %r1, %r2, ~0; setp ..., !-1) */
        if (lex_peek(&P->L)->kind == TK_INT) {
            token n = lex_next(&P->L);
            ok = parse_number(P, n, false, op);
        } else {
            bool nested = P->no_imm_expr;
            P->no_imm_expr = true;
            ok = parse_operand(P, op, depth + 1);   /* a signed number */
            P->no_imm_expr = nested;
            if (ok && op->kind != PTX_OP_IMM_INT) { ERR(P, t, "'%c' applies to an integer here", t.punct); ok = false; }
        }
        if (ok) op->ival = tok_punct(&t, '!') ? !op->ival : (int64_t)~(uint64_t)op->ival;
    } else if (tok_punct(&t, '!')) {
        if (lex_peek(&P->L)->kind != TK_IDENT) {   /* ptxas: "Parsing error near '%p0'" on !!%p0 */
            char d[64];
            tokdesc(lex_peek(&P->L), d, sizeof d);
            ERR(P, *lex_peek(&P->L), "expected a predicate register after '!' but found %s", d);
            return false;
        }
        ok = parse_operand(P, op, depth + 1);
        if (ok && op->kind == PTX_OP_SYM && !op->ival) op->kind = PTX_OP_REG;   /* `.reg .pred p;` ... !p */
        if (ok && op->kind != PTX_OP_REG) { ERR(P, t, "'!' applies only to a predicate register"); ok = false; }
        op->neg = true;
        op->loc.line = t.line;
        op->loc.col = t.col;
    } else if (tok_punct(&t, '-') ||
               (tok_punct(&t, '+') && (lex_peek(&P->L)->kind == TK_INT || lex_peek(&P->L)->kind == TK_FLOAT ||
                                       tok_punct(lex_peek(&P->L), '-') || tok_punct(lex_peek(&P->L), '+') ||
                                       tok_punct(lex_peek(&P->L), '(')))) {
        /* -5, - -255, and a unary plus on a number (+5, +.5, ++5, +-5), as ptxas takes them; not +%r1 */
        bool neg = tok_punct(&t, '-');
        while (tok_punct(lex_peek(&P->L), '-') || tok_punct(lex_peek(&P->L), '+')) {   /* - -255: unary signs, as ptxas takes them */
            if (lex_next(&P->L).punct == '-') neg = !neg;
        }
        if (tok_punct(lex_peek(&P->L), '(')) {   /* -(4), -(.u64)1: a parenthesized constant expression */
            bool nested = P->no_imm_expr;
            P->no_imm_expr = true;
            ok = parse_operand(P, op, depth + 1);
            P->no_imm_expr = nested;
            if (ok && op->kind != PTX_OP_IMM_INT) { ERR(P, t, "'%c' applies to an integer here", t.punct); return false; }
            if (ok && neg) op->ival = (int64_t)(0 - (uint64_t)op->ival);
            if (ok) op->neg = false;
            op->loc.line = t.line;
            op->loc.col = t.col;
        } else {
        token n = lex_next(&P->L);
        if (n.kind == TK_FLOAT && n.n > 1 && n.s[0] == '0' && strchr("fFdD", n.s[1])) {
            /* ptxas: "Parsing error near '0f3F800000'": a hex float's sign is in its bits */
            ERR(P, n, "a hex float literal takes no sign ('%.*s'); write the negative value's bits", n.n, n.s);
            ok = false;
        } else if (n.kind == TK_IDENT && n.s[0] == '%') {
            /* ptxas: "Operand negation not allowed for instruction 'add'", "Illegal argument to
             * unary minus": PTX negates a value with neg, never a register with '-' */
            ERR(P, n, "a register cannot be negated with '-' ('%.*s'); use neg", n.n, n.s);
            ok = false;
        } else {
            ok = parse_number(P, n, neg, op);
        }
        }
    } else if (t.kind == TK_INT || t.kind == TK_FLOAT || t.kind == TK_ERROR) {
        ok = parse_number(P, t, false, op);
        imm_u = ok && t.kind == TK_INT && (t.s[t.n - 1] == 'U' || op->ival < 0);
    } else if (t.kind == TK_IDENT) {
        if (tok_is(&t, "_")) {
            op->kind = PTX_OP_SINK;
        } else if (t.s[0] == '%') {
            op->kind = PTX_OP_REG;
            op->name = tokdup_sreg(P, &t, &op->sreg);
        } else {
            op->kind = PTX_OP_SYM;
            op->name = tokdup(P, &t);
        }
        token *n = lex_peek(&P->L);
        if (tok_punct(n, '|')) {   /* p|q; names without '%' may be registers too */
            lex_next(&P->L);
            ptx_operand first = *op;
            ptx_operand second;
            second = zero_op;
            token s = lex_next(&P->L);
            second.loc.line = s.line;
            second.loc.col = s.col;
            if (s.kind != TK_IDENT) { ERR(P, s, "expected a register after '|'"); return false; }
            second.kind = tok_is(&s, "_") ? PTX_OP_SINK : PTX_OP_REG;
            if (second.kind == PTX_OP_REG) second.name = tokdup(P, &s);
            operand_text(P, &first);
            operand_text(P, &second);
            *op = zero_op;
            op->kind = PTX_OP_PAIR;
            op->loc = first.loc;
            op->nelems = 2;
            op->elems = pg_arena_alloc(&P->m->arena, 2 * sizeof(ptx_operand));
            op->elems[0] = first;
            op->elems[1] = second;
        } else if (op->kind != PTX_OP_SINK && tok_punct(n, '[')) {
            if (!parse_index(P, op)) return false;
        } else if (op->kind == PTX_OP_SYM && (tok_punct(n, '+') )) {
            /* symbol plus offset used as an immediate address (mov.u64 %rd, sym+8) */
            lex_next(&P->L);
            if (!const_expr(P, &op->ival, "offset")) return false;   /* sym+2*4 folds too */
        }
    } else {
        char d[64];
        tokdesc(&t, d, sizeof d);
        ERR(P, t, "expected an operand but found %s", d);
        ok = false;
    }
    if (ok && op->kind == PTX_OP_IMM_INT && !P->no_imm_expr && cx_continues(P))
        ok = imm_expr_rest(P, op, imm_u);   /* 2*3, ~0+1, (4)<<2 */
    if (ok) operand_text(P, op);
    return ok;
}

/* ------------------------------------------------------------ declarations */
static bool is_space_dir(const token *t, ptx_space *sp) {
    if (t->n < 4 || t->s[0] != '.') return false;
    ptx_space r = PTX_SS_NONE;
    switch (t->s[1]) {   /* the second byte picks the candidate */
    case 'r': if (tok_is(t, ".reg")) r = PTX_SS_REG; break;
    case 'c': if (tok_is(t, ".const")) r = PTX_SS_CONST; break;
    case 'g': if (tok_is(t, ".global")) r = PTX_SS_GLOBAL; break;
    case 'l': if (tok_is(t, ".local")) r = PTX_SS_LOCAL; break;
    case 't': if (tok_is(t, ".tex")) r = PTX_SS_TEX; break;
    case 's':
        if (tok_is(t, ".sreg")) r = PTX_SS_SREG;
        else if (tok_is(t, ".shared")) r = PTX_SS_SHARED;
        else if (t->kind == TK_DIR && t->n > 8 && memcmp(t->s, ".shared::", 9) == 0) r = PTX_SS_SHARED;
        break;
    case 'p':
        if (tok_is(t, ".param")) r = PTX_SS_PARAM;
        else if (t->kind == TK_DIR && t->n > 7 && memcmp(t->s, ".param::", 8) == 0) r = PTX_SS_PARAM;
        break;
    }
    if (r == PTX_SS_NONE) return false;
    *sp = r;
    return true;
}

static bool two_char_op(char a, char b) {
    return (a == '<' && (b == '<' || b == '=')) || (a == '>' && (b == '>' || b == '=')) || (b == '=' && (a == '=' || a == '!')) ||
           (a == '&' && b == '&') || (a == '|' && b == '|');
}

/* Capture source text from the current position up to (not including) a
 * top-level ',' or ';' or ')' as canonical text (single spaces). */
static const char *capture_until_(parser *P, const char *stops, bool braces, bool *hit_eof) {
    pg_buf b = P->capbuf;   /* scratch, reused */
    b.len = 0;
    int depth = 0;
    *hit_eof = false;
    P->cap_dir.kind = TK_EOF;
    for (;;) {
        token *t = lex_peek(&P->L);
        if (t->kind == TK_EOF) { *hit_eof = true; break; }
        /* directive arguments never contain braces: stop, so a missing ';'
         * cannot swallow the next function */
        if (!braces && t->kind == TK_PUNCT && (t->punct == '{' || t->punct == '}')) break;
        if (t->kind == TK_PUNCT && depth == 0 && strchr(stops, t->punct)) break;
        if (t->kind == TK_PUNCT && (t->punct == '{' || t->punct == '(' || t->punct == '[')) depth++;
        if (t->kind == TK_PUNCT && (t->punct == '}' || t->punct == ')' || t->punct == ']')) {
            if (depth == 0) break;
            depth--;
        }
        token x = lex_next(&P->L);
        if (x.kind == TK_ERROR) {   /* stray bytes would not survive printing and re-parsing */
            pg_diag_emit(P->diag, PG_E_BAD_CHAR, P->m->filename, x.line, x.col, "unexpected character 0x%02x",
                         (unsigned)(unsigned char)x.s[0]);
            P->nerrors++;
            continue;
        }
        if (x.kind == TK_DIR && P->cap_dir.kind == TK_EOF &&
            !(b.len && b.data[b.len - 1] == '(' && (tok_is(&x, ".s64") || tok_is(&x, ".u64"))))   /* (.u64)7: a cast */
            P->cap_dir = x;
        bool glue = b.len == 0 || (x.kind == TK_PUNCT && strchr(",)]}", x.punct)) ||
                    (b.len && strchr("([{-", b.data[b.len - 1]) && !(b.len >= 2 && b.data[b.len - 2] == ' ' && b.data[b.len-1]=='-')) ||
                    (!x.space_before && x.kind == TK_DIR);
        if (x.kind == TK_PUNCT && x.punct == '{' && b.len) glue = false;
        if (x.kind == TK_PUNCT && !x.space_before && b.len && two_char_op(b.data[b.len - 1], x.punct))
            glue = true;   /* 1<<2, 2>=1: one operator, which "1 < < 2" would not be */
        if (!glue) pg_buf_putc(&b, ' ');
        pg_buf_putn(&b, x.s, (size_t)x.n);
        if (b.len > (size_t)PTX_MAX_FILE_BYTES) break;
    }
    if (depth > 0) {   /* "f(" cut short by a brace or the end: printed text would not parse back alike (fuzz find) */
        token *t = lex_peek(&P->L);
        pg_diag_emit(P->diag, PG_E_SYNTAX, P->m->filename, t->line, t->col, "unbalanced '(' or '[' in directive text");
        P->nerrors++;
    }
    const char *r = pg_arena_strndup(&P->m->arena, b.data ? b.data : "", b.len);
    P->capbuf = b;
    return r;
}

/* Directive text: no braces.  Initializers ({1, 2, 3}) use capture_init. */
static const char *capture_until(parser *P, const char *stops, bool *hit_eof) { return capture_until_(P, stops, false, hit_eof); }
static const char *capture_init(parser *P, const char *stops, bool *hit_eof) { return capture_until_(P, stops, true, hit_eof); }

/* Capture the rest of a source line (for .loc/.file, which end at a newline). */
static const char *capture_line(parser *P, int line) {
    /* .loc lines are short: a stack buffer, and P->capbuf past 256 bytes */
    char small[256];
    size_t len = 0;
    bool big = false;
    pg_buf b = P->capbuf;   /* scratch, reused */
    for (;;) {
        token *t = lex_peek(&P->L);
        if (t->kind == TK_EOF || t->line != line || tok_punct(t, ';') || tok_punct(t, '}') || tok_punct(t, '{')) break;
        token x = lex_next(&P->L);
        if (x.kind == TK_ERROR) {
            pg_diag_emit(P->diag, PG_E_BAD_CHAR, P->m->filename, x.line, x.col, "unexpected character 0x%02x",
                         (unsigned)(unsigned char)x.s[0]);
            P->nerrors++;
            continue;
        }
        bool glue = len == 0 || (x.kind == TK_PUNCT && x.punct == ',');
        size_t add = (glue ? 0 : 1) + (size_t)x.n;
        if (!big && len + add < sizeof small) {
            if (!glue) small[len] = ' ';
            memcpy(small + len + (glue ? 0 : 1), x.s, (size_t)x.n);
        } else {
            if (!big) { big = true; b.len = 0; pg_buf_putn(&b, small, len); }
            if (!glue) pg_buf_putc(&b, ' ');
            pg_buf_putn(&b, x.s, (size_t)x.n);
        }
        len += add;
    }
    if (tok_punct(lex_peek(&P->L), ';')) lex_next(&P->L);
    const char *r = big ? pg_arena_strndup(&P->m->arena, b.data, b.len) : pg_arena_strndup(&P->m->arena, small, len);
    P->capbuf = b;
    return r;
}

/* Types that ptxas's declaration grammar does not know ("Parsing error near '.bf16'"), even in a
 * declaration that names nothing; a named one is refused by the validator (E307), as are the
 * types it parses but keeps for instructions (.e4m3, .f32x2: "may only be used as an
 * instruction type"). */
static bool decl_grammar_type(ptx_type t) {
    switch (t) {
    case PTX_T_B1: case PTX_T_B4: case PTX_T_U4: case PTX_T_S4: case PTX_T_BF16: case PTX_T_BF16X2: case PTX_T_TF32:
    case PTX_T_E2M3: case PTX_T_E3M2: case PTX_T_E2M1:
        return false;
    default:
        return true;
    }
}

/* A declaration that names nothing (`.reg .v4 .f32;`, `.align 4 .b32;`): ptxas takes it as
 * an empty statement after checking its qualifiers and type, as it checks a named one's.
 * Always true: its ';' is read, an error is reported and parsing goes on. */
static bool nameless_decl(parser *P, const ptx_decl *d, bool in_body) {
    char why[160];
    const ptx_type_info *ti = ptx_type_get(d->type);
    const char *w = !decl_grammar_type(d->type) ? (snprintf(why, sizeof why, "type %s is for instructions only: no declaration has it", ti->name), why)
                                                : ptx_decl_shape_problem(d, in_body, why, sizeof why);
    if (w) {   /* the statement is whole (its ';' read): report and go on */
        pg_diag_emit(P->diag, PG_E_BAD_DECL, P->m->filename, d->loc.line, d->loc.col, "%s", w);
        P->nerrors++;
    }
    return true;
}

/* Parse qualifiers + type + one or more names.  `first` is the space token
 * already consumed (or a linkage token).  Appends decls to *out.
 * `in_params`: a single name, stops before ',' or ')'.  `in_body`: in a
 * function's body.  The qualifiers come in the order [.align N] [.v2|.v4] type. */
static bool parse_decl(parser *P, token first, bool in_params, bool in_body, decl_vec *out_vec) {
    ptx_decl d;
    d = zero_decl;
    d.loc.line = first.line;
    d.loc.col = first.col;
    token t = first;
    pg_buf attrs = {0};
    bool have_space = false;
    for (;;) {
        if (t.kind != TK_DIR) break;
        ptx_space sp;
        ptx_type ty;
        bool linkage = tok_is(&t, ".visible") || tok_is(&t, ".extern") || tok_is(&t, ".weak") || tok_is(&t, ".common");
        if (linkage && in_params) {
            pg_diag_emit(P->diag, PG_E_BAD_DECL, P->m->filename, t.line, t.col, "a parameter cannot have linkage %.*s", t.n, t.s);
            P->nerrors++;
            pg_buf_free(&attrs);
            return false;
        }
        /* linkage precedes the state space (".visible .global .f32 x"); a trailing one
         * (".reg .f32.common") would print in front and read back as another statement */
        if (linkage && have_space) {
            pg_diag_emit(P->diag, PG_E_BAD_DECL, P->m->filename, t.line, t.col, "linkage %.*s must come before the state space", t.n, t.s);
            P->nerrors++;
            pg_buf_free(&attrs);
            return false;
        }
        if (tok_is(&t, ".visible")) d.is_visible = true;
        else if (tok_is(&t, ".extern")) d.is_extern = true;
        else if (tok_is(&t, ".weak")) d.is_weak = true;
        else if (tok_is(&t, ".common")) d.is_common = true;
        else if (is_space_dir(&t, &sp) && !have_space) {
            d.space = sp;
            have_space = true;
            if (memchr(t.s, ':', (size_t)t.n)) {
                if (attrs.len) pg_buf_putc(&attrs, ' ');
                pg_buf_putn(&attrs, t.s, (size_t)t.n);
            }
        } else if (tok_is(&t, ".align")) {
            if (d.vec || d.type != PTX_T_NONE) {   /* ptxas: "Parsing error near '.align'" for .reg .u32 .align 4 %r */
                ERR(P, t, ".align comes before the vector and the type in a declaration (.reg .align 8 .v2 .u32 %%v)");
                pg_buf_free(&attrs);
                return false;
            }
            token n = lex_next(&P->L);
            int64_t v;
            if (n.kind != TK_INT || !parse_int_text(n.s, n.n, &v) || v <= 0 || v > (1 << 20)) {
                ERR(P, n, "expected an alignment after .align");
                pg_buf_free(&attrs);
                return false;
            }
            d.align = (int)v;
        } else if (tok_is(&t, ".v2") || tok_is(&t, ".v4") || tok_is(&t, ".v8")) {
            if (d.type != PTX_T_NONE) {   /* ptxas: "Parsing error near '.v2'" for .reg .f32 .v2 %v */
                ERR(P, t, "%.*s comes before the type in a declaration (.reg .v2 .f32 %%v)", t.n, t.s);
                pg_buf_free(&attrs);
                return false;
            }
            if (d.vec || t.s[2] == '8') {   /* ptxas: "Parsing error near '.v8'" (.v8 is for ld/st), near '.v4' for .v2 .v4 */
                ERR(P, t, "%.*s: a declaration takes one vector qualifier, .v2 or .v4", t.n, t.s);
                pg_buf_free(&attrs);
                return false;
            }
            d.vec = t.s[2] - '0';
        } else if ((ty = ptx_type_lookup(t.s, (size_t)t.n)) != PTX_T_NONE && d.type == PTX_T_NONE) {
            d.type = ty;
        } else if (tok_is(&t, ".ptr")) {
            /* .ptr[.space][.align N] on kernel params */
            if (attrs.len) pg_buf_putc(&attrs, ' ');
            pg_buf_puts(&attrs, ".ptr");
            for (;;) {
                token *n = lex_peek(&P->L);
                if (n->kind == TK_DIR && !n->space_before && !tok_is(n, ".align")) {
                    token x = lex_next(&P->L);
                    pg_buf_putn(&attrs, x.s, (size_t)x.n);
                } else if (n->kind == TK_DIR && tok_is(n, ".align")) {
                    lex_next(&P->L);
                    token x = lex_next(&P->L);
                    int64_t v;
                    if (x.kind != TK_INT || !parse_int_text(x.s, x.n, &v) || v <= 0 || v > (1 << 20)) {
                        ERR(P, x, "expected an alignment after .ptr .align");
                        pg_buf_free(&attrs);
                        return false;
                    }
                    if (v & (v - 1)) {   /* ptxas: "Alignment must be a power of two" */
                        pg_diag_emit(P->diag, PG_E_BAD_DECL, P->m->filename, x.line, x.col,
                                     ".ptr .align %.*s: an alignment is a power of two", x.n, x.s);
                        P->nerrors++;
                    }
                    pg_buf_printf(&attrs, ".align %.*s", x.n, x.s);
                } else break;
            }
        } else if (tok_is(&t, ".attribute")) {
            bool eof;
            if (attrs.len) pg_buf_putc(&attrs, ' ');
            pg_buf_puts(&attrs, ".attribute");
            if (!tok_punct(lex_peek(&P->L), '(')) { ERR(P, t, "expected '(' after .attribute"); pg_buf_free(&attrs); return false; }
            lex_next(&P->L);
            const char *inner = capture_until(P, ")", &eof);
            if (!expect_punct(P, ')')) { pg_buf_free(&attrs); return false; }
            pg_buf_printf(&attrs, "(%s)", inner);
        } else {
            char dd[64];
            tokdesc(&t, dd, sizeof dd);
            pg_diag_emit(P->diag, PG_E_BAD_DECL, P->m->filename, t.line, t.col, "unexpected %s in declaration", dd);
            P->nerrors++;
            pg_buf_free(&attrs);
            return false;
        }
        t = lex_next(&P->L);
    }
    if (attrs.len) d.attrs = pg_arena_strndup(&P->m->arena, attrs.data, attrs.len);
    pg_buf_free(&attrs);
    if (d.type == PTX_T_NONE) {
        pg_diag_emit(P->diag, PG_E_BAD_DECL, P->m->filename, first.line, first.col, "declaration without a type");
        P->nerrors++;
        return false;
    }
    /* names */
    if (!in_params && tok_punct(&t, ';')) return nameless_decl(P, &d, in_body);   /* `.reg .f32 ;` declares nothing */
    for (;;) {
        if (t.kind != TK_IDENT) {
            char dd[64];
            tokdesc(&t, dd, sizeof dd);
            ERR(P, t, "expected a name in declaration but found %s", dd);
            return false;
        }
        if (memchr(t.s, '.', (size_t)t.n)) {   /* %tid.x lexes as one name; ptxas: "Parsing error near '.x'" */
            ERR(P, t, "'%.*s': a declared name has no '.'", t.n, t.s);
            return false;
        }
        ptx_decl e = d;
        e.name = tokdup(P, &t);
        e.loc.line = t.line;
        e.loc.col = t.col;
        token *n = lex_peek(&P->L);
        if (tok_punct(n, '<')) {
            lex_next(&P->L);
            token num = lex_next(&P->L);
            int64_t v;
            if (num.kind != TK_INT || !parse_int_text(num.s, num.n, &v) || v < 0 || v > (1 << 24)) {
                ERR(P, num, "expected a register count in '<N>'");
                return false;
            }
            e.count = (int)v;
            if (!expect_punct(P, '>')) return false;
            n = lex_peek(&P->L);
        }
        PG_VEC(int64_t) dims = {0};
        while (tok_punct(n, '[')) {
            lex_next(&P->L);
            if (tok_punct(lex_peek(&P->L), ']')) {
                pg_vec_push(dims, -1);
            } else {
                token num = lex_next(&P->L);
                int64_t v;
                if (num.kind != TK_INT || !parse_int_text(num.s, num.n, &v) || v < 0) {
                    ERR(P, num, "expected an array size");
                    pg_vec_free(dims);
                    return false;
                }
                pg_vec_push(dims, v);
            }
            if (!expect_punct(P, ']')) { pg_vec_free(dims); return false; }
            if (dims.n > 8) { ERR(P, *n, "too many array dimensions"); pg_vec_free(dims); return false; }
            n = lex_peek(&P->L);
        }
        if (dims.n) {
            e.ndims = dims.n;
            e.dims = pg_arena_alloc(&P->m->arena, sizeof(int64_t) * (size_t)dims.n);
            memcpy(e.dims, dims.v, sizeof(int64_t) * (size_t)dims.n);
        }
        pg_vec_free(dims);
        if (!in_params && tok_punct(n, '=')) {
            lex_next(&P->L);
            bool eof;
            lexer at = P->L;
            int errs = P->nerrors;
            e.init = capture_init(P, ",;", &eof);
            if (eof) { ERR(P, P->L.peek, "unterminated initializer"); return false; }
            if (P->cap_dir.kind != TK_EOF) {   /* ptxas: "Parsing error near '.aligned'" for {1, .aligned, 3} */
                ERR(P, P->cap_dir, "unexpected %.*s in an initializer", P->cap_dir.n, P->cap_dir.s);
                return false;
            }
            if (P->nerrors == errs) fold_init_values(P, at, P->L);
            n = lex_peek(&P->L);
        }
        pg_vec_push(*out_vec, e);
        if (in_params) return true;
        if (tok_punct(n, ',')) {
            lex_next(&P->L);
            t = lex_next(&P->L);
            continue;
        }
        return expect_punct(P, ';');
    }
}

/* ------------------------------------------------------------ statements */
/* Where the text before token t ends: the line of its last character and the
 * column just after it, skipping whitespace and comments backwards.  A missing
 * ';' is reported there, where the instruction ends, as clang does, rather than
 * at the next statement.  Only called on the error path. */
static void end_before(const parser *P, const token *t, int *line, int *col) {
    const char *src = P->L.src, *q = t->s;
    int nl = 0;
    for (;;) {
        while (q > src && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\r' || q[-1] == '\n' || q[-1] == '\f' || q[-1] == '\v'))
            nl += *--q == '\n';
        if (q - src >= 2 && q[-1] == '/' && q[-2] == '*') {   /* the end of a block comment: jump to its start */
            const char *c = q - 2;
            while (c > src && !(c[-1] == '/' && c[0] == '*')) nl += *--c == '\n';
            q = c > src ? c - 1 : src;
            continue;
        }
        const char *ls = q;   /* a line comment ending here: its "//" outside a string */
        while (ls > src && ls[-1] != '\n') ls--;
        const char *cm = NULL;
        bool str = false;
        for (const char *c = ls; c < q; c++) {
            if (*c == '"') str = !str;
            if (!str && c[0] == '/' && c + 1 < q && c[1] == '/') { cm = c; break; }
        }
        if (!cm) {
            *line = t->line - nl;
            *col = (int)(q - ls) + 1;
            return;
        }
        q = cm;
    }
}

/* Can the next token, on a line after the instruction's head, only start a
 * new statement (a directive, guard, brace, label or opcode)?  Then the head
 * was a whole instruction missing its ';' (nvcc never breaks a line before
 * the first operand). */
static bool starts_statement(const parser *P, const token *n) {
    if (n->kind == TK_DIR || n->kind == TK_EOF || tok_punct(n, '@') || tok_punct(n, '}')) return true;
    if (n->kind != TK_IDENT || n->s[0] == '%') return false;
    const char *e = n->s + n->n;
    while (e < P->L.end && (*e == ' ' || *e == '\t')) e++;
    if (e < P->L.end && *e == ':') return true;   /* a label */
    int nforms;
    isa_forms_for(n->s, (size_t)n->n, &nforms);
    return nforms > 0;
}

/* Report the missing ';' of an instruction that ended before token n. */
static void missing_semicolon(parser *P, const token *n) {
    int line, col;
    end_before(P, n, &line, &col);
    pg_diag_emit(P->diag, PG_E_SYNTAX, P->m->filename, line, col, "expected ';' after this instruction");
    P->nerrors++;
}

static bool parse_insn(parser *P, token first, ptx_stmt *st) {
    ptx_insn *in = &st->u.insn;
    st->kind = PTX_ST_INSN;
    token t = first;
    if (tok_punct(&t, '@')) {
        token *p = lex_peek(&P->L);
        bool neg = false;
        if (tok_punct(p, '!')) { lex_next(&P->L); neg = true; }
        token g = lex_next(&P->L);
        if (g.kind != TK_IDENT) { ERR(P, g, "expected a predicate register after '@'"); return false; }
        in->guard = tokdup(P, &g);
        in->guard_neg = neg;
        t = lex_next(&P->L);
    }
    if (t.kind != TK_IDENT || t.s[0] == '%') {
        char d[64];
        tokdesc(&t, d, sizeof d);
        ERR(P, t, "expected an instruction but found %s", d);
        return false;
    }
    st->loc.line = t.line;
    st->loc.col = t.col;
    /* the modifiers follow the opcode: "ld.global.v4.f32"; ptxas also reads one after a
     * space on the same line (add.rn.ftz.sat .sat.f16x2, wmma.load.c.sync .sync.aligned...) */
    const char *ms[PTX_MAX_MODS];
    int mn[PTX_MAX_MODS];
    int nmods = 0;
    for (;;) {
        token *n = lex_peek(&P->L);
        if (n->kind != TK_DIR || (n->space_before && n->line != t.line)) break;
        token x = lex_next(&P->L);
        if (nmods >= PTX_MAX_MODS) {
            pg_diag_emit(P->diag, PG_E_LIMIT, P->m->filename, x.line, x.col, "more than %d modifiers", PTX_MAX_MODS);
            P->nerrors++;
            return false;
        }
        ms[nmods] = x.s;
        mn[nmods++] = x.n;
    }
    /* Known opcodes and modifiers point at the ISA table's own (static,
     * immutable) strings: no copy, and the validator finds them by pointer.
     * The whole head is resolved once per module. */
    const char *head_end = nmods ? ms[nmods - 1] + mn[nmods - 1] : t.s + t.n;
    intern_ent *he = intern_ent_of(P, t.s, (int)(head_end - t.s));
    if (!he->head) {
        int nforms;
        const isa_form *const *forms = isa_forms_for(t.s, (size_t)t.n, &nforms);
        insn_head h = {nforms ? forms[0]->opcode : NULL, nmods, NULL, NULL};
        if (!h.opcode) h.opcode = tokdup(P, &t);
        h.mods = pg_arena_alloc(&P->m->arena, sizeof(char *) * (size_t)(nmods ? nmods : 1));
        h.ids = pg_arena_alloc(&P->m->arena, sizeof(uint16_t) * (size_t)(nmods ? nmods : 1));
        for (int k = 0; k < nmods; k++) {
            h.ids[k] = isa_modifier_id(ms[k], (size_t)mn[k]);
            h.mods[k] = h.ids[k] ? isa_modifier_text(h.ids[k]) : intern_ent_of(P, ms[k], mn[k])->s;
        }
        pg_vec_push(P->heads, h);
        he = intern_ent_of(P, t.s, (int)(head_end - t.s));   /* the table may have grown */
        he->head = P->heads.n;
    }
    const insn_head *h = &P->heads.v[he->head - 1];
    in->opcode = h->opcode;
    in->nmods = h->nmods;
    in->mods = h->mods;
    in->mod_ids = h->ids;
    P->in_call = in->opcode[0] == 'c' && !strcmp(in->opcode, "call");
    /* The operands are parsed in place into this array, not into a local that is then
     * pushed: that copy read the operand back with wide loads right after parse_operand's
     * narrow field stores, a store-forwarding stall per operand (~40% of parse_function's
     * samples, perf).  Nested lists still stack up on P->opstack. */
    ptx_operand ops[PTX_MAX_OPERANDS + 1];
    int nops = 0, base = P->opstack.n;
    token *n = lex_peek(&P->L);
    if (!tok_punct(n, ';') && n->line > t.line && starts_statement(P, n)) {
        /* "ret" then the next statement: finish this one, go on with the next */
        missing_semicolon(P, n);
        in->nops = 0;
        in->ops = NULL;
        return true;
    }
    if (!tok_punct(n, ';')) {
        for (;;) {
            ptx_operand *op = &ops[nops];
            *op = zero_op;
            if (!parse_operand(P, op, 0)) { P->opstack.n = base; return false; }
            if (++nops > PTX_MAX_OPERANDS) { ERR(P, first, "too many operands"); P->opstack.n = base; return false; }
            n = lex_peek(&P->L);
            if (tok_punct(n, ',')) { lex_next(&P->L); continue; }
            break;
        }
    }
    n = lex_peek(&P->L);
    bool ok = true;
    if (!tok_punct(n, ';')) {
        int line, col;
        end_before(P, n, &line, &col);
        if (line < n->line)   /* the operands ended on an earlier line: only a ';' could follow them there */
            missing_semicolon(P, n);
        else
            ok = expect_punct(P, ';');
    } else {
        lex_next(&P->L);
    }
    if (!ok) { P->opstack.n = base; return false; }
    in->nops = nops;
    in->ops = NULL;
    if (nops) in->ops = arena_copy(&P->m->arena, ops, sizeof(ptx_operand) * (size_t)nops);
    return true;
}

/* One number of a .loc: 10, 0x10, 5U; not 0f3F800000 (ptxas: "Parsing error near '0f3F800000'")
 * nor past 32 bits ("Constant overflow"). */
static bool loc_number(const char **pp) {
    const char *p = *pp;
    while (*p == ' ') p++;
    if (*p < '0' || *p > '9') return false;
    bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    if (hex) p += 2;
    const char *d0 = p;
    uint64_t v = 0;
    for (; hex ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p); p++)
        if (v <= UINT32_MAX) v = v * (hex ? 16 : 10) + (uint64_t)(isdigit((unsigned char)*p) ? *p - '0' : (*p | 32) - 'a' + 10);
    if (p == d0 || v > UINT32_MAX) return false;
    if (*p == 'U') p++;   /* 5U */
    if (isalnum((unsigned char)*p) || *p == '.') return false;
    *pp = p;
    return true;
}

static bool loc_word(const char **pp, const char *w) {
    const char *p = *pp;
    while (*p == ' ') p++;
    size_t n = strlen(w);
    if (strncmp(p, w, n)) return false;
    *pp = p + n;
    return true;
}

/* ".loc FILE LINE COL" then nothing or ", function_name LABEL[+N], inlined_at FILE LINE COL", the
 * PTX ISA's grammar (ptxas: "Parsing error near '0'" for a fourth number, near the next statement
 * for a missing column, near 'inlined_at' without function_name, near the next statement for
 * function_name without inlined_at, near '5' for a number as the label, near '-' for LABEL-1) */
static bool loc_shape_ok(const char *text) {
    const char *p = text;
    for (int i = 0; i < 3; i++)
        if (!loc_number(&p)) return false;
    while (*p == ' ') p++;
    if (*p == 0) return true;
    if (!loc_word(&p, ",") || !loc_word(&p, "function_name ")) return false;
    while (*p == ' ') p++;
    if (!(isalpha((unsigned char)*p) || *p == '_' || *p == '$' || *p == '%')) return false;
    for (p++; isalnum((unsigned char)*p) || *p == '_' || *p == '$'; p++) {}
    if (loc_word(&p, "+") && !loc_number(&p)) return false;
    if (!loc_word(&p, ",") || !loc_word(&p, "inlined_at ")) return false;
    for (int i = 0; i < 3; i++)
        if (!loc_number(&p)) return false;
    while (*p == ' ') p++;
    return *p == 0;
}

/* ".pragma" takes one or more string literals separated by commas (ptxas: "Parsing error near
 * '+'" for anything else, '.pragma;' included) */
static bool pragma_shape_ok(const char *text) {
    const char *p = text;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        if (*p != '"') return false;
        for (p++; *p && *p != '"'; p++)
            if (*p == '\\' && p[1]) p++;
        if (*p != '"') return false;
        p++;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == 0) return true;
        if (*p != ',') return false;
        p++;
    }
}

/* ".alias" takes two names, "fAlias, fAliasee" (ptxas: "Parsing error near '.b32'" for
 * .alias.b32 %r1, %r2 -- a token mutant of an instruction) */
static bool alias_shape_ok(const char *text) {
    const char *p = text;
    for (int k = 0; k < 2; k++) {
        while (*p == ' ') p++;
        if (!(isalpha((unsigned char)*p) || *p == '_' || *p == '$')) return false;
        while (isalnum((unsigned char)*p) || *p == '_' || *p == '$') p++;
        while (*p == ' ') p++;
        if (k == 0 && *p++ != ',') return false;
    }
    return *p == 0;
}

/* Directive statement inside a body: .loc, .pragma, .branchtargets ... */
static bool parse_body_directive(parser *P, token t, const char *label, ptx_stmt *st) {
    st->kind = PTX_ST_DIRECTIVE;
    st->u.dir.name = tokdup(P, &t);
    st->u.dir.label = label;
    if (tok_is(&t, ".loc") || tok_is(&t, ".file")) {
        if (tok_is(&t, ".loc") && lex_peek(&P->L)->kind != TK_INT) {   /* .loc FILE LINE COL: FILE is a number */
            token n = *lex_peek(&P->L);
            ERR(P, n, "expected a file number after .loc");
        }
        st->u.dir.text = capture_line(P, t.line);
        if (tok_is(&t, ".loc") && !loc_shape_ok(st->u.dir.text))
            ERR(P, t, ".loc takes a file, a line and a column number ('.loc 1 10 4'), then only ', function_name LABEL, inlined_at FILE LINE COL'");
        return true;
    }
    bool eof;
    const char *text = capture_until(P, ";", &eof);
    if (eof) { ERR(P, t, "directive %.*s not terminated by ';'", t.n, t.s); return false; }
    token end = lex_next(&P->L);   /* the capture stops at ';' or at an unmatched ')' / ']' */
    if (!tok_punct(&end, ';')) { ERR(P, end, "expected ';' after %.*s", t.n, t.s); return false; }
    st->u.dir.text = text;
    if (tok_is(&t, ".pragma") && !pragma_shape_ok(text))
        ERR(P, t, ".pragma takes string literals separated by commas (.pragma \"nounroll\";)");
    if (tok_is(&t, ".alias") && !alias_shape_ok(text))
        ERR(P, t, ".alias takes two function names (.alias fAlias, fAliasee;)");
    if (tok_is(&t, ".branchtargets") || tok_is(&t, ".calltargets")) {
        /* split on commas */
        PG_VEC(const char *) args = {0};
        const char *p = text;
        while (*p) {
            int commas = 0;
            while (*p == ' ' || *p == ',') commas += *p++ == ',';
            /* one comma between two names (ptxas: "Parsing error near '$L0'" for $L0 $L0, $L1; near ';'
             * for a comma at the end: $L0, ;) */
            if (*p ? commas != (args.n ? 1 : 0) : commas != 0) {
                ERR(P, t, "%.*s takes names separated by one comma", t.n, t.s);
                break;
            }
            const char *q = p;
            while (*q && *q != ',' && *q != ' ') q++;
            if (q > p) pg_vec_push(args, pg_arena_strndup(&P->m->arena, p, (size_t)(q - p)));
            p = q;
        }
        st->u.dir.nargs = args.n;
        if (args.n) {
            st->u.dir.args = pg_arena_alloc(&P->m->arena, sizeof(char *) * (size_t)args.n);
            memcpy(st->u.dir.args, args.v, sizeof(char *) * (size_t)args.n);
        }
        pg_vec_free(args);
    }
    return true;
}

/* The comment lines of [s, e) (a run of full-line `//` comments, lexer.cmt_s):
 * the text after each `//`, trailing blanks and CR dropped, joined by '\n'. */
static const char *comment_text(parser *P, const char *s, const char *e) {
    pg_buf *b = &P->capbuf;
    b->len = 0;
    while (s < e) {
        const char *nl = memchr(s, '\n', (size_t)(e - s));
        const char *le = nl ? nl : e;
        const char *c = s;
        while (c < le && (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\f' || *c == '\v')) c++;
        if (le - c >= 2 && c[0] == '/' && c[1] == '/') {   /* blank lines inside the run are skipped */
            c += 2;
            const char *t = le;
            while (t > c && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r' || t[-1] == '\f' || t[-1] == '\v')) t--;
            if (b->len) pg_buf_putc(b, '\n');
            pg_buf_putn(b, c, (size_t)(t - c));
        }
        s = nl ? nl + 1 : e;
    }
    return pg_arena_strndup(&P->m->arena, b->len ? b->data : "", b->len);
}

static void parse_body(parser *P, ptx_func *f) {
    /* each statement is parsed in place, in the next free slot of P->body;
     * PUSH keeps it */
#define PUSH() (P->body.n++)
    P->body.n = 0;
    int depth = 1;
    for (;;) {
        token t = lex_next(&P->L);
        /* t is the last token scanned (a peeked one is returned as it was scanned),
         * so the lexer's comment run is the one before t; read it before any peek */
        const char *comment = P->L.cmt_s ? comment_text(P, P->L.cmt_s, P->L.cmt_e) : NULL;
        if (t.kind == TK_EOF) {
            ERR(P, t, "missing '}' at end of function '%s'", f->name);
            break;
        }
        if (P->body.n >= P->body.cap) P->body.v = pg_vec_grow_(P->body.v, &P->body.cap, sizeof(ptx_stmt), P->body.n + 1);
        ptx_stmt *st = &P->body.v[P->body.n];
        *st = zero_stmt;
        st->loc.line = t.line;
        st->loc.col = t.col;
        st->depth = depth;
        st->comment = comment;
        if (tok_punct(&t, '}')) {
            depth--;
            if (depth == 0) { f->end_loc = st->loc; f->end_comment = comment; break; }
            st->kind = PTX_ST_BLOCK_END;
            st->depth = depth;
            PUSH();
            continue;
        }
        if (tok_punct(&t, '{')) {
            if (depth >= PTX_MAX_NEST) {
                pg_diag_emit(P->diag, PG_E_LIMIT, P->m->filename, t.line, t.col, "blocks nested deeper than %d", PTX_MAX_NEST);
                P->nerrors++;
                /* consume the rest of the function to stay bounded */
                int d = 1;
                while (d > 0) {
                    token x = lex_next(&P->L);
                    if (x.kind == TK_EOF) break;
                    if (tok_punct(&x, '{')) d++;
                    if (tok_punct(&x, '}')) d--;
                }
                continue;
            }
            st->kind = PTX_ST_BLOCK_BEGIN;
            depth++;
            PUSH();
            continue;
        }
        if (tok_punct(&t, ';')) {   /* ptxas: "Parsing error near ';'" */
            ERR(P, t, "an empty statement: ';' with no instruction or directive before it");
            continue;
        }
        if (t.kind == TK_IDENT && tok_punct(lex_peek(&P->L), ':')) {
            lex_next(&P->L);
            /* an identifier that starts with $, % or _ has more after it (ptxas: "Parsing error near '$'") */
            if (t.n == 1 && (t.s[0] == '$' || t.s[0] == '%' || t.s[0] == '_'))
                ERR(P, t, "'%c' alone is no label name: a name that starts with '%c' needs more characters", t.s[0], t.s[0]);
            const char *label = tokdup(P, &t);
            token *n = lex_peek(&P->L);
            if (n->kind == TK_DIR && (tok_is(n, ".branchtargets") || tok_is(n, ".calltargets") || tok_is(n, ".callprototype"))) {
                token d = lex_next(&P->L);
                if (parse_body_directive(P, d, label, st)) PUSH();
                else recover(P);
                continue;
            }
            st->kind = PTX_ST_LABEL;
            st->u.label = label;
            PUSH();
            continue;
        }
        if (t.kind == TK_DIR) {
            ptx_space sp;
            if (tok_is(&t, ".extern") || tok_is(&t, ".visible") || tok_is(&t, ".weak")) {
                /* ptxas: "Parsing error near '.shared'": linkage is for module-scope names */
                ERR(P, t, "%.*s is a module-scope linkage directive, not one of a function body", t.n, t.s);
                recover(P);
                continue;
            }
            if (is_space_dir(&t, &sp)) {
                P->decls.n = 0;
                if (parse_decl(P, t, false, true, &P->decls)) {
                    ptx_stmt tmpl = *st;   /* st moves if body grows */
                    for (int i = 0; i < P->decls.n; i++) {
                        ptx_stmt s2 = tmpl;
                        if (i) s2.comment = NULL;   /* `.reg .b32 %a, %b;`: the comment goes with the first */
                        s2.kind = PTX_ST_DECL;
                        s2.u.decl = P->decls.v[i];
                        pg_vec_push(P->body, s2);
                    }
                } else {
                    recover(P);
                }
                continue;
            }
            /* ptxas knows no other directive in a body: a type alone is "No variable storage
             * specified", an unknown word (an opcode's modifiers without it) a syntax error, and so
             * is a performance directive (.maxntid, .reqntid, .maxnreg ...: the header's, before '{') */
            static const char *const body_dirs[] = {".loc", ".file", ".pragma", ".section", ".branchtargets", ".calltargets",
                                                    ".callprototype", ".dwarf", ".alias"};
            bool known = false;
            for (size_t k = 0; k < sizeof body_dirs / sizeof body_dirs[0] && !known; k++) known = tok_is(&t, body_dirs[k]);
            bool qualifier = tok_is(&t, ".align") || tok_is(&t, ".v2") || tok_is(&t, ".v4") || tok_is(&t, ".v8") ||
                             ptx_type_lookup(t.s, (size_t)t.n) != PTX_T_NONE;
            if (!known && qualifier) {
                /* `.v4 .u32;` declares nothing: ptxas takes it as an empty statement; with names
                 * it is "No variable storage specified" */
                P->decls.n = 0;
                if (!parse_decl(P, t, false, true, &P->decls)) recover(P);
                else if (P->decls.n)
                    ERR(P, t, "a declaration needs a state space (.reg, .local, .shared ...) before %.*s", t.n, t.s);
                continue;
            }
            if (!known) {
                ERR(P, t, "unknown directive %.*s in a function body", t.n, t.s);
                recover(P);
                continue;
            }
            if (parse_body_directive(P, t, NULL, st)) PUSH();
            else recover(P);
            continue;
        }
        if (parse_insn(P, t, st)) PUSH();
        else recover(P);
    }
    f->nbody = P->body.n;
    if (P->body.n) {
        f->body = pg_arena_alloc_raw(&P->m->arena, sizeof(ptx_stmt) * (size_t)P->body.n);
        memcpy(f->body, P->body.v, sizeof(ptx_stmt) * (size_t)P->body.n);
    }
#undef PUSH
}

static bool parse_param_list(parser *P, ptx_decl **out, int *n) {
    decl_vec v = {0};
    if (!expect_punct(P, '(')) return false;
    if (!tok_punct(lex_peek(&P->L), ')')) {
        for (;;) {
            token t = lex_next(&P->L);
            ptx_space sp;
            if (t.kind != TK_DIR || !is_space_dir(&t, &sp)) {
                char d[64];
                tokdesc(&t, d, sizeof d);
                ERR(P, t, "expected .param or .reg in parameter list but found %s", d);
                pg_vec_free(v);
                return false;
            }
            if (!parse_decl(P, t, true, false, &v)) { pg_vec_free(v); return false; }
            if (v.n > 4096) { ERR(P, t, "too many parameters"); pg_vec_free(v); return false; }
            if (tok_punct(lex_peek(&P->L), ',')) { lex_next(&P->L); continue; }
            break;
        }
    }
    if (!expect_punct(P, ')')) { pg_vec_free(v); return false; }
    *n = v.n;
    *out = NULL;
    if (v.n) {
        *out = pg_arena_alloc(&P->m->arena, sizeof(ptx_decl) * (size_t)v.n);
        memcpy(*out, v.v, sizeof(ptx_decl) * (size_t)v.n);
    }
    pg_vec_free(v);
    return true;
}

static bool parse_function(parser *P, token kw, bool vis, bool ext, bool weak, ptx_loc loc) {
    ptx_func f;
    memset(&f, 0, sizeof f);
    f.is_entry = tok_is(&kw, ".entry");
    f.is_visible = vis;
    f.is_extern = ext;
    f.is_weak = weak;
    f.loc = loc;
    /* attributes before the name: .func .attribute(.unified(...)) / .noreturn after params */
    if (!f.is_entry && tok_punct(lex_peek(&P->L), '(')) {
        if (!parse_param_list(P, &f.rets, &f.nrets)) return false;
    }
    token name = lex_next(&P->L);
    if (name.kind != TK_IDENT) {
        char d[64];
        tokdesc(&name, d, sizeof d);
        ERR(P, name, "expected a function name but found %s", d);
        return false;
    }
    f.name = tokdup(P, &name);
    if (tok_punct(lex_peek(&P->L), '(')) {
        if (!parse_param_list(P, &f.params, &f.nparams)) return false;
    }
    PG_VEC(ptx_perf) perf = {0};
    pg_buf attrs = {0};
    for (;;) {
        token *n = lex_peek(&P->L);
        if (n->kind != TK_DIR) break;
        token d = lex_next(&P->L);
        if (tok_is(&d, ".noreturn")) {
            if (attrs.len) pg_buf_putc(&attrs, ' ');
            pg_buf_puts(&attrs, ".noreturn");
            continue;
        }
        if (tok_is(&d, ".pragma")) {   /* between the signature and the body (ptxas takes it there) */
            if (attrs.len) pg_buf_putc(&attrs, ' ');
            pg_buf_puts(&attrs, ".pragma");
            for (int k = 0;; k++) {
                token v = lex_next(&P->L);
                if (v.kind != TK_STRING) { ERR(P, v, "expected a string after .pragma"); break; }
                pg_buf_printf(&attrs, "%s%.*s", k ? ", " : " ", v.n, v.s);
                if (tok_punct(lex_peek(&P->L), ',')) { lex_next(&P->L); continue; }
                break;
            }
            if (!expect_punct(P, ';')) break;
            pg_buf_putc(&attrs, ';');
            continue;
        }
        if (tok_is(&d, ".attribute") || tok_is(&d, ".abi_preserve") || tok_is(&d, ".abi_preserve_control")) {
            bool eof;
            if (attrs.len) pg_buf_putc(&attrs, ' ');
            pg_buf_putn(&attrs, d.s, (size_t)d.n);
            if (tok_punct(lex_peek(&P->L), '(')) {
                lex_next(&P->L);
                const char *inner = capture_until(P, ")", &eof);
                if (!expect_punct(P, ')')) break;
                pg_buf_printf(&attrs, "(%s)", inner);
            } else {
                token v = lex_next(&P->L);
                pg_buf_printf(&attrs, " %.*s", v.n, v.s);
            }
            continue;
        }
        ptx_perf pf;
        memset(&pf, 0, sizeof pf);
        pf.name = tokdup(P, &d);
        pf.loc.line = d.line;
        pf.loc.col = d.col;
        for (;;) {
            token *v = lex_peek(&P->L);
            if (v->kind != TK_INT) break;
            token x = lex_next(&P->L);
            int64_t val;
            if (!parse_int_text(x.s, x.n, &val)) { ERR(P, x, "bad number in %s", pf.name); break; }
            if (pf.nvals < 3) pf.vals[pf.nvals++] = val;
            else ERR(P, x, "too many values for %s", pf.name);
            if (tok_punct(lex_peek(&P->L), ',')) { lex_next(&P->L); continue; }
            break;
        }
        if (pf.nvals == 0 && !tok_is(&d, ".explicitcluster") && !tok_is(&d, ".blocksareclusters")) {
            ERR(P, d, "expected a value after %s", pf.name);
        }
        pg_vec_push(perf, pf);
    }
    if (attrs.len) f.attrs = pg_arena_strndup(&P->m->arena, attrs.data, attrs.len);
    pg_buf_free(&attrs);
    f.nperf = perf.n;
    if (perf.n) {
        f.perf = pg_arena_alloc(&P->m->arena, sizeof(ptx_perf) * (size_t)perf.n);
        memcpy(f.perf, perf.v, sizeof(ptx_perf) * (size_t)perf.n);
    }
    pg_vec_free(perf);
    token t = lex_next(&P->L);
    if (tok_punct(&t, ';')) {
        f.has_body = false;
    } else if (tok_punct(&t, '{')) {
        f.has_body = true;
        parse_body(P, &f);
    } else {
        char d[64];
        tokdesc(&t, d, sizeof d);
        ERR(P, t, "expected '{' or ';' after the signature of '%s' but found %s", f.name, d);
        return false;
    }
    ptx_top top;
    memset(&top, 0, sizeof top);
    top.kind = PTX_TOP_FUNC;
    top.loc = loc;
    top.u.func = P->funcs.n;
    pg_vec_push(P->funcs, f);
    pg_vec_push(P->tops, top);
    return true;
}

/* .section name { raw } : kept verbatim (debug sections of -G builds are
 * large, so they are skipped byte-wise, not tokenized). */
static bool parse_section(parser *P, token kw) {
    token name = lex_next(&P->L);
    token open = lex_next(&P->L);
    if (!tok_punct(&open, '{')) { ERR(P, open, "expected '{' after .section %.*s", name.n, name.s); return false; }
    lexer *L = &P->L;   /* no token is peeked here: lex_next above consumed '{' */
    /* bytes that need a look: everything else only advances the column */
    static const unsigned char special[256] = {['"'] = 1, ['\\'] = 1, ['/'] = 1, ['{'] = 1, ['}'] = 1, ['\n'] = 1};
    const char *p = L->p, *end = L->end;
    const char *start = p;
    int line = L->line, col = L->col;
    int depth = 1;
    bool in_str = false;
    while (p < end) {
        if (!in_str) {
            const char *q = p;
            while (q < end && !special[(unsigned char)*q]) q++;
            col += (int)(q - p);
            p = q;
            if (p >= end) break;
        }
        char c = *p;
        if (in_str) {
            if (c == '\\' && p + 1 < end) { p++; col++; }   /* the escaped byte is never a line break */
            else if (c == '"') in_str = false;
        } else if (c == '"') in_str = true;
        else if (c == '/' && p + 1 < end && p[1] == '/') {
            const char *q = memchr(p, '\n', (size_t)(end - p));
            if (!q) q = end;
            col += (int)(q - p);
            p = q;
            continue;
        } else if (c == '{') depth++;
        else if (c == '}' && --depth == 0) break;
        if (c == '\n') { line++; col = 1; } else col++;
        p++;
    }
    L->p = p;
    L->line = line;
    L->col = col;
    if (L->p >= L->end) { ERR(P, kw, "unterminated .section"); return false; }
    const char *stop = L->p;
    L->p++;
    L->col++;
    /* trim surrounding blank space so printing and re-parsing is stable */
    while (start < stop && (*start == ' ' || *start == '\t' || *start == '\n' || *start == '\r')) start++;
    while (stop > start && (stop[-1] == ' ' || stop[-1] == '\t' || stop[-1] == '\n' || stop[-1] == '\r')) stop--;
    /* "NAME {\nBODY\n}" */
    size_t bl = (size_t)(stop - start), tl = (size_t)name.n + 3 + bl + 2;
    char *text = pg_arena_alloc(&P->m->arena, tl + 1);
    memcpy(text, name.s, (size_t)name.n);
    memcpy(text + name.n, " {\n", 3);
    memcpy(text + name.n + 3, start, bl);
    memcpy(text + name.n + 3 + bl, "\n}", 2);
    ptx_top top;
    memset(&top, 0, sizeof top);
    top.kind = PTX_TOP_DIRECTIVE;
    top.loc.line = kw.line;
    top.loc.col = kw.col;
    top.u.dir.name = tokdup(P, &kw);
    top.u.dir.text = text;
    pg_vec_push(P->tops, top);
    return true;
}

static void parse_top(parser *P) {
    ptx_module *m = P->m;
    for (;;) {
        token t = lex_next(&P->L);
        if (t.kind == TK_EOF) break;
        ptx_loc loc = {t.line, t.col};
        if (tok_punct(&t, ';')) {   /* ptxas: "Parsing error near ';'" */
            ERR(P, t, "an empty statement: ';' with no directive before it");
            continue;
        }
        if (t.kind != TK_DIR) {
            char d[64];
            tokdesc(&t, d, sizeof d);
            ERR(P, t, "expected a directive at module level but found %s", d);
            recover(P);
            if (tok_punct(lex_peek(&P->L), '}')) lex_next(&P->L);
            continue;
        }
        if (tok_is(&t, ".version")) {
            token v = lex_next(&P->L);
            if (v.kind != TK_FLOAT || !memchr(v.s, '.', (size_t)v.n)) { ERR(P, v, "expected MAJOR.MINOR after .version"); recover(P); continue; }
            /* the digits inside the token, as atoi reads them: the source need not end in a NUL
             * (atoi ran past the end of a buffer ending in ".version 8.") */
            const char *dot = memchr(v.s, '.', (size_t)v.n), *ve = v.s + v.n;
            int maj = 0, min = 0;
            for (const char *q = v.s; q < dot && *q >= '0' && *q <= '9' && maj < 100000; q++) maj = maj * 10 + (*q - '0');
            for (const char *q = dot + 1; q < ve && *q >= '0' && *q <= '9' && min < 100000; q++) min = min * 10 + (*q - '0');
            if (m->ptx_version) {
                pg_diag_emit(P->diag, PG_E_HEADER, m->filename, t.line, t.col, "duplicate .version");
                P->nerrors++;
            }
            m->ptx_version = maj * 10 + (min > 9 ? 9 : min);
            m->version_text = tokdup(P, &v);
            m->version_loc = loc;
            continue;
        }
        if (tok_is(&t, ".target")) {
            PG_VEC(const char *) tg = {0};
            for (;;) {
                token x = lex_next(&P->L);
                if (x.kind != TK_IDENT) { ERR(P, x, "expected a target name"); break; }
                pg_vec_push(tg, tokdup(P, &x));
                if (tg.n > 16) { ERR(P, x, "too many targets"); break; }
                if (tok_punct(lex_peek(&P->L), ',')) { lex_next(&P->L); continue; }
                break;
            }
            if (m->ntargets) {
                pg_diag_emit(P->diag, PG_E_HEADER, m->filename, t.line, t.col, "duplicate .target");
                P->nerrors++;
            }
            m->ntargets = tg.n;
            m->targets = pg_arena_alloc(&P->m->arena, sizeof(char *) * (size_t)(tg.n + 1));
            if (tg.n) memcpy(m->targets, tg.v, sizeof(char *) * (size_t)tg.n);
            pg_vec_free(tg);
            m->target_loc = loc;
            for (int i = 0; i < m->ntargets; i++) {
                int sm;
                bool as, fam;
                if (isa_parse_target(m->targets[i], &sm, &as, &fam)) { m->sm = sm; m->arch_specific = as; }
            }
            continue;
        }
        if (tok_is(&t, ".address_size")) {
            token v = lex_next(&P->L);
            int64_t n;
            if (v.kind != TK_INT || !parse_int_text(v.s, v.n, &n)) { ERR(P, v, "expected 32 or 64 after .address_size"); continue; }
            m->address_size = (int)n;
            m->address_loc = loc;
            if (n != 32 && n != 64) {
                pg_diag_emit(P->diag, PG_E_HEADER, m->filename, v.line, v.col, ".address_size must be 32 or 64");
                P->nerrors++;
            }
            continue;
        }
        if (tok_is(&t, ".section")) { if (!parse_section(P, t)) recover(P); continue; }
        if (tok_is(&t, ".file") || tok_is(&t, ".pragma") || tok_is(&t, ".alias") || tok_is(&t, ".loc")) {
            bool eof = false;
            const char *text = (tok_is(&t, ".file") || tok_is(&t, ".loc")) ? capture_line(P, t.line) : capture_until(P, ";", &eof);
            ptx_top top;
            memset(&top, 0, sizeof top);
            top.kind = PTX_TOP_DIRECTIVE;
            top.loc = loc;
            top.u.dir.name = tokdup(P, &t);
            top.u.dir.text = text;
            if (tok_is(&t, ".pragma") && !eof && !pragma_shape_ok(text))
                ERR(P, t, ".pragma takes string literals separated by commas (.pragma \"nounroll\";)");
            if (tok_is(&t, ".alias") && !eof && !alias_shape_ok(text))
                ERR(P, t, ".alias takes two function names (.alias fAlias, fAliasee;)");
            pg_vec_push(P->tops, top);
            if (tok_punct(lex_peek(&P->L), ';')) lex_next(&P->L);
            else if (!tok_is(&t, ".file") && !tok_is(&t, ".loc")) {
                token *n = lex_peek(&P->L);
                ERR(P, *n, "expected ';' after %.*s", t.n, t.s);
                recover(P);
            }
            continue;
        }
        /* linkage, then .entry/.func or a variable */
        bool vis = false, ext = false, weak = false, common = false;
        token k = t;
        for (;;) {
            if (tok_is(&k, ".visible")) vis = true;
            else if (tok_is(&k, ".extern")) ext = true;
            else if (tok_is(&k, ".weak")) weak = true;
            else if (tok_is(&k, ".common")) common = true;
            else break;
            k = lex_next(&P->L);
        }
        if (tok_is(&k, ".entry") || tok_is(&k, ".func")) {
            if (!parse_function(P, k, vis, ext, weak, loc)) recover(P);
            continue;
        }
        ptx_space sp;
        if (k.kind == TK_DIR && (is_space_dir(&k, &sp) || ptx_type_lookup(k.s, (size_t)k.n) != PTX_T_NONE)) {
            decl_vec decls = {0};
            if (parse_decl(P, k, false, false, &decls)) {
                for (int i = 0; i < decls.n; i++) {
                    ptx_decl d = decls.v[i];
                    d.is_visible |= vis; d.is_extern |= ext; d.is_weak |= weak; d.is_common |= common;
                    ptx_top top;
                    memset(&top, 0, sizeof top);
                    top.kind = PTX_TOP_DECL;
                    top.loc = loc;
                    top.u.decl = d;
                    pg_vec_push(P->tops, top);
                }
            } else {
                recover(P);
            }
            pg_vec_free(decls);
            continue;
        }
        pg_diag_emit(P->diag, PG_E_DIRECTIVE, m->filename, k.line, k.col, "unknown module-level directive '%.*s'", k.n, k.s);
        P->nerrors++;
        recover(P);
    }
}

pg_status ptx_parse(const char *src, size_t len, const char *filename, ptx_module **out, pg_diag_sink *diag) {
    isa_init(NULL);
    if (!src) { src = ""; len = 0; }
    ptx_module *m = calloc(1, sizeof *m);
    if (!m) return PG_ERR_NOMEM;
    *out = m;
    m->filename = pg_arena_strdup(&m->arena, filename ? filename : "<input>");
    if (len > (size_t)PTX_MAX_FILE_BYTES) {
        pg_diag_emit(diag, PG_E_LIMIT, m->filename, 0, 0, "input larger than %d bytes", PTX_MAX_FILE_BYTES);
        return PG_ERR_LIMIT;
    }
    parser P;
    memset(&P, 0, sizeof P);
    P.m = m;
    P.diag = diag;
    ptx_lex_init(&P.L, src, len, m->filename, diag);
    /* NUL bytes are not PTX: report the first and stop there */
    const char *nul = memchr(src, 0, len);
    if (nul) {
        int line = 1, col = 1;
        for (const char *p = src; p < nul; p++) { if (*p == '\n') { line++; col = 1; } else col++; }
        pg_diag_emit(diag, PG_E_BAD_CHAR, m->filename, line, col, "NUL byte in input");
        P.nerrors++;
        P.L.end = nul;
    }
    /* ptxas reads ASCII only, comments included ("Unexpected non-ASCII character"): the first
     * other byte is an error here too, or check would pass what ptxas rejects */
    const char *ascii_end = src;   /* the first non-ASCII byte, 8 bytes a step where there is none */
    while (P.L.end - ascii_end >= 8) {
        uint64_t w;
        memcpy(&w, ascii_end, 8);
        if (w & 0x8080808080808080ull) break;
        ascii_end += 8;
    }
    for (const char *p = ascii_end; p < P.L.end; p++)
        if ((unsigned char)*p >= 0x80) {
            int line = 1, col = 1;
            for (const char *q = src; q < p; q++) { if (*q == '\n') { line++; col = 1; } else col++; }
            pg_diag_emit(diag, PG_E_BAD_CHAR, m->filename, line, col,
                         "non-ASCII byte 0x%02X: ptxas takes ASCII only, comments included", (unsigned)(unsigned char)*p);
            P.nerrors++;
            break;
        }
    /* a file whose lines end in CR alone (classic Mac) is one long line to PTX: say so, not only
     * "missing .version" (its first // comment runs to the end of the file) */
    if (len && !memchr(src, '\n', len) && memchr(src, '\r', len)) {
        pg_diag_emit(diag, PG_E_BAD_CHAR, m->filename, 1, 1, "the lines end in CR alone: PTX takes LF or CR-LF line ends");
        P.nerrors++;
    }
    /* size the scratch tables from the input: about one name per 16 bytes
     * and one statement per 32 */
    P.names_cap0 = 256;
    while ((size_t)P.names_cap0 < len / 16 && P.names_cap0 < (1 << 20)) P.names_cap0 *= 2;
    {
        int cap = (int)(len / 32) + 16;
        if (cap > 4096) cap = 4096;
        P.body.v = pg_vec_grow_(NULL, &P.body.cap, sizeof(ptx_stmt), cap);
    }
    names_take(&P);
    parse_top(&P);
    names_give_back(&P);
    pg_buf_free(&P.textbuf);
    pg_buf_free(&P.capbuf);
    pg_vec_free(P.opstack);
    free(P.names);
    pg_vec_free(P.name_ents);
    pg_vec_free(P.body);
    pg_vec_free(P.heads);
    pg_vec_free(P.decls);
    m->ntops = P.tops.n;
    m->tops = P.tops.v;   /* malloc'd; freed in ptx_module_free */
    m->nfuncs = P.funcs.n;
    m->funcs = P.funcs.v;
    return (P.nerrors || P.L.failed) ? PG_ERR_PARSE : PG_OK;
}

pg_status ptx_parse_file(const char *path, ptx_module **out, pg_diag_sink *diag) {
    char *src;
    size_t len;
    *out = NULL;
    pg_status st = pg_read_file(path, PTX_MAX_FILE_BYTES, &src, &len, diag);
    if (st != PG_OK) return st;
    st = ptx_parse(src, len, path, out, diag);
    free(src);
    return st;
}

void ptx_module_free(ptx_module *m) {
    if (!m) return;
    free(m->tops);
    free(m->funcs);
    pg_arena_free(&m->arena);
    free(m);
}
