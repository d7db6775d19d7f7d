/* test_util.h — what the tests of PTX text share, header only like common/test.h (each test is one
 * .c file linked with the library): a text parsed with a CHECK that it parses clean, a module
 * printed, and ptxas run on a text.  Include it instead of common/test.h. */
#ifndef PTXGEN_PTX_TEST_UTIL_H
#define PTXGEN_PTX_TEST_UTIL_H
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/test.h"
#include "ptxgen/ptx.h"

/* `text` parsed under the file name `name`, CHECKing that it parses with no error.  The module (NULL
 * when the parser made none) belongs to the caller (ptx_module_free). */
static inline ptx_module *test_ptx_parse(const char *text, const char *name) {
    ptx_module *m = NULL;
    pg_diag_sink q = {0};
    pg_status st = ptx_parse(text, strlen(text), name, &m, &q);
    CHECK(st == PG_OK && q.nerrors == 0, "%s parses (%d errors)", name, q.nerrors);
    return m;
}

/* m as ptx_print writes it (malloc'd by pg_buf, the caller frees it). */
static inline char *test_ptx_printed(const ptx_module *m) {
    pg_buf b = {0};
    ptx_print(m, &b);
    return b.data;
}

/* ptxas (ptx_ptxas_run: arch NULL for the module's own target, relocatable for -c) on `len` bytes of
 * PTX text, written to a temporary file under /tmp that is removed after.  1: ptxas assembled it;
 * 0: ptxas ran and refused it; -1: it could not run (no temporary file, or no ptxas).  log (when not
 * NULL) gets ptxas's log, or "(no log)", cut to logn bytes; "" when it assembled. */
static inline int test_ptxas_text(const char *text, size_t len, const char *arch, bool relocatable, char *log, size_t logn) {
    if (log && logn) log[0] = 0;
    char path[] = "/tmp/ptxgen-test-ptxas-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        if (log && logn) snprintf(log, logn, "(no temporary file)");
        return -1;
    }
    bool wrote = write(fd, text, len) == (ssize_t)len;
    close(fd);
    if (!wrote) {
        unlink(path);
        if (log && logn) snprintf(log, logn, "(the temporary file could not be written)");
        return -1;
    }
    ptxas_report r;
    memset(&r, 0, sizeof r);
    pg_status st = ptx_ptxas_run(path, arch, relocatable, &r, NULL);
    int res = st == PG_OK && r.ran && r.ok ? 1 : r.ran ? 0 : -1;
    if (res != 1 && log && logn) snprintf(log, logn, "%s", r.log ? r.log : "(no log)");
    ptx_ptxas_report_free(&r);
    unlink(path);
    return res;
}
#endif
