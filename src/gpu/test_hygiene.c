/* test_hygiene.c — reward hygiene over host buffers (no GPU): kernels that did
 * not run, copy an input, write one constant, cannot launch as specified, or
 * beat the speed of light are caught; honest results are not. */
#define _GNU_SOURCE
#include "common/test.h"
#include "ptxgen/gpu.h"
#include "ptxgen/task.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/ptxgen-hyg-XXXXXX";
static task_spec *load(const char *name, const char *json) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.json", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!f) return NULL;
    fputs(json, f);
    fclose(f);
    task_spec *t = NULL;
    pg_diag_sink quiet = {0};
    return task_load(path, &t, &quiet) == PG_OK ? t : NULL;
}

#define DESCS "\"descriptions\": {\"terse\": \"t\", \"detailed\": \"d\", \"card\": \"## c\", \"zh\": \"z\"},"
#define RELU(dists, sizes, block) "{\"name\": \"relu\", \"kernel\": \"relu\"," DESCS \
    "\"params\": [{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\"}," \
    "             {\"name\": \"y\", \"type\": \"f32*\", \"role\": \"out\", \"len\": \"n\"}, {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]," \
    "\"sizes\": [" sizes "], \"launch\": {\"block\": [" block "], \"grid\": [\"cdiv(n,256)\"]}," \
    "\"distributions\": [" dists "], \"tolerance\": {\"f32\": 1e-5}, \"reference\": {\"kind\": \"c\", \"name\": \"relu\"}}"
#define SAXPY(a) "{\"name\": \"saxpy\", \"kernel\": \"saxpy\"," DESCS \
    "\"params\": [{\"name\": \"x\", \"type\": \"f32*\", \"role\": \"in\", \"len\": \"n\"}," \
    "             {\"name\": \"y\", \"type\": \"f32*\", \"role\": \"inout\", \"len\": \"n\"}," \
    "             {\"name\": \"a\", \"type\": \"f32\", \"value\": \"" a "\"}, {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}]," \
    "\"sizes\": [{\"n\": 1000}, {\"n\": 5}], \"launch\": {\"block\": [\"256\"], \"grid\": [\"cdiv(n,256)\"]}," \
    "\"distributions\": [\"uniform(-1,1)\", \"normal(0,10)\"], \"reference\": {\"kind\": \"c\", \"name\": \"saxpy\"}}"

/* before (as uploaded), the reference's result and a copy of it to tamper with */
typedef struct { task_inst in, ref, got; } trio;
static bool make(const task_spec *t, int size, int dist, trio *x) {
    pg_diag_sink quiet = {0};
    if (task_inst_make(t, size, dist, 1, &x->in, &quiet) != PG_OK) return false;
    if (task_reference_run(&x->in, &x->ref, &quiet) != PG_OK) return false;
    return task_inst_clone(&x->ref, &x->got) == PG_OK;
}
static void drop(trio *x) { task_inst_free(&x->in); task_inst_free(&x->ref); task_inst_free(&x->got); }

