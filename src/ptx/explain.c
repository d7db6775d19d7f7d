/* explain.c — plain-English explanations of PTX, driven by the ISA table.
 *
 * Every instruction sentence comes from the explanation template of the form
 * the validator matched (isa.def); nothing here keeps a list of opcodes for
 * sentences.  Template language (see the top of isa.def):
 *   {0}..{9}   operand N in hardware terms ("the address in %rd8 plus 16 bytes")
 *   {T}        words for the modifier bound to variable T; types read "32-bit float"
 *   {T?text}   text when T is unbound
 *   {mods}     words for every optional modifier present that no variable names
 *   {f} {args} {rets}   call syntax only: the target, " with arguments a, b",
 *              ", receiving r"
 * A type placeholder followed by " value(s)" becomes a noun phrase ("32-bit
 * float", "32-bit value", plural after a vector prefix or "as ").
 *
 * The summary is computed from the IR and the CFG (loops = back edges).
 */
#include "ptxgen/ptx.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */
static bool str_eq(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }
static bool starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static bool buf_ends(const pg_buf *b, const char *suf) {
    size_t n = strlen(suf);
    return b->len >= n && memcmp(b->data + b->len - n, suf, n) == 0;
}

typedef enum { NM_NONE, NM_PARAM, NM_RET, NM_LOCAL_PARAM, NM_LOCAL_VAR, NM_GLOBAL_VAR, NM_FUNC, NM_LABEL } name_kind;

static name_kind lookup_name(const ptx_module *m, const ptx_func *f, const char *name, const ptx_decl **out) {
    if (out) *out = NULL;
    if (!name) return NM_NONE;
    if (f) {
        for (int i = 0; i < f->nparams; i++)
            if (str_eq(f->params[i].name, name)) { if (out) *out = &f->params[i]; return NM_PARAM; }
        for (int i = 0; i < f->nrets; i++)
            if (str_eq(f->rets[i].name, name)) { if (out) *out = &f->rets[i]; return NM_RET; }
        for (int i = 0; i < f->nbody; i++) {
            const ptx_stmt *s = &f->body[i];
            if (s->kind == PTX_ST_DECL && s->u.decl.space != PTX_SS_REG && str_eq(s->u.decl.name, name)) {
                if (out) *out = &s->u.decl;
                return s->u.decl.space == PTX_SS_PARAM ? NM_LOCAL_PARAM : NM_LOCAL_VAR;
            }
            if (s->kind == PTX_ST_LABEL && str_eq(s->u.label, name)) return NM_LABEL;
        }
    }
    if (m) {
        for (int i = 0; i < m->ntops; i++)
            if (m->tops[i].kind == PTX_TOP_DECL && str_eq(m->tops[i].u.decl.name, name)) {
                if (out) *out = &m->tops[i].u.decl;
                return NM_GLOBAL_VAR;
            }
        for (int i = 0; i < m->nfuncs; i++)
            if (str_eq(m->funcs[i].name, name)) return NM_FUNC;
    }
    return NM_NONE;
}

/* Words for a named memory location: "parameter x", "variable y". */
static void put_named(const ptx_module *m, const ptx_func *f, const char *name, pg_buf *out) {
    switch (lookup_name(m, f, name, NULL)) {
    case NM_PARAM: case NM_LOCAL_PARAM: pg_buf_printf(out, "parameter %s", name); break;
    case NM_RET: pg_buf_printf(out, "return value %s", name); break;
    case NM_LOCAL_VAR: case NM_GLOBAL_VAR: pg_buf_printf(out, "variable %s", name); break;
    case NM_FUNC: pg_buf_printf(out, "function %s", name); break;
    default: pg_buf_puts(out, name); break;
    }
}

/* Shortest decimal that round-trips, always with a '.'. */
static void put_float(double v, int bits, pg_buf *out) {
    if (isnan(v)) { pg_buf_puts(out, "NaN"); return; }
    if (isinf(v)) { pg_buf_puts(out, v < 0 ? "minus infinity" : "infinity"); return; }
    char tmp[64] = "";
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        double back = strtod(tmp, NULL);
        if (bits == 32 ? (float)back == (float)v : back == v) break;
    }
    pg_buf_puts(out, tmp);
    if (!strpbrk(tmp, ".eEn")) pg_buf_puts(out, ".0");
}

static void render_operand(const ptx_module *m, const ptx_func *f, const ptx_operand *op, pg_buf *out);

static void put_list(const ptx_module *m, const ptx_func *f, const ptx_operand *op, pg_buf *out) {
    for (int i = 0; i < op->nelems; i++) {
        if (i) pg_buf_puts(out, ", ");
        render_operand(m, f, &op->elems[i], out);
    }
}

static void render_operand(const ptx_module *m, const ptx_func *f, const ptx_operand *op, pg_buf *out) {
    switch (op->kind) {
    case PTX_OP_REG:
        if (op->neg) pg_buf_puts(out, op->text && op->text[0] == '-' ? "-" : "not ");
        pg_buf_puts(out, op->name);
        if (op->sreg && op->sreg->words) {
            const char *dot = strchr(op->name, '.');
            if (dot && op->sreg->vector) pg_buf_printf(out, " (%s, %s)", op->sreg->words, dot + 1);
            else pg_buf_printf(out, " (%s)", op->sreg->words);
        }
        break;
    case PTX_OP_IMM_INT:
        pg_buf_printf(out, "%" PRId64, op->ival);
        break;
    case PTX_OP_IMM_FLT:
        if (op->name && op->name[0] == '0' && strchr("fFdD", op->name[1])) {
            put_float(op->neg ? -op->fval : op->fval, op->fbits, out);
            pg_buf_printf(out, " (%s%s)", op->neg ? "-" : "", op->name);
        } else {
            put_float(op->fval, 64, out);
        }
        break;
    case PTX_OP_SYM: {
        name_kind k = lookup_name(m, f, op->name, NULL);
        if (k == NM_LABEL || k == NM_FUNC || k == NM_NONE) pg_buf_puts(out, op->name);
        else { pg_buf_puts(out, "the address of "); put_named(m, f, op->name, out); }
        if (op->ival > 0) pg_buf_printf(out, " plus %" PRId64 " bytes", op->ival);
        else if (op->ival < 0) pg_buf_printf(out, " minus %" PRId64 " bytes", -op->ival);
        break;
    }
    case PTX_OP_INDEX:   /* sh[i]: an element, counted in elements, not bytes */
        pg_buf_puts(out, "element ");
        if (op->nelems) {
            pg_buf_puts(out, op->elems[0].name);
            if (op->ival) pg_buf_printf(out, "%+" PRId64, op->ival);
        } else {
            pg_buf_printf(out, "%" PRId64, op->ival);
        }
        pg_buf_puts(out, " of ");
        put_named(m, f, op->name, out);
        break;
    case PTX_OP_ADDR:
        if (!op->addr_has_base) {
            pg_buf_printf(out, "address %" PRId64, op->ival);
            break;
        }
        if (op->addr_base_is_reg) pg_buf_printf(out, "the address in %s", op->name);
        else put_named(m, f, op->name, out);
        if (op->nelems) {
            pg_buf_puts(out, " with ");
            put_list(m, f, op, out);
        } else if (op->ival > 0) {
            pg_buf_printf(out, " plus %" PRId64 " bytes", op->ival);
        } else if (op->ival < 0) {
            pg_buf_printf(out, " minus %" PRId64 " bytes", -op->ival);
        }
        break;
    case PTX_OP_VEC:
    case PTX_OP_LIST:
        put_list(m, f, op, out);
        break;
    case PTX_OP_SINK:
        pg_buf_puts(out, "nothing (_)");
        break;
    case PTX_OP_PAIR:
        render_operand(m, f, &op->elems[0], out);
        pg_buf_puts(out, " and ");
        render_operand(m, f, &op->elems[1], out);
        break;
    }
}

