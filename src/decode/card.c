/* card.c — Markdown kernel cards: the one parser, for `ptxgen gen` and (through
 * libptxgen.so and ctypes, gen_card_json) the Python package and its %%ptxgen magic.
 *
 *   ## lj_energy
 *   - Input: `float3* positions` (N atoms), `float cutoff_sq = 100.0f`
 *   - Output: `float* energies` (N)
 *   - Goal: for each atom i, sum the Lennard-Jones energy over atoms j within the cutoff
 *   - Launch: 256 threads per block, `cdiv(N,256)` blocks
 *
 * Cards pasted from prose often arrive on one line ("## k - Input: ... - Output: ...");
 * they are normalized to one "- Key:" per line first.  The signature: pointers in
 * order of appearance (Input, In/out, Output), then typed scalars, then the size
 * symbols found in parentheses ("(N atoms)" -> N) that were not declared, as .u32.
 * Pointers are .u64; float -> .f32, double -> .f64, int -> .s32, unsigned -> .u32,
 * size_t/long/int64 -> .u64/.s64, half -> .b16. */
#include "ptxgen/decode.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Field keys (case-insensitive) -> field; longer spellings first where one is a prefix. */
static const struct { const char *key; int field; } keys[] = {
    {"inputs", 0}, {"input", 0}, {"in/out", 2}, {"inout", 2}, {"outputs", 1}, {"output", 1}, {"goal", 3},
    {"constraints", 4}, {"constraint", 4}, {"launch", 5}, {"notes", 4}, {"technique", 4},
};
#define NKEYS (sizeof keys / sizeof keys[0])

static char **field_ptr(gen_card *c, int f) {
    char **fs[] = {&c->inputs, &c->outputs, &c->inouts, &c->goal, &c->constraints, &c->launch};
    return fs[f];
}

/* The key spelled at s (followed by optional blanks and ':'): its length, or 0. */
static size_t key_at(const char *s, int *field) {
    for (size_t i = 0; i < NKEYS; i++) {
        size_t n = strlen(keys[i].key);
        if (strncasecmp(s, keys[i].key, n)) continue;
        const char *p = s + n;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == ':') { if (field) *field = keys[i].field; return n; }
    }
    return 0;
}

/* One "- Key: value" per line: an inline " - Key:" / " * Key:" (blank, bullet, blank,
 * a known key, ':') starts a new line.  Lines right-trimmed, the whole trimmed, one '\n' at the end. */
static void normalize(const char *text, pg_buf *out) {
    pg_buf raw = {0};
    for (const char *p = text; *p; p++) {
        if ((*p == ' ' || *p == '\t') && p > text && p[-1] != '\n') {
            const char *q = p;
            while (*q == ' ' || *q == '\t') q++;
            if ((*q == '-' || *q == '*') && (q[1] == ' ' || q[1] == '\t')) {
                const char *k = q + 1;
                while (*k == ' ' || *k == '\t') k++;
                if (key_at(k, NULL)) {
                    pg_buf_puts(&raw, "\n- ");
                    p = k - 1;
                    continue;
                }
            }
        }
        pg_buf_putc(&raw, *p);
    }
    /* right-trim every line, then trim the whole */
    pg_buf_puts(&raw, "");
    pg_buf lines = {0};
    for (const char *l = raw.data; l && *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l);
        while (n && isspace((unsigned char)l[n - 1])) n--;
        pg_buf_putn(&lines, l, n);
        pg_buf_putc(&lines, '\n');
        l = e ? e + 1 : NULL;
    }
    const char *s = lines.data ? lines.data : "";
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) n--;
    pg_buf_putn(out, s, n);
    pg_buf_putc(out, '\n');
    pg_buf_free(&raw);
    pg_buf_free(&lines);
}

static char *trim_dup(const char *s, size_t n) {
    while (n && isspace((unsigned char)*s)) s++, n--;
    while (n && isspace((unsigned char)s[n - 1])) n--;
    char *r = malloc(n + 1);
    if (!r) return NULL;
    memcpy(r, s, n);
    r[n] = 0;
    return r;
}

