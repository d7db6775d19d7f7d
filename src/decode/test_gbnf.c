/* test_gbnf.c — the GBNF export: the grammar parses (a small GBNF parser
 * lives here, only for the test), rule names have no underscores, every
 * referenced rule is defined, nothing is left-recursive; every corpus kernel
 * printed canonically (ptx_parse + ptx_print) is accepted by a recognizer
 * (memoized sets of end positions: full CFG semantics like llama.cpp's, fine
 * for grammars without left recursion); one instruction built from every ISA
 * form is accepted; malformed texts are rejected; the output matches
 * tests/golden/grammar.gbnf (UPDATE_GOLDEN=1 rewrites it).
 * Run from the repository root (reads corpus/ and tests/golden/). */
#include "common/test.h"
#include "ptxgen/decode.h"
#include "ptxgen/isa.h"
#include "ptxgen/ptx.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a small GBNF parser ---------------------------------------------------- */
typedef enum { E_LIT, E_CLASS, E_REF, E_GROUP } ekind;
typedef struct galt galt;
typedef struct {
    ekind k;
    char op;                        /* 0, '*', '+', '?' */
    char *lit; int litn;            /* E_LIT */
    unsigned char lo[96], hi[96]; int nr; bool neg;   /* E_CLASS ranges */
    int ref;                        /* E_REF: rule index */
    galt *grp;                      /* E_GROUP */
} gitem;
typedef struct { gitem *v; int n, cap; } gseq;
struct galt { gseq *v; int n, cap; };
typedef struct { char name[80]; galt *body; int line; } grule;
typedef struct {
    PG_VEC(grule) rules;
    char err[256];
    int nrefs_undefined;
    char undefined[80];
} grammar;

static int rule_index(grammar *g, const char *name, size_t n) {
    for (int i = 0; i < g->rules.n; i++)
        if (strlen(g->rules.v[i].name) == n && !memcmp(g->rules.v[i].name, name, n)) return i;
    grule r;
    memset(&r, 0, sizeof r);
    snprintf(r.name, sizeof r.name, "%.*s", (int)(n < 79 ? n : 79), name);
    pg_vec_push(g->rules, r);
    return g->rules.n - 1;
}

typedef struct { const char *p; grammar *g; int line; bool bad; } gparser;

static void gfail(gparser *P, const char *what) {
    if (!P->bad) snprintf(P->g->err, sizeof P->g->err, "line %d: %s near '%.20s'", P->line, what, P->p);
    P->bad = true;
}
static void skip_sp(gparser *P) { while (*P->p == ' ' || *P->p == '\t') P->p++; }
static bool is_name_char(char c) { return isalnum((unsigned char)c) || c == '-' || c == '_'; }

/* One escaped character of a literal or class; advances P->p. */
static int gchar(gparser *P) {
    if (*P->p != '\\') return (unsigned char)*P->p++;
    P->p++;
    char c = *P->p++;
    switch (c) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case 'x': {
        int v = 0;
        for (int i = 0; i < 2; i++) {
            char h = *P->p++;
            v = v * 16 + (isdigit((unsigned char)h) ? h - '0' : (tolower((unsigned char)h) - 'a' + 10));
        }
        return v;
    }
    case '\\': case '"': case '[': case ']': case '-': case '^': return (unsigned char)c;
    default: gfail(P, "unknown escape"); return 0;
    }
}

static galt *parse_alts(gparser *P, int depth);
static void free_alt(galt *a);