/* ------------------------------------------------------- modifier words */
static bool slot_is_compare(const isa_form *fm, int var) {
    for (int s = 0; s < fm->nmods; s++)
        if (fm->mods[s].var == var)
            for (int a = 0; a < fm->mods[s].nalts; a++)
                if (strcmp(fm->mods[s].alts[a], ".eq") == 0) return true;
    return false;
}

static void put_mod_words(const isa_form *fm, int var, const char *mod, pg_buf *out) {
    /* ".lo"/".hi" are comparison operators in a comparison slot, halves elsewhere */
    if (var >= 0 && slot_is_compare(fm, var)) {
        if (!strcmp(mod, ".lo")) { pg_buf_puts(out, "unsigned lower than"); return; }
        if (!strcmp(mod, ".hi")) { pg_buf_puts(out, "unsigned higher than"); return; }
        if (!strcmp(mod, ".lt") || !strcmp(mod, ".gt") || !strcmp(mod, ".ltu") || !strcmp(mod, ".gtu") ||
            !strcmp(mod, ".le") || !strcmp(mod, ".ge") || !strcmp(mod, ".leu") || !strcmp(mod, ".geu") ||
            !strcmp(mod, ".ls") || !strcmp(mod, ".hs")) {
            const char *w = isa_modifier_words(mod);
            pg_buf_puts(out, w ? w : mod + 1);
            /* "less than" already ends in "than"; "less or equal" needs "to" */
            if (w && !strstr(w, "than")) {
                const char *u = strstr(w, " or unordered");
                if (u) { out->len -= strlen(" or unordered"); out->data[out->len] = 0; pg_buf_puts(out, " to or unordered with"); }
                else pg_buf_puts(out, " to");
            }
            return;
        }
        if (!strcmp(mod, ".eq") || !strcmp(mod, ".ne") || !strcmp(mod, ".equ") || !strcmp(mod, ".neu")) {
            const char *w = isa_modifier_words(mod);
            const char *u = w ? strstr(w, " or unordered") : NULL;
            if (u) pg_buf_printf(out, "%.*s to or unordered with", (int)(u - w), w);
            else pg_buf_printf(out, "%s to", w ? w : mod + 1);
            return;
        }
    }
    const char *w = isa_modifier_words(mod);
    if (w) { pg_buf_puts(out, w); return; }
    pg_buf_puts(out, mod + 1);
}

/* Type as a noun phrase. */
static void put_type_noun(ptx_type t, bool plural, pg_buf *out) {
    const ptx_type_info *ti = ptx_type_get(t);
    const char *w = ptx_type_words(t);
    bool adjective = t == PTX_T_NONE || ti->cls == PTX_TC_BIT || ti->cls == PTX_TC_NONE ||
                     isdigit((unsigned char)w[strlen(w) - 1]);
    pg_buf_puts(out, w);
    if (adjective) pg_buf_puts(out, plural ? " values" : " value");
    else if (plural) pg_buf_puts(out, "s");
}

static bool word_at(const char *p, const char *w) {
    size_t n = strlen(w);
    return strncmp(p, w, n) == 0 && !isalnum((unsigned char)p[n]);
}

/* ------------------------------------------------------------- template */
typedef struct {
    const ptx_module *m;
    const ptx_func *f;
    const ptx_insn *in;
} ectx;

static bool var_in_template(const char *tpl, int var) {
    for (const char *p = tpl; (p = strchr(p, '{')); p++)
        if (p[1] == 'A' + var && (p[2] == '}' || p[2] == '?')) return true;
    return false;
}

static void render_mods(const ectx *c, pg_buf *out) {
    const isa_form *fm = c->in->form;
    bool first = true;
    for (int k = 0; c->in->match && k < c->in->nmods; k++) {
        if (c->in->match->slot_of[k] == ISA_SLOT_IGNORED) continue;   /* ptxas ignores it too */
        const isa_modslot *s = &fm->mods[c->in->match->slot_of[k]];
        if (!s->optional) continue;
        if (s->var >= 0 && var_in_template(fm->explain, s->var)) continue;
        if (!first) pg_buf_puts(out, ", ");
        put_mod_words(fm, s->var, c->in->mods[k], out);
        first = false;
    }
}

/* Call argument lists name their .param variables plainly: "a, b and c". */
static void put_call_list(const ectx *c, const ptx_operand *l, pg_buf *out) {
    for (int i = 0; i < l->nelems; i++) {
        if (i) pg_buf_puts(out, i == l->nelems - 1 ? " and " : ", ");
        const ptx_operand *e = &l->elems[i];
        if (e->kind == PTX_OP_SYM) pg_buf_puts(out, e->name);
        else render_operand(c->m, c->f, e, out);
    }
}

static void render_call(const ectx *c, const char *what, pg_buf *out) {
    const ptx_insn *in = c->in;
    int i = 0;
    const ptx_operand *rets = NULL, *target = NULL, *args = NULL;
    if (i < in->nops && in->ops[i].kind == PTX_OP_LIST) rets = &in->ops[i++];
    if (i < in->nops) target = &in->ops[i++];
    if (i < in->nops && in->ops[i].kind == PTX_OP_LIST) args = &in->ops[i++];
    if (!strcmp(what, "f")) {
        if (target && target->kind == PTX_OP_REG) pg_buf_printf(out, "whose address is in %s", target->name);
        else if (target) pg_buf_puts(out, target->name);
    } else if (!strcmp(what, "args")) {
        if (args && args->nelems) {
            pg_buf_puts(out, args->nelems == 1 ? " with argument " : " with arguments ");
            put_call_list(c, args, out);
        }
    } else if (!strcmp(what, "rets")) {
        if (rets && rets->nelems) {
            pg_buf_puts(out, rets->nelems == 1 ? ", receiving the result in " : ", receiving the results in ");
            put_call_list(c, rets, out);
        }
    }
}

