/* test_retrieve.c — the retrieval library (src/decode/retrieve.c): the file format's golden
 * round trip (tests/golden/retrieve/tiny.jsonl is printed back byte for byte), what a query
 * returns (English and Chinese requests, ties, exclusion, length limits, no shared word),
 * every refusal of the reader with its line, the library built from a synth dataset (the
 * skips and their counts, a held-out suite's task kept out), and the two turns' prompts with
 * and without retrieved kernels.  Run from the repository root. */
#include "common/test.h"
#include "ptxgen/decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TINY "tests/golden/retrieve/tiny.jsonl"
#define SYNTH "tests/golden/retrieve/synth.jsonl"

static const char *top(const gen_retr *r, const char *q, const gen_retr_filter *f) {
    gen_retr_hit h[3];
    int n = gen_retr_query(r, q, f, 3, h);
    return n ? h[0].task : "(none)";
}

static void test_golden(gen_retr **out) {
    char *want = test_slurp(TINY);
    CHECK(want != NULL, TINY " readable");
    gen_retr *r = NULL;
    pg_diag_sink d = test_sink();
    CHECK(gen_retr_load(TINY, &r, &d) == PG_OK, "the golden library loads: %s", test_diag_log());
    if (!r || !want) { free(want); *out = r; return; }
    CHECK(gen_retr_count(r) == 5, "5 kernels, not %d", gen_retr_count(r));
    pg_buf b = {0};
    gen_retr_print(r, &b);
    CHECK(b.data && !strcmp(b.data, want), "print(parse(file)) is the file byte for byte; got:\n%s", b.data ? b.data : "");
    pg_buf_free(&b);
    free(want);
    *out = r;
}

static void test_queries(const gen_retr *r) {
    CHECK(!strcmp(top(r, "elementwise relu of a float vector", NULL), "relu_f32"), "English: relu -> relu_f32, got %s",
          top(r, "elementwise relu of a float vector", NULL));
    CHECK(!strcmp(top(r, "ReLU on __half values", NULL), "relu_f16"), "half -> relu_f16, got %s", top(r, "ReLU on __half values", NULL));
    CHECK(!strcmp(top(r, "每一行的最大值", NULL), "rowmax_f32"), "Chinese by characters and pairs -> rowmax_f32, got %s",
          top(r, "每一行的最大值", NULL));
    CHECK(!strcmp(top(r, "共享内存归约求和", NULL), "block_sum_f32"), "Chinese -> block_sum_f32, got %s", top(r, "共享内存归约求和", NULL));
    CHECK(!strcmp(top(r, "MAXIMUM of each ROWS", NULL), "rowmax_f32"), "case and a plural 's' do not matter");
    gen_retr_hit h[8];
    CHECK(gen_retr_query(r, "quaternion slerp", NULL, 8, h) == 0, "no shared word: no kernel");
    CHECK(gen_retr_query(r, "", NULL, 8, h) == 0, "an empty request: no kernel");
    int n = gen_retr_query(r, "relu", NULL, 8, h);
    CHECK(n == 2 && h[0].score >= h[1].score, "relu: the two relu kernels, best first (%d)", n);
    /* exclusion and limits */
    gen_retr_filter f = {.exclude_task = "relu_f32"};
    CHECK(!strcmp(top(r, "elementwise relu of a float vector", &f), "relu_f16"), "the excluded task is never returned");
    gen_retr_filter g = {.max_ptx_bytes = 100};
    CHECK(gen_retr_query(r, "saxpy", &g, 8, h) == 0, "a kernel whose PTX is over the limit is skipped");
    CHECK(gen_retr_query(r, "saxpy", NULL, 8, h) == 1 && !strcmp(h[0].task, "saxpy_f32") && strstr(h[0].ptx, "long kernel") &&
              !strncmp(h[0].plan, "extern", 6) && !strcmp(h[0].family, "map"),
          "a hit points at the kernel's plan, PTX and family");
    /* k = 1 keeps the best; ties go to the earlier kernel */
    gen_retr *t = gen_retr_new();
    const char *d1[] = {"copy a vector"}, *d2[] = {"copy a vector"}, *sty[] = {"terse"};
    CHECK(gen_retr_add(t, "first", "f", sty, d1, 1, "p", "x") == PG_OK && gen_retr_add(t, "second", "f", sty, d2, 1, "p", "x") == PG_OK,
          "adds");
    CHECK(gen_retr_query(t, "copy", NULL, 1, h) == 1 && !strcmp(h[0].task, "first"), "a tie goes to the earlier kernel");
    CHECK(gen_retr_add(t, "first", "f", sty, d1, 1, "p", "x") == PG_ERR_INVALID, "a task twice is refused");
    CHECK(gen_retr_add(t, "third", "f", sty, d1, 0, "p", "x") == PG_ERR_USAGE, "no description is refused");
    const char *empty[] = {""};
    CHECK(gen_retr_add(t, "third", "f", sty, empty, 1, "p", "x") == PG_ERR_USAGE, "an empty description is refused");
    CHECK(gen_retr_add(t, "third", "f", empty, d1, 1, "p", "x") == PG_ERR_USAGE, "an empty style is refused");
    gen_retr_free(t);
}

