/* literate.c — literate PTX from nvcc's line table (docs/LITERATE.md).
 *
 * nvcc -lineinfo writes `.loc FILE LINE COL` before the instructions of each
 * source line (and `.loc 2 ..., inlined_at 1 LINE COL` inside inlined header
 * code).  Turning those into one `// <plan line>` comment where the line
 * changes gives a kernel whose every block says which statement of the CUDA C
 * plan it implements; the .loc/.file/.section debug text goes away. */
#include "ptxgen/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>

/* The plan line a .loc directive points at: its LINE when FILE is the plan,
 * the inlined_at line when the code was inlined into the plan, else 0. */
static int loc_line(const char *text, int file_id) {
    int file = 0, line = 0;
    if (sscanf(text, "%d %d", &file, &line) != 2) return 0;
    if (file == file_id) return line;
    const char *in = strstr(text, "inlined_at");
    if (in && sscanf(in + 10, "%d %d", &file, &line) == 2 && file == file_id) return line;
    return 0;
}

/* The plan line s..e as a comment's text into buf (PTX_LITERATE_LINE_MAX + 8 bytes): " " + the text
 * with blanks collapsed, cut at PTX_LITERATE_LINE_MAX bytes on a UTF-8 boundary.  Returns its length,
 * 0 for a line holding only braces and semicolons or the kernel's `__global__` header line. */
static size_t comment_text(char *buf, const char *s, const char *e) {
    size_t k = 0;
    bool code = false, space = true;   /* space: the last byte written is a blank (or none yet) */
    buf[k++] = ' ';
    for (const char *p = s; p < e && k < PTX_LITERATE_LINE_MAX + 1; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '\n' || c == '\r' || c == '\t' || c == ' ' || c < 32) {
            if (!space) buf[k++] = ' ';
            space = true;
            continue;
        }
        if (c != '{' && c != '}' && c != ';') code = true;
        buf[k++] = (char)c;
        space = false;
    }
    if (!code) return 0;
    buf[k] = 0;
    if (strstr(buf, "__global__")) return 0;   /* the kernel's own header: the .entry says it */
    if (k > PTX_LITERATE_LINE_MAX + 1) k = PTX_LITERATE_LINE_MAX + 1;
    while (k > 1 && ((unsigned char)buf[k - 1] & 0xC0) == 0x80) k--;   /* a cut UTF-8 sequence */
    if (k > 1 && (unsigned char)buf[k - 1] >= 0xC0) k--;
    while (k > 1 && buf[k - 1] == ' ') k--;
    buf[k] = 0;
    return k;
}

/* Line `n` (1-based) of src as a comment (comment_text), in m's arena; NULL for a missing line or
 * one that is no comment. */
static const char *plan_comment(ptx_module *m, const char *const *starts, int nlines, const char *end, int n) {
    if (n < 1 || n > nlines) return NULL;
    char buf[PTX_LITERATE_LINE_MAX + 8];
    size_t k = comment_text(buf, starts[n - 1], n < nlines ? starts[n] : end);
    return k ? pg_arena_strndup(&m->arena, buf, k) : NULL;
}

int ptx_literate_plan_lines(const char *src, size_t len, char ***out) { return ptx_literate_plan_lines_ex(src, len, out, NULL); }

/* Is the identifier `w` at p (within [p, e)) a whole word? */
static bool word_at(const char *b, const char *p, const char *e, const char *w) {
    size_t k = strlen(w);
    if ((size_t)(e - p) < k || memcmp(p, w, k)) return false;
    if (p > b && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) return false;
    return p + k == e || !(isalnum((unsigned char)p[k]) || p[k] == '_');
}

/* Does the code [p, e) hold a loop header: `for (`, `while (` or `do`? */
static bool loop_header(const char *p, const char *e) {
    for (const char *q = p; q < e; q++) {
        const char *w = word_at(p, q, e, "for") ? q + 3 : word_at(p, q, e, "while") ? q + 5 : NULL;
        if (word_at(p, q, e, "do")) return true;
        if (!w) continue;
        while (w < e && (*w == ' ' || *w == '\t')) w++;
        if (w < e && *w == '(') return true;
    }
    return false;
}

