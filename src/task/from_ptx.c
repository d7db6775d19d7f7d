/* from_ptx.c — a task spec read off a PTX entry, for checking a rewrite of a
 * kernel against the kernel itself when there is no task.json (the nvcc
 * wrapper's differential test of `gen --baseline` candidates).
 *
 * The element type of each pointer parameter is read off the code: follow the
 * value of every `ld.param` through mov/cvta/add/sub/mad/cvt to the address
 * of a load/store and take the access type that occurs most often.  A 64-bit
 * parameter that never reaches an address is an integer scalar. */
#include "ptxgen/ptx.h"
#include "ptxgen/task.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static task_dtype dtype_of_ptx(ptx_type t) {
    switch (t) {
    case PTX_T_F32: return TASK_T_F32;
    case PTX_T_F64: return TASK_T_F64;
    case PTX_T_F16: return TASK_T_F16;
    case PTX_T_BF16: return TASK_T_BF16;
    case PTX_T_S8: return TASK_T_S8;
    case PTX_T_S16: return TASK_T_S16;
    case PTX_T_S32: return TASK_T_S32;
    case PTX_T_S64: return TASK_T_S64;
    case PTX_T_U8: case PTX_T_B8: return TASK_T_U8;
    case PTX_T_U16: case PTX_T_B16: return TASK_T_U16;
    case PTX_T_U32: case PTX_T_B32: return TASK_T_U32;
    case PTX_T_U64: case PTX_T_B64: return TASK_T_U64;
    default: return TASK_T_NONE;
    }
}

typedef struct { const char *reg; uint64_t mask; } taint;
typedef PG_VEC(taint) taint_vec;

static uint64_t taint_get(const taint_vec *v, const char *r) {
    for (int i = 0; i < v->n; i++)
        if (!strcmp(v->v[i].reg, r)) return v->v[i].mask;
    return 0;
}

static bool is_addr_op(const char *op) {
    return !strcmp(op, "mov") || !strcmp(op, "cvta") || !strcmp(op, "add") || !strcmp(op, "sub") ||
           !strcmp(op, "mad") || !strcmp(op, "cvt");
}

static bool is_mem_op(const char *op) {
    return !strcmp(op, "ld") || !strcmp(op, "st") || !strcmp(op, "atom") || !strcmp(op, "red") ||
           !strcmp(op, "ldu") || !strcmp(op, "prefetch");
}

void task_ptx_params(const ptx_func *f, task_ptx_param *sp) {
    int np = f->nparams < TASK_PTX_MAX_PARAMS ? f->nparams : TASK_PTX_MAX_PARAMS;
    taint_vec tv = {0};
    int votes[TASK_PTX_MAX_PARAMS][TASK_T__COUNT];   /* [param][dtype] accesses through it */
    bool lds[TASK_PTX_MAX_PARAMS] = {0}, sts[TASK_PTX_MAX_PARAMS] = {0};
    memset(votes, 0, sizeof votes);
    for (int pass = 0; pass < 8; pass++) {
        bool changed = false;
        for (int s = 0; s < f->nbody; s++) {
            if (f->body[s].kind != PTX_ST_INSN) continue;
            const ptx_insn *in = &f->body[s].u.insn;
            const char *defs[8], *uses[16];
            int nd = ptx_insn_defs(in, defs, 8), nu = ptx_insn_uses(in, uses, 16);
            uint64_t m = 0;
            if (!strcmp(in->opcode, "ld") && in->nops >= 2 && in->ops[1].kind == PTX_OP_ADDR && in->ops[1].name &&
                !in->ops[1].addr_base_is_reg) {
                for (int p = 0; p < np; p++)
                    if (!strcmp(f->params[p].name, in->ops[1].name)) m |= 1ull << p;
            } else if (is_addr_op(in->opcode)) {
                for (int u = 0; u < nu; u++) m |= taint_get(&tv, uses[u]);
            }
            for (int d = 0; d < nd && m; d++) {
                int k = 0;
                while (k < tv.n && strcmp(tv.v[k].reg, defs[d])) k++;
                if (k == tv.n) pg_vec_push(tv, ((taint){defs[d], 0}));
                if ((tv.v[k].mask | m) != tv.v[k].mask) { tv.v[k].mask |= m; changed = true; }
            }
        }
        if (!changed) break;
    }
    for (int s = 0; s < f->nbody; s++) {
        if (f->body[s].kind != PTX_ST_INSN) continue;
        const ptx_insn *in = &f->body[s].u.insn;
        if (!is_mem_op(in->opcode)) continue;
        bool param_space = false;
        ptx_type ty = PTX_T_NONE;
        for (int k = 0; k < in->nmods; k++) {
            if (!strcmp(in->mods[k], ".param")) param_space = true;
            ptx_type t = ptx_type_lookup(in->mods[k], strlen(in->mods[k]));
            if (t != PTX_T_NONE) ty = t;
        }
        if (param_space) continue;
        for (int o = 0; o < in->nops; o++) {
            const ptx_operand *op = &in->ops[o];
            if (op->kind != PTX_OP_ADDR || !op->addr_base_is_reg || !op->name) continue;
            uint64_t m = taint_get(&tv, op->name);
            task_dtype dt = dtype_of_ptx(ty);
            bool st = !strcmp(in->opcode, "st") || !strcmp(in->opcode, "red") || !strcmp(in->opcode, "atom");
            bool ld = !strcmp(in->opcode, "ld") || !strcmp(in->opcode, "ldu") || !strcmp(in->opcode, "atom");
            for (int p = 0; p < np; p++)
                if (m >> p & 1) {
                    votes[p][dt == TASK_T_NONE ? TASK_T_U8 : dt] += 1;
                    sts[p] |= st;
                    lds[p] |= ld;
                }
        }
    }
    pg_vec_free(tv);
    for (int p = 0; p < f->nparams; p++) {
        const ptx_decl *d = &f->params[p];
        task_ptx_param *q = &sp[p];
        memset(q, 0, sizeof *q);
        const ptx_type_info *ti = ptx_type_get(d->type);
        q->bytes = ti->bits / 8;
        if (p >= TASK_PTX_MAX_PARAMS || d->ndims) { q->unsupported = true; continue; }   /* by-value structs and arrays */
        int best = -1, total = 0;
        for (int t = 0; t < TASK_T__COUNT; t++) {
            total += votes[p][t];
            if (votes[p][t] && (best < 0 || votes[p][t] > votes[p][best])) best = t;
        }
        bool ptrish = d->attrs && strstr(d->attrs, ".ptr");
        if (ti->bits == 64 && (total || ptrish)) {
            q->is_pointer = true;
            q->loaded = lds[p];
            q->stored = sts[p];
            q->dtype = best >= 0 ? (task_dtype)best : TASK_T_F32;
        } else {
            q->dtype = dtype_of_ptx(d->type);
            if (q->dtype == TASK_T_NONE) q->unsupported = true;
        }
    }
}

