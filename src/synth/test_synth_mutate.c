/* test_synth_mutate.c — tests of the semantics-preserving mutations (synth.h).
 *
 * usage: test_synth_mutate [--ptxas-all] [FILE.ptx ...]
 *
 * Without files: every corpus/<name>/kernel.ptx, examples/vecadd.ptx and
 * tests/ptx/valid/<name>.ptx under the current directory (the test runner runs
 * from the repository root).  For each input, mutation kind and seeds 1 and 2:
 *   - the mutant parses and validates; the same seed gives identical text;
 *   - rename-regs / rename-labels: the statement structure is unchanged
 *     (kinds, opcodes, modifiers, operand shapes, immediates) and old names
 *     map to new names through one consistent bijection; the number of
 *     renamed occurrences equals the reported number of changes;
 *   - reorder: every basic block holds the same instructions, and every edge
 *     i -> j of the original block's dependence DAG keeps i before j;
 *   - predicate-branch: the only differences are one new `.reg .pred` and,
 *     per reported change, a `setp.{eq,ne}.T P, 0, 0` inserted before a
 *     formerly unguarded bra that is now guarded by @P / @!P (always taken).
 * Different seeds give different text for most inputs.  When ptxas is found,
 * a sample of mutants (all with --ptxas-all) must be accepted whenever the
 * original is; otherwise "SKIPPED: ptxas not found" is printed.
 * Last line: "N passed, N failed"; exit status 1 when anything failed. */
#include "ptxgen/ptx.h"
#include "ptxgen/synth.h"

#include "ptx/test_util.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void print_diag(void *user, const pg_diag *d) {
    (void)user;
    char buf[1024];
    pg_diag_format(d, buf, sizeof buf);
    if (d->sev == PG_SEV_ERROR) fprintf(stderr, "    %s\n", buf);
}

static pg_diag_sink sink(void) {
    pg_diag_sink s;
    memset(&s, 0, sizeof s);
    s.fn = print_diag;
    return s;
}

static ptx_module *load(const char *text, size_t len, const char *name) {
    pg_diag_sink s = sink();
    ptx_module *m = NULL;
    pg_status st = ptx_parse(text, len, name, &m, &s);
    if (st == PG_OK) st = ptx_validate(m, &s);
    if (st != PG_OK) {
        ptx_module_free(m);
        return NULL;
    }
    return m;
}

static char *insn_text(const ptx_insn *in) {
    pg_buf b = {0};
    ptx_print_insn(in, &b);
    char *s = strdup(b.data ? b.data : "");
    pg_buf_free(&b);
    return s;
}

/* A statement as text (instructions printed; others by their identity). */
static char *stmt_text(const ptx_stmt *s) {
    if (s->kind == PTX_ST_INSN) return insn_text(&s->u.insn);
    char buf[4096];
    switch (s->kind) {
    case PTX_ST_LABEL: snprintf(buf, sizeof buf, "label %s", s->u.label); break;
    case PTX_ST_DECL:
        snprintf(buf, sizeof buf, "decl %d %d %s<%d>", (int)s->u.decl.space, (int)s->u.decl.type, s->u.decl.name,
                 s->u.decl.count);
        break;
    case PTX_ST_DIRECTIVE:
        snprintf(buf, sizeof buf, "dir %s %s %s", s->u.dir.label ? s->u.dir.label : "-", s->u.dir.name, s->u.dir.text);
        break;
    case PTX_ST_BLOCK_BEGIN: snprintf(buf, sizeof buf, "{"); break;
    default: snprintf(buf, sizeof buf, "}"); break;
    }
    return strdup(buf);
}

/* ---- bijection of names -------------------------------------------------- */
typedef struct { char **a, **b; int n, cap; } bij;

static bool bij_bind(bij *m, const char *x, const char *y) {
    for (int i = 0; i < m->n; i++) {
        bool ea = !strcmp(m->a[i], x), eb = !strcmp(m->b[i], y);
        if (ea || eb) return ea && eb;
    }
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->a = realloc(m->a, sizeof(char *) * (size_t)m->cap);
        m->b = realloc(m->b, sizeof(char *) * (size_t)m->cap);
    }
    m->a[m->n] = strdup(x);
    m->b[m->n++] = strdup(y);
    return true;
}

