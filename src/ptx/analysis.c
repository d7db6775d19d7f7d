/* analysis.c — register defs/uses, liveness, per-block dependence DAGs and
 * per-function statistics.
 *
 * Everything here works on a parsed module; the instruction forms filled in
 * by ptx_validate() make the def/use split exact (operand slot kinds), and
 * without them an opcode-based fallback is used. */
#include "lex.h"   /* ptx_name_hash */
#include "ptxgen/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first byte is compared inline before the call: `op` is nearly always a literal, and the W505
 * pass asks a chain of these of every instruction (most differ in the first byte). */
static inline bool is_op(const ptx_insn *in, const char *op) { return in->opcode[0] == op[0] && strcmp(in->opcode, op) == 0; }

/* The same for modifiers, by their first two bytes (".x"). */
static inline bool has_mod(const ptx_insn *in, const char *mod) {
    for (int i = 0; i < in->nmods; i++)
        if (in->mods[i][0] == mod[0] && in->mods[i][1] == mod[1] && !strcmp(in->mods[i], mod)) return true;
    return false;
}

static bool has_mod_prefix(const ptx_insn *in, const char *prefix) {
    size_t n = strlen(prefix);
    for (int i = 0; i < in->nmods; i++)
        if (!strncmp(in->mods[i], prefix, n)) return true;
    return false;
}

/* ---- string -> int hash map ----------------------------------------------- */
typedef struct {
    const char **keys;
    int *vals;
    int cap, n;
} strmap;

static void sm_put(strmap *m, const char *k, int v);

static void sm_grow(strmap *m) {
    strmap old = *m;
    m->cap = old.cap ? old.cap * 2 : 64;
    m->n = 0;
    m->keys = calloc((size_t)m->cap, sizeof *m->keys);
    m->vals = calloc((size_t)m->cap, sizeof *m->vals);
    for (int i = 0; i < old.cap; i++)
        if (old.keys[i]) sm_put(m, old.keys[i], old.vals[i]);
    free(old.keys);
    free(old.vals);
}

/* Insert or overwrite. */
static void sm_put(strmap *m, const char *k, int v) {
    if ((m->n + 1) * 2 > m->cap) sm_grow(m);
    uint32_t h = ptx_name_hash(k, strlen(k)) & (uint32_t)(m->cap - 1);
    while (m->keys[h] && strcmp(m->keys[h], k) != 0) h = (h + 1) & (uint32_t)(m->cap - 1);
    if (!m->keys[h]) { m->keys[h] = k; m->n++; }
    m->vals[h] = v;
}

static bool sm_get(const strmap *m, const char *k, int *v) {
    if (!m->cap) return false;
    uint32_t h = ptx_name_hash(k, strlen(k)) & (uint32_t)(m->cap - 1);
    while (m->keys[h]) {
        if (!strcmp(m->keys[h], k)) { *v = m->vals[h]; return true; }
        h = (h + 1) & (uint32_t)(m->cap - 1);
    }
    return false;
}

static void sm_free(strmap *m) {
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ---- defs and uses ------------------------------------------------------- */
static bool is_sreg_operand(const ptx_operand *op) {
    return op->sreg || (op->name && isa_sreg_lookup(op->name, strlen(op->name)));
}

typedef struct {
    const char **out;
    int n, max;
} namelist;

static void nl_add(namelist *l, const char *name) {
    if (!name) return;
    for (int i = 0; i < l->n; i++)
        if (l->out[i] == name || !strcmp(l->out[i], name)) return;
    if (l->n < l->max) l->out[l->n++] = name;
}

/* Every register named inside an operand (special registers excluded). */
static void collect_regs(const ptx_operand *op, namelist *l, int depth) {
    if (depth > PTX_MAX_NEST + 2) return;
    switch (op->kind) {
    case PTX_OP_REG:
        if (!is_sreg_operand(op)) nl_add(l, op->name);
        break;
    case PTX_OP_ADDR:
        if (op->addr_has_base && op->addr_base_is_reg && op->name && !isa_sreg_lookup(op->name, strlen(op->name)))
            nl_add(l, op->name);
        for (int i = 0; i < op->nelems; i++) collect_regs(&op->elems[i], l, depth + 1);
        break;
    case PTX_OP_VEC:
    case PTX_OP_PAIR:
    case PTX_OP_LIST:
    case PTX_OP_INDEX:   /* the index register */
        for (int i = 0; i < op->nelems; i++) collect_regs(&op->elems[i], l, depth + 1);
        break;
    default:
        break;
    }
}

static bool is_call(const ptx_insn *in) { return (in->form && in->form->call_syntax) || is_op(in, "call"); }

/* Opcodes whose first operand, when it is a register, is an input.  The one definition: the
 * constrained decoder (grammar.c) asks it too, so its read-before-write rule and ptx_insn_uses agree. */
bool ptx_op0_is_input(const char *opcode, const char *const *mods, int nmods) {
    static const char *const names[] = {
        "st", "stu", "red", "sust", "sured", "cp", "prefetch", "prefetchu", "fence", "membar", "brx", "bra",
        "nanosleep", "pmevent", "setmaxnreg", "applypriority", "discard", "ret", "exit", "trap", "stmatrix",
        "brkpt", "griddepcontrol",
    };
    if (!opcode) return false;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(opcode, names[i])) return true;
    /* bar.sync a{, b} reads its barrier id; bar.red d, ... writes d */
    if (!strcmp(opcode, "bar") || !strcmp(opcode, "barrier")) {
        for (int i = 0; i < nmods; i++)
            if (mods[i] && !strcmp(mods[i], ".red")) return false;
        return true;
    }
    return false;
}

static bool op0_is_input_opcode(const ptx_insn *in) {
    return ptx_op0_is_input(in->opcode, (const char *const *)in->mods, in->nmods);
}

/* Does the instruction write the registers of operand 0? */
static bool op0_is_def(const ptx_insn *in) {
    if (in->nops == 0 || is_call(in)) return false;
    const ptx_operand *op = &in->ops[0];
    if (op->kind == PTX_OP_REG) {
        if (is_sreg_operand(op)) return false;
    } else if (op->kind != PTX_OP_VEC && op->kind != PTX_OP_PAIR) {
        return false;   /* addresses (stores), immediates, labels, sinks */
    }
    if (in->form && in->form->nops > 0) {
        unsigned k = in->form->ops[0].kinds;
        if (!(k & ISA_OK_ANY)) {
            /* an output slot never accepts immediates, addresses or names */
            if (k & (ISA_OK_IMM | ISA_OK_ADDR | ISA_OK_LABEL | ISA_OK_FUNC | ISA_OK_SYM)) return false;
            if (is_op(in, "brx")) return false;
            return (k & (ISA_OK_REG | ISA_OK_PAIR | ISA_OK_SINK)) != 0;
        }
    }
    return !op0_is_input_opcode(in);
}

/* Accumulating forms read their destination too (wgmma's D is C). */
static bool op0_also_used(const ptx_insn *in) {
    return is_op(in, "wgmma") && has_mod(in, ".mma_async");
}

int ptx_insn_defs(const ptx_insn *in, const char **out, int max) {
    namelist l = {out, 0, max < 0 ? 0 : max};
    if (!in || in->nops == 0) return 0;
    if (is_call(in)) {
        /* call (rets), f, (args): registers in the return list (normally params) */
        if (in->ops[0].kind == PTX_OP_LIST) collect_regs(&in->ops[0], &l, 0);
        return l.n;
    }
    if (op0_is_def(in)) collect_regs(&in->ops[0], &l, 0);
    return l.n;
}

int ptx_insn_uses(const ptx_insn *in, const char **out, int max) {
    namelist l = {out, 0, max < 0 ? 0 : max};
    if (!in) return 0;
    if (in->guard) nl_add(&l, in->guard);
    int start = 0;
    if (is_call(in)) start = (in->nops > 0 && in->ops[0].kind == PTX_OP_LIST) ? 1 : 0;
    else if (op0_is_def(in) && !op0_also_used(in)) start = 1;
    for (int i = start; i < in->nops; i++) collect_regs(&in->ops[i], &l, 0);
    return l.n;
}

/* ---- register declarations of a function ------------------------------------ */
typedef struct {
    strmap byname;            /* name (exact or parameterized base) -> index into decls */
    const ptx_decl **decls;
    int ndecls;
} regdecls;

