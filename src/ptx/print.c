/* print.c — canonical PTX printer and structural module comparison. */
#include "ptxgen/ptx.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char *ptx_space_name(ptx_space s) {
    static const char *n[] = {"", ".reg", ".sreg", ".const", ".global", ".local", ".param", ".shared", ".tex"};
    return (unsigned)s < PTX_SS__COUNT ? n[s] : "";
}

void ptx_print_operand(const ptx_operand *op, pg_buf *b) {
    switch (op->kind) {
    case PTX_OP_REG:
        if (op->neg) pg_buf_putc(b, '!');
        pg_buf_puts(b, op->name);
        break;
    case PTX_OP_IMM_INT:
        pg_buf_printf(b, "%" PRId64, op->ival);
        break;
    case PTX_OP_IMM_FLT:
        if (op->name && (op->name[1] == 'f' || op->name[1] == 'F' || op->name[1] == 'd' || op->name[1] == 'D')) {
            if (op->neg) pg_buf_putc(b, '-');
            pg_buf_puts(b, op->name);
        } else {
            pg_buf_printf(b, "%.17g", op->fval);
            /* keep it a float literal */
            const char *t = b->data + b->len;
            (void)t;
            char tmp[40];
            snprintf(tmp, sizeof tmp, "%.17g", op->fval);
            if (!strpbrk(tmp, ".eEni")) pg_buf_puts(b, ".0");
        }
        break;
    case PTX_OP_SYM:
        pg_buf_puts(b, op->name);
        if (op->ival) pg_buf_printf(b, "+%" PRId64, op->ival);
        break;
    case PTX_OP_SINK:
        pg_buf_putc(b, '_');
        break;
    case PTX_OP_ADDR:
        pg_buf_putc(b, '[');
        if (op->addr_has_base) {
            pg_buf_puts(b, op->name);
            if (op->nelems) {
                for (int i = 0; i < op->nelems; i++) {
                    pg_buf_puts(b, ", ");
                    ptx_print_operand(&op->elems[i], b);
                }
            } else if (op->ival > 0) {
                pg_buf_printf(b, "+%" PRId64, op->ival);
            } else if (op->ival < 0) {
                pg_buf_printf(b, "+%" PRId64, op->ival);
            }
        } else {
            pg_buf_printf(b, "%" PRId64, op->ival);
        }
        pg_buf_putc(b, ']');
        break;
    case PTX_OP_VEC:
    case PTX_OP_LIST:
        pg_buf_putc(b, op->kind == PTX_OP_VEC ? '{' : '(');
        for (int i = 0; i < op->nelems; i++) {
            if (i) pg_buf_puts(b, ", ");
            ptx_print_operand(&op->elems[i], b);
        }
        pg_buf_putc(b, op->kind == PTX_OP_VEC ? '}' : ')');
        break;
    case PTX_OP_PAIR:
        ptx_print_operand(&op->elems[0], b);
        pg_buf_putc(b, '|');
        ptx_print_operand(&op->elems[1], b);
        break;
    case PTX_OP_INDEX:
        pg_buf_puts(b, op->name);
        pg_buf_putc(b, '[');
        if (op->nelems) {
            ptx_print_operand(&op->elems[0], b);
            if (op->ival) pg_buf_printf(b, "+%" PRId64, op->ival);
        } else {
            pg_buf_printf(b, "%" PRId64, op->ival);
        }
        pg_buf_putc(b, ']');
        break;
    }
}

void ptx_print_insn(const ptx_insn *in, pg_buf *b) {
    if (in->guard) pg_buf_printf(b, "@%s%s ", in->guard_neg ? "!" : "", in->guard);
    pg_buf_puts(b, in->opcode);
    for (int i = 0; i < in->nmods; i++) pg_buf_puts(b, in->mods[i]);
    for (int i = 0; i < in->nops; i++) {
        pg_buf_puts(b, i ? ", " : " ");
        ptx_print_operand(&in->ops[i], b);
    }
    pg_buf_putc(b, ';');
}

