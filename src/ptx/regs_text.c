/* regs_text.c — ptx_regs_tighten_text: `ptxgen fmt --tighten-regs` on text.  It parses
 * and validates (validate.c) and then tightens (analysis.c), so it sits above both
 * and neither of them calls the other's caller. */
#include "ptxgen/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool ptx_regs_tighten_text(const char *src, size_t len, pg_buf *out) {
    ptx_module *m = NULL;
    pg_diag_sink quiet = {0};
    /* tightened before it is validated: a body that uses registers past a declared count (a
     * decoder with dec_opts.regs_grow writes one) validates once the counts are raised */
    bool ok = ptx_parse(src, len, "text", &m, &quiet) == PG_OK && !quiet.nerrors;
    /* where each body declaration is, and its count before and after */
    PG_VEC(int) line = {0}, before = {0}, after = {0};
    PG_VEC(const char *) name = {0};
    if (ok) {
        for (int fi = 0; fi < m->nfuncs; fi++)
            for (int i = 0; i < m->funcs[fi].nbody; i++) {
                const ptx_stmt *st = &m->funcs[fi].body[i];
                if (st->kind != PTX_ST_DECL || st->u.decl.space != PTX_SS_REG || st->u.decl.count <= 0) continue;
                pg_vec_push(line, st->u.decl.loc.line);
                pg_vec_push(name, st->u.decl.name);
                pg_vec_push(before, st->u.decl.count);
            }
        ptx_regs_tighten(m);
        ok = ptx_validate(m, &quiet) == PG_OK && !quiet.nerrors;
    }
    if (ok) {
        for (int fi = 0; fi < m->nfuncs; fi++)
            for (int i = 0; i < m->funcs[fi].nbody; i++) {
                const ptx_stmt *st = &m->funcs[fi].body[i];
                if (st->kind == PTX_ST_DECL && st->u.decl.space == PTX_SS_REG && st->u.decl.count > 0) pg_vec_push(after, st->u.decl.count);
            }
    }
    /* copy the text line by line; on a declaration's line, "NAME<K>" becomes "NAME<tight>" */
    bool changed = false;
    int k = 0, ln = 1;
    for (size_t p = 0; p < len;) {
        const char *nl = memchr(src + p, '\n', len - p);
        size_t e = nl ? (size_t)(nl - src) + 1 : len;
        bool done = false;
        while (ok && k < line.n && line.v[k] < ln) k++;
        for (; ok && k < line.n && line.v[k] == ln && !done; k++) {
            if (after.v[k] == before.v[k]) continue;
            char pat[300];
            snprintf(pat, sizeof pat, "%s<%d>", name.v[k], before.v[k]);
            size_t pl = strlen(pat);
            for (size_t q = p; q + pl <= e; q++)
                if (!memcmp(src + q, pat, pl) && (q == p || src[q - 1] == ' ' || src[q - 1] == '\t' || src[q - 1] == ',')) {
                    pg_buf_putn(out, src + p, q - p);
                    pg_buf_printf(out, "%s<%d>", name.v[k], after.v[k]);
                    pg_buf_putn(out, src + q + pl, e - (q + pl));
                    done = changed = true;
                    break;
                }
        }
        if (!done) pg_buf_putn(out, src + p, e - p);
        p = e;
        ln++;
    }
    pg_vec_free(line); pg_vec_free(before); pg_vec_free(after); pg_vec_free(name);
    ptx_module_free(m);
    return changed;
}
