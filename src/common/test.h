/* test.h — the tiny test harness every test_*.c uses.  Each program ends by
 * printing "N passed, N failed" and exits nonzero when anything failed. */
#ifndef PTXGEN_TEST_H
#define PTXGEN_TEST_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxgen/common.h"

static int t_pass, t_fail;
#define CHECK(cond, ...) do { if (cond) t_pass++; else { t_fail++; \
        fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)
/* s with its first `from` replaced by `to` (malloc'd), or NULL when `from` is absent:
 * tests derive a broken input from a good one. */
static inline char *test_replace(const char *s, const char *from, const char *to) {
    const char *p = strstr(s, from);
    if (!p) return NULL;
    size_t a = (size_t)(p - s), fl = strlen(from), tl = strlen(to), n = strlen(s);
    char *o = malloc(n - fl + tl + 1);
    if (!o) return NULL;
    memcpy(o, s, a);
    memcpy(o + a, to, tl);
    memcpy(o + a + tl, p + fl, n - a - fl + 1);
    return o;
}
/* Diagnostics captured as text, for the tests of error paths: test_sink() empties the log
 * and returns a sink that appends each diagnostic as one line of test_diag_log(). */
static inline char *test_diag_log(void) {
    static char log[8192];
    return log;
}
static inline void test_diag_capture(void *user, const pg_diag *d) {
    (void)user;
    char buf[800], *log = test_diag_log();
    pg_diag_format(d, buf, sizeof buf);
    size_t n = strlen(log);
    if (n < 8191) snprintf(log + n, 8192 - n, "%s\n", buf);
}
static inline pg_diag_sink test_sink(void) {
    test_diag_log()[0] = 0;
    pg_diag_sink s = {test_diag_capture, NULL, 0, 0, 0};
    return s;
}
/* max |a - b| / max |b| over n values (max |a - b| when b is all zero) */
static inline double test_rel_err(const float *a, const float *b, int n) {
    double md = 0, mb = 0;
    for (int i = 0; i < n; i++) {
        md = fmax(md, fabs((double)a[i] - b[i]));
        mb = fmax(mb, fabs((double)b[i]));
    }
    return mb > 0 ? md / mb : md;
}
/* A whole file (up to 256 MiB, malloc'd, NUL-terminated), or NULL when it cannot be read. */
static inline char *test_slurp(const char *path) {
    char *s = NULL;
    size_t n;
    pg_diag_sink q = {0};
    return pg_read_file(path, 1 << 28, &s, &n, &q) == PG_OK ? s : NULL;
}
/* got against the golden file at path (UPDATE_GOLDEN=1 rewrites the file instead). */
static inline void test_golden_file(const char *path, const char *got) {
    if (getenv("UPDATE_GOLDEN")) {
        FILE *f = fopen(path, "wb");
        CHECK(f && fputs(got, f) >= 0 && fclose(f) == 0, "rewrite %s", path);
        return;
    }
    char *want = test_slurp(path);
    CHECK(want && !strcmp(want, got), "%s matches (UPDATE_GOLDEN=1 rewrites it); got:\n%s", path, got);
    free(want);
}
#define TEST_DONE() (printf("%d passed, %d failed\n", t_pass, t_fail), t_fail ? 1 : 0)
#endif
