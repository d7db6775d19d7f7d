/* plan_forms.c — three plan styles of the nvcc families, after synth_plan_defines
 * (docs/LITERATE.md, "Plan styles"; bench/results/2026-12-08-translation-styles-h115-cpu.md).
 *
 * Round 13's translations of the suite's references first departed from nvcc's PTX at a derived
 * row pointer (4 of 30), a loop nvcc unrolls (4) and 64-bit index arithmetic (3)
 * (bench/results/2026-12-07-translation-h108-cpu.md).  The synth's plans have each idiom about as
 * often as the suite, in its common forms; these styles add the forms they lacked or had less:
 *
 *   rowptr  `x[(size_t)row * cols + j]` (a kernel parameter subscripted by a size_t row offset
 *           plus a plain index) becomes `xr[j]` after `const float* xr = x + (size_t)row * cols;`,
 *           in the families that wrote the full subscript (suite: `const float* xr = x + ...`).
 *           The same address in size_t arithmetic: exact.  Variant `rp`.
 *   unroll  three or more consecutive statements that differ only in one integer literal, which
 *           steps by 1 (the poly family's hand-unrolled Clenshaw and Chebyshev steps:
 *           `{ float b0 = c[3] + ...; }`, `c[2]`, `c[1]`), become one `#pragma unroll` loop over
 *           that literal, counting down where it does (suite: `for (int k = 6; k >= 0; k--)`).
 *           The loop runs a constant number of times and nvcc unrolls it back: the same
 *           instructions, now under one plan line.  Variant `ur`.
 *   wide    a 32-bit thread index (`unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;`, or
 *           `int`, or the same start of a grid-stride loop `for (... i < E; i += gridDim.x *
 *           blockDim.x) {`) that the plan divides or takes a remainder of becomes `size_t i =
 *           (size_t)blockIdx.x * blockDim.x + threadIdx.x` (suite: `bias[i % cols]` with size_t
 *           i), only where every other use of i is a whole subscript `[i]`, a comparison in an
 *           `if`, or `(void)i`; a loop's bound and step stay as they were.  The values are the
 *           same while the index fits 31 bits (an int index) or 32 (unsigned): every launch of the
 *           task's grid; nvcc writes 64-bit division with a 32-bit fast path: other
 *           instructions, the point.
 *           Variant `64`.
 *
 * Each is drawn from its own stream of the seed, which no task choice uses.  Nothing here prints. */
#include "family_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool pf_id(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* Does identifier w occur in t as a whole token? */
static bool pf_has(const char *t, const char *w) {
    size_t m = strlen(w);
    for (const char *p = t; (p = strstr(p, w)) != NULL; p++)
        if ((p == t || !pf_id(p[-1])) && !pf_id(p[m])) return true;
    return false;
}