static void rd_build(regdecls *r, const ptx_func *f) {
    memset(r, 0, sizeof *r);
    int cap = f->nparams + f->nrets + f->nbody + 1;
    r->decls = malloc(sizeof(*r->decls) * (size_t)cap);
    for (int i = 0; i < f->nrets; i++)
        if (f->rets[i].space == PTX_SS_REG && f->rets[i].name) {
            r->decls[r->ndecls] = &f->rets[i];
            sm_put(&r->byname, f->rets[i].name, r->ndecls++);
        }
    for (int i = 0; i < f->nparams; i++)
        if (f->params[i].space == PTX_SS_REG && f->params[i].name) {
            r->decls[r->ndecls] = &f->params[i];
            sm_put(&r->byname, f->params[i].name, r->ndecls++);
        }
    for (int i = 0; i < f->nbody; i++) {
        const ptx_stmt *s = &f->body[i];
        if (s->kind != PTX_ST_DECL || s->u.decl.space != PTX_SS_REG || !s->u.decl.name) continue;
        r->decls[r->ndecls] = &s->u.decl;
        sm_put(&r->byname, s->u.decl.name, r->ndecls++);
    }
}

/* The declaration of a register name: a plain one (%acc), or %r7 of `%r<N>` -- only when 7 < N,
 * unless any_index (ptx_regs_tighten raises N to the indices the body uses). */
static const ptx_decl *rd_find_ex(const regdecls *r, const char *name, bool any_index) {
    int v;
    if (sm_get(&r->byname, name, &v) && r->decls[v]->count == 0) return r->decls[v];
    size_t n = strlen(name), i = n;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') i--;
    if (i == n || i == 0 || n - i > 9) return (sm_get(&r->byname, name, &v)) ? r->decls[v] : NULL;
    char base[256];
    if (i >= sizeof base) return NULL;
    memcpy(base, name, i);
    base[i] = 0;
    if (sm_get(&r->byname, base, &v) && r->decls[v]->count > 0 && (any_index || atol(name + i) < r->decls[v]->count))
        return r->decls[v];
    return NULL;
}

static const ptx_decl *rd_find(const regdecls *r, const char *name) { return rd_find_ex(r, name, false); }

static void rd_free(regdecls *r) {
    sm_free(&r->byname);
    free(r->decls);
}

/* ---- register counts: widen (training data) and tighten (output) --------------------
 * `.reg .f32 %f<12>;` is written before the body, so a model that must emit it first has to
 * plan the body's length; measured on the H200 (2026-12-01), Qwen+LoRA kernels end at exactly the
 * declared count far more often than they stop short of it, adding operations after the result
 * to use up the registers it declared.  Widened declarations carry no such plan; tightened ones
 * are what people expect to read. */
void ptx_regs_widen(ptx_module *m, int n) {
    if (!m || n <= 0) return;
    for (int fi = 0; fi < m->nfuncs; fi++) {
        ptx_func *f = &m->funcs[fi];
        for (int i = 0; i < f->nbody; i++) {
            ptx_stmt *s = &f->body[i];
            if (s->kind == PTX_ST_DECL && s->u.decl.space == PTX_SS_REG && s->u.decl.count > 0 && s->u.decl.count < n)
                s->u.decl.count = n;
        }
    }
}

void ptx_regs_tighten(ptx_module *m) {
    if (!m) return;
    const char *names[PTX_MAX_OPERANDS * 4 + 8];
    const int maxn = (int)(sizeof names / sizeof names[0]);
    for (int fi = 0; fi < m->nfuncs; fi++) {
        ptx_func *f = &m->funcs[fi];
        regdecls rd;
        rd_build(&rd, f);
        int *need = calloc((size_t)rd.ndecls + 1, sizeof(int));   /* per declaration: largest index used + 1 */
        for (int i = 0; i < f->nbody; i++) {
            const ptx_stmt *s = &f->body[i];
            if (s->kind != PTX_ST_INSN) continue;
            int nd = ptx_insn_defs(&s->u.insn, names, maxn);
            int nu = ptx_insn_uses(&s->u.insn, names + nd, maxn - nd);
            for (int k = 0; k < nd + nu; k++) {
                const ptx_decl *d = rd_find_ex(&rd, names[k], true);
                if (!d || d->count == 0) continue;
                size_t len = strlen(names[k]), j = len;
                while (j > 0 && names[k][j - 1] >= '0' && names[k][j - 1] <= '9') j--;
                int v;
                if (!sm_get(&rd.byname, d->name, &v)) continue;
                long idx = atol(names[k] + j);
                if (idx + 1 > need[v]) need[v] = (int)(idx + 1);
            }
        }
        /* rd.decls point into f; only the body's parameterized .reg declarations change */
        for (int i = 0; i < f->nbody; i++) {
            ptx_stmt *s = &f->body[i];
            if (s->kind != PTX_ST_DECL || s->u.decl.space != PTX_SS_REG || s->u.decl.count <= 0) continue;
            int v;
            if (sm_get(&rd.byname, s->u.decl.name, &v) && rd.decls[v] == &s->u.decl)
                s->u.decl.count = need[v] > 0 ? need[v] : 1;
        }
        free(need);
        rd_free(&rd);
    }
}

/* ---- liveness ---------------------------------------------------------------- */
typedef uint64_t word;

static int units_of(ptx_type t) {
    const ptx_type_info *ti = ptx_type_get(t);
    if (ti->cls == PTX_TC_PRED || ti->bits == 0) return 0;
    return ti->bits <= 32 ? 1 : (ti->bits + 31) / 32;
}

/* The backward liveness solve both users share: registers numbered by first mention (those
 * the function declares), per instruction its def and use ids, and per block the live-in and
 * live-out sets.  guard_kills: a predicated def ends a register's liveness too (the
 * read-before-write check, where any write on a path counts) or not (liveness proper, where
 * a def that may not happen keeps the old value alive). */
typedef struct {
    strmap ids;                       /* name -> id (-1: not declared) */
    PG_VEC(ptx_type) types;           /* [nregs] */
    PG_VEC(const char *) names;       /* [nregs] interned in the module arena */
    int *def_off, *use_off;           /* [nbody + 1] offsets into defs / uses */
    PG_VEC(int) defs, uses;
    int nregs, nw;                    /* registers, 64-bit words a set takes */
    word *gen, *kill, *lin, *lout;    /* [nblocks][nw] each */
} live_solve;

static void live_solve_free(live_solve *ls) {
    free(ls->gen);
    free(ls->kill);
    free(ls->lin);
    free(ls->lout);
    free(ls->def_off);
    free(ls->use_off);
    pg_vec_free(ls->defs);
    pg_vec_free(ls->uses);
    pg_vec_free(ls->types);
    pg_vec_free(ls->names);
    sm_free(&ls->ids);
}

#define BIT_SET(v, i) ((v)[(i) >> 6] |= (word)1 << ((i) & 63))
#define BIT_CLR(v, i) ((v)[(i) >> 6] &= ~((word)1 << ((i) & 63)))
#define BIT_GET(v, i) (((v)[(i) >> 6] >> ((i) & 63)) & 1)

static pg_status live_solve_run(const ptx_func *f, const ptx_cfg *cfg, bool guard_kills, live_solve *ls) {
    memset(ls, 0, sizeof *ls);
    regdecls rd;
    rd_build(&rd, f);
    ls->def_off = calloc((size_t)f->nbody + 1, sizeof(int));
    ls->use_off = calloc((size_t)f->nbody + 1, sizeof(int));
    if (!ls->def_off || !ls->use_off) { rd_free(&rd); return PG_ERR_NOMEM; }
    const char *names[PTX_MAX_OPERANDS * 4 + 8];
    const int maxn = (int)(sizeof names / sizeof names[0]);
    for (int i = 0; i < f->nbody; i++) {
        ls->def_off[i] = ls->defs.n;
        ls->use_off[i] = ls->uses.n;
        const ptx_stmt *s = &f->body[i];
        if (s->kind != PTX_ST_INSN) continue;
        for (int pass = 0; pass < 2; pass++) {
            int n = pass == 0 ? ptx_insn_defs(&s->u.insn, names, maxn) : ptx_insn_uses(&s->u.insn, names, maxn);
            for (int k = 0; k < n; k++) {
                int id;
                if (!sm_get(&ls->ids, names[k], &id)) {
                    const ptx_decl *d = rd_find(&rd, names[k]);
                    id = d ? ls->types.n : -1;
                    sm_put(&ls->ids, names[k], id);
                    if (d) { pg_vec_push(ls->types, d->type); pg_vec_push(ls->names, names[k]); }
                }
                if (id < 0) continue;
                if (pass == 0) pg_vec_push(ls->defs, id);
                else pg_vec_push(ls->uses, id);
            }
        }
    }
    rd_free(&rd);
    ls->def_off[f->nbody] = ls->defs.n;
    ls->use_off[f->nbody] = ls->uses.n;
    ls->nregs = ls->types.n;
    int nw = ls->nw = ls->nregs ? (ls->nregs + 63) / 64 : 1;
    int nb = cfg->nblocks;
    ls->gen = calloc((size_t)nb * (size_t)nw, sizeof(word));
    ls->kill = calloc((size_t)nb * (size_t)nw, sizeof(word));
    ls->lin = calloc((size_t)nb * (size_t)nw, sizeof(word));
    ls->lout = calloc((size_t)nb * (size_t)nw, sizeof(word));
    if (!ls->gen || !ls->kill || !ls->lin || !ls->lout) return PG_ERR_NOMEM;
    /* gen/kill per block, walking backwards */
    for (int b = 0; b < nb; b++) {
        word *g = ls->gen + (size_t)b * nw, *k = ls->kill + (size_t)b * nw;
        for (int i = cfg->blocks[b].last; i >= cfg->blocks[b].first; i--) {
            const ptx_stmt *s = &f->body[i];
            if (s->kind != PTX_ST_INSN) continue;
            if (guard_kills || !s->u.insn.guard)
                for (int x = ls->def_off[i]; x < ls->def_off[i + 1]; x++) { BIT_SET(k, ls->defs.v[x]); BIT_CLR(g, ls->defs.v[x]); }
            for (int x = ls->use_off[i]; x < ls->use_off[i + 1]; x++) BIT_SET(g, ls->uses.v[x]);
        }
    }
    /* iterate to a fixed point (reverse order converges fast for backward flow) */
    bool changed = true;
    while (changed) {
        changed = false;
        for (int b = nb - 1; b >= 0; b--) {
            word *o = ls->lout + (size_t)b * nw, *in = ls->lin + (size_t)b * nw;
            const ptx_block *blk = &cfg->blocks[b];
            for (int s = 0; s < blk->nsucc; s++) {
                const word *si = ls->lin + (size_t)blk->succ[s] * nw;
                for (int w = 0; w < nw; w++) o[w] |= si[w];
            }
            const word *g = ls->gen + (size_t)b * nw, *k = ls->kill + (size_t)b * nw;
            for (int w = 0; w < nw; w++) {
                word nv = g[w] | (o[w] & ~k[w]);
                if (nv != in[w]) { in[w] = nv; changed = true; }
            }
        }
    }
    return PG_OK;
}

