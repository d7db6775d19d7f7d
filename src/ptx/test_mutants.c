/* test_mutants.c — mutation test of the validator (property 2):
 *
 *   "on PTX that ptxas rejects, `ptxgen check` rejects it and points at the
 *    offending line in >= 95% of cases", measured per mutation class.
 *
 * usage: test_mutants [--max-per-class N] [--seed S] [--jobs J] [--json OUT.json]
 *                     [--keep DIR] FILE.ptx...
 *
 * Every input must be valid PTX (nvcc output).  For each input and each
 * mutation class, the candidate sites (lines) are enumerated and shuffled with
 * a seeded PRNG; each site gives exactly one mutant (one line changed, inserted
 * or blanked).  Per class, mutants are drawn round-robin across the files (file
 * order shuffled per class) until --max-per-class mutants were kept or
 * 3 x --max-per-class were tried.  A mutant is kept only when ptxas rejects it;
 * then the validator runs in-process (ptx_parse + ptx_validate, in a forked
 * child so that a crash or hang is recorded instead of ending the run) and the
 * mutant counts as
 *   detected:  some error diagnostic;
 *   localized: an error diagnostic on the offending line (see accepts_line()).
 * Every original input must validate without errors (one check per file).
 * Checks: one per input (clean), one per class with >= 1 kept mutant (localized
 * rate >= 95%), one overall.  Last line: "N passed, N failed"; the exit status
 * is 1 when any check failed (which includes a rejected original and an overall
 * localized rate below 95%), 2 on usage errors.
 *
 * Deterministic: the same files, seed and max give the same mutants and the same
 * table whatever --jobs is (ptxas runs in parallel batches; results are consumed
 * in order). */
#include "ptxgen/ptx.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- mutation classes --------------------------------------------------- */
enum {
    C_UNKNOWN_OPCODE, C_ILLEGAL_MOD, C_MOD_COMBO, C_OPERAND_COUNT, C_OPERAND_TYPE, C_VECTOR_ARITY,
    C_UNDECL_REG, C_REG_RANGE, C_DUP_DECL, C_UNDEF_LABEL, C_DUP_LABEL, C_UNDEF_SYMBOL,
    C_MISSING_HEADER, C_FALLS_OFF, C_NEWER_TARGET,
    C_MISSING_SEMI, C_MISSING_COMMA, C_MISSING_BRACKET,   /* syntax: the punctuation a hand edit loses */
    C__COUNT
};
static const char *const class_names[C__COUNT] = {
    "unknown-opcode", "illegal-modifier", "modifier-combination", "operand-count", "operand-type",
    "vector-arity", "undeclared-register", "register-out-of-range", "duplicate-declaration",
    "undefined-label", "duplicate-label", "undefined-symbol", "missing-header", "falls-off-end",
    "newer-target", "missing-semicolon", "missing-comma", "missing-bracket",
};