/* The plan as lines (pointers into a copy, NUL-terminated, no '\n'). */
typedef struct {
    char *text;
    char **l;
    int n;
} pf_lines;
static void pf_split(const char *cu, pf_lines *L) {
    L->text = strdup(cu);
    int cap = 16;
    L->l = malloc((size_t)cap * sizeof *L->l);
    L->n = 0;
    for (char *p = L->text; p;) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = 0;
        if (L->n == cap) L->l = realloc(L->l, (size_t)(cap *= 2) * sizeof *L->l);
        L->l[L->n++] = p;
        p = nl ? nl + 1 : NULL;
    }
    if (L->n > 1 && !L->l[L->n - 1][0] && cu[0] && cu[strlen(cu) - 1] == '\n') L->n--;   /* the last newline */
}
static void pf_free(pf_lines *L) {
    free(L->text);
    free(L->l);
}
static const char *pf_trim(const char *s) {
    while (*s == ' ' || *s == '\t') s++;
    return s;
}
/* A line of code: not blank, no comment line, no preprocessor line. */
static bool pf_code(const char *s) {
    s = pf_trim(s);
    return *s && *s != '#' && !(s[0] == '/' && s[1] == '/');
}
/* The length of a line's code part: up to a `//` outside a string, blanks at its end dropped. */
static size_t pf_codelen(const char *s) {
    size_t n = 0;
    bool str = false;
    for (; s[n]; n++) {
        if (s[n] == '"') str = !str;
        if (!str && s[n] == '/' && s[n + 1] == '/') break;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    return n;
}
/* A free name from the candidates (NULL when all are taken). */
static const char *pf_free_name(const char *cu, const char *const *cand, int n) {
    for (int i = 0; i < n; i++)
        if (!pf_has(cu, cand[i])) return cand[i];
    return NULL;
}
/* The text of the kernel's parameter list: from the '(' after `__global__ ... name` to ')' */
static bool pf_params(const char *cu, const char **b, const char **e) {
    const char *g = strstr(cu, "__global__");
    const char *o = g ? strchr(g, '(') : NULL;
    const char *c = o ? strchr(o, ')') : NULL;
    if (!c) return false;
    *b = o + 1;
    *e = c;
    return true;
}
/* The declared type of parameter `name` (the text before it, `__restrict__` dropped, blanks
 * collapsed) into ty; false when it is no parameter. */
static bool pf_param_type(const char *cu, const char *name, char *ty, size_t tyn) {
    const char *b, *e;
    if (!pf_params(cu, &b, &e)) return false;
    size_t m = strlen(name);
    for (const char *p = b; p < e; p++) {
        if (strncmp(p, name, m) || pf_id(p[m]) || (p > b && pf_id(p[-1]))) continue;
        const char *q = p + m;
        while (q < e && *q == ' ') q++;
        if (q < e && *q != ',' && *q != ')') continue;
        if (q == e || *q == ',' || *q == ')') {
            const char *s = p;
            while (s > b && s[-1] != ',' && s[-1] != '(') s--;
            size_t k = 0;
            bool sp = false;
            for (const char *t = s; t < p && k + 2 < tyn; t++) {
                if (!strncmp(t, "__restrict__", 12)) { t += 11; continue; }
                if (*t == ' ' || *t == '\t' || *t == '\n') { sp = k > 0; continue; }
                if (sp && ty[k - 1] != '*' && *t != '*') ty[k++] = ' ';
                sp = false;
                ty[k++] = *t;
            }
            ty[k] = 0;
            return k > 0;
        }
    }
    return false;
}

/* Is line i the body of an `if (...)`/`for (...)`/`else` above it without braces, or a line that
 * continues a statement (the code line before ends in neither `;`, `{` nor `}`)?  A line put before
 * it, or a run folded with it, would change what the statement above governs. */
static bool pf_governed(const pf_lines *L, int i) {
    const char *t = pf_trim(L->l[i]);
    if (!strncmp(t, "else", 4) && !pf_id(t[4])) return true;
    int pi = i - 1;
    while (pi >= 0 && !pf_code(L->l[pi])) pi--;
    if (pi < 0) return false;
    const char *ps = L->l[pi];
    size_t pn = pf_codelen(ps);
    if (!pn || !strchr(";{}", ps[pn - 1])) return true;
    const char *tp = pf_trim(ps);
    return !strncmp(tp, "else", 4) && !pf_id(tp[4]) && ps[pn - 1] != '{';
}

/* ---- unroll ------------------------------------------------------------------------------ */

/* The standalone decimal literals of s[0..n): their positions (at most 16) and the count. */
static int pf_literals(const char *s, size_t n, size_t *at, int max) {
    int k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || (i && (pf_id(s[i - 1]) || s[i - 1] == '.'))) continue;
        size_t j = i;
        while (j < n && s[j] >= '0' && s[j] <= '9') j++;
        if (j < n && (pf_id(s[j]) || s[j] == '.')) { i = j; continue; }   /* 3u, 1.5f, 0x */
        if (k == max) return -1;
        at[k++] = i;
        i = j - 1;
    }
    return k;
}
/* Lines a and b (code parts) equal but for their literals; the index of the one literal that
 * differs, -1 when none does, -2 when they differ otherwise. */