static void render_template(const ectx *c, const char *tpl, pg_buf *out) {
    const ptx_insn *in = c->in;
    const isa_form *fm = in->form;
    bool vec_pending = false;
    const char *p = tpl;
    while (*p) {
        if (*p != '{') { pg_buf_putc(out, *p++); continue; }
        const char *e = strchr(p, '}');
        if (!e) { pg_buf_puts(out, p); break; }
        const char *body = p + 1;
        size_t n = (size_t)(e - body);
        p = e + 1;
        if (n && isdigit((unsigned char)body[0])) {
            int k = atoi(body);
            if (!fm->call_syntax && k < in->nops) render_operand(c->m, c->f, &in->ops[k], out);
            continue;
        }
        if (n == 4 && !strncmp(body, "mods", 4)) { render_mods(c, out); continue; }
        if (fm->call_syntax && ((n == 1 && body[0] == 'f') || (n == 4 && !strncmp(body, "args", 4)) ||
                                (n == 4 && !strncmp(body, "rets", 4)))) {
            char what[8];
            snprintf(what, sizeof what, "%.*s", (int)n, body);
            render_call(c, what, out);
            continue;
        }
        if (n >= 1 && body[0] >= 'A' && body[0] <= 'Z' && (n == 1 || body[1] == '?')) {
            int var = body[0] - 'A';
            const char *mod = isa_bound_text(in->match, var);
            if (!mod) {
                if (n > 2) pg_buf_putn(out, body + 2, n - 2);
                continue;
            }
            ptx_type t = isa_bound_type(in->match, var);
            if (t == PTX_T_NONE) {
                size_t before = out->len;
                put_mod_words(fm, var, mod, out);
                if (out->len > before && buf_ends(out, "of ")) vec_pending = true;
                else if (out->len > before && buf_ends(out, " of") && !word_at(p[0] == ' ' ? p + 1 : p, "the"))
                    pg_buf_puts(out, " the");
                if (out->len > before && isalnum((unsigned char)*p) && !buf_ends(out, " ")) pg_buf_putc(out, ' ');
                continue;
            }
            bool plural = vec_pending || buf_ends(out, " as ");
            vec_pending = false;
            const char *next = p[0] == ' ' ? p + 1 : p;
            if (word_at(next, "value") || word_at(next, "values")) {
                plural = plural || word_at(next, "values");
                p = next + (word_at(next, "values") ? 6 : 5);
                if (buf_ends(out, "packed ") && ptx_type_get(t)->cls == PTX_TC_PACKED) { out->len -= 7; out->data[out->len] = 0; }
                put_type_noun(t, plural, out);
            } else if (*p == ')' || word_at(next, "register") || word_at(next, "registers") || word_at(next, "data") ||
                       word_at(next, "pair") || word_at(next, "pairs") || word_at(next, "bits")) {
                pg_buf_puts(out, ptx_type_words(t));
            } else {
                if (buf_ends(out, "packed ") && ptx_type_get(t)->cls == PTX_TC_PACKED) { out->len -= 7; out->data[out->len] = 0; }
                put_type_noun(t, plural, out);
            }
            continue;
        }
        /* unknown placeholder: keep it visible */
        pg_buf_putc(out, '{');
        pg_buf_putn(out, body, n);
        pg_buf_putc(out, '}');
    }
}

/* Collapse spaces, stray commas and empty parentheses; fix a/an; capitalise
 * and end with a period. */
static void tidy_sentence(const char *s, pg_buf *out) {
    pg_buf a = {0};
    /* pass 1: whitespace collapse */
    for (const char *p = s; *p; p++) {
        char ch = (char)(isspace((unsigned char)*p) ? ' ' : *p);
        if (ch == ' ' && (a.len == 0 || a.data[a.len - 1] == ' ')) continue;
        pg_buf_putc(&a, ch);
    }
    /* pass 2: punctuation */
    bool changed = true;
    while (changed && a.data) {
        changed = false;
        char *d = a.data;
        size_t n = a.len, w = 0;
        for (size_t i = 0; i < n; i++) {
            char ch = d[i];
            if (ch == ' ' && i + 1 < n && strchr(",.;:)", d[i + 1])) { changed = true; continue; }
            if (ch == ' ' && w > 0 && d[w - 1] == '(') { changed = true; continue; }
            if (ch == ' ' && w > 0 && d[w - 1] == ' ') { changed = true; continue; }
            if (ch == '(' && i + 1 < n && d[i + 1] == ')') { i++; changed = true; continue; }
            if (ch == ',' && i + 1 < n && (d[i + 1] == ',' || d[i + 1] == ')' || d[i + 1] == '.')) { changed = true; continue; }
            if (ch == ',' && i + 2 < n && d[i + 1] == ' ' && d[i + 2] == ',') { changed = true; continue; }
            d[w++] = ch;
        }
        d[w] = 0;
        a.len = w;
    }
    /* trim */
    size_t st = 0, en = a.len;
    while (st < en && (a.data[st] == ' ' || a.data[st] == ',')) st++;
    while (en > st && (a.data[en - 1] == ' ' || a.data[en - 1] == ',' || a.data[en - 1] == '.')) en--;
    /* a/an */
    size_t start_len = out->len;
    for (size_t i = st; i < en; i++) {
        pg_buf_putc(out, a.data[i]);
        /* an operand named "a" ("parameter a into") is a name, not an article */
        bool named = i >= st + 10 && (!strncmp(a.data + i - 10, "parameter ", 10) || !strncmp(a.data + i - 9, "variable ", 9) ||
                                      !strncmp(a.data + i - 9, "function ", 9) || !strncmp(a.data + i - 6, "label ", 6));
        if (!named && a.data[i] == 'a' && i + 2 < en && a.data[i + 1] == ' ' && (i == st || a.data[i - 1] == ' ')) {
            const char *nx = a.data + i + 2;
            bool vowel = strchr("aeioAEIO", nx[0]) != NULL;
            bool eight = (nx[0] == '8' && !isdigit((unsigned char)nx[1])) ||
                         ((starts(nx, "11") || starts(nx, "18")) && !isdigit((unsigned char)nx[2]));
            if (vowel || eight) pg_buf_putc(out, 'n');
        }
    }
    if (out->len > start_len) out->data[start_len] = (char)toupper((unsigned char)out->data[start_len]);
    pg_buf_putc(out, '.');
    pg_buf_free(&a);
}

void ptx_explain_insn(const ptx_module *m, const ptx_func *f, const ptx_insn *in, pg_buf *out) {
    pg_buf raw = {0};
    if (in->guard) pg_buf_printf(&raw, "if %s is %s, ", in->guard, in->guard_neg ? "false" : "true");
    if (!in->form || !in->form->explain || !in->form->explain[0]) {
        pg_buf txt = {0};
        ptx_insn copy = *in;
        copy.guard = NULL;
        ptx_print_insn(&copy, &txt);
        if (txt.len && txt.data[txt.len - 1] == ';') txt.data[--txt.len] = 0;
        pg_buf_printf(&raw, "unrecognised instruction %s", txt.data ? txt.data : in->opcode);
        pg_buf_free(&txt);
    } else {
        ectx c = {m, f, in};
        render_template(&c, in->form->explain, &raw);
    }
    tidy_sentence(raw.data ? raw.data : "", out);
    pg_buf_free(&raw);
}