static void print_decl(const ptx_decl *d, pg_buf *b, bool semi) {
    if (d->is_extern) pg_buf_puts(b, ".extern ");
    if (d->is_visible) pg_buf_puts(b, ".visible ");
    if (d->is_weak) pg_buf_puts(b, ".weak ");
    if (d->is_common) pg_buf_puts(b, ".common ");
    if (d->space != PTX_SS_NONE) {
        /* a qualified space such as .shared::cta is kept in attrs */
        const char *q = d->attrs && strncmp(d->attrs, ptx_space_name(d->space), strlen(ptx_space_name(d->space))) == 0
                            ? d->attrs : NULL;
        if (q) {
            const char *e = strchr(q, ' ');
            pg_buf_putn(b, q, e ? (size_t)(e - q) : strlen(q));
        } else {
            pg_buf_puts(b, ptx_space_name(d->space));
        }
        pg_buf_putc(b, ' ');
    }
    const char *attrs = d->attrs;
    if (attrs && d->space != PTX_SS_NONE && strncmp(attrs, ptx_space_name(d->space), strlen(ptx_space_name(d->space))) == 0) {
        const char *e = strchr(attrs, ' ');
        attrs = e ? e + 1 : NULL;
    }
    /* .attribute(...) goes before .align and the type; .ptr... goes after the type */
    if (attrs && !strncmp(attrs, ".attribute(", 11)) {
        const char *close = strchr(attrs, ')');
        size_t n = close ? (size_t)(close - attrs + 1) : strlen(attrs);
        pg_buf_putn(b, attrs, n);
        pg_buf_putc(b, ' ');
        attrs += n;
        while (*attrs == ' ') attrs++;
    }
    if (d->align) pg_buf_printf(b, ".align %d ", d->align);
    if (d->vec) pg_buf_printf(b, ".v%d ", d->vec);
    pg_buf_puts(b, ptx_type_get(d->type)->name);
    if (attrs && *attrs) pg_buf_printf(b, " %s", attrs);
    pg_buf_printf(b, " %s", d->name);
    if (d->count) pg_buf_printf(b, "<%d>", d->count);
    for (int i = 0; i < d->ndims; i++) {
        if (d->dims[i] < 0) pg_buf_puts(b, "[]");
        else pg_buf_printf(b, "[%" PRId64 "]", d->dims[i]);
    }
    if (d->init) pg_buf_printf(b, " = %s", d->init);
    if (semi) pg_buf_putc(b, ';');
}

static void indent(pg_buf *b, int depth) {
    for (int i = 0; i < depth; i++) pg_buf_putc(b, '\t');
}

static void print_params(const ptx_decl *p, int n, pg_buf *b) {
    pg_buf_putc(b, '(');
    for (int i = 0; i < n; i++) {
        pg_buf_puts(b, i ? ",\n\t" : "\n\t");
        print_decl(&p[i], b, false);
    }
    pg_buf_puts(b, n ? "\n)" : ")");
}

static void decl_line(const ptx_decl *d, const ptx_print_hooks *h, bool in_body, pg_buf *b) {
    print_decl(d, b, true);
    if (h && h->decl_comment) {
        pg_buf c = {0};
        h->decl_comment(h->user, d, in_body, &c);
        if (c.len) pg_buf_printf(b, "  // %s", c.data);
        pg_buf_free(&c);
    }
    pg_buf_putc(b, '\n');
}

/* A kept comment (ptx_stmt.comment): "//" + each of its lines, at the indent. */
static void comment_lines(const char *c, int depth, pg_buf *b) {
    for (;;) {
        const char *nl = strchr(c, '\n');
        indent(b, depth);
        pg_buf_puts(b, "//");
        pg_buf_putn(b, c, nl ? (size_t)(nl - c) : strlen(c));
        pg_buf_putc(b, '\n');
        if (!nl) return;
        c = nl + 1;
    }
}

