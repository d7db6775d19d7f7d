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

int ptx_literate_from_loc(ptx_module *m, const char *src, size_t len, int file_id) {
    if (!m) return 0;
    if (!src) { src = ""; len = 0; }
    /* line starts of the plan */
    int nlines = 0, cap = 64;
    const char **starts = malloc(sizeof *starts * (size_t)cap);
    const char *end = src + len;
    starts[nlines++] = src;
    for (const char *p = src; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; ) {
        if (nlines == cap) starts = realloc(starts, sizeof *starts * (size_t)(cap *= 2));
        starts[nlines++] = ++p;
    }
    int written = 0;
    for (int i = 0; i < m->nfuncs; i++) {
        ptx_func *f = &m->funcs[i];
        int cur = 0, pending = 0, o = 0;
        for (int k = 0; k < f->nbody; k++) {
            ptx_stmt st = f->body[k];
            if (st.kind == PTX_ST_DIRECTIVE && st.u.dir.name && !strcmp(st.u.dir.name, ".loc")) {
                int line = loc_line(st.u.dir.text ? st.u.dir.text : "", file_id);
                if (line > 0 && line != cur) pending = cur = line;
                continue;   /* the .loc itself goes */
            }
            st.comment = NULL;
            if (pending) {
                st.comment = plan_comment(m, starts, nlines, end, pending);
                written += st.comment != NULL;
                pending = 0;
            }
            f->body[o++] = st;
        }
        f->nbody = o;
        f->end_comment = NULL;
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
