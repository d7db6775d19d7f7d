/* test_learn.c — best-of-k ordering and reward-hygiene counting (no GPU). */
#include "common/test.h"
#include "ptxgen/eval.h"
#include "ptxgen/gpu.h"

#include <math.h>

static eval_funnel_result fr(const char *stage, bool correct, double speedup, double ms, const char *hyg, bool ftl) {
    eval_funnel_result r;
    memset(&r, 0, sizeof r);
    r.stage = stage;
    r.correct = correct;
    r.speedup = speedup;
    r.ms = ms;
    r.hygiene = hyg;
    r.faster_than_light = ftl;
    return r;
}

static void test_better(void) {
    eval_funnel_result fast = fr("timed", true, 1.4, 0.7, NULL, false), slow = fr("timed", true, 0.9, 1.1, NULL, false);
    eval_funnel_result untimed = fr("correct", true, 0, 0, NULL, false);
    eval_funnel_result ftl = fr("timed", true, 40.0, 0.01, "faster-than-light", true);
    eval_funnel_result wrong = fr("wrong", false, 0, 0, NULL, false), copy = fr("wrong", false, 0, 0, "copies-input", false);
    eval_funnel_result ptxas = fr("ptxas", false, 0, 0, NULL, false), gen = fr("generation", false, 0, 0, NULL, false);
    CHECK(eval_better(&fast, &slow) && !eval_better(&slow, &fast), "the faster correct kernel wins");
    CHECK(eval_better(&slow, &untimed) && !eval_better(&untimed, &slow), "a timed correct kernel beats an untimed one");
    CHECK(eval_better(&slow, &ftl) && !eval_better(&ftl, &slow), "a faster-than-light kernel never beats a clean one");
    CHECK(eval_better(&ftl, &wrong), "...but beats a wrong one");
    CHECK(eval_better(&untimed, &wrong) && eval_better(&wrong, &ptxas) && eval_better(&ptxas, &gen), "stages in order");
    CHECK(!eval_better(&copy, &wrong) && !eval_better(&wrong, &copy), "same stage: the earlier one stays");
    CHECK(!eval_better(&fast, &fast), "a tie keeps the earlier one");
    CHECK(eval_better(&gen, NULL) && !eval_better(NULL, &gen), "anything beats nothing");
    eval_funnel_result a = fr("correct", true, 0, 1.0, NULL, false), b = fr("correct", true, 0, 2.0, NULL, false);
    CHECK(eval_better(&a, &b) && !eval_better(&b, &a), "untimed: lower ms wins when both are known");
    CHECK(eval_stage_rank("timed") > eval_stage_rank("correct") && eval_stage_rank("nonsense") == 0 && eval_stage_rank(NULL) == 0,
          "stage ranks");
}

static void test_counts(void) {
    json_error_t e;
    json_t *rows = json_loads("[{\"config\": \"full\", \"hygiene\": \"not-run\"}, {\"config\": \"full\", \"hygiene\": \"constant\"},"
                              " {\"config\": \"full\"}, {\"config\": \"no_bias\", \"hygiene\": \"constant\"},"
                              " {\"config\": \"full\", \"hygiene\": \"faster-than-light\"}, {\"hygiene\": \"bogus\"}, {\"config\": 3}]",
                              0, &e);
    CHECK(rows != NULL, "rows parse: %s", e.text);
    json_t *c = eval_hygiene_counts(rows, "full");
    CHECK(json_integer_value(json_object_get(c, "not-run")) == 1 && json_integer_value(json_object_get(c, "constant")) == 1 &&
          json_integer_value(json_object_get(c, "faster-than-light")) == 1 && json_integer_value(json_object_get(c, "copies-input")) == 0 &&
          json_integer_value(json_object_get(c, "total")) == 3, "full config counts");
    json_decref(c);
    c = eval_hygiene_counts(rows, NULL);
    CHECK(json_integer_value(json_object_get(c, "constant")) == 2 && json_integer_value(json_object_get(c, "total")) == 4,
          "all configs; unknown reasons are not counted");
    json_decref(c);
    json_t *doc = json_pack("{s:O}", "rows", rows);
    pg_buf md = {0};
    eval_hygiene_markdown(doc, &md);
    CHECK(md.data && strstr(md.data, "not-run 1") && strstr(md.data, "constant 2") && !strstr(md.data, "copies-input"),
          "markdown line: %s", md.data ? md.data : "(none)");
    pg_buf_free(&md);
    json_decref(doc);
    json_t *clean = json_loads("[{\"config\": \"full\"}]", 0, NULL);
    doc = json_pack("{s:o}", "rows", clean);
    pg_buf md2 = {0};
    eval_hygiene_markdown(doc, &md2);
    CHECK(!md2.data || !md2.data[0], "nothing rejected: no line");
    pg_buf_free(&md2);
    json_decref(doc);
    json_decref(rows);
}

