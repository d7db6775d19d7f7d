/* plan_stride.c — the "stride variable" plan style of the nvcc families (docs/LITERATE.md, "Plan styles").
 *
 * Hand-written CUDA names a loop's launch-derived step before the loop:
 *     unsigned int stride = gridDim.x * blockDim.x;
 *     for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) ...
 * 5 of the 86 references of bench/suite and bench/suite-prose do so, every time in this form; the
 * synth's plans wrote the step in the loop (`i += gridDim.x * blockDim.x`), and round 13's PTX
 * turn, given such a plan, made the stride `blockIdx.x * blockDim.x` and started i at threadIdx.x
 * (bench/results/2026-12-07-translation-h108-cpu.md, bench/results/2026-12-08-stride-style-h113-cpu.md).
 *
 * synth_plan_stride rewrites a plan so: a `for` loop of a __global__ kernel whose step is
 * `v += E`, E an expression of gridDim/blockDim members and integer literals only (a grid stride
 * `gridDim.x * blockDim.x`, `(size_t)gridDim.x * 256`, a block stride `blockDim.x`, a row-per-block
 * stride `gridDim.x`), gets `T NAME = E;` and `v += NAME`.  T is E's own type (`size_t` when E has
 * a `(size_t)` cast, else `unsigned int`: every member is one, and a literal without an l suffix
 * converts to it), so `v += NAME` is the very computation `v += E` was (E has no side effect and
 * its operands do not change during the kernel).  The declaration goes on the line before the
 * loop (its comment and pragma lines), as the suite writes it, or first in the kernel's body.
 * Nothing here prints. */
#include "family_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool ps_id(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* Does identifier w occur in t as a whole token (comments included)? */
static bool ps_has(const char *t, const char *w) {
    size_t m = strlen(w);
    for (const char *p = t; (p = strstr(p, w)) != NULL; p++)
        if ((p == t || !ps_id(p[-1])) && !ps_id(p[m])) return true;
    return false;
}

/* The plan with its comments and string literals blanked (same length): what the scans read. */
static char *ps_code(const char *t, size_t n) {
    char *c = malloc(n + 1);
    if (!c) return NULL;
    memcpy(c, t, n);
    c[n] = 0;
    for (size_t i = 0; i < n;) {
        if (c[i] == '/' && i + 1 < n && c[i + 1] == '/') {
            while (i < n && c[i] != '\n') c[i++] = ' ';
        } else if (c[i] == '/' && i + 1 < n && c[i + 1] == '*') {
            size_t j = i + 2;
            while (j + 1 < n && !(c[j] == '*' && c[j + 1] == '/')) j++;
            j = j + 1 < n ? j + 2 : n;
            for (; i < j; i++)
                if (c[i] != '\n') c[i] = ' ';
        } else if (c[i] == '"' || c[i] == '\'') {
            char q = c[i++];
            while (i < n && c[i] != q && c[i] != '\n') {
                if (c[i] == '\\' && i + 1 < n) c[i++] = ' ';
                c[i++] = ' ';
            }
            i++;
        } else {
            i++;
        }
    }
    return c;
}

/* The class of a launch-derived step E = [s, s+n): 0 not one (anything but gridDim/blockDim
 * members, integer literals without an l suffix, `(size_t)`, + - * / << >>, parentheses and
 * blanks, or no member at all); else bit 1 gridDim, bit 2 blockDim, bit 4 a division by 32 (or
 * >> 5: warps), bit 8 a (size_t) cast, bit 16 a literal. */
