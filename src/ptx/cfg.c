/* cfg.c — basic blocks and the control-flow graph of one function. */
#include "lex.h"   /* ptx_name_hash */
#include "ptxgen/ptx.h"

#include <stdlib.h>
#include <string.h>

static bool is_op(const ptx_insn *in, const char *op) { return strcmp(in->opcode, op) == 0; }

/* bra, brx, ret, exit, trap: the first byte rules out almost every other
 * opcode before a string compare (this runs for every instruction). */
static bool is_jump(const ptx_insn *in) {
    const char *o = in->opcode;
    switch (o[0]) {
    case 'b': return !strcmp(o, "bra") || !strcmp(o, "brx");
    case 'r': return !strcmp(o, "ret");
    case 'e': return !strcmp(o, "exit");
    case 't': return !strcmp(o, "trap");
    default: return false;
    }
}

/* Does the instruction end a block, and can control fall through it? */
static bool ends_block(const ptx_insn *in) { return is_jump(in); }
static bool falls_through(const ptx_insn *in) {
    if (in->guard) return true;
    return !is_jump(in);
}

/* label name -> statement index, open addressing (built once per CFG) */
typedef struct { const char **name; int *stmt; int cap; } label_map;

static uint32_t lhash(const char *s) { return ptx_name_hash(s, strlen(s)); }

/* The map of the labels collected by the leaders pass (names[k] at statement stmts[k]), so
 * the body is walked once (each walk over a long body misses the cache on every statement). */
static void labels_build(const char *const *names, const int *stmts, int n, label_map *m) {
    m->cap = 16;
    while (m->cap < 2 * n + 1) m->cap *= 2;
    m->name = calloc((size_t)m->cap, sizeof(char *));
    m->stmt = calloc((size_t)m->cap, sizeof(int));
    for (int k = 0; k < n; k++) {
        const char *l = names[k];
        uint32_t h = lhash(l) & (uint32_t)(m->cap - 1);
        while (m->name[h] && m->name[h] != l && strcmp(m->name[h], l) != 0) h = (h + 1) & (uint32_t)(m->cap - 1);
        if (!m->name[h]) { m->name[h] = l; m->stmt[h] = stmts[k]; }   /* the first definition wins */
    }
}

static int find_label(const label_map *m, const char *name) {
    uint32_t h = lhash(name) & (uint32_t)(m->cap - 1);
    while (m->name[h]) {
        if (m->name[h] == name || !strcmp(m->name[h], name)) return m->stmt[h];
        h = (h + 1) & (uint32_t)(m->cap - 1);
    }
    return -1;
}

/* The edges in the order they are found, deduplicated per source block; laid out in
 * one array once all are known (cfg_lay_out): two reallocs per edge were a quarter of the
 * CFG's instructions. */
typedef struct { int from, to; } cfg_edge;
typedef PG_VEC(cfg_edge) edge_vec;

static void add_edge(edge_vec *e, int from_first, int from, int to) {
    for (int i = from_first; i < e->n; i++)   /* from's edges are the last ones added */
        if (e->v[i].from == from && e->v[i].to == to) return;
    cfg_edge x = {from, to};
    pg_vec_push(*e, x);
}

/* Every block's successors, then every block's predecessors, in one allocation that
 * starts at blocks[0].succ (ptx_cfg_free frees it there); each list keeps the order
 * its edges were found in. */
static bool cfg_lay_out(ptx_cfg *c, const edge_vec *e) {
    int *pool = malloc(sizeof(int) * (size_t)(2 * e->n + 1));
    if (!pool) return false;
    for (int i = 0; i < e->n; i++) {
        c->blocks[e->v[i].from].nsucc++;
        c->blocks[e->v[i].to].npred++;
    }
    int at = 0;
    for (int b = 0; b < c->nblocks; b++) { c->blocks[b].succ = pool + at; at += c->blocks[b].nsucc; c->blocks[b].nsucc = 0; }
    for (int b = 0; b < c->nblocks; b++) { c->blocks[b].pred = pool + at; at += c->blocks[b].npred; c->blocks[b].npred = 0; }
    for (int i = 0; i < e->n; i++) {
        ptx_block *f = &c->blocks[e->v[i].from], *t = &c->blocks[e->v[i].to];
        f->succ[f->nsucc++] = e->v[i].to;
        t->pred[t->npred++] = e->v[i].from;
    }
    return true;
}