/* ---- PRNG (splitmix64) --------------------------------------------------- */
static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ---- small string helpers --------------------------------------------------- */
static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) { fprintf(stderr, "test_mutants: out of memory\n"); exit(2); }
    return p;
}
static char *xstrndup(const char *s, size_t n) {
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}
static char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }
static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...) {
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = xmalloc((size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, aq);
    va_end(aq);
    return p;
}
static bool is_ident_start(int c) { return isalpha(c) || c == '_' || c == '$'; }
static bool is_ident_char(int c) { return isalnum(c) || c == '_' || c == '$'; }
static const char *base_name(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* ---- per-file line model -------------------------------------------------------- */
enum { LK_OTHER, LK_BLANK, LK_INSN, LK_LABEL, LK_DECL, LK_OPEN, LK_CLOSE };

typedef struct {
    char *guard;              /* "@%p1", "@!%p2" or NULL */
    char *opcode;             /* "ld" */
    char **mods; int nmods;   /* ".global", ".u32" (with the dot) */
    char **ops; int nops;     /* operands as written (trimmed) */
} insn_t;

typedef struct {
    char *text;       /* the original line (no newline) */
    char *code;       /* comment stripped, trimmed */
    int kind;
    int func;         /* index into funcs, -1 outside function bodies */
    int depth;        /* brace depth at the start of the line */
    insn_t in;        /* kind == LK_INSN */
} line_t;

typedef struct {
    char *name;       /* "%r" for %r<N>, or the full name when count == 0 */
    int count;        /* %r<N> -> N; 0 for a single register */
    char type[32];    /* ".b32" */
    int size;         /* 1 = pred, else bits */
} regdecl_t;

typedef struct {
    int open_line, close_line;  /* 0-based line indices */
    bool is_entry;
    regdecl_t *decls; int ndecls;
} func_t;

typedef struct {
    const char *path;
    char *base;
    line_t *lines; int nlines;
    func_t *funcs; int nfuncs;
    int version_line, target_line, addr_line;   /* 0-based, -1 if absent */
    int sm;                                     /* from .target, 0 when unknown */
    char arch[32];                              /* ptxas -arch for the original */
    bool reloc;                                 /* ptxas -c */
    bool clean;                                 /* validator: no errors */
    bool ptxas_ok;                              /* ptxas accepts the original */
    bool usable;                                /* clean && ptxas_ok: mutate it */
    char **clean_errs; int nclean_errs;         /* the validator's errors on the original */
    char ptxas_msg[512];
} pfile;

static char *strip_code(const char *s) {
    size_t n = strlen(s);
    bool instr = false;
    size_t end = n;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') instr = !instr;
        if (!instr && s[i] == '/' && i + 1 < n && s[i + 1] == '/') { end = i; break; }
    }
    size_t b = 0;
    while (b < end && isspace((unsigned char)s[b])) b++;
    while (end > b && isspace((unsigned char)s[end - 1])) end--;
    return xstrndup(s + b, end - b);
}

static int count_char(const char *s, char c) {
    int n = 0;
    bool instr = false;
    for (; *s; s++) {
        if (*s == '"') instr = !instr;
        else if (!instr && *s == c) n++;
    }
    return n;
}

static bool has_token(const char *s, const char *tok) {
    size_t n = strlen(tok);
    for (const char *p = strstr(s, tok); p; p = strstr(p + 1, tok)) {
        bool l = p == s || !(is_ident_char((unsigned char)p[-1]) || p[-1] == '.');
        bool r = !is_ident_char((unsigned char)p[n]);
        if (l && r) return true;
    }
    return false;
}

/* Split the operand text at top-level commas. */
static void split_ops(const char *s, insn_t *in) {
    in->ops = NULL;
    in->nops = 0;
    while (isspace((unsigned char)*s)) s++;
    if (!*s) return;
    int cap = 0, depth = 0;
    const char *start = s;
    for (const char *p = s;; p++) {
        if (*p == '{' || *p == '[' || *p == '(') depth++;
        else if (*p == '}' || *p == ']' || *p == ')') depth--;
        if ((*p == ',' && depth == 0) || !*p) {
            const char *a = start, *b = p;
            while (a < b && isspace((unsigned char)*a)) a++;
            while (b > a && isspace((unsigned char)b[-1])) b--;
            if (in->nops == cap) { cap = cap ? cap * 2 : 4; in->ops = realloc(in->ops, sizeof(char *) * (size_t)cap); }
            in->ops[in->nops++] = xstrndup(a, (size_t)(b - a));
            if (!*p) break;
            start = p + 1;
        }
    }
}

/* One-statement instruction line: [@guard] opcode{.mod} [operands] ; */
static bool parse_insn(const char *code, insn_t *in) {
    memset(in, 0, sizeof *in);
    size_t n = strlen(code);
    if (n < 2 || code[n - 1] != ';' || count_char(code, ';') != 1) return false;
    const char *p = code;
    if (*p == '@') {
        const char *q = p;
        while (*q && !isspace((unsigned char)*q)) q++;
        in->guard = xstrndup(p, (size_t)(q - p));
        p = q;
        while (isspace((unsigned char)*p)) p++;
    }
    if (!islower((unsigned char)*p)) { free(in->guard); in->guard = NULL; return false; }
    const char *q = p;
    while (*q && (islower((unsigned char)*q) || isdigit((unsigned char)*q) || *q == '_' || *q == '.' ||
                  isupper((unsigned char)*q)))
        q++;
    if (*q && *q != ';' && !isspace((unsigned char)*q)) { free(in->guard); in->guard = NULL; return false; }
    /* opcode and modifiers */
    const char *dot = memchr(p, '.', (size_t)(q - p));
    const char *oend = dot ? dot : q;
    in->opcode = xstrndup(p, (size_t)(oend - p));
    for (const char *c = in->opcode; *c; c++)
        if (!(islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_')) goto fail;
    in->mods = xmalloc(sizeof(char *) * 40);
    for (const char *m = dot; m && m < q;) {
        const char *e = m + 1;
        while (e < q && *e != '.') e++;
        if (e == m + 1 || in->nmods >= 40) goto fail;
        in->mods[in->nmods++] = xstrndup(m, (size_t)(e - m));
        m = e < q ? e : NULL;
    }
    const char *rest = q;
    while (isspace((unsigned char)*rest)) rest++;
    if (*rest == ':') goto fail;
    char *ops = xstrndup(rest, strlen(rest) - 1); /* drop ';' */
    split_ops(ops, in);
    free(ops);
    return true;
fail:
    free(in->guard);
    free(in->opcode);
    for (int i = 0; i < in->nmods; i++) free(in->mods[i]);
    free(in->mods);
    memset(in, 0, sizeof *in);
    return false;
}

static void free_insn(insn_t *in) {
    free(in->guard);
    free(in->opcode);
    for (int i = 0; i < in->nmods; i++) free(in->mods[i]);
    free(in->mods);
    for (int i = 0; i < in->nops; i++) free(in->ops[i]);
    free(in->ops);
}

static bool is_label_line(const char *code) {
    size_t n = strlen(code);
    if (n < 2 || code[n - 1] != ':' || !is_ident_start((unsigned char)code[0])) return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!is_ident_char((unsigned char)code[i])) return false;
    return true;
}

static bool is_decl_line(const char *code) {
    const char *p = code;
    if (!strncmp(p, ".visible", 8) && isspace((unsigned char)p[8])) {
        p += 8;
        while (isspace((unsigned char)*p)) p++;
    }
    static const char *const sp[] = {".reg", ".shared", ".global", ".const", ".local"};
    bool ok = false;
    for (size_t i = 0; i < sizeof sp / sizeof *sp; i++) {
        size_t k = strlen(sp[i]);
        if (!strncmp(p, sp[i], k) && isspace((unsigned char)p[k])) ok = true;
    }
    size_t n = strlen(code);
    return ok && n && code[n - 1] == ';' && count_char(code, ';') == 1;
}

static int type_size(const char *t) {
    if (!strcmp(t, ".pred")) return 1;
    int bits = 0;
    for (const char *p = t; *p; p++)
        if (isdigit((unsigned char)*p)) { bits = atoi(p); break; }
    size_t n = strlen(t);
    if (n > 2 && !strcmp(t + n - 2, "x2")) bits *= 2;
    return bits;
}

/* ".reg .b32 %r<5>;" / ".reg .b64 %SP;" at function top level. */
static void parse_regdecl(func_t *f, const char *code) {
    if (strncmp(code, ".reg", 4) || !isspace((unsigned char)code[4])) return;
    char t1[32], t2[128];
    if (sscanf(code + 4, " %31s %127s", t1, t2) != 2) return;
    if (t1[0] != '.' || !strncmp(t1, ".v", 2)) return;
    size_t n = strlen(t2);
    if (n && t2[n - 1] == ';') t2[--n] = 0;
    if (strchr(t2, ',') || t2[0] != '%') return;
    regdecl_t d;
    memset(&d, 0, sizeof d);
    snprintf(d.type, sizeof d.type, "%s", t1);
    d.size = type_size(t1);
    char *lt = strchr(t2, '<');
    if (lt) {
        d.count = atoi(lt + 1);
        if (d.count <= 0) return;
        *lt = 0;
        for (const char *c = t2 + 1; *c; c++)
            if (!isalpha((unsigned char)*c) && *c != '_') return;   /* prefix must not end in digits */
    } else {
        for (const char *c = t2 + 1; *c; c++)
            if (!isalpha((unsigned char)*c) && *c != '_') return;
    }
    d.name = xstrdup(t2);
    f->decls = realloc(f->decls, sizeof(regdecl_t) * (size_t)(f->ndecls + 1));
    f->decls[f->ndecls++] = d;
}

static const regdecl_t *find_decl(const func_t *f, const char *name, size_t n, bool indexed) {
    for (int i = 0; i < f->ndecls; i++)
        if (strlen(f->decls[i].name) == n && !strncmp(f->decls[i].name, name, n) && (f->decls[i].count > 0) == indexed)
            return &f->decls[i];
    return NULL;
}

static void split_lines(pfile *F, const char *src, size_t len) {
    int cap = 0;
    const char *p = src, *end = src + len;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        const char *le = e ? e : end;
        size_t n = (size_t)(le - p);
        if (n && p[n - 1] == '\r') n--;
        if (F->nlines == cap) { cap = cap ? cap * 2 : 256; F->lines = realloc(F->lines, sizeof(line_t) * (size_t)cap); }
        memset(&F->lines[F->nlines], 0, sizeof(line_t));
        F->lines[F->nlines++].text = xstrndup(p, n);
        if (!e) break;
        p = e + 1;
    }
}

static void analyze(pfile *F) {
    int depth = 0, cur = -1;
    bool pending = false, pending_entry = false;
    F->version_line = F->target_line = F->addr_line = -1;
    for (int i = 0; i < F->nlines; i++) {
        line_t *L = &F->lines[i];
        L->code = strip_code(L->text);
        L->depth = depth;
        L->func = depth >= 1 ? cur : -1;
        const char *c = L->code;
        if (!*c) L->kind = LK_BLANK;
        else if (!strcmp(c, "{")) L->kind = LK_OPEN;
        else if (!strcmp(c, "}")) L->kind = LK_CLOSE;
        else if (is_label_line(c)) L->kind = LK_LABEL;
        else if (is_decl_line(c)) L->kind = LK_DECL;
        else if ((*c == '@' || islower((unsigned char)*c)) && parse_insn(c, &L->in)) L->kind = LK_INSN;
        else L->kind = LK_OTHER;
        if (depth == 0) {
            if (!strncmp(c, ".version", 8)) F->version_line = i;
            if (!strncmp(c, ".target", 7)) {
                F->target_line = i;
                const char *s = strstr(c, "sm_");
                if (s) {
                    F->sm = atoi(s + 3);
                    size_t k = 0;
                    while (s[k] && (isalnum((unsigned char)s[k]) || s[k] == '_') && k + 1 < sizeof F->arch) {
                        F->arch[k] = s[k];
                        k++;
                    }
                    F->arch[k] = 0;
                }
            }
            if (!strncmp(c, ".address_size", 13)) F->addr_line = i;
            if (has_token(c, ".entry") || has_token(c, ".func")) {
                pending = true;
                pending_entry = has_token(c, ".entry");
            }
            /* relocatable when something other than the CUDA runtime's device
             * functions is declared .extern/.weak (extern .shared is fine) */
            if ((has_token(c, ".extern") || has_token(c, ".weak")) && !has_token(c, ".shared")) {
                bool allowed = false;
                for (int k = i; k < F->nlines && k < i + 30; k++) {
                    const char *t = F->lines[k].text;
                    if (has_token(t, "vprintf") || has_token(t, "malloc") || has_token(t, "free") ||
                        has_token(t, "__assertfail")) { allowed = true; break; }
                    if (strchr(t, ';') || (k > i && strchr(t, '{'))) break;
                }
                if (!allowed) F->reloc = true;
            }
        }
        int opens = count_char(c, '{'), closes = count_char(c, '}');
        if (depth == 0 && opens > closes && pending) {
            F->funcs = realloc(F->funcs, sizeof(func_t) * (size_t)(F->nfuncs + 1));
            func_t *f = &F->funcs[F->nfuncs];
            memset(f, 0, sizeof *f);
            f->open_line = i;
            f->close_line = -1;
            f->is_entry = pending_entry;
            cur = F->nfuncs++;
            pending = false;
        } else if (depth == 0 && strchr(c, ';')) {
            pending = false;
        }
        if (L->kind == LK_DECL && depth == 1 && cur >= 0) parse_regdecl(&F->funcs[cur], c);
        depth += opens - closes;
        if (depth < 0) depth = 0;
        if (depth == 0 && cur >= 0 && L->depth >= 1) {
            F->funcs[cur].close_line = i;
            cur = -1;
        }
    }
    if (!F->arch[0]) snprintf(F->arch, sizeof F->arch, "sm_90");
}

static void free_file(pfile *F) {
    for (int i = 0; i < F->nlines; i++) {
        free(F->lines[i].text);
        free(F->lines[i].code);
        if (F->lines[i].kind == LK_INSN) free_insn(&F->lines[i].in);
    }
    free(F->lines);
    for (int i = 0; i < F->nfuncs; i++) {
        for (int k = 0; k < F->funcs[i].ndecls; k++) free(F->funcs[i].decls[k].name);
        free(F->funcs[i].decls);
    }
    free(F->funcs);
    for (int i = 0; i < F->nclean_errs; i++) free(F->clean_errs[i]);
    free(F->clean_errs);
    free(F->base);
}

/* ---- mutants ------------------------------------------------------------------------ */
typedef struct {
    int sev, line, col;
    char code[8];
    char msg[512];
} vdiag;

typedef struct {
    int cls, file;
    int line;            /* 0-based line of the original that is changed */
    bool insert;         /* insert newtext after `line` (else replace it) */
    char *newtext;
    int mut_line;        /* 1-based offending line in the mutant */
    int alt_line;        /* another acceptable line (1-based), 0 = none */
    char arch[32];
    char desc[256];
    /* ptxas */
    bool rejected, ptxas_failed;
    int ptxas_rc;
    char ptxas_msg[512];
    int ptxas_lines[256]; int nptxas_lines;   /* distinct lines ptxas reports errors on */
    char *ptxas_log;
    /* validator */
    bool detected, localized, crashed;
    char crash_why[160];
    vdiag *diags; int ndiags;
} mutant;

static void free_mutant(mutant *M) {
    free(M->newtext);
    free(M->diags);
    free(M->ptxas_log);
    M->newtext = NULL;
    M->diags = NULL;
    M->ptxas_log = NULL;
}

/* A rebuilt instruction: "\t[guard ]opcode.mods \top, op;" */
typedef struct {
    const char *guard, *opcode;
    const char *mods[48]; int nmods;
    const char *ops[80]; int nops;
} iview;

static void view_of(const insn_t *in, iview *v) {
    memset(v, 0, sizeof *v);
    v->guard = in->guard;
    v->opcode = in->opcode;
    for (int i = 0; i < in->nmods && i < 40; i++) v->mods[v->nmods++] = in->mods[i];
    for (int i = 0; i < in->nops && i < 64; i++) v->ops[v->nops++] = in->ops[i];
}

static char *fmt_view(const iview *v) {
    pg_buf b = {0};
    pg_buf_putc(&b, '\t');
    if (v->guard) { pg_buf_puts(&b, v->guard); pg_buf_putc(&b, ' '); }
    pg_buf_puts(&b, v->opcode);
    for (int i = 0; i < v->nmods; i++) pg_buf_puts(&b, v->mods[i]);
    for (int i = 0; i < v->nops; i++) {
        pg_buf_puts(&b, i ? ", " : " \t");
        pg_buf_puts(&b, v->ops[i]);
    }
    pg_buf_putc(&b, ';');
    return b.data;
}

static bool is_type_mod(const char *m) {
    static const char *const t[] = {".s8", ".s16", ".s32", ".s64", ".u8", ".u16", ".u32", ".u64", ".b8", ".b16",
                                    ".b32", ".b64", ".b128", ".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64",
                                    ".pred", ".tf32", ".e4m3", ".e5m2", ".e4m3x2", ".e5m2x2"};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (!strcmp(m, t[i])) return true;
    return false;
}

static int last_type_mod(const insn_t *in) {
    for (int i = in->nmods - 1; i >= 0; i--)
        if (is_type_mod(in->mods[i])) return i;
    return -1;
}

static bool is_mem_op(const char *op) {
    static const char *const t[] = {"ld", "st", "ldu", "atom", "red", "prefetch", "prefetchu", "cvta", "isspacep",
                                    "cp", "ldmatrix", "stmatrix", "multimem", "mbarrier", "cvta"};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (!strcmp(op, t[i])) return true;
    return false;
}

/* A register reference inside an operand: %name<digits> of a declared %name<N>,
 * or a declared single register name. */
typedef struct {
    int op, start, len;
    const regdecl_t *decl;
    int index;            /* -1 for single registers */
    bool in_addr;
} regref;

static int find_refs(const func_t *f, const insn_t *in, regref *out, int max) {
    int n = 0;
    for (int i = 0; i < in->nops && n < max; i++) {
        const char *s = in->ops[i];
        int bracket = 0;
        for (int k = 0; s[k] && n < max;) {
            if (s[k] == '[') bracket++;
            if (s[k] == ']') bracket--;
            if (s[k] != '%' || !(isalpha((unsigned char)s[k + 1]) || s[k + 1] == '_')) { k++; continue; }
            int a = k + 1;
            while (isalpha((unsigned char)s[a]) || s[a] == '_') a++;
            int d = a;
            while (isdigit((unsigned char)s[d])) d++;
            if (s[d] == '.' || is_ident_char((unsigned char)s[d])) {   /* %tid.x, %r1x ... */
                k = d + 1;
                continue;
            }
            const regdecl_t *dc = find_decl(f, s + k, (size_t)(a - k), d > a);
            if (dc) {
                out[n].op = i;
                out[n].start = k;
                out[n].len = d - k;
                out[n].decl = dc;
                out[n].index = d > a ? atoi(s + a) : -1;
                out[n].in_addr = bracket > 0;
                n++;
            }
            k = d;
        }
    }
    return n;
}

static char *replace_span(const char *s, int start, int len, const char *with) {
    return xasprintf("%.*s%s%s", start, s, with, s + start + len);
}

static const char *indent_of(const char *text, char *buf, size_t n) {
    size_t k = 0;
    while (text[k] && isspace((unsigned char)text[k]) && k + 1 < n) { buf[k] = text[k]; k++; }
    buf[k] = 0;
    return buf;
}

/* A call target on its own line ("\t_Z3fibi, " after "call.uni (retval0), "). */
static bool call_target_line(const pfile *F, int li, int *call_line) {
    const char *c = F->lines[li].code;
    size_t n = strlen(c);
    if (n < 2 || c[n - 1] != ',' || !is_ident_start((unsigned char)c[0])) return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!is_ident_char((unsigned char)c[i])) return false;
    for (int k = li - 1; k >= 0 && k >= li - 3; k--) {
        const char *p = F->lines[k].code;
        if (!*p) continue;
        if (!strncmp(p, "call", 4) && (p[4] == '.' || isspace((unsigned char)p[4]) || !p[4])) { *call_line = k; return true; }
        return false;
    }
    return false;
}

