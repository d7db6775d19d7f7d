/* test_prepare.c — gen's preparation of the harness's input sets (gpu_memo_prepare; no GPU needed: it is
 * CPU work in a process of its own).  The sets it publishes are byte for byte the ones a worker builds
 * (task_inst_make and the C reference, same sizes, distributions and seeds), each reference sharing its
 * instance's input buffers; a reference that fails on one size is reported (state "failed", the words a
 * worker's setup-error uses) with the sizes before it published and none after; a region too small is
 * "full"; $PTXGEN_GPU_PREPARE=0, a "cu" task, $PTXGEN_GPU_WORKER=0 or a memo that serves a task already
 * start nothing ($PTXGEN_GPU_MEMO=0: no memo at all); a memo freed while its preparation works ends it (no process left, nothing leaked). */
#define _GNU_SOURCE
#include "common/test.h"
#include "gpu/gpu_internal.h"
#include "ptxgen/gpu.h"
#include "ptxgen/task.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[] = "/tmp/ptxgen-prepare-XXXXXX";

/* A task file under root (name.json); loaded, or NULL. */
static task_spec *task(const char *name, const char *text) {
    char p[700];
    snprintf(p, sizeof p, "%s/%s.json", root, name);
    FILE *f = fopen(p, "w");
    if (!f) return NULL;
    fputs(text, f);
    fclose(f);
    task_spec *t = NULL;
    pg_diag_sink q = test_sink();
    if (task_load(p, &t, &q) != PG_OK) fprintf(stderr, "task %s: %s", name, test_diag_log());
    return t;
}

/* out = a * sigmoid(a) (the expression family's reference, expr_eval); sizes largest first, as the suite's */
#define SILU "{\"name\": \"silu\", \"kernel\": \"silu\", \"family\": \"expr\", \"expr\": \"(mul a (sigmoid a))\", \"descriptions\": {\"terse\": \"t\"}," \
    "\"params\": [{\"name\": \"a\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\"}, {\"name\": \"out\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"n\"}," \
    "{\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}], \"sizes\": [{\"n\": %d, \"time\": true}, {\"n\": 1030}, {\"n\": 5}]," \
    "\"launch\": {\"block\": [\"256\"], \"grid\": [\"cdiv(n,256)\"]}, \"distributions\": [\"uniform(-10,10)\", \"normal(0,3)\", \"uniform(0,1)\"]," \
    "\"tolerance\": {\"f32\": 0.0001}, \"reference\": {\"kind\": \"c\", \"name\": \"expr_eval\"}}"

/* Does size s's published set k equal a fresh build (inputs, reference outputs), and share its inputs? */
static bool same_as_fresh(const task_spec *t, const task_inst *pi, const task_inst *pr, int s, int k) {
    task_inst in, ref;
    pg_diag_sink q = {0};
    if (task_inst_make(t, s, k / 5, (uint64_t)(k % 5) + 1, &in, &q) != PG_OK) return false;
    bool ok = task_reference_run(&in, &ref, &q) == PG_OK && pi->size_index == s && pi->seed == (uint64_t)(k % 5) + 1 &&
              pi->dist_index == k / 5;
    for (int i = 0; ok && i < t->nparams; i++) {
        ok = pi->args[i].bytes == in.args[i].bytes && pr->args[i].bytes == ref.args[i].bytes &&
             (!in.args[i].bytes || (!memcmp(pi->args[i].data, in.args[i].data, in.args[i].bytes) &&
                                    !memcmp(pr->args[i].data, ref.args[i].data, ref.args[i].bytes)));
        if (ok && t->params[i].is_pointer && t->params[i].role == TASK_ROLE_IN) ok = pr->args[i].data == pi->args[i].data;
    }
    task_inst_free(&in);
    task_inst_free(&ref);
    return ok;
}

/* A new memo preparing t on `threads` threads with the default options; *st its stats afterwards (waiting for
 * the preparation to end when wait). */
static gpu_memo *prepared(const task_spec *t, int threads, bool wait, gpu_prep_stats *st) {
    gpu_memo *m = gpu_memo_new();
    gpu_run_opts o;
    gpu_run_opts_default(&o);
    gpu_memo_prepare(m, t, &o, threads);
    gpu_memo_prep_stats(m, wait, st);
    return m;
}

