/* test_learn.c — best-of-k ordering and reward-hygiene counting (no GPU). */
#include "common/test.h"
#include "ptxgen/eval.h"
#include "ptxgen/gpu.h"

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

int main(void) {
    test_better();
    test_counts();
    return TEST_DONE();
}