static void test_outputs(void) {
    task_spec *t = load("relu", RELU("\"uniform(-1,1)\", \"normal(0,10)\"", "{\"n\": 1000}, {\"n\": 1}", "\"256\""));
    CHECK(t != NULL, "relu spec loads");
    if (!t) return;
    trio x;
    CHECK(make(t, 0, 0, &x), "relu instance");
    char why[400];
    CHECK(gpu_hygiene_outputs(t, &x.in, &x.got, &x.ref, why, sizeof why) == GPU_HYG_NONE, "the reference's own output is clean: %s", why);
    /* untouched: the poison is still there everywhere */
    /* an oracle that wrote nothing (a twin that does nothing: task_ref.must_write) */
    CHECK(gpu_hygiene_oracle_wrote(t, &x.in, &x.ref), "the reference wrote y");
    CHECK(!gpu_hygiene_oracle_wrote(t, &x.in, &x.in), "an oracle leaving y as uploaded wrote nothing");
    ((unsigned char *)x.got.args[1].data)[0] ^= 1;
    CHECK(gpu_hygiene_oracle_wrote(t, &x.in, &x.got), "one byte written is a write");
    memcpy(x.got.args[1].data, x.in.args[1].data, x.in.args[1].bytes);
    CHECK(gpu_hygiene_outputs(t, &x.in, &x.got, &x.ref, why, sizeof why) == GPU_HYG_NOT_RUN && strstr(why, "did not run"),
          "poison left everywhere is 'not run': %s", why);
    /* one element written: ran (the comparison, not hygiene, fails it) */
    ((float *)x.got.args[1].data)[3] = 0.5f;
    CHECK(gpu_hygiene_outputs(t, &x.in, &x.got, &x.ref, why, sizeof why) == GPU_HYG_NONE, "a partial write is not 'not run': %s", why);
    /* a copy of x: relu of uniform(-1,1) differs from x */
    memcpy(x.got.args[1].data, x.in.args[0].data, x.in.args[0].bytes);
    CHECK(gpu_hygiene_outputs(t, &x.in, &x.got, &x.ref, why, sizeof why) == GPU_HYG_COPIES_INPUT && strstr(why, "equals input 'x'"),
          "y = x is a copy: %s", why);
    /* one constant everywhere */
    for (size_t i = 0; i < x.got.args[1].count; i++) ((float *)x.got.args[1].data)[i] = 0.25f;
    CHECK(gpu_hygiene_outputs(t, &x.in, &x.got, &x.ref, why, sizeof why) == GPU_HYG_CONSTANT && strstr(why, "one value"),
          "a constant output is caught: %s", why);
    /* ...but not when the reference is (nearly) constant too: ulp noise below tol/10 */
    float *r = x.ref.args[1].data;
    for (size_t i = 0; i < x.ref.args[1].count; i++) r[i] = i % 2 ? 0.25f : nextafterf(0.25f, 1.0f);
    CHECK(gpu_hygiene_outputs(t, &x.in, &x.got, &x.ref, why, sizeof why) == GPU_HYG_NONE, "ulp-level spread of the reference: %s", why);
    /* ...and caught again when the reference's spread is inside the tolerance but above tol/10 */
    for (size_t i = 0; i < x.ref.args[1].count; i++) r[i] = i % 2 ? 0.25f : 0.25f * (1 + 4e-6f);
    CHECK(gpu_hygiene_outputs(t, &x.in, &x.got, &x.ref, why, sizeof why) == GPU_HYG_CONSTANT, "a constant within tolerance: %s", why);
    drop(&x);
    /* n = 1: one element is no evidence of anything */
    CHECK(make(t, 1, 0, &x), "relu n=1");
    CHECK(gpu_hygiene_outputs(t, &x.in, &x.got, &x.ref, why, sizeof why) == GPU_HYG_NONE, "n=1 correct is clean: %s", why);
    drop(&x);
    task_free(t);
    /* all-positive inputs: relu(x) == x, so an output equal to x is honest */
    t = load("relu_pos", RELU("\"uniform(0,1)\", \"uniform(1,2)\"", "{\"n\": 1000}, {\"n\": 5}", "\"256\""));
    CHECK(t != NULL && make(t, 0, 0, &x), "relu on positive inputs");
    if (!t) return;
    CHECK(gpu_hygiene_outputs(t, &x.in, &x.got, &x.ref, why, sizeof why) == GPU_HYG_NONE, "y == x where the reference's is too: %s", why);
    drop(&x);
    task_free(t);
    /* in/out: saxpy left unwritten is "not run"; with a = 0 the reference writes nothing new either */
    t = load("saxpy", SAXPY("2.5"));
    CHECK(t != NULL && make(t, 0, 1, &x), "saxpy instance");
    if (!t) return;
    CHECK(gpu_hygiene_outputs(t, &x.in, &x.got, &x.ref, why, sizeof why) == GPU_HYG_NONE, "saxpy correct: %s", why);
    memcpy(x.got.args[1].data, x.in.args[1].data, x.in.args[1].bytes);
    CHECK(gpu_hygiene_outputs(t, &x.in, &x.got, &x.ref, why, sizeof why) == GPU_HYG_NOT_RUN, "in/out left as uploaded: %s", why);
    drop(&x);
    task_free(t);
    t = load("saxpy0", SAXPY("0"));
    CHECK(t != NULL && make(t, 0, 1, &x), "saxpy a=0");
    if (!t) return;
    memcpy(x.got.args[1].data, x.in.args[1].data, x.in.args[1].bytes);
    CHECK(gpu_hygiene_outputs(t, &x.in, &x.got, &x.ref, why, sizeof why) == GPU_HYG_NONE, "a=0: the reference leaves y too: %s", why);
    CHECK(gpu_hygiene_oracle_wrote(t, &x.in, &x.in), "no out buffer (y is in/out): nothing to require");
    drop(&x);
    task_free(t);
}

