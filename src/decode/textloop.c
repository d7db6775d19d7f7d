/* textloop.c — gen_text_loops: the plan turn's loop stop (the rule and its numbers in
 * ptxgen/decode.h; train/plan_loop.py is the same rule for the GPU driver). */
#include "ptxgen/decode.h"

#include <stdio.h>
#include <string.h>

static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

typedef struct { const char *s; size_t n; } span;

static bool span_eq(span a, span b) { return a.n == b.n && !memcmp(a.s, b.s, a.n); }

/* The line ending just before text[end] (a '\n' or the text's start), trimmed; *start = where it begins. */
static span line_before(const char *text, size_t end, size_t *start) {
    size_t b = end;
    while (b > 0 && text[b - 1] != '\n') b--;
    *start = b;
    size_t e = end;
    while (b < e && is_ws(text[b])) b++;
    while (e > b && is_ws(text[e - 1])) e--;
    return (span){text + b, e - b};
}

bool gen_text_loops(const char *text, size_t len, char *why, size_t whyn) {
    if (why && whyn) why[0] = 0;
    size_t end = len;   /* only complete lines: up to the last newline */
    while (end > 0 && text[end - 1] != '\n') end--;
    if (end == 0) return false;
    end--;
    /* the same non-blank line GEN_LOOP_LINE_REPEATS times in a row */
    span last = {NULL, 0};
    int run = 0;
    for (size_t at = end + 1, b = 0; at > 0 && run < GEN_LOOP_LINE_REPEATS; at = b) {
        span l = line_before(text, at - 1, &b);
        if (!l.n) continue;
        if (!last.s) last = l;
        else if (!span_eq(l, last)) break;
        run++;
    }
    if (run >= GEN_LOOP_LINE_REPEATS) {
        if (why) snprintf(why, whyn, "the line \"%.*s\" %d times in a row", (int)(last.n < 60 ? last.n : 60), last.s, run);
        return true;
    }
    /* the last words, newest first: the longest period's GEN_LOOP_PERIOD_REPS repetitions need this many.
     * A period p holds when the last max(REPS * p, SPAN_MIN) words repeat every p words. */
    enum { NEED = GEN_LOOP_PERIOD_REPS * GEN_LOOP_PERIOD_WORDS_MAX > GEN_LOOP_PERIOD_SPAN_MIN ?
                  GEN_LOOP_PERIOD_REPS * GEN_LOOP_PERIOD_WORDS_MAX : GEN_LOOP_PERIOD_SPAN_MIN };
    span w[NEED];
    int n = 0;
    for (size_t e = end; e > 0 && n < NEED;) {
        while (e > 0 && is_ws(text[e - 1])) e--;
        size_t b = e;
        while (b > 0 && !is_ws(text[b - 1])) b--;
        if (b < e && !(e - b == 2 && text[b] == '/' && text[b + 1] == '/')) w[n++] = (span){text + b, e - b};
        e = b;
    }
    for (int p = 1; p <= GEN_LOOP_PERIOD_WORDS_MAX; p++) {
        int sp = GEN_LOOP_PERIOD_REPS * p > GEN_LOOP_PERIOD_SPAN_MIN ? GEN_LOOP_PERIOD_REPS * p : GEN_LOOP_PERIOD_SPAN_MIN;
        if (sp > n) break;
        int i = 0;
        while (i + p < sp && span_eq(w[i], w[i + p])) i++;
        if (i + p == sp) {
            if (why) snprintf(why, whyn, "a period of %d words %d times", p, sp / p);
            return true;
        }
    }
    return false;
}
