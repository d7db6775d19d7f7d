/* regnumber.c — the "canonical" register style (docs/LITERATE.md): ptx_regs_renumber.
 *
 * nvcc declares `.reg .b32 %r<N>;` and numbers its virtual registers in an order that is
 * not the order the text first mentions them (round 12, bench/results/2026-12-07-plan-round12-
 * qwen15-h100/why-ptx-deviates.md: a model copying nvcc's instruction order cannot predict
 * its register numbers, mixes its own with remembered ones, and the values collide).  Here
 * every numbered register class of a function's top scope (each `.reg .T %x<K>;`) is
 * renumbered in order of first appearance in the body -- statement order; in a statement the
 * guard, then the operands left to right, elements of vectors, addresses and lists in order --
 * starting at 1 as nvcc does, so the number of a register the text has not used yet is the
 * class's next one.  Every use is rewritten and each count becomes the largest number + 1.
 * Nothing else changes: statements, comments and named or special registers stay as they are
 * (ptx_equal_renamed(before, after) holds). */
#include "ptxgen/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DIGITS = 9 };

typedef struct {
    ptx_decl *decl;     /* the top-scope `.reg .T %x<K>;` */
    size_t blen;        /* strlen(decl->name) */
    int *newof;         /* old index -> new number (0: not seen yet); [cap] */
    int cap;
    int next;           /* numbers given so far */
} rclass;

typedef struct {
    rclass *c; int n;
    ptx_module *m;
    bool ambiguous;     /* some register name could mean two things: the function is left as written */
} rstate;

/* Split `name` into a class base and index: the class whose base is name minus its trailing
 * digits (1..MAX_DIGITS of them, no leading zero but "0" itself).  Returns the class or -1. */
static int class_of(const rstate *S, const char *name, long *idx) {
    if (!name) return -1;
    size_t n = strlen(name), i = n;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') i--;
    if (i == n || i == 0 || n - i > MAX_DIGITS) return -1;
    for (int k = 0; k < S->n; k++)
        if (S->c[k].blen == i && !memcmp(S->c[k].decl->name, name, i)) {
            if (name[i] == '0' && n - i > 1) return -2;   /* %r05: not a name nvcc or this pass writes */
            *idx = atol(name + i);
            return k;
        }
    return -1;
}

/* Is `name` (a register declared elsewhere) one a class could also mean? */
static bool clashes(const rstate *S, const char *name, int count) {
    long idx;
    if (!name) return false;
    if (count > 0) {   /* a parameterized one with a class's base */
        for (int k = 0; k < S->n; k++)
            if (!strcmp(S->c[k].decl->name, name)) return true;
        return false;
    }
    return class_of(S, name, &idx) != -1;
}

/* First pass: each class's largest old index, so the maps can be sized. */
static void scan_name(rstate *S, const char *name) {
    long idx;
    int k = class_of(S, name, &idx);
    if (k == -2) { S->ambiguous = true; return; }
    if (k < 0) return;
    if (idx + 1 > S->c[k].cap) S->c[k].cap = (int)(idx + 1);
}

static const char *renumber_name(rstate *S, const char *name, bool *changed) {
    long idx;
    int k = class_of(S, name, &idx);
    if (k < 0) return name;
    rclass *c = &S->c[k];
    if (!c->newof[idx]) c->newof[idx] = ++c->next;
    if (c->newof[idx] == idx) return name;
    char buf[300];
    snprintf(buf, sizeof buf, "%.*s%d", (int)c->blen, c->decl->name, c->newof[idx]);
    *changed = true;
    return pg_arena_strdup(&S->m->arena, buf);
}

typedef void (*name_fn)(rstate *S, const char **name, bool *changed);
static void do_scan(rstate *S, const char **name, bool *changed) { (void)changed; scan_name(S, *name); }
static void do_rename(rstate *S, const char **name, bool *changed) { *name = renumber_name(S, *name, changed); }

/* The register names of an operand, in print order (ptx_print_operand): a register (a SYM that
 * the validator has not re-kinded yet included), an address's register base, then elements. */
static void walk(rstate *S, ptx_operand *op, name_fn fn, bool *changed, int depth) {
    if (depth > PTX_MAX_NEST + 2) return;
    if (op->kind == PTX_OP_REG || op->kind == PTX_OP_SYM || (op->kind == PTX_OP_ADDR && op->addr_has_base && op->addr_base_is_reg)) {
        long idx;
        if (op->kind == PTX_OP_REG && op->sreg && class_of(S, op->name, &idx) != -1) S->ambiguous = true;   /* %pm0 of %pm<4> */
        bool ch = false;
        fn(S, &op->name, &ch);
        if (ch && op->kind == PTX_OP_SYM) { op->kind = PTX_OP_REG; op->ival = 0; }
        if (ch) op->sreg = NULL;
        *changed |= ch;
    }
    for (int i = 0; i < op->nelems; i++) walk(S, &op->elems[i], fn, changed, depth + 1);
}