static void test_eval(const gen_retr *r) {
    gen_retr_style_eval ev[8];
    int ns = gen_retr_eval(r, 3, ev, 8);
    /* relu_f32 finds relu_f16 (same family) and back; rowmax, block_sum and saxpy are alone in theirs */
    long q = 0, at1 = 0, atk = 0;
    for (int i = 0; i < ns; i++) q += ev[i].queries, at1 += ev[i].family_at1, atk += ev[i].family_atk;
    CHECK(ns == 2 && !strcmp(ev[0].style, "terse") && !strcmp(ev[1].style, "zh") && ev[0].queries == 5 && ev[1].queries == 3,
          "styles terse (5) and zh (3): %d %s %ld", ns, ns ? ev[0].style : "", ns ? ev[0].queries : 0L);
    CHECK(q == 8 && at1 == 3 && atk == 3, "leave one out: the relu kernels find each other (3 of their descriptions) (%ld %ld %ld)", q, at1, atk);
    CHECK(gen_retr_eval(r, 0, ev, 8) == 0, "k 0 is refused");
}

static void refused(const char *text, const char *want, const char *label) {
    gen_retr *r = NULL;
    pg_diag_sink d = test_sink();
    pg_status st = gen_retr_parse(text, "lib.jsonl", &r, &d);
    CHECK(st != PG_OK && r == NULL && strstr(test_diag_log(), want) && strstr(test_diag_log(), "E903"), "%s: want '%s' in: %s", label,
          want, test_diag_log());
    gen_retr_free(r);
}

static void test_refusals(void) {
    const char *ok = "{\"task\":\"a\",\"family\":\"f\",\"descriptions\":{\"terse\":\"d\"},\"plan\":\"p\",\"ptx\":\"x\"}\n";
    refused("", "no kernels", "an empty file");
    refused("\n  \n", "no kernels", "blank lines only");
    refused("{\"task\":", "lib.jsonl:1:", "not JSON");
    refused("[1]\n", "JSON object", "not an object");
    char buf[1000];
    snprintf(buf, sizeof buf, "%s%s", ok, ok);
    refused(buf, "lib.jsonl:2:1: error[E903]: retrieval library: task 'a' appears twice", "a task twice, on line 2");
    refused("{\"task\":\"a\",\"family\":\"f\",\"descriptions\":{\"terse\":\"d\"},\"plan\":\"p\",\"ptx\":\"x\",\"pxt\":1}", "unknown key 'pxt'", "a typo");
    refused("{\"task\":\"\",\"family\":\"f\",\"descriptions\":{\"terse\":\"d\"},\"plan\":\"p\",\"ptx\":\"x\"}", "'task' must be", "an empty task");
    refused("{\"task\":\"a\",\"family\":\"f\",\"descriptions\":{},\"plan\":\"p\",\"ptx\":\"x\"}", "non-empty object", "no descriptions");
    refused("{\"task\":\"a\",\"family\":\"f\",\"descriptions\":[\"d\"],\"plan\":\"p\",\"ptx\":\"x\"}", "non-empty object", "a list");
    refused("{\"task\":\"a\",\"family\":\"f\",\"descriptions\":{\"zh\":\"\"},\"plan\":\"p\",\"ptx\":\"x\"}", "non-empty string", "an empty one");
    refused("{\"task\":\"a\",\"family\":\"f\",\"descriptions\":{\"zh\":3},\"plan\":\"p\",\"ptx\":\"x\"}", "non-empty string", "not a string");
    refused("{\"task\":\"a\",\"family\":\"f\",\"descriptions\":{\"terse\":\"d\"},\"ptx\":\"x\"}", "'plan' and 'ptx'", "no plan");
    refused("{\"task\":\"a\",\"descriptions\":{\"terse\":\"d\"},\"plan\":\"p\",\"ptx\":\"x\"}", "'family'", "no family");
    refused("{\"task\":\"a\",\"task\":\"b\",\"family\":\"f\",\"descriptions\":{\"terse\":\"d\"},\"plan\":\"p\",\"ptx\":\"x\"}", "not JSON", "a key twice");
    gen_retr *r = NULL;
    pg_diag_sink d = test_sink();
    CHECK(gen_retr_load("tests/golden/retrieve/nope.jsonl", &r, &d) != PG_OK && r == NULL && strstr(test_diag_log(), "nope.jsonl"),
          "a missing file is named: %s", test_diag_log());
}