/* ============================================================ summary */

/* name -> small integer, for per-register facts */
typedef struct {
    const char **keys;
    int *vals;
    int cap, n;
} name_map;

static int *nm_slot(name_map *mp, const char *k, bool create) {
    if (!mp->cap) {
        if (!create) return NULL;
        mp->cap = 256;
        mp->keys = calloc((size_t)mp->cap, sizeof(char *));
        mp->vals = calloc((size_t)mp->cap, sizeof(int));
    }
    if (create && mp->n * 2 >= mp->cap) {
        name_map big = {calloc((size_t)mp->cap * 2, sizeof(char *)), calloc((size_t)mp->cap * 2, sizeof(int)), mp->cap * 2, 0};
        for (int i = 0; i < mp->cap; i++)
            if (mp->keys[i]) *nm_slot(&big, mp->keys[i], true) = mp->vals[i];
        free(mp->keys);
        free(mp->vals);
        *mp = big;
    }
    unsigned i = pg_hash32(k, strlen(k)) & (unsigned)(mp->cap - 1);
    while (mp->keys[i]) {
        if (strcmp(mp->keys[i], k) == 0) return &mp->vals[i];
        i = (i + 1) & (unsigned)(mp->cap - 1);
    }
    if (!create) return NULL;
    mp->keys[i] = k;
    mp->vals[i] = 0;
    mp->n++;
    return &mp->vals[i];
}
static int nm_get(name_map *mp, const char *k) { int *v = nm_slot(mp, k, false); return v ? *v : 0; }
static void nm_free(name_map *mp) { free(mp->keys); free(mp->vals); memset(mp, 0, sizeof *mp); }

/* Does the instruction write its first operand? */
static bool writes_first(const ptx_insn *in) {
    if (in->nops == 0) return false;
    ptx_op_kind k = in->ops[0].kind;
    if (k != PTX_OP_REG && k != PTX_OP_VEC && k != PTX_OP_PAIR) return false;
    if (!in->form) return true;
    isa_class c = in->form->cls;
    if (c == ISA_C_CONTROL || c == ISA_C_MISC) return false;
    if (c == ISA_C_SYNC) {
        for (int i = 0; i < in->nmods; i++)
            if (!strcmp(in->mods[i], ".red")) return true;
        return false;
    }
    return true;
}

typedef void (*reg_fn)(void *u, const ptx_operand *op);
static void each_reg(const ptx_operand *op, reg_fn fn, void *u) {
    if (op->kind == PTX_OP_REG) fn(u, op);
    else if (op->kind == PTX_OP_ADDR && op->addr_has_base && op->addr_base_is_reg) {
        ptx_operand tmp = *op;
        tmp.kind = PTX_OP_REG;
        tmp.sreg = NULL;
        fn(u, &tmp);
    }
    if (op->kind != PTX_OP_REG)
        for (int i = 0; i < op->nelems; i++) each_reg(&op->elems[i], fn, u);
}

/* Special-register taint: which special registers each register is derived from. */
typedef struct {
    const char *names[31];
    int n;
    name_map mask;
    unsigned acc;
} sreg_taint;

static int sreg_bit(sreg_taint *t, const char *name) {
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->names[i], name)) return i;
    if (t->n >= 31) return -1;
    t->names[t->n] = name;
    return t->n++;
}

static void taint_use(void *u, const ptx_operand *op) {
    sreg_taint *t = u;
    if (op->sreg) {
        int b = sreg_bit(t, op->name);
        if (b >= 0) t->acc |= 1u << b;
    } else {
        t->acc |= (unsigned)nm_get(&t->mask, op->name);
    }
}

static unsigned insn_use_mask(sreg_taint *t, const ptx_insn *in) {
    t->acc = 0;
    for (int i = writes_first(in) ? 1 : 0; i < in->nops; i++) each_reg(&in->ops[i], taint_use, t);
    return t->acc;
}

typedef struct { sreg_taint *t; unsigned m; bool changed; } taint_def_ctx;
static void taint_def(void *u, const ptx_operand *op) {
    taint_def_ctx *c = u;
    if (op->sreg) return;
    int *v = nm_slot(&c->t->mask, op->name, true);
    if ((*v | (int)c->m) != *v) { *v |= (int)c->m; c->changed = true; }
}

static void taint_build(sreg_taint *t, const ptx_func *f) {
    /* register the special registers in order of first appearance */
    for (int i = 0; i < f->nbody; i++)
        if (f->body[i].kind == PTX_ST_INSN) insn_use_mask(t, &f->body[i].u.insn);
    bool changed = true;
    for (int iter = 0; changed && iter < 50; iter++) {
        changed = false;
        for (int i = 0; i < f->nbody; i++) {
            if (f->body[i].kind != PTX_ST_INSN) continue;
            const ptx_insn *in = &f->body[i].u.insn;
            if (!writes_first(in)) continue;
            unsigned m = insn_use_mask(t, in);
            if (!m) continue;
            taint_def_ctx c = {t, m, false};
            each_reg(&in->ops[0], taint_def, &c);
            changed = changed || c.changed;
        }
    }
}

static unsigned sreg_mask_of(sreg_taint *t, const char *name) {
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->names[i], name)) return 1u << i;
    return 0;
}

/* --- pointer parameters: a register loaded from the parameter reaches an
 * address (directly or through cvta/mov/64-bit add) */
typedef struct { name_map *set; bool hit; } ptr_ctx;
static void ptr_use(void *u, const ptx_operand *op) {
    ptr_ctx *c = u;
    if (!op->sreg && nm_get(c->set, op->name)) c->hit = true;
}

static bool param_is_pointer(const ptx_func *f, const char *pname) {
    name_map set = {0};
    bool ptr = false;
    for (int i = 0; i < f->nbody; i++) {
        if (f->body[i].kind != PTX_ST_INSN) continue;
        const ptx_insn *in = &f->body[i].u.insn;
        if (!strcmp(in->opcode, "ld") && in->nops >= 2 && in->ops[1].kind == PTX_OP_ADDR && !in->ops[1].addr_base_is_reg &&
            str_eq(in->ops[1].name, pname) && in->ops[0].kind == PTX_OP_REG)
            *nm_slot(&set, in->ops[0].name, true) = 1;
    }
    if (!set.n) { nm_free(&set); return false; }
    for (int pass = 0; pass < 2 && !ptr; pass++)
        for (int i = 0; i < f->nbody && !ptr; i++) {
            if (f->body[i].kind != PTX_ST_INSN) continue;
            const ptx_insn *in = &f->body[i].u.insn;
            for (int k = 0; k < in->nops; k++) {
                const ptx_operand *op = &in->ops[k];
                if (op->kind == PTX_OP_ADDR && op->addr_base_is_reg && nm_get(&set, op->name)) ptr = true;
            }
            if (ptr) break;
            bool prop = !strcmp(in->opcode, "cvta") || !strcmp(in->opcode, "mov") ||
                        (!strcmp(in->opcode, "add") && in->nmods && (starts(in->mods[in->nmods - 1], ".u64") ||
                                                                     starts(in->mods[in->nmods - 1], ".s64")));
            if (!prop || !writes_first(in) || in->ops[0].kind != PTX_OP_REG) continue;
            ptr_ctx c = {&set, false};
            for (int k = 1; k < in->nops; k++) each_reg(&in->ops[k], ptr_use, &c);
            if (c.hit) {
                if (!strcmp(in->opcode, "cvta")) ptr = true;
                *nm_slot(&set, in->ops[0].name, true) = 1;
            }
        }
    nm_free(&set);
    return ptr;
}

