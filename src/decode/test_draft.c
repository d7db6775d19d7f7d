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

/* Register renames: the register number around a byte, the map, and the translated guess. */
static void test_regmap(void) {
    char c[4];
    long v = 0;
    size_t a = 0, b = 0;
    const char *s = "\tadd.s64 %rd13, %rd6, %r2;";
    CHECK(gen_draft_reg_at(s, strlen(s), 13, c, &v, &a, &b) && !strcmp(c, "rd") && v == 13 && a == 12 && b == 14,
          "reg_at: inside %%rd13 (%s %ld [%zu, %zu))", c, v, a, b);
    CHECK(gen_draft_reg_at(s, strlen(s), 14, c, &v, &a, &b) && v == 13, "reg_at: right after its digits");
    CHECK(gen_draft_reg_at(s, strlen(s), 12, c, &v, &a, &b) && v == 13, "reg_at: at its first digit");
    CHECK(!gen_draft_reg_at(s, strlen(s), 10, c, &v, &a, &b) && !gen_draft_reg_at(s, strlen(s), 7, c, &v, &a, &b), "reg_at: at the class letters, in .s64: no number");
    CHECK(!gen_draft_reg_at(s, strlen(s), 3, c, &v, &a, &b), "reg_at: in the opcode: no register");
    CHECK(!gen_draft_reg_at("0f3F800000", 10, 3, c, &v, &a, &b), "reg_at: digits without a %%class are no register");
    CHECK(!gen_draft_reg_at("%rd1234567", 10, 5, c, &v, &a, &b), "reg_at: more than 6 digits is no register");

    gen_regmap *m = calloc(1, sizeof *m);
    CHECK(m != NULL, "map");
    if (!m) return;
    CHECK(gen_regmap_get(m, "rd", 6) == -1, "map: empty");
    gen_regmap_set(m, "rd", 6, 2);
    gen_regmap_set(m, "rd", 13, 9);
    gen_regmap_set(m, "r", 9, 12);
    gen_regmap_set(m, "rd", DRAFT_REGMAP_N, 1);   /* past the bounds: ignored */
    gen_regmap_set(m, "rdxy", 1, 1);              /* not a class */
    CHECK(gen_regmap_get(m, "rd", 6) == 2 && gen_regmap_get(m, "rd", 13) == 9 && gen_regmap_get(m, "r", 9) == 12, "map: set and get");
    CHECK(gen_regmap_get(m, "r", 6) == -1 && gen_regmap_get(m, "f", 6) == -1 && gen_regmap_get(m, "rd", DRAFT_REGMAP_N) == -1,
          "map: classes apart, unknown numbers -1");
    gen_regmap_set(m, "rd", 6, 0);
    CHECK(gen_regmap_get(m, "rd", 6) == 0, "map: a later rename replaces one (and 0 is a number)");
    gen_regmap_set(m, "rd", 6, 2);

    const char *ref = "\tcvta.to.global.u64 %rd13, %rd6;\n\tld.global.f32 %f1, [%r9];";
    size_t rn = strlen(ref), sk = 99;
    size_t q6 = (size_t)(strstr(ref, "%rd6") - ref) + 3, q13 = (size_t)(strstr(ref, "%rd13") - ref) + 3;
    const char *h1 = "\tcvta.to.global.u64 %rd9, %rd";
    CHECK(gen_regmap_next(m, ref, rn, q6, h1, strlen(h1), &sk) == 2, "next: nvcc's %%rd6 is the model's %%rd2");
    const char *h2 = "\tcvta.to.global.u64 %rd";
    CHECK(gen_regmap_next(m, ref, rn, q13, h2, strlen(h2), &sk) == 9, "next: a destination renamed (13 -> 9)");
    const char *h3 = "\tcvta.to.global.u64 %rd9";
    CHECK(gen_regmap_next(m, ref, rn, q13 + 1, h3, strlen(h3), &sk) == -2 && sk == 1,
          "next: the renamed number is whole, the reference's last digit skipped (skip %zu)", sk);
    const char *h4 = "\tcvta.to.global.u64 %rd1";
    CHECK(gen_regmap_next(m, ref, rn, q13 + 1, h4, strlen(h4), &sk) == -1, "next: typed digits not the rename's prefix: no guess");
    const char *h5 = "\tcvta.to.global.u64 %r";
    CHECK(gen_regmap_next(m, ref, rn, q13, h5, strlen(h5), &sk) == -1, "next: another class: no guess");
    size_t q9 = (size_t)(strstr(ref, "%r9") - ref) + 3;
    const char *h6 = "\tld.global.f32 %f1, [%r1";
    CHECK(gen_regmap_next(m, ref, rn, q9, h6, strlen(h6), &sk) == 2, "next: the model's number longer than nvcc's (9 -> 12): its next digit");
    size_t qf = (size_t)(strstr(ref, "%f1") - ref) + 2;
    const char *h7 = "\tld.global.f32 %f";
    CHECK(gen_regmap_next(m, ref, rn, qf, h7, strlen(h7), &sk) == -1, "next: no rename known: no guess");
    CHECK(gen_regmap_next(m, ref, rn, 2, h7, strlen(h7), &sk) == -1, "next: the reference at no register: no guess");

    /* learning: token ids 1 "\tld", 2 " %", 3 "rd", 4 ",", 5 " [x]", 10..19 the digits 0..9 */
    memset(m, 0, sizeof *m);
    const int32_t dg[10] = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
    const char *rt = "\tld %rd6, [x]\tld %rd13,";
    const int32_t rtok[] = {1, 2, 3, 16, 4, 5, 1, 2, 3, 11, 13, 4};
    const size_t roff[] = {0, 3, 5, 7, 8, 9, 13, 16, 18, 20, 21, 22, 23};
    int from = 0;
    const int32_t h8[] = {1, 2, 3, 12, 4};   /* "\tld %rd2," */
    CHECK(gen_regmap_learn(m, "\tld %rd2,", 9, 1, h8, 5, rtok, 12, roff, rt, dg, &from) && gen_regmap_get(m, "rd", 6) == 2 && from == 3,
          "learn: the text's %%rd2 stands where the reference writes %%rd6 (from %d)", from);
    const int32_t h9[] = {1, 2, 3, 12, 4, 5, 1, 2, 3, 19, 4};   /* then "\tld %rd9,": nvcc's %rd13 is the model's %rd9 */
    CHECK(gen_regmap_learn(m, "\tld %rd2, [x]\tld %rd9,", 22, 1, h9, 11, rtok, 12, roff, rt, dg, &from) && gen_regmap_get(m, "rd", 13) == 9,
          "learn: a number of another length (13 -> 9)");
    CHECK(!gen_regmap_learn(m, "\tld %rd2", 8, 1, h8, 4, rtok, 12, roff, rt, dg, &from), "learn: the last token a digit: the number goes on");
    const int32_t h10[] = {2, 3, 12, 4};   /* " %rd2,": a match of 2 tokens is too short */
    CHECK(!gen_regmap_learn(m, " %rd2,", 6, 1, h10, 4, rtok, 12, roff, rt, dg, &from), "learn: a short match learns nothing");
    const int32_t h11[] = {1, 2, 3, 12, 4};
    CHECK(!gen_regmap_learn(m, "\tld %rd2,", 9, 1, h11, 5, rtok, 12, roff, rt, NULL, &from), "learn: without digit tokens nothing is a number");
    free(m);
}

int main(void) {
    test_hist();
    test_ref();
    test_reg();
    test_plan();
    test_regmap();
    return TEST_DONE();
}