static void test_synth(void) {
    gen_retr *r = gen_retr_new();
    gen_retr_build b = {.per_family = 2, .max_ptx_bytes = 200, .exclude = "bench/suite,bench/suite-prose"};
    gen_retr_build_report rep;
    pg_diag_sink d = test_sink();
    CHECK(gen_retr_add_synth(r, SYNTH, &b, &rep, &d) == PG_OK, "the synth dataset is read: %s", test_diag_log());
    CHECK(rep.lines == 9 && rep.added == 3 && rep.family_full == 1 && rep.duplicates == 1 && rep.not_train == 1 && rep.no_plan == 1 &&
              rep.too_long == 1 && rep.excluded == 1 && rep.families == 2,
          "lines %ld added %ld full %ld dup %ld val %ld noplan %ld long %ld excl %ld fams %d", rep.lines, rep.added, rep.family_full,
          rep.duplicates, rep.not_train, rep.no_plan, rep.too_long, rep.excluded, rep.families);
    gen_retr_hit h[8];
    int n = gen_retr_query(r, "中文描述", NULL, 8, h);
    CHECK(n == 3 && !strcmp(h[0].task, "fam_a_1") && !strcmp(h[2].task, "fam_c_1") && !strcmp(h[0].plan, "plan a1"),
          "every style of the task is indexed (zh), the first sample of a task kept, 'frames' skipped (%d)", n);
    CHECK(gen_retr_query(r, "adam", NULL, 8, h) == 0 || strcmp(h[0].task, "adam_step"), "the held-out suite's task is not there");
    gen_retr_free(r);
    /* an unreadable exclude folder and a malformed line are errors, not silent */
    r = gen_retr_new();
    gen_retr_build bad = {.exclude = "tests/golden/retrieve/no-such-suite"};
    d = test_sink();
    CHECK(gen_retr_add_synth(r, SYNTH, &bad, &rep, &d) != PG_OK && strstr(test_diag_log(), "no-such-suite"), "a missing --exclude folder: %s",
          test_diag_log());
    gen_retr_free(r);
    r = gen_retr_new();
    gen_retr_build none = {0};
    d = test_sink();
    CHECK(gen_retr_add_synth(r, TINY, &none, &rep, &d) != PG_OK && strstr(test_diag_log(), "tiny.jsonl:1:"),
          "a line without the synth fields is named: %s", test_diag_log());
    gen_retr_free(r);
}

static void test_prompts(const gen_retr *r) {
    pg_buf a = {0}, b = {0};
    gen_prompt_build_plan("relu", "sm_80", "extern \"C\" __global__ void k(const float* x)", &a);
    gen_prompt_build_plan_ex("relu", "sm_80", NULL, "extern \"C\" __global__ void k(const float* x)", NULL, 0, &b);
    CHECK(!strcmp(a.data, b.data), "no retrieved kernel: the plan turn is byte for byte the plain one");
    a.len = b.len = 0;
    gen_prompt_build_ptx_plan("relu", "sm_80", "plan", "sig", &a);
    gen_prompt_build_ptx_plan_ex("relu", "sm_80", NULL, "plan", "sig", NULL, 0, &b);
    CHECK(!strcmp(a.data, b.data), "no retrieved kernel: the PTX turn is byte for byte the plain one");
    gen_retr_hit h[2];
    int n = gen_retr_query(r, "relu", NULL, 2, h);
    a.len = 0;
    gen_prompt_build_plan_ex("relu of x", "sm_80", NULL, NULL, h, n, &a);
    const char *want = "relu of x\n\nTarget: sm_80\nSimilar verified kernels (they may differ from this request):\n// relu_f32\n"
                       "extern \"C\" __global__ void relu_f32(";
    CHECK(n == 2 && strstr(a.data, want) && strstr(a.data, "// relu_f16\nextern") &&
              strstr(a.data, "}\n\n// relu_f16") && strstr(a.data, "\n\n" GEN_PLAN_REQUEST "; choose"),
          "the plan turn lists both plans after the target, then the request:\n%s", a.data);
    b.len = 0;
    gen_prompt_build_ptx_plan_ex("relu of x", "sm_80", NULL, "the plan", "sig", h, n, &b);
    CHECK(strstr(b.data, "Target: sm_80\nA similar verified kernel in literate PTX (it may differ from this plan):\n// relu_f32\n.version") &&
              !strstr(b.data, "relu_f16") && strstr(b.data, "ret;\n}\n\nThe plan (CUDA C):\nthe plan\n\n" GEN_PTX_REQUEST),
          "the PTX turn gets the first kernel's literate PTX before the plan:\n%s", b.data);
    pg_buf_free(&a);
    pg_buf_free(&b);
}

int main(void) {
    gen_retr *r = NULL;
    test_golden(&r);
    if (r) {
        test_queries(r);
        test_prompts(r);
        test_eval(r);
    }
    gen_retr_free(r);
    test_refusals();
    test_synth();
    printf("%d passed, %d failed\n", t_pass, t_fail);
    return t_fail ? 1 : 0;
}
