/* test_draft.c — the drafter's guesses (draft.c): the history's next token, a register number's
 * next digit (destination and source, classes sharing a prefix, guarded lines, comments), and the
 * plan line a literate comment copies (blanks collapsed, brace lines and the __global__ line
 * skipped).  Guesses only cost speed when wrong; these pin down what they are. */
#include "common/test.h"
#include "decode/draft.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reg(const char *s, bool *dst) { return gen_draft_reg_digit(s, strlen(s), dst); }

static void test_hist(void) {
    int L = 0;
    const int32_t a[] = {1, 2, 3, 9, 1, 2, 3};   /* "1 2 3" seen before, then 9 */
    CHECK(gen_draft_hist_next(a, 7, &L) == 9 && L == 3, "history: the token after the earlier 1 2 3 (got L %d)", L);
    const int32_t b[] = {5, 6, 7, 8};
    CHECK(gen_draft_hist_next(b, 4, &L) == -1 && L == 0, "history: no earlier occurrence, no guess");
    const int32_t c[] = {4, 7, 1, 4, 8, 4};   /* only "4" repeats: one token of context is too little */
    CHECK(gen_draft_hist_next(c, 6, &L) == -1 && L == 1, "history: a one-token match is no guess");
    const int32_t d[] = {1, 2, 5, 1, 2, 6, 1, 2};   /* two matches of length 2: the most recent wins */
    CHECK(gen_draft_hist_next(d, 8, &L) == 6 && L == 2, "history: ties go to the most recent occurrence");
}

static void test_ref(void) {
    int L = 0, at = 0;
    const int32_t ref[] = {1, 2, 3, 4, 9, 2, 3, 5, 7, 2, 3, 6};
    const int32_t h1[] = {8, 1, 2, 3};   /* "1 2 3" (3 tokens) beats the later "2 3"s */
    CHECK(gen_draft_ref_next(h1, 4, ref, 12, NULL, 0, &L, &at) == 4 && L == 3 && at == 3, "reference: the longest match wins (L %d at %d)", L, at);
    const int32_t h2[] = {8, 2, 3};      /* three "2 3"s: the first one at or after from */
    CHECK(gen_draft_ref_next(h2, 3, ref, 12, NULL, 0, &L, &at) == 4 && L == 2, "reference: ties go to the first occurrence");
    CHECK(gen_draft_ref_next(h2, 3, ref, 12, NULL, 5, &L, &at) == 5 && at == 7, "reference: ties go to the first at or after `from` (at %d)", at);
    CHECK(gen_draft_ref_next(h2, 3, ref, 12, NULL, 11, &L, &at) == 6 && at == 11, "reference: ... and the one at `from` itself");
    CHECK(gen_draft_ref_next(h2, 3, ref, 12, NULL, 12, &L, &at) == 4 && at == 3, "reference: none after `from`: the first");
    const int32_t h3[] = {8, 3, 6};      /* "3 6" ends the reference: nothing follows it */
    CHECK(gen_draft_ref_next(h3, 3, ref, 12, NULL, 0, &L, &at) == -1 && at == -1, "reference: a match at the reference's end is no guess");
    const int32_t h4[] = {8, 7};         /* only "7" occurs: one token is too little */
    CHECK(gen_draft_ref_next(h4, 2, ref, 12, NULL, 0, &L, &at) == -1 && L == 0, "reference: a one-token match is no guess");
    CHECK(gen_draft_ref_next(h4, 0, ref, 12, NULL, 0, &L, &at) == -1 && gen_draft_ref_next(h4, 2, NULL, 0, NULL, 0, &L, &at) == -1,
          "reference: no history or no reference, no guess");
    int32_t lr[20], lh[12];
    for (int i = 0; i < 20; i++) lr[i] = 100 + i;
    for (int i = 0; i < 12; i++) lh[i] = 100 + i;   /* matches 12 tokens: the match stops at 8 */
    CHECK(gen_draft_ref_next(lh, 12, lr, 20, NULL, 0, &L, &at) == 112 && L == 8, "reference: matches are at most 8 tokens (L %d)", L);
    /* digits (tokens 50..59 here) match each other: "mov %r 7 ," against the reference's "mov %r 9 ," */
    const int32_t dig[10] = {50, 51, 52, 53, 54, 55, 56, 57, 58, 59};
    const int32_t rd[] = {20, 21, 59, 22, 23, 40};
    const int32_t hd[] = {20, 21, 57, 22, 23};
    CHECK(gen_draft_ref_next(hd, 5, rd, 6, NULL, 0, &L, &at) == 40 && L == 2, "reference: exact, the match stops at the digit");
    CHECK(gen_draft_ref_next(hd, 5, rd, 6, dig, 0, &L, &at) == 40 && L == 5, "reference: with digits, it runs across them (L %d)", L);
    const int32_t hx[] = {20, 21, 30, 22, 23};   /* a non-digit against the digit: no match across */
    CHECK(gen_draft_ref_next(hx, 5, rd, 6, dig, 0, &L, &at) == 40 && L == 2, "reference: a digit matches only a digit");
    const int32_t h5[] = {2, 3};         /* a history shorter than the match the reference could give */
    CHECK(gen_draft_ref_next(h5, 2, ref, 12, NULL, 0, &L, &at) == 4 && L == 2, "reference: the match never reads before the history");
}

