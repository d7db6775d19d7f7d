/* prompt.c — the prompt format shared by training (`ptxgen prompts`), `ptxgen
 * gen` and `ptxgen eval`, entry signatures from task specs and Markdown kernel
 * cards.  One implementation, so the three can never drift apart. */
#include "ptxgen/decode.h"
#include "ptxgen/isa.h"

#include <ctype.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gen_prompt_fmt_name(gen_prompt_fmt f) { return f == GEN_FMT_CHATML ? "chatml" : "ptxgen"; }

bool gen_prompt_fmt_parse(const char *name, gen_prompt_fmt *f) {
    if (name && !strcmp(name, "ptxgen")) { *f = GEN_FMT_PTXGEN; return true; }
    if (name && !strcmp(name, "chatml")) { *f = GEN_FMT_CHATML; return true; }
    return false;
}

gen_prompt_fmt gen_prompt_fmt_of(const tok_tokenizer *t) {
    return tok_special_id(t, GEN_TOK_TASK) < 0 && tok_special_id(t, GEN_TOK_IM_START) >= 0 ? GEN_FMT_CHATML : GEN_FMT_PTXGEN;
}

const char *gen_end_token(gen_prompt_fmt f) { return f == GEN_FMT_CHATML ? GEN_TOK_IM_END : GEN_TOK_END; }

/* Free text without trailing whitespace, so "card\n" and "card" prompt identically. */
static void put_trimmed(pg_buf *out, const char *s) {
    size_t n = s ? strlen(s) : 0;
    while (n && isspace((unsigned char)s[n - 1])) n--;
    if (n) pg_buf_putn(out, s, n);
}

static void chatml(const char *request, const char *intro, const char *arch, const char *signature, pg_buf *out) {
    pg_buf_puts(out, GEN_TOK_IM_START "system\n" GEN_SYSTEM_PROMPT GEN_TOK_IM_END "\n" GEN_TOK_IM_START "user\n");
    if (intro) pg_buf_puts(out, intro);
    put_trimmed(out, request);
    pg_buf_printf(out, "\n\nTarget: %s\n", arch && *arch ? arch : "sm_80");
    if (signature && *signature) pg_buf_printf(out, "Signature:\n%s", signature);
    else pg_buf_puts(out, "Signature: not given; write the entry's parameters yourself.");
    pg_buf_puts(out, GEN_TOK_IM_END "\n" GEN_TOK_IM_START "assistant\n");
}

void gen_prompt_build_fmt(gen_prompt_fmt f, const char *description, const char *arch, const char *signature, pg_buf *out) {
    if (f == GEN_FMT_CHATML) { chatml(description, NULL, arch, signature, out); return; }
    pg_buf_puts(out, GEN_TOK_TASK);
    put_trimmed(out, description);
    pg_buf_printf(out, "\n" GEN_TOK_ARCH "%s\n" GEN_TOK_SIGNATURE "%s\n" GEN_TOK_PTX, arch && *arch ? arch : "sm_80",
                  signature ? signature : "");
}

void gen_prompt_build(const char *description, const char *arch, const char *signature, pg_buf *out) {
    gen_prompt_build_fmt(GEN_FMT_PTXGEN, description, arch, signature, out);
}

void gen_prompt_build_superopt_fmt(gen_prompt_fmt f, const char *baseline_ptx, const char *arch, const char *signature, pg_buf *out) {
    if (f == GEN_FMT_CHATML) {
        chatml(baseline_ptx, "Rewrite this PTX (nvcc's) into a faster kernel that computes exactly the same thing:\n\n", arch,
               signature, out);
        return;
    }
    pg_buf_puts(out, GEN_TOK_BASELINE);
    put_trimmed(out, baseline_ptx);
    pg_buf_printf(out, "\n" GEN_TOK_ARCH "%s\n" GEN_TOK_SIGNATURE "%s\n" GEN_TOK_PTX, arch && *arch ? arch : "sm_80",
                  signature ? signature : "");
}

void gen_prompt_build_superopt(const char *baseline_ptx, const char *arch, const char *signature, pg_buf *out) {
    gen_prompt_build_superopt_fmt(GEN_FMT_PTXGEN, baseline_ptx, arch, signature, out);
}

void gen_prompt_build_twin_fmt(gen_prompt_fmt f, const char *description, const char *arch, const char *signature,
                               const char *ptx, pg_buf *out) {
    gen_prompt_build_fmt(f, description, arch, signature, out);
    put_trimmed(out, ptx);
    pg_buf_puts(out, "\n");
    pg_buf_puts(out, gen_end_token(f));
    if (f == GEN_FMT_CHATML) pg_buf_puts(out, "\n" GEN_TOK_IM_START "user\n" GEN_TWIN_REQUEST GEN_TOK_IM_END "\n" GEN_TOK_IM_START "assistant\n");
    else pg_buf_puts(out, "\n" GEN_TOK_TASK GEN_TWIN_REQUEST "\n");
}

