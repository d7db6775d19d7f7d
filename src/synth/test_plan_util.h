/* test_plan_util.h — what the synth's plan-style tests share, header only like common/test.h:
 * whether a literate PTX comment is a line of its plan, the seeds they draw, counting a word. */
#ifndef PTXGEN_SYNTH_TEST_PLAN_UTIL_H
#define PTXGEN_SYNTH_TEST_PLAN_UTIL_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ptxgen/common.h"

/* Is the comment com[0..n) (its text after "//", blanks collapsed) a line of cu (blanks collapsed)? */
static inline bool test_in_plan(const char *cu, const char *com, size_t n) {
    pg_buf c = {0}, p = {0};
    for (size_t k = 0; k < n; k++)
        if (!(com[k] == ' ' || com[k] == '\t') || (c.len && c.data[c.len - 1] != ' ')) pg_buf_putc(&c, com[k] == '\t' ? ' ' : com[k]);
    while (c.len && c.data[c.len - 1] == ' ') c.data[--c.len] = 0;
    for (const char *q = cu; *q; q++)
        if (!(*q == ' ' || *q == '\t') || (p.len && p.data[p.len - 1] != ' ' && p.data[p.len - 1] != '\n')) pg_buf_putc(&p, *q == '\t' ? ' ' : *q);
    bool ok = c.len && p.data && strstr(p.data, c.data);
    pg_buf_free(&c);
    pg_buf_free(&p);
    return ok;
}

/* The i-th seed a plan-style test draws a family with (the same seeds in every such test). */
static inline uint64_t test_seed_of(int i) { return 7919ull * (uint64_t)i + 3; }

/* How many times w occurs in s, not overlapping. */
static inline int test_count(const char *s, const char *w) {
    int n = 0;
    for (const char *p = s; (p = strstr(p, w)) != NULL; p += strlen(w)) n++;
    return n;
}

#endif