static void test_prepared_sets(void) {
    char text[2048];
    snprintf(text, sizeof text, SILU, 70001);
    task_spec *t = task("silu", text);
    CHECK(t != NULL, "the silu task loads");
    if (!t) return;
    gpu_prep_stats st;
    gpu_memo *m = prepared(t, 2, true, &st);
    CHECK(!strcmp(st.state, "done") && st.sets == 45 && st.total == 45 && !st.why[0] && st.seconds >= 0,
          "every set prepared: %s %d/%d %s", st.state, st.sets, st.total, st.why);
    int bad = 0, seen = 0;
    for (int s = 0; s < t->nsizes; s++) {
        const task_inst *ins, *ref;
        int n = 0;
        if (!gpu_memo_shared_sets(m, s, &ins, &ref, &n) || n != 15) { bad++; continue; }
        for (int k = 0; k < n; k++, seen++) bad += !same_as_fresh(t, &ins[k], &ref[k], s, k);
    }
    CHECK(bad == 0 && seen == 45, "the published sets are a worker's, byte for byte (%d of %d differ)", bad, seen);
    /* a memo that serves a task already is not prepared again */
    gpu_run_opts o;
    gpu_run_opts_default(&o);
    gpu_memo_prepare(m, t, &o, 2);
    gpu_memo_prep_stats(m, true, &st);
    CHECK(!strcmp(st.state, "done") && st.sets == 45, "a second prepare changes nothing: %s %d", st.state, st.sets);
    gpu_memo_free(m);
    task_free(t);
}

/* idx = const(9) into m outputs: fine for m = 20, out of range (the reference refuses) for m = 2 */
#define SCATTER "{\"name\": \"sc\", \"kernel\": \"sc\", \"descriptions\": {\"terse\": \"t\"}," \
    "\"family_params\": {\"kind\": \"scatter_add\", \"op\": \"add\", \"x\": \"x\", \"idx\": \"i\", \"out\": \"o\", \"skip\": false}," \
    "\"params\": [{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\"}, {\"name\": \"i\", \"type\": \"s32*\", \"role\": \"in\", \"len\": \"n\", \"dist\": [\"const(9)\"]}," \
    "{\"name\": \"o\", \"type\": \"f32*\", \"role\": \"inout\", \"len\": \"m\"}, {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}, {\"name\": \"m\", \"type\": \"u32\", \"value\": \"m\"}]," \
    "\"sizes\": [{\"n\": 300, \"m\": 40, \"time\": true}, {\"n\": 3, \"m\": 20}, {\"n\": 30, \"m\": 2}], \"launch\": {\"block\": [\"32\"], \"grid\": [\"cdiv(n,32)\"]}," \
    "\"distributions\": [\"uniform(-1,1)\", \"normal(0,1)\"], \"reference\": {\"kind\": \"c\", \"name\": \"fam_elem_scatter\"}}"

static void test_failed(void) {
    task_spec *t = task("scatter", SCATTER);
    CHECK(t != NULL, "the scatter task loads");
    if (!t) return;
    gpu_prep_stats st;
    gpu_memo *m = prepared(t, 0, true, &st);
    /* smallest first: size 1 (3 x 20) published, size 2 (30 x 2: 60) fails, size 0 (300 x 40) never built */
    CHECK(!strcmp(st.state, "failed") && st.sets == 10 && st.total == 30, "failed after one size: %s %d/%d", st.state, st.sets, st.total);
    CHECK(!strncmp(st.why, "size 2: the C reference failed: ", 32) && strstr(st.why, "index 9 outside [0, 2)"),
          "the failure in a worker's words: %s", st.why);
    const task_inst *ins, *ref;
    int n;
    CHECK(gpu_memo_shared_sets(m, 1, &ins, &ref, &n) && !gpu_memo_shared_sets(m, 2, &ins, &ref, &n) &&
              !gpu_memo_shared_sets(m, 0, &ins, &ref, &n),
          "the size before the failure published, none after");
    gpu_memo_free(m);
    task_free(t);
}

