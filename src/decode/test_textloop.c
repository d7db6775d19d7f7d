/* test_textloop.c — gen_text_loops, the plan turn's loop stop: a line repeated, a paragraph
 * rewritten at other wrap points, and what must not stop (nested braces, a partial line, a
 * plan of the corpus, lines that only drift). */
#include "common/test.h"
#include "ptxgen/decode.h"

#include <glob.h>

static bool loops(const char *s) { return gen_text_loops(s, strlen(s), NULL, 0); }

/* n copies of line (each ending in '\n') after head, appended to b */
static void lines(pg_buf *b, const char *head, const char *line, int n) {
    b->len = 0;
    pg_buf_puts(b, head);
    for (int i = 0; i < n; i++) pg_buf_printf(b, "%s\n", line);
}

/* words w[0..nw) taken round and round, total words in all, `per` words a line, each line led by lead */
static void paragraph(pg_buf *b, const char *const *w, int nw, int total, int per, const char *lead) {
    b->len = 0;
    pg_buf_puts(b, "__global__ void k(float *x) {}\n");
    for (int i = 0; i < total; i++) {
        if (i % per == 0) pg_buf_puts(b, lead);
        pg_buf_printf(b, "%s%s", w[i % nw], (i % per == per - 1 || i == total - 1) ? "\n" : " ");
    }
}