static bool parse_item(gparser *P, gitem *it, int depth) {
    memset(it, 0, sizeof *it);
    if (*P->p == '"') {
        P->p++;
        pg_buf b = {0};
        while (*P->p && *P->p != '"' && *P->p != '\n') pg_buf_putc(&b, (char)gchar(P));
        if (*P->p != '"') { gfail(P, "unterminated string"); pg_buf_free(&b); return false; }
        P->p++;
        it->k = E_LIT;
        it->litn = (int)b.len;
        it->lit = b.data ? b.data : calloc(1, 1);
    } else if (*P->p == '[') {
        P->p++;
        it->k = E_CLASS;
        if (*P->p == '^') { it->neg = true; P->p++; }
        while (*P->p && *P->p != ']' && *P->p != '\n') {
            int lo = gchar(P), hi = lo;
            if (*P->p == '-' && P->p[1] != ']') { P->p++; hi = gchar(P); }
            if (it->nr == 96) { gfail(P, "class too long"); return false; }
            it->lo[it->nr] = (unsigned char)lo;
            it->hi[it->nr++] = (unsigned char)hi;
        }
        if (*P->p != ']') { gfail(P, "unterminated class"); return false; }
        P->p++;
    } else if (*P->p == '(') {
        P->p++;
        it->k = E_GROUP;
        it->grp = parse_alts(P, depth + 1);
        if (P->bad) return false;
        if (*P->p != ')') { gfail(P, "missing )"); return false; }
        P->p++;
    } else if (is_name_char(*P->p)) {
        const char *s = P->p;
        while (is_name_char(*P->p)) P->p++;
        it->k = E_REF;
        it->ref = rule_index(P->g, s, (size_t)(P->p - s));
    } else {
        gfail(P, "expected an element");
        return false;
    }
    if (*P->p == '*' || *P->p == '+' || *P->p == '?') it->op = *P->p++;
    return true;
}

static galt *parse_alts(gparser *P, int depth) {
    galt *a = calloc(1, sizeof *a);
    for (;;) {
        gseq s = {0};
        for (;;) {
            skip_sp(P);
            if (depth > 0 && *P->p == '\n') { P->p++; P->line++; continue; }   /* newlines inside ( ) */
            if (!*P->p || *P->p == '\n' || *P->p == '|' || *P->p == ')' || *P->p == '#') break;
            gitem it;
            if (!parse_item(P, &it, depth)) { free(it.lit); free_alt(it.grp); break; }
            pg_vec_push(s, it);
        }
        pg_vec_push(*a, s);
        if (P->bad || *P->p != '|') break;
        P->p++;
    }
    return a;
}

static bool gbnf_parse(const char *text, grammar *g) {
    memset(g, 0, sizeof *g);
    gparser P = {text, g, 1, false};
    while (*P.p && !P.bad) {
        skip_sp(&P);
        if (*P.p == '#') { while (*P.p && *P.p != '\n') P.p++; }
        if (*P.p == '\n') { P.p++; P.line++; continue; }
        if (!*P.p) break;
        const char *s = P.p;
        while (is_name_char(*P.p)) P.p++;
        if (P.p == s) { gfail(&P, "expected a rule name"); break; }
        int r = rule_index(g, s, (size_t)(P.p - s));
        skip_sp(&P);
        if (strncmp(P.p, "::=", 3)) { gfail(&P, "expected ::="); break; }
        P.p += 3;
        if (g->rules.v[r].body) { gfail(&P, "rule defined twice"); break; }
        int line = P.line;
        galt *body = parse_alts(&P, 0);
        g->rules.v[r].body = body;
        g->rules.v[r].line = line;
        skip_sp(&P);
        if (*P.p == '#') while (*P.p && *P.p != '\n') P.p++;
        if (*P.p && *P.p != '\n' && !P.bad) gfail(&P, "junk after rule");
    }
    for (int i = 0; i < g->rules.n; i++)
        if (!g->rules.v[i].body) {
            if (!g->nrefs_undefined++) snprintf(g->undefined, sizeof g->undefined, "%s", g->rules.v[i].name);
        }
    return !P.bad;
}

static void free_alt(galt *a) {
    if (!a) return;
    for (int i = 0; i < a->n; i++) {
        for (int k = 0; k < a->v[i].n; k++) {
            free(a->v[i].v[k].lit);
            free_alt(a->v[i].v[k].grp);
        }
        free(a->v[i].v);
    }
    free(a->v);
    free(a);
}
static void gbnf_free(grammar *g) {
    for (int i = 0; i < g->rules.n; i++) free_alt(g->rules.v[i].body);
    pg_vec_free(g->rules);
}