pg_status ptx_liveness_compute(const ptx_module *m, const ptx_func *f, const ptx_cfg *cfg, ptx_liveness *out) {
    (void)m;
    if (!f || !cfg || !out) return PG_ERR_USAGE;
    memset(out, 0, sizeof *out);
    live_solve ls;
    pg_status st = live_solve_run(f, cfg, false, &ls);
    word *live = st == PG_OK ? calloc((size_t)ls.nw, sizeof(word)) : NULL;
    if (!live) {
        live_solve_free(&ls);
        return st == PG_OK ? PG_ERR_NOMEM : st;
    }
    int nw = ls.nw;
    /* walk each block backwards from its live-out set; every point between
     * instructions (and the block's entry and exit) is a program point */
    int cnt[PTX_T__COUNT];
    int total = 0, units = 0;
#define RECORD() do { \
        if (total > out->max_live_total) out->max_live_total = total; \
        if (units > out->max_live_32bit_units) out->max_live_32bit_units = units; \
        for (int t_ = 0; t_ < PTX_T__COUNT; t_++) \
            if (cnt[t_] > out->max_live[t_]) out->max_live[t_] = cnt[t_]; \
    } while (0)
    for (int b = 0; b < cfg->nblocks; b++) {
        memcpy(live, ls.lout + (size_t)b * nw, sizeof(word) * (size_t)nw);
        memset(cnt, 0, sizeof cnt);
        total = units = 0;
        for (int w = 0; w < nw; w++)
            for (word x = live[w]; x; x &= x - 1) {
                int r = w * 64 + __builtin_ctzll(x);
                cnt[ls.types.v[r]]++;
                total++;
                units += units_of(ls.types.v[r]);
            }
        RECORD();
        for (int i = cfg->blocks[b].last; i >= cfg->blocks[b].first; i--) {
            const ptx_stmt *s = &f->body[i];
            if (s->kind != PTX_ST_INSN) continue;
            if (!s->u.insn.guard)
                for (int x = ls.def_off[i]; x < ls.def_off[i + 1]; x++) {
                    int r = ls.defs.v[x];
                    if (BIT_GET(live, r)) { BIT_CLR(live, r); cnt[ls.types.v[r]]--; total--; units -= units_of(ls.types.v[r]); }
                }
            for (int x = ls.use_off[i]; x < ls.use_off[i + 1]; x++) {
                int r = ls.uses.v[x];
                if (!BIT_GET(live, r)) { BIT_SET(live, r); cnt[ls.types.v[r]]++; total++; units += units_of(ls.types.v[r]); }
            }
            RECORD();
        }
    }
#undef RECORD
    free(live);
    live_solve_free(&ls);
    return PG_OK;
}

int ptx_unwritten_reads(const ptx_module *m, const ptx_func *f, const ptx_cfg *cfg, const char **out, int max) {
    (void)m;
    if (!f || !cfg || cfg->nblocks == 0) return 0;
    live_solve ls;
    if (live_solve_run(f, cfg, true, &ls) != PG_OK) {
        live_solve_free(&ls);
        return 0;   /* out of memory: nothing claimed */
    }
    /* live at the entry block's start with every write, predicated or not, ending liveness:
     * read on some path from the entry before anything writes it */
    int n = 0;
    const word *entry = ls.lin;   /* block 0 starts at the function's first statement */
    for (int w = 0; w < ls.nw; w++)
        for (word x = entry[w]; x; x &= x - 1) {
            int r = w * 64 + __builtin_ctzll(x);
            if (n < max && out) out[n] = ls.names.v[r];
            n++;
        }
    live_solve_free(&ls);
    return n;
}

#undef BIT_SET
#undef BIT_CLR
#undef BIT_GET

/* ---- dependence DAG ------------------------------------------------------------ */
enum { SP_GLOBAL = 1, SP_SHARED = 2, SP_LOCAL = 4, SP_PARAM = 8, SP_CONST = 16, SP_ALL = 31 };

/* State-space bit of one modifier, or 0. */
static unsigned space_bit(const char *m) {
    if (!strncmp(m, ".global", 7)) return SP_GLOBAL;
    if (!strncmp(m, ".shared", 7)) return SP_SHARED;
    if (!strncmp(m, ".local", 6)) return SP_LOCAL;
    if (!strncmp(m, ".param", 6)) return SP_PARAM;
    if (!strcmp(m, ".const")) return SP_CONST;
    return 0;
}

/* The first state space written in the modifiers: SP_ALL when generic. */
static unsigned insn_space(const ptx_insn *in) {
    for (int i = 0; i < in->nmods; i++) {
        unsigned b = space_bit(in->mods[i]);
        if (b) return b;
    }
    return SP_ALL;
}

static ptx_space space_enum(const ptx_insn *in) {
    switch (insn_space(in)) {
    case SP_GLOBAL: return PTX_SS_GLOBAL;
    case SP_SHARED: return PTX_SS_SHARED;
    case SP_LOCAL: return PTX_SS_LOCAL;
    case SP_PARAM: return PTX_SS_PARAM;
    case SP_CONST: return PTX_SS_CONST;
    default: return PTX_SS_NONE;
    }
}