/* Block size: the kernel's .reqntid/.maxntid x when it has one, else `fallback`. */
int task_ptx_block(const ptx_func *f, int fallback) {
    for (int i = 0; i < f->nperf; i++)
        if ((!strcmp(f->perf[i].name, ".reqntid") || !strcmp(f->perf[i].name, ".maxntid")) && f->perf[i].nvals >= 1 &&
            f->perf[i].vals[0] > 0 && f->perf[i].vals[0] <= 1024) {
            int64_t t = f->perf[i].vals[0];
            for (int k = 1; k < f->perf[i].nvals; k++) t *= f->perf[i].vals[k] > 0 ? f->perf[i].vals[k] : 1;
            return (int)(t <= 1024 ? f->perf[i].vals[0] : fallback);
        }
    return fallback;
}

static char *dup(const char *s) {
    char *d = strdup(s);
    if (!d) pg_oom();   /* as pg_arena: out of memory is not a recoverable state here */
    return d;
}

pg_status task_from_ptx(const ptx_func *f, const task_ptx_param *sp, int64_t n, int block, task_spec **out,
                        pg_diag_sink *diag) {
    *out = NULL;
    if (f->nparams > TASK_PTX_MAX_PARAMS) {
        pg_diag_emit(diag, PG_E_TASK, f->name, f->loc.line, f->loc.col, "'%s' has %d parameters (at most %d)", f->name,
                     f->nparams, TASK_PTX_MAX_PARAMS);
        return PG_ERR_USAGE;
    }
    for (int p = 0; p < f->nparams; p++)
        if (sp[p].unsupported) {
            pg_diag_emit(diag, PG_E_TASK, f->name, f->params[p].loc.line, f->params[p].loc.col,
                         "parameter %d (%s): a by-value struct or array, which synthetic inputs do not cover", p + 1,
                         f->params[p].name);
            return PG_ERR_USAGE;
        }
    if (n < 1 || block < 1 || block > 1024) {
        pg_diag_emit(diag, PG_E_TASK, f->name, 0, 0, "n %lld and block %d: want n >= 1 and 1 <= block <= 1024", (long long)n,
                     block);
        return PG_ERR_USAGE;
    }
    task_spec *t = calloc(1, sizeof *t);
    if (!t) return PG_ERR_NOMEM;
    char num[64];
    t->path = dup("(synthetic differential spec)");
    t->name = dup(f->name);
    t->kernel = dup(f->name);
    t->nparams = f->nparams;
    t->params = calloc((size_t)f->nparams + 1, sizeof *t->params);
    for (int p = 0; p < f->nparams; p++) {
        task_param *q = &t->params[p];
        bool fl = task_dtype_is_float(sp[p].dtype);
        snprintf(num, sizeof num, "param%d", p);
        q->name = dup(num);
        q->is_pointer = sp[p].is_pointer;
        q->dtype = sp[p].dtype;
        q->role = TASK_ROLE_INOUT;
        q->len = dup("n");
        q->value = dup(fl ? "1" : "n");
        q->dists = calloc(1, sizeof *q->dists);
        q->dists[0] = dup(fl ? "uniform(-1,1)" : "int(0,n-1)");   /* integers stay safe as indices */
        q->ndists = 1;
    }
    t->sizes = calloc(1, sizeof *t->sizes);
    t->nsizes = 1;
    t->sizes[0].env.name[0] = dup("n");
    t->sizes[0].env.val[0] = n;
    t->sizes[0].env.n = 1;
    t->sizes[0].time_it = true;
    snprintf(num, sizeof num, "%d", block);
    t->block[0] = dup(num);
    snprintf(num, sizeof num, "cdiv(n,%d)", block);
    t->grid[0] = dup(num);
    t->block[1] = dup("1"); t->block[2] = dup("1");
    t->grid[1] = dup("1"); t->grid[2] = dup("1");
    t->smem = dup("0");
    t->dists = calloc(1, sizeof *t->dists);
    t->dists[0] = dup("uniform(-1,1)");
    t->ndists = 1;
    t->tol[TASK_T_F32] = 1e-5;
    t->tol[TASK_T_F64] = 1e-12;
    t->tol[TASK_T_F16] = t->tol[TASK_T_BF16] = 1e-2;
    t->ref.kind = dup("synthetic");
    t->cost_bytes = dup("0");
    t->cost_flops = dup("0");
    *out = t;
    return PG_OK;
}