/* --- small list helpers for "a, b and c" */
static void put_join(pg_buf *out, const char *const *items, int n) {
    for (int i = 0; i < n; i++) {
        if (i) pg_buf_puts(out, i == n - 1 ? " and " : ", ");
        pg_buf_puts(out, items[i]);
    }
}

typedef struct { char text[160]; int count; } tally;
typedef PG_VEC(tally) tally_vec;
static void tally_add(tally_vec *v, const char *text) {
    for (int i = 0; i < v->n; i++)
        if (!strcmp(v->v[i].text, text)) { v->v[i].count++; return; }
    tally t;
    snprintf(t.text, sizeof t.text, "%s", text);
    t.count = 1;
    pg_vec_push(*v, t);
}
static void insn_name(const ptx_insn *in, char *buf, size_t n) {
    size_t w = (size_t)snprintf(buf, n, "%s", in->opcode);
    for (int i = 0; i < in->nmods && w < n; i++) w += (size_t)snprintf(buf + w, n - w, "%s", in->mods[i]);
}
/* "2 x atom.global.add.u32, shfl.sync.bfly.b32" */
static void put_tallies(pg_buf *out, const tally_vec *v, int max) {
    for (int i = 0; i < v->n && i < max; i++) {
        if (i) pg_buf_puts(out, ", ");
        if (v->v[i].count > 1) pg_buf_printf(out, "%d x ", v->v[i].count);
        pg_buf_puts(out, v->v[i].text);
    }
    if (v->n > max) pg_buf_printf(out, " and %d other kind%s", v->n - max, v->n - max == 1 ? "" : "s");
}

static ptx_space insn_space(const ptx_insn *in) {
    for (int i = 0; i < in->nmods; i++) {
        const char *m = in->mods[i];
        if (starts(m, ".global")) return PTX_SS_GLOBAL;
        if (starts(m, ".shared")) return PTX_SS_SHARED;
        if (starts(m, ".local")) return PTX_SS_LOCAL;
        if (starts(m, ".param")) return PTX_SS_PARAM;
        if (!strcmp(m, ".const")) return PTX_SS_CONST;
    }
    return PTX_SS_NONE;
}

static int64_t decl_bytes(const ptx_decl *d, bool *unsized) {
    int64_t b = ptx_type_get(d->type)->bits / 8;
    if (b <= 0) b = 1;
    if (d->vec) b *= d->vec;
    for (int i = 0; i < d->ndims; i++) {
        if (d->dims[i] < 0) { *unsized = true; return 0; }
        b *= d->dims[i];
    }
    return b;
}

static const char *block_label(const ptx_func *f, const ptx_block *b) {
    for (int i = b->first - 1; i >= 0; i--) {
        const ptx_stmt *s = &f->body[i];
        if (s->kind == PTX_ST_LABEL) return s->u.label;
        if (s->kind == PTX_ST_INSN) break;
    }
    return NULL;
}

static bool uses_name(const ptx_operand *op, const char *name) {
    if ((op->kind == PTX_OP_SYM || (op->kind == PTX_OP_ADDR && !op->addr_base_is_reg)) && str_eq(op->name, name)) return true;
    for (int i = 0; i < op->nelems; i++)
        if (uses_name(&op->elems[i], name)) return true;
    return false;
}
static bool func_uses_name(const ptx_func *f, const char *name) {
    for (int i = 0; i < f->nbody; i++) {
        if (f->body[i].kind != PTX_ST_INSN) continue;
        const ptx_insn *in = &f->body[i].u.insn;
        for (int k = 0; k < in->nops; k++)
            if (uses_name(&in->ops[k], name)) return true;
    }
    return false;
}

static const char *plural(int n, const char *one, const char *many) { return n == 1 ? one : many; }

/* Sentence 1, the signature: "Kernel K takes N parameters (...) [and returns ...].\n".  A
 * function without a body gets its three sentences and false (nothing more to say). */
static bool summary_signature(const ptx_func *f, pg_buf *out) {
    const char *kind = f->is_entry ? "Kernel" : "Device function";
    pg_buf_printf(out, "%s %s", kind, f->name);
    if (!f->has_body) {
        pg_buf_printf(out, " is declared here without a body and takes %d parameter%s.\n", f->nparams, plural(f->nparams, "", "s"));
        pg_buf_puts(out, "Its code is provided by another module or by the driver.\n");
        pg_buf_puts(out, "No instructions are explained for it.");
        return false;
    }
    if (!f->nparams) {
        pg_buf_puts(out, " takes no parameters");
    } else {
        pg_buf_printf(out, " takes %d parameter%s (", f->nparams, plural(f->nparams, "", "s"));
        bool *done = calloc((size_t)f->nparams, 1);
        bool *isptr = calloc((size_t)f->nparams, 1);
        for (int i = 0; i < f->nparams; i++) isptr[i] = param_is_pointer(f, f->params[i].name);
        int ngroups = 0;
        pg_buf groups[64];
        for (int i = 0; i < f->nparams && ngroups < 64; i++) {
            if (done[i]) continue;
            const ptx_decl *d = &f->params[i];
            pg_buf g = {0};
            const char *names[4096];
            int nn = 0;
            for (int k = i; k < f->nparams; k++)
                if (!done[k] && isptr[k] == isptr[i] && f->params[k].type == d->type && f->params[k].ndims == d->ndims &&
                    nn < 4096) {
                    done[k] = true;
                    names[nn++] = f->params[k].name;
                }
            const char *tn = ptx_type_get(d->type)->name;
            if (isptr[i]) {
                pg_buf_printf(&g, "%d pointer%s as %s: ", nn, plural(nn, "", "s"), tn);
                put_join(&g, names, nn);
            } else if (d->ndims) {
                put_join(&g, names, nn);
                bool uns = false;
                int64_t bytes = decl_bytes(d, &uns);
                pg_buf_printf(&g, " as %s byte array%s", tn, plural(nn, "", "s"));
                if (!uns) pg_buf_printf(&g, " of %" PRId64 " bytes", bytes);
            } else {
                put_join(&g, names, nn);
                pg_buf_printf(&g, " as %s", tn);
            }
            groups[ngroups++] = g;
        }
        for (int i = 0; i < ngroups; i++) {
            if (i) pg_buf_puts(out, "; ");
            pg_buf_puts(out, groups[i].data);
            pg_buf_free(&groups[i]);
        }
        free(done);
        free(isptr);
        pg_buf_putc(out, ')');
    }
    if (f->nrets) {
        pg_buf_puts(out, " and returns ");
        for (int i = 0; i < f->nrets; i++) {
            if (i) pg_buf_puts(out, ", ");
            pg_buf_printf(out, "%s (%s)", f->rets[i].name, ptx_type_get(f->rets[i].type)->name);
        }
    }
    pg_buf_puts(out, ".\n");
    return true;
}