/* The plan's lines, each with whether it runs straight: in the body of a `__global__` function and
 * outside every loop (a `for`/`while`/`do` with its braces, or the one statement after a header
 * without them).  Those are the lines nvcc's code runs once per thread, so their comments come
 * back only where instructions interleave (at most 4 times a line in 200 synth samples,
 * 2026-12-05), while a loop body or a __device__ function inlined at several calls comes back as
 * often as it is unrolled or called.  A brace inside a `//` comment is not code; block comments
 * and strings are not looked into (plans do not put braces there). */
int ptx_literate_plan_lines_ex(const char *src, size_t len, char ***out, bool **straight) {
    *out = NULL;
    if (straight) *straight = NULL;
    int n = 0, cap = 0, depth = 0;
    char **v = NULL, buf[PTX_LITERATE_LINE_MAX + 8];
    bool *st = NULL;
    enum { NEST = 64 };
    char kind[NEST];                        /* per open brace: 'g' a kernel's body, 'l' a loop's, 'b' other */
    bool gpend = false, lpend = false;      /* a __global__ header / a brace-less loop header seen */
    const char *end = src ? src + len : NULL;
    for (const char *p = src; p && p < end;) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e) e = end;
        const char *ce = p;                 /* the code: up to a `//` comment */
        while (ce < e && !(ce[0] == '/' && ce + 1 < e && ce[1] == '/')) ce++;
        bool isloop = loop_header(p, ce), inglobal = false, inloop = false, body = lpend;   /* body: a header's */
        for (int i = 0; i < depth && i < NEST; i++) inglobal |= kind[i] == 'g', inloop |= kind[i] == 'l';
        bool runs_straight = inglobal && !inloop && !isloop && !lpend;
        for (const char *q = p; q + 9 < ce; q++)
            if (!memcmp(q, "__global__", 10)) gpend = true;
        size_t k = comment_text(buf, p, e);
        if (k) {
            if (n == cap) {
                cap = cap ? cap * 2 : 16;
                v = pg_xrealloc(v, sizeof *v * (size_t)cap);
                if (straight) st = pg_xrealloc(st, sizeof *st * (size_t)cap);
            }
            if (st) st[n] = runs_straight;
            v[n] = pg_xmalloc(k + 1);
            memcpy(v[n++], buf, k + 1);
        }
        const char *last = ce;              /* the code's last non-blank byte decides a brace-less header */
        while (last > p && (last[-1] == ' ' || last[-1] == '\t' || last[-1] == '\r')) last--;
        bool brace = false;
        for (const char *q = p; q < ce; q++) {
            if (*q == '{') {
                if (depth < NEST) kind[depth] = gpend ? 'g' : isloop || body ? 'l' : 'b';
                depth++, brace = true, gpend = false, isloop = false, body = false;
            } else if (*q == '}' && depth > 0) {
                depth--;
            }
        }
        if (last > p) lpend = isloop && !brace && last[-1] != ';';
        p = e + 1;
    }
    *out = v;
    if (straight) *straight = st;
    else free(st);
    return n;
}

void ptx_literate_plan_lines_free(char **lines, int n) {
    for (int i = 0; i < n; i++) free(lines[i]);
    free(lines);
}

/* Plan order.  nvcc -O3 interleaves the instructions of neighbouring plan lines, so a line's comment
 * came back again and again (42% of the comment lines of 60 literate synth samples were repeats,
 * 2026-12-05) and a model writing the kernel lost its place in the plan and looped.  Each run of
 * adjacent instructions of a basic block (its terminator stays last) is put in a list-schedule
 * order of the block's dependence DAG (ptx_dag_build: registers, memory, barriers, the carry flag;
 * ptx_dag_order) that keeps writing the plan line being written while one of its instructions is
 * ready, else takes the earliest plan line, then nvcc's order.  Every dependence is kept, so the
 * kernel computes the same thing; ptxas schedules the machine code itself. */