static int pf_one_literal(const char *a, size_t an, const char *b, size_t bn) {
    size_t pa[16], pb[16];
    int ka = pf_literals(a, an, pa, 16), kb = pf_literals(b, bn, pb, 16);
    if (ka < 0 || ka != kb) return -2;
    int diff = -1;
    size_t i = 0, j = 0;
    for (int k = 0; k <= ka; k++) {
        size_t ea = k < ka ? pa[k] : an, eb = k < kb ? pb[k] : bn;
        if (ea - i != eb - j || strncmp(a + i, b + j, ea - i)) return -2;
        if (k == ka) break;
        size_t la = 0, lb = 0;
        while (a[ea + la] >= '0' && a[ea + la] <= '9') la++;
        while (b[eb + lb] >= '0' && b[eb + lb] <= '9') lb++;
        if (la != lb || strncmp(a + ea, b + eb, la)) {
            if (diff >= 0) return -2;
            diff = k;
        }
        i = ea + la;
        j = eb + lb;
    }
    return diff;
}
static long pf_literal_at(const char *s, size_t n, int k) {
    size_t at[16];
    int m = pf_literals(s, n, at, 16);
    return k >= 0 && k < m ? strtol(s + at[k], NULL, 10) : -1;
}
/* A statement the run may repeat: a block `{ ... }` on one line, or an assignment to a name
 * (`acc = ...;`, `s[2] += ...;`): never a declaration, whose name a loop would hide. */
static bool pf_stmt(const char *s, size_t n) {
    if (n < 2) return false;
    if (s[0] == '{') {
        int d = 0;
        for (size_t i = 0; i < n; i++) {
            d += s[i] == '{' ? 1 : s[i] == '}' ? -1 : 0;
            if (d == 0 && i + 1 < n) return false;   /* one block */
        }
        return d == 0 && s[n - 1] == '}';
    }
    if (s[n - 1] != ';' || memchr(s, '{', n) || memchr(s, '}', n)) return false;
    size_t i = 0;
    while (i < n && pf_id(s[i])) i++;
    if (!i || (s[0] >= '0' && s[0] <= '9')) return false;
    static const char *const KW[] = {"return", "if", "for", "while", "else", "do", "break", "continue", "goto", "case"};
    for (size_t k = 0; k < sizeof KW / sizeof *KW; k++)
        if (strlen(KW[k]) == i && !strncmp(s, KW[k], i)) return false;
    while (i < n && s[i] == '[') {   /* subscripts */
        int d = 0;
        for (; i < n; i++) {
            d += s[i] == '[' ? 1 : s[i] == ']' ? -1 : 0;
            if (!d) { i++; break; }
        }
    }
    while (i < n && s[i] == ' ') i++;
    if (i < n && s[i] == '=' && s[i + 1] != '=') return true;
    return i + 1 < n && strchr("+-*/|&^", s[i]) && s[i + 1] == '=';
}