static void print_func(const ptx_module *m, const ptx_func *f, const ptx_print_hooks *h, pg_buf *b) {
    if (f->is_extern) pg_buf_puts(b, ".extern ");
    if (f->is_visible) pg_buf_puts(b, ".visible ");
    if (f->is_weak) pg_buf_puts(b, ".weak ");
    pg_buf_puts(b, f->is_entry ? ".entry " : ".func ");
    if (f->nrets) {
        print_params(f->rets, f->nrets, b);
        pg_buf_putc(b, ' ');
    }
    pg_buf_puts(b, f->name);
    if (f->nparams || !f->is_entry || f->has_body) print_params(f->params, f->nparams, b);
    if (f->attrs) pg_buf_printf(b, " %s", f->attrs);
    pg_buf_putc(b, '\n');
    for (int i = 0; i < f->nperf; i++) {
        pg_buf_puts(b, f->perf[i].name);
        for (int k = 0; k < f->perf[i].nvals; k++) pg_buf_printf(b, "%s%" PRId64, k ? ", " : " ", f->perf[i].vals[k]);
        pg_buf_putc(b, '\n');
    }
    if (!f->has_body) {
        pg_buf_puts(b, ";\n");
        return;
    }
    pg_buf_puts(b, "{\n");
    for (int i = 0; i < f->nbody; i++) {
        const ptx_stmt *s = &f->body[i];
        if (s->comment) comment_lines(s->comment, s->depth, b);
        switch (s->kind) {
        case PTX_ST_LABEL:
            pg_buf_printf(b, "%s:\n", s->u.label);
            break;
        case PTX_ST_INSN:
            indent(b, s->depth);
            ptx_print_insn(&s->u.insn, b);
            pg_buf_putc(b, '\n');
            if (h && h->after_insn) h->after_insn(h->user, m, f, &s->u.insn, s->depth, b);
            break;
        case PTX_ST_DECL:
            indent(b, s->depth);
            decl_line(&s->u.decl, h, true, b);
            break;
        case PTX_ST_DIRECTIVE:
            if (s->u.dir.label) pg_buf_printf(b, "%s: ", s->u.dir.label);
            else indent(b, s->depth);
            pg_buf_printf(b, "%s%s%s%s\n", s->u.dir.name, s->u.dir.text[0] ? " " : "", s->u.dir.text,
                          strcmp(s->u.dir.name, ".loc") && strcmp(s->u.dir.name, ".file") ? ";" : "");
            break;
        case PTX_ST_BLOCK_BEGIN:
            indent(b, s->depth);
            pg_buf_puts(b, "{\n");
            break;
        case PTX_ST_BLOCK_END:
            indent(b, s->depth);
            pg_buf_puts(b, "}\n");
            break;
        }
    }
    if (f->end_comment) comment_lines(f->end_comment, 1, b);
    pg_buf_puts(b, "}\n");
    if (h && h->after_func) h->after_func(h->user, m, f, b);
}

void ptx_print(const ptx_module *m, pg_buf *b) { ptx_print_annotated(m, NULL, b); }

void ptx_print_annotated(const ptx_module *m, const ptx_print_hooks *h, pg_buf *b) {
    if (m->version_text) pg_buf_printf(b, ".version %s\n", m->version_text);
    if (m->ntargets) {
        pg_buf_puts(b, ".target ");
        for (int i = 0; i < m->ntargets; i++) pg_buf_printf(b, "%s%s", i ? ", " : "", m->targets[i]);
        pg_buf_putc(b, '\n');
    }
    if (m->address_size) pg_buf_printf(b, ".address_size %d\n", m->address_size);
    for (int i = 0; i < m->ntops; i++) {
        const ptx_top *t = &m->tops[i];
        pg_buf_putc(b, '\n');
        switch (t->kind) {
        case PTX_TOP_FUNC: print_func(m, &m->funcs[t->u.func], h, b); break;
        case PTX_TOP_DECL: decl_line(&t->u.decl, h, false, b); break;
        case PTX_TOP_DIRECTIVE:
            if (strcmp(t->u.dir.name, ".section") == 0)
                pg_buf_printf(b, "%s %s\n", t->u.dir.name, t->u.dir.text);
            else
                pg_buf_printf(b, "%s %s%s\n", t->u.dir.name, t->u.dir.text, strcmp(t->u.dir.name, ".file") && strcmp(t->u.dir.name, ".loc") ? ";" : "");
            break;
        }
    }
}

