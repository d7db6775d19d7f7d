/* bias.c — performance bias: context-dependent logit adjustments (docs/BIAS.md).
 *
 * A rule is (context, pattern, delta): when the context holds and the
 * instruction being written is still on its way to `pattern` (e.g.
 * "fma.rn.f32 "), every token that moves it along the pattern gets `delta`
 * added to its logit.  Only tokens the constraint accepts are touched, so a
 * bias can reorder the legal choices but never make an illegal one possible.
 *
 * Contexts (computed by constraint.c at line ends, see track_line there):
 *   "stmt"      always (inside the body, at an instruction);
 *   "in_loop"   after a label that no branch has targeted yet, until the
 *               backward branch to it (a loop body, e.g. over a shared tile);
 *   "aligned16" the most recently written 64-bit register is known to be a
 *               16-byte aligned address (pointer param + multiples of 16);
 *   "after:OP"  the previous instruction starts with OP (e.g. "after:mul.f32").
 */
#include "dec_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CTX_STMT, CTX_LOOP, CTX_ALIGNED, CTX_AFTER };

typedef struct {
    int ctx;
    char after[48];
    char pattern[64];
    float delta;
} bias_rule;

struct dec_bias {
    const dec_vocab *v;
    bias_rule *rules;
    int n;
};

/* The built-in table; bench/bias_default.json is the same in JSON. */
static const struct { const char *ctx, *pattern; float delta; } DEFAULT_RULES[] = {
    {"stmt", "fma.rn.f32 ", 0.5f},               /* fused multiply-add over mul + add */
    {"after:mul.f32", "add.f32 ", -0.5f},
    {"after:mul.rn.f32", "add.f32 ", -0.5f},
    {"stmt", "ld.global.nc.", 0.3f},             /* read-only loads through the non-coherent path */
    {"aligned16", "ld.global.nc.v4.f32 ", 0.7f}, /* wide loads from 16-byte aligned addresses */
    {"aligned16", "ld.global.v4.f32 ", 0.4f},
    {"aligned16", "st.global.v4.f32 ", 0.4f},
    {"in_loop", "ld.shared.", 0.4f},            /* inside a loop, reuse the shared tile */
    {"in_loop", "ld.global.", -0.2f},
    {"stmt", "mad.lo.s32 ", 0.2f},
};

static pg_status add_rule(dec_bias *b, const char *ctx, const char *pattern, double delta, const char *where,
                          pg_diag_sink *diag) {
    bias_rule r;
    memset(&r, 0, sizeof r);
    if (!strcmp(ctx, "stmt")) r.ctx = CTX_STMT;
    else if (!strcmp(ctx, "in_loop")) r.ctx = CTX_LOOP;
    else if (!strcmp(ctx, "aligned16")) r.ctx = CTX_ALIGNED;
    else if (!strncmp(ctx, "after:", 6) && strlen(ctx + 6) > 0 && strlen(ctx + 6) < sizeof r.after) {
        r.ctx = CTX_AFTER;
        snprintf(r.after, sizeof r.after, "%s", ctx + 6);
    } else {
        pg_diag_emit(diag, PG_E_GEN, where, 0, 0, "unknown bias context '%s' (stmt, in_loop, aligned16, after:OPCODE)", ctx);
        return PG_ERR_PARSE;
    }
    if (!*pattern || strlen(pattern) >= sizeof r.pattern) {
        pg_diag_emit(diag, PG_E_GEN, where, 0, 0, "bias pattern must have 1..%d bytes", (int)sizeof r.pattern - 1);
        return PG_ERR_PARSE;
    }
    if (!(delta >= -20.0 && delta <= 20.0)) {
        pg_diag_emit(diag, PG_E_GEN, where, 0, 0, "bias delta %g outside [-20, 20]", delta);
        return PG_ERR_PARSE;
    }
    snprintf(r.pattern, sizeof r.pattern, "%s", pattern);
    r.delta = (float)delta;
    b->rules = pg_xrealloc(b->rules, sizeof *b->rules * (size_t)(b->n + 1));
    b->rules[b->n++] = r;
    return PG_OK;
}

pg_status dec_bias_default(const dec_vocab *v, dec_bias **out, pg_diag_sink *diag) {
    dec_bias *b = calloc(1, sizeof *b);
    if (!b) return PG_ERR_NOMEM;
    b->v = v;
    for (size_t i = 0; i < sizeof DEFAULT_RULES / sizeof DEFAULT_RULES[0]; i++)
        add_rule(b, DEFAULT_RULES[i].ctx, DEFAULT_RULES[i].pattern, DEFAULT_RULES[i].delta, "built-in", diag);
    *out = b;
    return PG_OK;
}

pg_status dec_bias_load(const char *path, const dec_vocab *v, dec_bias **out, pg_diag_sink *diag) {
    *out = NULL;
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    if (!root) {
        pg_diag_emit(diag, PG_E_GEN, path, err.line, err.column, "cannot read bias table: %s", err.text);
        return PG_ERR_PARSE;
    }
    pg_status st = PG_OK;
    json_t *rules = json_object_get(root, "rules");
    json_t *ver = json_object_get(root, "version");
    if (!json_is_object(root) || !json_is_array(rules) || (ver && json_integer_value(ver) != 1)) {
        pg_diag_emit(diag, PG_E_GEN, path, 0, 0, "bias table needs {\"version\": 1, \"rules\": [...]}");
        json_decref(root);
        return PG_ERR_PARSE;
    }
    dec_bias *b = calloc(1, sizeof *b);
    b->v = v;
    size_t i;
    json_t *r;
    json_array_foreach(rules, i, r) {
        char where[600];
        snprintf(where, sizeof where, "%s: rules[%zu]", path, i);
        json_t *c = json_object_get(r, "context"), *p = json_object_get(r, "pattern"), *d = json_object_get(r, "delta");
        if (!json_is_string(c) || !json_is_string(p) || !json_is_number(d)) {
            pg_diag_emit(diag, PG_E_GEN, where, 0, 0, "a rule needs \"context\" (string), \"pattern\" (string), \"delta\" (number)");
            st = PG_ERR_PARSE;
            break;
        }
        st = add_rule(b, json_string_value(c), json_string_value(p), json_number_value(d), where, diag);
        if (st != PG_OK) break;
    }
    json_decref(root);
    if (st != PG_OK) {
        dec_bias_free(b);
        return st;
    }
    *out = b;
    return PG_OK;
}