/* ---- nullable rules and left recursion ------------------------------------------- */
static bool alt_nullable(const galt *a, const bool *nul);
static bool item_nullable(const gitem *it, const bool *nul) {
    if (it->op == '*' || it->op == '?') return true;
    switch (it->k) {
    case E_LIT: return it->litn == 0;
    case E_CLASS: return false;
    case E_REF: return nul[it->ref];
    case E_GROUP: return alt_nullable(it->grp, nul);
    }
    return false;
}
static bool alt_nullable(const galt *a, const bool *nul) {
    for (int i = 0; i < a->n; i++) {
        bool all = true;
        for (int k = 0; k < a->v[i].n && all; k++) all = item_nullable(&a->v[i].v[k], nul);
        if (all) return true;
    }
    return false;
}

/* Rules that can appear first (after nullable items) in a; marks edges[] row. */
static void first_refs(const galt *a, const bool *nul, bool *row) {
    for (int i = 0; i < a->n; i++)
        for (int k = 0; k < a->v[i].n; k++) {
            const gitem *it = &a->v[i].v[k];
            if (it->k == E_REF) row[it->ref] = true;
            if (it->k == E_GROUP) first_refs(it->grp, nul, row);
            if (!item_nullable(it, nul)) break;
        }
}

/* Returns the name of a left-recursive rule, or NULL. */
static const char *left_recursive(const grammar *g) {
    int n = g->rules.n;
    bool *nul = calloc((size_t)n, 1), *edge = calloc((size_t)n * (size_t)n, 1);
    for (bool changed = true; changed;) {
        changed = false;
        for (int r = 0; r < n; r++)
            if (!nul[r] && g->rules.v[r].body && alt_nullable(g->rules.v[r].body, nul)) nul[r] = changed = true;
    }
    for (int r = 0; r < n; r++)
        if (g->rules.v[r].body) first_refs(g->rules.v[r].body, nul, &edge[(size_t)r * n]);
    /* transitive closure (Warshall); a rule reaching itself is left-recursive */
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
            if (edge[(size_t)i * n + k])
                for (int j = 0; j < n; j++)
                    if (edge[(size_t)k * n + j]) edge[(size_t)i * n + j] = true;
    const char *bad = NULL;
    for (int r = 0; r < n && !bad; r++)
        if (edge[(size_t)r * n + r]) bad = g->rules.v[r].name;
    free(nul);
    free(edge);
    return bad;
}

/* ---- the recognizer: memoized sets of end positions ------------------------------- */
typedef struct { int *v; int n, cap; } iset;
typedef struct { int rule, pos; iset ends; int state; } memo_ent;   /* state 1 = computing, 2 = done */
typedef struct {
    const grammar *g;
    const char *s; int len;
    memo_ent *tab; size_t cap, used;
    int furthest;                   /* furthest position a terminal matched up to (error location) */
} recog;

static void iset_add(iset *s, int x) { pg_vec_push(*s, x); }
static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
static void iset_norm(iset *s) {
    if (s->n < 2) return;
    qsort(s->v, (size_t)s->n, sizeof(int), cmp_int);
    int w = 1;
    for (int i = 1; i < s->n; i++) if (s->v[i] != s->v[w - 1]) s->v[w++] = s->v[i];
    s->n = w;
}
static bool iset_has(const iset *s, int x) {
    for (int i = 0; i < s->n; i++) if (s->v[i] == x) return true;
    return false;
}

static memo_ent *memo_slot(recog *R, int rule, int pos) {
    if ((R->used + 1) * 2 > R->cap) {
        size_t ncap = R->cap ? R->cap * 2 : 4096;
        memo_ent *nt = calloc(ncap, sizeof *nt);
        for (size_t i = 0; i < R->cap; i++) {
            if (!R->tab[i].state) continue;
            size_t h = ((size_t)R->tab[i].rule * 2654435761u + (size_t)R->tab[i].pos * 40503u) & (ncap - 1);
            while (nt[h].state) h = (h + 1) & (ncap - 1);
            nt[h] = R->tab[i];
        }
        free(R->tab);
        R->tab = nt;
        R->cap = ncap;
    }
    size_t h = ((size_t)rule * 2654435761u + (size_t)pos * 40503u) & (R->cap - 1);
    while (R->tab[h].state && !(R->tab[h].rule == rule && R->tab[h].pos == pos)) h = (h + 1) & (R->cap - 1);
    return &R->tab[h];
}