int synth_plan_unroll(uint64_t seed, pg_buf *cu) {
    if (!cu || !cu->data || !cu->len) return 0;
    fam_rng r = {seed ^ 0x756e726f6c6c7321ull};   /* "unrolls!" */
    if (synth_fam_pick(&r, 3) >= 2) return 0;        /* two plans in three that have the form */
    static const char *const VAR[] = {"k", "q", "kk", "t", "u"};
    const char *k = pf_free_name(cu->data, VAR, 5);
    if (!k) return 0;
    pf_lines L;
    pf_split(cu->data, &L);
    pg_buf o = {0};
    int runs = 0;
    for (int i = 0; i < L.n;) {
        const char *a = L.l[i], *ta = pf_trim(a);
        size_t an = pf_codelen(ta);
        int j = i + 1, which = -3;
        long step = 0;
        if (pf_code(a) && pf_codelen(ta) == strlen(ta) && pf_stmt(ta, an) && !pf_governed(&L, i)) {
            size_t ind = (size_t)(ta - a);
            for (; j < L.n; j++) {
                const char *b = L.l[j], *tb = pf_trim(b);
                size_t bn = strlen(tb);
                if ((size_t)(tb - b) != ind || strncmp(a, b, ind) || pf_codelen(tb) != bn) break;
                int d = pf_one_literal(ta, an, tb, bn);
                if (d < 0 || (which >= 0 && d != which)) break;
                long v0 = pf_literal_at(L.l[j - 1] + ind, strlen(L.l[j - 1] + ind), d), v1 = pf_literal_at(tb, bn, d);
                if ((v1 - v0 != 1 && v1 - v0 != -1) || (step && v1 - v0 != step)) break;
                which = d;
                step = v1 - v0;
            }
        }
        if (which >= 0 && j - i >= 3) {
            size_t ind = (size_t)(ta - a);
            long first = pf_literal_at(ta, an, which), last = pf_literal_at(pf_trim(L.l[j - 1]), pf_codelen(pf_trim(L.l[j - 1])), which);
            size_t at[16];
            pf_literals(ta, an, at, 16);
            size_t ln = 0;
            while (ta[at[which] + ln] >= '0' && ta[at[which] + ln] <= '9') ln++;
            pg_buf_printf(&o, "%.*s#pragma unroll\n", (int)ind, a);
            if (step > 0)
                pg_buf_printf(&o, "%.*sfor (int %s = %ld; %s < %ld; %s++) ", (int)ind, a, k, first, k, last + 1, k);
            else
                pg_buf_printf(&o, "%.*sfor (int %s = %ld; %s >= %ld; %s--) ", (int)ind, a, k, first, k, last, k);
            pg_buf_printf(&o, "%.*s%s%s\n", (int)at[which], ta, k, ta + at[which] + ln);
            runs++;
            i = j;
            continue;
        }
        pg_buf_printf(&o, "%s\n", a);
        i++;
    }
    pf_free(&L);
    if (!runs) {
        pg_buf_free(&o);
        return 0;
    }
    if (cu->data[cu->len - 1] != '\n' && o.len) o.data[--o.len] = 0;
    pg_buf_free(cu);
    *cu = o;
    return runs;
}

/* ---- wide -------------------------------------------------------------------------------- */

/* Is the use of v at p (a whole token) one the widening keeps the value of?  `[v]`, `v / W`,
 * `v % W` (W a name or a parenthesized expression), a comparison `v < E`/`v >= E` on an `if` line,
 * `(void)v`. */
static bool pf_wide_use(const char *line, const char *p, size_t vn) {
    const char *q = p + vn;
    while (*q == ' ') q++;
    const char *b = p;
    while (b > line && b[-1] == ' ') b--;
    if (b > line && b[-1] == '[' && *q == ']') return true;
    if (b - line >= 6 && !strncmp(b - 6, "(void)", 6) && *q == ';') return true;
    if ((*q == '/' || *q == '%') && q[1] == ' ') return true;
    const char *t = pf_trim(line);
    bool iff = !strncmp(t, "if (", 4) || !strncmp(t, "if(", 3);
    if (iff && ((*q == '<' && q[1] != '<') || (*q == '>' && q[1] == '='))) return true;
    return false;
}

/* The thread index's declaration on line t: `TYPE v = blockIdx.x * blockDim.x + threadIdx.x;`, or
 * the grid-stride header `for (TYPE v = <that>; v < E; v += gridDim.x * blockDim.x) {` (TYPE
 * unsigned int, unsigned, int, with or without const).  Fills v and the text after the start
 * expression (`;` or `; v < E; ...`); returns the length of TYPE's text, 0 when no such line. */