void dec_bias_free(dec_bias *b) {
    if (!b) return;
    free(b->rules);
    free(b);
}

/* Where the walk's adds go: dec_bias_apply adds each to its logit, dec_bias_collect lists them. */
typedef struct {
    float *logits;             /* apply: logits[vocab] */
    dec_bias_adds *list;       /* collect */
} bias_sink;

static void put(bias_sink *k, int32_t t, float delta) {
    if (k->logits) { k->logits[t] += delta; return; }
    dec_bias_adds *a = k->list;
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 64;
        a->id = pg_xrealloc(a->id, sizeof *a->id * (size_t)a->cap);
        a->delta = pg_xrealloc(a->delta, sizeof *a->delta * (size_t)a->cap);
    }
    a->id[a->n] = t;
    a->delta[a->n++] = delta;
}

static void boost(const dec_bias *b, const dec_state *s, int32_t t, float delta, bias_sink *k) {
    for (; t >= 0; t = b->v->dup_next[t])
        if (dec_accepts(s, t)) put(k, t, delta);
}

/* Add delta to every accepted token that continues `rest` (a prefix of it, or
 * it followed by more bytes). */
static void boost_along(const dec_bias *b, const dec_state *s, const char *rest, float delta, bias_sink *k) {
    const dec_vocab *v = b->v;
    int nd = 0;
    for (const char *p = rest; *p; p++) {
        int c;
        for (c = v->nodes.v[nd].first_child; c >= 0; c = v->nodes.v[c].next_sibling)
            if (v->nodes.v[c].c == (unsigned char)*p) break;
        if (c < 0) return;
        nd = c;
        if (v->nodes.v[nd].tok >= 0) boost(b, s, v->nodes.v[nd].tok, delta, k);
    }
    /* tokens that complete the pattern and go on: the subtree below (bounded walk) */
    int stack[256], sp = 0, visited = 0;
    for (int c = v->nodes.v[nd].first_child; c >= 0 && sp < 256; c = v->nodes.v[c].next_sibling) stack[sp++] = c;
    while (sp > 0 && visited++ < 4096) {
        int c = stack[--sp];
        if (v->nodes.v[c].tok >= 0) boost(b, s, v->nodes.v[c].tok, delta, k);
        for (int d = v->nodes.v[c].first_child; d >= 0 && sp < 256; d = v->nodes.v[d].next_sibling) stack[sp++] = d;
    }
}

static void bias_walk(const dec_bias *b, const dec_state *s, bias_sink *k) {
    if (!b || dec_done(s)) return;
    size_t len;
    const char *txt = dec_text(s, &len);
    /* the statement written so far on this line (after the tab and any guard) */
    size_t ls = len;
    while (ls > 0 && txt[ls - 1] != '\n') ls--;
    const char *p = txt + ls;
    size_t plen = len - ls;
    int where = dec_state_phase_is_stmt_start(s);
    if (plen == 0 && where != 2) return;
    if (plen > 0) {
        if (p[0] != '\t') return;   /* a label line or the header */
        p++, plen--;
        if (plen && p[0] == '@') {
            const char *sp = memchr(p, ' ', plen);
            if (!sp) return;
            plen -= (size_t)(sp + 1 - p);
            p = sp + 1;
        }
        if (plen && p[0] == '.') return;   /* a declaration */
        if (memchr(p, ' ', plen)) return;  /* operands: the instruction is chosen */
    }
    /* inside the body only: the line start before '{' is the header */
    if (!memchr(txt, '{', len)) return;
    char last[64];
    dec_state_last_insn(s, last, sizeof last);
    for (int i = 0; i < b->n; i++) {
        const bias_rule *r = &b->rules[i];
        bool on = r->ctx == CTX_STMT || (r->ctx == CTX_LOOP && dec_state_in_loop(s)) ||
                  (r->ctx == CTX_ALIGNED && dec_state_last_addr_aligned(s)) ||
                  (r->ctx == CTX_AFTER && !strncmp(last, r->after, strlen(r->after)));
        if (!on) continue;
        size_t xl = strlen(r->pattern);
        if (plen >= xl || memcmp(r->pattern, p, plen)) continue;
        /* at a line start the token must also bring the tab */
        if (plen == 0 && len > 0 && txt[len - 1] == '\n') {
            char with_tab[80];
            snprintf(with_tab, sizeof with_tab, "\t%s", r->pattern);
            boost_along(b, s, with_tab, r->delta, k);
        } else {
            boost_along(b, s, r->pattern + plen, r->delta, k);
        }
    }
}

void dec_bias_apply(const dec_bias *b, const dec_state *s, float *logits) {
    bias_sink k = {logits, NULL};
    bias_walk(b, s, &k);
}

void dec_bias_collect(const dec_bias *b, const dec_state *s, dec_bias_adds *out) {
    bias_sink k = {NULL, out};
    out->n = 0;
    bias_walk(b, s, &k);
}

void dec_bias_adds_free(dec_bias_adds *a) {
    free(a->id);
    free(a->delta);
    memset(a, 0, sizeof *a);
}