static bool is_barrier_insn(const ptx_insn *in) {
    if (in->form && (in->form->cls == ISA_C_SYNC || in->form->cls == ISA_C_ATOMIC)) return true;
    static const char *const names[] = {"bar", "barrier", "membar", "fence", "atom", "red", "mbarrier", "call",
                                        "griddepcontrol", "multimem"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (is_op(in, names[i])) {
            if (is_op(in, "multimem")) return has_mod(in, ".red");
            return true;
        }
    if (is_op(in, "cp") && has_mod_prefix(in, ".wait")) return true;
    if (is_op(in, "wgmma") && (has_mod(in, ".fence") || has_mod(in, ".commit_group") || has_mod(in, ".wait_group")))
        return true;
    return false;
}

/* Memory read/write sets of one instruction (SP_* masks). */
static void mem_access(const ptx_insn *in, unsigned *rd, unsigned *wr) {
    *rd = *wr = 0;
    const char *op = in->opcode;
    if (is_op(in, "ld") || is_op(in, "ldu") || is_op(in, "ldmatrix") || is_op(in, "suld") || is_op(in, "tex") ||
        is_op(in, "tld4")) {
        *rd = (is_op(in, "tex") || is_op(in, "tld4") || is_op(in, "suld")) ? SP_GLOBAL : insn_space(in);
        return;
    }
    if (is_op(in, "st") || is_op(in, "stmatrix") || is_op(in, "discard")) { *wr = insn_space(in); return; }
    if (is_op(in, "sust")) { *wr = SP_GLOBAL; return; }
    if (is_op(in, "sured")) { *rd = *wr = SP_GLOBAL; return; }
    if (is_op(in, "atom") || is_op(in, "red")) { *rd = *wr = insn_space(in); return; }
    if (is_op(in, "mbarrier")) { *rd = *wr = insn_space(in) == SP_ALL ? SP_ALL : SP_SHARED; return; }
    if (is_op(in, "wmma")) {
        if (has_mod(in, ".load")) *rd = insn_space(in);
        else if (has_mod(in, ".store")) *wr = insn_space(in);
        return;
    }
    if (is_op(in, "wgmma") && has_mod(in, ".mma_async")) { *rd = SP_SHARED; return; }
    if (is_op(in, "multimem")) {
        if (has_mod(in, ".ld_reduce")) *rd = SP_GLOBAL;
        else *rd = *wr = SP_GLOBAL;
        return;
    }
    if ((!strcmp(op, "cp") || !strcmp(op, "tensormap")) && !has_mod_prefix(in, ".wait") &&
        !has_mod(in, ".commit_group")) {
        /* cp.{async,reduce...}.DST.SRC: first space written, second read */
        unsigned sp[2] = {0, 0};
        int ns = 0;
        for (int i = 0; i < in->nmods && ns < 2; i++) {
            unsigned b = space_bit(in->mods[i]);
            if (b) sp[ns++] = b;
        }
        *wr = ns >= 1 ? sp[0] : SP_ALL;
        *rd = ns >= 2 ? sp[1] : SP_ALL;
        if (has_mod(in, ".reduce") || !strcmp(op, "tensormap")) *rd |= *wr;
        return;
    }
    if (in->form && (in->form->cls == ISA_C_MEM || in->form->cls == ISA_C_TEXTURE)) {
        /* prefetch, applypriority, createpolicy, isspacep ...: no ordering effect */
        return;
    }
}

bool ptx_insn_ends_block(const ptx_insn *in) {
    return is_op(in, "bra") || is_op(in, "brx") || is_op(in, "ret") || is_op(in, "exit") || is_op(in, "trap");
}

bool ptx_insn_has_effect(const ptx_insn *in) {
    unsigned rd, wr;
    mem_access(in, &rd, &wr);
    return wr || is_barrier_insn(in) || is_call(in) || ptx_insn_ends_block(in);
}

/* Implicit carry flag of add.cc / addc ... */
static bool writes_cc(const ptx_insn *in) { return has_mod(in, ".cc"); }
static bool reads_cc(const ptx_insn *in) {
    return is_op(in, "addc") || is_op(in, "subc") || is_op(in, "madc");
}

static int dep_cmp(const void *a, const void *b) {
    const ptx_dep *x = a, *y = b;
    if (x->from != y->from) return x->from < y->from ? -1 : 1;
    if (x->to != y->to) return x->to < y->to ? -1 : 1;
    return 0;
}

typedef struct {
    int *v;
    int n, cap;
} intvec;

pg_status ptx_dag_build(const ptx_module *m, const ptx_func *f, const ptx_block *b, ptx_dag **out) {
    (void)m;
    if (!out) return PG_ERR_USAGE;
    *out = NULL;
    if (!f || !b) return PG_ERR_USAGE;
    ptx_dag *d = calloc(1, sizeof *d);
    if (!d) return PG_ERR_NOMEM;
    *out = d;
    int first = b->first < 0 ? 0 : b->first, last = b->last >= f->nbody ? f->nbody - 1 : b->last;
    int cap = last >= first ? last - first + 1 : 0;
    d->insns = malloc(sizeof(int) * (size_t)(cap ? cap : 1));
    for (int i = first; i <= last; i++)
        if (f->body[i].kind == PTX_ST_INSN) d->insns[d->ninsns++] = i;
    int n = d->ninsns;
    if (n == 0) return PG_OK;
    /* intern register names of the block; id 0 is the carry flag */
    strmap ids = {0};
    int nregs = 1;
    int *def_off = malloc(sizeof(int) * (size_t)(n + 1));
    int *use_off = malloc(sizeof(int) * (size_t)(n + 1));
    int *guard_id = malloc(sizeof(int) * (size_t)n);
    unsigned *mrd = malloc(sizeof(unsigned) * (size_t)n), *mwr = malloc(sizeof(unsigned) * (size_t)n);
    bool *bar = malloc(sizeof(bool) * (size_t)n);
    PG_VEC(int) defs = {0};
    PG_VEC(int) uses = {0};
    const char *names[PTX_MAX_OPERANDS * 4 + 8];
    const int maxn = (int)(sizeof names / sizeof names[0]);
    for (int p = 0; p < n; p++) {
        const ptx_insn *in = &f->body[d->insns[p]].u.insn;
        def_off[p] = defs.n;
        guard_id[p] = -1;
        int nd = ptx_insn_defs(in, names, maxn);
        for (int k = 0; k < nd; k++) {
            int id;
            if (!sm_get(&ids, names[k], &id)) { id = nregs++; sm_put(&ids, names[k], id); }
            pg_vec_push(defs, id);
        }
        if (writes_cc(in)) pg_vec_push(defs, 0);
        use_off[p] = uses.n;
        int nu = ptx_insn_uses(in, names, maxn);
        for (int k = 0; k < nu; k++) {
            int id;
            if (!sm_get(&ids, names[k], &id)) { id = nregs++; sm_put(&ids, names[k], id); }
            pg_vec_push(uses, id);
            if (in->guard && !strcmp(names[k], in->guard)) guard_id[p] = id;
        }
        if (reads_cc(in)) pg_vec_push(uses, 0);
        mem_access(in, &mrd[p], &mwr[p]);
        bar[p] = is_barrier_insn(in);
    }
    def_off[n] = defs.n;
    use_off[n] = uses.n;
    /* per register: positions that defined / used it so far */
    intvec *rdefs = calloc((size_t)nregs, sizeof(intvec));
    intvec *ruses = calloc((size_t)nregs, sizeof(intvec));
    unsigned *acc = calloc((size_t)n, sizeof(unsigned));
    PG_VEC(ptx_dep) deps = {0};
    const ptx_insn *lastin = &f->body[d->insns[n - 1]].u.insn;
    bool control_end = ptx_insn_ends_block(lastin);
    for (int j = 0; j < n; j++) {
        for (int x = use_off[j]; x < use_off[j + 1]; x++) {
            int r = uses.v[x];
            for (int k = 0; k < rdefs[r].n; k++) {
                acc[rdefs[r].v[k]] |= PTX_DEP_RAW;
                if (r == guard_id[j]) acc[rdefs[r].v[k]] |= PTX_DEP_PRED;
            }
        }
        for (int x = def_off[j]; x < def_off[j + 1]; x++) {
            int r = defs.v[x];
            for (int k = 0; k < ruses[r].n; k++)
                if (ruses[r].v[k] != j) acc[ruses[r].v[k]] |= PTX_DEP_WAR;
            for (int k = 0; k < rdefs[r].n; k++) acc[rdefs[r].v[k]] |= PTX_DEP_WAW;
        }
        bool jmem = mrd[j] || mwr[j];
        if (jmem || bar[j])
            for (int i = 0; i < j; i++) {
                bool imem = mrd[i] || mwr[i];
                if ((bar[i] && (bar[j] || jmem)) || (bar[j] && imem)) acc[i] |= PTX_DEP_BARRIER;
                if ((mwr[i] & (mrd[j] | mwr[j])) || (mwr[j] & mrd[i])) acc[i] |= PTX_DEP_MEM;
            }
        if (j == n - 1 && control_end)
            for (int i = 0; i < j; i++) acc[i] |= PTX_DEP_CONTROL;
        for (int i = 0; i < j; i++)
            if (acc[i]) {
                ptx_dep e = {i, j, acc[i]};
                pg_vec_push(deps, e);
                acc[i] = 0;
            }
        acc[j] = 0;
        for (int x = def_off[j]; x < def_off[j + 1]; x++) {
            intvec *v = &rdefs[defs.v[x]];
            if (v->n >= v->cap) v->v = pg_vec_grow_(v->v, &v->cap, sizeof(int), v->n + 1);
            v->v[v->n++] = j;
        }
        for (int x = use_off[j]; x < use_off[j + 1]; x++) {
            intvec *v = &ruses[uses.v[x]];
            if (v->n && v->v[v->n - 1] == j) continue;
            if (v->n >= v->cap) v->v = pg_vec_grow_(v->v, &v->cap, sizeof(int), v->n + 1);
            v->v[v->n++] = j;
        }
    }
    if (deps.n > 1) qsort(deps.v, (size_t)deps.n, sizeof(ptx_dep), dep_cmp);
    d->deps = deps.v;
    d->ndeps = deps.n;
    for (int r = 0; r < nregs; r++) {
        free(rdefs[r].v);
        free(ruses[r].v);
    }
    free(rdefs);
    free(ruses);
    free(acc);
    free(def_off);
    free(use_off);
    free(guard_id);
    free(mrd);
    free(mwr);
    free(bar);
    pg_vec_free(defs);
    pg_vec_free(uses);
    sm_free(&ids);
    return PG_OK;
}

void ptx_dag_free(ptx_dag *d) {
    if (!d) return;
    free(d->insns);
    free(d->deps);
    free(d);
}

/* Is there a direct edge i -> j (positions within the block)? */
bool ptx_dag_depends(const ptx_dag *d, int i, int j) {
    if (!d || i < 0 || j < 0 || i >= j || j >= d->ninsns) return false;
    ptx_dep key = {i, j, 0};
    return bsearch(&key, d->deps, (size_t)d->ndeps, sizeof(ptx_dep), dep_cmp) != NULL;
}

bool ptx_dag_order(const ptx_dag *d, int p, int q, ptx_dag_choose_fn choose, void *ctx, int *order) {
    int len = q - p + 1;
    if (!d || !choose || !order || p < 0 || len <= 0 || q >= d->ninsns) return false;
    /* the run's edges as adjacency lists (CSR), and each position's count of unscheduled predecessors */
    int *indeg = pg_xcalloc((size_t)len, sizeof(int)), *outoff = pg_xcalloc((size_t)len + 1, sizeof(int));
    int *adj = pg_xmalloc(sizeof(int) * (size_t)(d->ndeps ? d->ndeps : 1)), *fill = pg_xcalloc((size_t)len, sizeof(int));
    int *ready = pg_xmalloc(sizeof(int) * (size_t)len);
    for (int e = 0; e < d->ndeps; e++) {
        const ptx_dep *dp = &d->deps[e];
        if (dp->from < p || dp->to > q || dp->from >= dp->to) continue;
        outoff[dp->from - p + 1]++;
        indeg[dp->to - p]++;
    }
    for (int k = 0; k < len; k++) outoff[k + 1] += outoff[k];
    for (int e = 0; e < d->ndeps; e++) {
        const ptx_dep *dp = &d->deps[e];
        if (dp->from < p || dp->to > q || dp->from >= dp->to) continue;
        int u = dp->from - p;
        adj[outoff[u] + fill[u]++] = dp->to - p;
    }
    int nready = 0, norder = 0;
    for (int k = 0; k < len; k++)
        if (indeg[k] == 0) ready[nready++] = k;
    while (nready > 0) {
        int pick = choose(ctx, ready, nready);
        if (pick < 0 || pick >= nready) pick = 0;
        int u = ready[pick];
        ready[pick] = ready[--nready];
        order[norder++] = u;
        for (int x = outoff[u]; x < outoff[u + 1]; x++)
            if (--indeg[adj[x]] == 0) ready[nready++] = adj[x];
    }
    free(indeg);
    free(outoff);
    free(adj);
    free(fill);
    free(ready);
    return norder == len;
}

/* ---- statistics ----------------------------------------------------------------- */
static int64_t decl_bytes(const ptx_decl *d, bool *unsized) {
    const ptx_type_info *ti = ptx_type_get(d->type);
    int64_t bits = ti->bits;
    if (d->vec > 1) bits *= d->vec;
    for (int k = 0; k < d->ndims; k++) {
        if (d->dims[k] < 0) {
            if (unsized) *unsized = true;
            return 0;
        }
        bits *= d->dims[k];
    }
    return (bits + 7) / 8;
}

/* Names of variables an operand refers to (symbols and address bases). */
static void collect_syms(const ptx_operand *op, strmap *seen, int depth) {
    if (depth > PTX_MAX_NEST + 2) return;
    if ((op->kind == PTX_OP_SYM || op->kind == PTX_OP_INDEX || (op->kind == PTX_OP_ADDR && op->addr_has_base && !op->addr_base_is_reg)) &&
        op->name)
        sm_put(seen, op->name, 1);
    if (op->kind == PTX_OP_VEC || op->kind == PTX_OP_LIST || op->kind == PTX_OP_PAIR || op->kind == PTX_OP_ADDR)
        for (int i = 0; i < op->nelems; i++) collect_syms(&op->elems[i], seen, depth + 1);
}

static bool arith_is_float(const ptx_insn *in) {
    ptx_type t = isa_bound_type(in->match, 'T' - 'A');
    if (t == PTX_T_NONE)
        for (int v = 0; v < ISA_NVARS && t == PTX_T_NONE; v++) t = isa_bound_type(in->match, v);
    if (t == PTX_T_NONE) return false;
    const ptx_type_info *ti = ptx_type_get(t);
    if (ti->cls == PTX_TC_FLOAT) return true;
    if (ti->cls == PTX_TC_PACKED) return !(ti->name[1] == 'u' || ti->name[1] == 's');   /* .u16x2/.s16x2 are int */
    return false;
}

/* Module-level .shared/.local/.const variables by name (the first of a name). */
static void module_vars(const ptx_module *m, strmap *out) {
    for (int i = 0; m && i < m->ntops; i++) {
        const ptx_decl *d = &m->tops[i].u.decl;
        int v;
        if (m->tops[i].kind != PTX_TOP_DECL || !d->name) continue;
        if (d->space != PTX_SS_SHARED && d->space != PTX_SS_LOCAL && d->space != PTX_SS_CONST) continue;
        if (!sm_get(out, d->name, &v)) sm_put(out, d->name, i);
    }
}

/* One function's statistics; vars = module_vars(m), so that a module of n
 * functions costs O(n), not n passes over its declarations. */
static pg_status func_stats(const ptx_module *m, const strmap *vars, const ptx_func *f, ptx_func_stats *out) {
    if (!f || !out) return PG_ERR_USAGE;
    memset(out, 0, sizeof *out);
    strmap local_vars = {0}, refs = {0};
    for (int i = 0; i < f->nbody; i++) {
        const ptx_stmt *s = &f->body[i];
        if (s->kind == PTX_ST_DECL) {
            const ptx_decl *d = &s->u.decl;
            int n = d->count > 0 ? d->count : 1;
            if (d->space == PTX_SS_REG && d->type < PTX_T__COUNT) out->regs_by_type[d->type] += n * (d->vec > 1 ? d->vec : 1);
            bool unsized = false;
            int64_t bytes = decl_bytes(d, &unsized);
            if (d->space == PTX_SS_SHARED) { out->shared_bytes += bytes; if (unsized) out->dynamic_shared = true; }
            if (d->space == PTX_SS_LOCAL) out->local_bytes += bytes;
            if (d->space == PTX_SS_CONST) out->const_bytes += bytes;
            if (d->name) sm_put(&local_vars, d->name, 1);
            continue;
        }
        if (s->kind != PTX_ST_INSN) continue;
        const ptx_insn *in = &s->u.insn;
        out->total++;
        for (int k = 0; k < in->nops; k++) collect_syms(&in->ops[k], &refs, 0);
        if (!in->form) continue;
        isa_class c = in->form->cls;
        if ((int)c >= 0 && c < ISA_C__COUNT) out->by_class[c]++;
        if (c == ISA_C_MEM) out->mem_by_space[space_enum(in)]++;
        if (c == ISA_C_ARITH) {
            if (arith_is_float(in)) out->arith_float++;
            else out->arith_int++;
        }
    }
    /* module-level variables the function refers to (each name once: refs is a set) */
    for (int h = 0; m && h < refs.cap; h++) {
        int ti, v;
        if (!refs.keys[h] || !sm_get(vars, refs.keys[h], &ti) || sm_get(&local_vars, refs.keys[h], &v)) continue;
        const ptx_decl *d = &m->tops[ti].u.decl;
        bool unsized = false;
        int64_t bytes = decl_bytes(d, &unsized);
        if (d->space == PTX_SS_SHARED) { out->shared_bytes += bytes; if (unsized) out->dynamic_shared = true; }
        if (d->space == PTX_SS_LOCAL) out->local_bytes += bytes;
        if (d->space == PTX_SS_CONST) out->const_bytes += bytes;
    }
    sm_free(&local_vars);
    sm_free(&refs);
    if (!f->has_body) return PG_OK;
    ptx_cfg *cfg = NULL;
    pg_status st = ptx_cfg_build(m, f, &cfg, NULL);
    if (st == PG_OK) st = ptx_liveness_compute(m, f, cfg, &out->live);
    ptx_cfg_free(cfg);
    return st;
}

pg_status ptx_func_stats_compute(const ptx_module *m, const ptx_func *f, ptx_func_stats *out) {
    strmap vars = {0};
    module_vars(m, &vars);
    pg_status st = func_stats(m, &vars, f, out);
    sm_free(&vars);
    return st;
}

pg_status ptx_module_stats_compute(const ptx_module *m, ptx_func_stats *out, pg_status *status) {
    if (!m || !out) return PG_ERR_USAGE;
    strmap vars = {0};
    module_vars(m, &vars);
    pg_status first = PG_OK;
    for (int i = 0; i < m->nfuncs; i++) {
        pg_status st = func_stats(m, &vars, &m->funcs[i], &out[i]);
        if (status) status[i] = st;
        if (first == PG_OK) first = st;
    }
    sm_free(&vars);
    return first;
}

/* ---- alignment of memory accesses (W505 misaligned-access) -----------------------
 * A model adapting an f32 kernel to f64 tends to keep the byte offset `i << 2` for an
 * 8-byte load; ptxas accepts it and the GPU faults (CUDA_ERROR_MISALIGNED_ADDRESS).  Each
 * register gets the largest power of two (at most ALIGN_MAX) that provably divides its
 * value, or 0 = unknown: provenance not understood, never warn through it.
 * The analysis is forward over the CFG, not one fact per register for the whole function:
 * hand-written PTX reuses registers (`mul.wide %rd4, ...; shl.b64 %rd4, %rd4, 2`), and the
 * meet over all definitions would then flag the scaled address.  Block-entry facts only
 * fall (meet at joins), so the iteration ends. */
enum { ALIGN_MAX = 256, ALIGN_STATE_CAP = 1 << 22 /* registers x blocks; beyond: no check */ };

static int align_meet(int a, int b) { return (!a || !b) ? 0 : a < b ? a : b; }
static int align_cap(int64_t a) { return a > ALIGN_MAX ? ALIGN_MAX : (int)a; }
/* Largest power of two dividing v (0 is divisible by everything). */
static int lowbit(int64_t v) {
    uint64_t u = (uint64_t)v, b = u & (~u + 1);
    return !u || b > ALIGN_MAX ? ALIGN_MAX : (int)b;
}
/* a * b of two alignments (the product divides the product of the values; unknown wins). */
static int align_mul(int a, int b) { return (!a || !b) ? 0 : align_cap((int64_t)a * b); }

/* Alignment a variable's declaration guarantees: its .align, else its element size. */
static int decl_align(const ptx_decl *d) {
    if (d->align > 0) return align_cap(d->align);
    int bytes = ptx_type_get(d->type)->bits / 8 * (d->vec > 1 ? d->vec : 1);
    return bytes > 0 ? align_cap(bytes) : 1;
}

/* Register ids without hashing each operand: %rd12 of `.reg .b64 %rd<N>;` is the base's
 * offset + 12; plainly declared names get ids after those through a map.  No id (always
 * unknown): a name declared twice (an inner scope shadowing an outer one: one name for two
 * registers) and the .reg parameters of a .func (the caller's values). */
typedef struct { const char *name; size_t len; int count, off; bool twice; } reg_base;

typedef struct {
    PG_VEC(reg_base) bases;
    strmap plain;   /* plain register name -> id + 1, or 0 when declared twice */
    int nids;
    int *slot;      /* id -> index into a state, -1: untracked (always unknown) */
    strmap syms;    /* variable/param name -> its alignment + 1 */
    const int *cur; /* the state being read: alignment per register, 0 = unknown */
    /* reg_id's answers by name pointer (the parser interns names, so every %r12 of the
     * function is one pointer): direct-mapped, filled once the ids are given (reg_ids_add); NULL = none */
    struct reg_memo { const char *name; int id; } *memo;
    uint32_t memo_mask;   /* entries - 1 */
} align_ctx;
enum { REG_MEMO = 512 };   /* the most memo entries (fewer for a function of few registers: they are zeroed per function) */

/* Give the .reg declaration d its ids (declarations in order: a .func's return and parameter
 * registers, param = true, then the body's). */
static void reg_ids_add(align_ctx *A, const ptx_decl *d, bool param) {
    if (d->space != PTX_SS_REG || !d->name) return;
    size_t len = strlen(d->name);
    int v;
    bool twice = param;
    for (int k = 0; k < A->bases.n; k++)
        if (A->bases.v[k].len == len && !memcmp(A->bases.v[k].name, d->name, len)) twice = A->bases.v[k].twice = true;
    if (sm_get(&A->plain, d->name, &v)) { sm_put(&A->plain, d->name, 0); twice = true; }
    if (twice && param && d->count > 0) {
        reg_base b = {d->name, len, d->count, 0, true};
        pg_vec_push(A->bases, b);
    } else if (twice && param) {
        sm_put(&A->plain, d->name, 0);
    }
    if (twice) return;
    if (d->count > 0) {
        reg_base b = {d->name, len, d->count, A->nids, false};
        pg_vec_push(A->bases, b);
        A->nids += d->count;
    } else {
        sm_put(&A->plain, d->name, ++A->nids);
    }
}

/* The id of a register name, or -1 (undeclared, or declared twice). */
static int reg_id_lookup(const align_ctx *A, const char *name) {
    size_t n = strlen(name), i = n;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') i--;
    if (i < n && i > 0 && n - i <= 9) {
        for (int k = 0; k < A->bases.n; k++) {
            const reg_base *b = &A->bases.v[k];
            if (b->len != i || !ptx_name_eq(b->name, name, i)) continue;
            long idx = 0;   /* the digits scanned above (at most 9) */
            for (size_t j = i; j < n; j++) idx = idx * 10 + (name[j] - '0');
            return b->twice || idx >= b->count ? -1 : b->off + (int)idx;
        }
    }
    int v;
    return sm_get(&A->plain, name, &v) && v > 0 ? v - 1 : -1;
}

static int reg_id(const align_ctx *A, const char *name) {
    if (!A->memo) return reg_id_lookup(A, name);
    uintptr_t p = (uintptr_t)name;
    struct reg_memo *e = &A->memo[((p >> 4) ^ (p >> 13)) & A->memo_mask];
    if (e->name != name) {
        e->name = name;
        e->id = reg_id_lookup(A, name);
    }
    return e->id;
}

/* A variable's alignment; a name declared twice (shadowing) gets the lesser. */
static void align_add_sym(align_ctx *A, const ptx_decl *d) {
    if (!d->name || d->space == PTX_SS_REG) return;
    int a = decl_align(d), old;
    if (sm_get(&A->syms, d->name, &old) && old - 1 < a) a = old - 1;
    sm_put(&A->syms, d->name, a + 1);
}

/* Are all the instruction's type modifiers integer (or bit) types?  Float arithmetic
 * says nothing about the low bits of a value. */
static bool int_typed(const ptx_insn *in) {
    bool any = false;
    for (int i = 0; i < in->nmods; i++) {
        uint16_t id = in->mod_ids ? in->mod_ids[i] : 0;   /* the table's ids spare a lookup by text */
        ptx_type t = id ? isa_modifier_type(id) : ptx_type_lookup(in->mods[i], strlen(in->mods[i]));
        if (t == PTX_T_NONE) continue;
        ptx_type_class c = ptx_type_get(t)->cls;
        if (c != PTX_TC_UINT && c != PTX_TC_SINT && c != PTX_TC_BIT) return false;
        any = true;
    }
    return any;
}

static int operand_align(const align_ctx *A, const ptx_operand *op) {
    int v;
    switch (op->kind) {
    case PTX_OP_REG:
        if (op->sreg) return 1;   /* %tid, %ctaid ...: any value (the parser resolves them) */
        v = reg_id(A, op->name);
        return v >= 0 && A->slot[v] >= 0 ? A->cur[A->slot[v]] : 0;
    case PTX_OP_IMM_INT:
        return lowbit(op->ival);
    case PTX_OP_SYM:   /* the address of a variable */
        return sm_get(&A->syms, op->name, &v) ? v - 1 : 0;
    default:
        return 0;
    }
}

/* The alignment of the value an instruction writes to its one destination register, decided
 * once per instruction (xfer_plan) and evaluated per visit (xfer_eval): the dataflow loop
 * revisits blocks, and re-deciding (opcode and modifier compares, register-name lookups) per
 * visit was most of the W505 pass's time.  op[k]: a state index (>= 0) or a known alignment
 * c as -c - 1. */
enum { XF_ZERO, XF_MAX, XF_OP1, XF_MEET12, XF_MUL12, XF_MAD, XF_SHL_IMM, XF_AND };
/* guarded: the instruction has a guard (kept here so the dataflow loop reads these plans and
 * not the statements, which a long body has evicted from the cache) */
typedef struct { uint8_t kind; bool guarded; int shift; int op[3]; } align_xfer;

static int xfer_operand(const align_ctx *A, const ptx_operand *op) {
    if (op->kind == PTX_OP_REG && !op->sreg) {
        int v = reg_id(A, op->name);
        if (v >= 0 && A->slot[v] >= 0) return A->slot[v];
    }
    return -operand_align(A, op) - 1;   /* reads no state: a constant */
}

static void xfer_plan(const align_ctx *A, const ptx_insn *in, align_xfer *x) {
    const ptx_operand *o = in->ops;
    x->kind = XF_ZERO;
    x->guarded = in->guard != NULL;
    for (int k = 0; k < 3; k++) x->op[k] = k + 1 < in->nops ? xfer_operand(A, &o[k + 1]) : -1;
    if (is_op(in, "ld")) {
        /* a 64-bit parameter is a pointer from cudaMalloc (256-aligned).  A scalar one (n, a
         * stride) is given the benefit of the doubt too: kernels rely on n % 4 == 0, tested
         * at run time (corpus/batched_dot) or promised by the launch, before float4 loads.
         * So only thread/block indices and constants are ever blamed. */
        if (has_mod_prefix(in, ".param") && in->nops >= 2 && o[0].kind == PTX_OP_REG) x->kind = XF_MAX;
        return;
    }
    if (in->nops < 2) return;
    if (is_op(in, "mov") || is_op(in, "cvta")) { if (in->nops == 2) x->kind = XF_OP1; return; }
    /* integer widening/narrowing keeps the low bits (saturation does not) */
    if (is_op(in, "cvt")) { if (int_typed(in) && !has_mod(in, ".sat")) x->kind = XF_OP1; return; }
    if (is_op(in, "selp")) { if (in->nops == 4) x->kind = XF_MEET12; return; }
    if (!int_typed(in) || has_mod(in, ".sat") || in->nops < 3) return;
    /* the low half (or the whole wide product) keeps every factor of two up to 2^32 */
    bool lo = has_mod(in, ".lo") || has_mod(in, ".wide");
    if (is_op(in, "add") || is_op(in, "sub")) x->kind = XF_MEET12;
    else if (is_op(in, "mul") && lo && in->nops == 3) x->kind = XF_MUL12;
    else if (is_op(in, "mad") && lo && in->nops == 4) x->kind = XF_MAD;
    else if (is_op(in, "shl") && in->nops == 3) {
        if (o[2].kind != PTX_OP_IMM_INT) x->kind = XF_OP1;   /* x << s is a multiple of x */
        else { x->kind = XF_SHL_IMM; x->shift = o[2].ival >= 8 ? 8 : o[2].ival < 0 ? -1 : (int)o[2].ival; }
    } else if (is_op(in, "and") && in->nops == 3) x->kind = XF_AND;   /* x & y: a multiple of either's alignment */
}

static int xfer_op(const int *st, int op) { return op >= 0 ? st[op] : -op - 1; }

/* The planned transfer's value for the state st. */
static int xfer_eval(const align_xfer *x, const int *st) {
    int a, b;
    switch (x->kind) {
    case XF_MAX: return ALIGN_MAX;
    case XF_OP1: return xfer_op(st, x->op[0]);
    case XF_MEET12: return align_meet(xfer_op(st, x->op[0]), xfer_op(st, x->op[1]));
    case XF_MUL12: return align_mul(xfer_op(st, x->op[0]), xfer_op(st, x->op[1]));
    case XF_MAD: return align_meet(align_mul(xfer_op(st, x->op[0]), xfer_op(st, x->op[1])), xfer_op(st, x->op[2]));
    case XF_SHL_IMM:
        a = xfer_op(st, x->op[0]);
        if (!a) return 0;
        return x->shift >= 8 ? ALIGN_MAX : x->shift < 0 ? 0 : align_cap((int64_t)a << x->shift);
    case XF_AND:
        a = xfer_op(st, x->op[0]), b = xfer_op(st, x->op[1]);
        return (!a || !b) ? 0 : a > b ? a : b;
    default: return 0;
    }
}

/* Apply one instruction to the state `st` (= A->cur).  dv: its one tracked destination,
 * -1 when it writes no tracked register, -2 when it writes several (vector/pair: unknown);
 * x: its planned transfer (dv >= 0). */
static void align_step(align_ctx *A, int *st, const ptx_insn *in, int dv, const align_xfer *x) {
    if (dv == -1) return;
    if (dv >= 0) {
        int a = xfer_eval(x, st);
        st[dv] = x->guarded ? align_meet(st[dv], a) : a;   /* a guarded write may not happen */
        return;
    }
    const char *names[PTX_MAX_OPERANDS + 8];
    int nd = ptx_insn_defs(in, names, (int)(sizeof names / sizeof names[0])), v;
    for (int k = 0; k < nd; k++)
        if ((v = reg_id(A, names[k])) >= 0 && A->slot[v] >= 0) st[A->slot[v]] = 0;
}

/* Bytes an ld/ldu/st/atom/red moves at once, which its address must be a multiple of;
 * 0 when the instruction is not checked. */
static int access_bytes(const ptx_insn *in) {
    bool ldst = is_op(in, "ld") || is_op(in, "ldu") || is_op(in, "st");
    if (!in->form || !(ldst || is_op(in, "atom") || is_op(in, "red"))) return 0;
    /* .param/.const are laid out by the compiler; async/bulk copies have their own rules */
    if (has_mod_prefix(in, ".param") || has_mod(in, ".const") || has_mod(in, ".async") || has_mod(in, ".bulk")) return 0;
    ptx_type t = isa_bound_type(in->match, 'T' - 'A');
    int bits = t == PTX_T_NONE ? 0 : ptx_type_get(t)->bits;
    const char *v = isa_bound_text(in->match, 'V' - 'A');
    /* ld/st vectors need the whole vector aligned; for vector atom/red only the element
     * size is assumed (conservative) */
    int n = ldst && v && v[1] == 'v' ? atoi(v + 2) : 1;
    return bits >= 8 ? bits / 8 * (n > 0 ? n : 1) : 0;
}

/* The address operand of a checked access: [reg+imm] or [var+imm], its bytes (access_bytes) in
 * *need; NULL otherwise. */
static const ptx_operand *access_address(const ptx_insn *in, int *need) {
    if (!in->form || (in->form->cls != ISA_C_MEM && in->form->cls != ISA_C_ATOMIC) || (*need = access_bytes(in)) < 2) return NULL;
    for (int k = 0; k < in->nops; k++)
        if (in->ops[k].kind == PTX_OP_ADDR && in->ops[k].addr_has_base && !in->ops[k].nelems && in->ops[k].name) return &in->ops[k];
    return NULL;
}

/* W505 for one access (address operand `ad`) if its address is known to be too little aligned. */
static int align_check_insn(const align_ctx *A, const ptx_module *m, const ptx_stmt *s, const ptx_operand *ad, int need,
                            pg_diag_sink *diag) {
    const ptx_insn *in = &s->u.insn;
    ptx_operand base = *ad;
    base.kind = ad->addr_base_is_reg ? PTX_OP_REG : PTX_OP_SYM;
    int a = align_meet(operand_align(A, &base), lowbit(ad->ival));
    if (!a || a >= need) return 0;
    pg_buf name = {0};
    pg_buf_puts(&name, in->opcode);
    for (int k = 0; k < in->nmods; k++) pg_buf_puts(&name, in->mods[k]);
    pg_diag_emit(diag, PG_W_MISALIGNED, m->filename, s->loc.line, s->loc.col,
                 "%s needs %d-byte alignment; its address %s is only known to be a multiple of %d "
                 "(is the byte offset scaled by the element size?)", name.data, need, ad->text ? ad->text : "", a);
    pg_buf_free(&name);
    return 1;
}

/* n bytes rounded up to 16; the next 16-aligned piece of a block being carved up */
#define AL(n) (((n) + 15) & ~(size_t)15)
static void *carve(char **p, size_t n) {
    void *r = *p;
    *p += AL(n);
    return r;
}

int ptx_align_check(const ptx_module *m, const ptx_func *f, const ptx_cfg *cfg_in, pg_diag_sink *diag) {
    if (!m || !f || !f->has_body || f->nbody <= 0) return 0;
    int nbody = f->nbody;
    /* The arrays below come in three allocations, one per size they depend on (statements;
     * register ids; blocks x tracked registers), carved with carve(), instead of a dozen
     * malloc/free pairs per function.  (One scratch arena was slower: its large blocks went
     * back to the kernel and were faulted in again.) */
    char *per_stmt = malloc(2 * AL(sizeof(const ptx_operand *) * (size_t)nbody) + 3 * AL(sizeof(int) * (size_t)nbody) +
                            AL(sizeof(align_xfer) * (size_t)nbody)), *per_reg = NULL, *per_block = NULL;
    if (!per_stmt) return 0;
    char *sp = per_stmt;
    /* per statement: its checked address operand; the id of its one destination register
     * (-1: none or untracked, -2: several); later its state index (see align_step) */
    const ptx_operand **acc = carve(&sp, sizeof *acc * (size_t)nbody);
    memset(acc, 0, sizeof *acc * (size_t)nbody);
    int *need = carve(&sp, sizeof(int) * (size_t)nbody);   /* where acc[i]: its access_bytes */
    int *defv = carve(&sp, sizeof(int) * (size_t)nbody);
    int *dnext = carve(&sp, sizeof(int) * (size_t)nbody);  /* the next definition of the same register */
    const ptx_operand **op0 = carve(&sp, sizeof *op0 * (size_t)nbody);   /* an instruction's first operand, or NULL */
    align_xfer *xf = carve(&sp, sizeof(align_xfer) * (size_t)nbody);
    char *rel = NULL;   /* per register id: can it reach an address? */
    align_ctx A = {0};
    ptx_cfg *own = NULL;
    const ptx_cfg *cfg = cfg_in;
    int naccess = 0, v, nwarn = 0, R = 0, *in = NULL, *cur = NULL, *work = NULL, nwork = 0;
    bool *seen = NULL, *queued = NULL;
    const char *names[PTX_MAX_OPERANDS + 8];
    const int maxn = (int)(sizeof names / sizeof names[0]);
    /* One walk over the statements (each walk over a long body misses the cache on every
     * statement): register ids and variable alignments from the declarations, the checked
     * accesses and first operands from the instructions.  Ids before any lookup: the .func's
     * return and parameter registers first, then the body's in order. */
    for (int i = 0; i < f->nrets; i++) reg_ids_add(&A, &f->rets[i], true);
    for (int i = 0; i < f->nparams; i++) reg_ids_add(&A, &f->params[i], true);
    for (int i = 0; i < nbody; i++) {
        const ptx_stmt *st = &f->body[i];
        defv[i] = -1;
        op0[i] = NULL;
        if (st->kind == PTX_ST_DECL) {
            reg_ids_add(&A, &st->u.decl, false);
            align_add_sym(&A, &st->u.decl);   /* registers are skipped */
        }
        if (st->kind != PTX_ST_INSN) continue;
        const ptx_insn *ins = &st->u.insn;
        if (ins->opcode[0] == 'b' && is_op(ins, "brx")) goto done;   /* computed jumps: edges the CFG may not know */
        acc[i] = access_address(ins, &need[i]);
        if (acc[i]) naccess++;
        if (ins->nops) op0[i] = ins->ops;
    }
    if (!naccess) goto done;
    int nmemo = 32;
    while (nmemo < REG_MEMO && nmemo < 2 * (A.nids + A.plain.n)) nmemo *= 2;
    A.memo_mask = (uint32_t)nmemo - 1;
    size_t nid1 = (size_t)A.nids + 1;
    if (!(per_reg = malloc(AL(sizeof *A.memo * (size_t)nmemo) + AL(nid1) + 3 * AL(sizeof(int) * nid1)))) goto done;
    sp = per_reg;
    A.memo = carve(&sp, sizeof *A.memo * (size_t)nmemo);
    memset(A.memo, 0, sizeof *A.memo * (size_t)nmemo);
    for (int i = 0; i < nbody; i++) {
        const ptx_operand *o0 = op0[i];
        if (!o0) continue;
        /* a register operand 0 is taken for the destination without asking ptx_insn_defs
         * (this runs for every instruction): where it is an input (bar.sync %r1), the
         * transfer function knows no such opcode and only makes it unknown */
        if (o0->kind == PTX_OP_REG) defv[i] = o0->sreg ? -1 : reg_id(&A, o0->name);
        if (o0->kind != PTX_OP_VEC && o0->kind != PTX_OP_PAIR && o0->kind != PTX_OP_LIST) continue;
        int nd = ptx_insn_defs(&f->body[i].u.insn, names, maxn);
        defv[i] = nd == 1 ? reg_id(&A, names[0]) : nd ? -2 : -1;
    }
    /* only registers that can reach an address matter: the backward slice from the address
     * bases through the operands of their definitions (keeps the state small on -G code) */
    rel = carve(&sp, nid1);
    memset(rel, 0, nid1);
    for (int i = 0; i < nbody; i++)
        if (acc[i] && acc[i]->addr_base_is_reg && (v = reg_id(&A, acc[i]->name)) >= 0) rel[v] = 1;
    /* the closure by a worklist of registers, each register's definitions chained
     * (dhead[v], dnext[i]): each definition's sources are read once, and only those of
     * definitions the slice reaches (passes over the whole body to a fixpoint took as many
     * passes as the longest def-use chain) */
    {
        int *dhead = carve(&sp, sizeof(int) * nid1), *stack = carve(&sp, sizeof(int) * nid1), nstack = 0;
        for (int r = 0; r <= A.nids; r++) dhead[r] = -1;
        for (int i = nbody - 1; i >= 0; i--)
            if (defv[i] >= 0) { dnext[i] = dhead[defv[i]]; dhead[defv[i]] = i; }
        for (int r = 0; r <= A.nids; r++)
            if (rel[r]) stack[nstack++] = r;
        while (nstack) {
            int r = stack[--nstack];
            for (int i = dhead[r]; i >= 0; i = dnext[i]) {
                const ptx_insn *ins = &f->body[i].u.insn;
                for (int k = 1; k < ins->nops; k++)
                    if (ins->ops[k].kind == PTX_OP_REG && !ins->ops[k].sreg && (v = reg_id(&A, ins->ops[k].name)) >= 0 && !rel[v]) {
                        rel[v] = 1;
                        stack[nstack++] = v;
                    }
            }
        }
    }
    if (!cfg && ptx_cfg_build(m, f, &own, NULL) == PG_OK) cfg = own;
    if (!cfg || cfg->nblocks == 0) goto done;
    /* variables whose address an instruction may take: module, parameters, function */
    for (int i = 0; i < m->ntops; i++)
        if (m->tops[i].kind == PTX_TOP_DECL) align_add_sym(&A, &m->tops[i].u.decl);
    for (int i = 0; i < f->nparams; i++) align_add_sym(&A, &f->params[i]);   /* the body's: in the first walk */
    /* state indices of the tracked registers */
    A.slot = carve(&sp, sizeof(int) * nid1);
    for (int r = 0; r < A.nids; r++) A.slot[r] = rel[r] ? R++ : -1;
    for (int i = 0; i < nbody; i++)
        if (defv[i] >= 0) defv[i] = A.slot[defv[i]];
    int nb = cfg->nblocks;
    if (R == 0) R = 1;
    if ((int64_t)nb * R > ALIGN_STATE_CAP) goto done;
    for (int i = 0; i < nbody; i++)
        if (defv[i] >= 0) xfer_plan(&A, &f->body[i].u.insn, &xf[i]);
    /* entry facts per block (an uninitialized register reads ALIGN_MAX: any value will do) */
    if (!(per_block = malloc(AL(sizeof(int) * (size_t)nb * (size_t)R) + AL(sizeof(int) * (size_t)R) +
                             AL(sizeof(int) * (size_t)nb) + 2 * AL((size_t)nb))))
        goto done;
    sp = per_block;
    in = carve(&sp, sizeof(int) * (size_t)nb * (size_t)R);
    cur = carve(&sp, sizeof(int) * (size_t)R);
    work = carve(&sp, sizeof(int) * (size_t)nb);
    seen = carve(&sp, (size_t)nb);
    queued = carve(&sp, (size_t)nb);
    memset(seen, 0, (size_t)nb);
    memset(queued, 0, (size_t)nb);
    for (int r = 0; r < R; r++) in[r] = ALIGN_MAX;
    seen[0] = queued[0] = true;
    work[nwork++] = 0;
    A.cur = cur;
    while (nwork) {
        int b = work[--nwork];
        queued[b] = false;
        memcpy(cur, in + (size_t)b * R, sizeof(int) * (size_t)R);
        for (int i = cfg->blocks[b].first; i <= cfg->blocks[b].last; i++)
            if (defv[i] != -1) align_step(&A, cur, &f->body[i].u.insn, defv[i], &xf[i]);
        for (int k = 0; k < cfg->blocks[b].nsucc; k++) {
            int s = cfg->blocks[b].succ[k];
            int *si = in + (size_t)s * R;
            bool changed = !seen[s];
            if (!seen[s]) {
                memcpy(si, cur, sizeof(int) * (size_t)R);
            } else {
                int diff = 0;
                for (int r = 0; r < R; r++) {   /* align_meet, branch-free (the compiler vectorizes it) */
                    int a = si[r], c = cur[r], lo = a < c ? a : c, x = ((a != 0) & (c != 0)) ? lo : 0;
                    diff |= x ^ a;
                    si[r] = x;
                }
                changed = changed || diff != 0;
            }
            seen[s] = true;
            if (changed && !queued[s]) { queued[s] = true; work[nwork++] = s; }
        }
    }
    /* the fixed point reached: check each access against the facts just before it */
    for (int b = 0; b < nb; b++) {
        if (!seen[b]) continue;   /* unreachable: no facts */
        memcpy(cur, in + (size_t)b * R, sizeof(int) * (size_t)R);
        for (int i = cfg->blocks[b].first; i <= cfg->blocks[b].last; i++) {
            if (acc[i]) nwarn += align_check_insn(&A, m, &f->body[i], acc[i], need[i], diag);
            if (defv[i] != -1) align_step(&A, cur, &f->body[i].u.insn, defv[i], &xf[i]);
        }
    }
done:
    free(per_stmt);
    free(per_reg);
    free(per_block);
    pg_vec_free(A.bases);
    ptx_cfg_free(own);
    sm_free(&A.plain);
    sm_free(&A.syms);
    return nwarn;
}
