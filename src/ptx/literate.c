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

/* Line `n` (1-based) of src as a comment: " " + the text with blanks
 * collapsed, cut at PTX_LITERATE_LINE_MAX bytes on a UTF-8 boundary; NULL for
 * a missing line, one holding only braces and semicolons, or the kernel's
 * `__global__` header line. */
static const char *plan_comment(ptx_module *m, const char *const *starts, int nlines, const char *end, int n) {
    if (n < 1 || n > nlines) return NULL;
    const char *s = starts[n - 1], *e = n < nlines ? starts[n] : end;
    char buf[PTX_LITERATE_LINE_MAX + 8];
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
    if (!code) return NULL;
    buf[k] = 0;
    if (strstr(buf, "__global__")) return NULL;   /* the kernel's own header: the .entry says it */
    if (k > PTX_LITERATE_LINE_MAX + 1) k = PTX_LITERATE_LINE_MAX + 1;
    while (k > 1 && ((unsigned char)buf[k - 1] & 0xC0) == 0x80) k--;   /* a cut UTF-8 sequence */
    if (k > 1 && (unsigned char)buf[k - 1] >= 0xC0) k--;
    while (k > 1 && buf[k - 1] == ' ') k--;
    return pg_arena_strndup(&m->arena, buf, k);
}

/* Plan order.  nvcc -O3 interleaves the instructions of neighbouring plan lines, so a line's comment
 * came back again and again (42% of the comment lines of 60 literate synth samples were repeats,
 * 2026-12-05) and a model writing the kernel lost its place in the plan and looped.  Each run of
 * adjacent instructions of a basic block (its terminator stays last) is put in a list-schedule
 * order of the block's dependence DAG (ptx_dag_build: registers, memory, barriers, the carry flag)
 * that takes, among the ready instructions, the one of the earliest plan line, then nvcc's order.
 * Every dependence is kept, so the kernel computes the same thing; ptxas schedules the machine
 * code itself.  line[] (per statement) moves with the statements.  Returns the instructions moved. */
static int order_run(ptx_func *f, int *line, const ptx_dag *d, int p, int q) {
    int len = q - p + 1, base = d->insns[p];
    int *indeg = calloc((size_t)len, sizeof(int)), *order = malloc(sizeof(int) * (size_t)len);
    bool *done = calloc((size_t)len, sizeof(bool));
    ptx_stmt *tmp = malloc(sizeof(ptx_stmt) * (size_t)len);
    int *tline = malloc(sizeof(int) * (size_t)len);
    if (!indeg || !order || !done || !tmp || !tline) pg_oom();
    for (int e = 0; e < d->ndeps; e++) {
        const ptx_dep *dp = &d->deps[e];
        if (dp->from >= p && dp->to <= q && dp->from < dp->to) indeg[dp->to - p]++;
    }
    int n = 0, cur = 0;   /* the plan line written last before the run */
    for (int k = base - 1; k >= 0 && !cur; k--) cur = line[k];
    while (n < len) {
        /* ready, and of the plan line being written if one is; else of the earliest plan line; then
         * earliest in nvcc's order */
        int pick = -1;
        for (int k = 0; k < len; k++) {
            if (done[k] || indeg[k] != 0) continue;
            if (pick < 0) { pick = k; continue; }
            int lk = line[base + k], lp = line[base + pick];
            if (lp != cur && (lk == cur || lk < lp)) pick = k;
        }
        if (pick < 0) break;   /* a cycle: cannot happen for edges that go forward; keep nvcc's order */
        done[pick] = true;
        order[n++] = pick;
        if (line[base + pick] > 0) cur = line[base + pick];
        for (int e = 0; e < d->ndeps; e++) {
            const ptx_dep *dp = &d->deps[e];
            if (dp->from == p + pick && dp->to <= q && dp->from < dp->to) indeg[dp->to - p]--;
        }
    }
    int moved = 0;
    if (n == len) {
        for (int k = 0; k < len; k++) { tmp[k] = f->body[base + order[k]]; tline[k] = line[base + order[k]]; }
        for (int k = 0; k < len; k++) {
            f->body[base + k] = tmp[k];
            line[base + k] = tline[k];
            moved += order[k] != k;
        }
    }
    free(indeg); free(order); free(done); free(tmp); free(tline);
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