static size_t pf_index_decl(const char *t, char *v, size_t vn, const char **rest, bool *loop) {
    static const char *const DECL[] = {"const unsigned int ", "const unsigned ", "const int ", "unsigned int ", "unsigned ", "int "};
    static const char *START = " = blockIdx.x * blockDim.x + threadIdx.x";
    *loop = !strncmp(t, "for (", 5);
    if (*loop) t += 5;
    for (size_t d = 0; d < sizeof DECL / sizeof *DECL; d++) {
        size_t dn = strlen(DECL[d]);
        if (strncmp(t, DECL[d], dn)) continue;
        const char *n = t + dn, *z = n;
        while (pf_id(*z)) z++;
        if (z == n || (size_t)(z - n) >= vn || strncmp(z, START, strlen(START))) return 0;
        snprintf(v, vn, "%.*s", (int)(z - n), n);
        *rest = z + strlen(START);
        if (!*loop) return !strcmp(*rest, ";") ? dn : 0;
        /* `; v < E; v += gridDim.x * blockDim.x) {` */
        const char *r = *rest;
        size_t m = strlen(v);
        if (strncmp(r, "; ", 2) || strncmp(r + 2, v, m) || strncmp(r + 2 + m, " < ", 3)) return 0;
        const char *s2 = strchr(r + 2, ';');
        if (!s2 || strncmp(s2 + 2, v, m)) return 0;
        const char *st = s2 + 2 + m;
        if (strcmp(st, " += gridDim.x * blockDim.x) {") && strcmp(st, " += blockDim.x * gridDim.x) {")) return 0;
        return dn;
    }
    return 0;
}

int synth_plan_wide(uint64_t seed, pg_buf *cu) {
    if (!cu || !cu->data || !cu->len) return 0;
    fam_rng r = {seed ^ 0x73697a655f743634ull};   /* "size_t64" */
    if (synth_fam_pick(&r, 3) >= 2) return 0;
    pf_lines L;
    pf_split(cu->data, &L);
    int at = -1;
    char v[64] = "";
    const char *rest = NULL;
    bool loop = false;
    size_t tyn = 0;
    for (int i = 0; i < L.n && at < 0; i++)
        if ((tyn = pf_index_decl(pf_trim(L.l[i]), v, sizeof v, &rest, &loop)) > 0) at = i;
    bool ok = at >= 0, divides = false;
    size_t vn = strlen(v);
    for (int i = at + 1; ok && i < L.n; i++) {
        const char *s = L.l[i];
        size_t n = pf_codelen(s);
        if (!pf_code(s)) continue;
        for (const char *p = s; (p = strstr(p, v)) != NULL && p < s + n; p++) {
            if ((p > s && (pf_id(p[-1]) || p[-1] == '.')) || pf_id(p[vn])) continue;
            if (!pf_wide_use(s, p, vn)) { ok = false; break; }
            const char *q = p + vn;
            while (*q == ' ') q++;
            divides |= *q == '/' || *q == '%';
        }
    }
    /* the name is declared once: no other declaration of it to shadow or be shadowed */
    if (ok && divides) {
        int decls = 0;
        for (int i = 0; i < L.n; i++)
            for (const char *p = L.l[i]; (p = strstr(p, v)) != NULL; p++)
                if ((p == L.l[i] || !pf_id(p[-1])) && !pf_id(p[vn]) && p > L.l[i] + 1 && (pf_id(p[-2]) || p[-2] == '*') && p[-1] == ' ') decls++;
        ok = decls == 1;
    }
    if (!ok || !divides) {
        pf_free(&L);
        return 0;
    }
    pg_buf o = {0};
    for (int i = 0; i < L.n; i++) {
        if (i == at) {
            const char *t = pf_trim(L.l[i]);
            bool cnst = !strncmp(t + (loop ? 5 : 0), "const ", 6);
            pg_buf_printf(&o, "%.*s%s%ssize_t %s = (size_t)blockIdx.x * blockDim.x + threadIdx.x%s\n", (int)(t - L.l[i]), L.l[i],
                          loop ? "for (" : "", cnst ? "const " : "", v, rest);
        } else {
            pg_buf_printf(&o, "%s\n", L.l[i]);
        }
    }
    (void)tyn;
    pf_free(&L);
    if (cu->data[cu->len - 1] != '\n' && o.len) o.data[--o.len] = 0;
    pg_buf_free(cu);
    *cu = o;
    return 1;
}

/* ---- rowptr ------------------------------------------------------------------------------ */

/* At p: `(size_t)A * B + J]` with A, B, J names (blanks as the families write them)?  Fills the
 * offset `(size_t)A * B` and J; returns the length up to and including the ']'. */