static void ends_alt(recog *R, const galt *a, int pos, iset *out);

static void ends_base(recog *R, const gitem *it, int pos, iset *out) {
    switch (it->k) {
    case E_LIT:
        if (pos + it->litn <= R->len && !memcmp(R->s + pos, it->lit, (size_t)it->litn)) {
            iset_add(out, pos + it->litn);
            if (pos + it->litn > R->furthest) R->furthest = pos + it->litn;
        }
        return;
    case E_CLASS: {
        if (pos >= R->len) return;
        unsigned char c = (unsigned char)R->s[pos];
        bool in = false;
        for (int i = 0; i < it->nr && !in; i++) in = c >= it->lo[i] && c <= it->hi[i];
        if (in != it->neg) {
            iset_add(out, pos + 1);
            if (pos + 1 > R->furthest) R->furthest = pos + 1;
        }
        return;
    }
    case E_GROUP: ends_alt(R, it->grp, pos, out); return;
    case E_REF: {
        memo_ent *m = memo_slot(R, it->ref, pos);
        if (m->state == 2) {
            for (int i = 0; i < m->ends.n; i++) iset_add(out, m->ends.v[i]);
            return;
        }
        if (m->state == 1) return;   /* left recursion: checked separately */
        m->rule = it->ref;
        m->pos = pos;
        m->state = 1;
        R->used++;
        iset e = {0};
        ends_alt(R, R->g->rules.v[it->ref].body, pos, &e);
        iset_norm(&e);
        m = memo_slot(R, it->ref, pos);   /* the table may have grown */
        m->ends = e;
        m->state = 2;
        for (int i = 0; i < e.n; i++) iset_add(out, e.v[i]);
        return;
    }
    }
}

static void ends_item(recog *R, const gitem *it, int pos, iset *out) {
    if (it->op == 0) { ends_base(R, it, pos, out); return; }
    if (it->op == '?') { iset_add(out, pos); ends_base(R, it, pos, out); return; }
    /* '*' and '+': closure over repetitions */
    iset seen = {0}, tmp = {0};
    if (it->op == '*') iset_add(&seen, pos);
    else { ends_base(R, it, pos, &seen); iset_norm(&seen); }
    for (int qi = 0; qi < seen.n; qi++) {
        tmp.n = 0;
        ends_base(R, it, seen.v[qi], &tmp);
        for (int i = 0; i < tmp.n; i++)
            if (tmp.v[i] != seen.v[qi] && !iset_has(&seen, tmp.v[i])) iset_add(&seen, tmp.v[i]);
    }
    for (int i = 0; i < seen.n; i++) iset_add(out, seen.v[i]);
    free(seen.v);
    free(tmp.v);
}

static void ends_alt(recog *R, const galt *a, int pos, iset *out) {
    for (int i = 0; i < a->n; i++) {
        const gseq *s = &a->v[i];
        iset cur = {0}, next = {0};
        iset_add(&cur, pos);
        for (int k = 0; k < s->n && cur.n; k++) {
            next.n = 0;
            for (int q = 0; q < cur.n; q++) ends_item(R, &s->v[k], cur.v[q], &next);
            iset_norm(&next);
            iset t = cur; cur = next; next = t;
        }
        for (int q = 0; q < cur.n; q++) iset_add(out, cur.v[q]);
        free(cur.v);
        free(next.v);
    }
}

/* Does rule `start` derive exactly text?  *where = furthest matched byte. */
static bool recognize(const grammar *g, const char *start, const char *text, int *where) {
    int r = -1;
    for (int i = 0; i < g->rules.n; i++) if (!strcmp(g->rules.v[i].name, start)) r = i;
    if (r < 0) return false;
    recog R = {g, text, (int)strlen(text), NULL, 0, 0, 0};
    gitem root;
    memset(&root, 0, sizeof root);
    root.k = E_REF;
    root.ref = r;
    iset e = {0};
    ends_base(&R, &root, 0, &e);
    bool ok = iset_has(&e, R.len);
    if (where) *where = R.furthest;
    free(e.v);
    for (size_t i = 0; i < R.cap; i++) free(R.tab[i].ends.v);
    free(R.tab);
    return ok;
}