static void bij_free(bij *m) {
    for (int i = 0; i < m->n; i++) {
        free(m->a[i]);
        free(m->b[i]);
    }
    free(m->a);
    free(m->b);
    memset(m, 0, sizeof *m);
}

static bool streq0(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

/* ---- rename-regs / rename-labels: structure + bijection ------------------------ */
typedef struct { const char *name; int count, scope; } rc_decl;

typedef struct {
    bool labels;        /* comparing a rename-labels mutant (else rename-regs) */
    bij regs, decls, labs;
    /* register declarations in scope (original names): sibling { } scopes may
     * declare the same name, so references are keyed by the declaring scope */
    PG_VEC(rc_decl) scope;
    PG_VEC(int) marks;
    int next_scope, cur_scope;
    PG_VEC(int) scope_ids;
    int diffs;          /* renamed occurrences seen */
    int bad;            /* structural mismatches / bijection violations */
    char where[256];
} rcmp;

static void rc_fail(rcmp *c, const char *what, const char *x, const char *y) {
    if (c->bad++ < 5) fprintf(stderr, "    %s: %s: '%s' vs '%s'\n", c->where, what, x ? x : "(null)", y ? y : "(null)");
}

/* The scope id of the declaration a register name resolves to (-1: none). */
static int rc_resolve(const rcmp *c, const char *x) {
    if (!x) return -1;
    for (int i = c->scope.n - 1; i >= 0; i--) {
        const rc_decl *d = &c->scope.v[i];
        size_t n = strlen(d->name);
        if (d->count == 0) {
            if (!strcmp(d->name, x)) return d->scope;
            continue;
        }
        if (strncmp(d->name, x, n) || !x[n]) continue;
        bool digits = true;
        for (const char *p = x + n; *p; p++) digits = digits && *p >= '0' && *p <= '9';
        if (digits && atol(x + n) < d->count) return d->scope;
    }
    return -1;
}

static void rc_name(rcmp *c, bij *b, const char *x, const char *y, bool may_change, const char *what) {
    if (streq0(x, y)) return;
    if (!may_change || !x || !y) { rc_fail(c, what, x, y); return; }
    c->diffs++;
    char key[600];
    snprintf(key, sizeof key, "%s", x);
    if (b == &c->regs) snprintf(key, sizeof key, "%s#%d", x, rc_resolve(c, x));
    if (b == &c->decls) snprintf(key, sizeof key, "%s#%d", x, c->cur_scope);
    if (!bij_bind(b, key, y)) rc_fail(c, "inconsistent renaming", key, y);
}

static void rc_op(rcmp *c, const ptx_operand *x, const ptx_operand *y, bool branch) {
    if (x->kind != y->kind || x->nelems != y->nelems || x->ival != y->ival || (x->neg != y->neg && x->kind != PTX_OP_IMM_INT) ||
        (x->sreg && y->sreg && x->sreg != y->sreg)) {   /* a register named like a special one (.reg .u32 %laneid) is renamed */
        rc_fail(c, "operand shape differs", x->text, y->text);
        return;
    }
    switch (x->kind) {
    case PTX_OP_REG:
        if (c->labels && branch && !x->sreg)   /* a label named like a register (bra %L1) */
            rc_name(c, &c->labs, x->name, y->name, true, "label");
        else
            rc_name(c, &c->regs, x->name, y->name, !c->labels && !(x->sreg && y->sreg), "register");
        break;
    case PTX_OP_SYM:
        rc_name(c, c->labels ? &c->labs : &c->regs, x->name, y->name,
                c->labels ? branch : (x->name && x->name[0] == '%'), "symbol");
        break;
    case PTX_OP_ADDR:
        if (x->addr_has_base != y->addr_has_base || x->addr_base_is_reg != y->addr_base_is_reg) {
            rc_fail(c, "address shape differs", x->text, y->text);
            return;
        }
        rc_name(c, &c->regs, x->name, y->name, !c->labels && x->addr_base_is_reg, "address base");
        break;
    case PTX_OP_IMM_FLT:
        if (!streq0(x->text, y->text)) rc_fail(c, "float immediate differs", x->text, y->text);
        break;
    default:
        break;
    }
    for (int i = 0; i < x->nelems && i < y->nelems; i++) rc_op(c, &x->elems[i], &y->elems[i], branch);
}

static void rc_func(rcmp *c, const ptx_func *f, const ptx_func *g) {
    if (f->nbody != g->nbody) { rc_fail(c, "body length differs", f->name, g->name); return; }
    for (int i = 0; i < f->nbody; i++) {
        const ptx_stmt *s = &f->body[i], *t = &g->body[i];
        if (s->kind != t->kind || s->depth != t->depth) { rc_fail(c, "statement kind differs", f->name, g->name); continue; }
        switch (s->kind) {
        case PTX_ST_BLOCK_BEGIN:
            pg_vec_push(c->marks, c->scope.n);
            pg_vec_push(c->scope_ids, c->cur_scope);
            c->cur_scope = ++c->next_scope;
            break;
        case PTX_ST_BLOCK_END:
            if (c->marks.n) {
                c->scope.n = c->marks.v[--c->marks.n];
                c->cur_scope = c->scope_ids.v[--c->scope_ids.n];
            }
            break;
        case PTX_ST_LABEL:
            rc_name(c, &c->labs, s->u.label, t->u.label, c->labels, "label");
            break;
        case PTX_ST_DECL: {
            const ptx_decl *d = &s->u.decl, *e = &t->u.decl;
            if (d->space == PTX_SS_REG && d->name) {
                rc_decl rd = {d->name, d->count, c->cur_scope};
                pg_vec_push(c->scope, rd);
            }
            if (d->space != e->space || d->type != e->type || d->count != e->count || d->vec != e->vec)
                rc_fail(c, "declaration differs", d->name, e->name);
            rc_name(c, &c->decls, d->name, e->name, !c->labels && d->space == PTX_SS_REG && d->name[0] == '%',
                    "declaration name");
            break;
        }
        case PTX_ST_DIRECTIVE:
            if (strcmp(s->u.dir.name, t->u.dir.name)) rc_fail(c, "directive differs", s->u.dir.name, t->u.dir.name);
            rc_name(c, &c->labs, s->u.dir.label, t->u.dir.label, c->labels, "directive label");
            if (!strcmp(s->u.dir.name, ".branchtargets") && c->labels) {
                if (s->u.dir.nargs != t->u.dir.nargs) rc_fail(c, ".branchtargets length", s->u.dir.text, t->u.dir.text);
                for (int a = 0; a < s->u.dir.nargs && a < t->u.dir.nargs; a++)
                    rc_name(c, &c->labs, s->u.dir.args[a], t->u.dir.args[a], true, ".branchtargets label");
            } else if (!streq0(s->u.dir.text, t->u.dir.text)) {
                rc_fail(c, "directive text differs", s->u.dir.text, t->u.dir.text);
            }
            break;
        case PTX_ST_INSN: {
            const ptx_insn *x = &s->u.insn, *y = &t->u.insn;
            bool same = !strcmp(x->opcode, y->opcode) && x->nmods == y->nmods && x->nops == y->nops &&
                        x->guard_neg == y->guard_neg && !x->guard == !y->guard;
            for (int k = 0; same && k < x->nmods; k++) same = !strcmp(x->mods[k], y->mods[k]);
            if (!same) { rc_fail(c, "instruction differs", x->opcode, y->opcode); break; }
            rc_name(c, &c->regs, x->guard, y->guard, !c->labels, "guard");
            bool branch = !strcmp(x->opcode, "bra") || !strcmp(x->opcode, "brx") || !strcmp(x->opcode, "call");
            for (int k = 0; k < x->nops; k++) rc_op(c, &x->ops[k], &y->ops[k], branch);
            break;
        }
        default:
            break;
        }
    }
}

/* Compare an original and a renamed module; returns true when consistent and
 * the renamed occurrences equal `changes`. */
static bool check_rename(const ptx_module *o, const ptx_module *m, bool labels, int changes, const char *where) {
    bool ok = true;
    if (o->nfuncs != m->nfuncs) return false;
    int diffs = 0;
    for (int fi = 0; fi < o->nfuncs; fi++) {
        rcmp c;
        memset(&c, 0, sizeof c);
        c.labels = labels;
        snprintf(c.where, sizeof c.where, "%s:%s", where, o->funcs[fi].name);
        if (strcmp(o->funcs[fi].name, m->funcs[fi].name)) rc_fail(&c, "function name", o->funcs[fi].name, m->funcs[fi].name);
        rc_func(&c, &o->funcs[fi], &m->funcs[fi]);
        diffs += c.diffs;
        if (c.bad) ok = false;
        bij_free(&c.regs);
        bij_free(&c.decls);
        bij_free(&c.labs);
        pg_vec_free(c.scope);
        pg_vec_free(c.marks);
        pg_vec_free(c.scope_ids);
    }
    if (diffs != changes) {
        fprintf(stderr, "    %s: %d renamed occurrences, %d changes reported\n", where, diffs, changes);
        ok = false;
    }
    return ok;
}

/* ---- reorder: same instructions per block, DAG edges respected ---------------- */
static bool check_reorder(const ptx_module *o, const ptx_module *m, int changes, const char *where) {
    if (o->nfuncs != m->nfuncs) return false;
    bool ok = true;
    int moved = 0;
    for (int fi = 0; fi < o->nfuncs && ok; fi++) {
        const ptx_func *f = &o->funcs[fi], *g = &m->funcs[fi];
        if (f->nbody != g->nbody) { fprintf(stderr, "    %s: body length differs\n", where); return false; }
        for (int i = 0; i < f->nbody; i++) {
            if (f->body[i].kind != g->body[i].kind) { fprintf(stderr, "    %s: kind differs at %d\n", where, i); return false; }
            if (f->body[i].kind == PTX_ST_INSN) continue;
            char *a = stmt_text(&f->body[i]), *b = stmt_text(&g->body[i]);
            if (strcmp(a, b)) { fprintf(stderr, "    %s: non-instruction moved: %s / %s\n", where, a, b); ok = false; }
            free(a);
            free(b);
        }
        if (!f->has_body) continue;
        ptx_cfg *cfg = NULL;
        if (ptx_cfg_build(o, f, &cfg, NULL) != PG_OK) { ptx_cfg_free(cfg); return false; }
        for (int bi = 0; bi < cfg->nblocks && ok; bi++) {
            ptx_dag *d = NULL;
            if (ptx_dag_build(o, f, &cfg->blocks[bi], &d) != PG_OK) { ptx_dag_free(d); ok = false; break; }
            int n = d->ninsns;
            char **ot = calloc((size_t)n + 1, sizeof(char *)), **mt = calloc((size_t)n + 1, sizeof(char *));
            int *newpos = malloc(sizeof(int) * (size_t)(n + 1));
            bool *used = calloc((size_t)n + 1, 1);
            for (int p = 0; p < n; p++) {
                ot[p] = insn_text(&f->body[d->insns[p]].u.insn);
                mt[p] = insn_text(&g->body[d->insns[p]].u.insn);
                newpos[p] = -1;
                if (strcmp(ot[p], mt[p])) moved++;
            }
            /* k-th occurrence of a text in the mutant <- k-th in the original */
            for (int j = 0; j < n && ok; j++) {
                int i = 0;
                while (i < n && (used[i] || strcmp(ot[i], mt[j]))) i++;
                if (i == n) {
                    fprintf(stderr, "    %s: block %d: instruction '%s' is not in the original block\n", where, bi, mt[j]);
                    ok = false;
                    break;
                }
                used[i] = true;
                newpos[i] = j;
            }
            for (int e = 0; e < d->ndeps && ok; e++) {
                int a = d->deps[e].from, b = d->deps[e].to;
                if (newpos[a] >= newpos[b]) {
                    fprintf(stderr, "    %s: block %d: dependence '%s' -> '%s' (kinds %u) violated\n", where, bi, ot[a],
                            ot[b], d->deps[e].kinds);
                    ok = false;
                }
            }
            for (int p = 0; p < n; p++) {
                free(ot[p]);
                free(mt[p]);
            }
            free(ot);
            free(mt);
            free(newpos);
            free(used);
            ptx_dag_free(d);
        }
        ptx_cfg_free(cfg);
    }
    if (ok && moved > changes) {
        fprintf(stderr, "    %s: %d instructions differ but only %d changes reported\n", where, moved, changes);
        ok = false;
    }
    return ok;
}

/* ---- predicate-branch ------------------------------------------------------------- */
static int count_unguarded_bra(const ptx_module *m) {
    int n = 0;
    for (int fi = 0; fi < m->nfuncs; fi++)
        for (int i = 0; i < m->funcs[fi].nbody; i++) {
            const ptx_stmt *s = &m->funcs[fi].body[i];
            if (s->kind == PTX_ST_INSN && !strcmp(s->u.insn.opcode, "bra") && !s->u.insn.guard) n++;
        }
    return n;
}

static bool is_imm0(const ptx_operand *op) { return op->kind == PTX_OP_IMM_INT && op->ival == 0; }

static bool check_predicate(const ptx_module *o, const ptx_module *m, int changes, const char *where) {
    if (o->nfuncs != m->nfuncs) return false;
    int predicated = 0;
    for (int fi = 0; fi < o->nfuncs; fi++) {
        const ptx_func *f = &o->funcs[fi], *g = &m->funcs[fi];
        int i = 0, j = 0, here = 0;
        char pred[256] = "";
        if (g->nbody > f->nbody) {
            const ptx_stmt *d = &g->body[0];
            if (d->kind != PTX_ST_DECL || d->u.decl.space != PTX_SS_REG || d->u.decl.type != PTX_T_PRED ||
                d->u.decl.count != 1) {
                fprintf(stderr, "    %s: %s: expected a new .reg .pred P<1> first\n", where, f->name);
                return false;
            }
            snprintf(pred, sizeof pred, "%s0", d->u.decl.name);
            j = 1;
        }
        while (i < f->nbody && j < g->nbody) {
            const ptx_stmt *s = &f->body[i], *t = &g->body[j];
            if (s->kind == PTX_ST_INSN && !strcmp(s->u.insn.opcode, "bra") && !s->u.insn.guard && t->kind == PTX_ST_INSN &&
                !strcmp(t->u.insn.opcode, "setp") && j + 1 < g->nbody) {
                const ptx_insn *sp = &t->u.insn, *br = &g->body[j + 1].u.insn;
                bool ne = sp->nmods >= 1 && !strcmp(sp->mods[0], ".ne");
                bool eq = sp->nmods >= 1 && !strcmp(sp->mods[0], ".eq");
                if (!(eq || ne) || sp->nops != 3 || strcmp(sp->ops[0].name ? sp->ops[0].name : "", pred) ||
                    !is_imm0(&sp->ops[1]) || !is_imm0(&sp->ops[2]) || g->body[j + 1].kind != PTX_ST_INSN ||
                    !br->guard || strcmp(br->guard, pred) || br->guard_neg != ne) {
                    fprintf(stderr, "    %s: %s: malformed predication at statement %d\n", where, f->name, j);
                    return false;
                }
                ptx_insn plain = *br;
                plain.guard = NULL;
                plain.guard_neg = false;
                char *a = insn_text(&s->u.insn), *b = insn_text(&plain);
                bool same = !strcmp(a, b);
                if (!same) fprintf(stderr, "    %s: branch changed: %s / %s\n", where, a, b);
                free(a);
                free(b);
                if (!same) return false;
                here++;
                i++;
                j += 2;
                continue;
            }
            char *a = stmt_text(s), *b = stmt_text(t);
            bool same = !strcmp(a, b);
            if (!same) fprintf(stderr, "    %s: %s: statement differs: %s / %s\n", where, f->name, a, b);
            free(a);
            free(b);
            if (!same) return false;
            i++;
            j++;
        }
        if (i != f->nbody || j != g->nbody || (here > 0) != (pred[0] != 0)) {
            fprintf(stderr, "    %s: %s: bodies do not align\n", where, f->name);
            return false;
        }
        predicated += here;
    }
    if (predicated != changes) {
        fprintf(stderr, "    %s: %d branches predicated, %d changes reported\n", where, predicated, changes);
        return false;
    }
    if (count_unguarded_bra(o) - count_unguarded_bra(m) != changes) {
        fprintf(stderr, "    %s: unguarded bra count did not drop by %d\n", where, changes);
        return false;
    }
    return true;
}

/* ---- ptxas (test_ptxas_text: 1 accepted, 0 rejected, -1 could not run) ------------------- */
static bool have_ptxas;
static int ptxas_mutants;   /* mutants ptxas was run on */

/* ---- driver ------------------------------------------------------------------------------- */
typedef struct {
    int inputs, with_changes, seeds_differ, failed_files;
} kind_stats;

static bool is_required_input(const char *path) {
    return !strncmp(path, "corpus/", 7) || !strcmp(path, "examples/vecadd.ptx");
}

static void test_file(const char *path, int file_index, bool ptxas_all, kind_stats *ks) {
    char *src = NULL;
    size_t len = 0;
    if (pg_read_file(path, PTX_MAX_FILE_BYTES, &src, &len, NULL) != PG_OK) {
        CHECK(false, "%s: cannot read", path);
        return;
    }
    ptx_module *o = load(src, len, path);
    if (!o) {
        /* every required input is valid; extra inputs that are not are skipped */
        CHECK(!is_required_input(path), "%s: the original does not validate", path);
        if (!is_required_input(path)) printf("note: %s does not validate; skipped\n", path);
        free(src);
        return;
    }
    int orig_ptxas = -2;   /* not run yet */
    bool reloc = false;
    for (int k = 0; k < SYNTH_MUT__COUNT; k++) {
        const char *kn = synth_mut_name((synth_mut_kind)k);
        pg_buf out[3] = {{0}, {0}, {0}};
        int ch[3] = {-1, -1, -1};
        const uint64_t seeds[3] = {1, 1, 2};
        bool ok_all = true;
        for (int s = 0; s < 3; s++) {
            pg_diag_sink ds = sink();
            pg_status st = synth_mutate(src, len, (synth_mut_kind)k, seeds[s], &out[s], &ch[s], &ds);
            CHECK(st == PG_OK, "%s: %s seed %llu: synth_mutate returned %s", path, kn, (unsigned long long)seeds[s],
                  pg_status_str(st));
            if (st != PG_OK) ok_all = false;
        }
        if (ok_all) {
            ks[k].inputs++;
            CHECK(!strcmp(out[0].data, out[1].data) && ch[0] == ch[1], "%s: %s: same seed, different output", path, kn);
            if (ch[0] > 0) {
                ks[k].with_changes++;
                if (strcmp(out[0].data, out[2].data)) ks[k].seeds_differ++;
            }
            for (int s = 0; s < 3; s += 2) {
                char where[512];
                snprintf(where, sizeof where, "%s [%s seed %llu]", path, kn, (unsigned long long)seeds[s]);
                ptx_module *mm = load(out[s].data, out[s].len, where);
                CHECK(mm != NULL, "%s: mutant does not validate", where);
                if (!mm) { ok_all = false; continue; }
                bool good = true;
                switch (k) {
                case SYNTH_MUT_RENAME_REGS: good = check_rename(o, mm, false, ch[s], where); break;
                case SYNTH_MUT_RENAME_LABELS: good = check_rename(o, mm, true, ch[s], where); break;
                case SYNTH_MUT_REORDER: good = check_reorder(o, mm, ch[s], where); break;
                case SYNTH_MUT_PREDICATE_BRANCH: good = check_predicate(o, mm, ch[s], where); break;
                default: break;
                }
                CHECK(good, "%s: structural check failed", where);
                if (!good) ok_all = false;
                ptx_module_free(mm);
            }
            /* what each kind must find in these inputs */
            if (k == SYNTH_MUT_RENAME_REGS && is_required_input(path))
                CHECK(ch[0] > 0, "%s: rename-regs renamed nothing", path);
            if (k == SYNTH_MUT_PREDICATE_BRANCH) {
                int ub = count_unguarded_bra(o);
                if (ub == 0) CHECK(ch[0] == 0, "%s: predicate-branch reports %d changes without unguarded bra", path, ch[0]);
            }
            /* ptxas on a sample */
            bool sample = ptxas_all || (file_index + k) % 4 == 0 || !strcmp(path, "examples/vecadd.ptx");
            if (have_ptxas && sample) {
                if (orig_ptxas == -2) {
                    /* whole-program mode when the original passes it; -c for modules with .extern code */
                    orig_ptxas = test_ptxas_text(src, len, NULL, false, NULL, 0);
                    if (orig_ptxas != 1) {
                        orig_ptxas = test_ptxas_text(src, len, NULL, true, NULL, 0);
                        reloc = true;
                    }
                }
                if (is_required_input(path)) CHECK(orig_ptxas == 1, "%s: ptxas rejects the original", path);
                if (orig_ptxas == 1)
                    for (int s = 0; s < 3; s += ptxas_all ? 2 : 3) {
                        char log[4096];
                        int acc = test_ptxas_text(out[s].data, out[s].len, NULL, reloc, log, sizeof log);
                        ptxas_mutants++;
                        CHECK(acc == 1, "%s: %s seed %llu: ptxas rejects the mutant:\n%s", path, kn,
                              (unsigned long long)seeds[s], log);
                    }
            }
        }
        if (!ok_all) ks[k].failed_files++;
        for (int s = 0; s < 3; s++) pg_buf_free(&out[s]);
    }
    ptx_module_free(o);
    free(src);
}

/* Direct checks of the API contract. */
static void test_api(void) {
    CHECK(!strcmp(synth_mut_name(SYNTH_MUT_RENAME_REGS), "rename-regs"), "name");
    CHECK(!strcmp(synth_mut_name(SYNTH_MUT_REORDER), "reorder"), "name");
    CHECK(!strcmp(synth_mut_name(SYNTH_MUT_PREDICATE_BRANCH), "predicate-branch"), "name");
    CHECK(!strcmp(synth_mut_name(SYNTH_MUT_RENAME_LABELS), "rename-labels"), "name");
    CHECK(synth_mut_name(SYNTH_MUT__COUNT) == NULL, "out-of-range name");
    pg_buf b = {0};
    int ch = 7;
    CHECK(synth_mutate("x", 1, SYNTH_MUT__COUNT, 1, &b, &ch, NULL) == PG_ERR_USAGE && ch == 0, "bad kind");
    /* invalid input: nothing written */
    const char *bad = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tmov.u32 %r1, 0;\n\tret;\n}\n";
    pg_diag_sink s;
    memset(&s, 0, sizeof s);
    CHECK(synth_mutate(bad, strlen(bad), SYNTH_MUT_RENAME_REGS, 1, &b, &ch, &s) == PG_ERR_INVALID && b.len == 0 &&
              s.nerrors > 0, "invalid input must be rejected with a diagnostic");
    /* a kernel without unguarded bra: predicate-branch does nothing */
    const char *nob = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n"
                      "\t.reg .b32 %r<3>;\n\tmov.u32 %r1, 1;\n\tadd.s32 %r2, %r1, %r1;\n\tret;\n}\n";
    CHECK(synth_mutate(nob, strlen(nob), SYNTH_MUT_PREDICATE_BRANCH, 5, &b, &ch, NULL) == PG_OK && ch == 0 && b.len > 0,
          "predicate-branch without bra: 0 changes");
    pg_buf_free(&b);
    /* special registers and tricky names never collide: %pm0..%pm7 exist */
    const char *sr = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 a)\n{\n"
                     "\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %SP;\n\t.reg .b64 %rd<3>;\n"
                     "\tld.param.u64 %rd1, [a];\n\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %pm0;\n\tmov.u64 %SP, %rd1;\n"
                     "\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra L1;\n\tbra.uni L2;\nL1:\n\tst.global.u32 [%SP+4], %r2;\nL2:\n\tret;\n}\n";
    for (int k = 0; k < SYNTH_MUT__COUNT; k++)
        for (uint64_t seed = 0; seed < 50; seed++) {
            pg_diag_sink ds = sink();
            pg_buf o = {0};
            pg_status st = synth_mutate(sr, strlen(sr), (synth_mut_kind)k, seed, &o, &ch, &ds);
            CHECK(st == PG_OK, "small kernel, %s seed %llu", synth_mut_name((synth_mut_kind)k), (unsigned long long)seed);
            if (k == SYNTH_MUT_PREDICATE_BRANCH) CHECK(ch == 1, "the one unguarded bra is predicated (%d)", ch);
            if (k == SYNTH_MUT_RENAME_LABELS) CHECK(ch == 4, "two labels, two references (%d)", ch);
            pg_buf_free(&o);
        }
}