static void test_reg(void) {
    const char *body = "{\n\tld.param.u64 %rd3, [x];\n\tmov.u32 %r1, %tid.x;\n\tadd.s32 %r7, %r1, 4;\n\tmul.wide.u32 %rd12, %r7, 4;\n";
    /* the text after body, the digit drafted (-1: none), whether it is a destination's */
    static const struct { const char *tail; int want; bool dst; const char *what; } cases[] = {
        {"\tadd.s32 %r", 8, true, "destination: the highest %r so far (7) plus one"},
        {"\tadd.s64 %rd", 1, true, "destination %rd: 12 + 1 = 13, first digit 1 (%r numbers do not count)"},
        {"\tadd.s64 %rd1", 3, true, "destination %rd: the second digit of 13"},
        {"\tadd.s64 %rd13", -1, false, "the number is complete: no further digit"},
        {"\tadd.s64 %rd2", -1, false, "digits that are not the guess's prefix: no guess"},
        {"\tadd.s32 %r8, %r", 7, false, "source: the last destination of %r (7)"},
        {"\tld.global.f32 %f1, [%rd", 1, false, "an address register: the last %rd destination (12)"},
        {"\t@%p1 bra $L; \n\t@%p2 add.s32 %r", 8, true, "a guarded line's destination"},
        {"\t// y = %r", -1, false, "no guess inside a comment"},
        {"\t.reg .b32 %r", -1, false, "no guess in a directive"},
        {"\tmov.u32 %r9, %tid", -1, false, "a special register (a class of more than two letters) is no number"},
        {"\tadd.f32 %f", 1, true, "a class not used yet: number 1"},
        {"\tadd.f32 %f1, %f", -1, false, "a source of a class never a destination: no guess"},
    };
    char s[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool dst = !cases[i].dst;
        snprintf(s, sizeof s, "%s%s", body, cases[i].tail);
        int got = reg(s, &dst);
        CHECK(got == cases[i].want && (got < 0 || dst == cases[i].dst), "%s (got %d)", cases[i].what, got);
    }
}

static void test_plan(void) {
    const char *prompt =
        "Write PTX for this plan:\n"
        "__global__ void k(float *y, const float *x, int n)\n"
        "{\n"
        "    int i = blockIdx.x  *  blockDim.x + threadIdx.x;\n"
        "    if (i < n) {\n"
        "        y[i] = x[i] * 2.0f;\n"
        "    }\n"
        "}\n";
    pg_buf out = {0};
    const char *t1 = "{\n\t// int i = blockIdx.x * blockDim.x + threadIdx.x;\n\tmov.u32 %r1, %ctaid.x;\n\t//";
    CHECK(gen_draft_plan_next(prompt, t1, strlen(t1), &out) && out.data && !strcmp(out.data, "if (i < n) {"),
          "the plan line after the last comment's (blanks collapsed both ways): '%s'", out.data ? out.data : "(none)");
    out.len = 0;
    const char *t2 = "{\n\t// if (i < n) {\n\tsetp.ge.s32 %p1, %r1, %r2;\n\t//";
    CHECK(gen_draft_plan_next(prompt, t2, strlen(t2), &out) && !strcmp(out.data, "y[i] = x[i] * 2.0f;"), "then the next: '%s'",
          out.data ? out.data : "(none)");
    out.len = 0;
    const char *t3 = "{\n\t// y[i] = x[i] * 2.0f;\n\tst.global.f32 [%rd1], %f2;\n\t//";
    CHECK(!gen_draft_plan_next(prompt, t3, strlen(t3), &out) && out.len == 0, "after the last line only braces follow: no guess");
    const char *t4 = "{\n\tmov.u32 %r1, %ctaid.x;\n\t//";
    CHECK(!gen_draft_plan_next(prompt, t4, strlen(t4), &out) && out.len == 0, "no whole comment yet: no guess");
    const char *t5 = "{\n\t// not a plan line\n\t//";
    CHECK(!gen_draft_plan_next(prompt, t5, strlen(t5), &out) && out.len == 0, "a comment the plan does not hold: no guess");
    const char *p2 = "__global__ void k(float *y)\n{\n    y[0] = 1.0f;\n}\n";
    const char *t6 = "{\n\t// __global__ void k(float *y)\n\t//";
    CHECK(gen_draft_plan_next(p2, t6, strlen(t6), &out) && !strcmp(out.data, "y[0] = 1.0f;"), "the brace line is skipped: '%s'",
          out.data ? out.data : "(none)");
    pg_buf_free(&out);
}

int main(void) {
    test_hist();
    test_ref();
    test_reg();
    test_plan();
    return TEST_DONE();
}