/* The pass@k curve eval already reports (unbiased estimator, k = 1, 2, 4 up to the samples drawn):
 * case A has 1 correct of 4, case B none; pass@k averages 1 - C(n-c,k)/C(n,k) over the cases. */
static void test_pass_at_k(void) {
    json_t *rows = json_array();
    for (int c = 0; c < 2; c++)
        for (int s = 0; s < 4; s++)
            json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:b, s:b, s:b, s:b}", "task", c ? "b" : "a",
                                                  "description", "terse", "config", "full", "family", "x", "last_stage", "wrong",
                                                  "sample", s, "check", 1, "ptxas", 1, "loads", 1, "correct", c == 0 && s == 2));
    json_t *doc = json_pack("{s:o, s:b}", "rows", rows, "gpu_ran", 1);
    eval_finalize(doc);
    json_t *curve = json_object_get(json_object_get(json_object_get(doc, "configs"), "full"), "pass_at");
    double p1 = json_number_value(json_object_get(curve, "1")), p2 = json_number_value(json_object_get(curve, "2")),
           p4 = json_number_value(json_object_get(curve, "4"));
    CHECK(fabs(p1 - 0.125) < 1e-12 && fabs(p2 - 0.25) < 1e-12 && fabs(p4 - 0.5) < 1e-12, "pass@1,2,4 = %g %g %g", p1, p2, p4);
    CHECK(json_object_get(curve, "8") == NULL, "no pass@8 from 4 samples");
    /* the tables' pass@1 is the same estimate (sample 0 of case A was wrong: "first sample
     * correct" would say 0), and pass@k is "any of the k correct" */
    json_t *full = json_object_get(json_object_get(doc, "configs"), "full");
    double t1 = json_number_value(json_object_get(full, "pass_at_1")), tk = json_number_value(json_object_get(full, "pass_at_k"));
    CHECK(fabs(t1 - 0.125) < 1e-12 && fabs(tk - 0.5) < 1e-12, "config pass@1 %g pass@k %g", t1, tk);
    json_t *st = json_object_get(json_object_get(doc, "by_style"), "terse"), *ca = json_object_get(json_object_get(doc, "by_category"), "x");
    CHECK(st && fabs(json_number_value(json_object_get(st, "pass_at_1")) - 0.125) < 1e-12 &&
              fabs(json_number_value(json_object_get(st, "pass_at_k")) - 0.5) < 1e-12,
          "by_style pass@1 %g", json_number_value(json_object_get(st, "pass_at_1")));
    CHECK(ca && fabs(json_number_value(json_object_get(ca, "pass_at_1")) - 0.125) < 1e-12, "by_category pass@1");
    CHECK(st && !json_object_get(st, "pass1_sum"), "no working field left in the group");
    json_decref(doc);
}

int main(void) {
    test_better();
    test_counts();
    test_pass_at_k();
    return TEST_DONE();
}