/* The canonical printer's parameter list (src/ptx/print.c print_params). */
static void sig_open(pg_buf *out, const char *name) { pg_buf_printf(out, ".visible .entry %s(", name); }
static void sig_param(pg_buf *out, int i, const char *type, const char *name) {
    pg_buf_printf(out, "%s.param .%s %s", i ? ",\n\t" : "\n\t", type, name);
}
static void sig_close(pg_buf *out, int n) { pg_buf_puts(out, n ? "\n)" : ")"); }

void gen_signature_from_task(const task_spec *t, pg_buf *out) {
    sig_open(out, t->kernel);
    for (int i = 0; i < t->nparams; i++) {
        const task_param *p = &t->params[i];
        sig_param(out, i, p->is_pointer ? "u64" : task_dtype_name(p->dtype), p->name);
    }
    sig_close(out, t->nparams);
}

bool gen_signature_from_module(const char *canonical_ptx, pg_buf *out) {
    /* the first line starting an entry, up to the ')' closing its params */
    const char *p = canonical_ptx;
    while (p && *p) {
        if (!strncmp(p, ".visible .entry ", 16) || !strncmp(p, ".entry ", 7)) break;
        p = strchr(p, '\n');
        if (p) p++;
    }
    if (!p || !*p) return false;
    const char *open = strchr(p, '('), *nl = strchr(p, '\n');
    if (!open || (nl && nl < open)) {   /* `.entry k` without a parameter list */
        pg_buf_putn(out, p, nl ? (size_t)(nl - p) : strlen(p));
        return true;
    }
    const char *close = strchr(open, ')');
    if (!close) return false;
    pg_buf_putn(out, p, (size_t)(close - p + 1));
    return true;
}

/* ---- Markdown kernel cards ---------------------------------------------------- */

static char *trim_dup(const char *s, size_t n) {
    while (n && isspace((unsigned char)*s)) s++, n--;
    while (n && isspace((unsigned char)s[n - 1])) n--;
    char *r = malloc(n + 1);
    memcpy(r, s, n);
    r[n] = 0;
    return r;
}

static void append_field(char **f, const char *s, size_t n) {
    char *v = trim_dup(s, n);
    if (!*f) { *f = v; return; }
    size_t a = strlen(*f), b = strlen(v);
    *f = realloc(*f, a + b + 3);
    memcpy(*f + a, "; ", 2);
    memcpy(*f + a + 2, v, b + 1);
    free(v);
}

void gen_card_parse(const char *text, gen_card *c) {
    memset(c, 0, sizeof *c);
    bool any_key = false;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        const char *s = line;
        while (n && (*s == ' ' || *s == '\t')) s++, n--;
        if (n > 3 && !strncmp(s, "## ", 3) && !c->name) {
            c->name = trim_dup(s + 3, n - 3);
        } else if (n > 2 && (s[0] == '-' || s[0] == '*') && s[1] == ' ') {
            const char *colon = memchr(s, ':', n);
            if (colon) {
                size_t kn = (size_t)(colon - s - 2);
                const char *k = s + 2, *v = colon + 1;
                size_t vn = n - (size_t)(v - s);
                char **f = NULL;
                struct { const char *key; char **field; } keys[] = {
                    {"input", &c->inputs},        {"inputs", &c->inputs},     {"in/out", &c->inouts},
                    {"inout", &c->inouts},        {"output", &c->outputs},    {"outputs", &c->outputs},
                    {"goal", &c->goal},           {"constraint", &c->constraints}, {"constraints", &c->constraints},
                    {"launch", &c->launch},       {"notes", &c->constraints}, {"technique", &c->constraints},
                };
                for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
                    if (strlen(keys[i].key) == kn && !strncasecmp(k, keys[i].key, kn)) f = keys[i].field;
                if (f) { append_field(f, v, vn); any_key = true; }
            }
        }
        line = end ? end + 1 : NULL;
    }
    c->ok = c->name && *c->name && any_key;
}

void gen_card_free(gen_card *c) {
    free(c->name); free(c->inputs); free(c->outputs); free(c->inouts);
    free(c->goal); free(c->constraints); free(c->launch);
    memset(c, 0, sizeof *c);
}

/* C type words -> PTX parameter types of a scalar (pointers are always .u64). */
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

typedef struct { char name[64]; char type[8]; bool ptr; } card_param;
typedef PG_VEC(card_param) card_params;

static bool has_param(const card_params *v, const char *name) {
    for (int i = 0; i < v->n; i++) if (!strcmp(v->v[i].name, name)) return true;
    return false;
}

/* Match a C type at s (whole words); returns its length and the PTX type. */
static size_t match_ctype(const char *s, const char **ptx) {
    for (size_t i = 0; i < sizeof ctypes / sizeof ctypes[0]; i++) {
        size_t n = strlen(ctypes[i].c);
        if (!strncmp(s, ctypes[i].c, n) && !ident_char((unsigned char)s[n])) {
            *ptx = ctypes[i].ptx;
            return n;
        }
    }
    return 0;
}

