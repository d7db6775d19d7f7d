/* regnames.c — the "named" register style of literate PTX (docs/LITERATE.md).
 *
 * nvcc numbers registers and declares them all at the top (`.reg .f32 %f<49>;`),
 * so a model writing the kernel must count before it starts; measured on the
 * H200 (2026-12-04), a count one too small was the main syntax error of its
 * outputs.  Here every register of a function's top scope gets a name and its
 * own `.reg .T %name;` just before the statement where it first appears (the
 * enclosing top-level `{` when that is inside a nested block), so nothing is
 * counted and the names tie the instructions to the plan:
 *
 *   - the register a plan line `T v = ...;` / `v = ...;` / `v += ...;` writes
 *     (the one its instructions update in place when the line reads `v`,
 *     else the last one its first block writes) is %v; a loop line
 *     `for (T j = ...; ...; j += s)` names its induction register %j;
 *   - `ld.param` of parameter p is %p (nvcc's `k_param_N` takes the plan's
 *     N-th parameter name), and cvta.to.global of %p is %p_g;
 *   - a `mov` of a special register is %tx, %bx, %ntx, %nbx ... (%tid.x, ...);
 *   - everything else is numbered by type in order of appearance (%r1, %rd1,
 *     %f1, %p1 ...).
 * A name is never a special register's (%tid, %laneid, %pm0), never an
 * opcode, and never repeated: a second register for the same variable is %v2.
 * A nested `{ }` block's own registers (nvcc's inline asm: `.reg .f16 low;`)
 * get their own names with '%' (%low, or %low2 when a top-scope register or
 * an enclosing block has it) and go before their first use inside the block;
 * sibling blocks may share a name, no name shadows another.
 * Instructions are untouched but for the names (ptx_equal_renamed checks it,
 * resolving every name in its scope). */
#include "ptxgen/ptx.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NAME_LEN = 20 };   /* a plan name is cut to this many bytes (the constraint's dreg holds 23) */

/* ---- a small open-addressing map: name -> int ------------------------------- */
typedef struct { const char **k; int *v; int cap, n; } nmap;

static void nm_put(nmap *m, const char *k, int v);
static void nm_grow(nmap *m) {
    nmap o = *m;
    m->cap = o.cap ? o.cap * 2 : 64;
    m->k = pg_xcalloc((size_t)m->cap, sizeof *m->k);
    m->v = pg_xcalloc((size_t)m->cap, sizeof *m->v);
    m->n = 0;
    for (int i = 0; i < o.cap; i++)
        if (o.k[i]) nm_put(m, o.k[i], o.v[i]);
    free(o.k);
    free(o.v);
}
static void nm_put(nmap *m, const char *k, int v) {
    if (2 * (m->n + 1) > m->cap) nm_grow(m);
    unsigned i = pg_hash32(k, strlen(k)) & (unsigned)(m->cap - 1);
    while (m->k[i] && strcmp(m->k[i], k)) i = (i + 1) & (unsigned)(m->cap - 1);
    if (!m->k[i]) m->n++;
    m->k[i] = k;
    m->v[i] = v;
}
static bool nm_get(const nmap *m, const char *k, int *v) {
    if (!m->cap) return false;
    unsigned i = pg_hash32(k, strlen(k)) & (unsigned)(m->cap - 1);
    while (m->k[i]) {
        if (!strcmp(m->k[i], k)) { if (v) *v = m->v[i]; return true; }
        i = (i + 1) & (unsigned)(m->cap - 1);
    }
    return false;
}
static void nm_free(nmap *m) { free(m->k); free(m->v); memset(m, 0, sizeof *m); }

/* ---- names ---------------------------------------------------------------------- */
static bool is_opcode(const char *s) {
    for (int i = 0, n = isa_opcode_count(); i < n; i++)
        if (!strcmp(isa_opcode_get(i), s)) return true;
    return false;
}

/* May "%<s>" name a register?  Not a special register (nor one of the numbered
 * families such as %pm0, %envreg3), not an opcode. */
static bool name_free(const char *s) {
    char buf[NAME_LEN + 16];
    size_t n = strlen(s);
    if (n == 0 || n > NAME_LEN + 8) return false;
    buf[0] = '%';
    memcpy(buf + 1, s, n + 1);
    if (isa_sreg_lookup(buf, n + 1)) return false;
    size_t d = n + 1;
    while (d > 1 && isdigit((unsigned char)buf[d - 1])) d--;
    if (d < n + 1 && isa_sreg_lookup(buf, d)) return false;
    for (int i = 0, c = isa_sreg_count(); i < c; i++) {   /* %tid.x is %tid: refuse the base names too */
        const char *sn = isa_sreg_get(i)->name;
        if (!strcmp(sn + 1, s)) return false;
    }
    return !is_opcode(s);
}

/* The C identifier at s (letters, digits, '_'), length in *n; false if none. */
static bool c_ident(const char *s, size_t *n) {
    if (!(isalpha((unsigned char)*s) || *s == '_')) return false;
    size_t i = 1;
    while (isalnum((unsigned char)s[i]) || s[i] == '_') i++;
    *n = i;
    return true;
}

/* The variable a plan statement assigns: `T v = e`, `v = e`, `v op= e` with only
 * identifiers and '*' before it (a store `x[i] = e` or `s.x = e` assigns none).
 * Writes it to out (cut at NAME_LEN); *self: the right side reads v (or op=).
 * Returns the position after the statement's ';' (or the end), NULL if none. */