static void test_full(void) {
    char text[2048];
    snprintf(text, sizeof text, SILU, 400000);   /* 15 sets of 400000 floats in and out: ~48 MB, more than the region */
    task_spec *t = task("silu_big", text);
    if (!t) { CHECK(0, "silu_big loads"); return; }
    setenv("PTXGEN_GPU_CACHE_MB", "8", 1);
    gpu_prep_stats st;
    gpu_memo *m = prepared(t, 2, true, &st);
    const task_inst *ins, *ref;
    int n;
    CHECK(!strcmp(st.state, "full") && st.sets == 30 && gpu_memo_shared_sets(m, 1, &ins, &ref, &n) && !gpu_memo_shared_sets(m, 0, &ins, &ref, &n),
          "the largest size does not fit: %s %d", st.state, st.sets);
    gpu_memo_free(m);
    unsetenv("PTXGEN_GPU_CACHE_MB");
    task_free(t);
}

static void test_off(void) {
    char text[2048];
    snprintf(text, sizeof text, SILU, 4099);
    task_spec *t = task("silu_small", text);
    char *cu = test_replace(text, "{\"kind\": \"c\", \"name\": \"expr_eval\"}", "{\"kind\": \"cu\"}");
    task_spec *tcu = cu ? task("silu_cu", cu) : NULL;
    free(cu);
    if (!t || !tcu) { CHECK(0, "the small tasks load"); task_free(t); task_free(tcu); return; }
    gpu_run_opts o;
    gpu_run_opts_default(&o);
    gpu_prep_stats st;
    const char *envs[][2] = {{"PTXGEN_GPU_PREPARE", "0"}, {"PTXGEN_GPU_WORKER", "0"}, {NULL, NULL}};
    for (int i = 0; i < 3; i++) {
        if (envs[i][0]) setenv(envs[i][0], envs[i][1], 1);
        gpu_memo *m = prepared(i < 2 ? t : tcu, 1, true, &st);
        const task_inst *ins, *ref;
        int n;
        CHECK(!strcmp(st.state, "off") && st.total == 0 && !gpu_memo_shared_sets(m, 2, &ins, &ref, &n), "%s: nothing prepared: %s",
              envs[i][0] ? envs[i][0] : "a cu task", st.state);
        gpu_memo_free(m);
        if (envs[i][0]) unsetenv(envs[i][0]);
    }
    /* $PTXGEN_GPU_MEMO=0: no memo at all, for every caller (gpu_memo_new is where the switch is read) */
    setenv("PTXGEN_GPU_MEMO", "0", 1);
    gpu_memo *none = gpu_memo_new();
    CHECK(none == NULL, "PTXGEN_GPU_MEMO=0: gpu_memo_new gives NULL");
    gpu_memo_free(none);
    setenv("PTXGEN_GPU_MEMO", "1", 1);
    gpu_memo *one = gpu_memo_new();
    CHECK(one != NULL, "PTXGEN_GPU_MEMO=1: a memo");
    gpu_memo_free(one);
    unsetenv("PTXGEN_GPU_MEMO");
    gpu_memo_prep_stats(NULL, true, &st);
    CHECK(!strcmp(st.state, "off"), "no memo: off");
    gpu_memo_prepare(NULL, t, &o, 1);   /* nothing to do, nothing to crash */
    task_free(t);
    task_free(tcu);
}

/* A memo freed while its preparation works: the process is killed and reaped (no child left). */
static void test_stopped(void) {
    char text[2048];
    snprintf(text, sizeof text, SILU, 3000000);
    task_spec *t = task("silu_stop", text);
    if (!t) { CHECK(0, "silu_stop loads"); return; }
    gpu_prep_stats st;
    gpu_memo *m = prepared(t, 1, false, &st);
    CHECK(!strcmp(st.state, "running") || !strcmp(st.state, "done"), "started: %s", st.state);
    gpu_memo_free(m);
    int status;
    CHECK(waitpid(-1, &status, WNOHANG) < 0, "no child process left after the memo is freed");
    task_free(t);
}

int main(void) {
    if (!mkdtemp(root)) { perror("mkdtemp"); return 1; }
    test_prepared_sets();
    test_failed();
    test_full();
    test_off();
    test_stopped();
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    printf("%d passed, %d failed\n", t_pass, t_fail);
    return t_fail != 0;
}