/* Writes the summary sentences separated by '\n'. */
static void summary_lines(const ptx_module *m, const ptx_func *f, pg_buf *out) {
    if (!summary_signature(f, out)) return;

    /* ---- analyses */
    ptx_cfg *cfg = NULL;
    ptx_cfg_build(m, f, &cfg, NULL);
    sreg_taint taint;
    memset(&taint, 0, sizeof taint);
    taint_build(&taint, f);

    int ninsn = 0, by_class[ISA_C__COUNT] = {0}, unknown = 0;
    int ld_sp[PTX_SS__COUNT] = {0}, st_sp[PTX_SS__COUNT] = {0};
    int farith = 0, iarith = 0, barriers = 0, fences = 0;
    tally_vec atomics = {0}, warps = {0}, tensors = {0}, asyncs = {0}, calls = {0}, textures = {0};
    for (int i = 0; i < f->nbody; i++) {
        if (f->body[i].kind != PTX_ST_INSN) continue;
        const ptx_insn *in = &f->body[i].u.insn;
        ninsn++;
        char nm[160];
        insn_name(in, nm, sizeof nm);
        if (!in->form) { unknown++; continue; }
        isa_class c = in->form->cls;
        by_class[c]++;
        if (c == ISA_C_MEM && (!strcmp(in->opcode, "ld") || !strcmp(in->opcode, "ldu"))) ld_sp[insn_space(in)]++;
        else if (c == ISA_C_MEM && !strcmp(in->opcode, "st")) st_sp[insn_space(in)]++;
        else if (c == ISA_C_ATOMIC) tally_add(&atomics, nm);
        else if (c == ISA_C_WARP) tally_add(&warps, nm);
        else if (c == ISA_C_TENSOR) tally_add(&tensors, nm);
        else if (c == ISA_C_ASYNC) tally_add(&asyncs, nm);
        else if (c == ISA_C_TEXTURE) tally_add(&textures, nm);
        else if (c == ISA_C_SYNC) {
            if (!strcmp(in->opcode, "bar") || !strcmp(in->opcode, "barrier")) barriers++;
            else if (!strcmp(in->opcode, "fence") || !strcmp(in->opcode, "membar")) fences++;
        } else if (c == ISA_C_ARITH) {
            bool fl = false;
            for (int v = 0; v < ISA_NVARS; v++) {
                ptx_type t = isa_bound_type(in->match, v);
                if (t != PTX_T_NONE && (ptx_type_get(t)->cls == PTX_TC_FLOAT || ptx_type_get(t)->cls == PTX_TC_PACKED)) fl = true;
            }
            if (fl) farith++; else iarith++;
        } else if (c == ISA_C_CONTROL && !strcmp(in->opcode, "call")) {
            for (int k = 0; k < in->nops; k++)
                if (in->ops[k].kind == PTX_OP_SYM) { tally_add(&calls, in->ops[k].name); break; }
                else if (in->ops[k].kind == PTX_OP_REG) { tally_add(&calls, "an indirect target"); break; }
        }
    }

    /* loops: back edges found by DFS from the entry block */
    int nloops = 0;
    const char *loop_hdr = NULL;
    bool grid_stride = false;
    if (cfg && cfg->nblocks) {
        int nb = cfg->nblocks;
        char *color = calloc((size_t)nb, 1);
        int *stk = malloc(sizeof(int) * (size_t)nb), *pos = calloc((size_t)nb, sizeof(int));
        int sp = 0;
        stk[sp++] = 0;
        color[0] = 1;
        unsigned nct = 0;
        for (int i = 0; i < taint.n; i++)
            if (starts(taint.names[i], "%nctaid") || starts(taint.names[i], "%nclusterid")) nct |= 1u << i;
        while (sp) {
            int b = stk[sp - 1];
            if (pos[b] < cfg->blocks[b].nsucc) {
                int s = cfg->blocks[b].succ[pos[b]++];
                if (color[s] == 0) { color[s] = 1; stk[sp++] = s; }
                else if (color[s] == 1) {
                    nloops++;
                    if (!loop_hdr) loop_hdr = block_label(f, &cfg->blocks[s]);
                    /* grid-stride: inside the loop an add uses a value derived from %nctaid */
                    int lo = s < b ? s : b, hi = s < b ? b : s;
                    for (int i = cfg->blocks[lo].first; nct && i <= cfg->blocks[hi].last && !grid_stride; i++) {
                        if (f->body[i].kind != PTX_ST_INSN) continue;
                        const ptx_insn *in = &f->body[i].u.insn;
                        if ((!strcmp(in->opcode, "add") || !strcmp(in->opcode, "mad")) && (insn_use_mask(&taint, in) & nct))
                            grid_stride = true;
                    }
                }
            } else {
                color[b] = 2;
                sp--;
            }
        }
        free(color);
        free(stk);
        free(pos);
    }

    /* ---- sentence 2: thread indexing and early exit */
    {
        pg_buf s = {0};
        const char *dims[3] = {"x", "y", "z"};
        const char *idx[3] = {0};
        int nidx = 0;
        for (int d = 0; d < 3; d++) {
            char a[16], b[16], c[16];
            snprintf(a, sizeof a, "%%ctaid.%s", dims[d]);
            snprintf(b, sizeof b, "%%ntid.%s", dims[d]);
            snprintf(c, sizeof c, "%%tid.%s", dims[d]);
            unsigned want = sreg_mask_of(&taint, a) | sreg_mask_of(&taint, b) | sreg_mask_of(&taint, c);
            if (!sreg_mask_of(&taint, a) || !sreg_mask_of(&taint, b) || !sreg_mask_of(&taint, c)) continue;
            for (int k = 0; k < taint.mask.cap; k++)
                if (taint.mask.keys[k] && ((unsigned)taint.mask.vals[k] & want) == want) { idx[nidx++] = dims[d]; break; }
        }
        if (nidx) {
            if (nidx == 1) pg_buf_printf(&s, "Each thread computes its global %s%sindex from ", idx[0][0] == 'x' ? "" : idx[0], idx[0][0] == 'x' ? "" : " ");
            else pg_buf_puts(&s, "Each thread computes its global indices from ");
            for (int d = 0; d < nidx; d++)
                pg_buf_printf(&s, "%s%%ctaid.%s, %%ntid.%s and %%tid.%s", d ? (d == nidx - 1 ? " and " : ", ") : "", idx[d], idx[d], idx[d]);
        } else if (taint.n) {
            pg_buf_puts(&s, "It reads the special register");
            if (taint.n > 1) pg_buf_putc(&s, 's');
            pg_buf_putc(&s, ' ');
            put_join(&s, taint.names, taint.n > 6 ? 6 : taint.n);
            if (taint.n > 6) pg_buf_printf(&s, " and %d more", taint.n - 6);
        }
        /* early exit: guarded ret/exit, or a guarded branch to a block that starts with ret/exit */
        const ptx_insn *ex = NULL;
        bool via_branch = false;
        for (int i = 0; i < f->nbody && !ex; i++) {
            if (f->body[i].kind != PTX_ST_INSN) continue;
            const ptx_insn *in = &f->body[i].u.insn;
            if (!in->guard) continue;
            if ((!strcmp(in->opcode, "ret") || !strcmp(in->opcode, "exit")) && cfg && cfg->block_of[i] == 0) ex = in;
            else if (!strcmp(in->opcode, "bra") && cfg && cfg->block_of[i] == 0 && in->nops == 1 && in->ops[0].kind == PTX_OP_SYM) {
                const ptx_block *bb = &cfg->blocks[cfg->block_of[i]];
                if (bb->nsucc >= 1) {
                    for (int k = 0; k < bb->nsucc; k++) {
                        const ptx_block *t = &cfg->blocks[bb->succ[k]];
                        const char *lbl = block_label(f, t);
                        const ptx_insn *first = &f->body[t->first].u.insn;
                        if (lbl && !strcmp(lbl, in->ops[0].name) && !first->guard &&
                            (!strcmp(first->opcode, "ret") || !strcmp(first->opcode, "exit"))) {
                            ex = in;
                            via_branch = true;
                        }
                    }
                }
            }
        }
        if (ex) {
            pg_buf_puts(&s, s.len ? " and exits early when " : "Each thread exits early when ");
            pg_buf_printf(&s, "%s is %s", ex->guard, ex->guard_neg ? "false" : "true");
            /* the setp that wrote the guard, if it is the last write before the exit */
            const ptx_insn *setp = NULL;
            for (int i = 0; i < f->nbody; i++) {
                if (f->body[i].kind != PTX_ST_INSN) continue;
                const ptx_insn *in = &f->body[i].u.insn;
                if (in == ex) break;
                if (!strcmp(in->opcode, "setp") && in->nops >= 3) {
                    const ptx_operand *d = &in->ops[0];
                    const char *dn = d->kind == PTX_OP_PAIR ? d->elems[0].name : d->name;
                    if (str_eq(dn, ex->guard)) setp = in;
                }
            }
            if (setp && setp->form) {
                char nm[160];
                insn_name(setp, nm, sizeof nm);
                pg_buf_printf(&s, " (set by %s comparing ", nm);
                pg_buf_puts(&s, setp->ops[1].text ? setp->ops[1].text : "?");
                pg_buf_puts(&s, " with ");
                pg_buf_puts(&s, setp->ops[2].text ? setp->ops[2].text : "?");
                pg_buf_putc(&s, ')');
            }
            if (via_branch) pg_buf_puts(&s, ", by branching to a return");
        }
        if (s.len) {
            pg_buf_puts(out, s.data);
            pg_buf_puts(out, ".\n");
        }
        pg_buf_free(&s);
    }

    /* ---- sentence 3: memory traffic */
    {
        static const struct { ptx_space sp; const char *w; } spaces[] = {
            {PTX_SS_GLOBAL, "global"}, {PTX_SS_SHARED, "shared"}, {PTX_SS_LOCAL, "local"},
            {PTX_SS_CONST, "constant"}, {PTX_SS_NONE, "generic"}, {PTX_SS_PARAM, "parameter"}};
        pg_buf s = {0};
        const char *items[16];
        char store[16][96];
        int ni = 0;
        for (size_t k = 0; k < sizeof spaces / sizeof spaces[0]; k++) {
            int l = ld_sp[spaces[k].sp], st = st_sp[spaces[k].sp];
            if (l) { snprintf(store[ni], 96, "%d %s load%s", l, spaces[k].w, plural(l, "", "s")); items[ni] = store[ni]; ni++; }
            if (st) { snprintf(store[ni], 96, "%d %s store%s", st, spaces[k].w, plural(st, "", "s")); items[ni] = store[ni]; ni++; }
        }
        if (ni) {
            pg_buf_puts(&s, "It performs ");
            put_join(&s, items, ni);
        } else {
            pg_buf_puts(&s, "It performs no loads or stores");
        }
        if (atomics.n) {
            int na = 0;
            for (int i = 0; i < atomics.n; i++) na += atomics.v[i].count;
            pg_buf_printf(&s, ", plus %d atomic operation%s (", na, plural(na, "", "s"));
            put_tallies(&s, &atomics, 4);
            pg_buf_putc(&s, ')');
        }
        pg_buf_puts(out, s.data);
        pg_buf_puts(out, ".\n");
        pg_buf_free(&s);
    }

    /* ---- sentence 4: shared memory, synchronisation, warp/tensor ops, calls, arithmetic */
    {
        PG_VEC(pg_buf) cl = {0};
        /* shared memory declared in the body or module-level and used here */
        int64_t shb = 0;
        bool dyn = false;
        const char *shn[8];
        int nsh = 0;
        for (int i = 0; i < f->nbody; i++)
            if (f->body[i].kind == PTX_ST_DECL && f->body[i].u.decl.space == PTX_SS_SHARED) {
                shb += decl_bytes(&f->body[i].u.decl, &dyn);
                if (nsh < 8) shn[nsh++] = f->body[i].u.decl.name;
            }
        for (int i = 0; i < m->ntops; i++)
            if (m->tops[i].kind == PTX_TOP_DECL && m->tops[i].u.decl.space == PTX_SS_SHARED &&
                func_uses_name(f, m->tops[i].u.decl.name)) {
                shb += decl_bytes(&m->tops[i].u.decl, &dyn);
                if (nsh < 8) shn[nsh++] = m->tops[i].u.decl.name;
            }
        if (nsh) {
            pg_buf b = {0};
            if (shb) pg_buf_printf(&b, "uses %" PRId64 " bytes of static shared memory", shb);
            if (dyn) pg_buf_printf(&b, "%sdynamically sized shared memory", shb ? " plus " : "uses ");
            pg_buf_puts(&b, " (");
            put_join(&b, shn, nsh);
            pg_buf_putc(&b, ')');
            pg_vec_push(cl, b);
        }
        if (barriers) {
            pg_buf b = {0};
            pg_buf_printf(&b, "synchronises at %d barrier%s", barriers, plural(barriers, "", "s"));
            pg_vec_push(cl, b);
        }
        if (fences) {
            pg_buf b = {0};
            pg_buf_printf(&b, "issues %d memory fence%s", fences, plural(fences, "", "s"));
            pg_vec_push(cl, b);
        }
        const struct { tally_vec *v; const char *what; } groups[] = {
            {&warps, "warp-level operation"}, {&tensors, "tensor-core instruction"},
            {&asyncs, "asynchronous copy instruction"}, {&textures, "texture/surface instruction"}};
        for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
            if (!groups[g].v->n) continue;
            int tot = 0;
            for (int i = 0; i < groups[g].v->n; i++) tot += groups[g].v->v[i].count;
            pg_buf b = {0};
            pg_buf_printf(&b, "uses %d %s%s (", tot, groups[g].what, plural(tot, "", "s"));
            put_tallies(&b, groups[g].v, 3);
            pg_buf_putc(&b, ')');
            pg_vec_push(cl, b);
        }
        if (calls.n) {
            pg_buf b = {0};
            pg_buf_puts(&b, "calls ");
            const char *names[16];
            int nn = 0;
            for (int i = 0; i < calls.n && nn < 16; i++) names[nn++] = calls.v[i].text;
            put_join(&b, names, nn);
            pg_vec_push(cl, b);
        }
        if (farith || iarith) {
            pg_buf b = {0};
            if (farith && iarith)
                pg_buf_printf(&b, "does %d floating-point and %d integer arithmetic instruction%s", farith, iarith, plural(iarith, "", "s"));
            else if (farith)
                pg_buf_printf(&b, "does %d floating-point arithmetic instruction%s", farith, plural(farith, "", "s"));
            else
                pg_buf_printf(&b, "does %d integer arithmetic instruction%s", iarith, plural(iarith, "", "s"));
            pg_vec_push(cl, b);
        }
        if (cl.n) {
            pg_buf_puts(out, "It ");
            bool inner_and = false;
            for (int i = 0; i + 1 < cl.n; i++) inner_and = inner_and || strstr(cl.v[i].data, " and ") != NULL;
            for (int i = 0; i < cl.n; i++) {
                if (i) pg_buf_puts(out, i == cl.n - 1 ? (cl.n > 2 || inner_and ? ", and " : " and ") : ", ");
                pg_buf_puts(out, cl.v[i].data);
                pg_buf_free(&cl.v[i]);
            }
            pg_buf_puts(out, ".\n");
        }
        pg_vec_free(cl);
    }

    /* ---- sentence 5: shape */
    {
        pg_buf_printf(out, "The body has %d instruction%s", ninsn, plural(ninsn, "", "s"));
        /* top classes */
        int order[ISA_C__COUNT], no = 0;
        for (int c = 0; c < ISA_C__COUNT; c++)
            if (by_class[c]) order[no++] = c;
        for (int a = 0; a < no; a++)
            for (int b = a + 1; b < no; b++)
                if (by_class[order[b]] > by_class[order[a]]) { int t = order[a]; order[a] = order[b]; order[b] = t; }
        if (no) {
            pg_buf_puts(out, " (");
            for (int a = 0; a < no && a < 4; a++)
                pg_buf_printf(out, "%s%d %s", a ? ", " : "", by_class[order[a]], isa_class_name((isa_class)order[a]));
            if (no > 4) pg_buf_puts(out, ", ...");
            if (unknown) pg_buf_printf(out, ", %d unrecognised", unknown);
            pg_buf_putc(out, ')');
        }
        int nb = cfg ? cfg->nblocks : 0;
        pg_buf_printf(out, " in %d basic block%s", nb, plural(nb, "", "s"));
        if (!nloops) pg_buf_puts(out, " with no loops");
        else {
            pg_buf_printf(out, " with %d loop%s", nloops, plural(nloops, "", "s"));
            if (loop_hdr) pg_buf_printf(out, " (%s back edge to %s)", nloops == 1 ? "a" : "the first", loop_hdr);
            if (grid_stride) pg_buf_puts(out, ", including a grid-stride loop whose step is derived from %nctaid");
        }
        pg_buf_puts(out, ".");
    }

    nm_free(&taint.mask);
    pg_vec_free(atomics); pg_vec_free(warps); pg_vec_free(tensors); pg_vec_free(asyncs);
    pg_vec_free(calls); pg_vec_free(textures);
    ptx_cfg_free(cfg);
}

