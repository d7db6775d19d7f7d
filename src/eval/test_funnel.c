/* test_funnel.c — eval_funnel, the verification funnel of eval, gen --verify, run --dry-run
 * and the nvcc wrapper, on the corpus's saxpy task: its hand-written kernel passes the validator
 * and (when installed) ptxas and stops at "gpu-not-run"; an unknown opcode stops at
 * the validator with the code and position; a kernel whose signature differs from
 * the task's stops at the validator too; without ptxas the stage says so; and the
 * JSON row marks every stage that did not run as "not run", never as passed; keep_going
 * runs ptxas after a failed check; a baseline entry (same_as) catches a missing entry or a
 * changed parameter type; without a path ptxas reads a temporary copy.
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
    bool have_ptxas = ptx_ptxas_find(ptxas_path, sizeof ptxas_path);
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
    eval_funnel_opts o = {.ptxas = have_ptxas};
    eval_funnel_result r;
    eval_funnel_in in = {good, NULL, path, NULL};

    /* 1. the hand-written kernel */
    put(path, good);
    eval_funnel(&in, t, &o, &r);
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
    /* where a verification's time goes: ptxas ran, so it took time; the GPU did not */
    double ss = json_real_value(json_object_get(row, "static_seconds")), ps = json_real_value(json_object_get(row, "ptxas_seconds"));
    CHECK(json_is_real(json_object_get(row, "gpu_seconds")) && ss > 0 && (ps > 0) == have_ptxas &&
              json_real_value(json_object_get(row, "gpu_seconds")) == 0,
          "row: static_seconds %g ptxas_seconds %g gpu_seconds %g", ss, ps, json_real_value(json_object_get(row, "gpu_seconds")));
    json_decref(row);
    eval_funnel_result_free(&r);

    /* 2. an unknown opcode: the validator, with its code and position */
    char *bad = test_replace(good, "ret;", "frobnicate;");
    CHECK(bad != NULL, "corpus/saxpy/kernel.ptx has no ret;");
    if (bad) {
        put(path, bad);
        in.text = bad;
        eval_funnel(&in, t, &o, &r);
        CHECK(!r.check && !strcmp(r.stage, "validator"), "bad opcode: check %d stage %s", r.check, r.stage);
        CHECK(strstr(r.detail, "E201") && strstr(r.detail, "line "), "bad opcode: detail '%s'", r.detail);
        CHECK(!r.ptxas_ran, "bad opcode: ptxas ran after the validator failed");
        row = json_object();
        eval_funnel_json(&r, row);
        CHECK(!strcmp(str(row, "ptxas"), "not run"), "row: ptxas must be not run");
        CHECK(!strcmp(str(row, "last_stage"), "validator"), "row: last_stage");
        json_decref(row);
        eval_funnel_result_free(&r);
        /* keep_going (run --dry-run): ptxas runs too, and every diagnostic reaches the sink */
        pg_diag_sink all = {0};
        eval_funnel_opts kg = {.ptxas = have_ptxas, .keep_going = true, .diag = &all};
        eval_funnel(&in, t, &kg, &r);
        CHECK(!r.check && r.ptxas_ran == have_ptxas && (!have_ptxas || !r.ptxas_ok), "keep_going: check %d ptxas ran %d ok %d",
              r.check, r.ptxas_ran, r.ptxas_ok);
        CHECK(all.nerrors >= (have_ptxas ? 2 : 1), "keep_going: %d errors reached the sink", all.nerrors);
        eval_funnel_result_free(&r);
        free(bad);
    }

    /* 3. a valid module whose entry has another signature than the task's */
    char *renamed = test_replace(good, ".entry saxpy(", ".entry saxpy_other(");
    CHECK(renamed != NULL, "corpus/saxpy/kernel.ptx has no '.entry saxpy('");
    if (renamed) {
        put(path, renamed);
        in.text = renamed;
        eval_funnel(&in, t, &o, &r);
        CHECK(!r.check && strstr(r.detail, "signature"), "renamed entry: check %d detail '%s'", r.check, r.detail);
        eval_funnel_result_free(&r);
        /* without a task there is nothing to match: it passes the validator */
        eval_funnel(&in, NULL, &o, &r);
        CHECK(r.check, "renamed entry without a task: %s", r.detail);
        eval_funnel_result_free(&r);
        /* against the original as a baseline (the nvcc wrapper): the entry is missing */
        eval_funnel_in gi = {good, NULL, NULL, "good.ptx"};
        eval_funnel_opts so = {0};
        eval_funnel_result base;
        eval_funnel(&gi, NULL, &so, &base);
        CHECK(base.check && base.module && base.module->nfuncs == 1, "baseline: parsed and valid");
        if (base.module && base.module->nfuncs == 1) {
            so.same_as = &base.module->funcs[0];
            eval_funnel(&in, NULL, &so, &r);
            CHECK(!r.check && r.missing_entry && !r.signature_differs, "same_as: missing entry %d", r.missing_entry);
            eval_funnel_result_free(&r);
            char *fewer = test_replace(good, ".param .u32 n", ".param .s32 n");
            if (fewer) {
                in.text = fewer;
                eval_funnel(&in, NULL, &so, &r);
                CHECK(!r.check && r.signature_differs, "same_as: a changed parameter type is found (%s)", r.detail);
                eval_funnel_result_free(&r);
                free(fewer);
            }
            /* no path: ptxas gets a temporary copy */
            gi.path = NULL;
            eval_funnel_opts tp = {.ptxas = have_ptxas, .same_as = so.same_as};
            eval_funnel(&gi, NULL, &tp, &r);
            CHECK(r.check && r.ptxas_ran == have_ptxas && (!have_ptxas || r.ptxas_ok), "no path: ptxas on a temp copy: %s", r.detail);
            eval_funnel_result_free(&r);
        }
        eval_funnel_result_free(&base);
        free(renamed);
    }

    /* 4. ptxas switched off: the funnel says why it stopped */
    eval_funnel_opts noptxas = {.gpu = true};
    put(path, good);
    in.text = good;
    eval_funnel(&in, t, &noptxas, &r);
    CHECK(r.check && !r.ptxas_ran && !r.gpu_ran && !strcmp(r.stage, "ptxas") && strstr(r.detail, "ptxas not found"),
          "no ptxas: stage %s detail '%s' gpu_ran %d", r.stage, r.detail, r.gpu_ran);
    eval_funnel_result_free(&r);

    unlink(path);
    rmdir(dir);
    free(good);
    task_free(t);
    return TEST_DONE();
}