/* ---- structural equality ---- */
#define NEQ(cond, ...) do { if (cond) { if (why) snprintf(why, whyn, __VA_ARGS__); return false; } } while (0)

static bool streq(const char *a, const char *b) { return (a == b) || (a && b && strcmp(a, b) == 0); }

static bool op_equal(const ptx_operand *a, const ptx_operand *b, char *why, size_t whyn) {
    /* the validator re-kinds %-less register names (`p`) from SYM to REG */
    bool name_kinds = (a->kind == PTX_OP_REG || a->kind == PTX_OP_SYM) && (b->kind == PTX_OP_REG || b->kind == PTX_OP_SYM);
    NEQ(a->kind != b->kind && !name_kinds, "operand kind differs at %d:%d", a->loc.line, a->loc.col);
    NEQ(!streq(a->name, b->name) && a->kind != PTX_OP_IMM_FLT, "operand name differs at %d:%d", a->loc.line, a->loc.col);
    NEQ(a->neg != b->neg && a->kind != PTX_OP_IMM_INT, "operand negation differs at %d:%d", a->loc.line, a->loc.col);
    NEQ(a->ival != b->ival, "operand value differs at %d:%d", a->loc.line, a->loc.col);
    NEQ(a->kind == PTX_OP_IMM_FLT && (a->fval != b->fval && !(a->fval != a->fval && b->fval != b->fval)),
        "float value differs at %d:%d", a->loc.line, a->loc.col);
    NEQ(a->nelems != b->nelems, "element count differs at %d:%d", a->loc.line, a->loc.col);
    for (int i = 0; i < a->nelems; i++)
        if (!op_equal(&a->elems[i], &b->elems[i], why, whyn)) return false;
    return true;
}

static bool decl_equal(const ptx_decl *a, const ptx_decl *b, char *why, size_t whyn) {
    NEQ(a->space != b->space || a->type != b->type || a->vec != b->vec || a->align != b->align ||
        a->count != b->count || a->ndims != b->ndims || a->is_extern != b->is_extern ||
        a->is_visible != b->is_visible || a->is_weak != b->is_weak || a->is_common != b->is_common,
        "declaration of %s differs (line %d)", a->name, a->loc.line);
    NEQ(!streq(a->name, b->name) || !streq(a->init, b->init) || !streq(a->attrs, b->attrs),
        "declaration text of %s differs (line %d)", a->name, a->loc.line);
    for (int i = 0; i < a->ndims; i++) NEQ(a->dims[i] != b->dims[i], "dimension of %s differs", a->name);
    return true;
}