static const char *plan_assign(const char *s, char *out, bool *self) {
    char last[64] = "";
    while (*s) {
        while (*s == ' ' || *s == '*' || *s == '(') s++;
        size_t n;
        if (!c_ident(s, &n)) break;
        if (n < sizeof last) { memcpy(last, s, n); last[n] = 0; } else last[0] = 0;
        s += n;
        while (*s == ' ') s++;
        const char *op = s;
        while (strchr("+-*/%&|^<>", *op) && op - s < 2) op++;
        if (op[0] == '=' && op[1] != '=' && last[0]) {
            bool compound = op > s;
            if (compound && (s[0] == '<' || s[0] == '>') && op - s == 1) return NULL;   /* a comparison */
            const char *e = op + 1, *end = strchr(e, ';');
            if (!end) end = e + strlen(e);
            *self = compound;
            /* `int a = e1, b = e2;` declares two: which register holds which is not clear, name neither */
            int depth = 0;
            for (const char *p = e; p < end; p++) {
                depth += (*p == '(' || *p == '[' || *p == '{') - (*p == ')' || *p == ']' || *p == '}');
                size_t m;
                if (depth == 0 && *p == ',') {
                    const char *q = p + 1;
                    while (*q == ' ') q++;
                    if (c_ident(q, &m)) {
                        q += m;
                        while (*q == ' ') q++;
                        if (q[0] == '=' && q[1] != '=') return NULL;
                    }
                }
            }
            size_t ln = strlen(last);
            for (const char *p = e; p + ln <= end && !*self; p++)
                if (!memcmp(p, last, ln) && !(isalnum((unsigned char)p[ln]) || p[ln] == '_') &&
                    (p == e || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.')))
                    *self = true;
            if (ln > NAME_LEN) ln = NAME_LEN;
            memcpy(out, last, ln);
            out[ln] = 0;
            return *end ? end + 1 : end;
        }
        if (s != op) return NULL;
    }
    return NULL;
}

/* ---- per-function state -------------------------------------------------------------- */
typedef struct {
    const char *old;        /* the numbered name */
    const ptx_decl *decl;   /* its declaration (type, vector) */
    const char *name;       /* the new name, without '%' (arena) */
    int first;              /* statement of its first appearance, hoisted to the top scope */
} reg_info;

/* A register a nested `{ }` block declares: its own, visible in that block only (PTX scoping). */
typedef struct {
    int block;              /* the statement index of its block's '{' */
    int at;                 /* its declaration's statement */
    const char *old;        /* as declared (nvcc's inline asm often leaves out the '%': `low`) */
    const char *name;       /* the new name with '%' (arena), or NULL: left as written (a numbered one) */
    int first;              /* where it goes: before its first use, raised to its block's level; -1: unused */
} inner_reg;

typedef struct {
    ptx_module *m;
    ptx_func *f;
    nmap top;        /* declared names at the top scope: name or base -> decl index */
    const ptx_decl **decls; int ndecls;
    nmap regs;       /* concrete old name -> reg index */
    reg_info *r; int nr, capr;
    nmap used;       /* names taken (without '%') */
    int *anchor;     /* statement -> where a declaration for it goes */
    int *blk;        /* statement -> the '{' of its innermost nested block, -1 at the top scope (a '{' itself: its parent's) */
    inner_reg *inner;     /* registers declared in nested blocks */
    int ninner;
    int cur;         /* the statement whose operands are being looked at (nested scopes resolve from it) */
} fstate;

/* The nested block's register `name` seen from statement i (the innermost block declaring it), or -1. */
static int inner_of(const fstate *S, const char *name, int i) {
    if (!name || i < 0) return -1;
    for (int b = S->blk[i]; b >= 0; b = S->blk[b])
        for (int k = 0; k < S->ninner; k++)
            if (S->inner[k].block == b && !strcmp(S->inner[k].old, name)) return k;
    return -1;
}

/* The top-scope register an operand name refers to, or -1 (special register,
 * a nested scope's own, not a register). */
static int reg_of(fstate *S, const char *name, int stmt) {
    if (!name || inner_of(S, name, S->cur) >= 0) return -1;
    int id;
    if (nm_get(&S->regs, name, &id)) {
        if (stmt < S->r[id].first) S->r[id].first = stmt;
        return id;
    }
    int d;
    const ptx_decl *decl = NULL;
    if (nm_get(&S->top, name, &d) && S->decls[d]->count == 0) decl = S->decls[d];
    else {
        size_t n = strlen(name), i = n;
        while (i > 1 && isdigit((unsigned char)name[i - 1])) i--;
        if (i < n) {
            char base[256];
            if (i >= sizeof base) return -1;
            memcpy(base, name, i);
            base[i] = 0;
            if (nm_get(&S->top, base, &d) && S->decls[d]->count > 0 && atol(name + i) < S->decls[d]->count)
                decl = S->decls[d];
        }
    }
    if (!decl) return -1;   /* a special register (one the kernel declares is its own: ptxas), a symbol */
    if (S->nr == S->capr) S->r = pg_xrealloc(S->r, sizeof *S->r * (size_t)(S->capr = S->capr ? 2 * S->capr : 64));
    S->r[S->nr] = (reg_info){name, decl, NULL, stmt};
    nm_put(&S->regs, name, S->nr);
    return S->nr++;
}

typedef void (*op_fn)(fstate *S, ptx_operand *op, int stmt);
static void walk_op(fstate *S, ptx_operand *op, int stmt, op_fn fn, int depth) {
    if (depth > PTX_MAX_NEST + 2) return;
    /* a register declared without '%' parses as a name (SYM) until the validator re-kinds it */
    if (op->kind == PTX_OP_REG || op->kind == PTX_OP_SYM || (op->kind == PTX_OP_ADDR && op->addr_has_base && op->addr_base_is_reg))
        fn(S, op, stmt);
    for (int i = 0; i < op->nelems; i++) walk_op(S, &op->elems[i], stmt, fn, depth + 1);
}

static void note_op(fstate *S, ptx_operand *op, int stmt) { reg_of(S, op->name, stmt); }

/* A nested block's register used at statement S->cur: its declaration goes before the first such
 * statement, raised to the block's own level (before a deeper block's '{'). */
static void note_inner(fstate *S, const char *name) {
    int k = inner_of(S, name, S->cur);
    if (k < 0 || S->inner[k].first >= 0) return;
    int a = S->cur;
    while (S->blk[a] != S->inner[k].block) a = S->blk[a];
    S->inner[k].first = a;
}
static void note_inner_op(fstate *S, ptx_operand *op, int stmt) { (void)stmt; note_inner(S, op->name); }

/* Give register `id` the name `want` (or want2, want3 ... when taken); no-op if named. */
static void give(fstate *S, int id, const char *want) {
    if (id < 0 || S->r[id].name || !want || !*want) return;
    char buf[64], base[40];
    snprintf(base, sizeof base, "%.*s", NAME_LEN + 8, want);
    if (!name_free(base)) snprintf(base, sizeof base, "%.*s_", NAME_LEN + 8, want);
    memcpy(buf, base, sizeof base);
    size_t n = strlen(base);
    bool digit_end = isdigit((unsigned char)base[n - 1]) || base[n - 1] == '_';
    for (int k = 2; nm_get(&S->used, buf, NULL); k++)
        snprintf(buf, sizeof buf, "%s%s%d", base, digit_end && base[n - 1] != '_' ? "_" : "", k);
    const char *s = pg_arena_strdup(&S->m->arena, buf);
    S->r[id].name = s;
    nm_put(&S->used, s, id);
}

/* First register an instruction defines (top scope), or -1. */
static int def_of(fstate *S, const ptx_insn *in, int stmt) {
    S->cur = stmt;
    const char *d[8];
    int nd = ptx_insn_defs(in, d, 8);
    for (int i = 0; i < nd; i++) {
        int id = reg_of(S, d[i], stmt);
        if (id >= 0) return id;
    }
    return -1;
}

static bool reads(const ptx_insn *in, const char *name) {
    const char *u[PTX_MAX_OPERANDS];
    int nu = ptx_insn_uses(in, u, PTX_MAX_OPERANDS);
    for (int i = 0; i < nu; i++)
        if (!strcmp(u[i], name)) return true;
    return false;
}

static bool is_int_add(const ptx_insn *in) {
    if (strcmp(in->opcode, "add") && strcmp(in->opcode, "sub") && strcmp(in->opcode, "shl") && strcmp(in->opcode, "shr")) return false;
    for (int i = 0; i < in->nmods; i++)
        if (in->mods[i][1] == 'f') return false;
    return true;
}

/* The last line of a statement's comment (the plan line of literate PTX), or NULL. */
static const char *plan_line(const ptx_stmt *st) {
    if (!st->comment) return NULL;
    const char *nl = strrchr(st->comment, '\n');
    const char *s = nl ? nl + 1 : st->comment;
    while (*s == ' ') s++;
    return *s ? s : NULL;
}

/* Names from the plan: each plan line's blocks (the statements up to the next comment). */
static void name_from_plan(fstate *S) {
    ptx_func *f = S->f;
    for (int b = 0; b < f->nbody; b++) {
        const char *line = plan_line(&f->body[b]);
        if (!line) continue;
        /* only the line's first occurrence names; later ones (interleaved code) may update in place */
        bool first = true;
        for (int e = 0; e < b; e++)
            if (plan_line(&f->body[e]) && !strcmp(plan_line(&f->body[e]), line)) { first = false; break; }
        if (!first) continue;
        char var[2][NAME_LEN + 1];
        bool self[2] = {false, false}, loop = false;
        int nvar = 0;
        const char *s = line;
        if (!strncmp(s, "for", 3) && (s[3] == ' ' || s[3] == '(')) {
            loop = true;
            s = strchr(s, '(');
            const char *rest = s ? plan_assign(s + 1, var[0], &self[0]) : NULL;
            if (rest) {
                nvar = 1;
                int depth = 1;   /* the loop's body after the header's ')' */
                for (s = s + 1; *s && depth; s++) depth += (*s == '(') - (*s == ')');
                while (*s == ' ' || *s == '{') s++;
                if (*s && plan_assign(s, var[1], &self[1])) nvar = 2;
            }
        } else if (plan_assign(s, var[0], &self[0])) {
            nvar = 1;
        }
        if (!nvar) continue;
        /* the blocks of this line: statements from each occurrence up to the next comment */
        for (int v = 0; v < nvar; v++) {
            int pick = -1, last = -1;
            bool want_self = (loop && v == 0) || self[v];
            for (int k = b; k < f->nbody; k++) {
                const char *pl = plan_line(&f->body[k]);
                if (k > b && pl && strcmp(pl, line)) {
                    /* skip to the next occurrence of this line */
                    int nx = k + 1;
                    while (nx < f->nbody && !(plan_line(&f->body[nx]) && !strcmp(plan_line(&f->body[nx]), line))) nx++;
                    if (!want_self || nx >= f->nbody) break;
                    k = nx - 1;
                    continue;
                }
                const ptx_stmt *st = &f->body[k];
                if (st->kind != PTX_ST_INSN) continue;
                int id = def_of(S, &st->u.insn, k);
                if (id < 0 || S->r[id].decl->type == PTX_T_PRED) continue;
                if (S->r[id].name) continue;
                if (v == 1 && loop && pick >= 0) break;
                if (want_self && reads(&st->u.insn, S->r[id].old) &&
                    (!loop || v == 1 || is_int_add(&st->u.insn))) { pick = id; if (!(loop && v == 0)) break; break; }
                bool in_first = true;
                for (int q = b + 1; q <= k; q++)
                    if (plan_line(&f->body[q])) { in_first = false; break; }
                if (in_first) last = id;
            }
            give(S, pick >= 0 ? pick : last, var[v]);
        }
    }
}

/* The name a special register's copy gets: %tx for %tid.x, %bx for %ctaid.x ... */
static void sreg_name(const char *sreg, char *out, size_t n) {
    static const char *const map[][2] = {
        {"%tid.", "t"}, {"%ntid.", "nt"}, {"%ctaid.", "b"}, {"%nctaid.", "nb"},
        {"%laneid", "lane"}, {"%warpid", "warp"}, {"%nwarpid", "nwarp"}, {"%smid", "sm"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        size_t l = strlen(map[i][0]);
        if (!strncmp(sreg, map[i][0], l)) { snprintf(out, n, "%s%s", map[i][1], sreg + l); return; }
    }
    snprintf(out, n, "%s_v", sreg + 1);
    for (char *p = out; *p; p++)
        if (*p == '.') *p = '_';
}

/* The plan's parameter names in order (the `__global__` function's), for nvcc's k_param_N. */
static int plan_params(const char *plan, size_t len, char names[][NAME_LEN + 1], int max) {
    if (!plan) return 0;
    const char *end = plan + len, *g = NULL;
    for (const char *p = plan; p + 10 <= end; p++)
        if (!memcmp(p, "__global__", 10)) { g = p; break; }
    if (!g) return 0;
    const char *p = memchr(g, '(', (size_t)(end - g));
    if (!p) return 0;
    int n = 0, depth = 0;
    const char *lastid = NULL;
    size_t lastn = 0;
    for (p++; p < end && n < max; p++) {
        if (*p == '(' || *p == '[') depth++;
        else if ((*p == ')' || *p == ']') && depth) depth--;
        else if (depth == 0 && (*p == ',' || *p == ')')) {
            if (lastid) {
                size_t l = lastn > NAME_LEN ? NAME_LEN : lastn;
                memcpy(names[n], lastid, l);
                names[n][l] = 0;
            } else names[n][0] = 0;
            n++;
            lastid = NULL;
            if (*p == ')') break;
        } else if (isalpha((unsigned char)*p) || *p == '_') {
            size_t l;
            c_ident(p, &l);
            if (p + l > end) break;
            lastid = p;
            lastn = l;
            p += l - 1;
        }
    }
    return n;
}

static const char *type_prefix(const ptx_decl *d) {
    switch (d->type) {
    case PTX_T_PRED: return "p";
    case PTX_T_F32: return "f";
    case PTX_T_F64: return "fd";
    case PTX_T_B16: case PTX_T_U16: case PTX_T_S16: return "rs";
    case PTX_T_B64: case PTX_T_U64: case PTX_T_S64: return "rd";
    case PTX_T_F16: case PTX_T_F16X2: case PTX_T_BF16: case PTX_T_BF16X2: return "h";
    default: return "r";
    }
}

static void rename_op(fstate *S, ptx_operand *op, int stmt) {
    (void)stmt;
    int id, k = inner_of(S, op->name, S->cur);
    if (k >= 0) {   /* a nested block's own register */
        if (!S->inner[k].name) return;
        op->name = S->inner[k].name;
    } else {
        if (!op->name || !nm_get(&S->regs, op->name, &id)) return;
        char buf[NAME_LEN + 20];
        snprintf(buf, sizeof buf, "%%%s", S->r[id].name);
        op->name = pg_arena_strdup(&S->m->arena, buf);
    }
    if (op->kind == PTX_OP_SYM) { op->kind = PTX_OP_REG; op->ival = 0; }
    op->sreg = NULL;   /* a declared register named like a special one is the register (and now has a plain name) */
    if (op->kind == PTX_OP_REG) op->text = op->name;
}

typedef struct { int first, id; } by_first;
static int cmp_first(const void *a, const void *b) {
    const by_first *x = a, *y = b;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* Is block a the block b or one around it? */
static bool block_within(const fstate *S, int b, int a) {
    for (; b >= 0; b = S->blk[b])
        if (b == a) return true;
    return false;
}

/* Names for the nested blocks' named registers: their own names with '%' ([A-Za-z][A-Za-z0-9_]*,
 * `low` -> %low), never a special register's or an opcode, never a top-scope register's, and
 * never one that a register of the same or an enclosing (or enclosed) block has, so no name shadows
 * another: sibling blocks may share one (%low in each inline-asm block). */
static void name_inner(fstate *S) {
    for (int k = 0; k < S->ninner; k++) {
        inner_reg *r = &S->inner[k];
        if (S->f->body[r->at].u.decl.count) continue;   /* numbered: left as written */
        char base[NAME_LEN + 2], want[NAME_LEN + 16];
        const char *o = r->old + (r->old[0] == '%');
        size_t n = 0;
        if (!isalpha((unsigned char)*o)) base[n++] = 'r';
        for (; *o && n < NAME_LEN; o++) base[n++] = isalnum((unsigned char)*o) || *o == '_' ? *o : '_';
        base[n] = 0;
        if (!name_free(base)) snprintf(base + n, sizeof base - n, "_");
        size_t bl = strlen(base);
        snprintf(want, sizeof want, "%s", base);
        for (int tries = 2;; tries++) {
            bool taken = nm_get(&S->used, want, NULL) || !name_free(want);
            for (int j = 0; j < S->ninner && !taken; j++)
                if (j != k && S->inner[j].name && !strcmp(S->inner[j].name + 1, want) &&
                    (block_within(S, r->block, S->inner[j].block) || block_within(S, S->inner[j].block, r->block)))
                    taken = true;
            if (!taken) break;
            snprintf(want, sizeof want, "%s%s%d", base, isdigit((unsigned char)base[bl - 1]) ? "_" : "", tries);
        }
        char buf[NAME_LEN + 20];
        snprintf(buf, sizeof buf, "%%%s", want);
        r->name = pg_arena_strdup(&S->m->arena, buf);
    }
}

static pg_status name_func(ptx_module *m, ptx_func *f, const char *plan, size_t plan_len, pg_diag_sink *diag) {
    fstate S = {.m = m, .f = f};
    S.decls = pg_xmalloc(sizeof *S.decls * (size_t)(f->nbody + 1));
    S.inner = pg_xmalloc(sizeof *S.inner * (size_t)(f->nbody + 1));
    S.anchor = pg_xmalloc(sizeof *S.anchor * (size_t)(f->nbody + 1));
    S.blk = pg_xmalloc(sizeof *S.blk * (size_t)(f->nbody + 1));
    /* declarations of the top scope and of the nested blocks; each statement's anchor and block */
    int depth = 0, open = -1, stack[PTX_MAX_NEST + 2], sp = 0;
    for (int i = 0; i < f->nbody; i++) {
        ptx_stmt *st = &f->body[i];
        S.blk[i] = sp ? stack[sp - 1] : -1;
        if (st->kind == PTX_ST_BLOCK_BEGIN && depth++ == 0) open = i;
        if (st->kind == PTX_ST_BLOCK_BEGIN && sp < PTX_MAX_NEST + 2) stack[sp++] = i;
        S.anchor[i] = depth ? open : i;
        if (st->kind == PTX_ST_BLOCK_END && depth > 0) { depth--; if (sp) sp--; S.blk[i] = sp ? stack[sp - 1] : -1; }
        if (st->kind == PTX_ST_DECL && st->u.decl.space == PTX_SS_REG && st->u.decl.name) {
            if (depth == 0) {
                nm_put(&S.top, st->u.decl.name, S.ndecls);
                S.decls[S.ndecls++] = &st->u.decl;
            } else {
                S.inner[S.ninner++] = (inner_reg){S.blk[i], i, st->u.decl.name, NULL, -1};
                /* a numbered one stays as written: no top-scope name may take its name */
                if (st->u.decl.count) nm_put(&S.used, st->u.decl.name + (st->u.decl.name[0] == '%'), -1);
            }
        }
    }
    /* every register in order of appearance, the nested blocks' own where they are declared */
    for (int i = 0; i < f->nbody; i++) {
        ptx_stmt *st = &f->body[i];
        if (st->kind != PTX_ST_INSN) continue;
        ptx_insn *in = &st->u.insn;
        S.cur = i;
        if (in->guard) { reg_of(&S, in->guard, S.anchor[i]); note_inner(&S, in->guard); }
        for (int k = 0; k < in->nops; k++) {
            walk_op(&S, &in->ops[k], S.anchor[i], note_op, 0);
            walk_op(&S, &in->ops[k], i, note_inner_op, 0);
        }
    }
    /* names: the plan's variables, parameters, special registers, then by type */
    name_from_plan(&S);
    char pnames[64][NAME_LEN + 1];
    int np = plan_params(plan, plan_len, pnames, 64);
    for (int i = 0; i < f->nbody; i++) {
        ptx_stmt *st = &f->body[i];
        if (st->kind != PTX_ST_INSN || st->u.insn.nops < 2) continue;
        ptx_insn *in = &st->u.insn;
        int id = def_of(&S, in, i);
        if (id < 0) continue;
        const ptx_operand *src = &in->ops[1];
        if (!strcmp(in->opcode, "ld") && in->nmods && !strcmp(in->mods[0], ".param") && src->kind == PTX_OP_ADDR &&
            src->addr_has_base && !src->addr_base_is_reg && src->name) {
            const char *p = src->name, *k = strstr(p, "_param_");
            char want[NAME_LEN + 1];
            if (k) {
                int idx = atoi(k + 7);
                if (idx < np && pnames[idx][0]) snprintf(want, sizeof want, "%s", pnames[idx]);
                else snprintf(want, sizeof want, "param%d", idx);
            } else {
                size_t l;
                if (!c_ident(p, &l) || p[l]) continue;
                snprintf(want, sizeof want, "%s", p);
            }
            give(&S, id, want);
        } else if (!strcmp(in->opcode, "mov") && src->kind == PTX_OP_REG && src->name && isa_sreg_lookup(src->name, strlen(src->name)) &&
                   reg_of(&S, src->name, i) < 0) {
            char want[NAME_LEN + 1];
            sreg_name(src->name, want, sizeof want);
            give(&S, id, want);
        }
    }
    for (int i = 0; i < f->nbody; i++) {   /* cvta.to.global of a named pointer: %x_g */
        ptx_stmt *st = &f->body[i];
        if (st->kind != PTX_ST_INSN || st->u.insn.nops < 2 || strcmp(st->u.insn.opcode, "cvta")) continue;
        ptx_insn *in = &st->u.insn;
        int id = def_of(&S, in, i), sid;
        if (id < 0 || in->ops[1].kind != PTX_OP_REG || !nm_get(&S.regs, in->ops[1].name, &sid) || !S.r[sid].name) continue;
        char want[NAME_LEN + 4];
        snprintf(want, sizeof want, "%s_g", S.r[sid].name);
        give(&S, id, want);
    }
    by_first *bf = pg_xmalloc(sizeof *bf * (size_t)(S.nr + 1));
    for (int i = 0; i < S.nr; i++) bf[i] = (by_first){S.r[i].first, i};
    qsort(bf, (size_t)S.nr, sizeof *bf, cmp_first);
    int *order = pg_xmalloc(sizeof *order * (size_t)(S.nr + 1));
    for (int i = 0; i < S.nr; i++) order[i] = bf[i].id;
    free(bf);
    int counters[8] = {0};
    static const char *const prefixes[] = {"p", "f", "fd", "rs", "rd", "h", "r"};
    for (int k = 0; k < S.nr; k++) {
        reg_info *r = &S.r[order[k]];
        if (r->name) continue;
        const char *pre = type_prefix(r->decl);
        int t = 0;
        while (strcmp(prefixes[t], pre)) t++;
        char want[NAME_LEN + 1];
        do snprintf(want, sizeof want, "%s%d", pre, ++counters[t]);
        while (nm_get(&S.used, want, NULL));
        give(&S, order[k], want);
    }
    name_inner(&S);
    /* rename every operand */
    for (int i = 0; i < f->nbody; i++) {
        ptx_stmt *st = &f->body[i];
        if (st->kind != PTX_ST_INSN) continue;
        ptx_insn *in = &st->u.insn;
        S.cur = i;
        int gk = inner_of(&S, in->guard, i);
        if (gk >= 0) {
            if (S.inner[gk].name) in->guard = S.inner[gk].name;
        } else if (in->guard) {
            int id;
            if (nm_get(&S.regs, in->guard, &id)) {
                char buf[NAME_LEN + 20];
                snprintf(buf, sizeof buf, "%%%s", S.r[id].name);
                in->guard = pg_arena_strdup(&m->arena, buf);
            }
        }
        for (int k = 0; k < in->nops; k++) walk_op(&S, &in->ops[k], i, rename_op, 0);
    }
    /* the nested blocks' registers in the order their declarations go (by place, then as declared) */
    int *iorder = pg_xmalloc(sizeof *iorder * (size_t)(S.ninner + 1)), ni = 0;
    for (int q = 0; q < S.ninner; q++)
        if (S.inner[q].first >= 0 && S.inner[q].name) iorder[ni++] = q;
    for (int a = 1; a < ni; a++)   /* insertion sort: few, and nearly in order */
        for (int b = a; b > 0 && S.inner[iorder[b - 1]].first > S.inner[iorder[b]].first; b--) {
            int t = iorder[b];
            iorder[b] = iorder[b - 1];
            iorder[b - 1] = t;
        }
    /* the new body: register declarations go, each register's own comes before its anchor (a nested
     * block's before its first use there) */
    ptx_stmt *nb = pg_arena_alloc(&m->arena, sizeof *nb * (size_t)(f->nbody + S.nr + S.ninner + 1));
    int o = 0, k = 0, kq = 0;
    const char *carry = NULL;   /* the comment of a dropped declaration */
    for (int i = 0; i < f->nbody; i++) {
        ptx_stmt st = f->body[i];
        bool first_decl = true;
        for (; k < S.nr && S.r[order[k]].first == i; k++) {
            reg_info *r = &S.r[order[k]];
            ptx_stmt d = {.kind = PTX_ST_DECL, .loc = st.loc, .depth = st.depth};
            d.u.decl = *r->decl;
            d.u.decl.count = 0;
            char buf[NAME_LEN + 20];
            snprintf(buf, sizeof buf, "%%%s", r->name);
            d.u.decl.name = pg_arena_strdup(&m->arena, buf);
            if (first_decl) { d.comment = carry ? carry : st.comment; st.comment = carry ? st.comment : NULL; carry = NULL; }
            first_decl = false;
            nb[o++] = d;
        }
        for (; kq < ni && S.inner[iorder[kq]].first == i; kq++) {
            inner_reg *r = &S.inner[iorder[kq]];
            ptx_stmt d = {.kind = PTX_ST_DECL, .loc = st.loc, .depth = st.depth};
            d.u.decl = f->body[r->at].u.decl;
            d.u.decl.name = r->name;
            if (first_decl) { d.comment = carry ? carry : st.comment; st.comment = carry ? st.comment : NULL; carry = NULL; }
            first_decl = false;
            nb[o++] = d;
        }
        if (st.kind == PTX_ST_DECL && st.u.decl.space == PTX_SS_REG && st.u.decl.name) {
            int d;
            if (nm_get(&S.top, st.u.decl.name, &d) && S.decls[d] == &f->body[i].u.decl) {
                if (st.comment && !carry) carry = st.comment;
                continue;
            }
            int q = 0;
            while (q < S.ninner && S.inner[q].at != i) q++;
            if (q < S.ninner && S.inner[q].name) {
                if (S.inner[q].first >= 0) {   /* moved to its first use */
                    if (st.comment && !carry) carry = st.comment;
                    continue;
                }
                st.u.decl.name = S.inner[q].name;   /* unused: renamed where it stands */
            }
        }
        if (carry && !st.comment) { st.comment = carry; carry = NULL; }
        nb[o++] = st;
    }
    if (carry && !f->end_comment) f->end_comment = carry;
    for (; k < S.nr; k++) {   /* unreachable: every register appears in some statement */
        pg_diag_emit(diag, PG_E_UNDECL_REG, m->filename, f->loc.line, f->loc.col,
                     "register %s of %s was not placed", S.r[order[k]].old, f->name);
    }
    bool ok = k == S.nr;
    f->body = nb;
    f->nbody = o;
    free(order);
    free(S.r);
    free(S.decls);
    free(S.inner);
    free(S.anchor);
    free(S.blk);
    free(iorder);
    nm_free(&S.top);
    nm_free(&S.regs);
    nm_free(&S.used);
    return ok ? PG_OK : PG_ERR_INVALID;
}

pg_status ptx_regs_name(ptx_module *m, const char *plan, size_t plan_len, pg_diag_sink *diag) {
    if (!m) return PG_ERR_USAGE;
    pg_status st = PG_OK;
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].has_body) {
            pg_status s = name_func(m, &m->funcs[i], plan, plan_len, diag);
            if (s != PG_OK) st = s;
        }
    return st;
}

/* ---- the checker: the same instructions up to a renaming --------------------------- */
/* The register declarations in scope while a function is walked in order: a nested block's go at
 * its '}' (PTX scoping), the innermost declaration of a name wins. */
typedef struct { const char *name; const ptx_decl *d; int level; } sc_entry;
typedef struct { sc_entry *e; int n, cap, level; } scope;

static void sc_push(scope *S, const ptx_decl *d) {
    if (S->n == S->cap) S->e = pg_xrealloc(S->e, sizeof *S->e * (size_t)(S->cap = S->cap ? 2 * S->cap : 64));
    S->e[S->n++] = (sc_entry){d->name, d, S->level};
}
static void sc_close(scope *S) {
    while (S->n && S->e[S->n - 1].level == S->level) S->n--;
    if (S->level) S->level--;
}
/* The declaration `name` refers to (and *idx, the register's index in a numbered one, -1 for a named). */
static const ptx_decl *sc_find(const scope *S, const char *name, long *idx) {
    size_t n = strlen(name), i = n;
    while (i > 1 && isdigit((unsigned char)name[i - 1])) i--;
    for (int k = S->n - 1; k >= 0; k--) {
        const ptx_decl *d = S->e[k].d;
        if (!d->count && !strcmp(d->name, name)) { *idx = -1; return d; }
        if (d->count && i < n && strlen(d->name) == i && !strncmp(d->name, name, i) && atol(name + i) < d->count) {
            *idx = atol(name + i);
            return d;
        }
    }
    return NULL;
}

typedef struct {
    scope sa, sb;
    nmap ab, ba;               /* register key -> index into pa / pb (the partner) */
    char **pa, **pb; int np, capp;
    char *why; size_t whyn;
    int line;
    bool ok;
} renaming;

static void rn_fail(renaming *R, const char *what, const char *a, const char *b) {
    if (R->ok && R->why) snprintf(R->why, R->whyn, "%s at line %d: %s vs %s", what, R->line, a ? a : "-", b ? b : "-");
    R->ok = false;
}

/* a <-> b must be one bijection over the function, between registers (declaration and index) of
 * one type; special registers and other names stay themselves. */
static void rn_pair(renaming *R, const char *a, const char *b) {
    if (!a || !b) { if (a != b) rn_fail(R, "operand differs", a, b); return; }
    long ia, ib;
    const ptx_decl *da = sc_find(&R->sa, a, &ia), *db = sc_find(&R->sb, b, &ib);   /* a declaration wins over a special register */
    if (!da || !db) { if ((da != NULL) != (db != NULL) || strcmp(a, b)) rn_fail(R, "name differs", a, b); return; }
    if (da->type != db->type || da->vec != db->vec) { rn_fail(R, "register type differs", a, b); return; }
    char ka[48], kb[48];
    snprintf(ka, sizeof ka, "%p/%ld", (const void *)da, ia);
    snprintf(kb, sizeof kb, "%p/%ld", (const void *)db, ib);
    int x, y;
    bool ha = nm_get(&R->ab, ka, &x), hb = nm_get(&R->ba, kb, &y);
    if (ha && hb) { if (x != y) rn_fail(R, "renaming is not one-to-one", a, b); return; }
    if (ha || hb) { rn_fail(R, "renaming is not one-to-one", a, b); return; }
    if (R->np == R->capp) {
        R->capp = R->capp ? 2 * R->capp : 64;
        R->pa = pg_xrealloc(R->pa, sizeof *R->pa * (size_t)R->capp);
        R->pb = pg_xrealloc(R->pb, sizeof *R->pb * (size_t)R->capp);
    }
    R->pa[R->np] = pg_xstrdup(ka);
    R->pb[R->np] = pg_xstrdup(kb);
    nm_put(&R->ab, R->pa[R->np], R->np);
    nm_put(&R->ba, R->pb[R->np], R->np);
    R->np++;
}

static void rn_op(renaming *R, const ptx_operand *a, const ptx_operand *b, int depth) {
    if (!R->ok || depth > PTX_MAX_NEST + 2) return;
    bool name_kinds = (a->kind == PTX_OP_REG || a->kind == PTX_OP_SYM) && (b->kind == PTX_OP_REG || b->kind == PTX_OP_SYM);
    if ((a->kind != b->kind && !name_kinds) || (a->neg != b->neg && a->kind != PTX_OP_IMM_INT) || a->ival != b->ival || a->nelems != b->nelems ||
        a->addr_has_base != b->addr_has_base || a->addr_base_is_reg != b->addr_base_is_reg ||
        (a->kind == PTX_OP_IMM_FLT && a->fval != b->fval && a->fval == a->fval)) {
        rn_fail(R, "operand differs", a->text, b->text);
        return;
    }
    if (name_kinds || (a->kind == PTX_OP_ADDR && a->addr_has_base && a->addr_base_is_reg)) rn_pair(R, a->name, b->name);
    else if ((a->name || b->name) && a->kind != PTX_OP_IMM_FLT && (!a->name || !b->name || strcmp(a->name, b->name)))
        rn_fail(R, "operand differs", a->name, b->name);
    for (int i = 0; i < a->nelems; i++) rn_op(R, &a->elems[i], &b->elems[i], depth + 1);
}

static bool skip_stmt(const ptx_stmt *s) { return s->kind == PTX_ST_DECL && s->u.decl.space == PTX_SS_REG; }

/* the comments of a function in order (declarations' included), joined */
static void comments_of(const ptx_func *f, pg_buf *b) {
    for (int i = 0; i < f->nbody; i++)
        if (f->body[i].comment) pg_buf_printf(b, "%s\n", f->body[i].comment);
    if (f->end_comment) pg_buf_printf(b, "%s\n", f->end_comment);
}

static bool func_renamed(const ptx_func *fa, const ptx_func *fb, char *why, size_t whyn) {
    renaming R = {.why = why, .whyn = whyn, .ok = true};
    if (strcmp(fa->name, fb->name) || fa->nparams != fb->nparams) {
        rn_fail(&R, "function differs", fa->name, fb->name);
        return false;
    }
    int i = 0, j = 0;
    while (R.ok) {
        for (; i < fa->nbody && skip_stmt(&fa->body[i]); i++) sc_push(&R.sa, &fa->body[i].u.decl);
        for (; j < fb->nbody && skip_stmt(&fb->body[j]); j++) sc_push(&R.sb, &fb->body[j].u.decl);
        if (i == fa->nbody || j == fb->nbody) {
            if (i != fa->nbody || j != fb->nbody) { R.line = fa->loc.line; rn_fail(&R, "statement count differs", fa->name, fb->name); }
            break;
        }
        const ptx_stmt *a = &fa->body[i++], *b = &fb->body[j++];
        R.line = a->loc.line;
        if (a->kind != b->kind) { rn_fail(&R, "statement kind differs", NULL, NULL); break; }
        if (a->kind == PTX_ST_BLOCK_BEGIN) { R.sa.level++; R.sb.level++; }
        if (a->kind == PTX_ST_BLOCK_END) { sc_close(&R.sa); sc_close(&R.sb); }
        if (a->kind == PTX_ST_INSN) {
            const ptx_insn *x = &a->u.insn, *y = &b->u.insn;
            bool same = !strcmp(x->opcode, y->opcode) && x->nmods == y->nmods && x->nops == y->nops &&
                        x->guard_neg == y->guard_neg && (x->guard != NULL) == (y->guard != NULL);
            for (int k = 0; same && k < x->nmods; k++) same = !strcmp(x->mods[k], y->mods[k]);
            if (!same) { rn_fail(&R, "instruction differs", x->opcode, y->opcode); break; }
            if (x->guard) rn_pair(&R, x->guard, y->guard);
            for (int k = 0; k < x->nops; k++) rn_op(&R, &x->ops[k], &y->ops[k], 0);
        } else if (a->kind == PTX_ST_LABEL) {
            if (strcmp(a->u.label, b->u.label)) rn_fail(&R, "label differs", a->u.label, b->u.label);
        } else if (a->kind == PTX_ST_DECL) {
            const ptx_decl *x = &a->u.decl, *y = &b->u.decl;
            if (x->space != y->space || x->type != y->type || x->count != y->count || strcmp(x->name, y->name))
                rn_fail(&R, "declaration differs", x->name, y->name);
        } else if (a->kind == PTX_ST_DIRECTIVE) {
            if (strcmp(a->u.dir.name, b->u.dir.name) || strcmp(a->u.dir.text ? a->u.dir.text : "", b->u.dir.text ? b->u.dir.text : ""))
                rn_fail(&R, "directive differs", a->u.dir.name, b->u.dir.name);
        }
    }
    if (R.ok) {
        pg_buf ca = {0}, cb = {0};
        comments_of(fa, &ca);
        comments_of(fb, &cb);
        R.line = fa->loc.line;
        if (ca.len != cb.len || (ca.len && memcmp(ca.data, cb.data, ca.len))) rn_fail(&R, "comments differ", fa->name, fb->name);
        pg_buf_free(&ca);
        pg_buf_free(&cb);
    }
    free(R.sa.e);
    free(R.sb.e);
    nm_free(&R.ab);
    nm_free(&R.ba);
    for (int k = 0; k < R.np; k++) { free(R.pa[k]); free(R.pb[k]); }
    free(R.pa);
    free(R.pb);
    return R.ok;
}

bool ptx_equal_renamed(const ptx_module *a, const ptx_module *b, char *why, size_t whyn) {
    if (why && whyn) why[0] = 0;
    if (!a || !b) return a == b;
    if (a->nfuncs != b->nfuncs) {
        if (why) snprintf(why, whyn, "function count differs: %d vs %d", a->nfuncs, b->nfuncs);
        return false;
    }
    for (int i = 0; i < a->nfuncs; i++)
        if (!func_renamed(&a->funcs[i], &b->funcs[i], why, whyn)) return false;
    return true;
}
