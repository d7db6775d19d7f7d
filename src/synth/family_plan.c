/* family_plan.c — the CUDA C plans of the PTX-template families (map, reduce,
 * stencil1d): literate PTX (docs/LITERATE.md) whose comments are lines of the
 * plan the generator writes into s->cu. */
#include "family_internal.h"

#include <stdarg.h>
#include <stdio.h>

void synth_fam_plan(pg_buf *cu, int indent, const char *line) {
    for (int i = 0; i < indent; i++) pg_buf_puts(cu, "    ");
    pg_buf_puts(cu, line);
    pg_buf_putc(cu, '\n');
}

void synth_fam_note(pg_buf *ptx, const char *line) {
    pg_buf_puts(ptx, "\t//");
    bool space = true;   /* a blank goes out before the next word, never two */
    for (const unsigned char *p = (const unsigned char *)line; *p; p++) {
        if (*p <= ' ') { space = true; continue; }
        if (space) pg_buf_putc(ptx, ' ');
        pg_buf_putc(ptx, (char)*p);
        space = false;
    }
    pg_buf_putc(ptx, '\n');
}

void synth_fam_linef(char *dst, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}