static const char *low_target = "sm_75";   /* lowest target the installed ptxas supports (probed) */

/* Build the mutant of class `cls` at line `li`; r picks among the variants.
 * Returns false when the line is not a site of that class. */
static bool build_mutant(const pfile *F, int fi, int cls, int li, uint64_t r, mutant *M) {
    const line_t *L = &F->lines[li];
    memset(M, 0, sizeof *M);
    M->cls = cls;
    M->file = fi;
    M->line = li;
    M->mut_line = li + 1;
    snprintf(M->arch, sizeof M->arch, "%s", F->arch);
    const insn_t *in = L->kind == LK_INSN ? &L->in : NULL;
    const func_t *fn = L->func >= 0 ? &F->funcs[L->func] : NULL;
    iview v;
    if (in) view_of(in, &v);
    char ind[64];
    switch (cls) {
    case C_UNKNOWN_OPCODE: {
        if (!in) return false;
        size_t n = strlen(in->opcode);
        char *op = xasprintf("%s%c", in->opcode, in->opcode[n - 1]);
        v.opcode = op;
        M->newtext = fmt_view(&v);
        snprintf(M->desc, sizeof M->desc, "opcode %s -> %s", in->opcode, op);
        free(op);
        return true;
    }
    case C_ILLEGAL_MOD: {
        if (!in) return false;
        int ti = last_type_mod(in);
        int nvar = ti >= 0 ? 2 : 1;
        int var = (int)(r % (uint64_t)nvar);
        if (var == 1) {
            v.mods[ti] = ".f33";
            snprintf(M->desc, sizeof M->desc, "type %s -> .f33", in->mods[ti]);
        } else {
            const char *bogus = is_mem_op(in->opcode) ? ".rz" : ".global";
            memmove(&v.mods[1], &v.mods[0], sizeof(char *) * (size_t)v.nmods);
            v.mods[0] = bogus;
            v.nmods++;
            snprintf(M->desc, sizeof M->desc, "insert %s after %s", bogus, in->opcode);
        }
        M->newtext = fmt_view(&v);
        return true;
    }
    case C_MOD_COMBO: {
        if (!in || !in->nmods) return false;
        int ti = last_type_mod(in);
        int var = ti >= 0 ? (int)(r % 2) : 1;
        if (var == 0) {
            memmove(&v.mods[ti], &v.mods[ti + 1], sizeof(char *) * (size_t)(v.nmods - ti - 1));
            v.nmods--;
            snprintf(M->desc, sizeof M->desc, "drop type %s", in->mods[ti]);
        } else {
            int k = (int)((r >> 8) % (uint64_t)in->nmods);
            memmove(&v.mods[k + 1], &v.mods[k], sizeof(char *) * (size_t)(v.nmods - k));
            v.nmods++;
            snprintf(M->desc, sizeof M->desc, "duplicate %s", in->mods[k]);
        }
        M->newtext = fmt_view(&v);
        return true;
    }
    case C_OPERAND_COUNT: {
        if (!in || !in->nops) return false;
        if (r % 2 == 0) {
            v.nops--;
            snprintf(M->desc, sizeof M->desc, "drop operand %d (%s)", in->nops, in->ops[in->nops - 1]);
        } else {
            v.ops[v.nops++] = in->ops[in->nops - 1];
            snprintf(M->desc, sizeof M->desc, "add operand %s", in->ops[in->nops - 1]);
        }
        M->newtext = fmt_view(&v);
        return true;
    }
    case C_OPERAND_TYPE: {
        if (!in || !fn) return false;
        regref refs[64];
        int nr = find_refs(fn, in, refs, 64), cand[64], nc = 0;
        for (int i = 0; i < nr; i++)
            if (!refs[i].in_addr) cand[nc++] = i;
        if (!nc) return false;
        const regref *rf = &refs[cand[r % (uint64_t)nc]];
        /* a register of another declared type, preferably of another size */
        const regdecl_t *pick[32];
        int np = 0;
        for (int pass = 0; pass < 2 && !np; pass++)
            for (int i = 0; i < fn->ndecls && np < 32; i++) {
                const regdecl_t *d = &fn->decls[i];
                if (!strcmp(d->type, rf->decl->type)) continue;
                if (pass == 0 && d->size == rf->decl->size) continue;
                pick[np++] = d;
            }
        if (!np) return false;
        const regdecl_t *d = pick[(r >> 16) % (uint64_t)np];
        char name[96];
        if (d->count > 0) snprintf(name, sizeof name, "%s%d", d->name, d->count > 1 ? 1 + (int)((r >> 24) % (uint64_t)(d->count - 1)) : 0);
        else snprintf(name, sizeof name, "%s", d->name);
        char *nop = replace_span(in->ops[rf->op], rf->start, rf->len, name);
        v.ops[rf->op] = nop;
        M->newtext = fmt_view(&v);
        snprintf(M->desc, sizeof M->desc, "operand %d: %.*s (%s) -> %s (%s)", rf->op + 1, rf->len,
                 in->ops[rf->op] + rf->start, rf->decl->type, name, d->type);
        free(nop);
        return true;
    }
    case C_VECTOR_ARITY: {
        if (!in) return false;
        for (int i = 0; i < in->nops; i++) {
            const char *o = in->ops[i];
            const char *lb = strchr(o, '{'), *rb = strrchr(o, '}');
            if (!lb || !rb || rb < lb) continue;
            const char *lc = NULL;
            int depth = 0;
            for (const char *p = lb + 1; p < rb; p++) {
                if (*p == '{' || *p == '[') depth++;
                if (*p == '}' || *p == ']') depth--;
                if (*p == ',' && depth == 0) lc = p;
            }
            if (!lc) continue;
            char *nop = xasprintf("%.*s%s", (int)(lc - o), o, rb);
            v.ops[i] = nop;
            M->newtext = fmt_view(&v);
            snprintf(M->desc, sizeof M->desc, "vector %s -> %s", o, nop);
            free(nop);
            return true;
        }
        return false;
    }
    case C_UNDECL_REG:
    case C_REG_RANGE: {
        if (!in || !fn) return false;
        regref refs[64];
        int nr = find_refs(fn, in, refs, 64), cand[64], nc = 0;
        for (int i = 0; i < nr; i++)
            if (cls == C_UNDECL_REG || refs[i].index >= 0) cand[nc++] = i;
        if (!nc) return false;
        const regref *rf = &refs[cand[r % (uint64_t)nc]];
        char name[96];
        if (cls == C_UNDECL_REG) {
            if (rf->index >= 0) snprintf(name, sizeof name, "%%zz%d", rf->index);
            else snprintf(name, sizeof name, "%%zz%s", rf->decl->name + 1);
        } else {
            snprintf(name, sizeof name, "%s%d", rf->decl->name, rf->decl->count + (int)((r >> 8) % 3));
        }
        char *nop = replace_span(in->ops[rf->op], rf->start, rf->len, name);
        v.ops[rf->op] = nop;
        M->newtext = fmt_view(&v);
        if (cls == C_UNDECL_REG)
            snprintf(M->desc, sizeof M->desc, "operand %d: %.*s -> %s", rf->op + 1, rf->len, in->ops[rf->op] + rf->start, name);
        else
            snprintf(M->desc, sizeof M->desc, "operand %d: %.*s -> %s (declared %s<%d>)", rf->op + 1, rf->len,
                     in->ops[rf->op] + rf->start, name, rf->decl->name, rf->decl->count);
        free(nop);
        return true;
    }
    case C_DUP_DECL:
    case C_DUP_LABEL: {
        if (L->kind != (cls == C_DUP_DECL ? LK_DECL : LK_LABEL)) return false;
        if (has_token(L->code, ".extern")) return false;
        M->insert = true;
        M->newtext = xstrdup(L->text);
        M->mut_line = li + 2;
        snprintf(M->desc, sizeof M->desc, "duplicate line %d: %s", li + 1, L->code);
        return true;
    }
    case C_UNDEF_LABEL: {
        if (!in || strcmp(in->opcode, "bra") || !in->nops) return false;
        const char *t = in->ops[in->nops - 1];
        if (!is_ident_start((unsigned char)t[0])) return false;
        char *nop = xasprintf("%s_nx", t);
        v.ops[in->nops - 1] = nop;
        M->newtext = fmt_view(&v);
        snprintf(M->desc, sizeof M->desc, "branch target %s -> %s", t, nop);
        free(nop);
        return true;
    }
    case C_UNDEF_SYMBOL: {
        int cl;
        if (!in && call_target_line(F, li, &cl)) {
            size_t n = strlen(L->code);
            M->newtext = xasprintf("%s%.*s_x,", indent_of(L->text, ind, sizeof ind), (int)(n - 1), L->code);
            M->alt_line = cl + 1;
            snprintf(M->desc, sizeof M->desc, "call target %.*s -> %.*s_x", (int)(n - 1), L->code, (int)(n - 1), L->code);
            return true;
        }
        if (!in || !strcmp(in->opcode, "bra") || !strcmp(in->opcode, "call") || !strcmp(in->opcode, "brx")) return false;
        /* [symbol...] or a bare symbol operand */
        int cop[64], cst[64], clen[64], nc = 0;
        for (int i = 0; i < in->nops && nc < 64; i++) {
            const char *o = in->ops[i];
            int st = -1;
            if (o[0] == '[' && is_ident_start((unsigned char)o[1])) st = 1;
            else if (is_ident_start((unsigned char)o[0])) st = 0;
            if (st < 0) continue;
            int e = st;
            while (is_ident_char((unsigned char)o[e])) e++;
            if (e - st == 1 && o[st] == '_') continue;   /* sink */
            if (st == 0 && o[e]) continue;               /* not a plain symbol */
            cop[nc] = i; cst[nc] = st; clen[nc] = e - st; nc++;
        }
        if (!nc) return false;
        int k = (int)(r % (uint64_t)nc);
        const char *o = in->ops[cop[k]];
        char *nop = xasprintf("%.*s_x%s", cst[k] + clen[k], o, o + cst[k] + clen[k]);
        v.ops[cop[k]] = nop;
        M->newtext = fmt_view(&v);
        snprintf(M->desc, sizeof M->desc, "symbol %.*s -> %.*s_x", clen[k], o + cst[k], clen[k], o + cst[k]);
        free(nop);
        return true;
    }
    case C_MISSING_HEADER:
        if (li != F->version_line && li != F->target_line && li != F->addr_line) return false;
        M->newtext = xstrdup("");
        if (li == F->target_line) snprintf(M->arch, sizeof M->arch, "sm_90");
        snprintf(M->desc, sizeof M->desc, "delete %s", L->code);
        return true;
    case C_FALLS_OFF: {
        if (!in || !fn || !fn->is_entry || in->guard || (strcmp(in->opcode, "ret") && strcmp(in->opcode, "exit")))
            return false;
        for (int k = li + 1; k < fn->close_line; k++)
            if (F->lines[k].kind == LK_INSN) return false;     /* not the last instruction */
        M->newtext = xstrdup("");
        M->alt_line = fn->close_line + 1;
        snprintf(M->desc, sizeof M->desc, "delete final %s (function closes at line %d)", L->code, fn->close_line + 1);
        return true;
    }
    case C_MISSING_SEMI:
    case C_MISSING_COMMA:
    case C_MISSING_BRACKET: {
        /* delete one ';' (the instruction's last), one ',' between operands (depth 0),
         * or one ']' of an address, in the code part of the line (before any comment) */
        if (!in) return false;
        const char *t = L->text, *cm = strstr(t, "//");
        size_t end = cm ? (size_t)(cm - t) : strlen(t);
        int at[64], nat = 0, depth = 0;
        for (size_t i = 0; i < end && nat < 64; i++) {
            char c = t[i];
            if (c == '[' || c == '{' || c == '(') depth++;
            if (c == ']' || c == '}' || c == ')') depth--;
            if ((cls == C_MISSING_SEMI && c == ';') || (cls == C_MISSING_COMMA && c == ',' && depth == 0) ||
                (cls == C_MISSING_BRACKET && c == ']'))
                at[nat++] = (int)i;
        }
        if (!nat) return false;
        int k = cls == C_MISSING_SEMI ? at[nat - 1] : at[(r >> 8) % (uint64_t)nat];
        M->newtext = xasprintf("%.*s%s", k, t, t + k + 1);
        snprintf(M->desc, sizeof M->desc, "delete '%c' at column %d", t[k], k + 1);
        return true;
    }
    case C_NEWER_TARGET: {
        if (li != F->target_line || F->sm < 80) return false;
        const char *s = strstr(L->text, "sm_");
        int e = 3;
        while (is_ident_char((unsigned char)s[e])) e++;
        M->newtext = xasprintf("%.*s%s%s", (int)(s - L->text), L->text, low_target, s + e);
        snprintf(M->arch, sizeof M->arch, "%s", low_target);
        snprintf(M->desc, sizeof M->desc, ".target %.*s -> %s", e, s, low_target);
        return true;
    }
    }
    return false;
}