void ptx_explain_summary(const ptx_module *m, const ptx_func *f, pg_buf *out) {
    pg_buf lines = {0};
    summary_lines(m, f, &lines);
    for (size_t i = 0; i < lines.len; i++) pg_buf_putc(out, lines.data[i] == '\n' ? ' ' : lines.data[i]);
    pg_buf_free(&lines);
}

/* ============================================================ listing */
static void decl_comment(const ptx_decl *d, bool in_body, pg_buf *b) {
    const char *tw = ptx_type_words(d->type);
    if (d->space == PTX_SS_REG) {
        if (d->count)
            pg_buf_printf(b, "%d %s register%s %s0..%s%d", d->count, tw, plural(d->count, "", "s"), d->name, d->name, d->count - 1);
        else
            pg_buf_printf(b, "one %s%s register %s", d->vec ? "vector " : "", tw, d->name);
        return;
    }
    const char *sw = isa_modifier_words(ptx_space_name(d->space));
    if (!sw) return;
    bool uns = false;
    int64_t bytes = decl_bytes(d, &uns);
    if (d->space == PTX_SS_PARAM && in_body) {
        pg_buf_printf(b, "call parameter %s of %" PRId64 " byte%s", d->name, bytes, plural((int)bytes, "", "s"));
        return;
    }
    if (uns) pg_buf_printf(b, "%s%s memory array %s of unspecified size", d->is_extern ? "external " : "", sw, d->name);
    else if (d->ndims) pg_buf_printf(b, "%" PRId64 " bytes of %s memory (%s)", bytes, sw, d->name);
    else pg_buf_printf(b, "a %s variable %s in %s memory", tw, d->name, sw);
    if (d->init) pg_buf_puts(b, ", initialised");
}