static bool stmt_equal(const ptx_stmt *a, const ptx_stmt *b, char *why, size_t whyn) {
    NEQ(a->kind != b->kind || a->depth != b->depth, "statement kind differs at line %d", a->loc.line);
    NEQ(!streq(a->comment, b->comment), "comment before the statement at line %d differs", a->loc.line);
    switch (a->kind) {
    case PTX_ST_INSN: {
        const ptx_insn *x = &a->u.insn, *y = &b->u.insn;
        NEQ(!streq(x->opcode, y->opcode) || x->nmods != y->nmods || x->nops != y->nops ||
            !streq(x->guard, y->guard) || x->guard_neg != y->guard_neg, "instruction differs at line %d", a->loc.line);
        for (int i = 0; i < x->nmods; i++) NEQ(!streq(x->mods[i], y->mods[i]), "modifier differs at line %d", a->loc.line);
        for (int i = 0; i < x->nops; i++)
            if (!op_equal(&x->ops[i], &y->ops[i], why, whyn)) return false;
        return true;
    }
    case PTX_ST_LABEL: NEQ(!streq(a->u.label, b->u.label), "label differs at line %d", a->loc.line); return true;
    case PTX_ST_DECL: return decl_equal(&a->u.decl, &b->u.decl, why, whyn);
    case PTX_ST_DIRECTIVE:
        NEQ(!streq(a->u.dir.name, b->u.dir.name) || !streq(a->u.dir.text, b->u.dir.text) ||
            !streq(a->u.dir.label, b->u.dir.label), "directive differs at line %d", a->loc.line);
        return true;
    default: return true;
    }
}

bool ptx_module_equal(const ptx_module *a, const ptx_module *b, char *why, size_t whyn) {
    NEQ(a->ptx_version != b->ptx_version || a->address_size != b->address_size || a->ntargets != b->ntargets,
        "module header differs");
    for (int i = 0; i < a->ntargets; i++) NEQ(!streq(a->targets[i], b->targets[i]), "target differs");
    NEQ(a->ntops != b->ntops, "number of top-level items differs (%d vs %d)", a->ntops, b->ntops);
    for (int i = 0; i < a->ntops; i++) {
        const ptx_top *x = &a->tops[i], *y = &b->tops[i];
        NEQ(x->kind != y->kind, "top-level item %d differs in kind", i);
        if (x->kind == PTX_TOP_DECL && !decl_equal(&x->u.decl, &y->u.decl, why, whyn)) return false;
        if (x->kind == PTX_TOP_DIRECTIVE)
            NEQ(!streq(x->u.dir.name, y->u.dir.name) || !streq(x->u.dir.text, y->u.dir.text),
                "directive %s differs", x->u.dir.name);
        if (x->kind == PTX_TOP_FUNC) {
            const ptx_func *f = &a->funcs[x->u.func], *g = &b->funcs[y->u.func];
            NEQ(!streq(f->name, g->name) || f->is_entry != g->is_entry || f->is_visible != g->is_visible ||
                f->is_extern != g->is_extern || f->is_weak != g->is_weak || f->nparams != g->nparams ||
                f->nrets != g->nrets || f->nperf != g->nperf || f->has_body != g->has_body ||
                f->nbody != g->nbody || !streq(f->attrs, g->attrs) || !streq(f->end_comment, g->end_comment),
                "function %s differs in its signature or size", f->name);
            for (int k = 0; k < f->nparams; k++) if (!decl_equal(&f->params[k], &g->params[k], why, whyn)) return false;
            for (int k = 0; k < f->nrets; k++) if (!decl_equal(&f->rets[k], &g->rets[k], why, whyn)) return false;
            for (int k = 0; k < f->nperf; k++) {
                NEQ(!streq(f->perf[k].name, g->perf[k].name) || f->perf[k].nvals != g->perf[k].nvals,
                    "performance directive differs in %s", f->name);
                for (int v = 0; v < f->perf[k].nvals; v++) NEQ(f->perf[k].vals[v] != g->perf[k].vals[v], "perf value differs");
            }
            for (int k = 0; k < f->nbody; k++)
                if (!stmt_equal(&f->body[k], &g->body[k], why, whyn)) return false;
        }
    }
    return true;
}

void ptx_comments_strip(ptx_module *m) {
    for (int i = 0; i < m->nfuncs; i++) {
        ptx_func *f = &m->funcs[i];
        f->end_comment = NULL;
        for (int k = 0; k < f->nbody; k++) f->body[k].comment = NULL;
    }
}