static char *mutant_text(const pfile *F, const mutant *M, size_t *len) {
    pg_buf b = {0};
    for (int i = 0; i < F->nlines; i++) {
        if (i == M->line && !M->insert) pg_buf_puts(&b, M->newtext);
        else pg_buf_puts(&b, F->lines[i].text);
        pg_buf_putc(&b, '\n');
        if (i == M->line && M->insert) {
            pg_buf_puts(&b, M->newtext);
            pg_buf_putc(&b, '\n');
        }
    }
    *len = b.len;
    return b.data;
}

/* ---- ptxas (parallel, with a timeout) ----------------------------------------------------- */
static char g_ptxas[512];
static char g_tmpdir[256];
enum { PTXAS_TIMEOUT_S = 60, VALIDATE_TIMEOUT_S = 30 };

typedef struct {
    char path[600], log[620];
    char arch[32];
    bool reloc;
    /* results */
    int rc;              /* exit code; -1 timeout/signal; 127 exec failure */
    char msg[512];       /* first error line */
    int lines[256]; int nlines;   /* distinct lines with errors */
    char *out;           /* the whole output */
} ptxas_job;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void parse_ptxas_log(ptxas_job *J) {
    FILE *f = fopen(J->log, "r");
    J->msg[0] = 0;
    J->nlines = 0;
    if (!f) return;
    char line[2048];
    pg_buf all = {0};
    while (fgets(line, sizeof line, f)) {
        pg_buf_puts(&all, line);
        line[strcspn(line, "\n")] = 0;
        bool err = strstr(line, "error") != NULL || strstr(line, "fatal") != NULL;
        if (!err) continue;
        const char *ln = strstr(line, ", line ");
        int lno = ln ? atoi(ln + 7) : 0;
        bool seen = false;
        for (int k = 0; k < J->nlines; k++) seen |= J->lines[k] == lno;
        if (lno > 0 && !seen && J->nlines < 256) J->lines[J->nlines++] = lno;
        if (!J->msg[0]) {
            const char *s = ln ? ln + 2 : line;
            /* squeeze runs of spaces */
            size_t k = 0;
            for (; *s && k + 1 < sizeof J->msg; s++)
                if (!(*s == ' ' && k && J->msg[k - 1] == ' ')) J->msg[k++] = *s;
            J->msg[k] = 0;
        }
    }
    fclose(f);
    free(J->out);
    J->out = all.data ? all.data : xstrdup("");
}