/* ---- tests ------------------------------------------------------------------ */
static grammar G;
static char *gtext;

static void line_at(const char *text, int pos, char *buf, size_t n) {
    int a = pos, b = pos;
    while (a > 0 && text[a - 1] != '\n') a--;
    while (text[b] && text[b] != '\n') b++;
    snprintf(buf, n, "%.*s", b - a, text + a);
}

static void test_grammar_shape(void) {
    pg_buf b = {0};
    dec_gbnf_write(&b);
    gtext = b.data;
    CHECK(gtext && b.len > 1000, "grammar is empty (%zu bytes)", b.len);
    if (!gtext) return;
    CHECK(gbnf_parse(gtext, &G), "grammar does not parse: %s", G.err);
    CHECK(G.nrefs_undefined == 0, "%d referenced rules are undefined, e.g. %s", G.nrefs_undefined, G.undefined);
    int bad_names = 0;
    for (int i = 0; i < G.rules.n; i++) {
        for (const char *p = G.rules.v[i].name; *p; p++)
            if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '-')) { bad_names++; break; }
    }
    CHECK(bad_names == 0, "%d rule names use characters other than [a-z0-9-]", bad_names);
    bool has_root = false;
    for (int i = 0; i < G.rules.n; i++) has_root = has_root || !strcmp(G.rules.v[i].name, "root");
    CHECK(has_root, "no root rule");
    const char *lr = left_recursive(&G);
    CHECK(lr == NULL, "rule %s is left-recursive", lr ? lr : "");
    /* determinism: the same bytes twice */
    pg_buf b2 = {0};
    dec_gbnf_write(&b2);
    CHECK(b2.len == b.len && !memcmp(b2.data, b.data, b.len), "two exports differ");
    pg_buf_free(&b2);
    printf("grammar: %zu bytes, %d rules\n", b.len, G.rules.n);

    /* the parser itself rejects broken grammars (so the checks above can fail) */
    grammar t;
    CHECK(!gbnf_parse("root ::= \"a\n", &t), "unterminated literal accepted");
    gbnf_free(&t);
    CHECK(!gbnf_parse("root ::= (\"a\" | \"b\"\n", &t), "unbalanced group accepted");
    gbnf_free(&t);
    CHECK(gbnf_parse("root ::= x \"a\"\nx ::= root | \"b\"\n", &t) && left_recursive(&t), "left recursion not found");
    gbnf_free(&t);
    CHECK(gbnf_parse("root ::= y\n", &t) && t.nrefs_undefined == 1, "undefined rule not found");
    gbnf_free(&t);
}

static void test_golden(void) {
    const char *path = "tests/golden/grammar.gbnf";
    if (getenv("UPDATE_GOLDEN") && !strcmp(getenv("UPDATE_GOLDEN"), "1")) {
        CHECK(pg_write_file_atomic(path, gtext, strlen(gtext), NULL) == PG_OK, "cannot write %s", path);
        return;
    }
    char *want = NULL;
    size_t wn = 0;
    if (pg_read_file(path, 1 << 24, &want, &wn, NULL) != PG_OK) {
        CHECK(false, "cannot read %s (run from the repository root; UPDATE_GOLDEN=1 creates it)", path);
        return;
    }
    int rules_want = 0, rules_got = 0;
    for (const char *p = want; (p = strstr(p, " ::= ")); p++) rules_want++;
    for (const char *p = gtext; (p = strstr(p, " ::= ")); p++) rules_got++;
    CHECK(wn == strlen(gtext) && rules_want == rules_got && !strcmp(want, gtext),
          "grammar differs from %s: %zu vs %zu bytes, %d vs %d rules (UPDATE_GOLDEN=1 to accept)", path,
          strlen(gtext), wn, rules_got, rules_want);
    free(want);
}