static size_t pf_rowsub(const char *p, char *off, size_t offn, char *j, size_t jn) {
    const char *s = p;
    if (strncmp(s, "(size_t)", 8)) return 0;
    s += 8;
    const char *a = s;
    while (pf_id(*s)) s++;
    if (s == a || (*a >= '0' && *a <= '9') || strncmp(s, " * ", 3)) return 0;
    s += 3;
    const char *b = s;
    while (pf_id(*s)) s++;
    if (s == b || (*b >= '0' && *b <= '9') || strncmp(s, " + ", 3)) return 0;
    snprintf(off, offn, "%.*s", (int)(s - p), p);
    s += 3;
    const char *c = s;
    while (pf_id(*s)) s++;
    if (s == c || *s != ']') return 0;
    snprintf(j, jn, "%.*s", (int)(s - c), c);
    return (size_t)(s + 1 - p);
}
/* Does line s assign or declare name w (`w =`, `w +=`, `w++`, `++w`, a for header's `w =`)? */
static bool pf_assigns(const char *s, const char *w) {
    size_t m = strlen(w);
    for (const char *p = s; (p = strstr(p, w)) != NULL; p++) {
        if ((p > s && pf_id(p[-1])) || pf_id(p[m])) continue;
        const char *q = p + m;
        while (*q == ' ') q++;
        if ((q[0] == '=' && q[1] != '=') || ((q[0] == '+' || q[0] == '-') && q[1] == q[0]) ||
            (q[1] == '=' && strchr("+-*/%|&^<>", q[0]) && !(q[0] == '<' || q[0] == '>')) || (q[0] == '<' && q[1] == '<' && q[2] == '=') ||
            (q[0] == '>' && q[1] == '>' && q[2] == '='))
            return true;
        if (p >= s + 2 && ((p[-1] == '+' && p[-2] == '+') || (p[-1] == '-' && p[-2] == '-'))) return true;
    }
    return false;
}

