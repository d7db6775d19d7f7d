/* mutate.c — semantics-preserving mutations of PTX modules (see synth.h).
 *
 * The input is parsed into a module this file owns, mutated in place (new
 * names and statements live in the module's arena), printed, and the printed
 * text is parsed and validated again before it is handed out. */
#include "ptxgen/synth.h"
#include "ptxgen/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const mut_names[SYNTH_MUT__COUNT] = {
    "rename-regs", "reorder", "predicate-branch", "rename-labels",
};

const char *synth_mut_name(synth_mut_kind k) {
    return ((int)k >= 0 && k < SYNTH_MUT__COUNT) ? mut_names[k] : NULL;
}

/* ---- PRNG: splitmix64 ------------------------------------------------------ */
typedef struct { uint64_t s; } rng;

static uint64_t rng_next(rng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) (n > 0). */
static uint32_t rng_below(rng *r, uint32_t n) {
    if (n <= 1) return 0;
    return (uint32_t)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

static void shuffle_ints(rng *r, int *v, int n) {
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below(r, (uint32_t)i + 1);
        int t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* ---- string set / map (open addressing; keys are borrowed) -------------------- */
typedef struct {
    const char **keys;
    const char **vals;
    int cap, n;
} strmap;

static void sm_put(strmap *m, const char *k, const char *v);

static void sm_grow(strmap *m) {
    strmap old = *m;
    m->cap = old.cap ? old.cap * 2 : 64;
    m->n = 0;
    m->keys = calloc((size_t)m->cap, sizeof *m->keys);
    m->vals = calloc((size_t)m->cap, sizeof *m->vals);
    if (!m->keys || !m->vals) pg_oom();
    for (int i = 0; i < old.cap; i++)
        if (old.keys[i]) sm_put(m, old.keys[i], old.vals[i]);
    free(old.keys);
    free(old.vals);
}

static void sm_put(strmap *m, const char *k, const char *v) {
    if (!k) return;
    if ((m->n + 1) * 2 > m->cap) sm_grow(m);
    uint32_t h = pg_hash32(k, strlen(k)) & (uint32_t)(m->cap - 1);
    while (m->keys[h] && strcmp(m->keys[h], k) != 0) h = (h + 1) & (uint32_t)(m->cap - 1);
    if (!m->keys[h]) { m->keys[h] = k; m->n++; }
    m->vals[h] = v;
}

/* Is k present?  *v (if non-NULL) gets its value. */
static bool sm_get(const strmap *m, const char *k, const char **v) {
    if (!m->cap || !k) return false;
    uint32_t h = pg_hash32(k, strlen(k)) & (uint32_t)(m->cap - 1);
    while (m->keys[h]) {
        if (!strcmp(m->keys[h], k)) {
            if (v) *v = m->vals[h];
            return true;
        }
        h = (h + 1) & (uint32_t)(m->cap - 1);
    }
    return false;
}

static void sm_free(strmap *m) {
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* Add a name that new names must not collide with: the name itself and, when
 * it ends in digits, its digit-less base (so that no new parameterized
 * prefix P can produce it as P<digits>). */
static void taken_add(strmap *taken, pg_arena *a, const char *name) {
    if (!name || !*name) return;
    sm_put(taken, name, NULL);
    size_t n = strlen(name), i = n;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') i--;
    if (i > 0 && i < n) sm_put(taken, pg_arena_strndup(a, name, i), NULL);
}

/* Names every function must avoid: module-level symbols, every function's
 * name and parameters, and the special registers. */
static void taken_module(strmap *taken, pg_arena *a, const ptx_module *m) {
    for (int i = 0; i < isa_sreg_count(); i++) taken_add(taken, a, isa_sreg_get(i)->name);
    for (int i = 0; i < m->ntops; i++)
        if (m->tops[i].kind == PTX_TOP_DECL) taken_add(taken, a, m->tops[i].u.decl.name);
    for (int i = 0; i < m->nfuncs; i++) {
        const ptx_func *f = &m->funcs[i];
        taken_add(taken, a, f->name);
        for (int k = 0; k < f->nparams; k++) taken_add(taken, a, f->params[k].name);
        for (int k = 0; k < f->nrets; k++) taken_add(taken, a, f->rets[k].name);
    }
}

static const char *stmt_label(const ptx_stmt *s) {
    if (s->kind == PTX_ST_LABEL) return s->u.label;
    if (s->kind == PTX_ST_DIRECTIVE) return s->u.dir.label;
    return NULL;
}

/* Names declared or defined inside one function body (any scope). */
static void taken_func(strmap *taken, pg_arena *a, const ptx_func *f) {
    for (int i = 0; i < f->nbody; i++) {
        const ptx_stmt *s = &f->body[i];
        if (s->kind == PTX_ST_DECL) taken_add(taken, a, s->u.decl.name);
        taken_add(taken, a, stmt_label(s));
    }
}

/* A fresh register-style name: '%', `lead`, then consonant-vowel syllables,
 * always ending in a letter (so name<digits> can never equal another new
 * name or a new name's members). */
static const char *fresh_reg_name(rng *r, pg_arena *scratch, pg_arena *arena, strmap *taken, const char *lead) {
    static const char cons[] = "bcdfghjklmnqrstvwxz";
    static const char vow[] = "aeiouy";
    char buf[64];
    for (int attempt = 0;; attempt++) {
        int nsyl = 1 + attempt / 6;
        if (nsyl > 8) nsyl = 8;
        size_t n = 0;
        buf[n++] = '%';
        for (const char *p = lead; *p && n < 16; p++) buf[n++] = *p;
        for (int s = 0; s < nsyl; s++) {
            buf[n++] = cons[rng_below(r, sizeof cons - 1)];
            buf[n++] = vow[rng_below(r, sizeof vow - 1)];
            if (rng_below(r, 3) == 0) buf[n++] = cons[rng_below(r, sizeof cons - 1)];
        }
        buf[n] = 0;
        if (sm_get(taken, buf, NULL)) continue;
        const char *name = pg_arena_strdup(arena, buf);
        sm_put(taken, pg_arena_strdup(scratch, buf), NULL);
        return name;
    }
}

/* Re-render the canonical text of an operand after a rename. */
static void retext(ptx_module *m, ptx_operand *op) {
    pg_buf b = {0};
    ptx_print_operand(op, &b);
    op->text = pg_arena_strndup(&m->arena, b.data ? b.data : "", b.len);
    pg_buf_free(&b);
}

/* ==== rename-regs ============================================================= */
typedef struct {
    const char *old;   /* original name (parameterized base for count > 0) */
    int count;         /* 0 = single register */
    const char *nw;    /* new name / new base */
    int *perm;         /* count > 0: old index -> new index */
} reg_ent;
typedef struct { reg_ent *v; int n, cap; } reg_stack;

/* New name of a register reference, resolved innermost scope first; NULL if
 * the name is not one of the renamed declarations. */
static const char *reg_lookup(const reg_stack *st, pg_arena *a, const char *name) {
    if (!name || name[0] != '%') return NULL;
    for (int i = st->n - 1; i >= 0; i--) {
        const reg_ent *e = &st->v[i];
        if (e->count == 0) {
            if (!strcmp(e->old, name)) return e->nw;
            continue;
        }
        size_t ol = strlen(e->old);
        if (strncmp(name, e->old, ol) != 0) continue;
        const char *d = name + ol;
        size_t dl = strlen(d);
        if (dl == 0 || dl > 9) continue;
        long idx = 0;
        bool digits = true;
        for (size_t k = 0; k < dl; k++) {
            if (d[k] < '0' || d[k] > '9') { digits = false; break; }
            idx = idx * 10 + (d[k] - '0');
        }
        if (!digits || idx >= e->count) continue;
        char buf[128];
        snprintf(buf, sizeof buf, "%s%d", e->nw, e->perm[idx]);
        return pg_arena_strdup(a, buf);
    }
    return NULL;
}

static int rename_op_regs(ptx_module *m, ptx_operand *op, const reg_stack *st, int depth) {
    if (depth > PTX_MAX_NEST + 2) return 0;
    int n = 0;
    switch (op->kind) {
    case PTX_OP_REG:
    case PTX_OP_SYM:
        if (op->kind == PTX_OP_SYM && op->ival) break;
        {   /* a declared register may take a special register's name (.reg .u32 %laneid): renamed, it is no longer one */
            const char *nw = reg_lookup(st, &m->arena, op->name);
            if (nw) { op->name = nw; op->sreg = NULL; n++; }
        }
        break;
    case PTX_OP_ADDR:
        if (op->addr_has_base && op->name) {
            const char *nw = reg_lookup(st, &m->arena, op->name);
            if (nw) { op->name = nw; n++; }
        }
        for (int i = 0; i < op->nelems; i++) n += rename_op_regs(m, &op->elems[i], st, depth + 1);
        break;
    case PTX_OP_VEC:
    case PTX_OP_PAIR:
    case PTX_OP_LIST:
    case PTX_OP_INDEX:   /* sh[%r1]: the index register */
        for (int i = 0; i < op->nelems; i++) n += rename_op_regs(m, &op->elems[i], st, depth + 1);
        break;
    default:
        break;
    }
    if (n) retext(m, op);
    return n;
}

static int mut_rename_regs(ptx_module *m, ptx_func *f, rng *r, strmap *taken, pg_arena *scratch) {
    int changes = 0;
    reg_stack st = {0};
    PG_VEC(int) marks = {0};
    for (int i = 0; i < f->nbody; i++) {
        ptx_stmt *s = &f->body[i];
        switch (s->kind) {
        case PTX_ST_BLOCK_BEGIN:
            pg_vec_push(marks, st.n);
            break;
        case PTX_ST_BLOCK_END:
            if (marks.n) {
                int mk = marks.v[--marks.n];
                while (st.n > mk) free(st.v[--st.n].perm);
            }
            break;
        case PTX_ST_DECL: {
            ptx_decl *d = &s->u.decl;
            if (d->space != PTX_SS_REG || !d->name || d->name[0] != '%' || d->count < 0) break;
            reg_ent e = {d->name, d->count, NULL, NULL};
            e.nw = fresh_reg_name(r, scratch, &m->arena, taken, "");
            if (d->count > 0) {
                e.perm = malloc(sizeof(int) * (size_t)d->count);
                if (!e.perm) pg_oom();
                for (int k = 0; k < d->count; k++) e.perm[k] = k;
                shuffle_ints(r, e.perm, d->count);
            }
            pg_vec_push(st, e);
            d->name = e.nw;
            changes++;
            break;
        }
        case PTX_ST_INSN: {
            ptx_insn *in = &s->u.insn;
            if (in->guard) {
                const char *nw = reg_lookup(&st, &m->arena, in->guard);
                if (nw) { in->guard = nw; changes++; }
            }
            for (int k = 0; k < in->nops; k++) changes += rename_op_regs(m, &in->ops[k], &st, 0);
            break;
        }
        default:
            break;
        }
    }
    while (st.n > 0) free(st.v[--st.n].perm);
    pg_vec_free(st);
    pg_vec_free(marks);
    return changes;
}

/* ==== reorder ==================================================================== */
static int choose_random(void *r, const int *ready, int nready) {
    (void)ready;
    return (int)rng_below(r, (uint32_t)nready);
}

/* Emit positions p..q (a run of adjacent instruction statements) of the block
 * in a random topological order of the DAG restricted to the run. */
static int reorder_run(ptx_func *f, const ptx_dag *d, int p, int q, rng *r) {
    int len = q - p + 1;
    int *order = malloc(sizeof(int) * (size_t)len);
    ptx_stmt *tmp = malloc(sizeof(ptx_stmt) * (size_t)len);
    if (!order || !tmp) pg_oom();
    int changes = 0;
    if (ptx_dag_order(d, p, q, choose_random, r, order)) {   /* always, for a DAG whose edges go forward */
        int base = d->insns[p];
        for (int k = 0; k < len; k++) tmp[k] = f->body[base + order[k]];
        for (int k = 0; k < len; k++) {
            f->body[base + k] = tmp[k];
            if (order[k] != k) changes++;
        }
    }
    free(order);
    free(tmp);
    return changes;
}

static int mut_reorder(ptx_module *m, ptx_func *f, rng *r) {
    ptx_cfg *cfg = NULL;
    if (ptx_cfg_build(m, f, &cfg, NULL) != PG_OK) {
        ptx_cfg_free(cfg);
        return 0;
    }
    int changes = 0;
    for (int b = 0; b < cfg->nblocks; b++) {
        ptx_dag *d = NULL;
        if (ptx_dag_build(m, f, &cfg->blocks[b], &d) != PG_OK || !d) {
            ptx_dag_free(d);
            continue;
        }
        int lim = d->ninsns;
        if (lim > 0 && ptx_insn_ends_block(&f->body[d->insns[lim - 1]].u.insn)) lim--;
        for (int p = 0; p < lim;) {
            int q = p;
            while (q + 1 < lim && d->insns[q + 1] == d->insns[q] + 1) q++;
            if (q > p) changes += reorder_run(f, d, p, q, r);
            p = q + 1;
        }
        ptx_dag_free(d);
    }
    ptx_cfg_free(cfg);
    return changes;
}

/* ==== predicate-branch ============================================================ */
static ptx_operand make_imm(ptx_module *m, ptx_loc loc, int64_t v) {
    ptx_operand o;
    memset(&o, 0, sizeof o);
    o.kind = PTX_OP_IMM_INT;
    o.loc = loc;
    o.ival = v;
    retext(m, &o);
    return o;
}

static int mut_predicate_branch(ptx_module *m, ptx_func *f, rng *r, strmap *taken, pg_arena *scratch) {
    /* the last instruction of the body ends the last block: predicating it
     * would let control fall off the end of the function */
    int last_insn = -1;
    for (int i = 0; i < f->nbody; i++)
        if (f->body[i].kind == PTX_ST_INSN) last_insn = i;
    PG_VEC(int) cand = {0};
    for (int i = 0; i < f->nbody; i++) {
        const ptx_stmt *s = &f->body[i];
        if (s->kind == PTX_ST_INSN && !strcmp(s->u.insn.opcode, "bra") && !s->u.insn.guard && i != last_insn)
            pg_vec_push(cand, i);
    }
    if (cand.n == 0) {
        pg_vec_free(cand);
        return 0;
    }
    bool *chosen = calloc((size_t)f->nbody, sizeof(bool));
    if (!chosen) pg_oom();
    int nchosen = 0;
    for (int k = 0; k < cand.n; k++)
        if (rng_below(r, 2)) { chosen[cand.v[k]] = true; nchosen++; }
    if (nchosen == 0) {
        chosen[cand.v[rng_below(r, (uint32_t)cand.n)]] = true;
        nchosen = 1;
    }
    const char *base = fresh_reg_name(r, scratch, &m->arena, taken, "p");
    char buf[96];
    snprintf(buf, sizeof buf, "%s0", base);
    const char *preg = pg_arena_strdup(&m->arena, buf);

    int nbody = f->nbody + 1 + nchosen;
    ptx_stmt *body = pg_arena_alloc(&m->arena, sizeof(ptx_stmt) * (size_t)nbody);
    int o = 0;
    ptx_stmt *ds = &body[o++];
    ds->kind = PTX_ST_DECL;
    ds->loc = f->nbody ? f->body[0].loc : f->loc;
    ds->depth = 1;
    ds->u.decl.space = PTX_SS_REG;
    ds->u.decl.type = PTX_T_PRED;
    ds->u.decl.name = base;
    ds->u.decl.count = 1;
    ds->u.decl.loc = ds->loc;
    static const char *const types[] = {".u32", ".s32", ".b32", ".u16", ".s64"};
    for (int i = 0; i < f->nbody; i++) {
        if (chosen[i]) {
            ptx_stmt *bra = &f->body[i];
            bool ne = rng_below(r, 2) != 0;
            const char *ty = types[rng_below(r, (uint32_t)(sizeof types / sizeof types[0]))];
            ptx_stmt *ss = &body[o++];
            memset(ss, 0, sizeof *ss);
            ss->kind = PTX_ST_INSN;
            ss->loc = bra->loc;
            ss->depth = bra->depth;
            ptx_insn *in = &ss->u.insn;
            in->opcode = pg_arena_strdup(&m->arena, "setp");
            in->nmods = 2;
            in->mods = pg_arena_alloc(&m->arena, sizeof(char *) * 2);
            in->mods[0] = pg_arena_strdup(&m->arena, ne ? ".ne" : ".eq");
            in->mods[1] = pg_arena_strdup(&m->arena, ty);
            in->mod_ids = pg_arena_alloc(&m->arena, sizeof(uint16_t) * 2);
            for (int k = 0; k < 2; k++) in->mod_ids[k] = isa_modifier_id(in->mods[k], strlen(in->mods[k]));
            in->nops = 3;
            in->ops = pg_arena_alloc(&m->arena, sizeof(ptx_operand) * 3);
            in->ops[0].kind = PTX_OP_REG;
            in->ops[0].loc = bra->loc;
            in->ops[0].name = preg;
            in->ops[0].text = preg;
            in->ops[1] = make_imm(m, bra->loc, 0);
            in->ops[2] = make_imm(m, bra->loc, 0);
            body[o] = *bra;
            body[o].u.insn.guard = preg;
            body[o].u.insn.guard_neg = ne;   /* setp.ne 0,0 is false: branch on !P */
            body[o].u.insn.form = NULL;
            o++;
        } else {
            body[o++] = f->body[i];
        }
    }
    f->body = body;
    f->nbody = o;
    free(chosen);
    pg_vec_free(cand);
    return nchosen;
}

/* ==== rename-labels =============================================================== */
/* Identifiers in free text (.loc arguments, .section bodies): labels named
 * there (debug information) keep their names. */
static void pin_identifiers(strmap *pinned, pg_arena *a, const char *text) {
    if (!text) return;
    const char *p = text;
    while (*p) {
        char c = *p;
        bool start = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%';
        if (!start) { p++; continue; }
        const char *q = p + 1;
        while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_' ||
               *q == '$')
            q++;
        sm_put(pinned, pg_arena_strndup(a, p, (size_t)(q - p)), NULL);
        p = q;
    }
}

static bool is_branchish(const ptx_insn *in) {
    return !strcmp(in->opcode, "bra") || !strcmp(in->opcode, "brx") || !strcmp(in->opcode, "call");
}

static int rename_op_labels(ptx_module *m, ptx_operand *op, const strmap *map, const strmap *vars, bool branch,
                            int depth) {
    if (depth > PTX_MAX_NEST + 2) return 0;
    int n = 0;
    /* a label may be named like a register (%L1: ... bra %L1): the branch's operand parses as one,
     * and its new name keeps the '%' */
    bool reg_label = op->kind == PTX_OP_REG && branch && !op->sreg && !op->neg;
    if ((op->kind == PTX_OP_SYM || reg_label) && op->name) {
        const char *nw;
        if (sm_get(map, op->name, &nw) && nw && (branch || !sm_get(vars, op->name, NULL))) {
            op->name = nw;
            n++;
        }
    } else if (op->kind == PTX_OP_VEC || op->kind == PTX_OP_LIST || op->kind == PTX_OP_PAIR) {
        for (int i = 0; i < op->nelems; i++) n += rename_op_labels(m, &op->elems[i], map, vars, branch, depth + 1);
    }
    if (n) retext(m, op);
    return n;
}

static int mut_rename_labels(ptx_module *m, ptx_func *f, rng *r, strmap *taken, const strmap *pinned,
                             const strmap *modnames, pg_arena *scratch) {
    PG_VEC(const char *) labels = {0};
    strmap seen = {0};
    for (int i = 0; i < f->nbody; i++) {
        const char *l = stmt_label(&f->body[i]);
        if (!l || sm_get(&seen, l, NULL) || sm_get(pinned, l, NULL)) continue;
        sm_put(&seen, l, NULL);
        pg_vec_push(labels, l);
    }
    sm_free(&seen);
    if (labels.n == 0) {
        pg_vec_free(labels);
        return 0;
    }
    /* names of variables visible in the function: a symbol operand with such
     * a name outside a branch/call refers to the variable */
    strmap vars = {0};
    for (int i = 0; i < modnames->cap; i++)
        if (modnames->keys[i]) sm_put(&vars, modnames->keys[i], NULL);
    for (int i = 0; i < f->nbody; i++)
        if (f->body[i].kind == PTX_ST_DECL) sm_put(&vars, f->body[i].u.decl.name, NULL);

    int *k = malloc(sizeof(int) * (size_t)labels.n);
    if (!k) pg_oom();
    for (int i = 0; i < labels.n; i++) k[i] = i;
    if (rng_below(r, 2)) shuffle_ints(r, k, labels.n);
    int style = (int)rng_below(r, 4);
    char tag[16];
    static const char alnum[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    for (int i = 0; i < 4; i++) tag[i] = alnum[rng_below(r, sizeof alnum - 1)];
    tag[4] = 0;
    unsigned num = rng_below(r, 100);
    strmap map = {0};
    char buf[128];
    for (int i = 0; i < labels.n; i++) {
        for (int attempt = 0;; attempt++) {
            switch (style) {
            case 0: snprintf(buf, sizeof buf, "$Lm_%s_%d", tag, k[i]); break;
            case 1: snprintf(buf, sizeof buf, "$L__BB%u_%d", num, k[i]); break;
            case 2: snprintf(buf, sizeof buf, "BB%u_%d", num, k[i]); break;
            default: snprintf(buf, sizeof buf, "L_%s_%d", tag, k[i]); break;
            }
            if (attempt > 0) {
                size_t n = strlen(buf);
                snprintf(buf + n, sizeof buf - n, "_%c%d", alnum[rng_below(r, 26)], attempt);
            }
            if (labels.v[i][0] == '%') {   /* %L1 stays a %-name: its branches parse it as a register */
                memmove(buf + 1, buf, strnlen(buf, sizeof buf - 2) + 1);
                buf[0] = '%';
            }
            if (!sm_get(taken, buf, NULL)) break;
        }
        const char *nw = pg_arena_strdup(&m->arena, buf);
        sm_put(taken, pg_arena_strdup(scratch, buf), NULL);
        sm_put(&map, labels.v[i], nw);
    }
    int changes = 0;
    for (int i = 0; i < f->nbody; i++) {
        ptx_stmt *s = &f->body[i];
        const char *nw;
        switch (s->kind) {
        case PTX_ST_LABEL:
            if (sm_get(&map, s->u.label, &nw)) { s->u.label = nw; changes++; }
            break;
        case PTX_ST_DIRECTIVE:
            if (s->u.dir.label && sm_get(&map, s->u.dir.label, &nw)) { s->u.dir.label = nw; changes++; }
            if (!strcmp(s->u.dir.name, ".branchtargets") && s->u.dir.nargs > 0) {
                const char **args = pg_arena_alloc(&m->arena, sizeof(char *) * (size_t)s->u.dir.nargs);
                pg_buf t = {0};
                for (int a = 0; a < s->u.dir.nargs; a++) {
                    args[a] = s->u.dir.args[a];
                    if (sm_get(&map, args[a], &nw)) { args[a] = nw; changes++; }
                    if (a) pg_buf_puts(&t, ", ");
                    pg_buf_puts(&t, args[a]);
                }
                s->u.dir.args = args;
                s->u.dir.text = pg_arena_strndup(&m->arena, t.data ? t.data : "", t.len);
                pg_buf_free(&t);
            }
            break;
        case PTX_ST_INSN: {
            ptx_insn *in = &s->u.insn;
            bool br = is_branchish(in);
            for (int o = 0; o < in->nops; o++) changes += rename_op_labels(m, &in->ops[o], &map, &vars, br, 0);
            break;
        }
        default:
            break;
        }
    }
    sm_free(&map);
    sm_free(&vars);
    free(k);
    pg_vec_free(labels);
    return changes;
}

/* ==== driver ======================================================================= */
pg_status synth_mutate(const char *ptx, size_t len, synth_mut_kind kind, uint64_t seed, pg_buf *out, int *changes,
                       pg_diag_sink *diag) {
    if (changes) *changes = 0;
    if (!ptx || !out || (int)kind < 0 || kind >= SYNTH_MUT__COUNT) return PG_ERR_USAGE;
    ptx_module *m = NULL;
    pg_status st = ptx_parse(ptx, len, "<input>", &m, diag);
    if (st != PG_OK) {
        ptx_module_free(m);
        return st;
    }
    st = ptx_validate(m, diag);
    if (st != PG_OK) {
        ptx_module_free(m);
        return PG_ERR_INVALID;
    }
    pg_arena scratch = {0};
    strmap modtaken = {0};   /* module-wide names (copied per function) */
    taken_module(&modtaken, &scratch, m);
    strmap modnames = {0};   /* module-level symbols only (for label/variable disambiguation) */
    for (int i = 0; i < m->ntops; i++)
        if (m->tops[i].kind == PTX_TOP_DECL) sm_put(&modnames, m->tops[i].u.decl.name, NULL);
    for (int i = 0; i < m->nfuncs; i++) sm_put(&modnames, m->funcs[i].name, NULL);
    strmap pinned = {0};
    for (int i = 0; i < m->ntops; i++)
        if (m->tops[i].kind == PTX_TOP_DIRECTIVE) pin_identifiers(&pinned, &scratch, m->tops[i].u.dir.text);
    for (int fi = 0; fi < m->nfuncs; fi++) {
        const ptx_func *f = &m->funcs[fi];
        for (int i = 0; i < f->nbody; i++)
            if (f->body[i].kind == PTX_ST_DIRECTIVE && (!strcmp(f->body[i].u.dir.name, ".loc") ||
                                                        !strcmp(f->body[i].u.dir.name, ".pragma")))
                pin_identifiers(&pinned, &scratch, f->body[i].u.dir.text);
    }

    int total = 0;
    for (int fi = 0; fi < m->nfuncs; fi++) {
        ptx_func *f = &m->funcs[fi];
        if (!f->has_body) continue;
        const char *fname = f->name ? f->name : "";
        rng r = {seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(kind + 1)) ^
                 (pg_hash64_add(PG_HASH64_INIT_SHORT, fname, strlen(fname)) + (uint64_t)fi * 0x2545F4914F6CDD1Dull)};
        rng_next(&r);
        strmap taken = {0};
        for (int i = 0; i < modtaken.cap; i++)
            if (modtaken.keys[i]) sm_put(&taken, modtaken.keys[i], NULL);
        taken_func(&taken, &scratch, f);
        switch (kind) {
        case SYNTH_MUT_RENAME_REGS: total += mut_rename_regs(m, f, &r, &taken, &scratch); break;
        case SYNTH_MUT_REORDER: total += mut_reorder(m, f, &r); break;
        case SYNTH_MUT_PREDICATE_BRANCH: total += mut_predicate_branch(m, f, &r, &taken, &scratch); break;
        case SYNTH_MUT_RENAME_LABELS:
            total += mut_rename_labels(m, f, &r, &taken, &pinned, &modnames, &scratch);
            break;
        default: break;
        }
        sm_free(&taken);
    }
    sm_free(&modtaken);
    sm_free(&modnames);
    sm_free(&pinned);

    pg_buf text = {0};
    ptx_print(m, &text);
    ptx_module_free(m);

    /* re-verify the mutant from its text, exactly as a consumer would read it */
    char fname[96];
    snprintf(fname, sizeof fname, "<mutant %s seed %llu>", mut_names[kind], (unsigned long long)seed);
    ptx_module *m2 = NULL;
    st = ptx_parse(text.data ? text.data : "", text.len, fname, &m2, diag);
    if (st == PG_OK) st = ptx_validate(m2, diag);
    ptx_module_free(m2);
    if (st != PG_OK) {
        pg_buf_free(&text);
        pg_arena_free(&scratch);
        return PG_ERR_INVALID;
    }
    pg_buf_putn(out, text.data ? text.data : "", text.len);
    pg_buf_free(&text);
    pg_arena_free(&scratch);
    if (changes) *changes = total;
    return PG_OK;
}