static int ps_class(const char *s, size_t n) {
    int cls = 0, depth = 0;
    for (size_t i = 0; i < n;) {
        char c = s[i];
        if (c == ' ' || c == '\t') { i++; continue; }
        if (!strncmp(s + i, "(size_t)", 8) && i + 8 <= n) { cls |= 8; i += 8; continue; }
        if (c == '(') { depth++; i++; continue; }
        if (c == ')') { if (--depth < 0) return 0; i++; continue; }
        if (c == '+' || c == '-' || c == '*') {
            if (i + 1 < n && (s[i + 1] == '=' || s[i + 1] == c)) return 0;   /* no ++, --, *=, -= inside */
            i++;
            continue;
        }
        if (c == '/') {
            size_t j = i + 1;
            while (j < n && s[j] == ' ') j++;
            if (j + 2 <= n && !strncmp(s + j, "32", 2) && (j + 2 == n || !ps_id(s[j + 2]))) cls |= 4;
            i++;
            continue;
        }
        if ((c == '<' || c == '>') && i + 1 < n && s[i + 1] == c) {
            size_t j = i + 2;
            while (j < n && s[j] == ' ') j++;
            if (c == '>' && j < n && s[j] == '5' && (j + 1 == n || !ps_id(s[j + 1]))) cls |= 4;
            i += 2;
            continue;
        }
        if (c >= '0' && c <= '9') {
            size_t j = i;
            while (j < n && s[j] >= '0' && s[j] <= '9') j++;
            if (j < n && (s[j] == 'u' || s[j] == 'U')) j++;
            if (j < n && (ps_id(s[j]) || s[j] == '.')) return 0;   /* 0x.., 1l, 2.0f */
            cls |= 16;
            i = j;
            continue;
        }
        if (!strncmp(s + i, "gridDim.", 8) || !strncmp(s + i, "blockDim.", 9)) {
            size_t j = i + (s[i] == 'g' ? 8 : 9);
            if (j >= n || (s[j] != 'x' && s[j] != 'y' && s[j] != 'z') || (j + 1 < n && ps_id(s[j + 1]))) return 0;
            cls |= s[i] == 'g' ? 1 : 2;
            i = j + 1;
            continue;
        }
        return 0;
    }
    return depth == 0 && (cls & 3) ? cls : 0;
}

/* One loop whose step is launch-derived: the line's start, the step expression's place in the
 * plan, and its text with blanks collapsed (the group key). */
typedef struct {
    size_t line, e0, e1;
    char key[160];
    int cls, group;
} ps_loop;

/* Where the line holding position at starts. */
static size_t ps_line_start(const char *t, size_t at) {
    while (at > 0 && t[at - 1] != '\n') at--;
    return at;
}

/* Is line [b, ...) (of the blanked code) blank? */
static bool ps_blank_line(const char *c, size_t b, size_t n) {
    for (size_t i = b; i < n && c[i] != '\n'; i++)
        if (c[i] != ' ' && c[i] != '\t' && c[i] != '\r') return false;
    return true;
}

/* The place for a declaration right before the loop whose line starts at ln: above the comment and
 * #pragma lines directly over it; (size_t)-1 where the code line before it does not end a
 * statement or open a block (`if (c)`, `else`, `case 1:` would take the declaration as their
 * body).  c: the blanked code, t: the plan. */
static size_t ps_before_place(const char *t, const char *c, size_t n, size_t ln) {
    size_t at = ln;
    while (at > 0) {
        size_t pb = ps_line_start(t, at - 1);
        const char *q = t + pb;
        while (*q == ' ' || *q == '\t') q++;
        bool pragma = *q == '#', comment = q[0] == '/' && q[1] == '/';
        if (!(pragma || comment) || ps_blank_line(t, pb, n)) break;
        at = pb;
    }
    /* the code before: its last non-blank character */
    size_t k = at;
    while (k > 0 && (c[k - 1] == ' ' || c[k - 1] == '\t' || c[k - 1] == '\n' || c[k - 1] == '\r')) k--;
    if (k == 0) return (size_t)-1;
    char last = c[k - 1];
    return last == ';' || last == '{' || last == '}' ? at : (size_t)-1;
}

typedef struct { size_t at, del; char *ins; int idx; } ps_edit;

static int ps_edit_cmp(const void *a, const void *b) {
    const ps_edit *x = a, *y = b;
    return x->at != y->at ? (x->at < y->at ? -1 : 1) : x->idx - y->idx;   /* insertions at one place: in order */
}