static void append_field(char **f, const char *s, size_t n) {
    char *v = trim_dup(s, n);
    if (!v) return;
    if (!*f) { *f = v; return; }
    size_t a = strlen(*f), b = strlen(v);
    char *g = realloc(*f, a + b + 3);
    if (!g) { free(v); return; }
    memcpy(g + a, "; ", 2);
    memcpy(g + a + 2, v, b + 1);
    *f = g;
    free(v);
}

/* ---- parameters ----------------------------------------------------------------- */

/* C type words -> PTX parameter types of a scalar (pointers are always .u64); longer spellings first. */
static const struct { const char *c, *ptx; } ctypes[] = {
    {"unsigned long long", "u64"}, {"unsigned long", "u64"}, {"long long", "s64"}, {"unsigned char", "u8"},
    {"unsigned short", "u16"}, {"unsigned int", "u32"}, {"unsigned", "u32"},
    {"uint64_t", "u64"}, {"int64_t", "s64"}, {"size_t", "u64"}, {"uint32_t", "u32"}, {"int32_t", "s32"},
    {"uint16_t", "u16"}, {"int16_t", "s16"}, {"uint8_t", "u8"}, {"int8_t", "s8"},
    {"long", "s64"}, {"short", "s16"}, {"char", "s8"}, {"int", "s32"}, {"bool", "u8"},
    {"double2", "f64"}, {"double", "f64"}, {"float4", "f32"}, {"float3", "f32"}, {"float2", "f32"}, {"float", "f32"},
    {"__half2", "b32"}, {"__half", "b16"}, {"half2", "b32"}, {"half", "b16"}, {"__nv_bfloat16", "b16"},
    {"bfloat16", "b16"}, {"bf16", "b16"}, {"f64", "f64"}, {"f32", "f32"}, {"f16", "b16"},
    {"u64", "u64"}, {"s64", "s64"}, {"u32", "u32"}, {"s32", "s32"}, {"u8", "u8"}, {"i32", "s32"}, {"i64", "s64"},
};

static bool ident_start(int ch) { return isalpha(ch) || ch == '_'; }
static bool ident_char(int ch) { return isalnum(ch) || ch == '_'; }

/* A C type at s (whole words): its index in ctypes, or -1. */
static int match_ctype(const char *s) {
    for (size_t i = 0; i < sizeof ctypes / sizeof ctypes[0]; i++) {
        size_t n = strlen(ctypes[i].c);
        if (!strncmp(s, ctypes[i].c, n) && !ident_char((unsigned char)s[n])) return (int)i;
    }
    return -1;
}

typedef PG_VEC(gen_card_param) param_vec;
typedef PG_VEC(char *) str_vec;

static bool has_name(const param_vec *v, const char *name) {
    for (int i = 0; i < v->n; i++) if (!strcmp(v->v[i].name, name)) return true;
    return false;
}
static bool has_str(const str_vec *v, const char *s, size_t n) {
    for (int i = 0; i < v->n; i++) if (strlen(v->v[i]) == n && !strncmp(v->v[i], s, n)) return true;
    return false;
}

/* Identifiers that name sizes inside "(...)" after a pointer: the first word, and words
 * joined to another by an operator ("rows*cols", "M x K"); up to the first ','. */
static void collect_sizes(const char *s, size_t n, str_vec *sizes) {
    const char *comma = memchr(s, ',', n);
    if (comma) n = (size_t)(comma - s);
    const char *e = s + n;
    bool first = true, after_op = false;
    for (const char *p = s; p < e;) {
        if (ident_start((unsigned char)*p)) {
            const char *q = p;
            while (q < e && ident_char((unsigned char)*q)) q++;
            size_t len = (size_t)(q - p);
            bool is_x = len == 1 && *p == 'x';
            const char *r = q;
            while (r < e && *r == ' ') r++;
            bool before_op = r < e && strchr("*+-/x", *r) && !(r + 1 < e && ident_char((unsigned char)r[1]) && *r == 'x');
            if (!is_x && (first || after_op || before_op) && len < 64 && !has_str(sizes, p, len)) {
                char *w = trim_dup(p, len);
                if (w) pg_vec_push(*sizes, w);
            }
            after_op = is_x;
            first = false;
            p = q;
        } else {
            if (strchr("*+-/", *p)) after_op = true;
            else if (!isspace((unsigned char)*p)) { after_op = false; first = false; }
            p++;
        }
    }
}