/* Print a module canonically; NULL when it does not parse. */
static char *canonical(const char *path) {
    ptx_module *m = NULL;
    pg_diag_sink sink = {0};
    if (ptx_parse_file(path, &m, &sink) != PG_OK) { ptx_module_free(m); return NULL; }
    pg_buf b = {0};
    ptx_print(m, &b);
    ptx_module_free(m);
    return b.data;
}

static char saxpy[1 << 16];

static void test_corpus(void) {
    DIR *d = opendir("corpus");
    CHECK(d != NULL, "cannot open corpus/ (run from the repository root)");
    if (!d) return;
    PG_VEC(char *) names = {0};
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char *n = malloc(strlen(e->d_name) + 1);
        strcpy(n, e->d_name);
        pg_vec_push(names, n);
    }
    closedir(d);
    qsort(names.v, (size_t)names.n, sizeof(char *), (int (*)(const void *, const void *))strcmp);
    int total = 0, accepted = 0;
    for (int i = 0; i < names.n; i++) {
        char path[512];
        snprintf(path, sizeof path, "corpus/%s/kernel.ptx", names.v[i]);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        fclose(f);
        total++;
        char *txt = canonical(path);
        CHECK(txt != NULL, "%s does not parse", path);
        if (!txt) continue;
        int where = 0;
        bool ok = recognize(&G, "root", txt, &where);
        char line[256];
        line_at(txt, where, line, sizeof line);
        CHECK(ok, "%s rejected by the grammar at byte %d: '%s'", path, where, line);
        accepted += ok;
        if (!strcmp(names.v[i], "saxpy")) snprintf(saxpy, sizeof saxpy, "%s", txt);
        free(txt);
    }
    for (int i = 0; i < names.n; i++) free(names.v[i]);
    pg_vec_free(names);
    printf("corpus: %d of %d kernels accepted by the grammar\n", accepted, total);
    CHECK(total >= 50, "only %d corpus kernels found", total);
}

/* Replace the first occurrence of `from` in src by `to` (into out). */
static bool mutate(const char *src, const char *from, const char *to, char *out, size_t n) {
    const char *p = strstr(src, from);
    if (!p) return false;
    snprintf(out, n, "%.*s%s%s", (int)(p - src), src, to, p + strlen(from));
    return true;
}