/* Identifiers that name sizes inside "(...)" after a pointer: the first word,
 * and words joined to another by an operator ("rows*cols", "M x K"). */
static void collect_sizes(const char *s, size_t n, card_params *sizes) {
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
            if (!is_x && (first || after_op || before_op) && len < 64) {
                card_param cp = {{0}, "u32", false};
                memcpy(cp.name, p, len);
                if (!has_param(sizes, cp.name)) pg_vec_push(*sizes, cp);
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

/* Scan one field for "TYPE[*] a, b" items and "(size)" groups. */
static void scan_field(const char *f, card_params *ptrs, card_params *scalars, card_params *sizes) {
    if (!f) return;
    for (const char *p = f; *p;) {
        const char *ptx = NULL;
        size_t tl = (p == f || !ident_char((unsigned char)p[-1])) ? match_ctype(p, &ptx) : 0;
        if (!tl) { p++; continue; }
        const char *q = p + tl;
        while (*q == ' ') q++;
        bool ptr = false;
        while (*q == '*') { ptr = true; q++; }
        for (;;) {
            while (*q == ' ') q++;
            if (!ident_start((unsigned char)*q)) break;
            const char *a = q;
            while (ident_char((unsigned char)*q)) q++;
            card_param cp = {{0}, {0}, ptr};
            size_t len = (size_t)(q - a) < 63 ? (size_t)(q - a) : 63;
            memcpy(cp.name, a, len);
            snprintf(cp.type, sizeof cp.type, "%s", ptr ? "u64" : ptx);
            if (!has_param(ptrs, cp.name) && !has_param(scalars, cp.name)) pg_vec_push(*(ptr ? ptrs : scalars), cp);
            const char *r = q;
            while (*r == ' ') r++;
            if (*r == ',' && (r[1] == ' ' || ident_start((unsigned char)r[1]))) {
                const char *t = r + 1, *dummy;
                while (*t == ' ') t++;
                if (match_ctype(t, &dummy)) break;   /* "float* x, int n": a new typed item */
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
            if (close) collect_sizes(r + 1, (size_t)(close - r - 1), sizes);
        }
        p = q > p ? q : p + 1;
    }
}

bool gen_signature_from_card(const gen_card *c, pg_buf *out, char *why, size_t whyn) {
    if (!c->ok) { snprintf(why, whyn, "not a kernel card (needs a '## name' line and '- Input:'-style lines)"); return false; }
    char name[64];
    size_t k = 0;
    for (const char *p = c->name; *p && k < sizeof name - 1; p++)
        if (ident_char((unsigned char)*p)) name[k++] = *p;
        else if (k && name[k - 1] != '_') name[k++] = '_';
    while (k && name[k - 1] == '_') k--;
    name[k] = 0;
    if (!k || !ident_start((unsigned char)name[0])) {
        snprintf(why, whyn, "card name '%s' gives no PTX identifier", c->name);
        return false;
    }
    card_params ptrs = {0}, scalars = {0}, sizes = {0};
    scan_field(c->inputs, &ptrs, &scalars, &sizes);
    scan_field(c->inouts, &ptrs, &scalars, &sizes);
    scan_field(c->outputs, &ptrs, &scalars, &sizes);
    bool ok = ptrs.n > 0;
    if (!ok) snprintf(why, whyn, "no typed pointer parameter ('float* x (n)') in the card's Input/Output lines");
    else {
        /* pointers in order of appearance, then scalars, then size symbols not declared */
        int n = 0;
        sig_open(out, name);
        for (int i = 0; i < ptrs.n; i++) sig_param(out, n++, ptrs.v[i].type, ptrs.v[i].name);
        for (int i = 0; i < scalars.n; i++) sig_param(out, n++, scalars.v[i].type, scalars.v[i].name);
        for (int i = 0; i < sizes.n; i++)
            if (!has_param(&ptrs, sizes.v[i].name) && !has_param(&scalars, sizes.v[i].name))
                sig_param(out, n++, "u32", sizes.v[i].name);
        sig_close(out, n);
    }
    pg_vec_free(ptrs); pg_vec_free(scalars); pg_vec_free(sizes);
    return ok;
}

int gen_header_ptx_version(const char *arch) {
    int sm = 80;
    bool a = false, f = false;
    if (!arch || !isa_parse_target(arch, &sm, &a, &f)) sm = 80;
    int v = isa_target_min_ptx(sm);
    return v < 80 ? 80 : v;   /* 8.0: what every hand-written corpus kernel declares */
}

void gen_header_text(const char *arch, pg_buf *out) {
    int sm = 80;
    bool a = false, f = false;
    if (!arch || !isa_parse_target(arch, &sm, &a, &f)) arch = "sm_80";
    int v = gen_header_ptx_version(arch);
    pg_buf_printf(out, ".version %d.%d\n.target %s\n.address_size 64\n\n", v / 10, v % 10, arch);
}