/* "(N atoms)" -> "N", "(N*3)" -> "N*3", "(M x K)" -> "M*K": the size symbols, numbers and
 * operators of the parenthesised text up to its first ',' or the first other word. */
static void size_expr(const char *s, size_t n, const str_vec *sizes, char *out, size_t on) {
    const char *comma = memchr(s, ',', n);
    if (comma) n = (size_t)(comma - s);
    const char *e = s + n;
    char buf[256] = "";
    size_t bl = 0;
    for (const char *p = s; p < e;) {
        const char *tok = p;
        size_t tl = 0;
        bool keep = false, times = false;
        if (ident_start((unsigned char)*p)) {
            while (p < e && ident_char((unsigned char)*p)) p++;
            tl = (size_t)(p - tok);
            if (tl == 1 && *tok == 'x') times = true;
            else if (has_str(sizes, tok, tl)) keep = true;
            else break;   /* prose ends the expression */
        } else if (isdigit((unsigned char)*p)) {
            while (p < e && isdigit((unsigned char)*p)) p++;
            tl = (size_t)(p - tok);
            keep = true;
        } else if (strchr("*+-/()", *p)) {
            tl = 1;
            p++;
            keep = true;
        } else {
            p++;
            continue;
        }
        if (times) { tok = "*"; tl = 1; keep = true; }
        if (keep && bl + tl < sizeof buf) { memcpy(buf + bl, tok, tl); bl += tl; buf[bl] = 0; }
    }
    while (bl && strchr("+-/*(", buf[bl - 1])) buf[--bl] = 0;
    size_t st = 0;
    while (st < bl && strchr("+-/*)", buf[st])) st++;
    int depth = 0;
    for (size_t i = st; i < bl; i++) depth += buf[i] == '(' ? 1 : buf[i] == ')' ? -1 : 0;
    if (depth) snprintf(out, on, "%s", sizes->n ? sizes->v[0] : "");
    else snprintf(out, on, "%s", buf + st);
}

/* Scan one field for "TYPE[*] a, b" items, their "= default" and a "(size)" group. */
static void scan_field(const char *f, const char *role, param_vec *ptrs, param_vec *scalars, str_vec *sizes) {
    if (!f) return;
    for (const char *p = f; *p;) {
        int ti = (p == f || !ident_char((unsigned char)p[-1])) ? match_ctype(p) : -1;
        if (ti < 0) { p++; continue; }
        const char *q = p + strlen(ctypes[ti].c);
        while (*q == ' ') q++;
        bool ptr = false;
        while (*q == '*') { ptr = true; q++; }
        int first_new = ptrs->n;   /* pointers of this item get the size that follows it */
        for (;;) {
            while (*q == ' ') q++;
            if (!ident_start((unsigned char)*q)) break;
            const char *a = q;
            while (ident_char((unsigned char)*q)) q++;
            gen_card_param cp;
            memset(&cp, 0, sizeof cp);
            size_t len = (size_t)(q - a) < sizeof cp.name - 1 ? (size_t)(q - a) : sizeof cp.name - 1;
            memcpy(cp.name, a, len);
            snprintf(cp.ptx_type, sizeof cp.ptx_type, "%s", ptr ? "u64" : ctypes[ti].ptx);
            snprintf(cp.ctype, sizeof cp.ctype, "%s", ctypes[ti].c);
            snprintf(cp.role, sizeof cp.role, "%s", role);
            cp.pointer = ptr;
            if (!ptr) {   /* "= 100.0f" -> "100.0" */
                const char *d = q;
                while (*d == ' ' || *d == '\t') d++;
                if (*d == '=') {
                    d++;
                    while (*d == ' ' || *d == '\t') d++;
                    size_t dl = strspn(d, "-+0123456789.eE");
                    if (dl && dl < sizeof cp.def) memcpy(cp.def, d, dl);
                }
            }
            if (!has_name(ptrs, cp.name) && !has_name(scalars, cp.name)) pg_vec_push(*(ptr ? ptrs : scalars), cp);
            const char *r = q;
            while (*r == ' ') r++;
            if (*r == ',' && (r[1] == ' ' || ident_start((unsigned char)r[1]))) {
                const char *t = r + 1;
                while (*t == ' ') t++;
                if (match_ctype(t) >= 0) break;   /* "float* x, int n": a new typed item */
                q = r + 1;
                continue;
            }
            break;
        }
        /* a size in parentheses right after the item (past a closing backtick) */
        const char *r = q;
        while (*r == '`' || *r == ' ') r++;
        if (*r == '(') {
            const char *close = strchr(r, ')');
            if (close) {
                collect_sizes(r + 1, (size_t)(close - r - 1), sizes);
                char ex[128];
                size_expr(r + 1, (size_t)(close - r - 1), sizes, ex, sizeof ex);
                for (int i = first_new; i < ptrs->n; i++) snprintf(ptrs->v[i].size, sizeof ptrs->v[i].size, "%s", ex);
            }
        }
        p = q > p ? q : p + 1;
    }
}