/* An operand's text after its names changed, as ptx_print_operand writes it. */
static void retext(rstate *S, ptx_operand *op, int depth) {
    if (depth > PTX_MAX_NEST + 2) return;
    for (int i = 0; i < op->nelems; i++) retext(S, &op->elems[i], depth + 1);
    if (op->kind == PTX_OP_REG && !op->neg) { op->text = op->name; return; }
    pg_buf b = {0};
    ptx_print_operand(op, &b);
    op->text = pg_arena_strdup(&S->m->arena, b.data ? b.data : "");
    pg_buf_free(&b);
}

static void renumber_func(ptx_module *m, ptx_func *f) {
    rstate S = {.m = m};
    S.c = pg_xmalloc(sizeof *S.c * (size_t)(f->nbody + 1));
    /* the classes: the top scope's parameterized .reg declarations */
    for (int i = 0; i < f->nbody; i++) {
        ptx_stmt *st = &f->body[i];
        if (st->kind != PTX_ST_DECL || st->u.decl.space != PTX_SS_REG || !st->u.decl.name || st->depth > 1 || st->u.decl.count <= 0) continue;
        const char *nm = st->u.decl.name;
        size_t bl = strlen(nm);
        if (bl == 0 || (nm[bl - 1] >= '0' && nm[bl - 1] <= '9')) S.ambiguous = true;   /* %x1<4>: %x12 is which? */
        for (int k = 0; k < S.n; k++)
            if (!strcmp(S.c[k].decl->name, nm)) S.ambiguous = true;
        S.c[S.n++] = (rclass){&st->u.decl, bl, NULL, 0, 0};
    }
    /* any other declaration (a register, a .shared array) a class name could also mean leaves the function as written */
    for (int i = 0; i < f->nbody && !S.ambiguous; i++) {
        const ptx_stmt *st = &f->body[i];
        if (st->kind != PTX_ST_DECL) continue;
        bool is_class = false;
        for (int k = 0; k < S.n; k++) is_class |= S.c[k].decl == &st->u.decl;
        if (!is_class && clashes(&S, st->u.decl.name, st->u.decl.count)) S.ambiguous = true;
    }
    for (int i = 0; i < f->nparams && !S.ambiguous; i++)
        if (f->params[i].space == PTX_SS_REG && clashes(&S, f->params[i].name, f->params[i].count)) S.ambiguous = true;
    for (int i = 0; i < f->nrets && !S.ambiguous; i++)
        if (f->rets[i].space == PTX_SS_REG && clashes(&S, f->rets[i].name, f->rets[i].count)) S.ambiguous = true;
    for (int i = 0; i < f->nbody && !S.ambiguous; i++)   /* a label or a symbol a class name could mean */
        if (f->body[i].kind == PTX_ST_LABEL && clashes(&S, f->body[i].u.label, 0)) S.ambiguous = true;
    for (int i = 0; i < m->ntops && !S.ambiguous; i++)
        if (m->tops[i].kind == PTX_TOP_DECL && clashes(&S, m->tops[i].u.decl.name, 0)) S.ambiguous = true;
    for (int i = 0; i < m->nfuncs && !S.ambiguous; i++) {
        if (clashes(&S, m->funcs[i].name, 0)) S.ambiguous = true;
        for (int k = 0; k < m->funcs[i].nparams && i == (int)(f - m->funcs); k++)
            if (m->funcs[i].params[k].space != PTX_SS_REG && clashes(&S, m->funcs[i].params[k].name, 0)) S.ambiguous = true;
    }
    bool dummy = false;
    for (int i = 0; i < f->nbody && !S.ambiguous && S.n; i++) {
        ptx_stmt *st = &f->body[i];
        if (st->kind != PTX_ST_INSN) continue;
        if (st->u.insn.guard) scan_name(&S, st->u.insn.guard);
        for (int k = 0; k < st->u.insn.nops; k++) walk(&S, &st->u.insn.ops[k], do_scan, &dummy, 0);
    }
    if (!S.ambiguous && S.n) {
        for (int k = 0; k < S.n; k++) S.c[k].newof = calloc((size_t)S.c[k].cap + 1, sizeof(int));
        for (int i = 0; i < f->nbody; i++) {
            ptx_stmt *st = &f->body[i];
            if (st->kind != PTX_ST_INSN) continue;
            ptx_insn *in = &st->u.insn;
            bool ch = false;
            if (in->guard) in->guard = renumber_name(&S, in->guard, &ch);
            for (int k = 0; k < in->nops; k++) {
                bool oc = false;
                walk(&S, &in->ops[k], do_rename, &oc, 0);
                if (oc) retext(&S, &in->ops[k], 0);
            }
        }
        for (int k = 0; k < S.n; k++) {
            S.c[k].decl->count = S.c[k].next + 1;   /* numbers 1..next; an unused class keeps one (ptx_regs_tighten) */
            free(S.c[k].newof);
        }
    }
    free(S.c);
}

pg_status ptx_regs_renumber(ptx_module *m) {
    if (!m) return PG_ERR_USAGE;
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].has_body) renumber_func(m, &m->funcs[i]);
    return PG_OK;
}