int synth_plan_stride(uint64_t seed, pg_buf *cu, char *name, size_t namen) {
    if (name && namen) name[0] = 0;
    if (!cu || !cu->data || !cu->len) return 0;
    fam_rng r = {seed ^ 0x706c6e7374726964ull};   /* "plnstrid": no family draws from this stream */
    if (synth_fam_pick(&r, 4) != 0) return 0;     /* one plan in four that has the form */
    const char *t = cu->data;
    size_t n = cu->len;
    char *c = ps_code(t, n);
    if (!c) return 0;
    enum { MAXL = 32, MAXE = 2 * MAXL };
    ps_loop loops[MAXL];
    int nl = 0;
    ps_edit ed[MAXE];
    int ne = 0, replaced = 0;
    char first[40] = "";
    /* each __global__ kernel's body */
    for (const char *g = strstr(c, "__global__"); g; g = strstr(g + 10, "__global__")) {
        const char *po = strchr(g, '(');
        if (!po) break;
        int d = 0;
        const char *q = po;
        for (; *q; q++) {
            if (*q == '(') d++;
            else if (*q == ')' && --d == 0) break;
        }
        const char *ob = *q ? strchr(q, '{') : NULL;
        if (!ob) break;
        const char *cb = ob;
        for (d = 0; *cb; cb++) {
            if (*cb == '{') d++;
            else if (*cb == '}' && --d == 0) break;
        }
        if (!*cb) break;
        size_t body0 = (size_t)(ob - c), body1 = (size_t)(cb - c);
        /* its loops with a launch-derived step (the header on one line) */
        nl = 0;
        for (size_t ln = ps_line_start(c, body0 + 1); ln < body1 && nl < MAXL;) {
            const char *s = c + ln;
            while (*s == ' ' || *s == '\t') s++;
            const char *eol = strchr(c + ln, '\n');
            size_t next = eol ? (size_t)(eol - c) + 1 : n;
            if (!strncmp(s, "for", 3) && (s[3] == ' ' || s[3] == '(') && (size_t)(s - c) > body0) {
                const char *h = strchr(s, '(');
                const char *semi[2] = {NULL, NULL};
                int ns = 0;
                d = 0;
                const char *z = h;
                for (; z && *z && *z != '\n'; z++) {
                    if (*z == '(') d++;
                    else if (*z == ')' && --d == 0) break;
                    else if (*z == ';' && d == 1 && ns < 2) semi[ns++] = z;
                }
                if (z && *z == ')' && ns == 2) {
                    const char *a = semi[1] + 1;
                    while (*a == ' ') a++;
                    const char *v = a;
                    while (ps_id(*v)) v++;
                    const char *op = v;
                    while (*op == ' ') op++;
                    if (v > a && op[0] == '+' && op[1] == '=') {
                        const char *e0 = op + 2, *e1 = z;
                        while (*e0 == ' ') e0++;
                        while (e1 > e0 && e1[-1] == ' ') e1--;
                        int cls = e1 > e0 ? ps_class(e0, (size_t)(e1 - e0)) : 0;
                        if (cls && (size_t)(e1 - e0) < sizeof loops[0].key) {
                            ps_loop *L = &loops[nl++];
                            L->line = ln;
                            L->e0 = (size_t)(e0 - c);
                            L->e1 = (size_t)(e1 - c);
                            L->cls = cls;
                            L->group = -1;
                            size_t kk = 0;
                            for (const char *x = e0; x < e1 && kk + 1 < sizeof L->key; x++)
                                if (*x != ' ' || (kk && L->key[kk - 1] != ' ')) L->key[kk++] = *x;
                            L->key[kk] = 0;
                        }
                    }
                }
            }
            ln = next;
        }
        /* one name per distinct step, in order of first appearance */
        for (int i = 0; i < nl; i++) {
            if (loops[i].group >= 0) continue;
            for (int j = i; j < nl; j++)
                if (!strcmp(loops[j].key, loops[i].key)) loops[j].group = i;
            int cls = loops[i].cls;
            /* by what E counts: the grid's threads, its blocks, the grid times a literal (threads or
             * rows or elements per block), the block's threads, warps */
            static const char *const GRID[] = {"stride", "stride", "stride", "gstride", "grid_stride", "nthreads", "total_threads", "step"};
            static const char *const BLOCKS[] = {"stride", "nblocks", "grid_stride", "step"};
            static const char *const GRIDN[] = {"stride", "stride", "gstride", "grid_stride", "step"};
            static const char *const BLOCK[] = {"nt", "nthreads", "stride", "block_stride", "bdim", "step"};
            static const char *const WARPS[] = {"nwarps", "warp_stride", "stride", "total_warps"};
            const char *const *names;
            int nn;
            if (cls & 4) names = WARPS, nn = 4;
            else if ((cls & 3) == 3) names = GRID, nn = 8;
            else if (cls & 1) names = cls & 16 ? GRIDN : BLOCKS, nn = cls & 16 ? 5 : 4;
            else names = BLOCK, nn = 6;
            int k0 = synth_fam_pick(&r, nn);
            const char *nm = NULL;
            for (int k = 0; k < nn && !nm; k++) {
                const char *cand = names[(k0 + k) % nn];
                bool used = ps_has(t, cand);
                for (int e = 0; e < ne && !used; e++) used = ed[e].ins && ps_has(ed[e].ins, cand);
                if (!used) nm = cand;
            }
            bool cnst = synth_fam_pick(&r, 3) == 0, top = synth_fam_pick(&r, 3) == 0;
            if (!nm || ne + 2 + nl > MAXE) continue;
            /* before the first loop: every loop of the group in the block that holds it, after it */
            size_t at = ps_before_place(t, c, n, loops[i].line);
            if (at != (size_t)-1) {
                size_t ob2 = loops[i].line;
                for (d = 0; ob2 > body0; ob2--) {
                    if (c[ob2 - 1] == '}') d++;
                    else if (c[ob2 - 1] == '{' && d-- == 0) break;
                }
                size_t cb2 = ob2;   /* just after the enclosing '{' */
                for (d = 1; cb2 < n && d; cb2++) d += c[cb2] == '{' ? 1 : c[cb2] == '}' ? -1 : 0;
                for (int j = i + 1; j < nl; j++)
                    if (loops[j].group == i && loops[j].line >= cb2) at = (size_t)-1;
            }
            size_t ind_from = loops[i].line;
            if (top || at == (size_t)-1) {   /* first in the body: after the line that opens it */
                const char *eol = strchr(c + body0, '\n');
                if (!eol || !ps_blank_line(c, body0 + 1, n)) {
                    if (at == (size_t)-1) continue;
                } else {
                    at = (size_t)(eol - c) + 1;
                    ind_from = at;
                    while (ind_from < body1 && ps_blank_line(c, ind_from, n)) {
                        const char *e2 = strchr(c + ind_from, '\n');
                        if (!e2) break;
                        ind_from = (size_t)(e2 - c) + 1;
                    }
                }
            }
            size_t ind = 0;
            while (t[ind_from + ind] == ' ' || t[ind_from + ind] == '\t') ind++;
            pg_buf decl = {0};
            pg_buf_printf(&decl, "%.*s%s%s %s = %s;\n", (int)ind, t + ind_from, cnst ? "const " : "", cls & 8 ? "size_t" : "unsigned int", nm,
                          loops[i].key);
            ed[ne] = (ps_edit){at, 0, decl.data, ne};
            ne++;
            for (int j = i; j < nl; j++)
                if (loops[j].group == i) {
                    ed[ne] = (ps_edit){loops[j].e0, loops[j].e1 - loops[j].e0, strdup(nm), ne};
                    ne++;
                    replaced++;
                }
            if (!first[0]) snprintf(first, sizeof first, "%s", nm);
        }
        g = cb - 10 > g ? cb - 10 : g;
    }
    free(c);
    if (!replaced) {
        for (int e = 0; e < ne; e++) free(ed[e].ins);
        return 0;
    }
    qsort(ed, (size_t)ne, sizeof ed[0], ps_edit_cmp);
    pg_buf o = {0};
    size_t p = 0;
    for (int e = 0; e < ne; e++) {
        pg_buf_putn(&o, t + p, ed[e].at - p);
        pg_buf_puts(&o, ed[e].ins);
        p = ed[e].at + ed[e].del;
        free(ed[e].ins);
    }
    pg_buf_putn(&o, t + p, n - p);
    pg_buf_free(cu);
    *cu = o;
    if (name && namen) snprintf(name, namen, "%s", first);
    return replaced;
}