bool gen_card_kernel_name(const char *name, char *out, size_t n) {
    size_t k = 0;
    if (!n) return false;
    for (const char *p = name ? name : ""; *p && k + 1 < n; p++)
        if (ident_char((unsigned char)*p)) out[k++] = *p;
        else if (k && out[k - 1] != '_') out[k++] = '_';
    while (k && out[k - 1] == '_') k--;
    out[k] = 0;
    return k && ident_start((unsigned char)out[0]);
}

void gen_card_parse(const char *text, gen_card *c) {
    memset(c, 0, sizeof *c);
    pg_buf norm = {0};
    normalize(text ? text : "", &norm);
    c->text = norm.data;
    bool any_key = false;
    for (const char *line = c->text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        const char *s = line;
        while (n && (*s == ' ' || *s == '\t')) s++, n--;
        if (n > 3 && !strncmp(s, "## ", 3) && !c->name) {
            c->name = trim_dup(s + 3, n - 3);
        } else if (n > 2 && (s[0] == '-' || s[0] == '*') && s[1] == ' ') {
            const char *colon = memchr(s, ':', n);
            int f = -1;
            for (size_t i = 0; colon && i < NKEYS && f < 0; i++)
                if (strlen(keys[i].key) == (size_t)(colon - s - 2) && !strncasecmp(s + 2, keys[i].key, (size_t)(colon - s - 2)))
                    f = keys[i].field;
            if (f >= 0) {
                append_field(field_ptr(c, f), colon + 1, n - (size_t)(colon + 1 - s));
                any_key = true;
            }
        }
        line = end ? end + 1 : NULL;
    }
    c->ok = c->name && *c->name && any_key;
    if (!c->ok) {
        snprintf(c->error, sizeof c->error, "not a kernel card (needs a '## name' line and '- Input:'-style lines)");
        return;
    }
    if (!gen_card_kernel_name(c->name, c->kernel, sizeof c->kernel))
        snprintf(c->error, sizeof c->error, "card name '%.100s' gives no PTX identifier", c->name);
    param_vec ptrs = {0}, scalars = {0};
    str_vec sizes = {0};
    scan_field(c->inputs, "in", &ptrs, &scalars, &sizes);
    scan_field(c->inouts, "inout", &ptrs, &scalars, &sizes);
    scan_field(c->outputs, "out", &ptrs, &scalars, &sizes);
    if (!ptrs.n && !c->error[0])
        snprintf(c->error, sizeof c->error, "no typed pointer parameter ('float* x (n)') in the card's Input/Output lines");
    /* pointers in order of appearance, then scalars, then size symbols not declared */
    for (int i = 0; i < scalars.n; i++) pg_vec_push(ptrs, scalars.v[i]);
    for (int i = 0; i < sizes.n; i++) {
        if (has_name(&ptrs, sizes.v[i])) continue;
        gen_card_param cp;
        memset(&cp, 0, sizeof cp);
        snprintf(cp.name, sizeof cp.name, "%s", sizes.v[i]);
        snprintf(cp.ptx_type, sizeof cp.ptx_type, "u32");
        snprintf(cp.role, sizeof cp.role, "size");
        pg_vec_push(ptrs, cp);
    }
    for (int i = 0; i < ptrs.n; i++)   /* a pointer without its own size: the first size symbol */
        if (ptrs.v[i].pointer && !ptrs.v[i].size[0] && sizes.n) snprintf(ptrs.v[i].size, sizeof ptrs.v[i].size, "%s", sizes.v[0]);
    c->params = ptrs.v;
    c->nparams = ptrs.n;
    c->sizes = sizes.v;
    c->nsizes = sizes.n;
    pg_vec_free(scalars);
}