int synth_plan_rowptr(uint64_t seed, pg_buf *cu) {
    if (!cu || !cu->data || !cu->len) return 0;
    fam_rng r = {seed ^ 0x726f77706f696e74ull};   /* "rowpoint" */
    if (synth_fam_pick(&r, 4) >= 1) return 0;        /* one plan in four that has the form */
    pf_lines L;
    pf_split(cu->data, &L);
    /* the first parameter subscripted with a row offset, and its offset */
    char q[64] = "", off[160] = "", jj[64];
    int first = -1;
    for (int i = 0; i < L.n && first < 0; i++) {
        const char *s = L.l[i];
        if (!pf_code(s)) continue;
        size_t n = pf_codelen(s);
        for (const char *p = strchr(s, '['); p && p < s + n && first < 0; p = strchr(p + 1, '[')) {
            const char *b = p;
            while (b > s && pf_id(b[-1])) b--;
            char ty[96];
            if (b == p || (size_t)(p - b) >= sizeof q) continue;
            snprintf(q, sizeof q, "%.*s", (int)(p - b), b);
            if (!pf_rowsub(p + 1, off, sizeof off, jj, sizeof jj) || !pf_param_type(cu->data, q, ty, sizeof ty) || !strchr(ty, '*')) continue;
            first = i;
        }
    }
    if (first < 0) {
        pf_free(&L);
        return 0;
    }
    /* the scope: the block the first use's line opens in; every use must come before it closes,
     * and no line from the first use on may assign a name of the offset */
    char a[64], b[64];
    {
        const char *s = off + 8, *z = strchr(s, ' ');
        snprintf(a, sizeof a, "%.*s", (int)(z - s), s);
        snprintf(b, sizeof b, "%s", z + 3);
    }
    const char *t0 = pf_trim(L.l[first]);
    bool ok = *t0 != '}' && !pf_assigns(L.l[first], a) && !pf_assigns(L.l[first], b);
    if (ok && pf_governed(&L, first)) ok = false;
    int depth = 0, uses = 0;
    size_t qn = strlen(q);
    char sub[300];
    snprintf(sub, sizeof sub, "%s[%s + ", q, off);
    for (int i = first; ok && i < L.n; i++) {
        const char *s = L.l[i];
        if (!pf_code(s)) continue;
        size_t n = pf_codelen(s);
        for (size_t c = 0; c < n; c++) {
            if (s[c] == '{') depth++;
            if (s[c] == '}' && --depth < 0) break;
        }
        if (i > first && (pf_assigns(s, a) || pf_assigns(s, b))) {
            /* an assignment after the last use is harmless: decided below */
            bool later = false;
            for (int k = i; k < L.n && !later; k++) later = strstr(L.l[k], sub) != NULL;
            if (later) ok = false;
        }
        if (strstr(s, sub)) {
            if (depth < 0 && i > first) ok = false;
        }
        if (depth < 0) {   /* the block closed: no use may follow */
            for (int k = i + 1; k < L.n && ok; k++)
                if (strstr(L.l[k], sub)) ok = false;
            break;
        }
    }
    /* every subscript of q with this offset is `q[off + J]` with J a name */
    char ty[96];
    static const char *const SUF[] = {"r", "row", "_row", "_r"};
    char nm[96] = "";
    if (ok && pf_param_type(cu->data, q, ty, sizeof ty)) {
        for (size_t k = 0; k < 4 && !nm[0]; k++) {
            char c[96];
            snprintf(c, sizeof c, "%s%s", q, SUF[k]);
            if (strlen(c) < 60 && !pf_has(cu->data, c)) snprintf(nm, sizeof nm, "%s", c);
        }
    }
    if (!ok || !nm[0]) {
        pf_free(&L);
        return 0;
    }
    char *star = strrchr(ty, '*');
    *star = 0;
    size_t tl = strlen(ty);
    while (tl && ty[tl - 1] == ' ') ty[--tl] = 0;
    pg_buf o = {0};
    for (int i = 0; i < L.n; i++) {
        const char *s = L.l[i];
        if (i == first) pg_buf_printf(&o, "%.*s%s* %s = %s + %s;\n", (int)(t0 - s), s, ty, nm, q, off);
        if (i < first || !pf_code(s)) {
            pg_buf_printf(&o, "%s\n", s);
            continue;
        }
        for (const char *p = s; *p;) {
            const char *h = strstr(p, sub);
            if (h && (h == s || !pf_id(h[-1]))) {
                char jv[64], of2[160];
                size_t m = pf_rowsub(h + qn + 1, of2, sizeof of2, jv, sizeof jv);
                if (m) {
                    pg_buf_putn(&o, p, (size_t)(h - p));
                    pg_buf_printf(&o, "%s[%s]", nm, jv);
                    uses++;
                    p = h + qn + 1 + m;
                    continue;
                }
            }
            if (!h) { pg_buf_puts(&o, p); break; }
            pg_buf_putn(&o, p, (size_t)(h - p) + 1);
            p = h + 1;
        }
        pg_buf_putc(&o, '\n');
    }
    pf_free(&L);
    if (!uses) {
        pg_buf_free(&o);
        return 0;
    }
    if (cu->data[cu->len - 1] != '\n' && o.len) o.data[--o.len] = 0;
    pg_buf_free(cu);
    *cu = o;
    return uses;
}

int synth_plan_forms(uint64_t seed, pg_buf *cu, char *tags, size_t tagsn) {
    if (tags && tagsn) tags[0] = 0;
    int n = 0;
    pg_buf t = {0};
    bool rp = synth_plan_rowptr(seed, cu) > 0, ur = synth_plan_unroll(seed, cu) > 0, w = synth_plan_wide(seed, cu) > 0;
    if (rp) pg_buf_puts(&t, "/rp");
    if (ur) pg_buf_puts(&t, "/ur");
    if (w) pg_buf_puts(&t, "/64");
    n = rp + ur + w;
    if (tags && tagsn) snprintf(tags, tagsn, "%s", t.len ? t.data + 1 : "");
    pg_buf_free(&t);
    return n;
}