typedef struct {
    const int *line;   /* plan line per statement */
    int base;          /* the run's first statement */
    int cur;           /* the plan line written last */
} plan_pick;

/* The ready instruction of the plan line being written if one is, else of the earliest plan line,
 * then the earliest in nvcc's order: the least (line != cur, line, position). */
static bool goes_first(const plan_pick *c, int k, int b) {
    int lk = c->line[c->base + k], lb = c->line[c->base + b];
    if ((lk == c->cur) != (lb == c->cur)) return lk == c->cur;
    if (lk != lb) return lk < lb;
    return k < b;
}

static int choose_plan_line(void *ctx, const int *ready, int nready) {
    plan_pick *c = ctx;
    int best = 0;
    for (int i = 1; i < nready; i++)
        if (goes_first(c, ready[i], ready[best])) best = i;
    if (c->line[c->base + ready[best]] > 0) c->cur = c->line[c->base + ready[best]];
    return best;
}

/* The run p..q of the block in plan order; line[] (per statement) moves with the statements.
 * Returns the instructions moved. */
static int order_run(ptx_func *f, int *line, const ptx_dag *d, int p, int q) {
    int len = q - p + 1, base = d->insns[p];
    int *order = pg_xmalloc(sizeof(int) * (size_t)len), *tline = pg_xmalloc(sizeof(int) * (size_t)len);
    ptx_stmt *tmp = pg_xmalloc(sizeof(ptx_stmt) * (size_t)len);
    plan_pick c = {line, base, 0};
    for (int k = base - 1; k >= 0 && !c.cur; k--) c.cur = line[k];   /* the plan line written last before the run */
    int moved = 0;
    if (ptx_dag_order(d, p, q, choose_plan_line, &c, order)) {
        for (int k = 0; k < len; k++) { tmp[k] = f->body[base + order[k]]; tline[k] = line[base + order[k]]; }
        for (int k = 0; k < len; k++) {
            f->body[base + k] = tmp[k];
            line[base + k] = tline[k];
            moved += order[k] != k;
        }
    }
    free(order); free(tmp); free(tline);
    return moved;
}

/* order_run over every run of adjacent instructions of every block of f. */
static void order_func(ptx_module *m, ptx_func *f, int *line) {
    ptx_cfg *cfg = NULL;
    if (ptx_cfg_build(m, f, &cfg, NULL) != PG_OK) { ptx_cfg_free(cfg); return; }
    for (int b = 0; b < cfg->nblocks; b++) {
        ptx_dag *d = NULL;
        if (ptx_dag_build(m, f, &cfg->blocks[b], &d) != PG_OK || !d) { ptx_dag_free(d); continue; }
        int lim = d->ninsns;
        if (lim > 0 && ptx_insn_ends_block(&f->body[d->insns[lim - 1]].u.insn)) lim--;
        for (int p = 0; p < lim;) {
            int q = p;
            while (q + 1 < lim && d->insns[q + 1] == d->insns[q] + 1) q++;
            if (q > p) order_run(f, line, d, p, q);
            p = q + 1;
        }
        ptx_dag_free(d);
    }
    ptx_cfg_free(cfg);
}

/* Back runs.  nvcc gives an instruction the line whose expression it computes, also where it computes
 * it late, inside a later line's code (the cvta.to.global of a pointer parameter next to the store that
 * needs it, an index reused by a later line): even in plan order such a run sent the comments back to a
 * line already written, and a model that had learned those returns kept going back (the translations of
 * 2026-12-05, docs/LITERATE.md).  A run of a line already written, none of whose instructions has an
 * effect (ptx_insn_has_effect: it only computes registers), directly followed by an instruction of
 * another line, belongs to that next line: its comment goes and the next line's comment heads it.
 * Only comments move, never an instruction.  From the last run back, so a chain of such runs joins the
 * line they lead to. */