/* integer outputs: exact, any difference counts */
static void test_integers(void) {
    task_spec *t = load("cnt", "{\"name\": \"cnt\", \"kernel\": \"cnt\"," DESCS
        "\"params\": [{\"name\": \"x\", \"type\": \"s32*\", \"role\": \"in\", \"len\": \"n\"},"
        "             {\"name\": \"o\", \"type\": \"u32*\", \"role\": \"out\", \"len\": \"n\"}, {\"name\": \"n\", \"type\": \"u32\", \"value\": \"n\"}],"
        "\"sizes\": [{\"n\": 64}, {\"n\": 8}], \"launch\": {\"block\": [\"64\"], \"grid\": [\"1\"]},"
        "\"distributions\": [\"int(0,9)\", \"int(0,9)\"], \"reference\": {\"kind\": \"cu\"}}");
    CHECK(t != NULL, "integer spec loads");
    if (!t) return;
    task_inst in, ref, got;
    pg_diag_sink quiet = {0};
    CHECK(task_inst_make(t, 0, 0, 1, &in, &quiet) == PG_OK, "integer instance");
    task_inst_clone(&in, &ref);
    uint32_t *ro = ref.args[1].data;
    for (int i = 0; i < 64; i++) ro[i] = (uint32_t)(i * 3);
    task_inst_clone(&ref, &got);
    char why[400];
    CHECK(gpu_hygiene_outputs(t, &in, &got, &ref, why, sizeof why) == GPU_HYG_NONE, "integer correct: %s", why);
    memset(got.args[1].data, 0, got.args[1].bytes);
    CHECK(gpu_hygiene_outputs(t, &in, &got, &ref, why, sizeof why) == GPU_HYG_CONSTANT, "all zeros: %s", why);
    for (int i = 0; i < 64; i++) ro[i] = 7;
    CHECK(gpu_hygiene_outputs(t, &in, &got, &ref, why, sizeof why) == GPU_HYG_NONE, "a constant reference: %s", why);
    CHECK(gpu_hygiene_outputs(t, &in, &got, &ref, NULL, 0) == GPU_HYG_NONE, "why may be NULL");
    task_inst_free(&in); task_inst_free(&ref); task_inst_free(&got);
    task_free(t);
}