pg_status ptx_cfg_build(const ptx_module *m, const ptx_func *f, ptx_cfg **out, pg_diag_sink *diag) {
    (void)m;
    (void)diag;
    ptx_cfg *c = calloc(1, sizeof *c);
    if (!c) return PG_ERR_NOMEM;
    *out = c;
    c->func = f;
    int n = f->nbody;
    c->block_of = malloc(sizeof(int) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) c->block_of[i] = -1;
    /* leaders: first instruction, instruction after a label, instruction after a block end */
    PG_VEC(ptx_block) blocks = {0};
    bool start_new = true;
    int cur = -1;
    PG_VEC(const char *) lnames = {0};   /* the labels, for labels_build */
    PG_VEC(int) lstmts = {0};
    for (int i = 0; i < n; i++) {
        const ptx_stmt *s = &f->body[i];
        const char *l = s->kind == PTX_ST_LABEL ? s->u.label : s->kind == PTX_ST_DIRECTIVE ? s->u.dir.label : NULL;
        if (l) {
            pg_vec_push(lnames, l);
            pg_vec_push(lstmts, i);
        }
        if (s->kind == PTX_ST_LABEL) { start_new = true; continue; }
        if (s->kind != PTX_ST_INSN) continue;
        if (start_new || cur < 0) {
            ptx_block b;
            memset(&b, 0, sizeof b);
            b.first = b.last = i;
            pg_vec_push(blocks, b);
            cur = blocks.n - 1;
            start_new = false;
        }
        blocks.v[cur].last = i;
        c->block_of[i] = cur;
        if (ends_block(&s->u.insn)) start_new = true;
    }
    /* map labels to the block that follows them */
    c->blocks = blocks.v;
    c->nblocks = blocks.n;
    label_map labels;
    labels_build(lnames.v, lstmts.v, lnames.n, &labels);
    pg_vec_free(lnames);
    pg_vec_free(lstmts);
    edge_vec edges = {0};
    for (int b = 0; b < c->nblocks; b++) {
        ptx_block *blk = &c->blocks[b];
        int first_edge = edges.n;
        const ptx_insn *last = &f->body[blk->last].u.insn;
        if (is_op(last, "bra") && last->nops >= 1 && last->ops[0].kind == PTX_OP_SYM) {
            int li = find_label(&labels, last->ops[0].name);
            if (li >= 0) {
                int tb = -1;
                for (int k = li; k < n; k++)
                    if (c->block_of[k] >= 0) { tb = c->block_of[k]; break; }
                if (tb >= 0) add_edge(&edges, first_edge, b, tb);
                else if (!last->guard || true) c->falls_off_end = c->falls_off_end || false;
                if (tb < 0) blk->nsucc = blk->nsucc; /* branch to a trailing label: falls off */
                if (tb < 0) c->falls_off_end = true;
            }
        } else if (is_op(last, "brx") && last->nops >= 2 && last->ops[1].kind == PTX_OP_SYM) {
            int ti = find_label(&labels, last->ops[1].name);
            if (ti >= 0 && f->body[ti].kind == PTX_ST_DIRECTIVE) {
                const ptx_stmt *tab = &f->body[ti];
                for (int a = 0; a < tab->u.dir.nargs; a++) {
                    int li = find_label(&labels, tab->u.dir.args[a]);
                    if (li < 0) continue;
                    int tb = -1;
                    for (int k = li; k < n; k++)
                        if (c->block_of[k] >= 0) { tb = c->block_of[k]; break; }
                    if (tb >= 0) add_edge(&edges, first_edge, b, tb);
                    else c->falls_off_end = true;
                }
            }
        }
        if (falls_through(last)) {
            if (b + 1 < c->nblocks) add_edge(&edges, first_edge, b, b + 1);
        }
    }
    free(labels.name);
    free(labels.stmt);
    if (c->nblocks && !cfg_lay_out(c, &edges)) {
        pg_vec_free(edges);
        return PG_ERR_NOMEM;
    }
    pg_vec_free(edges);
    /* reachability from the entry block; a reachable block that falls through
     * past the last block falls off the end of the function */
    if (c->nblocks == 0) {
        c->falls_off_end = true;
        return PG_OK;
    }
    bool *seen = calloc((size_t)c->nblocks, 1);
    int *stack = malloc(sizeof(int) * (size_t)c->nblocks);
    int sp = 0;
    stack[sp++] = 0;
    seen[0] = true;
    while (sp) {
        int b = stack[--sp];
        const ptx_insn *last = &f->body[c->blocks[b].last].u.insn;
        if (b == c->nblocks - 1 && falls_through(last)) c->falls_off_end = true;
        for (int k = 0; k < c->blocks[b].nsucc; k++) {
            int s = c->blocks[b].succ[k];
            if (!seen[s]) { seen[s] = true; stack[sp++] = s; }
        }
    }
    free(seen);
    free(stack);
    return PG_OK;
}

void ptx_cfg_free(ptx_cfg *c) {
    if (!c) return;
    if (c->nblocks) free(c->blocks[0].succ);   /* every edge list (cfg_lay_out) */
    free(c->blocks);
    free(c->block_of);
    free(c);
}