int main(int argc, char **argv) {
    if (isa_init(NULL) != PG_OK) {
        printf("isa_init failed\n0 passed, 1 failed\n");
        return 1;
    }
    bool ptxas_all = false;
    PG_VEC(char *) files = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ptxas-all")) ptxas_all = true;
        else pg_vec_push(files, strdup(argv[i]));
    }
    int ncorpus = 0;
    if (files.n == 0) {
        const char *pats[] = {"corpus/*/kernel.ptx", "examples/vecadd.ptx", "tests/ptx/valid/*.ptx"};
        for (size_t p = 0; p < sizeof pats / sizeof pats[0]; p++) {
            glob_t g;
            if (glob(pats[p], 0, NULL, &g) == 0) {
                for (size_t i = 0; i < g.gl_pathc; i++) pg_vec_push(files, strdup(g.gl_pathv[i]));
                if (p == 0) ncorpus = (int)g.gl_pathc;
            }
            globfree(&g);
        }
        CHECK(ncorpus >= 50, "expected the 50 corpus kernels under corpus/*/kernel.ptx (found %d; run from the repo root)",
              ncorpus);
    }
    char ptxas_path[512];
    have_ptxas = ptx_ptxas_find(ptxas_path, sizeof ptxas_path);
    if (!have_ptxas) printf("SKIPPED: ptxas not found\n");

    test_api();
    kind_stats ks[SYNTH_MUT__COUNT];
    memset(ks, 0, sizeof ks);
    for (int i = 0; i < files.n; i++) test_file(files.v[i], i, ptxas_all, ks);

    for (int k = 0; k < SYNTH_MUT__COUNT; k++) {
        printf("%-17s inputs %3d  with changes %3d  seeds 1/2 differ %3d  failing inputs %d\n",
               synth_mut_name((synth_mut_kind)k), ks[k].inputs, ks[k].with_changes, ks[k].seeds_differ,
               ks[k].failed_files);
        /* different seeds give different mutants for most inputs */
        if (ks[k].with_changes > 0) {
            double need = k == SYNTH_MUT_REORDER ? 0.5 : 0.8;
            CHECK(ks[k].seeds_differ >= need * ks[k].with_changes, "%s: seeds differ on only %d of %d inputs",
                  synth_mut_name((synth_mut_kind)k), ks[k].seeds_differ, ks[k].with_changes);
        }
    }
    if (have_ptxas) printf("ptxas (%s) ran on %d mutants\n", ptxas_path, ptxas_mutants);
    if (ncorpus) {
        CHECK(ks[SYNTH_MUT_REORDER].with_changes * 2 >= ks[SYNTH_MUT_REORDER].inputs, "reorder changed too few inputs");
        CHECK(ks[SYNTH_MUT_RENAME_LABELS].with_changes > 0 && ks[SYNTH_MUT_PREDICATE_BRANCH].with_changes > 0,
              "labels / branches found in the corpus");
    }
    for (int i = 0; i < files.n; i++) free(files.v[i]);
    pg_vec_free(files);
    return TEST_DONE();
}