static void absorb_back_runs(const ptx_func *f, int *line, int nlines) {
    int n = f->nbody;
    bool *seen = calloc((size_t)nlines + 2, 1);
    bool *back = calloc((size_t)n + 1, 1);   /* per run start: the run is a back run */
    if (!seen || !back) { free(seen); free(back); return; }   /* nothing absorbed: the comments stay nvcc's */
    int cur = 0;
    for (int k = 0; k < n; k++) {
        int l = line[k];
        if (l <= 0 || l > nlines || l == cur) continue;
        back[k] = seen[l];
        seen[l] = true;
        cur = l;
    }
    for (int k = n - 1; k >= 0; k--) {
        if (!back[k]) continue;
        int e = k;   /* the run k..e-1 of instructions of line[k] */
        bool pure = true;
        while (e < n && f->body[e].kind == PTX_ST_INSN && line[e] == line[k]) {
            pure = pure && !ptx_insn_has_effect(&f->body[e].u.insn);
            e++;
        }
        if (!pure || e >= n || f->body[e].kind != PTX_ST_INSN || line[e] <= 0) continue;
        for (int j = k; j < e; j++) line[j] = line[e];
    }
    free(seen);
    free(back);
}

int ptx_literate_from_loc(ptx_module *m, const char *src, size_t len, int file_id) {
    if (!m) return 0;
    if (!src) { src = ""; len = 0; }
    /* line starts of the plan */
    int nlines = 0, cap = 64;
    const char **starts = pg_xmalloc(sizeof *starts * (size_t)cap);
    const char *end = src + len;
    starts[nlines++] = src;
    for (const char *p = src; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; ) {
        if (nlines == cap) starts = pg_xrealloc(starts, sizeof *starts * (size_t)(cap *= 2));
        starts[nlines++] = ++p;
    }
    /* the dependence DAG needs each instruction's form (which operands it writes): a module the
     * validator rejects keeps nvcc's order */
    pg_diag_sink q = {0};
    bool ordered = ptx_validate(m, &q) == PG_OK && q.nerrors == 0;
    int written = 0;
    for (int i = 0; i < m->nfuncs; i++) {
        ptx_func *f = &m->funcs[i];
        /* the plan line of every statement (0 before the first .loc of the plan); the .loc themselves go */
        int *line = pg_xmalloc(sizeof(int) * (size_t)(f->nbody + 1));
        int cur = 0, o = 0;
        for (int k = 0; k < f->nbody; k++) {
            ptx_stmt st = f->body[k];
            if (st.kind == PTX_ST_DIRECTIVE && st.u.dir.name && !strcmp(st.u.dir.name, ".loc")) {
                int l = loc_line(st.u.dir.text ? st.u.dir.text : "", file_id);
                if (l > 0) cur = l;
                continue;
            }
            line[o] = st.kind == PTX_ST_INSN ? cur : 0;   /* labels and declarations start no comment */
            f->body[o++] = st;
        }
        f->nbody = o;
        if (ordered) order_func(m, f, line);
        absorb_back_runs(f, line, nlines);
        /* a comment where the plan line changes */
        cur = 0;
        for (int k = 0; k < f->nbody; k++) {
            ptx_stmt *st = &f->body[k];
            st->comment = NULL;
            if (line[k] > 0 && line[k] != cur) {
                st->comment = plan_comment(m, starts, nlines, end, line[k]);
                written += st->comment != NULL;
                cur = line[k];
            }
        }
        f->end_comment = NULL;
        free(line);
    }
    int o = 0;
    for (int i = 0; i < m->ntops; i++) {
        const ptx_top *t = &m->tops[i];
        if (t->kind == PTX_TOP_DIRECTIVE && t->u.dir.name && (!strcmp(t->u.dir.name, ".file") || !strcmp(t->u.dir.name, ".section")))
            continue;
        m->tops[o++] = *t;
    }
    m->ntops = o;
    free(starts);
    return written;
}