static void test_malformed(void) {
    CHECK(saxpy[0], "saxpy not printed");
    if (!saxpy[0]) return;
    CHECK(recognize(&G, "root", saxpy, NULL), "saxpy itself rejected");
    /* the provenance comment of generated files is allowed */
    static char buf[1 << 17];
    snprintf(buf, sizeof buf, "// GENERATED_BY: ptxgen test-model\n%s", saxpy);
    CHECK(recognize(&G, "root", buf, NULL), "GENERATED_BY comment rejected");
    struct { const char *what, *from, *to; } cases[] = {
        {"missing ;", "fma.rn.f32 %f4, %f1, %f2, %f3;", "fma.rn.f32 %f4, %f1, %f2, %f3"},
        {"unknown opcode", "fma.rn.f32 %f4", "fmx.rn.f32 %f4"},
        {"bad modifier", "fma.rn.f32 %f4", "fma.rn.f33 %f4"},
        {"modifier of another opcode", "mad.lo.u32", "mad.wide.lo.u32"},
        {"missing required modifier", "fma.rn.f32", "fma.f32"},
        {"too few operands", "fma.rn.f32 %f4, %f1, %f2, %f3;", "fma.rn.f32 %f4, %f1, %f2;"},
        {"too many operands", "add.s64 %rd6, %rd3, %rd5;", "add.s64 %rd6, %rd3, %rd5, %rd5;"},
        {"address where a register goes", "add.s64 %rd6, %rd3, %rd5;", "add.s64 %rd6, [%rd3], %rd5;"},
        {"special register outside mov", "mad.lo.u32 %r5, %r2, %r3, %r4;", "mad.lo.u32 %r5, %tid.x, %r3, %r4;"},
        {"unbalanced braces (missing })", "\tret;\n}\n", "\tret;\n"},
        {"unbalanced braces (extra })", "\tret;\n}\n", "\tret;\n}\n}\n"},
        {"unbalanced braces (extra {)", "{\n\t.reg .pred", "{\n\t{\n\t.reg .pred"},
        {"garbage", "\tret;\n", "\t@@@ ### !!\n\tret;\n"},
        {"missing header", ".target sm_80\n", ""},
        {"bad register declaration", ".reg .b32 %r<6>;", ".reg .b32 %r<>;"},
        {"unterminated param list", "\t.param .u32 n\n)", "\t.param .u32 n\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool m = mutate(saxpy, cases[i].from, cases[i].to, buf, sizeof buf);
        CHECK(m, "mutation '%s' did not apply", cases[i].what);
        if (m) CHECK(!recognize(&G, "root", buf, NULL), "malformed text accepted: %s", cases[i].what);
    }
    CHECK(!recognize(&G, "root", "", NULL), "empty text accepted");
    CHECK(!recognize(&G, "root", "hello world\n", NULL), "garbage text accepted");
}

/* One sample operand for a slot (the first kind it allows). */
static void sample_operand(const isa_opslot *s, pg_buf *b) {
    unsigned k = s->kinds;
    const char *one = (k & ISA_OK_REG) ? "%r1" : (k & ISA_OK_IMM) ? "1" : (k & ISA_OK_ADDR) ? "[%rd1+8]"
                    : (k & (ISA_OK_LABEL | ISA_OK_FUNC | ISA_OK_SYM)) ? "L1" : (k & ISA_OK_SINK) ? "_"
                    : (k & ISA_OK_SPECIAL) ? "%tid.x" : (k & ISA_OK_PAIR) ? "%p1|%p2" : "%r1";
    if (k & ISA_OK_TUPLE) { pg_buf_puts(b, "[%rd1, {%r1, %r2}]"); return; }   /* its arity counts coordinates */
    int n = s->arity > 1 ? s->arity : (s->arity == -1 ? 2 : 1);
    if (n == 1 && !s->vec1) { pg_buf_puts(b, one); return; }
    pg_buf_putc(b, '{');
    for (int i = 0; i < n; i++) pg_buf_printf(b, "%s%%r%d", i ? ", " : "", i + 1);
    pg_buf_putc(b, '}');
}

static void test_every_form(void) {
    int tried = 0, ok = 0;
    for (int i = 0; i < isa_form_count(); i++) {
        const isa_form *f = isa_form_get(i);
        if (f->call_syntax) continue;
        pg_buf b = {0};
        pg_buf_puts(&b, f->opcode);
        for (int s = 0; s < f->nmods; s++)
            if (!f->mods[s].optional) pg_buf_puts(&b, f->mods[s].alts[0]);
        for (int o = 0; o < f->nops_min; o++) {
            pg_buf_puts(&b, o ? ", " : " ");
            sample_operand(&f->ops[o], &b);
        }
        tried++;
        bool acc = recognize(&G, "insn", b.data, NULL);
        ok += acc;
        CHECK(acc, "form %d (%s %s | %s) sample '%s' rejected", i, f->opcode, f->mod_pattern, f->op_pattern, b.data);
        /* a modifier no form has must be rejected right after the opcode */
        pg_buf bad = {0};
        pg_buf_printf(&bad, "%s.zzz%s", f->opcode, b.data + strlen(f->opcode));
        CHECK(!recognize(&G, "insn", bad.data, NULL), "'%s' accepted", bad.data);
        pg_buf_free(&bad);
        pg_buf_free(&b);
    }
    printf("ISA forms: %d of %d sample instructions accepted\n", ok, tried);
}

int main(void) {
    pg_diag_sink sink = {0};
    CHECK(isa_init(&sink) == PG_OK, "isa_init failed");
    test_grammar_shape();
    if (gtext && G.rules.n) {
        test_golden();
        test_corpus();
        test_malformed();
        test_every_form();
    }
    gbnf_free(&G);
    free(gtext);
    return TEST_DONE();
}