static double g_t_ptxas, g_t_validate;   /* wall seconds spent in each */

static void run_ptxas_jobs(ptxas_job *jobs, int n, int par) {
    double t0 = now_s();
    pid_t *pids = calloc((size_t)n, sizeof(pid_t));
    double *start = calloc((size_t)n, sizeof(double));
    int next = 0, running = 0, done = 0;
    while (done < n) {
        while (running < par && next < n) {
            ptxas_job *J = &jobs[next];
            char archarg[48];
            snprintf(archarg, sizeof archarg, "-arch=%s", J->arch);
            pid_t pid = fork();
            if (pid == 0) {
                int fd = open(J->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
                if (fd >= 0) { dup2(fd, 1); dup2(fd, 2); close(fd); }
                if (J->reloc) execl(g_ptxas, "ptxas", archarg, "-c", "-o", "/dev/null", J->path, (char *)NULL);
                else execl(g_ptxas, "ptxas", archarg, "-o", "/dev/null", J->path, (char *)NULL);
                _exit(127);
            }
            if (pid < 0) { J->rc = 127; snprintf(J->msg, sizeof J->msg, "fork failed"); done++; next++; continue; }
            pids[next] = pid;
            start[next] = now_s();
            running++;
            next++;
        }
        bool any = false;
        for (int i = 0; i < next; i++) {
            if (!pids[i]) continue;
            int st;
            pid_t w = waitpid(pids[i], &st, WNOHANG);
            if (w == 0) {
                if (now_s() - start[i] > PTXAS_TIMEOUT_S) kill(pids[i], SIGKILL);
                continue;
            }
            if (w < 0 && errno == EINTR) continue;
            jobs[i].rc = w < 0 ? 127 : WIFEXITED(st) ? WEXITSTATUS(st) : -1;
            parse_ptxas_log(&jobs[i]);
            if (jobs[i].rc == -1) snprintf(jobs[i].msg, sizeof jobs[i].msg, "ptxas killed (timeout or signal)");
            unlink(jobs[i].log);
            pids[i] = 0;
            running--;
            done++;
            any = true;
        }
        if (!any && done < n) {
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
    }
    free(pids);
    free(start);
    g_t_ptxas += now_s() - t0;
}

/* ---- the validator, in a forked child ------------------------------------------------- */
static int g_vfd = -1;
static void child_sink(void *user, const pg_diag *d) {
    (void)user;
    char msg[sizeof d->msg];
    snprintf(msg, sizeof msg, "%s", d->msg);
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\t') *p = ' ';
    dprintf(g_vfd, "D\t%d\t%d\t%d\t%s\t%s\n", (int)d->sev, d->line, d->col, d->code ? d->code : "?", msg);
}

typedef struct {
    vdiag *diags; int ndiags;
    int nerrors;
    bool crashed;
    char why[160];
} vresult;

static void run_validator(const char *text, size_t len, const char *name, vresult *R) {
    memset(R, 0, sizeof *R);
    int pfd[2];
    if (pipe(pfd) != 0) { R->crashed = true; snprintf(R->why, sizeof R->why, "pipe: %s", strerror(errno)); return; }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        g_vfd = pfd[1];
        pg_diag_sink sink = {child_sink, NULL, 0, 0, 0};
        ptx_module *m = NULL;
        pg_status st = ptx_parse(text, len, name, &m, &sink);
        if (m && st != PG_ERR_IO && st != PG_ERR_NOMEM) ptx_validate(m, &sink);
        ptx_module_free(m);
        dprintf(g_vfd, "END\n");
        close(g_vfd);
        _exit(0);
    }
    close(pfd[1]);
    if (pid < 0) { close(pfd[0]); R->crashed = true; snprintf(R->why, sizeof R->why, "fork: %s", strerror(errno)); return; }
    pg_buf out = {0};
    double t0 = now_s();
    bool timed_out = false;
    for (;;) {
        struct pollfd p = {pfd[0], POLLIN, 0};
        int pr = poll(&p, 1, 1000);
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) {
            if (now_s() - t0 > VALIDATE_TIMEOUT_S) { timed_out = true; kill(pid, SIGKILL); break; }
            continue;
        }
        char buf[4096];
        ssize_t k = read(pfd[0], buf, sizeof buf);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        pg_buf_putn(&out, buf, (size_t)k);
    }
    close(pfd[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    bool ended = false;
    int cap = 0;
    for (char *p = out.data, *save = NULL, *l = p ? strtok_r(p, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
        if (!strcmp(l, "END")) { ended = true; continue; }
        if (l[0] != 'D') continue;
        vdiag d;
        memset(&d, 0, sizeof d);
        char *f[6];
        int nf = 0;
        for (char *q = l, *s2 = NULL, *t = strtok_r(q, "\t", &s2); t && nf < 6; t = strtok_r(NULL, "\t", &s2)) f[nf++] = t;
        if (nf < 5) continue;
        d.sev = atoi(f[1]);
        d.line = atoi(f[2]);
        d.col = atoi(f[3]);
        snprintf(d.code, sizeof d.code, "%s", f[4]);
        snprintf(d.msg, sizeof d.msg, "%s", nf > 5 ? f[5] : "");
        if (d.sev == PG_SEV_ERROR) R->nerrors++;
        if (R->ndiags == cap) { cap = cap ? cap * 2 : 8; R->diags = realloc(R->diags, sizeof(vdiag) * (size_t)cap); }
        R->diags[R->ndiags++] = d;
    }
    pg_buf_free(&out);
    g_t_validate += now_s() - t0;
    if (!ended) {
        R->crashed = true;
        if (timed_out) snprintf(R->why, sizeof R->why, "validator did not finish within %d s", VALIDATE_TIMEOUT_S);
        else if (WIFSIGNALED(st)) snprintf(R->why, sizeof R->why, "validator crashed (signal %d)", WTERMSIG(st));
        else snprintf(R->why, sizeof R->why, "validator crashed (exit %d; see stderr)", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
}

/* Does an error on `line` count as pointing at mutant M's offending line? */
static bool accepts_line(const mutant *M, int line) {
    if (M->cls == C_MISSING_HEADER) return true;
    if (M->cls == C_NEWER_TARGET) {
        if (!M->nptxas_lines) return true;
        for (int i = 0; i < M->nptxas_lines; i++)
            if (M->ptxas_lines[i] == line) return true;
        return false;
    }
    return line == M->mut_line || (M->alt_line && line == M->alt_line);
}

/* ---- driver ------------------------------------------------------------------------- */
typedef struct { int line; uint64_t r; } site;
typedef struct { site *v; int n, cap; } sitevec;

typedef struct {
    int generated, kept, accepted, detected, localized, crashed, overflagged;
    mutant *kept_m; int nkept;          /* kept mutants (with results) */
    mutant *over_m; int nover;          /* ptxas accepted, validator flagged */
} class_stats;

static void usage(void) {
    fprintf(stderr,
            "usage: test_mutants [--max-per-class N] [--seed S] [--jobs J] [--json OUT.json] [--keep DIR] FILE.ptx...\n"
            "  --max-per-class N  kept (ptxas-rejected) mutants per class, over all files (default 40);\n"
            "                     at most 3N mutants per class are tried\n"
            "  --seed S           PRNG seed (default 1)\n"
            "  --jobs J           parallel ptxas runs (default: number of CPUs, at most 8)\n"
            "  --json OUT.json    write the table and every miss as JSON\n"
            "  --keep DIR         save kept mutants as DIR/<class>/<file>.L<line>.ptx (+ .txt: ptxas and ptxgen output)\n");
}

static void mkdir_p(const char *path) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') { *p = 0; mkdir(buf, 0755); *p = '/'; }
    mkdir(buf, 0755);
}

static void keep_mutant(const char *dir, const pfile *F, const mutant *M, const char *text, size_t len) {
    char d[1024], p[1200];
    snprintf(d, sizeof d, "%s/%s", dir, class_names[M->cls]);
    mkdir_p(d);
    /* the mutant itself, line-exact; what was done and what ptxas said in a .txt beside it */
    snprintf(p, sizeof p, "%s/%s.L%d.ptx", d, F->base, M->mut_line);
    FILE *f = fopen(p, "w");
    if (!f) return;
    fwrite(text, 1, len, f);
    fclose(f);
    snprintf(p, sizeof p, "%s/%s.L%d.txt", d, F->base, M->mut_line);
    f = fopen(p, "w");
    if (!f) return;
    fprintf(f, "source: %s\nclass: %s\nmutation: %s (line %d)\nptxas -arch=%s%s:\n%s\nptxgen:\n", F->path,
            class_names[M->cls], M->desc, M->mut_line, M->arch, F->reloc ? " -c" : "", M->ptxas_log ? M->ptxas_log : M->ptxas_msg);
    for (int i = 0; i < M->ndiags; i++)
        fprintf(f, "  %d:%d: %s: %s\n", M->diags[i].line, M->diags[i].col, M->diags[i].code, M->diags[i].msg);
    if (M->crashed) fprintf(f, "  %s\n", M->crash_why);
    fclose(f);
}

static void diag_summary(const mutant *M, char *buf, size_t n) {
    size_t k = 0;
    buf[0] = 0;
    if (M->crashed) { snprintf(buf, n, "%s", M->crash_why); return; }
    int shown = 0;
    for (int i = 0; i < M->ndiags && shown < 3; i++) {
        const vdiag *d = &M->diags[i];
        if (d->sev != PG_SEV_ERROR) continue;
        int w = snprintf(buf + k, n - k, "%sline %d: %s %s", shown ? "; " : "", d->line, d->code, d->msg);
        if (w < 0 || (size_t)w >= n - k) break;
        k += (size_t)w;
        shown++;
    }
    if (!shown) snprintf(buf, n, "no error");
}

static json_t *mutant_json(const pfile *F, const mutant *M) {
    json_t *o = json_object();
    json_object_set_new(o, "file", json_string(F->path));
    json_object_set_new(o, "line", json_integer(M->mut_line));
    if (M->alt_line) json_object_set_new(o, "alt_line", json_integer(M->alt_line));
    json_object_set_new(o, "mutation", json_string(M->desc));
    json_object_set_new(o, "text", json_string(M->newtext ? M->newtext : ""));
    json_object_set_new(o, "arch", json_string(M->arch));
    json_object_set_new(o, "ptxas", json_string(M->ptxas_msg));
    json_t *pl = json_array();
    for (int i = 0; i < M->nptxas_lines; i++) json_array_append_new(pl, json_integer(M->ptxas_lines[i]));
    json_object_set_new(o, "ptxas_lines", pl);
    json_object_set_new(o, "detected", json_boolean(M->detected));
    json_object_set_new(o, "localized", json_boolean(M->localized));
    if (M->crashed) json_object_set_new(o, "crash", json_string(M->crash_why));
    json_t *ds = json_array();
    for (int i = 0; i < M->ndiags; i++) {
        char s[600];
        snprintf(s, sizeof s, "%d:%d: %s: %s", M->diags[i].line, M->diags[i].col, M->diags[i].code, M->diags[i].msg);
        json_array_append_new(ds, json_string(s));
    }
    json_object_set_new(o, "ptxgen", ds);
    return o;
}

int main(int argc, char **argv) {
    int max_per_class = 40, jobs = 0;
    uint64_t seed = 1;
    const char *json_out = NULL, *keep_dir = NULL;
    const char **paths = calloc((size_t)argc, sizeof(char *));
    int npaths = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "--max-per-class") || !strcmp(a, "--seed") || !strcmp(a, "--json") || !strcmp(a, "--keep") ||
             !strcmp(a, "--jobs")) && i + 1 >= argc) { usage(); return 2; }
        if (!strcmp(a, "--max-per-class")) max_per_class = atoi(argv[++i]);
        else if (!strcmp(a, "--seed")) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(a, "--jobs")) jobs = atoi(argv[++i]);
        else if (!strcmp(a, "--json")) json_out = argv[++i];
        else if (!strcmp(a, "--keep")) keep_dir = argv[++i];
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(); return 0; }
        else if (a[0] == '-' && a[1]) { fprintf(stderr, "test_mutants: unknown option %s\n", a); usage(); return 2; }
        else paths[npaths++] = a;
    }
    if (max_per_class <= 0) { usage(); return 2; }
    if (!npaths) {   /* run without inputs (e.g. by a generic test runner): nothing to measure */
        printf("test_mutants: no input files (see tests/mutants.sh)\n0 passed, 0 failed\n");
        return 0;
    }
    if (jobs <= 0) {
        long nc = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = nc > 0 ? (int)(nc > 8 ? 8 : nc) : 2;
    }
    double t_start = now_s();
    bool have_ptxas = ptx_ptxas_find(g_ptxas, sizeof g_ptxas);
    snprintf(g_tmpdir, sizeof g_tmpdir, "%s/ptxgen-mutants-XXXXXX", getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(g_tmpdir)) { fprintf(stderr, "test_mutants: mkdtemp: %s\n", strerror(errno)); return 2; }

    int passed = 0, failed = 0;
    /* 1. load every input and check that the validator accepts it */
    pfile *files = calloc((size_t)npaths, sizeof(pfile));
    int nfiles = 0;
    for (int i = 0; i < npaths; i++) {
        pfile *F = &files[nfiles];
        F->path = paths[i];
        F->base = xstrdup(base_name(paths[i]));
        char *src = NULL;
        size_t len = 0;
        pg_diag_sink quiet = {0};
        if (pg_read_file(paths[i], PTX_MAX_FILE_BYTES, &src, &len, &quiet) != PG_OK) {
            printf("FAIL %s: cannot read\n", paths[i]);
            failed++;
            free(F->base);
            continue;
        }
        split_lines(F, src, len);
        analyze(F);
        vresult R;
        run_validator(src, len, paths[i], &R);
        F->clean = !R.crashed && R.nerrors == 0;
        if (R.crashed) {
            F->clean_errs = realloc(F->clean_errs, sizeof(char *) * (size_t)(F->nclean_errs + 1));
            F->clean_errs[F->nclean_errs++] = xstrdup(R.why);
        }
        for (int k = 0; k < R.ndiags; k++)
            if (R.diags[k].sev == PG_SEV_ERROR) {
                F->clean_errs = realloc(F->clean_errs, sizeof(char *) * (size_t)(F->nclean_errs + 1));
                F->clean_errs[F->nclean_errs++] =
                    xasprintf("%s:%d:%d: error[%s]: %s", paths[i], R.diags[k].line, R.diags[k].col, R.diags[k].code, R.diags[k].msg);
            }
        free(R.diags);
        free(src);
        if (F->clean) passed++;
        else {
            failed++;
            printf("FAIL %s: the validator rejects the original (%d error%s)\n", paths[i], F->nclean_errs,
                   F->nclean_errs == 1 ? "" : "s");
            for (int k = 0; k < F->nclean_errs && k < 10; k++) printf("    %s\n", F->clean_errs[k]);
        }
        nfiles++;
    }

    class_stats cs[C__COUNT];
    memset(cs, 0, sizeof cs);
    int nusable = 0;
    if (!have_ptxas) {
        printf("note: ptxas not found (set PTXAS or CUDA_HOME): mutants skipped, only the originals were checked\n");
    } else {
        /* 2. ptxas must accept the originals (else their mutants say nothing) */
        ptxas_job *oj = calloc((size_t)nfiles + 1, sizeof(ptxas_job));
        for (int i = 0; i < nfiles; i++) {
            snprintf(oj[i].path, sizeof oj[i].path, "%s", files[i].path);
            snprintf(oj[i].log, sizeof oj[i].log, "%s/orig%d.log", g_tmpdir, i);
            snprintf(oj[i].arch, sizeof oj[i].arch, "%s", files[i].arch);
            oj[i].reloc = files[i].reloc;
        }
        /* probe: does this ptxas still support sm_70? (CUDA 13 dropped it) */
        char probe[600];
        snprintf(probe, sizeof probe, "%s/probe.ptx", g_tmpdir);
        FILE *pf = fopen(probe, "w");
        if (pf) {
            fprintf(pf, ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n");
            fclose(pf);
        }
        snprintf(oj[nfiles].path, sizeof oj[nfiles].path, "%s", probe);
        snprintf(oj[nfiles].log, sizeof oj[nfiles].log, "%s/probe.log", g_tmpdir);
        snprintf(oj[nfiles].arch, sizeof oj[nfiles].arch, "sm_70");
        run_ptxas_jobs(oj, nfiles + 1, jobs);
        low_target = oj[nfiles].rc == 0 ? "sm_70" : "sm_75";
        unlink(probe);
        /* retry rejected originals as relocatable */
        ptxas_job *rj = calloc((size_t)nfiles + 1, sizeof(ptxas_job));
        int nr = 0, *rmap = calloc((size_t)nfiles + 1, sizeof(int));
        for (int i = 0; i < nfiles; i++)
            if (oj[i].rc != 0 && !files[i].reloc) {
                rj[nr] = oj[i];
                rj[nr].out = NULL;
                rj[nr].reloc = true;
                rmap[nr++] = i;
            }
        if (nr) run_ptxas_jobs(rj, nr, jobs);
        for (int k = 0; k < nr; k++)
            if (rj[k].rc == 0) { oj[rmap[k]].rc = 0; files[rmap[k]].reloc = true; }
        for (int i = 0; i < nfiles; i++) {
            files[i].ptxas_ok = oj[i].rc == 0;
            snprintf(files[i].ptxas_msg, sizeof files[i].ptxas_msg, "%s", oj[i].msg);
            files[i].usable = files[i].clean && files[i].ptxas_ok;
            if (!files[i].ptxas_ok)
                printf("note: ptxas rejects the original %s (%s): not mutated\n", files[i].path, oj[i].msg);
            nusable += files[i].usable;
        }
        for (int i = 0; i < nfiles + 1; i++) free(oj[i].out);
        for (int k = 0; k < nr; k++) free(rj[k].out);
        free(oj);
        free(rj);
        free(rmap);

        /* 3. per class: enumerate sites, draw round-robin, keep ptxas rejects */
        int seq = 0;
        for (int cls = 0; cls < C__COUNT; cls++) {
            class_stats *S = &cs[cls];
            sitevec *sv = calloc((size_t)nfiles, sizeof(sitevec));
            int maxsites = 0;
            for (int fi = 0; fi < nfiles; fi++) {
                const pfile *F = &files[fi];
                if (!F->usable) continue;
                uint64_t st = seed ^ pg_hash64_add(PG_HASH64_INIT_SHORT, F->base, strlen(F->base)) ^ ((uint64_t)(cls + 1) * 0xD1B54A32D192ED03ull);
                for (int li = 0; li < F->nlines; li++) {
                    uint64_t r = splitmix(&st);
                    mutant M;
                    if (!build_mutant(F, fi, cls, li, r, &M)) { free_mutant(&M); continue; }
                    free_mutant(&M);
                    if (sv[fi].n == sv[fi].cap) {
                        sv[fi].cap = sv[fi].cap ? sv[fi].cap * 2 : 16;
                        sv[fi].v = realloc(sv[fi].v, sizeof(site) * (size_t)sv[fi].cap);
                    }
                    sv[fi].v[sv[fi].n++] = (site){li, r};
                }
                for (int k = sv[fi].n - 1; k > 0; k--) {   /* Fisher-Yates */
                    int j = (int)(splitmix(&st) % (uint64_t)(k + 1));
                    site t = sv[fi].v[k];
                    sv[fi].v[k] = sv[fi].v[j];
                    sv[fi].v[j] = t;
                }
                if (sv[fi].n > maxsites) maxsites = sv[fi].n;
            }
            /* file order for this class */
            int *order = calloc((size_t)nfiles + 1, sizeof(int));
            uint64_t ost = seed ^ ((uint64_t)(cls + 7) * 0x9E3779B97F4A7C15ull);
            for (int i = 0; i < nfiles; i++) order[i] = i;
            for (int k = nfiles - 1; k > 0; k--) {
                int j = (int)(splitmix(&ost) % (uint64_t)(k + 1));
                int t = order[k];
                order[k] = order[j];
                order[j] = t;
            }
            /* the round-robin sequence of (file, site) */
            int nseq = 0, seqcap = 0;
            site *sseq = NULL;
            int *fseq = NULL;
            for (int rr = 0; rr < maxsites; rr++)
                for (int oi = 0; oi < nfiles; oi++) {
                    int fi = order[oi];
                    if (rr >= sv[fi].n) continue;
                    if (nseq == seqcap) {
                        seqcap = seqcap ? seqcap * 2 : 64;
                        sseq = realloc(sseq, sizeof(site) * (size_t)seqcap);
                        fseq = realloc(fseq, sizeof(int) * (size_t)seqcap);
                    }
                    sseq[nseq] = sv[fi].v[rr];
                    fseq[nseq++] = fi;
                }
            int max_tries = 3 * max_per_class, pos = 0;
            S->kept_m = calloc((size_t)max_per_class, sizeof(mutant));
            while (S->kept < max_per_class && S->generated < max_tries && pos < nseq) {
                int want = max_per_class - S->kept;
                int batch = want < 2 * jobs ? (want < jobs ? jobs : want) : 2 * jobs;
                if (batch > max_tries - S->generated) batch = max_tries - S->generated;
                if (batch > nseq - pos) batch = nseq - pos;
                mutant *ms = calloc((size_t)batch, sizeof(mutant));
                ptxas_job *pj = calloc((size_t)batch, sizeof(ptxas_job));
                char **texts = calloc((size_t)batch, sizeof(char *));
                size_t *lens = calloc((size_t)batch, sizeof(size_t));
                for (int b = 0; b < batch; b++) {
                    const pfile *F = &files[fseq[pos + b]];
                    build_mutant(F, fseq[pos + b], cls, sseq[pos + b].line, sseq[pos + b].r, &ms[b]);
                    texts[b] = mutant_text(F, &ms[b], &lens[b]);
                    snprintf(pj[b].path, sizeof pj[b].path, "%s/m%d.ptx", g_tmpdir, seq);
                    snprintf(pj[b].log, sizeof pj[b].log, "%s/m%d.log", g_tmpdir, seq);
                    seq++;
                    snprintf(pj[b].arch, sizeof pj[b].arch, "%s", ms[b].arch);
                    pj[b].reloc = F->reloc;
                    FILE *f = fopen(pj[b].path, "w");
                    if (f) { fwrite(texts[b], 1, lens[b], f); fclose(f); }
                }
                run_ptxas_jobs(pj, batch, jobs);
                int b = 0;
                for (; b < batch && S->kept < max_per_class; b++) {
                    mutant *M = &ms[b];
                    const pfile *F = &files[M->file];
                    S->generated++;
                    M->ptxas_rc = pj[b].rc;
                    snprintf(M->ptxas_msg, sizeof M->ptxas_msg, "%s", pj[b].msg);
                    memcpy(M->ptxas_lines, pj[b].lines, sizeof M->ptxas_lines);
                    M->nptxas_lines = pj[b].nlines;
                    M->ptxas_log = pj[b].out;
                    pj[b].out = NULL;
                    M->rejected = pj[b].rc != 0 && pj[b].rc != 127 && pj[b].rc != -1;
                    M->ptxas_failed = pj[b].rc == 127 || pj[b].rc == -1;
                    vresult R;
                    char vname[700];
                    snprintf(vname, sizeof vname, "%s", F->path);
                    run_validator(texts[b], lens[b], vname, &R);
                    M->diags = R.diags;
                    M->ndiags = R.ndiags;
                    M->crashed = R.crashed;
                    snprintf(M->crash_why, sizeof M->crash_why, "%s", R.why);
                    M->detected = !R.crashed && R.nerrors > 0;
                    for (int k = 0; k < R.ndiags && M->detected; k++)
                        if (R.diags[k].sev == PG_SEV_ERROR && accepts_line(M, R.diags[k].line)) M->localized = true;
                    if (M->rejected) {
                        S->kept++;
                        S->detected += M->detected;
                        S->localized += M->localized;
                        S->crashed += M->crashed;
                        if (keep_dir) keep_mutant(keep_dir, F, M, texts[b], lens[b]);
                        S->kept_m[S->nkept++] = *M;
                        M->newtext = NULL;
                        M->diags = NULL;
                        M->ptxas_log = NULL;
                    } else if (!M->ptxas_failed) {
                        S->accepted++;
                        if (M->detected || M->crashed) {
                            S->overflagged++;
                            S->over_m = realloc(S->over_m, sizeof(mutant) * (size_t)(S->nover + 1));
                            S->over_m[S->nover++] = *M;
                            M->newtext = NULL;
                            M->diags = NULL;
                            M->ptxas_log = NULL;
                        }
                    }
                }
                pos += b;
                for (int k = 0; k < batch; k++) {
                    free_mutant(&ms[k]);
                    free(texts[k]);
                    free(pj[k].out);
                    unlink(pj[k].path);
                }
                free(ms);
                free(pj);
                free(texts);
                free(lens);
            }
            for (int fi = 0; fi < nfiles; fi++) free(sv[fi].v);
            free(sv);
            free(order);
            free(sseq);
            free(fseq);
        }
    }
    rmdir(g_tmpdir);

    /* 4. report */
    printf("\nmutation test: %d input file%s (%d mutated), seed %llu, max %d kept per class, ptxas %s\n", nfiles,
           nfiles == 1 ? "" : "s", nusable, (unsigned long long)seed, max_per_class, have_ptxas ? g_ptxas : "(none)");
    printf("%-24s %6s %6s %8s %16s %16s %6s\n", "class", "tried", "kept", "ptxas-ok", "detected", "localized", "check");
    int T_gen = 0, T_kept = 0, T_acc = 0, T_det = 0, T_loc = 0;
    json_t *jclasses = json_array();
    for (int cls = 0; cls < C__COUNT; cls++) {
        class_stats *S = &cs[cls];
        T_gen += S->generated; T_kept += S->kept; T_acc += S->accepted; T_det += S->detected; T_loc += S->localized;
        double dr = S->kept ? 100.0 * S->detected / S->kept : 0, lr = S->kept ? 100.0 * S->localized / S->kept : 0;
        const char *chk = "-";
        if (S->kept) {
            bool ok = S->localized * 100 >= 95 * S->kept;
            chk = ok ? "pass" : "FAIL";
            if (ok) passed++;
            else failed++;
        }
        char dbuf[32], lbuf[32];
        snprintf(dbuf, sizeof dbuf, "%d (%5.1f%%)", S->detected, dr);
        snprintf(lbuf, sizeof lbuf, "%d (%5.1f%%)", S->localized, lr);
        printf("%-24s %6d %6d %8d %16s %16s %6s\n", class_names[cls], S->generated, S->kept, S->accepted,
               S->kept ? dbuf : "-", S->kept ? lbuf : "-", chk);
        json_t *jc = json_object();
        json_object_set_new(jc, "class", json_string(class_names[cls]));
        json_object_set_new(jc, "generated", json_integer(S->generated));
        json_object_set_new(jc, "kept", json_integer(S->kept));
        json_object_set_new(jc, "ptxas_accepted", json_integer(S->accepted));
        json_object_set_new(jc, "detected", json_integer(S->detected));
        json_object_set_new(jc, "localized", json_integer(S->localized));
        json_object_set_new(jc, "validator_crashes", json_integer(S->crashed));
        json_object_set_new(jc, "detected_rate", S->kept ? json_real(dr / 100.0) : json_null());
        json_object_set_new(jc, "localized_rate", S->kept ? json_real(lr / 100.0) : json_null());
        json_object_set_new(jc, "passed", S->kept ? json_boolean(S->localized * 100 >= 95 * S->kept) : json_null());
        json_t *jm = json_array();
        for (int k = 0; k < S->nkept; k++)
            if (!S->kept_m[k].localized) json_array_append_new(jm, mutant_json(&files[S->kept_m[k].file], &S->kept_m[k]));
        json_object_set_new(jc, "misses", jm);
        json_t *jo = json_array();
        for (int k = 0; k < S->nover; k++) json_array_append_new(jo, mutant_json(&files[S->over_m[k].file], &S->over_m[k]));
        json_object_set_new(jc, "ptxas_accepted_but_flagged", jo);
        json_array_append_new(jclasses, jc);
    }
    double tdr = T_kept ? 100.0 * T_det / T_kept : 0, tlr = T_kept ? 100.0 * T_loc / T_kept : 0;
    bool overall_ok = T_kept == 0 || T_loc * 100 >= 95 * T_kept;
    {
        char dbuf[32], lbuf[32];
        snprintf(dbuf, sizeof dbuf, "%d (%5.1f%%)", T_det, tdr);
        snprintf(lbuf, sizeof lbuf, "%d (%5.1f%%)", T_loc, tlr);
        printf("%-24s %6d %6d %8d %16s %16s %6s\n", "TOTAL", T_gen, T_kept, T_acc, T_kept ? dbuf : "-",
               T_kept ? lbuf : "-", T_kept ? (overall_ok ? "pass" : "FAIL") : "-");
    }
    if (T_kept) {
        if (overall_ok) passed++;
        else failed++;
    }
    /* misses, for whoever fixes the validator */
    int nmiss = 0;
    for (int cls = 0; cls < C__COUNT; cls++)
        for (int k = 0; k < cs[cls].nkept; k++) {
            const mutant *M = &cs[cls].kept_m[k];
            if (M->localized) continue;
            if (!nmiss++) printf("\nmissed or mislocalized (ptxas rejects; the validator %s):\n", "did not flag the offending line");
            char sum[1400];
            diag_summary(M, sum, sizeof sum);
            printf("  [%s] %s:%d: %s\n      mutant:  %s\n      ptxas:   %s\n      ptxgen:  %s%s\n", class_names[cls],
                   files[M->file].path, M->mut_line, M->desc, M->newtext && *M->newtext ? M->newtext : "(line deleted)",
                   M->ptxas_msg, M->detected ? "" : "NOT DETECTED: ", sum);
        }
    int nover = 0;
    for (int cls = 0; cls < C__COUNT; cls++)
        for (int k = 0; k < cs[cls].nover && k < 5; k++) {
            const mutant *M = &cs[cls].over_m[k];
            if (!nover++) printf("\ninfo: mutants that ptxas ACCEPTS but the validator rejects (at most 5 per class):\n");
            char sum[1400];
            diag_summary(M, sum, sizeof sum);
            printf("  [%s] %s:%d: %s\n      mutant:  %s\n      ptxgen:  %s\n", class_names[cls], files[M->file].path,
                   M->mut_line, M->desc, M->newtext && *M->newtext ? M->newtext : "(line deleted)", sum);
        }
    /* newer-target: which of the lines ptxas rejects does the validator miss? */
    int ncov = 0;
    for (int k = 0; k < cs[C_NEWER_TARGET].nkept; k++) {
        const mutant *M = &cs[C_NEWER_TARGET].kept_m[k];
        int unflagged[256], nu = 0;
        for (int i = 0; i < M->nptxas_lines; i++) {
            bool hit = false;
            for (int d = 0; d < M->ndiags; d++) hit |= M->diags[d].sev == PG_SEV_ERROR && M->diags[d].line == M->ptxas_lines[i];
            if (!hit) unflagged[nu++] = M->ptxas_lines[i];
        }
        if (!nu) continue;
        if (!ncov++) printf("\nnewer-target: lines ptxas rejects for the lowered target that the validator does not flag:\n");
        printf("  %s (%s): %d of %d lines unflagged\n", files[M->file].path, M->desc, nu, M->nptxas_lines);
        for (int i = 0; i < nu && i < 6; i++) {
            /* the first ptxas message for that line */
            char key[32], msg[300] = "";
            snprintf(key, sizeof key, ", line %d;", unflagged[i]);
            const char *p = M->ptxas_log ? strstr(M->ptxas_log, key) : NULL;
            if (p) {
                p += strlen(key);
                while (*p == ' ') p++;
                size_t n = strcspn(p, "\n");
                snprintf(msg, sizeof msg, "%.*s", (int)(n < 250 ? n : 250), p);
            }
            const char *src = files[M->file].lines[unflagged[i] - 1 < files[M->file].nlines ? unflagged[i] - 1 : 0].code;
            printf("      line %d: %s    <- %s\n", unflagged[i], src, msg);
        }
        if (nu > 6) printf("      ... and %d more\n", nu - 6);
    }
    printf("\nelapsed %.1f s (ptxas %.1f s wall, validator %.1f s)\n", now_s() - t_start, g_t_ptxas, g_t_validate);

    if (json_out) {
        json_t *top = json_object();
        json_object_set_new(top, "seed", json_integer((json_int_t)seed));
        json_object_set_new(top, "max_per_class", json_integer(max_per_class));
        json_object_set_new(top, "ptxas", have_ptxas ? json_string(g_ptxas) : json_null());
        json_object_set_new(top, "newer_target_lowered_to", json_string(low_target));
        json_t *jf = json_array();
        for (int i = 0; i < nfiles; i++) {
            json_t *o = json_object();
            json_object_set_new(o, "file", json_string(files[i].path));
            json_object_set_new(o, "arch", json_string(files[i].arch));
            json_object_set_new(o, "relocatable", json_boolean(files[i].reloc));
            json_object_set_new(o, "clean", json_boolean(files[i].clean));
            json_object_set_new(o, "ptxas_accepts", have_ptxas ? json_boolean(files[i].ptxas_ok) : json_null());
            json_t *e = json_array();
            for (int k = 0; k < files[i].nclean_errs; k++) json_array_append_new(e, json_string(files[i].clean_errs[k]));
            json_object_set_new(o, "errors", e);
            json_array_append_new(jf, o);
        }
        json_object_set_new(top, "files", jf);
        json_object_set_new(top, "classes", jclasses);
        json_t *tot = json_object();
        json_object_set_new(tot, "generated", json_integer(T_gen));
        json_object_set_new(tot, "kept", json_integer(T_kept));
        json_object_set_new(tot, "ptxas_accepted", json_integer(T_acc));
        json_object_set_new(tot, "detected", json_integer(T_det));
        json_object_set_new(tot, "localized", json_integer(T_loc));
        json_object_set_new(tot, "detected_rate", T_kept ? json_real(tdr / 100.0) : json_null());
        json_object_set_new(tot, "localized_rate", T_kept ? json_real(tlr / 100.0) : json_null());
        json_object_set_new(top, "total", tot);
        json_object_set_new(top, "passed", json_integer(passed));
        json_object_set_new(top, "failed", json_integer(failed));
        if (json_dump_file(top, json_out, JSON_INDENT(2)) != 0) fprintf(stderr, "test_mutants: cannot write %s\n", json_out);
        json_decref(top);
    } else {
        json_decref(jclasses);
    }

    for (int cls = 0; cls < C__COUNT; cls++) {
        for (int k = 0; k < cs[cls].nkept; k++) free_mutant(&cs[cls].kept_m[k]);
        for (int k = 0; k < cs[cls].nover; k++) free_mutant(&cs[cls].over_m[k]);
        free(cs[cls].kept_m);
        free(cs[cls].over_m);
    }
    for (int i = 0; i < nfiles; i++) free_file(&files[i]);
    free(files);
    free(paths);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