void gen_card_free(gen_card *c) {
    free(c->name); free(c->inputs); free(c->outputs); free(c->inouts);
    free(c->goal); free(c->constraints); free(c->launch);
    free(c->params);
    for (int i = 0; i < c->nsizes; i++) free(c->sizes[i]);
    free(c->sizes);
    free(c->text);
    memset(c, 0, sizeof *c);
}

bool gen_signature_from_card(const gen_card *c, pg_buf *out, char *why, size_t whyn) {
    if (!c->ok || c->error[0]) {
        snprintf(why, whyn, "%s", c->error[0] ? c->error : "not a kernel card");
        return false;
    }
    /* the canonical printer's parameter list (src/ptx/print.c print_params) */
    pg_buf_printf(out, ".visible .entry %s(", c->kernel);
    for (int i = 0; i < c->nparams; i++)
        pg_buf_printf(out, "%s.param .%s %s", i ? ",\n\t" : "\n\t", c->params[i].ptx_type, c->params[i].name);
    pg_buf_puts(out, c->nparams ? "\n)" : ")");
    return true;
}

static json_t *str_or_null(const char *s) { return s ? json_string(s) : json_null(); }

bool gen_card_json(const char *text, pg_buf *out) {
    gen_card c;
    gen_card_parse(text, &c);
    pg_buf sig = {0};
    char why[256] = "";
    bool ok = gen_signature_from_card(&c, &sig, why, sizeof why);
    json_t *j = json_object();
    json_object_set_new(j, "ok", json_boolean(ok));
    json_object_set_new(j, "error", ok ? json_null() : json_string(why));
    json_object_set_new(j, "name", str_or_null(c.name));
    json_object_set_new(j, "kernel", c.kernel[0] ? json_string(c.kernel) : json_null());
    const char *fnames[] = {"inputs", "outputs", "inouts", "goal", "constraints", "launch"};
    json_t *fields = json_object();
    for (int f = 0; f < 6; f++) json_object_set_new(fields, fnames[f], json_string(*field_ptr(&c, f) ? *field_ptr(&c, f) : ""));
    json_object_set_new(j, "fields", fields);
    json_t *ps = json_array();
    for (int i = 0; i < c.nparams; i++) {
        const gen_card_param *p = &c.params[i];
        json_t *o = json_pack("{s:s, s:s, s:s, s:b, s:s}", "name", p->name, "ptx_type", p->ptx_type, "ctype", p->ctype,
                              "pointer", p->pointer, "role", p->role);
        json_object_set_new(o, "size", p->size[0] ? json_string(p->size) : json_null());
        json_object_set_new(o, "default", p->def[0] ? json_string(p->def) : json_null());
        json_array_append_new(ps, o);
    }
    json_object_set_new(j, "params", ps);
    json_t *sz = json_array();
    for (int i = 0; i < c.nsizes; i++) json_array_append_new(sz, json_string(c.sizes[i]));
    json_object_set_new(j, "sizes", sz);
    json_object_set_new(j, "text", str_or_null(c.text));
    json_object_set_new(j, "signature", ok ? json_string(sig.data) : json_null());
    char *s = json_dumps(j, JSON_COMPACT);
    bool done = s != NULL;
    if (s) pg_buf_puts(out, s);
    free(s);
    json_decref(j);
    pg_buf_free(&sig);
    gen_card_free(&c);
    return done;
}
