/* test_funnel.c — eval_funnel, the verification funnel `eval` and `gen --verify`
 * share, on the corpus's saxpy task: its hand-written kernel passes the validator
 * and (when installed) ptxas and stops at "gpu-not-run"; an unknown opcode stops at
 * the validator with the code and position; a kernel whose signature differs from
 * the task's stops at the validator too; without ptxas the stage says so; and the
 * JSON row marks every stage that did not run as "not run", never as passed.
 * Run from the repository root. */
#include "common/test.h"
#include "ptxgen/eval.h"
#include "ptxgen/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *slurp(const char *path) {
    char *s = NULL;
    size_t n = 0;
    pg_diag_sink q = {0};
    return pg_read_file(path, 1u << 20, &s, &n, &q) == PG_OK ? s : NULL;
}

static void put(const char *path, const char *text) {
    pg_diag_sink q = {0};
    pg_write_file_atomic(path, text, strlen(text), &q);
}

/* a row's string field, "" when absent or not a string */
static const char *str(json_t *row, const char *key) {
    const char *v = json_string_value(json_object_get(row, key));
    return v ? v : "";
}

int main(void) {
    char ptxas_path[512];
    bool have_ptxas = ptxas_find(ptxas_path, sizeof ptxas_path);
    task_spec *t = NULL;
    pg_diag_sink q = {0};
    CHECK(task_load("corpus/saxpy/task.json", &t, &q) == PG_OK, "cannot load corpus/saxpy/task.json");
    char *good = slurp("corpus/saxpy/kernel.ptx");
    CHECK(good != NULL, "cannot read corpus/saxpy/kernel.ptx");
    if (!t || !good) return TEST_DONE();
    char dir[] = "/tmp/ptxgen-funnel-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char path[256];
    snprintf(path, sizeof path, "%s/k.ptx", dir);
    eval_funnel_opts o = {NULL, have_ptxas, false, false, 0};
    eval_funnel_result r;

    /* 1. the hand-written kernel */
    put(path, good);
    eval_funnel(good, path, t, &o, &r);
    CHECK(r.check, "good kernel: check failed: %s", r.detail);
    CHECK(r.ptxas_ran == have_ptxas && (!have_ptxas || r.ptxas_ok), "good kernel: ptxas ran %d ok %d: %s", r.ptxas_ran,
          r.ptxas_ok, r.detail);
    CHECK(!strcmp(r.stage, have_ptxas ? "gpu-not-run" : "ptxas"), "good kernel: stage %s", r.stage);
    CHECK(!r.gpu_ran && !r.correct && !r.gpu_status, "good kernel: GPU ran without a GPU");
    CHECK(!have_ptxas || r.registers > 0, "good kernel: ptxas gave no register count (%d)", r.registers);
    json_t *row = json_object();
    eval_funnel_json(&r, row);
    CHECK(json_is_true(json_object_get(row, "check")), "row: check not true");
    CHECK(!strcmp(str(row, "correct"), "not run"), "row: correct must be \"not run\" without a GPU");
    CHECK(!strcmp(str(row, "loads"), "not run"), "row: loads must be \"not run\" without a GPU");
    json_decref(row);

    /* 2. an unknown opcode: the validator, with its code and position */
    char *bad = test_replace(good, "ret;", "frobnicate;");
    CHECK(bad != NULL, "corpus/saxpy/kernel.ptx has no ret;");
    if (bad) {
        put(path, bad);
        eval_funnel(bad, path, t, &o, &r);
        CHECK(!r.check && !strcmp(r.stage, "validator"), "bad opcode: check %d stage %s", r.check, r.stage);
        CHECK(strstr(r.detail, "E201") && strstr(r.detail, "line "), "bad opcode: detail '%s'", r.detail);
        CHECK(!r.ptxas_ran, "bad opcode: ptxas ran after the validator failed");
        row = json_object();
        eval_funnel_json(&r, row);
        CHECK(!strcmp(str(row, "ptxas"), "not run"), "row: ptxas must be not run");
        CHECK(!strcmp(str(row, "last_stage"), "validator"), "row: last_stage");
        json_decref(row);
        free(bad);
    }

    /* 3. a valid module whose entry has another signature than the task's */
    char *renamed = test_replace(good, ".entry saxpy(", ".entry saxpy_other(");
    CHECK(renamed != NULL, "corpus/saxpy/kernel.ptx has no '.entry saxpy('");
    if (renamed) {
        put(path, renamed);
        eval_funnel(renamed, path, t, &o, &r);
        CHECK(!r.check && strstr(r.detail, "signature"), "renamed entry: check %d detail '%s'", r.check, r.detail);
        /* without a task there is nothing to match: it passes the validator */
        eval_funnel(renamed, path, NULL, &o, &r);
        CHECK(r.check, "renamed entry without a task: %s", r.detail);
        free(renamed);
    }

    /* 4. ptxas switched off: the funnel says why it stopped */
    eval_funnel_opts noptxas = {NULL, false, true, false, 0};
    put(path, good);
    eval_funnel(good, path, t, &noptxas, &r);
    CHECK(r.check && !r.ptxas_ran && !r.gpu_ran && !strcmp(r.stage, "ptxas") && strstr(r.detail, "ptxas not found"),
          "no ptxas: stage %s detail '%s' gpu_ran %d", r.stage, r.detail, r.gpu_ran);

    unlink(path);
    rmdir(dir);
    free(good);
    task_free(t);
    return TEST_DONE();
}