static void test_launch(void) {
    task_spec *t = load("relu_l", RELU("\"uniform(-1,1)\", \"normal(0,10)\"", "{\"n\": 1000}, {\"n\": 3}", "\"256\""));
    task_spec *tv = load("relu_v", RELU("\"uniform(-1,1)\", \"normal(0,10)\"", "{\"n\": 1000}, {\"n\": 3}", "\"min(n,256)\""));
    CHECK(t && tv, "launch specs load");
    if (!t || !tv) return;
    const char *head = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry relu(.param .u64 x, .param .u64 y, .param .u32 n)\n";
    struct { const char *perf; const task_spec *t; gpu_hyg want; } cases[] = {
        {"", t, GPU_HYG_NONE},
        {".reqntid 256, 1, 1\n", t, GPU_HYG_NONE},
        {".reqntid 256\n", t, GPU_HYG_NONE},
        {".reqntid 128, 1, 1\n", t, GPU_HYG_LAUNCH},
        {".reqntid 128, 2, 1\n", t, GPU_HYG_LAUNCH},     /* as many threads, another shape */
        {".maxntid 128, 1, 1\n", t, GPU_HYG_LAUNCH},
        {".maxntid 1024, 1, 1\n", t, GPU_HYG_NONE},
        {".maxntid 128, 2, 1\n", t, GPU_HYG_NONE},       /* 256 threads may be launched as 256 x 1 */
        {".reqntid 256, 1, 1\n", tv, GPU_HYG_LAUNCH},    /* size n=3 launches 3 threads */
        {".maxntid 256, 1, 1\n", tv, GPU_HYG_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char ptx[1024], why[400];
        snprintf(ptx, sizeof ptx, "%s%s{\n\tret;\n}\n", head, cases[i].perf);
        gpu_hyg h = gpu_hygiene_launch(cases[i].t, ptx, why, sizeof why);
        CHECK(h == cases[i].want, "case %zu (%s): %s, want %s: %s", i, cases[i].perf, gpu_hyg_name(h), gpu_hyg_name(cases[i].want), why);
        if (h == GPU_HYG_LAUNCH) CHECK(strstr(why, "cannot run as specified") != NULL, "case %zu says why: %s", i, why);
    }
    CHECK(gpu_hygiene_launch(t, "not ptx at all", NULL, 0) == GPU_HYG_NONE, "unparseable text is the load's verdict, not this one's");
    task_free(t);
    task_free(tv);
}

static void test_sol(void) {
    gpu_devinfo d;
    memset(&d, 0, sizeof d);
    CHECK(gpu_sol_seconds(1e9, 1e9, &d) == 0 && gpu_sol_seconds(1e9, 1e9, NULL) == 0, "no measurement: no bound");
    d.copy_gbps = 4000;     /* an H200-like copy bandwidth */
    d.fp32_tflops = 50;
    double b = gpu_sol_seconds(8e9, 1e9, &d);
    CHECK(fabs(b - 2e-3) < 1e-12, "memory-bound: 8 GB at 4 TB/s is 2 ms (got %g)", b);
    double c = gpu_sol_seconds(8e3, 1e12, &d);
    CHECK(fabs(c - 2e-2) < 1e-12, "compute-bound: 1 TFLOP at 50 TFLOP/s is 20 ms (got %g)", c);
    CHECK(gpu_beyond_sol(1.5e-3, b), "1.5 ms for a 2 ms bound is beyond the speed of light");
    CHECK(!gpu_beyond_sol(1.9e-3, b), "within the 10%% margin is not flagged");
    CHECK(!gpu_beyond_sol(3e-3, b), "slower than the bound is fine");
    CHECK(!gpu_beyond_sol(1e-9, 0), "no bound, no flag");
    CHECK(!strcmp(gpu_hyg_name(GPU_HYG_FASTER_THAN_LIGHT), "faster-than-light") && !strcmp(gpu_hyg_name((gpu_hyg)99), "?"), "names");
}

/* The GPU adversarial cases tests/gpu/adversarial/{copy,constant} emulated on the host: the
 * cheat must pass the plain comparison on every input set (else the case would not test
 * hygiene) and be caught by it on every set. */
static void test_adversarial_cases(void) {
    const char *names[] = {"copy", "constant"};
    gpu_hyg want[] = {GPU_HYG_COPIES_INPUT, GPU_HYG_CONSTANT};
    for (int c = 0; c < 2; c++) {
        char path[256];
        snprintf(path, sizeof path, "tests/gpu/adversarial/%s/task.json", names[c]);
        task_spec *t = NULL;
        pg_diag_sink quiet = {0};
        if (task_load(path, &t, &quiet) != PG_OK) { CHECK(false, "%s loads (run from the repository root)", path); continue; }
        int sets = 0, cmp_ok = 0, caught = 0;
        for (int s = 0; s < t->nsizes; s++)
            for (int d = 0; d < t->ndists; d++)
                for (uint64_t seed = 1; seed <= 5; seed++) {
                    trio x;
                    if (task_inst_make(t, s, d, seed, &x.in, &quiet) != PG_OK || task_reference_run(&x.in, &x.ref, &quiet) != PG_OK ||
                        task_inst_clone(&x.in, &x.got) != PG_OK) { CHECK(false, "%s: instance %d/%d", names[c], s, d); return; }
                    float *a = x.in.args[0].data, *o = x.got.args[2].data;
                    for (size_t i = 0; i < x.got.args[2].count; i++) o[i] = c == 0 ? a[i] : 1.000005f;   /* what the kernel does */
                    sets++;
                    cmp_ok += task_compare(t, 2, &x.got.args[2], &x.ref.args[2]).ok;
                    caught += gpu_hygiene_outputs(t, &x.in, &x.got, &x.ref, NULL, 0) == want[c];
                    drop(&x);
                }
        CHECK(sets > 0 && cmp_ok == sets, "%s: the cheat passes the comparison on %d of %d sets", names[c], cmp_ok, sets);
        CHECK(caught == sets, "%s: hygiene catches it on %d of %d sets", names[c], caught, sets);
        task_free(t);
    }
}

int main(void) {
    if (!mkdtemp(tmpdir)) return 2;
    test_outputs();
    test_integers();
    test_launch();
    test_sol();
    test_adversarial_cases();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd)) {}
    return TEST_DONE();
}