int main(void) {
    pg_buf b = {0};
    char why[200];
    const char *head = "// ew_silu: out[i] = a*silu(a)\n";
    /* a short line: only the line rule can see it (2 words: no period of GEN_LOOP_PERIOD_SPAN_MIN words) */
    lines(&b, head, "  } x", GEN_LOOP_LINE_REPEATS - 1);
    CHECK(!loops(b.data), "%d times is not a loop yet", GEN_LOOP_LINE_REPEATS - 1);
    pg_buf_puts(&b, "} x");
    CHECK(!loops(b.data), "a line without its newline does not count yet");
    pg_buf_puts(&b, "\n");
    CHECK(gen_text_loops(b.data, b.len, why, sizeof why), "%d times is a loop", GEN_LOOP_LINE_REPEATS);
    CHECK(strstr(why, "\"} x\" 8 times in a row") != NULL, "why names the line: %s", why);
    CHECK(!gen_text_loops(b.data, b.len - 5, NULL, 0), "len is honoured: one line fewer is no loop");
    /* blank lines and indentation do not break a run */
    b.len = 0;
    pg_buf_puts(&b, head);
    for (int i = 0; i < GEN_LOOP_LINE_REPEATS; i++) pg_buf_puts(&b, i % 2 ? "\t} x  \n\n" : "} x\n   \n");
    CHECK(loops(b.data), "blank lines between the copies are skipped");
    /* nested blocks close with "}" several times: five (the most of 1000 synth plans) is fine */
    lines(&b, "__global__ void k(float *x) {\n", "}", 5);
    CHECK(!loops(b.data), "five closing braces");
    /* the line of round 6's ew_silu plan, repeated: caught (by its period, before the line rule) */
    lines(&b, head, "//   result is a*rsqrt(abs(a) + 1) + a with rcp.approx (one MUFU op per thread): the", 5);
    CHECK(!loops(b.data), "5 copies of a 15-word line");
    lines(&b, head, "//   result is a*rsqrt(abs(a) + 1) + a with rcp.approx (one MUFU op per thread): the", 6);
    CHECK(gen_text_loops(b.data, b.len, why, sizeof why) && !strcmp(why, "a period of 15 words 6 times"), "6 copies: %s", why);

    /* a 17-word paragraph rewritten, wrapped every 11 words: no line repeats, the words do */
    static const char *const w[] = {"of", "the", "rows", "the", "block", "is", "one", "row", "of", "the", "block", "(the", "sum",
                                    "of", "the", "negative", "log-likelihood"};
    int nw = (int)(sizeof w / sizeof *w);
    paragraph(&b, w, nw, GEN_LOOP_PERIOD_REPS * nw - 1, 11, "// ");
    CHECK(!loops(b.data), "one word short of %d repetitions", GEN_LOOP_PERIOD_REPS);
    paragraph(&b, w, nw, GEN_LOOP_PERIOD_REPS * nw, 11, "// ");
    CHECK(gen_text_loops(b.data, b.len, why, sizeof why) && !strcmp(why, "a period of 17 words 6 times"), "%d repetitions: %s",
          GEN_LOOP_PERIOD_REPS, why);
    paragraph(&b, w, nw, GEN_LOOP_PERIOD_REPS * nw, 7, "");
    CHECK(loops(b.data), "the same without comment markers, wrapped elsewhere");
    /* a short period needs GEN_LOOP_PERIOD_SPAN_MIN words: "a b" 12 times is 24 words */
    static const char *const ab[] = {"a", "b"};
    paragraph(&b, ab, 2, 2 * 12, 6, "");
    CHECK(!loops(b.data), "24 words of a 2-word period");
    paragraph(&b, ab, 2, GEN_LOOP_PERIOD_SPAN_MIN, 6, "");
    CHECK(loops(b.data), "%d words of it", GEN_LOOP_PERIOD_SPAN_MIN);
    /* a period longer than GEN_LOOP_PERIOD_WORDS_MAX is not looked for */
    static const char *const many[] = {"w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8", "w9", "w10", "w11", "w12", "w13",
                                       "w14", "w15", "w16", "w17", "w18", "w19", "w20", "w21", "w22", "w23", "w24", "w25", "w26",
                                       "w27", "w28", "w29", "w30", "w31", "w32", "w33", "w34", "w35", "w36", "w37", "w38", "w39",
                                       "w40", "w41", "w42", "w43", "w44", "w45", "w46", "w47", "w48", "w49", "w50", "w51", "w52",
                                       "w53", "w54", "w55", "w56", "w57", "w58", "w59", "w60", "w61", "w62", "w63", "w64"};
    int nm = (int)(sizeof many / sizeof *many);
    CHECK(nm == GEN_LOOP_PERIOD_WORDS_MAX + 1, "the fixture is one word over the longest period");
    paragraph(&b, many, nm, GEN_LOOP_PERIOD_REPS * nm, 9, "// ");
    CHECK(!loops(b.data), "a %d-word period", nm);
    paragraph(&b, many, nm - 1, GEN_LOOP_PERIOD_REPS * (nm - 1), 9, "// ");
    CHECK(loops(b.data), "a %d-word period", nm - 1);
    /* lines that drift (a counter in each): no exact repeat, left to the token limit */
    b.len = 0;
    for (int i = 0; i < 40; i++) pg_buf_printf(&b, "// Thread c+%d owns thread c+%d, ... (column c+%d)\n", i, i + 1, i + 2);
    CHECK(!loops(b.data), "drifting lines");
    CHECK(!loops("") && !loops("no newline at all") && !loops("\n\n\n\n\n\n\n\n\n"), "empty, partial, blank");

    /* no plan of the corpus loops, at any of its newlines */
    glob_t g;
    int plans = 0, stopped = 0;
    if (glob("corpus/*/*.cu", 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            char *src = NULL;
            size_t n = 0;
            pg_diag_sink q = {0};
            if (pg_read_file(g.gl_pathv[i], 1 << 20, &src, &n, &q) != PG_OK) continue;
            plans++;
            for (size_t at = 0; at < n; at++)
                if (src[at] == '\n' && gen_text_loops(src, at + 1, why, sizeof why)) {
                    stopped++;
                    fprintf(stderr, "%s: %s\n", g.gl_pathv[i], why);
                    break;
                }
            free(src);
        }
        globfree(&g);
    }
    CHECK(plans >= 50 && stopped == 0, "%d of the corpus's %d CUDA files stopped", stopped, plans);
    pg_buf_free(&b);
    return TEST_DONE();
}