/* ---- the annotated listing: the printer with explanation hooks ---- */
static void hook_insn(void *user, const ptx_module *m, const ptx_func *f, const ptx_insn *in, int indent, pg_buf *b) {
    (void)user;
    for (int i = 0; i < indent; i++) pg_buf_putc(b, '\t');
    pg_buf_puts(b, "// ");
    ptx_explain_insn(m, f, in, b);
    pg_buf_putc(b, '\n');
}

static void hook_decl(void *user, const ptx_decl *d, bool in_body, pg_buf *out) {
    (void)user;
    decl_comment(d, in_body, out);
}

static void hook_func(void *user, const ptx_module *m, const ptx_func *f, pg_buf *b) {
    (void)user;
    if (!f->has_body) return;
    pg_buf lines = {0};
    summary_lines(m, f, &lines);
    pg_buf_puts(b, "// Summary:\n");
    const char *p = lines.data ? lines.data : "";
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        pg_buf_puts(b, "//   ");
        pg_buf_putn(b, p, n);
        pg_buf_putc(b, '\n');
        p += n + (e ? 1 : 0);
    }
    pg_buf_free(&lines);
}

void ptx_explain_module(const ptx_module *m, pg_buf *b) {
    ptx_print_hooks h = {hook_insn, hook_decl, hook_func, NULL};
    ptx_print_annotated(m, &h, b);
}
