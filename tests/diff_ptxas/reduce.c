/* reduce.c — delta debugging (Zeller's ddmin over lines) of a disagreement.
 *
 * The header lines (.version/.target/.address_size) stay; every other line
 * of the module may go.  A candidate keeps the disagreement when libptx and
 * ptxas give the same verdicts as on the original and the rejecting side
 * still gives the same first error (normalized message for ptxas, code for
 * libptx), so reduction cannot slide from one bug into another. */
#include "diff.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    dp_oracle *o;
    const dp_target *t;
    const char *header;
    dp_verdict lib, px;
    char px_norm[240];
    int tests;
} rctx;

static char *join(const rctx *c, char **lines, const bool *keep, int n) {
    pg_buf b = {0};
    pg_buf_puts(&b, c->header);
    for (int i = 0; i < n; i++)
        if (keep[i]) { pg_buf_puts(&b, lines[i]); pg_buf_putc(&b, '\n'); }
    return b.data;
}

static bool still_fails(rctx *c, const char *text) {
    dp_verdict l, p;
    dp_libptx_check(text, strlen(text), &l);
    if (l.ok != c->lib.ok) return false;
    if (!l.ok && strcmp(l.code, c->lib.code)) return false;
    c->tests++;
    dp_ptxas_check(c->o, c->t, text, strlen(text), &p);
    if (p.timeout || p.ok != c->px.ok) return false;
    if (!p.ok) {
        char norm[240];
        dp_normalize(p.msg, norm, sizeof norm);
        if (strcmp(norm, c->px_norm)) return false;
    }
    return true;
}

char *dp_reduce(dp_oracle *o, const dp_target *t, const char *text, const dp_verdict *lib, const dp_verdict *px, int *tests) {
    rctx c = {o, t, NULL, *lib, *px, "", 0};
    dp_normalize(px->msg, c.px_norm, sizeof c.px_norm);
    /* split: the first three lines are the header */
    char *copy = strdup(text);
    PG_VEC(char *) lines = {0};
    for (char *p = copy; *p;) {
        char *e = strchr(p, '\n');
        if (e) *e = 0;
        pg_vec_push(lines, p);
        if (!e) break;
        p = e + 1;
    }
    int nh = lines.n < 3 ? lines.n : 3;
    pg_buf hb = {0};
    for (int i = 0; i < nh; i++) { pg_buf_puts(&hb, lines.v[i]); pg_buf_putc(&hb, '\n'); }
    c.header = hb.data ? hb.data : "";
    char **L = lines.v + nh;
    int n = lines.n - nh;
    bool *keep = malloc((size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) keep[i] = L[i][0] != 0;   /* blank lines go at once */
    bool *trial = malloc((size_t)(n ? n : 1));
    /* ddmin on the kept lines: remove chunks (complements of subsets) */
    int gran = 2;
    for (;;) {
        int live = 0;
        for (int i = 0; i < n; i++) live += keep[i];
        if (live < 2) break;
        if (gran > live) gran = live;
        int chunk = (live + gran - 1) / gran;
        bool reduced = false;
        for (int g = 0; g < gran && !reduced; g++) {
            memcpy(trial, keep, (size_t)n);
            int k = 0;
            for (int i = 0; i < n; i++) {
                if (!keep[i]) continue;
                if (k / chunk == g) trial[i] = false;
                k++;
            }
            char *cand = join(&c, L, trial, n);
            if (still_fails(&c, cand)) {
                memcpy(keep, trial, (size_t)n);
                reduced = true;
            }
            free(cand);
        }
        if (reduced) { gran = gran > 2 ? gran - 1 : 2; continue; }
        if (gran >= live) break;
        gran = gran * 2 < live ? gran * 2 : live;
    }
    char *out = join(&c, L, keep, n);
    *tests = c.tests;
    free(keep);
    free(trial);
    pg_vec_free(lines);
    free(copy);
    pg_buf_free(&hb);
    return out;
}
